"""SQLite persistence of thread game tables (migration 0003): each table's state and its action log.

Every action is one transaction: the log row and the table's new state commit together, and the
log's unique ``(guild_id, event_id)`` makes a redelivered event a no-op (``commit`` returns False).

The store has its own connection to the database file the round uses. The round's store runs
multi-statement transactions on its connection; sharing one aiosqlite connection would let a
table's statements land inside (and roll back with) a round transaction, and the other way round.
Two connections in WAL mode keep the two transaction streams apart; SQLite serialises the writers.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

import aiosqlite

from data.store import JoinedWrite, ReplayProgress, Store, connect, write_progress

_COLUMNS = "guild_id, name, game, number, thread_id, status, seed, seq, body, opened_at, updated_at"
_OPEN_STATUSES = ("lobby", "playing")


@dataclass(frozen=True)
class StoredTable:
    guild: str
    name: str
    game: str
    number: int
    thread_id: str | None
    status: str
    seed: str
    seq: int
    body: str
    opened_at: str
    updated_at: str


@dataclass(frozen=True)
class TableLogEntry:
    table: str
    seq: int
    event_id: str
    at: datetime
    actor: str
    kind: str
    body: str
    source_line: int | None = None


def _table(row: sqlite3.Row | tuple[object, ...]) -> StoredTable:
    guild, name, game, number, thread, status, seed, seq, body, opened, updated = tuple(row)
    return StoredTable(
        guild=str(guild),
        name=str(name),
        game=str(game),
        number=int(str(number)),
        thread_id=None if thread is None else str(thread),
        status=str(status),
        seed=str(seed),
        seq=int(str(seq)),
        body=str(body),
        opened_at=str(opened),
        updated_at=str(updated),
    )


class TableStore:
    """The tables of every guild; callers serialise their writes per guild."""

    def __init__(self, conn: aiosqlite.Connection, path: str, progress: ReplayProgress | None = None) -> None:
        self._conn = conn
        self.path = path
        self.progress = progress
        """A replay's progress, shared with the round's store: written with every commit of a table."""

    @classmethod
    async def open(
        cls, path: str | Path, *, synchronous: str = "FULL", progress: ReplayProgress | None = None
    ) -> TableStore:
        """Open (checking and migrating the file first, through ``Store``) with the round's pragmas.

        ``StoreOpenError`` when the file cannot be used; no connection is left open then.
        """
        if synchronous.upper() not in {"FULL", "NORMAL", "EXTRA"}:
            raise ValueError("synchronous must be FULL, NORMAL or EXTRA")
        migrated = await Store.open(path, synchronous=synchronous)
        await migrated.close()
        pragmas = ("busy_timeout=10000", "journal_mode=WAL", f"synchronous={synchronous.upper()}", "foreign_keys=ON")
        return cls(await connect(path, pragmas), str(path), progress)

    async def close(self) -> None:
        await self._conn.close()

    # -- reading --

    async def open_tables(self, guild: str) -> list[StoredTable]:
        """The guild's tables in the lobby or under way, oldest first."""
        async with self._conn.execute(
            f"SELECT {_COLUMNS} FROM game_tables WHERE guild_id = ? AND status IN (?, ?) ORDER BY opened_at, name",
            (guild, *_OPEN_STATUSES),
        ) as cur:
            return [_table(r) for r in await cur.fetchall()]

    async def all_tables(self, guild: str) -> list[StoredTable]:
        """Every table the guild ever opened, oldest first."""
        async with self._conn.execute(
            f"SELECT {_COLUMNS} FROM game_tables WHERE guild_id = ? ORDER BY opened_at, game, number", (guild,)
        ) as cur:
            return [_table(r) for r in await cur.fetchall()]

    async def table(self, guild: str, key: str) -> StoredTable | None:
        """A table by its name (``wikipedia-1``) or by the id of its thread."""
        async with self._conn.execute(
            f"SELECT {_COLUMNS} FROM game_tables WHERE guild_id = ? AND (name = ? OR thread_id = ?)"
            " ORDER BY name = ? DESC LIMIT 1",
            (guild, key, key, key),
        ) as cur:
            row = await cur.fetchone()
        return _table(row) if row is not None else None

    async def last_number(self, guild: str, game: str) -> int:
        async with self._conn.execute(
            "SELECT COALESCE(MAX(number), 0) FROM game_tables WHERE guild_id = ? AND game = ?", (guild, game)
        ) as cur:
            row = await cur.fetchone()
        return int(row[0]) if row is not None else 0

    async def guilds_with_open_tables(self) -> list[str]:
        async with self._conn.execute(
            "SELECT DISTINCT guild_id FROM game_tables WHERE status IN (?, ?) ORDER BY guild_id", _OPEN_STATUSES
        ) as cur:
            return [str(r[0]) for r in await cur.fetchall()]

    async def has_event(self, guild: str, event_id: str) -> bool:
        async with self._conn.execute(
            "SELECT 1 FROM table_actions WHERE guild_id = ? AND event_id = ?", (guild, event_id)
        ) as cur:
            return await cur.fetchone() is not None

    async def log(self, guild: str, table: str) -> list[TableLogEntry]:
        """A table's whole action log, in order."""
        async with self._conn.execute(
            "SELECT table_name, seq, event_id, at, actor, kind, body, source_line FROM table_actions"
            " WHERE guild_id = ? AND table_name = ? ORDER BY seq",
            (guild, table),
        ) as cur:
            rows = await cur.fetchall()
        return [
            TableLogEntry(
                table=str(r[0]),
                seq=int(r[1]),
                event_id=str(r[2]),
                at=datetime.fromisoformat(str(r[3])),
                actor=str(r[4]),
                kind=str(r[5]),
                body=str(r[6]),
                source_line=None if r[7] is None else int(r[7]),
            )
            for r in rows
        ]

    async def last_source_line(self, guild: str) -> int | None:
        async with self._conn.execute("SELECT MAX(source_line) FROM table_actions WHERE guild_id = ?", (guild,)) as cur:
            row = await cur.fetchone()
        return int(row[0]) if row is not None and row[0] is not None else None

    # -- writing --

    async def commit(
        self,
        guild: str,
        *,
        name: str,
        game: str,
        number: int,
        status: str,
        seed: str,
        seq: int,
        body: str,
        opened_at: datetime,
        event_id: str,
        at: datetime,
        actor: str,
        kind: str,
        action: str,
        source_line: int | None = None,
        joined: Sequence[JoinedWrite] = (),
    ) -> bool:
        """Write a table's new state (``body``) and its log entry (``action``) in one transaction.

        Returns False, changing nothing, when ``event_id`` was logged before. ``joined``: other
        stores' parts of the action (card copies a battle's kitty moves), written inside the same
        transaction after the log row; when one raises, nothing of the action is kept. Each is told
        ``committed`` once the transaction is durable.
        """
        conn = self._conn
        now = datetime.now(UTC).isoformat()
        marks = self.progress.unsaved() if self.progress is not None else []
        try:
            await conn.execute("BEGIN IMMEDIATE")
            await conn.execute(
                "INSERT INTO game_tables (guild_id, name, game, number, thread_id, status, seed, seq, body,"
                " opened_at, updated_at) VALUES (?, ?, ?, ?, NULL, ?, ?, ?, ?, ?, ?)"
                " ON CONFLICT (guild_id, name) DO UPDATE SET status = excluded.status, seq = excluded.seq,"
                " body = excluded.body, updated_at = excluded.updated_at",
                (guild, name, game, number, status, seed, seq, body, opened_at.isoformat(), now),
            )
            await conn.execute(
                "INSERT INTO table_actions (guild_id, table_name, seq, event_id, at, actor, kind, body, source_line)"
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (guild, name, seq, event_id, at.isoformat(), actor, kind, action, source_line),
            )
            for part in joined:
                await part.write(conn)
            await write_progress(conn, marks)
            await conn.execute("COMMIT")
        except sqlite3.IntegrityError:
            await conn.execute("ROLLBACK")
            if await self.has_event(guild, event_id):
                return False
            raise
        except BaseException:
            if conn.in_transaction:
                await conn.execute("ROLLBACK")
            raise
        if self.progress is not None:
            self.progress.saved(marks)
        for part in joined:
            part.committed()
        return True

    async def attach_thread(self, guild: str, name: str, thread_id: str) -> bool:
        """Record the Discord thread of a table; False when there is no such table."""
        async with self._conn.execute(
            "UPDATE game_tables SET thread_id = ? WHERE guild_id = ? AND name = ?", (thread_id, guild, name)
        ) as cur:
            return cur.rowcount > 0
