"""Moderators' corrections: giving and taking items, changing an option of the ruleset, and putting a
server's own ruleset document in force."""

from __future__ import annotations

import json

from games.nomic.actions import AdminGive, AdminSet, AdminTake, ImportRuleset
from games.nomic.amendments import check_blocks, compare
from games.nomic.common import (
    Transition,
    adopt_ruleset,
    change_holding,
    lapse_unrevived,
    require_holding,
    require_moderator,
    target_player,
)
from games.nomic.context import Context
from games.nomic.document import RuleDocument, bound_options, parse_markdown
from games.nomic.errors import BadInputError
from games.nomic.events import ItemsAdjusted, OptionChanged, RulesetImported
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
        document=state.document,
    )
    before = state.ruleset
    state = adopt_ruleset(state, ruleset, record, ctx.at)
    note = _sealed_note(state, action.option.strip(), old, new)
    event = OptionChanged(action.option.strip(), _show(old), _show(new), version, ctx.actor_name, note)
    lapsed = lapse_unrevived(before, state)
    return Transition(lapsed.state, (event, *lapsed.events))


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


def _read_document(action: ImportRuleset) -> RuleDocument:
    document = parse_markdown(action.text)
    check_blocks(document)
    return document


def check_import(state: RoundState, ctx: Context, action: ImportRuleset) -> None:
    require_moderator(ctx)
    _read_document(action)


def apply_import(state: RoundState, ctx: Context, action: ImportRuleset) -> Transition:
    """A server's own document in force as a new version; the options keep their values, and the rules
    read them through its placeholders."""
    require_moderator(ctx)
    document = _read_document(action)
    values = state.ruleset.option_paths()
    notes = tuple(compare(state.document, document, values, values))
    version = state.ruleset_version + 1
    record = RulesetVersion(
        version=version,
        ruleset=state.ruleset,
        at=ctx.at,
        by=f"moderator {ctx.actor_name}",
        change=f"imported the document “{document.title[:60]}”",
        document=document,
    )
    state = adopt_ruleset(state, state.ruleset, record, ctx.at)
    bound = bound_options(document)
    event = RulesetImported(
        ctx.actor_name,
        version,
        document.title,
        sum(1 for _ in document.rules()),
        notes,
        tuple(bound),
        tuple(p for p in values if p not in bound),
    )
    return Transition(state, (event,))
