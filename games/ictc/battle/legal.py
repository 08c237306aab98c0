"""The moves a player may make now, for the menu of moves and for the computer player's fallback.

Every listed move is legal; the list is representative rather than complete where the choices
multiply (which Soldiers attack what, how a split falls, every X): the menu offers the common ones
and the rest are typed.
"""

from __future__ import annotations

from collections.abc import Iterable
from itertools import product
from typing import NamedTuple

from games.ictc.battle import combat, rules
from games.ictc.battle.actions import (
    BattleAction,
    Confirm,
    Cut,
    DeclareAttack,
    DeclareBlocks,
    Discard,
    Dispute,
    EndTurn,
    Pass,
    PlayCard,
    SplitDamage,
    TapPower,
    UseAbility,
)
from games.ictc.battle.effects import candidates, player_ref
from games.ictc.battle.payment import most_x
from games.ictc.battle.state import HAND_LIMIT, BattleState, Phase
from games.ictc.battle.table import soldiers
from games.tables.engine import GameRuleError

MAX_TARGET_SETS = 12


def is_legal(state: BattleState, seat: int, action: BattleAction) -> bool:
    return _legal(state, seat, action)


def _legal(state: BattleState, seat: int, action: BattleAction) -> bool:
    try:
        rules.check_index(state, seat, action)
    except GameRuleError:
        return False
    return True


def plays(state: BattleState, seat: int) -> list[PlayCard]:
    """Cards of the hand that can be played now, each with a few choices of X and targets."""
    legal = Playable(state, seat)
    return [option.action() for option in play_options(state, seat) if legal(option)]


class PlayOption(NamedTuple):
    """A play of a card worked out but not yet asked about (``Playable``), nor made a ``PlayCard``."""

    card: int
    x: int
    targets: tuple[str, ...]

    def action(self) -> PlayCard:
        return PlayCard(card=self.card, x=self.x, targets=self.targets)


def play_options(state: BattleState, seat: int, cards: Iterable[int] | None = None) -> list[PlayOption]:
    """``plays`` before the rules are asked: each card of the hand (or of ``cards``, from the hand) with its
    choices of X and targets.

    The targets are drawn from the candidates the rules accept, so whether one is legal depends only
    on its card and X (``Playable``); a card and X that cannot be paid for are left out at once.
    """
    out: list[PlayOption] = []
    powers = rules._powers(state, seat)
    for card in state.sides[seat].hand if cards is None else cards:
        fields = state.defn(card).fields
        xs = [0]
        if fields.cost.x is not None:
            top = most_x(state.sides[seat].pool, powers, fields.cost)
            xs = sorted({x for x in (1, top) if x >= 1}) or [0]
        xs = [x for x in xs if rules.can_pay(state, seat, card, x)]
        if not xs:
            continue
        slots = [
            candidates(state, seat, effect.target) if effect.target is not None else []
            for clause in rules.play_clauses(state, card)
            for effect in clause.chosen
        ]
        combos = list(product(*slots))[:MAX_TARGET_SETS] if slots else [()]
        out.extend(PlayOption(card, x, tuple(targets)) for x in xs for targets in combos)
    return out


class Playable:
    """Whether a play of ``play_options`` is legal, asking the rules once per card and X."""

    def __init__(self, state: BattleState, seat: int) -> None:
        self.state = state
        self.seat = seat
        self._known: dict[tuple[int, int], bool] = {}

    def __call__(self, option: PlayOption) -> bool:
        key = (option.card, option.x)
        known = self._known.get(key)
        if known is None:
            known = self._known[key] = _legal(self.state, self.seat, option.action())
        return known


def legal_actions(state: BattleState, seat: int) -> list[BattleAction]:
    if seat not in rules.awaiting(state):
        return []
    proposal = state.proposal
    if proposal is not None:
        return [Dispute(), Confirm()]
    choice = state.choice
    if choice is not None:
        hand = state.sides[choice.hand_of].hand
        return [Discard(cards=tuple(hand[k : k + choice.count])) for k in range(len(hand) - choice.count + 1)]
    if state.window is not None:
        found: list[BattleAction] = [*plays(state, seat)]
        return [*found, Pass()]
    phase = state.phase
    if phase is Phase.CUT:
        return [Cut()]
    if phase is Phase.DISCARD:
        hand = state.sides[seat].hand
        over = len(hand) - HAND_LIMIT
        return [Discard(cards=tuple(hand[k : k + over])) for k in range(len(hand) - over + 1)]
    if phase is Phase.DEFEND:
        fight = state.combat
        attacks = fight.attacks if fight is not None else ()
        blocks: list[BattleAction] = [
            DeclareBlocks(blocks=((blocker, attack.attacker),))
            for blocker in soldiers(state, seat)
            for attack in attacks
            if combat.can_block(state, blocker, attack.attacker)
        ]
        return [*blocks, DeclareBlocks()]
    if phase is Phase.SPLIT:
        return [SplitDamage()]
    out: list[BattleAction] = [*plays(state, seat)]
    for perm in state.sides[seat].play:
        if not perm.tapped and state.defn(perm.card).fields.output is not None:
            out.append(TapPower(card=perm.card))
        for clause in rules.tap_clauses(state, perm.card)[:1]:
            slots = [candidates(state, seat, e.target) if e.target is not None else [] for e in clause.chosen]
            for targets in list(product(*slots))[:MAX_TARGET_SETS] if slots else [()]:
                use = UseAbility(card=perm.card, targets=tuple(targets))
                if _legal(state, seat, use):
                    out.append(use)
    if not state.attacked:
        able = [c for c in soldiers(state, seat) if combat.can_attack(state, c)]
        face = player_ref(1 - seat)
        if able:
            out.append(DeclareAttack(attacks=tuple((c, face) for c in able)))
            for card in able:
                out.append(DeclareAttack(attacks=((card, face),)))
                out.extend(DeclareAttack(attacks=((card, str(enemy)),)) for enemy in soldiers(state, 1 - seat))
    out.append(EndTurn())
    return out
