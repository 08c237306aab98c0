"""The pure rules: engine.start_round, engine.check/apply and engine.advance, without a store.

Every refusal is checked twice: the right ``RuleError`` subclass is raised, and the state the
check was given is unchanged afterwards (rules never mutate their input).
"""

from __future__ import annotations

import random
from collections import Counter
from datetime import timedelta

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from games.nomic import engine
from games.nomic.actions import (
    AcceptTrade,
    Action,
    AdminGive,
    AdminLot,
    AdminSet,
    AdminTake,
    CancelTrade,
    DeclineTrade,
    GenerateLot,
    Join,
    Leave,
    OfferTrade,
    PlaceBid,
    PresentHand,
    ShowLots,
    StartRound,
    Tick,
)
from games.nomic.common import highest_bid
from games.nomic.context import ChannelRole
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
from games.nomic.events import BidsInvalidated, LotSold, LotUnsold, PlacementsMade, PointsGranted, TradesVoided
from games.nomic.phases import BoundaryKind, Phase
from games.nomic.ruleset import Ruleset
from games.nomic.state import RoundState, TradeStatus
from games.nomic.trades import MAX_CLOSED_TRADES
from tests.support import (
    AUC,
    GA,
    MOD,
    MONDAY,
    NEXT_SUNDAY,
    SATURDAY,
    THURSDAY,
    apply,
    cards,
    codes,
    ctx,
    give,
    items,
    new_round,
    tick,
)

AE, PL, AS_ = BoundaryKind.AUCTION_END, BoundaryKind.PLACEMENTS, BoundaryKind.AUCTION_START


def refused(
    state: RoundState,
    actor: str,
    action: Action,
    error: type[RuleError],
    channel: ChannelRole = GA,
    *,
    moderator: bool | None = None,
    match: str | None = None,
) -> RuleError:
    """Assert that ``check`` and ``apply`` both refuse with ``error`` and change nothing."""
    before = state.model_dump_json()
    context = ctx(actor, channel, state.clock, moderator=moderator)
    with pytest.raises(error, match=match) as info:
        engine.check(state, context, action)
    assert state.model_dump_json() == before
    with pytest.raises(error):
        engine.apply(state, context, action, random.Random(0))
    assert state.model_dump_json() == before
    assert str(info.value).strip(), "a refusal must say why"
    return info.value


def auction(*players: str, points: int = 100) -> RoundState:
    state = new_round(Phase.AUCTION, players=players)
    for p in players:
        state = give(state, p, points=points)
    return state


def with_lots(state: RoundState, *lots: str) -> RoundState:
    for lot in lots:
        state = apply(state, MOD, AdminLot(cards=cards(lot)))
    return state


def bid(state: RoundState, player: str, lot: int, amount: int) -> RoundState:
    return apply(state, player, PlaceBid(lot=lot, amount=amount), AUC)


def high(state: RoundState, lot: int) -> tuple[str, int] | None:
    h = highest_bid(state, state.lots[lot])
    return None if h is None else (h.player, h.amount)


# --- starting and joining -------------------------------------------------------------------


def test_start_round_records_ruleset_version_and_moderators() -> None:
    state = new_round()
    assert state.seq == 1
    assert state.ruleset_version == 1
    assert state.ruleset_versions[0].by == "initial"
    assert state.moderators == frozenset({MOD})
    assert state.players == {}
    assert state.lots == {}
    assert state.phase is Phase.AUCTION


def test_join_gives_zero_points_and_counts_seq() -> None:
    state = new_round()
    after = apply(state, "alice", Join())
    assert after.players["alice"].points == 0
    assert after.players["alice"].cards == ()
    assert after.players["alice"].spm == 0
    assert after.seq == state.seq + 1


def test_join_twice_is_refused() -> None:
    state = new_round(players=["alice"])
    refused(state, "alice", Join(), ConflictError, match="already a player")


def test_join_only_in_game_actions() -> None:
    state = new_round()
    refused(state, "alice", Join(), WrongChannelError, AUC)
    refused(state, "alice", Join(), WrongChannelError, ChannelRole.OTHER)


def test_scheduled_work_is_not_a_members_action() -> None:
    state = new_round(players=["alice"])
    refused(state, "alice", Tick(at=THURSDAY, boundaries=(AE,)), ConflictError)
    start = StartRound(ruleset=Ruleset(), phase=Phase.AUCTION, presenting_open=False)
    refused(state, "alice", start, ConflictError)
    refused(state, "alice", ShowLots(), RuleError)


# --- bids -----------------------------------------------------------------------------------


def test_bid_accepted_and_becomes_highest() -> None:
    state = with_lots(auction("alice", "bob"), "AS KH")
    state = bid(state, "alice", 1, 30)
    assert high(state, 1) == ("alice", 30)
    state = bid(state, "bob", 1, 31)
    assert high(state, 1) == ("bob", 31)
    # bidding does not take points before settlement
    assert state.players["bob"].points == 100


def test_bid_must_exceed_highest_valid_bid() -> None:
    state = bid(with_lots(auction("alice", "bob"), "AS KH"), "alice", 1, 30)
    refused(state, "bob", PlaceBid(lot=1, amount=30), ConflictError, AUC, match="exceed")
    refused(state, "bob", PlaceBid(lot=1, amount=29), ConflictError, AUC)


