"""Governance rules: proposals, the judge and judge elections, at the engine and at the router.

The engine tests drive ``engine.start_round/apply/advance`` with explicit ticks, so each rule is
checked on its own terms (thresholds at their exact edges, who counts, when votes end). The
router tests go through the same service and store the adapters use.
"""

from __future__ import annotations

import contextlib
import random
from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from bot.router import Post, Router
from data.store import Store
from games.nomic import engine
from games.nomic.actions import (
    Action,
    AdminGive,
    AssentRemoval,
    CastConfidence,
    Challenge,
    DeleteMessage,
    EditMessage,
    GiveRuling,
    Join,
    Leave,
    MakeRequest,
    Propose,
    React,
    Resign,
    Stand,
    StartRound,
    Tick,
)
from games.nomic.context import ChannelRole, Context
from games.nomic.errors import (
    BadInputError,
    ConflictError,
    InsufficientError,
    NotAllowedError,
    NotAPlayerError,
    RuleError,
    UnknownError,
    WrongChannelError,
    WrongPhaseError,
)
from games.nomic.events import JudgeElected, ProposalDecided, ProposalRetracted, RulesetAmended
from games.nomic.items import Items
from games.nomic.phases import BoundaryKind, Phase
from games.nomic.ruleset import Ruleset
from games.nomic.service import RoundService
from games.nomic.state import Proposal, ProposalClass, ProposalStatus, RequestStatus, RoundState, Vote

SUNDAY = datetime(2026, 12, 6, tzinfo=UTC)
"""A week's start (auction until Thursday 00:00, placements Saturday 00:00)."""


def day(n: float, hours: int = 0, minutes: int = 0, seconds: int = 0) -> datetime:
    return SUNDAY + timedelta(days=n, hours=hours, minutes=minutes, seconds=seconds)


MONDAY = day(1)
THURSDAY = day(4)
SATURDAY = day(6)
NEXT_SUNDAY = day(7)
ROUND_START = day(0, 1)

GA = ChannelRole.GAME_ACTIONS
PROP = ChannelRole.PROPOSALS
ELECT = ChannelRole.JUDGE_ELECTIONS
PLAYERS = ("alice", "bob", "carol", "dave", "erin", "frank")
CROWD = (*PLAYERS, "gina", "hank")
MOD = "mod"
FOR, AGAINST = Vote.FOR, Vote.AGAINST


# --- helpers ----------------------------------------------------------------------------------


def context(actor: str, channel: ChannelRole, at: datetime) -> Context:
    return Context(actor=actor, actor_name=actor, channel=channel, at=at, is_moderator=actor == MOD)


def start(
    players: tuple[str, ...] = PLAYERS, *, at: datetime = ROUND_START, ruleset: Ruleset | None = None
) -> RoundState:
    """A round started on Sunday 01:00 (auction phase) with ``players`` joined, 0 points each."""
    action = StartRound(ruleset=ruleset or Ruleset(), phase=Phase.AUCTION, presenting_open=False, moderators=(MOD,))
    state = engine.start_round("g", "seed", context("setup", ChannelRole.OTHER, at), action).state
    for name in players:
        state = do(state, name, Join(), at=at)
    return state


def do(state: RoundState, actor: str, action: Action, channel: ChannelRole = GA, *, at: datetime) -> RoundState:
    return engine.apply(state, context(actor, channel, at), action, random.Random(0)).state


def refused(
    state: RoundState,
    actor: str,
    action: Action,
    error: type[RuleError],
    channel: ChannelRole = GA,
    *,
    at: datetime,
) -> str:
    """The action is refused with ``error`` and the state is left exactly as it was."""
    before = state.model_dump()
    with pytest.raises(error) as caught:
        engine.apply(state, context(actor, channel, at), action, random.Random(0))
    with pytest.raises(error):
        engine.check(state, context(actor, channel, at), action)
    assert state.model_dump() == before
    return str(caught.value)


def tick(state: RoundState, at: datetime, *kinds: BoundaryKind) -> RoundState:
    return engine.advance(state, Tick(at=at, boundaries=kinds), random.Random(1)).state


def tick_events(state: RoundState, at: datetime, *kinds: BoundaryKind) -> tuple[RoundState, tuple]:
    step = engine.advance(state, Tick(at=at, boundaries=kinds), random.Random(1))
    return step.state, step.events


def to_thursday(state: RoundState, week: int = 0) -> RoundState:
    return tick(state, day(7 * week + 4), BoundaryKind.AUCTION_END)


def to_saturday(state: RoundState, week: int = 0) -> RoundState:
    return tick(state, day(7 * week + 6), BoundaryKind.PLACEMENTS)


def to_sunday(state: RoundState, week: int = 1) -> RoundState:
    """The start of week ``week`` (1 is the Sunday after the round's first one)."""
    return tick(state, day(7 * week), BoundaryKind.AUCTION_START)


def give_spm(state: RoundState, player: str, n: int = 1) -> RoundState:
    return do(state, MOD, AdminGive(target=player, items=Items(spm=n)), at=ROUND_START)


def propose(state: RoundState, author: str, message: str, text: str, *, at: datetime) -> RoundState:
    return do(state, author, Propose(message=message, text=text), PROP, at=at)


def react(state: RoundState, user: str, message: str, vote: Vote, *, at: datetime, added: bool = True) -> RoundState:
    return do(state, user, React(message=message, vote=vote, added=added), PROP, at=at)


