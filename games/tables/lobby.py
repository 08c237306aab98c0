"""A table around a thread game, as pure values and transitions: lobby, seats, turns, timers, the AI.

A ``Table`` is one frozen pydantic value: who sits where, the table's options, its status, the
turn timer and the game's own state (``board``: the engine's ``dump_state`` text). A
``TableAction`` is what the action log stores; ``apply(table, action, at, rng)`` is the only way a
table changes, and it returns a ``Step``: the new table and its events, in order. Nothing here
touches the database, Discord or the wall clock: ``at`` is the instant the action happened and
``rng`` the seeded dice of that action (``action_rng(table.seed, seq)``), so replaying a table's
log from its seed rebuilds it exactly.

Choices this module makes (the brief leaves them open):

- The member who opens a table sits at it; AI seats are named ``AI-1``, ``AI-2``... and count
  towards the game's seat limit. ``!ai N`` changes their number while the table is a lobby.
- At the start the seats are put in a random order (the table's seeded dice); the engine then
  decides who moves first.
- AI seats move at once: at the start, and right after any action that hands them the turn.
- A turn's timer starts when the turn passes to a seat and does not restart while that seat
  keeps moving. A reminder is posted at ``reminder_fraction`` of the limit (default half time).
  When the limit passes, the AI plays the rest of that turn; after ``timeouts_to_ai`` turns in a
  row that ran out (default 3) the AI plays the seat for good. A move by the member resets the count.
- Leaving a lobby frees the seat; leaving a game under way hands the seat to the AI for good. A
  table whose human seats are all gone is abandoned; so is one a moderator ends.
"""

from __future__ import annotations

import random
import re
import unicodedata
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from enum import StrEnum
from functools import lru_cache
from typing import Annotated, Any, ClassVar, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, ValidationError

from games.tables.engine import (
    AnyEngine,
    BadCommandError,
    GameOverError,
    GameRuleError,
    IllegalActionError,
    NotASeatError,
    SeatingError,
    WrongRoleError,
)
from games.tables.registry import get_ai, get_game

TABLE_NAME = re.compile(r"^([a-z][a-z0-9_]*)-([1-9][0-9]{0,8})$")
"""Tables (and their threads) are named ``GAME-N``: ``wikipedia-1``, ``wikipedia-2``..."""

AI_NAME = re.compile(r"^ai-\d+$", re.IGNORECASE)
MAX_SEAT_NAME = 32
MAX_AI_ACTIONS = 20_000
"""More computer moves than this in one transition means a broken engine, not a long game."""

DEFAULT_TURN_SECONDS = 24 * 3600
MIN_TURN_SECONDS = 60
MAX_TURN_SECONDS = 30 * 24 * 3600


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

    @property
    def is_ai(self) -> bool:
        return self.member is None

    @property
    def played_by_ai(self) -> bool:
        return self.member is None or self.autopilot


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
    opened_at: datetime
    started_at: datetime | None = None
    ended_at: datetime | None = None
    board: str | None = None
    """The game's state, as the engine dumps it; None until the start."""
    turn_seat: str | None = None
    """The seat whose turn the timer is running for."""
    turn_started_at: datetime | None = None
    reminded: bool = False
    seq: int = 0
    """Actions of the table's log applied so far."""
    moves: int = 0
    """Game moves made (human and AI)."""
    summary: str | None = None
    winners: tuple[str, ...] = ()

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
    def deadline(self) -> datetime | None:
        """When the current human turn runs out, or None (no human turn running)."""
        if self.status is not TableStatus.PLAYING or self.turn_seat is None or self.turn_started_at is None:
            return None
        seat = self.seat_named(self.turn_seat)
        if seat is None or seat.played_by_ai:
            return None
        return self.turn_started_at + self.options.turn_limit

    @property
    def reminder_at(self) -> datetime | None:
        deadline = self.deadline
        fraction = self.options.reminder_fraction
        if deadline is None or fraction is None or self.reminded or self.turn_started_at is None:
            return None
        return self.turn_started_at + timedelta(seconds=round(self.options.turn_seconds * fraction))


