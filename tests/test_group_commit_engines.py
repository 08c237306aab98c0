"""The group commit on both engines: concurrent actions share transactions and are answered only once
committed; a redelivered event inside a batch stays a no-op; on PostgreSQL, a batch whose transaction
the server fails fails every action in it and restores the cached states."""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from datetime import UTC, datetime
from typing import Any

import pytest

from data.base import migrations
from data.group_commit import Done
from data.library_store import LibraryConflictError, LibraryStore
from data.store import Store
from games.nomic.actions import AdminGive, PlaceBid
from games.nomic.context import ChannelRole
from games.nomic.items import Items
from games.nomic.service import RoundService
from tests.engines import Databases, rows
from tests.test_group_commit import ctx, started, turn

NOW = datetime(2026, 12, 7, 12, tzinfo=UTC)


@pytest.fixture
async def store(db_url: str) -> AsyncIterator[Store]:
    s = await Store.open(db_url)
    yield s
    await s.close()


@pytest.fixture
async def pg_store(pg_dbs: Databases) -> AsyncIterator[Store]:
    s = await Store.open(pg_dbs.new())
    yield s
    await s.close()


def before_batches(
    store: Store, monkeypatch: pytest.MonkeyPatch, hooks: dict[int, Callable[[], Awaitable[None]]]
) -> None:
    """Run ``hooks[n]`` (awaited) before the writer starts its ``n``-th batch from now: a gate, a fault."""
    conn = store.writer.conn
    original = conn.start
    calls = itertools.count()
    pending: set[asyncio.Task[None]] = set()

    def start(jobs: Sequence[Any], done: Done) -> None:
        hook = hooks.get(next(calls))
        if hook is None:
            original(jobs, done)
            return
        task = asyncio.ensure_future(hook())
        pending.add(task)
        task.add_done_callback(lambda t: (pending.discard(t), original(jobs, done)))

    monkeypatch.setattr(conn, "start", start)


async def test_fifty_members_bidding_at_once_share_commits_and_are_answered_once_durable(store: Store) -> None:
    service = RoundService(store)
    members = [f"m{i}" for i in range(50)]
    await started(service, "g", members)
    durable_when_answered: list[bool] = []

    async def bid(n: int) -> None:
        event = f"bid:{n}"
        outcome = await service.act("g", ctx(members[n % 50], event, ChannelRole.AUCTIONS), PlaceBid(lot=1, amount=n))
        assert outcome.accepted, outcome.text()
        # read on a connection of its own, opened now: what is durable, whatever else is reading
        found = rows(store.target.url, f"SELECT 1 FROM actions WHERE guild_id = 'g' AND event_id = '{event}'")
        durable_when_answered.append(bool(found))

    before = store.writer.batches
    await asyncio.gather(*(bid(n) for n in range(1, 151)))
    assert all(durable_when_answered), "an answer came before its action was committed"
    assert store.writer.batches - before < 30, "concurrent actions should share transactions"
    state = await service.state("g")
    assert [b.amount for b in state.lots[1].bids][-1] == 150
    assert await RoundService(store).state("g") == state, "the cache is what the log replays to"


