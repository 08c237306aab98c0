"""Lots and bids: generating lots, bidding, and settling the auction at its end."""

from __future__ import annotations

import random

from games.nomic.actions import AdminLot, GenerateLot, PlaceBid
from games.nomic.cards import Card
from games.nomic.common import (
    Transition,
    bid_counts,
    bid_order,
    change_holding,
    highest_bid,
    made_unvalidated,
    rebuilt,
    require_channel,
    require_moderator,
    require_player,
    with_bid,
)
from games.nomic.context import ChannelRole, Context
from games.nomic.errors import (
    BadInputError,
    ConflictError,
    InsufficientError,
    UnknownError,
    WrongChannelError,
    WrongPhaseError,
)
from games.nomic.events import BidPlaced, Event, LotGenerated, LotSold, LotUnsold, PassedOver
from games.nomic.items import Items
from games.nomic.phases import Phase
from games.nomic.ruleset import UnsoldLots
from games.nomic.state import Bid, Lot, RoundState

SEALED_HERE = (
    "bids are sealed in this auction: send `!bid LOT AMOUNT` to me by DM, or use `/bid` (only you see its"
    " answer); #auctions shows only a hash of each bid until they all open when the auction ends"
)
"""The refusal of a bid typed where others read it while bids are sealed (``games.nomic.sealed``)."""


def check_bid(state: RoundState, ctx: Context, action: PlaceBid) -> None:
    """An open bid is typed in #auctions and must beat the lot's highest valid bid; a sealed one is sent
    privately and need not (nobody sees that bid): see ``games.nomic.sealed``."""
    _checked_bid(state, ctx, action)


def _checked_bid(state: RoundState, ctx: Context, action: PlaceBid) -> Bid | None:
    """``check_bid``, and the highest valid bid the open bid beats (None: none, or bids are sealed), for
    ``apply_bid`` not to look for it again."""
    if not state.sealed_bids:
        require_channel(ctx, ChannelRole.AUCTIONS)
    elif not ctx.private:
        raise WrongChannelError(SEALED_HERE)
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
    if state.sealed_bids:
        return None
    high = highest_bid(state, lot)
    if high is not None and action.amount <= high.amount:
        raise ConflictError(f"a bid on lot {lot.number} must exceed the highest valid bid of {high.amount}")
    return high


def apply_bid(state: RoundState, ctx: Context, action: PlaceBid) -> Transition:
    high = _checked_bid(state, ctx, action)
    lot = state.lots[action.lot]
    if state.sealed_bids:  # (the engine sends sealed bids to ``sealed``: only for a caller that does not)
        high = highest_bid(state, lot)
    beaten = high.player if high is not None and high.player != ctx.actor else None
    # every value comes from a checked model (the state, the context, the action): no validation again
    (bid,) = made_unvalidated(
        Bid, ({"id": state.next_bid, "lot": lot.number, "player": ctx.actor, "amount": action.amount, "at": ctx.at},)
    )
    state = with_placed(state, with_bid(lot, bid), bid)
    placed = BidPlaced(
        ctx.actor_name,
        lot.number,
        action.amount,
        player=ctx.actor,
        beaten=beaten,
        beaten_amount=high.amount if beaten is not None and high is not None else 0,
    )
    return Transition(state, (placed,))


def with_placed(state: RoundState, lot: Lot, bid: Bid) -> RoundState:
    """The state with ``lot`` (now holding ``bid``), the next bid's number, and the bidder's ceiling raised."""
    player = state.players[bid.player]
    players = state.players
    if bid.amount > player.bid_ceiling:
        players = {**players, bid.player: rebuilt(player, {"bid_ceiling": bid.amount})}
    lots = {**state.lots, lot.number: lot}
    return rebuilt(state, {"lots": lots, "next_bid": bid.id + 1, "players": players})


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
    number = state.next_lot
    lot = Lot(number=number, cards=tuple(cards), created_at=ctx.at, created_by=ctx.actor, rolls=tuple(rolls))
    state = state.model_copy(update={"lots": {**state.lots, number: lot}, "next_lot": number + 1})
    return Transition(state, (LotGenerated(ctx.actor_name, number, lot.cards, lot.rolls),))


