"""``python -m bot bench --baseline DIR``: the busy week's CPU per action, here and in an earlier checkout.

Wall time on a shared machine says as much about the neighbours as about the code. This bench counts
what the code itself spends: the same busy week (``bot.bench.week``'s, through ``Router.due_work`` and
``Router.message`` with a durable commit each, of ``WEEK``'s size) is played by this checkout and by
``DIR`` (e.g. ``git worktree add /tmp/before 951e2d1``), each in a process of its own, the two in turn
and each first in every other round. Every process is reaped with its resource usage
(``os.wait4``): the user and system CPU of the whole process, start-up included; the process also
reports the CPU of the week alone. A round with nothing but the start-up (the same imports, the week's
own module's included, no week) is measured first for each: the bench's code is no command's cost.
The figures are CPU per command (a command: one member's message), min and median over
the rounds, and the ratio this / before, taken within each round.

With ``--instructions`` and ``valgrind`` on the machine, one more process each runs the week under
``valgrind --tool=cachegrind --cache-sim=no``: its instruction count does not depend on the machine's
load at all (it takes some fifty times as long).
"""

from __future__ import annotations

import json
import os
import re
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from bot.bench.load import _RUNNER, CHILD_SECONDS, HERE
from bot.bench.load import THIS_FILE as LOAD_FILE
from bot.bench.machine import Loaded

WEEK = {"players": 100, "bids": 6_000, "trades": 600}
"""The busy week each process plays: about 8,000 commands, some 7,000 of them durable."""
ROUNDS = 5
_REFS = re.compile(r"I\s+refs:\s+([\d,]+)")


@dataclass(frozen=True)
class Spent:
    """One process: its commands and what it spent."""

    messages: int
    durable: int
    process_cpu: float
    """User and system seconds of the whole process (``os.wait4``), start-up included."""
    week_cpu: float
    """User and system seconds of the week alone, as the process counted them."""
    wall: float


def _command(checkout: Path, folder: Path, week: dict[str, int] | None, *, valgrind: bool = False) -> list[str]:
    args = [sys.executable, "-c", _RUNNER, str(LOAD_FILE), "week_cpu", json.dumps([str(folder), week])]
    if valgrind:
        return ["valgrind", "--tool=cachegrind", "--cache-sim=no", "--cachegrind-out-file=/dev/null", *args]
    return args


def run_process(command: list[str], checkout: Path) -> tuple[str, str, resource.struct_rusage | None]:
    """Run ``command`` on ``checkout``'s code; its output, its errors and its resource usage. It is killed
    after ``CHILD_SECONDS`` (and when this process is interrupted), and a failure raises."""
    env = {**os.environ, "PYTHONPATH": str(checkout)}
    with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err:
        proc = subprocess.Popen(command, cwd=checkout, env=env, stdout=out, stderr=err, text=True)  # noqa: S603
        usage = None
        try:
            deadline = time.monotonic() + CHILD_SECONDS
            while usage is None:
                pid, status, rusage = os.wait4(proc.pid, os.WNOHANG)
                if pid:
                    usage = rusage
                    proc.returncode = os.waitstatus_to_exitcode(status)
                elif time.monotonic() > deadline:
                    raise RuntimeError(f"the busy week in {checkout} ran over {CHILD_SECONDS:g} s: stopped")
                else:
                    time.sleep(0.02)
        finally:
            if usage is None:
                proc.kill()
                proc.wait()
        out.seek(0)
        err.seek(0)
        output, errors = out.read(), err.read()
    if proc.returncode != 0:
        raise RuntimeError(f"the busy week in {checkout} failed:\n{errors[-3000:]}")
    return output, errors, usage


def spent(checkout: Path, folder: Path, week: dict[str, int] | None) -> Spent:
    """One process on ``checkout``'s code: the week (``None``: the start-up alone)."""
    output, _, usage = run_process(_command(checkout, folder, week), checkout)
    found = json.loads(output.splitlines()[-1])
    cpu = usage.ru_utime + usage.ru_stime if usage is not None else float("nan")
    return Spent(int(found["messages"]), int(found["durable"]), cpu, float(found["cpu"]), float(found["wall"]))


def instructions(checkout: Path, folder: Path, week: dict[str, int] | None) -> int:
    """The instructions the process executes (``valgrind``'s count), start-up included."""
    _, errors, _ = run_process(_command(checkout, folder, week, valgrind=True), checkout)
    found = _REFS.search(errors)
    if found is None:
        raise RuntimeError(f"valgrind gave no instruction count:\n{errors[-2000:]}")
    return int(found.group(1).replace(",", ""))


