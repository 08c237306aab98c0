"""A guild's writes (the round's actions, its tables' moves, its card library, its settings, a replay's
progress) are written by the process that holds it, even across a lost lock, and a process whose copy
of a guild fell behind the store reads it again instead of failing every later action.

Two sets of stores and two lock connections on one real PostgreSQL database stand for two processes
(the database of its own: advisory locks are per database). A process's writer is held at a gate
(``before_batches``) so that its write reaches the database at the moment the test chooses.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field

import asyncpg
import pytest

from data.base import OwnedElsewhereError, ReplayProgress, StatementJob, Stmt
from data.ownership import PgOwnership, lock_key
from data.store import Store
from data.stores import Stores, open_stores
from games.ictc.service import LibraryOutcome, LibraryService
from games.nomic.actions import Join, StartRound
from games.nomic.context import ChannelRole, Context
from games.nomic.modlog import ModLogEntry
from games.nomic.ruleset import Ruleset
from games.nomic.service import RoundService
from games.tables.service import Actor, TablePost, TableService
from scheduler.due import opening
from tests.engines import rows
from tests.ictc_support import resolve
from tests.pg_support import pg_db, pg_url  # noqa: F401 - the fixtures
from tests.test_group_commit import MONDAY, ctx
from tests.test_group_commit_engines import before_batches

pytestmark = pytest.mark.filterwarnings("ignore::ResourceWarning")

GUILD = "4194304001"
OTHER = "4194304002"


async def started(service: RoundService, guild: str) -> None:
    """The guild's round, with alice in it: ``setup``, ``join:alice``."""
    ruleset = Ruleset()
    phase, presenting = opening(ruleset, MONDAY)
    action = StartRound(ruleset=ruleset, phase=phase, presenting_open=presenting)
    assert (await service.start(guild, ctx("setup", "setup", ChannelRole.OTHER), action, seed="s")).accepted
    assert (await service.act(guild, ctx("alice", "join:alice"), Join())).accepted


@dataclass
class Process:
    """One process of the bot: its stores (the round's, the tables', the card library's, one writer),
    its guild locks (the round's store's fence, as the bot wires it) and its services."""

    stores: Stores
    ownership: PgOwnership
    service: RoundService
    tables: TableService
    library: LibraryService
    lost: list[str] = field(default_factory=list)

    @property
    def store(self) -> Store:
        return self.stores.round

    @classmethod
    async def open(cls, url: str) -> Process:
        stores = await open_stores(url, progress=ReplayProgress())
        ownership = await PgOwnership.open(url)
        stores.round.fence = ownership
        tables, library = TableService(stores.tables, seed="t"), LibraryService(stores.cards)
        process = cls(stores, ownership, RoundService(stores.round), tables, library)
        ownership.on_lost(process._lose)
        return process

    def _lose(self, guilds: list[str]) -> None:
        self.lost.extend(guilds)
        for guild in guilds:  # as the bot's GuildKeeper does
            self.service.forget(guild)
            self.tables.forget(guild)
            self.library.forget(guild)

    async def table(self, member: str, text: str, event: str, thread: str | None = None) -> list[TablePost]:
        """A member's command at the guild's tables (``thread``: typed in that table's thread)."""
        posts = await self.tables.command(GUILD, Actor(member, member), text, at=MONDAY, event_id=event, thread=thread)
        assert posts is not None
        return posts

    async def card(self, member: str, text: str, event: str) -> LibraryOutcome:
        """A member's ``!card`` command at the guild's card library."""
        where = Context(actor=member, actor_name=member, channel=ChannelRole.GAME_ACTIONS, at=MONDAY, event_id=event)
        return await self.library.command(GUILD, where, text, resolve)

    async def close(self) -> None:
        await self.stores.close()
        await self.ownership.close()


@pytest.fixture
async def pair(pg_db: str) -> AsyncIterator[tuple[Process, Process]]:  # noqa: F811
    a, b = await Process.open(pg_db), await Process.open(pg_db)
    try:
        yield a, b
    finally:
        await a.close()
        await b.close()