def votes(state: RoundState, message: str, voters: tuple[str, ...], vote: Vote, *, at: datetime) -> RoundState:
    for voter in voters:
        state = react(state, voter, message, vote, at=at)
    return state


def spm(state: RoundState, player: str) -> int:
    return state.players[player].spm


AMEND = "```amend\n{}\n```"


# --- urgent proposals --------------------------------------------------------------------------


@pytest.mark.parametrize(("against", "passed"), [(0, True), (2, True), (3, False), (4, False)])
def test_urgent_passes_with_at_most_two_votes_against(against: int, passed: bool) -> None:
    state = start()
    state = propose(state, "alice", "u1", "urgent: fix the typo", at=day(1, 10))
    proposal = state.proposals["u1"]
    assert proposal.kind is ProposalClass.URGENT
    assert proposal.status is ProposalStatus.VOTING
    assert proposal.voting_ends == day(3, 10)
    state = votes(state, "u1", ("bob", "carol", "dave", "erin")[:against], AGAINST, at=day(1, 11))
    state = react(state, "frank", "u1", FOR, at=day(1, 12))
    state = tick(state, day(3, 9, 59, 59))
    assert state.proposals["u1"].status is ProposalStatus.VOTING
    state, events = tick_events(state, day(3, 10))
    decided = state.proposals["u1"]
    assert decided.status is (ProposalStatus.PASSED if passed else ProposalStatus.FAILED)
    assert (decided.votes_for, decided.votes_against) == (1, against)
    assert [e.passed for e in events if isinstance(e, ProposalDecided)] == [passed]


def test_urgent_ignores_votes_for_and_uses_no_item() -> None:
    """Three votes against fail an urgent proposal however many are in favour."""
    state = start()
    state = propose(state, "alice", "u1", "URGENT: fix it", at=day(1))
    assert spm(state, "alice") == 0
    state = votes(state, "u1", ("alice", "bob", "carol"), FOR, at=day(1, 1))
    state = votes(state, "u1", ("dave", "erin", "frank"), AGAINST, at=day(1, 1))
    state = tick(state, day(3))
    assert state.proposals["u1"].status is ProposalStatus.FAILED


def test_urgent_vote_is_not_cut_short_by_a_phase_change() -> None:
    state = start()
    state = propose(state, "alice", "u1", "urgent: across the boundary", at=day(3, 12))
    state = to_thursday(state)
    assert state.proposals["u1"].status is ProposalStatus.VOTING
    state = votes(state, "u1", ("bob", "carol", "dave"), AGAINST, at=day(4, 1))
    state = tick(state, day(5, 12))
    assert state.proposals["u1"].status is ProposalStatus.FAILED
    assert state.proposals["u1"].votes_against == 3


# --- standard proposals ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("n_for", "n_against", "passed"),
    [(1, 2, True), (1, 3, False), (0, 0, False), (0, 1, False), (1, 0, True), (2, 4, True), (2, 5, False)],
)
def test_standard_needs_a_third_in_favour(n_for: int, n_against: int, passed: bool) -> None:
    state = give_spm(start(CROWD), "alice")
    state = propose(state, "alice", "s1", "Lots hold three cards.", at=day(1, 10))
    state = to_thursday(state)
    state = votes(state, "s1", CROWD[:n_for], FOR, at=day(4, 1))
    state = votes(state, "s1", CROWD[n_for : n_for + n_against], AGAINST, at=day(4, 1))
    state, events = tick_events(state, NEXT_SUNDAY, BoundaryKind.AUCTION_START)
    decided = state.proposals["s1"]
    assert decided.status is (ProposalStatus.PASSED if passed else ProposalStatus.FAILED)
    assert (decided.votes_for, decided.votes_against) == (n_for, n_against)
    assert [(e.message, e.passed) for e in events if isinstance(e, ProposalDecided)] == [("s1", passed)]


def test_standard_made_in_the_auction_votes_through_the_bartering_phase() -> None:
    state = give_spm(start(), "alice")
    state = propose(state, "alice", "s1", "A rule.", at=day(1))
    proposal = state.proposals["s1"]
    assert (proposal.kind, proposal.status) == (ProposalClass.STANDARD, ProposalStatus.PENDING)
    state = react(state, "bob", "s1", FOR, at=day(2))  # present when voting ends: counts
    state = tick(state, day(3, 12))  # a quiet tick inside the auction phase
    assert state.proposals["s1"].status is ProposalStatus.PENDING
    state = to_thursday(state)
    assert state.proposals["s1"].status is ProposalStatus.VOTING
    assert state.proposals["s1"].voting_starts == THURSDAY
    state = to_saturday(state)  # placements are not a phase change
    assert state.proposals["s1"].status is ProposalStatus.VOTING
    state = to_sunday(state)
    assert state.proposals["s1"].status is ProposalStatus.PASSED
    assert state.proposals["s1"].votes_for == 1
    assert state.proposals["s1"].decided_at == NEXT_SUNDAY


def test_standard_made_in_bartering_votes_through_the_next_auction() -> None:
    state = to_thursday(give_spm(start(), "alice"))
    state = propose(state, "alice", "s1", "A rule.", at=day(5))
    state = to_saturday(state)
    assert state.proposals["s1"].status is ProposalStatus.PENDING
    state = to_sunday(state)
    assert state.proposals["s1"].status is ProposalStatus.VOTING
    state = votes(state, "s1", ("alice",), FOR, at=day(8))
    state = votes(state, "s1", ("bob", "carol", "dave"), AGAINST, at=day(8))
    state = to_thursday(state, week=1)
    assert state.proposals["s1"].status is ProposalStatus.FAILED
    assert (state.proposals["s1"].votes_for, state.proposals["s1"].votes_against) == (1, 3)


