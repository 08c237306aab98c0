"""What scheduled work is due: the weekly calendar merged with deadlines the state sets."""

from __future__ import annotations

from datetime import datetime, timedelta
from functools import lru_cache

from games.nomic import engine, reminders
from games.nomic.actions import CalendarReminder, Tick
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
    due = _calendar_reminders(state, cal, until=weekly.at)
    sooner = [d for d in engine.deadlines(state) if state.clock < d < weekly.at]
    sooner += [r.at for r in due if r.at < weekly.at]
    if sooner:
        at = min(sooner)
        return Tick(at=at, reminders=tuple(r for r in due if r.at == at))
    if due:
        return weekly.model_copy(update={"reminders": tuple(r for r in due if r.at == weekly.at)})
    return weekly


def _calendar_reminders(state: RoundState, cal: Calendar, *, until: datetime) -> list[CalendarReminder]:
    """Reminders of the calendar's deadlines that fall after the clock and by ``until`` (the next
    boundary: after it the state, and so what needs reminding, is another)."""
    phase, _, phase_ends = phase_window(cal, state.clock)
    auction_ends = phase_ends if phase is Phase.AUCTION else phase_window(cal, phase_ends)[2]
    due = reminders.calendar_due(
        state, auction_ends=auction_ends, placements=placements_at(cal, state.clock), phase_ends=phase_ends
    )
    return [r for r in due if r.at <= until]
