"""Moderators: corrections of the game (``!admin``, through the rules) and the server's setup.

``!admin give|take|lot|set`` are command words of the round and go the one path (the rules check
that the member is a moderator). ``!admin sync`` and ``/setup`` configure the Discord side only:
the slash commands of this server, which channel plays which role, and the moderator role.

``!setup`` (``/setup server``) does the whole setup in one step and answers with one report: the
channel of each role and what the bot lacks there, in words that say what would break. Discord
cannot run a command that has subcommands, so the slash form of ``!setup`` is the group's
``server`` subcommand. ``/setup show`` gives the same report and changes nothing.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any, Literal

import discord
from discord import app_commands
from discord.ext import commands

from bot.discord.cogs.base import Ctx, WordGroup, group, line, perform, reply, sub, summary
from bot.discord.cogs.economy import MAX_CHOICES, state_of
from bot.discord.io import OPTIONAL_ROLES, ROLES, GuildConfig
from bot.discord.permissions import Lack, Need, lacking
from bot.router import error_text
from data.store import KEEP
from games.nomic.context import ChannelRole
from games.nomic.errors import BadInputError, NotAllowedError

if TYPE_CHECKING:
    from bot.discord.app import NomicBot

NOT_A_MODERATOR = NotAllowedError("only moderators (Manage Server, or the moderator role) can do that")
SETUP_ROLES = (*ROLES, *OPTIONAL_ROLES)
ROLE_CHOICES = [app_commands.Choice(name=role.value, value=role.value) for role in SETUP_ROLES]
SETUP_CHANNEL_USAGE = (
    "usage: `!setup channel ROLE #channel` (ROLE: " + ", ".join(r.value for r in SETUP_ROLES) + ")"
)
SETUP_ROLE_USAGE = "usage: `!setup moderator-role @role` (or `none`)"
SETUP_USAGE = (
    "usage: `!setup` alone, or with the channels to use and the moderator role, e.g. "
    "`!setup auctions #bids game-actions #play moderator-role @Mods`"
)
SETUP_DESCRIPTION = "moderators: set up the round's channels and moderator role; report what I lack"
MODERATOR_ROLE_OPTION = "moderator-role"
_CHANNEL = re.compile(r"^<#(\d{5,25})>$")
_ROLE = re.compile(r"^<@&(\d{5,25})>$")


def _setup_group(func: Any) -> commands.HybridGroup[Any, ..., None]:
    return SetupGroup(
        func,
        name="setup",
        description=SETUP_DESCRIPTION,
        invoke_without_command=True,
        case_insensitive=True,
        fallback="server",
    )


class SetupGroup(WordGroup):
    """``!setup`` reads the message as typed (its options are pairs of words); ``/setup server`` has typed options."""


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

    @sub(admin, "log", "moderators: the latest changes moderators made (corrections, rules, setup)")
    @app_commands.describe(count="how many entries, newest first (10 when left out, at most 50)")
    async def admin_log(self, ctx: Ctx, count: app_commands.Range[int, 1, 50] | None = None) -> None:
        await perform(ctx, line("!admin log", count))

    @sub(admin, "todo", "moderators: what passed proposals ask that the bot does not enforce")
    @app_commands.describe(page="more open items: page 2 and on")
    async def admin_todo(self, ctx: Ctx, page: app_commands.Range[int, 1] | None = None) -> None:
        await perform(ctx, line("!admin todo", page))

    @sub(admin, "done", "moderators: mark an item of the to-do list carried out")
    @app_commands.describe(number="the to-do item's number", note="what was done (optional)")
    async def admin_done(self, ctx: Ctx, number: app_commands.Range[int, 1], note: str | None = None) -> None:
        await perform(ctx, line("!admin done", number, note))

    @admin_set.autocomplete("option")
    async def option_choices(
        self, interaction: discord.Interaction[discord.Client], current: str
    ) -> list[app_commands.Choice[str]]:
        state = await state_of(interaction)
        if state is None:
            return []
        found = [p for p in state.ruleset.option_paths() if current.lower() in p.lower()]
        return [app_commands.Choice(name=p[:100], value=p[:100]) for p in found[:MAX_CHOICES]]

    @sub(admin, "web", "moderators: list the round's web record, hide it (link only) or turn it off")
    @app_commands.describe(mode="on: listed; hidden: only by its link; off: no pages")
    async def admin_web(self, ctx: Ctx, mode: Literal["on", "hidden", "off"] | None = None) -> None:
        await perform(ctx, line("!admin web", mode))

    # -- the Discord side --

    @sub(admin, "sync", "moderators: register the slash commands in this server")
    async def admin_sync(self, ctx: Ctx) -> None:
        if await self._moderator(ctx) is None or ctx.guild is None:
            return
        tree = self.bot.tree
        tree.copy_global_to(guild=ctx.guild)
        synced = await tree.sync(guild=ctx.guild)
        what = f"registered {len(synced)} slash commands in this server"
        await self.bot.record_setup(ctx.guild, ctx.author, what, kind="admin_sync")
        await reply(ctx, f"Registered {len(synced)} slash commands in this server; type `/` to see them.")

    @sub(admin, "unsync", "moderators: remove this server's copy of the slash commands")
    async def admin_unsync(self, ctx: Ctx) -> None:
        if await self._moderator(ctx) is None or ctx.guild is None:
            return
        self.bot.tree.clear_commands(guild=ctx.guild)
        await self.bot.tree.sync(guild=ctx.guild)
        await self.bot.record_setup(ctx.guild, ctx.author, "removed this server's slash commands", kind="admin_sync")
        await reply(ctx, "Removed this server's slash commands (global ones, if synced, stay).")

    @_setup_group
    @app_commands.rename(
        game_actions="game-actions", judge_elections="judge-elections", moderator_role=MODERATOR_ROLE_OPTION
    )
    @app_commands.describe(
        auctions="the channel for bids (left out: the one chosen before, or the one named auctions)",
        game_actions="the channel for commands and news (left out: as chosen before, or named game-actions)",
        proposals="the channel for proposals (left out: the one chosen before, or the one named proposals)",
        judge_elections="the channel for candidacies (left out: as chosen before, or named judge-elections)",
        moderator_role="members with this role are moderators too (left out: unchanged)",
    )
    async def setup_group(  # noqa: PLR0917 (the slash form's options)
        self,
        ctx: Ctx,
        auctions: discord.TextChannel | None = None,
        game_actions: discord.TextChannel | None = None,
        proposals: discord.TextChannel | None = None,
        judge_elections: discord.TextChannel | None = None,
        moderator_role: discord.Role | None = None,
    ) -> None:
        """``!setup`` / ``/setup server``: every role's channel and the moderator role in one step."""
        config = await self._moderator(ctx)
        if config is None or ctx.guild is None:
            return
        chosen: dict[ChannelRole, discord.TextChannel]
        if ctx.interaction is None:
            parsed = self._read_setup_args(ctx)
            if isinstance(parsed, str):
                await reply(ctx, parsed, ephemeral=True)
                return
            chosen, moderator_role = parsed
        else:
            given = zip(ROLES, (auctions, game_actions, proposals, judge_elections), strict=True)
            chosen = {role: channel for role, channel in given if channel is not None}
        plan = plan_setup(ctx.guild, config, chosen)
        if isinstance(plan, str):
            await reply(ctx, error_text(BadInputError(plan)), ephemeral=True)
            return
        binds: dict[str, str | None] = {}
        changes: list[str] = []
        for role in (*ROLES, *OPTIONAL_ROLES):
            channel = plan[role][0] if role in plan else chosen.get(role)
            wanted = channel.id if channel is not None else None
            if role in OPTIONAL_ROLES and wanted is None:
                continue  # an optional role is changed only when named
            if config.channels.get(role) != wanted:
                binds[role.value] = str(wanted) if wanted is not None else None
                changes.append(f"#{role.value} → {channel.mention if channel is not None else 'by name'}")
        if moderator_role is not None:
            changes.append(f"moderator role → {moderator_role.name}")
        if changes:
            role_id: object = str(moderator_role.id) if moderator_role is not None else KEEP
            await self.bot.record_setup(
                ctx.guild, ctx.author, "; ".join(changes), channels=binds, moderator_role=role_id
            )
        else:
            self.bot.forget_config(ctx.guild.id)
        self.bot.notices.forget(ctx.guild.id)
        config = await self.bot.config(ctx.guild.id)
        how = {role: plan[role][1] for role in ROLES}
        head = "Set up.\n"
        if moderator_role is not None:
            head = f"Set up; members with the {moderator_role.name} role are moderators.\n"
        await reply(ctx, head + setup_report(ctx.guild, config, how, self.bot.settings.moderator_role), ephemeral=True)

    def _read_setup_args(self, ctx: Ctx) -> tuple[dict[ChannelRole, discord.TextChannel], discord.Role | None] | str:
        """``!setup [ROLE #channel]... [moderator-role @role]`` as typed; a string answers what cannot be read."""
        guild = ctx.guild
        args = ctx.message.content.split()[1:]
        if args and args[0].lower() == "server":
            args = args[1:]  # `!setup server`, as the slash form is called
        usage = error_text(BadInputError(SETUP_USAGE))
        if guild is None or len(args) % 2:
            return usage
        chosen: dict[ChannelRole, discord.TextChannel] = {}
        moderator: discord.Role | None = None
        names = {r.value: r for r in SETUP_ROLES}
        for word, value in zip(args[::2], args[1::2], strict=True):
            key = word.lower().lstrip("#").rstrip(":")
            if key == MODERATOR_ROLE_OPTION:
                moderator = _role_named(guild, value)
                if moderator is None:
                    return error_text(BadInputError(f"there is no role {value[:40]} here"))
            elif key in names:
                found = _channel_named(guild, value)
                if found is None:
                    return error_text(BadInputError(f"there is no text channel {value[:40]} here"))
                chosen[names[key]] = found
            else:
                return usage
        return chosen, moderator

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
        where = channel.mention if channel is not None else "by name" if chosen not in OPTIONAL_ROLES else "none"
        await self.bot.record_setup(
            ctx.guild,
            ctx.author,
            f"#{chosen.value} → {where}",
            channels={chosen.value: str(channel.id) if channel else None},
        )
        self.bot.notices.forget(ctx.guild.id)
        if channel is None and chosen is ChannelRole.BOARD:
            await reply(ctx, "The lot board is back in #auctions (pinned there): it moves with the next bid.")
        elif channel is None and chosen in OPTIONAL_ROLES:
            await reply(ctx, f"No channel is this server's {chosen.value} channel now: I post nothing of it.")
        elif channel is None:
            await reply(ctx, f"The {chosen.value} role is back to the channel named #{chosen.value}.")
        elif chosen is ChannelRole.MOD_LOG:
            await reply(ctx, f"{channel.mention} is now the moderators' log channel: I post moderators' changes there.")
        elif chosen is ChannelRole.BOARD:
            await reply(ctx, f"{channel.mention} is now the lot board's channel: it moves there with the next bid.")
        else:
            await reply(ctx, f"{channel.mention} is now this server's {chosen.value} channel.")

    def _read_channel_args(self, ctx: Ctx) -> tuple[str, discord.TextChannel | None] | str:
        """``!setup channel ROLE [#channel]`` as typed; a string is the answer when it cannot be read."""
        args = ctx.message.content.split()[2:]
        usage = error_text(BadInputError(SETUP_CHANNEL_USAGE))
        if ctx.guild is None or not args or len(args) > 2:
            return usage
        role = args[0].lower().lstrip("#")
        if role not in {r.value for r in SETUP_ROLES}:
            return usage
        if len(args) == 1:
            return role, None
        found = _channel_named(ctx.guild, args[1])
        if found is None:
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
            role = _role_named(ctx.guild, args[0])
            if role is None and args[0].lower() != "none":
                await reply(ctx, error_text(BadInputError(f"there is no role {args[0][:40]} here")), ephemeral=True)
                return
        what = f"moderator role → {role.name if role is not None else 'none'}"
        await self.bot.record_setup(ctx.guild, ctx.author, what, moderator_role=str(role.id) if role else None)
        self.bot.notices.forget(ctx.guild.id)
        if role is None:
            await reply(ctx, "No role makes a member a moderator now (Manage Server still does).")
        else:
            await reply(ctx, f"Members with the {role.name} role are moderators now.")

    @sub(setup_group, "show", "moderators: each role's channel and what I lack there; changes nothing")
    async def setup_show(self, ctx: Ctx) -> None:
        config = await self._moderator(ctx)
        if config is None or ctx.guild is None:
            return
        how = {role: "chosen" if role in config.channels else "found by name" for role in ROLES}
        await reply(ctx, setup_report(ctx.guild, config, how, self.bot.settings.moderator_role), ephemeral=True)