def test_standard_needs_and_consumes_a_proposal_maker() -> None:
    state = start()
    message = refused(state, "alice", Propose(message="s1", text="A rule."), InsufficientError, PROP, at=day(1))
    assert "Standard Proposal-Maker" in message
    state = give_spm(state, "alice", 1)
    state = propose(state, "alice", "s1", "A rule.", at=day(1))
    assert spm(state, "alice") == 0
    assert state.proposals["s1"].status is ProposalStatus.PENDING
    refused(state, "alice", Propose(message="s2", text="Another rule."), InsufficientError, PROP, at=day(1, 1))
    # the used item does not come back when the proposal is decided
    state = to_sunday(to_thursday(state))
    assert state.proposals["s1"].status is ProposalStatus.FAILED
    assert spm(state, "alice") == 0


def test_only_players_propose_in_the_proposals_channel() -> None:
    state = give_spm(start(), "alice")
    refused(state, "zed", Propose(message="x", text="urgent: hi"), NotAPlayerError, PROP, at=day(1))
    refused(state, "alice", Propose(message="x", text="urgent: hi"), WrongChannelError, GA, at=day(1))
    refused(state, "alice", Propose(message="x", text="   "), BadInputError, PROP, at=day(1))
    state = propose(state, "alice", "x", "urgent: hi", at=day(1))
    refused(state, "bob", Propose(message="x", text="urgent: hi"), ConflictError, PROP, at=day(1))


# --- who counts ------------------------------------------------------------------------------


def test_non_player_reactions_do_not_count() -> None:
    state = give_spm(start(("alice", "bob")), "alice")
    state = propose(state, "alice", "s1", "A rule.", at=day(1))
    state = propose(state, "bob", "u1", "urgent: a fix", at=day(1))
    # one player in favour; three non-members of the game against would sink both
    state = react(state, "alice", "s1", FOR, at=day(1, 1))
    state = votes(state, "s1", ("xena", "yuri", "zed"), AGAINST, at=day(1, 1))
    state = votes(state, "u1", ("xena", "yuri", "zed"), AGAINST, at=day(1, 1))
    state = tick(state, day(3))
    assert state.proposals["u1"].status is ProposalStatus.PASSED
    assert state.proposals["u1"].votes_against == 0
    state = to_sunday(to_thursday(state))
    assert state.proposals["s1"].status is ProposalStatus.PASSED
    assert (state.proposals["s1"].votes_for, state.proposals["s1"].votes_against) == (1, 0)


def test_reaction_removed_before_the_end_does_not_count() -> None:
    state = start()
    state = propose(state, "alice", "u1", "urgent: a fix", at=day(1))
    state = votes(state, "u1", ("bob", "carol", "dave"), AGAINST, at=day(1, 1))
    state = react(state, "dave", "u1", AGAINST, at=day(2), added=False)
    # removing a reaction that is not there changes nothing
    assert react(state, "erin", "u1", AGAINST, at=day(2), added=False) is state
    state = tick(state, day(3))
    assert state.proposals["u1"].status is ProposalStatus.PASSED
    assert state.proposals["u1"].votes_against == 2


def test_vote_switch_counts_only_reactions_present() -> None:
    """A member holding both 👍 and 👎 is one vote each way; removing one leaves the other."""
    state = give_spm(start(), "alice")
    state = propose(state, "alice", "s1", "A rule.", at=day(1))
    state = to_thursday(state)
    state = react(state, "alice", "s1", FOR, at=day(4, 1))
    state = votes(state, "s1", ("bob", "carol", "dave"), AGAINST, at=day(4, 1))
    state = react(state, "dave", "s1", AGAINST, at=day(5), added=False)
    state = react(state, "dave", "s1", FOR, at=day(5))
    state = to_sunday(state)
    assert (state.proposals["s1"].votes_for, state.proposals["s1"].votes_against) == (2, 2)
    assert state.proposals["s1"].status is ProposalStatus.PASSED


def test_player_who_left_before_the_end_does_not_count() -> None:
    state = start()
    state = propose(state, "alice", "u1", "urgent: a fix", at=day(1))
    state = votes(state, "u1", ("bob", "carol", "dave"), AGAINST, at=day(1, 1))
    state = do(state, "dave", Leave(left_server=True), ChannelRole.OTHER, at=day(2))
    state = tick(state, day(3))
    assert state.proposals["u1"].status is ProposalStatus.PASSED
    assert state.proposals["u1"].votes_against == 2


def test_reactions_on_a_decided_proposal_change_nothing() -> None:
    state = start()
    state = propose(state, "alice", "u1", "urgent: a fix", at=day(1))
    state = tick(state, day(3))
    assert state.proposals["u1"].status is ProposalStatus.PASSED
    refused(state, "bob", React(message="u1", vote=AGAINST), RuleError, PROP, at=day(3, 1))
    refused(state, "bob", React(message="nope", vote=AGAINST), UnknownError, PROP, at=day(3, 1))


# --- edits and deletions ---------------------------------------------------------------------


