"""Tests for the weekly calendar and the clocks.

Reference week (defaults): 2026-12-06 is a Sunday, so the auction runs Sun 6th 00:00 to
Thu 10th 00:00, placements are Sat 12th 00:00 and the week ends Sun 13th 00:00.
"""

from __future__ import annotations

import time
from datetime import UTC, datetime, timedelta, timezone

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from games.nomic.ruleset import Calendar, Weekday
from scheduler.calendar import (
    MAX_DURATION,
    Boundary,
    BoundaryKind,
    Phase,
    boundaries_between,
    format_remaining,
    next_boundary,
    parse_duration,
    phase_at,
    phase_window,
    placements_at,
    presenting_open,
    week_start,
)
from scheduler.clock import Clock, RealClock, VirtualClock

DEFAULT = Calendar()
MONDAY_3_48 = Calendar(week_start=Weekday.MONDAY, auction_days=3, placement_hours_before_end=48)
AS, AE, PL = BoundaryKind.AUCTION_START, BoundaryKind.AUCTION_END, BoundaryKind.PLACEMENTS
MINUTE = timedelta(minutes=1)
TINY = timedelta(microseconds=1)


def utc(year: int, month: int, day: int, hour: int = 0, minute: int = 0) -> datetime:
    return datetime(year, month, day, hour, minute, tzinfo=UTC)


SUN = utc(2026, 12, 6)
THU = utc(2026, 12, 10)
SAT = utc(2026, 12, 12)
NEXT_SUN = utc(2026, 12, 13)


# --- brute-force reference, independent of datetime.weekday() ---------------------------------

_KNOWN_MONDAY = utc(2026, 12, 7)


def ref_week_start(cal: Calendar, t: datetime) -> datetime:
    anchor = _KNOWN_MONDAY + timedelta(days=cal.week_start.python_weekday)
    return t - (t - anchor) % timedelta(days=7)


def ref_phase(cal: Calendar, t: datetime) -> Phase:
    offset = t - ref_week_start(cal, t)
    return Phase.AUCTION if offset < timedelta(days=cal.auction_days) else Phase.BARTERING


def ref_boundaries(cal: Calendar, start: datetime, end: datetime) -> list[Boundary]:
    out: list[Boundary] = []
    week = ref_week_start(cal, start) - timedelta(days=7)
    while week <= end:
        for at, kind in (
            (week, AS),
            (week + timedelta(days=cal.auction_days), AE),
            (week + timedelta(days=7, hours=-cal.placement_hours_before_end), PL),
        ):
            if start < at <= end:
                out.append(Boundary(at, kind))
        week += timedelta(days=7)
    return sorted(out)


@st.composite
def calendars(draw: st.DrawFn) -> Calendar:
    auction_days = draw(st.integers(1, 6))
    hours = draw(st.integers(1, (7 - auction_days) * 24))
    return Calendar(
        week_start=draw(st.sampled_from(list(Weekday))),
        auction_days=auction_days,
        placement_hours_before_end=hours,
    )


instants = st.datetimes(
    min_value=datetime(1990, 1, 1),  # noqa: DTZ001 - hypothesis bounds are naive by design
    max_value=datetime(2100, 1, 1),  # noqa: DTZ001
    timezones=st.just(UTC),
)
# Whole hours hit boundary instants often, which random microseconds never would.
hour_instants = st.integers(0, 24 * 365 * 20).map(lambda h: utc(2015, 1, 1) + timedelta(hours=h))
any_instant = st.one_of(instants, hour_instants)


# --- week_start ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("now", "expected"),
    [
        (SUN, SUN),
        (SUN + TINY, SUN),
        (NEXT_SUN - TINY, SUN),
        (NEXT_SUN, NEXT_SUN),
        (utc(2026, 12, 9, 13, 37), SUN),
        (utc(2027, 1, 1, 12), utc(2026, 12, 27)),  # across a year end
    ],
)
def test_week_start_default(now: datetime, expected: datetime) -> None:
    assert week_start(DEFAULT, now) == expected


