"""SQLite's side of the stores (PostgreSQL's is ``data.postgres``): connecting to a file with its pragmas,
refusing a file that is not the bot's or is newer than this version, migrating it forward in one
transaction, its one writer (``data.sqlite_writer``) behind the group commit, and what a failure to open
it means in plain words (``open_error``). ``SQLITE`` is the engine ``data.engine.engine_for`` gives for a
path or a ``sqlite:///`` URL.
"""

from __future__ import annotations

import asyncio
import sqlite3
import threading
from collections.abc import AsyncIterator, Iterable
from contextlib import asynccontextmanager
from datetime import UTC, datetime
from functools import partial
from pathlib import Path

import aiosqlite

from data.base import Db, ReplayProgress, StoreOpenError, Target, Writer, migrations, progress_job
from data.group_commit import GroupCommit
from data.sqlite_writer import SqliteWriter


def open_error(path: str | Path, exc: sqlite3.Error | OSError) -> StoreOpenError:
    """What a failure while opening means for the person running the bot, in plain words."""
    where = Path(path)
    name = getattr(exc, "sqlite_errorname", "") or ""
    if name.startswith("SQLITE_NOTADB"):
        return StoreOpenError(
            path,
            "it is not a SQLite database (the file holds something else)",
            "Point the bot at its own database file, or move this file away so a new one is made",
        )
    if name.startswith("SQLITE_CORRUPT"):
        return StoreOpenError(
            path,
            "the file is damaged (SQLite finds it malformed, e.g. cut short by a copy or a full disk)",
            "Restore it from a backup together with its -wal file, or move it away so a new one is made",
        )
    if name.startswith(("SQLITE_BUSY", "SQLITE_LOCKED")):
        return StoreOpenError(
            path,
            "another program holds it locked",
            "Stop the other program using this file (another copy of the bot?) and start again",
        )
    if name.startswith("SQLITE_FULL"):
        return StoreOpenError(path, "the disk is full", "Free some space and start again")
    if name.startswith(("SQLITE_READONLY", "SQLITE_CANTOPEN", "SQLITE_PERM")) or isinstance(exc, PermissionError):
        if where.is_dir():
            return StoreOpenError(path, "it is a folder, not a file", "Give the path of a file inside it")
        if not where.parent.is_dir():
            return StoreOpenError(
                path,
                f"its folder {where.parent} does not exist",
                "Create the folder, or point the bot at a file in a folder that exists",
            )
        return StoreOpenError(
            path,
            f"it cannot be written here: the file or its folder {where.parent} is read-only, or belongs to"
            f" another user (SQLite also needs to create {where.name}-wal and {where.name}-shm beside it)",
            "Make the folder and the file writable for the user running the bot, or use a file in another folder",
        )
    return StoreOpenError(
        path,
        f"SQLite could not use it ({exc})",
        "Check the disk and the file, or restore the file from a backup",
    )


WRITER_PRAGMAS = ("busy_timeout=10000", "journal_mode=WAL", "synchronous={sync}", "foreign_keys=ON")


async def open_writer(path: str | Path, synchronous: str, progress: ReplayProgress | None) -> Writer:
    """The single writer of a database file: its own connection, every batch one transaction."""
    pragmas = [p.format(sync=synchronous.upper()) for p in WRITER_PRAGMAS]
    try:
        conn = await SqliteWriter.open(path, pragmas)
    except (sqlite3.Error, OSError) as exc:
        raise open_error(path, exc) from exc
    # no progress kept: no closing job to ask for after every batch (the idle writer's fast path)
    return GroupCommit(conn, closing=partial(progress_job, progress) if progress is not None else None)


async def _worker_stopped(conn: aiosqlite.Connection) -> None:
    """Wait for the worker thread of a connection that failed to open.

    aiosqlite stops it without waiting; were the event loop closed first, the thread would report
    to a closed loop and print a traceback at exit, after our one line.
    """
    thread = conn if isinstance(conn, threading.Thread) else getattr(conn, "_thread", None)
    for _ in range(500):
        if not isinstance(thread, threading.Thread) or not thread.is_alive():
            return
        await asyncio.sleep(0.01)


async def connect(path: str | Path, pragmas: Iterable[str]) -> aiosqlite.Connection:
    """A connection with ``pragmas`` set; closed again (so no thread is left running) when that fails."""
    pending = aiosqlite.connect(str(path), isolation_level=None)
    try:
        conn = await pending
    except (sqlite3.Error, OSError) as exc:
        await _worker_stopped(pending)
        raise open_error(path, exc) from exc
    try:
        for pragma in pragmas:
            # closed at once: a pragma that returns a row and is left open blocks the migration's COMMIT
            async with conn.execute(f"PRAGMA {pragma}"):
                pass
    except (sqlite3.Error, OSError) as exc:
        await conn.close()
        raise open_error(path, exc) from exc
    except BaseException:
        await conn.close()
        raise
    return conn


async def sqlite_refuse_newer(conn: aiosqlite.Connection, path: Path) -> None:
    """Leave untouched a file migrated by a newer version (it may hold what this one cannot read)
    and another program's database.

    Only reads (the first one also tells a damaged file or another kind of file apart).
    """
    async with conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'") as cur:
        tables = {str(row[0]) for row in await cur.fetchall()}
    if "schema_migrations" not in tables:
        if tables:
            raise StoreOpenError(
                path,
                f"it is the SQLite database of another program (its tables: {', '.join(sorted(tables)[:5])})",
                "Point the bot at its own database file, or at a new file name",
            )
        return
    found = await _sqlite_version(conn)
    known = len(migrations())
    if found > known:
        raise StoreOpenError(
            path,
            f"it was written by a newer version of the bot (schema version {found}; this version knows"
            f" up to {known})",
            "Run the newer version of the bot, or a backup of the file made for this one; the file was"
            " left as it was",
        )


