"""The engine-neutral pieces every store and both engines share, so that none of them imports another
that imports it back: where a database is (``Target``, read from a URL or a path), a write as
statements either engine's writer runs (``Stmt``, ``StatementJob``, ``Writer``), the numbered
migrations, a replay's progress marks, the guild's fence (``Fence``, ``fenced_insert``) and the errors
a store raises (``StoreOpenError``, ``OwnedElsewhereError``, ``FencedError``).

``DATABASE_URL`` (and every ``--db``) is ``sqlite:///relative.db``, ``sqlite:////absolute.db``, a
plain path, or ``postgresql://user:password@host:port/database`` (asyncpg's form: ``?host=/socket``
for a unix socket; other query parameters are the server's settings, e.g. ``search_path``).
The password is never shown: ``Target.display`` is the URL without it.
"""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Callable, Hashable, Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, TypeAlias

from data.group_commit import GroupCommit, Outcome, Written
from games.values import valueclass

if TYPE_CHECKING:
    from data.sqlite_writer import JoinedPart

PgConn: TypeAlias = Any
"""``data.postgres.PgConn`` where a job is written on PostgreSQL (named here without importing asyncpg)."""

MIGRATIONS_ROOT = Path(__file__).resolve().parent / "migrations"


POSTGRES_SCHEMES = ("postgresql://", "postgres://")


@valueclass
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


Db: TypeAlias = Any
"""A store's connection: ``aiosqlite.Connection`` or ``data.postgres.PgConn`` (the same subset of calls)."""


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

    __slots__ = ("_done", "_logged", "_statements", "event", "fence", "key", "line", "parts", "progress", "statement")

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
        line: tuple[str, int] | None = None,
        progress: ReplayProgress | None = None,
    ) -> None:
        self._statements = statements
        self.key = key
        self.line = line
        """(guild, line): a row of the job records the replay line it comes from (its ``source_line``),
        so once written it tells a resumed replay that the guild's lines up to there are done."""
        self.progress = progress
        """The replay's progress, told the job's ``line`` once the job is written (None: not kept)."""
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
            if self.progress is not None and self.line is not None:
                self.progress.reached(*self.line)
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


LEASE_SECONDS = 20.0
"""How long a process that stops answering keeps its guilds (``GUILD_LEASE_SECONDS``)."""


class OwnedElsewhereError(Exception):
    """Another process of the bot acts for this guild now (or the lock could not be asked for)."""

    def __init__(self, guild: str, reason: str = "another process of the bot runs it") -> None:
        self.guild = guild
        self.reason = reason
        super().__init__(f"guild {guild}: not acting for it here: {reason}")


class FencedError(OwnedElsewhereError):
    """A write for a guild this process no longer holds (its epoch moved on): nothing of it was stored."""

    def __init__(self, guild: str, reason: str = "this process lost it to another one; nothing was changed") -> None:
        super().__init__(guild, reason)


class Fence(Protocol):
    """What a store asks before writing a guild's action, and tells when the database refused it."""

    def epoch(self, guild: str) -> int | None:
        """The epoch this process took the guild at; None when it does not hold the guild."""

    def fenced(self, guild: str, epoch: int) -> None:
        """A write made under ``epoch`` was refused: another process took the guild since."""


_INSERT = re.compile(
    r"^\s*(INSERT\s+INTO\s+\w+\s*\([^)]*\))\s*VALUES\s*\((.*?)\)\s*(ON\s+CONFLICT\s*\([^)]*\)\s*DO\s+UPDATE\s+SET\s.*)?$",
    re.IGNORECASE | re.DOTALL,
)


_FENCE_ONE = "SELECT 1 FROM guild_owners WHERE guild_id = ? AND epoch = ? FOR SHARE"


@lru_cache(maxsize=256)
def fenced_insert(sql: str) -> str | None:
    """An ``INSERT ... VALUES (...)`` (or an upsert ``... ON CONFLICT (...) DO UPDATE SET``) as one that
    writes nothing unless the guild's epoch (its two last parameters) is still the one given, holding
    the guild's ``guild_owners`` row ``FOR SHARE`` until the transaction ends; None for any other
    statement (and for an upsert whose update may touch no row: its count would not tell)."""
    match = _INSERT.match(sql)
    if match is None:
        return None
    head, values, conflict = match.groups()
    if conflict is not None and ("?" in conflict or re.search(r"\bWHERE\b", conflict, re.IGNORECASE)):
        return None
    tail = f" {conflict.strip()}" if conflict is not None else ""
    return f"{head} SELECT {values} WHERE EXISTS ({_FENCE_ONE}){tail}"


MIGRATIONS_DIR = Path(__file__).resolve().parent / "migrations"


_MIGRATION_NAME = re.compile(r"^(\d{4})_[a-z0-9_]+\.sql$")


