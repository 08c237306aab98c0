"""Ranking presented hands and turning them into placements.

The cards come from dice, so a hand may hold the same card twice and even five of a kind. The
rule text orders hands by category and then, inside a category, card by card from the highest
card down (rank with the ace always high, then suit). The ``poker_kickers`` option swaps that
tie-break for the poker one; ``wrap_around`` lets straights run over the ace.

The ranking has two forms. ``rank_hand`` reads as the rule text does and shows its working (the
category, the tie-break key, the cards in order). ``hand_score`` gives the same standing as one
number: a hand gets it when it is presented and keeps it, so that placements sort thousands of
hands without ranking any again. The tests hold the two equal under every option.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from enum import IntEnum
from itertools import groupby

from games.nomic.cards import Card
from games.nomic.errors import BadInputError

HAND_SIZE = 5


class Category(IntEnum):
    """Hand categories, numbered so that a better category compares greater."""

    HIGH_CARD = 1
    ONE_PAIR = 2
    TWO_PAIR = 3
    THREE_OF_A_KIND = 4
    STRAIGHT = 5
    FLUSH = 6
    FULL_HOUSE = 7
    FOUR_OF_A_KIND = 8
    STRAIGHT_FLUSH = 9
    FIVE_OF_A_KIND = 10

    @property
    def label(self) -> str:
        """The name players read in placements."""
        return _LABELS[self]


_LABELS = {
    Category.HIGH_CARD: "High Card",
    Category.ONE_PAIR: "One Pair",
    Category.TWO_PAIR: "Two Pair",
    Category.THREE_OF_A_KIND: "Three of a Kind",
    Category.STRAIGHT: "Straight",
    Category.FLUSH: "Flush",
    Category.FULL_HOUSE: "Full House",
    Category.FOUR_OF_A_KIND: "Four of a Kind",
    Category.STRAIGHT_FLUSH: "Straight Flush",
    Category.FIVE_OF_A_KIND: "Five of a Kind",
}

Key = tuple[tuple[int, int], ...]
"""A tie-break key; pairs so that both tie-break rules share one comparable type."""


@dataclass(frozen=True, order=True, slots=True)
class HandRank:
    """A hand's standing: hands compare by category, then by ``key``; ``cards`` is for display.

    Two ranks are equal exactly when the active tie-break rule cannot separate the hands, which
    is when placement falls back to a coin toss.
    Keys made with and without ``poker_kickers`` have different meanings; compare only ranks
    made under the same options.
    """

    category: Category
    key: Key
    cards: tuple[Card, ...] = field(compare=False)

    @property
    def label(self) -> str:
        return self.category.label

    @property
    def score(self) -> int:
        """The rank as one number that orders and ties exactly as the rank does (``hand_score``)."""
        return _score(self.category, self.key)


@dataclass(frozen=True, slots=True)
class Placement:
    """One player's place; ``coin_toss`` says a toss ordered them against an identical hand."""

    place: int
    player: str
    rank: HandRank
    coin_toss: bool


_RUNS = {frozenset((start - 1 + i) % 13 + 1 for i in range(HAND_SIZE)): start for start in range(1, 14)}
"""Each run of five ranks on the circle A-2-...-K-A, by its set of ranks, to the rank it starts at."""


def _run_start(ranks: Sequence[int], *, wrap_around: bool) -> int | None:
    """The rank a run of five begins at (1..13), or None when the ranks are not sequential.

    Runs are read on the circle A-2-...-K-A: starts 1..9 are ordinary runs, 10 is 10-J-Q-K-A and
    11..13 are the runs that wrap over the ace, allowed only with ``wrap_around``. Every set of
    ranks is at most one run, so one look-up finds it.
    """
    start = _RUNS.get(frozenset(ranks))  # five different ranks or no run
    if start is None or (start > 10 and not wrap_around):
        return None
    return start


def _poker_run_top(start: int) -> int:
    """A run's poker value: its top card, where only 10-J-Q-K-A lets the ace count high.

    A-2-3-4-5 is five-high, the lowest ordinary straight. A wrapped run is valued by its top
    card in the wrapped order (J-Q-K-A-2 is two-high, K-A-2-3-4 four-high), so every wrapped
    run ranks below A-2-3-4-5: the ace in them is neither high nor low.
    """
    top = start + HAND_SIZE - 1
    if top == 14:
        return 14
    return top if top <= 13 else top - 13


