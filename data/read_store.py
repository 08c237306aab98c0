"""A read-only view of the bot's database: what the round's web record reads, and nothing it could write.

The web record opens its own connection with SQLite's ``mode=ro``, so a page can never change the
round, never reads inside one of the bot's open transactions (it sees only committed rows, WAL lets it
read while the bot writes), and never waits behind the bot's writes on the bot's own connection. It
also serves as the store of a ``RoundService`` that only reads (``python -m bot web --db``): the
writing methods of that protocol are refused, and a snapshot the service would write is skipped.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from datetime import datetime
from pathlib import Path
from typing import Any

from data.base import Db, StoreOpenError, Target, target
from data.engine import engine_for
from data.sqlite import open_error
from data.store import LoggedAction, LogRow, ModLogRecord, Snapshot, log_query, log_rows
from data.table_store import _COLUMNS, StoredTable, _table


class ReadOnlyError(RuntimeError):
    """Something tried to write through the read-only view."""


class ReadStore:
    """Every read the web record makes; one connection, never written through."""

    def __init__(self, conn: Db, path: str | Path | Target) -> None:
        self._conn = conn
        self.target = target(path)
        self.engine = engine_for(self.target)
        self.path = self.target.display

    @classmethod
    async def open(cls, path: str | Path | Target) -> ReadStore:
        """Open ``path`` read-only; ``StoreOpenError`` when there is no such database or it is not the bot's."""
        where = target(path)
        engine = engine_for(where)
        conn = await engine.open_read_only(where)
        store = cls(conn, where)
        try:
            tables = await store._tables()
        except Exception as exc:
            await conn.close()
            if where.path is not None and isinstance(exc, OSError | sqlite3.Error):
                raise open_error(where.path, exc) from exc
            raise
        if "actions" not in tables:
            await conn.close()
            raise StoreOpenError(where.display, "it holds no round", "Give the database the bot or a replay wrote")
        store._has_web = "web" in await store._columns("guild_settings")
        return store

    _has_web = False

    async def close(self) -> None:
        await self._conn.close()

    async def _tables(self) -> set[str]:
        return await self.engine.table_names(self._conn)

    async def _columns(self, table: str) -> set[str]:
        return await self.engine.columns(self._conn, table)

    async def _all(self, sql: str, params: Sequence[Any] = ()) -> list[Any]:
        async with self._conn.execute(sql, params) as cur:
            return list(await cur.fetchall())

    # -- the round --

    async def guilds(self) -> list[str]:
        return [str(r[0]) for r in await self._all("SELECT guild_id FROM guilds ORDER BY guild_id")]

    async def latest(self, guild: str) -> tuple[int, datetime] | None:
        """The seq and instant of the guild's last logged action (None: no round)."""
        rows = await self._all("SELECT seq, at FROM actions WHERE guild_id = ? ORDER BY seq DESC LIMIT 1", (guild,))
        return (int(rows[0][0]), datetime.fromisoformat(str(rows[0][1]))) if rows else None

    async def log(self, guild: str, *, after: int = 0, limit: int | None = None) -> list[LogRow]:
        """The guild's actions after seq ``after``, in order (at most ``limit``)."""
        return log_rows(await self._all(*log_query(guild, after, limit)))

    async def archived(
        self, guild: str, kind: str, *, limit: int | None = None, numbers: Sequence[int] | None = None
    ) -> list[str]:
        """Archived records of one kind, newest (highest number) first."""
        sql = "SELECT body FROM archive WHERE guild_id = ? AND kind = ?"
        params: list[Any] = [guild, kind]
        if numbers is not None:
            if not numbers:
                return []
            sql += f" AND number IN ({', '.join('?' * len(numbers))})"
            params.extend(numbers)
        sql += " ORDER BY number DESC"
        if limit is not None:
            sql += " LIMIT ?"
            params.append(limit)
        return [str(r[0]) for r in await self._all(sql, params)]

    async def archived_count(self, guild: str, kind: str) -> int:
        rows = await self._all("SELECT COUNT(*) FROM archive WHERE guild_id = ? AND kind = ?", (guild, kind))
        return int(rows[0][0]) if rows else 0

    # -- what a RoundService needs of its store, read-only --

    async def seed(self, guild: str) -> str | None:
        rows = await self._all("SELECT seed FROM guilds WHERE guild_id = ?", (guild,))
        return str(rows[0][0]) if rows else None

    async def has_event(self, guild: str, event_id: str) -> bool:
        return bool(await self._all("SELECT 1 FROM actions WHERE guild_id = ? AND event_id = ?", (guild, event_id)))

    async def load(self, guild: str) -> tuple[Snapshot | None, list[LoggedAction]]:
        """The latest snapshot and every action logged after it, in order."""
        rows = await self._all("SELECT seq, body FROM snapshots WHERE guild_id = ?", (guild,))
        snapshot = Snapshot(int(rows[0][0]), str(rows[0][1])) if rows else None
        after = snapshot.seq if snapshot else 0
        tail = await self._all(
            "SELECT seq, event_id, kind, body FROM actions WHERE guild_id = ? AND seq > ? ORDER BY seq", (guild, after)
        )
        return snapshot, [LoggedAction(int(r[0]), str(r[1]), str(r[2]), str(r[3])) for r in tail]

    async def append(self, guild: str, **_: Any) -> bool:
        raise ReadOnlyError(f"the web record never writes (guild {guild})")

    async def write_snapshot(self, guild: str, *, seq: int, at: datetime, body: str) -> None:
        """A service that only reads keeps the state it replayed in memory; the file is left as it is."""
        del guild, seq, at, body

    async def mod_log(self, guild: str, *, limit: int) -> list[ModLogRecord]:
        """The moderators' log is not part of the public record: a reading service sees none of it."""
        del guild, limit
        return []

    async def mod_log_count(self, guild: str) -> int:
        del guild
        return 0

    # -- thread games and the guild's settings --

    async def tables(self, guild: str) -> list[StoredTable]:
        """Every table the guild opened, oldest first."""
        if "game_tables" not in await self._tables():
            return []
        rows = await self._all(
            f"SELECT {_COLUMNS} FROM game_tables WHERE guild_id = ? ORDER BY opened_at, game, number", (guild,)
        )
        return [_table(r) for r in rows]

    async def web_mode(self, guild: str) -> str:
        """``on`` unless the guild's moderators chose ``hidden`` or ``off`` (files from before the choice: on)."""
        if not self._has_web:
            return "on"
        rows = await self._all("SELECT web FROM guild_settings WHERE guild_id = ?", (guild,))
        return str(rows[0][0]) if rows and rows[0][0] is not None else "on"

    async def web_modes(self) -> dict[str, str]:
        """Every guild whose moderators chose a mode, with it."""
        if not self._has_web:
            return {}
        return {str(r[0]): str(r[1]) for r in await self._all("SELECT guild_id, web FROM guild_settings")}

    async def channels(self, guild: str) -> dict[str, str]:
        """Channel role to channel id, for the roles bound with ``/setup``."""
        rows = await self._all("SELECT role, channel_id FROM guild_channels WHERE guild_id = ?", (guild,))
        return {str(r[0]): str(r[1]) for r in rows}
