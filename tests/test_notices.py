"""Outbid notices: opt-in, told to the outbid player alone, at most one a minute naming every lot,
never a card; and ``!notify`` itself."""

from __future__ import annotations

import itertools
import random
import re
from datetime import datetime, timedelta

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from games.nomic import engine, notices
from games.nomic.actions import AcceptTrade, Action, AdminLot, Leave, OfferTrade, PlaceBid, SetNotice, Tick
from games.nomic.common import Transition
from games.nomic.events import Event
from games.nomic.notices import NOTICE_INTERVAL, OutbidNotice
from games.nomic.phases import BoundaryKind
from games.nomic.state import RoundState
from scheduler.due import next_tick
from tests.support import AUC, MOD, MONDAY, THURSDAY, cards, ctx, give, items, new_round

CARD = re.compile(r"\b(10|[2-9AJQK])[SHCD]\b")


def step(state: RoundState, actor: str, action: Action, at: datetime) -> Transition:
    where = AUC if isinstance(action, PlaceBid) else ctx(actor).channel
    return engine.apply(state, ctx(actor, where, at), action, random.Random(0))


def told(events: tuple[Event, ...]) -> list[OutbidNotice]:
    return [e for e in events if isinstance(e, OutbidNotice)]


def auction(*players: str, lots: int = 3, points: int = 500) -> RoundState:
    state = new_round(players=players)
    for name in players:
        state = give(state, name, points=points)
    for n in range(lots):
        state = step(state, MOD, AdminLot(cards=cards(["AS KH", "2D 3D", "QC QH", "7S 8S"][n % 4])), MONDAY).state
    return state


def opt_in(state: RoundState, *players: str) -> RoundState:
    for name in players:
        state = step(state, name, SetNotice(notice="outbid", on=True), MONDAY).state
    return state


def test_a_beaten_bid_is_told_to_its_bidder_alone_when_they_asked() -> None:
    state = auction("alice", "bob")
    state = step(state, "bob", PlaceBid(lot=1, amount=10), MONDAY).state
    quiet = step(state, "alice", PlaceBid(lot=1, amount=15), MONDAY)
    assert told(quiet.events) == [], "notices are opt-in"

    state = opt_in(state, "bob")
    loud = step(state, "alice", PlaceBid(lot=1, amount=15), MONDAY)
    [notice] = told(loud.events)
    assert notice.recipient() == "bob"
    assert notice.lines == ("Lot 1: your bid of 10 was beaten; the highest valid bid is now 15 by alice.",)
    assert loud.state.outbid_sent == {"bob": MONDAY}
    answer = "\n".join(e.text() for e in loud.events if e.recipient() is None)
    assert "Auction news" not in answer, "the bidder's answer does not carry bob's notice"


def test_raising_your_own_bid_is_no_notice() -> None:
    state = opt_in(auction("alice"), "alice")
    state = step(state, "alice", PlaceBid(lot=1, amount=10), MONDAY).state
    assert told(step(state, "alice", PlaceBid(lot=1, amount=20), MONDAY).events) == []


def test_one_notice_a_minute_naming_every_lot_lost_in_it() -> None:
    state = opt_in(auction("alice", "bob"), "bob")
    for lot in (1, 2, 3):
        state = step(state, "bob", PlaceBid(lot=lot, amount=10), MONDAY).state
    first = step(state, "alice", PlaceBid(lot=1, amount=11), MONDAY)
    assert len(told(first.events)) == 1
    state = first.state
    for lot, seconds in ((2, 10), (3, 20)):
        outbid = step(state, "alice", PlaceBid(lot=lot, amount=11), MONDAY + timedelta(seconds=seconds))
        assert told(outbid.events) == [], "within the minute the notice waits"
        state = outbid.state
    assert [i.lot for i in state.outbid_pending["bob"]] == [2, 3]
    due = MONDAY + NOTICE_INTERVAL
    assert next_tick(state) == Tick(at=due), "the minute's end is scheduled work"
    flushed = engine.advance(state, next_tick(state), random.Random(0))
    [notice] = told(flushed.events)
    assert notice.player == "bob"
    assert [line.split(":")[0] for line in notice.lines] == ["Lot 2", "Lot 3"]
    assert flushed.state.outbid_pending == {}
    assert flushed.state.outbid_sent == {"bob": due}
    state = step(flushed.state, "bob", PlaceBid(lot=1, amount=30), due + timedelta(seconds=1)).state
    again = step(state, "alice", PlaceBid(lot=1, amount=31), due + timedelta(seconds=5))
    assert told(again.events) == []
    assert next_tick(again.state).at == due + NOTICE_INTERVAL


def test_a_lead_taken_back_within_the_minute_is_not_told() -> None:
    state = opt_in(auction("alice", "bob"), "bob")
    state = step(state, "bob", PlaceBid(lot=1, amount=10), MONDAY).state
    state = step(state, "bob", PlaceBid(lot=2, amount=10), MONDAY).state
    state = step(state, "alice", PlaceBid(lot=1, amount=11), MONDAY).state  # told at once
    state = step(state, "alice", PlaceBid(lot=2, amount=11), MONDAY + timedelta(seconds=5)).state
    state = step(state, "bob", PlaceBid(lot=2, amount=12), MONDAY + timedelta(seconds=9)).state
    flushed = engine.advance(state, next_tick(state), random.Random(0))
    assert told(flushed.events) == []
    assert flushed.state.outbid_pending == {}


