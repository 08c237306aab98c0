"""The live Discord adapter: gateway events in, the same router as the simulator, replies out.

Channels are found by name (#auctions, #game-actions, #proposals, #judge-elections). Every
guild the bot is in gets a round, started the first time the bot sees the guild.
"""

from __future__ import annotations

import asyncio
import logging
import re
from datetime import UTC, datetime

import discord
from discord.ext import commands

from bot.router import Post, Router, outcome_posts
from bot.settings import Settings
from data.store import Store
from games.nomic.actions import Leave, StartRound
from games.nomic.context import ChannelRole, Context
from games.nomic.ruleset import load_ruleset
from games.nomic.service import Outcome, RoundService
from scheduler.clock import RealClock
from scheduler.due import opening
from scheduler.live import LiveScheduler

log = logging.getLogger(__name__)

_MENTION = re.compile(r"^<@!?(\d{5,25})>[,.;:!?]*$")
DISCORD_LIMIT = 2000


def intents() -> discord.Intents:
    """Message content to read commands, members for leaving, reactions for votes."""
    wanted = discord.Intents.default()
    wanted.message_content = True
    wanted.members = True
    wanted.reactions = True
    wanted.guilds = True
    return wanted


def channel_role(channel: object) -> ChannelRole:
    name = getattr(channel, "name", "") or ""
    try:
        return ChannelRole(name)
    except ValueError:
        return ChannelRole.OTHER


def resolve_mention(token: str) -> str | None:
    match = _MENTION.match(token.strip())
    return match.group(1) if match else None


def chunks(text: str, limit: int = DISCORD_LIMIT) -> list[str]:
    """Split on line breaks so no message exceeds Discord's limit."""
    out: list[str] = []
    current = ""
    for raw in text.split("\n"):
        line = raw
        while len(line) > limit:
            out.append(line[:limit])
            line = line[limit:]
        if current and len(current) + len(line) + 1 > limit:
            out.append(current)
            current = line
        else:
            current = f"{current}\n{line}" if current else line
    if current:
        out.append(current)
    return out


class NomicBot(commands.Bot):
    def __init__(self, settings: Settings) -> None:
        super().__init__(command_prefix=settings.command_prefix, intents=intents(), help_command=None)
        self.settings = settings
        self.store: Store | None = None
        self.router: Router | None = None
        self.scheduler: LiveScheduler | None = None
        self.clock = RealClock()

    async def setup_hook(self) -> None:
        self.store = await Store.open(self.settings.database_path, synchronous=self.settings.sqlite_synchronous)
        service = RoundService(self.store)
        self.router = Router(service)
        self.scheduler = LiveScheduler(service, self.clock, self.announce)
        self.scheduler.start()
        await self.add_cog(RoundCog(self))

    async def close(self) -> None:
        if self.scheduler is not None:
            self.scheduler.shutdown()
        if self.router is not None:
            await self.router.service.save_snapshots()
        if self.store is not None:
            await self.store.close()
        await super().close()

    def is_moderator(self, member: discord.Member | discord.User) -> bool:
        if not isinstance(member, discord.Member):
            return False
        if member.guild_permissions.manage_guild:
            return True
        wanted = self.settings.moderator_role
        return wanted is not None and any(role.name == wanted for role in member.roles)

    async def ensure_round(self, guild: discord.Guild) -> None:
        """Start the guild's round the first time the bot meets the guild."""
        if self.router is None:
            return
        service = self.router.service
        if await service.state(str(guild.id)) is None:
            now = self.clock.now()
            ruleset = load_ruleset(self.settings.ruleset)
            phase, presenting = opening(ruleset, now)
            ctx = Context(actor="setup", actor_name="setup", channel=ChannelRole.OTHER, at=now, event_id="setup")
            await service.start(
                str(guild.id), ctx, StartRound(ruleset=ruleset, phase=phase, presenting_open=presenting)
            )
        if self.scheduler is not None:
            await self.scheduler.run_due(str(guild.id))

    async def announce(self, guild_id: str, at: datetime, outcome: Outcome) -> None:
        guild = self.get_guild(int(guild_id))
        if guild is not None:
            await self.deliver(guild, outcome_posts(outcome, at), reply_to=None)

    async def deliver(self, guild: discord.Guild, posts: list[Post], reply_to: discord.Message | None) -> None:
        for post in posts:
            target: discord.abc.Messageable | None = None
            if post.channel is not None:
                target = discord.utils.get(guild.text_channels, name=post.channel.value)
            for part in chunks(post.text):
                try:
                    if post.channel is None and reply_to is not None:
                        await reply_to.reply(part, mention_author=False)
                    elif target is not None:
                        await target.send(part)
                except discord.HTTPException:
                    log.exception("could not post in guild %s", guild.id)


class RoundCog(commands.Cog):
    """Text commands and the gateway events of the round."""

    def __init__(self, bot: NomicBot) -> None:
        self.bot = bot

    @commands.Cog.listener()
    async def on_ready(self) -> None:
        for guild in self.bot.guilds:
            await self.bot.ensure_round(guild)
        log.info("ready in %d guilds", len(self.bot.guilds))

    @commands.Cog.listener()
    async def on_guild_join(self, guild: discord.Guild) -> None:
        await self.bot.ensure_round(guild)

    @commands.Cog.listener()
    async def on_message(self, message: discord.Message) -> None:
        if message.author.bot or message.guild is None or self.bot.router is None:
            return
        if not message.content.lstrip().startswith(self.bot.settings.command_prefix):
            return
        content = "!" + message.content.lstrip()[len(self.bot.settings.command_prefix) :]
        ctx = Context(
            actor=str(message.author.id),
            actor_name=getattr(message.author, "display_name", message.author.name),
            channel=channel_role(message.channel),
            at=message.created_at.astimezone(UTC),
            is_moderator=self.bot.is_moderator(message.author),
            event_id=f"msg:{message.id}",
        )
        guild = str(message.guild.id)
        posts = await self.bot.router.due_work(guild, ctx.at)
        await self.bot.deliver(message.guild, posts, reply_to=None)
        posts = await self.bot.router.message(guild, ctx, content, resolve_mention)
        await self.bot.deliver(message.guild, posts, reply_to=message)

    @commands.Cog.listener()
    async def on_raw_member_remove(self, payload: discord.RawMemberRemoveEvent) -> None:
        if self.bot.router is None:
            return
        service = self.bot.router.service
        guild = str(payload.guild_id)
        state = await service.state(guild)
        member = str(payload.user.id)
        if state is None or member not in state.players:
            return
        now = self.bot.clock.now()
        ctx = Context(
            actor=member,
            actor_name=state.players[member].name,
            channel=ChannelRole.GAME_ACTIONS,
            at=now,
            event_id=f"leave:{member}:{now.isoformat()}",
        )
        posts = await self.bot.router.run(guild, ctx, Leave(left_server=True))
        guild_obj = self.bot.get_guild(payload.guild_id)
        if guild_obj is not None:
            await self.bot.deliver(guild_obj, [Post(p.text, channel=ChannelRole.GAME_ACTIONS) for p in posts], None)


def create_bot(settings: Settings) -> NomicBot:
    return NomicBot(settings)


def run_bot(settings: Settings) -> int:
    if settings.discord_token is None:
        return 2
    bot = create_bot(settings)
    token = settings.discord_token.get_secret_value()

    async def main() -> None:
        async with bot:
            await bot.start(token)

    try:
        asyncio.run(main())
    except discord.LoginFailure:
        log.error("Discord refused the token; check DISCORD_TOKEN")  # noqa: TRY400
        return 1
    except KeyboardInterrupt:
        return 0
    return 0
