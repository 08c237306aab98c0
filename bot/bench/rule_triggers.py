"""``python -m bot bench --rule-triggers``: what rule blocks add to the big ticks, beside an earlier version.

The rule triggers' timing of ``bot.bench.ticks`` (the four rules every round can have, one that
looks at every player at the placements, and one that changes every player), run by worker
processes: one on this checkout and, with ``--baseline DIR``, one on an earlier checkout (e.g.
``git worktree add /tmp/before main``). Each worker builds its ticks' states once, then the two
time one run in turn until every run is done, so that a machine that slows down mid-way slows both
alike. Each worker settles the collector once its states are built, as the bot does once it has loaded
them (``bot.memory``: collect, freeze, and full collections started by Python far more rarely);
every timed tick starts after a collection.
"""

from __future__ import annotations

import statistics
from collections.abc import Sequence
from pathlib import Path

from bot.bench.machine import Loaded
from bot.bench.ticks import RULES_GOAL_MS
from bot.bench.turns import Worker, in_turn

HERE = Path(__file__).resolve().parents[2]
"""This checkout."""
STOP_SECONDS = 30.0
"""How long a worker told to stop (mid-run too, when the bench failed) may take before it is killed."""

WORKER = """
import json, sys
try:
    from bot.bench import ticks as b
except ImportError:  # a checkout from before the benchmarks had a folder of their own
    from bot import bench_ticks as b
from bot.memory import Memory
sizes = [int(s) for s in sys.argv[1].split(",")]
seed = sys.argv[2]
cases = {size: b.tick_cases(size, seed) for size in sizes}
Memory().settle()
print("ready", flush=True)
for line in sys.stdin:
    if line.strip() != "run":
        break
    found = []
    for size in sizes:
        for name, blocks in b.RULE_SETS.items():
            for case in cases[size]:
                timer = b._TimedTriggers()
                with b._in_force(blocks), timer.counting():
                    b._rules_seconds(case)
                found.append([name, case.label, size, timer.seconds])
    print(json.dumps(found), flush=True)
"""
"""A worker: it reads only names both versions have (``tick_cases``, ``RULE_SETS``, ``_in_force``,
``_TimedTriggers``, ``_rules_seconds``), wherever the checkout keeps the tick benches, so an earlier
checkout runs it unchanged."""

Timed = dict[tuple[str, str, int], list[float]]


def measure(versions: dict[str, Path], sizes: Sequence[int], runs: int, seed: str) -> dict[str, Timed]:
    """Each version's seconds in the rule triggers, run by run, the versions taking turns."""
    args = ["-c", WORKER, ",".join(str(s) for s in sizes), seed]
    runs_found = in_turn({label: Worker(path, args) for label, path in versions.items()}, runs, "rule triggers")
    found: dict[str, Timed] = {}
    for label, answers in runs_found.items():
        timed = found[label] = {}
        for answer in answers:
            for name, case, size, seconds in answer:
                timed.setdefault((name, case, int(size)), []).append(float(seconds))
    return found


def report(found: dict[str, Timed], versions: dict[str, Path], sizes: Sequence[int], runs: int) -> str:
    labels = list(found)
    cell = 18
    title = (
        "Rule triggers: time a tick spends in them, rules alone"
        f" (ms over {runs} runs, versions in turn: min / median; goal < {RULES_GOAL_MS:.0f})"
    )
    lines = [title, *(f"  {label}: {path}" for label, path in versions.items())]
    head = "".join(f"  {f'{label[:cell]}, {size:,}':>{cell + 8}}" for size in sizes for label in labels)
    keys = list(dict.fromkeys(key[:2] for timed in found.values() for key in timed))
    width = max(16, *(len(label) + 1 for _, label in keys))
    lines.append(f"    {'':<{width}}{head}")
    for name in dict.fromkeys(name for name, _ in keys):
        lines.append(f"  with {name}:")
        for _, label in (k for k in keys if k[0] == name):
            row = f"    {label:<{width}}"
            for size in sizes:
                for version in labels:
                    seconds = found[version].get((name, label, size), [])
                    if not seconds:
                        row += f"  {'-':>{cell + 8}}"
                        continue
                    low, mid = min(seconds) * 1000, statistics.median(seconds) * 1000
                    text = f"{low:.1f} / {mid:.1f}" + ("" if mid < RULES_GOAL_MS else " OVER")
                    row += f"  {text:>{cell + 8}}"
            lines.append(row)
    return "\n".join(lines)


def rule_trigger_bench(sizes: Sequence[int], runs: int, seed: str, baseline: Path | None = None) -> str:
    """The report: this version's figures, and ``baseline``'s beside them when given."""
    loaded = Loaded()
    versions = {"before": baseline} if baseline is not None else {}
    versions["this version"] = HERE
    return loaded.framed(report(measure(versions, sizes, runs, seed), versions, sizes, runs))