def gated(store: Store, monkeypatch: pytest.MonkeyPatch) -> tuple[asyncio.Event, asyncio.Event]:
    """The store's next batch waits at a gate: (reached, open)."""
    reached, gate = asyncio.Event(), asyncio.Event()

    async def hold() -> None:
        reached.set()
        await gate.wait()

    before_batches(store, monkeypatch, {0: hold})
    return reached, gate


async def until(condition: Callable[[], bool], what: str) -> None:
    for _ in range(1000):
        if condition():
            return
        await asyncio.sleep(0.01)
    raise AssertionError(f"waited in vain for {what}")


async def until_waiting(url: str, count: int) -> None:
    """Until ``count`` sessions of the database wait for a row lock."""
    admin = await asyncpg.connect(url)
    try:
        for _ in range(1000):
            waiting = await admin.fetchval(
                "SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND datname = current_database()"
            )
            if waiting >= count:
                return
            await asyncio.sleep(0.01)
    finally:
        await admin.close()
    raise AssertionError(f"waited in vain for {count} sessions to wait for a lock")


async def kill_lock_connection(url: str, process: Process) -> None:
    """The process's lock connection dies (its locks with it); the process hears of it only later."""
    pid = process.ownership._conn.get_server_pid()
    admin = await asyncpg.connect(url)
    try:
        await admin.fetchval("SELECT pg_terminate_backend($1, 10000)", pid)
    finally:
        await admin.close()


async def take_over(process: Process, guild: str) -> None:
    """Take the guild once the server let its old holder's lock go."""
    for _ in range(1000):
        if await process.ownership.acquire(guild):
            return
        await asyncio.sleep(0.01)
    raise AssertionError(f"{guild} never freed")


def events(url: str, guild: str) -> list[str]:
    return [str(r[0]) for r in rows(url, f"SELECT event_id FROM actions WHERE guild_id = '{guild}' ORDER BY seq")]


async def test_a_late_write_of_a_process_that_lost_its_guild_is_refused_after_the_takeover(
    pair: tuple[Process, Process], pg_db: str, monkeypatch: pytest.MonkeyPatch  # noqa: F811
) -> None:
    a, b = pair
    await a.ownership.ensure(GUILD)
    await started(a.service, GUILD)
    reached, gate = gated(a.store, monkeypatch)
    late = asyncio.create_task(a.service.act(GUILD, ctx("bob", "msg:bob"), Join()))
    await asyncio.wait_for(reached.wait(), 10)  # applied and queued by A, held before the database
    await kill_lock_connection(pg_db, a)
    await take_over(b, GUILD)
    assert await b.service.state(GUILD) is not None  # read after the takeover
    gate.set()  # A's write reaches the database only now
    with pytest.raises(OwnedElsewhereError, match="lost it to another one; nothing was changed"):
        await late
    assert not a.ownership.holds(GUILD)
    assert GUILD in a.lost
    answer = await b.service.act(GUILD, ctx("carol", "msg:carol"), Join())
    assert answer.accepted
    assert events(pg_db, GUILD) == ["setup", "join:alice", "msg:carol"]  # B's once, nothing of A after it
    state = await b.service.state(GUILD)
    assert state is not None
    assert sorted(state.players) == ["alice", "carol"]


