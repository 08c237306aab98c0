"""The computer player: plays any deck legally and a starter deck sensibly, for practice and self-play.

It reads only what its seat may know: its own hand, the public table and counts of hidden cards.
Each call picks one move. In its turn it plays a Power card first, then the spell or Soldier worth
most (a kill, lethal damage, a big Soldier), then attacks with the Soldiers the opponent's ready
blockers cannot punish (everything when that is lethal), then ends the turn. As defender it blocks
where the blocker wins or trades evenly, and chump-blocks only to survive. In a Flash window it
saves or pumps one of its fighting Soldiers when that changes the fight, and otherwise passes. It
confirms what its opponent proposes, and lets damage splits fall automatically. Cards without a
script it leaves in its hand, since it cannot say what they do. It agrees to an undo only for a seat of its
own, never for a member's seat it plays while they are away.
"""

from __future__ import annotations

import random

from games.ictc.battle import combat, legal
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
)
from games.ictc.battle.effects import player_ref
from games.ictc.battle.state import HAND_LIMIT, PLAYER, BattleState, Phase
from games.ictc.battle.table import cr_of, has, soldiers
from games.ictc.cards import CardType
from games.tables.model import AI_NAME

# Enum members used on every move, read once: in Python 3.11 reading a member through its enum class
# costs some twenty times a plain name.
_CUT, _DISCARD, _DEFEND, _SPLIT = Phase.CUT, Phase.DISCARD, Phase.DEFEND, Phase.SPLIT
_POWER, _SOLDIER, _FLASH = CardType.POWER, CardType.SOLDIER, CardType.FLASH


class Skirmisher:
    """A computer player for any seat of a battle."""

    def choose(self, state: BattleState, seat: str, rng: random.Random) -> BattleAction:
        del rng  # it plays the same way every time: self-play and replays repeat exactly
        i = state.seat_index(seat)
        if i is None:
            return Pass()
        if state.proposal is not None:
            return _answer(state, i)
        if state.choice is not None:
            return _discard_choice(state, i)
        if state.window is not None:
            return _window(state, i)
        phase = state.phase
        if phase is _CUT:
            return Cut()
        if phase is _DISCARD:
            over = len(state.sides[i].hand) - HAND_LIMIT
            return Discard(cards=tuple(_worst(state, i, list(state.sides[i].hand))[:over]))
        if phase is _DEFEND:
            return _blocks(state, i)
        if phase is _SPLIT:
            return SplitDamage()
        return _turn(state, i)


# --- the turn ---------------------------------------------------------------------------------------


def _turn(state: BattleState, i: int) -> BattleAction:
    playable = legal.Playable(state, i)
    hand = state.sides[i].hand
    powers = legal.play_options(state, i, _copies_once(state, [c for c in hand if _is_power(state, c)]))
    best = _first(playable, sorted(powers, key=lambda p: -_power_value(state, i, p.card)))
    if best is not None:
        return best
    options = legal.play_options(state, i, _copies_once(state, sorted(hand)))
    scored = [(s, p) for p in options if (s := _score(state, i, p)) > 0]
    best = _first(playable, [p for _, p in sorted(scored, key=lambda sp: (sp[0], -sp[1].card), reverse=True)])
    if best is not None:
        return best
    if not state.attacked:
        attack = _attack(state, i)
        if attack is not None:
            return attack
    return EndTurn()


def _is_power(state: BattleState, card: int) -> bool:
    return state.defn(card).kind is _POWER


def _copies_once(state: BattleState, cards: list[int]) -> list[int]:
    """The first card of each design in ``cards``: copies are worth the same and are legal alike, so a copy
    after the first could only tie with it and lose the tie (first in the hand for Power cards, the lowest
    number for the rest)."""
    seen: set[int] = set()
    out: list[int] = []
    for card in cards:
        design = state.cards[card - 1].defn
        if design not in seen:
            seen.add(design)
            out.append(card)
    return out


def _first(playable: legal.Playable, ranked: list[legal.PlayOption]) -> PlayCard | None:
    """The first legal play of ``ranked``, best first: the best legal play (the rules asked only as far as needed)."""
    best = next((play for play in ranked if playable(play)), None)
    return best.action() if best is not None else None


def _power_value(state: BattleState, i: int, card: int) -> int:
    """A Power card making colours the hand asks for is worth more."""
    output = state.defn(card).fields.output
    if output is None:
        return 0
    wanted: dict[str, int] = {}
    for c in state.sides[i].hand:
        for letter, n in state.defn(c).fields.cost.coloured:
            wanted[letter] = wanted.get(letter, 0) + n
    return sum(wanted.get(letter, 0) for letter in output.letters) + output.total


