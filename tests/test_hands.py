"""Hand ranking and placement: categories, both tie-break rules, wrap-around and coin tosses."""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Mapping, Sequence
from itertools import groupby, pairwise

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from games.nomic.cards import Card, Suit, sort_cards
from games.nomic.errors import BadInputError
from games.nomic.hands import (
    Category,
    HandRank,
    Placement,
    hand_score,
    hand_scores,
    place_hands,
    place_scores,
    rank_hand,
    ranking_tag,
    score_category,
    score_label,
)

C = Category


def hand(text: str) -> list[Card]:
    return [Card.parse(code) for code in text.split()]


def rank(text: str, *, wrap: bool = False, poker: bool = False) -> HandRank:
    return rank_hand(hand(text), wrap_around=wrap, poker_kickers=poker)


def category(text: str, *, wrap: bool = False) -> Category:
    return rank(text, wrap=wrap).category


# --- categories ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # each category, followed by a near miss
        ("7S 7S 7H 7C 7D", C.FIVE_OF_A_KIND),
        ("7S 7S 7H 7C 8D", C.FOUR_OF_A_KIND),
        ("5H 6H 7H 8H 9H", C.STRAIGHT_FLUSH),
        ("5H 6H 7H 8H 9S", C.STRAIGHT),
        ("5H 6H 7H 8H 10H", C.FLUSH),
        ("9D 9S 9H 9C KD", C.FOUR_OF_A_KIND),
        ("9D 9S 9H KC KD", C.FULL_HOUSE),
        ("9D 9S 9H KC QD", C.THREE_OF_A_KIND),
        ("2C 7C 9C JC KC", C.FLUSH),
        ("2C 7C 9C JC KD", C.HIGH_CARD),
        ("6D 7S 8H 9C 10D", C.STRAIGHT),
        ("6D 7S 8H 9C JD", C.HIGH_CARD),
        ("4S 4H 4D 9C 2D", C.THREE_OF_A_KIND),
        ("4S 4H 9D 9C 2D", C.TWO_PAIR),
        ("4S 4H 9D 3C 2D", C.ONE_PAIR),
        ("4S 5H 9D 3C 2D", C.HIGH_CARD),
        # five same-suit cards with a pair are a flush, not a pair
        ("2H 2H 5H 9H KH", C.FLUSH),
        ("2H 2H 5H 5H KH", C.FLUSH),
        ("2H 2H 2H 5H KH", C.FLUSH),
        # ... but full house and four of a kind stay above flush
        ("2H 2H 2H 5H 5H", C.FULL_HOUSE),
        ("2H 2H 2H 2H 5H", C.FOUR_OF_A_KIND),
        # five identical rolled cards
        ("QD QD QD QD QD", C.FIVE_OF_A_KIND),
        # ace low and ace high
        ("AS 2H 3D 4C 5C", C.STRAIGHT),
        ("AS 2S 3S 4S 5S", C.STRAIGHT_FLUSH),
        ("10S JH QD KC AC", C.STRAIGHT),
        ("10D JD QD KD AD", C.STRAIGHT_FLUSH),
        # a pair breaks a run
        ("AS 2H 3D 4C 4D", C.ONE_PAIR),
        ("9S 10H JD QC QD", C.ONE_PAIR),
        # the ace is either high or low, never both, without wrap-around
        ("QS KH AD 2C 3C", C.HIGH_CARD),
        ("JS QH KD AC 2C", C.HIGH_CARD),
        ("KS AH 2D 3C 4C", C.HIGH_CARD),
        ("JS QS KS AS 2S", C.FLUSH),
    ],
)
def test_category(text: str, expected: Category) -> None:
    assert category(text) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("JS QH KD AC 2C", C.STRAIGHT),
        ("QS KH AD 2C 3C", C.STRAIGHT),
        ("KS AH 2D 3C 4C", C.STRAIGHT),
        ("JS QS KS AS 2S", C.STRAIGHT_FLUSH),
        ("KS AH 2D 3C 5C", C.HIGH_CARD),
        ("QS KH 2D 3C 4C", C.HIGH_CARD),
        ("AS 2H 3D 4C 5C", C.STRAIGHT),
        ("10S JH QD KC AC", C.STRAIGHT),
    ],
)
def test_wrap_around_on(text: str, expected: Category) -> None:
    assert category(text, wrap=True) == expected


