"""What every cog shares: the command-word class and how an answer is shown on Discord.

A command word is a hybrid command. Its slash form has typed options (with autocomplete) from
which the handler writes the command's text; its prefix form does not let discord.py parse
anything and hands the handler the message as typed. Either way the handler ends in
``NomicBot.run_command(ctx, text)``: ``games.nomic.commands.parse`` and ``Router.run``, the same
call the simulator makes, so ``!bid x 5`` and ``/bid lot:x amount:5`` get the same words.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Coroutine, Iterable
from typing import TYPE_CHECKING, Any

import discord
from discord.ext import commands

from bot.discord.io import chunks, command_text, dms_closed
from bot.discord.render import embeds
from bot.router import Post
from games.nomic import commands as words
from games.nomic.actions import (
    Action,
    PlaceBid,
    SetNotice,
    ShowHelp,
    ShowInventory,
    ShowLots,
    ShowNotices,
    ShowPhase,
    ShowPlacements,
    ShowProposals,
    ShowRuleset,
    ShowRulesetDiff,
    ShowRulesetHistory,
    ShowRulings,
)
from games.nomic.context import ChannelRole, Context

if TYPE_CHECKING:
    from bot.discord.app import NomicBot

    Ctx = commands.Context[NomicBot]
else:
    Ctx = commands.Context

Callback = Callable[..., Coroutine[Any, Any, None]]


def raw_prefix(command: commands.Command[Any, ..., Any], ctx: commands.Context[Any]) -> bool:
    """A prefix command's arguments, not converted by discord.py (its errors would not be ours): the
    handler's options are None and it passes the message itself to the grammar. False for a slash
    command, whose typed options discord.py reads."""
    if ctx.interaction is not None:
        return False
    ctx.args = [ctx] if command.cog is None else [command.cog, ctx]
    ctx.kwargs = dict.fromkeys(command.clean_params)
    return True


class WordCommand(commands.HybridCommand[Any, ..., None]):
    """A hybrid command whose prefix form reads the raw message (through the shared grammar)."""

    async def _parse_arguments(self, ctx: commands.Context[Any]) -> None:
        if not raw_prefix(self, ctx):
            await super()._parse_arguments(ctx)


def aliases_of(name: str) -> list[str]:
    return sorted(alias for alias, word in words.ALIASES.items() if word == name)


def summary(name: str) -> str:
    return words.COMMANDS_BY_NAME[name].summary


TAKEN_ALIASES = frozenset({"rules"})
"""Aliases of the round's grammar that are commands of their own on Discord: ``!rules`` is the
thread games' command (``!rules GAME``), whose text without a game still reaches the round's ruleset."""


def word(name: str, *, description: str | None = None) -> Callable[[Callback], WordCommand]:
    """A command word: the round's are described by their line in ``COMMAND_WORDS``."""

    def decorate(func: Callback) -> WordCommand:
        aliases = [a for a in aliases_of(name) if a not in TAKEN_ALIASES]
        return WordCommand(func, name=name, description=description or summary(name), aliases=aliases)

    return decorate


class WordGroup(commands.HybridGroup[Any, ..., None]):
    """A command word with subcommands (``!ruleset history``): as ``WordCommand``, its prefix form reads
    the raw message; its slash form is the ``fallback`` subcommand with typed options."""

    async def _parse_arguments(self, ctx: commands.Context[Any]) -> None:
        if not raw_prefix(self, ctx):
            await super()._parse_arguments(ctx)


def word_group(name: str, *, fallback: str) -> Callable[[Callback], WordGroup]:
    """A command word whose slash form has subcommands; ``/NAME FALLBACK`` is the word alone."""

    def decorate(func: Callback) -> WordGroup:
        aliases = [a for a in aliases_of(name) if a not in TAKEN_ALIASES]
        return WordGroup(
            func,
            name=name,
            description=summary(name),
            aliases=aliases,
            invoke_without_command=True,
            case_insensitive=True,
            fallback=fallback,
        )

    return decorate