async def test_a_takeover_waits_for_a_batch_of_the_old_holder_that_is_committing(
    pair: tuple[Process, Process], pg_db: str, monkeypatch: pytest.MonkeyPatch  # noqa: F811
) -> None:
    """The old holder's batch checked its epoch and holds the guild's row: the new holder's bump waits
    for its commit, and reads the guild with that action in it."""
    a, b = pair
    await a.ownership.ensure(GUILD)
    await started(a.service, GUILD)
    admin = await asyncpg.connect(pg_db)
    try:
        await admin.execute("INSERT INTO bot_meta (key, value) VALUES ('hold', '0')")
        blocker = admin.transaction()
        await blocker.start()
        await admin.execute("SELECT value FROM bot_meta WHERE key = 'hold' FOR UPDATE")
        reached, gate = gated(a.store, monkeypatch)
        first = asyncio.create_task(a.store.set_meta("first", "1"))  # the gated batch
        await asyncio.wait_for(reached.wait(), 10)
        joined = asyncio.create_task(a.service.act(GUILD, ctx("bob", "msg:bob"), Join()))
        held = asyncio.create_task(a.store.set_meta("hold", "1"))  # the same batch, then waits for the row
        await until(lambda: a.store.writer.waiting == 2, "the action and the held write queued")
        gate.set()
        await first
        await until_waiting(pg_db, 1)  # A's batch: its epoch checked, its action written, waiting
        await kill_lock_connection(pg_db, a)
        taking = asyncio.create_task(take_over(b, GUILD))
        await until_waiting(pg_db, 2)  # B's bump waits for A's batch
        assert not taking.done()
        await blocker.rollback()
    finally:
        await admin.close()
    assert (await joined).accepted  # committed before the takeover
    await held
    await taking
    answer = await b.service.act(GUILD, ctx("carol", "msg:carol"), Join())
    assert answer.accepted
    assert events(pg_db, GUILD) == ["setup", "join:alice", "msg:bob", "msg:carol"]


async def test_in_a_batch_only_the_guild_taken_over_is_refused(
    pair: tuple[Process, Process], pg_db: str, monkeypatch: pytest.MonkeyPatch  # noqa: F811
) -> None:
    a, _ = pair
    for guild in (GUILD, OTHER):
        await a.ownership.ensure(guild)
        await started(a.service, guild)
    reached, gate = gated(a.store, monkeypatch)
    first = asyncio.create_task(a.store.set_meta("first", "1"))
    await asyncio.wait_for(reached.wait(), 10)
    kept = asyncio.create_task(a.service.act(GUILD, ctx("bob", "msg:bob"), Join()))
    refused = asyncio.create_task(a.service.act(OTHER, ctx("bob", "msg:bob2"), Join()))
    await until(lambda: a.store.writer.waiting == 2, "both actions queued for one batch")
    try:
        admin = await asyncpg.connect(pg_db)
        try:  # another process took OTHER meanwhile (its bump, as taking the lock does)
            await admin.execute("UPDATE guild_owners SET epoch = epoch + 1 WHERE guild_id = $1", OTHER)
        finally:
            await admin.close()
    finally:
        gate.set()
    await first
    assert (await kept).accepted
    with pytest.raises(OwnedElsewhereError, match="lost it to another one; nothing was changed"):
        await refused
    assert a.lost == [OTHER]
    assert a.ownership.owned() == [GUILD]
    with pytest.raises(OwnedElsewhereError):  # not held here any more: refused before anything is queued
        await a.service.act(OTHER, ctx("carol", "msg:carol"), Join())
    assert events(pg_db, GUILD) == ["setup", "join:alice", "msg:bob"]
    assert events(pg_db, OTHER) == ["setup", "join:alice"]


async def test_a_process_whose_copy_of_a_guild_is_behind_the_log_reads_it_again(db_url: str) -> None:
    """Another process wrote the guild after this one read it: this one's next action is applied on the
    guild read again (it used to fail, and every later one with it, until a restart)."""
    first, second = await Store.open(db_url), await Store.open(db_url)
    try:
        a, b = RoundService(first), RoundService(second)
        await started(a, GUILD)
        assert await b.state(GUILD) is not None  # B's copy, read now
        assert (await a.act(GUILD, ctx("bob", "msg:bob"), Join())).accepted  # the log moves on without B
        assert (await b.act(GUILD, ctx("carol", "msg:carol"), Join())).accepted
        assert (await b.act(GUILD, ctx("dave", "msg:dave"), Join())).accepted
        state = await b.state(GUILD)
        assert state is not None
        assert sorted(state.players) == ["alice", "bob", "carol", "dave"]
    finally:
        await first.close()
        await second.close()
    assert events(db_url, GUILD) == ["setup", "join:alice", "msg:bob", "msg:carol", "msg:dave"]


