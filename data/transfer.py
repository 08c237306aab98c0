"""Moving a server's data between databases: one guild as a JSON document, or a whole deployment.

``export_guild`` reads every row the bot keeps for one guild (its round: seed, action log,
snapshot, archive; its settings and channels; its thread games and their logs; its card library;
the moderators' log and held notices; a replay's progress; the commands it refused, so a
redelivery after the move is not carried out either) into a document that names each
table's columns, so it reads the same whatever the engine it came from. ``import_guild`` writes
such a document in one transaction (all of it or nothing) and refuses a guild the target already
holds unless told to replace it. ``migrate`` moves every guild (and the bot's own facts, e.g. the
hash of the last command sync) from one database to another, SQLite or PostgreSQL either way.

Nothing here writes to where it reads from: an export's source and a migration's are opened only to
be read (``open_source``), never migrated. Nothing is written from a document that is not an export
whose rows hold together (``check_document``: shape, types, keys, logs without gaps), and, with a
``GuildCheck``, whose guild does not load as the bot loads it; the refusal is one line.

Ids of the moderators' log and of held notices are not moved: the target numbers the rows anew,
in the same order. The bot should not be running on the target for the guilds being imported
(it would not know of rows written under it).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Awaitable, Callable, Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from data.base import MIGRATIONS_ROOT, Db, StoreOpenError, Target, migrations, target
from data.engine import Engine, engine_for
from data.sqlite import open_error
from data.store import Store

FORMAT = "nomic-guild"
VERSION = 1
_HEAD = ("format", "version", "schema", "guild", "exported_at", "tables")
"""The keys of an export, each of them there."""


@dataclass(frozen=True)
class GuildTable:
    """A table of a guild's rows: each column as ``name`` or ``name:kind`` (``int``, ``time``; ``?``
    when it may be null; text otherwise), and the columns no two of the guild's rows share. Every
    export has each column of its tables (exports came with schema 8, after the last added column)."""

    name: str
    spec: tuple[str, ...]
    order: str
    keys: tuple[tuple[str, ...], ...] = ()
    since: int = 1
    """The schema version that made the table: an export of an older schema does not have it."""

    @property
    def columns(self) -> tuple[str, ...]:
        return tuple(column.partition(":")[0] for column in self.spec)

    def kind(self, column: str) -> str:
        return dict(c.partition(":")[::2] for c in self.spec)[column] or "text"


_LOG = ("guild_id", "seq:int", "event_id", "at:time", "actor", "kind", "body", "source_line:int?")
GUILD_TABLES: tuple[GuildTable, ...] = (
    # parents before children: written in this order, deleted in the reverse
    GuildTable("guilds", ("guild_id", "seed", "created_at:time"), "guild_id", ((),)),
    GuildTable("actions", _LOG, "seq", (("seq",), ("event_id",))),
    GuildTable("snapshots", ("guild_id", "seq:int", "taken_at:time", "body"), "seq", ((),)),
    GuildTable(
        "archive",
        ("guild_id", "kind", "number:int", "seq:int", "archived_at:time", "body"),
        "kind, number",
        (("kind", "number"),),
    ),
    GuildTable("guild_settings", ("guild_id", "moderator_role_id:text?", "updated_at:time", "web"), "guild_id", ((),)),
    GuildTable("guild_channels", ("guild_id", "role", "channel_id", "updated_at:time"), "role", (("role",),)),
    GuildTable(
        "guild_messages",
        ("guild_id", "role", "channel_id", "message_id", "updated_at:time"),
        "role",
        (("role",),),
        since=10,
    ),
    GuildTable(
        "game_tables",
        (
            "guild_id",
            "name",
            "game",
            "number:int",
            "thread_id:text?",
            "status",
            "seed",
            "seq:int",
            "body",
            "opened_at:time",
            "updated_at:time",
        ),
        "name",
        (("name",), ("game", "number"), ("thread_id",)),
    ),
    GuildTable(
        "table_actions",
        ("guild_id", "table_name", *_LOG[1:]),
        "table_name, seq",
        (("table_name", "seq"), ("event_id",)),
    ),
    GuildTable("card_libraries", ("guild_id", "seq:int", "body", "updated_at:time"), "guild_id", ((),)),
    GuildTable(
        "card_rows",
        ("guild_id", "collection", "key", "owner_id:text?", "body"),
        "collection, key",
        (("collection", "key"),),
    ),
    GuildTable("card_actions", _LOG, "seq", (("seq",), ("event_id",))),
    GuildTable("mod_log", ("guild_id", "at:time", "moderator", "moderator_name", "kind", "what"), "id"),
    GuildTable("held_notices", ("guild_id", "member_id", "at:time", "text"), "id"),
    GuildTable("replay_progress", ("guild_id", "line:int"), "guild_id", ((),)),
    GuildTable(
        "refused_events",
        ("guild_id", "event_id", "at:time", "source_line:int?"),
        "at, event_id",
        (("event_id",),),
        since=11,
    ),
)


class TransferError(Exception):
    """The document or the target does not allow the move; ``str()`` says why and what to do (one line)."""


class GuildExistsError(TransferError):
    """The target already holds rows of the guild."""


GuildCheck = Callable[[Store, Db, str], Awaitable[None]]
"""Run by ``import_guild`` inside its transaction, once the rows are written and before they commit:
the store, the transaction's connection (which reads the rows written) and the guild. It raises
``TransferError`` to refuse the document (the transaction is then rolled back). ``bot.import_check``
loads the guild there as the bot would."""


@dataclass
class Source:
    """A database opened only to be read (``export``, ``migrate-store``'s source): never migrated,
    never written (SQLite's ``mode=ro``, PostgreSQL's read-only transactions)."""

    reader: Db
    target: Target
    schema: int

    @property
    def engine(self) -> Engine:
        return engine_for(self.target)

    @property
    def path(self) -> str:
        return self.target.display

    async def schema_version(self) -> int:
        return self.schema

    async def close(self) -> None:
        await self.reader.close()


def known_schema(where: Target | None = None) -> int:
    """The schema version this version of the bot writes (its migrations' number)."""
    return len(migrations(MIGRATIONS_ROOT / "postgresql" if where is not None and where.postgres else MIGRATIONS_ROOT))


async def _readable_schema(engine: Engine, conn: Db, place: Target) -> int:
    """The schema version of a store this version of the bot reads as it is; ``StoreOpenError`` otherwise."""
    tables = await engine.table_names(conn)
    if "schema_migrations" not in tables:
        found = f"the tables of another program ({', '.join(sorted(tables)[:5])})" if tables else "no tables"
        raise StoreOpenError(
            place.display,
            f"it holds no store of the bot, only {found}",
            "Give the database the bot or a replay wrote",
        )
    async with conn.execute("SELECT COALESCE(MAX(version), 0) FROM schema_migrations") as cur:
        row = await cur.fetchone()
    version, known = int(row[0]) if row else 0, known_schema(place)
    if version > known:
        raise StoreOpenError(
            place.display,
            f"it was written by a newer version of the bot (schema version {version}; this version knows"
            f" up to {known})",
            "Read it with that version; the database was left as it was",
        )
    if version < known:
        raise StoreOpenError(
            place.display,
            f"it is at schema version {version}, older than this version of the bot reads ({known}), and"
            " reading it must not change it",
            "Read it with the version of the bot that wrote it, or let this version upgrade it first by"
            " starting the bot on it (`python -m bot run`, or `python -m bot replay --db` for a replay's"
            " file); the database was left as it was",
        )
    return version


async def open_source(where: str | Path | Target) -> Source:
    """Open a database to read it as it is, refusing (``StoreOpenError``) what this version cannot read
    without changing it: no such file, no store of the bot, a schema older or newer than this version's."""
    place = target(where)
    engine = engine_for(place)
    conn = await engine.open_read_only(place)
    try:
        version = await _readable_schema(engine, conn, place)
    except BaseException as exc:
        await conn.close()
        if place.path is not None and isinstance(exc, OSError | sqlite3.Error):
            raise open_error(place.path, exc) from exc  # not a database, damaged, locked
        raise
    return Source(conn, place, version)


Readable = Store | Source
"""What an export reads: a store the bot opened, or a database opened only to be read."""


async def _rows(
    store: Readable, sql: str, params: Sequence[Any] = (), *, conn: Db | None = None
) -> list[tuple[Any, ...]]:
    async with (conn if conn is not None else store.reader).execute(sql, params) as cur:
        return [tuple(r) for r in await cur.fetchall()]


async def export_guild(store: Readable, guild: str) -> dict[str, Any]:
    """Every row of ``guild``, table by table (an empty table is listed with no rows)."""
    if isinstance(store, Store):
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


async def present_in(store: Readable, guild: str) -> list[str]:
    """The tables that hold rows of ``guild`` in ``store``."""
    return [
        table.name
        for table in GUILD_TABLES
        if await _rows(store, f"SELECT 1 FROM {table.name} WHERE guild_id = ? LIMIT 1", (guild,))
    ]


# -- what a document must be before a row of it is written --------------------------------------------


def shown(value: Any, limit: int = 40) -> str:
    """A value of the document as the refusal quotes it (JSON, cut short)."""
    import json

    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= limit else text[: limit - 1] + "…"


_INT_RANGE = (-(2**63), 2**63 - 1)


def _value_problem(kind: str, value: Any) -> str | None:
    """Why ``value`` cannot be a value of a column of ``kind`` (None: it can)."""
    base, optional = kind.rstrip("?"), kind.endswith("?")
    if value is None:
        return None if optional else "but it may not be empty"
    if base == "int":
        if isinstance(value, bool) or not isinstance(value, int):
            return "not a whole number"
        return None if _INT_RANGE[0] <= value <= _INT_RANGE[1] else "too large a number"
    if not isinstance(value, str):
        return "not text"
    if base == "time":
        try:
            instant = datetime.fromisoformat(value)
        except ValueError:
            return "not a time (ISO 8601, e.g. 2026-12-05T12:00:00+00:00)"
        if instant.tzinfo is None:
            return "a time without its time zone"
    return None


def _head(document: Any, schema: int) -> str:
    if not isinstance(document, dict) or document.get("format") != FORMAT:
        raise TransferError("this is not a guild exported by `python -m bot export`")
    if document.get("version") != VERSION:
        raise TransferError(f"the document's format version {shown(document.get('version'))} is not {VERSION}")
    unknown = sorted(set(document) - set(_HEAD))
    if unknown:
        raise TransferError(f"the document has keys an export does not have: {', '.join(map(shown, unknown))}")
    found = document.get("schema")
    if isinstance(found, bool) or not isinstance(found, int) or found < 1:
        raise TransferError(f"the document's schema version {shown(found)} is not a version number")
    if found > schema:
        raise TransferError(
            f"it was exported by a newer version of the bot (schema {found}; this one knows up to"
            f" {schema}): import it with that version"
        )
    guild = document.get("guild")
    if not isinstance(guild, str) or not guild:
        raise TransferError("the document names no guild (its key `guild`)")
    if not isinstance(document.get("tables"), dict):
        raise TransferError("the document has no tables (its key `tables`)")
    return guild


def _part(table: GuildTable, part: Any, guild: str) -> list[dict[str, Any]]:
    """The rows of one table of the document, as column -> value, once their shape and values hold."""
    name = table.name
    if not isinstance(part, dict) or not isinstance(part.get("columns"), list):
        raise TransferError(f"the document's table {name} has no list of `columns`")
    if not isinstance(part.get("rows"), list):
        raise TransferError(f"the document's table {name} has no list of `rows`")
    columns = part["columns"]
    if not all(isinstance(c, str) for c in columns) or len(set(columns)) != len(columns):
        raise TransferError(f"the document's table {name} names a column twice, or a column that is no name")
    unknown = set(columns) - set(table.columns)
    if unknown:
        raise TransferError(f"the document's table {name} has unknown columns: {', '.join(sorted(unknown))}")
    missing = [c for c in table.columns if c not in columns]
    if missing:
        raise TransferError(f"the document's table {name} lacks the column {', '.join(missing)}")
    found: list[dict[str, Any]] = []
    for number, row in enumerate(part["rows"], 1):
        if not isinstance(row, list) or len(row) != len(columns):
            raise TransferError(f"{name} row {number} does not have one value per column ({len(columns)})")
        record = dict(zip(columns, row, strict=True))
        if record["guild_id"] != guild:
            raise TransferError(
                f"{name} row {number} belongs to another guild ({shown(record['guild_id'])}) than {shown(guild)}"
            )
        for column, value in record.items():
            problem = _value_problem(table.kind(column), value)
            if problem is not None:
                raise TransferError(f"{name} row {number}: {column} is {shown(value)}, {problem}")
        found.append(record)
    for key in table.keys:
        seen: dict[tuple[Any, ...], int] = {}
        for number, record in enumerate(found, 1):
            if any(record.get(c) is None for c in key):
                continue  # a null is no key (a table not bound to a thread yet)
            value = tuple(record.get(c) for c in key)
            if value in seen:
                what = ", ".join(f"{c} {shown(v)}" for c, v in zip(key, value, strict=True)) or "the guild's row"
                raise TransferError(f"{name}: {what} appears twice (rows {seen[value]} and {number})")
            seen[value] = number
    return found


def _log_problem(steps: Iterable[int], what: str) -> str | None:
    """Why a log's steps are not 1, 2, ... n (None: they are)."""
    expected = 1
    ordered = sorted(steps)
    for step in ordered:
        if step != expected:
            return f"{what} lacks step {expected} (its steps run from {ordered[0]} to {ordered[-1]})"
        expected += 1
    return None


def _logs(rows: dict[str, list[dict[str, Any]]]) -> None:
    """The logs run without gaps, and what was made of them (a snapshot, a table, a library) is not
    ahead of them."""
    actions = [r["seq"] for r in rows["actions"]]
    if (actions or rows["snapshots"] or rows["archive"]) and not rows["guilds"]:
        raise TransferError("guilds: the document has a round (its log, snapshot or archive) but no row of its guild")
    problem = _log_problem(actions, "the round's log")
    if problem is not None:
        raise TransferError(f"actions: {problem}")
    for snapshot in rows["snapshots"]:
        last = max(actions, default=0)
        if not 1 <= snapshot["seq"] <= last:
            raise TransferError(
                f"snapshots: the round's snapshot is of step {snapshot['seq']}, but its log ends at step {last}"
                " (a log cut below its snapshot)"
            )
    tables = {r["name"]: r for r in rows["game_tables"]}
    logs: dict[str, list[int]] = {name: [] for name in tables}
    for number, record in enumerate(rows["table_actions"], 1):
        if record["table_name"] not in tables:
            raise TransferError(
                f"table_actions row {number} is in the log of {shown(record['table_name'])}, a table the document"
                " does not have"
            )
        logs[record["table_name"]].append(record["seq"])
    for name, steps in logs.items():
        problem = _log_problem(steps, f"the log of {name}")
        if problem is None and len(steps) != tables[name]["seq"]:
            problem = f"{name} is at step {tables[name]['seq']}, but its log ends at step {len(steps)}"
        if problem is not None:
            raise TransferError(f"table_actions: {problem}")
    library = rows["card_libraries"]
    steps = [r["seq"] for r in rows["card_actions"]]
    if (steps or rows["card_rows"]) and not library:
        raise TransferError("card_libraries: the document has a card library's rows or log, but not its row")
    problem = _log_problem(steps, "the card library's log")
    if problem is None and library and library[0]["seq"] != len(steps):
        problem = f"the card library is at step {library[0]['seq']}, but its log ends at step {len(steps)}"
    if problem is not None:
        raise TransferError(f"card_actions: {problem}")


def check_document(document: Any, schema: int) -> str:
    """The guild of an export, once its shape holds: its format, each table's columns (a table an older
    schema did not have may be missing), each value's type, one guild throughout, no key twice,
    logs without gaps and nothing ahead of them. ``TransferError`` says what is wrong and where.

    Whether the guild loads (its snapshot, states and bodies) is the ``GuildCheck``'s part."""
    guild = _head(document, schema)
    parts = document["tables"]
    unknown = sorted(set(parts) - {t.name for t in GUILD_TABLES})
    if unknown:
        raise TransferError(f"the document has a table this version does not know: {', '.join(unknown)}")
    rows: dict[str, list[dict[str, Any]]] = {}
    for table in GUILD_TABLES:
        if table.name not in parts:
            if document["schema"] >= table.since:
                raise TransferError(f"the document has no table {table.name}")
            rows[table.name] = []
            continue
        rows[table.name] = _part(table, parts[table.name], guild)
    _logs(rows)
    if "exported_at" not in document:  # told, not used: looked at last
        raise TransferError("the document lacks the key exported_at every export has")
    taken = _value_problem("time", document["exported_at"])
    if taken is not None:
        raise TransferError(f"the document's exported_at is {shown(document['exported_at'])}, {taken}")
    return guild


def _refused_row(table: str, exc: BaseException) -> TransferError:
    first = (str(exc).strip().splitlines() or [type(exc).__name__])[0]
    return TransferError(f"{table}: the database refused a row ({first})")


async def import_guild(
    store: Store, document: dict[str, Any], *, replace: bool = False, check: GuildCheck | None = None
) -> int:
    """Write the document's rows in one transaction; the number of rows written.

    ``TransferError`` (nothing written) when the document fails ``check_document``, or ``check``.
    ``GuildExistsError`` when the target holds rows of the guild, unless ``replace``: then they are
    deleted first, in the same transaction."""
    guild = check_document(document, await store.schema_version())
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
            try:
                await conn.executemany(sql, [tuple(row) for row in part["rows"]])
            except (sqlite3.Error, ValueError, OverflowError) as exc:  # a row the checks let through
                raise _refused_row(table.name, exc) from None
            except Exception as exc:
                if store.engine.is_integrity_error(exc):
                    raise _refused_row(table.name, exc) from None
                raise
            written += len(part["rows"])
        if check is not None:
            await check(store, conn, guild)
    return written


@dataclass(frozen=True)
class Moved:
    guild: str
    rows: int


async def migrate(
    source: str | Path | Target,
    destination: str | Path | Target,
    *,
    replace: bool = False,
    check: GuildCheck | None = None,
) -> list[Moved]:
    """Every guild of ``source`` (and its bot facts) into ``destination``; checked by exporting each
    guild again from the destination. The source is only read (``open_source``). Refuses before
    writing anything when the destination already holds one of the guilds (unless ``replace``)."""
    if target(source).url == target(destination).url:
        raise TransferError("the source and the destination are the same database")
    src = await open_source(source)
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
                count = await import_guild(dst, document, replace=replace, check=check)
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


async def all_guilds(store: Readable) -> list[str]:
    """Every guild with any row in the store, in order."""
    union = " UNION ".join(f"SELECT guild_id FROM {t.name}" for t in GUILD_TABLES)
    return [str(r[0]) for r in await _rows(store, f"SELECT guild_id FROM ({union}) AS every_guild ORDER BY guild_id")]