def test_edit_during_voting_retracts_without_returning_the_item() -> None:
    state = give_spm(start(), "alice")
    state = propose(state, "alice", "s1", "A rule.", at=day(1))
    state = propose(state, "bob", "u1", "urgent: a fix", at=day(3, 12))
    state = to_thursday(state)
    state = react(state, "bob", "s1", FOR, at=day(4, 1))
    step = engine.apply(state, context("alice", PROP, day(4, 2)), EditMessage(message="s1", text="B"), random.Random())
    state = step.state
    assert state.proposals["s1"].status is ProposalStatus.RETRACTED
    assert [(e.message, e.item_returned) for e in step.events if isinstance(e, ProposalRetracted)] == [("s1", False)]
    assert spm(state, "alice") == 0
    state = do(state, "bob", EditMessage(message="u1", text="urgent: b"), PROP, at=day(4, 3))
    assert state.proposals["u1"].status is ProposalStatus.RETRACTED
    step = engine.advance(state, Tick(at=day(7), boundaries=(BoundaryKind.AUCTION_START,)), random.Random(1))
    # both were decided before the week's start, so they leave the state for the archive as they were
    assert "s1" not in step.state.proposals
    assert "u1" not in step.state.proposals
    archived = [Proposal.model_validate_json(a.body) for a in step.archived]
    assert [(p.message, p.status) for p in archived] == [
        ("s1", ProposalStatus.RETRACTED),
        ("u1", ProposalStatus.RETRACTED),
    ]
    assert spm(step.state, "alice") == 0


def test_delete_before_voting_returns_the_item_and_during_voting_does_not() -> None:
    state = give_spm(start(), "alice", 2)
    state = propose(state, "alice", "s1", "One.", at=day(1))
    state = propose(state, "alice", "s2", "Two.", at=day(1))
    assert spm(state, "alice") == 0
    step = engine.apply(state, context("alice", PROP, day(2)), DeleteMessage(message="s1"), random.Random())
    state = step.state
    assert state.proposals["s1"].status is ProposalStatus.RETRACTED
    assert [e.item_returned for e in step.events if isinstance(e, ProposalRetracted)] == [True]
    assert spm(state, "alice") == 1
    state = to_thursday(state)
    state = do(state, "alice", DeleteMessage(message="s2"), PROP, at=day(4, 1))
    assert state.proposals["s2"].status is ProposalStatus.RETRACTED
    assert spm(state, "alice") == 1
    # a retracted proposal is over: a second delete or an edit changes nothing
    refused(state, "alice", DeleteMessage(message="s1"), UnknownError, PROP, at=day(4, 2))
    refused(state, "alice", EditMessage(message="s2", text="x"), UnknownError, PROP, at=day(4, 2))


def test_edit_before_voting_amends_the_text_and_its_amendments() -> None:
    state = give_spm(start(), "alice")
    state = propose(state, "alice", "s1", "More points.\n" + AMEND.format("auction.weekly_points = 120"), at=day(1))
    new_text = "Even more points.\n" + AMEND.format("auction.weekly_points = 170")
    state = do(state, "alice", EditMessage(message="s1", text=new_text), PROP, at=day(2))
    proposal = state.proposals["s1"]
    assert proposal.status is ProposalStatus.PENDING
    assert proposal.text == new_text
    assert [(a.option, a.value) for a in proposal.amendments] == [("auction.weekly_points", "170")]
    assert spm(state, "alice") == 0
    state = to_thursday(state)
    state = react(state, "bob", "s1", FOR, at=day(4, 1))
    state = to_sunday(state)
    assert state.proposals["s1"].status is ProposalStatus.PASSED
    assert state.ruleset.auction.weekly_points == 170
    assert state.players["bob"].points == 170


@pytest.mark.parametrize(
    "block",
    [
        "auction.no_such_option = 3",
        "nowhere.weekly_points = 3",
        "auction.weekly_points = -5",
        "auction.lots_per_auction = many",
        "auction.lots_per_auction = 0",
        "auction.weekly_points 150",
        "",
    ],
)
def test_edit_before_voting_with_a_bad_amendment_keeps_the_old_text(block: str) -> None:
    state = give_spm(start(), "alice")
    old = "Points.\n" + AMEND.format("auction.weekly_points = 120")
    state = propose(state, "alice", "s1", old, at=day(1))
    refused(
        state, "alice", EditMessage(message="s1", text="New.\n" + AMEND.format(block)), BadInputError, PROP, at=day(2)
    )
    assert state.proposals["s1"].text == old


@pytest.mark.parametrize(
    ("block", "error"),
    [
        ("auction.no_such_option = 3", RuleError),
        ("auction.weekly_points = -5", BadInputError),
        ("auction.lots_per_auction = many", BadInputError),
        ("hands.hand_size = 6", BadInputError),
        ("calendar.placement_hours_before_end = 100", BadInputError),
        ("auction.weekly_points", BadInputError),
    ],
)
def test_invalid_amendment_is_refused_and_uses_no_item(block: str, error: type[RuleError]) -> None:
    state = give_spm(start(), "alice")
    text = "Change the rules.\n" + AMEND.format(block)
    refused(state, "alice", Propose(message="s1", text=text), error, PROP, at=day(1))
    assert "s1" not in state.proposals
    assert spm(state, "alice") == 1
    # the urgent class is checked the same way
    refused(state, "bob", Propose(message="u1", text="urgent: " + text), error, PROP, at=day(1))


# --- amendments taking effect --------------------------------------------------------------


