"""Trades between two players: the offer is the offerer's consent, acceptance the target's.

Both sides are checked when the offer is made and again when it is accepted, since points and
cards may have moved in between; an offer that can no longer be met is answered, not settled.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from games.nomic.actions import AcceptTrade, CancelTrade, DeclineTrade, OfferTrade
from games.nomic.common import (
    Transition,
    change_holding,
    member_label,
    require_channel,
    require_holding,
    require_player,
    target_player,
)
from games.nomic.context import ChannelRole, Context
from games.nomic.errors import ConflictError, NotAllowedError, UnknownError
from games.nomic.events import (
    Event,
    ExpiredOffer,
    TradeClosed,
    TradeOffered,
    TradeSettled,
    TradesExpired,
    TradesVoided,
)
from games.nomic.ruleset import OfferExpiry
from games.nomic.state import RoundState, Trade, TradeStatus

MAX_OPEN_OFFERS = 25
"""Open offers a player may have at once; enough for haggling, too few to flood a channel."""

MAX_CLOSED_TRADES = 300
"""Closed trades the state keeps at most (the newest), however busy a week: every close copies
them, and every snapshot stores them. An older number is still answered as closed."""


def _open_trade(state: RoundState, number: int) -> Trade:
    trade = state.trade(number)
    if trade is None:
        if 1 <= number < state.next_trade:
            raise ConflictError(f"trade {number} is closed (it closed long enough ago that its details are not kept)")
        raise UnknownError(f"there is no trade {number}")
    if trade.status is TradeStatus.EXPIRED:
        when = f" ({trade.closed_at:%a %Y-%m-%d %H:%M} UTC)" if trade.closed_at is not None else ""
        raise ConflictError(
            f"trade {number} expired at the end of the week it was made{when}; offers last until the week ends,"
            " so a new `!offer` is needed"
        )
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
    mine = state.open_offer_counts.get(ctx.actor, 0)
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
    counts = {**state.open_offer_counts, ctx.actor: state.open_offer_counts.get(ctx.actor, 0) + 1}
    state = state.model_copy(
        update={"trades": {**state.trades, number: trade}, "next_trade": number + 1, "open_offer_counts": counts}
    )
    target = state.players[action.target]
    event = TradeOffered(number, ctx.actor_name, target.name, action.give, action.get, offers_expire_at(state))
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
    for who, add, remove in ((trade.offerer, trade.get, trade.give), (trade.target, trade.give, trade.get)):
        reason = f"they gave {remove.describe()} in trade {trade.number}"
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
    return _close_many(state, (number,), status, at)


def _close_many(state: RoundState, numbers: tuple[int, ...], status: TradeStatus, at: datetime) -> RoundState:
    """Move open offers to the closed ones, keeping the offer index and the bound on closed trades."""
    still_open = dict(state.trades)
    closed = dict(state.closed_trades)
    counts = dict(state.open_offer_counts)
    for number in numbers:
        trade = still_open.pop(number)
        closed[number] = trade.model_copy(update={"status": status, "closed_at": at})
        left = counts.get(trade.offerer, 0) - 1
        if left > 0:
            counts[trade.offerer] = left
        else:
            counts.pop(trade.offerer, None)
    if len(closed) > MAX_CLOSED_TRADES:
        # dicts keep insertion order, and trades are closed in time order: the oldest go first
        closed = dict(list(closed.items())[-MAX_CLOSED_TRADES:])
    update = {"trades": still_open, "closed_trades": closed, "open_offer_counts": counts}
    return state.model_copy(update=update)


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
    numbers = tuple(t.number for t in state.trades.values() if player_id in (t.offerer, t.target))
    if not numbers:
        return Transition(state)
    state = _close_many(state, numbers, TradeStatus.VOID, at)
    return Transition(state, (TradesVoided(numbers, reason),))


def expire_offers(state: RoundState, at: datetime) -> Transition:
    """At the end of a week, the offers still open (all made during it) expire, if the ruleset says so."""
    if state.ruleset.trades.offers_expire is OfferExpiry.NEVER or not state.trades:
        return Transition(state)
    ordered = sorted(state.trades.values(), key=lambda t: t.number)
    offers = tuple(
        ExpiredOffer(t.number, _label(state, t.offerer), _label(state, t.target), t.give, t.get) for t in ordered
    )
    state = _close_many(state, tuple(t.number for t in ordered), TradeStatus.EXPIRED, at)
    return Transition(state, (TradesExpired(offers),))


def offers_expire_at(state: RoundState) -> datetime | None:
    """When the offers open now expire: the end of the current week (None when they never do)."""
    if state.ruleset.trades.offers_expire is OfferExpiry.NEVER:
        return None
    start = state.ruleset.calendar.week_start.python_weekday
    midnight = state.clock.replace(hour=0, minute=0, second=0, microsecond=0)
    end = midnight + timedelta(days=(start - midnight.weekday()) % 7)
    return end if end > state.clock else end + timedelta(days=7)


def _label(state: RoundState, player_id: str) -> str:
    """A player as the expiry notice names them: a mention on Discord, so both sides hear of it."""
    return member_label(player_id) if player_id.isdigit() else _name(state, player_id)


def _name(state: RoundState, player_id: str) -> str:
    player = state.players.get(player_id)
    return player.name if player is not None else player_id


def prune_closed_trades(state: RoundState, before: datetime) -> RoundState:
    """Trades closed at or before ``before`` leave the state (the action log keeps them).

    Called at each week's start with a week ago, so the offers that expired at the last one go now.
    """
    kept = {n: t for n, t in state.closed_trades.items() if t.closed_at is not None and t.closed_at > before}
    if len(kept) == len(state.closed_trades):
        return state
    return state.model_copy(update={"closed_trades": kept})
