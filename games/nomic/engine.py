"""One entry point for the rules: is an action legal, apply it, and apply scheduled work.

Each concept lives in its own module; this file only routes actions to them, so the service,
the simulator and the Discord adapter all reach the same checks.
"""

from __future__ import annotations

import bisect
import random
from collections.abc import Callable, Sequence
from datetime import datetime, timedelta
from typing import Any

from games.nomic import (
    admin,
    archive,
    auction,
    digest,
    elections,
    judge,
    notices,
    players,
    presenting,
    proposals,
    reminders,
    sealed,
    todo,
    trades,
)
from games.nomic.actions import (
    AcceptTrade,
    Action,
    AdminGive,
    AdminLot,
    AdminSet,
    AdminTake,
    AssentRemoval,
    CancelTrade,
    CastConfidence,
    Challenge,
    CloseTodo,
    DeclineTrade,
    DeleteMessage,
    EditMessage,
    GenerateLot,
    GiveRuling,
    ImportRuleset,
    Join,
    Leave,
    MakeRequest,
    OfferTrade,
    PlaceBid,
    PresentHand,
    Propose,
    React,
    Resign,
    SetNotice,
    Stand,
    StartRound,
    Tick,
    UseItem,
)
from games.nomic.common import Transition, rebuilt
from games.nomic.context import Context
from games.nomic.errors import ConflictError, RuleError
from games.nomic.events import Event, LotSold, LotUnsold, PhaseBegins, PointsGranted, RoundStarted
from games.nomic.phases import BoundaryKind, Phase
from games.nomic.rulelang import force
from games.nomic.state import RoundState, RulesetVersion, SaleRecord, WeekLog


def _check_use(state: RoundState, ctx: Context, action: UseItem) -> None:
    from games.nomic.rulelang import uses

    uses.check_use(state, ctx, action)


def _apply_use(state: RoundState, ctx: Context, action: UseItem) -> Transition:
    from games.nomic.rulelang import uses

    return uses.apply_use(state, ctx, action)


def _wake(
    state: RoundState,
    at: datetime,
    *triggers_: str,
    sold: Transition | None = None,
    bids: dict[str, int] | None = None,
) -> Transition:
    """``state`` followed by the rules in force that ``triggers_`` (names of ``Trigger``) wake, after the
    lots ``sold`` announces (``triggers.fire``). The rule language loads with the first block in force:
    without one this is ``state`` unchanged, as ``fire`` would leave it."""
    if not force.blocks_in_force(state):
        return Transition(state)
    from games.nomic.rulelang import triggers
    from games.nomic.rulelang.program import Trigger
    from games.nomic.rulelang.run import Occasion

    occasions = [
        *(triggers.sold_occasions(sold) if sold is not None else ()),
        *(Occasion(Trigger[t]) for t in triggers_),
    ]
    return triggers.fire(Transition(state), occasions, at, bids=bids)


_Checker = Callable[[RoundState, Context, Any], None]
_Applier = Callable[[RoundState, Context, Any], Transition]

_RULES: dict[type[Any], tuple[_Checker, _Applier]] = {
    Join: (players.check_join, players.apply_join),
    Leave: (players.check_leave, players.apply_leave),
    PlaceBid: (auction.check_bid, auction.apply_bid),
    AdminLot: (auction.check_admin_lot, auction.apply_admin_lot),
    PresentHand: (presenting.check_present, presenting.apply_present),
    OfferTrade: (trades.check_offer, trades.apply_offer),
    AcceptTrade: (trades.check_accept, trades.apply_accept),
    DeclineTrade: (trades.check_decline, trades.apply_decline),
    CancelTrade: (trades.check_cancel, trades.apply_cancel),
    AdminGive: (admin.check_give, admin.apply_give),
    AdminTake: (admin.check_take, admin.apply_take),
    AdminSet: (admin.check_set, admin.apply_set),
    ImportRuleset: (admin.check_import, admin.apply_import),
    CloseTodo: (todo.check_done, todo.apply_done),
    Propose: (proposals.check_propose, proposals.apply_propose),
    React: (proposals.check_react, proposals.apply_react),
    EditMessage: (proposals.check_edit, proposals.apply_edit),
    DeleteMessage: (proposals.check_delete, proposals.apply_delete),
    Stand: (elections.check_stand, elections.apply_stand),
    MakeRequest: (judge.check_request, judge.apply_request),
    GiveRuling: (judge.check_rule, judge.apply_rule),
    Challenge: (judge.check_challenge, judge.apply_challenge),
    CastConfidence: (judge.check_confidence, judge.apply_confidence),
    AssentRemoval: (judge.check_removal, judge.apply_removal),
    Resign: (judge.check_resign, judge.apply_resign),
    SetNotice: (notices.check_set, notices.apply_set),
    UseItem: (_check_use, _apply_use),
}

