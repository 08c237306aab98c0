"""The tables' service core: the pure table model joined to the store, one guild at a time.

An action is applied to the cached table, its log entry and the table's new state commit in one
transaction, and only then does the cache change and the answer go out. A redelivered event id
changes nothing and gets no answer. Scheduled work (reminders, timeouts, a lobby's expiry) is
derived from the stored tables and applied at its own instant, so catching up after downtime
applies each once, in time order.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Sequence
from contextlib import AbstractAsyncContextManager, AsyncExitStack
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Protocol

from data.group_commit import Stale
from games.tables import lobby
from games.tables.access import setup_text
from games.tables.actions import (
    ACTION_ADAPTER,
    ExpireLobby,
    OpenTable,
    TableAction,
    TurnReminder,
    TurnTimeout,
)
from games.tables.engine import GameRuleError, MoveForm, NotASeatError
from games.tables.events import TableEvent
from games.tables.i18n import DEFAULT, LANGUAGES, tr
from games.tables.model import Table, TableError, TableOptions, TableStatus
from games.tables.posts import TablePost, opened_post, route
from games.tables.registry import get_game
from games.tables.text import framework_error

MAX_DUE_STEPS = 10_000
"""More reminders and timeouts than this in one catch-up means a broken clock, not downtime."""
MAX_REAPPLY = 5
"""Times an action is applied again on the guild's tables read again, after its commit met rows
another process wrote (``Stale``), before it is refused: only a store that keeps changing gets there."""
SYSTEM = "system"
log = logging.getLogger(__name__)


# --- what the service needs of the store -----------------------------------------------------


class StoredTableLike(Protocol):
    @property
    def name(self) -> str: ...
    @property
    def thread_id(self) -> str | None: ...
    @property
    def body(self) -> str: ...


class TableStoreLike(Protocol):
    """What the service needs of persistence (``data.table_store.TableStore`` provides it)."""

    async def open_tables(self, guild: str) -> Sequence[StoredTableLike]: ...

    async def all_tables(self, guild: str) -> Sequence[StoredTableLike]: ...

    async def table(self, guild: str, key: str) -> StoredTableLike | None: ...

    async def last_number(self, guild: str, game: str) -> int: ...

    async def has_event(self, guild: str, event_id: str) -> bool: ...

    async def commit(
        self,
        guild: str,
        *,
        name: str,
        game: str,
        number: int,
        status: str,
        seed: str,
        seq: int,
        body: str,
        opened_at: datetime,
        event_id: str,
        at: datetime,
        actor: str,
        kind: str,
        action: str,
        source_line: int | None = None,
        joined: Sequence[Any] = (),
    ) -> bool: ...

    async def attach_thread(self, guild: str, name: str, thread_id: str) -> bool: ...

    async def guilds_with_open_tables(self) -> list[str]: ...


class SideWrite(Protocol):
    """Another store's part of a table's action (card copies a battle's end moves), written in the
    table's own transaction (``TableStoreLike.commit``'s ``joined``): both commit, or neither."""

    @property
    def notes(self) -> tuple[str, ...]:
        """What to say in the table's thread once it is durable (empty: nothing)."""
        ...

    def committed(self) -> None:
        """The transaction is durable."""


Joining = Callable[[Table], AbstractAsyncContextManager[SideWrite | None]]
"""The other store's part of one action, given the table as the action leaves it; valid (its store's
lock held) while the context is open. A ``GameRuleError`` raised on entry refuses the action."""

EndKeeper = Callable[[str, Table, datetime], AbstractAsyncContextManager[SideWrite | None]]
"""What outlives a table ending now (guild, the ended table, the instant): its part of the ending
transaction, or None (see ``TableCore.keep_ends``)."""


# --- values the adapters get ------------------------------------------------------------------


@dataclass(frozen=True)
class Actor:
    """Who acts: a member's id, the name they are shown by, and whether they moderate the server."""

    id: str
    name: str
    moderator: bool = False


