"""The 113 vote cards of 關你核四, read from ``data/cardsets/nuclear.toml`` and checked against the spec.

A card is a frozen value: its side (the frame colour), its kind (issue, referendum, government bill),
the opinion symbols it adds to its side's index when it passes as a proposal, the vote symbols of its
vote box (one vote each), the eye, its score, the proposal's two symbol boxes, and its title in both
languages. The file is checked on load against the counts and totals of shared/games/nuclear.md
(section 2): a card file that drifts from them stops the game from loading rather than playing a
different game.
"""

from __future__ import annotations

import re
import tomllib
from collections import Counter
from collections.abc import Mapping
from functools import cache
from importlib.resources import files
from typing import Literal

from pydantic import BaseModel, ConfigDict, ValidationError, field_validator

Sym = Literal["pro", "anti"]
SIDES: tuple[Sym, Sym] = ("pro", "anti")


class CardSetError(ValueError):
    """The card file does not match the spec's card set."""


class VoteCard(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    id: str
    side: Literal["pro", "anti", "gov"]
    kind: Literal["issue", "referendum", "gov_bill"]
    opinion: int
    """Top-left symbols: added to ``index[side]`` when the card passes as a proposal."""
    votes: tuple[Sym, ...]
    """The vote symbols of the top-right box; one vote each."""
    eye: bool
    score: int
    yes: Sym
    """The proposal's yes box: a vote symbol of this kind is a yes vote."""
    no: Sym
    zh: str
    en: str

    @field_validator("votes", mode="before")
    @classmethod
    def _letters(cls, value: object) -> object:
        if isinstance(value, str):
            names = {"P": "pro", "A": "anti"}
            if any(ch not in names for ch in value):
                raise ValueError(f"vote symbols are P or A, not {value!r}")
            return tuple(names[ch] for ch in value)
        return value

    @property
    def doubles(self) -> bool:
        """Whether the card can count double at the end (a side's frame; government bills have none)."""
        return self.side != "gov"

    def title(self, lang: str) -> str:
        return self.zh if lang == "zh-TW" else self.en

    def casts(self, proposal: VoteCard, *, eye_votes: bool = False) -> tuple[int, int]:
        """The (yes, no) votes this card casts on ``proposal``; ``eye_votes``: an eye is one more symbol."""
        symbols = list(self.votes)
        if eye_votes and self.eye:
            symbols.append(self.votes[0])
        yes = sum(1 for s in symbols if s == proposal.yes)
        no = sum(1 for s in symbols if s == proposal.no)
        return yes, no


CARDSET = "nuclear.toml"
ORDER_PATTERN = re.compile(r"^(P(0[1-9]|[1-4][0-9]|50)|A(0[1-9]|[1-5][0-9]|6[01])|G[12])$")

EXPECTED_SIDES = {"pro": 50, "anti": 61, "gov": 2}
EXPECTED_TOTALS = {
    # side: (opinion symbols, vote symbols, eyes, points)
    "pro": (82, 64, 10, 98),
    "anti": (121, 77, 14, 105),
}
REMOVAL_POOL_SIZE = 12
"""Anti cards with exactly one opinion symbol and an eye in the vote box (A01-A12): the 5/7-player removal."""


def _check(cards: list[VoteCard]) -> None:
    ids = [c.id for c in cards]
    if len(set(ids)) != len(ids):
        raise CardSetError(f"repeated card ids: {sorted(k for k, n in Counter(ids).items() if n > 1)}")
    bad = [c.id for c in cards if not ORDER_PATTERN.match(c.id)]
    if bad:
        raise CardSetError(f"card ids must be P01-P50, A01-A61, G1, G2: {bad}")
    sides = Counter(c.side for c in cards)
    if dict(sides) != EXPECTED_SIDES:
        raise CardSetError(f"the spec has 50 pro, 61 anti and 2 government cards, the file {dict(sides)}")
    for card in cards:
        if card.side != "gov" and (card.yes != card.side or card.no == card.side or set(card.votes) != {card.side}):
            raise CardSetError(f"{card.id}: a side's card votes with its own symbol and proposes for its side")
        if card.side == "gov" and (card.kind != "gov_bill" or card.opinion != 0 or card.yes == card.no):
            raise CardSetError(f"{card.id}: a government bill has no opinion symbols and two different boxes")
        if not 1 <= len(card.votes) <= 2 or not 0 <= card.opinion <= 3 or not 1 <= card.score <= 3:
            raise CardSetError(f"{card.id}: 1-2 vote symbols, 0-3 opinion symbols and a score of 1-3")
        if not card.zh.strip() or not card.en.strip():
            raise CardSetError(f"{card.id}: a title in both languages")
    for side, (opinion, votes, eyes, points) in EXPECTED_TOTALS.items():
        mine = [c for c in cards if c.side == side]
        found = (
            sum(c.opinion for c in mine),
            sum(len(c.votes) for c in mine),
            sum(c.eye for c in mine),
            sum(c.score for c in mine),
        )
        if found != (opinion, votes, eyes, points):
            raise CardSetError(f"{side} cards: expected (symbols, votes, eyes, points) {opinion, votes, eyes, points}")
    referendums = sorted(c.id for c in cards if c.kind == "referendum")
    if referendums != ["A61", "P50"]:
        raise CardSetError(f"the referendums are P50 and A61, not {referendums}")
    for lang in ("zh", "en"):
        titles = Counter(getattr(c, lang) for c in cards)
        if len(titles) != len(cards):
            raise CardSetError(f"repeated {lang} titles: {[t for t, n in titles.items() if n > 1]}")
    pool = [c for c in cards if c.side == "anti" and c.opinion == 1 and c.eye]
    if len(pool) != REMOVAL_POOL_SIZE:
        raise CardSetError(f"the 5/7-player removal pool has {REMOVAL_POOL_SIZE} cards, not {len(pool)}")


def parse_cards(text: str) -> dict[str, VoteCard]:
    """The cards of a card file's text, checked; ``CardSetError`` says what is wrong."""
    try:
        data = tomllib.loads(text)
        cards = [VoteCard.model_validate(entry) for entry in data.get("card", [])]
    except (tomllib.TOMLDecodeError, ValidationError) as exc:
        raise CardSetError(f"the card file cannot be read: {exc}") from exc
    _check(cards)
    return {c.id: c for c in cards}


@cache
def load_cards() -> Mapping[str, VoteCard]:
    return parse_cards(files("data").joinpath("cardsets", CARDSET).read_text(encoding="utf-8"))


CARDS: Mapping[str, VoteCard] = load_cards()
ALL_IDS: tuple[str, ...] = tuple(CARDS)
"""Every card id in the file's order (P01..P50, A01..A61, G1, G2): hands are kept in this order."""
ORDER: Mapping[str, int] = {cid: i for i, cid in enumerate(ALL_IDS)}
REMOVAL_POOL: tuple[str, ...] = tuple(c.id for c in CARDS.values() if c.side == "anti" and c.opinion == 1 and c.eye)

_ID = re.compile(r"^([pag])#?0*([0-9]{1,2})$")


def parse_card_id(word: str) -> str | None:
    """``p7``, ``P07``, ``a61``, ``g1`` → the card id; None when the word is not one."""
    match = _ID.match(word.strip().casefold())
    if match is None:
        return None
    letter, number = match.group(1).upper(), int(match.group(2))
    cid = f"G{number}" if letter == "G" else f"{letter}{number:02d}"
    return cid if cid in CARDS else None


def sort_cards(cards: tuple[str, ...] | list[str]) -> tuple[str, ...]:
    return tuple(sorted(cards, key=ORDER.__getitem__))
