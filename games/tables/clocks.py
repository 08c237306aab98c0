"""The table's clocks: which deadlines run, when each started, and what is due next.

A game names its deadlines (``GameEngine.timers``); a turn game without any gets the table's turn
limit for each awaited human seat (``turn:SEAT``). Each clock keeps the instant it first appeared,
so the absolute deadline comes from stored state and a restart or a catch-up finds it again.
"""

from __future__ import annotations

import re
from collections.abc import Collection
from datetime import datetime, timedelta
from typing import Any, Literal

from games.tables.engine import AnyEngine, BadCommandError, Timer
from games.tables.events import duration_text
from games.tables.i18n import DEFAULT, LANGUAGES, tr
from games.tables.model import MAX_TURN_SECONDS, MIN_TURN_SECONDS, Clock, Table, TableStatus
from games.tables.text import framework_error

MIN_REMINDER_SECONDS = 60
"""Clocks shorter than this get no reminder: a reminder five seconds before the end is only noise."""

DueKind = Literal["remind", "timeout", "expire"]


def default_key(seat: str) -> str:
    return f"turn:{seat}"


def timers_of(table: Table, engine: AnyEngine, state: Any) -> tuple[Timer, ...]:
    """The deadlines ``state`` implies at this table: the game's own, or the table's turn limit."""
    own = tuple(engine.timers(state))
    if own:
        return own
    out: list[Timer] = []
    for seat_name in engine.seats(state):
        seat = table.seat_named(seat_name)
        if seat_name in engine.awaiting(state) and seat is not None and not seat.played_by_ai:
            out.append(Timer(default_key(seat_name), table.options.turn_seconds, "turn", seat_name))
    return tuple(out)


def sync(
    table: Table, timers: tuple[Timer, ...], at: datetime, restart: Collection[str] = ()
) -> tuple[tuple[Clock, ...], tuple[Clock, ...]]:
    """The clocks after a transition, and those among them that started now.

    A clock the table already runs keeps its start (a turn does not restart while its seat keeps
    moving); ``restart`` names clocks that start again (the turn came round once more).
    """
    running = {c.key: c for c in table.clocks}
    clocks: list[Clock] = []
    started: list[Clock] = []
    for timer in timers:
        old = running.get(timer.key)
        if old is not None and timer.key not in restart and old.seconds == timer.seconds:
            clocks.append(old)
            continue
        clock = Clock(key=timer.key, started_at=at, seconds=timer.seconds, kind=timer.kind, seat=timer.seat)
        clocks.append(clock)
        started.append(clock)
    clocks.sort(key=lambda c: (c.deadline, c.key))
    return tuple(clocks), tuple(started)


def reminder_at(table: Table, clock: Clock) -> datetime | None:
    fraction = table.options.reminder_fraction
    if clock.kind != "turn" or clock.seat is None or clock.reminded or fraction is None:
        return None
    if clock.seconds < MIN_REMINDER_SECONDS:
        return None
    seat = table.seat_named(clock.seat)
    if seat is None or seat.played_by_ai:
        return None
    return clock.started_at + timedelta(seconds=round(clock.seconds * fraction))


def next_work(table: Table) -> tuple[datetime, DueKind, str | None] | None:
    """The table's next scheduled work (a reminder, a timeout, a lobby's expiry), from its state alone."""
    if table.status is TableStatus.LOBBY:
        expires = table.lobby_expires_at
        return (expires, "expire", None) if expires is not None else None
    if table.status is not TableStatus.PLAYING:
        return None
    due: list[tuple[datetime, int, DueKind, str | None]] = []
    for clock in table.clocks:
        remind = reminder_at(table, clock)
        if remind is not None:
            due.append((remind, 0, "remind", clock.key))
        due.append((clock.deadline, 1, "timeout", clock.key))
    if not due:
        return None
    at, _, kind, key = min(due, key=lambda d: (d[0], d[1], d[3] or ""))
    return at, kind, key


def next_due(table: Table) -> tuple[datetime, DueKind] | None:
    """The instant and kind of the table's next scheduled work."""
    found = next_work(table)
    return (found[0], found[1]) if found is not None else None


_DURATION = re.compile(r"^(?:(\d{1,3})d)?(?:(\d{1,4})h)?(?:(\d{1,5})m)?(?:(\d{1,7})s)?$")


def parse_turn_limit(text: str) -> int:
    """A limit typed as ``1d``, ``12h``, ``90m``, ``30s`` or ``1d12h``, in seconds; ``BadCommandError`` otherwise
    (in each of the framework's languages: it is read before any table has one)."""
    match = _DURATION.match(text.strip().casefold())
    shown = text if len(text) <= 20 else text[:20] + "…"
    if match is None or not any(match.groups()):
        raise framework_error(BadCommandError, "error.bad_turn_limit", shown=shown.replace("`", ""))
    days, hours, minutes, seconds = (int(g) if g else 0 for g in match.groups())
    total = ((days * 24 + hours) * 60 + minutes) * 60 + seconds
    if not MIN_TURN_SECONDS <= total <= MAX_TURN_SECONDS:
        texts = {
            lang: tr(
                lang,
                "error.turn_limit_range",
                low=duration_text(MIN_TURN_SECONDS, lang),
                high=duration_text(MAX_TURN_SECONDS, lang),
                given=duration_text(total, lang),
            )
            for lang in LANGUAGES
        }
        raise BadCommandError(texts[DEFAULT], texts=texts)
    return total