async def test_a_takeover_stuck_behind_a_frozen_write_gives_the_lock_back_and_takes_it_later(
    pair: tuple[Process, Process],
    pg_db: str,  # noqa: F811
    caplog: pytest.LogCaptureFixture,
) -> None:
    """An old holder frozen in the middle of its batch keeps the guild's row: the new holder's bump
    waits a bounded time, gives the guild's lock back (another process may try), and succeeds once
    the row is free."""
    a, b = pair
    await a.ownership.ensure(GUILD)
    await started(a.service, GUILD)
    await a.ownership.release(GUILD)
    b.ownership.bump_timeout = 0.2
    admin = await asyncpg.connect(pg_db)
    try:
        frozen = admin.transaction()
        await frozen.start()
        await admin.execute("SELECT epoch FROM guild_owners WHERE guild_id = $1 FOR SHARE", GUILD)
        assert not await asyncio.wait_for(b.ownership.acquire(GUILD), 10)
        assert not b.ownership.holds(GUILD)
        assert b.ownership.epoch(GUILD) is None
        with pytest.raises(OwnedElsewhereError):
            await asyncio.wait_for(b.ownership.ensure(GUILD), 10)
        other = await asyncpg.connect(pg_db)
        try:  # the advisory lock was given back
            assert await other.fetchval("SELECT pg_try_advisory_lock($1)", lock_key(GUILD))
            await other.fetchval("SELECT pg_advisory_unlock($1)", lock_key(GUILD))
        finally:
            await other.close()
        await frozen.rollback()
    finally:
        await admin.close()
    assert sum("gave its lock back" in r.getMessage() for r in caplog.records) == 2  # one line an attempt
    assert await b.ownership.acquire(GUILD)
    assert (await b.service.act(GUILD, ctx("bob", "msg:bob"), Join())).accepted
    assert events(pg_db, GUILD) == ["setup", "join:alice", "msg:bob"]


