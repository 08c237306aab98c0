"""Playing cards of the round: a rank rolled on a d13 and a suit rolled on a d4.

Cards are values, not objects with identity: the dice can produce the same card twice, so a
player's holding is a multiset and two equal cards are interchangeable.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from enum import IntEnum
from typing import Annotated

from pydantic import BeforeValidator, PlainSerializer

from games.nomic.errors import BadCardError


class Suit(IntEnum):
    """Suits numbered as the d4 rolls them; ``strength`` is their order in a tie-break."""

    SPADES = 1
    HEARTS = 2
    CLUBS = 3
    DIAMONDS = 4

    @property
    def letter(self) -> str:
        return self.name[0]

    @property
    def strength(self) -> int:
        """Spades beat hearts beat clubs beat diamonds."""
        return 5 - self.value

    @property
    def symbol(self) -> str:
        return {1: "♠", 2: "♥", 3: "♣", 4: "♦"}[self.value]


RANK_NAMES = {1: "A", 11: "J", 12: "Q", 13: "K"}
_STRENGTHS = [[(14 if rank == 1 else rank, 5 - suit) for suit in range(5)] for rank in range(14)]
"""``Card.strength`` by rank and suit: (the rank with the ace high, ``Suit.strength``)."""
_RANK_BY_NAME = {"A": 1, "J": 11, "Q": 12, "K": 13, **{str(n): n for n in range(2, 11)}}
_SUIT_BY_LETTER = {s.letter: s for s in Suit}


@dataclass(frozen=True, slots=True)
class Card:
    """``rank`` is the d13 face (1 is the ace, 13 the king)."""

    rank: int
    suit: Suit

    def __post_init__(self) -> None:
        if not 1 <= self.rank <= 13:
            raise BadCardError(f"rank {self.rank} is not between 1 and 13")

    @property
    def rank_name(self) -> str:
        return RANK_NAMES.get(self.rank, str(self.rank))

    @property
    def code(self) -> str:
        """``rank_name`` then ``Suit.letter``, read from a table: every card shown or stored is written so."""
        return _CODES[self.rank][self.suit]

    @property
    def high(self) -> int:
        """The rank's strength in a hand: the ace counts above the king."""
        return 14 if self.rank == 1 else self.rank

    @property
    def strength(self) -> tuple[int, int]:
        """A card's place in the tie-break order: rank (ace high), then suit.

        Read from a table: it is the key of every card sort, thousands of times in a placements.
        """
        return _STRENGTHS[self.rank][self.suit]

    def __str__(self) -> str:
        return self.code

    @classmethod
    def parse(cls, text: str) -> Card:
        """Read a card code such as ``10H``, ``as`` or ``QD``."""
        raw = text.strip().upper()
        if len(raw) < 2 or len(raw) > 3:
            raise BadCardError(f"`{_shorten(text)}` is not a card (write rank then suit, e.g. 10H, AS, QD)")
        rank = _RANK_BY_NAME.get(raw[:-1])
        suit = _SUIT_BY_LETTER.get(raw[-1])
        if rank is None or suit is None:
            raise BadCardError(f"`{_shorten(text)}` is not a card (write rank then suit, e.g. 10H, AS, QD)")
        return cls(rank, suit)

    @classmethod
    def roll(cls, rng: random.Random) -> tuple[Card, int, int]:
        """Roll a d13 and a d4; the faces are returned so they can be shown as rolled."""
        d13 = rng.randint(1, 13)
        d4 = rng.randint(1, 4)
        return cls(d13, Suit(d4)), d13, d4


_CODES = [["" for _ in range(5)]] + [
    ["", *(f"{RANK_NAMES.get(rank, str(rank))}{suit.letter}" for suit in Suit)] for rank in range(1, 14)
]
"""``Card.code`` by rank and suit."""


def _shorten(text: str, limit: int = 12) -> str:
    clean = "".join(ch for ch in text if ch.isprintable() and ch != "`")
    return clean if len(clean) <= limit else clean[: limit - 1] + "…"


def _card_from_any(value: object) -> object:
    return Card.parse(value) if isinstance(value, str) else value


CardField = Annotated[Card, BeforeValidator(_card_from_any), PlainSerializer(lambda c: c.code, return_type=str)]
"""A card inside a pydantic model: stored and shown as its code."""


def sort_cards(cards: Iterable[Card]) -> tuple[Card, ...]:
    """Highest first, in tie-break order."""
    return tuple(sorted(cards, key=lambda c: c.strength, reverse=True))


def missing_cards(have: Iterable[Card], want: Iterable[Card]) -> list[Card]:
    """The cards of ``want`` not covered by ``have``, counting duplicates."""
    short = Counter(want) - Counter(have)
    return sorted(short.elements(), key=lambda c: c.strength, reverse=True)


def remove_cards(have: Iterable[Card], take: Iterable[Card]) -> tuple[Card, ...]:
    """``have`` minus ``take`` as multisets; the caller has checked possession."""
    left = Counter(have)
    left.subtract(take)
    return sort_cards(left.elements())