_BY_PATTERN = {
    (5,): Category.FIVE_OF_A_KIND,
    (4, 1): Category.FOUR_OF_A_KIND,
    (3, 2): Category.FULL_HOUSE,
    (3, 1, 1): Category.THREE_OF_A_KIND,
    (2, 2, 1): Category.TWO_PAIR,
    (2, 1, 1, 1): Category.ONE_PAIR,
    (1, 1, 1, 1, 1): Category.HIGH_CARD,
}
"""The category that the pattern of same-rank groups (largest first) gives on its own."""


def _category(ranks: Sequence[int], same_suit: bool, run_start: int | None) -> Category:
    """The highest category the hand satisfies, in the order the rule text lists them.

    A run has five different ranks, so its pattern is High Card and the run decides; otherwise
    one suit lifts the hand to a Flush unless its pattern already ranks higher (duplicate cards
    make a same-suit Five or Four of a Kind or Full House possible).
    """
    if run_start is not None:
        return Category.STRAIGHT_FLUSH if same_suit else Category.STRAIGHT
    category = _BY_PATTERN[tuple(sorted(map(ranks.count, set(ranks)), reverse=True))]
    return max(category, Category.FLUSH) if same_suit else category


def _poker_key(cards: Sequence[Card], category: Category, run_start: int | None) -> Key:
    """Poker tie-break as ``(count, rank)`` pairs, suits ignored.

    Straights compare by the run's top card alone. Flushes and high cards compare ranks from the
    highest down, as in poker; a flush that holds a pair is still compared card by card, since
    its category comes from the suit, not the pair. Every other category compares its groups,
    largest group first and higher rank first among equal groups, then kickers. Inside one
    category the counts agree, so the ranks decide.
    """
    if run_start is not None and category in (Category.STRAIGHT, Category.STRAIGHT_FLUSH):
        return ((1, _poker_run_top(run_start)),)
    highs = sorted((c.high for c in cards), reverse=True)
    if category in (Category.FLUSH, Category.HIGH_CARD):
        return tuple((1, h) for h in highs)
    groups = [(len(list(same)), high) for high, same in groupby(highs)]
    return tuple(sorted(groups, reverse=True))


def rank_hand(cards: Sequence[Card], *, wrap_around: bool = False, poker_kickers: bool = False) -> HandRank:
    """Rank a five-card hand; identical cards are allowed because cards are rolled.

    By default the tie-break is the rule text's: the cards from highest to lowest, each by
    ``Card.strength`` (ace always high, then Spades > Hearts > Clubs > Diamonds). So A-2-3-4-5
    beats K-Q-J-10-9, and a pair of twos with an ace beats a pair of kings without one.
    """
    if len(cards) != HAND_SIZE:
        raise BadInputError(f"a hand is exactly {HAND_SIZE} cards, not {len(cards)}")
    ranks = [c.rank for c in cards]
    run_start = _run_start(ranks, wrap_around=wrap_around)
    category = _category(ranks, len({c.suit for c in cards}) == 1, run_start)
    # The ``sort_cards`` order (highest first, stable), reading each card's strength once:
    # placements rank every presented hand in one tick, and presented hands are kept in that
    # order already, so their order is kept as it is.
    strengths = [c.strength for c in cards]
    highest_first = sorted(strengths, reverse=True)
    if highest_first == strengths:
        ordered = tuple(cards)
    else:
        order = sorted(range(HAND_SIZE), key=strengths.__getitem__, reverse=True)
        ordered = tuple([cards[i] for i in order])
    key = _poker_key(cards, category, run_start) if poker_kickers else tuple(highest_first)
    return HandRank(category, key, ordered)


_ELEMENT_BITS = 8
"""Bits for one pair of a key: ``16 * first + second``; firsts are 1..14 and seconds 1..14."""
_KEY_BITS = _ELEMENT_BITS * HAND_SIZE
SCORE_VERSION = 1
"""Bumped whenever ``hand_score`` changes meaning, so that scores kept with presented hands
under an older meaning are computed again (``ranking_tag``)."""


def _score(category: Category, key: Key) -> int:
    """``(category, key)`` as one number with the same order and the same ties.

    The category comes first, then each pair of the key as an 8-bit digit (``16 * a + b``: both
    parts are below 16, and the digit is at least 16), the shorter keys padded with zero digits.
    Padding below every real digit makes a key that is a prefix of another lower, as tuples
    compare; one number compares in one step, which counts when thousands of hands are sorted.
    """
    packed = 0
    for first, second in key:
        packed = (packed << _ELEMENT_BITS) | (first << 4) | second
    return (int(category) << _KEY_BITS) | (packed << (_ELEMENT_BITS * (HAND_SIZE - len(key))))


def score_category(score: int) -> Category:
    """The category a ``hand_score`` was made from."""
    return _CATEGORIES[score >> _KEY_BITS]


