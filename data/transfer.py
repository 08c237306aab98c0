"""Moving a server's data between databases: one guild as a JSON document, or a whole deployment.

``export_guild`` reads every row the bot keeps for one guild (its round: seed, action log,
snapshot, archive; its settings and channels; its thread games and their logs; its card library;
the moderators' log and held notices; a replay's progress; the commands it refused, so a
redelivery after the move is not carried out either) into a document that names each
table's columns, so it reads the same whatever the engine it came from. ``import_guild`` writes
such a document in one transaction (all of it or nothing) and refuses a guild the target already
holds unless told to replace it. ``migrate`` moves every guild (and the bot's own facts, e.g. the
hash of the last command sync) from one database to another, SQLite or PostgreSQL either way.

Ids of the moderators' log and of held notices are not moved: the target numbers the rows anew,
in the same order. The bot should not be running on the target for the guilds being imported
(it would not know of rows written under it).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from data.engine import Db, Target, target
from data.store import Store

FORMAT = "nomic-guild"
VERSION = 1


@dataclass(frozen=True)
class GuildTable:
    name: str
    columns: tuple[str, ...]
    order: str


GUILD_TABLES: tuple[GuildTable, ...] = (
    # parents before children: written in this order, deleted in the reverse
    GuildTable("guilds", ("guild_id", "seed", "created_at"), "guild_id"),
    GuildTable("actions", ("guild_id", "seq", "event_id", "at", "actor", "kind", "body", "source_line"), "seq"),
    GuildTable("snapshots", ("guild_id", "seq", "taken_at", "body"), "seq"),
    GuildTable("archive", ("guild_id", "kind", "number", "seq", "archived_at", "body"), "kind, number"),
    GuildTable("guild_settings", ("guild_id", "moderator_role_id", "updated_at", "web"), "guild_id"),
    GuildTable("guild_channels", ("guild_id", "role", "channel_id", "updated_at"), "role"),
    GuildTable("guild_messages", ("guild_id", "role", "channel_id", "message_id", "updated_at"), "role"),
    GuildTable(
        "game_tables",
        (
            "guild_id",
            "name",
            "game",
            "number",
            "thread_id",
            "status",
            "seed",
            "seq",
            "body",
            "opened_at",
            "updated_at",
        ),
        "name",
    ),
    GuildTable(
        "table_actions",
        ("guild_id", "table_name", "seq", "event_id", "at", "actor", "kind", "body", "source_line"),
        "table_name, seq",
    ),
    GuildTable("card_libraries", ("guild_id", "seq", "body", "updated_at"), "guild_id"),
    GuildTable("card_rows", ("guild_id", "collection", "key", "owner_id", "body"), "collection, key"),
    GuildTable("card_actions", ("guild_id", "seq", "event_id", "at", "actor", "kind", "body", "source_line"), "seq"),
    GuildTable("mod_log", ("guild_id", "at", "moderator", "moderator_name", "kind", "what"), "id"),
    GuildTable("held_notices", ("guild_id", "member_id", "at", "text"), "id"),
    GuildTable("replay_progress", ("guild_id", "line"), "guild_id"),
    GuildTable("refused_events", ("guild_id", "event_id", "at", "source_line"), "at, event_id"),
)


class TransferError(Exception):
    """The document or the target does not allow the move; ``str()`` says why and what to do."""


class GuildExistsError(TransferError):
    """The target already holds rows of the guild."""


async def _rows(store: Store, sql: str, params: Sequence[Any] = (), *, conn: Db | None = None) -> list[tuple[Any, ...]]:
    async with (conn if conn is not None else store.reader).execute(sql, params) as cur:
        return [tuple(r) for r in await cur.fetchall()]


async def export_guild(store: Store, guild: str) -> dict[str, Any]:
    """Every row of ``guild``, table by table (an empty table is listed with no rows)."""
    await store.writer.flush()
    tables: dict[str, Any] = {}
    # one moment of the guild: a bot writing meanwhile (an export taken as a backup) must not give a
    # snapshot ahead of the exported log, or a table row ahead of its log
    async with store.engine.reading(store.reader) as conn:
        for table in GUILD_TABLES:
            found = await _rows(
                store,
                f"SELECT {', '.join(table.columns)} FROM {table.name} WHERE guild_id = ? ORDER BY {table.order}",
                (guild,),
                conn=conn,
            )
            tables[table.name] = {"columns": list(table.columns), "rows": [list(r) for r in found]}
    return {
        "format": FORMAT,
        "version": VERSION,
        "schema": await store.schema_version(),
        "guild": guild,
        "exported_at": datetime.now(UTC).isoformat(),
        "tables": tables,
    }


def rows_of(document: dict[str, Any]) -> int:
    return sum(len(t["rows"]) for t in document["tables"].values())


async def present_in(store: Store, guild: str) -> list[str]:
    """The tables that hold rows of ``guild`` in ``store``."""
    return [
        table.name
        for table in GUILD_TABLES
        if await _rows(store, f"SELECT 1 FROM {table.name} WHERE guild_id = ? LIMIT 1", (guild,))
    ]


def _check(document: Any, schema: int) -> str:
    if not isinstance(document, dict) or document.get("format") != FORMAT:
        raise TransferError("this is not a guild exported by `python -m bot export`")
    if document.get("version") != VERSION:
        raise TransferError(f"the document's format version {document.get('version')} is not {VERSION}")
    if int(document.get("schema", 0)) > schema:
        raise TransferError(
            f"it was exported by a newer version of the bot (schema {document['schema']}; this one knows up to"
            f" {schema}): import it with that version"
        )
    guild = document.get("guild")
    if not isinstance(guild, str) or not guild:
        raise TransferError("the document names no guild")
    known = {t.name: t for t in GUILD_TABLES}
    for name, table in document.get("tables", {}).items():
        if name not in known:
            raise TransferError(f"the document has a table this version does not know: {name}")
        missing = set(table["columns"]) - set(known[name].columns)
        if missing:
            raise TransferError(f"the document's table {name} has unknown columns: {', '.join(sorted(missing))}")
        if any(len(row) != len(table["columns"]) for row in table["rows"]):
            raise TransferError(f"a row of {name} does not have one value per column")
        if any(row[table["columns"].index("guild_id")] != guild for row in table["rows"]):
            raise TransferError(f"a row of {name} belongs to another guild than {guild}")
    return guild


async def import_guild(store: Store, document: dict[str, Any], *, replace: bool = False) -> int:
    """Write the document's rows in one transaction; the number of rows written.

    ``GuildExistsError`` when the target holds rows of the guild, unless ``replace``: then they are
    deleted first, in the same transaction."""
    guild = _check(document, await store.schema_version())
    await store.writer.flush()
    present = await present_in(store, guild)
    if present and not replace:
        raise GuildExistsError(
            f"the database {store.path} already holds guild {guild} (rows in {', '.join(present)}); importing"
            " would mix two histories of one server. Export it first if it is worth keeping, then import again"
            " with --replace to overwrite it"
        )
    written = 0
    async with store.engine.transaction(store.reader) as conn:
        for table in reversed(GUILD_TABLES):
            if replace and table.name in present:
                await conn.execute(f"DELETE FROM {table.name} WHERE guild_id = ?", (guild,))
        for table in GUILD_TABLES:
            part = document["tables"].get(table.name)
            if not part or not part["rows"]:
                continue
            columns = part["columns"]
            sql = f"INSERT INTO {table.name} ({', '.join(columns)}) VALUES ({', '.join('?' * len(columns))})"
            await conn.executemany(sql, [tuple(row) for row in part["rows"]])
            written += len(part["rows"])
    return written


@dataclass(frozen=True)
class Moved:
    guild: str
    rows: int


async def migrate(
    source: str | Path | Target, destination: str | Path | Target, *, replace: bool = False
) -> list[Moved]:
    """Every guild of ``source`` (and its bot facts) into ``destination``; checked by exporting each
    guild again from the destination. Refuses before writing anything when the destination already
    holds one of the guilds (unless ``replace``)."""
    if target(source).url == target(destination).url:
        raise TransferError("the source and the destination are the same database")
    src = await Store.open(source)
    try:
        dst = await Store.open(destination)
        try:
            guilds = await all_guilds(src)
            if not replace:
                clashes = [g for g in guilds if await present_in(dst, g)]
                if clashes:
                    raise GuildExistsError(
                        f"the database {dst.path} already holds {len(clashes)} of the guilds to move"
                        f" ({', '.join(clashes[:5])}); nothing was written. Use --replace to overwrite them"
                    )
            moved = []
            for guild in guilds:
                document = await export_guild(src, guild)
                count = await import_guild(dst, document, replace=replace)
                again = await export_guild(dst, guild)
                if again["tables"] != document["tables"]:
                    raise TransferError(f"guild {guild} reads back differently from {dst.path}; please report this")
                moved.append(Moved(guild, count))
            for key, value in await _rows(src, "SELECT key, value FROM bot_meta ORDER BY key"):
                await dst.set_meta(str(key), str(value))
            return moved
        finally:
            await dst.close()
    finally:
        await src.close()


async def all_guilds(store: Store) -> list[str]:
    """Every guild with any row in the store, in order."""
    union = " UNION ".join(f"SELECT guild_id FROM {t.name}" for t in GUILD_TABLES)
    return [str(r[0]) for r in await _rows(store, f"SELECT guild_id FROM ({union}) AS every_guild ORDER BY guild_id")]
