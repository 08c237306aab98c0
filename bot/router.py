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
    ShowHelp,
    ShowInventory,
    ShowLots,
    ShowPhase,
    ShowRuleset,
    ShowTrades,
)
from games.nomic.context import ChannelRole, Context
from games.nomic.errors import RuleError
from games.nomic.service import NotStartedError, Outcome, RoundService
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
    at: datetime | None = None


def error_text(error: RuleError) -> str:
    message = str(error)
    return f"Can't do that: {message[:1].upper()}{message[1:]}."


def outcome_posts(outcome: Outcome, at: datetime) -> list[Post]:
    """Announcements of scheduled work, one message per channel, in event order."""
    by_channel: dict[ChannelRole, list[str]] = {}
    for event in outcome.events:
        by_channel.setdefault(event.channel, []).append(event.text())
    return [Post("\n".join(texts), channel=channel, at=at) for channel, texts in by_channel.items()]


class Router:
    def __init__(self, service: RoundService) -> None:
        self.service = service

    async def due_work(self, guild: str, now: datetime) -> list[Post]:
        """Apply scheduled work due by ``now`` and return its announcements."""
        posts: list[Post] = []
        for at, outcome in await catch_up(self.service, guild, now):
            posts.extend(outcome_posts(outcome, at))
        return posts

    async def message(
        self,
        guild: str,
        ctx: Context,
        content: str,
        resolve: commands.MemberResolver,
        *,
        source_line: int | None = None,
    ) -> list[Post]:
        """A message in a channel: a command gets an answer; other text is not ours (yet)."""
        if not commands.is_command(content):
            return []
        try:
            action = commands.parse(content, resolve)
        except RuleError as exc:
            return [Post(error_text(exc))]
        return await self.run(guild, ctx, action, source_line=source_line)

    async def run(self, guild: str, ctx: Context, action: Action, *, source_line: int | None = None) -> list[Post]:
        """Answer a query from the state, or carry out an action through the service."""
        try:
            if not action.changes_state:
                return [Post(await self._query(guild, ctx, action))]
            outcome = await self.service.act(guild, ctx, action, source_line=source_line)
        except RuleError as exc:
            return [Post(error_text(exc))]
        if outcome.duplicate:
            return []
        if outcome.error is not None:
            return [Post(error_text(outcome.error))]
        return [Post(outcome.text())]

    async def _query(self, guild: str, ctx: Context, action: Action) -> str:
        if isinstance(action, ShowHelp):
            return help_text(ctx.channel, is_moderator=ctx.is_moderator)
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
        raise RuleError(f"`{action.kind}` is not a question I can answer")