def _per_command(seconds: float, messages: int) -> float:
    return seconds / messages * 1e6 if messages else float("nan")


def _row(label: str, values: list[float], unit: str) -> str:
    return f"  {label:<52}min {min(values):>9.1f}  median {statistics.median(values):>9.1f} {unit}"


def _ratio(label: str, values: list[float]) -> str:
    verdict = "met" if statistics.median(values) <= 1.0 else "NOT met"
    return f"  {label:<52}min {min(values):>9.3f}  median {statistics.median(values):>9.3f}   (goal <= 1: {verdict})"


def cpu_bench(
    baseline: Path, *, rounds: int = ROUNDS, week: dict[str, int] | None = None, count_instructions: bool = False
) -> str:
    """The interleaved rounds on this checkout and ``baseline``; the report."""
    loaded = Loaded()
    sizes = dict(week or WEEK)
    versions = {"this": HERE, "before": baseline}
    found: dict[str, list[Spent]] = {name: [] for name in versions}
    start_up: dict[str, list[Spent]] = {name: [] for name in versions}
    counted: dict[str, tuple[int, int]] = {}
    with tempfile.TemporaryDirectory(prefix="nomic-cpu-") as tmp:
        folder = Path(tmp)
        for name, checkout in versions.items():  # warms the files and the disk; counted as the start-up
            start_up[name].append(spent(checkout, folder, None))
        for number in range(rounds):
            order = list(versions) if number % 2 == 0 else list(reversed(versions))
            for name in order:
                found[name].append(spent(versions[name], folder, sizes))
                start_up[name].append(spent(versions[name], folder, None))
            done = ", ".join(
                f"{name} {_per_command(found[name][-1].process_cpu, found[name][-1].messages):.0f} µs" for name in order
            )
            print(f"[bench] cpu round {number + 1}/{rounds}: CPU per command {done}", file=sys.stderr, flush=True)
        if count_instructions and shutil.which("valgrind") is not None:
            for name, checkout in versions.items():
                print(f"[bench] instructions under valgrind ({name})", file=sys.stderr, flush=True)
                counted[name] = (instructions(checkout, folder, sizes), instructions(checkout, folder, None))
    lines = [
        (
            f"CPU per command of the busy week ({sizes['players']} players, {sizes['bids']:,} bids,"
            f" {sizes['trades']} trades): {rounds} interleaved rounds, a process each"
        ),
        f"  this version: {HERE}",
        f"  before:       {baseline}",
        (
            f"  commands a week: {found['this'][0].messages:,} here ({found['this'][0].durable:,} durable),"
            f" {found['before'][0].messages:,} before ({found['before'][0].durable:,} durable)"
        ),
        "",
        "user + system CPU, µs per command",
    ]
    for label, key in (("the whole process (os.wait4)", "process"), ("the week alone (in the process)", "week")):
        for name in versions:
            values = [_per_command(_cpu(s, key), s.messages) for s in found[name]]
            lines.append(_row(f"{label}, {name}", values, "µs"))
    lines += [
        _row(f"start-up alone (no week), {name}", [s.process_cpu * 1000 for s in start_up[name]], "ms")
        for name in versions
    ]
    lines += ["", "this / before, within each round"]
    for label, key in (("CPU per command, whole process", "process"), ("CPU per command, the week alone", "week")):
        ratios = [
            _per_command(_cpu(mine, key), mine.messages) / _per_command(_cpu(theirs, key), theirs.messages)
            for mine, theirs in zip(found["this"], found["before"], strict=True)
        ]
        lines.append(_ratio(label, ratios))
    start_ratios = [
        mine.process_cpu / theirs.process_cpu for mine, theirs in zip(start_up["this"], start_up["before"], strict=True)
    ]
    lines.append(_ratio("start-up alone", start_ratios))
    if counted:
        lines += ["", "instructions (valgrind, one process each; the week: the process less the start-up alone)"]
        for name in versions:
            whole, alone = counted[name]
            messages = found[name][0].messages
            lines.append(
                f"  {name:<8}{whole:>16,} the process, {alone:>15,} the start-up,"
                f" {(whole - alone) / messages:>12,.0f} a command"
            )
        mine_week = (counted["this"][0] - counted["this"][1]) / found["this"][0].messages
        theirs_week = (counted["before"][0] - counted["before"][1]) / found["before"][0].messages
        lines.append(f"  this / before a command: {mine_week / theirs_week:.3f}")
    elif count_instructions:
        lines += ["", "no instruction counts: valgrind is not on this machine"]
    return loaded.framed("\n".join(lines))


def _cpu(spent: Spent, key: str) -> float:
    return spent.process_cpu if key == "process" else spent.week_cpu
