"""SQLite's side of the group commit (``data.group_commit``): one connection on a thread of its own.

A batch is written and committed in one call to that thread: ``BEGIN IMMEDIATE``, every job's
statements, ``COMMIT`` (the one fsync), so the event loop runs on while SQLite writes and syncs,
and a batch costs one hop between threads however many jobs it holds. The first pass writes the
jobs straight; when one of them fails (a redelivered event's duplicate key, a joined store's
conflict), the transaction is rolled back and written again with a savepoint around each job, so
only that job (and the later jobs of its key) stays out.

A job may carry parts written by another store's async code (``JoinedWrite``, the card library's
moves in a trade): a batch holding one is written from the event loop, with the connection's
statements run directly (the writer's thread is idle then: batches never overlap), and only
``BEGIN`` and ``COMMIT`` go to the thread.
"""

from __future__ import annotations

import asyncio
import queue
import sqlite3
import threading
from collections.abc import Callable, Hashable, Iterable, Sequence
from functools import partial
from pathlib import Path
from types import TracebackType
from typing import Any, Protocol, TypeVar

from data.group_commit import STORED, Done, Outcome, Superseded, Written, supersede

T = TypeVar("T")


class JoinedPart(Protocol):
    """Another store's part of a job, written with the connection's async face (``AsyncTx``)."""

    async def write(self, conn: Any) -> None: ...

    def committed(self) -> None: ...


class SqlJob(Protocol):
    """A write the SQLite writer can carry out (``data.store`` and ``data.table_store`` make them)."""

    @property
    def key(self) -> Hashable | None: ...

    @property
    def parts(self) -> Sequence[JoinedPart]:
        """Async writes of other stores, after ``write`` (most jobs have none)."""

    @property
    def statement(self) -> tuple[str, Sequence[Any]] | None:
        """The job's one statement, when ``write`` is nothing more (a batch of it alone needs no BEGIN)."""

    def write(self, conn: sqlite3.Connection) -> None:
        """The job's statements, inside the open transaction; raise to keep all of the job out."""

    def logged(self, conn: sqlite3.Connection) -> bool:
        """After ``write`` raised ``IntegrityError``: was the job's event logged before (a redelivery)?"""

    def settled(self, outcome: Outcome) -> None: ...


class _Redo(Exception):  # noqa: N818 - control flow inside the writer
    """A job failed in the straight pass: write the batch again, each job in a savepoint."""


class _Cursor:
    """A finished statement as ``aiosqlite``'s cursor shows it to joined writes."""

    def __init__(self, cursor: sqlite3.Cursor) -> None:
        self._cursor = cursor
        self.rowcount = cursor.rowcount
        self.lastrowid = cursor.lastrowid

    async def fetchone(self) -> Any:
        return self._cursor.fetchone()

    async def fetchall(self) -> list[Any]:
        return self._cursor.fetchall()

    async def close(self) -> None:
        self._cursor.close()


class _Statement:
    """``await tx.execute(...)`` or ``async with tx.execute(...) as cursor``, as with aiosqlite."""

    def __init__(self, run: Callable[[], sqlite3.Cursor]) -> None:
        self._run = run

    def __await__(self) -> Any:
        return self._start().__await__()

    async def _start(self) -> _Cursor:
        return _Cursor(self._run())

    async def __aenter__(self) -> _Cursor:
        return _Cursor(self._run())

    async def __aexit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        return None


class AsyncTx:
    """The open transaction as joined writes see it: the subset of ``aiosqlite.Connection`` they use."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        self._conn = conn

    def execute(self, sql: str, parameters: Iterable[Any] = ()) -> _Statement:
        return _Statement(lambda: self._conn.execute(sql, tuple(parameters)))

    def executemany(self, sql: str, parameters: Iterable[Sequence[Any]]) -> _Statement:
        return _Statement(lambda: self._conn.executemany(sql, parameters))

    @property
    def in_transaction(self) -> bool:
        return self._conn.in_transaction


def _job_error(exc: BaseException) -> bool:
    """Whether ``exc`` is one job's failure (its own duplicate key, a joined store's conflict), not the
    transaction's (a full disk, an I/O error, a locked file), which fails the whole batch."""
    if isinstance(exc, sqlite3.IntegrityError):
        return True
    return isinstance(exc, Exception) and not isinstance(exc, sqlite3.Error)


def _resolve(future: asyncio.Future[T], result: T | None, error: BaseException | None) -> None:
    if future.done():  # its waiter was cancelled
        return
    if error is not None:
        future.set_exception(error)
    else:
        future.set_result(result)  # type: ignore[arg-type]


