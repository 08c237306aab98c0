"""The card library on Discord: ``!card``/``/card``, ``!guild``/``/guild``, card pictures and buttons.

One path: a prefix command, a slash command, a button and a form all become command text
(``!card approve #12 v2``) and end in ``Router.library_command``, the call the simulator makes for
the same line. ``CardDesk`` shows what the library says: a card with its picture (and its Approve /
Reject / Comment buttons while it waits for approval), a draft or a play deck only to its owner
(ephemeral, or by DM for a prefix command), what a guild decided also by DM to the card's maker.
"""

from __future__ import annotations

import io
import logging
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Literal

import discord
from discord import app_commands
from discord.ext import commands

from bot.discord.card_ui import CardButton, CardForm, card_choices, review_view
from bot.discord.cogs.base import Callback, Ctx, WordCommand, line, perform
from bot.discord.io import Origin, chunks, dms_closed, resolver
from bot.discord.render import embeds
from bot.router import Post
from games.ictc.cards import CardType
from games.ictc.picture import render_card
from games.ictc.words import is_library_command
from games.nomic.context import ChannelRole

if TYPE_CHECKING:
    from bot.discord.app import NomicBot

log = logging.getLogger(__name__)

PICTURE_FILE = "card.png"
SORRY = "Sorry, something went wrong on my side while doing that. Please try again in a moment."