def test_bid_must_be_affordable() -> None:
    state = with_lots(auction("alice", points=50), "AS KH")
    refused(state, "alice", PlaceBid(lot=1, amount=51), InsufficientError, AUC, match="afford")
    assert high(bid(state, "alice", 1, 50), 1) == ("alice", 50)


@pytest.mark.parametrize("amount", [0, -1, -100])
def test_bid_must_be_a_natural_number(amount: int) -> None:
    state = with_lots(auction("alice"), "AS KH")
    refused(state, "alice", PlaceBid(lot=1, amount=amount), BadInputError, AUC)


def test_bid_only_in_auction_phase_and_auctions_channel() -> None:
    state = with_lots(new_round(Phase.BARTERING, players=["alice"]), "AS KH")
    state = give(state, "alice", points=100)
    refused(state, "alice", PlaceBid(lot=1, amount=5), WrongPhaseError, AUC)
    state = with_lots(auction("alice"), "AS KH")
    refused(state, "alice", PlaceBid(lot=1, amount=5), WrongChannelError, GA)
    refused(state, "alice", PlaceBid(lot=1, amount=5), WrongChannelError, ChannelRole.PROPOSALS)


def test_bid_on_unknown_lot_or_by_non_player() -> None:
    state = with_lots(auction("alice"), "AS KH")
    refused(state, "alice", PlaceBid(lot=2, amount=5), UnknownError, AUC)
    refused(state, "zed", PlaceBid(lot=1, amount=5), NotAPlayerError, AUC)


def test_take_lowering_points_invalidates_bid_for_good() -> None:
    state = with_lots(auction("alice", "bob"), "AS KH")
    state = bid(state, "bob", 1, 20)
    state = bid(state, "alice", 1, 60)
    step = engine.apply(state, ctx(MOD), AdminTake(target="alice", items=items(50)), random.Random(0))
    state = step.state
    assert any(isinstance(e, BidsInvalidated) for e in step.events)
    assert high(state, 1) == ("bob", 20)
    # getting the points back does not revive the bid
    state = apply(state, MOD, AdminGive(target="alice", items=items(500)))
    assert high(state, 1) == ("bob", 20)
    # a new bid need only exceed the highest *valid* bid (20), not the lapsed 60
    state = bid(state, "bob", 1, 21)
    assert high(state, 1) == ("bob", 21)


def test_new_bid_only_needs_to_exceed_valid_bids() -> None:
    state = with_lots(auction("alice", "bob", "carol"), "AS KH")
    state = bid(state, "bob", 1, 20)
    state = bid(state, "alice", 1, 60)
    state = apply(state, MOD, AdminTake(target="alice", items=items(90)))
    state = bid(state, "carol", 1, 25)
    assert high(state, 1) == ("carol", 25)


def test_take_that_leaves_bid_affordable_keeps_it() -> None:
    state = bid(with_lots(auction("alice"), "AS KH"), "alice", 1, 60)
    state = apply(state, MOD, AdminTake(target="alice", items=items(40)))
    assert high(state, 1) == ("alice", 60)


def test_trade_lowering_points_invalidates_bid() -> None:
    state = with_lots(auction("alice", "bob"), "AS KH")
    state = bid(state, "alice", 1, 80)
    state = apply(state, "alice", OfferTrade(target="bob", give=items(30), get=items()))
    step = engine.apply(state, ctx("bob"), AcceptTrade(number=1), random.Random(0))
    assert step.state.players["alice"].points == 70
    assert high(step.state, 1) is None
    assert any(isinstance(e, BidsInvalidated) and e.name == "alice" for e in step.events)


def test_revive_bids_option_counts_bid_again_once_affordable() -> None:
    rules = Ruleset().with_option("auction.revive_bids", "true")
    state = new_round(players=["alice", "bob"], ruleset=rules)
    state = with_lots(give(give(state, "alice", points=100), "bob", points=100), "AS KH")
    state = bid(state, "bob", 1, 20)
    state = bid(state, "alice", 1, 60)
    state = apply(state, MOD, AdminTake(target="alice", items=items(50)))
    assert high(state, 1) == ("bob", 20)
    state = apply(state, MOD, AdminGive(target="alice", items=items(10)))
    assert high(state, 1) == ("alice", 60)
    # settled while it counts: alice pays
    state = tick(state, THURSDAY, AE)
    assert codes(state.players["alice"].cards) == ["AS", "KH"]
    assert state.players["alice"].points == 0


def test_revive_bids_settlement_skips_bid_unaffordable_at_that_moment() -> None:
    rules = Ruleset().with_option("auction.revive_bids", "true")
    state = new_round(players=["alice", "bob"], ruleset=rules)
    state = with_lots(give(give(state, "alice", points=100), "bob", points=100), "AS KH")
    state = bid(state, "bob", 1, 20)
    state = bid(state, "alice", 1, 60)
    state = apply(state, MOD, AdminTake(target="alice", items=items(50)))
    state = tick(state, THURSDAY, AE)
    assert codes(state.players["bob"].cards) == ["AS", "KH"]
    assert state.players["bob"].points == 80
    assert state.players["alice"].points == 50