class _Thread:
    """One thread that runs calls in order and hands each result back to the event loop (lighter
    than an executor: one queue put there, one callback back)."""

    def __init__(self, name: str) -> None:
        self._calls: queue.SimpleQueue[
            tuple[
                Callable[[], Any],
                asyncio.AbstractEventLoop,
                Callable[[Any, BaseException | None], None] | None,
                Done | None,
            ]
            | None
        ] = queue.SimpleQueue()
        self._thread = threading.Thread(target=self._serve, name=name, daemon=True)
        self._thread.start()

    def _serve(self) -> None:
        while (call := self._calls.get()) is not None:
            fn, loop, then, done = call
            try:
                result = fn()
            except BaseException as exc:  # noqa: BLE001 - handed to the loop
                if done is not None:
                    loop.call_soon_threadsafe(done, exc)
                elif then is not None:
                    loop.call_soon_threadsafe(then, None, exc)
            else:
                if done is not None:
                    loop.call_soon_threadsafe(done, result)
                elif then is not None:
                    loop.call_soon_threadsafe(then, result, None)

    def then(self, fn: Callable[[], T], then: Callable[[T | None, BaseException | None], None]) -> None:
        """Run ``fn`` here, then ``then(result, error)`` on the event loop (no future, no extra turn)."""
        self._calls.put((fn, asyncio.get_running_loop(), then, None))

    def batch(self, fn: Callable[[], list[Outcome]], done: Done) -> None:
        """Run ``fn`` here, then ``done`` on the event loop with its outcomes or the error it raised
        (straight to the group commit: no call in between)."""
        self._calls.put((fn, asyncio.get_running_loop(), None, done))

    def call(self, fn: Callable[[], T]) -> asyncio.Future[T]:
        future: asyncio.Future[T] = asyncio.get_running_loop().create_future()
        self.then(fn, partial(_resolve, future))
        return future

    def stop(self) -> None:
        self._calls.put(None)