def score_label(score: int) -> str:
    """``score_category(score).label`` in one look-up: placements label every hand."""
    return _SCORE_LABELS[score >> _KEY_BITS]


_CATEGORIES = {int(c): c for c in Category}
_SCORE_LABELS = {int(c): c.label for c in Category}


_DIGITS = [[16 * (14 if rank == 1 else rank) + 5 - suit for suit in range(5)] for rank in range(14)]
"""A card's digit in a score under the literal tie-break, by rank and suit: 16 times its rank
with the ace high, plus its suit's strength (``Card.strength`` as one number)."""


def _groups_by_mask() -> dict[int, tuple[Category, tuple[tuple[int, int], ...]]]:
    """For five ranks sorted highest first, which neighbours are equal (bit i: the i-th and the next)
    gives the category of the same-rank groups alone, and the groups as (size, first position),
    largest first and higher first among equal sizes: the order of the poker tie-break."""
    table: dict[int, tuple[Category, tuple[tuple[int, int], ...]]] = {}
    for mask in range(1 << (HAND_SIZE - 1)):
        groups: list[tuple[int, int]] = []
        start = 0
        for i in range(HAND_SIZE - 1):
            if not mask >> i & 1:
                groups.append((i + 1 - start, start))
                start = i + 1
        groups.append((HAND_SIZE - start, start))
        groups.sort(key=lambda group: (-group[0], group[1]))
        table[mask] = (_BY_PATTERN[tuple(size for size, _ in groups)], tuple(groups))
    return table


_GROUPS = _groups_by_mask()


def hand_score(cards: Sequence[Card], *, wrap_around: bool = False, poker_kickers: bool = False) -> int:
    """``rank_hand(...).score`` without building the rank: what a presented hand keeps.

    Placements score here the hands presented under other options than those in force (and
    those of snapshots from before scores were kept), thousands at times; the tests hold this
    equal to ``rank_hand(...).score`` for every option.
    """
    return hand_scores((cards,), wrap_around=wrap_around, poker_kickers=poker_kickers)[0]


def hand_scores(
    hands: Iterable[Sequence[Card]], *, wrap_around: bool = False, poker_kickers: bool = False
) -> list[int]:
    """``hand_score`` of each of ``hands``, in one pass: placements after a change of options score every hand.

    A hand's cards as digits, highest first, packed into one number hold its ranks in their high
    halves and its suits in their low halves. The ranks alone decide the category and the poker
    key but for a flush, so the part of the score they decide is worked out once per set of ranks
    and options (``_pattern_score``; there are 6,188 sets) and kept: a hand then costs a sort, a
    look-up and a comparison.
    """
    known = _PATTERNS[wrap_around, poker_kickers]
    digits_of = _DIGITS
    scores: list[int] = []
    for cards in hands:
        if len(cards) != HAND_SIZE:
            raise BadInputError(f"a hand is exactly {HAND_SIZE} cards, not {len(cards)}")
        digits = sorted([digits_of[c.rank][c.suit] for c in cards], reverse=True)
        packed = int.from_bytes(bytes(digits))
        ranks = packed & _RANK_HALVES
        parts = known.get(ranks)
        if parts is None:
            parts = known[ranks] = _pattern_score(ranks, wrap_around=wrap_around, poker_kickers=poker_kickers)
        part = parts[packed & _SUIT_HALVES == (digits[0] & 15) * _EVERY_DIGIT]
        scores.append(part if poker_kickers else part | packed)
    return scores


_EVERY_DIGIT = int.from_bytes(bytes([1] * HAND_SIZE))
_RANK_HALVES = 0xF0 * _EVERY_DIGIT
_SUIT_HALVES = 0x0F * _EVERY_DIGIT
_PATTERNS: dict[tuple[bool, bool], dict[int, tuple[int, int]]] = {
    (wrap, poker): {} for wrap in (False, True) for poker in (False, True)
}
"""By options, the ranks of the hands scored so far (``_RANK_HALVES`` of their packed digits) to
``_pattern_score``."""