def test_week_start_monday() -> None:
    assert week_start(MONDAY_3_48, SUN) == utc(2026, 11, 30)
    assert week_start(MONDAY_3_48, utc(2026, 12, 7)) == utc(2026, 12, 7)
    assert week_start(MONDAY_3_48, utc(2026, 12, 7) - TINY) == utc(2026, 11, 30)
    assert week_start(Calendar(week_start=Weekday.WEDNESDAY), SAT) == utc(2026, 12, 9)


def test_week_start_converts_other_zones_and_returns_utc() -> None:
    # Sunday 01:30 in UTC+2 is Saturday 23:30 UTC, still the previous week.
    plus_two = timezone(timedelta(hours=2))
    result = week_start(DEFAULT, datetime(2026, 12, 6, 1, 30, tzinfo=plus_two))
    assert result == utc(2026, 11, 29)
    assert result.tzinfo is UTC


# --- phases --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("now", "phase"),
    [
        (SUN, Phase.AUCTION),
        (THU - TINY, Phase.AUCTION),
        (THU, Phase.BARTERING),
        (SAT, Phase.BARTERING),
        (NEXT_SUN - TINY, Phase.BARTERING),
        (NEXT_SUN, Phase.AUCTION),
    ],
)
def test_phase_at_default(now: datetime, phase: Phase) -> None:
    assert phase_at(DEFAULT, now) is phase


def test_phase_window_default() -> None:
    assert phase_window(DEFAULT, SUN) == (Phase.AUCTION, SUN, THU)
    assert phase_window(DEFAULT, utc(2026, 12, 8, 5)) == (Phase.AUCTION, SUN, THU)
    assert phase_window(DEFAULT, THU) == (Phase.BARTERING, THU, NEXT_SUN)
    assert phase_window(DEFAULT, NEXT_SUN - TINY) == (Phase.BARTERING, THU, NEXT_SUN)
    assert phase_window(DEFAULT, NEXT_SUN) == (Phase.AUCTION, NEXT_SUN, utc(2026, 12, 17))


def test_phases_non_default() -> None:
    # Monday 7th 00:00 to Thursday 10th 00:00 auction, then bartering to Monday 14th.
    mon = utc(2026, 12, 7)
    assert phase_window(MONDAY_3_48, mon) == (Phase.AUCTION, mon, THU)
    assert phase_at(MONDAY_3_48, utc(2026, 12, 9, 23, 59)) is Phase.AUCTION
    assert phase_window(MONDAY_3_48, THU) == (Phase.BARTERING, THU, utc(2026, 12, 14))
    assert phase_at(MONDAY_3_48, SUN) is Phase.BARTERING
    assert phase_at(MONDAY_3_48, utc(2026, 12, 14)) is Phase.AUCTION


@settings(max_examples=300)
@given(cal=calendars(), now=any_instant)
def test_phase_at_matches_brute_force(cal: Calendar, now: datetime) -> None:
    assert phase_at(cal, now) is ref_phase(cal, now)
    phase, start, end = phase_window(cal, now)
    assert phase is ref_phase(cal, now)
    assert start <= now < end
    assert phase_at(cal, start) is phase
    assert phase_at(cal, start - TINY) is not phase
    assert phase_at(cal, end - TINY) is phase
    assert phase_at(cal, end) is not phase
    assert week_start(cal, now) == ref_week_start(cal, now)


# --- placements and presenting -------------------------------------------------------------------


def test_placements_at() -> None:
    assert placements_at(DEFAULT, SUN) == SAT
    assert placements_at(DEFAULT, NEXT_SUN - TINY) == SAT
    assert placements_at(DEFAULT, NEXT_SUN) == utc(2026, 12, 19)
    # Monday weeks, 48 h before Monday 14th: Saturday 12th.
    assert placements_at(MONDAY_3_48, utc(2026, 12, 7)) == SAT
    assert placements_at(Calendar(placement_hours_before_end=1), THU) == utc(2026, 12, 12, 23)


