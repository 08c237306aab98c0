"""Moderators: corrections of the game (``!admin``, through the rules) and the server's setup.

``!admin give|take|lot|set`` are command words of the round and go the one path (the rules check
that the member is a moderator). ``!admin sync`` and ``/setup`` configure the Discord side only:
the slash commands of this server, which channel plays which role, and the moderator role.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

import discord
from discord import app_commands
from discord.ext import commands

from bot.cogs.base import Ctx, group, line, perform, reply, sub, summary
from bot.cogs.economy import MAX_CHOICES, state_of
from bot.discord_io import ROLES, GuildConfig
from bot.router import error_text
from games.nomic.context import ChannelRole
from games.nomic.errors import BadInputError, NotAllowedError

if TYPE_CHECKING:
    from bot.app import NomicBot

NOT_A_MODERATOR = NotAllowedError("only moderators (Manage Server, or the moderator role) can do that")
ROLE_CHOICES = [app_commands.Choice(name=role.value, value=role.value) for role in ROLES]
SETUP_CHANNEL_USAGE = "usage: `!setup channel ROLE #channel` (ROLE: " + ", ".join(r.value for r in ROLES) + ")"
SETUP_ROLE_USAGE = "usage: `!setup moderator-role @role` (or `none`)"
_CHANNEL = re.compile(r"^<#(\d{5,25})>$")
_ROLE = re.compile(r"^<@&(\d{5,25})>$")


class Admin(commands.Cog):
    """Corrections by moderators, slash command registration, and the server's channel setup."""

    def __init__(self, bot: NomicBot) -> None:
        self.bot = bot

    async def _moderator(self, ctx: Ctx) -> GuildConfig | None:
        """The guild's config when the member is a moderator; otherwise answers why not."""
        if ctx.guild is None:
            await reply(ctx, "Use this in a server.", ephemeral=True)
            return None
        config = await self.bot.config(ctx.guild.id)
        if not self.bot.is_moderator(ctx.author, config):
            await reply(ctx, error_text(NOT_A_MODERATOR), ephemeral=True)
            return None
        return config

    # -- corrections: command words of the round --

    @group("admin", summary("admin"))
    async def admin(self, ctx: Ctx) -> None:
        await perform(ctx, "!admin")

    @sub(admin, "give", "moderators: give a player items (N points, cards, spm)")
    @app_commands.describe(member="the player", items="N points, card codes, spm")
    async def admin_give(self, ctx: Ctx, member: discord.Member, items: str) -> None:
        await perform(ctx, line("!admin give", member, items))

    @sub(admin, "take", "moderators: take items from a player (N points, cards, spm)")
    @app_commands.describe(member="the player", items="N points, card codes, spm")
    async def admin_take(self, ctx: Ctx, member: discord.Member, items: str) -> None:
        await perform(ctx, line("!admin take", member, items))

    @sub(admin, "lot", "moderators: place a lot of the given cards")
    @app_commands.describe(cards="the lot's cards, e.g. AS KH")
    async def admin_lot(self, ctx: Ctx, cards: str) -> None:
        await perform(ctx, line("!admin lot", cards))

    @sub(admin, "set", "moderators: change an option of the ruleset (a new version)")
    @app_commands.describe(option="the option, e.g. auction.lots_per_auction", value="its new value")
    async def admin_set(self, ctx: Ctx, option: str, value: str) -> None:
        await perform(ctx, line("!admin set", option, value))

    @admin_set.autocomplete("option")
    async def option_choices(
        self, interaction: discord.Interaction[discord.Client], current: str
    ) -> list[app_commands.Choice[str]]:
        state = await state_of(interaction)
        if state is None:
            return []
        found = [p for p in state.ruleset.option_paths() if current.lower() in p.lower()]
        return [app_commands.Choice(name=p[:100], value=p[:100]) for p in found[:MAX_CHOICES]]

    # -- the Discord side --

    @sub(admin, "sync", "moderators: register the slash commands in this server")
    async def admin_sync(self, ctx: Ctx) -> None:
        if await self._moderator(ctx) is None or ctx.guild is None:
            return
        tree = self.bot.tree
        tree.copy_global_to(guild=ctx.guild)
        synced = await tree.sync(guild=ctx.guild)
        await reply(ctx, f"Registered {len(synced)} slash commands in this server; type `/` to see them.")

    @sub(admin, "unsync", "moderators: remove this server's copy of the slash commands")
    async def admin_unsync(self, ctx: Ctx) -> None:
        if await self._moderator(ctx) is None or ctx.guild is None:
            return
        self.bot.tree.clear_commands(guild=ctx.guild)
        await self.bot.tree.sync(guild=ctx.guild)
        await reply(ctx, "Removed this server's slash commands (global ones, if synced, stay).")

    @group("setup", "moderators: which channel plays which role, and the moderator role")
    async def setup_group(self, ctx: Ctx) -> None:
        if await self._moderator(ctx) is not None:
            await reply(ctx, error_text(BadInputError(f"{SETUP_CHANNEL_USAGE}, {SETUP_ROLE_USAGE} or `!setup show`")))

    @sub(setup_group, "channel", "moderators: use a channel for a role (auctions, game-actions, ...)")
    @app_commands.describe(role="the channel role", channel="the channel (left out: the one named after the role)")
    @app_commands.choices(role=ROLE_CHOICES)
    async def setup_channel(self, ctx: Ctx, role: str, channel: discord.TextChannel | None = None) -> None:
        config = await self._moderator(ctx)
        if config is None or ctx.guild is None:
            return
        if ctx.interaction is None:
            parsed = self._read_channel_args(ctx)
            if isinstance(parsed, str):
                await reply(ctx, parsed, ephemeral=True)
                return
            role, channel = parsed
        chosen = ChannelRole(role)
        if channel is not None:
            for other, bound in config.channels.items():
                if bound == channel.id and other is not chosen:
                    text = f"{channel.mention} already plays #{other.value}; bind that role elsewhere first"
                    await reply(ctx, error_text(BadInputError(text)), ephemeral=True)
                    return
        await self.bot.db.bind_channel(str(ctx.guild.id), chosen.value, str(channel.id) if channel else None)
        self.bot.forget_config(ctx.guild.id)
        if channel is None:
            await reply(ctx, f"The {chosen.value} role is back to the channel named #{chosen.value}.")
        else:
            await reply(ctx, f"{channel.mention} is now this server's {chosen.value} channel.")

    def _read_channel_args(self, ctx: Ctx) -> tuple[str, discord.TextChannel | None] | str:
        """``!setup channel ROLE [#channel]`` as typed; a string is the answer when it cannot be read."""
        args = ctx.message.content.split()[2:]
        usage = error_text(BadInputError(SETUP_CHANNEL_USAGE))
        if ctx.guild is None or not args or len(args) > 2:
            return usage
        role = args[0].lower().lstrip("#")
        if role not in {r.value for r in ROLES}:
            return usage
        if len(args) == 1:
            return role, None
        match = _CHANNEL.match(args[1])
        found: Any = (
            ctx.guild.get_channel(int(match.group(1)))
            if match
            else discord.utils.get(ctx.guild.text_channels, name=args[1].lstrip("#"))
        )
        if not isinstance(found, discord.TextChannel):
            return error_text(BadInputError(f"there is no text channel {args[1][:40]} here"))
        return role, found

    @sub(setup_group, "moderator-role", "moderators: members with this role are moderators too")
    @app_commands.describe(role="the role (leave out to have none)")
    async def setup_moderator_role(self, ctx: Ctx, role: discord.Role | None = None) -> None:
        if await self._moderator(ctx) is None or ctx.guild is None:
            return
        if ctx.interaction is None:
            args = ctx.message.content.split()[2:]
            if len(args) != 1:
                await reply(ctx, error_text(BadInputError(SETUP_ROLE_USAGE)), ephemeral=True)
                return
            match = _ROLE.match(args[0])
            role = (
                ctx.guild.get_role(int(match.group(1)))
                if match
                else discord.utils.get(ctx.guild.roles, name=args[0].lstrip("@"))
            )
            if role is None and args[0].lower() != "none":
                await reply(ctx, error_text(BadInputError(f"there is no role {args[0][:40]} here")), ephemeral=True)
                return
        await self.bot.db.set_moderator_role(str(ctx.guild.id), str(role.id) if role else None)
        self.bot.forget_config(ctx.guild.id)
        if role is None:
            await reply(ctx, "No role makes a member a moderator now (Manage Server still does).")
        else:
            await reply(ctx, f"Members with the {role.name} role are moderators now.")

    @sub(setup_group, "show", "moderators: the channels of each role and the moderator role")
    async def setup_show(self, ctx: Ctx) -> None:
        config = await self._moderator(ctx)
        if config is None or ctx.guild is None:
            return
        lines = []
        for role in ROLES:
            channel = config.channel_for(ctx.guild, role)
            how = "bound" if role in config.channels else "by name"
            lines.append(f"{role.value}: {channel.mention + f' ({how})' if channel else 'no channel'}")
        moderator = ctx.guild.get_role(config.moderator_role) if config.moderator_role else None
        lines.append(f"moderator role: {moderator.name if moderator else 'none'} (and Manage Server)")
        if self.bot.settings.moderator_role:
            lines.append(f"from the settings: members with the {self.bot.settings.moderator_role} role")
        await reply(ctx, "\n".join(lines), ephemeral=True)


async def setup(bot: NomicBot) -> None:
    await bot.add_cog(Admin(bot))