def test_category_order_and_labels() -> None:
    assert list(Category) == sorted(Category)
    assert int(C.HIGH_CARD) == 1
    assert int(C.FIVE_OF_A_KIND) == 10
    assert C.FIVE_OF_A_KIND.label == "Five of a Kind"
    assert C.STRAIGHT_FLUSH.label == "Straight Flush"
    assert C.FOUR_OF_A_KIND.label == "Four of a Kind"
    assert C.FULL_HOUSE.label == "Full House"
    assert C.THREE_OF_A_KIND.label == "Three of a Kind"
    assert C.TWO_PAIR.label == "Two Pair"
    assert C.ONE_PAIR.label == "One Pair"
    assert C.HIGH_CARD.label == "High Card"
    assert len({c.label for c in Category}) == len(Category)


@pytest.mark.parametrize("size", [0, 4, 6])
def test_wrong_size_is_rejected(size: int) -> None:
    with pytest.raises(BadInputError):
        rank_hand([Card(2, Suit.SPADES)] * size)


def test_categories_outrank_each_other() -> None:
    ladder = [
        "2S 4H 6D 8C 10C",
        "2S 2H 6D 8C 10C",
        "2S 2H 6D 6C 10C",
        "2S 2H 2D 6C 10C",
        "AS 2H 3D 4C 5C",
        "2S 4S 6S 8S 10S",
        "2S 2H 2D 6C 6D",
        "2S 2H 2D 2C 6D",
        "AS 2S 3S 4S 5S",
        "2S 2S 2S 2S 2S",
    ]
    ranks = [rank(text) for text in ladder]
    assert [r.category for r in ranks] == list(Category)
    assert ranks == sorted(ranks)
    # the weakest hand of a category beats the strongest of the one below
    assert rank("2D 3D 4D 5D 7D") > rank("10S JS QS KS AH")
    assert rank("2D 2C 2H 2S 3D") > rank("AS AS AH KS KS")


# --- literal tie-break ----------------------------------------------------------------------


def test_pair_of_twos_with_ace_beats_pair_of_kings() -> None:
    twos = rank("AS 2H 2D 5C 7C")
    kings = rank("KS KH QD 5C 7C")
    assert twos.category == kings.category == C.ONE_PAIR
    assert twos > kings


def test_ace_low_straight_beats_king_high_straight() -> None:
    wheel = rank("AS 2H 3D 4C 5C")
    king_high = rank("KS QH JD 10C 9C")
    assert wheel.category == king_high.category == C.STRAIGHT
    assert wheel > king_high
    assert rank("10S JH QD KC AS") > wheel
    # same ace: the suit of the ace decides before the rest
    assert rank("10S JH QD KC AC") < wheel


def test_wrapped_straight_literal_order() -> None:
    # highest card first: both hold the ace of spades, then K beats 5
    assert rank("KS AS 2D 3C 4C", wrap=True) > rank("AS 2H 3D 4C 5C", wrap=True)


def test_suit_breaks_ties() -> None:
    spade_high = rank("KS 9H 7C 5D 3D")
    heart_high = rank("KH 9S 7C 5D 3D")
    assert spade_high > heart_high
    # the first differing card decides even when a later card is better
    assert rank("QS JD 8D 6D 4D") > rank("QH JS 8S 6S 4S")
    # rank still comes before suit
    assert rank("KD 9D 7C 5D 3D") > rank("QS 9S 7S 5S 3H")


def test_equal_only_when_cards_are_equal() -> None:
    a = rank("KS 9H 7C 5D 3D")
    b = rank("3D 5D 7C 9H KS")
    assert a == b
    assert a.cards == b.cards
    assert rank("AS 2H 2D 5C 7C") != rank("AS 2H 2C 5C 7C")


def test_cards_are_kept_highest_first_and_do_not_compare() -> None:
    r = rank("3D KS 7C 9H 5D")
    assert [c.code for c in r.cards] == ["KS", "9H", "7C", "5D", "3D"]
    assert r.label == "High Card"