@dataclass(frozen=True)
class TableOutcome:
    """The result of one table action: the table after it and what to post, or why nothing happened."""

    table: Table | None = None
    posts: tuple[TablePost, ...] = ()
    error: GameRuleError | None = None
    duplicate: bool = False
    events: tuple[TableEvent, ...] = field(default=())

    @property
    def accepted(self) -> bool:
        return self.error is None and not self.duplicate


SENTENCE_ENDS = (".", "!", "?", "…", "。", "！", "？")
"""A sentence ending in one of these has its stop already: a refusal adds none."""


def error_text(error: GameRuleError, lang: str = DEFAULT) -> str:
    """A refusal in ``lang`` (the table's, or the game's default before the table exists): the
    framework's words around the error's sentence, in ``lang`` when the error carries it there."""
    said = str(error.in_language(lang)).strip()
    words = lang if lang in LANGUAGES else DEFAULT
    if not said.endswith(SENTENCE_ENDS):
        said += tr(words, "refusal.stop")
    return tr(words, "refusal.text", why=said)


def refusal(error: GameRuleError, lang: str = DEFAULT, actor: str | None = None) -> TablePost:
    """A refusal as a post: in reply where the command was typed, or to ``actor`` alone when its words
    tell what the actor holds (``GameRuleError.private``)."""
    text = error_text(error, lang)
    if error.private and actor is not None:
        return TablePost(text, private=True, error=True, kind="error", to=(actor,))
    return TablePost(text, error=True, kind="error")


def _error(error: GameRuleError, lang: str = DEFAULT, actor: str | None = None) -> TableOutcome:
    return TableOutcome(error=error, posts=(refusal(error, lang, actor),))


def _with_earlier(outcome: TableOutcome, earlier: Sequence[TablePost]) -> TableOutcome:
    """``outcome`` with the posts of the scheduled work applied just before it in front."""
    if not earlier:
        return outcome
    return TableOutcome(outcome.table, (*earlier, *outcome.posts), outcome.error, outcome.duplicate, outcome.events)


def _language(table: Table | None, action: TableAction) -> str:
    """The language a refusal of ``action`` speaks: the table's, or, opening one, the language asked
    for or else the game's own default."""
    if table is not None:
        return table.lang
    if isinstance(action, OpenTable):
        if action.lang is not None:
            return action.lang
        try:
            return get_game(action.game).languages[0]
        except GameRuleError:
            return DEFAULT
    return DEFAULT


# --- the service ------------------------------------------------------------------------------


