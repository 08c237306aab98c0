"""What the round is done with leaves the state for the store, so the state stays small for seasons.

At each week's start the records nothing can change any more move out of ``RoundState``: proposals
decided before that moment, rulings that can no longer be challenged or replaced, and ruleset
versions superseded before it (what the week's start itself decides stays a week, for the views).
They are returned as ``Archived`` values that the service writes in the same transaction as the
tick, and the views read them back (``!proposals``, ``!rulings``, ``!ruleset history``). A number
that is archived is closed: the rules answer so rather than "there is no such thing". The
moderators' to-do items done before that moment leave too, for good: the log keeps who closed them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from enum import StrEnum
from typing import Generic, TypeVar

from pydantic import BaseModel

from games.nomic.state import JudgeRequest, Proposal, RequestStatus, RoundState, RulesetVersion
from games.values import valueclass


class ArchiveKind(StrEnum):
    PROPOSAL = "proposal"
    REQUEST = "request"
    RULESET_VERSION = "ruleset_version"


KIND_OF: dict[type[BaseModel], ArchiveKind] = {
    Proposal: ArchiveKind.PROPOSAL,
    JudgeRequest: ArchiveKind.REQUEST,
    RulesetVersion: ArchiveKind.RULESET_VERSION,
}


@dataclass(frozen=True, slots=True)
class Archived:
    """One record leaving the state: its kind, its number (proposal, request or version) and its JSON."""

    kind: ArchiveKind
    number: int
    at: datetime
    body: str


def request_settled(request: JudgeRequest, state: RoundState, at: datetime) -> bool:
    """A ruling nobody can challenge or replace any more, with no vote of confidence running.

    The windows are read from the ruleset in force when the week starts; a ruling archived is final
    even if a later change lengthens them.
    """
    if request.status is not RequestStatus.ANSWERED or request.confidence is not None or not request.rulings:
        return False
    judge = state.ruleset.judge
    window = timedelta(days=max(judge.challenge_days, judge.replace_ruling_days))
    return request.rulings[-1].at + window <= at


def retire(state: RoundState, at: datetime) -> tuple[RoundState, tuple[Archived, ...]]:
    """Move everything settled by ``at`` out of the state; the records in number order per kind."""
    out: list[Archived] = []
    proposals = {}
    for message, proposal in state.proposals.items():
        if proposal.status.open or proposal.decided_at is None or proposal.decided_at >= at:
            proposals[message] = proposal
        else:
            out.append(Archived(ArchiveKind.PROPOSAL, proposal.number, at, proposal.model_dump_json()))
    requests = {}
    for number, request in state.requests.items():
        if request_settled(request, state, at):
            out.append(Archived(ArchiveKind.REQUEST, number, at, request.model_dump_json()))
        else:
            requests[number] = request
    versions = state.ruleset_versions
    superseded = sum(1 for later in versions[1:] if later.at < at)
    out.extend(Archived(ArchiveKind.RULESET_VERSION, v.version, at, v.model_dump_json()) for v in versions[:superseded])
    todos = {n: item for n, item in state.todos.items() if item.done_at is None or item.done_at >= at}
    if not out and len(todos) == len(state.todos):
        return state, ()
    reactions = {m: r for m, r in state.reactions.items() if m in proposals or m in state.candidacies}
    state = state.model_copy(
        update={
            "proposals": proposals,
            "requests": requests,
            "ruleset_versions": versions[superseded:],
            "reactions": reactions,
            "todos": todos,
        }
    )
    out.sort(key=lambda a: (a.kind.value, a.number))
    return state, tuple(out)


M = TypeVar("M", bound=BaseModel)


@valueclass
class Archive(Generic[M]):
    """What a view needs of the records that left the state: the newest ones and how many there are."""

    newest: Sequence[M] = ()
    """Newest (highest number) first; at least as many as the asked page reaches, when there are."""
    total: int = 0


def load(model: type[M], bodies: Sequence[str]) -> list[M]:
    """Archived records read back as the values they were."""
    return [model.model_validate_json(body) for body in bodies]
