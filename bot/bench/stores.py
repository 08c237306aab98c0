"""``python -m bot bench --postgres URL``: durable actions per second on each engine, in one run.

Each round of the run times, one after the other on fresh databases: the round's store on SQLite
(synchronous=FULL) and on PostgreSQL taking ``actions`` moderator gifts through ``RoundService``
(parse-free: the service checks, logs and commits each), once one at a time (every action waits
for its own commit) and once from 50 members at once (the group commit shares transactions);
then raw single-row commits on each engine (aiosqlite with the store's PRAGMAs, asyncpg in
autocommit), the most a single writer gets from the disk or the server. The rounds interleave the
engines so a busy neighbour or a warming cache weighs on all of them alike; the report gives the
min and median over the rounds. PostgreSQL's figures are the server's: run it with its durable
defaults (fsync on, synchronous_commit on) for figures worth comparing.
"""

from __future__ import annotations

import asyncio
import statistics
import sys
import time
import uuid
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import aiosqlite

from data.base import StoreOpenError, Target, UnusableUrlError, is_postgres, redact, target
from data.ownership import PgOwnership, fence_of
from data.store import Store
from games.nomic.actions import AdminGive, Join, StartRound
from games.nomic.context import ChannelRole, Context
from games.nomic.items import Items
from games.nomic.ruleset import load_ruleset
from games.nomic.service import RoundService
from scheduler.due import opening

AT = datetime(2026, 1, 5, 12, tzinfo=UTC)
"""A Monday: the auction phase, any moderator's gift is taken."""
MEMBERS = 50


async def raw_commits(path: Path, rows: int) -> float:
    """Single-row durable commits per second: one autocommit INSERT a row, the cheapest durable write.

    It is the same shape as the store's own append (one statement, its own transaction).
    """
    conn = await aiosqlite.connect(str(path), isolation_level=None)
    try:
        await conn.execute("PRAGMA journal_mode=WAL")
        await conn.execute("PRAGMA synchronous=FULL")
        await conn.execute("PRAGMA foreign_keys=ON")
        await conn.execute("PRAGMA busy_timeout=5000")
        await conn.execute(
            "CREATE TABLE IF NOT EXISTS raw (id INTEGER PRIMARY KEY, at TEXT NOT NULL, body TEXT NOT NULL)"
        )
        started = time.perf_counter()
        for i in range(rows):
            await conn.execute("INSERT INTO raw (at, body) VALUES (?, ?)", (f"{i:08d}", "x" * 48))
        elapsed = time.perf_counter() - started
    finally:
        await conn.close()
    return rows / elapsed



def _ctx(actor: str, event: str) -> Context:
    return Context(
        actor=actor, actor_name=actor, channel=ChannelRole.GAME_ACTIONS, at=AT, is_moderator=True, event_id=event
    )


async def _started(service: RoundService, guild: str) -> None:
    ruleset = load_ruleset()
    phase, presenting = opening(ruleset, AT)
    start = StartRound(ruleset=ruleset, phase=phase, presenting_open=presenting, moderators=("mod",))
    ctx = Context(actor="setup", actor_name="setup", channel=ChannelRole.OTHER, at=AT, event_id="setup")
    if not (await service.start(guild, ctx, start, seed="bench")).accepted:
        raise RuntimeError("could not start the bench round")
    for n in range(MEMBERS):
        if not (await service.act(guild, _ctx(f"m{n}", f"join:{n}"), Join())).accepted:
            raise RuntimeError("a bench member could not join")


async def store_actions(db: str, actions: int, *, concurrent: bool) -> float:
    """Durable actions per second through ``RoundService`` on a fresh database; on PostgreSQL the guild
    is held through its lock as the bot holds it, so every write checks the guild's epoch
    (``data.ownership``)."""
    store = await Store.open(db, synchronous="FULL")
    guild = "bench"
    ownership = await PgOwnership.open(db) if is_postgres(db) else None
    try:
        if ownership is not None:
            await ownership.ensure(guild)
            store.fence = fence_of(ownership)
        service = RoundService(store)
        await _started(service, guild)

        async def give(n: int) -> None:
            action = AdminGive(target=f"m{n % MEMBERS}", items=Items(points=1))
            if not (await service.act(guild, _ctx("mod", f"give:{n}"), action)).accepted:
                raise RuntimeError("a bench gift was refused")

        started = time.perf_counter()
        if concurrent:
            per = actions // MEMBERS

            async def member(m: int) -> None:
                for i in range(per):
                    await give(m + MEMBERS * i)

            await asyncio.gather(*(member(m) for m in range(MEMBERS)))
            done = per * MEMBERS
        else:
            for n in range(actions):
                await give(n)
            done = actions
        return done / (time.perf_counter() - started)
    finally:
        await store.close()
        if ownership is not None:
            await ownership.close()