def test_full_house_literal_order_uses_highest_card() -> None:
    assert rank("2S 2H 2D AC AD") > rank("3S 3H 3D 2C 2D")
    assert rank("2S 2H AD AC 5D") > rank("KS KH QD QC 5D")


# --- poker kickers --------------------------------------------------------------------------


def test_poker_kickers_flip_the_pair_example() -> None:
    assert rank("KS KH QD 5C 7C", poker=True) > rank("AS 2H 2D 5C 7C", poker=True)


def test_poker_kickers_group_ranks() -> None:
    assert rank("3S 3H 3D 2C 2D", poker=True) > rank("2S 2H 2D AC AD", poker=True)
    assert rank("KS KH 2D 2C 5D", poker=True) > rank("QS QH JD JC AD", poker=True)
    assert rank("KS KH 3D 3C 2D", poker=True) > rank("KS KH 2D 2C AD", poker=True)
    assert rank("KS KH 3D 3C 5D", poker=True) > rank("KS KH 3D 3C 4D", poker=True)
    assert rank("5S 5H 5D 5C 2D", poker=True) > rank("4S 4H 4D 4C AD", poker=True)
    assert rank("9S 9H 4D 3C 2D", poker=True) > rank("8S 8H AD KC QD", poker=True)
    assert rank("9S 9H 5D 3C 2D", poker=True) > rank("9S 9H 4D 3C 2D", poker=True)
    assert rank("AS AS AS AS AS", poker=True) > rank("KS KS KS KS KS", poker=True)


def test_poker_kickers_ignore_suits() -> None:
    assert rank("KS 9H 7C 5D 3D", poker=True) == rank("KH 9S 7D 5C 3C", poker=True)
    assert rank("AS 2H 2D 5C 7C", poker=True) == rank("AD 2C 2S 5H 7H", poker=True)
    assert rank("2H 4H 6H 8H 10H", poker=True) == rank("2S 4S 6S 8S 10S", poker=True)
    # the category still sees the suits
    assert rank("2H 4H 6H 8H 10H", poker=True) > rank("2S 4H 6H 8H 10H", poker=True)


def test_poker_kickers_flush_compares_high_to_low() -> None:
    assert rank("AH 9H 7H 5H 3H", poker=True) > rank("KS KS 9S 5S 3S", poker=True)
    assert rank("KH 9H 7H 5H 4H", poker=True) > rank("KS 9S 7S 5S 3S", poker=True)


def test_poker_kickers_straights_by_top_card() -> None:
    wheel = rank("AS 2H 3D 4C 5C", poker=True)
    six_high = rank("2S 3H 4D 5C 6C", poker=True)
    king_high = rank("KS QH JD 10C 9C", poker=True)
    ace_high = rank("10S JH QD KC AC", poker=True)
    assert wheel < six_high < king_high < ace_high
    assert rank("AS 2S 3S 4S 5S", poker=True) < rank("2H 3H 4H 5H 6H", poker=True)


def test_poker_kickers_wrapped_straights_rank_below_the_wheel() -> None:
    def r(text: str) -> HandRank:
        return rank(text, wrap=True, poker=True)

    wheel = r("AS 2H 3D 4C 5C")
    four_high = r("KS AH 2D 3C 4C")
    three_high = r("QS KH AD 2C 3C")
    two_high = r("JS QH KD AC 2C")
    assert all(x.category == C.STRAIGHT for x in (wheel, four_high, three_high, two_high))
    assert two_high < three_high < four_high < wheel
    assert r("KD AD 2D 3D 4D") < r("AH 2H 3H 4H 5H")
    # still a straight: above any three of a kind
    assert two_high > r("AS AH AD KC QC")


# --- placements -----------------------------------------------------------------------------


TIED_HANDS = {
    "alice": hand("AS 2H 2D 5C 7C"),
    "bob": hand("7C 5C 2D 2H AS"),
    "carol": hand("AS 2H 2D 5C 7C"),
    "dave": hand("9S 9H 9D 4C 4D"),
    "erin": hand("3S 5H 7D 9C JD"),
}