def test_two_amendments_at_one_instant_apply_in_creation_order() -> None:
    """Message ids sort the other way round on purpose: creation order is what counts."""
    state = give_spm(start(), "alice")
    state = give_spm(state, "bob")
    state = propose(state, "alice", "zz", "First.\n" + AMEND.format("auction.weekly_points = 150"), at=day(1))
    state = propose(state, "bob", "aa", "Second.\n" + AMEND.format("auction.weekly_points = 250"), at=day(1, 1))
    state = to_thursday(state)
    state = votes(state, "zz", ("alice", "bob"), FOR, at=day(4, 1))
    state = votes(state, "aa", ("alice", "bob"), FOR, at=day(4, 1))
    state, events = tick_events(state, NEXT_SUNDAY, BoundaryKind.AUCTION_START)
    assert [e.message for e in events if isinstance(e, ProposalDecided)] == ["zz", "aa"]
    assert [(e.message, e.version) for e in events if isinstance(e, RulesetAmended)] == [("zz", 2), ("aa", 3)]
    assert state.ruleset.auction.weekly_points == 250
    assert [(v.version, v.by) for v in state.ruleset_versions] == [(1, "initial"), (2, "proposal 1"), (3, "proposal 2")]
    assert state.ruleset_versions[1].ruleset.auction.weekly_points == 150
    # the grant at that same week start already uses the amended value
    assert {p.points for p in state.players.values()} == {250}


def test_urgent_amendments_ending_together_apply_in_creation_order() -> None:
    state = start()
    state = propose(state, "alice", "m9", "urgent: a\n" + AMEND.format("auction.lots_per_auction = 3"), at=day(1))
    state = propose(state, "bob", "m1", "urgent: b\n" + AMEND.format("auction.lots_per_auction = 4"), at=day(1))
    state = tick(state, day(3))
    assert state.ruleset.auction.lots_per_auction == 4
    assert state.ruleset_version == 3


def test_amended_weekly_points_are_used_by_the_next_auction_start() -> None:
    state = start()
    state = propose(state, "alice", "u1", "urgent: more\n" + AMEND.format("auction.weekly_points = 135"), at=day(1))
    state = propose(state, "bob", "u2", "urgent: less\n" + AMEND.format("auction.weekly_points = 5"), at=day(1, 1))
    state = votes(state, "u2", ("carol", "dave", "erin"), AGAINST, at=day(1, 2))
    state = tick(state, day(3))
    state = tick(state, day(3, 1))
    assert state.proposals["u1"].status is ProposalStatus.PASSED
    assert state.proposals["u2"].status is ProposalStatus.FAILED
    assert state.ruleset.auction.weekly_points == 135
    assert state.players["alice"].points == 0  # no grant until the week starts
    state = to_sunday(to_saturday(to_thursday(state)))
    assert {p.points for p in state.players.values()} == {135}


def test_proposal_without_amendment_leaves_the_ruleset() -> None:
    state = start()
    state = propose(state, "alice", "u1", "urgent: just words", at=day(1))
    state = tick(state, day(3))
    assert state.proposals["u1"].status is ProposalStatus.PASSED
    assert state.ruleset_version == 1


# --- the judge -------------------------------------------------------------------------------


def elect(state: RoundState, winner: str, week: int) -> RoundState:
    """Run week ``week - 1``'s end with ``winner`` as the only candidate (players' 👍 not needed)."""
    at = day(7 * week) - timedelta(hours=1)
    message = f"cand-{winner}-{week}"
    state = do(state, winner, Stand(message=message, text="Vote for me"), ELECT, at=at)
    state = to_sunday(state, week)
    assert state.judge == winner
    return state


def judged(judge: str = "jude") -> RoundState:
    """Week 1 (from the second Sunday) with ``judge`` in office and request 1 made by alice."""
    state = elect(start((*PLAYERS, judge)), judge, 1)
    return do(state, "alice", MakeRequest(text="Is a pair of twos a pair?"), at=day(7, 1))


def test_requests_by_anyone_but_the_judge() -> None:
    state = judged()
    assert state.requests[1].status is RequestStatus.OPEN
    refused(state, "jude", MakeRequest(text="Do I?"), NotAllowedError, at=day(7, 2))
    refused(state, "alice", MakeRequest(text="   "), BadInputError, at=day(7, 2))
    refused(state, "alice", MakeRequest(text="Is it?"), WrongChannelError, PROP, at=day(7, 2))
    state = do(state, "visitor", MakeRequest(text="May a guest ask?"), at=day(7, 2))
    assert state.requests[2].by == "visitor"


def test_only_the_judge_rules_and_may_replace_within_seven_days() -> None:
    state = judged()
    refused(state, "alice", GiveRuling(number=1, text="Yes."), NotAllowedError, at=day(7, 2))
    refused(state, "jude", GiveRuling(number=9, text="Yes."), UnknownError, at=day(7, 2))
    state = do(state, "jude", GiveRuling(number=1, text="Yes."), at=day(7, 2))
    assert state.requests[1].status is RequestStatus.ANSWERED
    state = do(state, "jude", GiveRuling(number=1, text="On reflection, no."), at=day(9, 2))
    assert [r.text for r in state.requests[1].rulings] == ["Yes.", "On reflection, no."]
    assert state.requests[1].status is RequestStatus.ANSWERED
    # the window runs from the ruling being replaced: exactly seven days is still within it
    state2 = do(state, "jude", GiveRuling(number=1, text="Final."), at=day(16, 2))
    assert len(state2.requests[1].rulings) == 3
    refused(state, "jude", GiveRuling(number=1, text="Too late."), WrongPhaseError, at=day(16, 2, 0, 1))


