"""Bundles of items (points, cards, Standard Proposal-Makers, card copies): what trades and moderators move.

A card copy (``copy:12``) belongs to the card library, not to the round: the round's rules carry it
in a trade without counting it as a holding, and the adapter checks and moves it in the library
within the trade's own transaction (``bot.router``).
"""

from __future__ import annotations

import re
from collections import Counter

from pydantic import BaseModel, ConfigDict

from games.nomic.cards import Card, CardField, sort_cards
from games.nomic.errors import BadCardError, BadInputError

MAX_AMOUNT = 1_000_000_000
"""No count in a command may exceed this; larger numbers are typos or mischief."""

_NUMBER = re.compile(r"[0-9]+")
_POINT_WORDS = {"point", "points", "pts", "pt"}
_SPM_WORDS = {"spm", "spms", "standard_proposal_maker", "standard-proposal-maker", "proposal-maker"}
_COPY = re.compile(r"copy[:#]([0-9]{1,9})", re.IGNORECASE)
MAX_COPIES = 60


def parse_amount(text: str, what: str = "amount") -> int:
    """A natural number of at least 1, with a clear answer for everything else."""
    raw = text.strip()
    if raw.startswith("-") and _NUMBER.fullmatch(raw[1:]):
        raise BadInputError(f"the {what} must be at least 1, not a negative number")
    if not _NUMBER.fullmatch(raw):
        shown = "".join(ch for ch in text if ch.isprintable())[:20]
        raise BadInputError(f"the {what} must be a whole number, not `{shown}`")
    if len(raw) > 10 or int(raw) > MAX_AMOUNT:
        raise BadInputError(f"the {what} is too large (at most {MAX_AMOUNT:,})")
    value = int(raw)
    if value < 1:
        raise BadInputError(f"the {what} must be at least 1")
    return value


class Items(BaseModel):
    """Points, cards (a multiset) and Standard Proposal-Makers."""

    model_config = ConfigDict(frozen=True)

    points: int = 0
    cards: tuple[CardField, ...] = ()
    spm: int = 0
    copies: tuple[int, ...] = ()
    """Card copies of the card library, by number (``copy:12``); sorted, each once."""

    @property
    def empty(self) -> bool:
        return self.points == 0 and not self.cards and self.spm == 0 and not self.copies

    def describe(self, *, hide_cards: bool = False) -> str:
        """In words; ``hide_cards`` counts the cards instead of naming them (a hand is private)."""
        parts: list[str] = []
        if self.points:
            parts.append(f"{self.points} point{'s' if self.points != 1 else ''}")
        if hide_cards and self.cards:
            parts.append(f"{len(self.cards)} card{'s' if len(self.cards) != 1 else ''}")
        else:
            parts.extend(c.code for c in sort_cards(self.cards))
        if self.spm:
            parts.append(f"{self.spm} Standard Proposal-Maker{'s' if self.spm != 1 else ''}")
        parts.extend(f"card copy {n}" for n in self.copies)
        return ", ".join(parts) if parts else "nothing"

    @classmethod
    def parse(cls, text: str) -> Items:
        """Read ``10 points, AS 10H spm`` or ``nothing``."""
        tokens = [t for t in re.split(r"[\s,]+", text.strip()) if t]
        if not tokens:
            raise BadInputError(
                "name the items: `N points`, card codes such as AS or 10H, `spm`, card copies such as `copy:12`,"
                " or `nothing`"
            )
        if len(tokens) > 60:
            raise BadInputError("too many items in one go (at most 60)")
        if [t.lower() for t in tokens] == ["nothing"]:
            return cls()
        points = 0
        spm = 0
        cards: list[Card] = []
        copies: list[int] = []
        i = 0
        while i < len(tokens):
            token = tokens[i]
            low = token.lower()
            copy = _COPY.fullmatch(token)
            if copy is not None:
                number = int(copy.group(1))
                if number in copies:
                    raise BadInputError(f"card copy {number} is named twice")
                copies.append(number)
                i += 1
                continue
            glued = re.fullmatch(r"(-?[0-9_]+)(points?|pts?|spms?)", low)
            if glued:
                count = parse_amount(glued.group(1), "number of items")
                if glued.group(2).startswith("p"):
                    points += count
                else:
                    spm += count
                i += 1
                continue
            if (_NUMBER.fullmatch(low.lstrip("-")) or low.startswith("-")) and i + 1 < len(tokens):
                unit = tokens[i + 1].lower()
                if unit in _POINT_WORDS or unit in _SPM_WORDS:
                    count = parse_amount(token, "number of points" if unit in _POINT_WORDS else "number of items")
                    if unit in _POINT_WORDS:
                        points += count
                    else:
                        spm += count
                    i += 2
                    continue
            if low in _SPM_WORDS:
                spm += 1
                i += 1
                continue
            if low in _POINT_WORDS:
                raise BadInputError("say how many points, e.g. `10 points`")
            if low == "nothing":
                raise BadInputError("`nothing` cannot be combined with other items")
            try:
                cards.append(Card.parse(token))
            except BadCardError:
                shown = "".join(ch for ch in token if ch.isprintable())[:20]
                raise BadInputError(
                    f"`{shown}` is not an item: use `N points`, card codes such as AS or 10H, `spm`, card copies"
                    " such as `copy:12`, or `nothing`"
                ) from None
            i += 1
        if points > MAX_AMOUNT or spm > MAX_AMOUNT:
            raise BadInputError(f"too many items (at most {MAX_AMOUNT:,} of a kind)")
        if len(copies) > MAX_COPIES:
            raise BadInputError(f"too many card copies in one go (at most {MAX_COPIES})")
        return cls(points=points, cards=sort_cards(cards), spm=spm, copies=tuple(sorted(copies)))

    def card_counts(self) -> Counter[Card]:
        return Counter(self.cards)
