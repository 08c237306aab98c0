"""The judge, votes and proposals read again against the seed's words.

Each test pins one reading: a vote stands while any variant of its emoji remains; a judge who
stops being a player stops being judge; the judge never rules on their own request; a ruling
that stood may be challenged again within its four days, and a replaced one afresh; removal
assents belong to one term; a standard proposal's answer names its voting window; and the
sentences read well for one player, for a moderator correcting themselves, and around a ruling.
"""

from __future__ import annotations

import json
import random
from collections.abc import AsyncIterator
from datetime import datetime, timedelta
from pathlib import Path

import pytest

from data.store import Store
from games.nomic import engine
from games.nomic.actions import (
    AdminGive,
    AdminTake,
    AssentRemoval,
    CastConfidence,
    Challenge,
    GiveRuling,
    Leave,
    MakeRequest,
    React,
    Stand,
    Tick,
)
from games.nomic.context import ChannelRole
from games.nomic.errors import ConflictError, NotAllowedError, WrongPhaseError
from games.nomic.events import ConfidenceDecided, JudgeChanged, PointsGranted, ProposalVotingOpens, RulingGiven
from games.nomic.items import Items
from games.nomic.phases import BoundaryKind
from games.nomic.proposals import reaction_of, tally
from games.nomic.service import RoundService
from games.nomic.state import RequestStatus, RoundState, Vote
from games.nomic.views import rulings

from .test_governance import (
    AGAINST,
    ELECT,
    FOR,
    GA,
    MOD,
    PLAYERS,
    PROP,
    Desk,
    context,
    day,
    do,
    elect,
    give_spm,
    judged,
    open_desk,
    propose,
    refused,
    start,
    tick,
    tick_events,
    to_thursday,
)

SNAPSHOTS = Path(__file__).resolve().parent / "snapshots"


@pytest.fixture
async def desk(tmp_path: Path) -> AsyncIterator[Desk]:
    async with open_desk(tmp_path / "g.db") as d:
        yield d


def unix(at: datetime) -> int:
    return int(at.timestamp())


def variant(state: RoundState, user: str, message: str, emoji: str, *, at: datetime, added: bool = True) -> RoundState:
    """A reaction as the router makes it from an emoji."""
    found = reaction_of(emoji)
    assert found is not None, emoji
    vote, name = found
    return do(state, user, React(message=message, vote=vote, variant=name, added=added), PROP, at=at)


# --- skin-tone thumbs ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("emoji", "vote", "name"),
    [
        ("👍", FOR, "👍"),
        ("👍️", FOR, "👍"),  # with the emoji presentation selector
        (":thumbsup:", FOR, "👍"),
        ("+1", FOR, "👍"),
        ("👍🏽", FOR, "👍🏽"),
        (":thumbsup_tone3:", FOR, "👍🏽"),
        (":+1::skin-tone-5:", FOR, "👍🏿"),
        ("👎🏻", AGAINST, "👎🏻"),
        ("thumbs_down", AGAINST, "👎"),
    ],
)
def test_each_emoji_is_a_vote_and_a_variant(emoji: str, vote: Vote, name: str) -> None:
    assert reaction_of(emoji) == (vote, name)


@pytest.mark.parametrize("emoji", ["🎉", "👍👍", "👍🏽🏽", "thumbsup_tone9", "", "   ", "x" * 10_000])
def test_other_emoji_are_no_vote(emoji: str) -> None:
    assert reaction_of(emoji) is None


