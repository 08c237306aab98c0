"""Persistence of thread game tables (migration 0003): each table's state and its action log, on
SQLite or PostgreSQL (``data.engine``).

Every action is one job of the group commit (``data.group_commit``): the log row and the table's new
state are written together or not at all, and ``commit`` returns once their transaction committed.
The log's unique ``(guild_id, event_id)`` makes a redelivered event a no-op (``commit`` returns False).

Opened with the round's ``Store`` (``store=``), the tables' writes join the round's writer: one
writer per database file. Two writers on one file would take turns at SQLite's single write lock,
the one kept waiting polling in SQLite's busy handler (sleeps of up to 100 ms), so under a burst
of round actions a table's move could wait long or time out; sharing the writer, a move rides in
the next batch, with its fsync shared. The tables' service still waits for each commit under its
own lock (a table's moves come one at a time; nothing to gain from applying them ahead). Reads
have their own connection, which sees only what is committed.

On a shared database every write is the guild's, fenced by its epoch as the round's actions are
(``data.store.SideStore``): a process that lost the guild writes none of its tables. A move that meets
a step another process logged (the table's key, not a redelivery) raises ``Behind``: the service reads
the guild's tables again and applies the move on them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime

from data.base import Stmt
from data.group_commit import Behind, Written
from data.store import JoinedWrite, SideStore

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


def _table(row: Sequence[object]) -> StoredTable:
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


_UPSERT_TABLE = (
    "INSERT INTO game_tables (guild_id, name, game, number, thread_id, status, seed, seq, body,"
    " opened_at, updated_at) VALUES (?, ?, ?, ?, NULL, ?, ?, ?, ?, ?, ?)"
    " ON CONFLICT (guild_id, name) DO UPDATE SET status = excluded.status, seq = excluded.seq,"
    " body = excluded.body, updated_at = excluded.updated_at"
)
_INSERT_TABLE_ACTION = (
    "INSERT INTO table_actions (guild_id, table_name, seq, event_id, at, actor, kind, body, source_line)"
    " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)"
)
_HAS_EVENT = "SELECT 1 FROM table_actions WHERE guild_id = ? AND event_id = ?"


class TableStore(SideStore):
    """The tables of every guild; callers serialise their writes per guild."""

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

    async def any_table(self, guild: str) -> bool:
        """Whether the guild ever opened a table (a process that finds none need not load the tables)."""
        async with self._conn.execute("SELECT 1 FROM game_tables WHERE guild_id = ? LIMIT 1", (guild,)) as cur:
            return await cur.fetchone() is not None

    async def has_event(self, guild: str, event_id: str) -> bool:
        async with self._conn.execute(_HAS_EVENT, (guild, event_id)) as cur:
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

        ``Behind`` (nothing written) when the table's log holds ``seq`` under another event (another
        process wrote the table after this one read it: read the guild's tables again);
        ``FencedError`` (nothing written) on a shared database when this process does not hold the
        guild, or lost it before the write reached the database.
        """
        now = datetime.now(UTC).isoformat()
        state = (guild, name, game, number, status, seed, seq, body, opened_at.isoformat(), now)
        logged = (guild, name, seq, event_id, at.isoformat(), actor, kind, action, source_line)

        job = self._job(
            guild,
            [Stmt(_UPSERT_TABLE, state), Stmt(_INSERT_TABLE_ACTION, logged)],
            parts=tuple(joined),
            logged=(_HAS_EVENT, (guild, event_id)),
            event=event_id,
            source_line=source_line,
        )
        try:
            return await self._writer.write(job) is Written.STORED
        except Exception as exc:
            if self.engine.is_integrity_error(exc):  # the log holds the step under another event
                raise Behind(f"table {name} holds step {seq} already; read the guild's tables again") from exc
            raise

    async def attach_thread(self, guild: str, name: str, thread_id: str) -> bool:
        """Record the Discord thread of a table; False when there is no such table."""
        changed: list[int] = []

        update = Stmt(
            "UPDATE game_tables SET thread_id = ? WHERE guild_id = ? AND name = ?",
            (thread_id, guild, name),
            check=changed.append,
        )
        await self._writer.write(self._job(guild, [update]))
        return bool(changed) and changed[-1] > 0
