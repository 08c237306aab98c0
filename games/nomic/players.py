"""Becoming a player and ceasing to be one."""

from __future__ import annotations

from games.nomic.actions import Join, Leave
from games.nomic.common import Transition, invalidate_bids, require_channel, require_player
from games.nomic.context import ChannelRole, Context
from games.nomic.errors import ConflictError
from games.nomic.events import Event, Joined, Left
from games.nomic.judge import vacate_if_judge
from games.nomic.state import Player, RoundState
from games.nomic.trades import void_trades_of


def check_join(state: RoundState, ctx: Context, _action: Join) -> None:
    require_channel(ctx, ChannelRole.GAME_ACTIONS)
    if ctx.actor in state.players:
        raise ConflictError("you are already a player")


def apply_join(state: RoundState, ctx: Context, action: Join) -> Transition:
    check_join(state, ctx, action)
    points = state.ruleset.auction.starting_points
    player = Player(id=ctx.actor, name=ctx.actor_name, points=points, joined_at=ctx.at)
    state = state.model_copy(update={"players": {**state.players, ctx.actor: player}})
    return Transition(state, (Joined(name=ctx.actor_name, points=points),))


def check_leave(state: RoundState, ctx: Context, action: Leave) -> None:
    if not action.left_server:
        require_channel(ctx, ChannelRole.GAME_ACTIONS)
    require_player(state, ctx)


def apply_leave(state: RoundState, ctx: Context, action: Leave) -> Transition:
    """A former player possesses nothing: items go, bids lapse, open offers are void; a judge's office ends."""
    check_leave(state, ctx, action)
    player = state.players[ctx.actor]
    events: list[Event] = []
    step = invalidate_bids(state, ctx.actor, "they stopped being a player", all_bids=True)
    state = step.state
    step = void_trades_of(state, ctx.actor, ctx.at, f"{player.name} stopped being a player")
    state = step.state
    events.extend(step.events)
    players = {k: v for k, v in state.players.items() if k != ctx.actor}
    hands = {k: v for k, v in state.hands.items() if k != ctx.actor}
    state = state.model_copy(update={"players": players, "hands": hands})
    events.insert(0, Left(name=player.name, left_server=action.left_server))
    step = vacate_if_judge(state, ctx.actor, player.name)
    return Transition(step.state, (*events, *step.events))
