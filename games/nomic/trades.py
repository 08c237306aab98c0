"""Trades between two players: the offer is the offerer's consent, acceptance the target's.

Both sides are checked when the offer is made and again when it is accepted, since points and
cards may have moved in between; an offer that can no longer be met is answered, not settled.
"""

from __future__ import annotations

from datetime import datetime

from games.nomic.actions import AcceptTrade, CancelTrade, DeclineTrade, OfferTrade
from games.nomic.common import (
    Transition,
    change_holding,
    require_channel,
    require_holding,
    require_player,
    target_player,
)
from games.nomic.context import ChannelRole, Context
from games.nomic.errors import ConflictError, NotAllowedError, UnknownError
from games.nomic.events import Event, TradeClosed, TradeOffered, TradeSettled, TradesVoided
from games.nomic.state import RoundState, Trade, TradeStatus

MAX_OPEN_OFFERS = 25
"""Open offers a player may have at once; enough for haggling, too few to flood a channel."""


def _open_trade(state: RoundState, number: int) -> Trade:
    trade = state.trade(number)
    if trade is None:
        raise UnknownError(f"there is no trade {number}")
    if trade.status is not TradeStatus.OPEN:
        raise ConflictError(f"trade {number} is already {trade.status.value}")
    return trade


def check_offer(state: RoundState, ctx: Context, action: OfferTrade) -> None:
    require_channel(ctx, ChannelRole.GAME_ACTIONS)
    me = require_player(state, ctx)
    if action.target == ctx.actor:
        raise ConflictError("you cannot trade with yourself")
    target_player(state, action.target)
    require_holding(me, action.give, "you")
    mine = sum(1 for t in state.trades.values() if t.offerer == ctx.actor)
    if mine >= MAX_OPEN_OFFERS:
        raise ConflictError(f"you already have {mine} open offers; cancel some first")


def apply_offer(state: RoundState, ctx: Context, action: OfferTrade) -> Transition:
    check_offer(state, ctx, action)
    number = state.next_trade
    trade = Trade(
        number=number,
        offerer=ctx.actor,
        target=action.target,
        give=action.give,
        get=action.get,
        created_at=ctx.at,
    )
    state = state.model_copy(update={"trades": {**state.trades, number: trade}, "next_trade": number + 1})
    target = state.players[action.target]
    event = TradeOffered(number, ctx.actor_name, target.name, action.give, action.get)
    return Transition(state, (event,))


def check_accept(state: RoundState, ctx: Context, action: AcceptTrade) -> None:
    require_channel(ctx, ChannelRole.GAME_ACTIONS)
    me = require_player(state, ctx)
    trade = _open_trade(state, action.number)
    if trade.target != ctx.actor:
        raise NotAllowedError(f"trade {trade.number} was not offered to you")
    offerer = state.players.get(trade.offerer)
    if offerer is None:
        raise ConflictError(f"the offerer of trade {trade.number} is no longer a player")
    require_holding(offerer, trade.give, offerer.name)
    require_holding(me, trade.get, "you")


def apply_accept(state: RoundState, ctx: Context, action: AcceptTrade) -> Transition:
    check_accept(state, ctx, action)
    trade = state.trades[action.number]
    events: list[Event] = []
    reason = f"trade {trade.number} left them short"
    for who, add, remove in ((trade.offerer, trade.get, trade.give), (trade.target, trade.give, trade.get)):
        step = change_holding(state, who, add=add, remove=remove, reason=reason)
        state = step.state
        events.extend(step.events)
    state = _close(state, trade.number, TradeStatus.ACCEPTED, ctx.at)
    offerer = state.players[trade.offerer].name
    target = state.players[trade.target].name
    events.insert(0, TradeSettled(trade.number, offerer, target, trade.give, trade.get))
    return Transition(state, tuple(events))


def check_decline(state: RoundState, ctx: Context, action: DeclineTrade) -> None:
    require_channel(ctx, ChannelRole.GAME_ACTIONS)
    require_player(state, ctx)
    trade = _open_trade(state, action.number)
    if trade.target != ctx.actor:
        raise NotAllowedError(f"trade {trade.number} was not offered to you; the offerer may `!cancel` it")


def check_cancel(state: RoundState, ctx: Context, action: CancelTrade) -> None:
    require_channel(ctx, ChannelRole.GAME_ACTIONS)
    require_player(state, ctx)
    trade = _open_trade(state, action.number)
    if trade.offerer != ctx.actor:
        raise NotAllowedError(f"only the offerer can cancel trade {trade.number}; you may `!decline` it")


def _close(state: RoundState, number: int, status: TradeStatus, at: datetime) -> RoundState:
    closed = state.trades[number].model_copy(update={"status": status, "closed_at": at})
    still_open = {n: t for n, t in state.trades.items() if n != number}
    return state.model_copy(update={"trades": still_open, "closed_trades": {**state.closed_trades, number: closed}})


def apply_decline(state: RoundState, ctx: Context, action: DeclineTrade) -> Transition:
    check_decline(state, ctx, action)
    state = _close(state, action.number, TradeStatus.DECLINED, ctx.at)
    return Transition(state, (TradeClosed(action.number, "declined", ctx.actor_name),))


def apply_cancel(state: RoundState, ctx: Context, action: CancelTrade) -> Transition:
    check_cancel(state, ctx, action)
    state = _close(state, action.number, TradeStatus.CANCELLED, ctx.at)
    return Transition(state, (TradeClosed(action.number, "cancelled", ctx.actor_name),))


def void_trades_of(state: RoundState, player_id: str, at: datetime, reason: str) -> Transition:
    """Open offers from or to someone who stops being a player can never be met."""
    numbers = [t.number for t in state.trades.values() if player_id in (t.offerer, t.target)]
    for number in numbers:
        state = _close(state, number, TradeStatus.VOID, at)
    events: tuple[Event, ...] = (TradesVoided(tuple(numbers), reason),) if numbers else ()
    return Transition(state, events)


def prune_closed_trades(state: RoundState, before: datetime) -> RoundState:
    """Trades closed before ``before`` leave the state (the action log keeps them)."""
    kept = {n: t for n, t in state.closed_trades.items() if (t.closed_at or before) >= before}
    if len(kept) == len(state.closed_trades):
        return state
    return state.model_copy(update={"closed_trades": kept})
