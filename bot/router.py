"""The one path from a member's message to the service and back, shared by every adapter.

Discord prefix commands, slash commands, the replay and the console all end here, so a
command gets the same checks and the same words wherever it was typed.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from datetime import datetime

from bot.texts import help_text, phase_text
from games.nomic import commands, views
from games.nomic.actions import (
    Action,
    DeleteMessage,
    EditMessage,
    Propose,
    React,
    ShowHelp,
    ShowInventory,
    ShowLots,
    ShowPhase,
    ShowPlacements,
    ShowProposals,
    ShowRuleset,
    ShowRulesetDiff,
    ShowRulesetHistory,
    ShowRulings,
    ShowTrades,
    Stand,
)
from games.nomic.context import ChannelRole, Context
from games.nomic.errors import BadInputError, RuleError
from games.nomic.proposals import reaction_of
from games.nomic.service import NotStartedError, Outcome, RoundService
from games.nomic.state import JudgeRequest, Proposal, RulesetVersion
from games.tables.service import TABLE_WORDS, Actor, TablePost, TableService
from scheduler.calendar import phase_window
from scheduler.due import next_tick
from scheduler.live import catch_up

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Post:
    """One thing the bot says: a reply to the command, or an announcement in a channel."""

    text: str
    channel: ChannelRole | None = None
    """None: in reply to the command, where it was typed."""
    private: bool = False
    """Only the acting member sees it (ephemeral or DM)."""
    error: bool = False
    """The answer says why the command was not carried out (Discord shows such answers ephemerally)."""
    at: datetime | None = None
    reply_to: str | None = None
    """For an announcement: the message it answers (a proposal's outcome answers the proposal)."""
    thread: str | None = None
    """A thread game's table (``wikipedia-1``): the post goes to that table's thread."""
    kind: str | None = None
    """What a table post is (``board``, ``hand``, ``reminder``... see ``TablePost.kind``); None for the round."""
    mentions: tuple[str, ...] = ()
    """Members a table post is addressed to (whose turn it is)."""
    to: tuple[str, ...] = ()
    """Members who each see this post privately (a card for some seats); never posted in a channel."""


def error_text(error: RuleError) -> str:
    return f"Can't do that: {error}."


def outcome_posts(outcome: Outcome, at: datetime) -> list[Post]:
    """Announcements of scheduled work, one message per channel, in event order."""
    grouped: dict[tuple[ChannelRole, str | None], list[str]] = {}
    for event in outcome.events:
        grouped.setdefault((event.channel, event.reply_to()), []).append(event.text())
    return [
        Post("\n".join(texts), channel=channel, at=at, reply_to=reply_to)
        for (channel, reply_to), texts in grouped.items()
    ]


def announcements(outcome: Outcome, ctx: Context) -> list[Post]:
    """What a command's events announce in other channels besides the answer (an emptied office of
    judge in #judge-elections), one message per channel."""
    grouped: dict[ChannelRole, list[str]] = {}
    for event in outcome.events:
        where = event.announce()
        if where is not None and where is not ctx.channel:
            grouped.setdefault(where, []).append(event.text())
    return [Post("\n".join(texts), channel=channel, at=ctx.at) for channel, texts in grouped.items()]


def _is_own_inventory(ctx: Context, action: Action) -> bool:
    """The answer that shows a member their own cards goes to them alone."""
    return isinstance(action, ShowInventory) and action.target in (None, ctx.actor)


def table_post(post: TablePost) -> Post:
    """A thread game's post as every adapter sees posts (``thread`` names the table it belongs to)."""
    return Post(
        post.text,
        private=post.private,
        error=post.error,
        at=post.at,
        thread=post.table,
        kind=post.kind,
        mentions=post.mentions,
        to=post.to,
    )


ROUND_WORDS_IN_THREADS: frozenset[str] = (
    frozenset(
        {w.name for w in commands.COMMAND_WORDS if not w.channels}
        | {a for a, name in commands.ALIASES.items() if not commands.COMMANDS_BY_NAME[name].channels and name != "help"}
    )
    - TABLE_WORDS
)
"""The round's anywhere-commands (``!inventory``, ``!lots``...) keep working in a table's thread
when the game has no move of that name."""

MAX_DUE_ROUNDS = 100_000


class Router:
    def __init__(self, service: RoundService, tables: TableService | None = None) -> None:
        self.service = service
        self.tables = tables
        """Thread games; None: the router knows only the round (no ``!play``, no table threads)."""

    async def due_work(self, guild: str, now: datetime) -> list[Post]:
        """Apply scheduled work due by ``now`` (the round's and the tables'), in time order."""
        posts: list[Post] = []
        if self.tables is not None:
            for _ in range(MAX_DUE_ROUNDS):
                at = await self.tables.next_due(guild)
                if at is None or at > now:
                    break
                for tick_at, outcome in await catch_up(self.service, guild, at):
                    posts.extend(outcome_posts(outcome, tick_at))
                done = await self.tables.due(guild, at)
                if not done:
                    break
                posts.extend(table_post(p) for p in done)
        for at, outcome in await catch_up(self.service, guild, now):
            posts.extend(outcome_posts(outcome, at))
        return posts

    async def next_due(self, guild: str) -> datetime | None:
        """The next instant with scheduled work: the round's next tick or a table's reminder or timeout."""
        state = await self.service.state(guild)
        due = [next_tick(state).at] if state is not None else []
        if self.tables is not None:
            at = await self.tables.next_due(guild)
            if at is not None:
                due.append(at)
        return min(due) if due else None

    async def message(
        self,
        guild: str,
        ctx: Context,
        content: str,
        resolve: commands.MemberResolver,
        *,
        message_id: str | None = None,
        source_line: int | None = None,
        thread: str | None = None,
        dm: bool = False,
    ) -> list[Post]:
        """A message: a command gets an answer; in #proposals and #judge-elections text counts too.

        ``thread``: where the message was typed when that may be a thread game's table (the thread's
        name in the simulator, its id on Discord). Commands there go to the table; ``!play``,
        ``!games`` and ``!rules GAME`` go to the tables anywhere; everything else to the round.
        """
        if dm:
            # a DM to the bot is for the tables (a secret move names its table); answers stay private
            found = await self.table_command(guild, ctx, content, source_line=source_line, resolve=resolve, dm=True)
            return found or []
        table_posts = await self.table_command(
            guild, ctx, content, thread=thread, source_line=source_line, resolve=resolve
        )
        if table_posts is not None:
            return table_posts
        if not commands.is_command(content):
            if message_id is None or ctx.channel not in {ChannelRole.PROPOSALS, ChannelRole.JUDGE_ELECTIONS}:
                return []
            text = commands.clean_keep_lines(content)
            action: Action
            if ctx.channel is ChannelRole.PROPOSALS:
                starts, ends = await self._voting_window(guild, ctx.at)
                action = Propose(message=message_id, text=text, window_starts=starts, window_ends=ends)
            else:
                action = Stand(message=message_id, text=text)
            return await self.run(guild, ctx, action, source_line=source_line)
        try:
            action = commands.parse(content, resolve)
        except RuleError as exc:
            return [Post(error_text(exc), error=True)]
        return await self.run(guild, ctx, action, source_line=source_line)

    async def _voting_window(self, guild: str, at: datetime) -> tuple[datetime | None, datetime | None]:
        """The phase a standard proposal made at ``at`` votes through, by the calendar in force."""
        state = await self.service.state(guild)
        if state is None:
            return None, None
        cal = state.ruleset.calendar
        starts = phase_window(cal, at)[2]
        return starts, phase_window(cal, starts)[2]

    async def table_command(
        self,
        guild: str,
        ctx: Context,
        content: str,
        *,
        thread: str | None = None,
        source_line: int | None = None,
        resolve: commands.MemberResolver | None,
        private: bool = False,
        dm: bool = False,
    ) -> list[Post] | None:
        """A command the thread games answer, or None when it is the round's.

        The tables answer ``!play``, ``!games`` and ``!rules GAME`` anywhere, and every command typed
        in a table's thread (``thread``: the thread's name or id, or a table's name: what a button
        of that table says) except the round's questions the game cannot read. ``resolve`` reads
        members named in a move as the round's commands do; None only for text the bot wrote
        itself (a button or a choice of its moves menu). ``private``: only the member saw the command
        (a slash command, a button, a menu), so a secret move is accepted; ``dm``: a DM to the bot.
        """
        if self.tables is None or (not dm and not commands.is_command(content)):
            return None
        actor = Actor(ctx.actor, ctx.actor_name, moderator=ctx.is_moderator)
        table_posts = await self.tables.command(
            guild,
            actor,
            content,
            at=ctx.at,
            event_id=ctx.event_id,
            thread=thread,
            source_line=source_line,
            defer=ROUND_WORDS_IN_THREADS,
            members=resolve,
            private=private or dm,
            dm=dm,
        )
        return None if table_posts is None else [table_post(p) for p in table_posts]

    async def run(self, guild: str, ctx: Context, action: Action, *, source_line: int | None = None) -> list[Post]:
        """Answer a query from the state, or carry out an action through the service."""
        try:
            if not action.changes_state:
                text = await self._query(guild, ctx, action)
                return [Post(text, private=_is_own_inventory(ctx, action))]
            outcome = await self.service.act(guild, ctx, action, source_line=source_line)
        except RuleError as exc:
            return [Post(error_text(exc), error=True)]
        if outcome.duplicate:
            return []
        if outcome.error is not None:
            return [Post(error_text(outcome.error), error=True)]
        return [Post(outcome.text()), *announcements(outcome, ctx)]

    async def reaction(
        self, guild: str, ctx: Context, message_id: str, emoji: str, *, added: bool, source_line: int | None = None
    ) -> list[Post]:
        """A reaction: 👍 and 👎 (each skin tone its own variant) on proposals and candidacies are recorded;
        the rest is ignored."""
        found = reaction_of(emoji)
        if found is None:
            return []
        vote, variant = found
        action = React(message=message_id, vote=vote, variant=variant, added=added)
        await self._silently(guild, ctx, action, source_line)
        return []

    async def edit(
        self, guild: str, ctx: Context, message_id: str, content: str, *, source_line: int | None = None
    ) -> list[Post]:
        """An edit retracts a proposal in its vote and amends one still waiting for it."""
        action = EditMessage(message=message_id, text=commands.clean_keep_lines(content))
        return await self._silently(guild, ctx, action, source_line, answer_bad_input=message_id)

    async def delete(self, guild: str, ctx: Context, message_id: str, *, source_line: int | None = None) -> list[Post]:
        return await self._silently(guild, ctx, DeleteMessage(message=message_id), source_line)

    async def _silently(
        self,
        guild: str,
        ctx: Context,
        action: Action,
        source_line: int | None,
        *,
        answer_bad_input: str | None = None,
    ) -> list[Post]:
        """Events that are not commands: what does not apply is ignored without an answer."""
        outcome = await self.service.act(guild, ctx, action, source_line=source_line)
        if isinstance(outcome.error, BadInputError) and answer_bad_input is not None:
            text = f"{error_text(outcome.error)} The proposal keeps its earlier text."
            return [Post(text, channel=ctx.channel, reply_to=answer_bad_input)]
        if not outcome.accepted:
            return []
        return outcome_posts(outcome, ctx.at)

    async def _query(self, guild: str, ctx: Context, action: Action) -> str:
        if isinstance(action, ShowHelp):
            return help_text(ctx.channel, is_moderator=ctx.is_moderator, tables=self.tables is not None)
        state = await self.service.state(guild)
        if state is None:
            raise NotStartedError("the round has not started on this server yet")
        if isinstance(action, ShowInventory):
            target = action.target or ctx.actor
            return views.inventory(state, target, asking_self=action.target in (None, ctx.actor))
        if isinstance(action, ShowLots):
            return views.lots(state)
        if isinstance(action, ShowPhase):
            return phase_text(state, ctx.at)
        if isinstance(action, ShowRuleset):
            return views.ruleset(state)
        if isinstance(action, ShowTrades):
            return views.trades(state, ctx.actor)
        if isinstance(action, ShowRulesetHistory):
            reach = action.page * views.HISTORY_PAGE
            return views.ruleset_history(
                state, await self.service.archive(guild, RulesetVersion, reach=reach), action.page
            )
        if isinstance(action, ShowRulesetDiff):
            kept = {v.version for v in state.ruleset_versions}
            wanted = [n for n in {action.old, action.new} if n not in kept]
            older = await self.service.archived(guild, RulesetVersion, numbers=wanted) if wanted else []
            return views.ruleset_diff(state, action.old, action.new, older)
        if isinstance(action, ShowProposals):
            reach = action.page * views.DECIDED_PAGE
            return views.proposals(state, await self.service.archive(guild, Proposal, reach=reach), action.page)
        if isinstance(action, ShowPlacements):
            return views.placements(state, action.page)
        if isinstance(action, ShowRulings):
            reach = action.page * views.DECIDED_PAGE
            return views.rulings(state, await self.service.archive(guild, JudgeRequest, reach=reach), action.page)
        raise RuleError(f"`{action.kind}` is not a question I can answer")
