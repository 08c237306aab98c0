"""The live Discord adapter: gateway events in, the same router as the simulator, answers out.

``create_bot(settings)`` builds the bot with its cogs (``bot/discord/cogs``): the round's economy, its
governance, admin and setup, help, the thread games (``bot/discord/cogs/tables.py``), and the gateway
events that are not commands (proposals, votes, edits, leaving). Every command ends in
``NomicBot.run_command``: the thread games' commands go through ``Router.table_command`` (the
``TableService`` text command), the round's through ``games.nomic.commands.parse`` and
``Router.run``, exactly as a replayed line does. Buttons of tables type the same texts.

The store is opened in ``setup_hook`` (so the bot can be built without a running loop), and slash
commands are never synced on start unless ``SYNC_COMMANDS_GLOBALLY`` asks for it.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import logging
import sqlite3
import sys
from datetime import datetime
from typing import Any

import aiohttp
import asyncpg
import discord
from discord import app_commands
from discord.ext import commands

from bot.discord import notices
from bot.discord.board import BoardPoster
from bot.discord.cogs.base import present
from bot.discord.cogs.cards import CardDesk
from bot.discord.cogs.tables import TableDesk
from bot.discord.io import GuildConfig, chunks, command_text, dms_closed, reply_reference, resolver
from bot.discord.notices import Notices
from bot.discord.permissions import cannot_post
from bot.discord.receipts import BidReceipts
from bot.discord.render import embeds
from bot.discord.sealed import SealedDesk
from bot.discord.sharding import GuildKeeper
from bot.logs import acting_for
from bot.memory import Memory
from bot.router import NOTICE, Post, Router, error_text, fresh, outcome_posts
from bot.settings import Settings
from bot.web.desk import WebDesk, is_web_command
from bot.web.record import WebRecord
from data.base import OwnedElsewhereError
from data.library_store import LibraryStore
from data.ownership import GuildOwnership, fence_of
from data.store import KEEP, Store
from data.table_store import TableStore
from games.ictc.service import LibraryService
from games.nomic import commands as words
from games.nomic.actions import StartRound
from games.nomic.context import ChannelRole, Context
from games.nomic.errors import RuleError
from games.nomic.modlog import ModLogEntry
from games.nomic.ruleset import load_ruleset
from games.nomic.service import Outcome, RoundService
from games.nomic.state import RoundState
from games.tables.service import TableService
from scheduler.clock import Clock, RealClock
from scheduler.due import opening
from scheduler.live import LiveScheduler

log = logging.getLogger(__name__)

COGS = (
    "bot.discord.cogs.economy",
    "bot.discord.cogs.governance",
    "bot.discord.cogs.admin",
    "bot.discord.cogs.help",
    "bot.discord.cogs.tables",
    "bot.discord.cogs.cards",
    "bot.discord.cogs.events",
)
GLOBAL_SYNC_KEY = "global_commands_sha256"
SORRY = "Sorry, something went wrong on my side while doing that. Please try again in a moment."
ROUND_POST = "an announcement of the round"
MOD_LOG_POST = "an entry of the moderators' log"
REVIEW_POST = "the week's review"
OWNED_ELSEWHERE = (
    "Another process of the bot runs this server's round right now (the server is moving between the bot's"
    " processes), so nothing was changed. Please try again in a minute."
)
SETUP_TIP = (
    "Moderators: `!setup` checks the round's channels and the permissions I lack in them, and `!admin sync` "
    "registers the slash commands here."
)


def intents() -> discord.Intents:
    """Message content to read commands, members for leaving, reactions for votes."""
    wanted = discord.Intents.default()
    wanted.message_content = True
    wanted.members = True
    wanted.reactions = True
    wanted.guilds = True
    return wanted


class NomicBot(commands.Bot):
    """The bot; ``clock`` is where "now" comes from (a ``VirtualClock`` in tests).

    ``timers`` starts the APScheduler jobs that apply phase changes on time; without them,
    scheduled work is applied when the next command or event arrives, or by
    ``run_scheduled_work`` (what tests call after moving a virtual clock).
    """

    def __init__(
        self, settings: Settings, *, clock: Clock | None = None, timers: bool | None = None, **client: Any
    ) -> None:
        # the bot never joins voice: no warnings at start about voice libraries it does not need
        discord.VoiceClient.warn_nacl = False
        discord.VoiceClient.warn_dave = False
        super().__init__(
            command_prefix=settings.command_prefix,
            intents=intents(),
            help_command=None,
            case_insensitive=True,
            allowed_mentions=discord.AllowedMentions.none(),
            allowed_contexts=app_commands.AppCommandContext(guild=True, dm_channel=False, private_channel=False),
            **client,
        )
        self.settings = settings
        self.clock: Clock = clock if clock is not None else RealClock()
        self.timers = clock is None if timers is None else timers
        self.store: Store | None = None
        self.table_store: TableStore | None = None
        self.library_store: LibraryStore | None = None
        self._router: Router | None = None
        self.scheduler: LiveScheduler | None = None
        self._configs: dict[int, GuildConfig] = {}
        self.board = BoardPoster(self, settings.board_refresh_seconds)
        self.receipts = BidReceipts(self, settings.bids_answer_seconds)
        """Prefix bids' answers, together in each channel's one "bids received" message (``bot.discord.receipts``)."""
        self.desk = TableDesk(self)
        self.cards = CardDesk(self)
        self.sealed = SealedDesk(self)
        """Sealed bids: by DM, and a ``!bid`` typed in a channel refused privately (``bot.discord.sealed``)."""
        self.notices = Notices(self)
        self.memory = Memory(enabled=clock is None)
        """Keeps full garbage collections out of ticks (``bot.memory``); off under a virtual clock (tests)."""
        self.web: WebRecord | None = None
        """The round's web record, served while the bot runs when ``WEB_PORT`` is set."""
        self.keeper = GuildKeeper(self, lambda: self.store.writer if self.store is not None else None)
        """Which guilds this process acts for (PostgreSQL's advisory locks on PostgreSQL), and ``/healthz``."""

    # -- life cycle --

    async def open_store(self) -> tuple[Store, TableStore]:
        """Open the database (its three connections: the round's, the tables', the card library's), once.
        ``StoreOpenError`` leaves nothing open.

        ``run_bot`` calls it before logging in, so a file that cannot be used stops the bot at once,
        without a connection to Discord; otherwise ``setup_hook`` does.
        """
        if self.store is not None and self.table_store is not None:
            return self.store, self.table_store
        synchronous = self.settings.sqlite_synchronous
        store = await Store.open(
            self.settings.database, synchronous=synchronous, lease=self.settings.guild_lease_seconds
        )
        try:
            # the tables read on their own connection and write through the round's writer (data/table_store.py)
            tables = await TableStore.open(self.settings.database, synchronous=synchronous, store=store)
        except BaseException:
            await store.close()
            raise
        try:
            cards = await LibraryStore.open(self.settings.database, synchronous=synchronous, store=store)
        except BaseException:
            await tables.close()
            await store.close()
            raise
        self.store, self.table_store, self.library_store = store, tables, cards
        await self.keeper.open(self.settings.database.url if self.settings.database.postgres else None)
        # on PostgreSQL: a guild's writes (the tables' and the library's too: they share it) only while held here
        store.fence = fence_of(self.keeper.ownership)
        return store, tables

    @property
    def ownership(self) -> GuildOwnership:
        return self.keeper.ownership

    def forget_guild(self, guild: str) -> None:
        """Another process acts for the guild now (or the bot left it): drop its cached state, timer and settings."""
        if self._router is not None:
            self._router.forget(guild)
        if self.scheduler is not None:
            self.scheduler.disarm(guild)
        if guild.isdigit():
            self.forget_config(int(guild))

    async def setup_hook(self) -> None:
        store, table_store = await self.open_store()
        service = RoundService(store)
        library = LibraryService(self.library_store) if self.library_store is not None else None
        desk = WebDesk(store, self.settings.web_url())
        self._router = Router(service, TableService(table_store), library, desk)
        await self.start_web(service, desk)
        self.scheduler = LiveScheduler(
            service,
            self.clock,
            self.announce,
            work=self.scheduled_work,
            next_due=self._router.next_due,
            owns=self.keeper.owns,
        )
        if self.timers:
            self.scheduler.start()
        await self.keeper.start(timers=self.timers)
        for name in COGS:
            await self.load_extension(name)
        self.tree.error(self.on_app_command_error)
        if self.settings.sync_commands_globally:
            await self.sync_globally()

    async def start_web(self, service: RoundService, desk: WebDesk) -> None:
        """Serve the round's read-only web record on ``WEB_PORT`` (when set), from this bot's own state.

        A port that cannot be had is logged and the bot runs on without its site."""
        port = self.settings.web_port
        if port is None or self.web is not None:
            return
        try:
            self.web = await WebRecord.start(
                self.settings.database,
                service,
                self.settings.web_host,
                port,
                clock=self.clock.now,
                names=self._guild_name,
                channel_of=self._channel_of,
                base_url=self.settings.web_base_url,
            )
        except OSError as exc:
            log.error("the web record cannot listen on %s:%s: %s", self.settings.web_host, port, exc)  # noqa: TRY400
            return
        desk.base_url = self.web.url
        log.info("the web record is served at %s", self.web.url)

    def _guild_name(self, guild_id: str) -> str | None:
        guild = self.get_guild(int(guild_id)) if guild_id.isascii() and guild_id.isdigit() else None
        return guild.name if guild is not None else None

    async def _channel_of(self, guild_id: str, role: str) -> str | None:
        """The id of the channel that plays ``role`` in the guild, for links from the web record."""
        guild = self.get_guild(int(guild_id)) if guild_id.isascii() and guild_id.isdigit() else None
        if guild is None:
            return None
        try:
            channel_role = ChannelRole(role)
        except ValueError:
            return None
        channel = (await self.config(guild.id)).channel_for(guild, channel_role)
        return str(channel.id) if channel is not None else None

    async def release(self) -> None:
        """Stop the timers and close the store (a clean shutdown replays nothing on the next start), then
        release the guilds' locks: another process may take them over at once."""
        self.board.stop()
        self.receipts.stop()
        await self.keeper.stop()
        if self.web is not None:
            web, self.web = self.web, None
            await web.stop()
        if self.scheduler is not None:
            self.scheduler.shutdown()
            self.scheduler = None
        try:
            if self._router is not None:
                router, self._router = self._router, None
                await router.service.save_snapshots()
        finally:
            # closed whatever happened above: an open connection's thread would keep the process alive
            if self.store is not None:
                store, self.store = self.store, None
                await store.close()
            if self.table_store is not None:
                tables, self.table_store = self.table_store, None
                await tables.close()
            if self.library_store is not None:
                cards, self.library_store = self.library_store, None
                await cards.close()
            await self.keeper.close()

    async def close(self) -> None:
        await super().close()  # the gateway first, so no event arrives after the store is closed
        await self.release()

    @property
    def router(self) -> Router:
        if self._router is None:
            raise RuntimeError("the bot is not logged in yet (setup_hook has not run)")
        return self._router

    @property
    def db(self) -> Store:
        if self.store is None:
            raise RuntimeError("the bot is not logged in yet (setup_hook has not run)")
        return self.store

    @property
    def service(self) -> RoundService:
        return self.router.service

    @property
    def table_service(self) -> TableService | None:
        """The thread games' service, or None before ``setup_hook`` (for autocomplete and buttons)."""
        return self._router.tables if self._router is not None else None

    @property
    def library(self) -> LibraryService | None:
        """The card library's service, or None before ``setup_hook`` (for autocomplete and buttons)."""
        return self._router.library if self._router is not None else None

    async def round_state(self, guild_id: int) -> RoundState | None:
        """The guild's state, or None (no round, or the bot is not ready): for autocomplete."""
        if self._router is None:
            return None
        return await self._router.service.state(str(guild_id))

    async def sync_globally(self) -> None:
        """Register the slash commands for every server, when they changed since the last time."""
        payload = [command.to_dict(self.tree) for command in self.tree.get_commands()]
        digest = hashlib.sha256(json.dumps(payload, sort_keys=True, default=str).encode()).hexdigest()
        if await self.db.meta(GLOBAL_SYNC_KEY) == digest:
            log.info("slash commands unchanged since the last global sync; not syncing")
            return
        try:
            synced = await self.tree.sync()
        except discord.HTTPException:
            log.exception("could not sync the slash commands globally")
            return
        await self.db.set_meta(GLOBAL_SYNC_KEY, digest)
        log.info("synced %d slash commands globally", len(synced))

    # -- guilds --

    async def config(self, guild_id: int) -> GuildConfig:
        cached = self._configs.get(guild_id)
        if cached is None:
            cached = GuildConfig.from_settings(await self.db.guild_settings(str(guild_id)))
            self._configs[guild_id] = cached
        return cached

    def forget_config(self, guild_id: int) -> None:
        self._configs.pop(guild_id, None)

    def is_moderator(self, member: discord.abc.User, config: GuildConfig) -> bool:
        if not isinstance(member, discord.Member):
            return False
        if member.guild_permissions.manage_guild:
            return True
        if config.moderator_role is not None and any(role.id == config.moderator_role for role in member.roles):
            return True
        wanted = self.settings.moderator_role
        return bool(wanted) and any(role.name == wanted for role in member.roles)

    async def ensure_round(self, guild: discord.Guild, *, arm: bool = False) -> None:
        """Start the guild's round the first time the bot meets the guild, then catch it up.

        ``arm`` (re)schedules the guild's next timer; catching up re-arms it by itself whenever it
        applied something, so commands need not.

        Takes the guild's lock first: ``OwnedElsewhereError`` when another process of the bot acts for it
        (a guild met again after another process held it is read afresh from the store and caught up).
        """
        await self.ownership.ensure(str(guild.id))
        service = self.service
        if await service.state(str(guild.id)) is None:
            now = self.clock.now()
            ruleset = load_ruleset(self.settings.ruleset)
            phase, presenting = opening(ruleset, now)
            ctx = Context(actor="setup", actor_name="setup", channel=ChannelRole.OTHER, at=now, event_id="setup")
            outcome = await service.start(
                str(guild.id), ctx, StartRound(ruleset=ruleset, phase=phase, presenting_open=presenting)
            )
            if outcome.accepted:
                arm = True
                log.info("guild %s: the round started at %s", guild.id, now.isoformat())
                texts = [e.text() for e in outcome.events]
                await self.deliver(guild, [Post("\n".join([*texts, SETUP_TIP]), channel=ChannelRole.GAME_ACTIONS)])
        if await self.catch_up(guild):
            return
        if arm and self.scheduler is not None:
            await self.scheduler.arm(str(guild.id))

    async def on_guild_join(self, guild: discord.Guild, /) -> None:
        """Invited to a server: its round starts now, announced in #game-actions."""
        await self.keeper.resume([guild])

    async def on_guild_remove(self, guild: discord.Guild, /) -> None:
        """Removed from a server (or it is gone): its timer stops and its lock is released."""
        self.forget_guild(str(guild.id))
        await self.ownership.release(str(guild.id))

    async def on_guild_available(self, guild: discord.Guild, /) -> None:
        """A server back after an outage (or, for some gateways, just joined): start or catch up its round.

        At login every server is also "available"; ``on_ready`` (bot/discord/cogs/events.py) handles those.
        """
        if self.is_ready():
            await self.keeper.resume([guild])

    async def catch_up(self, guild: discord.Guild) -> bool:
        """Apply and announce the scheduled work due by now (the timers may not have fired yet):
        the round's phase changes and the tables' reminders and timeouts, in time order. A reminder
        whose deadline passed while the bot was down is not posted (its instant is applied all the same).

        Returns whether anything was announced; the guild's timer is then re-armed for the next work.
        """
        now = self.clock.now()
        posts = await self.router.due_work(str(guild.id), now)
        await self.deliver(guild, fresh(posts, now))
        if posts:
            await self.rearm(guild)
            self.memory.settle()
        return bool(posts)

    async def scheduled_work(self, guild_id: str, now: datetime) -> None:
        """What the guild's timer runs: every scheduled work due by ``now``, announced where it belongs."""
        guild = self.get_guild(int(guild_id))
        with acting_for(guild_id, guild.shard_id if guild is not None else None):
            if not self.ownership.holds(guild_id):
                log.warning("not running the scheduled work of a guild held elsewhere")
                return
            posts = await self.router.due_work(guild_id, now)
            if guild is not None:
                await self.deliver(guild, fresh(posts, self.clock.now()))
            if posts:
                self.memory.settle()

    async def rearm(self, guild: discord.Guild) -> None:
        """Set the guild's timer to its next scheduled work (a table's move may have moved it sooner)."""
        if self.scheduler is not None:
            await self.scheduler.arm(str(guild.id))

    async def run_scheduled_work(self) -> None:
        """Catch every guild up to the clock: what the timers do, for a clock moved by hand."""
        for guild in self.guilds:
            if self.ownership.holds(str(guild.id)):
                await self.catch_up(guild)

    async def announce(self, guild_id: str, at: datetime, outcome: Outcome) -> None:
        """Phase changes, settlements, placements, outcomes: each in the channel it belongs to."""
        guild = self.get_guild(int(guild_id))
        if guild is not None:
            await self.deliver(guild, outcome_posts(outcome, at))

    async def deliver(self, guild: discord.Guild, posts: list[Post]) -> None:
        """Post announcements in their mapped channels (as replies where they answer a message);
        a table's posts in the table's thread. What cannot be posted is told to the moderators."""
        if any(post.thread is not None for post in posts):
            await self.desk.deliver(guild, posts)
        cards = [p for p in posts if p.thread is None and (p.card is not None or (p.to and p.kind != NOTICE))]
        if cards:
            await self.cards.deliver(guild, cards)
        config = await self.config(guild.id)
        for post in posts:
            if post.thread is not None or post.card is not None:
                continue
            if post.to:
                if post.kind == NOTICE:
                    await self.tell(guild, post)
                continue
            role = post.channel or ChannelRole.GAME_ACTIONS
            channel = config.channel_for(guild, role)
            if role is ChannelRole.MOD_LOG:
                if channel is not None:  # only where a moderator chose to have the log posted
                    await self.post_or_tell(guild, config, channel, post.text, lost=MOD_LOG_POST)
                continue
            if post.digest is not None and channel is not None:
                embed = embeds.review(post.digest)
                text = config.localize(post.text, guild)
                await self.post_or_tell(guild, config, channel, text, embed=embed, lost=REVIEW_POST)
                continue
            if channel is None:
                log.warning("guild %s has no #%s channel; not posted: %s", guild.id, role.value, post.text[:80])
                lost = config.lost_channel(guild, role)
                failure = (
                    notices.gone(role, lost, ROUND_POST) if lost is not None else notices.no_channel(role, ROUND_POST)
                )
                await self.notices.report(guild, config, failure)
                continue
            await self.post_or_tell(guild, config, channel, config.localize(post.text, guild), reply_to=post.reply_to)

    async def post_or_tell(
        self,
        guild: discord.Guild,
        config: GuildConfig,
        channel: discord.TextChannel,
        text: str,
        *,
        reply_to: str | None = None,
        lost: str = ROUND_POST,
        embed: discord.Embed | None = None,
    ) -> bool:
        """Post ``text`` (or one ``embed``) in ``channel``; when the bot may not, or Discord refuses, tell
        the moderators (once)."""
        me = guild.me
        missing = cannot_post(channel, me)
        if missing:
            await self.notices.report(guild, config, notices.forbidden(channel, missing, lost))
            return False
        if embed is not None and not channel.permissions_for(me).embed_links:
            embed = None  # without Embed Links Discord would drop it: the same words as plain text
        # a reply needs Read Message History: without it the announcement still goes, unquoted
        quoting = channel.permissions_for(me).read_message_history
        reference = reply_reference(channel, reply_to) if quoting else None
        for part in [""] if embed is not None else chunks(text):
            try:
                if embed is not None:
                    await channel.send(embed=embed)
                    break
                await channel.send(part, reference=reference)  # type: ignore[arg-type]
            except discord.HTTPException as exc:
                failure = notices.from_error(exc, channel, me, lost)
                if failure is None:
                    log.exception("guild %s: could not post in #%s", guild.id, channel.name)
                else:
                    await self.notices.report(guild, config, failure)
                return False
            reference = None
        return True

    async def tell(self, guild: discord.Guild, post: Post) -> None:
        """A post for single members (an outbid notice, a personal reminder): each by DM, with what was
        held for them; when their DMs are closed it is held for their next answer only they see."""
        for member_id in post.to:
            member = guild.get_member(int(member_id)) if member_id.isdigit() else None
            if member is None:
                continue  # no longer on the server
            held, last = await self.held(guild, member_id)
            text = "\n\n".join(t for t in (held, post.text) if t)
            try:
                for part in chunks(text):
                    await member.send(part)
            except discord.HTTPException as exc:
                if not dms_closed(exc):
                    log.warning("guild %s: could not DM %s: %s", guild.id, member_id, exc)
                await self.db.hold_notice(str(guild.id), member_id, post.at or self.clock.now(), post.text)
                continue
            if last is not None:
                await self.db.drop_held(str(guild.id), member_id, through=last)

    async def held(self, guild: discord.Guild, member_id: str) -> tuple[str, int | None]:
        """What was held for a member whose DMs were closed, as a block for their next private answer,
        and the id to ``drop_held`` through once it reached them ("", None: nothing)."""
        rows = await self.db.held_notices(str(guild.id), member_id)
        if not rows:
            return "", None
        head = "📬 Held for you while I could not DM you:"
        return "\n".join([head, *(text for _, text in rows)]), rows[-1][0]

    async def record_setup(
        self,
        guild: discord.Guild,
        moderator: discord.abc.User,
        what: str,
        *,
        channels: dict[str, str | None] | None = None,
        moderator_role: object = KEEP,
        kind: str = "setup",
    ) -> None:
        """A moderator's change of the server's setup, stored with its entry in the moderators' log
        (one transaction), then posted in the moderators' log channel when there is one."""
        entry = ModLogEntry(self.clock.now(), str(moderator.id), _shown_name(moderator), kind, what)
        if channels is None and moderator_role is KEEP:
            await self.db.add_mod_log(str(guild.id), entry)
        else:
            await self.db.setup_change(str(guild.id), entry, channels=channels, moderator_role=moderator_role)
        self.forget_config(guild.id)
        await self.deliver(guild, [Post(entry.post_text(), channel=ChannelRole.MOD_LOG, at=entry.at)])

    def context(
        self,
        user: discord.abc.Snowflake,
        channel: object,
        config: GuildConfig,
        event_id: str,
        *,
        name: str | None = None,
        role: ChannelRole | None = None,
        private: bool = False,
    ) -> Context:
        """Who acts, where and when, as the rules see it. ``user`` may be a bare id (a member who left).

        ``private``: only the member saw the command (a DM, a slash command)."""
        shown = name or getattr(user, "display_name", None) or getattr(user, "name", None) or str(user.id)
        return Context(
            actor=str(user.id),
            actor_name=shown,
            channel=role or config.role_of(channel),
            at=self.clock.now(),
            is_moderator=isinstance(user, discord.Member) and self.is_moderator(user, config),
            event_id=event_id,
            private=private,
        )

    # -- commands: the one path --

    async def run_command(self, ctx: commands.Context[NomicBot], text: str) -> None:
        """Carry out one command's text through the grammar and the router, and answer it."""
        guild = ctx.guild
        if guild is None:
            await ctx.send("I take commands in a server's channels, not here.")
            return
        with acting_for(str(guild.id), guild.shard_id):
            try:
                await self.ensure_round(guild)
                await self._run_command(ctx, guild, text)
            except OwnedElsewhereError as exc:  # before acting, or its write refused: the guild moved on
                log.warning("%s", exc)
                await self._answer_error(ctx, OWNED_ELSEWHERE)

    async def _run_command(self, ctx: commands.Context[NomicBot], guild: discord.Guild, text: str) -> None:
        """The command, once this process holds the guild."""
        slash = ctx.interaction is not None
        if not slash and words.command_word(text) == "bid" and await self.router.bids_sealed(str(guild.id)):
            await self.sealed.refuse_typed(ctx.message)  # its amount must not stay where others read it
            return
        round_only = words.is_import(text)  # a whole document: longer than any other command may be
        if not round_only and await self.desk.run(ctx, text):
            return  # a thread game's command: answered by the tables
        if not round_only and await self.cards.run(ctx, text):
            return  # a card library's command (`!card`, `!guild`)
        config = await self.config(guild.id)
        event = f"int:{ctx.interaction.id}" if ctx.interaction is not None else f"msg:{ctx.message.id}"
        context = self.context(ctx.author, ctx.channel, config, event, private=slash)
        if is_web_command(text):
            await present(ctx, context, None, await self.router.web_command(str(guild.id), context, text) or [])
            return
        action, posts = await self.router.round_command(str(guild.id), context, text, resolver(guild))
        await present(ctx, context, action, posts)
        if action is not None and action.changes_state and posts and not posts[0].error:
            await self.rearm(guild)  # its deadlines may come sooner (a vote, a notice's minute)

    async def on_message(self, message: discord.Message, /) -> None:
        if message.author.bot:
            return
        ctx = await self.get_context(message)
        if ctx.prefix is None:
            if message.guild is not None and isinstance(message.channel, discord.Thread):
                await self._screen(message, message.guild)
            return  # not a command: the events cog reads proposals and candidacies
        if message.guild is None:
            # a DM: a sealed bid, a move at a thread game's table (a secret vote, say), or a pointer to the server
            if await self.sealed.direct(message, command_text(message.content, self.settings.command_prefix)):
                return
            if await self.cards.direct(message, command_text(message.content, self.settings.command_prefix)):
                return
            if await self.desk.direct(message, command_text(message.content, self.settings.command_prefix)):
                return
            await message.channel.send("I take commands in a server's channels; `!help` there lists them.")
            return
        if ctx.command is None:
            # unknown words, or the prefix alone: the grammar answers them in its own words
            await self.run_command(ctx, command_text(message.content, self.settings.command_prefix))
            return
        await self.invoke(ctx)

    async def _screen(self, message: discord.Message, guild: discord.Guild) -> None:
        """Talk in a thread this process holds: a table's secret move typed without the prefix is
        removed and refused privately (``TableDesk.screen``); other talk is left alone."""
        if not self.keeper.owns(str(guild.id)):
            return
        with acting_for(str(guild.id), guild.shard_id):
            try:
                await self.desk.screen(message)
            except OwnedElsewhereError as exc:
                log.warning("%s", exc)

    async def on_command_error(self, ctx: commands.Context[Any], error: commands.CommandError, /) -> None:
        """Errors are answers: never a traceback in the channel, never silence."""
        if isinstance(error, commands.CommandNotFound):
            await self.run_command(ctx, command_text(ctx.message.content, self.settings.command_prefix))
            return
        if isinstance(error, commands.UserInputError | commands.CheckFailure):
            await self._answer_error(ctx, error_text(RuleError(str(error).rstrip("."))))
            return
        if isinstance(error, commands.HybridCommandError) and isinstance(
            error.original, app_commands.TransformerError | app_commands.CheckFailure
        ):
            await self._answer_error(ctx, error_text(RuleError(str(error.original).rstrip("."))))
            return
        original = getattr(error, "original", error)
        if isinstance(original, OwnedElsewhereError):
            log.warning("command %s: %s", ctx.command, original)
            await self._answer_error(ctx, OWNED_ELSEWHERE)
            return
        log.error("command %s failed", ctx.command, exc_info=original)
        await self._answer_error(ctx, SORRY)

    async def on_error(self, event_method: str, /, *args: Any, **kwargs: Any) -> None:
        """A gateway event for a guild another process runs is left to that process, in one log line."""
        error = sys.exc_info()[1]
        if isinstance(error, OwnedElsewhereError):
            log.warning("%s: %s", event_method, error)
            return
        await super().on_error(event_method, *args, **kwargs)

    async def on_app_command_error(
        self, interaction: discord.Interaction[discord.Client], error: app_commands.AppCommandError
    ) -> None:
        original = getattr(error, "original", error)
        elsewhere = isinstance(original, OwnedElsewhereError)
        if elsewhere:
            log.warning("slash command: %s", original)
        else:
            log.error("slash command failed", exc_info=error)
        text = OWNED_ELSEWHERE if elsewhere else SORRY
        try:
            if interaction.response.is_done():
                await interaction.followup.send(text, ephemeral=True)
            else:
                await interaction.response.send_message(text, ephemeral=True)
        except discord.HTTPException:
            log.exception("could not answer a failed slash command")

    async def _answer_error(self, ctx: commands.Context[NomicBot], text: str) -> None:
        try:
            await ctx.reply(text, ephemeral=True, mention_author=False)
        except discord.HTTPException:
            log.exception("could not answer a failed command")


