"""What a sound battle is; self-play checks it after every action.

Every card is in exactly one zone, of its owner's side; a Soldier in play is alive (its damage below
its CR) with no negative damage or shield; each player's health is their start less what they lost
plus what they gained; the pool holds no empty or negative entries; what the battle waits for
exists (the window's seat, the combat's Soldiers, the choice's hand); and the end matches its cause.

A side is a value the next state shares while nothing on it changes, so what is found of a side is
kept with it (the last side of each seat): most actions change one side or none.
"""

from __future__ import annotations

from typing import NamedTuple

from games.ictc.battle.state import START_HEALTH, BattleState, Card, CardDef, Ending, Phase, Side
from games.ictc.battle.table import ZONES, cr_of
from games.ictc.cards import CardType

# Enum members used on every move, read once: in Python 3.11 reading a member through its enum class
# costs some twenty times a plain name.
_SOLDIER, _POWER = CardType.SOLDIER, CardType.POWER


def invariants(state: BattleState) -> list[str]:
    out: list[str] = []
    sides = [_checked(state, seat, side) for seat, side in enumerate(state.sides)]
    if not _each_card_once(state, sides):
        out.extend(_zone_faults(state))
    for side in sides:
        out.extend(side.faults)
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


class _Checked(NamedTuple):
    """What was found of one side of a battle (the same side in the same battle finds the same)."""

    side: Side
    cards: tuple[Card, ...]
    defs: tuple[CardDef, ...]
    seats: tuple[str, ...]
    over: bool
    placed: int
    """Cards in the side's zones, counted with repeats."""
    numbers: frozenset[int]
    own: bool
    """Every one of them belongs to the side's player."""
    faults: tuple[str, ...]
    """What is wrong with its cards in play and its totals."""


_SIDES: dict[int, _Checked] = {}
"""The side of each seat checked last."""
_OWNED: list[tuple[tuple[Card, ...], tuple[frozenset[int], ...]]] = []
"""The cards of each seat of the battle checked last (its ``cards``, the same tuple in every copy)."""


def _checked(state: BattleState, seat: int, side: Side) -> _Checked:
    over = state.over
    last = _SIDES.get(seat)
    if (
        last is not None
        and last.side is side
        and last.cards is state.cards
        and last.defs is state.defs
        and last.seats is state.seats
        and last.over == over
    ):
        return last
    if not _OWNED or _OWNED[0][0] is not state.cards:
        seats = tuple(
            frozenset(n for n, c in enumerate(state.cards, 1) if c.owner == s) for s in range(len(state.sides))
        )
        _OWNED[:] = [(state.cards, seats)]
    found = (*side.deck, *side.hand, *side.grave, *side.kitty, *side.flashes, *(p.card for p in side.play))
    checked = _SIDES[seat] = _Checked(
        side,
        state.cards,
        state.defs,
        state.seats,
        over,
        len(found),
        frozenset(found),
        _OWNED[0][1][seat].issuperset(found),
        tuple(_side_faults(state, seat, side)),
    )
    return checked


def _each_card_once(state: BattleState, sides: list[_Checked]) -> bool:
    """Whether every card is in exactly one zone of its owner's side (the usual case, found in one pass)."""
    if not all(side.own for side in sides) or sum(side.placed for side in sides) != len(state.cards):
        return False
    return len(frozenset().union(*(side.numbers for side in sides))) == len(state.cards)


def _side_faults(state: BattleState, seat: int, side: Side) -> list[str]:
    out: list[str] = []
    cards, defs, over = state.cards, state.defs, state.over
    for perm in side.play:
        card = perm.card
        fields = defs[cards[card - 1].defn].fields
        kind = fields.type
        if kind is not _SOLDIER and kind is not _POWER:
            out.append(f"#{card} ({kind.value}) is in play; only Soldiers and Power cards stay there")
        if perm.damage < 0 or perm.shield < 0 or perm.armor_used < 0:
            out.append(f"#{card} has negative damage, shield or armor")
        if kind is _SOLDIER and not over:
            mine = cards[card - 1].owner == seat
            cr = max(0, (fields.cr or 0) + perm.cr_perm + perm.cr_eot) if mine else cr_of(state, card)
            if perm.damage >= cr:
                out.append(f"#{card} has {perm.damage} damage at CR {cr} and is still in play")
    if side.health != START_HEALTH - side.lost + side.gained:
        out.append(f"{state.seats[seat]}'s health {side.health} is not {START_HEALTH} - {side.lost} + {side.gained}")
    if side.lost < 0 or side.gained < 0 or side.shield < 0:
        out.append(f"{state.seats[seat]} has negative totals")
    if any(n <= 0 for _, n in side.pool):
        out.append(f"{state.seats[seat]}'s pool holds an empty entry")
    if side.health <= 0 and not over:
        out.append(f"{state.seats[seat]} has {side.health} health and the battle goes on")
    return out


def _zone_faults(state: BattleState) -> list[str]:
    """Each card out of place: on the other player's side, or in no zone or several."""
    out: list[str] = []
    seen: dict[int, int] = {}
    for seat, side in enumerate(state.sides):
        for zone in ZONES:
            for card in getattr(side, zone):
                seen[card] = seen.get(card, 0) + 1
                if state.card(card).owner != seat:
                    out.append(f"#{card} is in {state.seats[seat]}'s {zone} but belongs to the other player")
        for perm in side.play:
            seen[perm.card] = seen.get(perm.card, 0) + 1
            if state.card(perm.card).owner != seat:
                out.append(f"#{perm.card} is in {state.seats[seat]}'s play but belongs to the other player")
    out.extend(f"#{n} is in {seen.get(n, 0)} zones" for n in range(1, len(state.cards) + 1) if seen.get(n, 0) != 1)
    return out