def test_another_judge_cannot_replace_a_ruling() -> None:
    state = judged()
    state = do(state, "jude", GiveRuling(number=1, text="Yes."), at=day(7, 2))
    state = elect(state, "bob", 2)
    refused(state, "bob", GiveRuling(number=1, text="No."), ConflictError, at=day(14, 1))
    refused(state, "jude", GiveRuling(number=1, text="Again."), NotAllowedError, at=day(14, 1))


def _challenged() -> RoundState:
    state = judged()
    state = do(state, "jude", GiveRuling(number=1, text="Yes."), at=day(7, 2))
    return do(state, "bob", Challenge(number=1), at=day(8))


def test_challenge_only_within_four_days_of_the_ruling() -> None:
    state = judged()
    refused(state, "bob", Challenge(number=1), ConflictError, at=day(7, 1, 30))  # no ruling yet
    state = do(state, "jude", GiveRuling(number=1, text="Yes."), at=day(7, 2))
    refused(state, "bob", Challenge(number=1), WrongPhaseError, at=day(11, 2, 0, 1))
    refused(state, "visitor", Challenge(number=1), NotAPlayerError, at=day(8))
    refused(state, "bob", Challenge(number=2), UnknownError, at=day(8))
    state = do(state, "bob", Challenge(number=1), at=day(11, 2))
    vote = state.requests[1].confidence
    assert vote is not None
    assert vote.ends_at == day(13, 2)
    refused(state, "carol", Challenge(number=1), ConflictError, at=day(11, 3))


@pytest.mark.parametrize(
    ("ballots", "overturned"),
    [
        ({"alice": True, "bob": False}, False),
        ({"alice": True, "bob": True, "carol": False, "dave": False}, False),
        ({"alice": True, "bob": True, "carol": False}, True),
        ({}, False),
        ({"alice": True}, True),
        ({"alice": False}, False),
    ],
)
def test_confidence_vote_overturns_only_on_a_strict_majority(ballots: dict[str, bool], overturned: bool) -> None:
    state = _challenged()
    for voter, overturn in ballots.items():
        state = do(state, voter, CastConfidence(number=1, overturn=overturn), at=day(8, 1))
    state = tick(state, day(10) - timedelta(seconds=1))
    assert state.requests[1].confidence is not None
    state = tick(state, day(10))
    assert state.requests[1].confidence is None
    assert state.requests[1].status is (RequestStatus.OVERTURNED if overturned else RequestStatus.ANSWERED)


def test_confidence_last_vote_counts_and_only_players_vote() -> None:
    state = _challenged()
    state = do(state, "alice", CastConfidence(number=1, overturn=True), at=day(8, 1))
    state = do(state, "bob", CastConfidence(number=1, overturn=False), at=day(8, 1))
    state = do(state, "carol", CastConfidence(number=1, overturn=False), at=day(8, 1))
    state = do(state, "carol", CastConfidence(number=1, overturn=True), at=day(8, 2))  # carol changes her mind
    refused(state, "visitor", CastConfidence(number=1, overturn=False), NotAPlayerError, at=day(8, 3))
    refused(state, "bob", CastConfidence(number=2, overturn=False), UnknownError, at=day(8, 3))
    refused(state, "bob", CastConfidence(number=1, overturn=False), WrongPhaseError, at=day(10))
    state = tick(state, day(10))
    assert state.requests[1].status is RequestStatus.OVERTURNED
    refused(state, "bob", CastConfidence(number=1, overturn=False), ConflictError, at=day(10, 1))


def test_confidence_voter_who_left_does_not_count() -> None:
    state = _challenged()
    state = do(state, "alice", CastConfidence(number=1, overturn=True), at=day(8, 1))
    state = do(state, "bob", CastConfidence(number=1, overturn=True), at=day(8, 1))
    state = do(state, "carol", CastConfidence(number=1, overturn=False), at=day(8, 1))
    state = do(state, "bob", Leave(), at=day(9))
    state = tick(state, day(10))
    assert state.requests[1].status is RequestStatus.ANSWERED  # 1 to 1: the ruling stands


def test_an_overturned_ruling_cannot_be_challenged_and_the_judge_answers_afresh() -> None:
    """(After a vote that lets a ruling stand, another may follow: tests/test_governance_seed.py.)"""
    state = _challenged()
    state = do(state, "alice", CastConfidence(number=1, overturn=True), at=day(8, 1))
    state = tick(state, day(10))
    assert state.requests[1].status is RequestStatus.OVERTURNED
    refused(state, "carol", Challenge(number=1), ConflictError, at=day(10, 1))
    state = do(state, "jude", GiveRuling(number=1, text="No."), at=day(10, 2))
    assert state.requests[1].status is RequestStatus.ANSWERED


def test_removal_needs_two_distinct_players_who_are_not_the_judge() -> None:
    state = judged()
    refused(state, "jude", AssentRemoval(), NotAllowedError, at=day(8))
    refused(state, "visitor", AssentRemoval(), NotAPlayerError, at=day(8))
    state = do(state, "alice", AssentRemoval(), at=day(8))
    assert state.judge == "jude"
    assert state.removal_assents == {"alice"}
    refused(state, "alice", AssentRemoval(), ConflictError, at=day(8, 1))
    state = do(state, "bob", AssentRemoval(), at=day(8, 2))
    assert state.judge is None
    assert state.removal_assents == frozenset()
    refused(state, "carol", AssentRemoval(), ConflictError, at=day(8, 3))
    refused(state, "jude", GiveRuling(number=1, text="Still me?"), NotAllowedError, at=day(8, 3))


