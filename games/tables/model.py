"""A table around a thread game, as one frozen value: seats, options, status, clocks and the game's state.

A ``Table`` is what the store keeps (``model_dump_json``); the transitions (``transitions``) are
the only way it changes. ``clocks`` are the deadlines running now, each with the instant it
started: the game says which deadlines its state implies (``GameEngine.timers``) and the table
remembers when each first appeared, so every deadline is derived from stored state.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence
from datetime import datetime, timedelta
from enum import StrEnum
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, model_validator

from games.tables.engine import GameRuleError, TimerKind

AI_NAME = re.compile(r"^ai-\d+$", re.IGNORECASE)
MAX_SEAT_NAME = 32

DEFAULT_TURN_SECONDS = 24 * 3600
MIN_TURN_SECONDS = 10
MAX_TURN_SECONDS = 30 * 24 * 3600
DEFAULT_LOBBY_HOURS = 24


class TableError(GameRuleError):
    """The table cannot do that now (a lobby rule rather than a game rule); nothing changed."""


class TableStatus(StrEnum):
    LOBBY = "lobby"
    PLAYING = "playing"
    WON = "won"
    LOST = "lost"
    FINISHED = "finished"
    ABANDONED = "abandoned"

    @property
    def open(self) -> bool:
        return self in (TableStatus.LOBBY, TableStatus.PLAYING)


class _Value(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class TableOptions(_Value):
    """The table's own options (the game's options are separate: ``Table.game_options``)."""

    turn_seconds: int = Field(
        DEFAULT_TURN_SECONDS, ge=MIN_TURN_SECONDS, le=MAX_TURN_SECONDS, description="time a seat has for its turn"
    )
    reminder_fraction: float | None = Field(
        0.5, gt=0, lt=1, description="when the reminder is posted, as a fraction of the turn; None: no reminder"
    )
    timeouts_to_ai: int = Field(3, ge=1, le=100, description="turns in a row that run out before the AI takes over")
    lobby_hours: int | None = Field(
        DEFAULT_LOBBY_HOURS, ge=1, le=24 * 30, description="a lobby nobody starts closes after this; None: never"
    )

    @property
    def turn_limit(self) -> timedelta:
        return timedelta(seconds=self.turn_seconds)


class Seat(_Value):
    name: str
    """The name the engine knows the seat by (unique at the table)."""
    member: str | None = None
    """The member's id; None for an AI seat."""
    timeouts: int = 0
    """Turns in a row this seat let run out."""
    autopilot: bool = False
    """The AI plays this human seat for good (too many timeouts, or the member left the game)."""
    left: bool = False
    setup: str | None = None
    """What the seat brought when it joined (the game's ``setup_model`` JSON), if anything."""

    @property
    def is_ai(self) -> bool:
        return self.member is None

    @property
    def played_by_ai(self) -> bool:
        return self.member is None or self.autopilot


class Clock(_Value):
    """A deadline running now: the game's ``Timer`` with the instant the table first showed it."""

    key: str
    started_at: datetime
    seconds: float
    kind: TimerKind = "phase"
    seat: str | None = None
    reminded: bool = False

    @property
    def deadline(self) -> datetime:
        return self.started_at + timedelta(seconds=self.seconds)