def test_a_vote_stands_while_any_variant_of_it_remains() -> None:
    state = start()
    state = propose(state, "alice", "u1", "urgent: fix it", at=day(1))
    for voter in ("bob", "carol", "dave"):
        state = variant(state, voter, "u1", "👎", at=day(1, 1))
        state = variant(state, voter, "u1", "👎🏽", at=day(1, 1))
    state = variant(state, "bob", "u1", "👎🏽", at=day(1, 2), added=False)  # bob's 👎 is still there
    state = variant(state, "carol", "u1", "👎", at=day(1, 2), added=False)  # carol's 👎🏽 is still there
    state = variant(state, "dave", "u1", "👎", at=day(1, 3), added=False)
    assert tally(state, "u1") == (0, 3)
    state = variant(state, "dave", "u1", "👎🏽", at=day(1, 3), added=False)  # dave's last one goes
    assert tally(state, "u1") == (0, 2)
    state = tick(state, day(3))
    assert state.proposals["u1"].votes_against == 2
    assert state.proposals["u1"].status.value == "passed"


def test_the_same_variant_twice_is_one_reaction_and_names_are_the_same_variant() -> None:
    state = start()
    state = propose(state, "alice", "u1", "urgent: fix it", at=day(1))
    state = variant(state, "bob", "u1", "👍", at=day(1, 1))
    assert variant(state, "bob", "u1", ":thumbsup:", at=day(1, 1)) is state
    state = variant(state, "bob", "u1", "👍🏾", at=day(1, 1))
    state = variant(state, "bob", "u1", "+1", at=day(1, 2), added=False)
    assert tally(state, "u1") == (1, 0)
    state = variant(state, "bob", "u1", ":thumbsup_tone4:", at=day(1, 2), added=False)
    assert tally(state, "u1") == (0, 0)


def test_candidacy_backing_stands_while_any_variant_remains() -> None:
    state = start()
    state = do(state, "bob", Stand(message="c1", text="me"), ELECT, at=day(1))
    state = do(state, "carol", Stand(message="c2", text="me"), ELECT, at=day(1))
    state = variant(state, "alice", "c1", "👍", at=day(2))
    state = variant(state, "alice", "c1", "👍🏻", at=day(2))
    state = variant(state, "alice", "c1", "👍", at=day(3), added=False)
    state = variant(state, "dave", "c2", "👍", at=day(2))
    state = variant(state, "erin", "c1", "👍🏼", at=day(2))
    state = tick(state, day(7), BoundaryKind.AUCTION_START)
    assert state.judge == "bob"  # alice's 👍🏻 and erin's 👍🏼: two to one


def test_a_snapshot_from_before_variants_loads_and_counts_the_same() -> None:
    """Written by the code that kept (member, vote) pairs: the pairs still count, once each."""
    body = (SNAPSHOTS / "round_with_vote_pairs.json").read_text(encoding="utf-8")
    assert '"variant"' not in body
    assert '"challenged": true' in body
    state = RoundState.model_validate_json(body)
    assert tally(state, "u1") == (1, 2)
    assert state.judge == "jude"
    assert state.requests[1].confidence is not None
    # a vote recorded without its variant goes with the voter's next removal of any variant of it
    removed = variant(state, "dave", "u1", "👎🏽", at=day(7, 10), added=False)
    assert tally(removed, "u1") == (1, 1)
    # and with the round going on, the vote ends as it would have
    state = variant(state, "frank", "u1", "👍🏿", at=day(7, 10))
    state = tick(state, day(9, 6))
    assert (state.proposals["u1"].votes_for, state.proposals["u1"].votes_against) == (2, 2)
    # the saved state round-trips in the new shape
    again = RoundState.model_validate_json(state.model_dump_json())
    assert again == state


def test_a_snapshot_with_a_judge_who_had_left_loads_with_the_office_empty() -> None:
    body = (SNAPSHOTS / "round_judge_left.json").read_text(encoding="utf-8")
    data = json.loads(body)
    assert data["judge"] == "jude"
    assert "jude" not in data["players"]
    state = RoundState.model_validate_json(body)
    assert state.judge is None
    assert state.judge_name is None
    assert state.removal_assents == frozenset()
    assert state.requests[1].status is RequestStatus.ANSWERED  # the ruling stands


