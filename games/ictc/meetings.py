"""First meetings: before two members' first battle each sees the other's master deck and may exclude
designs of the other's from that battle. Every exclusion is recorded; once the battle begins the
meeting is over and later battles exclude nothing."""

from __future__ import annotations

from datetime import datetime

from games.ictc.actions import BeginBattle, Exclude
from games.ictc.errors import CardStateError
from games.ictc.events import Note, Step
from games.ictc.library import find_design, label
from games.ictc.state import Exclusion, LibraryState, Meeting, meeting_key
from games.nomic.context import Context


def apply_exclude(state: LibraryState, ctx: Context, action: Exclude) -> Step:
    if action.member == ctx.actor:
        raise CardStateError("a first meeting is between two members: name the other one")
    other = state.name_of(action.member)
    key = meeting_key(ctx.actor, action.member)
    a, b = sorted((ctx.actor, action.member))
    meeting = state.meetings.get(key) or Meeting(a=a, b=b)
    if meeting.met_at is not None:
        raise CardStateError(f"you and {other} have battled before: exclusions are for a first battle only")
    design = find_design(state, action.ref, ctx.actor)
    if design.owner != action.member or not design.visible:
        raise CardStateError(f"{design.name} is not in {other}'s master deck")
    mine = [e for e in meeting.exclusions if e.by == ctx.actor]
    already = any(e.design == design.id for e in mine)
    if action.exclude:
        if already:
            raise CardStateError(f"you exclude {design.name} already")
        if len(mine) >= state.options.max_exclusions:
            raise CardStateError(f"you exclude {len(mine)} designs already, the most allowed here")
        exclusions = (*meeting.exclusions, Exclusion(by=ctx.actor, design=design.id, at=ctx.at))
        approvals = len([m for m in design.current.approvals if m != design.owner])
        rude = (
            f" It carries {approvals} approval{'s' if approvals != 1 else ''}, so {other} may take it amiss."
            if design.current.approved_by is not None
            else ""
        )
        text = f"{ctx.actor_name} excludes {label(state, design)} from a first battle with {other}.{rude}"
    else:
        if not already:
            raise CardStateError(f"you do not exclude {design.name}")
        exclusions = tuple(e for e in meeting.exclusions if not (e.by == ctx.actor and e.design == design.id))
        text = f"{ctx.actor_name} lets {label(state, design)} back into a first battle with {other}."
    meeting = meeting.model_copy(update={"exclusions": exclusions})
    state = state.model_copy(update={"meetings": {**state.meetings, key: meeting}})
    return Step(state, (Note(text),))


def excluded(state: LibraryState, a: str, b: str) -> dict[str, tuple[int, ...]]:
    """For each of the two, the designs of theirs the other excluded (empty once they have met)."""
    meeting = state.meetings.get(meeting_key(a, b))
    if meeting is None or meeting.met_at is not None:
        return {a: (), b: ()}
    return {
        a: tuple(e.design for e in meeting.exclusions if e.by == b),
        b: tuple(e.design for e in meeting.exclusions if e.by == a),
    }


def apply_begin_battle(state: LibraryState, action: BeginBattle, at: datetime) -> Step:
    """The battle starts: the meeting's exclusions apply to it and the two have met from now on."""
    key = meeting_key(action.a, action.b)
    a, b = sorted((action.a, action.b))
    meeting = state.meetings.get(key) or Meeting(a=a, b=b)
    if meeting.met_at is not None:
        return Step(state)
    meeting = meeting.model_copy(update={"met_at": at})
    return Step(state.model_copy(update={"meetings": {**state.meetings, key: meeting}}))