class Table(_Value):
    name: str
    game: str
    number: int
    seed: str
    host: str
    """The member who opened the table."""
    status: TableStatus = TableStatus.LOBBY
    seats: tuple[Seat, ...] = ()
    """In the lobby: humans in the order they sat down, then the AI seats; once started: turn order."""
    options: TableOptions = TableOptions()
    game_options: str | None = None
    """The engine's options (``options_model`` JSON); None: the game's defaults."""
    lang: str = "en"
    """The language of the table's texts (``en``, ``zh-TW``)."""
    opened_at: datetime
    started_at: datetime | None = None
    ended_at: datetime | None = None
    board: str | None = None
    """The game's state, as the engine dumps it; None until the start."""
    clocks: tuple[Clock, ...] = ()
    """The deadlines running now, earliest first."""
    seq: int = 0
    """Actions of the table's log applied so far."""
    moves: int = 0
    """Game moves made (human and AI)."""
    summary: str | None = None
    winners: tuple[str, ...] = ()
    scores: tuple[tuple[str, int], ...] = ()
    outcomes: tuple[tuple[str, str, str], ...] = ()
    """What outlives the table (seat, kind, value): written in the transaction that ends it."""

    @model_validator(mode="before")
    @classmethod
    def _older_bodies(cls, data: Any) -> Any:
        """Tables stored before clocks kept one turn timer (``turn_seat``, ``turn_started_at``)."""
        if not isinstance(data, dict) or "turn_seat" not in data:
            return data
        data = dict(data)
        seat, started, reminded = data.pop("turn_seat"), data.pop("turn_started_at", None), data.pop("reminded", False)
        options = data.get("options") or {}
        seconds = options.get("turn_seconds", DEFAULT_TURN_SECONDS) if isinstance(options, dict) else None
        if seat is not None and started is not None and seconds is not None and data.get("status") == "playing":
            clock = {"key": f"turn:{seat}", "started_at": started, "seconds": seconds, "kind": "turn", "seat": seat}
            data["clocks"] = ({**clock, "reminded": bool(reminded)},)
        return data

    def seat_of(self, member: str) -> Seat | None:
        """The seat ``member`` holds (and has not left), if any."""
        return next((s for s in self.seats if s.member == member and not s.left), None)

    def seat_named(self, name: str) -> Seat | None:
        return next((s for s in self.seats if s.name == name), None)

    @property
    def humans(self) -> tuple[Seat, ...]:
        """Human seats whose member is still at the table."""
        return tuple(s for s in self.seats if not s.is_ai and not s.left)

    @property
    def ai_seats(self) -> tuple[Seat, ...]:
        return tuple(s for s in self.seats if s.is_ai)

    @property
    def turn_clock(self) -> Clock | None:
        """The first turn deadline running for a human seat, if any."""
        return next((c for c in self.clocks if c.kind == "turn" and c.seat is not None), None)

    @property
    def turn_seat(self) -> str | None:
        """The seat whose turn deadline runs (turn games: whose turn it is)."""
        clock = self.turn_clock
        return clock.seat if clock is not None else None

    @property
    def turn_started_at(self) -> datetime | None:
        clock = self.turn_clock
        return clock.started_at if clock is not None else None

    @property
    def reminded(self) -> bool:
        clock = self.turn_clock
        return clock.reminded if clock is not None else False

    @property
    def deadline(self) -> datetime | None:
        """When the first running deadline passes, or None."""
        if self.status is not TableStatus.PLAYING or not self.clocks:
            return None
        return min(c.deadline for c in self.clocks)

    @property
    def lobby_expires_at(self) -> datetime | None:
        hours = self.options.lobby_hours
        if self.status is not TableStatus.LOBBY or hours is None:
            return None
        return self.opened_at + timedelta(hours=hours)


def seat_name(member_name: str, taken: Sequence[str]) -> str:
    """A seat name from a member's display name: printable, short, and unique at the table."""
    text = unicodedata.normalize("NFKC", member_name)
    text = "".join(ch for ch in text if ch.isprintable() and ch not in "`@*_~|<>#")
    text = " ".join(text.split())[:MAX_SEAT_NAME].strip() or "player"
    if AI_NAME.match(text):
        text = f"{text} (human)"
    used = {unicodedata.normalize("NFKC", t).casefold() for t in taken}
    name, n = text, 1
    while name.casefold() in used:
        n += 1
        name = f"{text}-{n}"
    return name


def ai_seats(count: int) -> tuple[Seat, ...]:
    return tuple(Seat(name=f"AI-{k}") for k in range(1, count + 1))