async def test_a_store_with_an_old_snapshot_and_old_logged_reactions_loads(tmp_path: Path) -> None:
    """The service's own path: the snapshot, then the actions logged after it, in their old shape."""
    body = (SNAPSHOTS / "round_with_vote_pairs.json").read_text(encoding="utf-8")
    old = RoundState.model_validate_json(body)
    store = await Store.open(tmp_path / "old.db")
    try:
        logged = [  # as the code before variants logged them: no variant
            ("frank", {"kind": "react", "message": "u1", "vote": "for", "added": True}),
            ("erin", {"kind": "react", "message": "u1", "vote": "against", "added": False}),
        ]
        for n, (who, action) in enumerate(logged, start=1):
            at = old.clock + timedelta(minutes=n)
            ctx = context(who, PROP, at).model_copy(update={"event_id": f"old{n}"})
            entry = json.dumps({"ctx": json.loads(ctx.model_dump_json()), "action": action})
            seed = old.seed if n == 1 else None  # the guild's row comes with its first logged action
            await store.append(
                "g", seq=old.seq + n, event_id=f"old{n}", at=at, actor=who, kind="react", body=entry, seed=seed
            )
        await store.write_snapshot("g", seq=old.seq, at=old.clock, body=body)
        service = RoundService(store)
        state = await service.state("g")
        assert state is not None
        assert state.seq == old.seq + 2
        assert tally(state, "u1") == (2, 1)  # carol and frank for; dave against (erin's went)
        ctx = context("carol", PROP, old.clock + timedelta(hours=1)).model_copy(update={"event_id": "new1"})
        outcome = await service.act("g", ctx, React(message="u1", vote=FOR, variant="👍🏽", added=False))
        assert outcome.accepted
        assert tally(await service.state("g"), "u1") == (1, 1)  # her vote from before went with it
    finally:
        await store.close()


# --- the judge who stops being a player -------------------------------------------------------


@pytest.mark.parametrize("left_server", [False, True])
def test_a_judge_who_stops_being_a_player_stops_being_judge(left_server: bool) -> None:
    state = judged()
    state = do(state, "bob", MakeRequest(text="Are lots public?"), at=day(7, 1, 30))
    state = do(state, "jude", GiveRuling(number=1, text="Yes"), at=day(7, 2))
    state = do(state, "carol", Challenge(number=1), at=day(7, 3))
    state = do(state, "carol", CastConfidence(number=1, overturn=True), at=day(7, 4))
    state = do(state, "alice", AssentRemoval(), at=day(7, 5))
    channel = ChannelRole.OTHER if left_server else GA
    step = engine.apply(state, context("jude", channel, day(8)), Leave(left_server=left_server), random.Random(0))
    state = step.state
    assert state.judge is None
    assert state.judge_name is None
    assert state.removal_assents == frozenset()
    (changed,) = [e for e in step.events if isinstance(e, JudgeChanged)]
    assert changed.announce() is ChannelRole.JUDGE_ELECTIONS
    assert "jude" in changed.text()
    assert "empty until the next election" in changed.text()
    # the office is empty: no one rules, no one is removed
    refused(state, "jude", GiveRuling(number=2, text="Still me"), NotAllowedError, at=day(8, 1))
    # the ruling in force stands, the open request waits, the running vote runs to its end
    assert state.requests[1].status is RequestStatus.ANSWERED
    assert state.requests[2].status is RequestStatus.OPEN
    state, events = tick_events(state, day(9, 3))
    assert [(e.number, e.overturned) for e in events if isinstance(e, ConfidenceDecided)] == [(1, True)]
    # a later judge answers the waiting request
    state = elect(state, "carol", 2)
    state = do(state, "carol", GiveRuling(number=2, text="They are."), at=day(14, 1))
    assert state.requests[2].status is RequestStatus.ANSWERED


def test_a_player_who_leaves_while_not_judge_changes_no_office() -> None:
    state = judged()
    step = engine.apply(state, context("alice", GA, day(8)), Leave(), random.Random(0))
    assert step.state.judge == "jude"
    assert not [e for e in step.events if isinstance(e, JudgeChanged)]


