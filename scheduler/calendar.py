"""The weekly round's calendar as pure functions of a ruleset ``Calendar`` and an instant.

Nothing here reads the clock: callers pass ``now`` so the same code serves the live bot, a
virtual clock in tests, and catch-up after downtime. Every instant must be timezone-aware;
naive datetimes are refused because the week is defined in UTC and guessing a zone would
silently shift deadlines. Aware instants in other zones are converted, and every datetime
returned is in UTC.

A week is ``[start, start + 7 days)``, starting 00:00 UTC on ``week_start``. The auction phase
runs for ``auction_days``; bartering fills the rest. Placements fall
``placement_hours_before_end`` hours before the week (and so the bartering phase) ends. An
instant exactly on a boundary belongs to the phase that starts there.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta

from games.nomic.phases import BoundaryKind, Phase
from games.nomic.ruleset import Calendar

WEEK = timedelta(days=7)
MAX_DURATION = timedelta(days=10 * 365 + 3)
"""The longest duration ``parse_duration`` accepts (ten years, leap days included)."""


_KIND_RANK = {BoundaryKind.AUCTION_START: 0, BoundaryKind.AUCTION_END: 1, BoundaryKind.PLACEMENTS: 2}


@dataclass(frozen=True, order=True)
class Boundary:
    """A moment at which the round changes, ordered by time and then by the week's order of kinds.

    The explicit rank keeps ties (placements may coincide with the auction end) in the week's
    order rather than the alphabetical order of the kinds' values.
    """

    at: datetime
    _rank: int = field(init=False, repr=False)
    kind: BoundaryKind

    def __post_init__(self) -> None:
        object.__setattr__(self, "at", _utc(self.at))
        object.__setattr__(self, "kind", BoundaryKind(self.kind))
        object.__setattr__(self, "_rank", _KIND_RANK[self.kind])


def _utc(moment: datetime) -> datetime:
    """``moment`` in UTC; naive datetimes are refused because their zone would be a guess."""
    if not isinstance(moment, datetime):
        raise TypeError(f"expected a datetime, got {type(moment).__name__}")
    if moment.tzinfo is None or moment.utcoffset() is None:
        raise ValueError(f"naive datetime {moment.isoformat()} given; use a timezone-aware UTC datetime")
    return moment.astimezone(UTC)


def _check(cal: Calendar) -> None:
    """Refuse a calendar whose placements fall outside its bartering phase.

    ``Ruleset`` already enforces this, but a bare ``Calendar`` does not, and the phase logic
    (``presenting_open``, the order of boundaries) depends on it.
    """
    if cal.placement_hours_before_end > (7 - cal.auction_days) * 24:
        raise ValueError("placements must fall inside the bartering phase")


def _auction_end(cal: Calendar, start: datetime) -> datetime:
    return start + timedelta(days=cal.auction_days)


def _placements(cal: Calendar, start: datetime) -> datetime:
    return start + WEEK - timedelta(hours=cal.placement_hours_before_end)


def _week_boundaries(cal: Calendar, start: datetime) -> list[Boundary]:
    """The three boundaries of the week starting at ``start``, in order."""
    return [
        Boundary(start, BoundaryKind.AUCTION_START),
        Boundary(_auction_end(cal, start), BoundaryKind.AUCTION_END),
        Boundary(_placements(cal, start), BoundaryKind.PLACEMENTS),
    ]


def week_start(cal: Calendar, now: datetime) -> datetime:
    """The start (00:00 UTC on ``cal.week_start``) of the week containing ``now``."""
    _check(cal)
    now = _utc(now)
    midnight = now.replace(hour=0, minute=0, second=0, microsecond=0)
    return midnight - timedelta(days=(now.weekday() - cal.week_start.python_weekday) % 7)


def phase_at(cal: Calendar, now: datetime) -> Phase:
    """The phase ``now`` falls in; a boundary instant belongs to the phase starting there."""
    return phase_window(cal, now)[0]


def phase_window(cal: Calendar, now: datetime) -> tuple[Phase, datetime, datetime]:
    """The phase containing ``now`` with its start (inclusive) and end (exclusive)."""
    start = week_start(cal, now)
    auction_end = _auction_end(cal, start)
    if _utc(now) < auction_end:
        return Phase.AUCTION, start, auction_end
    return Phase.BARTERING, auction_end, start + WEEK


def next_boundary(cal: Calendar, after: datetime) -> Boundary:
    """The first boundary strictly after ``after``, so a caller that just handled one moves on."""
    start = week_start(cal, after)
    after = _utc(after)
    for boundary in _week_boundaries(cal, start):
        if boundary.at > after:
            return boundary
    return Boundary(start + WEEK, BoundaryKind.AUCTION_START)


def boundaries_between(cal: Calendar, start: datetime, end: datetime) -> list[Boundary]:
    """Every boundary with ``start < at <= end``, in order: what was missed between two instants.

    Works a week at a time, so catching up after a long outage costs three boundaries a week.
    """
    start, end = _utc(start), _utc(end)
    if end <= start:
        return []
    week = week_start(cal, start)
    last_week = week_start(cal, end)
    found: list[Boundary] = []
    while week <= last_week:
        found.extend(b for b in _week_boundaries(cal, week) if start < b.at <= end)
        week += WEEK
    return found


def placements_at(cal: Calendar, now: datetime) -> datetime:
    """When placements are made in the week containing ``now``."""
    return _placements(cal, week_start(cal, now))


def presenting_open(cal: Calendar, now: datetime) -> bool:
    """Whether hands may be presented: from the bartering phase's start until placements."""
    start = week_start(cal, now)
    return _auction_end(cal, start) <= _utc(now) < _placements(cal, start)