def postgres_target(url: str) -> Target:
    """The benchmark's PostgreSQL: ``StoreOpenError`` (one line, never the password) for a URL that
    names none."""
    try:
        where = target(url)
    except UnusableUrlError as exc:
        raise StoreOpenError("given with --postgres", exc.problem, exc.advice.capitalize()) from None
    if not where.postgres:
        raise StoreOpenError(
            "given with --postgres", "it is not a PostgreSQL URL", "Write it as postgresql://USER:PASSWORD@HOST/DB"
        )
    return where


async def _connect(url: str) -> Any:
    """An asyncpg connection; a server that cannot be reached or a URL it cannot read is ``StoreOpenError``."""
    import asyncpg

    from data.postgres import open_error

    where = postgres_target(url)
    try:
        return await asyncpg.connect(where.url, timeout=15)
    except (asyncpg.PostgresError, asyncpg.InterfaceError, OSError, TimeoutError, ValueError) as exc:
        raise open_error(where, exc) from None


async def check_server(url: str) -> None:
    """Connect once before any timing, so a wrong ``--postgres`` stops the benchmark at once."""
    conn = await _connect(url)
    await conn.close()


async def raw_asyncpg_commits(url: str, rows: int) -> float:
    """Single-row commits per second on PostgreSQL: one autocommit INSERT a row (one round trip, one
    commit each), the same shape as the store's append of a lone action."""
    conn = await _connect(url)
    try:
        await conn.execute("CREATE TABLE raw (id BIGSERIAL PRIMARY KEY, at TEXT NOT NULL, body TEXT NOT NULL)")
        started = time.perf_counter()
        for i in range(rows):
            await conn.execute("INSERT INTO raw (at, body) VALUES ($1, $2)", f"{i:08d}", "x" * 48)
        return rows / (time.perf_counter() - started)
    finally:
        await conn.close()


async def _schema(url: str, sql: str) -> None:
    conn = await _connect(url)
    try:
        await conn.execute(sql)
    finally:
        await conn.close()


def _with_schema(url: str, schema: str) -> str:
    return f"{url}{'&' if '?' in url else '?'}search_path={schema}"


def _row(label: str, rates: list[float]) -> str:
    return f"  {label:<58}min {min(rates):>9,.0f}/s   median {statistics.median(rates):>9,.0f}/s"


async def store_bench(url: str, folder: Path, *, actions: int, runs: int) -> str:
    """The interleaved rounds; the report."""
    measures: dict[str, list[float]] = {}
    steps: list[tuple[str, Callable[[str, str], Awaitable[float]]]] = [
        ("SQLite store, one action at a time", lambda sq, _: store_actions(sq, actions, concurrent=False)),
        ("PostgreSQL store, one action at a time", lambda _, pg: store_actions(pg, actions, concurrent=False)),
        ("SQLite store, 50 members at once (group commit)", lambda sq, _: store_actions(sq, actions, concurrent=True)),
        (
            "PostgreSQL store, 50 members at once (group commit)",
            lambda _, pg: store_actions(pg, actions, concurrent=True),
        ),
        ("raw aiosqlite single-row commits (synchronous=FULL)", lambda sq, _: raw_commits(Path(sq), actions)),
        ("raw asyncpg single-row commits", lambda _, pg: raw_asyncpg_commits(pg, actions)),
    ]
    for run in range(runs):
        for n, (label, step) in enumerate(steps):
            schema = f"bench_{uuid.uuid4().hex[:12]}"
            await _schema(url, f"CREATE SCHEMA {schema}")
            try:
                sqlite = str(folder / f"stores-{run}-{n}-{time.time_ns()}.db")
                rate = await step(sqlite, _with_schema(url, schema))
            finally:
                await _schema(url, f"DROP SCHEMA {schema} CASCADE")
            measures.setdefault(label, []).append(rate)
            print(f"[bench] round {run + 1}/{runs}: {label}: {rate:,.0f}/s", file=sys.stderr, flush=True)
    lines = [
        (
            f"Durable actions by engine: {actions:,} actions a measure, {runs} interleaved rounds;"
            f" SQLite in {folder}, PostgreSQL at {redact(url)}"
        ),
        *(_row(label, rates) for label, rates in measures.items()),
    ]
    return "\n".join(lines)