@pytest.mark.parametrize(
    ("now", "is_open"),
    [
        (SUN, False),
        (THU - TINY, False),
        (THU, True),
        (utc(2026, 12, 11, 12), True),
        (SAT - TINY, True),
        (SAT, False),
        (NEXT_SUN - TINY, False),
        (NEXT_SUN, False),
    ],
)
def test_presenting_open_default(now: datetime, is_open: bool) -> None:
    assert presenting_open(DEFAULT, now) is is_open


def test_presenting_open_non_default() -> None:
    assert presenting_open(MONDAY_3_48, THU) is True
    assert presenting_open(MONDAY_3_48, SAT - TINY) is True
    assert presenting_open(MONDAY_3_48, SAT) is False
    assert presenting_open(MONDAY_3_48, SUN) is False
    # Placements at the very start of bartering leave no time to present.
    squeezed = Calendar(auction_days=4, placement_hours_before_end=72)
    assert placements_at(squeezed, SUN) == THU
    assert presenting_open(squeezed, THU) is False


@settings(max_examples=200)
@given(cal=calendars(), now=any_instant)
def test_presenting_open_matches_brute_force(cal: Calendar, now: datetime) -> None:
    start = ref_week_start(cal, now)
    bartering = start + timedelta(days=cal.auction_days)
    placements = start + timedelta(days=7, hours=-cal.placement_hours_before_end)
    assert presenting_open(cal, now) is (bartering <= now < placements)
    assert placements_at(cal, now) == placements


# --- boundaries ----------------------------------------------------------------------------------


def test_next_boundary_default() -> None:
    assert next_boundary(DEFAULT, SUN - TINY) == Boundary(SUN, AS)
    assert next_boundary(DEFAULT, SUN) == Boundary(THU, AE)
    assert next_boundary(DEFAULT, THU - TINY) == Boundary(THU, AE)
    assert next_boundary(DEFAULT, THU) == Boundary(SAT, PL)
    assert next_boundary(DEFAULT, SAT) == Boundary(NEXT_SUN, AS)
    assert next_boundary(DEFAULT, NEXT_SUN - TINY) == Boundary(NEXT_SUN, AS)


def test_next_boundary_non_default() -> None:
    mon = utc(2026, 12, 7)
    assert next_boundary(MONDAY_3_48, SUN) == Boundary(mon, AS)
    assert next_boundary(MONDAY_3_48, mon) == Boundary(THU, AE)
    assert next_boundary(MONDAY_3_48, THU) == Boundary(SAT, PL)
    assert next_boundary(MONDAY_3_48, SAT) == Boundary(utc(2026, 12, 14), AS)


def test_boundaries_between_default_week() -> None:
    assert boundaries_between(DEFAULT, SUN - TINY, NEXT_SUN) == [
        Boundary(SUN, AS),
        Boundary(THU, AE),
        Boundary(SAT, PL),
        Boundary(NEXT_SUN, AS),
    ]
    # start is exclusive, end inclusive
    assert boundaries_between(DEFAULT, SUN, THU) == [Boundary(THU, AE)]
    assert boundaries_between(DEFAULT, SUN, THU - TINY) == []
    assert boundaries_between(DEFAULT, THU, SUN) == []
    assert boundaries_between(DEFAULT, THU, THU) == []


def test_boundaries_between_tie_keeps_week_order() -> None:
    squeezed = Calendar(auction_days=4, placement_hours_before_end=72)
    assert boundaries_between(squeezed, SUN, THU) == [Boundary(THU, AE), Boundary(THU, PL)]
    assert next_boundary(squeezed, SUN) == Boundary(THU, AE)


def test_boundary_order_is_time_then_week_order() -> None:
    # Alphabetically "auction_end" < "auction_start"; the week order must win instead.
    assert Boundary(SUN, AS) < Boundary(SUN, AE) < Boundary(SUN, PL)
    assert Boundary(SUN, PL) < Boundary(SUN + TINY, AS)
    assert sorted([Boundary(THU, PL), Boundary(SUN, AE), Boundary(THU, AS)]) == [
        Boundary(SUN, AE),
        Boundary(THU, AS),
        Boundary(THU, PL),
    ]
    assert Boundary(SUN, AS) == Boundary(SUN, AS)
    assert len({Boundary(SUN, AS), Boundary(SUN, AS)}) == 1
    assert "_rank" not in repr(Boundary(SUN, AS))


