"""The round's persistence, on SQLite or PostgreSQL (``data.engine``): migrations, the action log and
snapshots. It knows SQL and nothing else; the SQL is the same on both engines.

Every write goes through the store's one writer (``data.group_commit``): an action's rows (its log
row, a snapshot, archived records, entries of the moderators' log, another store's joined part, a
replay's progress marks) are one job, written whole or not at all, and the jobs queued while a
transaction commits share the next one. A write returns once its transaction committed. The log
row's unique ``(guild_id, event_id)`` makes a redelivered event a no-op. On SQLite, WAL with
``synchronous=FULL`` makes a commit durable when it returns; on PostgreSQL, the server's COMMIT.
Reads use a connection of their own, so they never wait behind a commit, and see only what is
committed.

A file that cannot be used (not a database, damaged, read-only, written by a newer version) is
refused at ``open`` with ``StoreOpenError``, whose text is one line saying what is wrong and what
to do; every connection opened on the way is closed first, so the process can exit.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import sqlite3
from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Protocol, Self

import aiosqlite

from data.base import (
    Db,
    Fence,
    FencedError,
    PgConn,
    ReplayProgress,
    StatementJob,
    Stmt,
    Target,
    Writer,
    run_statements,
    target,
)
from data.engine import engine_for
from data.group_commit import STORED, Behind, Outcome, Written
from games.values import valueclass

log = logging.getLogger(__name__)

_INSERT_ACTION = (
    "INSERT INTO actions (guild_id, seq, event_id, at, actor, kind, body, source_line)"
    " VALUES (?, ?, ?, ?, ?, ?, ?, ?)"
)


@valueclass
class LoggedAction:
    seq: int
    event_id: str
    kind: str
    body: str


@valueclass
class LogRow:
    """One row of a guild's action log, with the instant it was logged."""

    seq: int
    at: datetime
    kind: str
    body: str


_LOG = "SELECT seq, at, kind, body FROM actions WHERE guild_id = ? AND seq > ? ORDER BY seq"


def log_query(guild: str, after: int, limit: int | None) -> tuple[str, list[object]]:
    """The guild's actions after seq ``after``, in order, at most ``limit``: the SQL and its parameters."""
    params: list[object] = [guild, after]
    if limit is None:
        return _LOG, params
    return _LOG + " LIMIT ?", [*params, limit]


def log_rows(rows: Sequence[Sequence[object]]) -> list[LogRow]:
    return [LogRow(int(str(r[0])), datetime.fromisoformat(str(r[1])), str(r[2]), str(r[3])) for r in rows]


@valueclass
class Snapshot:
    seq: int
    body: str


class ArchiveRow(Protocol):
    """A record leaving a guild's state (``games.nomic.archive.Archived`` is one)."""

    @property
    def kind(self) -> str: ...
    @property
    def number(self) -> int: ...
    @property
    def at(self) -> datetime: ...
    @property
    def body(self) -> str: ...


class JoinedWrite(Protocol):
    """Another store's part of an action (``data.library_store``: card copies a trade moves), written
    inside the round's transaction so both commit or neither does."""

    async def write(self, conn: aiosqlite.Connection) -> None:
        """Write inside the open transaction (``conn`` has the statements of an aiosqlite connection);
        raise to keep the whole action out."""

    def committed(self) -> None:
        """The transaction is durable."""


class AppendWatch(Protocol):
    """The caller's side of an appended action (``RoundService``): told when it is queued, so the
    guild's next action may go ahead, and whether it was written, in commit order (before any
    waiter resumes); ``behind``: not written because the log holds its step already (the caller's
    copy of the guild is behind the log: read it again)."""

    def queued(self) -> None: ...

    def settled(self, written: bool, *, behind: bool = False) -> None: ...


class ModLogRow(Protocol):
    """An entry of the moderators' log (``games.nomic.modlog.ModLogEntry`` is one)."""

    @property
    def at(self) -> datetime: ...
    @property
    def moderator(self) -> str: ...
    @property
    def name(self) -> str: ...
    @property
    def kind(self) -> str: ...
    @property
    def what(self) -> str: ...


@valueclass
class ModLogRecord:
    at: datetime
    moderator: str
    name: str
    kind: str
    what: str


_INSERT_MOD_LOG = (
    "INSERT INTO mod_log (guild_id, at, moderator, moderator_name, kind, what) VALUES (?, ?, ?, ?, ?, ?)"
)
HELD_PER_MEMBER = 20
"""Held notices kept for a member whose DMs are closed: the newest."""