SEALED_NOTE = (
    "Bids are sealed this auction: send `!bid LOT AMOUNT` to me by DM or use `/bid`; #auctions shows a hash of"
    " each bid, and they all open when the auction ends."
)

TRADE_HISTORY = timedelta(days=7)
"""Closed trades stay answerable (``trade 3 was declined``) this long, then leave the state."""


def rolls_dice(action: Action, state: RoundState) -> bool:
    """Whether applying ``action`` may draw from its RNG (lots are rolled, ties are tossed, a sealed bid
    draws its salt)."""
    return isinstance(action, GenerateLot | Tick) or (isinstance(action, PlaceBid) and state.sealed_bids)


def check(state: RoundState, ctx: Context, action: Action) -> None:
    """Raise the rule error that forbids ``action``; return quietly when it is legal."""
    if isinstance(action, GenerateLot):
        auction.check_generate(state, ctx, action)
        return
    if isinstance(action, StartRound | Tick):
        raise ConflictError("scheduled work is not a member's action")
    rule = _RULES.get(type(action))
    if rule is None:
        raise RuleError(f"`{action.kind}` changes nothing")
    rule[0](state, ctx, action)


def apply(state: RoundState, ctx: Context, action: Action, rng: random.Random) -> Transition:
    """Apply a member's action (checking it first) and count it in ``seq``.

    An action that changes nothing (a reaction already present) returns the very same state,
    so the service need not log it.
    """
    if isinstance(action, GenerateLot):
        step = auction.apply_generate(state, ctx, action, rng)
    elif isinstance(action, PlaceBid) and state.sealed_bids:
        step = sealed.apply_sealed_bid(state, ctx, action, rng)
    else:
        rule = _RULES.get(type(action))
        if rule is None:
            check(state, ctx, action)
            raise RuleError(f"`{action.kind}` changes nothing")
        step = rule[1](state, ctx, action)
    if step.state is state:
        return step
    if force.blocks_in_force(step.state):
        from games.nomic.rulelang import triggers

        step = triggers.fire(step, triggers.member_occasions(state, ctx, action, step.state), ctx.at)
    new = step.state
    # (``rebuilt``, not ``model_copy``: the same models, for a tenth of the cost on every accepted action)
    update: dict[str, object] = {"seq": state.seq + 1}
    if isinstance(action, PlaceBid):
        update["week"] = rebuilt(new.week, {"bids": new.week.bids + 1})
    return notices.record(Transition(rebuilt(new, update), step.events, step.archived), ctx.at)


def start_round(guild: str, seed: str, ctx: Context, action: StartRound) -> Transition:
    version = RulesetVersion(version=1, ruleset=action.ruleset, at=ctx.at, by="initial")
    state = RoundState(
        guild=guild,
        started_at=ctx.at,
        clock=ctx.at,
        seq=1,
        seed=seed,
        ruleset=action.ruleset,
        ruleset_versions=(version,),
        next_lot=1,
        moderators=frozenset(action.moderators),
        phase=action.phase,
        presenting_open=action.presenting_open,
        sealed_bids=action.phase is Phase.AUCTION and action.ruleset.auction.sealed_bids,
    )
    return Transition(state, (RoundStarted(at=ctx.at, ruleset=action.ruleset.name),))


def next_deadline(state: RoundState) -> datetime | None:
    """The first instant after the state's clock of scheduled work that the state itself sets (not the
    weekly calendar): the end of a vote, a reminder of the state's own deadlines, an outbid notice
    waiting for its minute. Each part's instants are kept while the part is the same (``kept``)."""
    clock = state.clock
    found = [
        _first_after(proposals.voting_ends(state.proposals), clock),
        _first_after(judge.confidence_ends(state.requests), clock),
        _first_after(reminders.deadlines(state.requests, state.ruleset.reminders), clock),
        *(at for at in notices.due(state) if at > clock),
    ]
    return min((at for at in found if at is not None), default=None)


def _first_after(instants: Sequence[datetime], clock: datetime) -> datetime | None:
    """The first of ``instants`` (in order) after ``clock``."""
    i = bisect.bisect_right(instants, clock)
    return instants[i] if i < len(instants) else None


def _bids_before_settlement(state: RoundState) -> dict[str, int] | None:
    if not force.blocks_in_force(state):
        return None
    from games.nomic.rulelang import triggers

    return triggers.bids_before_settlement(state)


