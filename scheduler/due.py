"""What scheduled work is due: the weekly calendar merged with deadlines the state sets.

The scheduler asks before every command and at every re-arm, so the answer is kept for each state
object (states are never changed in place: an action or a tick makes a new one) and worked out again
only for a new one; the calendar's part of it only when a tick moves the clock, or the calendar, the
reminders' options or what there is to remind of changes.
"""

from __future__ import annotations

import weakref
from datetime import datetime, timedelta
from functools import partial

from games.nomic import engine, reminders
from games.nomic.actions import Tick
from games.nomic.kept import KEPT, also_forget, kept
from games.nomic.phases import BoundaryKind, Phase, ReminderKind
from games.nomic.ruleset import Calendar, Reminders, Ruleset
from games.nomic.state import RoundState
from games.values import valueclass
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


@valueclass
class _Calendar:
    """What the calendar sets after a clock: the phase it has then, its next work (the next boundary, or
    a reminder before it), and the tick that ends an auction a calendar change has cut short."""

    phase: Phase
    tick: Tick
    cut_short: Tick


@kept
def _calendar(cal: Calendar, options: Reminders, clock: datetime, kinds: tuple[ReminderKind, ...]) -> _Calendar:
    """Kept for these very objects: only a tick (a new clock), a new ruleset or other kinds of reminder
    give another. Reminders after the boundary wait for it: the state, and what it calls for, is another then."""
    at = next_boundary(cal, clock).at
    boundaries = tuple(b.kind for b in boundaries_between(cal, clock, at) if b.at == at)
    weekly = Tick(at=at, boundaries=boundaries, phase_ends_at=phase_window(cal, at)[2])
    phase, _, phase_ends = phase_window(cal, clock)
    # when a calendar change has cut the auction phase short, the auction ends at once (at the
    # instant of the change) rather than at a boundary that had already passed
    now = clock + timedelta(microseconds=1)
    cut: tuple[BoundaryKind, ...] = (BoundaryKind.AUCTION_END,)
    if placements_at(cal, now) <= now:
        cut = (BoundaryKind.AUCTION_END, BoundaryKind.PLACEMENTS)
    cut_short = Tick(at=now, boundaries=cut, phase_ends_at=phase_window(cal, now)[2])
    deadline = {
        ReminderKind.AUCTION_END: phase_ends if phase is Phase.AUCTION else phase_window(cal, phase_ends)[2],
        ReminderKind.PRESENT_HAND: placements_at(cal, clock),
        ReminderKind.STANDARD_VOTE: phase_ends,
    }
    found = reminders.calendar_due(options, clock, ((kind, deadline[kind]) for kind in kinds))
    due = [r for r in found if r.at <= weekly.at]
    sooner = [r.at for r in due if r.at < weekly.at]
    if sooner:
        first = min(sooner)
        return _Calendar(phase, Tick(at=first, reminders=tuple(r for r in due if r.at == first)), cut_short)
    if due:
        weekly = weekly.model_copy(update={"reminders": tuple(r for r in due if r.at == weekly.at)})
    return _Calendar(phase, weekly, cut_short)


_KEPT: dict[int, tuple[weakref.ref[RoundState], Tick]] = {}
"""Each live state's next tick, by the state's identity; an entry goes with its state."""


def _drop(key: int, gone: weakref.ref[RoundState]) -> None:
    kept = _KEPT.get(key)
    if kept is not None and kept[0] is gone:
        del _KEPT[key]


def next_tick(state: RoundState) -> Tick:
    """The next instant after the state's clock with work due, and what falls there.

    Kept for the state object: asking again about the same state costs a look-up.
    """
    key = id(state)
    kept = _KEPT.get(key)
    if kept is not None and kept[0]() is state:
        return kept[1]
    tick = _next_tick(state)
    _KEPT[key] = (weakref.ref(state, partial(_drop, key)), tick)
    return tick


_BY_PARTS: dict[tuple[int, ...], tuple[tuple[object, ...], Tick]] = {}
"""Next ticks by the identities of the parts of the state each was worked out from (kept alive with it, so
that no other object takes their ids); the last ``KEPT``."""


def _parts(state: RoundState) -> tuple[object, ...]:
    """All that the next tick depends on (the calendar's reminders on whether there are lots, not which)."""
    return (
        state.ruleset,
        state.clock,
        state.phase,
        bool(state.lots),
        state.presenting_open,
        state.proposals,
        state.requests,
        state.outbid_pending,
        state.outbid_sent,
    )


def _next_tick(state: RoundState) -> Tick:
    """A new state that carries the very same parts as an earlier one (a bid's or a trade's: they change
    the lots, the players and the count of actions) has its next tick."""
    parts = _parts(state)
    key = tuple(map(id, parts))
    found = _BY_PARTS.get(key)
    if found is not None:
        return found[1]
    tick = _worked_out(state)
    if len(_BY_PARTS) >= KEPT:
        _BY_PARTS.pop(next(iter(_BY_PARTS)))
    _BY_PARTS[key] = (parts, tick)
    return tick


def _worked_out(state: RoundState) -> Tick:
    ruleset = state.ruleset
    calendar = _calendar(ruleset.calendar, ruleset.reminders, state.clock, reminders.calendar_kinds(state))
    if state.phase is Phase.AUCTION and calendar.phase is Phase.BARTERING:
        return calendar.cut_short
    own = engine.next_deadline(state)
    return Tick(at=own) if own is not None and own < calendar.tick.at else calendar.tick


also_forget(_BY_PARTS.clear)
