"""Proposals: made by messages in #proposals, voted by the reactions present when voting ends.

An urgent proposal votes for a fixed time from its submission. A standard one votes through
the phase that starts after its submission, so the rules move it along at phase changes, which
arrive as ticks; they never consult a calendar.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from datetime import datetime, timedelta

from games.nomic import todo
from games.nomic.actions import DeleteMessage, EditMessage, Propose, React
from games.nomic.amendments import Applied, ChangeNote, apply_changes, parse_changes
from games.nomic.common import (
    Transition,
    adopt_ruleset,
    change_holding,
    lapse_unrevived,
    require_channel,
    require_player,
)
from games.nomic.context import ChannelRole, Context
from games.nomic.errors import BadInputError, ConflictError, InsufficientError, UnknownError
from games.nomic.events import (
    Event,
    ProposalAmended,
    ProposalDecided,
    ProposalLeftToPeople,
    ProposalRecorded,
    ProposalRetracted,
    ProposalVotingOpens,
    RulesetAmended,
)
from games.nomic.items import Items
from games.nomic.kept import kept
from games.nomic.phases import Phase
from games.nomic.rulelang.force import in_force
from games.nomic.ruleset import Ruleset
from games.nomic.state import (
    LEGACY_VARIANT,
    Amendment,
    ChangeKind,
    Proposal,
    ProposalClass,
    ProposalStatus,
    Reaction,
    RoundState,
    RulesetVersion,
    TextChange,
    Vote,
)

MAX_PROPOSAL_LENGTH = 4000
_AMEND_BLOCK = re.compile(r"```amend[^\n]*\n(.*?)```", re.DOTALL | re.IGNORECASE)
_VOTE_EMOJI = {"👍": Vote.FOR, "👎": Vote.AGAINST}
_VOTE_NAMES = {
    "+1": "👍",
    "thumbsup": "👍",
    "thumbs_up": "👍",
    "-1": "👎",
    "thumbsdown": "👎",
    "thumbs_down": "👎",
}
_SKIN_TONES = "\U0001f3fb\U0001f3fc\U0001f3fd\U0001f3fe\U0001f3ff"
"""The five skin-tone modifiers, lightest first: Discord's ``skin-tone-1`` to ``skin-tone-5``."""
_NAMED = re.compile(r":?(?P<name>[+\-\w]+?)(?:_tone(?P<tone>[1-5])|:?:skin[-_]tone[-_](?P<skin>[1-5]))?:?", re.ASCII)


def reaction_of(emoji: str) -> tuple[Vote, str] | None:
    """The vote an emoji casts and its variant (the emoji with its skin tone, ``👍🏽``), or None.

    👍 and 👎 count in every skin tone, written as emoji or by name (``:thumbsup:``, ``+1``,
    ``:thumbsup_tone3:``); the emoji presentation selector is ignored. Every other reaction is no vote.
    """
    text = emoji.strip().replace("\ufe0f", "")
    if len(text) > 40:
        return None
    base = _VOTE_EMOJI.get(text[:1])
    if base is not None:
        tone = text[1:]
        if tone and (len(tone) != 1 or tone not in _SKIN_TONES):
            return None
        return base, text
    match = _NAMED.fullmatch(text.lower())
    if match is None or match["name"] not in _VOTE_NAMES:
        return None
    symbol = _VOTE_NAMES[match["name"]]
    tone_number = match["tone"] or match["skin"]
    variant = symbol + (_SKIN_TONES[int(tone_number) - 1] if tone_number else "")
    return _VOTE_EMOJI[symbol], variant


def parse_amendments(text: str, ruleset: Ruleset) -> tuple[Amendment, ...]:
    """The ``amend`` blocks of a proposal, checked against the ruleset in force."""
    amendments: list[Amendment] = []
    for block in _AMEND_BLOCK.findall(text):
        for raw in block.splitlines():
            line = raw.strip()
            if not line or line.startswith("#"):
                continue
            option, sep, value = line.partition("=")
            if not sep or not option.strip() or not value.strip():
                raise BadInputError(f"the amendment line `{line[:60]}` is not `option = value`")
            amendments.append(Amendment(option=option.strip(), value=value.strip()))
    if "```amend" in text.lower() and not amendments:
        raise BadInputError("the amend block is empty or not closed with ```")
    amended_ruleset(ruleset, amendments)
    return tuple(amendments)


