"""Moderators' corrections: giving and taking items, and changing an option of the ruleset."""

from __future__ import annotations

import json

from games.nomic.actions import AdminGive, AdminSet, AdminTake
from games.nomic.common import (
    HoldingChanges,
    Transition,
    adopt_ruleset,
    change_holding,
    require_holding,
    require_moderator,
    target_player,
)
from games.nomic.context import Context
from games.nomic.errors import BadInputError
from games.nomic.events import Event, ItemsAdjusted, OptionChanged
from games.nomic.phases import Phase
from games.nomic.rulelang.force import resolve_kind
from games.nomic.state import RoundState, RulesetVersion


def check_give(state: RoundState, ctx: Context, action: AdminGive) -> None:
    require_moderator(ctx)
    target_player(state, action.target)
    if action.items.empty:
        raise BadInputError("name something to give")
    for name, _ in action.items.kinds:
        if resolve_kind(state, name) != name:
            raise BadInputError(f"no rule in force makes an item called {name}")


def apply_give(state: RoundState, ctx: Context, action: AdminGive) -> Transition:
    check_give(state, ctx, action)
    step = change_holding(state, action.target, add=action.items, reason="a moderator's correction")
    name = step.state.players[action.target].name
    event = ItemsAdjusted(name, action.items, given=True, by=ctx.actor_name, by_self=action.target == ctx.actor)
    return Transition(step.state, (event, *step.events))


def check_take(state: RoundState, ctx: Context, action: AdminTake) -> None:
    require_moderator(ctx)
    player = target_player(state, action.target)
    if action.items.empty:
        raise BadInputError("name something to take")
    require_holding(player, action.items, player.name)


def apply_take(state: RoundState, ctx: Context, action: AdminTake) -> Transition:
    check_take(state, ctx, action)
    step = change_holding(state, action.target, remove=action.items, reason="a moderator took points")
    name = step.state.players[action.target].name
    event = ItemsAdjusted(name, action.items, given=False, by=ctx.actor_name, by_self=action.target == ctx.actor)
    return Transition(step.state, (event, *step.events))


def check_set(state: RoundState, ctx: Context, action: AdminSet) -> None:
    require_moderator(ctx)
    state.ruleset.with_option(action.option, action.value)


def apply_set(state: RoundState, ctx: Context, action: AdminSet) -> Transition:
    """A new ruleset version; the schedule follows it from the next boundary on."""
    check_set(state, ctx, action)
    old = state.ruleset.option_paths()[action.option.strip()]
    ruleset = state.ruleset.with_option(action.option, action.value)
    new = ruleset.option_paths()[action.option.strip()]
    version = state.ruleset_version + 1
    record = RulesetVersion(
        version=version,
        ruleset=ruleset,
        at=ctx.at,
        by=f"moderator {ctx.actor_name}",
        change=f"{action.option.strip()} = {_show(new)}",
    )
    state = adopt_ruleset(state, ruleset, record, ctx.at)
    note = _sealed_note(state, action.option.strip(), old, new)
    event = OptionChanged(action.option.strip(), _show(old), _show(new), version, ctx.actor_name, note)
    events: list[Event] = [event]
    if state.ruleset_versions[-2].ruleset.auction.revive_bids and not ruleset.auction.revive_bids:
        # Bids that were only waiting to become affordable again lapse for good now, as they
        # would have without the option; otherwise settlement could charge more than a player has.
        changes = HoldingChanges(state)
        for player_id in sorted(state.players):
            changes.lapse_bids(player_id, "bids no longer revive")
        state = changes.state()
        events.extend(changes.events)
    return Transition(state, tuple(events))


def _sealed_note(state: RoundState, option: str, old: object, new: object) -> str:
    """Sealed bids change with the next auction phase: the one running keeps its bids as they are."""
    if option != "auction.sealed_bids" or old == new:
        return ""
    kind = "sealed" if new else "open"
    if state.phase is Phase.AUCTION:
        running = "sealed" if state.sealed_bids else "open"
        return f"The auction running keeps its {running} bids; the next auction phase takes {kind} bids."
    return f"The next auction phase takes {kind} bids."


def _show(value: object) -> str:
    if isinstance(value, tuple | list):
        return "[" + ", ".join(str(v) for v in value) + "]"
    if isinstance(value, bool):
        return json.dumps(value)
    return str(value)
