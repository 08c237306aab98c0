"""Where "now" comes from, behind a small protocol so tests and test-mode guilds can fake time."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Protocol, runtime_checkable


@runtime_checkable
class Clock(Protocol):
    """Anything that can tell the current time as an aware UTC datetime."""

    def now(self) -> datetime: ...


class RealClock:
    """The wall clock, in UTC so it can be compared with the calendar's instants."""

    def now(self) -> datetime:
        return datetime.now(UTC)


def _aware(moment: datetime) -> datetime:
    if moment.tzinfo is None or moment.utcoffset() is None:
        raise ValueError(f"naive datetime {moment.isoformat()} given; use a timezone-aware UTC datetime")
    return moment.astimezone(UTC)


class VirtualClock:
    """A clock that moves only when told, for tests and for fast-forwarding a test round.

    It never goes backwards: the scheduler assumes boundaries once passed stay passed.
    """

    def __init__(self, start: datetime) -> None:
        self._now = _aware(start)

    def __repr__(self) -> str:
        return f"VirtualClock({self._now.isoformat()})"

    def now(self) -> datetime:
        return self._now

    def set(self, moment: datetime) -> datetime:
        """Jump to ``moment`` (not earlier than now) and return it."""
        moment = _aware(moment)
        if moment < self._now:
            raise ValueError(
                f"cannot move the clock back from {self._now.isoformat()} to {moment.isoformat()}"
            )
        self._now = moment
        return self._now

    def advance(self, delta: timedelta) -> datetime:
        """Move forward by ``delta`` (not negative) and return the new time."""
        if delta < timedelta(0):
            raise ValueError(f"cannot advance the clock by a negative amount ({delta})")
        self._now += delta
        return self._now