def read_changes(text: str, state: RoundState) -> tuple[tuple[Amendment, ...], tuple[TextChange, ...], Applied]:
    """A proposal's amendments (the ``amend`` block) and amendment lines, checked against the rules in force:
    every line must apply, in order, and the amend block to what they leave. Raises the refusal."""
    changes = parse_changes(text, state.ruleset.proposals.urgent_prefix)
    applied = apply_changes(state.document, state.ruleset, changes, lapse=False)
    return parse_amendments(text, applied.ruleset), changes, applied


def amended_ruleset(ruleset: Ruleset, amendments: tuple[Amendment, ...] | list[Amendment]) -> Ruleset:
    """The ruleset with every amendment applied in order; the first invalid one raises."""
    for amendment in amendments:
        ruleset = ruleset.with_option(amendment.option, amendment.value)
    return ruleset


def classify(text: str, ruleset: Ruleset) -> ProposalClass:
    prefix = ruleset.proposals.urgent_prefix.lower()
    return ProposalClass.URGENT if text.lstrip().lower().startswith(prefix) else ProposalClass.STANDARD


def _check_text(text: str, what: str) -> None:
    if not text.strip():
        raise BadInputError(f"{what} needs some text")
    if len(text) > MAX_PROPOSAL_LENGTH:
        raise BadInputError(f"{what} is at most {MAX_PROPOSAL_LENGTH:,} characters")


def check_propose(state: RoundState, ctx: Context, action: Propose) -> None:
    _check_propose(state, ctx, action)


def _check_propose(
    state: RoundState, ctx: Context, action: Propose
) -> tuple[tuple[Amendment, ...], tuple[TextChange, ...], Applied]:
    require_channel(ctx, ChannelRole.PROPOSALS)
    player = require_player(state, ctx)
    if action.message in state.proposals:
        raise ConflictError("that message is already a proposal")
    _check_text(action.text, "a proposal")
    if classify(action.text, state.ruleset) is ProposalClass.STANDARD and _maker(state, player.id) is None:
        prefix = state.ruleset.proposals.urgent_prefix
        raise InsufficientError(
            "a standard proposal uses a Standard Proposal-Maker and you have none; "
            f"begin the message with `{prefix}` for an urgent proposal"
        )
    return read_changes(action.text, state)


def apply_propose(state: RoundState, ctx: Context, action: Propose) -> Transition:
    amendments, changes, applied = _check_propose(state, ctx, action)
    kind = classify(action.text, state.ruleset)
    events: list[Event] = []
    starts: datetime | None = None
    ends: datetime | None = None
    status = ProposalStatus.PENDING
    paid_with = ""
    if kind is ProposalClass.STANDARD:
        paid_with = _maker(state, ctx.actor) or ""
        step = change_holding(state, ctx.actor, remove=_maker_item(paid_with), reason="a proposal")
        state = step.state
    else:
        starts = ctx.at
        ends = ctx.at + timedelta(hours=state.ruleset.proposals.urgent_voting_hours)
        status = ProposalStatus.VOTING
    proposal = Proposal(
        number=state.next_proposal,
        message=action.message,
        author=ctx.actor,
        author_name=ctx.actor_name,
        text=action.text,
        kind=kind,
        status=status,
        created_at=ctx.at,
        voting_starts=starts,
        voting_ends=ends,
        amendments=amendments,
        changes=changes,
        paid_with=paid_with,
        preview=action.preview or (),
    )
    state = state.model_copy(
        update={
            "proposals": {**state.proposals, action.message: proposal},
            "next_proposal": proposal.number + 1,
            "reactions": {**state.reactions, action.message: state.reactions.get(action.message, frozenset())},
        }
    )
    if kind is ProposalClass.STANDARD:
        starts, ends = action.window_starts, action.window_ends
    recorded = ProposalRecorded(
        proposal.number,
        ctx.actor_name,
        kind.value,
        ends,
        len(proposal.amendments),
        voting_starts=starts,
        phase=_next_phase(state).value,
        paid_with=paid_with,
        changes=applied.notes,
        preview=proposal.preview,
    )
    events.insert(0, recorded)
    return Transition(state, tuple(events))


