"""One entry point for the library's rules: apply an action, answer a question."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from games.ictc import approvals, challenges, copies, forge, guilds, meetings, views
from games.ictc.actions import (
    AcceptChallenge,
    AnswerChallenge,
    AskGuild,
    BeginBattle,
    CardHelp,
    CardHistory,
    ClaimStarter,
    CloseReview,
    CommentCard,
    ContestCard,
    CreateGuild,
    DecideContest,
    DefineKeyword,
    DeleteDeck,
    EditCard,
    EndChallenge,
    Exclude,
    GuildSettings,
    IssueChallenge,
    JoinGuild,
    JudgeCard,
    LeaveGuild,
    LibraryAction,
    ListCards,
    MasterDeck,
    MeetMember,
    MintCopies,
    MoveCopies,
    NewCard,
    ProtectCard,
    SaveDeck,
    SetOfficer,
    SetOption,
    ShowCard,
    ShowChallenges,
    ShowContests,
    ShowCopies,
    ShowDecks,
    ShowGuilds,
    ShowKeywords,
    ShowOptions,
    ShowStarter,
    SubmitCard,
)
from games.ictc.cards import shown
from games.ictc.commands import help_text
from games.ictc.errors import CardStateError, UnknownCardError
from games.ictc.events import Note, Step
from games.ictc.library import find_design, find_guild, remember
from games.ictc.state import STARTER, DesignStatus, LibraryState, deck_key
from games.nomic.context import Context
from games.nomic.errors import RuleError

_Apply = Callable[[LibraryState, Context, Any], Step]

_RULES: dict[type[Any], _Apply] = {
    NewCard: forge.apply_new,
    EditCard: forge.apply_edit,
    SubmitCard: forge.apply_submit,
    ProtectCard: forge.apply_protect,
    DefineKeyword: forge.apply_keyword,
    SetOption: forge.apply_option,
    JudgeCard: approvals.apply_judge,
    CommentCard: approvals.apply_comment,
    AskGuild: approvals.apply_ask,
    ContestCard: approvals.apply_contest,
    DecideContest: approvals.apply_decide,
    MintCopies: copies.apply_mint,
    SaveDeck: copies.apply_save_deck,
    DeleteDeck: copies.apply_delete_deck,
    ClaimStarter: copies.apply_claim_starter,
    Exclude: meetings.apply_exclude,
    CreateGuild: guilds.apply_create,
    JoinGuild: guilds.apply_join,
    LeaveGuild: guilds.apply_leave,
    SetOfficer: guilds.apply_officer,
    GuildSettings: guilds.apply_settings,
    IssueChallenge: challenges.apply_issue,
    AnswerChallenge: challenges.apply_answer,
    AcceptChallenge: challenges.apply_accept,
}


def apply(state: LibraryState, ctx: Context, action: LibraryAction) -> Step:
    """Check and apply one action (a ``RuleError`` refuses it and changes nothing); count it in ``seq``."""
    if isinstance(action, CloseReview):
        step = approvals.apply_close_review(state, action, ctx.at)
    elif isinstance(action, MoveCopies):
        step = copies.apply_moves(state, action, ctx.at)
    elif isinstance(action, BeginBattle):
        step = meetings.apply_begin_battle(state, action, ctx.at)
    elif isinstance(action, EndChallenge):
        step = challenges.apply_end(state, action, ctx.at)
    else:
        rule = _RULES.get(type(action))
        if rule is None:
            raise CardStateError(f"`{action.kind}` changes nothing")
        step = rule(remember(state, ctx), ctx, action)
    if step.state is state:
        return step
    meta = step.state.meta.model_copy(update={"seq": state.meta.seq + 1})
    return Step(step.state.model_copy(update={"meta": meta}), step.notes)


def query(state: LibraryState, ctx: Context, action: LibraryAction) -> list[Note]:
    """Answer a question from the state; nothing changes."""
    me = ctx.actor
    if isinstance(action, CardHelp):
        return [Note(help_text(action.topic, moderator=ctx.is_moderator))]
    if isinstance(action, ShowCard):
        design = find_design(state, action.ref, me)
        version = design.version(action.version) if action.version is not None else design.current
        if version is None:
            raise UnknownCardError(f"{design.name} has no version {action.version}")
        public = design.public(version)
        if not public and design.owner != me:
            raise UnknownCardError(
                f"version {version.number} of {design.name} was a draft: only its maker sees it"
                f" (`!card history #{design.id}` lists the versions everyone sees)"
            )
        reviewable = version is design.current and design.status is DesignStatus.PENDING
        return [
            Note(
                views.card_text(state, design, version),
                private=not public,
                card=(design.id, version.number),
                review=reviewable,
            )
        ]
    if isinstance(action, CardHistory):
        design = find_design(state, action.ref, me)
        own = design.owner == me
        drafts = any(not design.public(v) for v in design.versions)
        return [Note(views.history_text(state, design, drafts=own), private=own and drafts)]
    if isinstance(action, ListCards):
        return [_list(state, ctx, action)]
    if isinstance(action, MasterDeck):
        member = action.member or me
        return [Note(views.master_text(state, member, own=member == me), private=member == me)]
    if isinstance(action, ShowCopies):
        if action.member in (None, me):
            return [Note(views.copies_text(state, me), private=True)]
        return [Note(views.copies_count_text(state, action.member))]
    if isinstance(action, ShowDecks):
        if action.name is None:
            return [Note(views.decks_text(state, me), private=True)]
        deck = state.decks.get(deck_key(me, action.name))
        if deck is None:
            raise UnknownCardError(f"you have no play deck called {shown(action.name)}")
        return [Note(copies.deck_text(state, deck), private=True)]
    if isinstance(action, ShowKeywords):
        return [Note(views.keywords_text(state))]
    if isinstance(action, ShowOptions):
        return [Note(views.options_text(state))]
    if isinstance(action, ShowStarter):
        return [Note(views.starters_text(state, me))]
    if isinstance(action, ShowGuilds):
        if action.name is None:
            return [Note(views.guilds_text(state))]
        guild = find_guild(state, action.name)
        members = ", ".join(state.name_of(m) for m in guild.members)
        return [Note(f"{views.guild_line(state, guild)}\nMembers: {members}")]
    if isinstance(action, MeetMember):
        if action.member == me:
            raise CardStateError("a first meeting is between two members: name the other one")
        return [Note(views.meet_text(state, me, action.member))]
    if isinstance(action, ShowContests):
        return [Note(views.contests_text(state))]
    if isinstance(action, ShowChallenges):
        return [Note(challenges.list_text(state, me))]
    raise CardStateError(f"`{action.kind}` is not a question")


def _list(state: LibraryState, ctx: Context, action: ListCards) -> Note:
    me = ctx.actor
    if action.which == "pending":
        found = [d for d in state.designs.values() if d.status is DesignStatus.PENDING and d.owner != me]
        return Note(views.list_text(state, sorted(found, key=lambda d: d.id), "Cards waiting for approval"))
    if action.which == "mine" or action.member == me:
        return Note(views.master_text(state, me, own=True), private=True)
    if action.member is not None:
        return Note(views.master_text(state, action.member, own=False))
    if action.which == "starter":
        found = [d for d in state.designs.values() if d.owner == STARTER]
        return Note(views.list_text(state, sorted(found, key=lambda d: d.id), "The starter set"))
    found = [d for d in state.designs.values() if d.visible and d.owner != STARTER]
    starters = sum(1 for d in state.designs.values() if d.owner == STARTER)
    text = views.list_text(state, sorted(found, key=lambda d: d.id), "Members' cards")
    return Note(f"{text}\nAnd {starters} cards of the starter set: `!card list starter`.")


_ANSWERED_PRIVATELY = (NewCard, ProtectCard, SaveDeck, DeleteDeck, ShowDecks)
"""Commands whose answer only their member sees (a draft, a play deck): so is their refusal."""


def refused_privately(state: LibraryState, ctx: Context, action: LibraryAction) -> bool:
    """Whether a refusal of ``action`` goes to its member alone: it is about their own draft (in the
    channel it would name the draft, or tell it from a card that does not exist), or about something
    only they see. It depends on the actor's designs only, never on anyone else's drafts."""
    if isinstance(action, _ANSWERED_PRIVATELY):
        return True
    if isinstance(action, EditCard) and "name" in action.raw:
        return True  # a name the member gave one of their drafts would be named
    ref = getattr(action, "ref", None)
    if not isinstance(ref, str):
        return False
    try:
        design = find_design(state, ref, ctx.actor)
    except RuleError:
        return False
    return not design.visible  # found, and not shown: a draft of the actor's own