def test_switching_revive_off_never_breaks_settlement() -> None:
    """A bid left standing by the revive option must not make settlement overdraw (or crash)."""
    rules = Ruleset().with_option("auction.revive_bids", "true")
    state = new_round(players=["alice", "bob"], ruleset=rules)
    state = with_lots(give(give(state, "alice", points=100), "bob", points=100), "AS KH")
    state = bid(state, "bob", 1, 20)
    state = bid(state, "alice", 1, 60)
    state = apply(state, MOD, AdminTake(target="alice", items=items(50)))
    state = apply(state, MOD, AdminSet(option="auction.revive_bids", value="false"))
    assert high(state, 1) == ("bob", 20)
    state = tick(state, THURSDAY, AE)
    assert state.players["alice"].points == 50
    assert codes(state.players["bob"].cards) == ["AS", "KH"]
    assert state.players["bob"].points == 80


def test_switching_revive_off_keeps_the_highest_counting_bid() -> None:
    rules = Ruleset().with_option("auction.revive_bids", "true")
    state = new_round(players=["alice", "bob"], ruleset=rules)
    state = with_lots(give(give(state, "alice", points=100), "bob", points=100), "AS KH")
    state = bid(state, "alice", 1, 60)
    state = apply(state, MOD, AdminTake(target="alice", items=items(50)))
    state = bid(state, "bob", 1, 30)  # exceeds the highest *counting* bid (none)
    state = apply(state, MOD, AdminGive(target="alice", items=items(50)))
    assert high(state, 1) == ("alice", 60)
    state = apply(state, MOD, AdminSet(option="auction.revive_bids", value="false"))
    assert high(state, 1) == ("alice", 60)
    state = tick(state, THURSDAY, AE)
    assert codes(state.players["alice"].cards) == ["AS", "KH"]
    assert state.players["alice"].points == 40


# --- settlement -----------------------------------------------------------------------------


def test_settlement_in_lot_order_invalidates_later_bid_of_payer() -> None:
    state = with_lots(auction("alice", "bob"), "AS AH", "KS KH")
    state = bid(state, "alice", 1, 70)
    state = bid(state, "bob", 2, 40)
    state = bid(state, "alice", 2, 50)
    step = engine.advance(state, Tick(at=THURSDAY, boundaries=(AE,)), random.Random(0))
    after = step.state
    alice, bob = after.players["alice"], after.players["bob"]
    assert codes(alice.cards) == ["AH", "AS"]
    assert alice.points == 30
    assert codes(bob.cards) == ["KH", "KS"]
    assert bob.points == 60
    sold = [e for e in step.events if isinstance(e, LotSold)]
    assert [(e.lot, e.name, e.amount) for e in sold] == [(1, "alice", 70), (2, "bob", 40)]
    assert after.lots == {}
    assert after.phase is Phase.BARTERING
    assert after.presenting_open
    assert after.clock == THURSDAY


def test_settlement_lot_order_is_numeric_not_bid_order() -> None:
    state = with_lots(auction("alice", "bob"), "AS AH", "KS KH")
    # alice bids on lot 2 first, then on lot 1; lot 1 is still settled first
    state = bid(state, "bob", 2, 40)
    state = bid(state, "alice", 2, 50)
    state = bid(state, "alice", 1, 70)
    after = tick(state, THURSDAY, AE)
    assert codes(after.players["alice"].cards) == ["AH", "AS"]
    assert codes(after.players["bob"].cards) == ["KH", "KS"]


def test_settlement_with_no_valid_bid_leaves_lot_unsold() -> None:
    state = with_lots(auction("alice", "bob"), "AS AH", "KS KH")
    state = bid(state, "alice", 2, 10)
    step = engine.advance(state, Tick(at=THURSDAY, boundaries=(AE,)), random.Random(0))
    unsold = [e for e in step.events if isinstance(e, LotUnsold)]
    assert [(e.lot, e.kept) for e in unsold] == [(1, True)]
    assert list(step.state.lots) == [1]
    assert step.state.lots[1].bids == ()
    assert codes(step.state.lots[1].cards) == ["AH", "AS"]


def test_unsold_lots_discarded_with_option() -> None:
    rules = Ruleset().with_option("auction.unsold_lots", "discard")
    state = with_lots(new_round(players=["alice"], ruleset=rules), "AS AH")
    after = tick(state, THURSDAY, AE)
    assert after.lots == {}


def test_unsold_lot_carries_over_and_can_be_bid_next_week() -> None:
    state = with_lots(auction("alice"), "AS AH")
    state = tick(state, THURSDAY, AE)
    state = tick(state, SATURDAY, PL)
    state = tick(state, NEXT_SUNDAY, AS_)
    assert state.phase is Phase.AUCTION
    state = bid(state, "alice", 1, 150)
    assert high(state, 1) == ("alice", 150)


# --- generating lots ------------------------------------------------------------------------


