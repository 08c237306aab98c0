"""ICTC battles behind the ``GameEngine`` interface of thread games (``ictc-1``, ``ictc-2``...).

Two players; a seat brings a deck (``BattleSetup``: a starter deck by name, or a member's own copies
through ``!challenge``). The engine rolls its own dice from the battle's seed, one stream per step,
so replaying the steps rebuilds the battle exactly (what ``!undo`` does).
"""

from __future__ import annotations

import json
import random
from collections.abc import Mapping, Sequence

from pydantic import BaseModel

from games.ictc.battle import balance, commands, invariants, legal, rules, views
from games.ictc.battle.actions import ACTION_ADAPTER, BattleAction
from games.ictc.battle.ai import Skirmisher
from games.ictc.battle.state import SEATS, BattleOptions, BattleSetup, BattleState, Phase
from games.ictc.battle.texts import t
from games.ictc.starter import starter_set
from games.ictc.words import BATTLE_GAME
from games.tables.engine import (
    Control,
    EngineDefaults,
    FormField,
    GameEvent,
    GameResult,
    GameStatus,
    IllegalActionError,
    Outcome,
    PrivateWords,
    SetupText,
    Timer,
)
from games.tables.events import duration_text
from games.tables.text import PlayerResolver

KITTY = "card-copies"
"""The kind of outcome that moves card copies in the library (the winner's kitty)."""


