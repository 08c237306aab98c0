"""What else the machine was doing while a bench ran: its load beside the figures.

A figure taken while other work shares the cores is not the code's alone. Every report shows the
load average (the run queue over 1, 5 and 15 minutes) and the cores, at its start and at its end,
so that a reader can tell a slow machine from slow code.
"""

from __future__ import annotations

import os
from collections.abc import Callable


def load_line(when: str) -> str:
    """``machine at the start: load average 1.13 1.55 2.15 (1, 5, 15 min) on 2 CPUs``."""
    cpus = os.cpu_count() or 0
    try:
        one, five, fifteen = os.getloadavg()
    except OSError:  # a system that does not keep one
        return f"machine {when}: load average unknown, {cpus} CPUs"
    return f"machine {when}: load average {one:.2f} {five:.2f} {fifteen:.2f} (1, 5, 15 min) on {cpus} CPUs"


class BenchFailedError(RuntimeError):
    """A bench that could not measure (said in one line, the command exits 1): never a hang, never a traceback."""


class Loaded:
    """The machine's load when a report began, to frame it once it is done."""

    def __init__(self) -> None:
        self.start = load_line("at the start")

    def framed(self, report: str) -> str:
        """``report`` between the load at its start and the load now."""
        return f"{self.start}\n{report}\n{load_line('at the end')}"


def printed(say: Callable[[str], None] = print) -> Callable[[], None]:
    """Print the load now, for a bench that prints its report as it goes; returns what prints it at the end."""
    say(load_line("at the start"))
    return lambda: say(load_line("at the end"))
