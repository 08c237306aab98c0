"""Lots and bids: generating lots, bidding, and settling the auction at its end."""

from __future__ import annotations

import random

from games.nomic.actions import AdminLot, GenerateLot, PlaceBid
from games.nomic.cards import Card
from games.nomic.common import (
    Transition,
    change_holding,
    highest_bid,
    require_channel,
    require_moderator,
    require_player,
    with_bid,
)
from games.nomic.context import ChannelRole, Context
from games.nomic.errors import BadInputError, ConflictError, InsufficientError, UnknownError, WrongPhaseError
from games.nomic.events import BidPlaced, Event, LotGenerated, LotSold, LotUnsold
from games.nomic.items import Items
from games.nomic.phases import Phase
from games.nomic.ruleset import UnsoldLots
from games.nomic.state import Bid, Lot, RoundState


def check_bid(state: RoundState, ctx: Context, action: PlaceBid) -> None:
    require_channel(ctx, ChannelRole.AUCTIONS)
    player = require_player(state, ctx)
    if state.phase is not Phase.AUCTION:
        raise WrongPhaseError("bids are taken only during the auction phase")
    lot = state.lots.get(action.lot)
    if lot is None:
        known = ", ".join(str(n) for n in sorted(state.lots)) or "none yet"
        raise UnknownError(f"there is no lot {action.lot} (lots: {known})")
    if action.amount < 1:
        raise BadInputError("a bid must be at least 1 point")
    if action.amount > player.points:
        raise InsufficientError(f"you cannot afford {action.amount} points (you have {player.points})")
    high = highest_bid(state, lot)
    if high is not None and action.amount <= high.amount:
        raise ConflictError(f"a bid on lot {lot.number} must exceed the highest valid bid of {high.amount}")


def apply_bid(state: RoundState, ctx: Context, action: PlaceBid) -> Transition:
    check_bid(state, ctx, action)
    lot = state.lots[action.lot]
    bid = Bid(id=state.next_bid, lot=lot.number, player=ctx.actor, amount=action.amount, at=ctx.at)
    lot = with_bid(lot, bid)
    player = state.players[ctx.actor]
    players = state.players
    if action.amount > player.bid_ceiling:
        players = {**players, ctx.actor: player.model_copy(update={"bid_ceiling": action.amount})}
    state = state.model_copy(
        update={"lots": {**state.lots, lot.number: lot}, "next_bid": bid.id + 1, "players": players}
    )
    return Transition(state, (BidPlaced(ctx.actor_name, lot.number, action.amount),))


def _free_number(state: RoundState) -> int:
    number = 1
    while number in state.lots:
        number += 1
    return number


def _require_room(state: RoundState) -> None:
    limit = state.ruleset.auction.lots_per_auction
    if len(state.lots) >= limit:
        raise ConflictError(f"there are already {len(state.lots)} lots; an auction has {limit}")


def check_generate(state: RoundState, ctx: Context, _action: GenerateLot) -> None:
    require_channel(ctx, ChannelRole.GAME_ACTIONS)
    require_player(state, ctx)
    if state.phase is Phase.AUCTION:
        raise WrongPhaseError("lots can be generated only outside the auction phase")
    _require_room(state)


def apply_generate(state: RoundState, ctx: Context, action: GenerateLot, rng: random.Random) -> Transition:
    """Each card is a public d13 (rank) and d4 (suit) roll; the faces are kept with the lot."""
    check_generate(state, ctx, action)
    cards: list[Card] = []
    rolls: list[tuple[int, int]] = []
    for _ in range(state.ruleset.auction.cards_per_lot):
        card, d13, d4 = Card.roll(rng)
        cards.append(card)
        rolls.append((d13, d4))
    number = _free_number(state)
    lot = Lot(number=number, cards=tuple(cards), created_at=ctx.at, created_by=ctx.actor, rolls=tuple(rolls))
    state = state.model_copy(update={"lots": {**state.lots, number: lot}})
    return Transition(state, (LotGenerated(ctx.actor_name, number, lot.cards, lot.rolls),))


def check_admin_lot(state: RoundState, ctx: Context, action: AdminLot) -> None:
    require_moderator(ctx)
    wanted = state.ruleset.auction.cards_per_lot
    if len(action.cards) != wanted:
        raise BadInputError(f"a lot has {wanted} cards, not {len(action.cards)}")
    _require_room(state)


def apply_admin_lot(state: RoundState, ctx: Context, action: AdminLot) -> Transition:
    check_admin_lot(state, ctx, action)
    number = _free_number(state)
    lot = Lot(number=number, cards=action.cards, created_at=ctx.at, created_by=ctx.actor)
    state = state.model_copy(update={"lots": {**state.lots, number: lot}})
    return Transition(state, (LotGenerated(ctx.actor_name, number, lot.cards, (), by_moderator=True),))


def settle_auction(state: RoundState) -> Transition:
    """Settle lots in number order; each payment can make a later bid of the payer lapse."""
    events: list[Event] = []
    keep_unsold = state.ruleset.auction.unsold_lots is UnsoldLots.CARRY_OVER
    remaining: dict[int, Lot] = {}
    for number in sorted(state.lots):
        lot = state.lots[number]
        winner = highest_bid(state, lot)
        if winner is None:
            events.append(LotUnsold(number, lot.cards, kept=keep_unsold))
            if keep_unsold:
                remaining[number] = lot.model_copy(update={"bids": ()})
            continue
        name = state.players[winner.player].name
        # The lot leaves before the payment, so its winning bid is not reported as lapsing.
        state = state.model_copy(update={"lots": {n: v for n, v in state.lots.items() if n != number}})
        step = change_holding(
            state,
            winner.player,
            remove=Items(points=winner.amount),
            add=Items(cards=lot.cards),
            reason=f"they paid {winner.amount} for lot {number}",
        )
        state = step.state
        events.append(LotSold(number, lot.cards, name, winner.amount))
        events.extend(step.events)
    return Transition(state.model_copy(update={"lots": remaining}), tuple(events))
