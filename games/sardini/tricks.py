"""The 40 Trick cards, read from ``data/cardsets/sardini.toml`` and checked as they load.

The checks are what makes a card set playable: 40 distinct cards, one of each rank and suit; every
Trick has a name and 1 to 4 Moves; every Move parses and the whole deck can meet it. A set that
fails any of them raises ``CardSetError`` naming the card and the reason, so a bad edit of the data
file stops the bot at start, not in the middle of a game.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from functools import cache
from importlib.resources import files
from typing import Any

from games.sardini.cards import DECK_SIZE, FULL, RANK, code, parse_card
from games.sardini.moves import Move, MoveSyntaxError, can_meet, parse, render_all
from games.tables.engine import BadCommandError

MAX_MOVES = 4


class CardSetError(ValueError):
    """The card set's data is not a playable set of 40 Tricks; the message names the card."""


@dataclass(frozen=True, slots=True)
class Trick:
    card: int
    name: str
    moves: tuple[Move, ...]

    @property
    def code(self) -> str:
        return code(self.card)

    @property
    def rank(self) -> int:
        return RANK[self.card]

    @property
    def min_won(self) -> int:
        """The fewest cards performing it wins: the fewest each Move takes, and the Trick card."""
        return sum(m.lo for m in self.moves) + 1

    def text(self, lang: str = "en") -> str:
        """The Moves as the card prints them."""
        return render_all(self.moves, lang)


def read_tricks(data: dict[str, Any]) -> dict[int, Trick]:
    """The Tricks of a card set's TOML data, checked (``CardSetError`` otherwise)."""
    rows = data.get("trick")
    if not isinstance(rows, list):
        raise CardSetError("the card set has no [[trick]] entries")
    tricks: dict[int, Trick] = {}
    for row in rows:
        label = str(row.get("card", "?")) if isinstance(row, dict) else "?"
        if not isinstance(row, dict) or set(row) != {"card", "name", "moves"}:
            raise CardSetError(f"{label}: a trick has exactly `card`, `name` and `moves`")
        try:
            c = parse_card(str(row["card"]))
        except BadCommandError as exc:
            raise CardSetError(f"{label}: not a card code") from exc
        if c in tricks:
            raise CardSetError(f"{label}: the card appears twice")
        name, texts = row["name"], row["moves"]
        if not isinstance(name, str) or not name.strip():
            raise CardSetError(f"{label}: the Trick needs a name")
        if not isinstance(texts, list) or not 1 <= len(texts) <= MAX_MOVES:
            raise CardSetError(f"{label}: a Trick has 1 to {MAX_MOVES} Moves")
        moves = []
        for text in texts:
            try:
                move = parse(str(text))
            except MoveSyntaxError as exc:
                raise CardSetError(f"{label}: {exc}") from exc
            if not can_meet(move, FULL):
                raise CardSetError(f"{label}: no set of the 40 cards meets `{text}`")
            moves.append(move)
        tricks[c] = Trick(c, name.strip(), tuple(moves))
    if len(tricks) != DECK_SIZE:
        missing = sorted(set(range(DECK_SIZE)) - set(tricks))
        listed = ", ".join(map(code, missing))
        raise CardSetError(f"the card set has {len(tricks)} Tricks, not {DECK_SIZE}; missing {listed}")
    return tricks


@cache
def load_tricks(name: str = "sardini") -> dict[int, Trick]:
    """A card set of ``data/cardsets`` by name, read and checked once."""
    text = files("data").joinpath("cardsets", f"{name}.toml").read_text(encoding="utf-8")
    return read_tricks(tomllib.loads(text))


TRICKS: dict[int, Trick] = load_tricks()
