"""Persistence: migrations, pragmas, idempotent events, event-sourced reloads and exactly-once ticks."""

from __future__ import annotations

import asyncio
import sqlite3
import tempfile
import threading
from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bot.router import Router
from data.base import StoreOpenError, migrations
from data.group_commit import Behind
from data.store import Store
from games.nomic.actions import AdminGive, Join, StartRound
from games.nomic.context import ChannelRole, Context
from games.nomic.items import Items
from games.nomic.members import unknown_member
from games.nomic.phases import BoundaryKind
from games.nomic.service import RoundService
from scheduler.due import opening
from scheduler.live import catch_up
from tests.engines import Databases, rows
from tests.support import quiet_ruleset

GUILD = "g1"
SATURDAY_NOON = datetime(2026, 12, 5, 12, tzinfo=UTC)
MEMBERS = {"alice", "bob", "carol", "mod"}


def resolve(token: str) -> str:
    name = token.strip().removeprefix("@").rstrip(",.")
    if name not in MEMBERS:
        raise unknown_member(name)
    return name


def ctx(actor: str, at: datetime, event_id: str, channel: ChannelRole = ChannelRole.GAME_ACTIONS) -> Context:
    return Context(
        actor=actor, actor_name=actor, channel=channel, at=at, is_moderator=actor == "mod", event_id=event_id
    )


async def start(service: RoundService, at: datetime = SATURDAY_NOON, seed: str = "seed") -> None:
    ruleset = quiet_ruleset()  # the tests count the boundaries' ticks
    phase, presenting = opening(ruleset, at)
    action = StartRound(ruleset=ruleset, phase=phase, presenting_open=presenting, moderators=("mod",))
    outcome = await service.start(GUILD, ctx("setup", at, "setup", ChannelRole.OTHER), action, seed=seed)
    assert outcome.accepted


@pytest.fixture
async def store(db_url: str) -> AsyncIterator[Store]:
    """A fresh store on each engine."""
    s = await Store.open(db_url)
    yield s
    await s.close()


def no_thread_left(before: set[threading.Thread]) -> None:
    """Every connection opened since ``before`` was closed: its worker thread ends (or the process would hang)."""
    for thread in set(threading.enumerate()) - before:
        thread.join(timeout=5)
        assert not thread.is_alive(), f"{thread.name} still runs: a connection was left open"


def _rows(path: Path, sql: str) -> list[tuple]:
    conn = sqlite3.connect(path)
    try:
        return conn.execute(sql).fetchall()
    finally:
        conn.close()


# --- migrations and pragmas ------------------------------------------------------------------------


async def test_migrations_apply_once_and_are_recorded(tmp_path: Path) -> None:
    path = tmp_path / "m.db"
    numbers = [n for n, _ in migrations()]
    assert numbers == list(range(1, len(numbers) + 1))
    first = await Store.open(path)
    assert await first.schema_version() == len(numbers)
    await first.close()
    recorded = _rows(path, "SELECT version, applied_at FROM schema_migrations ORDER BY version")
    assert [v for v, _ in recorded] == numbers
    for _ in range(2):
        again = await Store.open(path)
        assert await again.schema_version() == len(numbers)
        await again.close()
    assert _rows(path, "SELECT version, applied_at FROM schema_migrations ORDER BY version") == recorded
    tables = {r[0] for r in _rows(path, "SELECT name FROM sqlite_master WHERE type = 'table'")}
    assert {"guilds", "actions", "snapshots", "schema_migrations"} <= tables


async def test_migration_failure_changes_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import data.sqlite as sqlite_module  # where the SQLite engine reads the migrations

    good = migrations()
    broken = [*good, (len(good) + 1, "CREATE TABLE extra (x INTEGER); THIS IS NOT SQL;")]
    path = tmp_path / "broken.db"
    monkeypatch.setattr(sqlite_module, "migrations", lambda: broken)
    threads = set(threading.enumerate())
    with pytest.raises(StoreOpenError, match="could not upgrade it to schema version") as refused:
        await Store.open(path)
    assert isinstance(refused.value.__cause__, sqlite3.Error)
    no_thread_left(threads)
    tables = {r[0] for r in _rows(path, "SELECT name FROM sqlite_master WHERE type = 'table'")}
    assert "extra" not in tables
    assert "guilds" not in tables
    monkeypatch.setattr(sqlite_module, "migrations", lambda: good)
    s = await Store.open(path)
    assert await s.schema_version() == len(good)
    await s.close()


