"""A tiny secret-ballot game that proves the framework: every seat votes at once, in secret, within a
phase deadline (10 s by default), and the votes are revealed together.

It exists for the tests only (``register(BALLOT)``), in the shape every game package has: an
engine, an AI, per-language texts (``ballot_locales/``), buttons, a join form and no picture.
Each round every seat votes for one of the choices; when all have voted, or time runs out (a missing
vote is an abstention), the votes are revealed and everyone who voted for the most popular choice
scores a point. After ``rounds`` rounds the highest scores win, together.

What a seat brings when it joins (``!join weight:2 pledge:B``): a ``weight`` (its vote counts that
many times; everyone sees it) and a secret ``pledge`` (one of the choices; a bonus point each round
the pledged choice wins; only the seat sees it, so it is never typed in the thread).
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, field_validator

from games.tables.engine import (
    BadCommandError,
    Control,
    EngineDefaults,
    FormField,
    GameEvent,
    GameOverError,
    GameResult,
    GameStatus,
    IllegalActionError,
    NotASeatError,
    Outcome,
    PrivateWords,
    SeatingError,
    SetupText,
    Timer,
)
from games.tables.events import duration_text
from games.tables.i18n import Catalogue
from games.tables.registry import GameSpec
from games.tables.text import PlayerResolver, tokens

TEXTS = Catalogue(Path(__file__).parent / "ballot_locales")
ABSTAIN = "-"


class _Value(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class BallotOptions(_Value):
    rounds: int = Field(2, ge=1, le=9, description="rounds of voting")
    choices: str = Field(
        "ABC", min_length=2, max_length=6, pattern=r"^[A-Z]+$", description="the choices, one letter each"
    )
    seconds: int = Field(10, ge=10, le=3600, description="seconds each vote may take")


class BallotSetup(_Value):
    weight: int = Field(1, ge=1, le=3, description="how many votes your ballot counts for")
    pledge: str | None = Field(None, max_length=1, description="a choice you pledge to in secret")

    @field_validator("pledge")
    @classmethod
    def _upper(cls, value: str | None) -> str | None:
        return value.upper() if value else None


class Vote(_Value):
    kind: Literal["vote"] = "vote"
    choice: str


VOTE = TypeAdapter(Vote)


class BallotState(_Value):
    options: BallotOptions
    seats: tuple[str, ...]
    round: int = 1
    votes: tuple[str | None, ...]
    scores: tuple[int, ...]
    revealed: tuple[tuple[str, ...], ...] = ()
    weights: tuple[int, ...] = ()
    """Each seat's weight (empty: all 1)."""
    pledges: tuple[str | None, ...] = ()
    """Each seat's secret pledge (empty: none)."""

    def weight(self, i: int) -> int:
        return self.weights[i] if self.weights else 1

    def pledge(self, i: int) -> str | None:
        return self.pledges[i] if self.pledges else None


@dataclass(frozen=True, slots=True)
class Said:
    """A public sentence of the ballot's catalogue."""

    key: str
    fields: tuple[tuple[str, str], ...] = ()

    def text(self, lang: str = "en") -> str:
        return TEXTS.text(lang, self.key, **dict(self.fields))


@dataclass(frozen=True, slots=True)
class Told:
    """A sentence for some seats only (a voter's own vote)."""

    seats: frozenset[str]
    key: str
    fields: tuple[tuple[str, str], ...] = ()

    @property
    def audience(self) -> frozenset[str]:
        return self.seats

    def text(self, lang: str = "en") -> str:
        return TEXTS.text(lang, self.key, **dict(self.fields))


def _reveal(state: BallotState) -> tuple[BallotState, list[GameEvent]]:
    votes = tuple(v or ABSTAIN for v in state.votes)
    counted = {c: sum(state.weight(i) for i, v in enumerate(votes) if v == c) for c in state.options.choices}
    top = max(counted.values())
    winners = {c for c, n in counted.items() if n == top and n > 0}
    scores = tuple(
        s + (1 if v in winners else 0) + (1 if state.pledge(i) in winners else 0)
        for i, (s, v) in enumerate(zip(state.scores, votes, strict=True))
    )
    shown = ", ".join(
        f"{seat} {vote}" + (f" ×{state.weight(i)}" if state.weight(i) != 1 else "")
        for i, (seat, vote) in enumerate(zip(state.seats, votes, strict=True))
    )
    events: list[GameEvent] = [
        Said("reveal", (("round", str(state.round)), ("votes", shown), ("won", "".join(sorted(winners)) or "-")))
    ]
    new = state.model_copy(
        update={
            "round": state.round + 1,
            "votes": (None,) * len(state.seats),
            "scores": scores,
            "revealed": (*state.revealed, votes),
        }
    )
    return new, events


