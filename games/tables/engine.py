"""The interface every thread game implements, and the values it shares with the adapters.

Shaped after rlcard's games (one engine, the same verbs for every game, a per-seat view for
hidden cards, an injected random source) and python-chess (typed values, a family of
``ValueError`` subclasses, "is it legal" kept apart from "do it").

A state is a frozen pydantic model: the adapter stores it whole (``dump_state``) and never
mutates it; ``apply`` returns a new one. An action is a frozen pydantic model too, so the action
log can store it (``dump_action``) and a replay can read it back. Seats are the strings given to
``new_game`` (member ids or names); every method that acts for someone takes the seat string.

The verbs, in the order a thread adapter uses them::

    state = engine.new_game(seats, options, rng, setups)  # deal; the first inputs are awaited
    engine.awaiting(state)                                # every seat whose input the game waits for now
    engine.timers(state)                                  # the game's own deadlines (turn or phase)
    engine.public_view(state, lang)                       # the table, for everyone
    engine.private_view(state, seat, lang)                # a hand, for its owner only
    engine.private_words(lang)                            # what that private view is called ("your cards")
    action = engine.parse_action(state, seat, text)       # BadCommandError on unreadable text
    engine.is_secret(action)                              # must it stay hidden until a reveal?
    engine.secret_words()                                 # the words such moves start with
    state, events = engine.apply(state, seat, action, rng)   # checks first; GameRuleError if not legal
    state, events = engine.on_timeout(state, timer, rng)  # a deadline passed (None: the AI plays it)
    engine.status(state), engine.result(state)

Each event says who may see it (``audience``: None for everyone, or a set of seats); the
framework never lets an event addressed to some seats reach the thread, the board or another seat.
The rules never read a clock: a game names its deadlines (``timers``) and the framework records
when each one started, applies ``on_timeout`` once when it is due, and catches up after downtime.
``timers_text`` says in words what those deadlines are, for the lobby, before any state exists.

What a seat brings when it joins (an ICTC deck, a chosen stance) is a ``setup_model`` value: the
game checks it against the table's options (``check_setup``), says what of it everyone may know and
what only its seat may (``describe_setup``), whether typing it in the open would give a secret away
(``is_secret_setup``), and which fields the lobby's **Join** button asks for (``join_form``).
``new_game`` gets each seat's value.
"""

from __future__ import annotations

import copy
import random
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Protocol, TypeVar

from pydantic import BaseModel

from games.tables.defaults import EngineDefaults
from games.tables.values import (
    EVERYONE,
    MODERATORS,
    REFEREE,
    Audience,
    Control,
    FormField,
    GameEvent,
    GameResult,
    GameStatus,
    MoveForm,
    Outcome,
    PrivateWords,
    SeatsOnly,
    SetupText,
    Timer,
    TimerKind,
    audience_of,
    begins_turn,
    referee_seat,
)

__all__ = [
    "EVERYONE",
    "MODERATORS",
    "REFEREE",
    "AISeat",
    "AnyAISeat",
    "AnyEngine",
    "Audience",
    "BadCommandError",
    "Control",
    "EngineDefaults",
    "FormField",
    "GameEngine",
    "GameEvent",
    "GameOverError",
    "GameResult",
    "GameRuleError",
    "GameStatus",
    "IllegalActionError",
    "MissingCardError",
    "MoveForm",
    "NotASeatError",
    "NotEnoughHoursError",
    "NotYourTurnError",
    "Outcome",
    "PrivateWords",
    "SeatingError",
    "SeatsOnly",
    "SetupText",
    "Timer",
    "TimerKind",
    "WrongRoleError",
    "apply_text",
    "audience_of",
    "begins_turn",
    "referee_seat",
]


# --- rule errors ------------------------------------------------------------------------------


class GameRuleError(ValueError):
    """An action the game does not allow, or text it cannot read; nothing was changed.

    The message is one sentence fit to show the member who asked, as it is. A game whose texts
    exist in several languages may give that sentence in each (``texts``: language → sentence);
    a table then shows the one in its own language (``in_language``). A ``private`` refusal says
    something of the actor's hidden cards (``you do not hold 1K``): only the actor reads it.
    """

    private: bool = False
    """The sentence confirms or denies what the actor holds: told to the actor alone, never in the thread."""

    def __init__(self, *args: object, texts: Mapping[str, str] | None = None, private: bool | None = None) -> None:
        super().__init__(*args)
        self.texts: dict[str, str] = dict(texts or {})
        if private is not None:
            self.private = private

    def in_language(self, lang: str) -> GameRuleError:
        """This error with its sentence in ``lang`` when the game gave one (the same type, the same texts)."""
        said = self.texts.get(lang)
        if said is None or said == str(self):
            return self
        translated = copy.copy(self)
        translated.args = (said,)
        return translated


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
    """The action uses a card that is not in the actor's hand (or not where the action needs it): saying
    so tells what the hand holds, so it is private unless raised with ``private=False``."""

    private = True


class NotEnoughHoursError(IllegalActionError):
    """The action costs more time (or another budget) than the actor has left this turn."""


class WrongRoleError(IllegalActionError):
    """The actor's role does not allow the action."""