def test_place_hands_orders_best_first() -> None:
    result = place_hands(TIED_HANDS, random.Random(1))
    assert [p.place for p in result] == [1, 2, 3, 4, 5]
    assert result[0] == Placement(1, "dave", rank("9S 9H 9D 4C 4D"), coin_toss=False)
    assert {p.player for p in result[1:4]} == {"alice", "bob", "carol"}
    assert all(p.coin_toss for p in result[1:4])
    assert result[4].player == "erin"
    assert not result[4].coin_toss


def test_place_hands_is_deterministic_per_seed_and_ignores_input_order() -> None:
    reversed_hands = dict(reversed(list(TIED_HANDS.items())))
    for seed in range(20):
        first = place_hands(TIED_HANDS, random.Random(seed))
        assert place_hands(TIED_HANDS, random.Random(seed)) == first
        assert place_hands(reversed_hands, random.Random(seed)) == first


def test_coin_toss_winner_depends_on_seed() -> None:
    hands = {name: hand("KS KH QD 5C 7C") for name in ("alice", "bob", "carol")}
    winners = {place_hands(hands, random.Random(seed))[0].player for seed in range(40)}
    assert winners == {"alice", "bob", "carol"}


def test_no_toss_without_ties() -> None:
    hands = {"bob": hand("KS 9H 7C 5D 3D"), "alice": hand("KH 9S 7C 5D 3D")}
    for seed in range(10):
        result = place_hands(hands, random.Random(seed))
        assert [(p.player, p.coin_toss) for p in result] == [("bob", False), ("alice", False)]


def test_poker_kickers_ties_go_to_a_toss() -> None:
    hands = {"bob": hand("KS 9H 7C 5D 3D"), "alice": hand("KH 9S 7C 5D 3D")}
    winners = set()
    for seed in range(40):
        result = place_hands(hands, random.Random(seed), poker_kickers=True)
        assert all(p.coin_toss for p in result)
        winners.add(result[0].player)
    assert winners == {"alice", "bob"}


def test_place_hands_passes_options() -> None:
    hands = {"wrap": hand("QS KH AD 2C 3C"), "trips": hand("AS AH AD KC QC")}
    assert place_hands(hands, random.Random(0))[0].player == "trips"
    assert place_hands(hands, random.Random(0), wrap_around=True)[0].player == "wrap"
    kickers = {"twos": hand("AS 2H 2D 5C 7C"), "kings": hand("KS KH QD 5C 7C")}
    assert place_hands(kickers, random.Random(0))[0].player == "twos"
    assert place_hands(kickers, random.Random(0), poker_kickers=True)[0].player == "kings"


def test_place_hands_empty_and_bad_hand() -> None:
    assert place_hands({}, random.Random(0)) == []
    with pytest.raises(BadInputError):
        place_hands({"alice": hand("AS 2H 2D 5C")}, random.Random(0))


# --- properties -----------------------------------------------------------------------------


@st.composite
def hands(draw: st.DrawFn) -> list[Card]:
    """Five rolled cards, often drawn from few suits or a narrow window of ranks.

    Uniform rolls almost never make straights or flushes, so the pools are narrowed at times
    and some hands are built as runs.
    """
    if draw(st.booleans()):
        ranks = list(range(1, 14))
    else:
        start = draw(st.integers(1, 13))
        width = draw(st.integers(1, 7))
        ranks = [(start - 1 + i) % 13 + 1 for i in range(width)]
    suits = draw(st.sampled_from([list(Suit), [Suit.HEARTS], [Suit.SPADES, Suit.DIAMONDS]]))
    card = st.builds(Card, st.sampled_from(ranks), st.sampled_from(suits))
    if draw(st.integers(0, 2)) == 0:
        # a run of five (perhaps wrapping), sometimes spoiled by one rerolled card
        start = draw(st.integers(1, 13))
        run = [Card((start - 1 + i) % 13 + 1, draw(st.sampled_from(suits))) for i in range(5)]
        if draw(st.booleans()):
            run[draw(st.integers(0, 4))] = draw(card)
        return run
    return draw(st.lists(card, min_size=5, max_size=5))


