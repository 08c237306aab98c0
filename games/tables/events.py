"""What happened at a table, as typed values; ``text(lang)`` is the sentence the thread shows.

Every event has an audience: the table's own events are public (``audience`` None); a game's
events inside ``Moved`` keep theirs (``games.tables.posts`` routes each to whom it is for).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import ClassVar

from games.tables.engine import Audience, GameEvent, audience_of
from games.tables.i18n import join_names, players_text, tr, trn
from games.tables.model import TableStatus


def stamp(at: datetime, lang: str = "en") -> str:
    """An instant as the thread writes it; seconds only when the deadline has them (short clocks)."""
    fmt = tr(lang, "time.stamp_seconds" if at.second else "time.stamp")
    return at.strftime(fmt)


def live_stamp(at: datetime) -> str:
    """A Discord timestamp that counts down in each reader's client (``<t:unix:R>``: "in 2 minutes")."""
    return f"<t:{int(at.timestamp())}:R>"


def duration_text(seconds: float, lang: str = "en") -> str:
    """A duration as the language writes it, down to its seconds: ``1d 2h``, ``1m 30s``, ``45s``
    (``1 天 2 小時``, ``1 分 30 秒``, ``3 分鐘``). A 90-second clock is never "1 minute", and one with
    1:59 left is never "1 minute left"; nothing left (or less than a second) is "under a minute"."""
    whole = max(int(seconds), 0)
    if whole == 0:
        return tr(lang, "time.under_a_minute")
    minutes, secs = divmod(whole, 60)
    days, rest = divmod(minutes, 24 * 60)
    hours, mins = divmod(rest, 60)
    units = [("time.days", days), ("time.hours", hours)]
    # a language may write minutes followed by seconds otherwise than minutes alone (``1 分 30 秒``)
    units.append(("time.minutes_then_seconds" if secs else "time.minutes", mins))
    units.append(("time.seconds", secs))
    return tr(lang, "list.space").join(tr(lang, key, n=value) for key, value in units if value)


@dataclass(frozen=True, slots=True)
class TableOpened:
    kind: ClassVar[str] = "lobby"
    audience: ClassVar[Audience] = None
    table: str
    title: str
    host: str
    seats: tuple[str, ...]
    min_seats: int
    max_seats: int
    clocks: str
    """The table's deadlines in words (the game's own, or the turn limit), in the table's language."""
    options: str = ""
    """The options this table changed from the defaults, as ``key:value`` words."""
    brought: str = ""
    """What the seats bring that everyone may know, in the table's language."""
    arranged: bool = False
    """Opened for players who agreed to play (a challenge accepted): seated and started at once."""

    def text(self, lang: str = "en") -> str:
        line = tr(
            lang,
            "lobby.opened_arranged" if self.arranged else "lobby.opened",
            host=self.host,
            table=self.table,
            title=self.title,
            players=players_text(lang, self.min_seats, self.max_seats),
            seats=join_names(lang, self.seats),
            clocks=self.clocks,
        )
        if self.brought:
            line += "\n" + tr(lang, "lobby.brought", list=self.brought)
        if self.options:
            line += "\n" + tr(lang, "lobby.options", options=self.options)
        return line


@dataclass(frozen=True, slots=True)
class SeatsChanged:
    kind: ClassVar[str] = "lobby"
    audience: ClassVar[Audience] = None
    change: str
    """``sit``, ``leave``, ``ai`` or ``brings`` (a seated member changes what they bring)."""
    who: str
    count: int
    seats: tuple[str, ...]
    max_seats: int
    brings: str = ""
    """What the seat brings that everyone may know (``weight 2``), in the table's language."""

    def text(self, lang: str = "en") -> str:
        if self.change == "ai":
            what = trn(lang, "lobby.ai_seats", self.count)
        elif self.change == "brings":
            return tr(lang, "lobby.now_brings", who=self.who, what=self.brings)
        elif self.change == "sit" and self.brings:
            what = tr(lang, "lobby.sit_bringing", who=self.who, what=self.brings)
        else:
            what = tr(lang, f"lobby.{self.change}", who=self.who)
        seated = tr(lang, "lobby.seated", n=len(self.seats), max=self.max_seats, seats=join_names(lang, self.seats))
        return tr(lang, "list.sentence").join((what, seated))


@dataclass(frozen=True, slots=True)
class Brought:
    """What a seat brought, told to that seat alone (its member's private answer)."""

    kind: ClassVar[str] = "lobby"
    seat: str
    what: str
    """In the table's language."""

    @property
    def audience(self) -> Audience:
        return frozenset({self.seat})

    def text(self, lang: str = "en") -> str:
        return tr(lang, "lobby.you_bring", what=self.what)


@dataclass(frozen=True, slots=True)
class Notice:
    """A framework sentence by its catalogue key (``fields`` fill it in)."""

    kind: ClassVar[str] = "lobby"
    audience: ClassVar[Audience] = None
    key: str
    fields: tuple[tuple[str, str], ...] = ()

    def text(self, lang: str = "en") -> str:
        return tr(lang, self.key, **dict(self.fields))


