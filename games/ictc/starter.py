"""The starter set (data/cardsets/ictc_starter.toml): the starter keywords, approved designs every
library starts with, and the starter decks a newcomer may claim. Checked when loaded."""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass
from datetime import UTC, datetime
from functools import lru_cache
from pathlib import Path
from typing import Any

from games.ictc.cards import CardFields, Keyword, build_fields, name_key, warnings
from games.ictc.errors import CardInputError
from games.ictc.palette import Palette
from games.ictc.state import STARTER, Design, DesignStatus, LibraryState, Meta, Version

CARDSETS_DIR = Path(__file__).resolve().parents[2] / "data" / "cardsets"
STARTER_FILE = CARDSETS_DIR / "ictc_starter.toml"
STARTER_DATE = datetime(2026, 1, 1, tzinfo=UTC)
"""When the starter designs were "made": fixed, so every library's starter set is the same."""
STARTER_DECK_SIZE = 30

_ENTRY = re.compile(r"^(?P<name>.*?)\s*[x×](?P<count>[0-9]{1,3})$", re.IGNORECASE)


def deck_entry(text: str) -> tuple[str, int]:
    """``Fire Imp x4`` -> ("Fire Imp", 4); ``Fire Imp`` -> ("Fire Imp", 1)."""
    cleaned = " ".join(text.split())
    match = _ENTRY.fullmatch(cleaned)
    if match is None:
        return cleaned, 1
    return match["name"], int(match["count"])


@dataclass(frozen=True)
class StarterDeck:
    name: str
    blurb: str
    entries: tuple[tuple[str, int], ...]

    @property
    def size(self) -> int:
        return sum(n for _, n in self.entries)


@dataclass(frozen=True)
class StarterSet:
    keywords: dict[str, Keyword]
    cards: tuple[CardFields, ...]
    decks: tuple[StarterDeck, ...]

    def deck(self, name: str) -> StarterDeck | None:
        key = name_key(name)
        return next((d for d in self.decks if name_key(d.name) == key), None)


class StarterSetError(ValueError):
    """The starter set's file is wrong: the bot refuses to start with it."""


def _keywords(data: list[dict[str, Any]]) -> dict[str, Keyword]:
    found: dict[str, Keyword] = {}
    for entry in data:
        word = Keyword(
            name=str(entry["name"]), text=str(entry["text"]), takes_number=bool(entry.get("number")), builtin=True
        )
        found[word.name.casefold()] = word
    return found


def read_starter(path: Path = STARTER_FILE) -> StarterSet:
    """Read and check the set: ``StarterSetError`` lists every problem."""
    with path.open("rb") as fh:
        data = tomllib.load(fh)
    problems: list[str] = []
    keywords = _keywords(data.get("keywords", []))
    cards: list[CardFields] = []
    for entry in data.get("cards", []):
        raw = {str(k): str(v) for k, v in entry.items()}
        for palette in Palette:
            try:
                fields = build_fields(raw, palette, keywords)
            except CardInputError as exc:
                problems.append(f"{raw.get('name', '?')} ({palette.value} palette): {exc}")
                continue
            if palette is Palette.CLASSIC:
                cards.append(fields)
                problems.extend(f"{fields.name}: a soft check fails: {w}" for w in warnings(fields))
    names = [name_key(c.name) for c in cards]
    if len(set(names)) != len(names):
        problems.append("two starter cards share a name")
    decks: list[StarterDeck] = []
    for entry in data.get("decks", []):
        entries = tuple(deck_entry(str(e)) for e in entry.get("cards", []))
        deck = StarterDeck(str(entry["name"]), str(entry.get("blurb", "")), entries)
        for card, _ in entries:
            if name_key(card) not in names:
                problems.append(f"the deck {deck.name} names {card}, which the set does not have")
        if deck.size < STARTER_DECK_SIZE:
            problems.append(f"the deck {deck.name} holds {deck.size} cards; at least {STARTER_DECK_SIZE}")
        decks.append(deck)
    contents = {tuple(sorted((name_key(n), c) for n, c in d.entries)) for d in decks}
    if len(contents) < 2:
        problems.append("the set needs two different decks, so two newcomers can battle at once")
    if problems:
        raise StarterSetError("the starter set is not usable: " + "; ".join(problems))
    return StarterSet(keywords=keywords, cards=tuple(cards), decks=tuple(decks))


@lru_cache(maxsize=1)
def starter_set() -> StarterSet:
    return read_starter()


def builtin_keywords() -> dict[str, Keyword]:
    return starter_set().keywords


def initial_state() -> LibraryState:
    """A library as it starts: the starter designs, approved, numbered 1 to N in the file's order."""
    designs: dict[int, Design] = {}
    for number, fields in enumerate(starter_set().cards, 1):
        version = Version(
            number=1,
            fields=fields,
            made_at=STARTER_DATE,
            assessed=True,
            approved_by="the starter set",
            approved_at=STARTER_DATE,
        )
        designs[number] = Design(
            id=number, owner=STARTER, status=DesignStatus.APPROVED, versions=(version,), created_at=STARTER_DATE
        )
    return LibraryState(meta=Meta(next_design=len(designs) + 1), designs=designs)