def brute_category(cards: list[Card], *, wrap: bool) -> Category:
    """An independent classifier: count patterns, and runs found by rotating the rank circle."""
    pattern = tuple(sorted(Counter(c.rank for c in cards).values(), reverse=True))
    ranks = {c.rank for c in cards}
    flush = len({c.suit for c in cards}) == 1
    run = False
    if len(ranks) == 5:
        for shift in range(13):
            rotated = sorted((r + shift) % 13 for r in ranks)
            if rotated == list(range(rotated[0], rotated[0] + 5)):
                # a wrapping run holds both the king and the two
                run = wrap or not {13, 2} <= ranks
    by_pattern = {
        (5,): C.FIVE_OF_A_KIND,
        (4, 1): C.FOUR_OF_A_KIND,
        (3, 2): C.FULL_HOUSE,
        (3, 1, 1): C.THREE_OF_A_KIND,
        (2, 2, 1): C.TWO_PAIR,
        (2, 1, 1, 1): C.ONE_PAIR,
        (1, 1, 1, 1, 1): C.HIGH_CARD,
    }
    base = by_pattern[pattern]
    candidates = [base]
    if run and flush:
        candidates.append(C.STRAIGHT_FLUSH)
    if run:
        candidates.append(C.STRAIGHT)
    if flush:
        candidates.append(C.FLUSH)
    return max(candidates)


@given(hands(), st.booleans(), st.booleans())
def test_category_matches_brute_force(cards: list[Card], wrap: bool, poker: bool) -> None:
    assert rank_hand(cards, wrap_around=wrap, poker_kickers=poker).category == brute_category(
        cards, wrap=wrap
    )


@given(hands(), st.booleans(), st.booleans(), st.data())
def test_rank_is_invariant_under_permutation(
    cards: list[Card], wrap: bool, poker: bool, data: st.DataObject
) -> None:
    shuffled = data.draw(st.permutations(cards))
    a = rank_hand(cards, wrap_around=wrap, poker_kickers=poker)
    b = rank_hand(shuffled, wrap_around=wrap, poker_kickers=poker)
    assert a == b
    assert a.cards == b.cards


@given(hands(), st.booleans(), st.permutations(list(Suit)))
def test_poker_kickers_ignore_suit_relabelling(cards: list[Card], wrap: bool, order: list[Suit]) -> None:
    relabel = dict(zip(Suit, order, strict=True))
    other = [Card(c.rank, relabel[c.suit]) for c in cards]
    assert rank_hand(cards, wrap_around=wrap, poker_kickers=True) == rank_hand(
        other, wrap_around=wrap, poker_kickers=True
    )


@given(hands(), hands(), st.booleans())
def test_literal_order_within_a_category_is_card_by_card(a: list[Card], b: list[Card], wrap: bool) -> None:
    ra = rank_hand(a, wrap_around=wrap)
    rb = rank_hand(b, wrap_around=wrap)
    assume(ra.category == rb.category)
    sa = sorted((c.strength for c in a), reverse=True)
    sb = sorted((c.strength for c in b), reverse=True)
    assert (ra < rb) == (sa < sb)
    assert (ra == rb) == (sa == sb)


@given(hands(), st.integers(0, 4), st.data(), st.booleans())
def test_never_below_a_dominated_hand(cards: list[Card], index: int, data: st.DataObject, wrap: bool) -> None:
    """Weakening one card makes a hand that is dominated card by card; it must not rank higher."""
    old = cards[index]
    weaker = [Card(r, s) for r in range(1, 14) for s in Suit if Card(r, s).strength < old.strength]
    assume(weaker)
    lowered = [*cards[:index], data.draw(st.sampled_from(weaker)), *cards[index + 1 :]]
    top = sorted((c.strength for c in cards), reverse=True)
    low = sorted((c.strength for c in lowered), reverse=True)
    assert all(x >= y for x, y in zip(top, low, strict=True))
    assert top != low
    strong = rank_hand(cards, wrap_around=wrap)
    weak = rank_hand(lowered, wrap_around=wrap)
    if strong.category == weak.category:
        assert strong > weak


