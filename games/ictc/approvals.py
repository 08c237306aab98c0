"""Approvals: members' verdicts on a version, guilds' votes and committees, and contests.

A version is approved by ``approvals_needed`` distinct members other than its maker (⚙ 2), or by a
guild (⚙ ``approval``: either, players or guild). A guild in vote mode decides at its deadline
(scheduled work, caught up once after downtime): at least ``quorum`` of its members voted and more
for than against. A guild in committee mode approves as soon as ``committee`` officers have.
Each member's latest verdict counts; Approve and Reject on a card under a guild's review count in
that guild's vote too. A new version starts with no verdicts.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from games.ictc.actions import AskGuild, CloseReview, CommentCard, ContestCard, DecideContest, JudgeCard
from games.ictc.cards import shown
from games.ictc.errors import CardInputError, CardStateError, NotYoursError, UnknownCardError
from games.ictc.events import Note, Step
from games.ictc.library import find_design, find_guild, guild_key, label, require_maker, with_design
from games.ictc.similarity import similarity
from games.ictc.state import (
    ApprovalMode,
    Comment,
    Contest,
    ContestStatus,
    Design,
    DesignStatus,
    GuildMode,
    LibraryState,
    Review,
    ReviewStatus,
    Verdict,
    Version,
)
from games.ictc.views import and_list
from games.nomic.context import Context
from games.nomic.events import when

MAX_COMMENT = 500
MAX_COMMENTS = 50
MAX_REASON = 200


def _version(design: Design, asked: int | None) -> Version:
    current = design.current
    if asked is not None and asked != current.number:
        if design.version(asked) is None:
            raise UnknownCardError(f"{design.name} has no version {asked}")
        raise CardStateError(
            f"version {asked} of {design.name} was replaced by version {current.number}; look at the new one"
            f" (`!card show #{design.id}`)"
        )
    return current


def _replace_current(design: Design, version: Version, **update: object) -> Design:
    return design.model_copy(update={"versions": (*design.versions[:-1], version), **update})


def _guild_name(state: LibraryState, key: str) -> str:
    guild = state.guilds.get(key)
    return guild.name if guild is not None else key


def settle(state: LibraryState, design: Design, at: datetime) -> tuple[Design, list[str]]:
    """Approve the current version when enough verdicts say so; what to announce."""
    version = design.current
    if version.approved_by is not None or design.status is not DesignStatus.PENDING:
        return design, []
    others = [m for m in version.approvals if m != design.owner]
    options = state.options
    approved_by: str | None = None
    review = version.review
    if options.approval is not ApprovalMode.GUILD and len(others) >= options.approvals_needed:
        approved_by = "players"
    elif review is not None and review.status is ReviewStatus.OPEN and review.mode is GuildMode.COMMITTEE:
        guild = state.guilds.get(review.guild)
        if guild is not None and len([m for m in others if m in guild.officers]) >= guild.committee:
            approved_by = f"guild:{guild.name}"
            review = review.model_copy(update={"status": ReviewStatus.PASSED, "closed_at": at})
    if approved_by is None:
        return design, []
    version = version.model_copy(update={"approved_by": approved_by, "approved_at": at, "review": review})
    design = _replace_current(design, version, status=DesignStatus.APPROVED)
    who = (
        "by " + and_list([state.name_of(m) for m in others])
        if approved_by == "players"
        else f"by the guild {approved_by.removeprefix('guild:')}"
    )
    return design, [
        f"✅ **{design.name}** (#{design.id}, v{version.number}) is approved {who}. Its maker may now mint copies."
    ]


def apply_judge(state: LibraryState, ctx: Context, action: JudgeCard) -> Step:
    design = find_design(state, action.ref, ctx.actor)
    if design.owner == ctx.actor:
        raise NotYoursError("you cannot approve or reject your own card; other members do")
    if design.status is DesignStatus.BLOCKED:
        raise CardStateError(f"{design.name} is blocked")
    version = _version(design, action.version)
    reason = " ".join(action.reason.split())
    if len(reason) > MAX_REASON:
        raise CardInputError(f"a reason is at most {MAX_REASON} characters")
    earlier = next((v for v in version.verdicts if v.member == ctx.actor), None)
    if earlier is not None and earlier.approve == action.approve and earlier.reason == reason:
        raise CardStateError(f"you {'approved' if action.approve else 'rejected'} this version already")
    verdict = Verdict(member=ctx.actor, approve=action.approve, at=ctx.at, reason=reason)
    verdicts = (*(v for v in version.verdicts if v.member != ctx.actor), verdict)
    design = _replace_current(design, version.model_copy(update={"verdicts": verdicts}))
    design, announced = settle(state, design, ctx.at)
    state = with_design(state, design)
    current = design.current
    count = len([m for m in current.approvals if m != design.owner])
    said = "approves" if action.approve else "rejects"
    text = f"{ctx.actor_name} {said} {label(state, design, version=current.number)}"
    text += f": {reason}." if reason else "."
    if current.approved_by is None and state.options.approval is not ApprovalMode.GUILD:
        text += f" {count} of {state.options.approvals_needed} approvals."
    review = current.review
    if review is not None and review.status is ReviewStatus.OPEN:
        guild = state.guilds.get(review.guild)
        if guild is not None and ctx.actor in guild.members:
            text += f" It counts in the guild {guild.name}'s review."
    if current.flags and action.approve:
        text += " (The card is flagged: approving it says it is different enough from the protected design.)"
    notes = [Note(text)]
    notes.extend(Note(line, card=(design.id, current.number)) for line in announced)
    return Step(state, tuple(notes))


def apply_comment(state: LibraryState, ctx: Context, action: CommentCard) -> Step:
    design = find_design(state, action.ref, ctx.actor)
    version = _version(design, action.version)
    text = " ".join(action.text.split())
    if not text:
        raise CardInputError("write the comment: `!card comment CARD: TEXT`")
    if len(text) > MAX_COMMENT:
        raise CardInputError(f"a comment is at most {MAX_COMMENT} characters")
    if len(version.comments) >= MAX_COMMENTS:
        raise CardStateError("this version has all the comments it can hold; a new version starts afresh")
    comment = Comment(member=ctx.actor, text=text, at=ctx.at)
    design = _replace_current(design, version.model_copy(update={"comments": (*version.comments, comment)}))
    state = with_design(state, design)
    said = f"💬 {ctx.actor_name} on {label(state, design, version=version.number)}: {text}"
    return Step(state, (Note(said, private=not design.visible),))


def open_review(state: LibraryState, ctx: Context, design_id: int, guild_name: str) -> tuple[LibraryState, str]:
    """Ask a guild to approve the design's current version; the state and what to say."""
    if state.options.approval is ApprovalMode.PLAYERS:
        raise CardStateError("on this server cards are approved by members, not guilds (option `approval`)")
    design = state.designs[design_id]
    guild = find_guild(state, guild_name)
    version = design.current
    if version.review is not None and version.review.status is ReviewStatus.OPEN:
        raise CardStateError(f"the guild {_guild_name(state, version.review.guild)} is reviewing this version already")
    deadline = ctx.at + timedelta(hours=guild.hours) if guild.mode is GuildMode.VOTE else None
    review = Review(guild=guild_key(guild.name), mode=guild.mode, opened_at=ctx.at, deadline=deadline)
    design = _replace_current(design, version.model_copy(update={"review": review}))
    design, announced = settle(state, design, ctx.at)
    state = with_design(state, design)
    if deadline is not None:
        said = (
            f"The guild {guild.name} reviews it: its members vote with Approve and Reject until"
            f" {when(deadline, relative=True)}; it passes with at least {guild.quorum} votes, more for than against."
        )
    else:
        said = f"The guild {guild.name} reviews it: the approval of any {guild.committee} of its officers suffices."
    return state, "\n".join([said, *announced])


