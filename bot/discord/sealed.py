"""Sealed bids on Discord (``games.nomic.sealed``): bids by DM, ``/bid`` answered ephemerally, and a
``!bid`` typed in a channel while bids are sealed removed (when the bot may) and refused privately.

A DM ``!bid LOT AMOUNT`` goes to the server whose round the member plays; one who plays in several names
the server after the amount (its name or id), as a DM move at a thread game names its table. Whatever
the rules answer goes to the bidder alone; the hash line goes to #auctions and the lot board follows.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

import discord

from bot import texts
from bot.discord.io import chunks, resolver
from bot.logs import acting_for
from bot.router import error_text
from games.nomic.auction import SEALED_HERE
from games.nomic.commands import command_word
from games.nomic.context import ChannelRole
from games.nomic.errors import WrongChannelError

if TYPE_CHECKING:
    from bot.discord.app import NomicBot

log = logging.getLogger(__name__)

TYPED_REFUSAL = error_text(WrongChannelError(SEALED_HERE))
"""What a ``!bid`` typed where others read it is answered while bids are sealed: the rules' own words."""


class SealedDesk:
    def __init__(self, bot: NomicBot) -> None:
        self._bot = bot

    async def direct(self, message: discord.Message, text: str) -> bool:
        """A ``!bid`` sent by DM; False when the DM is no bid."""
        if command_word(text) != "bid":
            return False
        words = text.split()
        bot = self._bot
        author = message.author
        playing: list[discord.Guild] = []
        for guild in bot.guilds:
            if guild.get_member(author.id) is None or not bot.keeper.owns(str(guild.id)):
                continue
            state = await bot.service.state(str(guild.id))
            if state is not None and str(author.id) in state.players:
                playing.append(guild)
        named = " ".join(words[3:])
        chosen = [g for g in playing if named.casefold() in {g.name.casefold(), str(g.id)}] if named else playing
        if not playing:
            await message.channel.send(texts.SEALED_NO_ROUND)
            return True
        if len(chosen) != 1:
            await message.channel.send(texts.sealed_which_server([g.name for g in playing], named))
            return True
        guild = chosen[0]
        with acting_for(str(guild.id), guild.shard_id):
            await bot.ensure_round(guild)
            config = await bot.config(guild.id)
            context = bot.context(author, message.channel, config, f"msg:{message.id}", private=True)
            posts = await bot.router.message(str(guild.id), context, " ".join(words[:3]), resolver(guild), dm=True)
            for post in posts:
                if post.to or post.channel is not None:
                    await bot.deliver(guild, [post])
                    continue
                for part in chunks(config.localize(post.text, guild)):
                    await message.channel.send(part)
            if posts and not posts[0].error:
                await self.board(guild)
                await bot.rearm(guild)
        return True

    async def board(self, guild: discord.Guild) -> None:
        """The lot board counts the sealed bids: show the new count soon."""
        channel = (await self._bot.config(guild.id)).channel_for(guild, ChannelRole.AUCTIONS)
        if isinstance(channel, discord.TextChannel):
            self._bot.board.request(guild, channel)

    async def refuse_typed(self, message: discord.Message, text: str = TYPED_REFUSAL) -> None:
        """A bid typed where others read it while bids are sealed: removed when the bot may, refused by DM (in
        the channel, naming no amount, when DMs are closed)."""
        channel = message.channel
        me = message.guild.me if message.guild is not None else None
        removed = False
        if (
            isinstance(channel, discord.TextChannel | discord.Thread)
            and me is not None
            and channel.permissions_for(me).manage_messages
        ):
            try:
                await message.delete()
                removed = True
            except discord.HTTPException:
                log.info("could not remove a sealed bid typed in %s", getattr(channel, "name", channel))
        said = f"{text} {texts.SEALED_REMOVED if removed else texts.SEALED_NOT_REMOVED}"
        try:
            await message.author.send(said)
        except discord.HTTPException:
            said = f"{message.author.mention} {text}"
            if removed:
                await channel.send(said)
            else:
                await channel.send(said, reference=message.to_reference(fail_if_not_exists=False))