def test_boundaries_between_years_is_fast() -> None:
    begin = time.perf_counter()
    found = boundaries_between(DEFAULT, utc(2000, 1, 1), utc(2050, 1, 1))
    assert time.perf_counter() - begin < 2
    assert len(found) in range(3 * 2608, 3 * 2610)
    assert found == sorted(found)
    assert all(b.at.weekday() == 6 for b in found if b.kind is AS)


@settings(max_examples=200)
@given(cal=calendars(), start=any_instant, span=st.integers(0, 24 * 60 * 60 * 10 * 7))
def test_boundaries_between_equals_repeated_next_boundary(cal: Calendar, start: datetime, span: int) -> None:
    end = start + timedelta(seconds=span)
    stepped: list[Boundary] = []
    cursor = start
    while (nxt := next_boundary(cal, cursor)).at <= end:
        stepped.append(nxt)
        cursor = nxt.at
    between = boundaries_between(cal, start, end)
    # Boundaries sharing an instant (placements right at the auction end) are reached by one
    # next_boundary step, since it looks strictly after; keep the first of each instant.
    firsts = [b for i, b in enumerate(between) if i == 0 or between[i - 1].at != b.at]
    assert firsts == stepped
    assert between == ref_boundaries(cal, start, end)


@settings(max_examples=200)
@given(cal=calendars(), start=any_instant, span=st.integers(0, 24 * 60 * 60 * 7 * 30))
def test_boundaries_between_matches_brute_force(cal: Calendar, start: datetime, span: int) -> None:
    end = start + timedelta(seconds=span)
    assert boundaries_between(cal, start, end) == ref_boundaries(cal, start, end)


@settings(max_examples=200)
@given(cal=calendars(), now=any_instant)
def test_next_boundary_is_strictly_after_and_first(cal: Calendar, now: datetime) -> None:
    nxt = next_boundary(cal, now)
    assert nxt.at > now
    assert nxt.at - now <= timedelta(days=7)
    assert boundaries_between(cal, now, nxt.at)[0] == nxt


# --- naive datetimes and bad calendars -----------------------------------------------------------

NAIVE = datetime(2026, 12, 6)  # noqa: DTZ001 - deliberately naive


@pytest.mark.parametrize(
    "call",
    [
        lambda: week_start(DEFAULT, NAIVE),
        lambda: phase_at(DEFAULT, NAIVE),
        lambda: phase_window(DEFAULT, NAIVE),
        lambda: next_boundary(DEFAULT, NAIVE),
        lambda: boundaries_between(DEFAULT, NAIVE, SUN),
        lambda: boundaries_between(DEFAULT, SUN, NAIVE),
        lambda: boundaries_between(DEFAULT, NAIVE, NAIVE),
        lambda: placements_at(DEFAULT, NAIVE),
        lambda: presenting_open(DEFAULT, NAIVE),
        lambda: Boundary(NAIVE, AS),
        lambda: VirtualClock(NAIVE),
        lambda: VirtualClock(SUN).set(NAIVE),
    ],
)
def test_naive_datetimes_rejected(call: object) -> None:
    assert callable(call)
    with pytest.raises(ValueError, match="naive"):
        call()


@given(now=st.datetimes(min_value=datetime(1990, 1, 1), max_value=datetime(2100, 1, 1)))  # noqa: DTZ001
def test_naive_datetimes_rejected_property(now: datetime) -> None:
    with pytest.raises(ValueError, match="naive"):
        phase_at(DEFAULT, now)


def test_placements_outside_bartering_rejected() -> None:
    bad = Calendar(auction_days=6, placement_hours_before_end=48)
    with pytest.raises(ValueError, match="bartering"):
        phase_at(bad, SUN)
    with pytest.raises(ValueError, match="bartering"):
        next_boundary(bad, SUN)