async def test_wal_and_synchronous_full(tmp_path: Path) -> None:
    store = await Store.open(tmp_path / "round.db")
    conn = store._conn  # the pragmas are per connection
    async with conn.execute("PRAGMA journal_mode") as cur:
        assert (await cur.fetchone())[0].lower() == "wal"
    async with conn.execute("PRAGMA synchronous") as cur:
        assert (await cur.fetchone())[0] == 2  # FULL
    async with conn.execute("PRAGMA foreign_keys") as cur:
        assert (await cur.fetchone())[0] == 1
    await store.close()


async def test_synchronous_setting_is_checked(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="synchronous"):
        await Store.open(tmp_path / "x.db", synchronous="OFF")


# --- duplicate events ----------------------------------------------------------------------------


async def test_duplicate_event_id_changes_nothing_in_the_store(store: Store) -> None:
    at = SATURDAY_NOON
    assert await store.append(GUILD, seq=1, event_id="e1", at=at, actor="a", kind="k", body="{}", seed="s")
    assert await store.append(GUILD, seq=2, event_id="e2", at=at, actor="a", kind="k", body="{}")
    before = await store.load(GUILD)
    assert not await store.append(GUILD, seq=3, event_id="e2", at=at, actor="b", kind="k2", body="{}", snapshot="x")
    assert await store.load(GUILD) == before
    assert await store.has_event(GUILD, "e2")
    assert not await store.has_event(GUILD, "e3")
    # a clash of sequence numbers is not a redelivery: the writer's copy of the guild is behind the log
    with pytest.raises(Behind) as clash:
        await store.append(GUILD, seq=2, event_id="e9", at=at, actor="a", kind="k", body="{}")
    assert store.engine.is_integrity_error(clash.value.__cause__)
    assert await store.load(GUILD) == before
    # the store still works afterwards
    assert await store.append(GUILD, seq=3, event_id="e3", at=at, actor="a", kind="k", body="{}")


async def test_event_ids_are_per_guild(store: Store) -> None:
    at = SATURDAY_NOON
    assert await store.append("a", seq=1, event_id="e1", at=at, actor="x", kind="k", body="{}", seed="s")
    assert await store.append("b", seq=1, event_id="e1", at=at, actor="x", kind="k", body="{}", seed="s")
    assert await store.guilds() == ["a", "b"]


async def test_redelivered_action_changes_nothing(store: Store) -> None:
    service = RoundService(store)
    await start(service)
    join = await service.act(GUILD, ctx("alice", SATURDAY_NOON, "msg:1"), Join())
    assert join.accepted
    give = AdminGive(target="alice", items=Items(points=10))
    assert (await service.act(GUILD, ctx("mod", SATURDAY_NOON, "msg:2"), give)).accepted
    state = await service.state(GUILD)
    again = await service.act(GUILD, ctx("mod", SATURDAY_NOON, "msg:2"), give)
    assert again.duplicate
    assert await service.state(GUILD) == state
    assert (await RoundService(store).state(GUILD)) == state


async def test_redelivered_message_gets_no_second_answer(store: Store) -> None:
    """A redelivered command is a no-op, even one whose second application would be refused."""
    service = RoundService(store)
    await start(service)
    router = Router(service)
    for text in ("!join", "!admin give @alice 5 points"):
        actor = "alice" if text == "!join" else "mod"
        c = ctx(actor, SATURDAY_NOON, f"msg:{text}")
        first = await router.message(GUILD, c, text, resolve)
        assert first
        assert not first[0].error
        state = await service.state(GUILD)
        assert await router.message(GUILD, c, text, resolve) == []
        # also after a restart, when nothing is cached
        assert await Router(RoundService(store)).message(GUILD, c, text, resolve) == []
        assert await service.state(GUILD) == state
    assert (await service.state(GUILD)).players["alice"].points == 5


# --- reloading: snapshot plus replayed tail ---------------------------------------------------------