def _channel_named(guild: discord.Guild, text: str) -> discord.TextChannel | None:
    match = _CHANNEL.match(text)
    found: Any = (
        guild.get_channel(int(match.group(1)))
        if match
        else discord.utils.get(guild.text_channels, name=text.lstrip("#").lower())
    )
    return found if isinstance(found, discord.TextChannel) else None


def _role_named(guild: discord.Guild, text: str) -> discord.Role | None:
    match = _ROLE.match(text)
    return guild.get_role(int(match.group(1))) if match else discord.utils.get(guild.roles, name=text.lstrip("@"))


Plan = dict[ChannelRole, tuple[discord.TextChannel | None, str]]


def plan_setup(guild: discord.Guild, config: GuildConfig, chosen: dict[ChannelRole, discord.TextChannel]) -> Plan | str:
    """Each role's channel after ``!setup``, and how it was decided; a string says why it cannot be done.

    A channel given now wins; else a chosen channel that still exists is kept; else the channel
    named after the role is found and bound (by id, so renaming it later changes nothing). No
    channel plays two roles.
    """
    plan: Plan = {}
    taken: dict[int, ChannelRole] = {}
    for role, channel in chosen.items():
        if channel.id in taken:
            return f"{channel.mention} cannot be both #{taken[channel.id].value} and #{role.value}"
        taken[channel.id] = role
        plan[role] = (channel, "chosen now")
    for role in ROLES:
        bound = config.channels.get(role)
        if role in plan or bound is None:
            continue
        kept = guild.get_channel(bound)
        if not isinstance(kept, discord.TextChannel):
            continue
        if kept.id in taken:
            return (
                f"{kept.mention} plays #{role.value} now; choose another channel for #{role.value} in the same"
                f" command, e.g. `{role.value} #channel`"
            )
        taken[kept.id] = role
        plan[role] = (kept, "kept")
    for role in ROLES:
        if role in plan:
            continue
        named = discord.utils.get(guild.text_channels, name=role.value)
        if named is not None and named.id not in taken:
            taken[named.id] = role
            plan[role] = (named, "found by name")
        elif named is not None:
            plan[role] = (None, f"#{role.value} plays #{taken[named.id].value}")
        else:
            plan[role] = (None, "none")
    return plan