def _lethal_to(state: BattleState, card: int) -> int:
    perm = state.permanent(card)
    if perm is None:
        return 10**6
    return max(1, cr_of(state, card) - perm.damage) + perm.shield


def _score(state: BattleState, i: int, play: legal.PlayOption) -> int:
    """What playing ``play`` now is worth (0 or less: not now)."""
    defn = state.defn(play.card)
    fields = defn.fields
    if fields.type is _SOLDIER:
        return 5 + (fields.cr or 0) + len(fields.keywords)
    script = defn.script
    if script is None:
        return 0
    if fields.type is _FLASH and state.window is None:
        return _tap_before_attack(state, i, play)
    value = 0
    targets = list(play.targets)
    for clause in defn.play_clauses:
        for effect in clause.effects:
            target = targets.pop(0) if effect.target is not None and effect.target.chosen and targets else ""
            amount = effect.value(play.x)
            mine = target == player_ref(i) or (target.isdigit() and state.controller(int(target)) == i)
            if effect.name == "damage":
                if mine:
                    return 0
                if target.startswith(PLAYER):
                    health = state.sides[1 - i].health
                    value += 1000 if amount >= health else amount
                elif target.isdigit():
                    card = int(target)
                    value += cr_of(state, card) * 3 + 2 if amount >= _lethal_to(state, card) else 0
            elif effect.name == "heal":
                value += amount if state.sides[i].health <= START_LOW else 0
            elif effect.name == "draw":
                value += 3 if len(state.sides[i].hand) <= 5 else 1
            elif effect.name == "return_to_hand" and target.isdigit():
                value += 0 if mine else cr_of(state, int(target)) * 2
            elif effect.name == "destroy" and target.isdigit():
                value += 0 if mine else cr_of(state, int(target)) * 3
    if fields.cost.x is not None and play.x <= 1 and value < 1000:
        value -= 2  # wait until more power pays for a bigger X
    return value


START_LOW = 18
"""Health at which healing starts to be worth a card."""


def _tap_before_attack(state: BattleState, i: int, play: legal.PlayOption) -> int:
    """A Flash in one's own turn: only tapping the opponent's best blocker before attacking (a Soldier that
    cannot block any of the attackers, by its restriction or Flight, is no blocker)."""
    script = state.defn(play.card).script
    if script is None or state.attacked or not play.targets or not play.targets[0].isdigit():
        return 0
    effect = script.clauses[0].effects[0] if script.clauses and script.clauses[0].effects else None
    if effect is None or effect.name != "tap":
        return 0
    target = int(play.targets[0])
    perm = state.permanent(target)
    able = [c for c in soldiers(state, i) if combat.can_attack(state, c)]
    if perm is None or perm.tapped or state.controller(target) == i or not able:
        return 0
    blockers = [c for c in soldiers(state, 1 - i) if any(combat.can_block(state, c, a) for a in able)]
    best = max((cr_of(state, c) for c in blockers), default=0)
    return cr_of(state, target) if target in blockers and cr_of(state, target) == best and best > 0 else 0


def _tapped(state: BattleState, card: int) -> bool:
    perm = state.permanent(card)
    return perm is None or perm.tapped


def _attack(state: BattleState, i: int) -> DeclareAttack | None:
    able = [c for c in soldiers(state, i) if combat.can_attack(state, c)]
    if not able:
        return None
    face = player_ref(1 - i)
    stops = {c: {a for a in able if combat.can_block(state, c, a)} for c in soldiers(state, 1 - i)}
    blockers = {c: cr_of(state, c) for c, stopped in stops.items() if stopped}
    """Each Soldier that can block one of the attackers, and its CR."""
    power = sum(cr_of(state, c) for c in able)
    if power >= state.sides[1 - i].health and not blockers:
        return DeclareAttack(attacks=tuple((c, face) for c in able))
    chosen = []
    for card in able:
        can_stop = [b for b in blockers if card in stops[b]]
        lethal = _lethal_to(state, card)
        punished = any(blockers[b] >= lethal for b in can_stop)
        if not punished or (has(state, card, "vigilant") and not can_stop):
            chosen.append(card)
    if not chosen:
        return None
    return DeclareAttack(attacks=tuple((c, face) for c in chosen))


# --- defending ---------------------------------------------------------------------------------------


