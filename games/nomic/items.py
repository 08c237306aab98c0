"""Bundles of items (points, cards, Standard Proposal-Makers, card copies, items of the kinds rules make):
what trades and moderators move.

A card copy (``copy:12``) belongs to the card library, not to the round: the round's rules carry it
in a trade without counting it as a holding, and the adapter checks and moves it in the library
within the trade's own transaction (``bot.router``).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Collection

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

KindNames = Collection[str] | Callable[[], Collection[str]]
"""The names of the item kinds a command may name (the rules in force and what players hold), or a
function giving them: called only when a command names something that is no other item."""


def kind_plural(name: str, count: int) -> str:
    """``1 Gold Star``, ``2 Gold Stars``: a kind's name as a count reads it."""
    if count == 1 or name.endswith("s"):
        return f"{count} {name}"
    return f"{count} {name}s"


def same_kind_word(typed: str, word: str) -> bool:
    """Whether a typed word is a word of a kind's name, case aside and a plural ``s`` allowed either way."""
    typed, word = typed.casefold(), word.casefold()
    return typed == word or typed in {word + "s", word + "es"} or word in {typed + "s", typed + "es"}


def match_kind(words: list[str], names: Collection[str]) -> tuple[str, int] | None:
    """The longest kind name that ``words`` begin with, and how many words it takes."""
    best: tuple[str, int] | None = None
    for name in names:
        parts = name.split()
        size = len(parts)
        if size > len(words) or (best is not None and size <= best[1]):
            continue
        if all(same_kind_word(t, w) for t, w in zip(words[:size], parts, strict=True)):
            best = (name, size)
    return best


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
    kinds: tuple[tuple[str, int], ...] = ()
    """Items of the kinds rules make (``games.nomic.rulelang``): (kind name, count), by name, each once."""

    @property
    def empty(self) -> bool:
        return self.points == 0 and not self.cards and self.spm == 0 and not self.copies and not self.kinds

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
        parts.extend(kind_plural(name, n) for name, n in self.kinds)
        return ", ".join(parts) if parts else "nothing"

    @classmethod
    def parse(cls, text: str, kinds: KindNames = ()) -> Items:
        """Read ``10 points, AS 10H spm``, ``2 Gold Stars`` (a kind of ``kinds``) or ``nothing``."""
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
        named: Counter[str] = Counter()
        known: list[Collection[str]] = []

        def kind_at(start: int) -> tuple[str, int] | None:
            if not known:
                known.append(kinds() if callable(kinds) else kinds)
            return match_kind(tokens[start:], known[0]) if known[0] else None

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
                kind = kind_at(i + 1) if not low.startswith("-") else None
                if kind is not None:
                    named[kind[0]] += parse_amount(token, "number of items")
                    i += 1 + kind[1]
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
                kind = kind_at(i)
                if kind is not None:
                    named[kind[0]] += 1
                    i += kind[1]
                    continue
                shown = "".join(ch for ch in token if ch.isprintable())[:20]
                named_kinds = sorted(known[0], key=str.casefold)[:5] if known else []
                rules = f", an item the rules name ({', '.join(named_kinds)})" if named_kinds else ""
                raise BadInputError(
                    f"`{shown}` is not an item: use `N points`, card codes such as AS or 10H, `spm`, card copies"
                    f" such as `copy:12`{rules}, or `nothing`"
                ) from None
            i += 1
        if points > MAX_AMOUNT or spm > MAX_AMOUNT or any(n > MAX_AMOUNT for n in named.values()):
            raise BadInputError(f"too many items (at most {MAX_AMOUNT:,} of a kind)")
        if len(copies) > MAX_COPIES:
            raise BadInputError(f"too many card copies in one go (at most {MAX_COPIES})")
        return cls(
            points=points,
            cards=sort_cards(cards),
            spm=spm,
            copies=tuple(sorted(copies)),
            kinds=tuple(sorted(named.items())),
        )

    def card_counts(self) -> Counter[Card]:
        return Counter(self.cards)
