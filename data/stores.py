"""The three stores of one database, opened together: ``open_stores(url)``.

The round's store migrates the database and owns its writer; the tables' and the card library's
stores share that writer (one group commit per database and process) and read on connections of
their own. The URL is a path, ``sqlite:///FILE`` or ``postgresql://...`` (``data.engine``).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from data.base import ReplayProgress, Target, target
from data.library_store import LibraryStore
from data.store import Store
from data.table_store import TableStore


@dataclass
class Stores:
    round: Store
    tables: TableStore
    cards: LibraryStore

    async def close(self) -> None:
        """Commit what is queued and close every connection (the round's store, which owns the writer, last)."""
        try:
            await self.cards.close()
        finally:
            try:
                await self.tables.close()
            finally:
                await self.round.close()


async def open_stores(
    url: str | Path | Target,
    *,
    synchronous: str = "FULL",
    progress: ReplayProgress | None = None,
    lease: float | None = None,
) -> Stores:
    """Open the round's, the tables' and the card library's stores of one database (``lease``: see
    ``Engine.open_writer``). ``StoreOpenError`` when it cannot be used; nothing is left open then."""
    where = target(url)
    store = await Store.open(where, synchronous=synchronous, progress=progress, lease=lease)
    try:
        tables = await TableStore.open(where, synchronous=synchronous, progress=progress, store=store)
    except BaseException:
        await store.close()
        raise
    try:
        cards = await LibraryStore.open(where, synchronous=synchronous, progress=progress, store=store)
    except BaseException:
        await tables.close()
        await store.close()
        raise
    return Stores(store, tables, cards)
