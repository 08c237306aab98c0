"""What scheduled work is due: the weekly calendar merged with deadlines the state sets."""

from __future__ import annotations

from datetime import datetime, timedelta
from functools import lru_cache

from games.nomic import engine
from games.nomic.actions import Tick
from games.nomic.phases import BoundaryKind, Phase
from games.nomic.ruleset import Calendar, Ruleset
from games.nomic.state import RoundState
from scheduler.calendar import (
    boundaries_between,
    next_boundary,
    phase_at,
    phase_window,
    placements_at,
    presenting_open,
)


def opening(ruleset: Ruleset, at: datetime) -> tuple[Phase, bool]:
    """The phase a round started at ``at`` is in, and whether hands may be presented."""
    return phase_at(ruleset.calendar, at), presenting_open(ruleset.calendar, at)


@lru_cache(maxsize=512)
def _calendar_tick(cal: Calendar, after: datetime) -> Tick:
    """The next weekly boundary after ``after``; cached, since every command asks for it."""
    at = next_boundary(cal, after).at
    kinds = tuple(b.kind for b in boundaries_between(cal, after, at) if b.at == at)
    return Tick(at=at, boundaries=kinds, phase_ends_at=phase_window(cal, at)[2])


def next_tick(state: RoundState) -> Tick:
    """The next instant after the state's clock with work due, and what falls there.

    When a calendar change has cut the auction phase short, the auction ends at once (at the
    instant of the change) rather than at a boundary that had already passed.
    """
    cal = state.ruleset.calendar
    if state.phase is Phase.AUCTION and phase_at(cal, state.clock) is Phase.BARTERING:
        at = state.clock + timedelta(microseconds=1)
        kinds: tuple[BoundaryKind, ...] = (BoundaryKind.AUCTION_END,)
        if placements_at(cal, at) <= at:
            kinds = (BoundaryKind.AUCTION_END, BoundaryKind.PLACEMENTS)
        return Tick(at=at, boundaries=kinds, phase_ends_at=phase_window(cal, at)[2])
    weekly = _calendar_tick(cal, state.clock)
    sooner = [d for d in engine.deadlines(state) if state.clock < d < weekly.at]
    if sooner:
        return Tick(at=min(sooner))
    return weekly