def test_generate_only_outside_auction_phase() -> None:
    state = auction("alice")
    refused(state, "alice", GenerateLot(), WrongPhaseError)


def test_generate_rolls_public_dice_and_keeps_them() -> None:
    state = new_round(Phase.BARTERING, players=["alice"])
    state = apply(state, "alice", GenerateLot(), rng=random.Random(7))
    lot = state.lots[1]
    assert len(lot.cards) == 2
    assert len(lot.rolls) == 2
    for card, (d13, d4) in zip(lot.cards, lot.rolls, strict=True):
        assert card.rank == d13
        assert card.suit.value == d4
    assert lot.created_by == "alice"


def test_generate_while_fewer_than_six_lots() -> None:
    state = new_round(Phase.BARTERING, players=["alice"])
    for n in range(1, 7):
        state = apply(state, "alice", GenerateLot())
        assert sorted(state.lots) == list(range(1, n + 1))
    refused(state, "alice", GenerateLot(), ConflictError)
    refused(state, MOD, AdminLot(cards=cards("AS KS")), ConflictError)


def test_generate_requires_player_and_game_actions() -> None:
    state = new_round(Phase.BARTERING, players=["alice"])
    refused(state, "zed", GenerateLot(), NotAPlayerError)
    refused(state, "alice", GenerateLot(), WrongChannelError, AUC)


def test_generate_is_deterministic_for_an_rng() -> None:
    state = new_round(Phase.BARTERING, players=["alice"])
    a = apply(state, "alice", GenerateLot(), rng=random.Random(3))
    b = apply(state, "alice", GenerateLot(), rng=random.Random(3))
    assert a == b


# --- presenting and placements ---------------------------------------------------------------


ROYAL = "AS KS QS JS 10S"


def bartering(*players: str) -> RoundState:
    return new_round(Phase.BARTERING, players=players)


def test_present_removes_cards_and_records_hand() -> None:
    state = give(bartering("alice"), "alice", hand=ROYAL + " 2D")
    after = apply(state, "alice", PresentHand(cards=cards(ROYAL)))
    assert codes(after.players["alice"].cards) == ["2D"]
    assert codes(after.hands["alice"].cards) == codes(cards(ROYAL))
    assert "alice" in after.presented_this_phase


def test_present_only_once_per_bartering_phase() -> None:
    state = give(bartering("alice"), "alice", hand=ROYAL + " " + ROYAL)
    state = apply(state, "alice", PresentHand(cards=cards(ROYAL)))
    refused(state, "alice", PresentHand(cards=cards(ROYAL)), ConflictError, match="already")


def test_present_window_is_bartering_before_placements() -> None:
    in_auction = give(new_round(Phase.AUCTION, players=["alice"]), "alice", hand=ROYAL)
    refused(in_auction, "alice", PresentHand(cards=cards(ROYAL)), WrongPhaseError)
    after_placements = give(new_round(Phase.BARTERING, presenting_open=False, players=["alice"]), "alice", hand=ROYAL)
    refused(after_placements, "alice", PresentHand(cards=cards(ROYAL)), WrongPhaseError)
    # and the tick at placements closes it
    open_ = give(bartering("alice"), "alice", hand=ROYAL)
    closed = tick(open_, SATURDAY, PL)
    assert not closed.presenting_open
    refused(closed, "alice", PresentHand(cards=cards(ROYAL)), WrongPhaseError)
    # the auction end opens it
    opened = tick(give(new_round(players=["alice"]), "alice", hand=ROYAL), THURSDAY, AE)
    assert opened.presenting_open
    apply(opened, "alice", PresentHand(cards=cards(ROYAL)))


def test_present_possession_counts_duplicates() -> None:
    state = give(bartering("alice"), "alice", hand="AS KS QS JS 10S")
    refused(state, "alice", PresentHand(cards=cards("AS AS KS QS JS")), InsufficientError, match="AS")
    state = give(state, "alice", hand="AS")
    after = apply(state, "alice", PresentHand(cards=cards("AS AS KS QS JS")))
    assert codes(after.players["alice"].cards) == ["10S"]


@pytest.mark.parametrize("hand", ["AS KS QS JS", "AS KS QS JS 10S 9S"])
def test_present_exactly_five_cards(hand: str) -> None:
    state = give(bartering("alice"), "alice", hand=ROYAL + " 9S")
    refused(state, "alice", PresentHand(cards=cards(hand)), BadInputError)


def test_present_needs_player_and_channel() -> None:
    state = give(bartering("alice"), "alice", hand=ROYAL)
    refused(state, "zed", PresentHand(cards=cards(ROYAL)), NotAPlayerError)
    refused(state, "alice", PresentHand(cards=cards(ROYAL)), WrongChannelError, AUC)


HANDS = {
    "p1": "2S 3S 4S 5S 6S",  # straight flush
    "p2": "9C 9D 9H 9S 2D",  # four of a kind
    "p3": "KD KC KH 3D 3C",  # full house
    "p4": "7C 8D 9S 10H JC",  # straight
    "p5": "2D 2H 5C 8C QH",  # one pair
    "p6": "3H 6D 8S 10C QD",  # high card
}


