"""Whether an imported guild loads as the bot loads it (``data.transfer.GuildCheck``).

``python -m bot import`` writes a document's rows in one transaction and, before it commits, reads
them back on that transaction's connection through the stores' own reads and the services' own
loading: the round's snapshot and the replay of its log after it, every table's state and its game,
the card library from its rows. Whatever would fail when the bot starts on the guild fails here, and
the transaction is rolled back; so does what the rules could not have made (a player below zero
points, a copy filed under two owners), which loading alone would carry on with. Each refusal is
one line naming the table and the row, step or value at fault.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from typing import Any

from pydantic import ValidationError

from bot.web.desk import WebMode
from data.base import Db
from data.library_store import LibraryStore
from data.read_store import ReadStore
from data.store import Store
from data.table_store import TableStore
from data.transfer import TransferError, shown
from games.ictc import invariants as library_rules
from games.ictc.service import read_logged as read_library_action
from games.ictc.service import state_from_rows
from games.ictc.state import COLLECTIONS, Meta
from games.nomic import archive
from games.nomic import invariants as round_rules
from games.nomic.archive import KIND_OF
from games.nomic.errors import RuleError
from games.nomic.service import read_logged, replay_logged
from games.nomic.state import RoundState
from games.tables.access import engine_of, game_state
from games.tables.actions import ACTION_ADAPTER, PlayMove
from games.tables.core import TableCore
from games.tables.model import Table

_ARCHIVED = {kind.value: model for model, kind in KIND_OF.items()}


def _why(exc: BaseException) -> str:
    """What went wrong, in one line."""
    if isinstance(exc, ValidationError) and exc.errors():
        first = exc.errors()[0]
        where = ".".join(str(part) for part in first.get("loc", ()))
        said = str(first.get("msg", "")).replace("Value error, ", "")
        text = f"{where}: {said}" if where else said
    else:
        text = str(exc) or type(exc).__name__
    text = " ".join(text.split())
    return text if len(text) <= _SAID else text[: _SAID - 1] + "…"


_SAID = 160
"""At most this much of an error's words in a refusal (pydantic lists every tag it expected)."""


@contextmanager
def _refusing(what: str) -> Iterator[None]:
    """Any failure inside as the refusal ``what: why``."""
    try:
        yield
    except TransferError:
        raise
    except Exception as exc:  # noqa: BLE001 - whatever stops the loading refuses the document
        raise TransferError(f"{what}: {_why(exc)}") from None


async def _all(conn: Db, sql: str, guild: str) -> list[Any]:
    async with conn.execute(sql, (guild,)) as cur:
        return list(await cur.fetchall())


def _log_reads(what: str, entries: Iterable[tuple[Any, Any, Any]], read: Callable[[str], Any]) -> None:
    """Every body of a log, given as (step, kind, body), reads back as an action of the kind its row names."""
    for step, kind, body in entries:
        with _refusing(f"{what} step {step}: not an action the bot logs"):
            action = read(str(body))
        if action.kind != kind:
            raise TransferError(f"{what} step {step}: its kind is {shown(kind)}, its body's {action.kind}")


def _refuse_skipped(guild: str, seq: int, error: RuleError) -> None:
    """The bot would skip a logged action its rules refuse; an import does not take such a log."""
    del guild
    raise TransferError(f"actions, step {seq}: the round's rules refuse it where the log has it ({_why(error)})")


async def _round(store: Store, conn: Db, guild: str) -> None:
    view = Store(conn, store.target)  # the store's reads, on the import's transaction
    with _refusing("actions: the round's log does not read"):
        snapshot, tail = await view.load(guild)
    state: RoundState | None = None
    if snapshot is not None:
        with _refusing(f"snapshots: the round's snapshot (step {snapshot.seq}) does not load"):
            state = RoundState.model_validate_json(snapshot.body)
        if state.guild != guild:
            raise TransferError(f"snapshots: the round's snapshot is of guild {shown(state.guild)}, not {shown(guild)}")
        if state.seq != snapshot.seq:
            raise TransferError(
                f"snapshots: the snapshot's row is of step {snapshot.seq}, but its body of step {state.seq}"
            )
    for row in tail:
        with _refusing(f"actions, step {row.seq}: the round's log does not replay"):
            state = replay_logged(guild, state, row, skipped=_refuse_skipped)
    with _refusing("actions: the round's log does not read"):
        logged = await ReadStore(conn, store.target).log(guild)
    # the steps before the snapshot too: the web record and the history read them
    _log_reads("actions,", ((e.seq, e.kind, e.body) for e in logged), read_logged)
    if state is not None:
        seed = await view.seed(guild)
        if seed != state.seed:
            raise TransferError(f"guilds: the guild's seed is {shown(seed)}, but its round's {shown(state.seed)}")
        broken = round_rules.invariants(state)
        if broken:
            raise TransferError(f"the round, as its snapshot and log leave it, breaks its rules: {broken[0]}")
    archived = "SELECT kind, number, body FROM archive WHERE guild_id = ? ORDER BY kind, number"
    for kind, number, body in await _all(conn, archived, guild):
        model = _ARCHIVED.get(str(kind))
        if model is None:
            raise TransferError(f"archive: a record of kind {shown(kind)}, which the round does not archive")
        with _refusing(f"archive: {kind} {number} does not load"):
            (record,) = archive.load(model, [str(body)])
        own = getattr(record, "version" if kind == "ruleset_version" else "number", None)
        if own != number:
            raise TransferError(f"archive: {kind} {own} is filed under number {number}")
    with _refusing("mod_log: the moderators' log does not read"):
        await view.mod_log(guild, limit=await view.mod_log_count(guild))
    with _refusing("guild_settings: the server's settings do not read"):
        web = (await view.guild_settings(guild)).web
    if web not in set(WebMode):
        raise TransferError(f"guild_settings: web is {shown(web)}, not one of {', '.join(WebMode)}")