@given(
    st.dictionaries(st.text(min_size=1, max_size=4), hands(), max_size=8),
    st.integers(0, 2**32),
    st.booleans(),
    st.booleans(),
)
def test_places_are_one_to_n(table: dict[str, list[Card]], seed: int, wrap: bool, poker: bool) -> None:
    result = place_hands(table, random.Random(seed), wrap_around=wrap, poker_kickers=poker)
    assert [p.place for p in result] == list(range(1, len(table) + 1))
    assert sorted(p.player for p in result) == sorted(table)
    assert all(x.rank >= y.rank for x, y in pairwise(result))
    for p in result:
        assert p.rank == rank_hand(table[p.player], wrap_around=wrap, poker_kickers=poker)
        tied = sum(q.rank == p.rank for q in result) > 1
        assert p.coin_toss == tied
    assert (
        place_hands(
            dict(reversed(list(table.items()))), random.Random(seed), wrap_around=wrap, poker_kickers=poker
        )
        == result
    )


@given(hands(), st.booleans(), st.booleans())
def test_cards_and_literal_key_follow_the_card_order(cards: list[Card], wrap: bool, poker: bool) -> None:
    rank = rank_hand(cards, wrap_around=wrap, poker_kickers=poker)
    assert rank.cards == sort_cards(cards)
    if not poker:
        assert rank.key == tuple(c.strength for c in sort_cards(cards))
    # presented hands are stored highest first: the same rank from that order
    again = rank_hand(sort_cards(cards), wrap_around=wrap, poker_kickers=poker)
    assert again == rank
    assert again.cards == rank.cards


def places_by_comparing_ranks(
    table: Mapping[str, Sequence[Card]], rng: random.Random, *, wrap: bool = False, poker: bool = False
) -> list[Placement]:
    """Placements as first written: sort the ranks themselves, toss within groups of equal ranks."""
    ranked = [(player, rank_hand(table[player], wrap_around=wrap, poker_kickers=poker)) for player in sorted(table)]
    ranked.sort(key=lambda pair: pair[1], reverse=True)
    placements: list[Placement] = []
    for _, group in groupby(ranked, key=lambda pair: pair[1]):
        tied = list(group)
        if len(tied) > 1:
            rng.shuffle(tied)
        placements.extend(Placement(len(placements) + 1, p, r, len(tied) > 1) for p, r in tied)
    return placements


@given(
    st.dictionaries(st.text(min_size=1, max_size=3), hands(), max_size=12),
    st.integers(0, 2**32),
    st.booleans(),
    st.data(),
)
def test_places_equal_sorting_the_ranks_themselves(
    table: dict[str, list[Card]], seed: int, poker: bool, data: st.DataObject
) -> None:
    if table and data.draw(st.booleans()):
        # copies of one hand, so that coin tosses happen
        first = next(iter(table.values()))
        table = {p: (first if data.draw(st.booleans()) else h) for p, h in table.items()}
    got = place_hands(table, random.Random(seed), poker_kickers=poker)
    assert got == places_by_comparing_ranks(table, random.Random(seed), poker=poker)


def test_card_tables_agree_with_their_definitions() -> None:
    """``Card.strength`` and ``Card.code`` are read from tables; they must say what the parts say."""
    for rank in range(1, 14):
        for suit in Suit:
            card = Card(rank, suit)
            assert card.strength == (card.high, suit.strength)
            assert type(card.strength[1]) is int
            assert card.code == f"{card.rank_name}{suit.letter}"
            assert Card.parse(card.code) == card


# --- scores: the rank as one number, kept with a presented hand --------------------------------


@given(hands(), hands(), st.booleans(), st.booleans())
def test_scores_order_and_tie_exactly_as_ranks(a: list[Card], b: list[Card], wrap: bool, poker: bool) -> None:
    ra = rank_hand(a, wrap_around=wrap, poker_kickers=poker)
    rb = rank_hand(b, wrap_around=wrap, poker_kickers=poker)
    assert (ra.score < rb.score) == (ra < rb)
    assert (ra.score == rb.score) == (ra == rb)
    assert score_category(ra.score) is ra.category
    assert score_label(ra.score) == ra.label