def format_remaining(delta: timedelta) -> str:
    """A countdown such as ``2d 3h 5m`` for messages, rounded down to the minute.

    Zero units are left out (``1d 5m``). Anything under a minute, including a slightly negative
    delta from a deadline that passed while the message was being built, reads ``under a minute``.
    """
    minutes_total = int(delta.total_seconds() // 60)
    if minutes_total < 1:
        return "under a minute"
    days, rest = divmod(minutes_total, 24 * 60)
    hours, minutes = divmod(rest, 60)
    parts = [f"{value}{unit}" for value, unit in ((days, "d"), (hours, "h"), (minutes, "m")) if value]
    return " ".join(parts)


_DURATION_RE = re.compile(
    r"(?:(?P<w>[0-9]+)\s*w)?\s*(?:(?P<d>[0-9]+)\s*d)?\s*(?:(?P<h>[0-9]+)\s*h)?\s*"
    r"(?:(?P<m>[0-9]+)\s*m)?\s*(?:(?P<s>[0-9]+)\s*s)?",
    re.IGNORECASE | re.ASCII,
)
_UNIT_SECONDS = {"w": 7 * 86400, "d": 86400, "h": 3600, "m": 60, "s": 1}
_MAX_DURATION_TEXT = 64


def parse_duration(text: str) -> timedelta:
    """A duration typed by a person, such as ``2d``, ``90m`` or ``1d12h``.

    Units are w, d, h, m, s, largest first, each at most once. Zero, unknown units and anything
    over ten years are refused with a message fit to show the user, since a typo here would
    otherwise move a game's clock by an absurd amount.
    """
    cleaned = text.strip()
    usage = "use a number and a unit, largest unit first, such as 2d, 3h, 90m, 1d12h, 45s or 1w"
    if not cleaned or len(cleaned) > _MAX_DURATION_TEXT:
        raise ValueError(f"cannot read duration {text[:_MAX_DURATION_TEXT]!r}: {usage}")
    match = _DURATION_RE.fullmatch(cleaned)
    if match is None or not any(match.groupdict().values()):
        raise ValueError(f"cannot read duration {cleaned!r}: {usage}")
    seconds = sum(int(value) * _UNIT_SECONDS[unit] for unit, value in match.groupdict().items() if value)
    if seconds == 0:
        raise ValueError(f"duration {cleaned!r} is zero; give a positive duration")
    if seconds > MAX_DURATION.total_seconds():
        raise ValueError(f"duration {cleaned!r} is over ten years")
    return timedelta(seconds=seconds)