_COMMANDS = [
    ("alice", "game-actions", "!join"),
    ("bob", "game-actions", "!join"),
    ("carol", "game-actions", "!join"),
    ("mod", "game-actions", "!admin give @alice 50 points AS KS QS JS 10S"),
    ("mod", "game-actions", "!admin give @bob 50 points 2D 2D 2D 2D 2H"),
    ("mod", "game-actions", "!admin lot AH AD"),
    ("alice", "game-actions", "!generate"),
    ("bob", "game-actions", "!generate"),
    ("alice", "auctions", "!bid 1 20"),
    ("bob", "auctions", "!bid 1 30"),
    ("carol", "auctions", "!bid 2 10"),
    ("alice", "game-actions", "!offer @bob give 5 points for 2D"),
    ("bob", "game-actions", "!accept 1"),
    ("bob", "game-actions", "!decline 2"),
    ("alice", "game-actions", "!present AS KS QS JS 10S"),
    ("bob", "game-actions", "!present 2D 2D 2D 2D 2H"),
    ("carol", "game-actions", "!leave"),
    ("mod", "game-actions", "!admin set auction.revive_bids on"),
    ("mod", "game-actions", "!admin take @bob 10 points"),
]
_step = st.one_of(
    st.sampled_from(_COMMANDS),
    st.sampled_from([timedelta(hours=7), timedelta(days=1), timedelta(days=2), timedelta(days=3)]),
)


async def _reload_roundtrip(path: Path, snapshot_every: int, steps: list) -> None:
    store = await Store.open(path, synchronous="NORMAL")
    service = RoundService(store, snapshot_every=snapshot_every)
    router = Router(service)
    await start(service)
    now = SATURDAY_NOON
    for n, step in enumerate(steps):
        if isinstance(step, timedelta):
            now += step
            await router.due_work(GUILD, now)
            continue
        actor, channel, text = step
        c = Context(
            actor=actor,
            actor_name=actor,
            channel=ChannelRole(channel),
            at=now,
            is_moderator=actor == "mod",
            event_id=f"msg:{n}",
        )
        posts = await router.message(GUILD, c, text, resolve, message_id=str(n))
        assert posts
    state = await service.state(GUILD)
    snapshot, _ = await store.load(GUILD)
    assert snapshot is not None
    await store.close()
    store = await Store.open(path, synchronous="NORMAL")
    try:
        reloaded = await RoundService(store, snapshot_every=snapshot_every).state(GUILD)
        assert reloaded == state
        # and once more, now from the snapshot the reload wrote
        assert await RoundService(store, snapshot_every=snapshot_every).state(GUILD) == state
    finally:
        await store.close()


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(snapshot_every=st.sampled_from([1, 2, 3, 7, 10_000]), steps=st.lists(_step, min_size=1, max_size=30))
def test_state_after_reopening_equals_state_before(snapshot_every: int, steps: list) -> None:
    with tempfile.TemporaryDirectory(prefix="nomic-reload-") as tmp:
        asyncio.run(_reload_roundtrip(Path(tmp) / "r.db", snapshot_every, steps))


async def test_reload_uses_snapshot_and_tail(db_url: str) -> None:
    path = db_url
    store = await Store.open(path)
    service = RoundService(store, snapshot_every=4)
    await start(service)
    for n, name in enumerate(["a1", "a2", "a3", "a4", "a5", "a6"]):
        assert (await service.act(GUILD, ctx(name, SATURDAY_NOON, f"msg:{n}"), Join())).accepted
    state = await service.state(GUILD)
    assert state is not None
    assert state.seq == 7
    snapshot, tail = await store.load(GUILD)
    assert snapshot is not None
    assert snapshot.seq == 4
    assert [row.seq for row in tail] == [5, 6, 7]
    await store.close()
    store = await Store.open(path)
    assert await RoundService(store, snapshot_every=4).state(GUILD) == state
    await store.close()


# --- ticks exactly once across restarts --------------------------------------------------------------


async def _started_with_players(path: Path | str, seed: str = "seed") -> None:
    store = await Store.open(path)
    service = RoundService(store)
    await start(service, seed=seed)
    for n, name in enumerate(["alice", "bob"]):
        assert (await service.act(GUILD, ctx(name, SATURDAY_NOON, f"msg:j{n}"), Join())).accepted
    await store.close()