def test_placement_prizes() -> None:
    state = bartering(*HANDS)
    for player, hand in HANDS.items():
        state = give(state, player, points=5, hand=hand)
        state = apply(state, player, PresentHand(cards=cards(hand)))
    step = engine.advance(state, Tick(at=SATURDAY, boundaries=(PL,)), random.Random(0))
    after = step.state
    points = {p: after.players[p].points for p in HANDS}
    spm = {p: after.players[p].spm for p in HANDS}
    assert points == {"p1": 25, "p2": 15, "p3": 35, "p4": 25, "p5": 5, "p6": 5}
    assert spm == {"p1": 1, "p2": 1, "p3": 0, "p4": 0, "p5": 0, "p6": 0}
    for p in ("p1", "p2", "p3", "p4"):
        assert after.players[p].cards == ()
    for p in ("p5", "p6"):
        assert codes(after.players[p].cards) == codes(cards(HANDS[p]))
    assert [(r.place, r.player) for r in after.last_placements] == [(i, f"p{i}") for i in range(1, 7)]
    assert [r.cards_returned for r in after.last_placements] == [False] * 4 + [True] * 2
    assert not any(r.coin_toss for r in after.last_placements)
    assert after.hands == {}
    assert not after.presenting_open
    made = [e for e in step.events if isinstance(e, PlacementsMade)]
    assert len(made) == 1
    assert "1. p1" in made[0].text()


def test_placement_of_identical_hands_records_a_coin_toss() -> None:
    state = bartering("alice", "bob", "carol")
    for p in ("alice", "bob"):
        state = give(state, p, hand=ROYAL)
        state = apply(state, p, PresentHand(cards=cards(ROYAL)))
    state = give(state, "carol", hand="2D 2H 5C 8C QH")
    state = apply(state, "carol", PresentHand(cards=cards("2D 2H 5C 8C QH")))
    winners = set()
    for seed in range(20):
        after = tick(state, SATURDAY, PL, rng=random.Random(seed))
        records = after.last_placements
        assert [r.coin_toss for r in records] == [True, True, False]
        assert {r.player for r in records[:2]} == {"alice", "bob"}
        assert records[2].player == "carol"
        winners.add(records[0].player)
        # the toss is reproducible from the rng
        assert tick(state, SATURDAY, PL, rng=random.Random(seed)) == after
    assert winners == {"alice", "bob"}


def test_placements_skip_hands_of_players_who_left() -> None:
    state = bartering("alice", "bob")
    for p in ("alice", "bob"):
        state = give(state, p, hand=ROYAL)
        state = apply(state, p, PresentHand(cards=cards(ROYAL)))
    state = apply(state, "alice", Leave())
    after = tick(state, SATURDAY, PL)
    assert [r.player for r in after.last_placements] == ["bob"]
    assert after.players["bob"].spm == 1


def test_new_bartering_phase_allows_presenting_again() -> None:
    state = give(new_round(players=["alice"]), "alice", hand=ROYAL + " " + ROYAL)
    state = tick(state, THURSDAY, AE)
    state = apply(state, "alice", PresentHand(cards=cards(ROYAL)))
    state = tick(state, SATURDAY, PL)
    state = tick(state, NEXT_SUNDAY, AS_)
    state = tick(state, NEXT_SUNDAY + timedelta(days=4), AE)
    assert state.presenting_open
    state = apply(state, "alice", PresentHand(cards=cards(ROYAL)))
    assert state.players["alice"].cards == ()


# --- the weekly grant -------------------------------------------------------------------------


def test_auction_start_grants_weekly_points_to_every_player() -> None:
    state = new_round(Phase.BARTERING, presenting_open=False, at=SATURDAY, players=["alice", "bob"])
    step = engine.advance(state, Tick(at=NEXT_SUNDAY, boundaries=(AS_,)), random.Random(0))
    assert {p: v.points for p, v in step.state.players.items()} == {"alice": 100, "bob": 100}
    assert any(isinstance(e, PointsGranted) and e.amount == 100 for e in step.events)
    assert step.state.phase is Phase.AUCTION
    assert step.state.seq == state.seq + 1


def test_tick_not_after_clock_is_refused() -> None:
    state = new_round()
    with pytest.raises(ConflictError):
        engine.advance(state, Tick(at=state.clock, boundaries=(AE,)), random.Random(0))


# --- trades ---------------------------------------------------------------------------------


def traders(phase: Phase = Phase.BARTERING) -> RoundState:
    state = new_round(phase, players=["alice", "bob", "carol"])
    state = give(state, "alice", points=50, hand="AS KS")
    return give(state, "bob", points=30, hand="2D", spm=1)


def offer(state: RoundState, by: str, to: str, give_: str, get: str) -> RoundState:
    from games.nomic.items import Items

    return apply(state, by, OfferTrade(target=to, give=Items.parse(give_), get=Items.parse(get)))