def test_removal_assents_lapse_when_a_new_judge_is_elected() -> None:
    state = judged()
    state = do(state, "alice", AssentRemoval(), at=day(8))
    state = elect(state, "bob", 2)
    assert state.removal_assents == frozenset()
    state = do(state, "carol", AssentRemoval(), at=day(14, 1))
    assert state.judge == "bob"
    state = do(state, "alice", AssentRemoval(), at=day(14, 2))
    assert state.judge is None


def test_resign() -> None:
    state = judged()
    refused(state, "alice", Resign(), NotAllowedError, at=day(8))
    state = do(state, "alice", AssentRemoval(), at=day(8))
    state = do(state, "jude", Resign(), at=day(8, 1))
    assert state.judge is None
    assert state.removal_assents == frozenset()
    refused(state, "jude", Resign(), NotAllowedError, at=day(8, 2))
    state = do(state, "jude", MakeRequest(text="Now I may ask?"), at=day(8, 3))
    assert state.requests[2].by == "jude"


# --- elections -------------------------------------------------------------------------------


def stand(state: RoundState, who: str, message: str, *, at: datetime) -> RoundState:
    return do(state, who, Stand(message=message, text=f"{who} for judge"), ELECT, at=at)


def back(state: RoundState, message: str, voters: tuple[str, ...], *, at: datetime, vote: Vote = FOR) -> RoundState:
    for voter in voters:
        state = do(state, voter, React(message=message, vote=vote), ELECT, at=at)
    return state


def test_election_most_thumbs_up_wins_and_ties_go_to_the_earliest() -> None:
    state = start()
    state = stand(state, "bob", "zz-bob", at=day(1))  # earliest, but its id sorts last
    state = stand(state, "carol", "aa-carol", at=day(2))
    state = stand(state, "dave", "mm-dave", at=day(3))
    state = back(state, "zz-bob", ("alice", "erin"), at=day(3, 1))
    state = back(state, "aa-carol", ("alice", "frank"), at=day(3, 1))
    state = back(state, "mm-dave", ("bob",), at=day(3, 1))
    state = back(state, "mm-dave", ("carol", "erin", "frank"), at=day(3, 1), vote=AGAINST)  # 👎 is no vote
    state = back(state, "mm-dave", ("xena", "yuri", "zed"), at=day(3, 1))  # nor are non-players
    state, events = tick_events(state, NEXT_SUNDAY, BoundaryKind.AUCTION_START)
    assert state.judge == "bob"
    elected = [e for e in events if isinstance(e, JudgeElected)]
    assert [(e.name, e.votes, e.tie_broken) for e in elected] == [("bob", 2, True)]
    assert state.candidacies == {}


def test_election_later_candidacy_with_more_votes_wins() -> None:
    state = start()
    state = stand(state, "bob", "c1", at=day(1))
    state = stand(state, "carol", "c2", at=day(2))
    state = back(state, "c1", ("alice",), at=day(3))
    state = back(state, "c2", ("alice", "bob"), at=day(3))
    state = to_sunday(state)
    assert state.judge == "carol"


def test_no_candidacy_empties_the_office_and_candidacies_are_cleared_each_week() -> None:
    state = start()
    state = stand(state, "bob", "c1", at=day(1))
    state = back(state, "c1", ("alice", "carol"), at=day(1, 1))
    state = to_sunday(state, 1)
    assert state.judge == "bob"
    assert state.candidacies == {}
    refused(state, "alice", React(message="c1", vote=FOR), UnknownError, ELECT, at=day(8))
    state, events = tick_events(state, day(14), BoundaryKind.AUCTION_START)
    assert state.judge is None
    assert [(e.name, e.votes) for e in events if isinstance(e, JudgeElected)] == [(None, 0)]


def test_candidate_who_left_cannot_win() -> None:
    state = start()
    state = stand(state, "bob", "c1", at=day(1))
    state = stand(state, "carol", "c2", at=day(2))
    state = back(state, "c1", ("alice", "dave", "erin"), at=day(3))
    state = back(state, "c2", ("alice",), at=day(3))
    state = do(state, "bob", Leave(left_server=True), ChannelRole.OTHER, at=day(5))
    state = to_sunday(state)
    assert state.judge == "carol"


def test_only_the_departed_candidate_leaves_the_office_empty() -> None:
    state = start()
    state = stand(state, "bob", "c1", at=day(1))
    state = back(state, "c1", ("alice",), at=day(3))
    state = do(state, "bob", Leave(), at=day(5))
    state = to_sunday(state)
    assert state.judge is None


def test_backers_count_only_if_still_players_at_the_week_end() -> None:
    state = start()
    state = stand(state, "bob", "c1", at=day(1))
    state = stand(state, "carol", "c2", at=day(2))
    state = back(state, "c1", ("alice",), at=day(3))
    state = back(state, "c2", ("dave", "erin"), at=day(3))
    state = do(state, "dave", Leave(), at=day(4))
    state = do(state, "erin", React(message="c2", vote=FOR, added=False), ELECT, at=day(5))
    state = to_sunday(state)
    assert state.judge == "bob"


def test_deleted_candidacy_does_not_stand() -> None:
    state = start()
    state = stand(state, "bob", "c1", at=day(1))
    state = stand(state, "carol", "c2", at=day(2))
    state = back(state, "c1", ("alice", "dave"), at=day(3))
    state = do(state, "bob", DeleteMessage(message="c1"), ELECT, at=day(4))
    state = to_sunday(state)
    assert state.judge == "carol"


