"""PostgreSQL's side of the stores (asyncpg): a connection that speaks the stores' SQL, and the writer.

The stores write their SQL once, with ``?`` placeholders, and read through an object with the
subset of ``aiosqlite.Connection`` they use (``execute`` awaited or as ``async with``, the cursor's
``fetchone``, ``fetchall`` and ``rowcount``, ``executemany``). ``PgConn`` gives them that over an
asyncpg pool (reads, a library's transaction) or over one connection (the writer's transaction),
turning ``?`` into ``$1, $2, ...``: the only difference of dialect the stores' statements have.

``PgWriter`` is the group commit's engine (``data.group_commit.BatchConnection``) on PostgreSQL: a
connection of its own, one transaction per batch, answered only after ``COMMIT`` returned. As with
SQLite, the batch is written straight first; when one job fails (a redelivered event's duplicate
key, a joined store's conflict) it is rolled back and written again with a savepoint around each
job, so only that job (and the later jobs of its key) stays out. A batch whose transaction fails
(the server went away, the disk is full) fails every job in it; the next batch reconnects.

A job made for a guild under an epoch (``fence``: ``data.ownership``) is written only while the guild's
epoch is still that one: the batch's transaction reads the guilds' ``guild_owners`` rows ``FOR SHARE``
first (one statement a batch), so a takeover's bump of an epoch waits for the batch's commit, and a
batch after the bump leaves the guild's jobs out (``FencedError``; the later jobs of their key are
superseded). A job alone of one ``INSERT`` (or upsert) keeps its single round trip: the check rides in
it (``INSERT ... SELECT ... WHERE EXISTS (... FOR SHARE)``, no row written when the epoch moved on);
so does the first statement of a batch's only fenced job (a table's move, a library action), in its
transaction, instead of a statement of its own. A batch the server rolled back for a deadlock or a
serialization failure is written again whole (``RETRIES``).

When the connection is lost while ``COMMIT`` is on its way, the client cannot know whether the
server committed. The writer then ends the old session for sure (``pg_terminate_backend``, so its
transaction is over one way or the other) and asks on a new connection whether the batch's first
logged event is there (the same (guild, event id) check a redelivery meets): there, the batch is
durable and answered as written; absent, it failed as a whole. Answering "failed" for a batch that
committed would leave the bot's cached state behind the log, and every later action of the guild
would clash with the rows it does not know of.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import hashlib
import logging
import re
import threading
from collections.abc import AsyncIterator, Awaitable, Callable, Hashable, Iterable, Sequence
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from datetime import UTC, datetime
from functools import lru_cache, partial
from types import TracebackType
from typing import Any, Protocol, TypeVar

import asyncpg

from data.base import (
    LEASE_SECONDS,
    MIGRATIONS_ROOT,
    Db,
    FencedError,
    ReplayProgress,
    StoreOpenError,
    Target,
    Writer,
    fenced_insert,
    migrations,
    progress_job,
    redact,
)
from data.group_commit import Done, GroupCommit, Outcome, Superseded, Written, supersede

T = TypeVar("T")
log = logging.getLogger(__name__)
_RETURNS_ROWS = re.compile(r"^\s*(SELECT|WITH|VALUES|SHOW)\b|\bRETURNING\b", re.IGNORECASE)
_FENCES = "SELECT guild_id, epoch FROM guild_owners WHERE guild_id = ANY(?) FOR SHARE"
"""The epochs of a batch's guilds, held until its commit (a takeover's bump waits for it)."""
RETRIES = 3
"""Times a batch is written again after the server rolled it back for a deadlock or a serialization
failure (another session's locks crossed it): nothing of it was written, so it is written whole again."""


@lru_cache(maxsize=1024)
def to_postgres(sql: str) -> str:
    """``?`` placeholders as PostgreSQL's ``$n`` (none of the stores' statements has one in a literal)."""
    out: list[str] = []
    number = 0
    quote: str | None = None
    for char in sql:
        if quote is not None:
            if char == quote:
                quote = None
        elif char in "'\"":
            quote = char
        elif char == "?":
            number += 1
            out.append(f"${number}")
            continue
        out.append(char)
    return "".join(out)


def _rowcount(status: str) -> int:
    """Rows a statement touched, from its status (``INSERT 0 1``, ``UPDATE 2``)."""
    last = status.rsplit(" ", 1)[-1]
    return int(last) if last.isdigit() else -1


def is_integrity_error(exc: BaseException) -> bool:
    """A constraint the row broke (a duplicate key, a missing parent): the job's fault, not the server's."""
    return isinstance(exc, asyncpg.IntegrityConstraintViolationError)


class PgCursor:
    """A finished statement as aiosqlite's cursor shows it."""

    def __init__(self, rows: list[Any], rowcount: int) -> None:
        self._rows = rows
        self._next = 0
        self.rowcount = rowcount
        self.lastrowid = None

    async def fetchone(self) -> Any:
        if self._next >= len(self._rows):
            return None
        self._next += 1
        return self._rows[self._next - 1]

    async def fetchall(self) -> list[Any]:
        rest, self._next = self._rows[self._next :], len(self._rows)
        return rest

    async def close(self) -> None:
        return None


class _Statement:
    """``await conn.execute(...)`` or ``async with conn.execute(...) as cursor``."""

    def __init__(self, run: Callable[[], Awaitable[PgCursor]]) -> None:
        self._run = run

    def __await__(self) -> Any:
        return self._run().__await__()

    async def __aenter__(self) -> PgCursor:
        return await self._run()

    async def __aexit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        return None


class _Executor(Protocol):
    async def fetch(self, query: str, *args: Any) -> list[Any]: ...
    async def execute(self, query: str, *args: Any) -> str: ...
    async def executemany(self, command: str, args: Iterable[Sequence[Any]]) -> None: ...


class PgConn:
    """The stores' connection on PostgreSQL: a pool (reads, own transactions) or one connection."""

    in_transaction = False

    def __init__(self, target: asyncpg.Pool | asyncpg.Connection, *, owned: bool = True) -> None:
        self._target = target
        self._owned = owned

    @property
    def pool(self) -> asyncpg.Pool | None:
        return self._target if isinstance(self._target, asyncpg.Pool) else None

    def execute(self, sql: str, parameters: Iterable[Any] = ()) -> _Statement:
        return _Statement(partial(self._run, sql, tuple(parameters)))

    def executemany(self, sql: str, parameters: Iterable[Sequence[Any]]) -> _Statement:
        return _Statement(partial(self._many, sql, [tuple(p) for p in parameters]))

    async def _run(self, sql: str, params: tuple[Any, ...]) -> PgCursor:
        query = to_postgres(sql)
        target: _Executor = self._target
        if _RETURNS_ROWS.search(sql):
            rows = await target.fetch(query, *params)
            return PgCursor(list(rows), len(rows))
        status = await target.execute(query, *params)
        return PgCursor([], _rowcount(status))

    async def _many(self, sql: str, params: list[tuple[Any, ...]]) -> PgCursor:
        if params:
            target: _Executor = self._target
            await target.executemany(to_postgres(sql), params)
        return PgCursor([], len(params))

    @asynccontextmanager
    async def transaction(self, *, isolation: str | None = None, readonly: bool = False) -> AsyncIterator[PgConn]:
        """One transaction on one connection of the pool, committed when the block ends without error
        (``isolation="repeatable_read"``: every read of it sees the same moment)."""
        if isinstance(self._target, asyncpg.Pool):
            async with self._target.acquire() as conn, conn.transaction(isolation=isolation, readonly=readonly):
                yield PgConn(conn, owned=False)
            return
        async with self._target.transaction(isolation=isolation, readonly=readonly):
            yield self

    async def close(self) -> None:
        if self._owned:
            await self._target.close()


class PgJob(Protocol):
    """A write the PostgreSQL writer can carry out (``data.base.StatementJob`` is one)."""

    @property
    def key(self) -> Hashable | None: ...

    @property
    def parts(self) -> Sequence[Any]:
        """Other stores' writes (``JoinedPart``), after the job's own, with the transaction's ``PgConn``."""

    @property
    def statement(self) -> tuple[str, Sequence[Any]] | None: ...

    @property
    def statements(self) -> Sequence[Any]:
        """The job's statements (``data.base.Stmt``), for the straight pass to send in runs."""

    @property
    def fence(self) -> tuple[str, int] | None:
        """(guild, epoch): written only while the guild's epoch is still this one."""

    async def write_async(self, conn: PgConn) -> None: ...

    async def logged_async(self, conn: PgConn) -> bool: ...

    @property
    def traceable(self) -> bool:
        """Whether ``logged_async`` can find the job's rows (it logs an event)."""

    def settled(self, outcome: Outcome) -> None: ...


class _Redo(Exception):  # noqa: N818 - control flow inside the writer
    """A job failed in the straight pass: write the batch again, each job in a savepoint."""


class _CommitUnknown(Exception):  # noqa: N818 - control flow inside the writer
    """The connection was lost while the batch's commit was on its way: it may be durable or not."""

    def __init__(self, outcomes: list[Outcome]) -> None:
        super().__init__("the connection was lost during COMMIT")
        self.outcomes = outcomes


def connection_lost(exc: BaseException) -> bool:
    """Whether ``exc`` means the session is gone (the server's answer to the last message is unknown).
    ``InternalClientError``: the client met a message out of turn (the server ended the session while
    this process was stopped), so its session is no better than gone."""
    if isinstance(exc, asyncpg.InterfaceError) and "closed" in str(exc):
        return True
    return isinstance(exc, asyncpg.PostgresConnectionError | asyncpg.InternalClientError | OSError | TimeoutError)


def _connection_lost(exc: BaseException, conn: asyncpg.Connection) -> bool:
    return conn.is_closed() or connection_lost(exc)


def _job_error(exc: BaseException) -> bool:
    """One job's failure (its duplicate key, a joined store's conflict, a value the server or the
    driver cannot take: a NUL character in a text, a number past 64 bits), not the transaction's.
    As on SQLite, such a job stays out alone instead of failing every other guild's action with it."""
    if is_integrity_error(exc) or isinstance(exc, asyncpg.DataError | ValueError):
        return True
    return isinstance(exc, Exception) and not isinstance(
        exc, asyncpg.PostgresError | asyncpg.InterfaceError | asyncpg.InternalClientError | OSError | TimeoutError
    )


def _alone(jobs: Sequence[PgJob]) -> tuple[str, Sequence[Any]] | None:
    """A batch of one job of one statement, sent without a transaction of its own (a fenced one with its
    check inside, when the statement allows it); None: the batch takes a transaction."""
    if len(jobs) != 1 or jobs[0].statement is None or jobs[0].parts:
        return None
    job = jobs[0]
    sql, params = job.statement  # type: ignore[misc]
    if job.fence is None:
        return sql, params
    guarded = fenced_insert(sql)
    return (guarded, (*params, *job.fence)) if guarded is not None else None


Carrier = tuple[Any, str, tuple[str, int]]
"""A statement that checks its job's fence itself: the statement, its fenced SQL, the (guild, epoch)."""


def _carrier(jobs: Sequence[PgJob]) -> Carrier | None:
    """The batch's one fenced job's first statement, when it can check the fence itself (an ``INSERT``
    or an upsert, ``fenced_insert``): a batch of one table's move or one library action then needs no
    statement of its own for the check. None when several jobs are fenced (one ``_FENCES`` for all
    is cheaper than a statement a job) or the first statement cannot carry it."""
    fenced: PgJob | None = None
    for job in jobs:
        if job.fence is not None:
            if fenced is not None:
                return None
            fenced = job
    if fenced is None or fenced.fence is None or not fenced.statements:
        return None
    first = fenced.statements[0]
    if first.many or first.check is not None:
        return None
    guarded = fenced_insert(first.sql)
    return (first, guarded, fenced.fence) if guarded is not None else None


def _fenced(fence: tuple[str, int] | None, refused: set[tuple[str, int]]) -> Outcome:
    return FencedError(fence[0]) if fence is not None and fence in refused else Written.STORED


async def _refused(tx: PgConn, jobs: Sequence[PgJob]) -> set[tuple[str, int]]:
    """The (guild, epoch) fences of ``jobs`` that no longer hold; their rows stay share-locked until the
    transaction ends. No statement when no job is fenced."""
    fences = {job.fence for job in jobs if job.fence is not None}
    if not fences:
        return set()
    cursor = await tx.execute(_FENCES, (sorted({guild for guild, _ in fences}),))
    held = {str(row[0]): int(row[1]) for row in await cursor.fetchall()}
    return {fence for fence in fences if held.get(fence[0]) != fence[1]}


class PgWriter:
    """The batches' connection to one database (``BatchConnection`` for ``GroupCommit``).

    The connection lives on an event loop of its own, on a thread of its own (as SQLite's writer has
    its thread): a batch's round trips to the server (BEGIN, the rows, COMMIT) follow each other at
    once instead of each waiting for a turn of the bot's busy loop, and the bot's loop hears of the
    batch once, when it is over. Joined parts (``JoinedPart.write``) run there too: they only await
    the ``PgConn`` they are given.
    """

    def __init__(self, connect: Callable[[], Awaitable[asyncpg.Connection]]) -> None:
        self._connect = connect
        self._conn: asyncpg.Connection | None = None
        self._session: tuple[int, Any] = (0, None)
        """The server's process id and start time of the connection's session (to end it for sure)."""
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, name="postgres-writer", daemon=True)
        self._thread.start()

    @classmethod
    async def open(cls, connect: Callable[[], Awaitable[asyncpg.Connection]]) -> PgWriter:
        writer = cls(connect)
        try:
            await writer.call(lambda _: asyncio.sleep(0), connect=True)
        except BaseException:
            await writer.close()
            raise
        return writer

    async def _connection(self) -> asyncpg.Connection:
        if self._conn is None or self._conn.is_closed():
            conn = await self._connect()
            try:
                started = await conn.fetchval("SELECT backend_start FROM pg_stat_activity WHERE pid = pg_backend_pid()")
            except BaseException:
                conn.terminate()
                raise
            self._conn, self._session = conn, (conn.get_server_pid(), started)
        return self._conn

    async def call(self, fn: Callable[[asyncpg.Connection], Awaitable[T]], *, connect: bool = True) -> T:
        """``fn(connection)`` on the writer's loop (tests, set-up); the writer must be idle."""

        async def run() -> T:
            conn = await self._connection() if connect else self._conn
            return await fn(conn)

        return await asyncio.wrap_future(asyncio.run_coroutine_threadsafe(run(), self._loop))

    async def close(self) -> None:
        if self._loop.is_closed():
            return
        if self._conn is not None:
            conn, self._conn = self._conn, None
            await asyncio.wrap_future(asyncio.run_coroutine_threadsafe(conn.close(), self._loop))
        self._loop.call_soon_threadsafe(self._loop.stop)
        await asyncio.to_thread(self._thread.join, 10)
        self._loop.close()

    def start(self, jobs: Sequence[PgJob], done: Done) -> None:
        """Begin the batch's transaction (see ``BatchConnection.start``) on the writer's loop."""
        home = asyncio.get_running_loop()
        future = asyncio.run_coroutine_threadsafe(self._batch(jobs), self._loop)
        future.add_done_callback(lambda f: home.call_soon_threadsafe(self._finished, done, f))

    @staticmethod
    def _finished(done: Done, future: concurrent.futures.Future[list[Outcome]]) -> None:
        if future.cancelled():
            done(RuntimeError("the store's writer was stopped"))
        else:
            done(future.exception() or future.result())

    async def _batch(self, jobs: Sequence[PgJob]) -> list[Outcome]:
        for attempt in range(RETRIES + 1):
            try:
                return await self._attempt(jobs)
            except _CommitUnknown as unknown:
                lost = unknown.__cause__ or unknown
                if await self._committed(jobs, unknown.outcomes):
                    return unknown.outcomes
                raise lost from None
            except (asyncpg.DeadlockDetectedError, asyncpg.SerializationError) as exc:  # rolled back whole
                if attempt >= RETRIES:
                    raise
                log.warning("a batch of %d writes was rolled back (%s); writing it again", len(jobs), exc)
            except Exception as exc:
                if not isinstance(exc, asyncpg.PostgresError):
                    # not the server's answer (a session the server ended while this process was stopped
                    # leaves the client mid-error): the next batch connects afresh
                    self._drop()
                raise
        raise AssertionError("unreachable")  # pragma: no cover

    def _drop(self) -> None:
        """End the connection (whatever its state) for the next batch to connect again."""
        old, self._conn = self._conn, None
        if old is not None and not old.is_closed():
            old.terminate()

    async def _attempt(self, jobs: Sequence[PgJob]) -> list[Outcome]:
        conn = await self._connection()
        tx = PgConn(conn, owned=False)
        alone = _alone(jobs)
        if alone is not None:
            job, (sql, params) = jobs[0], alone
            try:
                cursor = await tx.execute(sql, params)  # a statement alone is its own transaction
            except asyncpg.IntegrityConstraintViolationError as exc:
                return [Written.DUPLICATE if await job.logged_async(tx) else exc]
            except Exception as exc:
                if _connection_lost(exc, conn):
                    raise _CommitUnknown([Written.STORED]) from exc
                raise
            if job.fence is not None and cursor.rowcount == 0:
                return [FencedError(job.fence[0])]
            return [Written.STORED]
        try:
            return await self._transaction(conn, tx, jobs, careful=False)
        except _Redo:
            return await self._transaction(conn, tx, jobs, careful=True)

    async def _committed(self, jobs: Sequence[PgJob], outcomes: list[Outcome]) -> bool:
        """After a commit whose answer was lost: whether the batch is durable (False when that cannot
        be told: no job of it logs an event, or the server cannot be reached)."""
        probe = next(
            (job for job, outcome in zip(jobs, outcomes, strict=True) if outcome is Written.STORED and job.traceable),
            None,
        )
        pid, started = self._session
        self._drop()
        if probe is None:
            return False
        try:
            conn = await self._connection()
            # the old session may still be running (the network, not the server, failed): end it and
            # wait until it is gone, so its transaction is committed or rolled back for good
            await conn.execute(
                "SELECT pg_terminate_backend(pid, 10000) FROM pg_stat_activity WHERE pid = $1 AND backend_start = $2",
                pid,
                started,
            )
            return await probe.logged_async(PgConn(conn, owned=False))
        except Exception:  # noqa: BLE001 - unreachable (a StoreOpenError from connecting, too): cannot tell
            return False

    @staticmethod
    async def _write(job: PgJob, tx: PgConn) -> None:
        await job.write_async(tx)
        for part in job.parts:
            await part.write(tx)

    async def _transaction(
        self, conn: asyncpg.Connection, tx: PgConn, jobs: Sequence[PgJob], *, careful: bool
    ) -> list[Outcome]:
        transaction = conn.transaction()
        await transaction.start()
        try:
            carrier = None if careful else _carrier(jobs)
            refused = await _refused(tx, jobs) if carrier is None else set()
            if careful:
                outcomes: list[Outcome] = []
                broken: set[Hashable] = set()
                for job in jobs:
                    if job.key is not None and job.key in broken:
                        outcomes.append(Superseded())
                        continue
                    outcome = _fenced(job.fence, refused)
                    if outcome is Written.STORED:
                        outcome = await self._isolated(conn, tx, job)
                    if outcome is not Written.STORED and job.key is not None:
                        broken.add(job.key)
                    outcomes.append(outcome)
            else:
                outcomes = [Written.STORED] * len(jobs)
                if refused:
                    outcomes = supersede(jobs, lambda _, job: _fenced(getattr(job, "fence", None), refused))
                try:
                    written = [j for j, o in zip(jobs, outcomes, strict=True) if o is Written.STORED]
                    await self._straight(written, tx, carrier)
                except Exception as exc:  # a carrier's fence refused too: the careful pass tells which
                    if _job_error(exc):
                        raise _Redo from exc
                    raise
        except BaseException:
            if not conn.is_closed():
                await transaction.rollback()
            raise
        try:
            await transaction.commit()
        except Exception as exc:
            if _connection_lost(exc, conn):
                raise _CommitUnknown(outcomes) from exc
            raise
        return outcomes

    @staticmethod
    async def _straight(jobs: Sequence[PgJob], tx: PgConn, carrier: Carrier | None = None) -> None:
        """Every job's statements in order, a run of one statement over consecutive rows sent as one
        ``executemany`` (one round trip where each row would cost one): a batch of 50 bids is one.
        ``carrier``'s statement is sent fenced (``FencedError`` when it wrote nothing)."""
        run_sql: str | None = None
        run: list[Sequence[Any]] = []

        async def flush() -> None:
            nonlocal run_sql
            if run_sql is not None:
                if len(run) == 1:
                    await tx.execute(run_sql, run[0])
                else:
                    await tx.executemany(run_sql, run)
            run_sql = None
            run.clear()

        for job in jobs:
            for stmt in job.statements:
                if carrier is not None and stmt is carrier[0]:
                    await flush()
                    cursor = await tx.execute(carrier[1], (*stmt.params, *carrier[2]))
                    if cursor.rowcount == 0:
                        raise FencedError(carrier[2][0])
                    continue
                if stmt.check is not None:
                    await flush()
                    cursor = await tx.execute(stmt.sql, stmt.params)
                    stmt.check(cursor.rowcount)
                    continue
                rows = list(stmt.params) if stmt.many else [stmt.params]
                if stmt.sql != run_sql:
                    await flush()
                    run_sql = stmt.sql
                run.extend(rows)
            if job.parts:
                await flush()
                for part in job.parts:
                    await part.write(tx)
        await flush()

    async def _isolated(self, conn: asyncpg.Connection, tx: PgConn, job: PgJob) -> Outcome:
        try:
            async with conn.transaction():  # a savepoint: a failed job leaves nothing of itself
                await self._write(job, tx)
        except Exception as exc:
            if not _job_error(exc):
                raise
            if is_integrity_error(exc) and await job.logged_async(tx):
                return Written.DUPLICATE
            return exc
        return Written.STORED