def setup_report(
    guild: discord.Guild, config: GuildConfig, how: dict[ChannelRole, str], from_settings: str | None
) -> str:
    """Each role's channel and what the bot lacks there, with what that breaks; then the moderators."""
    me = guild.me
    lines: list[str] = []
    problems = 0
    optional: dict[str, tuple[Need, list[str]]] = {}
    for role in ROLES:
        channel = config.channel_for(guild, role)
        if channel is None:
            problems += 1
            lost = config.lost_channel(guild, role)
            why = "the channel chosen for it is gone" if lost is not None else how.get(role, "none")
            why = "no channel" if why == "none" else why
            lines.append(
                f"**#{role.value}**: {why}. Create a text channel named `{role.value}`, or choose one:"
                f" `/setup server {role.value}:#channel` (`!setup {role.value} #channel`)."
            )
            continue
        lacks: list[Lack] = lacking(channel, me, role) if me is not None else []
        needed = [lack for lack in lacks if not lack.need.optional]
        for lack in lacks:
            if lack.need.optional:
                optional.setdefault(lack.need.flag, (lack.need, []))[1].append(channel.mention)
        label = f"**#{role.value}** → {channel.mention} ({how.get(role, 'found by name')})"
        if not needed:
            lines.append(f"{label}: ✅ I have what I need there.")
            continue
        problems += len(needed)
        lines.append(f"{label}: I lack")
        lines.extend(f"- {lack.text}" for lack in needed)
    log_channel = config.channel_for(guild, ChannelRole.MOD_LOG)
    if log_channel is not None:
        lines.append(f"**#mod-log** → {log_channel.mention}: I post the moderators' log there.")
    else:
        lines.append(
            "**#mod-log** (optional): none chosen; `/setup channel mod-log #channel` has me post the moderators' log"
            " there (`!admin log` shows it anywhere)."
        )
    board_channel = config.channel_for(guild, ChannelRole.BOARD)
    if board_channel is not None:
        lines.append(f"**#board** → {board_channel.mention}: I keep the lot board there, edited as bids come in.")
    else:
        lines.append(
            "**#board** (optional): none chosen; the lot board is pinned in #auctions. `/setup channel board #channel`"
            " keeps it in a channel of its own."
        )
    moderator = guild.get_role(config.moderator_role) if config.moderator_role else None
    who = f"moderator role: {moderator.name}" if moderator is not None else "moderator role: none"
    lines.append(f"{who} (members with Manage Server are moderators too)")
    if from_settings:
        lines.append(f"from the settings: members with the {from_settings} role")
    for need, where in optional.values():
        lines.append(f"Optional, {need.name} (lacking in {', '.join(where)}): {next(iter(need.breaks.values()))}.")
    if problems:
        lines.append(
            f"{problems} thing{'s' if problems > 1 else ''} to fix: give me those permissions in each channel's"
            " settings (Edit Channel → Permissions), or choose other channels; then `/setup show` checks again."
        )
    else:
        lines.append("Everything the round needs is in place.")
    return "\n".join(lines)


async def setup(bot: NomicBot) -> None:
    await bot.add_cog(Admin(bot))
