"""Persistence of the card library (migration 0006): a row per value, the library's row, its log, on
SQLite or PostgreSQL (``data.engine``).

An action's changed rows, its library row and its log row commit in one transaction; the log's
unique ``(guild_id, event_id)`` makes a redelivered event a no-op (``commit`` returns False). The
library row's ``seq`` is written only over the ``seq`` that was read, and a copy's row only from
the owner that was read, so two processes can never both apply an action to the same library:
the second is refused with ``LibraryConflictError`` and nothing it wrote stays.

A trade of the round that moves card copies is one transaction of the round's store: ``joined``
gives the round's ``Store.append`` the library's part to write inside it (see ``JoinedWrite``).

Like the tables' store, it reads on a connection of its own and writes through the database's one
writer (``data.group_commit``), the round's when opened with ``store=``: on SQLite a second writer on
the file would wait for the write lock in its busy handler behind every batch of the round's burst;
on PostgreSQL it would pay a commit of its own. Its action rides in the next batch as a job of the
action's statements (the same a trade of the round joins as ``JoinedLibraryWrite``), so it shares that
batch's commit; on a shared database the job is the guild's, fenced as the round's actions are
(``data.store.SideStore``). On PostgreSQL, a batch whose connection was lost during ``COMMIT`` is
looked up by its event ids (``data.postgres``); when even that cannot tell, the library asks once
more for its own event before answering that the action failed.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from data.base import Db, Stmt, run_statements
from data.group_commit import Stale, Written
from data.store import SideStore
from games.values import valueclass

_HAS_EVENT = "SELECT 1 FROM card_actions WHERE guild_id = ? AND event_id = ?"


class LibraryConflictError(Stale):
    """Another writer changed the library (or a copy's owner) since it was read; nothing was written."""


@valueclass
class LibraryRow:
    collection: str
    key: str
    body: str
    owner: str | None = None
    expect_owner: str | None = None
    """For a copy that existed: the owner it had when read (the update happens only from that owner)."""
    new: bool = False


@valueclass
class LibraryChanges:
    """What one action changes: the library's row, the rows of changed values, the values gone."""

    seq: int
    previous_seq: int
    meta: str
    rows: Sequence[LibraryRow] = ()
    deleted: Sequence[tuple[str, str]] = ()
    first: bool = False
    """The library's first action: its row is created (the guild had none)."""


@valueclass
class LibraryLogEntry:
    event_id: str
    at: datetime
    actor: str
    kind: str
    body: str
    source_line: int | None = None


@valueclass
class StoredLibrary:
    seq: int
    meta: str
    rows: dict[str, list[tuple[str, str]]]
    """Collection -> (key, body) of each value."""


def _conflict(what: str) -> Callable[[int], None]:
    """A guard's check: the statement changed exactly one row, or ``LibraryConflictError``."""

    def check(count: int) -> None:
        if count != 1:
            raise LibraryConflictError(what)

    return check


def _statements(guild: str, changes: LibraryChanges, entry: LibraryLogEntry) -> list[Stmt]:
    """The action's writes, the log row first (on PostgreSQL it carries the guild's fence: ``data.postgres``);
    each guard a statement whose check raises ``LibraryConflictError``."""
    statements = [
        Stmt(
            "INSERT INTO card_actions (guild_id, seq, event_id, at, actor, kind, body, source_line)"
            " VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            (
                guild,
                changes.seq,
                entry.event_id,
                entry.at.isoformat(),
                entry.actor,
                entry.kind,
                entry.body,
                entry.source_line,
            ),
        )
    ]
    now = datetime.now(UTC).isoformat()
    if changes.first:
        statements.append(
            Stmt(
                "INSERT INTO card_libraries (guild_id, seq, body, updated_at) VALUES (?, ?, ?, ?)",
                (guild, changes.seq, changes.meta, now),
            )
        )
    else:
        statements.append(
            Stmt(
                "UPDATE card_libraries SET seq = ?, body = ?, updated_at = ? WHERE guild_id = ? AND seq = ?",
                (changes.seq, changes.meta, now, guild, changes.previous_seq),
                check=_conflict("the card library changed since it was read"),
            )
        )
    for row in changes.rows:
        if row.new:
            statements.append(
                Stmt(
                    "INSERT INTO card_rows (guild_id, collection, key, owner_id, body) VALUES (?, ?, ?, ?, ?)",
                    (guild, row.collection, row.key, row.owner, row.body),
                )
            )
            continue
        sql = "UPDATE card_rows SET owner_id = ?, body = ? WHERE guild_id = ? AND collection = ? AND key = ?"
        params: tuple[object, ...] = (row.owner, row.body, guild, row.collection, row.key)
        if row.expect_owner is not None:
            sql += " AND owner_id = ?"
            params = (*params, row.expect_owner)
        statements.append(Stmt(sql, params, check=_conflict(f"{row.collection} {row.key} changed since it was read")))
    if changes.deleted:
        statements.append(
            Stmt(
                "DELETE FROM card_rows WHERE guild_id = ? AND collection = ? AND key = ?",
                [(guild, collection, key) for collection, key in changes.deleted],
                many=True,
            )
        )
    return statements