def apply_ask(state: LibraryState, ctx: Context, action: AskGuild) -> Step:
    design = find_design(state, action.ref, ctx.actor)
    require_maker(design, ctx, "ask a guild to review it")
    if design.status is DesignStatus.DRAFT:
        raise CardStateError(f"submit {design.name} first (`!card submit #{design.id} guild:{action.guild}`)")
    if design.status is not DesignStatus.PENDING:
        raise CardStateError(
            f"{design.name} is {design.status.value}; only a card waiting for approval goes to a guild"
        )
    state, said = open_review(state, ctx, design.id, action.guild)
    design = state.designs[design.id]
    text = (
        f"{ctx.actor_name} asks for a guild's review of {label(state, design, version=design.current.number)}.\n{said}"
    )
    return Step(state, (Note(text, card=(design.id, design.current.number), review=True),))


def next_review(state: LibraryState) -> tuple[datetime, int, int] | None:
    """The earliest open guild vote on a current version: (deadline, design, version)."""
    due = [
        (r.deadline, d.id, d.current.number)
        for d in state.designs.values()
        if (r := d.current.review) is not None and r.status is ReviewStatus.OPEN and r.deadline is not None
    ]
    return min(due) if due else None


def apply_close_review(state: LibraryState, action: CloseReview, at: datetime) -> Step:
    design = state.designs.get(action.design)
    if design is None or design.current.number != action.version:
        return Step(state)
    version = design.current
    review = version.review
    if review is None or review.status is not ReviewStatus.OPEN or review.deadline is None or review.deadline > at:
        return Step(state)
    guild = state.guilds.get(review.guild)
    voters = set(guild.members) - {design.owner} if guild is not None else set()
    counted = [v for v in version.verdicts if v.member in voters]
    yes = sum(1 for v in counted if v.approve)
    no = len(counted) - yes
    quorum = guild.quorum if guild is not None else 1
    passed = guild is not None and yes + no >= quorum and yes > no
    status = ReviewStatus.PASSED if passed else ReviewStatus.FAILED
    review = review.model_copy(update={"status": status, "yes": yes, "no": no, "closed_at": review.deadline})
    update: dict[str, object] = {"review": review}
    name = guild.name if guild is not None else review.guild
    if passed and version.approved_by is None and design.status is DesignStatus.PENDING:
        update |= {"approved_by": f"guild:{name}", "approved_at": review.deadline}
        design = _replace_current(design, version.model_copy(update=update), status=DesignStatus.APPROVED)
        text = (
            f"✅ The guild {name} approves **{design.name}** (#{design.id}, v{version.number}): {yes} for,"
            f" {no} against. Its maker may now mint copies."
        )
    else:
        design = _replace_current(design, version.model_copy(update=update))
        why = "not enough votes" if yes + no < quorum else "no majority for it"
        if passed:
            text = (
                f"The guild {name} approves **{design.name}** (#{design.id}, v{version.number}) too: {yes} for,"
                f" {no} against."
            )
        else:
            text = (
                f"The guild {name} does not approve **{design.name}** (#{design.id}, v{version.number}): {yes} for,"
                f" {no} against, at least {quorum} votes needed ({why})."
            )
    state = with_design(state, design)
    return Step(state, (Note(text, card=(design.id, version.number)), Note(text, to=(design.owner,))))


