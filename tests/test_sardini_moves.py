"""The Move language of The Great Sardini is Dead: parsing, English, the set check, the exact "can this
hand still meet it" check (against brute force) and whole Tricks; and the 40 Trick cards as data."""

from __future__ import annotations

import random
from collections.abc import Sequence
from itertools import combinations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from games.sardini.cards import CODES, FULL, cards_of, mask, parse_card
from games.sardini.moves import Move, MoveSyntaxError, can_meet, explain, meets, parse, render_all
from games.sardini.plans import feasible, sets, solve
from games.sardini.tricks import TRICKS, CardSetError, read_tricks

SPEC_TEXTS = {
    "1W": "1 or more Wands",
    "1H": "1 or more Top Hats",
    "1S": "1 or more Stars",
    "1K": "1 or more Smoke",
    "2W": "1 or more cards ranked below 3",
    "2H": "2 cards adding up to 11",
    "2S": "2 cards in a run",
    "2K": "2 cards of the same rank",
    "3W": "1 Wand; 1 Top Hat; 1 Star; 1 Smoke",
    "3H": "1 Top Hat; 1 or more odd cards",
    "3S": "1 Star; 1 or more cards ranked 8 or higher",
    "3K": "1 Smoke; 1 or more even cards",
    "4W": "2 Wands; 1 or more cards ranked 5 or lower",
    "4H": "2 Top Hats; 1 or more cards ranked 6 or higher; 1 or more cards ranked 3 or lower",
    "4S": "3 cards of different suits",
    "4K": "2 Smoke; 1 or more cards ranked 7 or higher",
    "5W": "2 cards adding up to 11; 1 or more Wands",
    "5H": "2 cards of the same rank; 1 or more Top Hats",
    "5S": "2 Stars; 1 or more odd cards; 1 or more even cards",
    "5K": "3 cards of different ranks adding up to 15",
    "6W": "2 Wands; 2 cards in a run",
    "6H": "2 Top Hats; 2 cards of different suits; 1 or more cards ranked 3 or lower",
    "6S": "2 Stars; 2 cards adding up to 11",
    "6K": "2 Smoke; 2 cards of the same rank",
    "7W": "2 Wands; 2 cards of the same rank; 1 or more cards ranked below 3",
    "7H": "3 cards in a run; 2 cards of the same rank",
    "7S": "4 cards of different suits; 1 or more Stars",
    "7K": "2 cards of the same rank; 2 cards of the same rank",
    "8W": "2 Wands; 2 cards adding up to 11; 2 cards adding up to 9",
    "8H": "2 Top Hats; 2 cards of the same rank; 2 cards of the same rank",
    "8S": "2 Wands; 2 Top Hats; 2 Stars; 2 Smoke",
    "8K": "2 cards adding up to 11, three times",
    "9W": "3 Wands; 3 cards in a run; 2 cards adding up to 11",
    "9H": "3 Top Hats; 2 cards of the same rank; 2 cards of the same rank; 1 or more odd cards",
    "9S": "4 cards in a run; 2 Stars; 1 or more cards ranked below 3",
    "9K": "3 Smoke; 3 cards of different suits; 2 cards of the same rank",
    "10W": "3 cards in a run of one suit; 2 Wands; 2 cards of the same rank; 1 or more cards ranked 3 or lower",
    "10H": "3 cards of the same rank; 2 Top Hats; 1 or more cards ranked below 3",
    "10S": "4 cards in a run; 2 Stars; 3 cards of different suits; 1 or more cards ranked 8 or higher",
    "10K": "2 cards of the same rank; 3 Smoke; 2 cards adding up to 11; 1 or more cards ranked below 3",
}
"""The card text column of shared/games/sardini.md."""
SPEC_MIN_WON = dict(
    zip(
        SPEC_TEXTS,
        (
            *(2, 2, 2, 2, 2, 3, 3, 3, 5, 3, 3, 3, 4, 5, 4, 4, 4, 4, 5, 4),
            *(5, 6, 5, 5, 6, 6, 6, 5, 7, 7, 9, 7, 9, 9, 8, 9, 9, 7, 11, 9),
        ),
        strict=True,
    )
)

ALL_MOVES: list[Move] = list({m.source: m for trick in TRICKS.values() for m in trick.moves}.values())


def c(*names: str) -> list[int]:
    return [parse_card(n) for n in names]


def brute_can_meet(move: Move, hand: Sequence[int]) -> bool:
    fit = [x for x in hand if move.passes(x)]
    top = len(fit) if move.hi is None else min(move.hi, len(fit))
    return any(meets(move, combo) for size in range(move.lo, top + 1) for combo in combinations(fit, size))


def brute_solve(moves: Sequence[Move], hand: Sequence[int]) -> bool:
    """Whether disjoint subsets of ``hand`` meet every Move: every subset for the first Move, then the rest."""
    if not moves:
        return True
    first, rest = moves[0], moves[1:]
    fit = [x for x in hand if first.passes(x)]
    top = len(fit) if first.hi is None else min(first.hi, len(fit))
    for size in range(first.lo, top + 1):
        for combo in combinations(fit, size):
            if meets(first, combo) and brute_solve(rest, [x for x in hand if x not in combo]):
                return True
    return False