def _maker(state: RoundState, player_id: str) -> str | None:
    """What a standard proposal of the player spends: "" for a Standard Proposal-Maker, else the first
    kind (by name) a rule in force makes work as one that they hold; None when they have neither."""
    player = state.players[player_id]
    if player.spm >= 1:
        return ""
    if not player.items:
        return None
    return next((name for name in in_force(state).kinds.proposal_makers() if player.items.get(name, 0) >= 1), None)


def _maker_item(paid_with: str) -> Items:
    return Items(kinds=((paid_with, 1),)) if paid_with else Items(spm=1)


def _next_phase(state: RoundState) -> Phase:
    """The phase that starts at the next phase change: the one a standard proposal votes through."""
    return Phase.BARTERING if state.phase is Phase.AUCTION else Phase.AUCTION


def check_react(state: RoundState, ctx: Context, action: React) -> None:
    if action.message not in state.reactions:
        raise UnknownError("reactions count only on proposals and candidacies")
    proposal = state.proposals.get(action.message)
    if proposal is not None and not proposal.status.open:
        raise ConflictError(f"proposal {proposal.number} is already {proposal.status.value}")
    del ctx


def apply_react(state: RoundState, ctx: Context, action: React) -> Transition:
    """Record the reaction as it stands; whether it counts is decided when voting ends."""
    check_react(state, ctx, action)
    present = state.reactions[action.message]
    updated = with_reaction(present, ctx.actor, action.vote, action.variant, added=action.added)
    if updated == present:
        return Transition(state)
    return Transition(state.model_copy(update={"reactions": {**state.reactions, action.message: updated}}))


def with_reaction(
    present: frozenset[Reaction], member: str, vote: Vote, variant: str, *, added: bool
) -> frozenset[Reaction]:
    """The reactions after one variant of a vote is added or removed.

    A vote recorded without its variant (before variants were kept) goes with the removal of any
    variant of it, and a removal logged without a variant takes every variant, as both did then.
    """
    if added:
        return present | {(member, vote, variant)}
    if variant == LEGACY_VARIANT:
        return frozenset(r for r in present if (r[0], r[1]) != (member, vote))
    return present - {(member, vote, variant), (member, vote, LEGACY_VARIANT)}


def voters(state: RoundState, message: str, vote: Vote) -> set[str]:
    """The players with at least one variant of ``vote`` on the message."""
    present = state.reactions.get(message, frozenset())
    return {user for user, cast, _ in present if cast is vote and user in state.players}


def tally(state: RoundState, message: str) -> tuple[int, int]:
    """Votes for and against: the current players with a vote reaction of each kind."""
    return len(voters(state, message, Vote.FOR)), len(voters(state, message, Vote.AGAINST))


def check_edit(state: RoundState, ctx: Context, action: EditMessage) -> None:
    proposal = state.proposals.get(action.message)
    if proposal is None or not proposal.status.open:
        raise UnknownError("only an open proposal's edit matters")
    if proposal.status is ProposalStatus.PENDING:
        _check_text(action.text, "an edited proposal")
        try:
            read_changes(action.text, state)
        except UnknownError as exc:
            # an unknown option is a bad amend block, which the edit's author is told about;
            # UnknownError here would read as "not a proposal" and be ignored silently
            raise BadInputError(str(exc)) from None
    del ctx


def apply_edit(state: RoundState, ctx: Context, action: EditMessage) -> Transition:
    """Before voting an edit amends the text; during voting it retracts the proposal."""
    check_edit(state, ctx, action)
    proposal = state.proposals[action.message]
    if proposal.status is ProposalStatus.VOTING:
        return _retract(state, proposal, ctx.at, "it was edited during its vote", return_item=False)
    amendments, changes, applied = read_changes(action.text, state)
    preview = proposal.preview if changes == proposal.changes else ()  # a preview of other rules no longer holds
    update = {"text": action.text, "amendments": amendments, "changes": changes, "preview": preview}
    amended = proposal.model_copy(update=update)
    state = state.model_copy(update={"proposals": {**state.proposals, action.message: amended}})
    return Transition(state, (ProposalAmended(proposal.number, proposal.message, applied.notes),))