KEEP = object()
"""``setup_change``: leave the moderator role as it is."""


def _unwaited(written: asyncio.Future[Written]) -> None:
    """The end of a write nobody waits for: a failure is logged (a fenced one is expected: another
    process holds the guild now)."""
    if written.cancelled():
        return
    error = written.exception()
    if error is not None and not isinstance(error, FencedError):
        log.warning("a refusal could not be recorded: %s", error)


def _mod_log_params(guild: str, row: ModLogRow) -> tuple[str, str, str, str, str, str]:
    return (guild, row.at.isoformat(), row.moderator, row.name, row.kind, row.what)


@valueclass
class GuildSettings:
    """What a guild's moderators configured for the Discord adapter."""

    channels: dict[str, str]
    """Channel role (``auctions``, ``game-actions``, ...) to channel id, for the roles bound."""
    moderator_role: str | None = None
    web: str = "on"
    """Whether the round's web record shows this guild: ``on``, ``hidden`` (not listed) or ``off``."""


_HAS_EVENT = "SELECT 1 FROM actions WHERE guild_id = ? AND event_id = ?"
_UPSERT_SNAPSHOT = (
    "INSERT INTO snapshots (guild_id, seq, taken_at, body) VALUES (?, ?, ?, ?)"
    " ON CONFLICT (guild_id) DO UPDATE SET seq = excluded.seq, taken_at = excluded.taken_at, body = excluded.body"
)
_UPSERT_ARCHIVE = (
    "INSERT INTO archive (guild_id, kind, number, seq, archived_at, body) VALUES (?, ?, ?, ?, ?, ?)"
    " ON CONFLICT (guild_id, kind, number) DO UPDATE SET seq = excluded.seq,"
    " archived_at = excluded.archived_at, body = excluded.body"
)
_BIND_CHANNEL = (
    "INSERT INTO guild_channels (guild_id, role, channel_id, updated_at) VALUES (?, ?, ?, ?)"
    " ON CONFLICT (guild_id, role) DO UPDATE SET channel_id = excluded.channel_id, updated_at = excluded.updated_at"
)
_UNBIND_CHANNEL = "DELETE FROM guild_channels WHERE guild_id = ? AND role = ?"
_SET_MODERATOR_ROLE = (
    "INSERT INTO guild_settings (guild_id, moderator_role_id, updated_at) VALUES (?, ?, ?)"
    " ON CONFLICT (guild_id) DO UPDATE SET moderator_role_id = excluded.moderator_role_id,"
    " updated_at = excluded.updated_at"
)
_HOLD_NOTICE = "INSERT INTO held_notices (guild_id, member_id, at, text) VALUES (?, ?, ?, ?)"
_KEEP_NEWEST_HELD = (
    "DELETE FROM held_notices WHERE guild_id = ? AND member_id = ? AND id NOT IN"
    " (SELECT id FROM held_notices WHERE guild_id = ? AND member_id = ? ORDER BY id DESC LIMIT ?)"
)
_SET_MESSAGE = (
    "INSERT INTO guild_messages (guild_id, role, channel_id, message_id, updated_at) VALUES (?, ?, ?, ?, ?)"
    " ON CONFLICT (guild_id, role) DO UPDATE SET channel_id = excluded.channel_id,"
    " message_id = excluded.message_id, updated_at = excluded.updated_at"
)
_SET_WEB_MODE = (
    "INSERT INTO guild_settings (guild_id, web, updated_at) VALUES (?, ?, ?)"
    " ON CONFLICT (guild_id) DO UPDATE SET web = excluded.web, updated_at = excluded.updated_at"
)
_REFUSED_SINCE = "SELECT event_id, at FROM refused_events WHERE guild_id = ? AND at >= ?"
_REMEMBER_REFUSED = (
    "INSERT INTO refused_events (guild_id, event_id, at, source_line) VALUES (?, ?, ?, ?)"
    " ON CONFLICT (guild_id, event_id) DO NOTHING"
)
_FORGET_REFUSED = "DELETE FROM refused_events WHERE guild_id = ? AND at < ?"
_SET_META = "INSERT INTO bot_meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value"


def told_line(progress: ReplayProgress | None, guild: str, source_line: int | None) -> tuple[str, int] | None:
    """The (guild, line) a job's row records for a replay that keeps its progress (None: nothing to tell)."""
    return (guild, source_line) if progress is not None and source_line is not None else None