class CardDesk:
    """The Discord side of the card library: answers, pictures, buttons; no rule lives here."""

    def __init__(self, bot: NomicBot) -> None:
        self.bot = bot

    async def run(self, ctx: Ctx, text: str) -> bool:
        """A command's text, if the library answers it (else False); one path with the simulator."""
        guild = ctx.guild
        if guild is None or not is_library_command(text) or self.bot.library is None:
            return False
        config = await self.bot.config(guild.id)
        event = f"int:{ctx.interaction.id}" if ctx.interaction is not None else f"msg:{ctx.message.id}"
        context = self.bot.context(ctx.author, ctx.channel, config, event)
        posts = await self.bot.router.library_command(str(guild.id), context, text, resolver(guild))
        origin = Origin(guild, ctx.channel, ctx.author, None if ctx.interaction else ctx.message, ctx.interaction)
        await self.answer(origin, posts or [])
        await self.bot.rearm(guild)
        return True

    async def direct(self, message: discord.Message, text: str) -> bool:
        """A card command sent to the bot by DM (a draft nobody else reads), for the one server the member
        shares with the bot; False when it is not a card command."""
        if not is_library_command(text) or self.bot.library is None:
            return False
        shared = [g for g in self.bot.guilds if g.get_member(message.author.id) is not None]
        if len(shared) != 1:
            await message.channel.send(
                "I cannot tell which server's card library you mean"
                + (": we share several. " if shared else ". ")
                + "Use `/card new` there: only you see its form and its answer."
            )
            return True
        guild = shared[0]
        await self.bot.ensure_round(guild)
        config = await self.bot.config(guild.id)
        context = self.bot.context(message.author, message.channel, config, f"msg:{message.id}")
        posts = await self.bot.router.message(str(guild.id), context, text, resolver(guild), dm=True)
        for post in posts:
            if post.channel is not None or post.to:
                await self.deliver(guild, [post])
            else:
                kwargs = await self._message(guild, post)
                kwargs.pop("view", None)
                await message.channel.send(**kwargs)
        await self.bot.rearm(guild)
        return True

    async def click(self, interaction: discord.Interaction[Any], guild_id: int, text: str) -> None:
        """A button or a form: its command text, down the same path as typed text."""
        try:
            guild = interaction.guild
            if guild is None or guild.id != guild_id:
                await interaction.response.send_message("That control belongs to another server.", ephemeral=True)
                return
            await self.bot.ensure_round(guild)
            config = await self.bot.config(guild.id)
            context = self.bot.context(interaction.user, interaction.channel, config, f"int:{interaction.id}")
            posts = await self.bot.router.library_command(str(guild.id), context, text, resolver(guild))
            await self.answer(
                Origin(guild, interaction.channel, interaction.user, interaction=interaction), posts or []
            )
            await self.bot.rearm(guild)
        except Exception:
            log.exception("the card control %r failed", text)
            if interaction.response.is_done():
                await interaction.followup.send(SORRY, ephemeral=True)
            else:
                await interaction.response.send_message(SORRY, ephemeral=True)

    # -- showing posts --

    async def answer(self, origin: Origin, posts: list[Post]) -> None:
        if not posts:
            if origin.interaction is not None:  # a redelivered prefix message gets no second answer
                await origin.say(ephemeral=True, content="That was done already.")
            return
        for post in posts:
            if post.to:
                await self._to_members(origin.guild, post, origin)
            elif post.private:
                await self._private(origin, post)
            elif post.error:
                for part in chunks(post.text):
                    await origin.say(ephemeral=True, content=part)
            else:
                await origin.say(**await self._message(origin.guild, post))

    async def deliver(self, guild: discord.Guild, posts: list[Post]) -> None:
        """Announcements (a guild's vote counted): in their channel, or by DM to the members named."""
        config = await self.bot.config(guild.id)
        for post in posts:
            if post.to:
                await self._to_members(guild, post, None)
                continue
            channel = config.channel_for(guild, post.channel or ChannelRole.GAME_ACTIONS)
            if channel is None:
                log.warning("guild %s: nowhere to post a card announcement: %s", guild.id, post.text[:80])
                continue
            try:
                await channel.send(**await self._message(guild, post))
            except discord.HTTPException:
                log.exception("guild %s: could not post a card announcement", guild.id)

    async def _message(self, guild: discord.Guild, post: Post) -> dict[str, Any]:
        """A post as one message: an embed with the words, the card's picture, its buttons."""
        embed = discord.Embed(description=post.text[: embeds.DESCRIPTION_LIMIT], colour=embeds.GOLD)
        kwargs: dict[str, Any] = {"embed": embed}
        picture = await self._picture(guild, post)
        if picture is not None:
            embed.set_image(url=f"attachment://{PICTURE_FILE}")
            kwargs["file"] = discord.File(io.BytesIO(picture), filename=PICTURE_FILE)
        if post.review and post.card is not None:
            kwargs["view"] = review_view(guild.id, *post.card)
        return kwargs

    async def _picture(self, guild: discord.Guild, post: Post) -> bytes | None:
        library = self.bot.library
        if post.card is None or library is None:
            return None
        state = await library.state(str(guild.id))
        design = state.designs.get(post.card[0])
        version = design.version(post.card[1]) if design is not None else None
        if design is None or version is None:
            return None
        return render_card(design, version, state.name_of, approvals_needed=state.options.approvals_needed)

    async def _private(self, origin: Origin, post: Post) -> None:
        """A draft, a deck, a hand of copies, a refusal that names a draft: only its member sees it
        (ephemeral, or by DM)."""
        if post.error:
            messages: list[dict[str, Any]] = [{"content": part} for part in chunks(post.text)]
        else:
            kwargs = await self._message(origin.guild, post)
            kwargs.pop("view", None)
            kwargs["embed"].set_footer(text="Only you can see this.")
            messages = [kwargs]
        if origin.interaction is not None:
            for kwargs in messages:
                await origin.say(ephemeral=True, **kwargs)
            return
        try:
            for kwargs in messages:
                await origin.user.send(**kwargs)
        except discord.HTTPException as exc:
            why = "your DMs are closed to me" if dms_closed(exc) else "Discord would not deliver it"
            await origin.say(
                content=(
                    f"I could not send you the answer in a DM ({why}), and it is only for you. Use the slash"
                    " command (`/card ...`): only you see its answer."
                ),
            )
            return
        await origin.say(content="I sent you the answer in a DM.")

    async def _to_members(self, guild: discord.Guild, post: Post, origin: Origin | None) -> None:
        for member_id in post.to:
            if origin is not None and origin.interaction is not None and str(origin.user.id) == member_id:
                await origin.say(ephemeral=True, content=post.text[:2000])
                continue
            member = guild.get_member(int(member_id)) if member_id.isdigit() else None
            if member is None:
                continue
            try:
                for part in chunks(post.text):
                    await member.send(content=part)
            except discord.HTTPException:
                log.info("could not DM a card library message to %s", member_id)


# --- the commands -------------------------------------------------------------------------------