def check_delete(state: RoundState, ctx: Context, action: DeleteMessage) -> None:
    proposal = state.proposals.get(action.message)
    if action.message in state.candidacies:
        return
    if proposal is None or not proposal.status.open:
        raise UnknownError("only an open proposal's or a candidacy's deletion matters")
    del ctx


def apply_delete(state: RoundState, ctx: Context, action: DeleteMessage) -> Transition:
    """Deleting before voting returns the Proposal-Maker; during voting it only retracts."""
    check_delete(state, ctx, action)
    if action.message in state.candidacies:
        candidacies = {k: v for k, v in state.candidacies.items() if k != action.message}
        reactions = {k: v for k, v in state.reactions.items() if k != action.message}
        return Transition(state.model_copy(update={"candidacies": candidacies, "reactions": reactions}))
    proposal = state.proposals[action.message]
    before_voting = proposal.status is ProposalStatus.PENDING
    return _retract(state, proposal, ctx.at, "it was deleted", return_item=before_voting)


def _retract(state: RoundState, proposal: Proposal, at: datetime, why: str, *, return_item: bool) -> Transition:
    events: list[Event] = []
    returned = False
    if return_item and proposal.kind is ProposalClass.STANDARD and proposal.author in state.players:
        step = change_holding(state, proposal.author, add=_maker_item(proposal.paid_with), reason="a returned item")
        state = step.state
        returned = True
    done = proposal.model_copy(update={"status": ProposalStatus.RETRACTED, "decided_at": at, "note": why})
    reactions = {k: v for k, v in state.reactions.items() if k != proposal.message}
    state = state.model_copy(update={"proposals": {**state.proposals, proposal.message: done}, "reactions": reactions})
    item = proposal.paid_with or "Standard Proposal-Maker"
    events.insert(0, ProposalRetracted(proposal.number, proposal.message, why, returned, returned_item=item))
    return Transition(state, tuple(events))


def passes(state: RoundState, proposal: Proposal, votes_for: int, votes_against: int) -> bool:
    rules = state.ruleset.proposals
    if proposal.kind is ProposalClass.URGENT:
        return votes_against <= rules.urgent_max_against
    cast = votes_for + votes_against
    return cast > 0 and votes_for * rules.standard_ratio_denominator >= rules.standard_ratio_numerator * cast


@kept
def voting_ends(proposals: Mapping[str, Proposal]) -> tuple[datetime, ...]:
    """When the votes under way with an end of their own (urgent proposals') end, in order."""
    return tuple(
        sorted(
            p.voting_ends for p in proposals.values() if p.status is ProposalStatus.VOTING and p.voting_ends is not None
        )
    )


@kept
def standard_voting(proposals: Mapping[str, Proposal]) -> bool:
    """Whether a standard proposal is in its vote (it ends with the phase)."""
    return any(p.kind is ProposalClass.STANDARD and p.status is ProposalStatus.VOTING for p in proposals.values())


def decide_due(
    state: RoundState, at: datetime, *, phase_change: bool, phase_ends_at: datetime | None = None
) -> Transition:
    """Close the votes ending at ``at``, then let the passed ones take effect in creation order.

    At a phase change, standard proposals in their vote are decided and those waiting start voting,
    announced in #proposals with the end of the phase that starts (``phase_ends_at``, when known).
    """
    ending = [
        p
        for p in state.proposals.values()
        if p.status is ProposalStatus.VOTING
        and (
            (p.voting_ends is not None and p.voting_ends <= at)
            or (phase_change and p.kind is ProposalClass.STANDARD and p.voting_ends is None)
        )
    ]
    events: list[Event] = []
    passed: list[Proposal] = []
    proposals = dict(state.proposals)
    reactions = dict(state.reactions)
    for proposal in sorted(ending, key=lambda p: p.number):
        votes_for, votes_against = tally(state, proposal.message)
        ok = passes(state, proposal, votes_for, votes_against)
        decided = proposal.model_copy(
            update={
                "status": ProposalStatus.PASSED if ok else ProposalStatus.FAILED,
                "votes_for": votes_for,
                "votes_against": votes_against,
                "decided_at": at,
                "voting_ends": at,
            }
        )
        proposals[proposal.message] = decided
        reactions.pop(proposal.message, None)
        events.append(
            ProposalDecided(proposal.number, proposal.message, proposal.author_name, ok, votes_for, votes_against)
        )
        if ok:
            passed.append(decided)
    opening: list[Proposal] = []
    if phase_change:
        for message, proposal in state.proposals.items():
            if proposal.status is ProposalStatus.PENDING:
                proposals[message] = proposal.model_copy(update={"status": ProposalStatus.VOTING, "voting_starts": at})
                opening.append(proposal)
    phase = _next_phase(state)
    state = state.model_copy(update={"proposals": proposals, "reactions": reactions})
    for proposal in passed:
        step = take_effect(state, proposal, at)
        state = step.state
        events.extend(step.events)
    if opening:
        listed = tuple((p.number, p.author_name, p.text) for p in sorted(opening, key=lambda p: p.number))
        events.append(ProposalVotingOpens(listed, phase.value, phase_ends_at))
    return Transition(state, tuple(events))