def advance(state: RoundState, tick: Tick, rng: random.Random) -> Transition:
    """Apply everything due at ``tick.at``: boundaries in their fixed order, the reminders falling
    since the last tick, outbid notices whose minute is over; then move the clock."""
    if tick.at <= state.clock:
        raise ConflictError("this moment's scheduled work has already been applied")
    since = state.clock
    events: list[Event] = []
    retired: tuple[archive.Archived, ...] = ()
    new_judge = False
    phase_change = any(k in {BoundaryKind.AUCTION_END, BoundaryKind.AUCTION_START} for k in tick.boundaries)
    voted_under = force.blocks_in_force(state)
    step = proposals.decide_due(state, tick.at, phase_change=phase_change, phase_ends_at=tick.phase_ends_at)
    if voted_under:
        from games.nomic.rulelang import triggers

        # a decision wakes the rules in force when the vote closed, not those the proposal itself enacts
        step = triggers.fire(step, triggers.decided_occasions(state, step), tick.at, blocks=voted_under)
    state = step.state
    events.extend(step.events)
    step = judge.decide_confidence(state, tick.at)
    state = step.state
    events.extend(step.events)
    for kind in sorted(tick.boundaries, key=lambda k: k.order):
        if kind is BoundaryKind.AUCTION_END:
            if state.sealed_bids:
                opened = sealed.open_bids(state)
                state = opened.state
                events.extend(opened.events)
            bids = _bids_before_settlement(state)  # sealed bids count once opened
            step = auction.settle_auction(state)
            state = _with_sales(step.state, step.events).model_copy(
                update={"phase": Phase.BARTERING, "presenting_open": True, "presented_this_phase": frozenset()}
            )
            events.extend(step.events)
            if tick.phase_ends_at is not None:
                note = "Present a hand with `!present` before placements; generate lots with `!generate`."
                events.append(PhaseBegins("bartering", tick.phase_ends_at, note))
            step = _wake(state, tick.at, "AUCTION_ENDS", "BARTERING_STARTS", sold=step, bids=bids)
            state = step.state
            events.extend(step.events)
        elif kind is BoundaryKind.PLACEMENTS:
            step = presenting.make_placements(state, rng)
            state = step.state.model_copy(update={"week": step.state.week.model_copy(update={"placed": True})})
            events.extend(step.events)
            step = _wake(state, tick.at, "PLACEMENTS")
            state = step.state
            events.extend(step.events)
        elif kind is BoundaryKind.AUCTION_START:
            step = _wake(state, tick.at, "WEEK_ENDS")
            state = step.state
            events.extend(step.events)
            judge_before = state.judge
            step = elections.hold_election(state)
            state = step.state
            events.extend(step.events)
            if state.judge is not None and state.judge != judge_before:
                found = reminders.for_new_judge(state, tick.at)
                new_judge = bool(found)
                events.extend(found)
            if state.ruleset.digest.weekly:
                events.append(digest.WeekReviewed(digest.week_records(state, tick.at)))
            step = _auction_start(state, tick)
            state = step.state.model_copy(update={"week": WeekLog(since=tick.at)})
            events.extend(step.events)
            step = _wake(state, tick.at, "AUCTION_STARTS")
            state = step.state
            events.extend(step.events)
            state, retired = archive.retire(state, tick.at)
    events.extend(reminders.remind(state, tick, since, judge=not new_judge))
    step = notices.record(Transition(state, tuple(events)), tick.at)
    flushed = notices.flush(step.state, tick.at)
    state = flushed.state.model_copy(update={"clock": tick.at, "seq": state.seq + 1})
    return Transition(state, (*step.events, *flushed.events), retired)


def _with_sales(state: RoundState, events: tuple[Event, ...]) -> RoundState:
    """The week's log with the lots the settlement sold or left unsold (the lots leave the state)."""
    sales = tuple(
        SaleRecord(lot=e.lot, cards=e.cards, name=e.name, amount=e.amount) for e in events if isinstance(e, LotSold)
    )
    unsold = tuple(e.lot for e in events if isinstance(e, LotUnsold))
    if not sales and not unsold:
        return state
    week = state.week
    return state.model_copy(
        update={"week": week.model_copy(update={"sales": week.sales + sales, "unsold": week.unsold + unsold})}
    )


def _auction_start(state: RoundState, tick: Tick) -> Transition:
    grant = state.ruleset.auction.weekly_points
    updated = {pid: p.model_copy(update={"points": p.points + grant}) for pid, p in state.players.items()}
    expiry = trades.expire_offers(state, tick.at)
    state = trades.prune_closed_trades(expiry.state, tick.at - TRADE_HISTORY)
    state = state.model_copy(
        update={
            "players": updated,
            "phase": Phase.AUCTION,
            "presenting_open": False,
            "hands": {},
            "presented_this_phase": frozenset(),
            "sealed_bids": state.ruleset.auction.sealed_bids,
        }
    )
    events: list[Event] = []
    if tick.phase_ends_at is not None:
        lots = len(state.lots)
        note = f"{lots} lot{'s are' if lots != 1 else ' is'} up for auction: `!lots` in #auctions."
        if state.sealed_bids:
            note += f" {SEALED_NOTE}"
        events.append(PhaseBegins("auction", tick.phase_ends_at, note))
    if updated:
        events.append(PointsGranted(grant, len(updated)))
    events.extend(expiry.events)
    return Transition(state, tuple(events))
