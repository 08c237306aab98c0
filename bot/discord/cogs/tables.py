"""Thread games on Discord: ``/play``, ``/games``, ``/rules GAME``, the table commands, and the tables' UI.

One path: a prefix command, a slash command, a button and a menu choice all become command text
(``!join``, ``!ai 2``, ``!section 12 9``...) and end in ``Router.table_command``, which is
``TableService.command``: the call the simulator makes for the same line. The buttons, the moves
menu and the join form live in ``bot.discord.table_ui``. At a game that lets a seat bring something,
**Join** opens the form the game describes (``GameEngine.join_form``: a menu or a text box per
field); sending it types ``!join key:value ...``. ``/play``'s ``options`` are the typed form's
``key:value`` words, offered with their defaults as they are typed.

``TableDesk`` shows what the service says: posts of a table go to the table's thread (a public
thread ``GAME-N``, created from the channel where ``!play`` was used when the table's lobby is
first posted), boards as an embed with a small picture and the turn's buttons, a hand only to its
owner (ephemeral, or by DM for a prefix command), rule errors ephemerally.
"""

from __future__ import annotations

import io
import logging
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

import discord
from discord import app_commands
from discord.ext import commands

from bot.discord import io as discord_io
from bot.discord import notices
from bot.discord.cogs.base import Ctx, line, perform, word
from bot.discord.io import chunks, command_text, dms_closed, resolver
from bot.discord.render import embeds
from bot.discord.render.tables import PICTURE_FILE, table_picture
from bot.discord.table_ui import (
    OPTION_LIMIT,
    ControlButton,
    FormSelect,
    JoinForm,
    MoveSelect,
    TableButton,
    board_view,
    game_choices,
    lang_choices,
    lobby_view,
    member_lang,
    moves_view,
    option_choices,
    spread,
)
from bot.router import Post
from games.nomic.context import ChannelRole
from games.tables import lobby
from games.tables.engine import GameRuleError, MoveForm, PrivateWords
from games.tables.i18n import DEFAULT, tr
from games.tables.lobby import Table, TableStatus
from games.tables.model import TableError
from games.tables.registry import get_game
from games.tables.service import Actor, TableService, error_text, is_table_name, parse_play

if TYPE_CHECKING:
    from bot.discord.app import NomicBot

log = logging.getLogger(__name__)

THREAD_ARCHIVE_MINUTES: Literal[10080] = 10080
"""A week: a table's thread stays in the channel list while a slow game is under way."""

# --- showing what the service says ------------------------------------------------------------


def _ephemeral(message: discord.Message | None) -> bool:
    return message is not None and message.flags.ephemeral


def _hand_embed(text: str, title: str, lang: str) -> discord.Embed:
    """A member's own view of their seat (titled as the game names it): only ever sent ephemerally or by DM."""
    embed = discord.Embed(title=title, description=text[: embeds.DESCRIPTION_LIMIT], colour=embeds.GREEN)
    embed.set_footer(text=tr(lang, "reply.only_you"))
    return embed


_PERMISSIONS = {
    "view_channel": "permission.view_channel",
    "create_public_threads": "permission.create_public_threads",
    "send_messages_in_threads": "permission.send_messages_in_threads",
}
"""What a table's thread needs of its channel, each with its name as Discord shows it (in each language)."""


@dataclass
class Origin(discord_io.Origin):
    """Where a table command came from, and how to answer it."""

    component: bool = False
    """A button or a menu: public posts are shown as messages, not as the interaction's answer."""
    table: str | None = None
    """The table the command was about, when known (a button's, or the thread's)."""

    @classmethod
    def of(cls, ctx: Ctx, guild: discord.Guild) -> Origin:
        message = None if ctx.interaction is not None else ctx.message
        return cls(guild, ctx.channel, ctx.author, message, ctx.interaction)


