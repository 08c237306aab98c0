"""What a sound battle is; self-play checks it after every action.

Every card is in exactly one zone, of its owner's side; a Soldier in play is alive (its damage below
its CR) with no negative damage or shield; each player's health is their start less what they lost
plus what they gained; the pool holds no empty or negative entries; what the battle waits for
exists (the window's seat, the combat's Soldiers, the choice's hand); and the end matches its cause.
"""

from __future__ import annotations

from collections import Counter

from games.ictc.battle.state import START_HEALTH, BattleState, Ending, Phase
from games.ictc.battle.table import ZONES, cr_of, is_soldier
from games.ictc.cards import CardType


def invariants(state: BattleState) -> list[str]:
    out: list[str] = []
    seen: Counter[int] = Counter()
    for seat, side in enumerate(state.sides):
        for zone in ZONES:
            for card in getattr(side, zone):
                seen[card] += 1
                if state.card(card).owner != seat:
                    out.append(f"#{card} is in {state.seats[seat]}'s {zone} but belongs to the other player")
        for perm in side.play:
            seen[perm.card] += 1
            card = perm.card
            kind = state.defn(card).kind
            if state.card(card).owner != seat:
                out.append(f"#{card} is in {state.seats[seat]}'s play but belongs to the other player")
            if kind not in (CardType.SOLDIER, CardType.POWER):
                out.append(f"#{card} ({kind.value}) is in play; only Soldiers and Power cards stay there")
            if perm.damage < 0 or perm.shield < 0 or perm.armor_used < 0:
                out.append(f"#{card} has negative damage, shield or armor")
            if is_soldier(state, card) and perm.damage >= cr_of(state, card) and not state.over:
                out.append(f"#{card} has {perm.damage} damage at CR {cr_of(state, card)} and is still in play")
        if side.health != START_HEALTH - side.lost + side.gained:
            out.append(
                f"{state.seats[seat]}'s health {side.health} is not {START_HEALTH} - {side.lost} + {side.gained}"
            )
        if side.lost < 0 or side.gained < 0 or side.shield < 0:
            out.append(f"{state.seats[seat]} has negative totals")
        if any(n <= 0 for _, n in side.pool):
            out.append(f"{state.seats[seat]}'s pool holds an empty entry")
        if side.health <= 0 and not state.over:
            out.append(f"{state.seats[seat]} has {side.health} health and the battle goes on")
    out.extend(f"#{n} is in {seen[n]} zones" for n in range(1, len(state.cards) + 1) if seen[n] != 1)
    if state.window is not None and state.window.seat not in (0, 1):
        out.append("the Flash window's seat does not exist")
    if state.combat is not None:
        out.extend(
            f"#{a.attacker} attacks for the player whose turn it is not"
            for a in state.combat.attacks
            if state.card(a.attacker).owner != state.active
        )
    if state.choice is not None and state.choice.count > len(state.sides[state.choice.hand_of].hand):
        out.append("a discard waits for more cards than the hand holds")
    if state.over:
        if state.ending is None:
            out.append("the battle is over without a cause")
        if state.ending is Ending.HEALTH and state.winner is not None and state.sides[state.winner].health <= 0:
            out.append("the winner on health has none")
    elif state.phase is Phase.OVER:
        out.append("the phase says over but the battle is not")
    if state.turn and state.phase is Phase.CUT:
        out.append("turns began before the cut")
    return out