def fence_for(fence: Fence | None, guild: str) -> tuple[str, int] | None:
    """(guild, epoch) a write of the guild is made under on a shared database (None: the local store,
    nothing to check); ``FencedError`` when this process does not hold the guild."""
    if fence is None:
        return None
    epoch = fence.epoch(guild)
    if epoch is None:
        raise FencedError(guild, "this process does not hold it; nothing was changed")
    return guild, epoch


def told(fence: Fence | None, held: tuple[str, int] | None) -> Callable[[Outcome], None] | None:
    """A job's ``done`` that tells the fence when the database refused the write (the guild is
    dropped here, as an action's refusal drops it); None when the write is not fenced."""
    if fence is None or held is None:
        return None

    def done(outcome: Outcome) -> None:
        if isinstance(outcome, FencedError):
            fence.fenced(*held)

    return done


def _action_job(
    guild: str,
    row: tuple[object, ...],
    *,
    created: tuple[object, ...] | None,
    snapshot: tuple[object, ...] | None,
    archived: list[tuple[object, ...]],
    noted: list[tuple[object, ...]],
    parts: tuple[JoinedWrite, ...],
    watch: AppendWatch | None,
    fence: tuple[Fence, int] | None,
    behind: Callable[[BaseException], bool],
    line: tuple[str, int] | None,
    progress: ReplayProgress | None,
) -> StatementJob:
    """An appended action's rows, as one job of the group commit (see ``Store.append``)."""
    statements: list[Stmt] = []
    if created is not None:
        statements.append(Stmt("INSERT INTO guilds (guild_id, seed, created_at) VALUES (?, ?, ?)", created))
    statements.append(Stmt(_INSERT_ACTION, row))
    if snapshot is not None:
        statements.append(Stmt(_UPSERT_SNAPSHOT, snapshot))
    if archived:
        statements.append(Stmt(_UPSERT_ARCHIVE, archived, many=True))
    if noted:
        statements.append(Stmt(_INSERT_MOD_LOG, noted, many=True))

    def done(outcome: Outcome) -> None:
        if fence is not None and isinstance(outcome, FencedError):
            fence[0].fenced(guild, fence[1])  # before the watch: the guild is dropped, not fallen back
        if watch is not None:
            late = isinstance(outcome, BaseException) and behind(outcome)
            watch.settled(outcome is Written.STORED, behind=late)

    return StatementJob(
        statements,
        key=guild,
        parts=parts,
        logged=(_HAS_EVENT, (guild, row[2])),
        done=done,
        single=not parts,
        event=str(row[2]),
        fence=(guild, fence[1]) if fence is not None else None,
        line=line,
        progress=progress,
    )


class _RowJob(StatementJob):
    """An appended action that is its log row alone (most are): ``_action_job``'s job with less to
    build per action (no closure, no empty lists), settled the same way."""

    __slots__ = ("_behind", "_held", "_row", "_watch")

    def __init__(
        self,
        guild: str,
        row: tuple[object, ...],
        watch: AppendWatch | None,
        held: tuple[Fence, int] | None,
        behind: Callable[[BaseException], bool],
        *,
        line: tuple[str, int] | None,
        progress: ReplayProgress | None,
    ) -> None:
        self._statements = ()  # (its one statement is ``statement``: ``statements`` makes it when asked)
        self._row = row
        self.statement = (_INSERT_ACTION, row)
        self.key = guild
        self.parts = ()
        self.event = str(row[2])
        self._logged = (_HAS_EVENT, (guild, row[2]))
        self._done = None
        self.fence = (guild, held[1]) if held is not None else None
        self._held = held
        self._watch = watch
        self._behind = behind
        self.line = line
        self.progress = progress

    @property
    def statements(self) -> Sequence[Stmt]:
        made = self._statements
        if not made:  # made once: an engine may tell a statement by its identity (PostgreSQL's fence carrier)
            made = self._statements = (Stmt(_INSERT_ACTION, self._row),)
        return made

    def write(self, conn: sqlite3.Connection) -> None:
        conn.execute(_INSERT_ACTION, self._row).close()

    async def write_async(self, conn: PgConn) -> None:
        await run_statements(conn, self.statements)

    def settled(self, outcome: Outcome) -> None:
        if outcome is STORED:
            if self.progress is not None and self.line is not None:
                self.progress.reached(*self.line)
            if self._watch is not None:
                self._watch.settled(written=True)
            return
        held, fence = self._held, self.fence
        if held is not None and fence is not None and isinstance(outcome, FencedError):
            held[0].fenced(*fence)  # before the watch, as in ``_action_job``
        if self._watch is not None:
            late = isinstance(outcome, BaseException) and self._behind(outcome)
            self._watch.settled(written=False, behind=late)


