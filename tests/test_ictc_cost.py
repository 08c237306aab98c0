"""The cost grammar of ICTC cards and the output of Power cards: examples, errors, round trips."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from games.ictc.cost import MAX_OUTPUT, MAX_TERM, MAX_TOTAL, Cost, Output, parse_cost, parse_output
from games.ictc.errors import CardInputError
from games.ictc.palette import ORDER, Palette, colour_key

CLASSIC = Palette.CLASSIC.letters


@pytest.mark.parametrize(
    ("text", "coloured", "generic", "x"),
    [
        ("2K+4", (("K", 2),), 4, None),
        ("2R+X", (("R", 2),), 0, ""),
        ("XK", (), 0, "K"),
        ("0", (), 0, None),
        ("R", (("R", 1),), 0, None),
        ("+X", (), 0, ""),
        ("4+2k", (("K", 2),), 4, None),
        ("R + R + 1 + 2", (("R", 2),), 3, None),
        ("W+2R", (("R", 2), ("W", 1)), 0, None),
    ],
)
def test_the_seeds_examples_and_their_canonical_form(
    text: str, coloured: tuple[tuple[str, int], ...], generic: int, x: str | None
) -> None:
    cost = parse_cost(text, CLASSIC)
    assert cost.coloured == coloured
    assert cost.generic == generic
    assert cost.x == x
    assert parse_cost(cost.text(), CLASSIC) == cost


def test_canonical_text_puts_colours_first_then_any_colour_then_x() -> None:
    assert parse_cost("X+4+2K", CLASSIC).text() == "2K+4+X"
    assert parse_cost("1r", CLASSIC).text() == "R"
    assert parse_cost("2K+4", CLASSIC).total == 6
    assert parse_cost("2R+X", CLASSIC).total == 2, "X counts as 0"
    assert parse_cost("XK", CLASSIC).letters == frozenset({"K"})


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ("99999R", "too large"),
        ("21R", "too large"),
        ("20R+11", "too large"),
        ("X+XR", "at most one X"),
        ("0R", "asks for no power"),
        ("0+R", "stands alone"),
        ("2Y", "not a colour of this server"),
        ("2R++1", "empty term"),
        ("", "write the cost"),
        ("2X", "X stands alone"),
        ("R!", "cannot be read"),
        ("🔥", "cannot be read"),
        ("R" * 50, "too long"),
    ],
)
def test_bad_costs_are_refused_with_a_reason(text: str, says: str) -> None:
    with pytest.raises(CardInputError, match=says):
        parse_cost(text, CLASSIC)


def test_a_colour_of_another_palette_is_refused_in_this_one() -> None:
    assert parse_cost("Y", Palette.BRIGHT.letters).coloured == (("Y", 1),)
    with pytest.raises(CardInputError, match="R G K W B P"):
        parse_cost("Y", Palette.CLASSIC.letters)


@st.composite
def costs(draw: st.DrawFn) -> Cost:
    letters = draw(st.lists(st.sampled_from(ORDER), unique=True, max_size=4))
    counts = [draw(st.integers(1, 5)) for _ in letters]
    coloured = tuple(sorted(zip(letters, counts, strict=True), key=lambda kv: colour_key(kv[0])))
    generic = draw(st.integers(0, 6))
    x = draw(st.one_of(st.none(), st.just(""), st.sampled_from(ORDER)))
    return Cost(coloured=coloured, generic=generic, x=x)


@given(costs())
def test_printing_then_parsing_gives_the_same_cost(cost: Cost) -> None:
    assert parse_cost(cost.text()) == cost


@given(st.lists(st.sampled_from(["R", "2G", "K", "3", "X", "XB", "1", "P", "2W"]), min_size=1, max_size=5))
def test_any_accepted_text_prints_canonically_and_reads_back(terms: list[str]) -> None:
    text = "+".join(terms)
    try:
        cost = parse_cost(text)
    except CardInputError:
        assert sum(t.startswith("X") for t in terms) > 1, f"only a second X is refused: {text}"
        return
    assert parse_cost(cost.text()) == cost
    assert parse_cost(cost.text()).text() == cost.text()
    assert cost.total <= MAX_TOTAL


@given(st.text(max_size=30))
def test_no_text_crashes_the_cost_reader(text: str) -> None:
    try:
        cost = parse_cost(text, CLASSIC)
    except CardInputError:
        return
    assert cost.total <= MAX_TOTAL
    assert all(n <= MAX_TERM for _, n in cost.coloured)


def test_outputs_name_the_power_a_power_card_makes() -> None:
    assert parse_output("R", CLASSIC).text() == "R"
    assert parse_output("g/r", CLASSIC).text() == "R/G"
    assert parse_output("1+2G+R/G", CLASSIC).text() == "2G+R/G+1"
    assert parse_output("R/G/B", CLASSIC).total == 1
    with pytest.raises(CardInputError, match="no X"):
        parse_output("X", CLASSIC)
    with pytest.raises(CardInputError, match="too large"):
        parse_output("11", CLASSIC)
    with pytest.raises(CardInputError, match="twice"):
        parse_output("R/R", CLASSIC)


@st.composite
def outputs(draw: st.DrawFn) -> Output:
    keys = draw(st.lists(st.sampled_from(["R", "G", "K", "R/G", "G/B", "R/K/W", ""]), unique=True, min_size=1))
    units = {key: draw(st.integers(1, 2)) for key in keys}
    text = "+".join(str(n) if not k else (k if n == 1 else f"{n}{k}") for k, n in units.items())
    return parse_output(text) if sum(units.values()) <= MAX_OUTPUT else parse_output("R")


@given(outputs())
def test_printing_then_parsing_gives_the_same_output(output: Output) -> None:
    assert parse_output(output.text()) == output