def test_a_bid_a_trade_made_unaffordable_is_told_and_names_no_card() -> None:
    state = opt_in(auction("alice", "bob", points=100), "bob")
    state = give(state, "bob", hand="AS KS")
    state = step(state, "bob", PlaceBid(lot=1, amount=80), MONDAY).state
    offer = OfferTrade(target="alice", give=items(points=50, hand="AS KS"), get=items())
    state = step(state, "bob", offer, MONDAY).state
    accepted = step(state, "alice", AcceptTrade(number=1), MONDAY + timedelta(minutes=5))
    [notice] = told(accepted.events)
    assert notice.player == "bob"
    assert notice.lines == (
        "Lot 1: your bid of 80 no longer counts: you could no longer afford it (you had 50 points left).",
    )
    assert not CARD.search(notice.text()), notice.text()


def test_a_payment_at_settlement_that_lapses_a_later_bid_is_told() -> None:
    state = opt_in(auction("alice", "bob", points=100), "bob")
    state = step(state, "bob", PlaceBid(lot=1, amount=60), MONDAY).state
    state = step(state, "bob", PlaceBid(lot=2, amount=50), MONDAY).state
    settled = engine.advance(state, Tick(at=THURSDAY, boundaries=(BoundaryKind.AUCTION_END,)), random.Random(0))
    [notice] = told(settled.events)
    assert notice.lines == (
        "Lot 2: your bid of 50 no longer counts: you could no longer afford it (you had 40 points left).",
    )


def test_opting_out_drops_what_waits_and_a_leaver_hears_nothing() -> None:
    state = opt_in(auction("alice", "bob", "carol"), "bob", "carol")
    for who, lot in (("bob", 1), ("bob", 2), ("carol", 3)):
        state = step(state, who, PlaceBid(lot=lot, amount=10), MONDAY).state
    state = step(state, "alice", PlaceBid(lot=1, amount=11), MONDAY).state
    state = step(state, "alice", PlaceBid(lot=3, amount=11), MONDAY).state
    state = step(state, "alice", PlaceBid(lot=2, amount=11), MONDAY + timedelta(seconds=1)).state
    assert set(state.outbid_pending) == {"bob"}
    off = step(state, "bob", SetNotice(notice="outbid", on=False), MONDAY + timedelta(seconds=2))
    assert off.state.outbid_pending == {}
    assert [e.text() for e in off.events] == ["Outbid notices are off for you: no DMs about your bids."]
    state = step(off.state, "carol", PlaceBid(lot=3, amount=20), MONDAY + timedelta(seconds=3)).state
    state = step(state, "alice", PlaceBid(lot=3, amount=21), MONDAY + timedelta(seconds=4)).state
    assert set(state.outbid_pending) == {"carol"}
    gone = step(state, "carol", Leave(), MONDAY + timedelta(seconds=5))
    flushed = engine.advance(gone.state, next_tick(gone.state), random.Random(0))
    assert told(flushed.events) == []


def test_notify_settings_are_kept_by_member_and_only_when_not_the_defaults() -> None:
    state = new_round(players=["alice"])
    on = step(state, "zed", SetNotice(notice="outbid", on=True), MONDAY)
    assert on.state.notices_of("zed").outbid, "a member who is not a player yet may choose"
    assert on.events[0].text().startswith("Outbid notices are on for you:")
    twice = step(on.state, "zed", SetNotice(notice="outbid", on=True), MONDAY)
    assert twice.state is on.state, "choosing what is chosen changes nothing (and logs nothing)"
    assert twice.events[0].text() == "Outbid notices were already on for you."
    back = step(on.state, "zed", SetNotice(notice="outbid", on=False), MONDAY).state
    assert back.notices == {}
    text = notices.settings_text(on.state, "zed")
    assert "Outbid notices: **on**" in text
    assert "Personal reminders: **on**" in text


# --- a property: however bids and trades come, at most one notice a player a minute, no card --------

_bidders = ["alice", "bob", "carol"]
_moves = st.lists(
    st.tuples(
        st.integers(min_value=1, max_value=50),  # seconds after the previous move
        st.sampled_from(_bidders),
        st.integers(min_value=1, max_value=3),  # the lot
        st.integers(min_value=1, max_value=6),  # how much above the top
        st.booleans(),  # a trade of points instead of a bid
    ),
    min_size=1,
    max_size=40,
)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_moves)
def test_never_two_notices_to_a_player_within_a_minute(moves: list[tuple[int, str, int, int, bool]]) -> None:
    state = opt_in(auction(*_bidders, points=60), *_bidders)
    at = MONDAY
    sent: dict[str, list[datetime]] = {}

    def note(events: tuple[Event, ...], when: datetime) -> None:
        for notice in told(events):
            sent.setdefault(notice.player, []).append(when)
            assert not CARD.search(notice.text())
            lots = [line.split(":")[0] for line in notice.lines]
            assert len(lots) == len(set(lots)), "each lot once"

    for seconds, who, lot, above, trade in moves:
        at += timedelta(seconds=seconds)
        while (tick := next_tick(state)).at <= at:
            applied = engine.advance(state, tick, random.Random(0))
            note(applied.events, tick.at)
            state = applied.state
        if trade:
            other = next(p for p in _bidders if p != who)
            try:
                state = step(state, who, OfferTrade(target=other, give=items(points=5), get=items()), at).state
                done = step(state, other, AcceptTrade(number=state.next_trade - 1), at)
            except Exception:  # noqa: BLE001, S112 - an unaffordable offer is just not made
                continue
        else:
            top = max((b.amount for b in state.lots[lot].bids), default=0)
            try:
                done = step(state, who, PlaceBid(lot=lot, amount=top + above), at)
            except Exception:  # noqa: BLE001, S112 - an unaffordable bid is refused
                continue
        note(done.events, at)
        state = done.state
    for times in sent.values():
        assert all(later - earlier >= NOTICE_INTERVAL for earlier, later in itertools.pairwise(times))
