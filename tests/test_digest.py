"""The week's review: built from the week's records before the archive takes them, within Discord's
limits for one embed however busy the week, and with the thread games that ended in it."""

from __future__ import annotations

import io
import random
from datetime import datetime, timedelta
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bot.bench.digest import busy_week, finished_games, week_end
from bot.discord.render.embeds import review
from bot.sim.replay import read_scenario, replay
from games.nomic import digest, engine
from games.nomic.actions import (
    Action,
    AdminGive,
    AdminLot,
    AdminSet,
    GiveRuling,
    MakeRequest,
    PlaceBid,
    PresentHand,
    Propose,
    React,
    Stand,
)
from games.nomic.cards import Card
from games.nomic.context import ChannelRole
from games.nomic.digest import (
    DESCRIPTION_LIMIT,
    FIELD_NAME_LIMIT,
    FIELD_VALUE_LIMIT,
    FIELDS_LIMIT,
    FOOTER_LIMIT,
    TITLE_LIMIT,
    TOTAL_LIMIT,
    Digest,
    FinishedGame,
    ProposalNote,
    RulingNote,
    VersionNote,
    WeekRecords,
    WeekReviewed,
)
from games.nomic.state import PlacementRecord, RoundState, SaleRecord, Vote
from scheduler.due import next_tick
from tests.support import AUC, GA, MOD, MONDAY, NEXT_SUNDAY, SATURDAY, SUNDAY, THURSDAY, cards, ctx, items, new_round

SCENARIOS = Path(__file__).parent / "scenarios"


def within_limits(d: Digest) -> None:
    assert len(d.title) <= TITLE_LIMIT
    assert len(d.description) <= DESCRIPTION_LIMIT
    assert len(d.fields) <= FIELDS_LIMIT
    assert len(d.footer) <= FOOTER_LIMIT
    for name, value in d.fields:
        assert 0 < len(name) <= FIELD_NAME_LIMIT
        assert 0 < len(value) <= FIELD_VALUE_LIMIT, (name, len(value))
    assert d.size <= TOTAL_LIMIT
    assert len(review(d)) == d.size, "Discord counts the embed as the review does"


def channel_of(action: Action) -> ChannelRole:
    if isinstance(action, PlaceBid):
        return AUC
    if isinstance(action, Propose):
        return ChannelRole.PROPOSALS
    if isinstance(action, Stand):
        return ChannelRole.JUDGE_ELECTIONS
    return GA


def play(state: RoundState, moves: list[tuple[datetime, str, Action]], until: datetime) -> RoundState:
    for at, actor, action in [*moves, (until, "", None)]:
        while (tick := next_tick(state)).at < at:
            state = engine.advance(state, tick, random.Random(0)).state
        if action is not None:
            state = engine.apply(state, ctx(actor, channel_of(action), at), action, random.Random(0)).state
    return state


HAND = "AS KS QS JS 10S"


def a_week() -> tuple[RoundState, WeekReviewed]:
    """A week with a sale, a placement, two proposals decided, a ruleset change, a ruling and an election."""
    state = new_round(players=["alice", "bob", "carol"])
    state = state.model_copy(update={"judge": "carol", "judge_name": "carol"})
    moves: list[tuple[datetime, str, Action]] = [
        (MONDAY, MOD, AdminLot(cards=cards("AS KH"))),
        (MONDAY, MOD, AdminGive(target="alice", items=items(points=100, spm=1))),
        (MONDAY, MOD, AdminGive(target="bob", items=items(points=100))),
        (MONDAY, "alice", PlaceBid(lot=1, amount=10)),
        (MONDAY, "bob", PlaceBid(lot=1, amount=12)),
        (MONDAY, "bob", Propose(message="u1", text="urgent: more lots")),
        (MONDAY, "alice", React(message="u1", vote=Vote.AGAINST, variant="👎")),
        (MONDAY, "alice", Propose(message="s1", text="Deal six cards a lot.")),
        (MONDAY, "alice", MakeRequest(text="Is a pair a hand?")),
        (MONDAY, "carol", GiveRuling(number=1, text="Yes, a small one.")),
        (MONDAY, MOD, AdminSet(option="auction.lots_per_auction", value="8")),
        (THURSDAY + timedelta(hours=1), MOD, AdminGive(target="alice", items=items(hand=HAND))),
        (THURSDAY + timedelta(hours=2), "alice", PresentHand(cards=cards(HAND))),
        (SATURDAY + timedelta(hours=1), "bob", Stand(message="c1", text="me")),
        (SATURDAY + timedelta(hours=2), "bob", React(message="s1", vote=Vote.FOR, variant="👍")),
    ]
    state = play(state, moves, NEXT_SUNDAY - timedelta(microseconds=1))
    tick = next_tick(state)
    assert tick.at == NEXT_SUNDAY
    events = engine.advance(state, tick, random.Random(0)).events
    return state, next(e for e in events if isinstance(e, WeekReviewed))


