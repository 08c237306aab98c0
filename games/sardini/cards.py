"""The 40 cards as numbers: ranks 1 to 10 in four suits, written rank then suit (``7W``, ``10K``).

A card is the int ``suit * 10 + rank - 1`` (0 to 39), so a set of cards is also a 40-bit mask
(``mask``): the Move checks and the AI work on masks, the state keeps tuples of ints.
"""

from __future__ import annotations

from collections.abc import Iterable

from games.tables.engine import BadCommandError

SUITS = "WHSK"
"""Wands, Top Hats, Stars, Smoke."""
RANKS = range(1, 11)
DECK_SIZE = 40
ALL_CARDS: tuple[int, ...] = tuple(range(DECK_SIZE))
FULL = (1 << DECK_SIZE) - 1

SUIT_WORDS: dict[str, tuple[str, str]] = {
    "W": ("Wand", "Wands"),
    "H": ("Top Hat", "Top Hats"),
    "S": ("Star", "Stars"),
    "K": ("Smoke", "Smoke"),
}
"""Each suit's name, singular and plural."""


def card(rank: int, suit: int) -> int:
    return suit * 10 + rank - 1


def rank_of(c: int) -> int:
    return c % 10 + 1


def suit_of(c: int) -> int:
    return c // 10


RANK: tuple[int, ...] = tuple(rank_of(c) for c in ALL_CARDS)
SUIT: tuple[int, ...] = tuple(suit_of(c) for c in ALL_CARDS)


def code(c: int) -> str:
    return f"{rank_of(c)}{SUITS[suit_of(c)]}"


CODES: tuple[str, ...] = tuple(code(c) for c in ALL_CARDS)
_BY_CODE = {text: c for c, text in enumerate(CODES)}


def codes(cards: Iterable[int]) -> str:
    """Cards as the thread writes them, in suit then rank order: ``2W 7W 3H``."""
    return " ".join(CODES[c] for c in sorted(cards))


def parse_card(word: str) -> int:
    """A card from ``7W``, ``10k``, ``7-W``; ``BadCommandError`` that says how cards are written."""
    text = word.strip().upper().replace("-", "")
    found = _BY_CODE.get(text)
    if found is None:
        shown = word if len(word) <= 12 else word[:12] + "…"
        raise BadCommandError(
            f"`{shown}` is not a card: write the rank then the suit, e.g. `7W` or `10K`"
            " (W Wands, H Top Hats, S Stars, K Smoke)"
        )
    return found


def is_card_code(word: str) -> bool:
    return word.strip().upper().replace("-", "") in _BY_CODE


def mask(cards: Iterable[int]) -> int:
    out = 0
    for c in cards:
        out |= 1 << c
    return out


def cards_of(bits: int) -> list[int]:
    """The cards of a mask, lowest first."""
    out = []
    while bits:
        low = bits & -bits
        out.append(low.bit_length() - 1)
        bits ^= low
    return out