def test_trade_offer_and_accept_moves_items_both_ways() -> None:
    state = offer(traders(), "alice", "bob", "20 points AS", "2D spm")
    assert state.trade(1).status is TradeStatus.OPEN
    assert state.players["alice"].points == 50  # nothing moves at the offer
    state = apply(state, "bob", AcceptTrade(number=1))
    alice, bob = state.players["alice"], state.players["bob"]
    assert (alice.points, codes(alice.cards), alice.spm) == (30, ["2D", "KS"], 1)
    assert (bob.points, codes(bob.cards), bob.spm) == (50, ["AS"], 0)
    assert state.trade(1).status is TradeStatus.ACCEPTED


def test_trade_offer_checks() -> None:
    from games.nomic.items import Items

    state = traders()
    refused(state, "alice", OfferTrade(target="alice", give=Items(), get=Items(points=1)), ConflictError)
    refused(state, "alice", OfferTrade(target="zed", give=Items(), get=Items(points=1)), NotAPlayerError)
    refused(state, "zed", OfferTrade(target="bob", give=Items(), get=Items(points=1)), NotAPlayerError)
    refused(
        state,
        "alice",
        OfferTrade(target="bob", give=Items(points=51), get=Items()),
        InsufficientError,
        match="^you lack 1 more points",
    )
    refused(state, "alice", OfferTrade(target="bob", give=Items(cards=cards("QS")), get=Items()), InsufficientError)
    refused(state, "alice", OfferTrade(target="bob", give=Items(spm=1), get=Items()), InsufficientError)
    refused(state, "alice", OfferTrade(target="bob", give=Items(), get=Items(points=1)), WrongChannelError, AUC)


def test_trade_accept_rechecks_offerer() -> None:
    state = offer(traders(), "alice", "bob", "40 points", "nothing")
    state = apply(state, MOD, AdminTake(target="alice", items=items(20)))
    refused(state, "bob", AcceptTrade(number=1), InsufficientError, match="alice")


def test_trade_accept_rechecks_target() -> None:
    state = offer(traders(), "alice", "bob", "nothing", "2D")
    state = apply(state, MOD, AdminTake(target="bob", items=items(hand="2D")))
    refused(state, "bob", AcceptTrade(number=1), InsufficientError)


def test_trade_accept_decline_cancel_by_the_right_person() -> None:
    state = offer(traders(), "alice", "bob", "10 points", "nothing")
    refused(state, "alice", AcceptTrade(number=1), NotAllowedError)
    refused(state, "carol", AcceptTrade(number=1), NotAllowedError)
    refused(state, "alice", DeclineTrade(number=1), NotAllowedError)
    refused(state, "bob", CancelTrade(number=1), NotAllowedError)
    refused(state, "carol", CancelTrade(number=1), NotAllowedError)
    refused(state, "bob", AcceptTrade(number=2), UnknownError)
    declined = apply(state, "bob", DeclineTrade(number=1))
    assert declined.trade(1).status is TradeStatus.DECLINED
    assert declined.players == state.players
    cancelled = apply(state, "alice", CancelTrade(number=1))
    assert cancelled.trade(1).status is TradeStatus.CANCELLED
    for closed in (declined, cancelled):
        refused(closed, "bob", AcceptTrade(number=1), ConflictError)
        refused(closed, "bob", DeclineTrade(number=1), ConflictError)
        refused(closed, "alice", CancelTrade(number=1), ConflictError)


def test_trade_accept_twice_is_refused() -> None:
    state = apply(offer(traders(), "alice", "bob", "10 points", "nothing"), "bob", AcceptTrade(number=1))
    refused(state, "bob", AcceptTrade(number=1), ConflictError)
    assert state.players["alice"].points == 40


def test_trade_numbers_increase() -> None:
    state = offer(traders(), "alice", "bob", "1 points", "nothing")
    state = offer(state, "bob", "alice", "1 points", "nothing")
    state = offer(state, "alice", "carol", "1 points", "nothing")
    assert sorted([*state.trades, *state.closed_trades]) == [1, 2, 3]
    assert state.trade(2).offerer == "bob"


# --- leaving --------------------------------------------------------------------------------


def test_leave_voids_trades_both_ways_and_invalidates_bids() -> None:
    state = with_lots(auction("alice", "bob", "carol"), "AS AH", "KS KH")
    state = bid(state, "bob", 1, 10)
    state = bid(state, "alice", 1, 20)
    state = bid(state, "alice", 2, 5)
    state = offer(state, "alice", "bob", "10 points", "nothing")
    state = offer(state, "carol", "alice", "10 points", "nothing")
    state = offer(state, "bob", "carol", "10 points", "nothing")
    step = engine.apply(state, ctx("alice"), Leave(), random.Random(0))
    after = step.state
    assert "alice" not in after.players
    assert after.trade(1).status is TradeStatus.VOID
    assert after.trade(2).status is TradeStatus.VOID
    assert after.trade(3).status is TradeStatus.OPEN
    assert high(after, 1) == ("bob", 10)
    assert high(after, 2) is None
    assert any(isinstance(e, TradesVoided) and e.numbers == (1, 2) for e in step.events)
    refused(after, "bob", AcceptTrade(number=1), ConflictError)
    refused(after, "alice", Leave(), NotAPlayerError)