def _move_reader(engine: Any) -> Callable[[str], Any]:
    """A table's logged action read back, with the game's own move inside a move."""

    def read(body: str) -> Any:
        action = ACTION_ADAPTER.validate_json(body)
        if isinstance(action, PlayMove):
            engine.load_action(action.action)
        return action

    return read


async def _tables(store: Store, conn: Db, guild: str) -> None:
    view = TableStore(conn, store.target, writer=store.writer, owns_writer=False)
    for row in await view.all_tables(guild):
        where = f"game_tables: {shown(row.name)}"
        with _refusing(f"{where} does not load"):
            table = Table.model_validate_json(row.body)
        pairs: tuple[tuple[str, Any, Any], ...] = (
            ("name", row.name, table.name),
            ("game", row.game, table.game),
            ("number", row.number, table.number),
            ("seed", row.seed, table.seed),
            ("status", row.status, table.status.value),
            ("seq", row.seq, table.seq),
        )
        for column, stored, own in pairs:
            if stored != own:
                raise TransferError(f"{where}: its row's {column} is {shown(stored)}, its body's {shown(own)}")
        with _refusing(f"{where}: its game does not load"):
            engine = engine_of(table)
            broken = engine.invariants(game_state(table)) if table.board is not None else []
        if broken:
            raise TransferError(f"{where}: its game breaks its rules: {broken[0]}")
        with _refusing(f"table_actions: the log of {shown(row.name)} does not read"):
            entries = await view.log(guild, row.name)
        steps = ((e.seq, e.kind, e.body) for e in entries)
        _log_reads(f"table_actions, {shown(row.name)}", steps, _move_reader(engine))
    with _refusing("game_tables: the open tables do not load"):
        await TableCore(view).open_tables(guild)  # as the bot reads them when it starts


async def _library(store: Store, conn: Db, guild: str) -> None:
    view = LibraryStore(conn, store.target, writer=store.writer, owns_writer=False)
    with _refusing("card_libraries: the card library does not read"):
        stored = await view.load(guild)
    if stored is None:
        return
    with _refusing("card_libraries: the card library's row does not load"):
        Meta.model_validate_json(stored.meta)
    for name, rows in stored.rows.items():
        if name not in COLLECTIONS:
            raise TransferError(f"card_rows: a row of collection {shown(name)}, which the card library does not have")
        for key, body in rows:  # one at a time first, to name the row that does not load
            with _refusing(f"card_rows: {name} {shown(key)} does not load"):
                state_from_rows(stored.meta, {name: [(key, body)]})
    with _refusing("card_rows: the card library does not load"):
        state = state_from_rows(stored.meta, stored.rows)  # as its service loads it
    if state.meta.seq != stored.seq:
        raise TransferError(
            f"card_libraries: the card library's row is at step {stored.seq}, its body at step {state.meta.seq}"
        )
    broken = library_rules.invariants(state)
    if broken:
        raise TransferError(f"card_rows: the card library breaks its rules: {broken[0]}")
    owners = "SELECT collection, key, owner_id FROM card_rows WHERE guild_id = ? ORDER BY collection, key"
    for collection, key, owner in await _all(conn, owners, guild):
        copy = state.copies.get(int(key)) if collection == "copies" else None
        if copy is not None and owner != copy.owner:
            raise TransferError(
                f"card_rows: copy {copy.id} has two owners, {shown(copy.owner)} in its body and {shown(owner)} in"
                " owner_id"
            )
        if copy is None and owner is not None:
            raise TransferError(f"card_rows: {collection} {shown(key)} has an owner_id, which only copies have")
    logged = "SELECT seq, kind, body FROM card_actions WHERE guild_id = ? ORDER BY seq"
    _log_reads("card_actions,", await _all(conn, logged, guild), read_library_action)


async def guild_loads(store: Store, conn: Db, guild: str) -> None:
    """``TransferError`` unless the guild, as the rows written on ``conn`` hold it, loads as the bot
    loads it and keeps to its rules."""
    await _round(store, conn, guild)
    await _tables(store, conn, guild)
    await _library(store, conn, guild)