# -- the engine: connecting, migrating, reading (``data.engine.Engine``) ---------------------------------


def _lock_key(name: str) -> int:
    """A stable 63-bit key for ``pg_advisory_xact_lock``."""
    return int.from_bytes(hashlib.sha256(name.encode()).digest()[:8], "big") >> 1


MIGRATION_LOCK = _lock_key("nomic-bot schema migrations")
"""Held while migrating: two processes starting at once on one database migrate it once."""


class PostgresEngine:
    name = "postgresql"
    pool_size = 4
    """Reading connections per store; the writer has one more of its own."""

    async def _connect(self, where: Target, **settings: str) -> Any:
        try:
            return await asyncpg.connect(where.url, timeout=15, server_settings=settings or None)
        except (asyncpg.PostgresError, asyncpg.InterfaceError, OSError, TimeoutError, ValueError) as exc:
            raise open_error(where, exc) from None

    async def _pool(self, where: Target, **settings: str) -> Any:
        try:
            return await asyncpg.create_pool(
                where.url, min_size=1, max_size=self.pool_size, timeout=15, server_settings=settings or None
            )
        except (asyncpg.PostgresError, asyncpg.InterfaceError, OSError, TimeoutError, ValueError) as exc:
            raise open_error(where, exc) from None

    async def migrate(self, where: Target) -> None:
        """Apply every migration not yet applied, all in one transaction, forward only, under a lock
        that makes a second process starting at the same time wait and find nothing left to do."""
        known = migrations(MIGRATIONS_ROOT / "postgresql")
        conn = await self._connect(where)
        try:
            async with conn.transaction():
                await conn.execute("SELECT pg_advisory_xact_lock($1)", MIGRATION_LOCK)
                tables = {str(r[0]) for r in await conn.fetch(_TABLES_SQL)}
                if "schema_migrations" not in tables and tables:
                    raise StoreOpenError(
                        where.display,
                        f"its schema holds another program's tables ({', '.join(sorted(tables)[:5])})",
                        "Give the bot a database (or a schema, with ?search_path=NAME) of its own",
                    )
                await conn.execute(
                    "CREATE TABLE IF NOT EXISTS schema_migrations"
                    " (version BIGINT PRIMARY KEY, applied_at TEXT NOT NULL)"
                )
                current = int(await conn.fetchval("SELECT COALESCE(MAX(version), 0) FROM schema_migrations"))
                if current > len(known):
                    raise StoreOpenError(
                        where.display,
                        f"it was written by a newer version of the bot (schema version {current}; this version"
                        f" knows up to {len(known)})",
                        "Run the newer version of the bot; the database was left as it was",
                    )
                now = datetime.now(UTC).isoformat()
                for number, sql in known:
                    if number > current:
                        await conn.execute(sql)
                        await conn.execute(
                            "INSERT INTO schema_migrations (version, applied_at) VALUES ($1, $2)", number, now
                        )
        finally:
            await conn.close()

    async def open_round(
        self, where: Target, synchronous: str, progress: ReplayProgress | None, lease: float | None = None
    ) -> tuple[Db, Writer]:
        await self.migrate(where)
        reader = await self.open_reader(where, synchronous)
        try:
            writer = await self.open_writer(where, synchronous, progress, lease)
        except BaseException:
            await reader.close()
            raise
        return reader, writer

    async def open_reader(self, where: Target, synchronous: str) -> Db:
        del synchronous  # the server's synchronous_commit decides (on by default: a commit is durable)
        return PgConn(await self._pool(where))

    async def open_writer(
        self, where: Target, synchronous: str, progress: ReplayProgress | None, lease: float | None = None
    ) -> Writer:
        del synchronous
        # a transaction left open by a process that stopped answering (frozen mid-commit) would keep the
        # rows it locked (a guild's epoch among them) for ever: the server ends it after the lease
        idle = f"{round((lease or LEASE_SECONDS) * 1000)}ms"
        writer = await PgWriter.open(lambda: self._connect(where, idle_in_transaction_session_timeout=idle))
        # no progress kept: no closing job to ask for after every batch (the idle writer's fast path)
        return GroupCommit(writer, closing=partial(progress_job, progress) if progress is not None else None)

    async def open_read_only(self, where: Target) -> Db:
        return PgConn(await self._pool(where, default_transaction_read_only="on"))

    async def table_names(self, db: Db) -> set[str]:
        async with db.execute(_TABLES_SQL) as cur:
            return {str(row[0]) for row in await cur.fetchall()}

    async def columns(self, db: Db, table: str) -> set[str]:
        async with db.execute(
            "SELECT column_name FROM information_schema.columns WHERE table_schema = current_schema()"
            " AND table_name = ?",
            (table,),
        ) as cur:
            return {str(r[0]) for r in await cur.fetchall()}

    def transaction(self, db: Db) -> AbstractAsyncContextManager[Db]:
        return db.transaction()  # type: ignore[no-any-return]

    def reading(self, db: Db) -> AbstractAsyncContextManager[Db]:
        return db.transaction(isolation="repeatable_read", readonly=True)  # type: ignore[no-any-return]

    def is_integrity_error(self, exc: BaseException) -> bool:
        return is_integrity_error(exc)

    def connection_lost(self, exc: BaseException) -> bool:
        return connection_lost(exc)