def test_the_review_gathers_the_weeks_records_before_the_archive_takes_them() -> None:
    _, event = a_week()
    records = event.records
    assert (records.since, records.until) == (MONDAY, NEXT_SUNDAY)
    assert records.bids == 2
    assert records.sales == (SaleRecord(lot=1, cards=cards("AS KH"), name="bob", amount=12),)
    assert [(p.place, p.name) for p in records.placements] == [(1, "alice")]
    assert [(p.number, p.passed, p.votes_for, p.votes_against) for p in records.proposals] == [
        (1, True, 0, 1),  # urgent: at most two against
        (2, True, 1, 0),  # standard, decided at the week's end itself
    ]
    assert records.versions == (VersionNote(2, "moderator mod", ("auction.lots_per_auction: 6 → 8",)),)
    assert records.rulings == (RulingNote(1, "alice", "carol", "Yes, a small one.", "stands"),)
    assert records.judge == "bob", "the judge just elected"
    text = event.text()
    assert "2 bids; 1 lot sold; 1 hand placed; 2 proposals passed; 1 ruleset change; 1 ruling." in text
    assert "**bob** is the judge this week." in text
    assert "Lot 1 (AS KH): bob, 12 points" in text
    assert "1 by bob passed (0 for, 1 against): urgent: more lots" in text
    assert "Version 2 (moderator mod): auction.lots_per_auction: 6 → 8" in text
    assert "Request 1 from alice: judge carol ruled: Yes, a small one. (stands)" in text


def test_no_review_when_the_ruleset_says_so_and_none_of_an_empty_week() -> None:
    state = new_round(players=["alice"]).model_copy()
    off = state.model_copy(update={"ruleset": state.ruleset.with_option("digest.weekly", "off")})
    for start in (state, off):
        ticked = play(start, [], NEXT_SUNDAY - timedelta(microseconds=1))
        events = engine.advance(ticked, next_tick(ticked), random.Random(0)).events
        found = [e for e in events if isinstance(e, WeekReviewed)]
        if start is off:
            assert found == []
        else:
            assert found
            assert found[0].records.empty, "the adapter posts nothing for a week with nothing in it"


@pytest.fixture(scope="module")
def busy() -> WeekRecords:
    state, until = busy_week(players=300, bids=15_000)
    records, _ = week_end(state, until)
    return records.with_games(finished_games())


def test_a_busy_week_fits_one_embed(busy: WeekRecords) -> None:
    assert busy.bids == 15_000
    assert len(busy.placements) == 300
    built = digest.build(busy)
    within_limits(built)
    assert [name for name, _ in built.fields] == [
        "Lots sold",
        "Placements and prizes",
        "Proposals decided",
        "Ruleset changes",
        "Rulings",
        "Thread games finished",
    ]
    placements = dict(built.fields)["Placements and prizes"]
    assert placements.endswith("… and 290 more places: `!placements` lists them.")
    assert dict(built.fields)["Rulings"].splitlines()[-1].startswith("… and ")


_text = st.text(alphabet=st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=300)
_sales = st.lists(
    st.builds(
        SaleRecord, lot=st.integers(1, 10**6), cards=st.just(cards("AS 10H")), name=_text, amount=st.integers(1, 10**9)
    ),
    max_size=40,
)