def group(name: str, description: str) -> Callable[[Callback], commands.HybridGroup[Any, ..., None]]:
    """A hybrid group (``!admin``, ``/setup``); typed without subcommand is answered by its callback."""

    def decorate(func: Callback) -> commands.HybridGroup[Any, ..., None]:
        return commands.HybridGroup(
            func, name=name, description=description, invoke_without_command=True, case_insensitive=True
        )

    return decorate


def sub(group: commands.HybridGroup[Any, ..., Any], name: str, description: str) -> Callable[[Callback], WordCommand]:
    """A subcommand of a hybrid group (``!admin give``, ``/setup channel``)."""

    def decorate(func: Callback) -> WordCommand:
        command = WordCommand(func, name=name, description=description, parent=group)
        group.add_command(command)
        return command

    return decorate


async def perform(ctx: Ctx, slash_text: str) -> None:
    """The end of every command word: the typed text (prefix) or the text built from options (slash)."""
    bot = ctx.bot
    typed = ctx.interaction is None
    await bot.run_command(ctx, command_text(ctx.message.content, bot.settings.command_prefix) if typed else slash_text)


def option(value: object) -> str:
    """A slash option as command text: members as mentions, nothing as nothing."""
    if value is None:
        return ""
    if isinstance(value, discord.abc.User):
        return value.mention
    return str(value).strip()


def line(*parts: object) -> str:
    return " ".join(p for p in (option(v) for v in parts) if p)


# -- answers --


async def reply(ctx: Ctx, text: str, *, ephemeral: bool = False) -> None:
    for part in chunks(text):
        await ctx.reply(part, ephemeral=ephemeral, mention_author=False)


async def reply_embeds(ctx: Ctx, embed_list: Iterable[discord.Embed], *, ephemeral: bool = False) -> None:
    for group in embeds.pack(embed_list):
        await ctx.reply(embeds=group, ephemeral=ephemeral, mention_author=False)


async def present(ctx: Ctx, context: Context, action: Action | None, posts: list[Post]) -> None:
    """Show the router's answer the way Discord shows things best, with the router's words."""
    bot = ctx.bot
    guild = ctx.guild
    if guild is None:
        return
    config = await bot.config(guild.id)
    slash = ctx.interaction is not None
    if not posts:
        if slash:  # a redelivered prefix message gets no second answer; an interaction must get one
            await reply(ctx, "That was done already.", ephemeral=True)
        return
    channel, member = ctx.channel, ctx.author
    if isinstance(action, PlaceBid) and posts[0].private:
        await _sealed_bid(ctx, posts)
        return
    if (
        isinstance(action, PlaceBid)
        and not slash
        and context.channel is ChannelRole.AUCTIONS
        and isinstance(channel, discord.TextChannel)
        and isinstance(member, discord.Member)
    ):
        # prefix bids in #auctions are answered together, in the channel's one "bids received" message
        answer = config.localize(posts[0].text, guild) if posts[0].error else None
        bot.receipts.add(channel, member, action.lot, action.amount, answer)
        if answer is None:
            bot.board.request(guild, channel)
            await bot.deliver(guild, [p for p in posts[1:] if p.to or p.channel is not None])
        return
    if posts[0].error:
        texts = [config.localize(post.text, guild) for post in posts]
        if slash:  # an answer only the member sees carries what was held for them
            await _with_held(ctx, texts)
        for text in texts:
            await reply(ctx, text, ephemeral=True)
        return
    show = _PRESENTERS.get(type(action)) if action is not None else None
    text = config.localize(posts[0].text, guild)
    if show is not None:
        await show(ctx, context, action, text)
        # what the command tells others (an outbid player) or posts elsewhere
        await bot.deliver(guild, [p for p in posts[1:] if p.to or p.channel is not None])
        return
    for post in posts:
        if post.to or post.channel is not None:
            await bot.deliver(guild, [post])
        elif post.private:
            await _private(ctx, embed=discord.Embed(description=config.localize(post.text, guild)), hand=None)
        else:
            await reply(ctx, config.localize(post.text, guild))


