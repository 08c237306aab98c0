"""Where the stores keep their rows: SQLite (a file, aiosqlite) or PostgreSQL (a server, asyncpg).

Every difference between the two engines lives here and in ``data.postgres``: which URL names
which engine (``target``), how a store connects, migrates and checks a database (``Engine``),
how a transaction of its own is opened, which error is a row's fault. The stores write their SQL
once, in the subset both engines read alike (``?`` placeholders, ``INSERT ... ON CONFLICT``), and
their writes as ``StatementJob``: a list of statements either engine's group-commit writer runs.

``DATABASE_URL`` (and every ``--db``) is ``sqlite:///relative.db``, ``sqlite:////absolute.db``, a
plain path, or ``postgresql://user:password@host:port/database`` (asyncpg's form: ``?host=/socket``
for a unix socket; other query parameters are the server's settings, e.g. ``search_path``).
The password is never shown: ``Target.display`` is the URL without it.
"""

from __future__ import annotations

import hashlib
import re
import sqlite3
from collections.abc import AsyncIterator, Callable, Hashable, Sequence
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, TypeAlias

from data.group_commit import GroupCommit, Outcome, Written

if TYPE_CHECKING:
    from data.postgres import PgConn
    from data.sqlite_writer import JoinedPart
    from data.store import ReplayProgress

Db: TypeAlias = Any
"""A store's connection: ``aiosqlite.Connection`` or ``data.postgres.PgConn`` (the same subset of calls)."""

MIGRATIONS_ROOT = Path(__file__).resolve().parent / "migrations"
POSTGRES_SCHEMES = ("postgresql://", "postgres://")


@dataclass(frozen=True)
class Target:
    """A database named by a URL or a path."""

    url: str
    """As given (a path for SQLite): what to connect to. May hold a password: never print it."""
    path: Path | None
    """SQLite's file; None for PostgreSQL."""

    @property
    def postgres(self) -> bool:
        return self.path is None

    @property
    def display(self) -> str:
        """The database for messages and logs: the path, or the URL without its password."""
        return str(self.path) if self.path is not None else redact(self.url)

    def __str__(self) -> str:
        return self.display

    def __repr__(self) -> str:
        return f"Target({self.display!r})"


def redact(url: str) -> str:
    """``url`` without a password (in its user part or as a ``password=`` parameter).

    The user part ends at the last ``@``: a password pasted as it is may hold ``/ ? # @``, which a
    URL parser would take for the start of the path, the query or the fragment and show."""
    scheme, sep, rest = url.partition("://")
    if not sep:
        return url
    user = ""
    if "@" in rest:
        userinfo, rest = rest.rsplit("@", 1)
        name, colon, _ = userinfo.partition(":")
        user = f"{name}:***@" if colon else f"{userinfo}@"
    head, question, query = rest.partition("?")
    if question:
        fields = []
        for field in query.split("&"):
            key, equals, _ = field.partition("=")
            fields.append(f"{key}=***" if equals and key.strip().lower() == "password" else field)
        query = "&".join(fields)
    return f"{scheme}://{user}{head}{question}{query}"


class UnusableUrlError(ValueError):
    """A database URL the bot cannot read; its words never quote the URL (it may hold a password)."""

    def __init__(self, problem: str, advice: str) -> None:
        self.problem = problem
        self.advice = advice
        super().__init__(f"{problem}: {advice}")


_MISTYPED = re.compile(r"(?i)postgres(?:ql)?:")
_POSTGRES_FORM = "write it as postgresql://USER:PASSWORD@HOST:PORT/DATABASE"


def target(where: str | Path | Target) -> Target:
    """The database ``where`` names: ``postgresql://...``, ``sqlite:///path`` or a plain path.

    ``UnusableUrlError`` for a URL of no engine the bot knows, and for a mistyped one (``postgresql:/``,
    a ``user:password@`` without a scheme) that would otherwise be taken for a file's path and shown."""
    if isinstance(where, Target):
        return where
    text = str(where)
    if text.startswith(POSTGRES_SCHEMES):
        return Target(text, None)
    if text.startswith("sqlite:"):
        if not text.startswith("sqlite:///") or len(text) == len("sqlite:///"):
            raise UnusableUrlError("a SQLite URL names a file", "sqlite:///relative.db or sqlite:////absolute/path.db")
        return Target(text, Path(text.removeprefix("sqlite:///")))
    if "://" in text:
        raise UnusableUrlError(
            f"unknown kind of database {text.split('://', 1)[0]!r}", "use sqlite:///FILE or postgresql://"
        )
    if _MISTYPED.match(text) or ("@" in text and ":" in text.partition("@")[0]):
        raise UnusableUrlError("it looks like a mistyped PostgreSQL URL", _POSTGRES_FORM)
    return Target(text, Path(text))


