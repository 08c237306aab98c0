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

Three checks, from the cheapest: ``explain`` (does this set meet the Move, and if not, why),
``can_meet`` (could some subset of a hand meet it: exact, by bitsets) and ``solve`` (disjoint sets
for several Moves at once, what performing a whole Trick needs; for the AI and the hand's hints).
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from itertools import combinations, pairwise, product

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


# --- the sets that meet it, and whole Tricks --------------------------------------------------


def _sizes(move: Move, n: int) -> range:
    """The set sizes worth trying: the fewest cards unless a sum may need more."""
    cap = n if move.hi is None else min(move.hi, n)
    if move.shape is not None and move.shape in SHAPE_MAX:
        cap = min(cap, SHAPE_MAX[move.shape])
    if move.sum_mask is None:
        return range(move.lo, min(move.lo, cap) + 1)
    return range(move.lo, cap + 1)


def sets(move: Move, hand: int) -> Iterator[int]:
    """Sets of ``hand`` (masks) that meet ``move``, the fewest cards first. Without a sum term only
    the smallest sets are listed: every set that meets such a Move holds one of them."""
    avail = hand & move.card_mask
    cards = cards_of(avail)
    if len(cards) < move.lo:
        return
    shape = move.shape
    for size in _sizes(move, len(cards)):
        if shape in (None, Shape.SAME_SUIT, Shape.SAME_RANK):
            if shape is None:
                pools = [cards]
            elif shape is Shape.SAME_SUIT:
                pools = [cards_of(avail & SUIT_MASK[s]) for s in range(4)]
            else:
                pools = [cards_of(avail & RANK_MASK[r]) for r in range(1, 11)]
            for pool in pools:
                for combo in combinations(pool, size):
                    if move.sum_ok(sum(RANK[c] for c in combo)):
                        yield mask(combo)
        elif shape in (Shape.DIFF_SUIT, Shape.DIFF_RANK):
            if shape is Shape.DIFF_SUIT:
                groups = [cards_of(avail & SUIT_MASK[s]) for s in range(4)]
            else:
                groups = [cards_of(avail & RANK_MASK[r]) for r in range(1, 11)]
            groups = [g for g in groups if g]
            for chosen in combinations(groups, size):
                for combo in product(*chosen):
                    if move.sum_ok(sum(RANK[c] for c in combo)):
                        yield mask(combo)
        else:
            parts = [avail] if shape is Shape.RUN else [avail & SUIT_MASK[s] for s in range(4)]
            for part in parts:
                for start in range(1, 12 - size):
                    if not move.sum_ok(size * start + size * (size - 1) // 2):
                        continue
                    columns = [cards_of(part & RANK_MASK[r]) for r in range(start, start + size)]
                    if all(columns):
                        for combo in product(*columns):
                            yield mask(combo)


class _OutOfBudgetError(Exception):
    pass


@dataclass
class _Search:
    moves: Sequence[Move]
    budget: int
    simple: list[int] = field(default_factory=list)
    hall: list[tuple[int, int]] = field(default_factory=list)
    """(cards any of a group of simple Moves may use, cards the group needs), every group."""
    failed: set[tuple[int, int]] = field(default_factory=set)

    def tick(self, n: int = 1) -> None:
        self.budget -= n
        if self.budget < 0:
            raise _OutOfBudgetError

    def hall_ok(self, avail: int) -> bool:
        """Hall's condition: the simple Moves can share ``avail`` exactly when every group of them
        finds as many usable cards as it needs together."""
        return all((union & avail).bit_count() >= need for union, need in self.hall)


def _hall_groups(moves: Sequence[Move], simple: Sequence[int]) -> list[tuple[int, int]]:
    out = []
    for chosen in range(1, 1 << len(simple)):
        union = need = 0
        for j, index in enumerate(simple):
            if chosen >> j & 1:
                union |= moves[index].card_mask
                need += moves[index].lo
        out.append((union, need))
    return out


def _assign_simple(moves: Sequence[Move], simple: list[int], avail: int) -> dict[int, int]:
    """Cards for each simple Move (``lo`` each) from ``avail``, which passes Hall's condition: each
    card is taken only when the rest can still be shared, so the greedy choice never fails."""
    need = {i: moves[i].lo for i in simple}
    out = dict.fromkeys(simple, 0)
    for i in sorted(simple, key=lambda k: (avail & moves[k].card_mask).bit_count()):
        while need[i]:
            others = [k for k in simple if need[k] and k != i]
            options = cards_of(avail & moves[i].card_mask)
            options.sort(key=lambda c: sum(1 for k in others if moves[k].passes(c)))
            for c in options:
                rest = avail & ~(1 << c)
                left = {k: need[k] - (k == i) for k in simple}
                if all(
                    (union & rest).bit_count() >= total
                    for union, total in _hall_groups_needed(moves, simple, left)
                ):
                    out[i] |= 1 << c
                    avail = rest
                    need[i] -= 1
                    break
            else:  # pragma: no cover - Hall's condition guarantees a card
                raise AssertionError("simple Moves could not share cards that pass Hall's condition")
    return out


def _hall_groups_needed(moves: Sequence[Move], simple: Sequence[int], need: dict[int, int]) -> list[tuple[int, int]]:
    active = [i for i in simple if need[i]]
    out = []
    for chosen in range(1, 1 << len(active)):
        union = total = 0
        for j, index in enumerate(active):
            if chosen >> j & 1:
                union |= moves[index].card_mask
                total += need[index]
        out.append((union, total))
    return out


def solve(moves: Sequence[Move], hand: int, *, budget: int = 20_000, assign: bool = True) -> list[int] | None:
    """Disjoint sets of ``hand`` (masks), one per Move in order, each meeting its Move; None when
    there are none, or when the search looked at more than ``budget`` sets without deciding (a
    hint, never a rule: the rules decide failure with ``can_meet``). ``assign`` False: only whether."""
    search = _Search(moves, budget)
    search.simple = [i for i, m in enumerate(moves) if m.simple]
    shaped = [i for i, m in enumerate(moves) if not m.simple]
    search.hall = _hall_groups(moves, search.simple)
    if not search.hall_ok(hand) or not all(can_meet(moves[i], hand) for i in shaped):
        return None
    try:
        listed = {}
        for i in shaped:
            found = []
            for s in sets(moves[i], hand):
                search.tick()
                found.append(s)
            listed[i] = found
        order = sorted(shaped, key=lambda i: len(listed[i]))
        chosen = _descend(search, order, listed, 0, hand)
    except _OutOfBudgetError:
        return None
    if chosen is None:
        return None
    out = [0] * len(moves)
    for i, s in chosen.items():
        out[i] = s
    if assign and search.simple:
        rest = hand
        for s in chosen.values():
            rest &= ~s
        for i, s in _assign_simple(moves, search.simple, rest).items():
            out[i] = s
    return out


def _descend(
    search: _Search, order: list[int], listed: dict[int, list[int]], depth: int, avail: int
) -> dict[int, int] | None:
    if depth == len(order):
        return {} if search.hall_ok(avail) else None
    if (depth, avail) in search.failed:
        return None
    index = order[depth]
    later = order[depth + 1 :]
    for s in listed[index]:
        search.tick()
        if s & ~avail:
            continue
        rest = avail & ~s
        if not search.hall_ok(rest) or not all(can_meet(search.moves[k], rest) for k in later):
            continue
        found = _descend(search, order, listed, depth + 1, rest)
        if found is not None:
            found[index] = s
            return found
    search.failed.add((depth, avail))
    return None


def feasible(moves: Sequence[Move], hand: int, *, budget: int = 20_000) -> bool:
    """Whether ``hand`` can perform all of ``moves`` at once (see ``solve``)."""
    return solve(moves, hand, budget=budget, assign=False) is not None
