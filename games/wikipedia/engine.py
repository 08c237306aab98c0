"""The Wikipedia game behind the ``GameEngine`` interface of thread games."""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence

from pydantic import BaseModel

from games.tables.engine import Control, EngineDefaults, GameEvent, GameResult, GameStatus, PrivateWords
from games.tables.text import PlayerResolver
from games.wikipedia import commands, rules, views
from games.wikipedia.actions import ACTION_ADAPTER, WikipediaAction
from games.wikipedia.events import CardGiven, GiftSeen
from games.wikipedia.state import Outcome, WikipediaOptions, WikipediaState


def _with_public_gifts(events: Sequence[GameEvent]) -> tuple[GameEvent, ...]:
    """A gift's card is for the giver and the receiver; the thread learns who gave whom how many."""
    out: list[GameEvent] = []
    for event in events:
        if isinstance(event, CardGiven):
            out.append(GiftSeen(event.seat, event.to, 1, event.hours_left))
        out.append(event)
    return tuple(out)


class WikipediaEngine(EngineDefaults):
    """Stateless: one instance serves every table. A turn game: one seat awaited, no deadline of its own."""

    name = "wikipedia"
    title = "Wikipedia: the card game"
    min_seats = rules.MIN_SEATS
    max_seats = rules.MAX_SEATS
    options_model = WikipediaOptions

    def new_game(
        self,
        seats: Sequence[str],
        options: WikipediaOptions | None,
        rng: random.Random,
        setups: Mapping[str, BaseModel] | None = None,
    ) -> WikipediaState:
        del setups  # a seat brings nothing to this game
        return rules.new_game(seats, options, rng)

    def seats(self, state: WikipediaState) -> tuple[str, ...]:
        return state.seats

    def to_move(self, state: WikipediaState) -> str | None:
        return state.seats[state.current] if state.outcome is Outcome.PLAYING else None

    def awaiting(self, state: WikipediaState) -> frozenset[str]:
        mover = self.to_move(state)
        return frozenset((mover,)) if mover is not None else frozenset()

    def private_words(self, lang: str) -> PrivateWords:
        del lang  # the game's own texts are in English only
        return PrivateWords(name="your cards", title="Your hand", button="My hand")

    def controls(self, state: WikipediaState, lang: str) -> tuple[Control, ...]:
        del lang
        if state.outcome is not Outcome.PLAYING:
            return ()
        return (Control("Pass", "pass"), Control("End turn", "end"))

    def legal_actions(self, state: WikipediaState, seat: str) -> list[WikipediaAction]:
        return rules.legal_actions(state, seat)

    def check(self, state: WikipediaState, seat: str, action: WikipediaAction) -> None:
        rules.check(state, seat, action)

    def apply(
        self, state: WikipediaState, seat: str, action: WikipediaAction, rng: random.Random
    ) -> tuple[WikipediaState, tuple[GameEvent, ...]]:
        del rng  # the deck was shuffled once, at the deal
        new, events = rules.apply(state, seat, action)
        return new, _with_public_gifts(events)

    def public_view(self, state: WikipediaState, lang: str = "en") -> str:
        del lang  # the game's own texts are in English only
        return views.public_view(state)

    def private_view(self, state: WikipediaState, seat: str, lang: str = "en") -> str:
        del lang
        return views.private_view(state, seat)

    def status(self, state: WikipediaState) -> GameStatus:
        if state.outcome is Outcome.WON:
            return "won"
        if state.outcome is Outcome.LOST:
            return "lost"
        return "playing"

    def result(self, state: WikipediaState) -> GameResult:
        status = self.status(state)
        if status == "won":
            summary = f"The editors won on turn {state.turn} after {state.actions} actions."
        elif status == "lost":
            summary = f"The editors lost: after {state.turn - 1} turns the deck could not start another."
        else:
            summary = f"Turn {state.turn} is under way."
        winners = state.seats if status == "won" else ()
        played = state.turn - 1 if status == "lost" else state.turn
        return GameResult(status=status, winners=winners, summary=summary, turns=played, actions=state.actions)

    def parse_action(
        self, state: WikipediaState, seat: str, text: str, players: PlayerResolver | None = None
    ) -> WikipediaAction:
        del seat  # every command reads the same whoever types it; check() decides who may act
        return commands.parse(state, text, players)

    def format_action(self, state: WikipediaState, action: WikipediaAction) -> str:
        del state
        return commands.format_action(action)

    def commands_text(self, lang: str = "en") -> str:
        del lang
        return commands.commands_text()

    def rules_text(self, lang: str = "en") -> str:
        del lang
        return views.rules_text()

    def invariants(self, state: WikipediaState) -> list[str]:
        return rules.invariants(state)

    def dump_state(self, state: WikipediaState) -> str:
        return state.model_dump_json()

    def load_state(self, text: str) -> WikipediaState:
        return WikipediaState.model_validate_json(text)

    def dump_action(self, action: WikipediaAction) -> str:
        return action.model_dump_json()

    def load_action(self, text: str) -> WikipediaAction:
        return ACTION_ADAPTER.validate_json(text)


ENGINE = WikipediaEngine()