def _pattern_score(ranks: int, *, wrap_around: bool, poker_kickers: bool) -> tuple[int, int]:
    """What ``ranks`` (a hand's packed digits' high halves) decide of its score: without one suit and with.

    Under the poker tie-break that is the whole score; under the literal one it is the category,
    and the digits themselves are the key. Worked out from tables, since the first placements
    after a change of options meet thousands of sets of ranks for the first time.
    """
    h0, h1, h2, h3, h4 = sixteenths = ranks.to_bytes(HAND_SIZE)  # 16 times each rank
    mask = (h0 == h1) | (h1 == h2) << 1 | (h2 == h3) << 2 | (h3 == h4) << 3
    if not mask:
        run_start = _RUN_BY_RANKS.get(ranks)
        if run_start is not None and (run_start <= 10 or wrap_around):
            return _RUN_PARTS[run_start][poker_kickers]
    plain, flush, flush_by_card, groups, padding = _MASK_PARTS[mask]
    if not poker_kickers:
        return plain, flush
    by_card = (ranks >> 4) + 16 * _EVERY_DIGIT  # each rank as a pair (1, rank)
    if not mask:
        return plain | by_card, flush | by_card
    by_group = int.from_bytes(bytes([size + (sixteenths[first] >> 4) for size, first in groups])) << padding
    return plain | by_group, flush | (by_card if flush_by_card else by_group)


def _mask_parts() -> dict[int, tuple[int, int, bool, tuple[tuple[int, int], ...], int]]:
    """By ``_GROUPS``' mask: the category's part of a score without one suit and with, whether the one
    suit makes it a flush compared card by card, the groups as (16 times the size, first position),
    and the bits the groups' key is shifted by (a zero digit for each group fewer than five)."""
    parts = {}
    for mask, (category, groups) in _GROUPS.items():
        flush = max(category, Category.FLUSH)
        parts[mask] = (
            int(category) << _KEY_BITS,
            int(flush) << _KEY_BITS,
            flush is Category.FLUSH,
            tuple((16 * size, first) for size, first in groups),
            _ELEMENT_BITS * (HAND_SIZE - len(groups)),
        )
    return parts


_MASK_PARTS = _mask_parts()
_RUN_PARTS = {
    start: (
        (Category.STRAIGHT << _KEY_BITS, Category.STRAIGHT_FLUSH << _KEY_BITS),
        (
            Category.STRAIGHT << _KEY_BITS | top << (_ELEMENT_BITS * (HAND_SIZE - 1)),
            Category.STRAIGHT_FLUSH << _KEY_BITS | top << (_ELEMENT_BITS * (HAND_SIZE - 1)),
        ),
    )
    for start in range(1, 14)
    for top in [16 + _poker_run_top(start)]
}
"""By the rank a run starts at, and then by ``poker_kickers``: ``_pattern_score`` of the run."""


_RUN_BY_RANKS = {
    int.from_bytes(bytes(sorted((_DIGITS[rank][0] & 0xF0 for rank in run), reverse=True))): start
    for run, start in _RUNS.items()
}
"""``_RUNS`` by the packed high halves of the run's digits (highest first), as ``hand_scores`` keeps them."""


def ranking_tag(*, wrap_around: bool, poker_kickers: bool) -> str:
    """Names the options a score was made under: a kept score counts only under the same tag.

    The options that change a hand's rank, and ``SCORE_VERSION``; a hand presented before a
    moderator or a proposal changed one of them is ranked again at placements.
    """
    return f"{SCORE_VERSION}:{'poker' if poker_kickers else 'literal'}{',wrap' if wrap_around else ''}"


def place_scores(scores: Mapping[str, int], rng: random.Random) -> list[tuple[str, int, bool]]:
    """Places 1..n as ``(player, score, coin_toss)``, best first; equal scores go by coin tosses.

    Players are sorted by name before anything else so that the mapping's order cannot change
    the result, and a given ``rng`` state always gives the same tosses: each group of equal
    scores, in name order, is shuffled once.
    """
    order = sorted(scores)
    order.sort(key=scores.__getitem__, reverse=True)  # stable: equal scores stay in name order
    placed: list[tuple[str, int, bool]] = []
    for score, group in groupby(order, key=scores.__getitem__):
        tied = list(group)
        if len(tied) == 1:
            placed.append((tied[0], score, False))
            continue
        rng.shuffle(tied)
        placed.extend((player, score, True) for player in tied)
    return placed


def place_hands(
    hands: Mapping[str, Sequence[Card]],
    rng: random.Random,
    *,
    wrap_around: bool = False,
    poker_kickers: bool = False,
) -> list[Placement]:
    """Places 1..n, best hand first; identical hands are ordered by coin tosses from ``rng``.

    The same places as ``place_scores`` on the hands' scores (placements use that directly, on
    scores kept since the hands were presented).
    """
    ranks = {p: rank_hand(cards, wrap_around=wrap_around, poker_kickers=poker_kickers) for p, cards in hands.items()}
    scores = {player: rank.score for player, rank in ranks.items()}
    return [
        Placement(place, player, ranks[player], tossed)
        for place, (player, _, tossed) in enumerate(place_scores(scores, rng), start=1)
    ]