def test_candidacy_needs_a_player_in_the_elections_channel() -> None:
    state = start()
    refused(state, "visitor", Stand(message="c1", text="me"), NotAPlayerError, ELECT, at=day(1))
    refused(state, "bob", Stand(message="c1", text="me"), WrongChannelError, GA, at=day(1))
    state = stand(state, "bob", "c1", at=day(1))
    refused(state, "bob", Stand(message="c1", text="me"), ConflictError, ELECT, at=day(1))


# --- router level --------------------------------------------------------------------------


def _no_members(_token: str) -> str | None:
    return None


class Desk:
    """A router on a temporary store, speaking as members at given instants."""

    def __init__(self, router: Router, store: Store) -> None:
        self.router = router
        self.store = store

    async def say(self, who: str, channel: ChannelRole, content: str, at: datetime, mid: str) -> list[Post]:
        await self.router.due_work("g", at)
        ctx = Context(actor=who, actor_name=who, channel=channel, at=at, is_moderator=who == MOD, event_id=mid)
        return await self.router.message("g", ctx, content, _no_members, message_id=mid)

    def ctx(self, who: str, channel: ChannelRole, at: datetime, event_id: str) -> Context:
        return Context(actor=who, actor_name=who, channel=channel, at=at, is_moderator=who == MOD, event_id=event_id)

    async def state(self) -> RoundState:
        state = await self.router.service.state("g")
        assert state is not None
        return state


@contextlib.asynccontextmanager
async def open_desk(path: Path) -> AsyncIterator[Desk]:
    """A round started on Sunday 01:00 on a store at ``path``, with alice, bob and carol playing."""
    store = await Store.open(path)
    router = Router(RoundService(store))
    start_at = day(0, 1)
    action = StartRound(ruleset=Ruleset(), phase=Phase.AUCTION, presenting_open=False, moderators=(MOD,))
    await router.service.start("g", context("setup", ChannelRole.OTHER, start_at), action, seed="s")
    d = Desk(router, store)
    for n, name in enumerate(("alice", "bob", "carol")):
        await d.say(name, GA, "!join", start_at, f"join{n}")
    try:
        yield d
    finally:
        await store.close()


@pytest.fixture
async def desk(tmp_path: Path) -> AsyncIterator[Desk]:
    async with open_desk(tmp_path / "g.db") as d:
        yield d


async def test_router_bad_amend_in_an_edit_is_answered_and_the_old_text_kept(desk: Desk) -> None:
    give = AdminGive(target="alice", items=Items(spm=1))
    await desk.router.service.act("g", desk.ctx(MOD, GA, day(0, 2), "g1"), give)
    old = "Points.\n" + AMEND.format("auction.weekly_points = 120")
    posts = await desk.say("alice", PROP, old, day(1), "p1")
    assert len(posts) == 1
    assert "Proposal 1" in posts[0].text
    for n, block in enumerate(("auction.weekly_points = -1", "auction.no_such_option = 1")):
        before = await desk.state()
        posts = await desk.router.edit(
            "g", desk.ctx("alice", PROP, day(2, n), f"edit{n}"), "p1", "New.\n" + AMEND.format(block)
        )
        assert len(posts) == 1, block
        assert posts[0].channel is PROP
        assert posts[0].reply_to == "p1"
        assert "keeps its earlier text" in posts[0].text
        after = await desk.state()
        assert after == before
        assert after.proposals["p1"].text == old


async def test_router_ignores_other_emoji_and_unknown_messages(desk: Desk) -> None:
    await desk.say("alice", PROP, "urgent: fix it", day(1), "p1")
    before = await desk.state()
    for n, (message, emoji) in enumerate((("p1", "🎉"), ("p1", "👀"), ("nope", "👍"), ("join0", "👎"))):
        ctx = desk.ctx("bob", PROP, day(1, 1, n), f"r{n}")
        assert await desk.router.reaction("g", ctx, message, emoji, added=True) == []
    assert await desk.router.edit("g", desk.ctx("bob", PROP, day(1, 2), "e1"), "nope", "x") == []
    assert await desk.router.delete("g", desk.ctx("bob", PROP, day(1, 2), "d1"), "nope") == []
    assert await desk.state() == before
    # 👍 with a skin tone is still a vote
    await desk.router.reaction("g", desk.ctx("bob", PROP, day(1, 3), "r9"), "p1", "👍🏽", added=True)
    assert (await desk.state()).reactions["p1"] == {("bob", Vote.FOR, "👍🏽")}


async def test_router_rejected_actions_change_nothing(desk: Desk) -> None:
    """Every refused command gets an answer and leaves the stored state as it was."""
    attempts = [
        ("alice", PROP, "a standard proposal without an item"),
        ("zed", PROP, "urgent: not a player"),
        ("alice", PROP, "urgent: bad\n" + AMEND.format("auction.nope = 1")),
        ("zed", ELECT, "not a player"),
        ("alice", GA, "!rule 1 yes"),
        ("alice", GA, "!overturn 1"),
        ("alice", GA, "!confidence 1 affirm"),
        ("alice", GA, "!remove-judge"),
        ("alice", GA, "!resign"),
        ("alice", GA, "!request"),
        ("alice", PROP, "!request in the wrong channel"),
    ]
    for n, (who, channel, content) in enumerate(attempts):
        before = await desk.state()
        posts = await desk.say(who, channel, content, day(1, 0, n), f"x{n}")
        assert len(posts) == 1, content
        assert posts[0].text.startswith("Can't do that"), (content, posts[0].text)
        assert await desk.state() == before, content