def take_effect(state: RoundState, proposal: Proposal, at: datetime) -> Transition:
    """A passed proposal's amendment lines and amend block become one new ruleset version.

    The lines apply in order to the rules as they are now (an earlier proposal passing at the same
    moment may have changed them): one that no longer applies lapses alone, with its reason. What the
    bot does not enforce (changed sentences, a repeal, or a proposal with no amendment at all) goes on
    the moderators' to-do list.
    """
    if not proposal.amendments and not proposal.changes:
        step = todo.add(state, proposal, todo.plain_lines(proposal), at)
        notice = ProposalLeftToPeople(proposal.number, proposal.message, step.state.next_todo - 1)
        return Transition(step.state, (notice, *step.events))
    applied = apply_changes(state.document, state.ruleset, proposal.changes, lapse=True)
    ruleset = applied.ruleset
    problem = ""
    if proposal.amendments:
        try:
            ruleset = amended_ruleset(ruleset, proposal.amendments)
        except (BadInputError, UnknownError) as exc:
            problem = f"its amendment no longer applies: {exc}"
    lapses = tuple(f"line {lapse.line} (rule {lapse.rule}) lapsed: {lapse.why}" for lapse in applied.lapsed)
    note = "; ".join([*([problem] if problem else []), *lapses])
    if note:
        updated = proposal.model_copy(update={"note": note})
        state = state.model_copy(update={"proposals": {**state.proposals, proposal.message: updated}})
    block_applied = bool(proposal.amendments) and not problem
    if not applied.notes and not block_applied:
        why = problem or "none of its amendment lines applies any more"
        return Transition(state, (RulesetAmended(proposal.number, proposal.message, 0, "", why, lapsed=lapses),))
    version = state.ruleset_version + 1
    block = [f"{a.option} = {a.value}" for a in proposal.amendments] if block_applied else []
    change = "; ".join([*(_summary(n) for n in applied.notes), *block])
    record = RulesetVersion(
        version=version,
        ruleset=ruleset,
        at=at,
        by=f"proposal {proposal.number}",
        change=change,
        document=applied.document,
    )
    before = state.ruleset
    state = adopt_ruleset(state, ruleset, record, at)
    lapsed_bids = lapse_unrevived(before, state)
    state = lapsed_bids.state
    events: list[Event] = []
    number = 0
    if applied.for_people:
        step = todo.add(state, proposal, todo.change_lines(applied.notes), at)
        state, number = step.state, step.state.next_todo - 1
        events.extend(step.events)
    amended = RulesetAmended(
        proposal.number,
        proposal.message,
        version,
        change,
        problem,
        notes=applied.notes,
        lapsed=lapses,
        todo=number,
    )
    return Transition(state, (amended, *events, *lapsed_bids.events))


_DONE = {ChangeKind.AMEND: "amended", ChangeKind.REPLACE: "amended", ChangeKind.REPEAL: "repealed"}


def _summary(note: ChangeNote) -> str:
    """One applied line in a version's change: ``rule 4.2 amended: auction.lots_per_auction = 8``."""
    values = ", ".join(f"{v.path} = {v.new}" for v in note.values)
    verb = _DONE.get(note.kind, "enacted")
    return f"rule {note.rule} {verb}" + (f": {values}" if values else "")
