"""The values a thread game shares with the framework and the adapters: what events are for whom,
a game's deadlines, its results, its buttons and forms, and how it names a seat's private view.

``games.tables.engine`` re-exports every name here: games import them from there.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Literal, Protocol, runtime_checkable

from pydantic import BaseModel
from pydantic.fields import FieldInfo

GameStatus = Literal["playing", "won", "lost", "finished"]
"""``won`` and ``lost`` end a cooperative game (the table wins or loses together);
``finished`` ends a competitive one (``GameResult.winners`` says who won)."""


MODERATORS = "@moderators"
"""In ``GameEngine.referees``: any moderator of the server may act."""
REFEREE = "referee:"
"""The seat string the engine gets for a member who acts without a seat (``referee:`` + member id)."""


def typed_fields(model: type[BaseModel]) -> dict[str, FieldInfo]:
    """The fields of a game's options or setup a member types as ``key:value``: every field but those marked
    ``SkipJsonSchema``, which the game fills in itself (an ICTC deck's copies, from an accepted challenge)
    and which no help, form or command offers."""
    shown = _schema_fields(model)
    return {key: info for key, info in model.model_fields.items() if key in shown}


@lru_cache(maxsize=64)
def _schema_fields(model: type[BaseModel]) -> frozenset[str]:
    return frozenset(model.model_json_schema().get("properties", {}))


def referee_seat(member: str) -> str:
    """What the engine is told for a referee's move: ``referee:`` and the member's id."""
    return REFEREE + member


Audience = frozenset[str] | None
"""Who may see an event: None for everyone at the table (and the thread), or exactly these seats."""
EVERYONE: Audience = None


@runtime_checkable
class GameEvent(Protocol):
    """Something that happened, as a typed value; ``text`` is the sentence every adapter shows.

    An event may carry ``audience`` (``Audience``); without it, it is public. It may carry ``begins_turn``
    (true: a seat's turn begins with it, ``begins_turn``).
    """

    def text(self, lang: str = "en") -> str: ...


def begins_turn(event: object) -> bool:
    """Whether ``event`` begins a seat's turn (a game's event says so with ``begins_turn``): the table's turn
    clock starts again and the board is shown, even when the seat that moved last goes on (it cut the
    decks, then goes first)."""
    return bool(getattr(event, "begins_turn", False))


def audience_of(event: object) -> Audience:
    """The seats ``event`` is addressed to; None: everyone."""
    found = getattr(event, "audience", None)
    return frozenset(found) if found is not None else None


@dataclass(frozen=True, slots=True)
class SeatsOnly:
    """An event shown only to ``seats`` (a drawn card to its drawer, a gift to giver and receiver)."""

    seats: frozenset[str]
    message: str

    @property
    def audience(self) -> Audience:
        return self.seats

    def text(self, lang: str = "en") -> str:
        del lang
        return self.message


TimerKind = Literal["turn", "phase"]


@dataclass(frozen=True, slots=True)
class Timer:
    """A deadline the game's state implies, relative to when the framework first saw it.

    ``key`` names this deadline for as long as the state shows it (a new key is a new deadline):
    the framework stores the instant it first appeared, so the absolute deadline is derived from
    stored state. ``kind`` ``turn`` counts as a strike against ``seat`` when it passes (too many in
    a row and the AI takes the seat for good); ``phase`` never does.
    """

    key: str
    seconds: float
    kind: TimerKind = "phase"
    seat: str | None = None
    """The seat the deadline is for (a turn), or None (a phase that waits for several)."""


@dataclass(frozen=True, slots=True)
class Outcome:
    """A result that outlives the table (cards won from a kitty), stored when the table ends."""

    seat: str
    kind: str
    value: str


@dataclass(frozen=True, slots=True)
class GameResult:
    """How a game stands: its status, who won (every seat for a cooperative win) and a summary."""

    status: GameStatus
    winners: tuple[str, ...]
    summary: str
    turns: int
    """Turns played (begun), counting the one under way."""
    actions: int
    scores: Mapping[str, int] = field(default_factory=dict)
    """Points per seat, when the game keeps score."""
    outcomes: tuple[Outcome, ...] = ()
    """What outlives the table, written in the transaction that ends it."""
    summaries: Mapping[str, str] = field(default_factory=dict)
    """``summary`` in other languages (language → text): a table shows the one in its own language."""


@dataclass(frozen=True, slots=True)
class Control:
    """A button the board offers: pressing it types ``command`` (the same text a member could type).

    ``secret``: the command is a secret move, answered privately (never echoed in the thread).
    ``style``: primary, secondary, success or danger.
    """

    label: str
    command: str
    style: str = "secondary"
    secret: bool = False


@dataclass(frozen=True, slots=True)
class FormField:
    """One thing the lobby's **Join** button asks for when a seat brings something (a form on Discord).

    Submitting the form types ``!join key:value ...`` for its member: the same words as typed.
    """

    key: str
    """A field of the game's ``setup_model``."""
    label: str
    choices: tuple[tuple[str, str], ...] = ()
    """(label, value) pairs offered as a menu; empty: the member types the value."""
    required: bool = False
    placeholder: str = ""
    max_values: int = 1
    """How many of ``choices`` may be picked (a move's cards); each picked value is typed."""


@dataclass(frozen=True, slots=True)
class MoveForm:
    """A move whose words the menu of moves cannot list (a set of cards), offered as a form of menus.

    Picking it in a member's private view opens ``fields`` (menus of ``choices``, ``max_values``
    picks each); sending the form types ``command`` followed by every value picked, in the order of
    the fields: the same words the member could type (``move 2 7W 4S``).
    """

    command: str
    label: str
    fields: tuple[FormField, ...]


@dataclass(frozen=True, slots=True)
class SetupText:
    """What a seat brought, in words: ``public`` for everyone (None: nothing), ``private`` for the seat alone."""

    public: str | None
    private: str | None


@dataclass(frozen=True, slots=True)
class PrivateWords:
    """How a game names a seat's private view: in a sentence, as its title, and on its button."""

    name: str
    """``your cards``, ``your vote``: completes "``!hand`` shows ..."."""
    title: str
    """``Your hand``: the heading of the private answer."""
    button: str
    """``My hand``: the board's button that shows it."""