@dataclass
class JoinedLibraryWrite:
    """The library's part of another store's transaction (a trade of the round moving copies).

    ``Store.append`` calls ``write`` inside its transaction, after its own log row, and
    ``committed`` once that transaction is durable: only then does ``on_commit`` run.
    """

    guild: str
    changes: LibraryChanges
    entry: LibraryLogEntry
    on_commit: Callable[[], None]
    done: bool = field(default=False)
    notes: tuple[str, ...] = ()
    """What to say once it is durable (a battle's kitty taken), for a store that posts it."""
    on_fail: Callable[[], None] | None = None
    """Told when the transaction it joined was not written (its library may have been read stale)."""

    async def write(self, conn: Db) -> None:
        await run_statements(conn, _statements(self.guild, self.changes, self.entry))

    def committed(self) -> None:
        self.done = True
        self.on_commit()

    def failed(self) -> None:
        if self.on_fail is not None:
            self.on_fail()


class LibraryStore(SideStore):
    """The card libraries of every guild; callers serialise their writes per guild."""

    async def load(self, guild: str) -> StoredLibrary | None:
        async with self._conn.execute("SELECT seq, body FROM card_libraries WHERE guild_id = ?", (guild,)) as cur:
            head = await cur.fetchone()
        if head is None:
            return None
        rows: dict[str, list[tuple[str, str]]] = {}
        async with self._conn.execute(
            "SELECT collection, key, body FROM card_rows WHERE guild_id = ? ORDER BY collection, key", (guild,)
        ) as cur:
            for collection, key, body in await cur.fetchall():
                rows.setdefault(str(collection), []).append((str(key), str(body)))
        return StoredLibrary(seq=int(head[0]), meta=str(head[1]), rows=rows)

    async def has_event(self, guild: str, event_id: str) -> bool:
        async with self._conn.execute(_HAS_EVENT, (guild, event_id)) as cur:
            return await cur.fetchone() is not None

    async def last_source_line(self, guild: str) -> int | None:
        async with self._conn.execute("SELECT MAX(source_line) FROM card_actions WHERE guild_id = ?", (guild,)) as cur:
            row = await cur.fetchone()
        return int(row[0]) if row is not None and row[0] is not None else None

    async def log(self, guild: str) -> list[tuple[int, str, str]]:
        """(seq, event id, kind) of every logged action, in order: the library's history."""
        async with self._conn.execute(
            "SELECT seq, event_id, kind FROM card_actions WHERE guild_id = ? ORDER BY seq", (guild,)
        ) as cur:
            return [(int(r[0]), str(r[1]), str(r[2])) for r in await cur.fetchall()]

    async def guilds(self) -> list[str]:
        async with self._conn.execute("SELECT guild_id FROM card_libraries ORDER BY guild_id") as cur:
            return [str(r[0]) for r in await cur.fetchall()]

    async def commit(self, guild: str, changes: LibraryChanges, entry: LibraryLogEntry) -> bool:
        """Write one action in one transaction. False, changing nothing, when the event was logged before;
        ``LibraryConflictError`` (nothing written) when another writer got there first; ``FencedError``
        (nothing written) on a shared database when this process does not hold the guild (any more)."""
        job = self._job(
            guild,
            _statements(guild, changes, entry),
            logged=(_HAS_EVENT, (guild, entry.event_id)),
            event=entry.event_id,
            source_line=entry.source_line,
        )
        try:
            written = await self._writer.write(job)
        except Exception as exc:
            if self.engine.connection_lost(exc):
                # the writer could not tell whether the batch committed: ask again on another connection
                if await self._logged_anyway(guild, entry.event_id):
                    return True
                raise
            if self.engine.is_integrity_error(exc):  # a row the library did not expect (another writer's copy)
                raise LibraryConflictError("the card library changed since it was read") from None
            raise
        return written is Written.STORED

    async def _logged_anyway(self, guild: str, event_id: str) -> bool:
        """Whether an event whose commit lost its connection is durable all the same (False: unknown)."""
        for _ in range(3):  # the pool may hand out other connections the same failure broke
            try:
                return await self.has_event(guild, event_id)
            except Exception as exc:
                if not self.engine.connection_lost(exc):
                    raise
        return False

    def joined(
        self,
        guild: str,
        changes: LibraryChanges,
        entry: LibraryLogEntry,
        on_commit: Callable[[], None],
        notes: tuple[str, ...] = (),
        *,
        on_fail: Callable[[], None] | None = None,
    ) -> JoinedLibraryWrite:
        """The library's writes for another store's transaction (see ``JoinedLibraryWrite``)."""
        return JoinedLibraryWrite(guild, changes, entry, on_commit, notes=notes, on_fail=on_fail)

    # -- the values the service hands back (it knows no SQL and imports nothing from here) --

    @staticmethod
    def changes(**fields: Any) -> LibraryChanges:
        return LibraryChanges(**fields)

    @staticmethod
    def row(**fields: Any) -> LibraryRow:
        return LibraryRow(**fields)

    @staticmethod
    def entry(**fields: Any) -> LibraryLogEntry:
        return LibraryLogEntry(**fields)
