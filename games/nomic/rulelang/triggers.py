"""Where the round meets its rule blocks: the occasions an action or a tick makes, and running the
rules they wake inside the same transition (so a replay of the log makes the same effects)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime

from games.nomic.actions import Action, GiveRuling, Join, Leave, PresentHand
from games.nomic.common import Transition
from games.nomic.context import Context
from games.nomic.events import LotSold, ProposalDecided
from games.nomic.hands import score_category
from games.nomic.rulelang import force
from games.nomic.rulelang.effects import apply_effects
from games.nomic.rulelang.force import Blocks, in_force_of
from games.nomic.rulelang.program import Trigger
from games.nomic.rulelang.run import Occasion, run
from games.nomic.rulelang.syntax import RUN_BUDGET
from games.nomic.rulelang.view import StateView, lots_bid_on
from games.nomic.state import RoundState


def rules_now(state: RoundState) -> Blocks:
    """The blocks in force in ``state`` (kept by a tick for the decisions it makes)."""
    return force.blocks_in_force(state)


def listening(state: RoundState, *triggers: Trigger) -> bool:
    """Whether a rule in force waits for any of ``triggers``: when none does, the round skips the rest."""
    by_trigger = in_force_of(force.blocks_in_force(state)).by_trigger
    return bool(by_trigger) and any(t in by_trigger for t in triggers)


def bids_before_settlement(state: RoundState) -> dict[str, int] | None:
    """The lots each player bid on, counted before the settlement takes the lots away, when a rule of
    the auction's end may ask (None: none can)."""
    if not listening(state, Trigger.LOT_WON, Trigger.AUCTION_ENDS, Trigger.BARTERING_STARTS):
        return None
    return lots_bid_on(state)


def fire(
    step: Transition,
    occasions: Sequence[Occasion],
    at: datetime,
    *,
    blocks: Blocks | None = None,
    bids: Mapping[str, int] | None = None,
) -> Transition:
    """``step`` followed by the rules each occasion wakes, in occasion order, then rule-number order.

    Each rule reads the state the rules before it left. ``blocks``: the rules to run when not those
    in force after ``step`` (a proposal's decision wakes the rules in force when its vote closed);
    ``bids``: the lots each player bid on, when the lots have left the state (at the auction's end).
    """
    if not occasions:
        return step
    rules = in_force_of(blocks if blocks is not None else force.blocks_in_force(step.state))
    if not rules.by_trigger:
        return step
    state = step.state
    events = list(step.events)
    for occasion in occasions:
        for number, program in rules.by_trigger.get(occasion.trigger, ()):
            view = StateView(state, rules.kinds, bids=bids)
            effects = run(program, occasion, view, RUN_BUDGET, rule=number)
            if effects:
                state, told = apply_effects(state, effects, at, trigger=occasion.trigger)
                events.extend(told)
    return Transition(state, tuple(events), step.archived)


def member_occasions(before: RoundState, ctx: Context, action: Action, after: RoundState) -> list[Occasion]:
    """What a member's accepted action makes happen that a rule may react to."""
    if isinstance(action, Join):
        return [Occasion(Trigger.PLAYER_JOINS, player=ctx.actor)]
    if isinstance(action, Leave):
        return [Occasion(Trigger.PLAYER_LEAVES, player=ctx.actor)]
    if isinstance(action, PresentHand):
        hand = after.hands.get(ctx.actor)
        category = int(score_category(hand.score)) if hand is not None and hand.score is not None else None
        return [Occasion(Trigger.HAND_PRESENTED, player=ctx.actor, category=category)]
    if isinstance(action, GiveRuling):
        request = before.requests.get(action.number)
        asker = request.by if request is not None else None
        return [Occasion(Trigger.RULING_MADE, player=asker, ruling=action.number)]
    return []


def decided_occasions(state: RoundState, step: Transition) -> list[Occasion]:
    """A proposal passing or failing, for each decision ``step`` announces."""
    found: list[Occasion] = []
    for event in step.events:
        if isinstance(event, ProposalDecided):
            proposal = step.state.proposals.get(event.message) or state.proposals.get(event.message)
            author = proposal.author if proposal is not None else None
            trigger = Trigger.PROPOSAL_PASSES if event.passed else Trigger.PROPOSAL_FAILS
            found.append(Occasion(trigger, player=author, proposal=event.number))
    return found


def sold_occasions(step: Transition) -> list[Occasion]:
    """A lot won, for each lot a settlement sold, in lot order."""
    return [
        Occasion(Trigger.LOT_WON, player=e.player or None, lot=e.lot, amount=e.amount)
        for e in step.events
        if isinstance(e, LotSold)
    ]
