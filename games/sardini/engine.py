"""The Sardini game behind the ``GameEngine`` interface of thread games."""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence

from pydantic import BaseModel

from games.sardini import balance, commands, invariants, rules, scoring, views
from games.sardini.actions import ACTION_ADAPTER, SardiniAction
from games.sardini.cards import CODES, SUITS, cards_of, mask
from games.sardini.state import MAX_SEATS, MIN_SEATS, Phase, SardiniOptions, SardiniState
from games.sardini.texts import t, tn
from games.sardini.tricks import TRICKS
from games.tables.engine import (
    Control,
    EngineDefaults,
    FormField,
    GameEvent,
    GameResult,
    GameStatus,
    MoveForm,
    PrivateWords,
    Timer,
)
from games.tables.text import PlayerResolver

SUIT_PAIRS = ((0, 1), (2, 3))
"""A Move's card menus: Wands with Top Hats, Stars with Smoke (20 cards at most, under Discord's 25)."""


class SardiniEngine(EngineDefaults):
    """Stateless: one instance serves every table. A turn game on the table's turn clock."""

    name = "sardini"
    title = "The Great Sardini is Dead"
    min_seats = MIN_SEATS
    max_seats = MAX_SEATS
    options_model = SardiniOptions
    languages = ("en",)

    def new_game(
        self,
        seats: Sequence[str],
        options: SardiniOptions | None,
        rng: random.Random,
        setups: Mapping[str, BaseModel] | None = None,
    ) -> SardiniState:
        del setups  # a seat brings nothing to this game
        return rules.new_game(seats, options, rng)

    def seats(self, state: SardiniState) -> tuple[str, ...]:
        return state.seats

    def awaiting(self, state: SardiniState) -> frozenset[str]:
        if state.phase is Phase.OVER:
            return frozenset()
        return frozenset((state.seats[state.current],))

    def private_words(self, lang: str) -> PrivateWords:
        return PrivateWords(t(lang, "words.name"), t(lang, "words.title"), t(lang, "words.button"))

    def lobby_note(self, options: SardiniOptions | None, seats: int, lang: str) -> str | None:
        """At four or more seats without a cap on Draws, the cap that keeps such games lively."""
        if seats >= 4 and (options is None or options.draw_cap is None):
            return t(lang, "lobby.suggest_cap")
        return None

    def on_timeout(
        self, state: SardiniState, timer: Timer, rng: random.Random
    ) -> tuple[SardiniState, tuple[GameEvent, ...]] | None:
        """The turn's clock ran out: a Draw when no attempt was begun, else giving up (or "Act is over")."""
        del rng
        if timer.kind != "turn" or state.phase is Phase.OVER or timer.seat != state.seats[state.current]:
            return None
        return rules.timeout(state)

    def late_text(self, state: SardiniState, seat: str, lang: str) -> str | None:
        """What a late turn will be, for the reminder: a Draw, giving up, or the end of the act."""
        if state.phase is Phase.OVER or seat != state.seats[state.current]:
            return None
        return t(lang, f"late.{state.phase.value}")

    def controls(self, state: SardiniState, lang: str) -> tuple[Control, ...]:
        phase = state.phase
        if phase is Phase.TURN:
            attempts = tuple(
                Control(t(lang, "button.attempt", slot=slot + 1), f"attempt T{slot + 1}", "primary")
                for slot in range(len(state.shown))
            )
            return (Control(tn(lang, "button.draw", min(state.next_draw(), len(state.deck))), "draw"), *attempts)
        out: list[Control] = []
        if phase is Phase.ATTEMPT and state.attempt is not None:
            if state.attempt.extra and state.deck:
                out += self._extra_buttons(lang)
            out.append(Control(t(lang, "button.giveup"), "giveup", "danger"))
        elif phase is Phase.CALL:
            if state.call_extra and state.deck:
                out += self._extra_buttons(lang)
            if state.deck:
                out.append(Control(t(lang, "button.encore"), "encore", "danger"))
            out.append(Control(t(lang, "button.over"), "over", "success"))
        return tuple(out)

    @staticmethod
    def _extra_buttons(lang: str) -> list[Control]:
        return [Control(t(lang, "button.extra"), "extra", "success"), Control(t(lang, "button.noextra"), "noextra")]

    def move_forms(self, state: SardiniState, seat: str, lang: str) -> tuple[MoveForm, ...]:
        """During an attempt: a form for each Move left, with menus of the hand's cards that fit it."""
        i = state.seat_index(seat)
        attempt = state.attempt
        if i is None or attempt is None or i != state.current or state.phase is not Phase.ATTEMPT:
            return ()
        trick = TRICKS[attempt.trick]
        hand = mask(state.hands[i])
        out = []
        for k, move in enumerate(trick.moves):
            if k in attempt.done_moves():
                continue
            fit = cards_of(hand & move.card_mask)
            fields = []
            for pair in SUIT_PAIRS:
                cards = [c for c in fit if c // 10 in pair]
                if cards:
                    first, second = (t(lang, f"suit.{SUITS[s]}.other") for s in pair)
                    label = t(lang, "form.pair", a=first, b=second)
                    choices = tuple((CODES[c], CODES[c]) for c in cards)
                    fields.append(FormField(f"cards{pair[0]}", label, choices, max_values=len(choices)))
            if fields:
                label = t(lang, "form.move", n=k + 1, move=move.text(lang))
                out.append(MoveForm(f"move {k + 1}", label, tuple(fields)))
        return tuple(out)

    def legal_actions(self, state: SardiniState, seat: str) -> list[SardiniAction]:
        return rules.legal_actions(state, seat)

    def check(self, state: SardiniState, seat: str, action: SardiniAction) -> None:
        rules.check(state, seat, action)

    def apply(
        self, state: SardiniState, seat: str, action: SardiniAction, rng: random.Random
    ) -> tuple[SardiniState, tuple[GameEvent, ...]]:
        del rng  # the deck was shuffled once, at the deal
        return rules.apply(state, seat, action)

    def public_view(self, state: SardiniState, lang: str = "en") -> str:
        return views.public_view(state, lang)

    def private_view(self, state: SardiniState, seat: str, lang: str = "en") -> str:
        return views.private_view(state, seat, lang)

    def status(self, state: SardiniState) -> GameStatus:
        return "finished" if state.phase is Phase.OVER else "playing"

    def result(self, state: SardiniState) -> GameResult:
        status = self.status(state)
        summary = scoring.summary(state) if status == "finished" else t("en", "summary.under_way", turn=state.turn)
        return GameResult(
            status=status,
            winners=scoring.winners(state),
            summary=summary,
            turns=state.turn,
            actions=state.actions,
            scores=scoring.scores(state),
        )

    def selfplay_stats(self, state: SardiniState) -> dict[str, str | float | bool]:
        """One finished game's figures (``python -m bot selfplay``)."""
        return balance.stats(state)

    def selfplay_lines(
        self,
        figures: Mapping[str, Sequence[str | float | bool]],
        games: int,
        players: int,
        options: SardiniOptions | None,
    ) -> list[str]:
        """The run's figures beside the balance table of the game's specification."""
        return balance.lines(figures, games, players, options)

    def parse_action(
        self, state: SardiniState, seat: str, text: str, players: PlayerResolver | None = None
    ) -> SardiniAction:
        del seat, players  # every command reads the same whoever types it; check() decides who may act
        return commands.parse(state, text)

    def format_action(self, state: SardiniState, action: SardiniAction) -> str:
        return commands.format_action(state, action)

    def commands_text(self, lang: str = "en") -> str:
        return commands.commands_text(lang)

    def rules_text(self, lang: str = "en") -> str:
        return views.rules_text(lang)

    def invariants(self, state: SardiniState) -> list[str]:
        return invariants.invariants(state)

    def dump_state(self, state: SardiniState) -> str:
        return state.model_dump_json()

    def load_state(self, text: str) -> SardiniState:
        return SardiniState.model_validate_json(text)

    def dump_action(self, action: SardiniAction) -> str:
        return action.model_dump_json()

    def load_action(self, text: str) -> SardiniAction:
        return ACTION_ADAPTER.validate_json(text)


ENGINE = SardiniEngine()