async def test_a_late_snapshot_of_a_process_that_lost_its_guild_does_not_overwrite_the_new_holders(
    pair: tuple[Process, Process],
    pg_db: str,  # noqa: F811
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    a, b = pair
    await a.ownership.ensure(GUILD)
    await started(a.service, GUILD)
    reached, gate = gated(a.store, monkeypatch)
    late = asyncio.create_task(a.store.write_snapshot(GUILD, seq=1, at=MONDAY, body="old holder's"))
    await asyncio.wait_for(reached.wait(), 10)  # queued under A's epoch, held before the database
    await kill_lock_connection(pg_db, a)
    await take_over(b, GUILD)
    await b.store.write_snapshot(GUILD, seq=2, at=MONDAY, body="new holder's")
    gate.set()  # A's snapshot reaches the database only now
    await late  # left out without an error: a snapshot only spares replaying the log
    assert not a.ownership.holds(GUILD)
    await a.store.write_snapshot(GUILD, seq=1, at=MONDAY, body="old holder's")  # not held: not written
    assert rows(pg_db, f"SELECT seq, body FROM snapshots WHERE guild_id = '{GUILD}'") == [(2, "new holder's")]


def card(name: str) -> str:
    return f"!card new {name} | type: soldier | cost: R+1 | cr: 2 | text: A small soldier called {name}."


def logged(url: str, table: str, guild: str = GUILD) -> list[str]:
    """The event ids of a log (``table_actions`` or ``card_actions``) of the guild, in order."""
    order = "table_name, seq" if table == "table_actions" else "seq"
    return [str(r[0]) for r in rows(url, f"SELECT event_id FROM {table} WHERE guild_id = '{guild}' ORDER BY {order}")]


def seated(posts: list[TablePost]) -> bool:
    return bool(posts) and not any(p.error for p in posts)


async def test_a_frozen_writer_s_table_and_library_writes_are_refused_after_the_takeover(
    pair: tuple[Process, Process], pg_db: str, monkeypatch: pytest.MonkeyPatch  # noqa: F811
) -> None:
    """The old holder's writer holds a table's move and a library action when the guild is taken over;
    let go afterwards, neither lands, the old holder drops the guild, and the new holder goes on from
    what it read at the takeover (it used to meet the old holder's rows and fail on every next move)."""
    a, b = pair
    await a.ownership.ensure(GUILD)
    assert seated(await a.table("alice", "!play wikipedia", "t:open"))
    assert (await a.card("alice", card("Ash Imp"), "c:ash")).accepted
    reached, gate = gated(a.store, monkeypatch)
    try:
        move = asyncio.create_task(a.table("bob", "!join", "t:bob", thread="wikipedia-1"))
        await asyncio.wait_for(reached.wait(), 10)  # the move applied and queued by A, held before the database
        action = asyncio.create_task(a.card("bob", card("Bog Imp"), "c:bog"))
        await until(lambda: a.store.writer.waiting == 1, "the library's action queued behind the move")
        await kill_lock_connection(pg_db, a)
        await take_over(b, GUILD)
        assert await b.tables.find(GUILD, "wikipedia-1") is not None  # B reads the guild after the takeover
        assert "Ash Imp" in {d.name for d in (await b.library.state(GUILD)).designs.values()}
    finally:
        gate.set()  # A's writes reach the database only now
    for late in (move, action):
        with pytest.raises(OwnedElsewhereError, match="nothing was changed"):
            await late
    assert GUILD in a.lost
    assert not a.ownership.holds(GUILD)
    assert logged(pg_db, "table_actions") == ["t:open"]
    assert logged(pg_db, "card_actions") == ["c:ash"]
    # the new holder's next table move and library action go through, on what it read
    assert seated(await b.table("carol", "!join", "t:carol", thread="wikipedia-1"))
    assert (await b.card("carol", card("Cob Imp"), "c:cob")).accepted
    table = await b.tables.find(GUILD, "wikipedia-1")
    assert table is not None
    assert [s.member for s in table.humans] == ["alice", "carol"]
    assert logged(pg_db, "table_actions") == ["t:open", "t:carol"]
    assert logged(pg_db, "card_actions") == ["c:ash", "c:cob"]
    with pytest.raises(OwnedElsewhereError):  # the old holder no longer writes the guild at all
        await a.table("dave", "!join", "t:dave", thread="wikipedia-1")


async def test_a_frozen_writer_s_settings_thread_and_progress_are_refused_after_the_takeover(
    pair: tuple[Process, Process], pg_db: str, monkeypatch: pytest.MonkeyPatch  # noqa: F811
) -> None:
    """Every guild-keyed write is fenced, not only actions: a board's message, a table's thread, a
    replay's progress mark made by the old holder do not overwrite what the new holder wrote."""
    a, b = pair
    await a.ownership.ensure(GUILD)
    assert seated(await a.table("alice", "!play wikipedia", "t:open"))
    a.store.mark_finished(GUILD, 7)  # rides with A's next batch
    reached, gate = gated(a.store, monkeypatch)
    try:
        board = asyncio.create_task(a.store.set_message(GUILD, "board", "old-channel", "old-message"))
        await asyncio.wait_for(reached.wait(), 10)
        thread = asyncio.create_task(a.tables.attach_thread(GUILD, "wikipedia-1", "old-thread"))
        await until(lambda: a.store.writer.waiting == 1, "the thread's write queued behind the board's")
        await kill_lock_connection(pg_db, a)
        await take_over(b, GUILD)
        await b.store.set_message(GUILD, "board", "new-channel", "new-message")
    finally:
        gate.set()
    for late in (board, thread):
        with pytest.raises(OwnedElsewhereError):
            await late
    assert await b.store.message(GUILD, "board") == ("new-channel", "new-message")
    assert rows(pg_db, f"SELECT thread_id FROM game_tables WHERE guild_id = '{GUILD}'") == [(None,)]
    assert await b.store.finished_line(GUILD) is None
    assert await b.tables.attach_thread(GUILD, "wikipedia-1", "new-thread")
    assert rows(pg_db, f"SELECT thread_id FROM game_tables WHERE guild_id = '{GUILD}'") == [("new-thread",)]


async def test_a_process_whose_copy_of_a_guild_s_tables_is_behind_reads_them_again(db_url: str) -> None:
    """Another process moved a table after this one read it: this one's move is applied on the tables
    read again (it used to fail on the log's key, and every later move with it, until a restart)."""
    first, second = await open_stores(db_url), await open_stores(db_url)
    try:
        a, b = TableService(first.tables, seed="t"), TableService(second.tables, seed="t")

        async def say(service: TableService, member: str, text: str, event: str) -> list[TablePost]:
            posts = await service.command(
                GUILD, Actor(member, member), text, at=MONDAY, event_id=event, thread="wikipedia-1"
            )
            assert posts is not None
            return posts

        assert await a.command(GUILD, Actor("alice", "alice"), "!play wikipedia", at=MONDAY, event_id="t:open")
        assert await b.find(GUILD, "wikipedia-1") is not None  # B's copy, read now
        assert seated(await say(a, "bob", "!join", "t:bob"))  # the table moves on without B
        assert seated(await say(b, "carol", "!join", "t:carol"))
        assert seated(await say(b, "dave", "!join", "t:dave"))
        table = await b.find(GUILD, "wikipedia-1")
        assert table is not None
        assert [s.member for s in table.humans] == ["alice", "bob", "carol", "dave"]
    finally:
        await first.close()
        await second.close()
    assert logged(db_url, "table_actions") == ["t:open", "t:bob", "t:carol", "t:dave"]


async def test_a_process_whose_copy_of_a_guild_s_library_is_behind_reads_it_again(db_url: str) -> None:
    """Another process changed the card library after this one read it: this one's action is applied on
    the library read again (it used to fail with ``LibraryConflictError`` until a restart)."""
    first, second = await open_stores(db_url), await open_stores(db_url)
    try:
        a, b = LibraryService(first.cards), LibraryService(second.cards)

        async def say(service: LibraryService, member: str, text: str, event: str) -> LibraryOutcome:
            where = Context(
                actor=member, actor_name=member, channel=ChannelRole.GAME_ACTIONS, at=MONDAY, event_id=event
            )
            return await service.command(GUILD, where, text, resolve)

        assert (await say(a, "alice", card("Ash Imp"), "c:ash")).accepted
        await b.state(GUILD)  # B's copy, read now
        assert (await say(a, "bob", card("Bog Imp"), "c:bog")).accepted
        assert (await say(b, "carol", card("Cob Imp"), "c:cob")).accepted
        assert (await say(b, "dave", card("Dun Imp"), "c:dun")).accepted
        names = {d.name for d in (await b.state(GUILD)).designs.values()}
        assert {"Ash Imp", "Bog Imp", "Cob Imp", "Dun Imp"} <= names
    finally:
        await first.close()
        await second.close()
    assert logged(db_url, "card_actions") == ["c:ash", "c:bog", "c:cob", "c:dun"]


async def test_a_batch_that_meets_a_deadlock_is_written_again(
    pair: tuple[Process, Process], pg_db: str  # noqa: F811
) -> None:
    """Another session's locks cross a batch's and the server rolls the batch back to break the
    deadlock: nothing of it was written, so the writer writes it again instead of failing it."""
    a, _ = pair
    await a.store.set_meta("x", "0")
    await a.store.set_meta("y", "0")
    admin = await asyncpg.connect(pg_db)
    try:
        await admin.execute("SET deadlock_timeout = '10s'")  # the writer's session is the one that gives way
        crossing = admin.transaction()
        await crossing.start()
        await admin.execute("UPDATE bot_meta SET value = 'admin' WHERE key = 'x'")
        job = StatementJob(
            [
                Stmt("UPDATE bot_meta SET value = ? WHERE key = ?", ("writer", "y")),
                Stmt("UPDATE bot_meta SET value = ? WHERE key = ?", ("writer", "x")),
            ]
        )
        written = asyncio.ensure_future(a.store.writer.write(job))
        await until_waiting(pg_db, 1)  # the writer holds y and waits for x
        await admin.execute("UPDATE bot_meta SET value = 'admin' WHERE key = 'y'")  # the cycle
        await crossing.commit()
    finally:
        await admin.close()
    await asyncio.wait_for(written, 30)
    assert await a.store.meta("x") == "writer"
    assert await a.store.meta("y") == "writer"


async def test_a_holder_that_stops_answering_loses_its_guilds_after_the_lease(pg_db: str) -> None:  # noqa: F811
    """A process frozen with its lock connection open (SIGSTOP) renews nothing: the server ends the
    connection after the lease and another process takes its guilds over."""
    frozen = await PgOwnership.open(pg_db, lease=1)
    other = await PgOwnership.open(pg_db, lease=1)
    try:
        await frozen.ensure(GUILD)
        assert frozen._renewing is not None
        frozen._renewing.cancel()  # stopped: it renews nothing from now on, its connection stays open
        assert not await other.acquire(GUILD)
        for _ in range(1000):
            if await other.acquire(GUILD):
                break
            await asyncio.sleep(0.01)
        assert other.holds(GUILD)
        assert not await frozen.check()  # resumed, it finds its locks gone
        assert not frozen.holds(GUILD)
    finally:
        await frozen.close()
        await other.close()


GUILD_ROWS = ("guild_channels", "guild_settings", "mod_log", "held_notices", "guild_messages", "snapshots")


def guild_rows(url: str) -> dict[str, list[tuple[object, ...]]]:
    """Everything the guild's settings writes touch."""
    return {t: sorted(rows(url, f"SELECT * FROM {t} WHERE guild_id = '{GUILD}'"), key=str) for t in GUILD_ROWS}


async def test_each_setting_of_a_guild_is_written_only_under_the_epoch_it_was_made_under(
    pair: tuple[Process, Process], pg_db: str  # noqa: F811
) -> None:
    """Held, each write of the guild's settings is stored; made under an epoch another process moved on
    since (the holder has not heard yet), none is, and the process drops the guild."""
    a, _ = pair
    entry = ModLogEntry(at=MONDAY, moderator="mod", name="mod", kind="setup", what="a change")
    writes: dict[str, Callable[[], Awaitable[object]]] = {
        "bind": lambda: a.store.bind_channel(GUILD, "auctions", "c1"),
        "unbind": lambda: a.store.bind_channel(GUILD, "auctions", None),
        "role": lambda: a.store.set_moderator_role(GUILD, "r1"),
        "setup": lambda: a.store.setup_change(GUILD, entry, channels={"proposals": "c2"}, moderator_role="r2"),
        "modlog": lambda: a.store.add_mod_log(GUILD, entry),
        "hold": lambda: a.store.hold_notice(GUILD, "m1", MONDAY, "held"),
        "drop": lambda: a.store.drop_held(GUILD, "m1", through=10**9),
        "web": lambda: a.store.set_web_mode(GUILD, "hidden"),
        "board": lambda: a.store.set_message(GUILD, "board", "c3", "m3"),
    }
    await a.ownership.ensure(GUILD)
    for write in writes.values():
        before = guild_rows(pg_db)
        await write()
        assert guild_rows(pg_db) != before
    admin = await asyncpg.connect(pg_db)
    try:
        for name, write in writes.items():
            await a.ownership.ensure(GUILD)
            # another process takes the guild (its bump) before this one's write reaches the database
            await admin.execute("UPDATE guild_owners SET epoch = epoch + 1 WHERE guild_id = $1", GUILD)
            before = guild_rows(pg_db)
            with pytest.raises(OwnedElsewhereError, match="nothing was changed"):
                await write()
            assert guild_rows(pg_db) == before, name
            assert not a.ownership.holds(GUILD), name
            await a.ownership.release(GUILD)
        await a.ownership.ensure(GUILD)
        await admin.execute("UPDATE guild_owners SET epoch = epoch + 1 WHERE guild_id = $1", GUILD)
        before = guild_rows(pg_db)
        await a.store.write_snapshot(GUILD, seq=9, at=MONDAY, body="late")  # left out without an error
        assert guild_rows(pg_db) == before
    finally:
        await admin.close()