class BallotEngine(EngineDefaults):
    name = "ballot"
    title = "Secret ballot"
    min_seats = 2
    max_seats = 6
    options_model = BallotOptions
    setup_model = BallotSetup
    languages = ("en", "zh-TW")

    def check_setup(self, setup: BaseModel, options: BallotOptions | None) -> None:
        assert isinstance(setup, BallotSetup)
        choices = (options or BallotOptions()).choices
        if setup.pledge is not None and setup.pledge not in choices:
            raise IllegalActionError(
                f"you can only pledge to one of the choices {', '.join(choices)}, not {setup.pledge}"
            )

    def describe_setup(self, setup: BaseModel, lang: str) -> SetupText:
        assert isinstance(setup, BallotSetup)
        weight = TEXTS.text(lang, "setup_weight", weight=str(setup.weight))
        private = weight + TEXTS.text(lang, "setup_pledge", pledge=setup.pledge) if setup.pledge else weight
        return SetupText(public=weight if setup.weight != 1 else None, private=private)

    def is_secret_setup(self, setup: BaseModel) -> bool:
        return isinstance(setup, BallotSetup) and setup.pledge is not None

    def join_form(self, options: BallotOptions | None, lang: str) -> tuple[FormField, ...]:
        choices = (options or BallotOptions()).choices
        return (
            FormField("weight", TEXTS.text(lang, "form_weight"), tuple((str(n), str(n)) for n in (1, 2, 3))),
            FormField("pledge", TEXTS.text(lang, "form_pledge"), tuple((c, c) for c in choices)),
        )

    def timers_text(self, options: BallotOptions | None, turn_seconds: int, lang: str) -> str | None:
        del turn_seconds  # every deadline is the game's own
        seconds = (options or BallotOptions()).seconds
        return TEXTS.text(lang, "timers", seconds=duration_text(seconds, lang))

    def private_words(self, lang: str) -> PrivateWords:
        return PrivateWords(
            TEXTS.text(lang, "private_name"), TEXTS.text(lang, "private_title"), TEXTS.text(lang, "private_button")
        )

    def new_game(
        self,
        seats: Sequence[str],
        options: BallotOptions | None,
        rng: random.Random,
        setups: Mapping[str, BaseModel] | None = None,
    ) -> BallotState:
        del rng
        if not 2 <= len(seats) <= 6:
            raise SeatingError("a ballot needs 2 to 6 voters")
        k = len(seats)
        brought = [(setups or {}).get(seat) for seat in seats]
        chosen = [b if isinstance(b, BallotSetup) else BallotSetup() for b in brought]
        return BallotState(
            options=options or BallotOptions(),
            seats=tuple(seats),
            votes=(None,) * k,
            scores=(0,) * k,
            weights=tuple(c.weight for c in chosen) if any(c.weight != 1 for c in chosen) else (),
            pledges=tuple(c.pledge for c in chosen) if any(c.pledge for c in chosen) else (),
        )

    def seats(self, state: BallotState) -> tuple[str, ...]:
        return state.seats

    def _over(self, state: BallotState) -> bool:
        return state.round > state.options.rounds

    def awaiting(self, state: BallotState) -> frozenset[str]:
        if self._over(state):
            return frozenset()
        return frozenset(s for s, v in zip(state.seats, state.votes, strict=True) if v is None)

    def timers(self, state: BallotState) -> tuple[Timer, ...]:
        if self._over(state):
            return ()
        return (Timer(f"vote:{state.round}", state.options.seconds, "phase"),)

    def on_timeout(
        self, state: BallotState, timer: Timer, rng: random.Random
    ) -> tuple[BallotState, tuple[GameEvent, ...]] | None:
        del rng
        if timer.key != f"vote:{state.round}":
            return None
        new, events = _reveal(state)
        return new, tuple(events)

    def is_secret(self, action: Vote) -> bool:
        return True

    def secret_words(self) -> frozenset[str]:
        return frozenset({"vote"})

    def legal_actions(self, state: BallotState, seat: str) -> list[Vote]:
        if seat not in self.awaiting(state):
            return []
        return [Vote(choice=c) for c in state.options.choices]

    def check(self, state: BallotState, seat: str, action: Vote) -> None:
        if self._over(state):
            raise GameOverError("the ballot is over")
        if seat not in state.seats:
            raise NotASeatError(f"{seat} does not vote here")
        if seat not in self.awaiting(state):
            raise IllegalActionError("you have voted this round already")
        if action.choice not in state.options.choices:
            raise IllegalActionError(f"the choices are {', '.join(state.options.choices)}")

    def apply(
        self, state: BallotState, seat: str, action: Vote, rng: random.Random
    ) -> tuple[BallotState, tuple[GameEvent, ...]]:
        del rng
        self.check(state, seat, action)
        i = state.seats.index(seat)
        votes = tuple(action.choice if j == i else v for j, v in enumerate(state.votes))
        new = state.model_copy(update={"votes": votes})
        done = sum(v is not None for v in votes)
        events: list[GameEvent] = [
            Told(frozenset({seat}), "you_voted", (("choice", action.choice), ("round", str(state.round)))),
            Said("voted", (("seat", seat), ("done", str(done)), ("of", str(len(votes))))),
        ]
        if done == len(votes):
            new, more = _reveal(new)
            events += more
        return new, tuple(events)

    def public_view(self, state: BallotState, lang: str = "en") -> str:
        scores = ", ".join(f"{s} {n}" for s, n in zip(state.seats, state.scores, strict=True))
        if self._over(state):
            return TEXTS.text(lang, "board_over", scores=scores)
        voted = [s for s, v in zip(state.seats, state.votes, strict=True) if v is not None]
        text = TEXTS.text(
            lang,
            "board",
            round=str(state.round),
            rounds=str(state.options.rounds),
            choices=" ".join(state.options.choices),
            voted=", ".join(voted) or "-",
            scores=scores,
        )
        if state.weights:
            weights = ", ".join(f"{s} {state.weight(i)}" for i, s in enumerate(state.seats) if state.weight(i) != 1)
            text += " " + TEXTS.text(lang, "board_weights", weights=weights)
        return text

    def private_view(self, state: BallotState, seat: str, lang: str = "en") -> str:
        if seat not in state.seats:
            raise NotASeatError(f"{seat} does not vote here")
        i = state.seats.index(seat)
        vote = state.votes[i] if not self._over(state) else None
        text = TEXTS.text(lang, "private", vote=vote or "-")
        pledge = state.pledge(i)
        return text + " " + TEXTS.text(lang, "private_pledge", pledge=pledge) if pledge else text

    def controls(self, state: BallotState, lang: str) -> tuple[Control, ...]:
        if self._over(state):
            return ()
        return tuple(
            Control(TEXTS.text(lang, "button", choice=c), f"vote {c}", secret=True) for c in state.options.choices
        )

    def status(self, state: BallotState) -> GameStatus:
        return "finished" if self._over(state) else "playing"

    def result(self, state: BallotState) -> GameResult:
        top = max(state.scores)
        winners = tuple(s for s, n in zip(state.seats, state.scores, strict=True) if n == top)
        scores = dict(zip(state.seats, state.scores, strict=True))
        summary = f"{', '.join(winners)} won with {top} point{'' if top == 1 else 's'}."
        outcomes = tuple(Outcome(seat, "ballot-win", str(top)) for seat in winners)
        played = min(state.round, state.options.rounds)
        return GameResult(
            self.status(state), winners, summary, played, sum(len(r) for r in state.revealed), scores, outcomes
        )

    def parse_action(self, state: BallotState, seat: str, text: str, players: PlayerResolver | None = None) -> Vote:
        del seat, players
        words = tokens(text, fold=False)
        if words[0].casefold() != "vote" or len(words) != 2:
            raise BadCommandError(f"write `vote X` with X one of {', '.join(state.options.choices)}")
        return Vote(choice=words[1].upper())

    def format_action(self, state: BallotState, action: Vote) -> str:
        del state
        return f"vote {action.choice}"

    def commands_text(self, lang: str = "en") -> str:
        return TEXTS.text(lang, "commands")

    def rules_text(self, lang: str = "en") -> str:
        return TEXTS.text(lang, "rules")

    def invariants(self, state: BallotState) -> list[str]:
        out = []
        if len(state.votes) != len(state.seats) or len(state.scores) != len(state.seats):
            out.append("votes or scores do not match the seats")
        return out

    def dump_state(self, state: BallotState) -> str:
        return state.model_dump_json()

    def load_state(self, text: str) -> BallotState:
        return BallotState.model_validate_json(text)

    def dump_action(self, action: Vote) -> str:
        return action.model_dump_json()

    def load_action(self, text: str) -> Vote:
        return VOTE.validate_json(text)


class RandomVoter:
    def choose(self, state: BallotState, seat: str, rng: random.Random) -> Vote:
        del seat
        return Vote(choice=rng.choice(state.options.choices))


ENGINE = BallotEngine()
BALLOT = GameSpec(engine=ENGINE, ai=RandomVoter(), locales=Path(__file__).parent / "ballot_locales")
