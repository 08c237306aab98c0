"""The working copy of a battle while one step is carried out: the state so far, what was said, the dice.

A step (a move, a ruling, a deadline) builds a ``Run`` on the state, changes it through the helpers
here (a card moving between zones, damage, a draw, deaths) and hands back the new state and its
events. Nothing here decides what is legal; ``rules`` does, before a step begins.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import TypeVar

from games.ictc.battle.events import BattleEvent, said, told
from games.ictc.battle.state import PLAYER, BattleState, Ending, Permanent, Phase, Side
from games.ictc.cards import CardType

ZONES = ("deck", "hand", "grave", "kitty", "flashes")
"""The zones that are tuples of card numbers (``play`` holds permanents)."""

# Enum members used on every move, read once: in Python 3.11 reading a member through its enum class
# costs some twenty times a plain name.
_SOLDIER = CardType.SOLDIER

OnDeath = Callable[["Run", int, int], None]
T = TypeVar("T")


class BattleStateError(RuntimeError):
    """The battle's state contradicts itself (a bug, never a player's mistake)."""


def must(value: T | None) -> T:
    """``value``, which the rules know is there at this point."""
    if value is None:
        raise BattleStateError("a value the rules rely on is missing")
    return value


def keywords_of(state: BattleState, card: int) -> frozenset[str]:
    """The starter keywords a card in play has now, lower case (``armor 2`` keeps its number)."""
    found = state.defn(card).keywords
    perm = state.permanent(card)
    if perm is not None and (perm.grants or perm.grants_eot):
        found = found | {k.casefold() for k in (*perm.grants, *perm.grants_eot)}
    return found


def has(state: BattleState, card: int, keyword: str) -> bool:
    if keyword in state.defn(card).keyword_names:
        return True
    perm = state.permanent(card)
    return perm is not None and any(k.casefold().split(" ")[0] == keyword for k in (*perm.grants, *perm.grants_eot))


def armor_of(state: BattleState, card: int) -> int:
    return max((int(k.split(" ")[1]) for k in keywords_of(state, card) if k.startswith("armor ")), default=0)


def cr_of(state: BattleState, card: int) -> int:
    """A Soldier's combat rating now: printed, plus lasting and this turn's changes (never below 0)."""
    base = state.defn(card).fields.cr or 0
    perm = state.permanent(card)
    if perm is None:
        return base
    return max(0, base + perm.cr_perm + perm.cr_eot)


def is_soldier(state: BattleState, card: int) -> bool:
    return state.defs[state.cards[card - 1].defn].fields.type is _SOLDIER


def soldiers(state: BattleState, seat: int | None = None) -> list[int]:
    defs, cards = state.defs, state.cards
    return [
        p.card
        for side in (state.sides if seat is None else (state.sides[seat],))
        for p in side.play
        if defs[cards[p.card - 1].defn].fields.type is _SOLDIER
    ]


def restricted(state: BattleState, card: int, what: str) -> bool:
    return what in state.defn(card).restrictions


def zone_of(state: BattleState, card: int) -> str:
    side = state.sides[state.card(card).owner]
    if any(p.card == card for p in side.play):
        return "play"
    for zone in ZONES:
        if card in getattr(side, zone):
            return zone
    return "nowhere"


def card_words(state: BattleState, card: int) -> str:
    """A public card as the thread names it: ``Flame Hound #12``."""
    return f"{state.name(card)} #{card}"


def target_words(state: BattleState, target: str) -> str:
    if target.startswith(PLAYER):
        return state.seats[int(target[1:])]
    return card_words(state, int(target))