def migrations(directory: Path = MIGRATIONS_DIR) -> list[tuple[int, str]]:
    """The numbered migration files in order; a gap or a duplicate number is an error."""
    found: list[tuple[int, str]] = []
    for path in sorted(directory.glob("*.sql")):
        match = _MIGRATION_NAME.match(path.name)
        if match is None:
            raise RuntimeError(f"migration file name {path.name!r} does not look like 0001_name.sql")
        found.append((int(match.group(1)), path.read_text(encoding="utf-8")))
    numbers = [n for n, _ in found]
    if numbers != list(range(1, len(numbers) + 1)):
        raise RuntimeError(f"migrations must be numbered 1..n without gaps, found {numbers}")
    return found


class StoreOpenError(Exception):
    """The database file cannot be used. ``str()`` is one line: the file, what is wrong, what to do."""

    def __init__(self, path: str | Path, problem: str, advice: str) -> None:
        self.path = str(path)
        self.problem = problem
        self.advice = advice
        super().__init__(f"cannot use the database {self.path}: {problem}. {advice}")


_UPSERT_PROGRESS = (
    "INSERT INTO replay_progress (guild_id, line) VALUES (?, ?)"
    " ON CONFLICT (guild_id) DO UPDATE SET line = excluded.line"
)


_FENCED_PROGRESS = fenced_insert(_UPSERT_PROGRESS) or _UPSERT_PROGRESS
"""A mark written only while its guild's epoch holds (PostgreSQL's; a store with a fence is one)."""


class ReplayProgress:
    """The last scenario line a replay finished, per guild, and how much of that is on disk.

    A replay marks each line as it finishes, whatever its outcome. The round's store and the
    tables' store share one ``ReplayProgress`` and write the mark inside their next commit, so no
    commit is durable while a line finished before it is not; resuming on the file then starts
    exactly after the last finished line. Only a replay on a file that outlives it needs this.
    On a shared database a mark carries the epoch its guild was held at (``data.ownership``) and is
    written only while that epoch holds, as the guild's actions are.

    A row that records its own line (an action's ``source_line``) says as much as a mark: a resumed
    replay starts after the highest line any of its rows records. So a commit whose every job writes
    such a row, at or past its guild's finished line, carries no mark of its own (``progress_job``):
    most of a replay's commits are one action's row, written as one statement.
    """

    def __init__(self) -> None:
        self._finished: dict[str, tuple[int, int | None]] = {}
        self._saved: dict[str, tuple[int, int | None]] = {}
        self._reached: dict[str, int] = {}
        """Per guild, the highest line a row this process wrote records (durable)."""

    def finish(self, guild: str, line: int, epoch: int | None = None) -> None:
        self._finished[guild] = (line, epoch)

    def reached(self, guild: str, line: int) -> None:
        """A row recording ``line`` of the guild's replay is durable."""
        if line > self._reached.get(guild, -1):
            self._reached[guild] = line

    def unsaved(self) -> list[tuple[str, int, int | None]]:
        """(guild, line, epoch) of every mark not written yet, nor told by a row written since."""
        reached = self._reached
        return [
            (guild, *mark)
            for guild, mark in self._finished.items()
            if self._saved.get(guild) != mark and mark[0] > reached.get(guild, -1)
        ]

    def saved(self, marks: Iterable[tuple[str, int, int | None]]) -> None:
        self._saved.update((guild, (line, epoch)) for guild, line, epoch in marks)


async def write_progress(conn: Db, marks: list[tuple[str, int]]) -> None:
    """Record progress marks; inside the caller's transaction."""
    for guild, line in marks:
        await conn.execute(_UPSERT_PROGRESS, (guild, line))


def _told_by_rows(marks: list[tuple[str, int, int | None]], jobs: Sequence[StatementJob]) -> bool:
    """Whether every job of a batch writes a row recording a line at or past its guild's mark: each
    of them, once written, tells a resumed replay as much as the marks would."""
    lines = {guild: line for guild, line, _ in marks}
    for job in jobs:
        told = job.line
        if told is None or told[1] < lines.get(told[0], -1):
            return False
    return True


def progress_job(progress: ReplayProgress | None, jobs: Sequence[StatementJob] = ()) -> StatementJob | None:
    """The progress marks not written yet, as the last job of the batch of ``jobs`` (None: none to
    write, or none needed: every job records its own line); a mark made under an epoch is written
    only while its guild's epoch is still that one (nothing when not)."""
    marks = progress.unsaved() if progress is not None else []
    if progress is None or not marks or (jobs and _told_by_rows(marks, jobs)):
        return None
    plain = [(guild, line) for guild, line, epoch in marks if epoch is None]
    held = [(guild, line, guild, epoch) for guild, line, epoch in marks if epoch is not None]
    statements = [Stmt(_UPSERT_PROGRESS, plain, many=True)] if plain else []
    if held:
        statements.append(Stmt(_FENCED_PROGRESS, held, many=True))

    def done(outcome: Outcome) -> None:
        if outcome is Written.STORED:
            progress.saved(marks)

    return StatementJob(statements, done=done)