def _blocks(state: BattleState, i: int) -> DeclareBlocks:
    fight = state.combat
    if fight is None:
        return DeclareBlocks()
    free = [c for c in soldiers(state, i) if not _tapped(state, c)]
    incoming = sum(cr_of(state, a.attacker) for a in fight.attacks if a.target == player_ref(i))
    danger = incoming >= state.sides[i].health
    blocks: list[tuple[int, int]] = []
    for attack in sorted(fight.attacks, key=lambda a: -cr_of(state, a.attacker)):
        a = attack.attacker
        able = [b for b in free if combat.can_block(state, b, a)]
        good = [b for b in able if cr_of(state, b) >= _lethal_to(state, a) and cr_of(state, a) < _lethal_to(state, b)]
        even = [b for b in able if cr_of(state, b) >= _lethal_to(state, a) and cr_of(state, a) >= cr_of(state, b)]
        pick = min(good, key=lambda b: cr_of(state, b)) if good else None
        if pick is None and even:
            pick = min(even, key=lambda b: cr_of(state, b))
        if pick is None and danger and able and attack.target == player_ref(i):
            pick = min(able, key=lambda b: cr_of(state, b))
        if pick is not None:
            blocks.append((pick, a))
            free.remove(pick)
            if attack.target == player_ref(i):
                incoming -= cr_of(state, a)
                danger = incoming >= state.sides[i].health
    return DeclareBlocks(blocks=tuple(blocks))


# --- Flash windows -----------------------------------------------------------------------------------


def _window(state: BattleState, i: int) -> BattleAction:
    fight = state.combat
    if fight is None or not fight.blocked:
        return Pass()
    table = combat.fights(state)
    playable = legal.Playable(state, i)
    for play in legal.play_options(state, i, _copies_once(state, list(state.sides[i].hand))):
        script = state.defn(play.card).script
        if script is None or not play.targets or not play.targets[0].isdigit():
            continue
        card = int(play.targets[0])
        if state.controller(card) != i or card not in table or not playable(play):
            continue
        effect = script.clauses[0].effects[0]
        incoming = _incoming(state, table, card)
        dies = incoming >= _lethal_to(state, card)
        saves = effect.name == "prevent" or (effect.name == "cr_mod" and effect.amount > 0)
        if saves and dies and incoming < _lethal_to(state, card) + effect.amount:
            return play.action()
    return Pass()


def _incoming(state: BattleState, table: dict[int, list[str]], card: int) -> int:
    """Damage ``card`` would take if every Soldier fighting it gave it all."""
    return sum(cr_of(state, dealer) for dealer, victims in table.items() if str(card) in victims)


# --- proposals --------------------------------------------------------------------------------------


def _answer(state: BattleState, i: int) -> BattleAction:
    """Confirm at practice; for a member's own deck (the computer plays for someone away), take what
    costs that member health or cards before a judge instead of confirming it for them. An undo needs
    the member's own agreement: for a member's seat it goes to the moderators, whatever the decks."""
    proposal = state.proposal
    if proposal is not None and proposal.undo_to is not None:
        return Confirm() if AI_NAME.match(state.seats[i]) else Dispute()
    if proposal is None or state.sides[i].owner is None:
        return Confirm()
    for adj in proposal.adjustments:
        mine = adj.player == i or (adj.card is not None and state.card(adj.card).owner == i)
        if mine and (adj.amount < 0 or adj.what in {"move", "discard", "tap"}):
            return Dispute()
    return Confirm()


# --- discards ----------------------------------------------------------------------------------------


def _worst(state: BattleState, i: int, cards: list[int]) -> list[int]:
    """Cards in the order a player would let them go: extra Power cards first, then the dearest."""
    powers_in_play = sum(1 for p in state.sides[i].play if state.defn(p.card).kind is CardType.POWER)

    def keep(card: int) -> tuple[int, int]:
        fields = state.defn(card).fields
        if fields.type is CardType.POWER:
            return (0 if powers_in_play >= 5 else 2, card)
        return (1, -fields.cost.total)

    return sorted(cards, key=keep)


def _discard_choice(state: BattleState, i: int) -> Discard:
    choice = state.choice
    if choice is None:
        return Discard(cards=())
    hand = list(state.sides[choice.hand_of].hand)
    if choice.hand_of == i:
        return Discard(cards=tuple(_worst(state, i, hand)[: choice.count]))
    dearest = sorted(hand, key=lambda c: -state.defn(c).fields.cost.total)
    return Discard(cards=tuple(dearest[: choice.count]))
