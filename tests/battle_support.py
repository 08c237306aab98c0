"""Builders of battle tests: a battle set up card by card (skipping the deal), and moves typed as players type them."""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass, field

from games.ictc.battle.engine import ENGINE
from games.ictc.battle.events import BattleEvent, Said
from games.ictc.battle.state import (
    BattleOptions,
    BattleState,
    Card,
    CardDef,
    Origin,
    Permanent,
    Phase,
    Side,
)
from games.ictc.cards import CardFields, build_fields
from games.ictc.palette import Palette
from games.ictc.starter import builtin_keywords, starter_set
from games.tables.text import resolve_seat

SEATS = ("alice", "bob")


def starter(name: str) -> CardFields:
    return next(c for c in starter_set().cards if c.name == name)


def made(**raw: str) -> CardFields:
    """A card of our own making, e.g. ``made(name="Bolt", type="action", cost="R", text="...", script="...")``."""
    return build_fields(raw, Palette.CLASSIC, builtin_keywords())


@dataclass
class Zones:
    """One player's cards by zone: hand, play (ready, not new, unless listed as tapped or new), deck, grave."""

    hand: Sequence[CardFields] = ()
    play: Sequence[CardFields] = ()
    deck: Sequence[CardFields] = ()
    grave: Sequence[CardFields] = ()
    tapped: Sequence[str] = ()
    """Names of cards in play that start tapped."""
    new: Sequence[str] = ()
    """Names of cards in play that came into play this turn."""
    health: int = 25
    pool: tuple[tuple[str, int], ...] = ()


def battle(
    a: Zones,
    b: Zones,
    *,
    active: int = 0,
    phase: Phase = Phase.ACTION,
    options: BattleOptions | None = None,
    turn: int = 3,
    seed: int = 7,
) -> BattleState:
    """A battle in ``phase`` of ``active``'s turn ``turn``, with exactly these cards (numbered in order)."""
    defs: list[CardDef] = []
    cards: list[Card] = []
    sides: list[Side] = []
    for seat, zones in enumerate((a, b)):
        numbers: dict[str, list[int]] = {}
        for zone in ("hand", "play", "deck", "grave"):
            found: list[int] = []
            for fields in getattr(zones, zone):
                defs.append(CardDef(fields=fields))
                cards.append(Card(defn=len(defs) - 1, owner=seat))
                found.append(len(cards))
            numbers[zone] = found
        play = tuple(
            Permanent(
                card=n,
                tapped=defs[cards[n - 1].defn].name in zones.tapped,
                new=defs[cards[n - 1].defn].name in zones.new,
            )
            for n in numbers["play"]
        )
        lost = max(0, 25 - zones.health)
        gained = max(0, zones.health - 25)
        sides.append(
            Side(
                health=zones.health,
                lost=lost,
                gained=gained,
                hand=tuple(numbers["hand"]),
                play=play,
                deck=tuple(numbers["deck"]),
                grave=tuple(numbers["grave"]),
                pool=zones.pool,
                cut=True,
                deck_name="test",
            )
        )
    origin = Origin(sides=(sides[0], sides[1]), phase=phase, active=active, turn=turn)
    return BattleState(
        origin=origin,
        options=options or BattleOptions(),
        seats=SEATS,
        seed=seed,
        defs=tuple(defs),
        cards=tuple(cards),
        sides=(sides[0], sides[1]),
        phase=phase,
        active=active,
        turn=turn,
    )


def number(state: BattleState, name: str, seat: int | None = None, nth: int = 0) -> int:
    """The number of the ``nth`` card called ``name`` (of ``seat``)."""
    found = [
        n for n, c in enumerate(state.cards, 1) if state.defs[c.defn].name == name and (seat is None or c.owner == seat)
    ]
    return found[nth]


def players(words: Sequence[str]) -> str:
    return resolve_seat(SEATS, words)


@dataclass
class Moves:
    """A battle driven by typed commands, as the table would (the engine alone)."""

    state: BattleState
    said: list[BattleEvent] = field(default_factory=list)

    def do(self, seat: str, text: str) -> list[BattleEvent]:
        action = ENGINE.parse_action(self.state, seat, text, players)
        self.state, events = ENGINE.apply(self.state, seat, action, random.Random(0))
        broken = ENGINE.invariants(self.state)
        assert not broken, broken
        self.said.extend(events)  # type: ignore[arg-type]
        return list(events)  # type: ignore[arg-type]

    def public(self) -> str:
        return "\n".join(e.text() for e in self.said if isinstance(e, Said))

    def timeout(self) -> list[BattleEvent]:
        timers = ENGINE.timers(self.state)
        assert timers, "no deadline is running"
        found = ENGINE.on_timeout(self.state, timers[0], random.Random(0))
        assert found is not None
        self.state, events = found
        self.said.extend(events)  # type: ignore[arg-type]
        return list(events)  # type: ignore[arg-type]

    def passes(self) -> None:
        """Let every Flash window go."""
        while self.state.window is not None:
            self.do(self.state.seats[self.state.window.seat], "!pass")

    def health(self, seat: int) -> int:
        return self.state.sides[seat].health

    def zone(self, card: int) -> str:
        from games.ictc.battle.table import zone_of

        return zone_of(self.state, card)


def text_of(events: Sequence[BattleEvent]) -> str:
    return "\n".join(e.text() for e in events)