async def _sealed_bid(ctx: Ctx, posts: list[Post]) -> None:
    """A bid while bids are sealed: its answer is the bidder's alone (ephemeral for ``/bid``; a bid typed in a
    channel is removed and refused by DM), its hash line goes to #auctions and the lot board follows."""
    bot, guild = ctx.bot, ctx.guild
    if guild is None:
        return
    if ctx.interaction is None:
        await bot.sealed.refuse_typed(ctx.message, posts[0].text)
        return
    answer = (await bot.config(guild.id)).localize(posts[0].text, guild)
    if posts[0].error:
        texts = [answer]
        await _with_held(ctx, texts)
        await reply(ctx, texts[0], ephemeral=True)
        return
    await _private(ctx, embed=discord.Embed(description=answer), hand=None)
    await bot.deliver(guild, [p for p in posts[1:] if p.to or p.channel is not None])
    await bot.sealed.board(guild)


async def _with_held(ctx: Ctx, texts: list[str]) -> None:
    """Add to the last of ``texts`` (an answer only the member sees) what was held for them while
    their DMs were closed, and forget it: it has reached them."""
    if ctx.guild is None:
        return
    held, last = await ctx.bot.held(ctx.guild, str(ctx.author.id))
    if last is None:
        return
    texts[-1] = f"{texts[-1]}\n\n{held}"
    await ctx.bot.db.drop_held(str(ctx.guild.id), str(ctx.author.id), through=last)


async def _state(ctx: Ctx) -> Any:
    return await ctx.bot.service.state(str(ctx.guild.id if ctx.guild else 0))


async def _bid(ctx: Ctx, context: Context, action: Any, text: str) -> None:
    """A slash bid is answered by its interaction (no channel's message budget); the board follows soon.
    (Prefix bids in a channel are answered together: ``bot.discord.receipts``.)"""
    await reply(ctx, text)
    channel = ctx.channel if isinstance(ctx.channel, discord.TextChannel) else None
    if channel is not None:
        ctx.bot.board.request(channel.guild, channel)


async def _lots(ctx: Ctx, context: Context, action: Any, text: str) -> None:
    state = await _state(ctx)
    embed, picture = embeds.board(state, text, context.at)
    await ctx.reply(embed=embed, file=picture, mention_author=False)


async def _phase(ctx: Ctx, context: Context, action: Any, text: str) -> None:
    await ctx.reply(embed=embeds.phase(await _state(ctx), text, context.at), mention_author=False)


async def _ruleset(ctx: Ctx, context: Context, action: Any, text: str) -> None:
    await reply_embeds(ctx, embeds.text_embeds("The ruleset", text, embeds.GREY))


async def _proposals(ctx: Ctx, context: Context, action: Any, text: str) -> None:
    await reply_embeds(ctx, embeds.proposals(await _state(ctx), text))


async def _rulings(ctx: Ctx, context: Context, action: Any, text: str) -> None:
    await reply_embeds(ctx, embeds.rulings(await _state(ctx), text))


async def _placements(ctx: Ctx, context: Context, action: Any, text: str) -> None:
    await reply_embeds(ctx, embeds.text_embeds("Placements", text, embeds.BLUE))


HELP_SLASH = "Every command also works as a slash command: type `/` and pick it."
HELP_BID = (
    "Bidding: `/bid` is answered at once (a refused bid only you see); `!bid` is answered every few seconds in"
    " the channel's one *Bids received* message, with everyone's bids. While bids are sealed, bid by DM to me"
    " (`!bid LOT AMOUNT`) or with `/bid`: a `!bid` typed in a channel is removed, and #auctions shows only a hash"
    " of each bid until they all open."
)
HELP_MODERATORS = (
    "Moderators: `!setup` (`/setup server`) binds the round's channels in one step and reports what I lack "
    "in each; `/setup channel ROLE #channel` binds a channel to a role (auctions, game-actions, proposals, "
    "judge-elections, and mod-log, where I post the moderators' log), `/setup moderator-role @role` names the "
    "moderator role, `/setup show` reports both; `!admin log [N]` shows the latest changes moderators made; "
    "`!admin todo` lists what passed proposals ask that the bot does not enforce (`!admin done N` closes one); "
    "`/ruleset import` puts this server's own ruleset document in force; "
    "`!admin sync` registers the slash commands in this server."
)


