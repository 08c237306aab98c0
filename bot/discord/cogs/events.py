"""Gateway events that are not commands: proposals, candidacies, votes, edits, deletions, leaving.

Raw events are used throughout, so reactions, edits and deletions of messages sent before a
restart (not in the cache) still count. Each becomes the router call the simulator makes for the
same scenario line. A redelivered event changes nothing: messages are logged under their
message id, edits under the edit's timestamp, and reactions under the state they were applied to
(re-adding a vote that is present, or removing one that is not, is a no-op of the rules).
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

import discord
from discord.ext import commands

from bot.discord import notices
from bot.discord.io import chunks, reply_reference, resolver
from bot.discord.permissions import NEEDS_BY_FLAG, lacking_flags
from bot.router import Post
from games.nomic.actions import Leave
from games.nomic.commands import clean_keep_lines
from games.nomic.context import ChannelRole

if TYPE_CHECKING:
    from bot.discord.app import NomicBot

log = logging.getLogger(__name__)

TEXT_ROLES = {ChannelRole.PROPOSALS, ChannelRole.JUDGE_ELECTIONS}
ANSWERS = {ChannelRole.PROPOSALS: "an answer to a proposal", ChannelRole.JUDGE_ELECTIONS: "an answer to a candidacy"}
"""What is lost, in a notice, when the answer to a message in one of these channels cannot be posted."""
THREAD_NEEDS = ("create_public_threads",)
THREAD_NAME_LIMIT = 100


def thread_name(number: int, text: str) -> str:
    """``Proposal 3: the first words…``, within Discord's limit for a thread's name."""
    head = f"Proposal {number}: "
    words = " ".join(text.split()) or "(no text)"
    room = THREAD_NAME_LIMIT - len(head)
    return head + (words if len(words) <= room else words[: room - 1].rstrip() + "…")


class RoundEvents(commands.Cog):
    """Messages in #proposals and #judge-elections, reactions, edits, deletions and members leaving."""

    def __init__(self, bot: NomicBot) -> None:
        self.bot = bot

    @commands.Cog.listener()
    async def on_ready(self) -> None:
        await self.bot.keeper.resume(self.bot.guilds)  # a guild another process holds is left to it
        self.bot.memory.settle()  # the states are loaded: later collections need not scan them
        log.info("ready in %d guilds", len(self.bot.guilds))

    @commands.Cog.listener()
    async def on_message(self, message: discord.Message) -> None:
        """A player's message in #proposals is a proposal; in #judge-elections, a candidacy."""
        if message.author.bot or message.guild is None:
            return
        if message.content.lstrip().startswith(self.bot.settings.command_prefix):
            return  # a command: NomicBot.on_message runs it
        config = await self.bot.config(message.guild.id)
        if config.role_of(message.channel) not in TEXT_ROLES:
            return
        await self.bot.ensure_round(message.guild)
        ctx = self.bot.context(message.author, message.channel, config, f"msg:{message.id}")
        posts = await self.bot.router.message(
            str(message.guild.id), ctx, message.content, resolver(message.guild), message_id=str(message.id)
        )
        await self._answer(message.guild, message.channel, posts, str(message.id))
        if posts and not posts[0].error:
            await self.bot.rearm(message.guild)  # an urgent proposal's vote ends on a timer of its own
        if ctx.channel is ChannelRole.PROPOSALS and posts and not posts[0].error:
            await self._open_discussion(message)

    async def _open_discussion(self, message: discord.Message) -> None:
        """A public thread on a new proposal for talking about it: what is said there is no proposal
        (a thread plays no channel role). Without the permission the proposal stands all the same."""
        state = await self.bot.service.state(str(message.guild.id if message.guild else 0))
        proposal = state.proposals.get(str(message.id)) if state is not None else None
        if proposal is None or proposal.author != str(message.author.id):
            return
        guild, channel = message.guild, message.channel
        if guild is None or not isinstance(channel, discord.TextChannel):
            return
        lost = f"the discussion thread of proposal {proposal.number}"
        until = NEEDS_BY_FLAG["create_public_threads"].breaks[ChannelRole.PROPOSALS]
        missing = lacking_flags(channel, guild.me, THREAD_NEEDS) if guild.me is not None else []
        failure: notices.Failure | None
        if missing:
            failure = notices.forbidden(channel, missing, lost, verb="open", until=until)
        else:
            try:
                await message.create_thread(name=thread_name(proposal.number, proposal.text))
                return
            except discord.HTTPException as exc:
                failure = notices.from_error(exc, channel, guild.me, lost, needs=THREAD_NEEDS, verb="open", until=until)
                if failure is None:
                    log.warning(
                        "guild %s: could not open a discussion thread on proposal %d (%s); the proposal stands",
                        guild.id,
                        proposal.number,
                        exc.text or exc.status,
                    )
                    return
        # the proposal stands all the same; the moderators learn, once, why it has no thread
        await self.bot.notices.report(guild, await self.bot.config(guild.id), failure)

    async def _answer(
        self, guild: discord.Guild, channel: discord.abc.Messageable, posts: list[Post], message_id: str
    ) -> None:
        config = await self.bot.config(guild.id)
        lost = ANSWERS.get(config.role_of(channel), "an answer to a message")
        for post in posts:
            if post.channel is not None or post.to:
                await self.bot.deliver(guild, [post])
                continue
            if isinstance(channel, discord.TextChannel):
                # what cannot be posted is told to the moderators, once per channel and cause
                text = config.localize(post.text, guild)
                await self.bot.post_or_tell(guild, config, channel, text, reply_to=message_id, lost=lost)
                continue
            reference = reply_reference(channel, message_id)
            for part in chunks(config.localize(post.text, guild)):
                try:
                    await channel.send(part, reference=reference)  # type: ignore[arg-type]
                except discord.HTTPException:
                    log.exception("guild %s: could not answer message %s", guild.id, message_id)

    async def _react(self, payload: discord.RawReactionActionEvent, *, added: bool) -> None:
        bot = self.bot
        if payload.guild_id is None or bot.user is None or payload.user_id == bot.user.id:
            return  # the bot's own reactions (its ✅) never count
        guild = bot.get_guild(payload.guild_id)
        if guild is None:
            return
        member = payload.member or guild.get_member(payload.user_id)
        if member is not None and member.bot:
            return
        state = await bot.service.state(str(guild.id))
        if state is None or str(payload.message_id) not in state.reactions:
            return  # votes count only on proposals and candidacies
        await bot.ensure_round(guild)
        config = await bot.config(guild.id)
        channel = guild.get_channel_or_thread(payload.channel_id)
        player = state.players.get(str(payload.user_id))
        event = f"react:{payload.message_id}:{payload.user_id}:{payload.emoji}:{'+' if added else '-'}:{state.seq}"
        user = member or discord.Object(payload.user_id)
        ctx = bot.context(user, channel, config, event, name=None if member else player.name if player else None)
        await bot.router.reaction(str(guild.id), ctx, str(payload.message_id), str(payload.emoji), added=added)

    @commands.Cog.listener()
    async def on_raw_reaction_add(self, payload: discord.RawReactionActionEvent) -> None:
        await self._react(payload, added=True)

    @commands.Cog.listener()
    async def on_raw_reaction_remove(self, payload: discord.RawReactionActionEvent) -> None:
        await self._react(payload, added=False)

    @commands.Cog.listener()
    async def on_raw_message_edit(self, payload: discord.RawMessageUpdateEvent) -> None:
        """An edit of a proposal: before its vote it amends the text; during the vote it retracts it."""
        bot = self.bot
        data = payload.data
        author = data.get("author") or {}
        content = data.get("content")
        edited = data.get("edited_timestamp")
        if payload.guild_id is None or content is None or not edited or author.get("bot") or "id" not in author:
            return  # not an edit by a member (e.g. Discord adding a link preview, which is no edit)
        guild = bot.get_guild(payload.guild_id)
        state = await bot.service.state(str(payload.guild_id))
        message_id = str(payload.message_id)
        tracked = state is not None and (message_id in state.proposals or message_id in state.candidacies)
        if guild is None or state is None or not tracked:
            return
        proposal = state.proposals.get(message_id)
        if proposal is not None and proposal.text == clean_keep_lines(content):
            return  # the words did not change
        await bot.ensure_round(guild)
        config = await bot.config(guild.id)
        user = guild.get_member(int(author["id"])) or discord.Object(int(author["id"]))
        channel = guild.get_channel_or_thread(payload.channel_id)
        event = f"edit:{message_id}:{edited}"
        name = str(author.get("global_name") or author.get("username") or author["id"])
        ctx = bot.context(user, channel, config, event, name=None if isinstance(user, discord.Member) else name)
        posts = await bot.router.edit(str(guild.id), ctx, message_id, content)
        await bot.deliver(guild, posts)

    @commands.Cog.listener()
    async def on_raw_message_delete(self, payload: discord.RawMessageDeleteEvent) -> None:
        await self._deleted(payload.guild_id, payload.channel_id, payload.message_id)

    @commands.Cog.listener()
    async def on_raw_bulk_message_delete(self, payload: discord.RawBulkMessageDeleteEvent) -> None:
        for message_id in sorted(payload.message_ids):
            await self._deleted(payload.guild_id, payload.channel_id, message_id)

    async def _deleted(self, guild_id: int | None, channel_id: int, message_id: int) -> None:
        """Deleting a proposal retracts it (and returns its item before the vote); a candidacy is withdrawn."""
        bot = self.bot
        if guild_id is None:
            return
        guild = bot.get_guild(guild_id)
        state = await bot.service.state(str(guild_id))
        key = str(message_id)
        if guild is None or state is None:
            return
        proposal = state.proposals.get(key)
        candidacy = state.candidacies.get(key)
        author = proposal.author if proposal is not None else candidacy.author if candidacy is not None else None
        if author is None:
            return
        await bot.ensure_round(guild)
        config = await bot.config(guild.id)
        member = guild.get_member(int(author)) if author.isdigit() else None
        player = state.players.get(author)
        name = None if member is not None else player.name if player is not None else author
        user = member or discord.Object(int(author) if author.isdigit() else 0)
        ctx = bot.context(user, guild.get_channel(channel_id), config, f"delete:{key}", name=name)
        await bot.deliver(guild, await bot.router.delete(str(guild.id), ctx, key))

    @commands.Cog.listener()
    async def on_raw_member_remove(self, payload: discord.RawMemberRemoveEvent) -> None:
        """A player who leaves the server stops being a player (and a judge, being judge: announced in
        #judge-elections besides #game-actions); a member's seats at the tables pass to the AI (in a lobby
        the seat goes), as ``!leave`` would, said in each table's thread."""
        bot = self.bot
        guild = bot.get_guild(payload.guild_id)
        if guild is None:
            return
        state = await bot.service.state(str(payload.guild_id))
        member = str(payload.user.id)
        config = await bot.config(guild.id)
        if state is not None and member in state.players:
            name = state.players[member].name
            event = f"leave:{member}:{state.seq}"
            ctx = bot.context(payload.user, None, config, event, name=name, role=ChannelRole.GAME_ACTIONS)
            posts = await bot.router.run(str(guild.id), ctx, Leave(left_server=True))
            shown = [p if p.to else Post(p.text, channel=p.channel or ChannelRole.GAME_ACTIONS) for p in posts]
            await bot.deliver(guild, shown)
        ctx = bot.context(payload.user, None, config, f"left:{member}", role=ChannelRole.OTHER)
        posts = await bot.router.left_tables(str(guild.id), ctx)
        if posts:
            await bot.deliver(guild, posts)
            await bot.rearm(guild)  # the computer moved for them: another seat's deadline may run now


async def setup(bot: NomicBot) -> None:
    await bot.add_cog(RoundEvents(bot))
