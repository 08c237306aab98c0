"""``python -m bot bench --replay SCENARIO``: a whole replay on disk against the disk's own commits.

What a member waits for is one durable action; the cheapest durable write this disk allows is one
single-row autocommit through aiosqlite. Each round measures, one right after the other on the same
disk (the order alternating from round to round, so drift of the disk or of the machine spreads over
both): ``ROWS`` raw single-row commits, and ``python -m bot replay --db FRESH SCENARIO`` as a process
of its own, start-up included (with ``--baseline DIR``, the same replay on that checkout too). The
replay's rate is its durable actions (the rows of the round's log once it is done) over the process's
wall time; the figure that matters is that rate over the raw commits' rate in the same round (1.0: one
fsync per action; a replay that applies the next line while the previous one commits may pass it).
"""

from __future__ import annotations

import asyncio
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

from bot.bench.load import HERE, raw_commits
from bot.bench.machine import Loaded

ROWS = 2_000
"""Raw single-row commits a round."""
REPLAY_SECONDS = 1_800
"""A replay that has not ended by then is killed and the bench fails (it never hangs)."""


def _replay(checkout: Path, scenario: Path, folder: Path, seed: str, until: str | None) -> float:
    """Durable actions a second of one whole ``replay`` process on ``checkout``."""
    db = folder / "replay.db"
    args = [sys.executable, "-P", "-m", "bot", "replay", "--seed", seed, "--db", str(db)]
    if until is not None:
        args += ["--until", until]
    started = time.perf_counter()
    subprocess.run(  # noqa: S603 - this interpreter, on a checkout the operator named
        [*args, str(scenario)],
        cwd=checkout,
        env={"PYTHONPATH": str(checkout), "PATH": "/usr/bin:/bin"},
        stdout=subprocess.DEVNULL,
        check=True,
        timeout=REPLAY_SECONDS,
    )
    wall = time.perf_counter() - started
    with sqlite3.connect(db) as conn:
        (actions,) = conn.execute("SELECT count(*) FROM actions").fetchone()
    return float(actions) / wall


def _figures(values: Sequence[float], digits: int) -> str:
    return f"min {min(values):>9.{digits}f}  median {statistics.median(values):>9.{digits}f}"


def replay_bench(scenario: Path, rounds: int, seed: str, until: str | None, baseline: Path | None) -> str:
    loaded = Loaded()
    versions = {"this version": HERE} | ({"before": baseline} if baseline is not None else {})
    rates: dict[str, list[float]] = {"raw": [], **{label: [] for label in versions}}
    for run in range(rounds):
        print(f"[bench] replay on disk, round {run + 1} of {rounds}", file=sys.stderr, flush=True)
        kinds = ["raw", *versions]
        for kind in kinds if run % 2 == 0 else reversed(kinds):
            with tempfile.TemporaryDirectory(prefix="nomic-replay-bench-", dir=None) as where:
                folder = Path(where)
                if kind == "raw":
                    rates["raw"].append(asyncio.run(raw_commits(folder / "raw.db", ROWS)))
                else:
                    rates[kind].append(_replay(versions[kind], scenario, folder, seed, until))
    lines = [
        f"Replay on disk: {scenario.name}, {rounds} rounds in turn with {ROWS:,} raw single-row commits",
        "per second",
        f"  raw aiosqlite single-row commits        {_figures(rates['raw'], 0)}",
    ]
    lines += [f"  replay, durable actions: {label:<13} {_figures(rates[label], 0)}" for label in versions]
    lines.append("ratios (within each round)")
    for label in versions:
        ratio = [r / raw for r, raw in zip(rates[label], rates["raw"], strict=True)]
        goal = "met" if statistics.median(ratio) >= 0.5 else "NOT met"
        lines.append(f"  replay, {label:<13} / raw single-row {_figures(ratio, 2)}   (goal >= 0.5: {goal})")
    if baseline is not None:
        ratio = [a / b for a, b in zip(rates["this version"], rates["before"], strict=True)]
        lines.append(f"  replay, this version / before          {_figures(ratio, 2)}")
    return loaded.framed("\n".join(lines))