class TableDesk:
    """The Discord side of the tables: threads, messages, buttons; no rule lives here."""

    def __init__(self, bot: NomicBot) -> None:
        self.bot = bot
        self._homes: dict[tuple[int, str], int] = {}
        """Where a table's posts go while it has no thread (its ``!play`` channel)."""

    @property
    def tables(self) -> TableService | None:
        return self.bot.table_service

    async def find(self, guild: int, table: str) -> Table | None:
        service = self.tables
        return await service.find(str(guild), table) if service is not None else None

    async def language(self, guild: int, table: str | None, interaction: discord.Interaction[Any] | None = None) -> str:
        """The language the adapter speaks about ``table``: the table's; without one, the member's client's."""
        found = await self.find(guild, table) if table is not None else None
        if found is not None:
            return found.lang
        return member_lang(interaction) or DEFAULT

    async def private_words(self, origin: Origin) -> PrivateWords:
        """How the origin's table names a seat's private view (``Your hand``, ``Your vote``), in its language."""
        found = await self.find(origin.guild.id, origin.table) if origin.table is not None else None
        if found is None:
            said = member_lang(origin.interaction) or DEFAULT
            return PrivateWords(tr(said, "hand.name"), tr(said, "hand.title"), tr(said, "hand.button"))
        return lobby.engine_of(found).private_words(found.lang)

    async def join_form(self, guild: int, table: str) -> JoinForm | None:
        """The form **Join** shows when the table's game lets a seat bring something (in the lobby); None: just join."""
        found = await self.find(guild, table)
        if found is None or found.status is not TableStatus.LOBBY:
            return None
        engine = lobby.engine_of(found)
        options = engine.options_model.model_validate_json(found.game_options) if found.game_options else None
        fields = engine.join_form(options, found.lang)
        return JoinForm(guild, found, fields) if fields else None

    async def move_form(
        self, guild: int, table: str, user: discord.User | discord.Member, command: str
    ) -> MoveForm | None:
        """The form of the member's move ``command`` as it stands now (None: not open to them now)."""
        if self.tables is None:
            return None
        try:
            forms = await self.tables.move_forms(str(guild), table, Actor(str(user.id), user.display_name))
        except GameRuleError:
            return None
        return next((f for f in forms if f.command == command), None)

    # -- the entry points --

    async def run(self, ctx: Ctx, text: str) -> bool:
        """A command's text, if the tables answer it (else False: the round's); one path with the simulator."""
        bot = self.bot
        guild = ctx.guild
        if guild is None or self.tables is None:
            return False
        thread = await self._thread_key(guild, ctx.channel)
        reader = member_lang(ctx.interaction)
        refusal = await self._play_refusal(guild, ctx.channel, text, reader)
        origin = Origin.of(ctx, guild)
        if refusal is not None:
            await origin.say(content=refusal, ephemeral=True)
            return True
        config = await bot.config(guild.id)
        event = f"int:{ctx.interaction.id}" if ctx.interaction is not None else f"msg:{ctx.message.id}"
        context = bot.context(ctx.author, ctx.channel, config, event)
        posts = await bot.router.table_command(
            str(guild.id),
            context,
            text,
            thread=thread,
            resolve=resolver(guild),
            private=ctx.interaction is not None,
            reader=reader,
        )
        if posts is None:
            return False
        if thread is not None:
            found = await self.find(guild.id, thread)
            origin.table = found.name if found is not None else None
        await self.answer(origin, posts)
        await bot.rearm(guild)
        return True

    async def _thread_key(self, guild: discord.Guild, channel: Any) -> str | None:
        """The channel's id when it may be a table's thread: a thread, or a channel Discord no longer
        keeps for the bot (an archived thread, once someone types in it) that a table is bound to."""
        if isinstance(channel, discord.Thread):
            return str(channel.id)
        if isinstance(channel, discord.PartialMessageable) and await self.find(guild.id, str(channel.id)) is not None:
            return str(channel.id)
        return None

    async def screen(self, message: discord.Message) -> None:
        """Talk in a table's thread (no command) that starts with a secret move's word: removed when
        the bot may, and refused privately, as the move typed with the prefix is."""
        guild = message.guild
        if guild is None or self.tables is None:
            return
        config = await self.bot.config(guild.id)
        context = self.bot.context(message.author, message.channel, config, f"msg:{message.id}")
        thread = str(message.channel.id)
        text = message.content
        posts = await self.bot.router.table_command(str(guild.id), context, text, thread=thread, resolve=None)
        if posts:
            await self.answer(Origin(guild, message.channel, message.author, message, table=thread), posts)

    async def direct(self, message: discord.Message, text: str) -> bool:
        """A DM to the bot: a move (often a secret one) at a table the member sits at, named first or alone.

        The member's guild is the one whose open table they sit at (named by the DM's first word when
        they sit at several); a table they do not sit at (or no more) is refused there, in that table's
        language. False when they sit at none (the bot then says what DMs are for).
        """
        guild = await self._dm_guild(str(message.author.id), text)
        if guild is None:
            return False
        config = await self.bot.config(guild.id)
        context = self.bot.context(message.author, message.channel, config, f"msg:{message.id}")
        posts = await self.bot.router.message(str(guild.id), context, text, resolver(guild), dm=True)
        origin = Origin(guild, message.channel, message.author, message)
        await self._show(guild, [p for p in posts if p.thread is not None and not p.private and not p.error], None)
        for post in posts:
            if post.to:
                await self._to_members(guild, post, None)
            elif post.private or post.error or post.thread is None:
                await self._private(origin, post)
        await self.bot.rearm(guild)
        return True

    async def _dm_guild(self, member: str, text: str) -> discord.Guild | None:
        """The server a DM's move is for: where the table it names is the member's, else where the member
        sits at a table (the refusal then says the named one is not theirs); None: they sit nowhere."""
        service = self.tables
        if service is None:
            return None
        words = text.strip().split()
        first = words[0].removeprefix("!").casefold() if words else ""
        fallback: discord.Guild | None = None
        for guild_id in await service.guilds():
            mine = [t for t in await service.open_tables(guild_id) if t.seat_of(member) is not None]
            guild = self.bot.get_guild(int(guild_id)) if mine else None
            if guild is None:
                continue
            if not is_table_name(first) or any(t.name == first for t in mine):
                return guild
            fallback = fallback or guild
        return fallback

    async def click(self, interaction: discord.Interaction[Any], guild_id: int, table: str, text: str) -> None:
        """A button or a menu choice: its command text, down the same path as typed text."""
        try:
            await self._click(interaction, guild_id, table, text)
        except Exception:
            log.exception("table %s: the %r control failed", table, text)
            try:
                sorry = tr(await self.language(guild_id, table, interaction), "reply.sorry")
                if interaction.response.is_done():
                    await interaction.followup.send(sorry, ephemeral=True)
                else:
                    await interaction.response.send_message(sorry, ephemeral=True)
            except discord.HTTPException:
                log.exception("could not answer a failed table control")

    async def _click(self, interaction: discord.Interaction[Any], guild_id: int, table: str, text: str) -> None:
        bot = self.bot
        guild = interaction.guild
        if guild is None or guild.id != guild_id:
            said = tr(await self.language(guild_id, table, interaction), "reply.other_server")
            await interaction.response.send_message(said, ephemeral=True)
            return
        await bot.ensure_round(guild)
        config = await bot.config(guild.id)
        context = bot.context(interaction.user, interaction.channel, config, f"int:{interaction.id}")
        # a button or a menu choice: text the bot wrote, naming seats as the board does
        posts = await bot.router.table_command(str(guild.id), context, text, thread=table, resolve=None, private=True)
        origin = Origin(guild, interaction.channel, interaction.user, interaction=interaction, component=True)
        origin.table = table
        await self.answer(origin, posts or [])
        await bot.rearm(guild)

    # -- answers and announcements --

    async def answer(self, origin: Origin, posts: list[Post]) -> None:
        """Show a command's posts: answers where it was used, table posts in the table's thread."""
        interaction = origin.interaction
        if not posts:
            if interaction is not None:  # a redelivered prefix message gets no second answer
                lang = await self.language(origin.guild.id, origin.table, interaction)
                await origin.say(content=tr(lang, "reply.done_already"), ephemeral=True)
            return
        if origin.component and interaction is not None and any(not (p.error or p.private) for p in posts):
            await interaction.response.defer()  # the click's effects are posts of the table, seen by all
        await self._show(origin.guild, posts, origin)
        if interaction is not None and not interaction.response.is_done():
            lang = await self.language(origin.guild.id, origin.table, interaction)
            await interaction.response.send_message(tr(lang, "reply.done"), ephemeral=True)
        if origin.component and interaction is not None and _ephemeral(interaction.message):
            await self._refresh_hand(origin)

    async def _refresh_hand(self, origin: Origin) -> None:
        """After a move from a member's private menu: that answer shows their hand and moves as they are now."""
        interaction = origin.interaction
        if interaction is None or origin.table is None or self.tables is None:
            return
        actor = Actor(str(origin.user.id), origin.user.display_name)
        try:
            text = await self.tables.hand(str(origin.guild.id), origin.table, actor)
        except GameRuleError:
            return
        view = await self._moves_view(origin)
        title = (await self.private_words(origin)).title
        lang = await self.language(origin.guild.id, origin.table, interaction)
        try:
            await interaction.edit_original_response(embed=_hand_embed(text, title, lang), view=view)
        except discord.HTTPException:
            log.info("could not refresh a private hand of %s", origin.table)

    async def deliver(self, guild: discord.Guild, posts: list[Post]) -> None:
        """Announcements of tables (reminders, timeouts, the AI's moves after them) in their threads."""
        await self._show(guild, [p for p in posts if p.thread is not None], None)

    async def _show(self, guild: discord.Guild, posts: list[Post], origin: Origin | None) -> None:
        names = list(dict.fromkeys(p.thread for p in posts if p.thread is not None))
        found = {name: await self.find(guild.id, name) for name in names}
        places = {name: await self._place(guild, name, origin) for name in names}
        last_board = {p.thread: i for i, p in enumerate(posts) if p.thread is not None and p.kind == "board"}
        for index, post in enumerate(posts):
            if post.to:
                await self._to_members(guild, post, origin)
                continue
            if origin is not None and (post.private or post.error):
                await self._private(origin, post)
                continue
            if post.private or post.error:
                continue  # a private answer with nobody to answer: never posted in the open
            table = found.get(post.thread) if post.thread is not None else None
            place = places.get(post.thread) if post.thread is not None else None
            messages = self._render(
                guild,
                post,
                table,
                picture=post.thread is not None and last_board.get(post.thread) == index,
                home=place,
            )
            if post.kind == "opened":
                opened = next((p.thread for p in posts if p.thread is not None and p.kind == "lobby"), None)
                where = places.get(opened) if opened is not None else None
                if where is not None:
                    messages[-1]["content"] = f"{messages[-1].get('content', '')}\n➡ {where.mention}"
            target = place if post.thread is not None else (origin.channel if origin is not None else None)
            if target is None:
                log.warning("guild %s: nowhere to post for %s: %s", guild.id, post.thread, post.text[:80])
                config = await self.bot.config(guild.id)
                lost = f"a message of the table {post.thread}"
                await self.bot.notices.report(guild, config, notices.no_channel(ChannelRole.GAME_ACTIONS, lost))
                continue
            for kwargs in messages:
                if not await self._post(origin, target, kwargs, quiet=post.kind == "help", table=post.thread):
                    break
            if post.kind == "end" and isinstance(target, discord.Thread):
                await self._archive(target)

    async def _archive(self, thread: discord.Thread) -> None:
        """A finished table's thread is archived: it leaves the channel list but stays readable."""
        try:
            await thread.edit(archived=True, reason="the table has ended")
        except discord.HTTPException:
            log.info("could not archive the thread %s", thread.name)

    async def _to_members(self, guild: discord.Guild, post: Post, origin: Origin | None) -> None:
        """A post for some seats: each member alone (the presser ephemerally, everyone else by DM)."""
        for member_id in post.to:
            if origin is not None and origin.interaction is not None and str(origin.user.id) == member_id:
                for part in chunks(post.text):
                    await origin.say(content=part, ephemeral=True)
                continue
            if not member_id.isdigit():
                continue
            try:
                # a member the bot has not met since it started is not cached yet: ask Discord
                member = guild.get_member(int(member_id)) or await guild.fetch_member(int(member_id))
                for part in chunks(post.text):
                    await member.send(content=part)
            except discord.HTTPException as exc:
                log.info("could not DM a private table message to %s", member_id)
                table = post.thread or (origin.table if origin is not None else None)
                if dms_closed(exc) and table is not None:
                    await self._closed_dms(guild, table, member_id, refused=post.error, origin=origin)

    async def _closed_dms(
        self, guild: discord.Guild, table: str, member_id: str, *, refused: bool, origin: Origin | None
    ) -> None:
        """A member whose DMs are closed learns in the thread where their private part went, naming no card."""
        found = await self.find(guild.id, table)
        if found is None:
            return
        lang = found.lang
        button = lobby.engine_of(found).private_words(lang).button
        key = "dm.closed_refusal" if refused else "dm.closed"
        text = tr(lang, key, member=f"<@{member_id}>", button=button)
        place = await self._place(guild, found.name, origin)
        mention = discord.AllowedMentions(users=[discord.Object(int(member_id))])
        await self._post(None, place, {"content": text, "allowed_mentions": mention}, table=found.name)

    async def _post(
        self,
        origin: Origin | None,
        target: Any,
        kwargs: dict[str, Any],
        *,
        quiet: bool = False,
        table: str | None = None,
    ) -> bool:
        """One message: the command's answer where it was used (``quiet``: only its member sees a
        slash command's), or a message in the table's thread. A message Discord refuses in a thread
        or channel is told to the moderators (once per channel and cause); returns whether it went."""
        same = origin is not None and getattr(origin.channel, "id", None) == getattr(target, "id", None)
        interaction = same and origin is not None and origin.interaction is not None and not origin.component
        try:
            if same and origin is not None and not origin.component:
                await origin.say(ephemeral=quiet, **kwargs)
            else:
                await target.send(**kwargs)
        except discord.HTTPException as exc:
            guild = getattr(target, "guild", None)
            lost = f"a message of the table {table}" if table else "a message of a thread game"
            failure = None
            if not interaction and isinstance(guild, discord.Guild):
                failure = notices.from_error(exc, target, guild.me, lost)
            if failure is None or not isinstance(guild, discord.Guild):
                log.exception("could not post in %s", getattr(target, "name", target))
            else:
                await self.bot.notices.report(guild, await self.bot.config(guild.id), failure)
            return False
        return True

    async def _private(self, origin: Origin, post: Post) -> None:
        """Errors and hands: only the member sees them (ephemeral; a hand asked by prefix goes by DM)."""
        if post.kind == "secret" and origin.message is not None:
            await self._refuse_secret(origin, post)
            return
        if origin.interaction is None and origin.message is not None and isinstance(origin.channel, discord.DMChannel):
            for part in chunks(post.text):
                await origin.channel.send(content=part)
            return
        if post.error or post.kind != "hand":
            for part in chunks(post.text):
                await origin.say(content=part, ephemeral=True)
            return
        words = await self.private_words(origin)
        lang = await self.language(origin.guild.id, origin.table, origin.interaction)
        embed = _hand_embed(post.text, words.title, lang)
        if origin.interaction is not None:
            view = await self._moves_view(origin)
            kwargs: dict[str, Any] = {"embed": embed}
            if view is not None:
                kwargs["view"] = view
            await origin.say(ephemeral=True, **kwargs)
            return
        try:
            await origin.user.send(embed=embed)
        except discord.HTTPException as exc:
            why = tr(lang, "reply.dms_closed" if dms_closed(exc) else "reply.not_delivered")
            said = tr(lang, "reply.dm_failed", what=words.name, why=why, button=words.button)
            await origin.say(content=said)
            return
        await origin.say(content=tr(lang, "reply.sent_dm", what=words.name))

    async def _refuse_secret(self, origin: Origin, post: Post) -> None:
        """A secret move typed in the thread: removed when the bot may, and the way to send it told privately."""
        message = origin.message
        deleted = False
        channel = origin.channel
        me = origin.guild.me
        allowed = me is not None and hasattr(channel, "permissions_for") and channel.permissions_for(me).manage_messages
        if message is not None and allowed:
            try:
                await message.delete()
                deleted = True
            except discord.HTTPException:
                log.info("could not delete a secret move typed in %s", getattr(channel, "name", channel))
        found = await self.find(origin.guild.id, origin.table) if origin.table is not None else None
        lang = found.lang if found is not None else DEFAULT
        text = tr(lang, "list.sentence").join((post.text, tr(lang, "secret.deleted"))) if deleted else post.text
        try:
            await origin.user.send(content=text)
        except discord.HTTPException:
            reference = message.to_reference(fail_if_not_exists=False) if message and not deleted else None
            await channel.send(content=text, reference=reference)

    async def _moves_view(self, origin: Origin) -> discord.ui.View | None:
        if origin.table is None or self.tables is None:
            return None
        table = await self.find(origin.guild.id, origin.table)
        if table is None or table.status is not TableStatus.PLAYING:
            return None
        actor = Actor(str(origin.user.id), origin.user.display_name)
        moves = await self.tables.legal_moves(str(origin.guild.id), table.name, actor)
        forms = await self.tables.move_forms(str(origin.guild.id), table.name, actor)
        return moves_view(origin.guild.id, table, moves, forms)

    def _render(
        self, guild: discord.Guild, post: Post, table: Table | None, *, picture: bool, home: Any
    ) -> list[dict[str, Any]]:
        """One post as the messages that show it (each a ``send`` keyword set); the last carries the view."""
        text = post.text
        if post.thread is not None and home is not None and not isinstance(home, discord.Thread):
            # no thread: say which table in the shared channel
            text = tr(table.lang if table is not None else DEFAULT, "list.about", table=post.thread, text=text)
        mentioned = [m for m in post.mentions if m.isdigit()]
        if mentioned:
            text = " ".join(f"<@{m}>" for m in mentioned) + " " + text
        messages: list[dict[str, Any]]
        if post.kind == "board" and table is not None and table.board is not None:
            title = f"{table.name} · {lobby.engine_of(table).title}"
            colour = embeds.BLUE if table.status.open else embeds.GOLD
            groups = embeds.pack(embeds.text_embeds(title, text, colour))
            messages = [{"embeds": group} for group in groups]
            data = table_picture(table) if picture else None
            if data is not None:
                messages[-1]["embeds"][-1].set_image(url=f"attachment://{PICTURE_FILE}")
                messages[-1]["file"] = discord.File(io.BytesIO(data), filename=PICTURE_FILE)
        elif post.kind in {"rules", "help", "games"}:
            title = tr(post.lang or (table.lang if table is not None else DEFAULT), f"embed.{post.kind}")
            messages = [{"embeds": group} for group in embeds.pack(embeds.text_embeds(title, text))]
        else:
            messages = [{"content": part} for part in chunks(text)]
        if mentioned:
            messages[0]["allowed_mentions"] = discord.AllowedMentions(users=[discord.Object(int(m)) for m in mentioned])
        view = self._view_for(guild, post, table)
        if view is not None:
            messages[-1]["view"] = view
        return messages

    def _view_for(self, guild: discord.Guild, post: Post, table: Table | None) -> discord.ui.View | None:
        if table is None or post.thread is None:
            return None
        if table.status is TableStatus.LOBBY and post.kind in {"lobby", "board"}:
            return lobby_view(guild.id, table)
        if table.status is TableStatus.PLAYING and post.kind == "board":
            return board_view(guild.id, table)
        return None

    # -- threads --

    async def _place(self, guild: discord.Guild, table: str, origin: Origin | None) -> Any:
        """The table's thread; made (and bound to the table) when the table has none yet.

        Without a thread (the bot may not create one) the table's posts go to the channel it was
        opened from, or #game-actions, and say which table they are about.
        """
        bound = await self._bound_thread(guild, table)
        if bound is not None:
            return bound
        channel = origin.channel if origin is not None else None
        made, why = await self._make_thread(guild, table, channel)
        if made is not None:
            return made
        key = (guild.id, table)
        home = guild.get_channel(self._homes[key]) if key in self._homes else None
        if home is not None:
            return home
        homes = self._homes_for(guild, channel, await self.bot.config(guild.id))
        if not homes:
            return None
        home = homes[0]
        self._homes[key] = home.id
        lang = await self.language(guild.id, table)
        note = tr(lang, "thread.none", table=table, why=why, permission=tr(lang, "permission.create_public_threads"))
        try:
            await home.send(note)
        except discord.HTTPException as exc:
            failure = notices.from_error(exc, home, guild.me, f"the note that the table {table} could not get a thread")
            if failure is None:
                log.exception("guild %s: could not post the table %s anywhere", guild.id, table)
            else:
                await self.bot.notices.report(guild, await self.bot.config(guild.id), failure)
        return home

    async def _bound_thread(self, guild: discord.Guild, table: str) -> discord.Thread | None:
        service = self.tables
        bound = await service.thread_of(str(guild.id), table) if service is not None else None
        if bound is None:
            return None
        thread = guild.get_channel_or_thread(int(bound))
        if thread is None:
            try:
                thread = await guild.fetch_channel(int(bound))
            except (discord.NotFound, discord.Forbidden):
                return None  # deleted, or hidden from the bot: a new thread is made
            except discord.HTTPException:
                log.exception("guild %s: could not look up the thread of %s", guild.id, table)
                return None
        return thread if isinstance(thread, discord.Thread) else None

    def _homes_for(self, guild: discord.Guild, channel: Any, config: Any) -> list[discord.TextChannel]:
        """Channels a table's thread can be made in: the ``!play`` channel (a thread's parent), then #game-actions."""
        homes: list[discord.TextChannel] = []
        base = channel.parent if isinstance(channel, discord.Thread) else channel
        if isinstance(base, discord.TextChannel):
            homes.append(base)
        actions = config.channel_for(guild, ChannelRole.GAME_ACTIONS)
        if actions is not None and actions not in homes:
            homes.append(actions)
        return homes

    @staticmethod
    def _missing(guild: discord.Guild, home: discord.TextChannel, lang: str) -> str | None:
        """The permissions the bot lacks to hold a table's thread in ``home``, named in ``lang``; None: none."""
        perms = home.permissions_for(guild.me)
        missing = [tr(lang, key) for flag, key in _PERMISSIONS.items() if not getattr(perms, flag)]
        return tr(lang, "list.separator").join(missing) if missing else None

    async def _make_thread(
        self, guild: discord.Guild, table: str, channel: Any
    ) -> tuple[discord.Thread | None, str | None]:
        """A public thread named after the table, bound to it; or None and why not."""
        config = await self.bot.config(guild.id)
        homes = self._homes_for(guild, channel, config)
        if (guild.id, table) in self._homes:
            kept = guild.get_channel(self._homes[(guild.id, table)])
            if isinstance(kept, discord.TextChannel) and kept not in homes:
                homes.insert(0, kept)
        lang = await self.language(guild.id, table)
        why = tr(lang, "thread.no_channel")
        for home in homes:
            missing = self._missing(guild, home, lang)
            if missing:
                why = tr(lang, "thread.lacking", missing=missing, channel=home.mention)
                continue
            try:
                thread = await home.create_thread(
                    name=table,
                    type=discord.ChannelType.public_thread,
                    auto_archive_duration=THREAD_ARCHIVE_MINUTES,
                    reason=f"the table {table}",
                )
            except discord.HTTPException as exc:
                why = tr(lang, "thread.refused", channel=home.mention, reason=exc.text or exc.status)
                log.warning("guild %s: could not create the thread %s: %s", guild.id, table, exc)
                continue
            if self.tables is not None:
                await self.tables.attach_thread(str(guild.id), table, str(thread.id))
            self._homes[(guild.id, table)] = home.id
            return thread, None
        return None, why

    async def _play_refusal(self, guild: discord.Guild, channel: Any, text: str, reader: str | None) -> str | None:
        """Why ``!play`` cannot open a table from here (no channel can hold its thread); None: it can.
        Said in the language asked for, else the member's client's, else the game's own."""
        words = text.strip().removeprefix("!").split()
        if not words or words[0].casefold() != "play":
            return None
        try:
            request = parse_play(words[1:])
        except GameRuleError:
            return None  # the service explains what is wrong with the command itself
        lang = request.lang or reader or get_game(request.game).languages[0]
        config = await self.bot.config(guild.id)
        homes = self._homes_for(guild, channel, config)
        reasons = []
        for home in homes:
            missing = self._missing(guild, home, lang)
            if missing is None:
                return None
            reasons.append(tr(lang, "error.lack_in", missing=missing, channel=home.mention))
        where = tr(lang, "list.clauses").join(reasons) or tr(lang, "error.no_home")
        return error_text(TableError(tr(lang, "error.no_thread_here", where=where)), lang)


