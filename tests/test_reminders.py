"""Reminders before deadlines: each at its instant, once, where it belongs; options and opt-out;
caught up after downtime only while its deadline is ahead; never a card."""

from __future__ import annotations

import random
import re
from datetime import datetime, timedelta
from pathlib import Path

from bot.router import Router, fresh
from data.store import Store
from games.nomic import engine
from games.nomic.actions import (
    Action,
    AdminGive,
    AdminLot,
    AdminSet,
    Challenge,
    GiveRuling,
    MakeRequest,
    PlaceBid,
    PresentHand,
    Propose,
    React,
    SetNotice,
    Stand,
    StartRound,
)
from games.nomic.context import ChannelRole, Context
from games.nomic.events import Event
from games.nomic.phases import Phase
from games.nomic.reminders import AuctionEnding, ConfidenceEnding, JudgeReminder, PresentReminder, VotesEnding
from games.nomic.ruleset import Ruleset
from games.nomic.service import RoundService
from games.nomic.state import RoundState, Vote
from scheduler.due import next_tick
from tests.support import AUC, GA, MOD, MONDAY, NEXT_SUNDAY, SATURDAY, SUNDAY, THURSDAY, cards, ctx, items, new_round

WEDNESDAY = SUNDAY + timedelta(days=3)
FRIDAY_MIDNIGHT = SATURDAY - timedelta(days=1)
CARD = re.compile(r"\b(10|[2-9AJQK])[SHCD]\b")
HAND = "AS KS QS JS 10S"
Move = tuple[datetime, str, Action]


def channel_of(action: Action) -> ChannelRole:
    if isinstance(action, PlaceBid):
        return AUC
    if isinstance(action, Propose):
        return ChannelRole.PROPOSALS
    if isinstance(action, Stand):
        return ChannelRole.JUDGE_ELECTIONS
    return GA


def play(state: RoundState, moves: list[Move], until: datetime) -> tuple[RoundState, list[tuple[datetime, Event]]]:
    """Moves in time order with the scheduled work due before each, as the scheduler runs it; every event."""
    said: list[tuple[datetime, Event]] = []

    def run_due(at: datetime) -> None:
        nonlocal state
        while (tick := next_tick(state)).at <= at:
            applied = engine.advance(state, tick, random.Random(0))
            said.extend((tick.at, e) for e in applied.events)
            state = applied.state

    for at, actor, action in moves:
        run_due(at)
        done = engine.apply(state, ctx(actor, channel_of(action), at), action, random.Random(0))
        said.extend((at, e) for e in done.events)
        state = done.state
    run_due(until)
    return state, said


def of(said: list[tuple[datetime, Event]], kind: type[Event]) -> list[tuple[datetime, Event]]:
    return [(at, e) for at, e in said if isinstance(e, kind)]


def test_the_auctions_last_day_and_hour_are_reminded_in_auctions_once_each() -> None:
    state = new_round(players=["alice"])
    _, quiet = play(state, [], THURSDAY + timedelta(hours=1))
    assert of(quiet, AuctionEnding) == [], "no lots: nothing to remind of"

    moves: list[Move] = [(MONDAY, MOD, AdminLot(cards=cards("AS KH")))]
    _, said = play(state, moves, THURSDAY + timedelta(hours=1))
    found = of(said, AuctionEnding)
    assert [at for at, _ in found] == [WEDNESDAY, THURSDAY - timedelta(hours=1)]
    first, last = (e for _, e in found)
    assert first.channel is ChannelRole.AUCTIONS
    assert first.text().startswith("⏰ The auction ends in under 24 hours, Thu 2026-12-10 00:00 UTC")
    assert "1 lot is up" in first.text()
    assert last.text().startswith("⏰ The auction ends in under an hour")
    assert first.expires() == THURSDAY