async def test_router_announces_the_empty_office_in_judge_elections(desk: Desk) -> None:
    await desk.say("bob", ELECT, "bob for judge", day(0, 2), "c1")
    await desk.router.reaction("g", desk.ctx("alice", ELECT, day(0, 3), "r1"), "c1", "👍", added=True)
    await desk.router.due_work("g", day(7))
    assert (await desk.state()).judge == "bob"
    posts = await desk.say("bob", GA, "!leave", day(7, 1), "leave1")
    assert [p.channel for p in posts] == [None, ChannelRole.JUDGE_ELECTIONS]
    assert "bob is no longer a player" in posts[0].text
    assert "no longer the judge" in posts[0].text  # the answer says it too
    assert "no longer the judge" in posts[1].text
    assert posts[1].reply_to is None
    assert (await desk.state()).judge is None


# --- the judge's own requests ----------------------------------------------------------------


def test_the_judge_never_rules_on_their_own_request() -> None:
    state = start()
    state = do(state, "alice", MakeRequest(text="May I bid zero?"), at=day(1))
    state = elect(state, "alice", 1)
    message = refused(state, "alice", GiveRuling(number=1, text="Yes."), NotAllowedError, at=day(7, 1))
    assert "your own request" in message
    assert "another judge" in message
    assert "waits for another judge" in rulings(state)
    state = elect(state, "bob", 2)
    state = do(state, "bob", GiveRuling(number=1, text="No."), at=day(14, 1))
    assert state.requests[1].status is RequestStatus.ANSWERED
    assert "waits for another judge" not in rulings(state)


# --- votes of confidence ---------------------------------------------------------------------


def ruled() -> RoundState:
    """Jude's ruling on request 1 given at day 7, 02:00: challengeable until day 11, 02:00."""
    state = judged()
    return do(state, "jude", GiveRuling(number=1, text="Yes."), at=day(7, 2))


def test_after_a_vote_lets_the_ruling_stand_another_may_follow_within_four_days() -> None:
    state = ruled()
    state = do(state, "bob", Challenge(number=1), at=day(8))
    state = do(state, "alice", CastConfidence(number=1, overturn=False), at=day(8, 1))
    state = tick(state, day(10))
    assert state.requests[1].status is RequestStatus.ANSWERED
    assert state.requests[1].confidence is None
    state = do(state, "carol", Challenge(number=1), at=day(10, 1))  # a second vote
    vote = state.requests[1].confidence
    assert vote is not None
    assert vote.votes == {}  # it starts empty
    refused(state, "dave", Challenge(number=1), ConflictError, at=day(10, 2))  # one at a time
    state = do(state, "dave", CastConfidence(number=1, overturn=True), at=day(10, 3))
    state = tick(state, day(12, 1))
    assert state.requests[1].status is RequestStatus.OVERTURNED
    # the four days run from the ruling, not from the votes
    state = ruled()
    state = do(state, "bob", Challenge(number=1), at=day(9))
    state = tick(state, day(11))
    refused(state, "carol", Challenge(number=1), WrongPhaseError, at=day(11, 2, 0, 1))


def test_replacing_a_ruling_ends_its_vote_and_the_new_one_can_be_challenged_afresh() -> None:
    state = ruled()
    state = do(state, "bob", Challenge(number=1), at=day(8))
    state = do(state, "alice", CastConfidence(number=1, overturn=True), at=day(8, 1))
    step = engine.apply(
        state, context("jude", GA, day(9)), GiveRuling(number=1, text="On reflection, no."), random.Random(0)
    )
    state = step.state
    assert state.requests[1].confidence is None
    (given,) = [e for e in step.events if isinstance(e, RulingGiven)]
    text = given.text()
    assert "vote of confidence" in text
    assert "ended" in text
    assert "replaced" in text
    assert "afresh" in text
    assert "`!overturn 1`" in text
    # nothing is decided when the old vote would have ended
    state, events = tick_events(state, day(10))
    assert not [e for e in events if isinstance(e, ConfidenceDecided)]
    # afresh: four days from the new ruling, past the old one's
    state = do(state, "carol", Challenge(number=1), at=day(12, 23))
    assert state.requests[1].confidence is not None
    assert state.requests[1].confidence.votes == {}