def test_rejoining_starts_afresh_and_old_bids_stay_invalid() -> None:
    state = with_lots(auction("alice", "bob"), "AS AH")
    state = bid(state, "bob", 1, 10)
    state = bid(state, "alice", 1, 20)
    state = apply(state, "alice", Leave())
    state = apply(state, "alice", Join())
    state = apply(state, MOD, AdminGive(target="alice", items=items(100)))
    assert high(state, 1) == ("bob", 10)
    assert state.players["alice"].cards == ()


def test_leaving_the_server_needs_no_channel() -> None:
    state = new_round(players=["alice"])
    after = apply(state, "alice", Leave(left_server=True), ChannelRole.OTHER)
    assert "alice" not in after.players
    refused(state, "alice", Leave(), WrongChannelError, ChannelRole.OTHER)


def test_leave_after_presenting_removes_hand() -> None:
    state = give(bartering("alice"), "alice", hand=ROYAL)
    state = apply(state, "alice", PresentHand(cards=cards(ROYAL)))
    after = apply(state, "alice", Leave())
    assert after.hands == {}


# --- moderators -------------------------------------------------------------------------------


def test_admin_give_and_take() -> None:
    state = new_round(players=["alice"])
    state = apply(state, MOD, AdminGive(target="alice", items=items(40, "AS AS", 2)))
    alice = state.players["alice"]
    assert (alice.points, codes(alice.cards), alice.spm) == (40, ["AS", "AS"], 2)
    state = apply(state, MOD, AdminTake(target="alice", items=items(15, "AS", 1)))
    alice = state.players["alice"]
    assert (alice.points, codes(alice.cards), alice.spm) == (25, ["AS"], 1)


def test_admin_commands_refused_for_non_moderators() -> None:
    state = give(new_round(players=["alice"]), "alice", points=10)
    for action in (
        AdminGive(target="alice", items=items(5)),
        AdminTake(target="alice", items=items(5)),
        AdminLot(cards=cards("AS KS")),
        AdminSet(option="auction.lots_per_auction", value="8"),
    ):
        refused(state, "alice", action, NotAllowedError)
        refused(state, MOD, action, NotAllowedError, moderator=False)


def test_admin_take_never_makes_points_negative() -> None:
    state = give(new_round(players=["alice"]), "alice", points=10, hand="AS")
    refused(state, MOD, AdminTake(target="alice", items=items(11)), InsufficientError)
    refused(state, MOD, AdminTake(target="alice", items=items(hand="AS AS")), InsufficientError)
    refused(state, MOD, AdminTake(target="alice", items=items(spm=1)), InsufficientError)
    refused(state, MOD, AdminTake(target="zed", items=items(1)), NotAPlayerError)
    refused(state, MOD, AdminGive(target="zed", items=items(1)), NotAPlayerError)
    refused(state, MOD, AdminGive(target="alice", items=items()), BadInputError)
    refused(state, MOD, AdminTake(target="alice", items=items()), BadInputError)


def test_admin_lot_needs_two_cards() -> None:
    state = new_round()
    refused(state, MOD, AdminLot(cards=cards("AS")), BadInputError)
    refused(state, MOD, AdminLot(cards=cards("AS KS QS")), BadInputError)
    after = apply(state, MOD, AdminLot(cards=cards("AS AS")))
    assert codes(after.lots[1].cards) == ["AS", "AS"]
    assert after.lots[1].rolls == ()


def test_admin_set_makes_a_new_ruleset_version() -> None:
    state = new_round()
    after = apply(state, MOD, AdminSet(option="auction.lots_per_auction", value="8"))
    assert after.ruleset.auction.lots_per_auction == 8
    assert after.ruleset_version == 2
    assert after.ruleset_versions[-1].by == f"moderator {MOD}"
    assert after.ruleset_versions[0].ruleset.auction.lots_per_auction == 6
    again = apply(after, MOD, AdminSet(option="hands.wrap_around_straights", value="on"))
    assert again.ruleset_version == 3
    assert again.ruleset.hands.wrap_around_straights
    assert again.ruleset.auction.lots_per_auction == 8


@pytest.mark.parametrize(
    ("option", "value", "error"),
    [
        ("auction.nope", "1", UnknownError),
        ("nope", "1", UnknownError),
        ("name", "x", UnknownError),
        ("auction", "1", UnknownError),
        ("auction.lots_per_auction", "0", BadInputError),
        ("auction.lots_per_auction", "many", BadInputError),
        ("auction.lots_per_auction", "-3", BadInputError),
        ("auction.lots_per_auction", "--5", BadInputError),
        ("auction.lots_per_auction", "²", BadInputError),
        ("auction.lots_per_auction", "1,²", BadInputError),
        ("auction.lots_per_auction", "99999999999999999999", BadInputError),
        ("auction.revive_bids", "maybe", BadInputError),
        ("calendar.week_start", "someday", BadInputError),
        ("calendar.auction_days", "7", BadInputError),
        ("calendar.placement_hours_before_end", "100", BadInputError),
        ("hands.hand_size", "4", BadInputError),
        ("hands.prize_points", "a,b", BadInputError),
    ],
)
def test_admin_set_bad_option_or_value(option: str, value: str, error: type[RuleError]) -> None:
    state = new_round()
    refused(state, MOD, AdminSet(option=option, value=value), error)