def test_players_holding_a_hand_who_have_not_presented_get_a_dm_before_placements() -> None:
    state = new_round(Phase.BARTERING, at=THURSDAY + timedelta(hours=1), players=["alice", "bob", "carol", "dave"])
    moves: list[Move] = [
        (THURSDAY + timedelta(hours=2), MOD, AdminGive(target="alice", items=items(hand=HAND))),
        (THURSDAY + timedelta(hours=2), MOD, AdminGive(target="bob", items=items(hand=HAND))),
        (THURSDAY + timedelta(hours=2), MOD, AdminGive(target="carol", items=items(hand="AS KS"))),
        (THURSDAY + timedelta(hours=2), MOD, AdminGive(target="dave", items=items(hand=HAND))),
        (THURSDAY + timedelta(hours=3), "dave", PresentHand(cards=cards(HAND))),
        (THURSDAY + timedelta(hours=4), "bob", SetNotice(notice="reminders", on=False)),
    ]
    _, said = play(state, moves, SATURDAY + timedelta(hours=1))
    found = of(said, PresentReminder)
    assert [(at, e.recipient()) for at, e in found] == [(FRIDAY_MIDNIGHT, "alice")]
    text = found[0][1].text()
    assert text.startswith("⏰ Placements are in under 24 hours, Sat 2026-12-12 00:00 UTC")
    assert not CARD.search(text), "a reminder names no card"


def test_standard_votes_ending_tomorrow_are_reminded_in_proposals() -> None:
    state = new_round(players=["alice", "bob"])
    moves: list[Move] = [
        (MONDAY, MOD, AdminGive(target="alice", items=items(spm=1))),
        (MONDAY, "alice", Propose(message="m1", text="More lots, please.")),
        (MONDAY, "bob", Propose(message="m2", text="urgent: fewer lots")),
    ]
    _, said = play(state, moves, NEXT_SUNDAY + timedelta(hours=1))
    found = of(said, VotesEnding)
    assert [at for at, _ in found] == [SATURDAY], "the standard vote runs through the bartering phase"
    event = found[0][1]
    assert event.channel is ChannelRole.PROPOSALS
    assert "Voting on one proposal ends in under 24 hours, Sun 2026-12-13 00:00 UTC" in event.text()
    assert "- Proposal 1 by alice: More lots, please." in event.text()
    assert "Proposal 2" not in event.text(), "an urgent vote has its own end, announced when it is made"


def _judged(state: RoundState, judge: str) -> RoundState:
    return state.model_copy(update={"judge": judge, "judge_name": judge})


def test_a_vote_of_confidence_ending_within_12_hours_is_reminded() -> None:
    state = _judged(new_round(players=["alice", "bob", "carol"]), "bob")
    start = MONDAY + timedelta(hours=3)
    moves: list[Move] = [
        (MONDAY, "alice", MakeRequest(text="Is a pair of aces a pair?")),
        (MONDAY + timedelta(hours=1), "bob", GiveRuling(number=1, text="Yes.")),
        (start, "carol", Challenge(number=1)),
    ]
    _, said = play(state, moves, start + timedelta(days=3))
    found = of(said, ConfidenceEnding)
    assert [at for at, _ in found] == [start + timedelta(hours=36)]
    assert found[0][1].channel is ChannelRole.GAME_ACTIONS
    assert "`!confidence 1 overturn`" in found[0][1].text()


def test_the_judge_hears_of_requests_waiting_a_day_unless_answered_or_opted_out() -> None:
    state = _judged(new_round(players=["alice", "bob", "carol"]), "bob")
    moves: list[Move] = [
        (MONDAY, "alice", MakeRequest(text="Is a pair of aces a pair?")),
        (MONDAY + timedelta(hours=2), "carol", MakeRequest(text="May I trade nothing for nothing?")),
        (MONDAY + timedelta(hours=3), "bob", GiveRuling(number=2, text="You may.")),
    ]
    _, said = play(state, moves, MONDAY + timedelta(days=2))
    found = of(said, JudgeReminder)
    assert [(at, e.recipient()) for at, e in found] == [(MONDAY + timedelta(days=1), "bob")]
    text = found[0][1].text()
    assert "waiting for your ruling for over a day" in text
    assert "- Request 1 from alice: Is a pair of aces a pair?" in text
    assert "Request 2" not in text

    quiet = [*moves, (MONDAY + timedelta(hours=4), "bob", SetNotice(notice="reminders", on=False))]
    _, said = play(state, quiet, MONDAY + timedelta(days=2))
    assert of(said, JudgeReminder) == []


