"""The one path from a member's message to the service and back, shared by every adapter.

Discord prefix commands, slash commands, the replay and the console all end here, so a
command gets the same checks and the same words wherever it was typed.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Sequence
from contextlib import AbstractAsyncContextManager, nullcontext
from dataclasses import replace
from datetime import datetime
from typing import TYPE_CHECKING

from bot.refusals import Refusals, RefusalStore
from bot.texts import help_text, phase_text
from bot.web.desk import WebDesk, is_web_command
from data.library_store import LibraryConflictError
from games.ictc.words import BATTLE_GAME, CHALLENGE_WORDS, LIBRARY_WORDS, is_challenge_command, is_library_command
from games.nomic import commands, digest, engine, modlog, notices, todo, views
from games.nomic.actions import (
    AcceptTrade,
    Action,
    AdminGive,
    AdminTake,
    DeleteMessage,
    EditMessage,
    OfferTrade,
    PlaceBid,
    Propose,
    React,
    ShowHelp,
    ShowInventory,
    ShowLots,
    ShowModLog,
    ShowNotices,
    ShowPhase,
    ShowPlacements,
    ShowProposals,
    ShowRuleset,
    ShowRulesetDiff,
    ShowRulesetHistory,
    ShowRulings,
    ShowTodo,
    ShowTrades,
    Stand,
)
from games.nomic.context import ChannelRole, Context
from games.nomic.digest import Digest, FinishedGame, WeekReviewed
from games.nomic.errors import BadInputError, ConflictError, NotAllowedError, RuleError
from games.nomic.events import Event
from games.nomic.proposals import reaction_of
from games.nomic.rulelang import known_item_names
from games.nomic.service import NotStartedError, Outcome, RoundService
from games.nomic.state import JudgeRequest, Proposal, RulesetVersion
from games.tables.on_demand import TablesOnDemand
from games.tables.words import MAX_COMMAND_LENGTH, TABLE_WORDS, answers_outside, word_answers_outside
from games.values import valueclass
from scheduler.calendar import phase_window
from scheduler.due import next_tick
from scheduler.live import catch_up

if TYPE_CHECKING:
    from games.ictc.arena import Arena
    from games.ictc.events import Note
    from games.ictc.service import LibraryService
    from games.tables.core import SideWrite
    from games.tables.model import Table
    from games.tables.posts import TablePost
    from games.tables.service import TableService

log = logging.getLogger(__name__)


@valueclass
class Post:
    """One thing the bot says: a reply to the command, or an announcement in a channel."""

    text: str
    channel: ChannelRole | None = None
    """None: in reply to the command, where it was typed."""
    private: bool = False
    """Only the acting member sees it (ephemeral or DM)."""
    error: bool = False
    """The answer says why the command was not carried out (Discord shows such answers ephemerally)."""
    at: datetime | None = None
    reply_to: str | None = None
    """For an announcement: the message it answers (a proposal's outcome answers the proposal)."""
    thread: str | None = None
    """A thread game's table (``wikipedia-1``): the post goes to that table's thread."""
    kind: str | None = None
    """What a table post is (``board``, ``hand``, ``reminder``... see ``TablePost.kind``); None for the round."""
    mentions: tuple[str, ...] = ()
    """Members a table post is addressed to (whose turn it is)."""
    to: tuple[str, ...] = ()
    """Members who each see this post privately (a card for some seats, an outbid notice, a personal
    reminder); never posted in a channel."""
    card: tuple[int, int] | None = None
    """A card of the library to show with the text: (design, version); Discord draws its picture."""
    review: bool = False
    """With the card's Approve / Reject / Comment buttons."""
    expires: datetime | None = None
    """A reminder: not worth posting at or after this instant (its deadline), when caught up late."""
    digest: Digest | None = None
    """The week's review: Discord shows it as one embed, the simulator as its text."""
    lang: str | None = None
    """A thread game's text that is no table's (rules, the list of games): the language it is in."""


NOTICE = "notice"
"""The ``kind`` of the round's posts for one member (an outbid notice, a personal reminder): on Discord a
DM, held for the member's next private answer when their DMs are closed."""


def error_text(error: RuleError) -> str:
    return f"Can't do that: {error}."


def outcome_posts(outcome: Outcome, at: datetime, games: Sequence[FinishedGame] = ()) -> list[Post]:
    """Announcements of scheduled work, one message per channel, in event order; what is for one
    member goes to them alone, and each reminder and the week's review are messages of their own.

    ``games``: the thread games finished in the week, for its review.
    """
    slots: list[Post | tuple[ChannelRole, str | None]] = []
    grouped: dict[tuple[ChannelRole, str | None], list[str]] = {}
    for event in outcome.events:
        own = _own_post(event, at, games)
        if own is not None:
            slots.extend(own)
            continue
        key = (event.channel, event.reply_to())
        if key not in grouped:
            grouped[key] = []
            slots.append(key)
        grouped[key].append(event.text())
    return [
        slot if isinstance(slot, Post) else Post("\n".join(grouped[slot]), channel=slot[0], at=at, reply_to=slot[1])
        for slot in slots
    ]


def _own_post(event: Event, at: datetime, games: Sequence[FinishedGame]) -> list[Post] | None:
    """The post of an event that is not grouped with others (None: it is grouped)."""
    member = event.recipient()
    if member is not None:
        return [Post(event.text(), at=at, to=(member,), kind=NOTICE, expires=event.expires())]
    if isinstance(event, WeekReviewed):
        records = event.records.with_games(games)
        if records.empty:
            return []
        review = digest.build(records)
        return [Post(review.text(), channel=event.channel, at=at, digest=review)]
    expires = event.expires()
    if expires is not None:
        return [Post(event.text(), channel=event.channel, at=at, expires=expires)]
    return None


def fresh(posts: list[Post], now: datetime) -> list[Post]:
    """Posts still worth posting at ``now``: a reminder caught up after its deadline is dropped."""
    return [p for p in posts if p.expires is None or p.expires > now]


def command_posts(outcome: Outcome, ctx: Context, extra: str = "", *, secret: bool = False) -> list[Post]:
    """An accepted command's answer (then ``extra``), what its events post in other channels or on their own,
    and what they tell single members (``Outcome.told``). ``secret``: the answer is the acting member's alone
    (a bid while bids are sealed)."""
    answer, private, elsewhere, to_members = outcome.told(ctx.channel)
    at = ctx.at
    posts = [Post(f"{answer}\n{extra}" if extra else answer, private=secret or private)]
    if elsewhere:
        posts.extend(Post(text, channel=channel, at=at) for channel, text in elsewhere)
    if to_members:
        posts.extend(Post(text, at=at, to=(member,), kind=NOTICE) for member, text in to_members)
    return posts


def _is_own_inventory(ctx: Context, action: Action) -> bool:
    """The answer that shows a member their own cards goes to them alone."""
    return isinstance(action, ShowInventory) and action.target in (None, ctx.actor)


def table_post(post: TablePost) -> Post:
    """A thread game's post as every adapter sees posts (``thread`` names the table it belongs to)."""
    return Post(
        post.text,
        private=post.private,
        error=post.error,
        at=post.at,
        thread=post.table,
        kind=post.kind,
        mentions=post.mentions,
        to=post.to,
        lang=post.lang,
    )


def library_post(note: Note, at: datetime | None = None, channel: ChannelRole | None = None) -> Post:
    """A note of the card library as every adapter sees posts (``channel``: announced there, not a reply)."""
    return Post(
        note.text,
        channel=None if note.private or note.to else channel,
        private=note.private,
        at=at,
        to=note.to,
        card=note.card,
        review=note.review,
    )


COPIES_NOT_HERE = "card copies are traded only where the card library runs"
COPIES_NOT_GIVEN = (
    "card copies belong to the card library: they change hands by trade or in a battle's kitty, not by a"
    " moderator's correction"
)


ROUND_WORDS_IN_THREADS: frozenset[str] = (
    (
        frozenset(
            {w.name for w in commands.COMMAND_WORDS if not w.channels}
            | {
                a
                for a, name in commands.ALIASES.items()
                if not commands.COMMANDS_BY_NAME[name].channels and name != "help"
            }
        )
        - TABLE_WORDS
    )
    | LIBRARY_WORDS
    | CHALLENGE_WORDS
    | {"web"}
)
"""The round's anywhere-commands (``!inventory``, ``!lots``...) and the card library's (``!card``,
``!guild``) keep working in a table's thread when the game has no move of that name."""

_IMPORT_WORDS = frozenset({"ruleset", "rules"})
"""The first words of ``!ruleset import`` (``commands.is_import``)."""
_WEB_WORDS = frozenset({"web", "admin"})
"""The first words of ``!web`` and ``!admin web`` (``is_web_command``)."""


def _first_word(content: str) -> str:
    """The first word, case folded and without the prefix, as the card library's, the web's and the tables'
    checks read it ("" for none)."""
    words = content.strip().removeprefix("!").split(maxsplit=1)
    return words[0].casefold() if words else ""


_MOVING_ITEMS: frozenset[type] = frozenset({AdminGive, AdminTake, AcceptTrade, OfferTrade})
"""The actions whose items may be card copies of the card library, which ``Router._run`` looks at first."""

MAX_DUE_ROUNDS = 100_000
CITING_LOOKED_AT = 500
"""Archived requests ``!ruleset 4.2`` looks through for the rulings that cite the rule (the newest)."""


class Router:
    def __init__(
        self,
        service: RoundService,
        tables: TableService | TablesOnDemand | None = None,
        library: LibraryService | None = None,
        web: WebDesk | None = None,
        refusals: Refusals | None = None,
    ) -> None:
        self.service = service
        if tables is not None and not isinstance(tables, TablesOnDemand):
            tables = TablesOnDemand.ready(tables)
        self._tables = tables
        """Thread games (their service made when first needed); None: the router knows only the round (no
        ``!play``, no table threads)."""
        self.library = library
        """The card library (``!card``, ``!guild``, card copies in trades); None: not on this router."""
        self.web = web
        """``!web`` and ``!admin web``: the round's web record; None: those words are unknown here."""
        self._arena: Arena | None = None
        if library is not None and tables is not None:
            tables.when_made(lambda made: made.keep_ends(self._battle_ends))
        if refusals is None:
            store = service.store
            refusals = Refusals(store if isinstance(store, RefusalStore) else None)
        self.refusals = refusals
        """Commands refused, by event: a redelivery of one is not carried out, nor answered again."""

    @property
    def tables(self) -> TableService | None:
        """The thread games' service (made now if it was not yet); None: this router has no tables."""
        return self._tables.service if self._tables is not None else None

    async def _tables_of(self, guild: str) -> TableService | None:
        """The tables' service if the guild may have a table (without making it for a guild that has none)."""
        return await self._tables.of(guild) if self._tables is not None else None

    @property
    def arena(self) -> Arena | None:
        """Challenges between members' decks, and the battles' kitties (``!challenge``); made on first use,
        so that a process that meets no challenge and no table's end never loads the battles' code."""
        if self._arena is None and self.library is not None and self._tables is not None:
            from games.ictc.arena import Arena

            self._arena = Arena(self.library, self._tables.service)
        return self._arena

    def _battle_ends(self, guild: str, table: Table, at: datetime) -> AbstractAsyncContextManager[SideWrite | None]:
        """The arena's part of a table's end (a battle's kitty moves with it); nothing for another game's table,
        whose end does not load the battles."""
        if table.game != BATTLE_GAME:
            return nullcontext(None)
        arena = self.arena
        if arena is None:  # pragma: no cover - kept only where there is an arena
            raise RuntimeError("no card library on this router")
        return arena.ending(guild, table, at)

    def forget(self, guild: str) -> None:
        """Drop every cached state of the guild: another process acts for it now (its lock went away),
        so whatever this process knew of it may be stale; the next use reads the store again."""
        self.service.forget(guild)
        self.refusals.forget(guild)
        if self._tables is not None:
            self._tables.forget(guild)
        if self.library is not None:
            self.library.forget(guild)

    def _kept_side_due(self, guild: str) -> tuple[datetime | None] | None:
        """``_side_due`` when the tables and the card library both keep their next instant (in a 1-tuple), as
        they do between two changes: no coroutine before every command. None: ask ``_side_due``."""
        found = []
        for side in (self._tables, self.library):
            if side is None:
                continue
            kept = side.kept_next_due(guild)
            if kept is None:
                return None
            if kept[0] is not None:
                found.append(kept[0])
        return (min(found) if found else None,)

    async def _side_due(self, guild: str) -> datetime | None:
        """The earliest scheduled work of the tables and the card library."""
        found = []
        tables = await self._tables_of(guild)
        if tables is not None:
            found.append(await tables.next_due(guild))
        if self.library is not None:
            found.append(await self.library.next_due(guild))
        due = [at for at in found if at is not None]
        return min(due) if due else None

    async def due_work(self, guild: str, now: datetime) -> list[Post]:
        """Apply scheduled work due by ``now`` (the round's, the tables' and the card library's), in time order."""
        posts: list[Post] = []
        for _ in range(MAX_DUE_ROUNDS):
            kept = self._kept_side_due(guild)
            at = kept[0] if kept is not None else await self._side_due(guild)
            if at is None or at > now:
                break
            for tick_at, outcome in await catch_up(self.service, guild, at):
                posts.extend(await self._tick_posts(guild, tick_at, outcome))
            done: list[Post] = []
            tables = await self._tables_of(guild)
            if tables is not None:
                done.extend(table_post(p) for p in await tables.due(guild, at))
            if self.library is not None:
                counted = await self.library.due(guild, at)
                done.extend(library_post(note, when, ChannelRole.GAME_ACTIONS) for when, note in counted)
            if not done:
                break
            posts.extend(done)
        latest = self.service.kept_latest(guild)
        if latest is not None and next_tick(latest).at > now:
            return posts  # the round's next tick is later: nothing to catch up, and no coroutine to learn it
        for at, outcome in await catch_up(self.service, guild, now):
            posts.extend(await self._tick_posts(guild, at, outcome))
        return posts

    async def _tick_posts(self, guild: str, at: datetime, outcome: Outcome) -> list[Post]:
        """A tick's posts; the week's review with the thread games that ended during the week."""
        review = next((e for e in outcome.events if isinstance(e, WeekReviewed)), None)
        games: list[FinishedGame] = []
        tables = await self._tables_of(guild) if review is not None else None
        if review is not None and tables is not None:
            since, until = review.records.since, review.records.until
            for table in await tables.all_tables(guild):
                ended = table.ended_at
                if table.started_at is None or ended is None or not since < ended <= until:
                    continue
                games.append(
                    FinishedGame(
                        name=table.name,
                        game=table.game,
                        status=table.status.value,
                        players=tuple(s.name for s in table.humans),
                        winners=table.winners,
                        summary=table.summary or "",
                    )
                )
        return outcome_posts(outcome, at, games)

    async def next_due(self, guild: str) -> datetime | None:
        """The next instant with scheduled work: the round's next tick, a table's reminder or timeout, or a
        guild's vote on a card."""
        state = await self.service.state(guild)
        due = [next_tick(state).at] if state is not None else []
        side = await self._side_due(guild)
        if side is not None:
            due.append(side)
        return min(due) if due else None

    # -- a command's answer, once --

    async def _once(
        self,
        guild: str,
        ctx: Context,
        source_line: int | None,
        answer: Callable[[], Awaitable[list[Post] | None]],
        logged: Callable[[str, str], Awaitable[bool]] | None = None,
    ) -> list[Post] | None:
        """A command's ``answer``, unless its event was refused before: delivered again, it changes nothing
        and is not answered again, even if it could be carried out now. Every entry of a command
        (``run``, ``round_command``, ``table_command``...) answers through here, once per command.
        ``logged``: whether a store logged the event, asked of a refusal (by default every store; an
        entry whose commands only one store logs asks that one)."""
        event = ctx.event_id
        if event:
            refused = self.refusals.known(guild, event)  # (without a coroutine on the path of every command)
            if refused or (refused is None and await self.refusals.seen(guild, event, ctx.at)):
                return []
        posts = await answer()
        if not posts or not event:
            return posts
        for post in posts:  # (a loop, not ``any``: no generator on the path of every answer)
            if post.error:
                break
        else:
            return posts
        if not await self.refusals.claim(guild, event, ctx.at):
            return []  # the same event delivered twice at once: the other delivery answers it
        if await (logged or self._logged)(guild, event):
            # a refusal of an event a store logged already: that event delivered again, refused by the
            # state it made (``!challenge accept`` once accepted); it was answered the first time
            return []
        await self.refusals.keep(guild, event, ctx.at, source_line)
        return posts

    async def _logged(self, guild: str, event: str) -> bool:
        """Whether any store (the round's, the tables', the card library's) logged an action of ``event``."""
        if await self.service.logged(guild, event):
            return True
        tables = await self._tables_of(guild)
        if tables is not None and await tables.logged(guild, event):
            return True
        return self.library is not None and await self.library.logged(guild, event)

    async def library_command(
        self,
        guild: str,
        ctx: Context,
        content: str,
        resolve: commands.MemberResolver,
        *,
        source_line: int | None = None,
    ) -> list[Post] | None:
        """A ``!card`` or ``!guild`` command, answered by the card library; None when it is not one."""
        library = self.library
        if library is None or not is_library_command(content):
            return None

        async def answer() -> list[Post]:
            outcome = await library.command(guild, ctx, content, resolve, source_line=source_line)
            if outcome.duplicate:
                return []
            if outcome.error is not None:
                return [Post(error_text(outcome.error), error=True, private=outcome.private)]
            return [library_post(note) for note in outcome.notes]

        return await self._once(guild, ctx, source_line, answer)

    async def web_command(self, guild: str, ctx: Context, content: str) -> list[Post] | None:
        """``!web`` (the link to the round's record) or ``!admin web on|hidden|off``; None when it is neither."""
        web = self.web
        if web is None or not is_web_command(content):
            return None

        async def answer() -> list[Post]:
            try:
                return [Post(await web.answer(guild, ctx, content))]
            except RuleError as exc:
                return [Post(error_text(exc), error=True)]

        return await self._once(guild, ctx, None, answer)

    async def message(
        self,
        guild: str,
        ctx: Context,
        content: str,
        resolve: commands.MemberResolver,
        *,
        message_id: str | None = None,
        source_line: int | None = None,
        thread: str | None = None,
        dm: bool = False,
    ) -> list[Post]:
        """A message: a command gets an answer; in #proposals and #judge-elections text counts too.

        ``thread``: where the message was typed when that may be a thread game's table (the thread's
        name in the simulator, its id on Discord). Commands there go to the table; ``!play``,
        ``!games`` and ``!rules GAME`` go to the tables anywhere; everything else to the round. Each
        way is a command's entry of its own (``table_command``, ``run``...): a command refused before is
        not carried out nor answered when it comes again.
        """
        if dm:
            # a DM to the bot is for the tables (a secret move names its table) or the card library (a
            # draft typed where nobody else reads it); answers stay private
            drafted = await self.library_command(guild, ctx, content, resolve, source_line=source_line)
            if drafted is not None:
                # the answer comes by DM; what everyone may see (a submitted card) is also announced
                answers = [replace(p, private=True, channel=None) if not p.to else p for p in drafted]
                shown = [
                    replace(p, channel=ChannelRole.GAME_ACTIONS) for p in drafted if not (p.private or p.error or p.to)
                ]
                return answers + shown
            if commands.command_word(content) == "bid":
                # a sealed bid sent by DM: the round's (whose rules refuse it when bids are open)
                private = ctx.model_copy(update={"private": True})
                return (await self.round_command(guild, private, content, resolve, source_line=source_line))[1]
            found = await self.table_command(guild, ctx, content, source_line=source_line, resolve=resolve, dm=True)
            return found or []
        # the first word, read once, rules out the entries a message cannot be for (each entry checks it again)
        first = _first_word(content)
        if first in _IMPORT_WORDS and commands.is_import(content):  # a whole document, longer than the tables take
            return (await self.round_command(guild, ctx, content, resolve, source_line=source_line))[1]
        if first in _WEB_WORDS:
            web_posts = await self.web_command(guild, ctx, content)
            if web_posts is not None:
                return web_posts
        if first in LIBRARY_WORDS:
            library_posts = await self.library_command(guild, ctx, content, resolve, source_line=source_line)
            if library_posts is not None:
                return library_posts
        if (
            thread is not None
            or first in CHALLENGE_WORDS
            or word_answers_outside(first)
            or len(content) > MAX_COMMAND_LENGTH
        ):
            table_posts = await self.table_command(
                guild, ctx, content, thread=thread, source_line=source_line, resolve=resolve
            )
            if table_posts is not None:
                return table_posts
        if not commands.is_command(content):
            if message_id is None or ctx.channel not in {ChannelRole.PROPOSALS, ChannelRole.JUDGE_ELECTIONS}:
                return []
            text = commands.clean_keep_lines(content)
            action: Action
            if ctx.channel is ChannelRole.PROPOSALS:
                starts, ends = await self._voting_window(guild, ctx.at)
                action = Propose(message=message_id, text=text, window_starts=starts, window_ends=ends)
            else:
                action = Stand(message=message_id, text=text)
            return await self.run(guild, ctx, action, source_line=source_line)
        # outside a table's thread its words alone route a command, so a round's one is only ever the round's:
        # its store alone can have logged an event it refuses (a redelivery the state it made refuses)
        logged = self.service.logged if thread is None else None
        return (await self.round_command(guild, ctx, content, resolve, source_line=source_line, logged=logged))[1]

    async def round_command(
        self,
        guild: str,
        ctx: Context,
        content: str,
        resolve: commands.MemberResolver,
        *,
        source_line: int | None = None,
        logged: Callable[[str, str], Awaitable[bool]] | None = None,
    ) -> tuple[Action | None, list[Post]]:
        """A command of the round, read and carried out; with the action read (None: it could not be read).
        ``logged``: see ``_once``."""
        read: list[Action] = []

        async def answer() -> list[Post]:
            state = self.service.kept_state(guild)
            if state is None:
                state = await self.service.state(guild)
            try:
                read.append(
                    commands.parse(content, resolve, lambda: known_item_names(state) if state is not None else ())
                )
            except RuleError as exc:
                return [Post(error_text(exc), error=True, private=ctx.private)]
            return await self._run(guild, ctx, read[0], source_line=source_line)

        posts = await self._once(guild, ctx, source_line, answer, logged)
        return (read[0] if read else None), posts or []

    async def bids_sealed(self, guild: str) -> bool:
        """Whether the auction running takes sealed bids (every answer to a bid is then its bidder's alone)."""
        state = self.service.kept_state(guild)
        if state is None:
            state = await self.service.state(guild)
        return state is not None and state.sealed_bids

    async def _voting_window(self, guild: str, at: datetime) -> tuple[datetime | None, datetime | None]:
        """The phase a standard proposal made at ``at`` votes through, by the calendar in force."""
        state = await self.service.state(guild)
        if state is None:
            return None, None
        cal = state.ruleset.calendar
        starts = phase_window(cal, at)[2]
        return starts, phase_window(cal, starts)[2]

    async def table_command(
        self,
        guild: str,
        ctx: Context,
        content: str,
        *,
        thread: str | None = None,
        source_line: int | None = None,
        resolve: commands.MemberResolver | None,
        private: bool = False,
        dm: bool = False,
        reader: str | None = None,
    ) -> list[Post] | None:
        """A command the thread games answer, or None when it is the round's.

        The tables answer ``!play``, ``!games`` and ``!rules GAME`` anywhere, and every command typed
        in a table's thread (``thread``: the thread's name or id, or a table's name: what a button
        of that table says) except the round's questions the game cannot read. ``resolve`` reads
        members named in a move as the round's commands do; None only for text the bot wrote
        itself (a button or a choice of its moves menu). ``private``: only the member saw the command
        (a slash command, a button, a menu), so a secret move is accepted; ``dm``: a DM to the bot.
        ``reader``: the language of the member's Discord client, for answers outside a table.
        """
        if self._tables is None:
            return None
        if not dm and not commands.is_command(content):
            if thread is None or private:
                return None
            # talk in a table's thread: a secret move typed without the prefix is still removed
            found = await self._tables.of(guild)
            if found is None:
                return None  # the guild has no table: no thread is one
            screened = await found.screen(guild, content, thread=thread, at=ctx.at)
            return None if screened is None else [table_post(p) for p in screened]
        if not dm and is_challenge_command(content) and self.arena is not None:
            return await self._once(
                guild, ctx, source_line, lambda: self._challenge(guild, ctx, content, resolve, source_line)
            )
        if thread is None and not dm and not answers_outside(content):
            return None  # outside a table's thread the tables take only their own words: asked for nothing
        from games.tables.core import Actor  # (loaded with the service, which this command makes if need be)

        tables = self._tables.service
        actor = Actor(ctx.actor, ctx.actor_name, moderator=ctx.is_moderator)

        async def answer() -> list[Post] | None:
            table_posts = await tables.command(
                guild,
                actor,
                content,
                at=ctx.at,
                event_id=ctx.event_id,
                thread=thread,
                source_line=source_line,
                defer=ROUND_WORDS_IN_THREADS,
                members=resolve,
                private=private or dm,
                dm=dm,
                reader=reader,
            )
            return None if table_posts is None else [table_post(p) for p in table_posts]

        return await self._once(guild, ctx, source_line, answer)

    async def left_tables(self, guild: str, ctx: Context, *, source_line: int | None = None) -> list[Post]:
        """A member left the server: their seats at the tables pass to the AI (a lobby's seat goes)."""
        tables = await self._tables_of(guild)
        if tables is None:
            return []
        posts = await tables.member_left(
            guild, ctx.actor, ctx.actor_name, at=ctx.at, event_id=ctx.event_id, source_line=source_line
        )
        return [table_post(p) for p in posts]

    async def _challenge(
        self,
        guild: str,
        ctx: Context,
        content: str,
        resolve: commands.MemberResolver | None,
        source_line: int | None,
    ) -> list[Post]:
        """``!challenge``: the card library's decks meet at a battle's table (``games.ictc.arena``)."""
        if self.arena is None:
            return []

        def bare(token: str) -> str:
            raise BadInputError(f"`{token[:30]}` cannot be read here: write the member's @name")

        from games.ictc.service import CHANGED_MEANWHILE

        try:
            posts = await self.arena.command(guild, ctx, content, resolve or bare, source_line=source_line)
        except LibraryConflictError:
            return [Post(error_text(ConflictError(CHANGED_MEANWHILE)), error=True)]
        return [table_post(p) for p in posts]

    async def run(self, guild: str, ctx: Context, action: Action, *, source_line: int | None = None) -> list[Post]:
        """Answer a query from the state, or carry out an action through the service."""
        line = source_line
        posts = await self._once(guild, ctx, line, lambda: self._run(guild, ctx, action, source_line=line))
        return posts or []

    async def _run(self, guild: str, ctx: Context, action: Action, *, source_line: int | None = None) -> list[Post]:
        copies_line = ""
        secret = False
        if isinstance(action, PlaceBid):
            kept = self.service.kept_state(guild)  # (without a coroutine on the path of every bid)
            secret = kept.sealed_bids if kept is not None else await self.bids_sealed(guild)
        try:
            if not action.changes_state:
                text = await self._query(guild, ctx, action)
                return [Post(text, private=_is_own_inventory(ctx, action))]
            if type(action) in _MOVING_ITEMS:  # (one look-up on the path of every other command)
                if isinstance(action, AdminGive | AdminTake) and action.items.copies:
                    raise BadInputError(COPIES_NOT_GIVEN)
                if isinstance(action, AcceptTrade):
                    settled = await self._accept_with_copies(guild, ctx, action, source_line)
                    if settled is not None:
                        return settled
                if isinstance(action, OfferTrade) and (action.give.copies or action.get.copies):
                    copies_line = await self._offered_copies(guild, ctx, action)
            outcome = await self.service.act(guild, ctx, action, source_line=source_line)
        except RuleError as exc:
            return [Post(error_text(exc), error=True, private=secret)]
        return self._answer(ctx, outcome, copies_line, action, secret=secret)

    def _answer(
        self, ctx: Context, outcome: Outcome, extra: str = "", action: Action | None = None, *, secret: bool = False
    ) -> list[Post]:
        """``secret``: the answer is the acting member's alone, refusals too (a bid while bids are sealed)."""
        if outcome.duplicate:
            return []
        if outcome.error is not None:
            return [Post(error_text(outcome.error), error=True, private=secret)]
        posts = command_posts(outcome, ctx, extra, secret=secret)
        noted = modlog.entry(ctx, action, outcome.events) if action is not None else None
        if noted is not None:
            posts.append(Post(noted.post_text(), channel=ChannelRole.MOD_LOG, at=ctx.at))
        return posts

    async def _offered_copies(self, guild: str, ctx: Context, action: OfferTrade) -> str:
        """A trade offer with card copies: the offerer must hold the copies they would give (checked again
        at acceptance); the answer says what the copies are. The copies asked for are checked only when
        their holder accepts: a refusal now would tell anyone which copies another member holds."""
        if self.library is None:
            raise BadInputError(COPIES_NOT_HERE)
        state = await self.service.state(guild)
        if state is not None:
            engine.check(state, ctx, action)  # the round's own refusals first (channel, players, holdings)
        await self.library.check_copies(guild, {ctx.actor: action.give.copies})
        return "In it: " + await self.library.describe_copies(guild, (*action.give.copies, *action.get.copies)) + "."

    async def _accept_with_copies(
        self, guild: str, ctx: Context, action: AcceptTrade, source_line: int | None
    ) -> list[Post] | None:
        """Accepting a trade that moves card copies: one transaction for both.

        Under the library's lock the round's rules check the acceptance first (who may accept, what each
        side holds), then the library checks the copies; the round's store writes the trade and, in the
        same transaction, the copies' new owners (each only from the owner read), so either both change
        or neither does. None when the trade moves no copies (the round alone settles it).
        """
        state = await self.service.state(guild)
        trade = state.trades.get(action.number) if state is not None else None
        if state is None or trade is None or not (trade.give.copies or trade.get.copies):
            return None
        if self.library is None:
            raise BadInputError(COPIES_NOT_HERE)
        from games.ictc.actions import CopyMove
        from games.ictc.service import MAX_REAPPLY

        engine.check(state, ctx, action)
        moves = [CopyMove(copy_id=c, giver=trade.offerer, taker=trade.target) for c in trade.give.copies]
        moves += [CopyMove(copy_id=c, giver=trade.target, taker=trade.offerer) for c in trade.get.copies]
        async with self.library.lock(guild):
            for attempt in range(MAX_REAPPLY):
                # a library another process changed since it was read is read again (its part's failure
                # forgot it) and the trade checked and applied on that
                joined = await self.library.join_moves(guild, ctx, moves)
                try:
                    outcome = await self.service.act(guild, ctx, action, source_line=source_line, joined=joined)
                    break
                except LibraryConflictError:
                    if attempt + 1 >= MAX_REAPPLY:
                        raise ConflictError(
                            "the card copies changed hands meanwhile; nothing was traded, try again"
                        ) from None
        takers = {m.copy_id: m.taker for m in moves}
        moved = await self.library.describe_copies(guild, tuple(takers), takers)
        return self._answer(ctx, outcome, f"Card copies moved: {moved}." if outcome.accepted else "", action)

    async def reaction(
        self, guild: str, ctx: Context, message_id: str, emoji: str, *, added: bool, source_line: int | None = None
    ) -> list[Post]:
        """A reaction: 👍 and 👎 (each skin tone its own variant) on proposals and candidacies are recorded;
        the rest is ignored."""
        found = reaction_of(emoji)
        if found is None:
            return []
        vote, variant = found
        action = React(message=message_id, vote=vote, variant=variant, added=added)
        await self._silently(guild, ctx, action, source_line)
        return []

    async def edit(
        self, guild: str, ctx: Context, message_id: str, content: str, *, source_line: int | None = None
    ) -> list[Post]:
        """An edit retracts a proposal in its vote and amends one still waiting for it."""
        action = EditMessage(message=message_id, text=commands.clean_keep_lines(content))
        return await self._silently(guild, ctx, action, source_line, answer_bad_input=message_id)

    async def delete(self, guild: str, ctx: Context, message_id: str, *, source_line: int | None = None) -> list[Post]:
        return await self._silently(guild, ctx, DeleteMessage(message=message_id), source_line)

    async def _silently(
        self,
        guild: str,
        ctx: Context,
        action: Action,
        source_line: int | None,
        *,
        answer_bad_input: str | None = None,
    ) -> list[Post]:
        """Events that are not commands: what does not apply is ignored without an answer."""
        outcome = await self.service.act(guild, ctx, action, source_line=source_line)
        if isinstance(outcome.error, BadInputError) and answer_bad_input is not None:
            text = f"{error_text(outcome.error)} The proposal keeps its earlier text."
            return [Post(text, channel=ctx.channel, reply_to=answer_bad_input)]
        if not outcome.accepted:
            return []
        return outcome_posts(outcome, ctx.at)

    async def _query(self, guild: str, ctx: Context, action: Action) -> str:
        if isinstance(action, ShowHelp):
            tables, cards, web = self._tables is not None, self.library is not None, self.web is not None
            return help_text(ctx.channel, is_moderator=ctx.is_moderator, tables=tables, cards=cards, web=web)
        if isinstance(action, ShowModLog):
            if not ctx.is_moderator:
                raise NotAllowedError("only moderators can read the moderators' log")
            entries, total = await self.service.mod_log(guild, limit=action.count)
            return modlog.log_text(entries, total)
        state = await self.service.state(guild)
        if state is None:
            raise NotStartedError("the round has not started on this server yet")
        if isinstance(action, ShowTodo):
            if not ctx.is_moderator:
                raise NotAllowedError("only moderators can read the moderators' to-do list")
            return todo.listing(state, action.page)
        if isinstance(action, ShowInventory):
            target = action.target or ctx.actor
            owned = await self.library.copy_counts(guild, target) if self.library is not None else None
            return views.inventory(state, target, asking_self=action.target in (None, ctx.actor), copies=owned)
        if isinstance(action, ShowLots):
            return views.lots(state)
        if isinstance(action, ShowPhase):
            return phase_text(state, ctx.at)
        if isinstance(action, ShowRuleset):
            if action.options:
                return views.ruleset(state)
            if action.rule is not None:
                cited = await self.service.archived(guild, JudgeRequest, limit=CITING_LOOKED_AT)
                return views.rule(state, action.rule, cited)
            return views.contents(state)
        if isinstance(action, ShowTrades):
            return views.trades(state, ctx.actor)
        if isinstance(action, ShowRulesetHistory) and action.rule is not None:
            every = await self.service.archived(guild, RulesetVersion)
            return views.rule_history(state, action.rule, every, action.page)
        if isinstance(action, ShowRulesetHistory):
            reach = action.page * views.HISTORY_PAGE
            return views.ruleset_history(
                state, await self.service.archive(guild, RulesetVersion, reach=reach), action.page
            )
        if isinstance(action, ShowRulesetDiff):
            kept = {v.version for v in state.ruleset_versions}
            wanted = [n for n in {action.old, action.new} if n not in kept]
            older = await self.service.archived(guild, RulesetVersion, numbers=wanted) if wanted else []
            return views.ruleset_diff(state, action.old, action.new, older)
        if isinstance(action, ShowProposals):
            reach = action.page * views.DECIDED_PAGE
            return views.proposals(state, await self.service.archive(guild, Proposal, reach=reach), action.page)
        if isinstance(action, ShowPlacements):
            return views.placements(state, action.page)
        if isinstance(action, ShowNotices):
            return notices.settings_text(state, ctx.actor)
        if isinstance(action, ShowRulings):
            reach = action.page * views.DECIDED_PAGE
            return views.rulings(state, await self.service.archive(guild, JudgeRequest, reach=reach), action.page)
        raise RuleError(f"`{action.kind}` is not a question I can answer")