def test_replacing_a_ruling_with_no_vote_running_says_nothing_of_a_vote() -> None:
    state = ruled()
    step = engine.apply(state, context("jude", GA, day(9)), GiveRuling(number=1, text="No."), random.Random(0))
    (given,) = [e for e in step.events if isinstance(e, RulingGiven)]
    assert "vote of confidence" not in given.text()


# --- removal assents belong to one term ------------------------------------------------------


def test_a_re_elected_judge_starts_with_no_assents() -> None:
    state = judged()
    state = do(state, "alice", AssentRemoval(), at=day(8))
    assert state.removal_assents == {"alice"}
    state = elect(state, "jude", 2)
    assert state.judge == "jude"
    assert state.removal_assents == frozenset()
    state = do(state, "bob", AssentRemoval(), at=day(14, 1))
    assert state.judge == "jude"  # one assent of this term
    state = do(state, "alice", AssentRemoval(), at=day(14, 2))
    assert state.judge is None


# --- standard proposals: the voting window ---------------------------------------------------


THURSDAY = day(4)
SPM, SPM2 = Items(spm=1), Items(spm=2)
NEXT_SUNDAY = day(7)


async def test_a_standard_proposal_answer_names_its_voting_window(desk: Desk) -> None:
    await desk.router.service.act("g", desk.ctx(MOD, GA, day(0, 2), "g1"), AdminGive(target="alice", items=SPM))
    (post,) = await desk.say("alice", PROP, "Lots hold three cards.", day(1, 10), "s1")
    text = post.text
    assert "Thu 2026-12-10 00:00 UTC" in text
    assert "Sun 2026-12-13 00:00 UTC" in text
    assert f"<t:{unix(THURSDAY)}:F>" in text
    assert f"<t:{unix(NEXT_SUNDAY)}:F>" in text
    assert f"<t:{unix(NEXT_SUNDAY)}:R>" in text
    assert text.index("Thu 2026-12-10") < text.index("Sun 2026-12-13")
    # an urgent one: from now for 48 hours
    (post,) = await desk.say("bob", PROP, "urgent: fix the typo", day(1, 11), "u1")
    assert "Wed 2026-12-09 11:00 UTC" in post.text
    assert f"<t:{unix(day(3, 11))}:F>" in post.text
    assert f"<t:{unix(day(3, 11))}:R>" in post.text


async def test_a_standard_proposal_made_in_bartering_votes_through_the_next_auction(desk: Desk) -> None:
    await desk.router.service.act("g", desk.ctx(MOD, GA, day(0, 2), "g1"), AdminGive(target="alice", items=SPM))
    (post,) = await desk.say("alice", PROP, "Lots hold three cards.", day(5), "s1")
    assert "Sun 2026-12-13 00:00 UTC" in post.text
    assert "Thu 2026-12-17 00:00 UTC" in post.text


