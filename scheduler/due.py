"""What scheduled work is due: the weekly calendar merged with deadlines the state sets."""

from __future__ import annotations

from datetime import datetime

from games.nomic import engine
from games.nomic.actions import Tick
from games.nomic.phases import Phase
from games.nomic.ruleset import Ruleset
from games.nomic.state import RoundState
from scheduler.calendar import boundaries_between, next_boundary, phase_at, phase_window, presenting_open


def opening(ruleset: Ruleset, at: datetime) -> tuple[Phase, bool]:
    """The phase a round started at ``at`` is in, and whether hands may be presented."""
    return phase_at(ruleset.calendar, at), presenting_open(ruleset.calendar, at)


def next_tick(state: RoundState) -> Tick:
    """The next instant after the state's clock with work due, and what falls there."""
    cal = state.ruleset.calendar
    at = next_boundary(cal, state.clock).at
    for deadline in engine.deadlines(state):
        if state.clock < deadline < at:
            at = deadline
    kinds = tuple(b.kind for b in boundaries_between(cal, state.clock, at) if b.at == at)
    ends = phase_window(cal, at)[2] if kinds else None
    return Tick(at=at, boundaries=kinds, phase_ends_at=ends)

