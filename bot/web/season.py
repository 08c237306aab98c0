"""The season week by week, derived from the action log: nothing new is stored for it.

The round's state keeps only the present (the last placements, the judge now) and the archive keeps
what can no longer change (decided proposals, settled rulings, old ruleset versions), but neither says
who held the office of judge in a given week, which lots went to whom, or what each week's placements
were. The action log does: every member's action and every tick is logged with its time, and
replaying it through the same rules with the same dice gives back every state and every event the
bot announced. So the season is a fold over the log: each step's events (a lot sold, placements, an
election, a judge stepping down, a proposal decided, a ruling, a vote of confidence) are filed under
the week they fell in, by the calendar in force then.

A ``Season`` is built once per guild and then kept up to date with only the rows logged since
(``SeasonBook``); the replay runs in a worker thread so the event loop keeps answering commands.
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections import Counter
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from games.nomic import engine
from games.nomic.actions import ACTION_ADAPTER, StartRound, Tick
from games.nomic.context import Context
from games.nomic.errors import RuleError
from games.nomic.events import (
    ConfidenceDecided,
    ConfidenceStarted,
    Event,
    Joined,
    JudgeChanged,
    JudgeElected,
    Left,
    LotSold,
    LotUnsold,
    PlacementsMade,
    ProposalDecided,
    RequestMade,
    RulingGiven,
)
from games.nomic.service import dice_for
from games.nomic.state import PlacementRecord, RoundState
from scheduler.calendar import week_start

log = logging.getLogger(__name__)

FOLD_CHUNK = 2000
"""Log rows replayed per trip to the worker thread."""


@dataclass(frozen=True)
class LotResult:
    """A lot at its auction's end: who won it for how much, or that nobody did."""

    lot: int
    cards: tuple[str, ...]
    at: datetime
    name: str | None = None
    player: str | None = None
    """The winner's member id, when their name named one player at the time."""
    amount: int | None = None
    kept: bool = False
    """Unsold and carried over to the next auction."""


@dataclass(frozen=True)
class Office:
    """A change in the office of judge: who holds it from ``at`` (None: nobody), and how it came about."""

    at: datetime
    judge: str | None
    name: str | None
    how: str


@dataclass(frozen=True)
class Decision:
    number: int
    passed: bool
    votes_for: int
    votes_against: int
    at: datetime


@dataclass(frozen=True)
class ConfidenceResult:
    number: int
    overturned: bool
    votes_overturn: int
    votes_affirm: int
    at: datetime


@dataclass
class Week:
    """What happened in one week of the round (``start``: the week's first instant, UTC)."""

    start: datetime
    judge_before: str | None = None
    judge_before_name: str | None = None
    """Who held the office when the week began (before any election at its start)."""
    offices: list[Office] = field(default_factory=list)
    lots: list[LotResult] = field(default_factory=list)
    placements: tuple[PlacementRecord, ...] = ()
    placed_at: datetime | None = None
    proposals: list[Decision] = field(default_factory=list)
    versions: list[int] = field(default_factory=list)
    requests: list[int] = field(default_factory=list)
    ruled: list[int] = field(default_factory=list)
    confidence_started: list[int] = field(default_factory=list)
    confidence: list[ConfidenceResult] = field(default_factory=list)
    joined: list[str] = field(default_factory=list)
    left: list[str] = field(default_factory=list)
    players: int = 0
    """Players at the week's last logged step."""

    @property
    def key(self) -> str:
        """The week in URLs: its first day, ``2026-12-06``."""
        return self.start.date().isoformat()

    def judges(self) -> list[tuple[str | None, str | None, datetime | None, str]]:
        """Who held the office during the week, in order: (member id, name, from when, how)."""
        out: list[tuple[str | None, str | None, datetime | None, str]] = []
        if not self.offices or self.offices[0].at > self.start:
            held = "from the week before" if self.judge_before is not None else ""
            out.append((self.judge_before, self.judge_before_name, None, held))
        out.extend((o.judge, o.name, o.at, o.how) for o in self.offices)
        return out


class SeasonError(RuntimeError):
    """The log could not be replayed (a gap in it, or an entry that cannot be read)."""


def replay_step(guild: str, state: RoundState | None, seq: int, body: str) -> tuple[RoundState, tuple[Event, ...]]:
    """One logged action through the rules, with its dice: what ``RoundService`` does on a restart,
    keeping the events too."""
    try:
        data = json.loads(body)
        ctx = Context.model_validate(data["ctx"])
        action = ACTION_ADAPTER.validate_python(data["action"])
    except (ValueError, KeyError, TypeError) as exc:
        raise SeasonError(f"guild {guild}: action {seq} cannot be read ({type(exc).__name__})") from exc
    if isinstance(action, StartRound):
        step = engine.start_round(guild, data.get("seed", ""), ctx, action)
        return step.state, step.events
    if state is None:
        raise SeasonError(f"guild {guild}: action {seq} logged before the round started")
    if seq != state.seq + 1:
        raise SeasonError(f"guild {guild}: the log jumps from {state.seq} to {seq}")
    rng = dice_for(state, action, seq)
    try:
        step = engine.advance(state, action, rng) if isinstance(action, Tick) else engine.apply(state, ctx, action, rng)
    except RuleError:
        return state.model_copy(update={"seq": seq}), ()
    return step.state, step.events