# --- invariants over random play --------------------------------------------------------------

PLAYERS = ["alice", "bob", "carol"]
CARD_POOL = ["AS", "KH", "2D", "2D", "QC"]

_member_action = st.one_of(
    st.builds(Join),
    st.builds(Leave),
    st.builds(GenerateLot),
    st.builds(lambda lot, amount: PlaceBid(lot=lot, amount=amount), st.integers(0, 3), st.integers(-2, 150)),
    st.builds(
        lambda to, gp, gc, rp: OfferTrade(target=to, give=items(gp, gc), get=items(rp)),
        st.sampled_from(PLAYERS),
        st.integers(0, 120),
        st.sampled_from(["", "AS", "2D", "2D 2D"]),
        st.integers(0, 50),
    ),
    st.builds(lambda n: AcceptTrade(number=n), st.integers(1, 4)),
    st.builds(lambda n: DeclineTrade(number=n), st.integers(1, 4)),
    st.builds(lambda n: CancelTrade(number=n), st.integers(1, 4)),
    st.builds(lambda: PresentHand(cards=cards("AS KH 2D 2D QC"))),
)
_admin_action = st.one_of(
    st.builds(
        lambda to, p: AdminGive(target=to, items=items(p, "AS KH 2D 2D QC")),
        st.sampled_from(PLAYERS),
        st.sampled_from([5, 30, 60]),
    ),
    st.builds(
        lambda to, p: AdminTake(target=to, items=items(p)), st.sampled_from(PLAYERS), st.sampled_from([5, 30, 60])
    ),
    st.builds(lambda: AdminLot(cards=cards("AS 2D"))),
    st.builds(lambda v: AdminSet(option="auction.revive_bids", value=v), st.sampled_from(["true", "false"])),
)

_bid = st.builds(
    lambda lot, amount: PlaceBid(lot=lot, amount=amount), st.integers(1, 6), st.sampled_from([10, 40, 70, 95])
)
_step = st.one_of(
    st.tuples(st.just("act"), st.sampled_from(PLAYERS), _member_action),
    st.tuples(st.just("act"), st.sampled_from(PLAYERS), _bid),
    st.tuples(st.just("act"), st.sampled_from(PLAYERS), _bid),
    st.tuples(st.just("act"), st.just(MOD), _admin_action),
    st.tuples(st.just("act"), st.just(MOD), _admin_action),
    st.tuples(st.just("act"), st.sampled_from([*PLAYERS, MOD]), st.one_of(_member_action, _admin_action)),
    st.tuples(st.just("tick")),
)


def _invariants(state: RoundState) -> None:
    for player in state.players.values():
        assert player.points >= 0
        assert player.spm >= 0
    assert len(state.lots) <= state.ruleset.auction.lots_per_auction
    assert all(number < state.next_lot for number in state.lots)
    assert state.open_offer_counts == dict(Counter(t.offerer for t in state.trades.values()))
    assert len(state.closed_trades) <= MAX_CLOSED_TRADES
    assert not set(state.trades) & set(state.closed_trades)
    for lot in state.lots.values():
        assert not {b.id for b in lot.bids} & {b.id for b in lot.lapsed}
        assert list(lot.bids) == sorted(lot.bids, key=lambda b: (b.amount, -b.id))
        h = highest_bid(state, lot)
        if h is not None:
            assert h.player in state.players
            assert state.players[h.player].points >= h.amount
            valid = [
                b.amount
                for b in lot.bids
                if b.player in state.players and state.players[b.player].points >= b.amount
            ]
            assert h.amount == max(valid)
        if not state.ruleset.auction.revive_bids:
            for b in lot.bids:
                assert b.player in state.players
                assert state.players[b.player].points >= b.amount
                assert b.amount <= state.players[b.player].bid_ceiling


@settings(max_examples=250, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(revive=st.booleans(), steps=st.lists(_step, min_size=15, max_size=45))
def test_random_play_keeps_invariants(revive: bool, steps: list[tuple]) -> None:
    from scheduler.due import next_tick

    rules = Ruleset().with_option("auction.revive_bids", str(revive))
    state = new_round(players=PLAYERS, ruleset=rules)
    for player in PLAYERS:
        state = give(state, player, points=100)
    state = apply(state, MOD, AdminLot(cards=cards("KS KD")))
    rng = random.Random(0)
    for step in steps:
        if step[0] == "tick":
            t = next_tick(state)
            after = engine.advance(state, t, rng).state
            assert after.seq == state.seq + 1
            state = after
        else:
            _, actor, action = step
            channel = AUC if isinstance(action, PlaceBid) else GA
            before = state.model_dump_json()
            context = ctx(actor, channel, state.clock)
            try:
                engine.check(state, context, action)
            except RuleError:
                assert state.model_dump_json() == before
                with pytest.raises(RuleError):
                    engine.apply(state, context, action, rng)
                assert state.model_dump_json() == before
                continue
            after = engine.apply(state, context, action, rng).state
            assert after.seq == state.seq + 1
            assert state.model_dump_json() == before
            state = after
        _invariants(state)
    assert state.clock >= MONDAY