@given(hands(), st.booleans(), st.booleans(), st.data())
def test_hand_score_is_the_rank_s_score(cards: list[Card], wrap: bool, poker: bool, data: st.DataObject) -> None:
    """The fast form equals the readable one, whatever order the cards come in."""
    shuffled = data.draw(st.permutations(cards))
    expected = rank_hand(cards, wrap_around=wrap, poker_kickers=poker).score
    assert hand_score(shuffled, wrap_around=wrap, poker_kickers=poker) == expected


@given(st.lists(hands(), min_size=1, max_size=8), st.booleans(), st.booleans(), st.data())
def test_hand_scores_are_the_ranks(batch: list[list[Card]], wrap: bool, poker: bool, data: st.DataObject) -> None:
    """Scoring many hands at once, with what is kept from hands scored before, agrees with the readable form.

    Each hand comes once more in one suit: the same ranks with and without a flush share what is
    kept of their ranks, and must not share a score.
    """
    suit = data.draw(st.sampled_from(list(Suit)))
    alike = [[Card(c.rank, suit) for c in cards] for cards in batch]
    mixed = [cards for pair in zip(batch, alike, strict=True) for cards in pair]
    expected = [rank_hand(cards, wrap_around=wrap, poker_kickers=poker).score for cards in mixed]
    assert hand_scores(mixed, wrap_around=wrap, poker_kickers=poker) == expected


@pytest.mark.parametrize(
    ("higher", "lower", "wrap", "poker"),
    [
        ("AS 2H 2D 5C 7C", "KS KH QD 5C 7C", False, False),  # card by card: the ace decides
        ("KS KH QD 5C 7C", "AS 2H 2D 5C 7C", False, True),  # poker: the pair decides
        ("QS KH AD 2C 3C", "AS AH AD KC QC", True, False),  # wrap-around: a straight
        ("AS AH AD KC QC", "QS KH AD 2C 3C", False, False),
        ("AS 2H 3D 4C 5C", "JS QH KD AC 2C", True, True),  # every wrapped run ranks below A-5
        ("2S 3S 4S 5S 6S", "AS 2S 3S 4S 5S", False, True),
        ("9S 9S 9H 9C 3D", "9S 9H 9C 9D 2S", False, True),  # four of a kind: then the kicker, by rank only
    ],
)
def test_scores_follow_the_options(higher: str, lower: str, wrap: bool, poker: bool) -> None:
    assert hand_score(hand(higher), wrap_around=wrap, poker_kickers=poker) > hand_score(
        hand(lower), wrap_around=wrap, poker_kickers=poker
    )


def test_poker_kickers_tie_what_the_literal_order_separates() -> None:
    fours = [hand("9C 9D 9H 9S 2D"), hand("9C 9D 9H 9S 2H")]
    assert hand_score(fours[0], poker_kickers=True) == hand_score(fours[1], poker_kickers=True)
    assert hand_score(fours[0]) != hand_score(fours[1])


def test_ranking_tags_name_every_option_set_apart() -> None:
    tags = {ranking_tag(wrap_around=w, poker_kickers=p) for w in (False, True) for p in (False, True)}
    assert len(tags) == 4


def test_hand_score_refuses_a_wrong_size() -> None:
    with pytest.raises(BadInputError):
        hand_score(hand("AS 2H 2D 5C"))


@given(
    st.dictionaries(st.text(min_size=1, max_size=3), st.integers(0, 5), max_size=12),
    st.integers(0, 2**32),
)
def test_place_scores_tosses_within_equal_scores(scores: dict[str, int], seed: int) -> None:
    placed = place_scores(scores, random.Random(seed))
    assert sorted(p for p, _, _ in placed) == sorted(scores)
    assert [s for _, s, _ in placed] == sorted(scores.values(), reverse=True)
    for player, score, tossed in placed:
        assert scores[player] == score
        assert tossed == (list(scores.values()).count(score) > 1)
    assert place_scores(dict(reversed(list(scores.items()))), random.Random(seed)) == placed
