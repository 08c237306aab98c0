"""The Wikipedia game behind the ``GameEngine`` interface of thread games."""

from __future__ import annotations

import random
from collections.abc import Sequence

from games.tables.engine import GameEvent, GameResult, GameStatus
from games.tables.text import PlayerResolver
from games.wikipedia import commands, rules, views
from games.wikipedia.actions import ACTION_ADAPTER, WikipediaAction
from games.wikipedia.state import Outcome, WikipediaOptions, WikipediaState


class WikipediaEngine:
    """Stateless: one instance serves every table."""

    name = "wikipedia"
    title = "Wikipedia: the card game"
    min_seats = rules.MIN_SEATS
    max_seats = rules.MAX_SEATS
    options_model = WikipediaOptions

    def new_game(self, seats: Sequence[str], options: WikipediaOptions | None, rng: random.Random) -> WikipediaState:
        return rules.new_game(seats, options, rng)

    def seats(self, state: WikipediaState) -> tuple[str, ...]:
        return state.seats

    def to_move(self, state: WikipediaState) -> str | None:
        return state.seats[state.current] if state.outcome is Outcome.PLAYING else None

    def legal_actions(self, state: WikipediaState, seat: str) -> list[WikipediaAction]:
        return rules.legal_actions(state, seat)

    def check(self, state: WikipediaState, seat: str, action: WikipediaAction) -> None:
        rules.check(state, seat, action)

    def apply(
        self, state: WikipediaState, seat: str, action: WikipediaAction, rng: random.Random
    ) -> tuple[WikipediaState, tuple[GameEvent, ...]]:
        del rng  # the deck was shuffled once, at the deal
        return rules.apply(state, seat, action)

    def public_view(self, state: WikipediaState) -> str:
        return views.public_view(state)

    def private_view(self, state: WikipediaState, seat: str) -> str:
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

    def commands_text(self) -> str:
        return commands.commands_text()

    def rules_text(self) -> str:
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