# --- format_remaining ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("delta", "text"),
    [
        (timedelta(days=2, hours=3, minutes=5), "2d 3h 5m"),
        (timedelta(days=2, hours=3, minutes=5, seconds=59), "2d 3h 5m"),
        (timedelta(minutes=45), "45m"),
        (timedelta(minutes=45, seconds=30), "45m"),
        (timedelta(hours=1), "1h"),
        (timedelta(days=1, minutes=5), "1d 5m"),
        (timedelta(days=9), "9d"),
        (timedelta(minutes=1), "1m"),
        (timedelta(seconds=59, microseconds=999999), "under a minute"),
        (timedelta(0), "under a minute"),
        (timedelta(seconds=-5), "under a minute"),
        (timedelta(days=-3), "under a minute"),
    ],
)
def test_format_remaining(delta: timedelta, text: str) -> None:
    assert format_remaining(delta) == text


# --- parse_duration ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("2d", timedelta(days=2)),
        ("3h", timedelta(hours=3)),
        ("90m", timedelta(minutes=90)),
        ("1d12h", timedelta(days=1, hours=12)),
        ("45s", timedelta(seconds=45)),
        ("1w", timedelta(weeks=1)),
        ("1w2d3h4m5s", timedelta(weeks=1, days=2, hours=3, minutes=4, seconds=5)),
        (" 1D 12H ", timedelta(days=1, hours=12)),
        ("0d5m", timedelta(minutes=5)),
        ("520w", timedelta(weeks=520)),
        ("3653d", MAX_DURATION),
    ],
)
def test_parse_duration(text: str, expected: timedelta) -> None:
    assert parse_duration(text) == expected


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "cannot read"),
        ("   ", "cannot read"),
        ("5", "cannot read"),
        ("d", "cannot read"),
        ("2x", "cannot read"),
        ("-2d", "cannot read"),
        ("1.5h", "cannot read"),
        ("12h1d", "cannot read"),
        ("1d1d", "cannot read"),
        ("two days", "cannot read"),
        ("\u0663d", "cannot read"),  # Arabic-Indic digit three
        ("1" * 5000 + "d", "cannot read"),
        ("0m", "zero"),
        ("0w0d", "zero"),
        ("3654d", "ten years"),
        ("11y", "cannot read"),
        ("9999w", "ten years"),
        ("99999999999999999999999999d", "ten years"),
    ],
)
def test_parse_duration_rejects(text: str, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        parse_duration(text)


@given(days=st.integers(0, 3000), hours=st.integers(0, 23), minutes=st.integers(0, 59))
def test_parse_duration_round_trips_format_remaining(days: int, hours: int, minutes: int) -> None:
    delta = timedelta(days=days, hours=hours, minutes=minutes)
    if delta < MINUTE:
        return
    text = format_remaining(delta).replace(" ", "")
    assert parse_duration(text) == delta


# --- clocks --------------------------------------------------------------------------------------


def test_real_clock_is_aware_utc() -> None:
    clock: Clock = RealClock()
    now = clock.now()
    assert now.tzinfo is UTC
    assert abs(now - datetime.now(UTC)) < timedelta(seconds=5)
    assert isinstance(clock, Clock)


def test_virtual_clock() -> None:
    clock = VirtualClock(SUN)
    assert isinstance(clock, Clock)
    assert clock.now() == SUN
    assert clock.advance(timedelta(days=4)) == THU
    assert clock.now() == THU
    assert clock.advance(timedelta(0)) == THU
    assert clock.set(THU) == THU
    assert clock.set(SAT) == SAT
    assert clock.now() == SAT
    with pytest.raises(ValueError, match="back"):
        clock.set(THU)
    with pytest.raises(ValueError, match="negative"):
        clock.advance(-TINY)
    assert clock.now() == SAT


def test_virtual_clock_drives_calendar() -> None:
    clock = VirtualClock(SUN - TINY)
    seen: list[Boundary] = []
    for _ in range(6):
        boundary = next_boundary(DEFAULT, clock.now())
        clock.set(boundary.at)
        seen.append(boundary)
    assert [b.kind for b in seen] == [AS, AE, PL, AS, AE, PL]
    assert seen[-1].at == utc(2026, 12, 19)
