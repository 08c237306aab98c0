"""The interface every thread game implements, and the values it shares with the adapters.

Shaped after rlcard's games (one engine, the same verbs for every game, a per-seat view for
hidden cards, an injected random source) and python-chess (typed values, a family of
``ValueError`` subclasses, "is it legal" kept apart from "do it").

A state is a frozen pydantic model: the adapter stores it whole (``dump_state``) and never
mutates it; ``apply`` returns a new one. An action is a frozen pydantic model too, so the action
log can store it (``dump_action``) and a replay can read it back. Seats are the strings given to
``new_game`` (member ids or names); every method that acts for someone takes the seat string.

The verbs, in the order a thread adapter uses them::

    state = engine.new_game(seats, options, rng)        # deal; the first turn is ready
    engine.public_view(state)                            # the table, for everyone
    engine.private_view(state, seat)                     # a hand, for its owner only
    action = engine.parse_action(state, seat, text)      # BadCommandError on unreadable text
    state, events = engine.apply(state, seat, action, rng)   # checks first; GameRuleError if not legal
    engine.status(state), engine.result(state)
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Literal, Protocol, TypeVar, runtime_checkable

from pydantic import BaseModel

GameStatus = Literal["playing", "won", "lost", "finished"]
"""``won`` and ``lost`` end a cooperative game (the table wins or loses together);
``finished`` ends a competitive one (``GameResult.winners`` says who won)."""


# --- rule errors ------------------------------------------------------------------------------


class GameRuleError(ValueError):
    """An action the game does not allow, or text it cannot read; nothing was changed.

    The message is one sentence fit to show the member who asked, as it is.
    """


class BadCommandError(GameRuleError):
    """The text is not a command of this game (unknown word, missing or malformed argument)."""


class SeatingError(GameRuleError):
    """A game cannot start with these seats (too few, too many, repeated) or these options."""


class NotASeatError(GameRuleError):
    """The member does not sit at this table."""


class GameOverError(GameRuleError):
    """The game has ended; no more actions."""


class NotYourTurnError(GameRuleError):
    """Another seat is to play."""


class IllegalActionError(GameRuleError):
    """The rules forbid the action in this position."""


class MissingCardError(IllegalActionError):
    """The action uses a card that is not in the actor's hand (or not where the action needs it)."""


class NotEnoughHoursError(IllegalActionError):
    """The action costs more time (or another budget) than the actor has left this turn."""


class WrongRoleError(IllegalActionError):
    """The actor's role does not allow the action."""


# --- shared values ----------------------------------------------------------------------------


@runtime_checkable
class GameEvent(Protocol):
    """Something that happened, as a typed value; ``text`` is the sentence every adapter shows."""

    def text(self) -> str: ...


@dataclass(frozen=True, slots=True)
class GameResult:
    """How a game stands: its status, who won (every seat for a cooperative win) and a summary."""

    status: GameStatus
    winners: tuple[str, ...]
    summary: str
    turns: int
    """Turns played (begun), counting the one under way."""
    actions: int


StateT = TypeVar("StateT", bound=BaseModel)
ActionT = TypeVar("ActionT", bound=BaseModel)
OptionsT = TypeVar("OptionsT", bound=BaseModel)
StateT_contra = TypeVar("StateT_contra", bound=BaseModel, contravariant=True)
ActionT_co = TypeVar("ActionT_co", bound=BaseModel, covariant=True)


class GameEngine(Protocol[StateT, ActionT, OptionsT]):
    """One thread game. Every method is pure: it reads its arguments and returns new values."""

    @property
    def name(self) -> str:
        """The registry key and thread prefix, e.g. ``wikipedia`` (threads are ``wikipedia-1``...)."""
        ...

    @property
    def title(self) -> str:
        """The game's display name."""
        ...

    @property
    def min_seats(self) -> int: ...

    @property
    def max_seats(self) -> int: ...

    @property
    def options_model(self) -> type[OptionsT]:
        """The pydantic model of the game's options; every field has a documented default."""
        ...

    def new_game(self, seats: Sequence[str], options: OptionsT | None, rng: random.Random) -> StateT:
        """Seat the players in turn order and deal. ``SeatingError`` for a bad seat list."""
        ...

    def seats(self, state: StateT) -> tuple[str, ...]:
        """The seats in turn order."""
        ...

    def to_move(self, state: StateT) -> str | None:
        """The seat whose turn it is, or None when the game is over."""
        ...

    def legal_actions(self, state: StateT, seat: str) -> list[ActionT]:
        """Every action ``seat`` may take now (empty when it is not their turn or the game is over)."""
        ...

    def check(self, state: StateT, seat: str, action: ActionT) -> None:
        """Raise the ``GameRuleError`` that forbids ``action``; return quietly when it is legal."""
        ...

    def apply(
        self, state: StateT, seat: str, action: ActionT, rng: random.Random
    ) -> tuple[StateT, tuple[GameEvent, ...]]:
        """Check, then carry out ``action``: the new state and what happened, in order."""
        ...

    def public_view(self, state: StateT) -> str:
        """The table as everyone may see it: no hidden card is named."""
        ...

    def private_view(self, state: StateT, seat: str) -> str:
        """What only ``seat`` may see: their hand and role. ``NotASeatError`` for a stranger."""
        ...

    def status(self, state: StateT) -> GameStatus: ...

    def result(self, state: StateT) -> GameResult: ...

    def parse_action(
        self, state: StateT, seat: str, text: str, players: Callable[[Sequence[str]], str] | None = None
    ) -> ActionT:
        """Read a command typed in the thread. ``BadCommandError`` when it cannot be read.

        Reading does not decide legality: ``check`` (or ``apply``) does. A player named in the
        text becomes a seat through ``players`` (``games.tables.text.PlayerResolver``: the
        table's rule for members), or, without it, by the seats' names alone.
        """
        ...

    def format_action(self, state: StateT, action: ActionT) -> str:
        """The command text that ``parse_action`` reads back as ``action``."""
        ...

    def commands_text(self) -> str:
        """The command words of the game, one per line, with their arguments."""
        ...

    def rules_text(self) -> str:
        """The rules in our own words, including every choice the source text leaves open."""
        ...

    def invariants(self, state: StateT) -> list[str]:
        """What is inconsistent in ``state`` (one line each); empty when the state is sound."""
        ...

    def dump_state(self, state: StateT) -> str: ...

    def load_state(self, text: str) -> StateT: ...

    def dump_action(self, action: ActionT) -> str: ...

    def load_action(self, text: str) -> ActionT: ...


class AISeat(Protocol[StateT_contra, ActionT_co]):
    """A computer player: picks a legal action for ``seat`` (whose turn it must be)."""

    def choose(self, state: StateT_contra, seat: str, rng: random.Random) -> ActionT_co: ...


AnyEngine = GameEngine[Any, Any, Any]
AnyAISeat = AISeat[Any, Any]


def apply_text(
    engine: GameEngine[StateT, ActionT, OptionsT], state: StateT, seat: str, text: str, rng: random.Random
) -> tuple[StateT, tuple[GameEvent, ...]]:
    """Parse a typed command and apply it: the path of every text command of a thread."""
    return engine.apply(state, seat, engine.parse_action(state, seat, text), rng)