def test_a_newly_elected_judge_hears_at_once_of_requests_that_waited() -> None:
    state = new_round(players=["alice", "bob"])
    moves: list[Move] = [
        (MONDAY, "alice", MakeRequest(text="Who rules while there is no judge?")),
        (SATURDAY, "bob", Stand(message="c1", text="Vote for me.")),
        (SATURDAY, "alice", React(message="c1", vote=Vote.FOR, variant="👍")),
    ]
    _, said = play(state, moves, NEXT_SUNDAY)
    found = of(said, JudgeReminder)
    assert [(at, e.recipient()) for at, e in found] == [(NEXT_SUNDAY, "bob")]
    assert found[0][1].text().startswith("⏰ You are the judge now, and one request is waiting")


def test_leads_are_options_a_moderator_or_an_amendment_changes() -> None:
    state = new_round(players=["alice"])
    lots = [(MONDAY, MOD, AdminLot(cards=cards("AS KH")))]
    off = [*lots, (MONDAY, MOD, AdminSet(option="reminders.auction_end_hours", value="off"))]
    _, said = play(state, off, THURSDAY)
    assert of(said, AuctionEnding) == []
    six = [*lots, (MONDAY, MOD, AdminSet(option="reminders.auction_end_hours", value="6"))]
    _, said = play(state, six, THURSDAY)
    assert [at for at, _ in of(said, AuctionEnding)] == [THURSDAY - timedelta(hours=6)]
    ruleset = Ruleset().with_option("reminders.auction_end_hours", "2")
    assert ruleset.reminders.auction_end_hours == (2,)
    assert Ruleset().with_option("reminders.auction_end_hours", "on").reminders.auction_end_hours == (24, 1)


def test_reminders_change_nothing_but_the_clock() -> None:
    state = new_round(players=["alice"])
    state, _ = play(state, [(MONDAY, MOD, AdminLot(cards=cards("AS KH")))], MONDAY)
    tick = next_tick(state)
    assert tick.at == WEDNESDAY
    after = engine.advance(state, tick, random.Random(0)).state
    assert after.model_copy(update={"clock": state.clock, "seq": state.seq}) == state


# --- on a store: caught up after downtime, and never twice across a restart -----------------------


def _ctx(actor: str, at: datetime, n: int, channel: ChannelRole = GA) -> Context:
    return Context(actor=actor, actor_name=actor, channel=channel, at=at, is_moderator=actor == MOD, event_id=f"m{n}")


async def _round_with_a_lot(path: Path) -> Store:
    store = await Store.open(path)
    service = RoundService(store)
    start = StartRound(ruleset=Ruleset(), phase=Phase.AUCTION, presenting_open=False, moderators=(MOD,))
    await service.start("g", _ctx("setup", MONDAY, 0, ChannelRole.OTHER), start)
    await service.act("g", _ctx(MOD, MONDAY, 1), AdminLot(cards=cards("AS KH")))
    return store


async def test_a_reminder_caught_up_after_its_deadline_is_not_posted(tmp_path: Path) -> None:
    store = await _round_with_a_lot(tmp_path / "r.db")
    try:
        router = Router(RoundService(store))
        back = THURSDAY + timedelta(minutes=30)  # down from Monday to after the auction's end
        posts = await router.due_work("g", back)
        late = [p for p in posts if p.text.startswith("⏰")]
        assert len(late) == 2, "both instants were applied, in order"
        assert fresh(posts, back) == [p for p in posts if not p.text.startswith("⏰")]
        assert any(p.text.startswith("Lot 1") for p in fresh(posts, back)), "the settlement is still posted"
    finally:
        await store.close()


async def test_a_reminder_missed_while_down_comes_once_on_restart_and_never_again(tmp_path: Path) -> None:
    path = tmp_path / "r.db"
    store = await _round_with_a_lot(path)
    await store.close()
    back = WEDNESDAY + timedelta(hours=5)  # down across the 24-hour reminder; its deadline is ahead
    store = await Store.open(path)
    try:
        posts = fresh(await Router(RoundService(store)).due_work("g", back), back)
        assert [p.text[:40] for p in posts] == ["⏰ The auction ends in under 24 hours, Th"]
        assert posts[0].channel is ChannelRole.AUCTIONS
    finally:
        await store.close()
    store = await Store.open(path)  # another restart, later the same hour
    try:
        assert await Router(RoundService(store)).due_work("g", back + timedelta(minutes=10)) == []
    finally:
        await store.close()
