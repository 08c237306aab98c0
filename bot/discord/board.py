"""The lot board: one message per guild, edited in place at most every few seconds however fast bids come.

The board lives in the board channel a moderator chose (``/setup channel board #channel``), else in
the channel of the bids, pinned there (when the bot may pin) so members find it above the bids.
Each refresh edits that one message, however many messages came after it; only when Discord
refuses the edit (an old message's edit budget is spent: 30046; the message was deleted) is a new
board posted, pinned, and the previous one deleted. Which message is the board is kept in the
store (``guild_messages``), so a restart edits the same board rather than posting another. A burst of
bids thus costs one edit every ``interval`` seconds, far under Discord's message limits.
"""

from __future__ import annotations

import asyncio
import logging
from typing import TYPE_CHECKING

import discord

from bot.discord import notices
from bot.discord.io import TOO_OLD_TO_EDIT
from bot.discord.permissions import lacking_flags
from bot.discord.render import embeds
from games.nomic.actions import ShowLots
from games.nomic.context import SYSTEM, ChannelRole, Context

if TYPE_CHECKING:
    from bot.discord.app import NomicBot

log = logging.getLogger(__name__)

LOST = "the lot board"
NEEDS = ("send_messages", "embed_links", "attach_files")
"""A board is a message with an embed and a picture: without any of these it is refused, or shows up empty."""
ROLE = "board"
"""The board's role among the messages the store keeps per guild (``Store.message``)."""


class BoardPoster:
    def __init__(self, bot: NomicBot, interval: float) -> None:
        self._bot = bot
        self._interval = interval
        self._dirty: dict[int, discord.TextChannel] = {}
        self._tasks: dict[int, asyncio.Task[None]] = {}
        self._last_post: dict[int, float] = {}
        self._boards: dict[int, discord.Message | discord.PartialMessage] = {}

    def request(self, guild: discord.Guild, channel: discord.TextChannel) -> None:
        """Show the current lots soon: now if the last refresh is old enough, else at the interval's end."""
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

    async def _board(self, guild: discord.Guild) -> discord.Message | discord.PartialMessage | None:
        """The guild's board message: as last seen, or as the store remembers it after a restart."""
        found = self._boards.get(guild.id)
        if found is not None:
            return found
        channel_id, message_id = await self._bot.db.message(str(guild.id), ROLE) or ("", "")
        channel = guild.get_channel(int(channel_id)) if channel_id.isdigit() else None
        if not isinstance(channel, discord.TextChannel) or not message_id.isdigit():
            return None
        return channel.get_partial_message(int(message_id))

    async def post(self, guild: discord.Guild, channel: discord.TextChannel) -> None:
        """Edit the board to show the lots now; post a new one only when that cannot be done."""
        bot = self._bot
        now = bot.clock.now()
        ctx = Context(actor=SYSTEM, actor_name="the board", channel=ChannelRole.AUCTIONS, at=now)
        posts = await bot.router.run(str(guild.id), ctx, ShowLots())
        state = await bot.service.state(str(guild.id))
        if not posts or posts[0].error or state is None:
            return
        config = await bot.config(guild.id)
        text = config.localize(posts[0].text, guild)
        where = config.channel_for(guild, ChannelRole.BOARD) or channel
        old = await self._board(guild)
        if old is not None and old.channel.id == where.id:
            embed, picture = embeds.board(state, text, now)
            try:
                self._boards[guild.id] = await old.edit(embed=embed, attachments=[picture])
                return
            except discord.NotFound:
                old = None
            except discord.HTTPException as exc:
                if exc.code != TOO_OLD_TO_EDIT:
                    raise
        missing = lacking_flags(where, guild.me, NEEDS) if guild.me is not None else []
        if missing:
            # told once, not tried: a board that Discord refuses or shows empty helps nobody
            await bot.notices.report(guild, config, notices.forbidden(where, missing, LOST))
            return
        embed, picture = embeds.board(state, text, now)
        board = await where.send(embed=embed, file=picture)
        self._boards[guild.id] = board
        await bot.db.set_message(str(guild.id), ROLE, str(where.id), str(board.id))
        if guild.me is not None and where.permissions_for(guild.me).manage_messages:
            try:
                await board.pin(reason="the lot board")
            except discord.HTTPException as exc:  # 50 pins already, say: the board works unpinned
                log.info("guild %s: could not pin the lot board: %s", guild.id, exc)
        if old is not None:
            try:  # one board: the new one
                await old.delete()
            except discord.HTTPException:
                log.info("guild %s: could not delete the previous lot board", guild.id)