async def test_when_the_phase_starts_proposals_lists_the_votes_that_open(desk: Desk) -> None:
    await desk.router.service.act("g", desk.ctx(MOD, GA, day(0, 2), "g1"), AdminGive(target="alice", items=SPM2))
    await desk.say("alice", PROP, "Lots hold three cards.", day(1), "s1")
    await desk.say("alice", PROP, "Bids start at five\npoints.", day(2), "s2")
    await desk.say("bob", PROP, "urgent: not this one", day(2), "u1")
    posts = await desk.router.due_work("g", THURSDAY)
    opened = [p for p in posts if p.channel is PROP and "Voting opens" in p.text]
    assert len(opened) == 1
    text = opened[0].text
    assert "Proposal 1 by alice: Lots hold three cards." in text
    assert "Proposal 2 by alice: Bids start at five points." in text
    assert "Proposal 3" not in text
    assert "Sun 2026-12-13 00:00 UTC" in text
    assert f"<t:{unix(NEXT_SUNDAY)}:F>" in text
    assert f"<t:{unix(NEXT_SUNDAY)}:R>" in text
    assert opened[0].reply_to is None
    # a phase change with nothing waiting says nothing in #proposals
    posts = await desk.router.due_work("g", NEXT_SUNDAY)
    assert not [p for p in posts if p.channel is PROP and "Voting opens" in p.text]


def test_votes_opening_without_a_known_end_still_list_the_proposals() -> None:
    state = give_spm(start(), "alice")
    state = propose(state, "alice", "s1", "A rule.", at=day(1))
    step = engine.advance(state, Tick(at=THURSDAY, boundaries=(BoundaryKind.AUCTION_END,)), random.Random(1))
    (opened,) = [e for e in step.events if isinstance(e, ProposalVotingOpens)]
    assert opened.channel is PROP
    assert "Proposal 1 by alice: A rule." in opened.text()
    assert "until the bartering phase ends" in opened.text()


async def test_talk_outside_proposals_never_becomes_a_proposal(desk: Desk) -> None:
    for n, channel in enumerate((GA, ChannelRole.AUCTIONS, ChannelRole.OTHER)):
        assert await desk.say("alice", channel, "urgent: I think we should talk", day(1, n), f"t{n}") == []
    assert (await desk.state()).proposals == {}


# --- wording ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("players", "text"),
    [(1, "The one player gains 100 points."), (2, "Each of the 2 players gains 100 points.")],
)
def test_points_granted_reads_well_for_one_player(players: int, text: str) -> None:
    assert PointsGranted(100, players).text() == text


def test_points_granted_at_the_week_start_for_a_lone_player() -> None:
    state = to_thursday(start(("alice",)))
    _, events = tick_events(state, NEXT_SUNDAY, BoundaryKind.AUCTION_START)
    assert [e.text() for e in events if isinstance(e, PointsGranted)] == ["The one player gains 100 points."]


def test_a_moderator_correcting_their_own_holdings_is_named_once() -> None:
    """Allowed (a lone moderator who plays needs it) and public, so in the third person."""
    state = start((*PLAYERS, MOD))

    def said(action: AdminGive | AdminTake) -> list[str]:
        nonlocal state
        step = engine.apply(state, context(MOD, GA, day(1)), action, random.Random())
        state = step.state
        return [e.text() for e in step.events]

    assert said(AdminGive(target=MOD, items=Items(points=5))) == ["mod gave themselves 5 points."]
    assert said(AdminTake(target=MOD, items=Items(points=2))) == ["mod took 2 points from themselves."]
    assert said(AdminGive(target="alice", items=Items(points=1))) == ["mod gave alice 1 point."]
    assert state.players[MOD].points == 3


@pytest.mark.parametrize("ruling", ["Yes", "No, because lots are public", "Two lines\nof ruling", "Done."])
def test_a_ruling_is_quoted_apart_from_the_sentences_around_it(ruling: str) -> None:
    state = judged()
    step = engine.apply(state, context("jude", GA, day(7, 2)), GiveRuling(number=1, text=ruling), random.Random())
    (given,) = [e for e in step.events if isinstance(e, RulingGiven)]
    lines = given.text().splitlines()
    quoted = [line.removeprefix("> ") for line in lines if line.startswith("> ")]
    assert quoted == ruling.splitlines()
    rest = [line for line in lines if not line.startswith("> ")]
    assert rest[0] == "Judge jude rules on request 1:"
    assert rest[-1].startswith("It can be challenged with `!overturn 1` until")
