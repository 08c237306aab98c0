"""Colours of power and the server's palette (an option): which letters a cost and a card may use.

Every palette's letters keep the order of ``ORDER``, so a cost written in canonical order reads
the same whichever palette the server uses.
"""

from __future__ import annotations

from enum import StrEnum

COLOUR_NAMES: dict[str, str] = {
    "R": "red",
    "G": "green",
    "K": "black",
    "W": "white",
    "B": "blue",
    "P": "purple",
    "Y": "yellow",
    "O": "orange",
    "C": "colourless",
}
ORDER = "RGKWBPYOC"
"""Canonical order of colour letters in a cost or a card's colours."""

RGB: dict[str, tuple[int, int, int]] = {
    "R": (205, 60, 50),
    "G": (60, 150, 75),
    "K": (45, 45, 50),
    "W": (235, 228, 205),
    "B": (50, 110, 200),
    "P": (130, 70, 170),
    "Y": (230, 195, 40),
    "O": (230, 130, 40),
    "C": (160, 160, 165),
}
"""How each colour is drawn on a card's picture."""


class Palette(StrEnum):
    """The three sets of six colours the game knows; ``classic`` is the default."""

    CLASSIC = "classic"
    BRIGHT = "bright"
    COLOURLESS = "colourless"

    @property
    def letters(self) -> str:
        return {"classic": "RGKWBP", "bright": "RGBPYO", "colourless": "RGKWBC"}[self.value]

    def describe(self) -> str:
        return ", ".join(f"{c} {COLOUR_NAMES[c]}" for c in self.letters)


def colour_key(letter: str) -> int:
    return ORDER.index(letter) if letter in ORDER else len(ORDER)


def in_order(letters: set[str] | frozenset[str] | tuple[str, ...]) -> tuple[str, ...]:
    return tuple(sorted(set(letters), key=colour_key))
