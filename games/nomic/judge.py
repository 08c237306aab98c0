"""The judge: requests, rulings, votes of confidence, removal and resignation."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime, timedelta

from games.nomic.actions import AssentRemoval, CastConfidence, Challenge, GiveRuling, MakeRequest, Resign
from games.nomic.common import Transition, require_channel, require_player
from games.nomic.context import ChannelRole, Context
from games.nomic.errors import BadInputError, ConflictError, NotAllowedError, UnknownError, WrongPhaseError
from games.nomic.events import (
    ConfidenceCast,
    ConfidenceDecided,
    ConfidenceStarted,
    Event,
    JudgeChanged,
    RemovalAssent,
    RequestMade,
    RulingGiven,
)
from games.nomic.kept import kept
from games.nomic.state import ConfidenceVote, JudgeRequest, RequestStatus, RoundState, Ruling

MAX_TEXT = 1500


def _request(state: RoundState, number: int) -> JudgeRequest:
    request = state.requests.get(number)
    if request is None and 0 < number < state.next_request:
        raise ConflictError(f"request {number} is settled: its ruling can no longer be challenged or replaced")
    if request is None:
        raise UnknownError(f"there is no request {number}")
    return request


def _text(text: str, what: str) -> str:
    body = text.strip()
    if not body:
        raise BadInputError(f"the {what} needs some text")
    if len(body) > MAX_TEXT:
        raise BadInputError(f"the {what} is at most {MAX_TEXT:,} characters")
    return body


def check_request(state: RoundState, ctx: Context, action: MakeRequest) -> None:
    require_channel(ctx, ChannelRole.GAME_ACTIONS)
    if state.judge == ctx.actor:
        raise NotAllowedError("the judge cannot make a request of themselves")
    _text(action.text, "request")


def apply_request(state: RoundState, ctx: Context, action: MakeRequest) -> Transition:
    check_request(state, ctx, action)
    number = state.next_request
    request = JudgeRequest(
        number=number, by=ctx.actor, by_name=ctx.actor_name, text=_text(action.text, "request"), at=ctx.at
    )
    state = state.model_copy(update={"requests": {**state.requests, number: request}, "next_request": number + 1})
    return Transition(state, (RequestMade(number, ctx.actor_name, state.judge_name),))


def check_rule(state: RoundState, ctx: Context, action: GiveRuling) -> None:
    require_channel(ctx, ChannelRole.GAME_ACTIONS)
    if state.judge != ctx.actor:
        raise NotAllowedError("only the judge can rule")
    request = _request(state, action.number)
    if request.by == ctx.actor:
        raise NotAllowedError(f"request {action.number} is your own request; it waits for another judge")
    _text(action.text, "ruling")
    if request.status is RequestStatus.ANSWERED and request.rulings:
        last = request.rulings[-1]
        window = timedelta(days=state.ruleset.judge.replace_ruling_days)
        if last.judge != ctx.actor:
            raise ConflictError(f"request {action.number} was already answered by another judge")
        if ctx.at > last.at + window:
            raise WrongPhaseError(f"your ruling on request {action.number} can no longer be replaced")


def apply_rule(state: RoundState, ctx: Context, action: GiveRuling) -> Transition:
    """A first ruling, a replacement of the judge's own recent ruling, or a new one after an overturn.

    A replacement ends a vote of confidence running on the ruling it replaces, without a result;
    the new ruling can be challenged afresh for the full time.
    """
    check_rule(state, ctx, action)
    request = state.requests[action.number]
    replaces = request.status is RequestStatus.ANSWERED
    ruling = Ruling(judge=ctx.actor, judge_name=ctx.actor_name, text=_text(action.text, "ruling"), at=ctx.at)
    updated = request.model_copy(
        update={"status": RequestStatus.ANSWERED, "rulings": (*request.rulings, ruling), "confidence": None}
    )
    state = state.model_copy(update={"requests": {**state.requests, action.number: updated}})
    until = ctx.at + timedelta(days=state.ruleset.judge.challenge_days)
    ended = request.confidence is not None
    return Transition(state, (RulingGiven(action.number, ctx.actor_name, ruling.text, replaces, until, ended),))


def check_challenge(state: RoundState, ctx: Context, action: Challenge) -> None:
    require_channel(ctx, ChannelRole.GAME_ACTIONS)
    require_player(state, ctx)
    request = _request(state, action.number)
    if request.status is not RequestStatus.ANSWERED or not request.rulings:
        raise ConflictError(f"request {action.number} has no ruling in force to challenge")
    if request.confidence is not None:
        raise ConflictError(f"a vote of confidence on request {action.number} is already running")
    made = request.rulings[-1].at
    if ctx.at > made + timedelta(days=state.ruleset.judge.challenge_days):
        raise WrongPhaseError(
            f"a ruling can be challenged only within {state.ruleset.judge.challenge_days} days of being made"
        )


def apply_challenge(state: RoundState, ctx: Context, action: Challenge) -> Transition:
    """A vote of confidence; after one that let the ruling stand, another may follow within the days."""
    check_challenge(state, ctx, action)
    request = state.requests[action.number]
    ends = ctx.at + timedelta(days=state.ruleset.judge.confidence_vote_days)
    vote = ConfidenceVote(started_by=ctx.actor, started_at=ctx.at, ends_at=ends)
    updated = request.model_copy(update={"confidence": vote})
    state = state.model_copy(update={"requests": {**state.requests, action.number: updated}})
    return Transition(state, (ConfidenceStarted(action.number, ctx.actor_name, ends),))


def check_confidence(state: RoundState, ctx: Context, action: CastConfidence) -> None:
    require_channel(ctx, ChannelRole.GAME_ACTIONS)
    require_player(state, ctx)
    request = _request(state, action.number)
    if request.confidence is None:
        raise ConflictError(f"no vote of confidence is running on request {action.number}")
    if ctx.at >= request.confidence.ends_at:
        raise WrongPhaseError("that vote of confidence has ended")


def apply_confidence(state: RoundState, ctx: Context, action: CastConfidence) -> Transition:
    check_confidence(state, ctx, action)
    request = state.requests[action.number]
    vote = request.confidence
    if vote is None:  # pragma: no cover - checked above
        raise ConflictError("no vote is running")
    vote = vote.model_copy(update={"votes": {**vote.votes, ctx.actor: action.overturn}})
    updated = request.model_copy(update={"confidence": vote})
    state = state.model_copy(update={"requests": {**state.requests, action.number: updated}})
    return Transition(state, (ConfidenceCast(action.number, ctx.actor_name, action.overturn),))


@kept
def confidence_ends(requests: Mapping[int, JudgeRequest]) -> tuple[datetime, ...]:
    """When the votes of confidence end, in order."""
    return tuple(sorted(r.confidence.ends_at for r in requests.values() if r.confidence is not None))


def decide_confidence(state: RoundState, at: datetime) -> Transition:
    """Votes of confidence ending by ``at``: overturned when strictly more players vote so."""
    events: list[Event] = []
    requests = dict(state.requests)
    for number in sorted(state.requests):
        request = state.requests[number]
        vote = request.confidence
        if vote is None or vote.ends_at > at:
            continue
        counted = [v for player, v in vote.votes.items() if player in state.players]
        overturn = sum(1 for v in counted if v)
        affirm = len(counted) - overturn
        overturned = overturn > affirm
        status = RequestStatus.OVERTURNED if overturned else RequestStatus.ANSWERED
        requests[number] = request.model_copy(update={"confidence": None, "status": status})
        events.append(ConfidenceDecided(number, overturned, overturn, affirm))
    return Transition(state.model_copy(update={"requests": requests}), tuple(events))


def check_removal(state: RoundState, ctx: Context, action: AssentRemoval) -> None:
    require_channel(ctx, ChannelRole.GAME_ACTIONS)
    require_player(state, ctx)
    if state.judge is None:
        raise ConflictError("there is no judge to remove")
    if state.judge == ctx.actor:
        raise NotAllowedError("the judge steps down with `!resign`")
    if ctx.actor in state.removal_assents:
        raise ConflictError("you have already assented to removing this judge")
    del action


def apply_removal(state: RoundState, ctx: Context, action: AssentRemoval) -> Transition:
    check_removal(state, ctx, action)
    assents = frozenset(a for a in state.removal_assents if a in state.players) | {ctx.actor}
    needed = state.ruleset.judge.removal_assents
    judge_name = state.judge_name or "the judge"
    events: list[Event] = [RemovalAssent(ctx.actor_name, judge_name, len(assents), needed)]
    if len(assents) >= needed:
        state = set_judge(state, None, None)
        events.append(JudgeChanged(None, f"Judge {judge_name} is removed with the assent of {len(assents)} players."))
    else:
        state = state.model_copy(update={"removal_assents": assents})
    return Transition(state, tuple(events))


def check_resign(state: RoundState, ctx: Context, action: Resign) -> None:
    require_channel(ctx, ChannelRole.GAME_ACTIONS)
    if state.judge != ctx.actor:
        raise NotAllowedError("only the judge can resign")
    del action


def apply_resign(state: RoundState, ctx: Context, action: Resign) -> Transition:
    check_resign(state, ctx, action)
    state = set_judge(state, None, None)
    return Transition(state, (JudgeChanged(None, f"{ctx.actor_name} resigns as judge."),))


def set_judge(state: RoundState, judge: str | None, name: str | None) -> RoundState:
    """A new term of office (an election, even of the same judge) or an empty office.

    Assents to remove a judge belong to one term: every change starts the next term with none.
    """
    return state.model_copy(update={"judge": judge, "judge_name": name, "removal_assents": frozenset()})


def vacate_if_judge(state: RoundState, member: str, name: str) -> Transition:
    """A judge who stops being a player stops being judge at once (only players act).

    Their rulings stand, requests wait for the next judge, and a running vote of confidence goes
    on to its end; the office stays empty until the next election.
    """
    if state.judge != member:
        return Transition(state)
    why = f"{name} stopped being a player and so is no longer the judge."
    return Transition(set_judge(state, None, None), (JudgeChanged(None, why),))