# --- shared values (games.tables.values) ------------------------------------------------------

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

    @property
    def setup_model(self) -> type[BaseModel] | None:
        """What a seat may bring when it joins (an ICTC deck, a chosen stance); None: nothing."""
        ...

    @property
    def languages(self) -> tuple[str, ...]:
        """The languages the game's texts exist in; the first is its default (``en``, ``zh-TW``)."""
        ...

    def check_setup(self, setup: BaseModel, options: OptionsT | None) -> None:
        """Raise the ``GameRuleError`` that refuses what a seat brings at a table with ``options``."""
        ...

    def describe_setup(self, setup: BaseModel, lang: str) -> SetupText:
        """What a seat brought, in words: for everyone, and for the seat alone."""
        ...

    def is_secret_setup(self, setup: BaseModel) -> bool:
        """Whether typing ``setup`` where others read it would give a secret away (it is then refused there)."""
        ...

    def join_form(self, options: OptionsT | None, lang: str) -> tuple[FormField, ...]:
        """What the lobby's **Join** button asks for (empty: it just seats the member)."""
        ...

    def timers_text(self, options: OptionsT | None, turn_seconds: int, lang: str) -> str | None:
        """The game's own deadlines in words, e.g. ``each vote may take up to 10s``; None: it has none
        and every turn gets the table's turn limit (``turn_seconds``)."""
        ...

    def private_words(self, lang: str) -> PrivateWords:
        """What ``private_view`` is called at this game (``your cards``, ``your vote``)."""
        ...

    def new_game(
        self,
        seats: Sequence[str],
        options: OptionsT | None,
        rng: random.Random,
        setups: Mapping[str, BaseModel] | None = None,
    ) -> StateT:
        """Seat the players in turn order and deal. ``SeatingError`` for a bad seat list.

        ``setups``: what each seat brought (checked by ``check_setup``); seats that brought nothing
        are not in it.
        """
        ...

    def seats(self, state: StateT) -> tuple[str, ...]:
        """The seats in turn order."""
        ...

    def awaiting(self, state: StateT) -> frozenset[str]:
        """Every seat whose input the game waits for now (one for a turn, all voters for a secret vote)."""
        ...

    def referees(self, state: StateT) -> frozenset[str]:
        """Members who may act now without a seat (the judge of a dispute): member ids, or ``MODERATORS``
        for any moderator of the server. Their moves reach ``apply`` as the seat ``referee_seat(member)``."""
        ...

    def to_move(self, state: StateT) -> str | None:
        """A helper for turn games: the one seat awaited, or None."""
        ...

    def timers(self, state: StateT) -> tuple[Timer, ...]:
        """The game's own deadlines now; a turn game without any gets the table's turn limit."""
        ...

    def on_timeout(
        self, state: StateT, timer: Timer, rng: random.Random
    ) -> tuple[StateT, tuple[GameEvent, ...]] | None:
        """What happens when ``timer`` passes; None: the AI plays the awaited seats it concerns.

        Called for the game's own deadlines and for the table's turn clock of a game without any
        (``turn:SEAT``, kind ``turn``): a game whose rules say what a late turn does answers that one.
        When the first public event of a phase deadline's answer says the time is up itself (a line
        starting with ``⌛``), the table adds no ``⌛`` line of its own naming who was awaited."""
        ...

    def is_secret(self, action: ActionT) -> bool:
        """Whether ``action`` must stay hidden until a reveal: never typed or echoed in the thread."""
        ...

    def secret_words(self) -> frozenset[str]:
        """The command words (folded) that secret moves start with, in every language of the game: text
        in the thread starting with one is removed and refused privately, even when it cannot be read
        as a move (a typo, a stray full stop), since what follows the word may be the secret itself."""
        ...

    def controls(self, state: StateT, lang: str) -> tuple[Control, ...]:
        """The buttons the board offers now (besides the framework's **My hand**)."""
        ...

    def move_forms(self, state: StateT, seat: str, lang: str) -> tuple[MoveForm, ...]:
        """Moves of ``seat`` built from several picks (the cards of a set), offered as forms in its private view."""
        ...

    def lobby_note(self, options: OptionsT | None, seats: int, lang: str) -> str | None:
        """A word for the lobby at ``seats`` seats (an option worth setting at this size); None: nothing."""
        ...

    def late_text(self, state: StateT, seat: str, lang: str) -> str | None:
        """What ``on_timeout`` will do if ``seat``'s turn runs out now, for its reminder; None: the AI plays it."""
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

    def public_view(self, state: StateT, lang: str = "en") -> str:
        """The table as everyone may see it: no hidden card is named."""
        ...

    def private_view(self, state: StateT, seat: str, lang: str = "en") -> str:
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

    def commands_text(self, lang: str = "en") -> str:
        """The command words of the game, one per line, with their arguments."""
        ...

    def rules_text(self, lang: str = "en") -> str:
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
    """A computer player: picks a legal action for ``seat`` (whose input the game awaits)."""

    def choose(self, state: StateT_contra, seat: str, rng: random.Random) -> ActionT_co: ...


AnyEngine = GameEngine[Any, Any, Any]
AnyAISeat = AISeat[Any, Any]


def apply_text(
    engine: GameEngine[StateT, ActionT, OptionsT], state: StateT, seat: str, text: str, rng: random.Random
) -> tuple[StateT, tuple[GameEvent, ...]]:
    """Parse a typed command and apply it: the path of every text command of a thread."""
    return engine.apply(state, seat, engine.parse_action(state, seat, text), rng)
