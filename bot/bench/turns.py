"""Benches that measure this checkout beside an earlier one, the two in turn.

A worker process runs on each checkout's packages: it builds what it measures, says ``ready``, then
answers each ``run`` with one JSON line. The versions take turns run by run (the order alternating), so
that a machine that slows down mid-way slows both alike.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any


class Worker:
    """A worker on ``checkout``'s packages: this interpreter with ``args`` (a ``-c`` script or a file)."""

    def __init__(self, checkout: Path, args: Sequence[str]) -> None:
        env = {**os.environ, "PYTHONPATH": str(checkout)}
        self.checkout = checkout
        self.process = subprocess.Popen(  # noqa: S603 - this interpreter, on a checkout the operator named
            [sys.executable, "-P", *args],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            env=env,
            cwd=checkout,
        )

    def _line(self) -> str:
        if self.process.stdout is None:  # pragma: no cover - made with a pipe
            raise RuntimeError("the worker has no output")
        line = self.process.stdout.readline()
        if not line:
            raise RuntimeError(f"the worker on {self.checkout} stopped (exit {self.process.wait()})")
        return line

    def ready(self) -> None:
        if self._line().strip() != "ready":
            raise RuntimeError(f"the worker on {self.checkout} did not start")

    def run(self) -> Any:
        """One run: what the worker found, read from its JSON line."""
        if self.process.stdin is None:  # pragma: no cover - made with a pipe
            raise RuntimeError("the worker has no input")
        self.process.stdin.write("run\n")
        self.process.stdin.flush()
        return json.loads(self._line())

    def close(self) -> None:
        """Let the worker end (its input closed); one that does not within a minute is killed."""
        if self.process.stdin is not None and not self.process.stdin.closed:
            self.process.stdin.close()
        try:
            self.process.wait(timeout=60)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()


def in_turn(workers: dict[str, Worker], runs: int, what: str) -> dict[str, list[Any]]:
    """Each worker's findings, run by run, the workers taking turns; every worker closed at the end."""
    try:
        for label, worker in workers.items():
            print(f"[bench] {what}: building ({label})", file=sys.stderr, flush=True)
            worker.ready()
        found: dict[str, list[Any]] = {label: [] for label in workers}
        order = list(workers)
        for run in range(runs):
            print(f"[bench] {what}, run {run + 1} of {runs}", file=sys.stderr, flush=True)
            for label in order if run % 2 == 0 else reversed(order):
                found[label].append(workers[label].run())
        return found
    finally:
        for worker in workers.values():
            worker.close()