DueKind = Literal["remind", "timeout"]


def next_due(table: Table) -> tuple[datetime, DueKind] | None:
    """The table's next scheduled work (a reminder or a timeout), derived from its state alone."""
    reminder = table.reminder_at
    if reminder is not None:
        return reminder, "remind"
    deadline = table.deadline
    return (deadline, "timeout") if deadline is not None else None


def action_rng(seed: str, seq: int) -> random.Random:
    """The dice of the table's ``seq``-th logged action: the same on every replay of the log."""
    return random.Random(f"{seed}:{seq}")


# --- actions (what the log stores) -----------------------------------------------------------


class _Action(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class OpenTable(_Action):
    kind: Literal["open"] = "open"
    game: str
    number: int = Field(ge=1)
    seed: str
    member: str
    member_name: str
    ai_seats: int = Field(0, ge=0, le=20)
    options: TableOptions = TableOptions()
    game_options: str | None = None


class JoinTable(_Action):
    kind: Literal["join"] = "join"
    member: str
    member_name: str


class LeaveTable(_Action):
    kind: Literal["leave"] = "leave"
    member: str


class SetAISeats(_Action):
    kind: Literal["ai"] = "ai"
    member: str
    count: int = Field(ge=0, le=20)
    moderator: bool = False


class StartTable(_Action):
    kind: Literal["start"] = "start"
    member: str
    moderator: bool = False


class PlayMove(_Action):
    kind: Literal["move"] = "move"
    member: str
    action: str
    """The engine's ``dump_action`` of the move."""


class TurnReminder(_Action):
    kind: Literal["remind"] = "remind"


class TurnTimeout(_Action):
    kind: Literal["timeout"] = "timeout"


class EndTable(_Action):
    kind: Literal["end"] = "end"
    member: str
    moderator: bool = False


TableAction = Annotated[
    OpenTable | JoinTable | LeaveTable | SetAISeats | StartTable | PlayMove | TurnReminder | TurnTimeout | EndTable,
    Field(discriminator="kind"),
]
ACTION_ADAPTER: TypeAdapter[TableAction] = TypeAdapter(TableAction)


# --- events -----------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class TableOpened:
    kind: ClassVar[str] = "lobby"
    table: str
    title: str
    host: str
    seats: tuple[str, ...]
    min_seats: int
    max_seats: int
    turn_seconds: int

    def text(self) -> str:
        return (
            f"{self.host} opened **{self.table}**, a table of {self.title} ({self.min_seats} to {self.max_seats}"
            f" players). Seated: {', '.join(self.seats)}. Type `!join` to sit down and `!start` when everyone"
            f" is here; each turn may take up to {duration_text(self.turn_seconds)}."
        )


@dataclass(frozen=True, slots=True)
class SeatsChanged:
    kind: ClassVar[str] = "lobby"
    what: str
    seats: tuple[str, ...]
    max_seats: int

    def text(self) -> str:
        return f"{self.what} Seated ({len(self.seats)} of {self.max_seats}): {', '.join(self.seats) or 'nobody'}."


@dataclass(frozen=True, slots=True)
class Notice:
    kind: ClassVar[str] = "lobby"
    message: str

    def text(self) -> str:
        return self.message


@dataclass(frozen=True, slots=True)
class GameStarted:
    kind: ClassVar[str] = "lobby"
    title: str
    seats: tuple[str, ...]

    def text(self) -> str:
        return f"{self.title} starts. Seats in order: {', '.join(self.seats)}. `!hand` shows your cards (only to you)."


@dataclass(frozen=True, slots=True)
class Moved:
    """One game move: the engine's own event texts."""

    kind: ClassVar[str] = "move"
    seat: str
    by_ai: bool
    lines: tuple[str, ...]

    def text(self) -> str:
        return "\n".join(self.lines)


@dataclass(frozen=True, slots=True)
class BoardShown:
    """The public table (``public_view``): after the start, when a turn passes to a member, at the end."""

    kind: ClassVar[str] = "board"
    board: str

    def text(self) -> str:
        return self.board


@dataclass(frozen=True, slots=True)
class YourTurn:
    kind: ClassVar[str] = "turn"
    seat: str
    member: str
    deadline: datetime

    def text(self) -> str:
        return f"{self.seat}, it is your turn (until {stamp(self.deadline)})."


@dataclass(frozen=True, slots=True)
class Reminder:
    kind: ClassVar[str] = "reminder"
    seat: str
    member: str
    deadline: datetime
    left: timedelta

    def text(self) -> str:
        return (
            f"⏰ {self.seat}, it is still your turn: {duration_text(int(self.left.total_seconds()))} left"
            f" (until {stamp(self.deadline)}); after that the AI plays it for you."
        )


@dataclass(frozen=True, slots=True)
class TimedOut:
    kind: ClassVar[str] = "timeout"
    seat: str
    member: str
    timeouts: int
    for_good: bool

    def text(self) -> str:
        if self.for_good:
            return (
                f"⌛ Time is up for {self.seat} ({self.timeouts} turns in a row): the AI plays this seat from now on."
            )
        return f"⌛ Time is up for {self.seat}: the AI plays this turn ({self.timeouts} in a row so far)."


@dataclass(frozen=True, slots=True)
class TableEnded:
    kind: ClassVar[str] = "end"
    status: TableStatus
    summary: str

    def text(self) -> str:
        return self.summary


TableEvent = (
    TableOpened | SeatsChanged | Notice | GameStarted | Moved | BoardShown | YourTurn | Reminder | TimedOut | TableEnded
)


@dataclass(frozen=True, slots=True)
class Step:
    table: Table
    events: tuple[TableEvent, ...]


# --- small helpers ----------------------------------------------------------------------------


def stamp(at: datetime) -> str:
    return at.strftime("%a %Y-%m-%d %H:%M UTC")


def duration_text(seconds: int) -> str:
    minutes = max(seconds, 0) // 60
    days, rest = divmod(minutes, 24 * 60)
    hours, mins = divmod(rest, 60)
    parts = [f"{v}{u}" for v, u in ((days, "d"), (hours, "h"), (mins, "m")) if v]
    return " ".join(parts) or "under a minute"


_DURATION = re.compile(r"^(?:(\d{1,3})d)?(?:(\d{1,4})h)?(?:(\d{1,5})m)?$")


def parse_turn_limit(text: str) -> int:
    """A turn limit typed as ``1d``, ``12h``, ``90m`` or ``1d12h``, in seconds; ``BadCommandError`` otherwise."""
    match = _DURATION.match(text.strip().casefold())
    shown = text if len(text) <= 20 else text[:20] + "…"
    if match is None or not any(match.groups()):
        raise BadCommandError(f"`{shown}` is not a turn limit; write it like `24h`, `90m` or `2d`")
    days, hours, minutes = (int(g) if g else 0 for g in match.groups())
    seconds = ((days * 24 + hours) * 60 + minutes) * 60
    if not MIN_TURN_SECONDS <= seconds <= MAX_TURN_SECONDS:
        raise BadCommandError(
            f"a turn may last from {duration_text(MIN_TURN_SECONDS)} to {duration_text(MAX_TURN_SECONDS)},"
            f" not {duration_text(seconds)}"
        )
    return seconds


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


def _ai_seats(count: int) -> tuple[Seat, ...]:
    return tuple(Seat(name=f"AI-{k}") for k in range(1, count + 1))


@lru_cache(maxsize=64)
def _load(game: str, board: str) -> Any:
    """The engine state of a board text; cached, since every command reads the same text again."""
    return get_game(game).load_state(board)


def game_state(table: Table) -> Any:
    """The engine's state of a started table. ``IllegalActionError`` while it is a lobby."""
    if table.board is None:
        raise IllegalActionError("the game has not started yet; `!start` starts it")
    return _load(table.game, table.board)


def engine_of(table: Table) -> AnyEngine:
    return get_game(table.game)


def _seat_list(table: Table) -> tuple[str, ...]:
    return tuple(s.name for s in table.seats)


def _require_open(table: Table) -> None:
    if not table.status.open:
        raise GameOverError(f"{table.name} has ended ({table.status.value}); `!play {table.game}` opens a new table")


def _require_lobby(table: Table, refusal: str) -> None:
    _require_open(table)
    if table.status is not TableStatus.LOBBY:
        raise TableError(refusal)


# --- transitions ------------------------------------------------------------------------------


def open_table(action: OpenTable, at: datetime) -> Step:
    """A new lobby with its opener seated and ``ai_seats`` computer players."""
    engine = get_game(action.game)
    if engine.name != action.game:
        raise TableError(f"`{action.game}` is not the registry name of a game")
    if 1 + action.ai_seats > engine.max_seats:
        raise SeatingError(
            f"{engine.title} seats at most {engine.max_seats} players: you and at most"
            f" {engine.max_seats - 1} AI seats, not {action.ai_seats}"
        )
    if action.game_options is not None:
        try:
            engine.options_model.model_validate_json(action.game_options)
        except ValidationError as exc:
            raise BadCommandError(f"those game options are not valid: {exc.errors()[0].get('msg')}") from exc
    name = f"{engine.name}-{action.number}"
    seats = (Seat(name=seat_name(action.member_name, ()), member=action.member), *_ai_seats(action.ai_seats))
    table = Table(
        name=name,
        game=engine.name,
        number=action.number,
        seed=action.seed,
        host=action.member,
        seats=seats,
        options=action.options,
        game_options=action.game_options,
        opened_at=at,
        seq=1,
    )
    opened = TableOpened(
        name,
        engine.title,
        seats[0].name,
        _seat_list(table),
        engine.min_seats,
        engine.max_seats,
        action.options.turn_seconds,
    )
    return Step(table, (opened,))


def join(table: Table, action: JoinTable) -> Step:
    _require_lobby(table, f"the game at {table.name} has started; seats are only taken in the lobby")
    if table.seat_of(action.member) is not None:
        raise SeatingError("you already sit at this table")
    engine = engine_of(table)
    if len(table.seats) >= engine.max_seats:
        raise SeatingError(f"{table.name} is full: {engine.title} seats at most {engine.max_seats} players")
    humans = [s for s in table.seats if not s.is_ai]
    seat = Seat(name=seat_name(action.member_name, _seat_list(table)), member=action.member)
    new = table.model_copy(update={"seats": (*humans, seat, *table.ai_seats)})
    return Step(new, (SeatsChanged(f"{seat.name} sits down.", _seat_list(new), engine.max_seats),))


def set_ai_seats(table: Table, action: SetAISeats) -> Step:
    _require_lobby(table, f"the game at {table.name} has started; AI seats are only set in the lobby")
    if table.seat_of(action.member) is None and not action.moderator:
        raise NotASeatError("only players at this table can change its AI seats; `!join` first")
    engine = engine_of(table)
    humans = tuple(s for s in table.seats if not s.is_ai)
    if len(humans) + action.count > engine.max_seats:
        raise SeatingError(
            f"{engine.title} seats at most {engine.max_seats} players; with {len(humans)} seated there is room"
            f" for {engine.max_seats - len(humans)} AI seats, not {action.count}"
        )
    new = table.model_copy(update={"seats": (*humans, *_ai_seats(action.count))})
    what = f"The table now has {action.count} AI seat{'' if action.count == 1 else 's'}."
    return Step(new, (SeatsChanged(what, _seat_list(new), engine.max_seats),))


def leave(table: Table, action: LeaveTable, at: datetime, rng: random.Random) -> Step:
    _require_open(table)
    seat = table.seat_of(action.member)
    if seat is None:
        raise NotASeatError("you do not sit at this table")
    engine = engine_of(table)
    if table.status is TableStatus.LOBBY:
        rest = tuple(s for s in table.seats if s.member != action.member)
        new = table.model_copy(update={"seats": rest})
        events: list[TableEvent] = [SeatsChanged(f"{seat.name} leaves the table.", _seat_list(new), engine.max_seats)]
        if not new.humans:
            return _abandon(new, at, "Nobody is left at the table, so it closes.", events)
        return Step(new, tuple(events))
    gone = seat.model_copy(update={"left": True, "autopilot": True})
    new = _replace_seat(table, gone)
    events = [Notice(f"{seat.name} leaves the game; the AI plays their seat from now on.")]
    if not new.humans:
        return _abandon(new, at, "Every player has left, so the game is abandoned.", events)
    state = game_state(new)
    state = _run_ai(new, state, rng, events)
    return _settle(new, engine, state, at, events)


def start(table: Table, action: StartTable, at: datetime, rng: random.Random) -> Step:
    _require_lobby(table, f"the game at {table.name} is already under way")
    if table.seat_of(action.member) is None and not action.moderator:
        raise NotASeatError("only players at this table can start it; `!join` first")
    engine = engine_of(table)
    if len(table.seats) < engine.min_seats:
        missing = engine.min_seats - len(table.seats)
        raise SeatingError(
            f"{engine.title} needs at least {engine.min_seats} players and {len(table.seats)} seated is not"
            f" enough: {missing} more must `!join` (or `!ai N` adds computer players)"
        )
    order = list(table.seats)
    rng.shuffle(order)
    options = engine.options_model.model_validate_json(table.game_options) if table.game_options else None
    state = engine.new_game([s.name for s in order], options, rng)
    started = table.model_copy(update={"status": TableStatus.PLAYING, "seats": tuple(order), "started_at": at})
    events: list[TableEvent] = [GameStarted(engine.title, tuple(s.name for s in order))]
    state = _run_ai(started, state, rng, events)
    return _settle(started, engine, state, at, events, force_board=True)


def play(table: Table, action: PlayMove, at: datetime, rng: random.Random) -> Step:
    """A member's move: the engine checks it; then the AI seats whose turn follows move."""
    seat = check_player(table, action.member)
    engine = engine_of(table)
    state = game_state(table)
    move = engine.load_action(action.action)
    state, happened = engine.apply(state, seat.name, move, rng)
    fresh = _replace_seat(table, seat.model_copy(update={"timeouts": 0}))
    events: list[TableEvent] = [Moved(seat.name, by_ai=False, lines=tuple(e.text() for e in happened))]
    state = _run_ai(fresh, state, rng, events)
    return _settle(fresh, engine, state, at, events)


def check_player(table: Table, member: str) -> Seat:
    """The seat ``member`` plays now; the rule error that stops them otherwise."""
    if table.status is TableStatus.LOBBY:
        raise IllegalActionError("the game has not started yet; `!start` starts it")
    _require_open(table)
    seat = table.seat_of(member)
    if seat is None:
        raise NotASeatError("you do not play at this table")
    if seat.autopilot:
        raise IllegalActionError("the AI plays your seat for good now (your turns ran out too often)")
    return seat


def parse_move(
    table: Table, member: str, text: str, players: Callable[[Sequence[str]], str] | None = None
) -> PlayMove:
    """Read a move typed in the thread into the action the log stores (legality is ``play``'s).

    ``players``: which seat a player named in the move is (``games.tables.players``); the log
    stores the seat, so a replay never resolves a name again.
    """
    seat = check_player(table, member)
    engine = engine_of(table)
    state = game_state(table)
    action = engine.parse_action(state, seat.name, text, players)
    return PlayMove(member=member, action=engine.dump_action(action))


def remind(table: Table, at: datetime) -> Step:
    due = next_due(table)
    if due is None or due[1] != "remind" or due[0] > at or table.turn_seat is None:
        raise TableError("no reminder is due")
    seat = table.seat_named(table.turn_seat)
    deadline = table.deadline
    if seat is None or seat.member is None or deadline is None:
        raise TableError("no reminder is due")
    new = table.model_copy(update={"reminded": True})
    return Step(new, (Reminder(seat.name, seat.member, deadline, deadline - at),))


def timeout(table: Table, at: datetime, rng: random.Random) -> Step:
    """The turn ran out: the AI plays it; after too many in a row it keeps the seat."""
    deadline = table.deadline
    if deadline is None or deadline > at or table.turn_seat is None:
        raise TableError("no turn has run out")
    seat = table.seat_named(table.turn_seat)
    if seat is None or seat.member is None:
        raise TableError("no turn has run out")
    count = seat.timeouts + 1
    for_good = count >= table.options.timeouts_to_ai
    timed = seat.model_copy(update={"timeouts": count, "autopilot": for_good})
    new = _replace_seat(table, timed)
    events: list[TableEvent] = [TimedOut(seat.name, seat.member, count, for_good)]
    engine = engine_of(new)
    state = _run_ai(new, game_state(new), rng, events, forced=seat.name)
    return _settle(new, engine, state, at, events)


def end(table: Table, action: EndTable, at: datetime) -> Step:
    if not action.moderator:
        raise WrongRoleError("only moderators can end a table")
    _require_open(table)
    return _abandon(table, at, f"A moderator ended {table.name}; the game is abandoned.", [])


def apply(table: Table | None, action: TableAction, at: datetime, rng: random.Random) -> Step:
    """Carry out one logged action; ``GameRuleError`` (nothing changed) when it does not apply."""
    if isinstance(action, OpenTable):
        if table is not None:
            raise TableError("that table exists already")
        return open_table(action, at)
    if table is None:
        raise TableError("no such table")
    if isinstance(action, JoinTable):
        step = join(table, action)
    elif isinstance(action, LeaveTable):
        step = leave(table, action, at, rng)
    elif isinstance(action, SetAISeats):
        step = set_ai_seats(table, action)
    elif isinstance(action, StartTable):
        step = start(table, action, at, rng)
    elif isinstance(action, PlayMove):
        step = play(table, action, at, rng)
    elif isinstance(action, TurnReminder):
        step = remind(table, at)
    elif isinstance(action, TurnTimeout):
        step = timeout(table, at, rng)
    else:
        step = end(table, action, at)
    return Step(step.table.model_copy(update={"seq": table.seq + 1}), step.events)


def replay(actions: Sequence[tuple[TableAction, datetime]]) -> Table | None:
    """A table rebuilt from its whole log (each action with its instant), from the seed up."""
    table: Table | None = None
    for action, at in actions:
        seq = 1 if table is None else table.seq + 1
        seed = action.seed if isinstance(action, OpenTable) else table.seed if table is not None else ""
        table = apply(table, action, at, action_rng(seed, seq)).table
    return table


# --- the AI and the bookkeeping after moves ---------------------------------------------------


def _replace_seat(table: Table, seat: Seat) -> Table:
    return table.model_copy(update={"seats": tuple(seat if s.name == seat.name else s for s in table.seats)})


def _run_ai(
    table: Table, state: Any, rng: random.Random, events: list[TableEvent], *, forced: str | None = None
) -> Any:
    """Let the AI move while an AI-played seat (or ``forced``, for the rest of its turn) is to move."""
    engine = engine_of(table)
    ai = get_ai(table.game)
    for _ in range(MAX_AI_ACTIONS):
        mover = engine.to_move(state)
        if mover is None:
            break
        seat = table.seat_named(mover)
        if seat is None or not (seat.played_by_ai or mover == forced):
            break
        try:
            state, happened = engine.apply(state, mover, ai.choose(state, mover, rng), rng)
        except GameRuleError:
            legal = engine.legal_actions(state, mover)
            if not legal:
                break
            state, happened = engine.apply(state, mover, legal[-1], rng)
        events.append(Moved(mover, by_ai=True, lines=tuple(e.text() for e in happened)))
        if forced is not None and engine.to_move(state) != forced:
            forced = None
    return state


def _settle(
    table: Table,
    engine: AnyEngine,
    state: Any,
    at: datetime,
    events: list[TableEvent],
    *,
    force_board: bool = False,
) -> Step:
    """Store the game's new state, restart the turn timer when the turn passed, end the table when it ended."""
    moves = table.moves + sum(1 for e in events if isinstance(e, Moved))
    update: dict[str, Any] = {"board": engine.dump_state(state), "moves": moves}
    status = engine.status(state)
    if status != "playing":
        result = engine.result(state)
        update |= {
            "status": TableStatus(status),
            "ended_at": at,
            "turn_seat": None,
            "turn_started_at": None,
            "reminded": False,
            "summary": result.summary,
            "winners": result.winners,
        }
        events.append(BoardShown(engine.public_view(state)))
        events.append(TableEnded(TableStatus(status), f"**{table.name}** is over: {result.summary}"))
        return Step(table.model_copy(update=update), tuple(events))
    mover = engine.to_move(state)
    passed = any(isinstance(e, TimedOut) or (isinstance(e, Moved) and e.seat != mover) for e in events)
    new_turn = force_board or passed or mover != table.turn_seat
    if new_turn:
        update |= {"turn_seat": mover, "turn_started_at": at, "reminded": False}
    new = table.model_copy(update=update)
    if new_turn:
        events.append(BoardShown(engine.public_view(state)))
        seat = new.seat_named(mover) if mover is not None else None
        deadline = new.deadline
        if seat is not None and seat.member is not None and deadline is not None:
            events.append(YourTurn(seat.name, seat.member, deadline))
    return Step(new, tuple(events))


def _abandon(table: Table, at: datetime, why: str, events: list[TableEvent]) -> Step:
    new = table.model_copy(
        update={
            "status": TableStatus.ABANDONED,
            "ended_at": at,
            "turn_seat": None,
            "turn_started_at": None,
            "reminded": False,
            "summary": why,
        }
    )
    return Step(new, (*events, TableEnded(TableStatus.ABANDONED, why)))


# --- texts ------------------------------------------------------------------------------------


def lobby_text(table: Table) -> str:
    """The table as ``!board`` shows it before the start."""
    engine = engine_of(table)
    seats = ", ".join(s.name for s in table.seats) or "nobody"
    return (
        f"**{table.name}** ({engine.title}) is waiting in the lobby. Seated ({len(table.seats)} of"
        f" {engine.max_seats}, at least {engine.min_seats} to start): {seats}.\n"
        f"`!join` to sit down, `!leave` to get up, `!ai N` for N computer players, `!start` to begin."
        f" Each turn may take up to {duration_text(table.options.turn_seconds)}."
    )


def board_text(table: Table, now: datetime | None = None) -> str:
    """What ``!board`` shows: the lobby, or the public view with the turn's deadline, or the final table."""
    if table.board is None:
        if table.status is TableStatus.LOBBY:
            return lobby_text(table)
        return f"**{table.name}** closed before its game started ({table.summary or table.status.value})."
    engine = engine_of(table)
    text = engine.public_view(game_state(table))
    deadline = table.deadline
    if deadline is not None and table.turn_seat is not None:
        left = f" ({duration_text(int((deadline - now).total_seconds()))} left)" if now is not None else ""
        text += f"\n\n{table.turn_seat} has until {stamp(deadline)}{left}."
    elif not table.status.open and table.summary:
        text += f"\n\n{table.summary}"
    return text


def summary_line(table: Table) -> str:
    """One line of ``!games``."""
    engine = engine_of(table)
    seats = ", ".join(s.name for s in table.seats)
    if table.status is TableStatus.LOBBY:
        return f"**{table.name}** ({engine.title}): lobby, {len(table.seats)} of {engine.max_seats} seated: {seats}"
    turn = f"; {table.turn_seat} to move" if table.turn_seat else ""
    return f"**{table.name}** ({engine.title}): {table.status.value}, seats {seats}{turn}"