_TABLES_SQL = "SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema()"


def open_error(where: Target, exc: BaseException) -> Exception:
    """What a failure to reach the server means, in plain words (the URL shown without its password)."""
    from data.base import StoreOpenError

    name = where.display
    if isinstance(exc, ValueError) and not isinstance(exc, asyncpg.PostgresError):
        # asyncpg could not read the URL; its words may quote a piece of the password
        told = f" ({exc})" if redact(where.url) == where.url else ""
        return StoreOpenError(
            name,
            f"its URL cannot be read{told}",
            "Write it as postgresql://USER:PASSWORD@HOST:PORT/DATABASE, with @ : / ? # % in the password"
            " written as %40 %3A %2F %3F %23 %25",
        )
    if isinstance(exc, asyncpg.InvalidPasswordError | asyncpg.InvalidAuthorizationSpecificationError):
        return StoreOpenError(
            name, "the server refused the user name or password", "Check the user and password in DATABASE_URL"
        )
    if isinstance(exc, asyncpg.InvalidCatalogNameError):
        return StoreOpenError(
            name, "the server has no such database", "Create it (createdb NAME) or name one that exists"
        )
    if isinstance(exc, asyncpg.InvalidSchemaNameError):
        return StoreOpenError(name, "there is no such schema", "Create it (CREATE SCHEMA NAME) or use another one")
    if isinstance(exc, OSError | TimeoutError):
        return StoreOpenError(
            name,
            f"no PostgreSQL server answers there ({exc.__class__.__name__}: {exc})",
            "Start the server, or check the host and port in DATABASE_URL",
        )
    return StoreOpenError(name, f"PostgreSQL refused it ({exc})", "Check the server and DATABASE_URL")


POSTGRES = PostgresEngine()
