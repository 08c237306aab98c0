"""The rule language alone: reading blocks, refusing what cannot be read or could run too long, and
running programs over plain views (no round, no store)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from games.nomic.errors import BadInputError
from games.nomic.hands import Category
from games.nomic.rulelang import (
    RUN_BUDGET,
    Announcement,
    Change,
    Occasion,
    Program,
    RuleBlockError,
    Stopped,
    Transfer,
    Trigger,
    Use,
    check_block,
)
from games.nomic.rulelang.program import POINTS, SPM
from games.nomic.rulelang.run import run
from games.nomic.rulelang.syntax import MAX_SOURCE, PLANNED_PLAYERS

JUDGE_BONUS = """\
when an auction phase starts:
  the judge gains 20 points
"""
FIVE_OF_A_KIND = """\
when a hand is presented:
  if its category is five of a kind:
    the player gains 1 Standard Proposal-Maker
"""
FAILED_PROPOSAL = """\
when a proposal fails:
  its proposer loses 5 points
"""
NO_BID_TAX = """\
when an auction phase ends:
  every player who bid on no lot loses 10 points
"""
EXAMPLES = (JUDGE_BONUS, FIVE_OF_A_KIND, FAILED_PROPOSAL, NO_BID_TAX)


@dataclass
class FakeView:
    """A round as the language sees it, written out by hand."""

    points_of: dict[str, int] = field(default_factory=dict)
    items_of: dict[str, dict[str, int]] = field(default_factory=dict)
    judge_id: str | None = None
    phase_name: str = "auction"
    places: dict[str, int] = field(default_factory=dict)
    bids: dict[str, int] = field(default_factory=dict)

    def player_ids(self) -> Sequence[str]:
        return sorted(self.points_of)

    def is_player(self, player: str) -> bool:
        return player in self.points_of

    def points(self, player: str) -> int:
        return self.points_of.get(player, 0)

    def held(self, player: str, item: str) -> int:
        return self.items_of.get(player, {}).get(item, 0)

    def judge(self) -> str | None:
        return self.judge_id

    def phase(self) -> str:
        return self.phase_name

    def place(self, player: str) -> int | None:
        return self.places.get(player)

    def lots_bid_on(self, player: str) -> int:
        return self.bids.get(player, 0)


def refused(source: str, line: int, column: int, words: str) -> RuleBlockError:
    with pytest.raises(RuleBlockError) as info:
        check_block(source)
    error = info.value
    assert (error.line, error.column) == (line, column), str(error)
    assert words in error.reason, str(error)
    assert str(error).startswith(f"rule block, line {line}, column {column}: ")
    return error


# --- the four rules the round must carry ------------------------------------------------------------


def test_the_judge_gains_at_the_auction_start() -> None:
    program = check_block(JUDGE_BONUS)
    view = FakeView({"alice": 5, "bob": 0}, judge_id="alice")
    assert run(program, Occasion(Trigger.AUCTION_STARTS), view, rule="4.5") == [Change("4.5", "alice", POINTS, 20)]
    assert run(program, Occasion(Trigger.AUCTION_ENDS), view) == [], "another trigger wakes nothing"
    assert run(program, Occasion(Trigger.AUCTION_STARTS), FakeView({"alice": 5})) == [], "no judge: nobody gains"


def test_a_five_of_a_kind_earns_a_proposal_maker() -> None:
    program = check_block(FIVE_OF_A_KIND)
    view = FakeView({"alice": 0, "bob": 0})
    five = Occasion(Trigger.HAND_PRESENTED, player="bob", category=int(Category.FIVE_OF_A_KIND))
    flush = Occasion(Trigger.HAND_PRESENTED, player="bob", category=int(Category.FLUSH))
    assert run(program, five, view) == [Change("", "bob", SPM, 1)]
    assert run(program, flush, view) == []


def test_a_failed_proposal_costs_its_proposer() -> None:
    program = check_block(FAILED_PROPOSAL)
    view = FakeView({"alice": 0, "bob": 3})
    failed = Occasion(Trigger.PROPOSAL_FAILS, player="bob", proposal=4)
    assert run(program, failed, view) == [Change("", "bob", POINTS, -5)]
    assert run(program, Occasion(Trigger.PROPOSAL_PASSES, player="bob", proposal=4), view) == []


def test_players_who_bid_on_no_lot_lose_at_the_auction_end() -> None:
    program = check_block(NO_BID_TAX)
    view = FakeView({"alice": 50, "bob": 50, "carol": 4}, bids={"alice": 2})
    found = run(program, Occasion(Trigger.AUCTION_ENDS), view)
    assert found == [Change("", "bob", POINTS, -10), Change("", "carol", POINTS, -10)]


@pytest.mark.parametrize(
    "source",
    [
        "When an auction phase begins: the judge gains twenty points.",
        "when the auction starts:\n    the judge gains 20 pts",
        "WHEN AN AUCTION PHASE STARTS:\n\n  # the judge's pay\n  THE JUDGE GAINS 20 POINTS",
    ],
)
def test_the_same_rule_in_other_words(source: str) -> None:
    assert check_block(source).rules == check_block(JUDGE_BONUS).rules


# --- the rest of the vocabulary ---------------------------------------------------------------------


def test_item_kinds_and_their_uses() -> None:
    program = check_block(
        'item "Gold Star" is a token\n'
        "item Golden Ticket can be redeemed for 15 points\n"
        'there is an item called "Charter" that works as a Standard Proposal-Maker\n'
        "when placements are made:\n"
        "  every player who placed 3rd or better gains 2 gold stars\n"
        "  every player who placed first gains a Golden Ticket\n"
    )
    assert [(k.name, k.use, k.points) for k in program.kinds] == [
        ("Gold Star", Use.TOKEN, 0),
        ("Golden Ticket", Use.REDEEMABLE, 15),
        ("Charter", Use.PROPOSAL_MAKER, 0),
    ]
    view = FakeView({"a": 0, "b": 0, "c": 0, "d": 0}, places={"a": 1, "b": 3, "c": 4})
    assert run(program, Occasion(Trigger.PLACEMENTS), view) == [
        Change("", "a", "Gold Star", 2),
        Change("", "b", "Gold Star", 2),
        Change("", "a", "Golden Ticket", 1),
    ], "names are read in the declared spelling, plural or not"


def test_conditions_combine_with_and_or_not_and_parentheses() -> None:
    program = check_block(
        "when the week ends:\n"
        "  every player who (has at least 10 points or holds a Gold Star) and is not the judge gains 1 point\n"
        "  if not there are at least 3 players: announce \"A quiet week.\"\n"
        "  if it is the auction phase:\n"
        '    announce "auction"\n'
        "  otherwise:\n"
        '    announce "bartering"\n'
    )
    view = FakeView(
        {"a": 10, "b": 2, "c": 50}, items_of={"b": {"Gold Star": 1}}, judge_id="c", phase_name="bartering"
    )
    assert run(program, Occasion(Trigger.WEEK_ENDS), view) == [
        Change("", "a", POINTS, 1),
        Change("", "b", POINTS, 1),
        Announcement("", "bartering"),
    ]


def test_moving_points_and_items_between_players() -> None:
    program = check_block(
        "when a lot is won:\n"
        "  if the amount is more than 50:\n"
        "    the winner gives 5 points to the judge\n"
        "  every player who has no points takes 1 Standard Proposal-Maker from the winner\n"
    )
    view = FakeView({"w": 100, "j": 0, "x": 0}, judge_id="j")
    won = Occasion(Trigger.LOT_WON, player="w", lot=3, amount=60)
    assert run(program, won, view) == [
        Transfer("", "w", "j", POINTS, 5),
        Transfer("", "w", "j", SPM, 1),
        Transfer("", "w", "x", SPM, 1),
    ]


@pytest.mark.parametrize(
    ("source", "line", "column", "words"),
    [
        ("", 1, 1, "empty"),
        ("when foo happens:\n  the judge gains 1 point", 1, 6, "not a trigger"),
        ("when a player joins\n  the player gains 1 point", 1, 20, "ends with `:`"),
        ("when a player joins:", 1, 21, "indent the lines"),
        ("when a player joins:\n\tthe player gains 1 point", 2, 1, "spaces, not tabs"),
        ("when a player joins:\n  the player gains 1 point\n    the judge gains 1 point", 3, 3, "further"),
        ("when a player joins:\n    the player gains 1 point\n  the judge gains 1 point", 3, 3, "matches no line"),
        ("when a hand is presented:\n  the proposer gains 1 point", 2, 3, "names nobody"),
        ("when a player joins:\n  its category is flush", 2, 3, "name whom"),
        ("when a player joins:\n  if its category is flush: the player gains 1 point", 2, 6, "only when a hand"),
        ("when a player joins:\n  the player gains 0 points", 2, 20, "at least 1"),
        ("when a player joins:\n  the player gains 99999999 points", 2, 20, "numbers go up to"),
        ("when a player joins:\n  the player wins 3 points", 2, 14, "gains"),
        ("when a player joins:\n  every player gives 1 point to every player", 2, 33, "not many to many"),
        ("when a player joins:\n  announce hello", 2, 12, "in quotes"),
        ("when a player joins:\n  the player gains 1 point; drop table", 2, 27, "has no meaning"),
        ('item "AS" is a token', 1, 6, "reads as a card"),
        ('item "10 points" is a token', 1, 6, "cannot be part"),
        ('item "Star" is a token\nitem "Stars" is a token', 2, 6, "made twice"),
        ('item "Star" is shiny', 1, 13, "say what the item is"),
        ("the judge gains 20 points", 1, 1, "made of `when"),
        ("when a player joins:\n  if (((((((((the player has 1 point))))))))): the judge gains 1 point", 2, 14, "nest"),
    ],
)
def test_refusals_say_what_and_where(source: str, line: int, column: int, words: str) -> None:
    refused(source, line, column, words)


def test_a_refusal_is_a_bad_input_of_the_round() -> None:
    """Proposals refuse on ``BadInputError``: a block that does not read is answered, nothing spent."""
    with pytest.raises(BadInputError):
        check_block("when a player joins:\n  the player gains lots")


def test_a_rule_that_could_run_too_long_is_refused_when_checked() -> None:
    condition = " and ".join(["has at least 1 point"] * 30)
    source = "when a player joins:\n" + "".join(f"  every player who {condition} gains 1 point\n" for _ in range(2))
    error = refused(source, 1, 1, "steps")
    assert f"{PLANNED_PLAYERS:,} players" in error.reason


def test_the_budget_stops_a_run_cleanly_with_no_effect() -> None:
    program = check_block("when the week ends:\n  every player gains 1 point\n  the judge gains 5 points")
    view = FakeView({f"p{i}": 0 for i in range(50)}, judge_id="p1")
    assert len(run(program, Occasion(Trigger.WEEK_ENDS), view, budget=10_000)) == 51
    assert run(program, Occasion(Trigger.WEEK_ENDS), view, budget=60, rule="9.1") == [Stopped("9.1", 60)]


def test_no_user_code_is_evaluated() -> None:
    """Text that would be code in Python is just an unreadable block here."""
    for source in ("__import__('os').system('true')", "when a player joins:\n  eval(1)", "exec('x')"):
        with pytest.raises(RuleBlockError):
            check_block(source)


# --- properties -------------------------------------------------------------------------------------

def _vocabulary(text: str) -> list[str]:
    return text.split()


_WORDS = _vocabulary(
    "when an auction phase starts ends a bartering the week placements are made player joins leaves"
    " hand is presented lot won proposal passes fails ruling the judge proposer winner every who"
    " gains loses gives takes to from points Standard Proposal-Maker if otherwise not and or has"
    " at least most more than fewer exactly bid on no lots placed 1st 3rd better its category five"
    ' of kind flush there players announce "hi" item "Star" token works as can be redeemed for 10 1 : ( ) .'
)


def _line(words: list[str], indent: int) -> str:
    return " " * indent + " ".join(words)


block_text = st.lists(
    st.tuples(st.lists(st.sampled_from(_WORDS), min_size=1, max_size=14), st.sampled_from([0, 2, 4])),
    min_size=1,
    max_size=8,
).map(lambda lines: "\n".join(_line(words, indent) for words, indent in lines))


def _within(source: str, error: RuleBlockError) -> None:
    lines = source.split("\n")
    assert 1 <= error.line <= len(lines), (source, str(error))
    assert 1 <= error.column <= len(lines[error.line - 1]) + 1, (source, str(error))


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.one_of(st.text(max_size=400), block_text))
def test_any_text_is_a_program_or_a_refusal_inside_the_text(source: str) -> None:
    try:
        program = check_block(source)
    except RuleBlockError as error:
        _within(source, error)
        return
    assert isinstance(program, Program)
    assert program.rules or program.kinds


def test_a_huge_block_is_refused_at_its_start() -> None:
    source = "x" * (MAX_SOURCE + 1)
    _within(source, refused(source, 1, 1, "at most"))


_RULES = st.sampled_from(
    [
        *EXAMPLES,
        ("when the week ends:\n  every player who has at least 1 point or is the judge gains 1 point\n"
        "  every player who bid on no lot and placed 2nd or worse gives 1 point to the judge"),
        ("when placements are made:\n  the judge takes 2 points from every player who placed in the top 3\n"
        '  if there are more than 2 players: announce "many"'),
        "when a lot is won:\n  if the amount is at least 10: every player gains 1 Standard Proposal-Maker",
    ]
)


@settings(max_examples=200, deadline=None)
@given(
    _RULES,
    st.sampled_from(list(Trigger)),
    st.dictionaries(st.sampled_from([f"p{i}" for i in range(40)]), st.integers(0, 200), max_size=40),
    st.integers(1, 400),
)
def test_a_run_never_takes_more_than_its_bound_nor_its_budget(
    source: str, trigger: Trigger, points: dict[str, int], budget: int
) -> None:
    program = check_block(source)
    players = sorted(points)
    view = FakeView(points, judge_id=players[0] if players else None, places={p: i for i, p in enumerate(players, 1)})
    occasion = Occasion(trigger, player=players[-1] if players else None, amount=20, category=10)
    bound = sum(c.at(len(players)) for c in program.costs)
    assert bound <= RUN_BUDGET or len(players) > PLANNED_PLAYERS
    effects = run(program, occasion, view, budget=budget)
    if any(isinstance(e, Stopped) for e in effects):
        assert all(isinstance(e, Stopped) for e in effects)
        assert max(c.at(len(players)) for c in program.costs) > budget, "stopped though the bound fits"
    full = run(program, occasion, view, budget=max(c.at(len(players)) for c in program.costs) if program.costs else 1)
    assert not any(isinstance(e, Stopped) for e in full), "the bound is enough for every run"


_PREDICATES = st.sampled_from(
    [
        "has at least 3 points",
        "has fewer than 50 points",
        "is not the judge",
        "is the judge",
        "bid on no lot",
        "bid on at least 2 lots",
        "placed 2nd or better",
        "did not place",
        "has a Gold Star",
        "has no Standard Proposal-Maker",
    ]
)


def _conditions(parts: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
    return st.recursive(
        parts,
        lambda inner: st.one_of(
            st.tuples(inner, st.sampled_from(["and", "or"]), inner).map(" ".join),
            inner.map(lambda c: f"not {c}"),
            inner.map(lambda c: f"({c})"),
        ),
        max_leaves=6,
    )


_EFFECTS = st.one_of(
    _conditions(_PREDICATES).map(lambda c: f"every player who {c} gains 2 points"),
    _conditions(_PREDICATES).map(lambda c: f"every player who {c} gives 1 point to the judge"),
    _conditions(_PREDICATES).map(lambda c: f"the judge takes 1 Gold Star from every player who {c}"),
    st.just("every player loses 1 point"),
    st.just("the judge gains 5 points"),
    st.just('announce "Done."'),
    _conditions(_PREDICATES.map(lambda p: f"the judge {p}")).map(lambda c: f"if {c}: the judge gains 1 point"),
)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.lists(_EFFECTS, min_size=1, max_size=6),
    st.dictionaries(st.sampled_from([f"p{i}" for i in range(30)]), st.integers(0, 60), max_size=30),
)
def test_every_accepted_program_runs_within_its_bound(effects: list[str], points: dict[str, int]) -> None:
    source = 'item "Gold Star" is a token\nwhen the week ends:\n' + "".join(f"  {e}\n" for e in effects)
    try:
        program = check_block(source)
    except RuleBlockError as error:
        refusal = error
    else:
        refusal = None
    if refusal is not None:
        _within(source, refusal)
        assert "steps" in refusal.reason, str(refusal)
        return
    (cost,) = program.costs
    assert cost.at(PLANNED_PLAYERS) <= RUN_BUDGET
    players = sorted(points)
    view = FakeView(
        points,
        items_of={p: {"Gold Star": 1} for p in players[::2]},
        judge_id=players[0] if players else None,
        places={p: i for i, p in enumerate(players, 1)},
        bids={p: i % 3 for i, p in enumerate(players)},
    )
    bound = cost.at(len(players))
    assert not any(isinstance(e, Stopped) for e in run(program, Occasion(Trigger.WEEK_ENDS), view, budget=bound))
