"""Using an item of a kind a rule makes: ``!use NAME`` redeems one for its points."""

from __future__ import annotations

from games.nomic.actions import UseItem
from games.nomic.common import Transition, change_holding, require_channel, require_player
from games.nomic.context import ChannelRole, Context
from games.nomic.errors import ConflictError, InsufficientError, UnknownError
from games.nomic.events import ItemUsed
from games.nomic.items import Items, kind_plural
from games.nomic.rulelang.force import in_force, resolve_kind
from games.nomic.rulelang.program import Use
from games.nomic.state import RoundState


def _redeemable(state: RoundState, typed: str) -> tuple[str, int]:
    """The kind ``typed`` names and the points one is redeemed for; a typed error when it is none."""
    name = resolve_kind(state, typed)
    if name is None:
        shown = "".join(ch for ch in typed if ch.isprintable())[:40]
        raise UnknownError(f"no rule in force makes an item called `{shown}`")
    kind = in_force(state).kinds.find(name)
    if kind is None:
        raise ConflictError(
            f"the rule that made {name} is no longer in force, so it has no use; it can still be traded"
        )
    if kind.use is Use.PROPOSAL_MAKER:
        raise ConflictError(f"{name} works as a Standard Proposal-Maker: a standard proposal uses it by itself")
    if kind.use is not Use.REDEEMABLE:
        raise ConflictError(f"{name} is a token with no use of its own; it can be given and traded")
    return name, kind.points


def check_use(state: RoundState, ctx: Context, action: UseItem) -> None:
    require_channel(ctx, ChannelRole.GAME_ACTIONS)
    player = require_player(state, ctx)
    name, _ = _redeemable(state, action.item)
    held = player.items.get(name, 0)
    if held < action.count:
        raise InsufficientError(f"you have {kind_plural(name, held)}, not {action.count}")


def apply_use(state: RoundState, ctx: Context, action: UseItem) -> Transition:
    check_use(state, ctx, action)
    name, points = _redeemable(state, action.item)
    total = points * action.count
    step = change_holding(
        state, ctx.actor, remove=Items(kinds=((name, action.count),)), add=Items(points=total), reason="an item used"
    )
    return Transition(step.state, (ItemUsed(ctx.actor_name, name, action.count, total), *step.events))