def check_admin_lot(state: RoundState, ctx: Context, action: AdminLot) -> None:
    require_moderator(ctx)
    wanted = state.ruleset.auction.cards_per_lot
    if len(action.cards) != wanted:
        raise BadInputError(f"a lot has {wanted} cards, not {len(action.cards)}")
    _require_room(state)


def apply_admin_lot(state: RoundState, ctx: Context, action: AdminLot) -> Transition:
    check_admin_lot(state, ctx, action)
    number = state.next_lot
    lot = Lot(number=number, cards=action.cards, created_at=ctx.at, created_by=ctx.actor)
    state = state.model_copy(update={"lots": {**state.lots, number: lot}, "next_lot": number + 1})
    return Transition(state, (LotGenerated(ctx.actor_name, number, lot.cards, (), by_moderator=True),))


def settle_auction(state: RoundState) -> Transition:
    """Settle lots in number order; each payment can make a later bid of the payer lapse.

    Each lot's announcement names the bids that would have beaten the winner but lapsed, with
    the reason recorded when they lapsed (or, for a revived bid, why it does not count now).
    """
    events: list[Event] = []
    keep_unsold = state.ruleset.auction.unsold_lots is UnsoldLots.CARRY_OVER
    remaining: dict[int, Lot] = {}
    paid: dict[str, list[tuple[int, int]]] = {}
    for number in sorted(state.lots):
        lot = state.lots[number]
        winner = highest_bid(state, lot)
        passed_over = _passed_over(state, lot, winner, paid)
        if winner is None:
            events.append(LotUnsold(number, lot.cards, kept=keep_unsold, lapsed=passed_over))
            if keep_unsold:
                remaining[number] = lot.model_copy(update={"bids": (), "lapsed": (), "seals": ()})
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
        paid.setdefault(winner.player, []).append((number, winner.amount))
        events.append(LotSold(number, lot.cards, name, winner.amount, lapsed=passed_over, player=winner.player))
        events.extend(step.events)
    return Transition(state.model_copy(update={"lots": remaining}), tuple(events))


def _passed_over(
    state: RoundState, lot: Lot, winner: Bid | None, paid: dict[str, list[tuple[int, int]]]
) -> tuple[PassedOver, ...]:
    """The bids on ``lot`` that would have beaten ``winner``, highest first, each with its reason."""
    floor = bid_order(winner) if winner is not None else None
    found = [
        ((gone.amount, -gone.id), PassedOver(gone.name, gone.amount, gone.reason))
        for gone in lot.lapsed
        if floor is None or (gone.amount, -gone.id) > floor
    ]
    if state.ruleset.auction.revive_bids:
        # only a revived bid can be on the lot and not count: it says why at this moment. Bids
        # are kept in bid order, so those above the winner are the last ones.
        for bid in reversed(lot.bids):
            if floor is not None and bid_order(bid) <= floor:
                break
            if not bid_counts(state, bid):
                note = PassedOver(_name(state, bid.player), bid.amount, _short(state, bid, paid))
                found.append((bid_order(bid), note))
    found.sort(key=lambda pair: pair[0], reverse=True)
    return tuple(note for _, note in found)


def _name(state: RoundState, player_id: str) -> str:
    player = state.players.get(player_id)
    return player.name if player is not None else player_id


def _short(state: RoundState, bid: Bid, paid: dict[str, list[tuple[int, int]]]) -> str:
    player = state.players.get(bid.player)
    if player is None:
        return "they are no longer a player"
    left = f"{player.points} point{'s' if player.points != 1 else ''}"
    payments = paid.get(bid.player)
    if payments:
        spent = " and ".join(f"{amount} for lot {number}" for number, amount in payments)
        return f"they paid {spent} and had {left} left"
    return f"they had only {left} at settlement"