# --- the 40 cards as data ---------------------------------------------------------------------


def test_the_forty_tricks_load_with_the_card_texts_and_sizes_of_the_spec() -> None:
    assert len(TRICKS) == 40
    assert sorted(CODES[t] for t in TRICKS) == sorted(CODES)
    for card, trick in TRICKS.items():
        assert trick.card == card
        assert 1 <= len(trick.moves) <= 4
        assert trick.text() == SPEC_TEXTS[trick.code], trick.code
        assert trick.min_won == SPEC_MIN_WON[trick.code], trick.code
        assert all(can_meet(m, FULL) for m in trick.moves)
    assert TRICKS[parse_card("7H")].name == "Linking Rings"


@pytest.mark.parametrize(
    ("rows", "why"),
    [
        ([], "no \\[\\[trick\\]\\]"),
        ([{"card": "1W", "name": "A", "moves": ["1+ W"]}] * 2, "appears twice"),
        ([{"card": "1X", "name": "A", "moves": ["1+ W"]}], "not a card code"),
        ([{"card": "1W", "name": " ", "moves": ["1+ W"]}], "needs a name"),
        ([{"card": "1W", "name": "A", "moves": []}], "1 to 4 Moves"),
        ([{"card": "1W", "name": "A", "moves": ["1 W"] * 5}], "1 to 4 Moves"),
        ([{"card": "1W", "name": "A", "moves": ["2 sun=11"]}], "`sun=11` is not a term"),
        ([{"card": "1W", "name": "A", "moves": ["5 same-rank"]}], "no set of the 40 cards meets"),
        ([{"card": "1W", "name": "A", "moves": ["2 W r>10"]}], "no set of the 40 cards meets"),
        ([{"card": "1W", "name": "A", "moves": ["1 odd even"]}], "no set of the 40 cards meets"),
        ([{"card": "1W", "name": "A", "moves": ["1+ W"], "p4": 0.5}], "exactly `card`, `name` and `moves`"),
        ([{"card": "1W", "name": "A", "moves": ["1+ W"]}], "has 1 Tricks, not 40; missing 2W"),
    ],
)
def test_a_card_set_that_is_not_playable_is_refused_on_load(rows: list[dict[str, object]], why: str) -> None:
    data = {"trick": rows} if rows else {}
    with pytest.raises(CardSetError, match=why):
        read_tricks(data)


# --- parsing and English ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "english"),
    [
        ("3 W", "3 Wands"),
        ("2 sum=11", "2 cards adding up to 11"),
        ("1+ r<3", "1 or more cards ranked below 3"),
        ("1 K", "1 Smoke"),
        ("1 H|S", "1 Top Hat or Star"),
        ("2-3 odd W|K r>=2 r<=8", "2 to 3 odd Wands or Smoke ranked 2 or higher and 8 or lower"),
        ("2 same-suit sum<=7", "2 cards of the same suit adding up to 7 or less"),
        ("1 r=5", "1 card ranked 5"),
        ("3+ r>6 sum>20 sum<25", "3 or more cards ranked above 6 adding up to more than 20 and less than 25"),
        ("4   run", "4 cards in a run"),
    ],
)
def test_moves_read_and_are_written_in_english(text: str, english: str) -> None:
    move = parse(text)
    assert move.text() == english
    assert parse(move.source) == move, "the source is the Move, normalised"


def test_three_equal_moves_are_printed_once_with_a_count() -> None:
    assert render_all([parse("2 sum=11")] * 3) == "2 cards adding up to 11, three times"
    assert render_all([parse("2 same-rank")] * 2) == "2 cards of the same rank; 2 cards of the same rank"


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ("", "a Move is empty"),
        ("W 2", "starts with a count"),
        ("0 W", "must be 1 to 40"),
        ("3-2 W", "must be 1 to 40, low before high"),
        ("41 W", "must be 1 to 40"),
        ("2 sun=11", "`sun=11` is not a term"),
        ("2 w", "`w` is not a term"),
        ("2 r<<3", "`r<<3` is not a term"),
        ("3 run same-suit", "one shape at most, not `run` and `same-suit`"),
    ],
)
def test_a_move_that_cannot_be_read_says_which_word(text: str, said: str) -> None:
    with pytest.raises(MoveSyntaxError, match=said):
        parse(text)