class Run:
    """One step in progress."""

    def __init__(self, state: BattleState, rng: random.Random | str, on_death: OnDeath | None = None) -> None:
        self.state = state
        self._rng = rng
        """The step's dice, or the seed they are rolled from (made at the first roll: most steps roll none)."""
        self.events: list[BattleEvent] = []
        self.on_death = on_death

    @property
    def rng(self) -> random.Random:
        if isinstance(self._rng, str):
            self._rng = random.Random(self._rng)
        return self._rng

    # -- saying --

    def say(self, key: str, count: int | None = None, **fields: object) -> None:
        self.events.append(said(key, count, **fields))

    def tell(self, to: int, key: str, count: int | None = None, **fields: object) -> None:
        self.events.append(told(self.state.seats[to], key, count, **fields))

    def seat(self, seat: int) -> str:
        return self.state.seats[seat]

    def words(self, card: int) -> str:
        return card_words(self.state, card)

    # -- changing --

    def update(self, **changes: object) -> None:
        self.state = self.state.model_copy(update=changes)

    def side(self, seat: int) -> Side:
        return self.state.sides[seat]

    def set_side(self, seat: int, side: Side) -> None:
        sides = (side, self.state.sides[1]) if seat == 0 else (self.state.sides[0], side)
        self.state = self.state.model_copy(update={"sides": sides})

    def change_side(self, seat: int, **changes: object) -> None:
        self.set_side(seat, self.side(seat).model_copy(update=changes))

    def change_perm(self, card: int, **changes: object) -> None:
        seat = self.state.card(card).owner
        side = self.side(seat)
        play = tuple(p.model_copy(update=changes) if p.card == card else p for p in side.play)
        self.set_side(seat, side.model_copy(update={"play": play}))

    def take(self, card: int) -> str:
        """Remove ``card`` from wherever it is; returns the zone it left."""
        seat = self.state.card(card).owner
        side = self.side(seat)
        if any(p.card == card for p in side.play):
            self.set_side(seat, side.model_copy(update={"play": tuple(p for p in side.play if p.card != card)}))
            return "play"
        for zone in ZONES:
            cards: tuple[int, ...] = getattr(side, zone)
            if card in cards:
                self.set_side(seat, side.model_copy(update={zone: tuple(c for c in cards if c != card)}))
                return zone
        return "nowhere"

    def put(self, card: int, zone: str, *, top: bool = False, new: bool = True) -> None:
        """Put ``card`` (taken from its zone first) into its owner's ``zone``."""
        self.take(card)
        seat = self.state.card(card).owner
        side = self.side(seat)
        if zone == "play":
            self.set_side(seat, side.model_copy(update={"play": (*side.play, Permanent(card=card, new=new))}))
            return
        cards: tuple[int, ...] = getattr(side, zone)
        self.set_side(seat, side.model_copy(update={zone: (card, *cards) if top else (*cards, card)}))

    def draw(self, seat: int, n: int) -> int:
        """Draw up to ``n`` cards: everyone hears how many, the drawer alone which. Returns the count drawn."""
        side = self.side(seat)
        got = side.deck[:n]
        if not got:
            self.say("draw.empty", seat=self.seat(seat))
            return 0
        self.change_side(seat, deck=side.deck[len(got) :], hand=(*side.hand, *got))
        left = len(side.deck) - len(got)
        self.say("draw.public", len(got), seat=self.seat(seat), left=left)
        self.tell(seat, "draw.private", len(got), cards=", ".join(self.words(c) for c in got))
        return len(got)

    def lose_health(self, seat: int, n: int, *, prevented: bool = True) -> int:
        """Damage to a player (their shield first when ``prevented``); returns what was taken."""
        side = self.side(seat)
        if n <= 0:
            return 0
        shield = min(side.shield, n) if prevented else 0
        taken = n - shield
        self.change_side(seat, health=side.health - taken, lost=side.lost + taken, shield=side.shield - shield)
        return taken

    def gain_health(self, seat: int, n: int) -> None:
        side = self.side(seat)
        self.change_side(seat, health=side.health + n, gained=side.gained + n)

    def hurt(self, card: int, n: int, *, combat: bool = False) -> int:
        """Damage to a Soldier: Armor in combat, then its shield; returns what it took."""
        perm = self.state.permanent(card)
        if perm is None or n <= 0:
            return 0
        armor = 0
        if combat:
            armor = min(max(0, armor_of(self.state, card) - perm.armor_used), n)
        rest = n - armor
        shield = min(perm.shield, rest)
        taken = rest - shield
        self.change_perm(
            card, damage=perm.damage + taken, shield=perm.shield - shield, armor_used=perm.armor_used + armor
        )
        return taken

    def deaths(self) -> None:
        """Every Soldier whose damage reached its CR dies (its on-death clauses run), until none is left."""
        for _ in range(100):
            dead = [
                p.card
                for seat in (0, 1)
                for p in self.side(seat).play
                if is_soldier(self.state, p.card) and p.damage >= cr_of(self.state, p.card)
            ]
            if not dead:
                return
            for card in dead:
                self.dies(card)

    def dies(self, card: int) -> None:
        seat = self.state.card(card).owner
        self.put(card, "grave")
        self.say("soldier.dies", card=self.words(card), seat=self.seat(seat))
        if self.on_death is not None:
            self.on_death(self, card, seat)

    def check_over(self) -> bool:
        """End the battle when a player's health is gone (both at once: a draw)."""
        if self.state.phase is Phase.OVER:
            return True
        dead = [seat for seat in (0, 1) if self.side(seat).health <= 0]
        if not dead:
            return False
        winner = None if len(dead) == 2 else 1 - dead[0]
        self.finish(winner, Ending.HEALTH)
        return True

    def finish(self, winner: int | None, ending: Ending) -> None:
        self.update(
            phase=Phase.OVER, winner=winner, ending=ending, window=None, combat=None, choice=None, proposal=None
        )
        if winner is None:
            self.say("over.draw", reason=ending.value)
        else:
            self.say(f"over.{ending.value}", winner=self.seat(winner), loser=self.seat(1 - winner))