def apply_contest(state: LibraryState, ctx: Context, action: ContestCard) -> Step:
    design = find_design(state, action.ref, ctx.actor)
    if design.owner == ctx.actor:
        raise CardStateError("that card is yours")
    if not design.visible or design.status is DesignStatus.BLOCKED:
        raise CardStateError(f"{design.name} cannot be contested now")
    mine = [
        d
        for d in state.designs.values()
        if d.owner == ctx.actor and d.protected and d.current.fields.type is design.current.fields.type
    ]
    if not mine:
        raise CardStateError(
            f"only the maker of a protected design contests a card; you protect no {design.current.fields.type.display}"
        )
    if any(
        c.design == design.id and c.by == ctx.actor and c.status is ContestStatus.OPEN for c in state.contests.values()
    ):
        raise CardStateError(f"your contest of {design.name} is open already")
    text = " ".join(action.text.split())
    if len(text) > MAX_COMMENT:
        raise CardInputError(f"say it in at most {MAX_COMMENT} characters")
    scored = max(((similarity(d.current.fields, design.current.fields), d) for d in mine), key=lambda p: p[0])
    number = state.meta.next_contest
    contest = Contest(
        number=number,
        design=design.id,
        version=design.current.number,
        by=ctx.actor,
        protected_design=scored[1].id,
        score=scored[0],
        text=text,
        at=ctx.at,
    )
    state = state.model_copy(
        update={
            "contests": {**state.contests, number: contest},
            "meta": state.meta.model_copy(update={"next_contest": number + 1}),
        }
    )
    theirs = scored[1]
    named = f"{theirs.name} (#{theirs.id})" if theirs.visible else "one of their protected drafts"
    said = (
        f"Contest {number}: {ctx.actor_name} says {label(state, design)} comes too close to {named}"
        f" (similarity {scored[0]:.2f})" + (f": {shown(text, 200)}" if text else "") + "."
        f" A moderator decides: `!card decide {number} uphold` blocks the card, `!card decide {number} dismiss` lets"
        " it stand."
    )
    return Step(state, (Note(said),))


def apply_decide(state: LibraryState, ctx: Context, action: DecideContest) -> Step:
    if not ctx.is_moderator:
        raise NotYoursError("only moderators decide contests")
    contest = state.contests.get(action.number)
    if contest is None:
        raise UnknownCardError(f"there is no contest {action.number}")
    if contest.status is not ContestStatus.OPEN:
        raise CardStateError(f"contest {action.number} was decided already ({contest.status.value})")
    note = " ".join(action.note.split())[:MAX_COMMENT]
    status = ContestStatus.UPHELD if action.uphold else ContestStatus.DISMISSED
    contest = contest.model_copy(update={"status": status, "decided_by": ctx.actor, "decided_at": ctx.at, "note": note})
    state = state.model_copy(update={"contests": {**state.contests, contest.number: contest}})
    design = state.designs[contest.design]
    if action.uphold:
        version = design.current
        review = version.review
        if review is not None and review.status is ReviewStatus.OPEN:
            review = review.model_copy(update={"status": ReviewStatus.CLOSED, "closed_at": ctx.at})
            version = version.model_copy(update={"review": review})
        design = _replace_current(design, version, status=DesignStatus.BLOCKED)
        state = with_design(state, design)
        said = (
            f"Contest {contest.number} upheld by {ctx.actor_name}: {label(state, design)} is blocked (no new copies,"
            " and no play deck takes it)."
        )
    else:
        said = f"Contest {contest.number} dismissed by {ctx.actor_name}: {label(state, design)} stands."
    if note:
        said += f" Note: {note}"
    return Step(state, (Note(said), Note(said, to=(design.owner, contest.by))))