class Store:
    """A connection for reads and the database's one writer (shared with ``TableStore``) for writes.

    Opened on a SQLite file or a PostgreSQL database (``data.engine``): its SQL is the same on both.
    """

    def __init__(
        self, conn: Db, path: str | Path | Target, progress: ReplayProgress | None = None
    ) -> None:
        self._conn = conn
        self.target = target(path)
        self.engine = engine_for(self.target)
        self.path = self.target.display
        """The database for messages: the file, or the URL without its password."""
        self.progress = progress
        """Set by a replay on a lasting file: its progress is written with every commit (see ``ReplayProgress``)."""
        self._writer: Writer | None = None
        self.fence: Fence | None = None
        """Set where several processes share the database (``data.ownership.fence_of``): an action is
        written only while this process holds its guild, under the epoch it took the guild at."""

    @property
    def reader(self) -> Db:
        """The reading connection (committed rows only); ``data.transfer`` also opens its transaction on it."""
        return self._conn

    @property
    def writer(self) -> Writer:
        """The group commit every write of this database goes through."""
        if self._writer is None:
            raise RuntimeError("the store is not open")
        return self._writer

    @classmethod
    async def open(
        cls,
        path: str | Path | Target,
        *,
        synchronous: str = "FULL",
        progress: ReplayProgress | None = None,
        lease: float | None = None,
    ) -> Store:
        """Open the database (a path, ``sqlite:///FILE`` or ``postgresql://...``), refusing one of a newer
        schema before anything is written, then migrate it. ``lease``: see ``Engine.open_writer``.

        ``StoreOpenError`` when it cannot be used; every connection is closed by then.
        """
        if synchronous.upper() not in {"FULL", "NORMAL", "EXTRA"}:
            raise ValueError("synchronous must be FULL, NORMAL or EXTRA")
        where = target(path)
        conn, writer = await engine_for(where).open_round(where, synchronous, progress, lease)
        store = cls(conn, where, progress)
        store._writer = writer
        return store

    async def close(self) -> None:
        """Commit what is queued, then close both connections."""
        try:
            if self._writer is not None:
                await self._writer.close()
        finally:
            await self._conn.close()

    async def _write(self, *statements: tuple[str, Sequence[object]], guild: str | None = None) -> None:
        """Statements as one job, waited for until its transaction committed. A guild's (``guild``) only
        while this process holds it on a shared database: ``FencedError`` otherwise, nothing written."""
        fence = self.fence if guild is not None else None
        held = fence_for(fence, guild) if guild is not None else None
        job = StatementJob([Stmt(sql, params) for sql, params in statements], fence=held, done=told(fence, held))
        await self.writer.write(job)

    async def schema_version(self) -> int:
        async with self._conn.execute("SELECT COALESCE(MAX(version), 0) FROM schema_migrations") as cur:
            row = await cur.fetchone()
        return int(row[0]) if row else 0

    async def guilds(self) -> list[str]:
        async with self._conn.execute("SELECT guild_id FROM guilds ORDER BY guild_id") as cur:
            return [str(r[0]) for r in await cur.fetchall()]

    async def seed(self, guild: str) -> str | None:
        async with self._conn.execute("SELECT seed FROM guilds WHERE guild_id = ?", (guild,)) as cur:
            row = await cur.fetchone()
        return str(row[0]) if row else None

    async def load(self, guild: str) -> tuple[Snapshot | None, list[LoggedAction]]:
        """The latest snapshot and every action logged after it, in order."""
        async with self._conn.execute("SELECT seq, body FROM snapshots WHERE guild_id = ?", (guild,)) as cur:
            row = await cur.fetchone()
        snapshot = Snapshot(int(row[0]), str(row[1])) if row else None
        after = snapshot.seq if snapshot else 0
        async with self._conn.execute(
            "SELECT seq, event_id, kind, body FROM actions WHERE guild_id = ? AND seq > ? ORDER BY seq",
            (guild, after),
        ) as cur:
            rows = await cur.fetchall()
        return snapshot, [LoggedAction(int(r[0]), str(r[1]), str(r[2]), str(r[3])) for r in rows]

    async def log(self, guild: str, *, after: int = 0, limit: int | None = None) -> list[LogRow]:
        """The guild's actions after seq ``after``, in order (at most ``limit``), with when each was logged."""
        sql, params = log_query(guild, after, limit)
        async with self._conn.execute(sql, params) as cur:
            return log_rows(await cur.fetchall())

    async def has_event(self, guild: str, event_id: str) -> bool:
        """Whether the event is logged (committed; the writer's queue is not looked at)."""
        async with self._conn.execute(_HAS_EVENT, (guild, event_id)) as cur:
            return await cur.fetchone() is not None

    async def last_source_line(self, guild: str) -> int | None:
        async with self._conn.execute(
            "SELECT MAX(source_line) FROM actions WHERE guild_id = ?", (guild,)
        ) as cur:
            row = await cur.fetchone()
        return int(row[0]) if row and row[0] is not None else None

    async def finished_line(self, guild: str) -> int | None:
        """The last scenario line a replay on this file finished (see ``ReplayProgress``)."""
        async with self._conn.execute("SELECT line FROM replay_progress WHERE guild_id = ?", (guild,)) as cur:
            row = await cur.fetchone()
        return int(row[0]) if row is not None else None

    def mark_finished(self, guild: str, line: int) -> None:
        """A replay finished ``line``: recorded with the next commit (nothing when progress is not kept,
        nor for a guild this process does not hold on a shared database)."""
        if self.progress is None:
            return
        if self.fence is None:
            self.progress.finish(guild, line)
            return
        epoch = self.fence.epoch(guild)
        if epoch is not None:
            self.progress.finish(guild, line, epoch)

    async def save_progress(self) -> None:
        """Write the progress marks not written yet (at the end of a replay): they ride on any batch."""
        if self.progress is not None and self.progress.unsaved():
            await self._write()

    async def append(
        self,
        guild: str,
        *,
        seq: int,
        event_id: str,
        at: datetime,
        actor: str,
        kind: str,
        body: str,
        source_line: int | None = None,
        seed: str | None = None,
        snapshot: str | None = None,
        archive: Sequence[ArchiveRow] = (),
        joined: JoinedWrite | None = None,
        mod_log: Sequence[ModLogRow] = (),
        watch: AppendWatch | None = None,
    ) -> bool:
        """Log one action (and optionally a snapshot, archived records, entries of the moderators' log,
        another store's part), all or nothing, in the next transaction of the group commit.

        Returns False, changing nothing, when the event was logged before. ``seed`` creates the
        guild's row with the first action of its round. ``joined`` writes after the action's rows;
        when it raises, nothing of the action is kept and the error goes to the caller. ``watch`` is
        told once the action is queued and what became of it; the actions of one guild depend on
        each other: when one is not written, the guild's later ones queued behind it are not either
        (``data.group_commit.Superseded``).

        ``FencedError`` (nothing queued or written) when the store is fenced and this process does
        not hold the guild, or lost it before the write reached the database. ``Behind`` (nothing
        written) when the log already holds ``seq`` under another event: the caller's copy of the
        guild is behind the log (the watch was told so).
        """
        epoch = None
        if self.fence is not None:
            epoch = self.fence.epoch(guild)
            if epoch is None:
                raise FencedError(guild, "this process does not hold it; nothing was changed")
        at_text = at.isoformat()
        row = (guild, seq, event_id, at_text, actor, kind, body, source_line)
        held = (self.fence, epoch) if self.fence is not None and epoch is not None else None
        progress = self.progress
        line = told_line(progress, guild, source_line)
        job: StatementJob
        if seed is None and snapshot is None and not archive and not mod_log and joined is None:
            job = _RowJob(guild, row, watch, held, self.engine.is_integrity_error, line=line, progress=progress)  # most
        else:
            job = _action_job(
                guild,
                row,
                created=(guild, seed, at_text) if seed is not None else None,
                snapshot=(guild, seq, at_text, snapshot) if snapshot is not None else None,
                archived=[(guild, str(a.kind), a.number, seq, a.at.isoformat(), a.body) for a in archive],
                noted=[_mod_log_params(guild, entry) for entry in mod_log],
                parts=(joined,) if joined is not None else (),
                watch=watch,
                fence=held,
                behind=self.engine.is_integrity_error,
                line=line,
                progress=progress,
            )
        queued = watch.queued if watch is not None else None
        try:
            return await self.writer.write(job, queued=queued) is STORED
        except Exception as exc:
            if self.engine.is_integrity_error(exc):  # a redelivered event is answered, not raised
                raise Behind(f"guild {guild}: the log holds step {seq} already; read the guild again") from exc
            raise

    async def archived(
        self, guild: str, kind: str, *, limit: int | None = None, numbers: Sequence[int] | None = None
    ) -> list[str]:
        """Archived records of one kind, newest (highest number) first: the ``limit`` newest, or those
        with the given ``numbers``."""
        sql = "SELECT body FROM archive WHERE guild_id = ? AND kind = ?"
        params: list[object] = [guild, kind]
        if numbers is not None:
            if not numbers:
                return []
            sql += f" AND number IN ({', '.join('?' * len(numbers))})"
            params.extend(numbers)
        sql += " ORDER BY number DESC"
        if limit is not None:
            sql += " LIMIT ?"
            params.append(limit)
        async with self._conn.execute(sql, params) as cur:
            return [str(r[0]) for r in await cur.fetchall()]

    async def archived_count(self, guild: str, kind: str) -> int:
        async with self._conn.execute(
            "SELECT COUNT(*) FROM archive WHERE guild_id = ? AND kind = ?", (guild, kind)
        ) as cur:
            row = await cur.fetchone()
        return int(row[0]) if row else 0

    async def write_snapshot(self, guild: str, *, seq: int, at: datetime, body: str) -> None:
        """On a shared database (``fence``) only while this process holds the guild's epoch, as its
        actions: a process that lost the guild never overwrites its new holder's snapshot. A snapshot
        only spares replaying the log, so one not written (guild not held, or taken since: the fence is
        told, as for an action) is left out without an error."""
        with contextlib.suppress(FencedError):
            await self._write((_UPSERT_SNAPSHOT, (guild, seq, at.isoformat(), body)), guild=guild)

    # -- commands refused, by their event (migration 0011) --

    async def refused_events(self, guild: str, since: datetime) -> list[tuple[str, datetime]]:
        """The event ids of the guild's commands refused at ``since`` or later, with when."""
        async with self._conn.execute(_REFUSED_SINCE, (guild, since.isoformat())) as cur:
            return [(str(r[0]), datetime.fromisoformat(str(r[1]))) for r in await cur.fetchall()]

    async def remember_refused(
        self, guild: str, event_id: str, *, at: datetime, source_line: int | None, forget_before: datetime
    ) -> None:
        """Record a refused command's event (once; a second time changes nothing) and forget those
        refused before ``forget_before``, in one transaction: the next one of the store's writer, not
        waited for and not started for it (``GroupCommit.later``).

        A refusal changes nothing, so its answer is not held back for a commit, and on a busy store its
        row costs no commit of its own. (A replay's mark that the refused line is finished comes after
        it in the queue.) On a shared database it is written only while this process holds the guild.
        """
        epoch = self.fence.epoch(guild) if self.fence is not None else None
        if self.fence is not None and epoch is None:
            return  # another process acts for the guild now
        statements = [
            Stmt(_REMEMBER_REFUSED, (guild, event_id, at.isoformat(), source_line)),
            Stmt(_FORGET_REFUSED, (guild, forget_before.isoformat())),
        ]
        progress = self.progress
        line = told_line(progress, guild, source_line)
        job = StatementJob(
            statements, fence=(guild, epoch) if epoch is not None else None, line=line, progress=progress
        )
        self.writer.later(job).add_done_callback(_unwaited)

    async def last_refused_line(self, guild: str) -> int | None:
        """The last scenario line whose command a replay on this file refused (its work is done)."""
        async with self._conn.execute(
            "SELECT MAX(source_line) FROM refused_events WHERE guild_id = ?", (guild,)
        ) as cur:
            row = await cur.fetchone()
        return int(row[0]) if row is not None and row[0] is not None else None

    # -- the Discord adapter's per-guild settings (migration 0002) --

    async def guild_settings(self, guild: str) -> GuildSettings:
        async with self._conn.execute(
            "SELECT role, channel_id FROM guild_channels WHERE guild_id = ? ORDER BY role", (guild,)
        ) as cur:
            channels = {str(r[0]): str(r[1]) for r in await cur.fetchall()}
        async with self._conn.execute(
            "SELECT moderator_role_id, web FROM guild_settings WHERE guild_id = ?", (guild,)
        ) as cur:
            row = await cur.fetchone()
        role = str(row[0]) if row is not None and row[0] is not None else None
        web = str(row[1]) if row is not None and row[1] is not None else "on"
        return GuildSettings(channels=channels, moderator_role=role, web=web)

    async def bind_channel(self, guild: str, role: str, channel_id: str | None) -> None:
        """Bind a channel role to a channel; ``None`` goes back to the channel named after the role."""
        now = datetime.now(UTC).isoformat()
        if channel_id is None:
            await self._write((_UNBIND_CHANNEL, (guild, role)), guild=guild)
            return
        await self._write((_BIND_CHANNEL, (guild, role, channel_id, now)), guild=guild)

    async def set_moderator_role(self, guild: str, role_id: str | None) -> None:
        await self._write((_SET_MODERATOR_ROLE, (guild, role_id, datetime.now(UTC).isoformat())), guild=guild)

    async def setup_change(
        self,
        guild: str,
        entry: ModLogRow,
        *,
        channels: dict[str, str | None] | None = None,
        moderator_role: object = KEEP,
    ) -> None:
        """A moderator's change of the server's setup and its entry in the moderators' log, in one
        transaction: channel roles bound (``None``: back to the channel named after the role) and the
        moderator role (a role id, or ``None`` for none; ``KEEP`` leaves it)."""
        now = entry.at.isoformat()
        statements: list[tuple[str, Sequence[object]]] = []
        for role, channel_id in (channels or {}).items():
            if channel_id is None:
                statements.append((_UNBIND_CHANNEL, (guild, role)))
            else:
                statements.append((_BIND_CHANNEL, (guild, role, channel_id, now)))
        if moderator_role is not KEEP:
            statements.append((_SET_MODERATOR_ROLE, (guild, moderator_role, now)))
        statements.append((_INSERT_MOD_LOG, _mod_log_params(guild, entry)))
        await self._write(*statements, guild=guild)

    async def add_mod_log(self, guild: str, entry: ModLogRow) -> None:
        """An entry of the moderators' log for a change the store does not make itself (``!admin sync``)."""
        await self._write((_INSERT_MOD_LOG, _mod_log_params(guild, entry)), guild=guild)

    async def mod_log(self, guild: str, *, limit: int) -> list[ModLogRecord]:
        """The latest ``limit`` entries of the guild's moderators' log, newest first."""
        async with self._conn.execute(
            "SELECT at, moderator, moderator_name, kind, what FROM mod_log WHERE guild_id = ? ORDER BY id DESC LIMIT ?",
            (guild, limit),
        ) as cur:
            rows = await cur.fetchall()
        return [
            ModLogRecord(datetime.fromisoformat(str(r[0])), str(r[1]), str(r[2]), str(r[3]), str(r[4])) for r in rows
        ]

    async def mod_log_count(self, guild: str) -> int:
        async with self._conn.execute("SELECT COUNT(*) FROM mod_log WHERE guild_id = ?", (guild,)) as cur:
            row = await cur.fetchone()
        return int(row[0]) if row else 0

    # -- private notices held while a member's DMs are closed (migration 0007) --

    async def hold_notice(self, guild: str, member: str, at: datetime, text: str) -> None:
        """Keep a notice for the member's next private answer; only the newest ``HELD_PER_MEMBER`` stay."""
        await self._write(
            (_HOLD_NOTICE, (guild, member, at.isoformat(), text)),
            (_KEEP_NEWEST_HELD, (guild, member, guild, member, HELD_PER_MEMBER)),
            guild=guild,
        )

    async def held_notices(self, guild: str, member: str) -> list[tuple[int, str]]:
        """The member's held notices (id, text), oldest first; ``drop_held`` once they were handed over."""
        async with self._conn.execute(
            "SELECT id, text FROM held_notices WHERE guild_id = ? AND member_id = ? ORDER BY id", (guild, member)
        ) as cur:
            return [(int(r[0]), str(r[1])) for r in await cur.fetchall()]

    async def drop_held(self, guild: str, member: str, *, through: int) -> None:
        """Forget the member's held notices up to id ``through``: they reached the member."""
        await self._write(
            ("DELETE FROM held_notices WHERE guild_id = ? AND member_id = ? AND id <= ?", (guild, member, through)),
            guild=guild,
        )

    async def set_web_mode(self, guild: str, mode: str) -> None:
        """How the web record shows the guild (``on``, ``hidden``, ``off``); the caller checks the word."""
        await self._write((_SET_WEB_MODE, (guild, mode, datetime.now(UTC).isoformat())), guild=guild)

    async def message(self, guild: str, role: str) -> tuple[str, str] | None:
        """The (channel id, message id) of a message the bot keeps editing in the guild (role ``board``)."""
        async with self._conn.execute(
            "SELECT channel_id, message_id FROM guild_messages WHERE guild_id = ? AND role = ?", (guild, role)
        ) as cur:
            row = await cur.fetchone()
        return (str(row[0]), str(row[1])) if row is not None else None

    async def set_message(self, guild: str, role: str, channel_id: str, message_id: str) -> None:
        await self._write(
            (_SET_MESSAGE, (guild, role, channel_id, message_id, datetime.now(UTC).isoformat())), guild=guild
        )

    async def meta(self, key: str) -> str | None:
        async with self._conn.execute("SELECT value FROM bot_meta WHERE key = ?", (key,)) as cur:
            row = await cur.fetchone()
        return str(row[0]) if row is not None else None

    async def set_meta(self, key: str, value: str) -> None:
        await self._write((_SET_META, (key, value)))