class SqliteWriter:
    """The batches' connection to one database file (``BatchConnection`` for ``GroupCommit``)."""

    def __init__(self, path: str, pragmas: Sequence[str]) -> None:
        self.path = path
        self._pragmas = tuple(pragmas)
        self._thread = _Thread("sqlite-writer")
        self._conn: sqlite3.Connection | None = None
        self._joined: set[asyncio.Task[list[Outcome]]] = set()
        """A batch with joined parts being written (its task, kept referenced)."""

    @classmethod
    async def open(cls, path: str | Path, pragmas: Sequence[str]) -> SqliteWriter:
        """Connect (on the writer's thread) with ``pragmas``; closed again when that fails."""
        writer = cls(str(path), pragmas)
        try:
            await writer._call(writer._connect)
        except BaseException:
            await writer.close()
            raise
        return writer

    def _connect(self) -> None:
        # the loop uses it too, between the thread's calls, for a batch with joined parts
        conn = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False)
        try:
            for pragma in self._pragmas:
                conn.execute(f"PRAGMA {pragma}").close()
        except BaseException:
            conn.close()
            raise
        self._conn = conn

    @property
    def connection(self) -> sqlite3.Connection:
        if self._conn is None:
            raise RuntimeError("the writer's connection is closed")
        return self._conn

    async def _call(self, fn: Callable[..., T], *args: Any) -> T:
        return await self._thread.call(lambda: fn(*args))

    async def close(self) -> None:
        if self._conn is not None:
            conn, self._conn = self._conn, None
            await self._call(conn.close)
        self._thread.stop()

    async def pragma(self, name: str) -> Any:
        """A pragma's value on this connection (the durability settings are per connection)."""

        def read() -> Any:
            row = self.connection.execute(f"PRAGMA {name}").fetchone()
            return row[0] if row is not None else None

        return await self._call(read)

    # -- batches --

    def start(self, jobs: Sequence[SqlJob], done: Done) -> None:
        """Begin the batch's transaction (see ``BatchConnection.start``)."""
        for job in jobs:
            if job.parts:
                break
        else:
            self._thread.batch(partial(self._run_batch, jobs), done)
            return
        task = asyncio.ensure_future(self._run_joined(jobs))
        self._joined.add(task)
        task.add_done_callback(partial(self._joined_done, done))

    def _joined_done(self, done: Done, task: asyncio.Task[list[Outcome]]) -> None:
        self._joined.discard(task)
        if task.cancelled():
            done(RuntimeError("the store's writer was stopped"))
        else:
            done(task.exception() or task.result())

    def _run_batch(self, jobs: Sequence[SqlJob]) -> list[Outcome]:
        """On the writer's thread: the batch straight, else again job by job."""
        if len(jobs) == 1:
            statement = jobs[0].statement
            if statement is not None:
                return [self._single(jobs[0], *statement)]
        try:
            return self._transaction(jobs, careful=False)
        except _Redo:
            return self._transaction(jobs, careful=True)

    def _transaction(self, jobs: Sequence[SqlJob], *, careful: bool) -> list[Outcome]:
        conn = self.connection
        conn.execute("BEGIN IMMEDIATE")
        try:
            if careful:
                outcomes = supersede(jobs, lambda index, _: self._isolated(conn, jobs[index]))
            else:
                for job in jobs:
                    try:
                        job.write(conn)
                    except Exception as exc:
                        if _job_error(exc):
                            raise _Redo from exc
                        raise
                outcomes = [Written.STORED] * len(jobs)
            conn.execute("COMMIT")
        except BaseException:
            if conn.in_transaction:
                conn.execute("ROLLBACK")
            raise
        return outcomes

    def _single(self, job: SqlJob, sql: str, params: Sequence[Any]) -> Outcome:
        """A batch of one job of one statement: SQLite's own transaction around it, nothing more."""
        conn = self._conn
        if conn is None:
            raise RuntimeError("the writer's connection is closed")
        try:
            conn.execute(sql, params)
        except sqlite3.IntegrityError as exc:
            return Written.DUPLICATE if job.logged(conn) else exc
        return STORED

    @staticmethod
    def _isolated(conn: sqlite3.Connection, job: SqlJob) -> Outcome:
        conn.execute("SAVEPOINT job")
        try:
            job.write(conn)
        except Exception as exc:
            if not _job_error(exc):
                raise
            conn.execute("ROLLBACK TO job")
            conn.execute("RELEASE job")
            if isinstance(exc, sqlite3.IntegrityError) and job.logged(conn):
                return Written.DUPLICATE
            return exc
        conn.execute("RELEASE job")
        return Written.STORED

    async def _run_joined(self, jobs: Sequence[SqlJob]) -> list[Outcome]:
        """A batch with joined parts: their async writes run on the loop, inside the transaction."""
        conn = self.connection
        await self._call(conn.execute, "BEGIN IMMEDIATE")
        tx = AsyncTx(conn)
        try:
            outcomes: list[Outcome] = []
            broken: set[Hashable] = set()
            for job in jobs:
                if job.key is not None and job.key in broken:
                    outcomes.append(Superseded())
                    continue
                outcome = await self._isolated_with_parts(conn, tx, job)
                if outcome is not Written.STORED and job.key is not None:
                    broken.add(job.key)
                outcomes.append(outcome)
            await self._call(conn.execute, "COMMIT")
        except BaseException:
            if conn.in_transaction:
                await self._call(conn.execute, "ROLLBACK")
            raise
        return outcomes

    @staticmethod
    async def _isolated_with_parts(conn: sqlite3.Connection, tx: AsyncTx, job: SqlJob) -> Outcome:
        conn.execute("SAVEPOINT job")
        try:
            job.write(conn)
            for part in job.parts:
                await part.write(tx)
        except Exception as exc:
            if not _job_error(exc):
                raise
            conn.execute("ROLLBACK TO job")
            conn.execute("RELEASE job")
            if isinstance(exc, sqlite3.IntegrityError) and job.logged(conn):
                return Written.DUPLICATE
            return exc
        conn.execute("RELEASE job")
        return Written.STORED


class StoreJob:
    """A store's write for the group commit: its statements and what to do once it is settled."""

    __slots__ = ("_done", "_logged", "_run", "key", "parts", "statement")

    def __init__(
        self,
        run: Callable[[sqlite3.Connection], None],
        *,
        key: Hashable | None = None,
        parts: Sequence[JoinedPart] = (),
        logged: Callable[[sqlite3.Connection], bool] | None = None,
        done: Callable[[Outcome], None] | None = None,
        statement: tuple[str, Sequence[Any]] | None = None,
    ) -> None:
        self._run = run
        self.key = key
        self.parts = parts
        self._logged = logged
        self._done = done
        self.statement = statement

    def write(self, conn: sqlite3.Connection) -> None:
        self._run(conn)

    def logged(self, conn: sqlite3.Connection) -> bool:
        return self._logged is not None and self._logged(conn)

    def settled(self, outcome: Outcome) -> None:
        if outcome is Written.STORED:
            for part in self.parts:
                part.committed()
        if self._done is not None:
            self._done(outcome)