def _group(
    name: str, description: str, aliases: list[str]
) -> Callable[[Callback], commands.HybridGroup[Any, ..., None]]:
    def decorate(func: Callback) -> commands.HybridGroup[Any, ..., None]:
        return commands.HybridGroup(
            func,
            name=name,
            description=description,
            aliases=aliases,
            invoke_without_command=True,
            case_insensitive=True,
        )

    return decorate


def _sub(group: commands.HybridGroup[Any, ..., Any], name: str, description: str) -> Callable[[Callback], WordCommand]:
    def decorate(func: Callback) -> WordCommand:
        command = WordCommand(func, name=name, description=description, parent=group)
        group.add_command(command)
        return command

    return decorate


TypeName = Literal["soldier", "action", "flash", "power"]


def _challenge_word(func: Callback) -> WordCommand:
    return WordCommand(
        func, name="challenge", description="challenge a member to an ICTC battle, or answer a challenge"
    )


class Cards(commands.Cog):
    """The card library: make cards, approve them, mint copies, build play decks; guilds."""

    def __init__(self, bot: NomicBot) -> None:
        self.bot = bot

    async def cog_load(self) -> None:
        self.bot.add_dynamic_items(CardButton)

    async def cog_unload(self) -> None:
        self.bot.remove_dynamic_items(CardButton)

    @_group("card", "the card library: make, approve, mint and collect cards", ["cards"])
    async def card(self, ctx: Ctx) -> None:
        await perform(ctx, "!card help")

    @_sub(card, "new", "make a card: a form asks its fields (a private draft until you submit it)")
    @app_commands.describe(kind="the card's type")
    async def card_new(self, ctx: Ctx, kind: TypeName = "soldier") -> None:
        if ctx.interaction is not None and ctx.guild is not None:
            await ctx.interaction.response.send_modal(CardForm(ctx.guild.id, CardType(kind)))
            return
        await perform(ctx, "")

    @_sub(card, "show", "a card with its picture")
    @app_commands.describe(card="the card: its name or #number", version="an earlier version, e.g. 1")
    async def card_show(self, ctx: Ctx, card: str, version: int | None = None) -> None:
        await perform(ctx, line("!card show", card, f"v{version}" if version else None))

    @_sub(card, "history", "a card's versions")
    @app_commands.describe(card="the card: its name or #number")
    async def card_history(self, ctx: Ctx, card: str) -> None:
        await perform(ctx, line("!card history", card))

    @_sub(card, "edit", "change your card: a new version (its approvals start over)")
    @app_commands.describe(card="your card", changes="e.g. cost: 2R+1 | cr: 3 | text: ...")
    async def card_edit(self, ctx: Ctx, card: str, changes: str) -> None:
        await perform(ctx, f"!card edit {card} | {changes}")

    @_sub(card, "protect", "protect your draft (up to 3); `undo` unprotects, for good")
    @app_commands.describe(card="your draft", undo="unprotect it instead (for good)")
    async def card_protect(self, ctx: Ctx, card: str, undo: bool = False) -> None:
        await perform(ctx, line("!card unprotect" if undo else "!card protect", card))

    @_sub(card, "submit", "show your draft to everyone for approval, or to a guild")
    @app_commands.describe(card="your draft", guild="a guild to review it (optional)")
    async def card_submit(self, ctx: Ctx, card: str, guild: str | None = None) -> None:
        await perform(ctx, line("!card submit", card, f"guild:{guild}" if guild else None))

    @_sub(card, "ask", "ask a guild to review your card")
    @app_commands.describe(card="your card", guild="the guild to review it")
    async def card_ask(self, ctx: Ctx, card: str, guild: str) -> None:
        await perform(ctx, line("!card ask", card, f"guild:{guild}"))

    @_sub(card, "approve", "approve another member's card")
    @app_commands.describe(card="the card: its name or #number")
    async def card_approve(self, ctx: Ctx, card: str) -> None:
        await perform(ctx, line("!card approve", card))

    @_sub(card, "reject", "reject another member's card, saying why")
    @app_commands.describe(card="the card: its name or #number", why="what is wrong with it (optional)")
    async def card_reject(self, ctx: Ctx, card: str, why: str | None = None) -> None:
        await perform(ctx, f"!card reject {card}" + (f": {why}" if why else ""))

    @_sub(card, "comment", "comment on a card")
    @app_commands.describe(card="the card: its name or #number", text="your comment")
    async def card_comment(self, ctx: Ctx, card: str, text: str) -> None:
        await perform(ctx, f"!card comment {card}: {text}")

    @_sub(card, "mint", "mint copies of your approved card")
    @app_commands.describe(card="your approved card", count="how many copies (1 to 30)")
    async def card_mint(self, ctx: Ctx, card: str, count: app_commands.Range[int, 1, 30] = 1) -> None:
        await perform(ctx, line("!card mint", card, f"x{count}"))

    @_sub(card, "list", "the library's cards (or: pending, mine, starter)")
    @app_commands.describe(which="all cards, those waiting for approval, yours, or the starter set")
    async def card_list(self, ctx: Ctx, which: Literal["all", "pending", "mine", "starter"] = "all") -> None:
        await perform(ctx, line("!card list", None if which == "all" else which))

    @_sub(card, "master", "a member's master deck: their designs with approvals")
    @app_commands.describe(member="whose master deck (you, if left out)")
    async def card_master(self, ctx: Ctx, member: discord.Member | None = None) -> None:
        await perform(ctx, line("!card master", member))

    @_sub(card, "copies", "the card copies a member owns")
    @app_commands.describe(member="whose copies (you, if left out)")
    async def card_copies(self, ctx: Ctx, member: discord.Member | None = None) -> None:
        await perform(ctx, line("!card copies", member))

    @_sub(card, "deck", "your play decks: save, show, delete, list")
    @app_commands.describe(action="what to do", name="the deck", cards="save: CARD xN, CARD xN, copy:N ...")
    async def card_deck(
        self,
        ctx: Ctx,
        action: Literal["list", "save", "show", "delete"] = "list",
        name: str | None = None,
        cards: str | None = None,
    ) -> None:
        if action == "save":
            await perform(ctx, f"!card deck save {name or ''}: {cards or ''}")
        else:
            await perform(ctx, line("!card deck", action, name))

    @_sub(card, "starter", "the starter decks; claim one")
    @app_commands.describe(deck="the starter deck to claim (left out: the list)")
    async def card_starter(self, ctx: Ctx, deck: str | None = None) -> None:
        await perform(ctx, line("!card starter", deck))

    @_sub(card, "meet", "before a first battle: see a member's master deck and your exclusions")
    @app_commands.describe(member="the member you will battle")
    async def card_meet(self, ctx: Ctx, member: discord.Member) -> None:
        await perform(ctx, line("!card meet", member))

    @_sub(card, "exclude", "exclude a member's design from your first battle (`undo` lets it back)")
    @app_commands.describe(member="the member you will battle", card="their design", undo="let it back in")
    async def card_exclude(self, ctx: Ctx, member: discord.Member, card: str, undo: bool = False) -> None:
        await perform(ctx, line("!card include" if undo else "!card exclude", member, card))

    @_sub(card, "keyword", "the keywords; with a name and text, define a new one")
    @app_commands.describe(name="a new keyword (left out: the glossary)", text="what it means")
    async def card_keyword(self, ctx: Ctx, name: str | None = None, text: str | None = None) -> None:
        await perform(ctx, f"!card keyword {name}: {text or ''}" if name else "!card keywords")

    @_sub(card, "contest", "say a card comes too close to your protected design")
    @app_commands.describe(card="the card: its name or #number", why="why it copies your protected design (optional)")
    async def card_contest(self, ctx: Ctx, card: str, why: str | None = None) -> None:
        await perform(ctx, f"!card contest {card}" + (f": {why}" if why else ""))

    @_sub(card, "options", "the card library's options (moderators: set one)")
    @app_commands.describe(name="moderators: the option to change", value="its new value")
    async def card_options(self, ctx: Ctx, name: str | None = None, value: str | None = None) -> None:
        await perform(ctx, line("!card option", name, value) if name else "!card options")

    @_sub(card, "decide", "moderators: decide a contest (the open ones without a number)")
    @app_commands.describe(
        number="the contest", ruling="uphold blocks the card; dismiss lets it stand", note="a note (optional)"
    )
    async def card_decide(
        self,
        ctx: Ctx,
        number: int | None = None,
        ruling: Literal["uphold", "dismiss"] | None = None,
        note: str | None = None,
    ) -> None:
        await perform(ctx, line("!card decide", number, ruling, note) if number else "!card contests")

    @card_show.autocomplete("card")
    @card_history.autocomplete("card")
    @card_edit.autocomplete("card")
    @card_protect.autocomplete("card")
    @card_submit.autocomplete("card")
    @card_ask.autocomplete("card")
    @card_approve.autocomplete("card")
    @card_reject.autocomplete("card")
    @card_comment.autocomplete("card")
    @card_mint.autocomplete("card")
    @card_exclude.autocomplete("card")
    @card_contest.autocomplete("card")
    async def card_names(
        self, interaction: discord.Interaction[discord.Client], current: str
    ) -> list[app_commands.Choice[str]]:
        library = self.bot.library
        if library is None or interaction.guild_id is None:
            return []
        state = await library.state(str(interaction.guild_id))
        return card_choices(state, str(interaction.user.id), current)

    @_challenge_word
    @app_commands.describe(
        member="the member to challenge",
        deck="your play deck (left out: your only playable one)",
        ante="the winner takes the kitty, the cards turned over to decide who goes first (default on)",
        answer="answer a challenge instead: accept one made to you (with deck), decline it, or withdraw yours",
    )
    async def challenge(
        self,
        ctx: Ctx,
        member: discord.Member | None = None,
        deck: str | None = None,
        ante: bool = True,
        answer: Literal["accept", "decline", "withdraw", "list"] | None = None,
    ) -> None:
        if answer is not None:
            text = line("!challenge", answer, f"deck:{deck}" if deck and answer == "accept" else None)
        else:
            text = line("!challenge", member, f"ante:{'on' if ante else 'off'}", f"deck:{deck}" if deck else None)
        await perform(ctx, text)

    @_group("guild", "card guilds: members who approve cards together", ["guilds"])
    async def guild(self, ctx: Ctx) -> None:
        await perform(ctx, "!guild list")

    @_sub(guild, "create", "found a guild (you are its first officer)")
    @app_commands.describe(
        name="the guild's name",
        mode="vote: members vote until a deadline; committee: any k officers approve",
        quorum="vote: the fewest votes that decide",
        hours="vote: how long a vote runs",
        committee="committee: how many officers must approve",
    )
    async def guild_create(  # noqa: PLR0917 (the slash form's options)
        self,
        ctx: Ctx,
        name: str,
        mode: Literal["vote", "committee"] = "vote",
        quorum: app_commands.Range[int, 1, 50] | None = None,
        hours: app_commands.Range[int, 1, 720] | None = None,
        committee: app_commands.Range[int, 1, 10] | None = None,
    ) -> None:
        settings = [f"{k}:{v}" for k, v in (("quorum", quorum), ("hours", hours), ("committee", committee)) if v]
        await perform(ctx, line("!guild create", name, mode, *settings))

    @_sub(guild, "join", "join a guild")
    @app_commands.describe(name="the guild")
    async def guild_join(self, ctx: Ctx, name: str) -> None:
        await perform(ctx, line("!guild join", name))

    @_sub(guild, "leave", "leave a guild")
    @app_commands.describe(name="the guild")
    async def guild_leave(self, ctx: Ctx, name: str) -> None:
        await perform(ctx, line("!guild leave", name))

    @_sub(guild, "officer", "officers: name an officer (`remove` to remove one)")
    @app_commands.describe(name="the guild", member="the member", remove="remove them as officer instead")
    async def guild_officer(self, ctx: Ctx, name: str, member: discord.Member, remove: bool = False) -> None:
        await perform(ctx, line("!guild demote" if remove else "!guild officer", name, member))

    @_sub(guild, "set", "officers: change how the guild approves, e.g. quorum:3 hours:48 committee:2 mode:vote")
    @app_commands.describe(name="the guild", settings="e.g. quorum:3 hours:48 committee:2 mode:vote")
    async def guild_set(self, ctx: Ctx, name: str, settings: str) -> None:
        await perform(ctx, line("!guild set", name, settings))

    @_sub(guild, "list", "the guilds, or one guild's members")
    @app_commands.describe(name="a guild, to list its members (optional)")
    async def guild_list(self, ctx: Ctx, name: str | None = None) -> None:
        await perform(ctx, line("!guild show", name) if name else "!guild list")


async def setup(bot: NomicBot) -> None:
    await bot.add_cog(Cards(bot))