def is_postgres(where: str | Path | Target) -> bool:
    return target(where).postgres


# -- writes: one description, run by either engine's writer ------------------------------------------


@dataclass(frozen=True, slots=True)
class Stmt:
    """One statement of a write: ``many`` runs it once per row of ``params``; ``check`` is told the
    number of rows it touched (and raises to keep the whole job out)."""

    sql: str
    params: Sequence[Any] = ()
    many: bool = False
    check: Callable[[int], None] | None = None


class StatementJob:
    """A store's write for the group commit, on either engine: its statements, how to tell a
    redelivered event (``logged``: a query that finds its row), and what to do once it is settled."""

    __slots__ = ("_done", "_logged", "_statements", "event", "fence", "key", "parts", "statement")

    def __init__(
        self,
        statements: Sequence[Stmt],
        *,
        key: Hashable | None = None,
        parts: Sequence[JoinedPart] = (),
        logged: tuple[str, Sequence[Any]] | None = None,
        done: Callable[[Outcome], None] | None = None,
        single: bool = False,
        event: str | None = None,
        fence: tuple[str, int] | None = None,
    ) -> None:
        self._statements = statements
        self.key = key
        self.fence = fence
        """(guild, epoch): written only while the guild's epoch is still this one (``data.ownership``;
        PostgreSQL checks it, SQLite's single process has nothing to check)."""
        self.event = event
        """The event id the job logs, if any (for tests and logs)."""
        self.parts = parts
        self._logged = logged
        self._done = done
        only = statements[0] if single and len(statements) == 1 else None
        self.statement: tuple[str, Sequence[Any]] | None = (
            (only.sql, only.params) if only is not None and not only.many and only.check is None else None
        )
        """The job's one statement, when a batch of it alone needs no transaction of its own."""

    def write(self, conn: sqlite3.Connection) -> None:
        """SQLite's writer: the statements inside its open transaction."""
        for stmt in self._statements:
            if stmt.many:
                conn.executemany(stmt.sql, stmt.params).close()
                continue
            cursor = conn.execute(stmt.sql, stmt.params)
            if stmt.check is not None:
                stmt.check(cursor.rowcount)
            cursor.close()

    def logged(self, conn: sqlite3.Connection) -> bool:
        return self._logged is not None and conn.execute(*self._logged).fetchone() is not None

    @property
    def statements(self) -> Sequence[Stmt]:
        return self._statements

    async def write_async(self, conn: PgConn) -> None:
        """PostgreSQL's writer: the same statements, on the batch's connection."""
        await run_statements(conn, self._statements)

    @property
    def traceable(self) -> bool:
        """Whether ``logged`` can tell that the job's rows are there (it logs an event)."""
        return self._logged is not None

    async def logged_async(self, conn: PgConn) -> bool:
        if self._logged is None:
            return False
        cursor = await conn.execute(*self._logged)
        return await cursor.fetchone() is not None

    def settled(self, outcome: Outcome) -> None:
        if outcome is Written.STORED:
            for part in self.parts:
                part.committed()
        else:
            for part in self.parts:
                failed = getattr(part, "failed", None)
                if failed is not None:
                    failed()
        if self._done is not None:
            self._done(outcome)


async def run_statements(conn: Db, statements: Sequence[Stmt]) -> None:
    """``statements`` on an open transaction of either engine's async face (``PgConn``, or SQLite's
    ``AsyncTx`` for a joined part)."""
    for stmt in statements:
        if stmt.many:
            await conn.executemany(stmt.sql, stmt.params)
            continue
        cursor = await conn.execute(stmt.sql, stmt.params)
        if stmt.check is not None:
            stmt.check(cursor.rowcount)


Writer: TypeAlias = GroupCommit[StatementJob]


# -- the engines ------------------------------------------------------------------------------------