@settings(max_examples=80, deadline=None)
@given(
    sales=_sales,
    proposals=st.lists(
        st.builds(
            ProposalNote,
            st.integers(1, 10**6),
            _text,
            st.booleans(),
            st.integers(0, 10**4),
            st.integers(0, 10**4),
            _text,
        ),
        max_size=60,
    ),
    versions=st.lists(
        st.builds(VersionNote, st.integers(2, 10**6), _text, st.lists(_text, max_size=8).map(tuple)), max_size=20
    ),
    rulings=st.lists(
        st.builds(RulingNote, st.integers(1, 10**6), _text, _text, _text, st.sampled_from(["stands", "overturned"])),
        max_size=60,
    ),
    games=st.lists(
        st.builds(
            FinishedGame,
            _text,
            _text,
            _text,
            st.lists(_text, max_size=6).map(tuple),
            st.lists(_text, max_size=3).map(tuple),
            _text,
        ),
        max_size=60,
    ),
    judge=st.one_of(st.none(), _text.filter(bool)),
    places=st.integers(0, 3000),
)
def test_any_week_fits_one_embed(  # noqa: PLR0917 (the drawn parts of a week)
    sales: list[SaleRecord],
    proposals: list[ProposalNote],
    versions: list[VersionNote],
    rulings: list[RulingNote],
    games: list[FinishedGame],
    judge: str | None,
    places: int,
) -> None:
    record = PlacementRecord(place=1, player="p", name="p" * 40, cards=cards(HAND), category="Royal", prize=items(20))
    records = WeekRecords(
        since=SUNDAY,
        until=NEXT_SUNDAY,
        bids=places * 7,
        sales=tuple(sales),
        unsold=tuple(range(1, places % 30)),
        placements=tuple(record.model_copy(update={"place": n}) for n in range(1, places + 1)),
        proposals=tuple(proposals),
        versions=tuple(versions),
        rulings=tuple(rulings),
        judge=judge,
        games=tuple(games),
    )
    within_limits(digest.build(records))


async def test_the_review_names_the_thread_games_that_ended_that_week() -> None:
    lines = read_scenario(SCENARIOS / "table_wikipedia.jsonl", io.StringIO())
    result = await replay(lines, seed="7", until=NEXT_SUNDAY + timedelta(seconds=1))
    [said] = [e for e in result.transcript if e["content"].startswith("**The week in review")]
    assert said["at"] == "2026-12-13T00:00:00Z"
    assert said["channel"] == "game-actions"
    assert (
        "**Thread games finished**\nwikipedia-1 (wikipedia, lost) with alice, bob: The editors lost" in said["content"]
    )


def test_the_reviews_cards_are_only_public_ones() -> None:
    """Lots sold and hands placed were public when they happened; nothing a player holds is named."""
    state, event = a_week()
    held = {c.code for p in state.players.values() for c in p.cards}
    text = event.text()
    shown = {Card.parse(code).code for code in __import__("re").findall(r"\b(?:10|[2-9AJQK])[SHCD]\b", text)}
    public = {"AS", "KH", *HAND.split()}
    assert shown <= public
    assert not (held - public) & shown


LOTS = "Each auction phase offers 8 lots of 2 cards, drawn in public."


def test_the_review_lists_the_rules_each_version_changed_even_when_no_option_did() -> None:
    state = new_round(players=["alice", "bob", "carol"])
    moves: list[tuple[datetime, str, Action]] = [
        (MONDAY, "alice", Propose(message="u1", text='urgent: Replace "highest bid" with "earliest bid" in rule 4.4')),
        (
            MONDAY + timedelta(hours=1),
            "bob",
            Propose(
                message="u2",
                text='urgent: Repeal rule 5.3\nEnact rule 4.5 "Pay": The judge gains 20 points each week.',
            ),
        ),
        (MONDAY + timedelta(hours=2), "carol", Propose(message="u3", text=f"urgent: Amend rule 4.2 to read: {LOTS}")),
    ]
    state = play(state, moves, NEXT_SUNDAY - timedelta(microseconds=1))
    events = engine.advance(state, next_tick(state), random.Random(0)).events
    records = next(e for e in events if isinstance(e, WeekReviewed)).records
    assert [(v.version, v.by, v.rules) for v in records.versions] == [
        (2, "proposal 1", ("rule 4.4 amended",)),
        (3, "proposal 2", ("rule 4.5 “Pay” enacted", "rule 5.3 repealed")),
        (4, "proposal 3", ("rule 4.2 amended",)),  # its words: a value alone is an option's change
    ]
    versions = dict(digest.build(records).fields)["Ruleset changes"].splitlines()
    assert versions == [
        "Version 2 (proposal 1): rule 4.4 amended",
        "Version 3 (proposal 2): rule 4.5 “Pay” enacted; rule 5.3 repealed",
        "Version 4 (proposal 3): rule 4.2 amended; auction.lots_per_auction: 6 → 8",
    ]
    assert records.versions[-1].changes == ("auction.lots_per_auction: 6 → 8",)