async def _help(ctx: Ctx, context: Context, action: Any, text: str) -> None:
    lines = [text, "", HELP_SLASH, HELP_BID]
    if context.is_moderator:
        lines.append(HELP_MODERATORS)
    title = f"What you can do in #{getattr(ctx.channel, 'name', None) or 'this channel'}"
    await reply_embeds(ctx, embeds.text_embeds(title, "\n".join(lines)), ephemeral=ctx.interaction is not None)


async def _notices(ctx: Ctx, context: Context, action: Any, text: str) -> None:
    """A member's own notice settings: only they see the slash form's answer (with anything held for them)."""
    if ctx.interaction is None:
        await reply(ctx, text)
        return
    texts = [text]
    await _with_held(ctx, texts)
    await reply(ctx, texts[0], ephemeral=True)


async def _inventory(ctx: Ctx, context: Context, action: Any, text: str) -> None:
    """Your own cards only where only you see them; another player's holdings without their cards."""
    state = await _state(ctx)
    target = action.target or context.actor
    player = state.players[target]
    if target != context.actor:
        await ctx.reply(embed=embeds.public_inventory(player), mention_author=False)
        return
    await _private(ctx, embed=None, hand=(text, player))


async def _private(ctx: Ctx, *, embed: discord.Embed | None, hand: tuple[str, Any] | None) -> None:
    """Ephemeral for a slash command; a DM for a prefix command, and if DMs are closed, a note."""
    if hand is not None:
        shown, picture = embeds.inventory(hand[0], tuple(hand[1].cards))
    else:
        shown, picture = embed or discord.Embed(), None
    guild = ctx.guild
    held, last = await ctx.bot.held(guild, str(ctx.author.id)) if guild is not None else ("", None)
    content = held[: embeds.MESSAGE_LIMIT] or None
    if ctx.interaction is not None:
        if picture is not None:
            await ctx.send(content, embed=shown, file=picture, ephemeral=True)
        else:
            await ctx.send(content, embed=shown, ephemeral=True)
        await _drop_held(ctx, last)
        return
    try:
        if picture is not None:
            await ctx.author.send(content, embed=shown, file=picture)
        else:
            await ctx.author.send(content, embed=shown)
    except discord.HTTPException as exc:
        why = "your DMs are closed to me" if dms_closed(exc) else "Discord would not deliver it"
        hidden = (
            f", so your cards are not shown here. You have {embeds.holdings_without_cards(hand[1])}."
            if hand is not None
            else "."
        )
        await reply(
            ctx,
            f"I could not send you that in a DM ({why}){hidden} Allow direct messages from this server's members "
            "(server menu → Privacy Settings) and ask again, or use the slash command: only you see its answer.",
        )
        return
    await _drop_held(ctx, last)
    await reply(ctx, "I sent you the answer in a DM.")


async def _drop_held(ctx: Ctx, last: int | None) -> None:
    if last is not None and ctx.guild is not None:
        await ctx.bot.db.drop_held(str(ctx.guild.id), str(ctx.author.id), through=last)


_PRESENTERS: dict[type, Callable[[Ctx, Context, Any, str], Awaitable[None]]] = {
    PlaceBid: _bid,
    ShowLots: _lots,
    ShowPhase: _phase,
    ShowRuleset: _ruleset,
    ShowRulesetHistory: _ruleset,
    ShowRulesetDiff: _ruleset,
    ShowProposals: _proposals,
    ShowRulings: _rulings,
    ShowPlacements: _placements,
    ShowHelp: _help,
    ShowInventory: _inventory,
    ShowNotices: _notices,
    SetNotice: _notices,
}