@pytest.mark.parametrize(
    ("move", "cards", "why"),
    [
        ("2 sum=11", ["7W", "4S"], None),
        ("2 sum=11", ["7W", "7W"], "7W is named twice"),
        ("2 sum=11", ["7W"], "exactly 2 cards, not 1"),
        ("2 sum=11", ["7W", "5S"], "add up to 12: this Move asks for 2 cards adding up to 11"),
        ("1+ r<3", [], "at least 1 cards, not 0"),
        ("1+ r<3", ["1W", "2H", "1K"], None),
        ("1+ r<3", ["1W", "3H"], "3H does not fit this Move (1 or more cards ranked below 3)"),
        ("2-3 W", ["1H"], "2 to 3 cards, not 1"),
        ("3 W", ["1W", "2W", "4S"], "4S does not fit"),
        ("2 run", ["4W", "5H"], None),
        ("2 run", ["10W", "1H"], "not a run"),
        ("3 run", ["4W", "5H", "5S"], "not a run"),
        ("3 suited-run", ["4W", "5W", "6W"], None),
        ("3 suited-run", ["4W", "5W", "6H"], "not a run in one suit"),
        ("3 diff-suit", ["4W", "5H", "6W"], "share a suit"),
        ("3 diff-suit", ["4W", "5H", "6S"], None),
        ("2 same-rank", ["4W", "4H"], None),
        ("2 same-rank", ["4W", "5W"], "not all of one rank"),
        ("3 diff-rank sum=15", ["4W", "5H", "6S"], None),
        ("3 diff-rank sum=15", ["5W", "5H", "5S"], "share a rank"),
        ("2 same-suit", ["1W", "9W"], None),
        ("2 same-suit", ["1W", "9H"], "not all of one suit"),
        ("1 odd", ["2W"], "2W does not fit"),
    ],
)
def test_a_set_meets_a_move_or_is_told_why_not(move: str, cards: list[str], why: str | None) -> None:
    said = explain(parse(move), c(*cards))
    if why is None:
        assert said is None
    else:
        assert said is not None
        assert why in said


# --- can a hand still meet a Move: exact, against brute force ---------------------------------


def test_can_meet_agrees_with_brute_force_on_thousands_of_hands_for_every_trick_move() -> None:
    rng = random.Random(2005)
    agreed = 0
    for _ in range(3000):
        hand = rng.sample(range(40), rng.randint(0, 11))
        bits = mask(hand)
        for move in ALL_MOVES:
            assert can_meet(move, bits) == brute_can_meet(move, hand), (move.source, [CODES[x] for x in hand])
            agreed += 1
    assert agreed == 3000 * len(ALL_MOVES)


_COUNT = st.one_of(
    st.integers(1, 5).map(str),
    st.integers(1, 4).map(lambda n: f"{n}+"),
    st.tuples(st.integers(1, 3), st.integers(0, 3)).map(lambda p: f"{p[0]}-{p[0] + p[1]}"),
)
_TERM = st.one_of(
    st.sets(st.sampled_from("WHSK"), min_size=1, max_size=3).map(lambda s: "|".join(sorted(s))),
    st.tuples(st.sampled_from(["=", "<", "<=", ">", ">="]), st.integers(1, 10)).map(lambda p: f"r{p[0]}{p[1]}"),
    st.sampled_from(["odd", "even"]),
    st.tuples(st.sampled_from(["=", "<", "<=", ">", ">="]), st.integers(2, 30)).map(lambda p: f"sum{p[0]}{p[1]}"),
)
_SHAPE = st.sampled_from(["", "same-suit", "diff-suit", "same-rank", "diff-rank", "run", "suited-run"])


@settings(max_examples=400, deadline=None)
@given(
    count=_COUNT,
    terms=st.lists(_TERM, max_size=3),
    shape=_SHAPE,
    hand=st.lists(st.integers(0, 39), max_size=10, unique=True),
)
def test_can_meet_agrees_with_brute_force_for_any_move(
    count: str, terms: list[str], shape: str, hand: list[int]
) -> None:
    move = parse(" ".join([count, *terms, shape]))
    assert can_meet(move, mask(hand)) == brute_can_meet(move, hand)
    assert move.text()  # every Move has words
    for found in sets(move, mask(hand)):
        assert meets(move, cards_of(found)), "every set listed meets the Move"


# --- whole Tricks ------------------------------------------------------------------------------


@settings(max_examples=300, deadline=None)
@given(trick=st.sampled_from(sorted(TRICKS)), hand=st.lists(st.integers(0, 39), max_size=9, unique=True))
def test_solve_finds_a_plan_exactly_when_brute_force_does(trick: int, hand: list[int]) -> None:
    moves = TRICKS[trick].moves
    plan = solve(moves, mask(hand), budget=10**7)
    assert (plan is not None) == brute_solve(moves, hand)
    if plan is not None:
        used = 0
        for move, found in zip(moves, plan, strict=True):
            assert found & ~mask(hand) == 0, "only cards of the hand"
            assert found & used == 0, "a card serves one Move only"
            assert meets(move, cards_of(found))
            used |= found


def test_big_hands_find_plans_for_the_hardest_tricks() -> None:
    rng = random.Random(7)
    performed = 0
    for _ in range(200):
        hand = mask(rng.sample(range(40), 30))
        for card in (parse_card("10S"), parse_card("9H"), parse_card("10W"), parse_card("8S")):
            performed += feasible(TRICKS[card].moves, hand)
    assert performed > 600, "thirty cards perform almost any Trick"
