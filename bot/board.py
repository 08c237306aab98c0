"""The lot board in #auctions, refreshed at most every few seconds however fast bids come in.

During a burst of bids each accepted bid gets a ✅ and the board is posted (or edited in place)
once per interval, which keeps the bot far under Discord's rate limits. A board is edited in
place while it is the channel's latest message and younger than an hour (older messages have a
small edit budget: error 30046); otherwise a new board is posted below the bids and the previous
one is removed, so the channel holds one current board.
"""

from __future__ import annotations

import asyncio
import logging
from datetime import timedelta
from typing import TYPE_CHECKING

import discord

from bot import notices
from bot.discord_io import TOO_OLD_TO_EDIT
from bot.permissions import lacking_flags
from bot.render import embeds
from games.nomic.actions import ShowLots
from games.nomic.context import SYSTEM, ChannelRole, Context

if TYPE_CHECKING:
    from bot.app import NomicBot

log = logging.getLogger(__name__)

EDIT_WINDOW = timedelta(hours=1)
LOST = "the lot board"
NEEDS = ("send_messages", "embed_links", "attach_files")
"""A board is a message with an embed and a picture: without any of these it is refused, or shows up empty."""


class BoardPoster:
    def __init__(self, bot: NomicBot, interval: float) -> None:
        self._bot = bot
        self._interval = interval
        self._dirty: dict[int, discord.TextChannel] = {}
        self._tasks: dict[int, asyncio.Task[None]] = {}
        self._last_post: dict[int, float] = {}
        self._boards: dict[int, discord.Message] = {}

    def request(self, guild: discord.Guild, channel: discord.TextChannel) -> None:
        """Show the current lots soon: now if the last board is old enough, else at the interval's end."""
        self._dirty[guild.id] = channel
        task = self._tasks.get(guild.id)
        if task is None or task.done():
            self._tasks[guild.id] = asyncio.get_running_loop().create_task(self._flush(guild))

    def stop(self) -> None:
        for task in self._tasks.values():
            task.cancel()
        self._tasks.clear()

    async def _flush(self, guild: discord.Guild) -> None:
        loop = asyncio.get_running_loop()
        while guild.id in self._dirty:
            wait = self._last_post.get(guild.id, float("-inf")) + self._interval - loop.time()
            if wait > 0:
                await asyncio.sleep(wait)
            channel = self._dirty.pop(guild.id)
            self._last_post[guild.id] = loop.time()
            try:
                await self.post(guild, channel)
            except discord.HTTPException as exc:
                failure = notices.from_error(exc, channel, guild.me, LOST, needs=NEEDS)
                if failure is None:
                    log.warning("guild %s: could not post the lot board: %s", guild.id, exc, exc_info=exc)
                else:
                    await self._bot.notices.report(guild, await self._bot.config(guild.id), failure)

    async def post(self, guild: discord.Guild, channel: discord.TextChannel) -> None:
        bot = self._bot
        now = bot.clock.now()
        ctx = Context(actor=SYSTEM, actor_name="the board", channel=ChannelRole.AUCTIONS, at=now)
        posts = await bot.router.run(str(guild.id), ctx, ShowLots())
        state = await bot.service.state(str(guild.id))
        if not posts or posts[0].error or state is None:
            return
        config = await bot.config(guild.id)
        embed, picture = embeds.board(state, config.localize(posts[0].text, guild), now)
        old = self._boards.get(guild.id)
        if (
            old is not None
            and old.channel.id == channel.id
            and channel.last_message_id == old.id
            and discord.utils.utcnow() - old.created_at < EDIT_WINDOW
        ):
            try:
                self._boards[guild.id] = await old.edit(embed=embed, attachments=[picture])
                return
            except discord.HTTPException as exc:
                if exc.code != TOO_OLD_TO_EDIT and not isinstance(exc, discord.NotFound):
                    raise
                embed, picture = embeds.board(state, config.localize(posts[0].text, guild), now)
        missing = lacking_flags(channel, guild.me, NEEDS) if guild.me is not None else []
        if missing:
            # told once, not tried: a board that Discord refuses or shows empty helps nobody
            await bot.notices.report(guild, config, notices.forbidden(channel, missing, LOST))
            return
        self._boards[guild.id] = await channel.send(embed=embed, file=picture)
        if old is not None:
            # one board in the channel: the new one, below the bids it shows
            try:
                await old.delete()
            except discord.HTTPException:
                log.info("guild %s: could not delete the previous lot board", guild.id)