@dataclass(frozen=True, slots=True)
class LobbyNote:
    """The game's word for the lobby at its size now (``GameEngine.lobby_note``), in the table's language."""

    kind: ClassVar[str] = "lobby"
    audience: ClassVar[Audience] = None
    note: str

    def text(self, lang: str = "en") -> str:
        del lang
        return self.note


@dataclass(frozen=True, slots=True)
class GameStarted:
    kind: ClassVar[str] = "lobby"
    audience: ClassVar[Audience] = None
    title: str
    seats: tuple[str, ...]
    private: str
    """What the game calls a seat's private view (``your cards``), in the table's language."""

    def text(self, lang: str = "en") -> str:
        return tr(lang, "game.started", title=self.title, seats=join_names(lang, self.seats), private=self.private)


@dataclass(frozen=True, slots=True)
class Moved:
    """One game move (or timeout) and what the game said of it, each event with its own audience."""

    kind: ClassVar[str] = "move"
    audience: ClassVar[Audience] = None
    seat: str
    by_ai: bool
    events: tuple[GameEvent, ...]

    @property
    def lines(self) -> tuple[str, ...]:
        """The public sentences (English); private ones are never part of them."""
        return tuple(e.text("en") for e in self.events if audience_of(e) is None)

    def text(self, lang: str = "en") -> str:
        return "\n".join(e.text(lang) for e in self.events if audience_of(e) is None)


@dataclass(frozen=True, slots=True)
class BoardShown:
    """The public table (``public_view``): after the start, when the awaited seats change, at the end."""

    kind: ClassVar[str] = "board"
    audience: ClassVar[Audience] = None
    board: str

    def text(self, lang: str = "en") -> str:
        del lang
        return self.board


@dataclass(frozen=True, slots=True)
class YourTurn:
    kind: ClassVar[str] = "turn"
    audience: ClassVar[Audience] = None
    seat: str
    member: str
    deadline: datetime

    def text(self, lang: str = "en") -> str:
        return tr(lang, "clock.your_turn", seat=self.seat, deadline=stamp(self.deadline, lang))


@dataclass(frozen=True, slots=True)
class Awaited:
    """A phase deadline began that waits for several seats at once."""

    kind: ClassVar[str] = "turn"
    audience: ClassVar[Audience] = None
    seats: tuple[str, ...]
    members: tuple[str, ...]
    deadline: datetime
    seconds: float

    def text(self, lang: str = "en") -> str:
        return tr(
            lang,
            "clock.awaited",
            seats=join_names(lang, self.seats),
            left=duration_text(self.seconds, lang),
            deadline=stamp(self.deadline, lang),
            relative=live_stamp(self.deadline),
        )


@dataclass(frozen=True, slots=True)
class Reminder:
    kind: ClassVar[str] = "reminder"
    audience: ClassVar[Audience] = None
    seat: str
    member: str
    deadline: datetime
    left: timedelta
    then: str = ""
    """What the game does when the turn runs out (``GameEngine.late_text``); empty: the AI plays it."""

    def text(self, lang: str = "en") -> str:
        if self.then:
            return tr(
                lang,
                "clock.reminder_then",
                seat=self.seat,
                left=duration_text(self.left.total_seconds(), lang),
                deadline=stamp(self.deadline, lang),
                then=self.then,
            )
        return tr(
            lang,
            "clock.reminder",
            seat=self.seat,
            left=duration_text(self.left.total_seconds(), lang),
            deadline=stamp(self.deadline, lang),
        )


@dataclass(frozen=True, slots=True)
class TimedOut:
    kind: ClassVar[str] = "timeout"
    audience: ClassVar[Audience] = None
    seat: str
    member: str
    timeouts: int
    for_good: bool
    handled: bool = False
    """The game said what the late turn does (``on_timeout``) instead of the AI playing it."""

    def text(self, lang: str = "en") -> str:
        if self.for_good:
            return tr(lang, "clock.timed_out_for_good", seat=self.seat, n=self.timeouts)
        if self.handled:
            return tr(lang, "clock.timed_out_game", seat=self.seat, n=self.timeouts)
        return tr(lang, "clock.timed_out", seat=self.seat, n=self.timeouts)


@dataclass(frozen=True, slots=True)
class PhaseTimedOut:
    """A phase deadline passed; ``late`` are the seats still awaited then."""

    kind: ClassVar[str] = "timeout"
    audience: ClassVar[Audience] = None
    late: tuple[str, ...]

    def text(self, lang: str = "en") -> str:
        if not self.late:
            return tr(lang, "clock.phase_over")
        return tr(lang, "clock.phase_timed_out", seats=join_names(lang, self.late))


@dataclass(frozen=True, slots=True)
class TableEnded:
    kind: ClassVar[str] = "end"
    audience: ClassVar[Audience] = None
    status: TableStatus
    summary: str

    def text(self, lang: str = "en") -> str:
        del lang
        return self.summary


TableEvent = (
    TableOpened
    | SeatsChanged
    | Brought
    | Notice
    | LobbyNote
    | GameStarted
    | Moved
    | BoardShown
    | YourTurn
    | Awaited
    | Reminder
    | TimedOut
    | PhaseTimedOut
    | TableEnded
)