def _when(body: str, fallback: datetime) -> datetime:
    """The instant an action took effect: a tick's own instant, else its context's."""
    data = json.loads(body)
    action = data.get("action") or {}
    raw = action.get("at") if action.get("kind") == "tick" else (data.get("ctx") or {}).get("at")
    if isinstance(raw, str):
        return datetime.fromisoformat(raw.replace("Z", "+00:00"))
    return fallback


def _ids_by_name(state: RoundState) -> dict[str, str]:
    """Player names that name exactly one player, with that player's id."""
    counts = Counter(p.name for p in state.players.values())
    return {p.name: pid for pid, p in state.players.items() if counts[p.name] == 1}


class Season:
    """A guild's weeks, folded from its log; ``feed`` the rows in order."""

    def __init__(self, guild: str) -> None:
        self.guild = guild
        self.state: RoundState | None = None
        self.seq = 0
        self.weeks: dict[datetime, Week] = {}

    def _week(self, at: datetime, before: RoundState) -> Week:
        start = week_start(before.ruleset.calendar, at)
        week = self.weeks.get(start)
        if week is None:
            week = Week(start, judge_before=before.judge, judge_before_name=before.judge_name)
            self.weeks[start] = week
        return week

    def feed(self, seq: int, at: datetime, body: str) -> None:
        before = self.state
        after, events = replay_step(self.guild, before, seq, body)
        self.state, self.seq = after, seq
        when = _when(body, at)
        week = self._week(when, before if before is not None else after)
        week.players = len(after.players)
        if before is not None and after.ruleset_version > before.ruleset_version:
            week.versions.extend(range(before.ruleset_version + 1, after.ruleset_version + 1))
        self._file(week, when, events, before, after)

    def _file(
        self, week: Week, at: datetime, events: Sequence[Event], before: RoundState | None, after: RoundState
    ) -> None:
        names = _ids_by_name(before) if before is not None else {}
        for event in events:
            if isinstance(event, LotSold):
                cards = tuple(c.code for c in event.cards)
                week.lots.append(LotResult(event.lot, cards, at, event.name, names.get(event.name), event.amount))
            elif isinstance(event, LotUnsold):
                week.lots.append(LotResult(event.lot, tuple(c.code for c in event.cards), at, kept=event.kept))
            elif isinstance(event, PlacementsMade):
                week.placements, week.placed_at = event.placements, at
            elif isinstance(event, JudgeElected):
                how = "nobody stood for judge" if event.name is None else _elected(event)
                week.offices.append(Office(at, after.judge, after.judge_name, how))
            elif isinstance(event, JudgeChanged):
                week.offices.append(Office(at, after.judge, after.judge_name, event.why))
            elif isinstance(event, ProposalDecided):
                week.proposals.append(Decision(event.number, event.passed, event.votes_for, event.votes_against, at))
            elif isinstance(event, RequestMade):
                week.requests.append(event.number)
            elif isinstance(event, RulingGiven):
                week.ruled.append(event.number)
            elif isinstance(event, ConfidenceStarted):
                week.confidence_started.append(event.number)
            elif isinstance(event, ConfidenceDecided):
                week.confidence.append(
                    ConfidenceResult(event.number, event.overturned, event.votes_overturn, event.votes_affirm, at)
                )
            elif isinstance(event, Joined):
                week.joined.append(event.name)
            elif isinstance(event, Left):
                week.left.append(event.name)

    def ordered(self) -> list[Week]:
        """The weeks, oldest first."""
        return [self.weeks[k] for k in sorted(self.weeks)]

    def week(self, key: str) -> Week | None:
        return next((w for w in self.weeks.values() if w.key == key), None)

    def confidence_of(self, request: int) -> list[ConfidenceResult]:
        """Every decided vote of confidence on a request's rulings, oldest first."""
        return [c for w in self.ordered() for c in w.confidence if c.number == request]


def _elected(event: JudgeElected) -> str:
    votes = f"{event.votes} votes" if event.votes != 1 else "1 vote"
    tie = ", the earliest of the tied candidacies" if event.tie_broken else ""
    return f"elected with {votes}{tie}"


class SeasonBook:
    """Every guild's season, kept up to date on demand with the rows logged since the last look."""

    def __init__(self, rows: Callable[[str, int, int], Awaitable[Sequence[Any]]]) -> None:
        """``rows(guild, after, limit)``: log rows (``seq``, ``at``, ``body``) after seq ``after``, in order."""
        self._rows = rows
        self._seasons: dict[str, Season] = {}
        self._locks: dict[str, asyncio.Lock] = {}

    async def season(self, guild: str) -> Season:
        async with self._locks.setdefault(guild, asyncio.Lock()):
            season = self._seasons.get(guild)
            if season is None:
                season = Season(guild)
            while True:
                rows = await self._rows(guild, season.seq, FOLD_CHUNK)
                if not rows:
                    break
                await asyncio.to_thread(_feed_all, season, rows)
                if len(rows) < FOLD_CHUNK:
                    break
            self._seasons[guild] = season
            return season

    def forget(self, guild: str) -> None:
        self._seasons.pop(guild, None)


def _feed_all(season: Season, rows: Sequence[Any]) -> None:
    for row in rows:
        season.feed(row.seq, row.at, row.body)