class BattleEngine(EngineDefaults):
    """Stateless: one instance serves every table."""

    name = BATTLE_GAME
    title = "ICTC battle"
    min_seats = SEATS
    max_seats = SEATS
    options_model = BattleOptions
    setup_model = BattleSetup
    languages = ("en",)

    # -- what a seat brings --

    def check_setup(self, setup: BaseModel, options: BattleOptions | None) -> None:
        del options
        if not isinstance(setup, BattleSetup):
            raise IllegalActionError("bring a deck: `deck:Ember`")
        if setup.cards:
            if any(not 0 <= c.defn < len(setup.defs) for c in setup.cards):
                raise IllegalActionError("that deck names cards it does not describe")
            return
        if setup.defs or setup.owner:
            raise IllegalActionError("a deck of your own copies comes through `!challenge`")
        if setup.deck and starter_set().deck(setup.deck) is None:
            names = ", ".join(d.name for d in starter_set().decks)
            raise IllegalActionError(
                f"here you play a starter deck ({names}); to battle with your own deck use"
                " `!challenge @member deck:NAME`"
            )

    def describe_setup(self, setup: BaseModel, lang: str) -> SetupText:
        if not isinstance(setup, BattleSetup):
            return SetupText(None, None)
        if setup.cards:
            size = len(setup.cards)
            return SetupText(
                t(lang, "setup.public_own", n=size), t(lang, "setup.private_own", deck=setup.deck or "-", n=size)
            )
        if setup.deck:
            found = starter_set().deck(setup.deck)
            name = found.name if found is not None else setup.deck
            return SetupText(t(lang, "setup.starter", deck=name), None)  # typed in the open: nothing private
        return SetupText(None, None)

    def join_form(self, options: BattleOptions | None, lang: str) -> tuple[FormField, ...]:
        del options
        decks = tuple((f"{d.name}: {d.blurb}"[:100], d.name) for d in starter_set().decks)
        return (FormField("deck", t(lang, "setup.form_deck"), decks),)

    def timers_text(self, options: BattleOptions | None, turn_seconds: int, lang: str) -> str | None:
        seconds = (options or BattleOptions()).flash_seconds
        return t(lang, "lobby.timers", flash=duration_text(seconds, lang), turn=duration_text(turn_seconds, lang))

    def private_words(self, lang: str) -> PrivateWords:
        return PrivateWords(t(lang, "words.name"), t(lang, "words.title"), t(lang, "words.button"))

    # -- the game --

    def new_game(
        self,
        seats: Sequence[str],
        options: BattleOptions | None,
        rng: random.Random,
        setups: Mapping[str, BaseModel] | None = None,
    ) -> BattleState:
        return rules.new_game(seats, options, rng, setups)

    def seats(self, state: BattleState) -> tuple[str, ...]:
        return state.seats

    def awaiting(self, state: BattleState) -> frozenset[str]:
        return frozenset(state.seats[i] for i in rules.awaiting(state))

    def referees(self, state: BattleState) -> frozenset[str]:
        return rules.referees(state)

    def timers(self, state: BattleState) -> tuple[Timer, ...]:
        window = rules.window_key(state)
        if window is not None:
            return (Timer(window, state.options.flash_seconds, "phase"),)
        judge = rules.judge_key(state)
        if judge is not None:
            return (Timer(judge, state.options.judge_hours * 3600, "phase"),)
        return ()

    def on_timeout(
        self, state: BattleState, timer: Timer, rng: random.Random
    ) -> tuple[BattleState, tuple[GameEvent, ...]] | None:
        del rng
        if timer.key in {rules.window_key(state), rules.judge_key(state)}:
            return rules.timeout(state, timer.key)
        answer = rules.answer_key(state)
        if answer is not None and timer.kind == "turn" and timer.seat in self.awaiting(state):
            return rules.timeout(state, answer)
        return None

    def late_text(self, state: BattleState, seat: str, lang: str) -> str | None:
        """A proposal left unanswered is dropped; any other late turn is played by the computer."""
        if rules.answer_key(state) is not None and seat in self.awaiting(state):
            return t(lang, "late.proposal")
        return None

    def legal_actions(self, state: BattleState, seat: str) -> list[BattleAction]:
        """The common moves, and the computer player's own pick among the many (which attackers, which blocks)."""
        i = state.seat_index(seat)
        if i is None:
            return []
        found = legal.legal_actions(state, i)
        if found:
            pick = _ADVISOR.choose(state, seat, random.Random(0))
            if pick not in found and legal.is_legal(state, i, pick):
                found.insert(0, pick)
        return found

    def check(self, state: BattleState, seat: str, action: BattleAction) -> None:
        rules.check(state, seat, action)

    def apply(
        self, state: BattleState, seat: str, action: BattleAction, rng: random.Random
    ) -> tuple[BattleState, tuple[GameEvent, ...]]:
        return rules.apply(state, seat, action, rng)

    def controls(self, state: BattleState, lang: str) -> tuple[Control, ...]:
        if state.over:
            return ()
        if state.proposal is not None and not state.proposal.disputed:
            return (
                Control(t(lang, "button.confirm"), "confirm", "success"),
                Control(t(lang, "button.dispute"), "dispute", "danger"),
            )
        if state.choice is not None:
            return ()
        if state.window is not None:
            return (Control(t(lang, "button.pass"), "pass", "secondary"),)
        phase = state.phase
        if phase is Phase.CUT:
            return (Control(t(lang, "button.cut"), "cut", "primary"),)
        if phase is Phase.DEFEND:
            return (Control(t(lang, "button.no_blocks"), "block none"),)
        if phase is Phase.SPLIT:
            return (Control(t(lang, "button.split"), "split auto", "primary"),)
        if phase in (Phase.POWER, Phase.ACTION):
            out = [Control(t(lang, "button.end"), "end")]
            if not state.attacked:
                out.insert(0, Control(t(lang, "button.attack_all"), "attack all", "danger"))
            return tuple(out)
        return ()

    # -- views --

    def public_view(self, state: BattleState, lang: str = "en") -> str:
        return views.public_view(state, lang)

    def private_view(self, state: BattleState, seat: str, lang: str = "en") -> str:
        return views.private_view(state, seat, lang)

    def status(self, state: BattleState) -> GameStatus:
        return "finished" if state.over else "playing"

    def result(self, state: BattleState) -> GameResult:
        winners = (state.seats[state.winner],) if state.winner is not None else ()
        if state.phase is not Phase.OVER:
            summary = t("en", "summary.under_way", turn=state.turn)
        elif state.winner is None:
            summary = t("en", "summary.draw", turn=state.turn)
        else:
            summary = t("en", "summary.won", winner=state.seats[state.winner], turn=state.turn)
        return GameResult(
            status=self.status(state),
            winners=winners,
            summary=summary,
            turns=state.turn,
            actions=len(state.history),
            scores={seat: state.sides[i].health for i, seat in enumerate(state.seats)},
            outcomes=kitty_outcomes(state),
        )

    def parse_action(
        self, state: BattleState, seat: str, text: str, players: PlayerResolver | None = None
    ) -> BattleAction:
        return commands.parse(state, seat, text, players)

    def format_action(self, state: BattleState, action: BattleAction) -> str:
        return commands.format_action(state, action)

    def commands_text(self, lang: str = "en") -> str:
        return t(lang, "help.commands")

    def rules_text(self, lang: str = "en") -> str:
        return views.rules_text(lang)

    def invariants(self, state: BattleState) -> list[str]:
        return invariants.invariants(state)

    def selfplay_stats(self, state: BattleState) -> dict[str, str | float | bool]:
        return balance.stats(state)

    def selfplay_lines(
        self,
        figures: Mapping[str, Sequence[str | float | bool]],
        games: int,
        players: int,
        options: BattleOptions | None,
    ) -> list[str]:
        return balance.lines(figures, games, players, options)

    def dump_state(self, state: BattleState) -> str:
        return state.model_dump_json()

    def load_state(self, text: str) -> BattleState:
        return BattleState.model_validate_json(text)

    def dump_action(self, action: BattleAction) -> str:
        return ACTION_ADAPTER.dump_json(action).decode()

    def load_action(self, text: str) -> BattleAction:
        return ACTION_ADAPTER.validate_json(text)


def kitty_outcomes(state: BattleState) -> tuple[Outcome, ...]:
    """The winner's kitty: the loser's flipped copies move to the winner (ante on, members' own decks only)."""
    winner = state.winner
    if state.phase is not Phase.OVER or winner is None or not state.options.ante:
        return ()
    loser = 1 - winner
    to, giver = state.sides[winner].owner, state.sides[loser].owner
    copies = [c for card in state.sides[loser].kitty if (c := state.card(card).copy_id) is not None]
    if to is None or giver is None or not copies:
        return ()
    value = json.dumps({"from": giver, "to": to, "copies": copies})
    return (Outcome(state.seats[winner], KITTY, value),)


_ADVISOR = Skirmisher()
ENGINE = BattleEngine()
