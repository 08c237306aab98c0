"""The group commit on both engines: concurrent actions share transactions and are answered only once
committed; a redelivered event inside a batch stays a no-op; on PostgreSQL, a batch whose transaction
the server fails fails every action in it and restores the cached states."""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from typing import Any

import pytest

from data.group_commit import Done
from data.store import Store
from games.nomic.actions import AdminGive, PlaceBid
from games.nomic.context import ChannelRole
from games.nomic.items import Items
from games.nomic.service import RoundService
from tests.engines import Databases, rows
from tests.test_group_commit import ctx, started, turn


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
        assert await first.schema_version() == await second.schema_version() == 8
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