async def test_catch_up_after_weeks_of_downtime_applies_each_boundary_once_in_order(db_url: str) -> None:
    path = db_url
    await _started_with_players(path)
    later = datetime(2026, 12, 27, 1, tzinfo=UTC)  # four Sundays later

    store = await Store.open(path)
    service = RoundService(store)
    applied = await catch_up(service, GUILD, later)
    expected = []
    for week in range(4):
        sunday = datetime(2026, 12, 6, tzinfo=UTC) + timedelta(weeks=week)
        expected.append((sunday, BoundaryKind.AUCTION_START))
        if week < 3:
            expected.append((sunday + timedelta(days=4), BoundaryKind.AUCTION_END))
            expected.append((sunday + timedelta(days=6), BoundaryKind.PLACEMENTS))
    assert [at for at, _ in applied] == [at for at, _ in expected]
    assert all(outcome.accepted for _, outcome in applied)
    state = await service.state(GUILD)
    assert {p: v.points for p, v in state.players.items()} == {"alice": 400, "bob": 400}
    assert state.clock == expected[-1][0]
    assert await catch_up(service, GUILD, later) == []
    await store.close()

    # a restart at the same moment applies nothing again
    store = await Store.open(path)
    service = RoundService(store)
    assert await catch_up(service, GUILD, later) == []
    assert await service.state(GUILD) == state
    await store.close()

    ticks = rows(path, "SELECT at FROM actions WHERE guild_id = 'g1' AND kind = 'tick' ORDER BY seq")
    ats = [datetime.fromisoformat(r[0]) for r in ticks]
    assert ats == sorted(set(ats))
    assert ats == [at for at, _ in expected]


async def test_catch_up_in_pieces_with_restarts_equals_one_catch_up(dbs: Databases) -> None:
    one, pieces = dbs.new("one"), dbs.new("pieces")
    await _started_with_players(one)
    await _started_with_players(pieces)
    end = datetime(2027, 1, 20, 13, tzinfo=UTC)

    store = await Store.open(one)
    await catch_up(RoundService(store), GUILD, end)
    expected = await RoundService(store).state(GUILD)
    await store.close()

    moments = [
        datetime(2026, 12, 9, tzinfo=UTC),
        datetime(2026, 12, 10, tzinfo=UTC),
        datetime(2026, 12, 24, tzinfo=UTC),
        datetime(2026, 12, 24, tzinfo=UTC),
        end,
    ]
    for moment in moments:
        store = await Store.open(pieces)
        await catch_up(RoundService(store), GUILD, moment)
        await store.close()
    store = await Store.open(pieces)
    got = await RoundService(store).state(GUILD)
    await store.close()
    assert got == expected
    weeks = 7  # Sundays from 2026-12-06 to 2027-01-17
    assert got.players["alice"].points == 100 * weeks


async def test_tick_applied_twice_is_a_duplicate(store: Store) -> None:
    from scheduler.due import next_tick

    service = RoundService(store)
    await start(service)
    state = await service.state(GUILD)
    tick = next_tick(state)
    assert (await service.tick(GUILD, tick)).accepted
    after = await service.state(GUILD)
    assert (await service.tick(GUILD, tick)).duplicate
    assert await service.state(GUILD) == after


class _Watch:
    """An ``AppendWatch`` that records what it is told."""

    def __init__(self) -> None:
        self.told: list[tuple[bool, bool]] = []
        self.queued_yet = False

    def queued(self) -> None:
        self.queued_yet = True

    def settled(self, written: bool, *, behind: bool = False) -> None:
        self.told.append((written, behind))


async def test_an_action_that_is_its_log_row_alone_tells_its_watch_what_became_of_it(store: Store) -> None:
    # most actions are their log row alone (no seed, snapshot, archive, moderators' log or joined part)
    at = SATURDAY_NOON
    assert await store.append(GUILD, seq=1, event_id="e1", at=at, actor="a", kind="k", body="{}", seed="s")
    written = _Watch()
    assert await store.append(GUILD, seq=2, event_id="e2", at=at, actor="a", kind="k", body="{}", watch=written)
    assert written.queued_yet
    assert written.told == [(True, False)]
    redelivered = _Watch()
    assert not await store.append(GUILD, seq=3, event_id="e2", at=at, actor="b", kind="k", body="{}", watch=redelivered)
    assert redelivered.told == [(False, False)]
    clash = _Watch()
    with pytest.raises(Behind):
        await store.append(GUILD, seq=2, event_id="e9", at=at, actor="a", kind="k", body="{}", watch=clash)
    assert clash.told == [(False, True)]
    _, logged = await store.load(GUILD)
    assert [row.event_id for row in logged] == ["e1", "e2"]
