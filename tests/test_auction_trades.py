"""The auction's settlement notes, lot numbers that are never reused, and trade offers that expire.

Rule-level tests in the style of tests/test_rules.py; the router and replay tests of the same
behaviour are in tests/test_commands.py and tests/test_replay.py.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from datetime import datetime, timedelta
from pathlib import Path

import pytest

from bot.router import Router
from data.store import Store
from games.nomic import engine
from games.nomic.actions import (
    AcceptTrade,
    AdminGive,
    AdminLot,
    AdminSet,
    AdminTake,
    CancelTrade,
    DeclineTrade,
    GenerateLot,
    Leave,
    OfferTrade,
    PlaceBid,
    Propose,
    StartRound,
    Tick,
)
from games.nomic.common import change_holding
from games.nomic.context import ChannelRole
from games.nomic.errors import ConflictError, UnknownError
from games.nomic.events import Event, LotSold, LotUnsold, TradesExpired
from games.nomic.items import Items
from games.nomic.phases import BoundaryKind, Phase
from games.nomic.ruleset import OfferExpiry, Ruleset, load_ruleset
from games.nomic.service import RoundService
from games.nomic.state import RoundState, TradeStatus
from games.nomic.trades import MAX_CLOSED_TRADES, MAX_OPEN_OFFERS
from games.nomic.views import ruleset as ruleset_view
from games.nomic.views import trades as trades_view
from tests.support import (
    AUC,
    FRIDAY,
    GA,
    MOD,
    MONDAY,
    NEXT_SUNDAY,
    SATURDAY,
    THURSDAY,
    apply,
    cards,
    ctx,
    give,
    items,
    new_round,
    tick,
)

AE, PL, AS_ = BoundaryKind.AUCTION_END, BoundaryKind.PLACEMENTS, BoundaryKind.AUCTION_START
SNAPSHOTS = Path(__file__).parent / "snapshots"


def auction(*players: str, points: int = 100, ruleset: Ruleset | None = None) -> RoundState:
    state = new_round(Phase.AUCTION, players=players, ruleset=ruleset)
    for p in players:
        state = give(state, p, points=points)
    return state


def with_lots(state: RoundState, *lots: str) -> RoundState:
    for lot in lots:
        state = apply(state, MOD, AdminLot(cards=cards(lot)))
    return state


def bid(state: RoundState, player: str, lot: int, amount: int) -> RoundState:
    return apply(state, player, PlaceBid(lot=lot, amount=amount), AUC)


def offer(state: RoundState, by: str, to: str, give_: str, get: str, *, at: datetime | None = None) -> RoundState:
    action = OfferTrade(target=to, give=Items.parse(give_), get=Items.parse(get))
    return engine.apply(state, ctx(by, GA, at or state.clock), action, random.Random(0)).state


def status(state: RoundState, number: int) -> TradeStatus:
    trade = state.trade(number)
    assert trade is not None, f"trade {number} is not kept"
    return trade.status


def settle(state: RoundState) -> tuple[RoundState, tuple[Event, ...]]:
    step = engine.advance(state, Tick(at=THURSDAY, boundaries=(AE,)), random.Random(0))
    return step.state, step.events


def sold(events: tuple[Event, ...], lot: int) -> LotSold:
    found = [e for e in events if isinstance(e, LotSold) and e.lot == lot]
    assert len(found) == 1, events
    return found[0]


def lapses(event: LotSold | LotUnsold) -> list[tuple[str, int, str]]:
    return [(b.name, b.amount, b.reason) for b in event.lapsed]


# --- why a higher bid did not win -------------------------------------------------------------


def test_settlement_says_a_higher_bid_lapsed_because_its_bidder_paid_for_an_earlier_lot() -> None:
    state = with_lots(auction("alice", "bob"), "AS AH", "KS KH")
    state = bid(state, "alice", 1, 70)
    state = bid(state, "bob", 2, 40)
    state = bid(state, "alice", 2, 50)
    _, events = settle(state)
    lot2 = sold(events, 2)
    assert (lot2.name, lot2.amount) == ("bob", 40)
    assert lapses(lot2) == [("alice", 50, "they paid 70 for lot 1")]
    assert lot2.channel is ChannelRole.AUCTIONS
    assert "alice's higher bid of 50 lapsed: they paid 70 for lot 1." in lot2.text()
    assert lapses(sold(events, 1)) == [], "the winning bid is paid, not lapsed"


def _after_trade(state: RoundState) -> RoundState:
    state = offer(state, "alice", "carol", "60 points", "nothing")
    return apply(state, "carol", AcceptTrade(number=1))


def _after_take(state: RoundState) -> RoundState:
    return apply(state, MOD, AdminTake(target="alice", items=items(60)))


def _after_leave(state: RoundState) -> RoundState:
    return apply(state, "alice", Leave())


def _after_spending(state: RoundState) -> RoundState:
    """Any other way of spending points passes through ``change_holding`` with its own reason."""
    return change_holding(state, "alice", remove=Items(points=60), reason="they spent 60 points on a statue").state


@pytest.mark.parametrize(
    ("cause", "reason"),
    [
        (_after_trade, "they gave 60 points in trade 1"),
        (_after_take, "a moderator took points"),
        (_after_leave, "they stopped being a player"),
        (_after_spending, "they spent 60 points on a statue"),
    ],
)
def test_settlement_keeps_the_reason_known_when_the_bid_lapsed(
    cause: Callable[[RoundState], RoundState], reason: str
) -> None:
    state = with_lots(auction("alice", "bob", "carol"), "AS AH")
    state = bid(state, "bob", 1, 30)
    state = bid(state, "alice", 1, 80)
    state = cause(state)
    assert state.lots[1].lapsed[-1].reason == reason, "kept in the state when the bid lapses"
    _, events = settle(state)
    lot1 = sold(events, 1)
    assert (lot1.name, lot1.amount) == ("bob", 30)
    assert lapses(lot1) == [("alice", 80, reason)]
    assert f"alice's higher bid of 80 lapsed: {reason}." in lot1.text()


def test_lapsed_bids_below_the_winner_are_not_mentioned() -> None:
    state = with_lots(auction("alice", "bob"), "AS AH")
    state = bid(state, "alice", 1, 30)
    state = apply(state, MOD, AdminTake(target="alice", items=items(80)))
    state = bid(state, "bob", 1, 40)
    _, events = settle(state)
    assert lapses(sold(events, 1)) == []


def test_unsold_lot_says_which_bids_lapsed() -> None:
    state = with_lots(auction("alice", "bob"), "AS AH")
    state = bid(state, "alice", 1, 30)
    state = bid(state, "bob", 1, 45)
    state = apply(state, MOD, AdminTake(target="bob", items=items(60)))
    state = apply(state, "alice", Leave())
    after, events = settle(state)
    unsold = [e for e in events if isinstance(e, LotUnsold)]
    assert len(unsold) == 1
    assert lapses(unsold[0]) == [("bob", 45, "a moderator took points"), ("alice", 30, "they stopped being a player")]
    assert "bob's bid of 45 lapsed: a moderator took points." in unsold[0].text()
    assert after.lots[1].lapsed == (), "a carried-over lot starts afresh"


def test_revived_bid_that_does_not_count_at_settlement_says_why() -> None:
    rules = Ruleset().with_option("auction.revive_bids", "true")
    state = with_lots(auction("alice", "bob", ruleset=rules), "AS AH", "KS KH")
    state = bid(state, "alice", 1, 70)
    state = bid(state, "bob", 2, 20)
    state = bid(state, "alice", 2, 50)
    _, events = settle(state)
    lot2 = sold(events, 2)
    assert (lot2.name, lot2.amount) == ("bob", 20)
    assert lapses(lot2) == [("alice", 50, "they paid 70 for lot 1 and had 30 points left")]


def test_many_lapsed_bids_are_summed_up() -> None:
    state = with_lots(auction("alice", "bob", points=1000), "AS AH")
    state = bid(state, "bob", 1, 1)
    for amount in range(10, 70, 10):
        state = bid(state, "alice", 1, amount)
    state = apply(state, "alice", Leave())
    _, events = settle(state)
    lot1 = sold(events, 1)
    assert len(lot1.lapsed) == 6
    text = lot1.text()
    assert "alice's higher bid of 60 lapsed" in text
    assert "10 lapsed" not in text
    assert "and 3 more higher bids lapsed" in text


# --- lot numbers are never reused -------------------------------------------------------------


def test_new_lots_take_the_next_number_never_a_freed_one() -> None:
    state = with_lots(auction("alice"), "AS AH", "KS KH", "QS QH")
    state = bid(state, "alice", 1, 10)
    state = bid(state, "alice", 3, 10)
    state, _ = settle(state)
    assert sorted(state.lots) == [2]
    state = apply(state, "alice", GenerateLot(), at=FRIDAY)
    state = apply(state, MOD, AdminLot(cards=cards("2S 2H")), at=FRIDAY)
    assert sorted(state.lots) == [2, 4, 5]
    state = tick(state, SATURDAY, PL)
    state = tick(state, NEXT_SUNDAY, AS_)
    state = bid(state, "alice", 4, 10)
    step = engine.advance(state, Tick(at=NEXT_SUNDAY + timedelta(days=4), boundaries=(AE,)), random.Random(0))
    # settled in number order, which is the order of creation
    assert [e.lot for e in step.events if isinstance(e, LotSold | LotUnsold)] == [2, 4, 5]
    after = apply(step.state, MOD, AdminLot(cards=cards("3S 3H")), at=NEXT_SUNDAY + timedelta(days=5))
    assert sorted(after.lots) == [2, 5, 6]


def test_a_new_round_numbers_lots_from_one() -> None:
    state = apply(new_round(Phase.BARTERING, players=["alice"]), "alice", GenerateLot())
    assert sorted(state.lots) == [1]
    assert state.next_lot == 2


def test_the_counter_survives_a_snapshot_round_trip() -> None:
    state = with_lots(auction("alice"), "AS AH")
    state = bid(state, "alice", 1, 10)
    state, _ = settle(state)
    reloaded = RoundState.model_validate_json(state.model_dump_json())
    assert reloaded == state
    assert reloaded.next_lot == 2


def test_snapshot_written_before_the_counter_loads_and_continues_after_every_number_used() -> None:
    """The file is a snapshot written by the code that reused the lowest free number.

    In it lots 1 to 3 were placed, 1 and 3 sold, 2 carried over, and a new lot took number 1 again.
    That code never numbered a lot above the most lots an auction held under any ruleset version,
    so the counter continues after that (gaps are harmless; reuse is not).
    """
    body = (SNAPSHOTS / "round_before_lot_counter.json").read_text(encoding="utf-8")
    assert "next_lot" not in body
    state = RoundState.model_validate_json(body)
    assert sorted(state.lots) == [1, 2]
    assert state.next_lot == 7
    assert status(state, 1) is TradeStatus.OPEN
    assert state.open_offer_counts == {"alice": 1}
    state = apply(state, "bob", GenerateLot(), at=FRIDAY)
    assert sorted(state.lots) == [1, 2, 7]
    assert RoundState.model_validate_json(state.model_dump_json()).next_lot == 8
    # its open offer (made before this change) expires with the week
    state = tick(state, SATURDAY, PL)
    state = engine.advance(state, Tick(at=NEXT_SUNDAY, boundaries=(AS_,)), random.Random(0)).state
    assert status(state, 1) is TradeStatus.EXPIRED


def test_old_snapshot_counter_takes_the_largest_limit_of_any_ruleset_version() -> None:
    state = new_round(Phase.BARTERING, players=["alice"])
    state = apply(state, MOD, AdminSet(option="auction.lots_per_auction", value="9"))
    state = apply(state, MOD, AdminSet(option="auction.lots_per_auction", value="4"))
    data = state.model_dump(mode="json")
    del data["next_lot"]
    assert RoundState.model_validate(data).next_lot == 10


# --- trade offers expire at the end of their week ---------------------------------------------


def traders(phase: Phase = Phase.AUCTION, ruleset: Ruleset | None = None) -> RoundState:
    state = new_round(phase, players=["alice", "bob", "carol"], ruleset=ruleset)
    state = give(state, "alice", points=50, hand="AS KS")
    return give(state, "bob", points=30, hand="2D", spm=1)


def week_end(state: RoundState, at: datetime = NEXT_SUNDAY) -> tuple[RoundState, tuple[Event, ...]]:
    if state.phase is Phase.AUCTION:
        state = tick(state, THURSDAY, AE)
        state = tick(state, SATURDAY, PL)
    step = engine.advance(state, Tick(at=at, boundaries=(AS_,)), random.Random(0))
    return step.state, step.events


def test_open_offers_expire_at_the_end_of_the_week_they_were_made() -> None:
    state = offer(traders(), "alice", "bob", "20 points AS", "2D spm", at=MONDAY)
    state = offer(state, "bob", "carol", "nothing", "nothing", at=SATURDAY + timedelta(hours=23))
    state = offer(state, "carol", "alice", "nothing", "nothing", at=SATURDAY + timedelta(hours=23))
    state = apply(state, "alice", DeclineTrade(number=3), at=SATURDAY + timedelta(hours=23))
    before_end = tick(tick(state, THURSDAY, AE), SATURDAY, PL)
    assert status(before_end, 1) is TradeStatus.OPEN
    state, events = week_end(state)
    assert status(state, 1) is TradeStatus.EXPIRED
    assert status(state, 2) is TradeStatus.EXPIRED
    assert status(state, 3) is TradeStatus.DECLINED
    assert state.trades == {}
    assert state.open_offer_counts == {}
    expired = [e for e in events if isinstance(e, TradesExpired)]
    assert len(expired) == 1
    assert expired[0].channel is ChannelRole.GAME_ACTIONS
    text = expired[0].text()
    # both players are named; trades are public, so the items are too
    assert "Trade 1: alice offered bob 20 points, AS for 2D, 1 Standard Proposal-Maker" in text
    assert "Trade 2: bob offered carol nothing for nothing" in text
    assert "Trade 3" not in text
    assert state.players["alice"].points == 150, "nothing moves when an offer expires"


def test_accepting_an_expired_offer_says_it_expired() -> None:
    state = offer(traders(), "alice", "bob", "20 points", "nothing", at=MONDAY)
    state, _ = week_end(state)
    for actor, action in (("bob", AcceptTrade(number=1)), ("bob", DeclineTrade(number=1))):
        with pytest.raises(ConflictError, match="trade 1 expired at the end of the week it was made"):
            engine.apply(state, ctx(actor, GA, NEXT_SUNDAY + timedelta(hours=1)), action, random.Random(0))
    with pytest.raises(ConflictError, match="expired"):
        engine.check(state, ctx("alice", GA, NEXT_SUNDAY), CancelTrade(number=1))


def test_an_offer_made_in_the_new_week_stays_open_until_that_week_ends() -> None:
    state = offer(traders(), "alice", "bob", "20 points", "nothing", at=MONDAY)
    state, _ = week_end(state)
    state = offer(state, "alice", "bob", "20 points", "nothing", at=NEXT_SUNDAY + timedelta(hours=1))
    state = tick(state, NEXT_SUNDAY + timedelta(days=4), AE)
    state = tick(state, NEXT_SUNDAY + timedelta(days=6), PL)
    assert status(state, 2) is TradeStatus.OPEN
    state = apply(state, "bob", AcceptTrade(number=2), at=NEXT_SUNDAY + timedelta(days=6, hours=1))
    assert status(state, 2) is TradeStatus.ACCEPTED


@pytest.mark.parametrize("value", ["never", "off", "false"])
def test_offers_never_expire_when_the_option_is_off(value: str) -> None:
    rules = Ruleset().with_option("trades.offers_expire", value)
    assert rules.trades.offers_expire is OfferExpiry.NEVER
    state = offer(traders(ruleset=rules), "alice", "bob", "20 points", "nothing", at=MONDAY)
    state, events = week_end(state)
    assert status(state, 1) is TradeStatus.OPEN
    assert not [e for e in events if isinstance(e, TradesExpired)]


def test_expiry_option_default_is_in_the_ruleset_file_and_shown() -> None:
    assert load_ruleset().trades.offers_expire is OfferExpiry.WEEK_END
    assert Ruleset().trades.offers_expire is OfferExpiry.WEEK_END
    shown = ruleset_view(new_round())
    assert "__Trades__" in shown
    assert "`trades.offers_expire` = week_end:" in shown


def test_expiry_option_is_set_by_a_moderator() -> None:
    state = apply(traders(), MOD, AdminSet(option="trades.offers_expire", value="off"))
    assert state.ruleset.trades.offers_expire is OfferExpiry.NEVER
    assert state.ruleset_versions[-1].change == "trades.offers_expire = never"
    state = apply(state, MOD, AdminSet(option="trades.offers_expire", value="week_end"))
    assert state.ruleset.trades.offers_expire is OfferExpiry.WEEK_END


def test_expiry_option_is_set_by_an_amendment() -> None:
    state = traders()
    text = "urgent: keep offers open\n```amend\ntrades.offers_expire = never\n```"
    state = apply(state, "alice", Propose(message="p1", text=text), ChannelRole.PROPOSALS, at=MONDAY)
    state = engine.advance(state, Tick(at=MONDAY + timedelta(hours=48)), random.Random(0)).state
    assert state.ruleset.trades.offers_expire is OfferExpiry.NEVER


def test_trades_view_and_the_offer_say_when_offers_expire() -> None:
    action = OfferTrade(target="bob", give=items(20), get=Items())
    step = engine.apply(traders(), ctx("alice", GA, MONDAY), action, random.Random(0))
    assert step.events[0].text().endswith("The offer expires at the week's end, Sun 2026-12-13 00:00 UTC.")
    state = step.state
    shown = trades_view(state, "bob")
    assert "Trade 1: alice gives 20 points to bob for nothing" in shown
    assert "expires Sun 2026-12-13 00:00 UTC" in shown
    never = apply(state, MOD, AdminSet(option="trades.offers_expire", value="never"))
    assert "expires" not in trades_view(never, "bob")


# --- the offer limit without a scan, and closed trades kept within bounds ---------------------


def test_open_offer_limit_is_counted_per_offerer_and_freed_by_closing() -> None:
    state = traders()
    for _ in range(MAX_OPEN_OFFERS):
        state = offer(state, "alice", "bob", "1 points", "nothing")
    assert state.open_offer_counts == {"alice": MAX_OPEN_OFFERS}
    with pytest.raises(ConflictError, match="open offers"):
        offer(state, "alice", "carol", "1 points", "nothing")
    state = offer(state, "bob", "alice", "nothing", "nothing")
    state = apply(state, "bob", DeclineTrade(number=1))
    state = apply(state, "alice", CancelTrade(number=2))
    state = apply(state, "bob", AcceptTrade(number=3))
    assert state.open_offer_counts == {"alice": MAX_OPEN_OFFERS - 3, "bob": 1}
    state = offer(state, "alice", "carol", "1 points", "nothing")
    state = apply(state, "bob", Leave())
    assert state.open_offer_counts == {"alice": 1}
    assert RoundState.model_validate_json(state.model_dump_json()) == state


def test_closed_trades_stay_bounded_however_busy_the_week() -> None:
    state = traders()
    for _ in range(MAX_CLOSED_TRADES + 40):
        state = offer(state, "alice", "bob", "1 points", "nothing")
        state = apply(state, "alice", CancelTrade(number=state.next_trade - 1))
    assert len(state.closed_trades) == MAX_CLOSED_TRADES
    newest = state.next_trade - 1
    assert status(state, newest) is TradeStatus.CANCELLED
    assert state.trade(1) is None
    # a number that was used but is no longer kept is answered as closed, not as unknown
    with pytest.raises(ConflictError, match="trade 1 is closed"):
        engine.check(state, ctx("bob", GA, state.clock), AcceptTrade(number=1))
    with pytest.raises(UnknownError, match="there is no trade"):
        engine.check(state, ctx("bob", GA, state.clock), AcceptTrade(number=newest + 1))


def test_closed_trades_leave_the_state_a_week_after_closing() -> None:
    state = offer(traders(), "alice", "bob", "1 points", "nothing", at=MONDAY)
    state = apply(state, "bob", DeclineTrade(number=1), at=MONDAY)
    state = offer(state, "alice", "bob", "1 points", "nothing", at=MONDAY)
    state, _ = week_end(state)
    assert sorted(state.closed_trades) == [1, 2], "closed within the week: still answerable"
    state = tick(state, NEXT_SUNDAY + timedelta(days=4), AE)
    state = tick(state, NEXT_SUNDAY + timedelta(days=6), PL)
    state, _ = week_end(state, NEXT_SUNDAY + timedelta(days=7))
    assert state.closed_trades == {}


def test_admin_give_of_points_is_no_lapse() -> None:
    state = with_lots(auction("alice"), "AS AH")
    state = bid(state, "alice", 1, 80)
    state = apply(state, MOD, AdminGive(target="alice", items=items(10)))
    assert state.lots[1].lapsed == ()


async def test_service_loads_a_stored_snapshot_from_before_the_counter(tmp_path: Path) -> None:
    """The store's snapshot row holds the old body; the service loads it and numbers on from 7."""
    body = (SNAPSHOTS / "round_before_lot_counter.json").read_text(encoding="utf-8")
    old = RoundState.model_validate_json(body)
    store = await Store.open(tmp_path / "old.db")
    try:
        start = StartRound(ruleset=old.ruleset, phase=Phase.AUCTION, presenting_open=False, moderators=(MOD,))
        setup = ctx("setup", ChannelRole.OTHER, old.started_at, event_id="setup")
        assert (await RoundService(store).start(old.guild, setup, start, seed=old.seed)).accepted
        await store.write_snapshot(old.guild, seq=old.seq, at=old.clock, body=body)
        service = RoundService(store)
        loaded = await service.state(old.guild)
        assert loaded is not None
        assert (sorted(loaded.lots), loaded.next_lot) == ([1, 2], 7)
        posts = await Router(service).message(
            old.guild, ctx("bob", GA, FRIDAY, event_id="gen"), "!generate", lambda _token: None
        )
        assert "bob generates lot 7." in posts[0].text
        reloaded = await RoundService(store).state(old.guild)
        assert reloaded is not None
        assert (sorted(reloaded.lots), reloaded.next_lot) == ([1, 2, 7], 8)
    finally:
        await store.close()
