"""Which engine keeps a database's rows: SQLite (a file, ``data.sqlite``) or PostgreSQL (a server,
``data.postgres``), and what the stores ask of either (``Engine``): connecting, migrating, checking a
database, opening a transaction of their own, telling a row's fault from a lost connection. The stores
write their SQL once, in the subset both engines read alike (``?`` placeholders, ``INSERT ... ON
CONFLICT``), and their writes as ``data.base.StatementJob``: statements either engine's writer runs.
"""

from __future__ import annotations

from contextlib import AbstractAsyncContextManager
from typing import Protocol

from data.base import Db, ReplayProgress, Target, Writer
from data.sqlite import SQLITE


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
        process before the server ends it (``data.base.LEASE_SECONDS`` when None)."""

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
    """PostgreSQL's engine for a ``postgresql://`` URL (asyncpg is imported only then), SQLite's otherwise."""
    if where.postgres:
        from data.postgres import POSTGRES

        return POSTGRES
    return SQLITE