# --- the commands -----------------------------------------------------------------------------


class Tables(commands.Cog):
    """Thread games: open a table, list them, read a game's rules, and play in the table's thread."""

    def __init__(self, bot: NomicBot) -> None:
        self.bot = bot

    async def cog_load(self) -> None:
        self.bot.add_dynamic_items(TableButton, MoveSelect, ControlButton, FormSelect)

    async def cog_unload(self) -> None:
        self.bot.remove_dynamic_items(TableButton, MoveSelect, ControlButton, FormSelect)

    @word("play", description="open a table of a thread game in a new thread, with you seated")
    @app_commands.describe(
        game="the game to play",
        ai="computer players to seat besides you (0 to the game's limit)",
        turn="how long each turn may take, e.g. 24h, 12h, 90m or 2d (default 24h)",
        lang="the table's language (the game's own languages are offered)",
        options="the game's options as key:value words, e.g. rounds:3 (offered with their defaults as you type)",
    )
    async def play(  # noqa: PLR0917 (the slash form's options)
        self,
        ctx: Ctx,
        game: str,
        ai: app_commands.Range[int, 0, 20] | None = None,
        turn: str | None = None,
        lang: str | None = None,
        options: str | None = None,
    ) -> None:
        # the same words as `!play GAME ...`: one reading, the same checks and the same refusals
        table = (f"ai:{ai}" if ai is not None else None, f"turn:{turn}" if turn else None)
        await perform(ctx, line("!play", game, *table, f"lang:{lang}" if lang else None, options))

    @play.autocomplete("options")
    async def play_options(
        self, interaction: discord.Interaction[discord.Client], current: str
    ) -> list[app_commands.Choice[str]]:
        return option_choices(interaction, current)

    @play.autocomplete("lang")
    async def play_langs(
        self, interaction: discord.Interaction[discord.Client], current: str
    ) -> list[app_commands.Choice[str]]:
        return lang_choices(interaction, current)

    @word("games", description="the thread games' tables in the lobby or under way, and the games there are")
    async def games(self, ctx: Ctx) -> None:
        await perform(ctx, "!games")  # answered in the member's Discord language (``TableDesk.run``)

    @word("rules", description="a thread game's rules (`!rules` alone: the round's ruleset)")
    @app_commands.describe(game="the game whose rules you want to read")
    async def rules(self, ctx: Ctx, game: str) -> None:
        await perform(ctx, line("!rules", game))

    @play.autocomplete("game")
    @rules.autocomplete("game")
    async def game_names(
        self, interaction: discord.Interaction[discord.Client], current: str
    ) -> list[app_commands.Choice[str]]:
        return game_choices(current)

    @word("start", description="in a table's thread: start the game once enough players sit")
    async def start(self, ctx: Ctx) -> None:
        await perform(ctx, "!start")

    @word("board", description="in a table's thread: the table as everyone sees it")
    async def board(self, ctx: Ctx) -> None:
        await perform(ctx, "!board")

    @word("hand", description="in a table's thread: what only your seat sees (your cards, your vote...), just for you")
    async def hand(self, ctx: Ctx) -> None:
        await perform(ctx, "!hand")

    @word("ai", description="in a table's thread: how many computer players sit (in the lobby)")
    @app_commands.describe(count="the number of computer players")
    async def ai(self, ctx: Ctx, count: app_commands.Range[int, 0, 20]) -> None:
        await perform(ctx, line("!ai", count))

    @word("end-table", description="moderators, in a table's thread: abandon the table")
    async def end_table(self, ctx: Ctx) -> None:
        await perform(ctx, "!end-table")

    @word("move", description="in a table's thread: play a move, e.g. `section 12 9` (your legal moves are offered)")
    @app_commands.describe(move="the move as you would type it, e.g. fix 5 or give 3 @bob")
    async def move(self, ctx: Ctx, move: str) -> None:
        if ctx.interaction is None:
            typed = command_text(ctx.message.content, self.bot.settings.command_prefix)
            _, _, rest = typed.partition(" ")
            await self.bot.run_command(ctx, "!" + rest.strip())
            return
        await perform(ctx, "!" + move.strip().removeprefix("!"))

    @move.autocomplete("move")
    async def legal_moves(
        self, interaction: discord.Interaction[discord.Client], current: str
    ) -> list[app_commands.Choice[str]]:
        service = self.bot.table_service
        if service is None or interaction.guild_id is None or interaction.channel_id is None:
            return []
        table = await service.find(str(interaction.guild_id), str(interaction.channel_id))
        if table is None:
            return []
        user = interaction.user
        moves = await service.legal_moves(str(interaction.guild_id), table.name, Actor(str(user.id), user.name))
        typed = current.strip().casefold()
        wanted = [m for m in moves if m.casefold().startswith(typed) and len(m) <= OPTION_LIMIT]
        return [app_commands.Choice(name=m, value=m) for m in spread(wanted)]


async def setup(bot: NomicBot) -> None:
    await bot.add_cog(Tables(bot))