class SideStore:
    """A store of its own tables in the round's database (the tables' store, the card library): its own
    reading connection, and the database's one writer, shared with the round's ``Store`` when given.

    Its writes are a guild's, fenced as the round's actions are (``fence``): on a shared database a
    process writes a guild's tables and library only while it holds the guild's epoch."""

    def __init__(
        self,
        conn: Db,
        path: str | Path | Target,
        progress: ReplayProgress | None = None,
        *,
        writer: Writer,
        owns_writer: bool,
        store: Store | None = None,
    ) -> None:
        self._conn = conn
        self.target = target(path)
        self.engine = engine_for(self.target)
        self.path = self.target.display
        self.progress = progress
        """A replay's progress, shared with the round's store: written with every commit."""
        self._writer = writer
        self._owns_writer = owns_writer
        self._round = store
        self._fence: Fence | None = None

    @property
    def fence(self) -> Fence | None:
        """The fence of its writes: its own when set, else the round's store's (opened with ``store=``,
        the two share it as they share the writer: the bot sets the round's alone)."""
        if self._fence is not None:
            return self._fence
        return self._round.fence if self._round is not None else None

    @fence.setter
    def fence(self, fence: Fence | None) -> None:
        self._fence = fence

    def _job(
        self,
        guild: str,
        statements: Sequence[Stmt],
        *,
        parts: Sequence[JoinedWrite] = (),
        logged: tuple[str, Sequence[object]] | None = None,
        event: str | None = None,
        source_line: int | None = None,
    ) -> StatementJob:
        """A write of the guild's, under the epoch it is held at (``FencedError`` when it is not);
        ``source_line``: the replay line its row records."""
        fence = self.fence
        held = fence_for(fence, guild)
        progress = self.progress
        line = told_line(progress, guild, source_line)
        return StatementJob(
            statements,
            parts=parts,
            logged=logged,
            event=event,
            fence=held,
            done=told(fence, held),
            line=line,
            progress=progress,
        )

    @classmethod
    async def open(
        cls,
        path: str | Path | Target,
        *,
        synchronous: str = "FULL",
        progress: ReplayProgress | None = None,
        store: Store | None = None,
        lease: float | None = None,
    ) -> Self:
        """Open (checking and migrating the database first, through ``Store``) with the round's settings.

        ``store``: the round's store of the same database, whose writer this one shares (its progress
        marks then ride on the shared batches); without it this store has a writer of its own.
        ``StoreOpenError`` when the database cannot be used; no connection is left open then.
        """
        if synchronous.upper() not in {"FULL", "NORMAL", "EXTRA"}:
            raise ValueError("synchronous must be FULL, NORMAL or EXTRA")
        where = target(path)
        engine = engine_for(where)
        if store is None:
            migrated = await Store.open(where, synchronous=synchronous)
            await migrated.close()
        conn = await engine.open_reader(where, synchronous)
        if store is not None:
            return cls(conn, where, progress, writer=store.writer, owns_writer=False, store=store)
        try:
            writer = await engine.open_writer(where, synchronous, progress, lease)
        except BaseException:
            await conn.close()
            raise
        return cls(conn, where, progress, writer=writer, owns_writer=True)

    async def close(self) -> None:
        try:
            if self._owns_writer:
                await self._writer.close()
        finally:
            await self._conn.close()
