"""A guild's actions are written by the process that holds it, even across a lost lock, and a process
whose copy of a guild fell behind the log reads it again instead of failing every later action.

Two stores and two lock connections on one real PostgreSQL database stand for two processes (the
database of its own: advisory locks are per database). A process's writer is held at a gate
(``before_batches``) so that its write reaches the database at the moment the test chooses.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field

import asyncpg
import pytest

from data.ownership import OwnedElsewhereError, PgOwnership, lock_key
from data.store import Store
from games.nomic.actions import Join, StartRound
from games.nomic.context import ChannelRole
from games.nomic.ruleset import Ruleset
from games.nomic.service import RoundService
from scheduler.due import opening
from tests.engines import rows
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
    """One process of the bot: its store, its guild locks (the store's fence, as the bot wires it)."""

    store: Store
    ownership: PgOwnership
    service: RoundService
    lost: list[str] = field(default_factory=list)

    @classmethod
    async def open(cls, url: str) -> Process:
        store = await Store.open(url)
        ownership = await PgOwnership.open(url)
        store.fence = ownership
        process = cls(store, ownership, RoundService(store))
        ownership.on_lost(process._lose)
        return process

    def _lose(self, guilds: list[str]) -> None:
        self.lost.extend(guilds)
        for guild in guilds:
            self.service.forget(guild)  # as the bot's GuildKeeper does

    async def close(self) -> None:
        await self.store.close()
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
