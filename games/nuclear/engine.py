"""關你核四 behind the framework's ``GameEngine`` interface: a thread game of secret votes at once.

Whom it awaits changes with the phase: the speaker alone (proposal, negotiation, the count), or every
voter at once (the first vote, the placement, the reveal window). Each phase has a deadline of its
own (``timers``); the votes, the placements, the reveal choices and the cards of a gift are secret
moves, never typed in the thread.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from statistics import mean

from pydantic import BaseModel

from games.nuclear import commands, rules, views
from games.nuclear.actions import ACTION_ADAPTER, SECRET_KINDS, NuclearAction
from games.nuclear.cards import CARDS
from games.nuclear.events import NuclearEvent
from games.nuclear.state import NuclearOptions, NuclearState, Phase
from games.nuclear.texts import names, t
from games.tables.engine import (
    Control,
    EngineDefaults,
    FormField,
    GameResult,
    GameStatus,
    MoveForm,
    Outcome,
    PrivateWords,
    Timer,
)
from games.tables.events import duration_text
from games.tables.text import PlayerResolver


class NuclearEngine(EngineDefaults):
    """Stateless: one instance serves every table."""

    name = "nuclear"
    title = "關你核四"
    min_seats = rules.MIN_SEATS
    max_seats = rules.MAX_SEATS
    options_model = NuclearOptions
    languages = ("zh-TW", "en")

    def new_game(
        self,
        seats: Sequence[str],
        options: NuclearOptions | None,
        rng: random.Random,
        setups: Mapping[str, BaseModel] | None = None,
    ) -> NuclearState:
        del setups  # stances are dealt, not brought
        return rules.new_game(seats, options, rng)

    def seats(self, state: NuclearState) -> tuple[str, ...]:
        return state.seats

    def awaiting(self, state: NuclearState) -> frozenset[str]:
        return rules.awaiting(state)

    def timers(self, state: NuclearState) -> tuple[Timer, ...]:
        return rules.timers(state)

    def timers_text(self, options: NuclearOptions | None, turn_seconds: int, lang: str) -> str | None:
        del turn_seconds  # every deadline is the game's own
        o = options or NuclearOptions()
        return t(
            lang,
            "timers",
            proposal=duration_text(o.proposal, lang),
            vote=duration_text(o.vote, lang),
            negotiation=duration_text(o.negotiation, lang),
            placement=duration_text(o.placement, lang),
            reveal=duration_text(o.reveal, lang),
        )

    def on_timeout(
        self, state: NuclearState, timer: Timer, rng: random.Random
    ) -> tuple[NuclearState, tuple[NuclearEvent, ...]] | None:
        return rules.on_timeout(state, timer.key, rng)

    def is_secret(self, action: NuclearAction) -> bool:
        return action.kind in SECRET_KINDS

    def secret_words(self) -> frozenset[str]:
        return commands.SECRET_WORDS

    def private_words(self, lang: str) -> PrivateWords:
        return PrivateWords(t(lang, "private.name"), t(lang, "private.title"), t(lang, "private.button"))

    def controls(self, state: NuclearState, lang: str) -> tuple[Control, ...]:
        phase = state.phase
        if phase is Phase.TALK:
            return (Control(t(lang, "button.end"), "end", "primary"),)
        if phase is Phase.COUNT:
            return (Control(t(lang, "button.count"), "count", "primary"),)
        if phase is Phase.REVEAL:
            return (
                Control(t(lang, "button.reveal"), "reveal", "success", secret=True),
                Control(t(lang, "button.withdraw"), "withdraw", "secondary", secret=True),
            )
        return ()

    def move_forms(self, state: NuclearState, seat: str, lang: str) -> tuple[MoveForm, ...]:
        """Moves of several picks, as forms of menus in the private view: the second vote's one or two
        cards, a gift of any cards to one player, a passed proposal handed to another."""
        i = state.seat_index(seat)
        if i is None or state.phase is Phase.OVER:
            return ()
        hand = tuple((f"{c} {CARDS[c].title(lang)}", c) for c in state.hands[i])[:25]
        forms: list[MoveForm] = []
        if state.phase is Phase.PLACE and seat in rules.awaiting(state) and hand:
            cards = FormField("cards", t(lang, "form.place_cards"), hand, required=True, max_values=2)
            forms.append(MoveForm("place", t(lang, "form.place"), (cards,)))
        if state.phase is Phase.TALK and (i == state.speaker or state.options.anyone_gives):
            others = tuple((name, f"@{name}") for j, name in enumerate(state.seats) if j != i)
            to = FormField("to", t(lang, "form.to"), others, required=True)
            if hand:
                cards = FormField("cards", t(lang, "form.give_cards"), hand, required=True, max_values=len(hand))
                forms.append(MoveForm("give", t(lang, "form.give"), (cards, to)))
            passed = tuple((f"{c} {CARDS[c].title(lang)}", c) for c in state.passed[i])[:25]
            if passed:
                card = FormField("card", t(lang, "form.transfer_card"), passed, required=True)
                forms.append(MoveForm("transfer", t(lang, "form.transfer"), (card, to)))
        return tuple(forms)

    def legal_actions(self, state: NuclearState, seat: str) -> list[NuclearAction]:
        return rules.legal_actions(state, seat)

    def check(self, state: NuclearState, seat: str, action: NuclearAction) -> None:
        rules.check(state, seat, action)

    def apply(
        self, state: NuclearState, seat: str, action: NuclearAction, rng: random.Random
    ) -> tuple[NuclearState, tuple[NuclearEvent, ...]]:
        return rules.apply(state, seat, action, rng)

    def public_view(self, state: NuclearState, lang: str = "en") -> str:
        return views.public_view(state, lang)

    def private_view(self, state: NuclearState, seat: str, lang: str = "en") -> str:
        return views.private_view(state, seat, lang)

    def status(self, state: NuclearState) -> GameStatus:
        return "finished" if state.phase is Phase.OVER else "playing"

    def result(self, state: NuclearState) -> GameResult:
        status = self.status(state)
        board = rules.scores(state)
        won = rules.winners(state)
        rounds = state.history[-1].round if status == "finished" and state.history else state.round
        top = max(board.values())
        summaries = {
            lang: t(lang, f"summary.{state.ending}", rounds=rounds, winners=names(lang, won), score=top)
            if status == "finished"
            else t(lang, "summary.playing", round=state.round)
            for lang in self.languages
        }
        outcomes = tuple(Outcome(seat, "nuclear-win", str(board[seat])) for seat in won)
        return GameResult(status, won, summaries["en"], rounds, state.actions, board, outcomes, summaries)

    def parse_action(
        self, state: NuclearState, seat: str, text: str, players: PlayerResolver | None = None
    ) -> NuclearAction:
        del seat  # every command reads the same whoever types it; check() decides who may act
        return commands.parse(state, text, players)

    def format_action(self, state: NuclearState, action: NuclearAction) -> str:
        return commands.format_action(state, action)

    def commands_text(self, lang: str = "en") -> str:
        return commands.commands_text(lang)

    def rules_text(self, lang: str = "en") -> str:
        return views.rules_text(lang)

    def invariants(self, state: NuclearState) -> list[str]:
        return rules.invariants(state)

    def selfplay_stats(self, state: NuclearState) -> dict[str, str | float | bool]:
        """What a self-play report counts of one finished game: who ended it, how long it ran, shared tops."""
        board = rules.scores(state)
        top = max(board.values()) if board else 0
        proposals = [r for r in state.history if r.proposal is not None]
        referendums = [r for r in proposals if CARDS[r.proposal or ""].kind == "referendum"]
        return {
            "ending": {"pro": "核四完工 (pro)", "anti": "廢止核四 (anti)", "cap": "stalemate cap"}.get(
                state.ending or "", "unfinished"
            ),
            "rounds": float(state.history[-1].round if state.history else state.round),
            "shared top": sum(1 for v in board.values() if v == top) > 1,
            "referendums proposed": float(len(referendums)),
            "referendums passed": float(sum(1 for r in referendums if r.passed)),
            "proposals passed": mean([r.passed for r in proposals]) if proposals else 0.0,
            "never speaker": float(len(set(range(state.n)) - {r.speaker for r in state.history})),
        }

    def dump_state(self, state: NuclearState) -> str:
        return state.model_dump_json()

    def load_state(self, text: str) -> NuclearState:
        return NuclearState.model_validate_json(text)

    def dump_action(self, action: NuclearAction) -> str:
        return action.model_dump_json()

    def load_action(self, text: str) -> NuclearAction:
        return ACTION_ADAPTER.validate_json(text)


ENGINE = NuclearEngine()