def _shown_name(user: discord.abc.User) -> str:
    return getattr(user, "display_name", None) or user.name


class ShardedNomicBot(NomicBot, commands.AutoShardedBot):
    """The bot on discord.py's sharded client: ``SHARD_COUNT`` shards (or Discord's advice), of which this
    process runs ``SHARD_IDS``; it sees, and acts for, only those shards' guilds."""


def create_bot(settings: Settings, *, clock: Clock | None = None, timers: bool | None = None) -> NomicBot:
    """The bot with its cogs and command tree (the cogs load in ``setup_hook``, after login); sharded when
    ``SHARD_COUNT`` is set."""
    if not settings.sharded:
        return NomicBot(settings, clock=clock, timers=timers)
    plan = settings.shard_plan()
    ids = list(plan.ids) if plan.ids is not None else None
    return ShardedNomicBot(settings, clock=clock, timers=timers, shard_count=plan.count, shard_ids=ids)


def run_bot(settings: Settings) -> int:
    """``python -m bot run`` with a token: 0 after a clean stop, 1 when Discord cannot be used.

    The database is opened first, before logging in: ``StoreOpenError`` (a file that cannot be
    used) comes out of here with nothing left open, for the command line to report.
    """
    if settings.discord_token is None:
        return 2
    bot = create_bot(settings)
    token = settings.discord_token.get_secret_value().strip()

    async def main() -> None:
        async with bot:
            await bot.open_store()
            await bot.start(token)

    try:
        asyncio.run(main())
    except discord.LoginFailure:
        log.error("Discord refused the token: check DISCORD_TOKEN (Developer Portal -> your app -> Bot -> Reset Token)")  # noqa: TRY400
        return 1
    except discord.PrivilegedIntentsRequired:
        log.error(  # noqa: TRY400
            "Discord refused the connection: turn on the Message Content and Server Members intents "
            "(Developer Portal -> your app -> Bot -> Privileged Gateway Intents)"
        )
        return 1
    except (aiohttp.ClientError, OSError) as exc:
        log.error("Could not reach Discord: %s", exc or type(exc).__name__)  # noqa: TRY400
        return 1
    except (sqlite3.Error, asyncpg.PostgresError) as exc:
        log.error("The database %s failed while the bot ran: %s", settings.database.display, exc)  # noqa: TRY400
        return 1
    except KeyboardInterrupt:
        return 0
    return 0
