"""The Move language: what a Trick asks for, read from text, written in English, and checked.

::

    move   = count { " " term } ;
    count  = INT | INT "+" | INT "-" INT ;        exactly n | n or more | n to m
    term   = suits | "r" CMP INT | "odd" | "even" | shape | "sum" CMP INT ;
    suits  = SUIT { "|" SUIT } ;                   W H S K
    shape  = "same-suit" | "diff-suit" | "same-rank" | "diff-rank" | "run" | "suited-run" ;
    CMP    = "=" | "<" | "<=" | ">" | ">=" ;

Every card term applies to every card (several rank or sum terms all apply; several suit terms
narrow each other); a Move has at most one shape (a run of one suit is ``suited-run``), so "the
shape holds" always means one thing.

Two checks: ``explain`` (does this set meet the Move, and if not, why) and ``can_meet`` (could some
subset of a hand meet it: exact, by bitsets, without listing subsets). ``plans`` lists the sets and
plans whole Tricks.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from itertools import pairwise

from games.sardini.cards import RANK, SUIT, SUITS, cards_of, code, mask
from games.sardini.texts import TEXTS

MAX_COUNT = 40
MAX_SUM = 400
"""Ten cards of rank 10 cannot exist, so no sum of cards passes this."""


class MoveSyntaxError(ValueError):
    """Text that is not a Move; the message says which word and what the words can be."""


class Shape(StrEnum):
    SAME_SUIT = "same-suit"
    DIFF_SUIT = "diff-suit"
    SAME_RANK = "same-rank"
    DIFF_RANK = "diff-rank"
    RUN = "run"
    SUITED_RUN = "suited-run"


SHAPE_MAX: dict[Shape, int] = {Shape.DIFF_SUIT: 4, Shape.SAME_RANK: 4, Shape.DIFF_RANK: 10, Shape.RUN: 10}
"""The most cards a set of each shape can hold (a suit has ten cards, so a suited run or a same-suit set ten too)."""

SUIT_MASK: tuple[int, ...] = tuple(mask(c for c in range(40) if SUIT[c] == s) for s in range(4))
RANK_MASK: tuple[int, ...] = tuple(mask(c for c in range(40) if RANK[c] == r) for r in range(11))
"""Indexed by rank (index 0 is empty)."""

_COMPARE = {
    "=": lambda a, b: a == b,
    "<": lambda a, b: a < b,
    "<=": lambda a, b: a <= b,
    ">": lambda a, b: a > b,
    ">=": lambda a, b: a >= b,
}
_COUNT = re.compile(r"^(\d{1,2})(?:(\+)|-(\d{1,2}))?$")
_RANK = re.compile(r"^r(<=|>=|=|<|>)(\d{1,3})$")
_SUM = re.compile(r"^sum(<=|>=|=|<|>)(\d{1,3})$")
_SUITS = re.compile(r"^[WHSK](?:\|[WHSK])*$")
_CMP_KEYS = {"=": "eq", "<": "lt", "<=": "le", ">": "gt", ">=": "ge"}


@dataclass(frozen=True, slots=True)
class Move:
    """One Move of a Trick. Build it with ``parse``; the masks are worked out from the terms."""

    source: str
    lo: int
    hi: int | None
    """None: no upper limit (``N+``)."""
    suits: frozenset[int] | None = None
    """The suits a card may have (None: any)."""
    rank_terms: tuple[tuple[str, int], ...] = ()
    parities: tuple[str, ...] = ()
    shape: Shape | None = None
    sum_terms: tuple[tuple[str, int], ...] = ()
    card_mask: int = field(default=0, compare=False)
    """The cards that pass every card term."""
    sum_mask: int | None = field(default=None, compare=False)
    """Bit ``s`` set when a rank sum ``s`` passes every sum term; None: no sum term."""

    @property
    def simple(self) -> bool:
        """Any cards passing the card terms will do: no shape, no sum."""
        return self.shape is None and self.sum_mask is None

    def passes(self, c: int) -> bool:
        return bool(self.card_mask >> c & 1)

    def sum_ok(self, total: int) -> bool:
        return self.sum_mask is None or bool(self.sum_mask >> total & 1)

    def size_ok(self, n: int) -> bool:
        return n >= self.lo and (self.hi is None or n <= self.hi)

    def text(self, lang: str = "en") -> str:
        """The Move in words, as a card prints it: ``2 cards adding up to 11``."""
        return render(self, lang)


def _card_passes(
    c: int, suits: frozenset[int] | None, ranks: Sequence[tuple[str, int]], parities: Sequence[str]
) -> bool:
    r = RANK[c]
    if suits is not None and SUIT[c] not in suits:
        return False
    if any(not _COMPARE[op](r, n) for op, n in ranks):
        return False
    return all((r % 2 == 1) == (p == "odd") for p in parities)


def parse(text: str) -> Move:
    """Read a Move (``2 sum=11``, ``1+ r<3``, ``3 suited-run``). ``MoveSyntaxError`` says what is wrong."""
    words = text.split()
    if not words:
        raise MoveSyntaxError("a Move is empty; it starts with a count, e.g. `2 sum=11`")
    found = _COUNT.match(words[0])
    if found is None:
        raise MoveSyntaxError(f"`{text}`: a Move starts with a count (`2`, `1+` or `2-3`), not `{words[0]}`")
    lo = int(found.group(1))
    hi: int | None = None if found.group(2) else int(found.group(3)) if found.group(3) else lo
    if not 1 <= lo <= MAX_COUNT or (hi is not None and not lo <= hi <= MAX_COUNT):
        raise MoveSyntaxError(f"`{text}`: the count `{words[0]}` must be 1 to {MAX_COUNT}, low before high")
    suits: frozenset[int] | None = None
    ranks: list[tuple[str, int]] = []
    parities: list[str] = []
    shape: Shape | None = None
    sums: list[tuple[str, int]] = []
    for word in words[1:]:
        if (m := _RANK.match(word)) is not None:
            ranks.append((m.group(1), int(m.group(2))))
        elif (m := _SUM.match(word)) is not None:
            sums.append((m.group(1), int(m.group(2))))
        elif _SUITS.match(word):
            named = frozenset(SUITS.index(s) for s in word.split("|"))
            suits = named if suits is None else suits & named
        elif word in ("odd", "even"):
            parities.append(word)
        elif word in Shape._value2member_map_:
            if shape is not None:
                raise MoveSyntaxError(f"`{text}`: a Move has one shape at most, not `{shape}` and `{word}`")
            shape = Shape(word)
        else:
            raise MoveSyntaxError(
                f"`{text}`: `{word}` is not a term; the terms are suits (`W`, `H|S`), ranks (`r<3`, `r>=8`),"
                " `odd`, `even`, a shape (`same-suit`, `diff-suit`, `same-rank`, `diff-rank`, `run`,"
                " `suited-run`) and sums (`sum=11`)"
            )
    card_mask = mask(c for c in range(40) if _card_passes(c, suits, ranks, parities))
    sum_mask = None
    if sums:
        sum_mask = mask(t for t in range(MAX_SUM + 1) if all(_COMPARE[op](t, n) for op, n in sums))
    return Move(
        " ".join(words),
        lo,
        hi,
        suits,
        tuple(ranks),
        tuple(parities),
        shape,
        tuple(sums),
        card_mask,
        sum_mask,
    )


# --- in words ---------------------------------------------------------------------------------


def render(move: Move, lang: str = "en") -> str:
    """The English (or ``lang``) card text of a Move, generated from its terms."""
    t = TEXTS
    if move.hi is None:
        count = t.text(lang, "move.at_least", n=move.lo)
    elif move.hi == move.lo:
        count = str(move.lo)
    else:
        count = t.text(lang, "move.between", lo=move.lo, hi=move.hi)
    one = move.lo == 1 and move.hi == 1
    form = "one" if one else "other"
    if move.suits is not None:
        names = [t.text(lang, f"suit.{SUITS[s]}.{form}") for s in sorted(move.suits)]
        noun = t.text(lang, "move.or").join(names) if names else t.text(lang, f"move.card.{form}")
    else:
        noun = t.text(lang, f"move.card.{form}")
    parts = [count, *(t.text(lang, f"move.{p}") for p in move.parities), noun]
    if move.rank_terms:
        terms = [t.text(lang, f"move.rank_{_CMP_KEYS[op]}", n=n) for op, n in move.rank_terms]
        parts.append(t.text(lang, "move.ranked", terms=t.text(lang, "move.and").join(terms)))
    if move.shape is not None:
        parts.append(t.text(lang, f"shape.{move.shape.value}"))
    if move.sum_terms:
        terms = [t.text(lang, f"move.sum_{_CMP_KEYS[op]}", n=n) for op, n in move.sum_terms]
        parts.append(t.text(lang, "move.adding", terms=t.text(lang, "move.and").join(terms)))
    return " ".join(parts)


def render_all(moves: Sequence[Move], lang: str = "en") -> str:
    """A Trick's Moves as its card prints them: joined by semicolons, or ``…, three times`` when
    three or more Moves are all the same."""
    texts = [render(m, lang) for m in moves]
    if len(texts) >= 3 and len(set(texts)) == 1:
        return TEXTS.text(lang, "move.times", move=texts[0], times=TEXTS.text(lang, f"move.times_{len(texts)}"))
    return TEXTS.text(lang, "move.separator").join(texts)


# --- does a set meet it ------------------------------------------------------------------------


def _is_run(ranks: list[int]) -> bool:
    ordered = sorted(ranks)
    return all(b == a + 1 for a, b in pairwise(ordered))


def shape_holds(shape: Shape | None, cards: Sequence[int]) -> bool:
    suits = [SUIT[c] for c in cards]
    ranks = [RANK[c] for c in cards]
    if shape is None:
        return True
    if shape is Shape.SAME_SUIT:
        return len(set(suits)) <= 1
    if shape is Shape.DIFF_SUIT:
        return len(set(suits)) == len(suits)
    if shape is Shape.SAME_RANK:
        return len(set(ranks)) <= 1
    if shape is Shape.DIFF_RANK:
        return len(set(ranks)) == len(ranks)
    if shape is Shape.RUN:
        return len(set(ranks)) == len(ranks) and _is_run(ranks)
    return len(set(suits)) <= 1 and _is_run(ranks)


def explain(move: Move, cards: Sequence[int], lang: str = "en") -> str | None:
    """Why ``cards`` do not meet ``move`` (one sentence), or None when they do."""
    t = TEXTS
    seen: set[int] = set()
    for c in cards:
        if c in seen:
            return t.text(lang, "why.twice", card=code(c))
        seen.add(c)
    n = len(cards)
    if not move.size_ok(n):
        if move.hi is None:
            return t.text(lang, "why.at_least", n=move.lo, given=n)
        if move.hi == move.lo:
            return t.text(lang, "why.exactly", n=move.lo, given=n)
        return t.text(lang, "why.between", lo=move.lo, hi=move.hi, given=n)
    for c in cards:
        if not move.passes(c):
            return t.text(lang, "why.card", card=code(c), move=render(move, lang))
    if not shape_holds(move.shape, cards):
        return t.text(lang, f"why.shape.{move.shape.value if move.shape else ''}")
    total = sum(RANK[c] for c in cards)
    if not move.sum_ok(total):
        return t.text(lang, "why.sum", total=total, move=render(move, lang))
    return None


def meets(move: Move, cards: Sequence[int]) -> bool:
    return explain(move, cards) is None


# --- can a hand still meet it (exact) ---------------------------------------------------------


def _reach(groups: Sequence[Sequence[int]], lo: int, hi: int, sums: int) -> bool:
    """Whether a choice of at most one rank from each group, ``lo`` to ``hi`` of them, has a sum in
    ``sums``: ``dp[k]`` is the bitset of the sums ``k`` choices reach."""
    dp = [1] + [0] * hi
    top = 0
    for group in groups:
        for k in range(min(top, hi - 1), -1, -1):
            here = dp[k]
            if here:
                grown = 0
                for r in group:
                    grown |= here << r
                dp[k + 1] |= grown
        top = min(top + 1, hi)
    return any(dp[k] & sums for k in range(lo, hi + 1))


def _ranks_present(bits: int) -> int:
    """Bit ``r`` set for each rank among the cards of ``bits``."""
    out = 0
    for r in range(1, 11):
        if bits & RANK_MASK[r]:
            out |= 1 << r
    return out


def _runs(present: int, lo: int, hi: int, move: Move) -> bool:
    for length in range(lo, min(hi, 10) + 1):
        window = (1 << length) - 1
        for start in range(1, 12 - length):
            if (present >> start) & window == window and move.sum_ok(length * start + length * (length - 1) // 2):
                return True
    return False


def can_meet(move: Move, hand: int) -> bool:
    """Whether some cards of ``hand`` (a mask) meet ``move``: exact, without listing subsets."""
    avail = hand & move.card_mask
    n = avail.bit_count()
    lo = move.lo
    if n < lo:
        return False
    hi = n if move.hi is None else min(move.hi, n)
    sums = move.sum_mask
    shape = move.shape
    if shape is None:
        return sums is None or _reach([[RANK[c]] for c in cards_of(avail)], lo, hi, sums)
    if shape is Shape.SAME_SUIT:
        for s in range(4):
            part = avail & SUIT_MASK[s]
            k = part.bit_count()
            if k >= lo and (sums is None or _reach([[RANK[c]] for c in cards_of(part)], lo, min(hi, k), sums)):
                return True
        return False
    if shape is Shape.SAME_RANK:
        for r in range(1, 11):
            k = min(hi, (avail & RANK_MASK[r]).bit_count())
            if any(move.sum_ok(size * r) for size in range(lo, k + 1)):
                return True
        return False
    if shape is Shape.RUN:
        return _runs(_ranks_present(avail), lo, hi, move)
    if shape is Shape.SUITED_RUN:
        return any(_runs(_ranks_present(avail & SUIT_MASK[s]), lo, hi, move) for s in range(4))
    if shape is Shape.DIFF_SUIT:
        groups = [[RANK[c] for c in cards_of(avail & SUIT_MASK[s])] for s in range(4)]
        groups = [g for g in groups if g]
    else:
        groups = [[r] for r in range(1, 11) if avail & RANK_MASK[r]]
    if len(groups) < lo:
        return False
    return sums is None or _reach(groups, lo, min(hi, len(groups)), sums)