async def test_a_redelivered_event_in_a_batch_stays_a_no_op_and_aborts_nothing(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    service = RoundService(store)
    for guild in ("g", "h"):
        await started(service, guild, ["alice", "bob"], points=0)
    give = AdminGive(target="alice", items=Items(points=10))
    assert (await service.act("g", ctx("mod", "give-10"), give)).accepted
    gate = asyncio.Event()
    before_batches(store, monkeypatch, {0: gate.wait})
    blocker = asyncio.ensure_future(store.set_meta("hold", "1"))
    await turn()
    again = asyncio.ensure_future(service.act("g", ctx("mod", "give-10"), give))
    other = asyncio.ensure_future(service.act("h", ctx("mod", "h-give"), give))
    later = asyncio.ensure_future(
        service.act("g", ctx("alice", "g-bid", ChannelRole.AUCTIONS), PlaceBid(lot=1, amount=10))
    )
    await turn()
    assert store.writer.waiting == 3, "the three share the next transaction"
    gate.set()
    await blocker
    assert (await again).duplicate
    assert (await other).accepted
    assert (await later).accepted, "applied again on the state without the redelivered give, and taken"
    state = await service.state("g")
    assert state.players["alice"].points == 10, "the give counted once"
    for guild in ("g", "h"):
        assert await RoundService(store).state(guild) == await service.state(guild)


async def test_the_card_library_rides_the_rounds_batches_on_either_engine(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The library writes through the round's writer (no commit of its own): its actions share a batch
    with the round's, a stale one is refused alone, a redelivered one changes nothing."""
    cards = await LibraryStore.open(store.target, store=store)
    gate = asyncio.Event()
    try:
        service = RoundService(store)
        await started(service, "g", ["alice"])

        def action(seq: int, event: str) -> tuple[Any, Any]:
            changes = cards.changes(seq=seq, previous_seq=seq - 1, meta=f"m{seq}", first=seq == 1)
            return changes, cards.entry(event_id=event, at=NOW, actor="alice", kind="k", body="{}")

        before_batches(store, monkeypatch, {0: gate.wait})
        before = store.writer.batches
        blocker = asyncio.ensure_future(store.set_meta("hold", "1"))
        await turn()
        give = asyncio.ensure_future(
            service.act("g", ctx("mod", "give"), AdminGive(target="alice", items=Items(points=1)))
        )
        first = asyncio.ensure_future(cards.commit("g", *action(1, "c1")))
        stale = asyncio.ensure_future(cards.commit("g", *action(1, "c2")))
        await turn()
        assert store.writer.waiting == 3, "the library's actions queue at the round's writer"
        gate.set()
        await blocker
        assert (await give).accepted
        assert await first
        with pytest.raises(LibraryConflictError):
            await stale
        assert store.writer.batches == before + 2, "the give and both library actions shared one batch"
        assert not await cards.commit("g", *action(1, "c1")), "a redelivered event changes nothing"
        assert await cards.log("g") == [(1, "c1", "k")]
        assert rows(store.target.url, "SELECT guild_id, seq FROM card_libraries") == [("g", 1)]
    finally:
        gate.set()  # a failed check must not leave the writer waiting
        await cards.close()


async def test_a_batch_the_server_fails_fails_each_action_and_restores_the_states(
    pg_store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    """SQLite's failed batch is in tests/test_group_commit.py."""
    store = pg_store
    service = RoundService(store)
    for guild in ("g", "h"):
        await started(service, guild, ["alice", "bob"])
    before = {guild: await service.state(guild) for guild in ("g", "h")}
    gate = asyncio.Event()

    import asyncpg

    locker = await asyncpg.connect(store.target.url)
    locked = locker.transaction()

    async def lock_the_log() -> None:
        """Another session holds the action log locked; the writer waits 100 ms at most, then its
        transaction fails (the server's error, as for a full disk)."""
        await locked.start()
        await locker.execute("LOCK TABLE actions IN ACCESS EXCLUSIVE MODE")
        await store.writer.conn.call(lambda conn: conn.execute("SET lock_timeout = '100ms'"))  # type: ignore[attr-defined]

    before_batches(store, monkeypatch, {0: gate.wait, 1: lock_the_log})
    blocker = asyncio.ensure_future(store.set_meta("hold", "1"))
    await turn()
    bids = [
        asyncio.ensure_future(service.act(g, ctx(m, f"{g}{m}", ChannelRole.AUCTIONS), PlaceBid(lot=1, amount=a)))
        for g, m, a in (("g", "alice", 5), ("h", "alice", 7), ("g", "bob", 9))
    ]
    await turn()
    assert store.writer.waiting == 3
    gate.set()
    await blocker
    results = await asyncio.gather(*bids, return_exceptions=True)
    await locked.rollback()
    await locker.close()
    assert all(isinstance(r, asyncpg.LockNotAvailableError) for r in results), results
    for guild in ("g", "h"):
        assert await service.state(guild) == before[guild]
        assert await RoundService(store).state(guild) == before[guild]
        assert not await store.has_event(guild, f"{guild}alice")
    # the store works on, and the same bids are taken now
    again = await service.act("g", ctx("alice", "ga2", ChannelRole.AUCTIONS), PlaceBid(lot=1, amount=5))
    assert again.accepted
    assert await RoundService(store).state("g") == await service.state("g")


async def test_the_writer_reconnects_after_the_server_dropped_its_connection(pg_store: Store) -> None:
    """A server restart or a failover drops the writer's connection."""
    store = pg_store
    service = RoundService(store)
    await started(service, "g", ["alice"])
    pid = await store.writer.conn.call(lambda conn: asyncio.sleep(0, conn.get_server_pid()))  # type: ignore[attr-defined]
    await store._conn.execute("SELECT pg_terminate_backend(?, 5000)", (pid,))
    outcomes: list[Any] = []
    for n in range(3):  # the first may meet the dead connection; the store must not stay broken
        try:
            bid = PlaceBid(lot=1, amount=5 + n)
            outcomes.append(await service.act("g", ctx("alice", f"b{n}", ChannelRole.AUCTIONS), bid))
        except Exception as exc:  # noqa: BLE001 - what the adapters answer as "something went wrong"
            outcomes.append(exc)
    assert outcomes[-1].accepted, outcomes
    assert await RoundService(store).state("g") == await service.state("g")


async def test_two_processes_open_one_database_at_once_and_write_their_own_guilds(pg_dbs: Databases) -> None:
    """Two bots (each its own connections and writer) starting together on one PostgreSQL database
    migrate it once and write side by side; each sees the other's committed rows."""
    db_url = pg_dbs.new()
    first, second = await asyncio.gather(Store.open(db_url), Store.open(db_url))
    try:
        assert await first.schema_version() == await second.schema_version() == len(migrations())
        services = {"a": RoundService(first), "b": RoundService(second)}
        for guild, service in services.items():
            await started(service, guild, ["alice", "bob"])

        async def bids(guild: str) -> None:
            for n in range(20):
                bid = PlaceBid(lot=1, amount=10 + n)
                member = "alice" if n % 2 else "bob"
                where = ctx(member, f"{guild}{n}", ChannelRole.AUCTIONS)
                assert (await services[guild].act(guild, where, bid)).accepted

        await asyncio.gather(bids("a"), bids("b"))
        assert await first.guilds() == await second.guilds() == ["a", "b"]
        assert await RoundService(first).state("b") == await services["b"].state("b")
        assert await RoundService(second).state("a") == await services["a"].state("a")
    finally:
        await first.close()
        await second.close()


@pytest.mark.parametrize("committed", [True, False], ids=["committed", "not-committed"])
async def test_a_connection_lost_during_commit_is_answered_by_what_the_server_kept(
    pg_store: Store, monkeypatch: pytest.MonkeyPatch, committed: bool
) -> None:
    """The server (or the network) drops the writer's connection while COMMIT is on its way: the
    client cannot tell whether it committed. The writer asks on a new connection (the event ids'
    check): actions that are durable are answered as taken, and the cache follows what the log holds,
    so the guild's next actions do not clash with rows the bot does not know of."""
    import asyncpg
    from asyncpg.transaction import Transaction

    store = pg_store
    service = RoundService(store)
    await started(service, "g", ["alice", "bob"])
    original = Transaction.commit
    commits: list[bool] = []

    async def commit_then_drop(self: Transaction) -> None:
        commits.append(True)
        if len(commits) != 2:  # the first is the blocker's, the second the bids'
            await original(self)
            return
        if committed:
            await original(self)
        self._connection.terminate()  # type: ignore[attr-defined]
        raise asyncpg.ConnectionDoesNotExistError("connection was closed in the middle of operation")

    monkeypatch.setattr(Transaction, "commit", commit_then_drop)
    gate = asyncio.Event()
    before_batches(store, monkeypatch, {0: gate.wait})
    blocker = asyncio.ensure_future(store.set_meta("hold", "1"))
    await turn()
    bids = [
        asyncio.ensure_future(service.act("g", ctx(m, f"bid-{m}", ChannelRole.AUCTIONS), PlaceBid(lot=1, amount=a)))
        for m, a in (("alice", 5), ("bob", 9))
    ]
    await turn()
    gate.set()
    await blocker
    results = await asyncio.gather(*bids, return_exceptions=True)
    assert len(commits) >= 2
    logged = [await store.has_event("g", f"bid-{m}") for m in ("alice", "bob")]
    if committed:
        assert logged == [True, True]
        assert all(not isinstance(r, BaseException) and r.accepted for r in results), results
    else:
        assert logged == [False, False]
        assert all(isinstance(r, asyncpg.ConnectionDoesNotExistError) for r in results), results
    assert await service.state("g") == await RoundService(store).state("g"), "the cache is what the log holds"
    later = await service.act("g", ctx("alice", "bid-later", ChannelRole.AUCTIONS), PlaceBid(lot=1, amount=20))
    assert later.accepted, later.text()
    assert await service.state("g") == await RoundService(store).state("g")


async def test_a_lone_action_whose_answer_was_lost_is_found_durable(
    pg_store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An action alone in its batch is one statement, its own transaction: its answer lost on the way
    back is the same unknown as a lost COMMIT's."""
    import asyncpg

    from data.postgres import PgConn

    store = pg_store
    service = RoundService(store)
    await started(service, "g", ["alice", "bob"])
    original = PgConn._run
    dropped: list[str] = []

    async def run_then_drop(self: PgConn, sql: str, params: tuple[Any, ...]) -> Any:
        cursor = await original(self, sql, params)
        if self.pool is None and sql.startswith("INSERT INTO actions") and not dropped:
            dropped.append(sql)
            self._target.terminate()
            raise asyncpg.ConnectionDoesNotExistError("connection was closed in the middle of operation")
        return cursor

    monkeypatch.setattr(PgConn, "_run", run_then_drop)
    bid = await service.act("g", ctx("alice", "bid-1", ChannelRole.AUCTIONS), PlaceBid(lot=1, amount=5))
    assert dropped
    assert bid.accepted, bid.text()
    assert await service.state("g") == await RoundService(store).state("g")
    later = await service.act("g", ctx("bob", "bid-2", ChannelRole.AUCTIONS), PlaceBid(lot=1, amount=9))
    assert later.accepted, later.text()
    assert await service.state("g") == await RoundService(store).state("g")


async def test_a_value_the_database_cannot_take_fails_its_own_write_only(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A text with a NUL character (PostgreSQL refuses it) or a number past 64 bits (both engines
    refuse it) in one write of a batch: that write fails, the other guilds' actions sharing its
    transaction are taken, as on SQLite."""
    service = RoundService(store)
    for guild in ("g", "h"):
        await started(service, guild, ["alice", "bob"])
    gate = asyncio.Event()
    before_batches(store, monkeypatch, {0: gate.wait})
    blocker = asyncio.ensure_future(store.set_meta("hold", "1"))
    await turn()
    g_bid = asyncio.ensure_future(service.act("g", ctx("alice", "g1", ChannelRole.AUCTIONS), PlaceBid(lot=1, amount=5)))
    notice = asyncio.ensure_future(store.hold_notice("g", "bob", NOW, "outbid on \x00 lot 1"))
    dropped = asyncio.ensure_future(store.drop_held("g", "bob", through=2**70))
    h_bid = asyncio.ensure_future(service.act("h", ctx("bob", "h1", ChannelRole.AUCTIONS), PlaceBid(lot=1, amount=7)))
    await turn()
    assert store.writer.waiting == 4, "the four share the next transaction"
    gate.set()
    await blocker
    assert (await g_bid).accepted
    assert (await h_bid).accepted
    if store.target.postgres:
        import asyncpg

        for refused in (notice, dropped):
            with pytest.raises(asyncpg.DataError):
                await refused
    else:
        await notice
        with pytest.raises(OverflowError):
            await dropped
    for guild in ("g", "h"):
        assert await RoundService(store).state(guild) == await service.state(guild)