class Engine(Protocol):
    name: str

    async def open_round(
        self, where: Target, synchronous: str, progress: ReplayProgress | None, lease: float | None = None
    ) -> tuple[Db, Writer]:
        """Check and migrate the database, then its reading connection and its writer.
        ``StoreOpenError`` when it cannot be used; nothing is left open then."""

    async def open_reader(self, where: Target, synchronous: str) -> Db:
        """A reading connection (also for a store's own transactions) to a migrated database."""

    async def open_writer(
        self, where: Target, synchronous: str, progress: ReplayProgress | None, lease: float | None = None
    ) -> Writer:
        """The database's writer. ``lease`` (PostgreSQL): seconds a transaction of it may wait on this
        process before the server ends it (``data.ownership.LEASE_SECONDS`` when None)."""

    async def open_read_only(self, where: Target) -> Db:
        """A connection that can never write (the web record's)."""

    async def table_names(self, db: Db) -> set[str]: ...

    async def columns(self, db: Db, table: str) -> set[str]: ...

    def transaction(self, db: Db) -> AbstractAsyncContextManager[Db]:
        """A transaction of the store's own on ``db`` (committed when the block ends without error)."""

    def reading(self, db: Db) -> AbstractAsyncContextManager[Db]:
        """Reads that all see one moment of the database, whatever commits meanwhile (an export)."""

    def is_integrity_error(self, exc: BaseException) -> bool: ...

    def connection_lost(self, exc: BaseException) -> bool:
        """Whether ``exc`` lost the connection, so a commit's outcome is unknown (never on SQLite)."""


def engine_for(where: Target) -> Engine:
    return POSTGRES if where.postgres else SQLITE


class SqliteEngine:
    name = "sqlite"

    async def open_round(
        self, where: Target, synchronous: str, progress: ReplayProgress | None, lease: float | None = None
    ) -> tuple[Db, Writer]:
        from data.store import connect, open_error, open_writer, sqlite_migrate, sqlite_refuse_newer

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
        from data.store import connect

        assert where.path is not None  # noqa: S101
        pragmas = ("busy_timeout=10000", "journal_mode=WAL", f"synchronous={synchronous.upper()}", "foreign_keys=ON")
        return await connect(where.path, pragmas)

    async def open_writer(
        self, where: Target, synchronous: str, progress: ReplayProgress | None, lease: float | None = None
    ) -> Writer:
        from data.store import open_writer

        del lease  # one process writes the file: nobody waits for it
        assert where.path is not None  # noqa: S101
        return await open_writer(where.path, synchronous, progress)

    async def open_read_only(self, where: Target) -> Db:
        import aiosqlite

        from data.store import StoreOpenError, open_error

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
        import asyncpg

        try:
            return await asyncpg.connect(where.url, timeout=15, server_settings=settings or None)
        except (asyncpg.PostgresError, asyncpg.InterfaceError, OSError, TimeoutError, ValueError) as exc:
            raise _open_error(where, exc) from None

    async def _pool(self, where: Target, **settings: str) -> Any:
        import asyncpg

        try:
            return await asyncpg.create_pool(
                where.url, min_size=1, max_size=self.pool_size, timeout=15, server_settings=settings or None
            )
        except (asyncpg.PostgresError, asyncpg.InterfaceError, OSError, TimeoutError, ValueError) as exc:
            raise _open_error(where, exc) from None

    async def migrate(self, where: Target) -> None:
        """Apply every migration not yet applied, all in one transaction, forward only, under a lock
        that makes a second process starting at the same time wait and find nothing left to do."""
        from data.store import StoreOpenError, migrations

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
        from data.postgres import PgConn

        del synchronous  # the server's synchronous_commit decides (on by default: a commit is durable)
        return PgConn(await self._pool(where))

    async def open_writer(
        self, where: Target, synchronous: str, progress: ReplayProgress | None, lease: float | None = None
    ) -> Writer:
        from data.ownership import LEASE_SECONDS
        from data.postgres import PgWriter
        from data.store import progress_job

        del synchronous
        # a transaction left open by a process that stopped answering (frozen mid-commit) would keep the
        # rows it locked (a guild's epoch among them) for ever: the server ends it after the lease
        idle = f"{round((lease or LEASE_SECONDS) * 1000)}ms"
        writer = await PgWriter.open(lambda: self._connect(where, idle_in_transaction_session_timeout=idle))
        # no progress kept: no closing job to ask for after every batch (the idle writer's fast path)
        return GroupCommit(writer, closing=(lambda: progress_job(progress)) if progress is not None else None)

    async def open_read_only(self, where: Target) -> Db:
        from data.postgres import PgConn

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
        from data.postgres import is_integrity_error

        return is_integrity_error(exc)

    def connection_lost(self, exc: BaseException) -> bool:
        from data.postgres import connection_lost

        return connection_lost(exc)


_TABLES_SQL = "SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema()"


def _open_error(where: Target, exc: BaseException) -> Exception:
    """What a failure to reach the server means, in plain words (the URL shown without its password)."""
    import asyncpg

    from data.store import StoreOpenError

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


SQLITE = SqliteEngine()
POSTGRES = PostgresEngine()