async def sqlite_migrate(conn: aiosqlite.Connection, path: Path) -> None:
    """Apply every migration not yet applied, all in one transaction, forward only."""
    await conn.execute(
        "CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, applied_at TEXT NOT NULL)"
    )
    current = await _sqlite_version(conn)
    pending = [(n, sql) for n, sql in migrations() if n > current]
    if not pending:
        return
    now = datetime.now(UTC).isoformat()
    script = ["BEGIN IMMEDIATE;"]
    for number, sql in pending:
        script.append(sql)
        script.append(f"INSERT INTO schema_migrations (version, applied_at) VALUES ({number}, '{now}');")
    script.append("COMMIT;")
    try:
        await conn.executescript("\n".join(script))
    except sqlite3.Error as exc:
        if conn.in_transaction:
            await conn.execute("ROLLBACK")
        if getattr(exc, "sqlite_errorname", "") == "SQLITE_ERROR":  # the migration's SQL, not the file
            raise StoreOpenError(
                path,
                f"this version of the bot could not upgrade it to schema version {pending[-1][0]} ({exc})",
                "The file was left as it was; please report this to the bot's maintainers",
            ) from exc
        raise


async def _sqlite_version(conn: aiosqlite.Connection) -> int:
    async with conn.execute("SELECT COALESCE(MAX(version), 0) FROM schema_migrations") as cur:
        row = await cur.fetchone()
    return int(row[0]) if row else 0


class SqliteEngine:
    name = "sqlite"

    async def open_round(
        self, where: Target, synchronous: str, progress: ReplayProgress | None, lease: float | None = None
    ) -> tuple[Db, Writer]:
        assert where.path is not None  # noqa: S101 - a SQLite target has a path
        path = where.path
        conn = await connect(path, ("busy_timeout=5000",))
        try:
            await sqlite_refuse_newer(conn, path)
            for pragma in ("journal_mode=WAL", f"synchronous={synchronous.upper()}", "foreign_keys=ON"):
                async with conn.execute(f"PRAGMA {pragma}"):
                    pass
            await sqlite_migrate(conn, path)
            # A write that changes nothing: SQLite quietly opens a file it may not write read-only,
            # and that would otherwise show at the first action, not here.
            await conn.execute("DELETE FROM schema_migrations WHERE 0")
            writer = await open_writer(path, synchronous, progress)
        except (sqlite3.Error, OSError) as exc:
            await conn.close()
            raise open_error(path, exc) from exc
        except BaseException:
            await conn.close()
            raise
        return conn, writer

    async def open_reader(self, where: Target, synchronous: str) -> Db:
        assert where.path is not None  # noqa: S101
        pragmas = ("busy_timeout=10000", "journal_mode=WAL", f"synchronous={synchronous.upper()}", "foreign_keys=ON")
        return await connect(where.path, pragmas)

    async def open_writer(
        self, where: Target, synchronous: str, progress: ReplayProgress | None, lease: float | None = None
    ) -> Writer:
        del lease  # one process writes the file: nobody waits for it
        assert where.path is not None  # noqa: S101
        return await open_writer(where.path, synchronous, progress)

    async def open_read_only(self, where: Target) -> Db:
        assert where.path is not None  # noqa: S101
        if not where.path.is_file():
            raise StoreOpenError(
                where.path, "there is no such file", "Give the database file the bot or a replay wrote"
            )
        uri = f"{where.path.resolve().as_uri()}?mode=ro"
        try:
            conn = await aiosqlite.connect(uri, uri=True, isolation_level=None)
        except (sqlite3.Error, OSError) as exc:
            raise open_error(where.path, exc) from exc
        try:
            async with conn.execute("PRAGMA busy_timeout=5000"):
                pass
        except (sqlite3.Error, OSError) as exc:
            await conn.close()
            raise open_error(where.path, exc) from exc
        return conn

    async def table_names(self, db: Db) -> set[str]:
        async with db.execute("SELECT name FROM sqlite_master WHERE type = 'table'") as cur:
            return {str(row[0]) for row in await cur.fetchall()}

    async def columns(self, db: Db, table: str) -> set[str]:
        async with db.execute(f"PRAGMA table_info({table})") as cur:
            return {str(r[1]) for r in await cur.fetchall()}

    @asynccontextmanager
    async def transaction(self, db: Db) -> AsyncIterator[Db]:
        await db.execute("BEGIN IMMEDIATE")
        try:
            yield db
        except BaseException:
            if db.in_transaction:
                await db.execute("ROLLBACK")
            raise
        await db.execute("COMMIT")

    @asynccontextmanager
    async def reading(self, db: Db) -> AsyncIterator[Db]:
        await db.execute("BEGIN")  # deferred: WAL gives its reads the moment of the first one
        try:
            yield db
        finally:
            if db.in_transaction:
                await db.execute("ROLLBACK")

    def is_integrity_error(self, exc: BaseException) -> bool:
        return isinstance(exc, sqlite3.IntegrityError)

    def connection_lost(self, exc: BaseException) -> bool:
        del exc
        return False


SQLITE = SqliteEngine()
