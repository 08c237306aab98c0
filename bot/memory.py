"""Keeping Python's full garbage collections out of the big ticks.

A full collection scans every container object the collector tracks: with a 3,000-player round
loaded, and discord.py's caches of its members, that is hundreds of thousands of objects and
30 ms or more. The thousands of objects a placements tick makes are what most often sets one
off, in the middle of that tick. So the bot collects at moments it chooses, once the states are
loaded and after each scheduled work it applied, and then freezes what survived (``gc.freeze``):
frozen objects are never scanned again, yet are freed as soon as nothing refers to them, as any
object is. Each collection then scans only what was made since the one before, and Python is
told to start full collections by itself far more rarely than its default, since these do the
work. ``python -m bot bench --ticks-only`` times the ticks under this policy and counts the full
collections inside them (``--tick-gc python`` for Python's defaults).

A frozen object that later ends up in an unreachable cycle is reclaimed only when everything is
unfrozen and collected: every ``FULL_PASS_EVERY``, right after a scheduled work, never during one.
"""

from __future__ import annotations

import gc
import time
from collections.abc import Callable

FULL_PASS_EVERY = 24 * 3600.0
"""Seconds between full passes over every object, the frozen ones too."""
FULL_AFTER_MIDDLE = 1_000
"""Collections of the middle generation before Python starts a full one by itself (its default
is 10): ``settle`` does that work at a chosen moment instead."""


class Memory:
    """When to collect and freeze; ``enabled`` False leaves Python's collector as it is (tests)."""

    def __init__(self, *, enabled: bool = True, clock: Callable[[], float] = time.monotonic) -> None:
        self.enabled = enabled
        self._clock = clock
        self._full_pass_at = clock()
        self._tuned = False
        self.settled = 0
        """How many times ``settle`` collected and froze."""

    def settle(self) -> None:
        """Collect what was made since the last freeze, then freeze what survived.

        Cheap when called often: only the objects made since the last call are scanned. Call it
        after work, never in the middle of it.
        """
        if not self.enabled:
            return
        if not self._tuned:
            young, middle, _ = gc.get_threshold()
            gc.set_threshold(young, middle, FULL_AFTER_MIDDLE)
            self._tuned = True
        if self._clock() - self._full_pass_at >= FULL_PASS_EVERY:
            gc.unfreeze()
            self._full_pass_at = self._clock()
        gc.collect()
        gc.freeze()
        self.settled += 1