class TableCore:
    """Tables of every guild: cached while open, loaded from the store on first use.

    ``seed`` (the simulator's ``--seed``) derives each table's seed from its guild and name, so a
    replay repeats exactly; without it every table gets a fresh ``secrets`` seed. Either way the
    seed is stored with the table. ``options`` are the defaults of new tables (e.g. the turn limit).
    """

    def __init__(self, store: TableStoreLike, *, seed: str | None = None, options: TableOptions | None = None) -> None:
        self._store = store
        self._seed = seed
        self._defaults = options or TableOptions()
        self._open: dict[str, dict[str, Table]] = {}
        self._threads: dict[str, dict[str, str]] = {}
        self._next: dict[str, tuple[dict[str, Table], datetime | None]] = {}
        """Each guild's next reminder or timeout, with the tables it was found among: the scheduler asks
        before every command; a table's change (``_commit``) or reading the tables again drops it."""
        self._locks: dict[str, asyncio.Lock] = {}
        self._keepers: list[EndKeeper] = []

    def keep_ends(self, keeper: EndKeeper) -> None:
        """Ask ``keeper`` for its part of every transaction that ends a table (the outcomes that outlive
        it: a kitty's card copies), however the table ends (a win, a moderator, a timeout)."""
        self._keepers.append(keeper)

    def _lock(self, guild: str) -> asyncio.Lock:
        return self._locks.setdefault(guild, asyncio.Lock())

    def forget(self, guild: str) -> None:
        """Drop the guild's cached tables (another process may have changed them): read again on next use."""
        self._open.pop(guild, None)
        self._threads.pop(guild, None)
        self._next.pop(guild, None)

    # -- reading --

    async def _guild(self, guild: str) -> dict[str, Table]:
        cached = self._open.get(guild)
        if cached is not None:
            return cached
        rows = await self._store.open_tables(guild)
        tables = {row.name: Table.model_validate_json(row.body) for row in rows}
        self._threads[guild] = {row.thread_id: row.name for row in rows if row.thread_id is not None}
        self._open[guild] = tables
        return tables

    async def find(self, guild: str, key: str) -> Table | None:
        """A table by its name (``wikipedia-1``) or its thread's id; ended tables too."""
        tables = await self._guild(guild)
        name = self._threads.get(guild, {}).get(key, key)
        if name in tables:
            return tables[name]
        row = await self._store.table(guild, key)
        return Table.model_validate_json(row.body) if row is not None else None

    async def open_tables(self, guild: str) -> list[Table]:
        """Tables in the lobby or under way, oldest first."""
        return sorted((await self._guild(guild)).values(), key=lambda t: (t.opened_at, t.name))

    async def all_tables(self, guild: str) -> list[Table]:
        """Every table the guild opened, ended ones included, oldest first."""
        await self._guild(guild)
        cached = self._open.get(guild, {})
        rows = await self._store.all_tables(guild)
        return [cached.get(row.name) or Table.model_validate_json(row.body) for row in rows]

    async def attach_thread(self, guild: str, table: str, thread_id: str) -> bool:
        """Bind a table to the Discord thread the adapter made for it (lookups by id then work)."""
        async with self._lock(guild):
            await self._guild(guild)
            if not await self._store.attach_thread(guild, table, thread_id):
                return False
            self._threads.setdefault(guild, {})[thread_id] = table
            return True

    async def thread_of(self, guild: str, table: str) -> str | None:
        """The Discord thread id bound to ``table``, if any."""
        await self._guild(guild)
        for thread, name in self._threads.get(guild, {}).items():
            if name == table:
                return thread
        row = await self._store.table(guild, table)
        return row.thread_id if row is not None else None

    async def guilds(self) -> list[str]:
        """Guilds with tables in the lobby or under way (the live scheduler's start)."""
        return await self._store.guilds_with_open_tables()

    async def board(self, guild: str, table: str, now: datetime | None = None) -> str:
        found = await self._require(guild, table)
        return lobby.board_text(found, now)

    async def hand(self, guild: str, table: str, actor: Actor) -> str:
        """The actor's private view (in the lobby: what they bring). ``GameRuleError`` (not seated,
        not started and nothing brought) otherwise."""
        found = await self._require(guild, table)
        seat = found.seat_of(actor.id)
        if seat is None:
            raise NotASeatError(tr(found.lang, "error.not_playing"))
        brought = setup_text(found, seat).private if found.board is None else None
        if brought:
            head = tr(found.lang, "hand.head", table=found.name, seat=seat.name)
            return head + "\n" + tr(found.lang, "hand.lobby", what=brought)
        state = lobby.game_state(found)
        view = lobby.engine_of(found).private_view(state, seat.name, found.lang)
        return tr(found.lang, "hand.head", table=found.name, seat=seat.name) + "\n" + view

    async def legal_moves(self, guild: str, table: str, actor: Actor) -> list[str]:
        """The command texts (without ``!``) the actor may play now: what buttons and menus offer."""
        found = await self._require(guild, table)
        seat = found.seat_of(actor.id)
        if seat is None or found.status is not TableStatus.PLAYING or seat.autopilot:
            return []
        engine = lobby.engine_of(found)
        state = lobby.game_state(found)
        return [engine.format_action(state, a) for a in engine.legal_actions(state, seat.name)]

    async def move_forms(self, guild: str, table: str, actor: Actor) -> tuple[MoveForm, ...]:
        """The actor's moves made of several picks (a Move's cards), as forms for their private view."""
        found = await self._require(guild, table)
        seat = found.seat_of(actor.id)
        if seat is None or found.status is not TableStatus.PLAYING or seat.autopilot:
            return ()
        engine = lobby.engine_of(found)
        return tuple(engine.move_forms(lobby.game_state(found), seat.name, found.lang))

    @staticmethod
    def rules(game: str, lang: str | None = None) -> str:
        """A game's rules in our own words, with its options. ``BadCommandError`` for an unknown game."""
        from games.tables.options import options_help

        engine = get_game(game)
        lang = lang if lang in engine.languages else engine.languages[0]
        return engine.rules_text(lang) + "\n\n" + options_help(engine, lang)

    async def _require(self, guild: str, table: str) -> Table:
        found = await self.find(guild, table)
        if found is None:
            raise framework_error(TableError, "error.no_table_listed", table=table[:40].replace("`", ""))
        return found

    async def _run(
        self,
        guild: str,
        table: str,
        build: Callable[[Table], TableAction],
        actor: Actor,
        *,
        at: datetime,
        event_id: str,
        source_line: int | None,
    ) -> TableOutcome:
        """The one path of every table action: dedupe, catch up the table's timers, build, commit."""

        async def attempt(earlier: list[TablePost]) -> TableOutcome:
            if await self.logged(guild, event_id):
                return TableOutcome(duplicate=True)
            found = await self.find(guild, table)
            if found is None:
                return _error(framework_error(TableError, "error.no_table", table=table[:40].replace("`", "")))
            earlier += await self._catch_up_locked(guild, found.name, at)
            found = (await self._guild(guild)).get(found.name, found)
            try:
                action = build(found)
            except GameRuleError as exc:
                failed = _error(exc, found.lang, actor.id)
                return _with_earlier(TableOutcome(table=found, posts=failed.posts, error=exc), earlier)
            outcome = await self._commit(
                guild, found, action, actor=actor.id, at=at, event_id=event_id, source_line=source_line
            )
            return _with_earlier(outcome, earlier)

        return await self._fresh(guild, attempt)

    async def _fresh(self, guild: str, attempt: Callable[[list[TablePost]], Awaitable[TableOutcome]]) -> TableOutcome:
        """``attempt`` under the guild's lock, tried again on the guild's tables read again while its
        commit meets rows another process wrote since they were read (``Stale``: ``_commit`` forgot
        them), at most ``MAX_REAPPLY`` times; then refused, nothing done. ``attempt`` adds the posts of
        the scheduled work it applied on its way to its list: they stand whatever becomes of it."""
        earlier: list[TablePost] = []
        async with self._lock(guild):
            for _ in range(MAX_REAPPLY):
                try:
                    return await attempt(earlier)
                except Stale as exc:
                    log.warning("guild %s: %s; applying the action again on what is stored now", guild, exc)
        return _with_earlier(_error(framework_error(TableError, "error.changed_meanwhile")), earlier)

    async def logged(self, guild: str, event_id: str) -> bool:
        """Whether a table's log holds an action of ``event_id``."""
        return bool(event_id) and await self._store.has_event(guild, event_id)

    async def _commit(
        self,
        guild: str,
        table: Table | None,
        action: TableAction,
        *,
        actor: str,
        at: datetime,
        event_id: str,
        source_line: int | None,
        joining: Joining | None = None,
    ) -> TableOutcome:
        seq = 1 if table is None else table.seq + 1
        seed = action.seed if isinstance(action, OpenTable) else table.seed if table is not None else ""
        try:
            step = lobby.apply(table, action, at, lobby.action_rng(seed, seq))
        except GameRuleError as exc:
            failed = _error(exc, _language(table, action), actor)
            return TableOutcome(table=table, posts=failed.posts, error=exc)
        new = step.table
        ends = table is not None and table.status.open and not new.status.open
        async with AsyncExitStack() as stack:
            sides: list[SideWrite] = []
            try:
                for part in (joining(new) if joining is not None else None, *self._ending(guild, new, at, ends)):
                    side = await stack.enter_async_context(part) if part is not None else None
                    if side is not None:
                        sides.append(side)
            except GameRuleError as exc:
                failed = _error(exc, _language(table, action), actor)
                return TableOutcome(table=table, posts=failed.posts, error=exc)
            try:
                stored = await self._store.commit(
                    guild,
                    name=new.name,
                    game=new.game,
                    number=new.number,
                    status=new.status.value,
                    seed=new.seed,
                    seq=new.seq,
                    body=new.model_dump_json(),
                    opened_at=new.opened_at,
                    event_id=event_id or f"{new.name}:{new.seq}",
                    at=at,
                    actor=actor,
                    kind=action.kind,
                    action=ACTION_ADAPTER.dump_json(action).decode(),
                    source_line=source_line,
                    joined=tuple(sides),
                )
            except Stale:
                self.forget(guild)  # another process wrote the guild's tables since they were read here
                raise
        if not stored:
            return TableOutcome(table=table, duplicate=True)
        tables = await self._guild(guild)
        if new.status.open:
            tables[new.name] = new
        else:
            tables.pop(new.name, None)
        self._next.pop(guild, None)
        posts = route(new, step.events, at)
        notes = [TablePost(note, table=new.name, kind="move", at=at) for side in sides for note in side.notes]
        if notes:
            ending = next((i for i, p in enumerate(posts) if p.kind == "end"), len(posts))
            posts[ending:ending] = notes
        if isinstance(action, OpenTable):
            posts.insert(0, opened_post(new, at))
        return TableOutcome(table=new, posts=tuple(posts), events=step.events)

    def _ending(
        self, guild: str, table: Table, at: datetime, ends: bool
    ) -> list[AbstractAsyncContextManager[SideWrite | None]]:
        return [keeper(guild, table, at) for keeper in self._keepers] if ends else []

    # -- scheduled work --

    async def next_due(self, guild: str) -> datetime | None:
        """The instant of the guild's next reminder or timeout, if any table has one."""
        tables = await self._guild(guild)
        kept = self._next.get(guild)
        if kept is not None and kept[0] is tables:
            return kept[1]
        due = [d[0] for t in tables.values() if (d := lobby.next_work(t)) is not None]
        found = min(due) if due else None
        self._next[guild] = (tables, found)
        return found

    def kept_next_due(self, guild: str) -> tuple[datetime | None] | None:
        """``next_due`` when the cache already holds it (in a 1-tuple), without a coroutine: the router asks
        before every command. None: not kept, ask ``next_due``."""
        tables = self._open.get(guild)
        kept = self._next.get(guild)
        if tables is None or kept is None or kept[0] is not tables:
            return None
        return (kept[1],)

    async def due(self, guild: str, now: datetime) -> list[TablePost]:
        """Apply every reminder and timeout due by ``now``, in time order, each once; their posts."""
        async with self._lock(guild):
            return await self._catch_up_locked(guild, None, now)

    async def _catch_up_locked(self, guild: str, only: str | None, now: datetime) -> list[TablePost]:
        posts: list[TablePost] = []
        stale = 0
        for _ in range(MAX_DUE_STEPS):
            tables = await self._guild(guild)
            looked = tables.values() if only is None else [tables[only]] if only in tables else []
            pending = sorted(
                (d[0], t.name, d[1], d[2] or "")
                for t in looked
                if (d := lobby.next_work(t)) is not None and d[0] <= now
            )
            if not pending:
                break
            at, name, kind, key = pending[0]
            action: TableAction
            if kind == "remind":
                action = TurnReminder(key=key or None)
            elif kind == "timeout":
                action = TurnTimeout(key=key or None)
            else:
                action = ExpireLobby()
            event_id = f"due:{name}:{kind}:{key}:{at.isoformat()}"
            try:
                outcome = await self._commit(
                    guild, tables[name], action, actor=SYSTEM, at=at, event_id=event_id, source_line=None
                )
            except Stale as exc:  # the tables were forgotten: the next turn reads them again
                stale += 1
                if stale >= MAX_REAPPLY:
                    raise
                log.warning("guild %s: %s; catching up on its tables read again", guild, exc)
                continue
            if not outcome.accepted:
                break
            posts.extend(outcome.posts)
        return posts
