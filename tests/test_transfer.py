"""Moving a server between databases: ``export`` / ``import`` of one guild and ``migrate-store``, SQLite
to PostgreSQL and back, compared row by row and by the state document a replay resumed there ends with."""

from __future__ import annotations

import asyncio
import copy
import hashlib
import io
import json
import logging
import sqlite3
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from bot.cli import EXIT_REFUSED, EXIT_STORE, main
from bot.import_check import guild_loads
from bot.sim.replay import read_scenario, replay
from bot.sim.world import GUILD
from data import transfer
from data.base import MIGRATIONS_DIR, migrations
from data.store import Store
from tests.engines import Databases

ROOT = Path(__file__).resolve().parents[1]
SCENARIOS = Path(__file__).parent / "scenarios"
RICH = ("week", "table_ictc", "notices", "web_season", "governance_judge")
"""Between them, rows in every table a guild has."""
SEED = "7"


def _replay(scenario: str, db: str) -> dict[str, Any]:
    lines = read_scenario(SCENARIOS / f"{scenario}.jsonl", io.StringIO())
    return asyncio.run(replay(lines, seed=SEED, db=db)).document


async def _export(db: str, guild: str = GUILD) -> dict[str, Any]:
    store = await Store.open(db)
    try:
        return await transfer.export_guild(store, guild)
    finally:
        await store.close()


async def _import(db: str, document: dict[str, Any], *, replace: bool = False) -> int:
    store = await Store.open(db)
    try:
        return await transfer.import_guild(store, document, replace=replace, check=guild_loads)
    finally:
        await store.close()


async def _set_up_the_server(db: str) -> None:
    """What only the Discord adapter writes: channels, the moderator role, the web mode, held notices,
    the lot board's message."""
    store = await Store.open(db)
    try:
        await store.bind_channel(GUILD, "auctions", "1001")
        await store.bind_channel(GUILD, "game-actions", "1002")
        await store.set_moderator_role(GUILD, "77")
        await store.set_web_mode(GUILD, "hidden")
        await store.set_message(GUILD, "board", "1001", "5005")
        for n in range(3):
            await store.hold_notice(GUILD, "alice", datetime(2026, 12, 7, n, tzinfo=UTC), f"notice {n}")
    finally:
        await store.close()


@pytest.fixture(scope="module")
def sources(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[str, dict[str, Any]]]:
    """Each rich scenario replayed onto a SQLite file: the file and its state document."""
    folder = tmp_path_factory.mktemp("sources")
    found = {name: (str(folder / f"{name}.db"), _replay(name, str(folder / f"{name}.db"))) for name in RICH}
    asyncio.run(_set_up_the_server(found["week"][0]))
    return found


NOT_MOVED = {
    "schema_migrations": None,
    "bot_meta": None,
    "guild_owners": None,
    "mod_log": {"id"},
    "held_notices": {"id"},
}
"""What an export leaves out: tables of no guild (bot_meta moves with migrate-store), which process may
write a guild (each store's own), and the ids the target numbers anew."""


async def _schema(db: str) -> dict[str, set[str]]:
    store = await Store.open(db)
    try:
        names = await store.engine.table_names(store.reader)
        # sqlite_sequence: SQLite's own counters of AUTOINCREMENT ids
        return {n: await store.engine.columns(store.reader, n) for n in names if not n.startswith("sqlite_")}
    finally:
        await store.close()


def test_every_guild_table_and_column_of_the_schema_is_moved(db_url: str) -> None:
    """A table or a column a later migration adds must be added to ``transfer.GUILD_TABLES`` too
    (or named here as left out), or an export would silently leave it behind."""
    schema = asyncio.run(_schema(db_url))
    left_out = {n for n, left in NOT_MOVED.items() if left is None}
    keyed = {name for name, columns in schema.items() if "guild_id" in columns and name not in left_out}
    assert keyed | {n for n, left in NOT_MOVED.items() if left is None} == set(schema)
    moved = {t.name: set(t.columns) for t in transfer.GUILD_TABLES}
    assert set(moved) == keyed
    for name, columns in moved.items():
        assert columns == schema[name] - (NOT_MOVED.get(name) or set()), name


def test_the_scenarios_fill_every_table_of_a_guild(sources: dict[str, tuple[str, dict[str, Any]]]) -> None:
    filled: set[str] = set()
    for db, _ in sources.values():
        document = asyncio.run(_export(db))
        filled |= {name for name, table in document["tables"].items() if table["rows"]}
    assert filled == {t.name for t in transfer.GUILD_TABLES}


@pytest.mark.parametrize("scenario", RICH)
def test_a_guild_moves_to_each_engine_and_back_unchanged(
    scenario: str, dbs: Databases, sources: dict[str, tuple[str, dict[str, Any]]]
) -> None:
    source, expected = sources[scenario]
    document = asyncio.run(_export(source))
    there = dbs.new("there")
    assert asyncio.run(_import(there, document)) == transfer.rows_of(document)
    moved = asyncio.run(_export(there))
    assert moved["tables"] == document["tables"]
    # the bot on the new database goes on where it was: a replay there resumes after the last line
    assert _replay(scenario, there) == expected
    back = str(Path(source).with_name(f"{scenario}-back-{dbs.engine}.db"))
    asyncio.run(_import(back, moved))
    assert asyncio.run(_export(back))["tables"] == document["tables"]


def test_importing_a_guild_the_target_holds_is_refused_unless_replaced(
    dbs: Databases, sources: dict[str, tuple[str, dict[str, Any]]]
) -> None:
    source, _ = sources["week"]
    document = asyncio.run(_export(source))
    there = dbs.new("there")
    asyncio.run(_import(there, document))
    with pytest.raises(transfer.GuildExistsError, match=r"already holds guild sim .*--replace"):
        asyncio.run(_import(there, document))
    assert asyncio.run(_export(there))["tables"] == document["tables"], "the refused import wrote nothing"
    other, _ = sources["notices"]
    replacement = asyncio.run(_export(other))
    asyncio.run(_import(there, replacement, replace=True))
    assert asyncio.run(_export(there))["tables"] == replacement["tables"]


def test_a_document_of_another_guild_mixed_in_is_refused(tmp_path: Path) -> None:
    document = {
        "format": transfer.FORMAT,
        "version": transfer.VERSION,
        "schema": 1,
        "guild": "a",
        "tables": {"guilds": {"columns": ["guild_id", "seed", "created_at"], "rows": [["b", "s", "t"]]}},
    }
    with pytest.raises(transfer.TransferError, match="another guild"):
        asyncio.run(_import(str(tmp_path / "x.db"), document))


def _bot(*args: str, stdin: bytes | None = None) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        [sys.executable, "-m", "bot", *args], cwd=ROOT, input=stdin, capture_output=True, timeout=120, check=False
    )


def test_the_commands_move_a_guild_and_a_whole_deployment(
    tmp_path: Path, dbs: Databases, sources: dict[str, tuple[str, dict[str, Any]]]
) -> None:
    source, expected = sources["table_ictc"]
    exported = _bot("export", GUILD, "--db", source)
    assert exported.returncode == 0, exported.stderr.decode()
    there = dbs.new("there")
    imported = _bot("import", "--db", there, stdin=exported.stdout)
    assert imported.returncode == 0, imported.stderr.decode()
    again = _bot("import", "--db", there, stdin=exported.stdout)
    assert again.returncode == 4
    assert "already holds guild sim" in again.stderr.decode()
    assert _replay("table_ictc", there) == expected

    whole = dbs.new("whole")
    moved = _bot("migrate-store", "--from", f"sqlite:///{source}", "--to", whole)
    assert moved.returncode == 0, moved.stderr.decode()
    assert "moved 1 guilds" in moved.stderr.decode()
    assert asyncio.run(_export(whole))["tables"] == json.loads(exported.stdout)["tables"]
    refused = _bot("migrate-store", "--from", source, "--to", whole)
    assert refused.returncode == 4
    assert "nothing was written" in refused.stderr.decode()
    nothing = _bot("export", "no-such-guild", "--db", source)
    assert nothing.returncode == 4
    # and back from the new store, which is read as the first was: read-only, whatever its engine
    back = tmp_path / "back.db"
    returned = _bot("migrate-store", "--from", whole, "--to", str(back))
    assert returned.returncode == 0, returned.stderr.decode()
    assert asyncio.run(_export(str(back)))["tables"] == json.loads(exported.stdout)["tables"]


async def test_an_export_while_the_bot_writes_is_one_moment_of_the_guild(
    dbs: Databases, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``export`` as a backup while the bot runs: actions committed between the export's reads of two
    tables must not give a snapshot ahead of the exported log (an import of it would have a gap)."""
    from games.nomic.actions import PlaceBid
    from games.nomic.context import ChannelRole
    from games.nomic.service import RoundService
    from tests.test_group_commit import ctx, started

    db = dbs.new()
    bot_store = await Store.open(db)
    service = RoundService(bot_store, snapshot_every=1)
    await started(service, "g", ["alice", "bob"])
    reading = transfer._rows
    interleaved: list[str] = []

    async def rows_then_the_bot_acts(*args: Any, **kwargs: Any) -> Any:
        found = await reading(*args, **kwargs)
        if "FROM actions " in str(args[1]) and not interleaved:
            for n in range(3):
                bid = PlaceBid(lot=1, amount=5 + n)
                assert (await service.act("g", ctx("alice", f"b{n}", ChannelRole.AUCTIONS), bid)).accepted
            interleaved.append("acted")
        return found

    monkeypatch.setattr(transfer, "_rows", rows_then_the_bot_acts)
    exporter = await Store.open(db)
    try:
        document = await transfer.export_guild(exporter, "g")
    finally:
        await exporter.close()
        await bot_store.close()
    assert interleaved
    logged = [row[1] for row in document["tables"]["actions"]["rows"]]
    snapshot_seq = document["tables"]["snapshots"]["rows"][0][1]
    assert snapshot_seq == logged[-1], "the snapshot and the log are of one moment"


# --- what import refuses: a document the bot could not load, or one that is not an export --------


def _played_week_with_a_battle() -> list[tuple[int, Any]]:
    """The week's scenario with the first minutes of the card battle's: a played week, a card library
    and a battle still under way at the end (its table open), in one guild."""
    week = read_scenario(SCENARIOS / "week.jsonl", io.StringIO())
    battle = read_scenario(SCENARIOS / "table_ictc.jsonl", io.StringIO())
    cut = datetime(2026, 12, 7, 9, 3, tzinfo=UTC)
    lines = sorted(
        [*week, *((1000 + n, line) for n, line in battle if line.type != "setup" and line.at < cut)],
        key=lambda item: (item[1].at, item[0]),
    )
    return list(enumerate(line for _, line in lines))


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """The export of a guild with a played week, a server set up, an open thread table and a card library."""
    db = str(tmp_path_factory.mktemp("played") / "played.db")
    asyncio.run(replay(_played_week_with_a_battle(), seed=SEED, db=db))
    asyncio.run(_set_up_the_server(db))
    document = asyncio.run(_export(db))
    tables = document["tables"]
    assert [row[5] for row in tables["game_tables"]["rows"]] == ["playing"]
    assert tables["card_libraries"]["rows"]
    assert tables["card_rows"]["rows"]
    assert len(tables["actions"]["rows"]) > 40
    assert tables["guild_channels"]["rows"]
    return document


def _rows(document: dict[str, Any], table: str) -> list[list[Any]]:
    return document["tables"][table]["rows"]  # type: ignore[no-any-return]


def _at(document: dict[str, Any], table: str, column: str) -> int:
    return document["tables"][table]["columns"].index(column)  # type: ignore[no-any-return]


def _set(table: str, column: str, value: Any, *, row: int = 0) -> Callable[[dict[str, Any]], None]:
    def change(document: dict[str, Any]) -> None:
        _rows(document, table)[row][_at(document, table, column)] = value

    return change


def _body(
    table: str, change: Callable[[Any], Any], *, row: int | Callable[[list[Any]], bool] = 0
) -> Callable[[dict[str, Any]], None]:
    """Rewrite the JSON body of one row (by index, or the first row a test picks)."""

    def edit(document: dict[str, Any]) -> None:
        found = _rows(document, table)
        target = found[row] if isinstance(row, int) else next(r for r in found if row(r))
        at = _at(document, table, "body")
        body = json.loads(target[at])
        target[at] = json.dumps(change(body) or body)

    return edit


def _drop(table: str, keep: Callable[[list[Any]], bool]) -> Callable[[dict[str, Any]], None]:
    def change(document: dict[str, Any]) -> None:
        document["tables"][table]["rows"] = [r for r in _rows(document, table) if keep(r)]

    return change


def _copy_row(table: str, row: int, **changes: Any) -> Callable[[dict[str, Any]], None]:
    def change(document: dict[str, Any]) -> None:
        again = list(_rows(document, table)[row])
        for column, value in changes.items():
            again[_at(document, table, column)] = value
        _rows(document, table).append(again)

    return change


def _without_column(table: str, column: str) -> Callable[[dict[str, Any]], None]:
    def change(document: dict[str, Any]) -> None:
        at = _at(document, table, column)
        document["tables"][table]["columns"].pop(at)
        for found in _rows(document, table):
            found.pop(at)

    return change


def _with_column(table: str, column: str) -> Callable[[dict[str, Any]], None]:
    def change(document: dict[str, Any]) -> None:
        document["tables"][table]["columns"].append(column)
        for found in _rows(document, table):
            found.append("red")

    return change


def _points(body: dict[str, Any]) -> None:
    body["players"]["alice"]["points"] = -500


def _card(body: dict[str, Any]) -> None:
    body["players"]["erin"]["cards"][0] = "ZZ"


def _is_copy(key: str) -> Callable[[list[Any]], bool]:
    return lambda row: row[1] == "copies" and row[2] == key


def _seq(seq: int) -> Callable[[list[Any]], bool]:
    """Every row but the log's step ``seq`` (the round's log, the library's)."""
    return lambda row: row[1] != seq


def _battle_step(seq: int) -> Callable[[list[Any]], bool]:
    return lambda row: row[2] != seq


def _pop_key(*path: str) -> Callable[[dict[str, Any]], None]:
    def change(document: dict[str, Any]) -> None:
        found = document
        for part in path[:-1]:
            found = found[part]
        del found[path[-1]]

    return change


@dataclass(frozen=True)
class _Instead:
    """What a case gives in place of the whole document."""

    document: Any


def _replace_document(value: Any) -> Callable[[dict[str, Any]], Any]:
    return lambda document: _Instead(value)


def _an_unaffordable_bid(document: dict[str, Any]) -> None:
    """Without a snapshot the whole log is replayed; one of its bids made far above what its bidder has."""
    document["tables"]["snapshots"]["rows"] = []
    _body("actions", lambda b: b["action"].update(amount=10**6), row=lambda r: r[5] == "bid")(document)


TAMPERED: dict[str, tuple[Callable[[dict[str, Any]], Any], tuple[str, ...]]] = {
    # the round's content: what its rules forbid, what does not load
    "a player at -500 points": (_body("snapshots", _points), ("snapshot", "alice", "-500")),
    "an unknown card code": (_body("snapshots", _card), ("snapshot", "zz")),
    "a snapshot that is not a round": (_set("snapshots", "body", json.dumps({"guild": GUILD})), ("snapshot",)),
    "a snapshot that is not JSON": (_set("snapshots", "body", '{"guild": '), ("snapshot",)),
    "a snapshot of another guild": (_body("snapshots", lambda b: {**b, "guild": "other"}), ("snapshot", "other")),
    "a round of another seed": (_set("guilds", "seed", "8"), ("guilds", "seed", "8")),
    "a web mode that is none": (_set("guild_settings", "web", "maybe"), ("guild_settings", "maybe")),
    "a snapshot row of another step than its body": (_set("snapshots", "seq", 40), ("snapshot", "40", "47")),
    "an action the rules refuse": (_an_unaffordable_bid, ("actions", "step", "rules refuse")),
    "an action that is not one": (
        _body("actions", lambda b: {**b, "action": {"kind": "fly"}}, row=2),
        ("actions", "step 3"),
    ),
    # the round's log
    "a step written as a word": (_set("actions", "seq", "three", row=2), ("actions", "seq", "three")),
    "a step with a fraction": (_set("actions", "seq", 2.5, row=2), ("actions", "seq", "2.5")),
    "a step missing": (_set("actions", "seq", None, row=2), ("actions", "seq")),
    "a log cut below its snapshot": (_drop("actions", lambda r: r[1] <= 42), ("snapshot", "47", "42")),
    "a gap in the log": (_drop("actions", _seq(10)), ("actions", "10")),
    "a step twice": (_copy_row("actions", 4, event_id="again"), ("actions", "seq 5", "twice")),
    "an event twice": (_set("actions", "event_id", "setup", row=5), ("actions", "event_id", "twice")),
    "a row twice": (_copy_row("guild_channels", 0), ("guild_channels", "twice")),
    # the document's shape
    "a missing column": (_without_column("actions", "event_id"), ("actions", "event_id")),
    "an unknown column": (_with_column("actions", "colour"), ("actions", "colour")),
    "a missing table": (_pop_key("tables", "snapshots"), ("snapshots",)),
    "a table without rows": (_pop_key("tables", "actions", "rows"), ("actions", "rows")),
    "no guild named": (_pop_key("guild"), ("guild",)),
    "no time of export": (_pop_key("exported_at"), ("exported_at",)),
    "a key no export has": (lambda d: d.update(extra=1), ("extra",)),
    "a row too short": (lambda d: _rows(d, "actions")[0].pop(), ("actions",)),
    "a number for a text": (_set("guild_channels", "channel_id", 1001), ("guild_channels", "channel_id")),
    "an object for a body": (_set("actions", "body", {"ctx": {}}), ("actions", "body")),
    "a time that is none": (_set("actions", "at", "yesterday"), ("actions", "at", "yesterday")),
    "a row of another guild": (_set("guild_channels", "guild_id", "other"), ("guild_channels", "other")),
    "not an export": (_replace_document([]), ("export",)),
    "another format version": (lambda d: d.update(version=2), ("version", "2")),
    "a schema that is no number": (lambda d: d.update(schema="ten"), ("schema", "ten")),
    # thread tables
    "a table that is not one": (_set("game_tables", "body", json.dumps({"name": "ictc-1"})), ("ictc-1",)),
    "a table whose game does not load": (_body("game_tables", lambda b: {**b, "board": "{}"}), ("ictc-1",)),
    "a table row unlike its body": (_set("game_tables", "status", "finished"), ("ictc-1", "status")),
    "a gap in a table's log": (_drop("table_actions", _battle_step(5)), ("ictc-1", "5")),
    "a log of no table": (
        _copy_row("table_actions", 0, table_name="ghost-1", event_id="ghost"),
        ("table_actions", "ghost-1"),
    ),
    "a table action that is not one": (
        _set("table_actions", "body", json.dumps({"kind": "fly"}), row=3),
        ("table_actions", "ictc-1", "4"),
    ),
    # the card library
    "a copy with two owners": (
        lambda d: next(r for r in _rows(d, "card_rows") if _is_copy("1")(r)).__setitem__(3, "bob"),
        ("copy 1", "alice", "bob"),
    ),
    "a copy twice": (
        lambda d: _rows(d, "card_rows").append(["sim", "copies", "1", "bob", "{}"]),
        ("card_rows", "twice"),
    ),
    "a copy of no design": (_body("card_rows", lambda b: {**b, "design": 999}, row=_is_copy("1")), ("999",)),
    "a copy under another number": (
        lambda d: next(r for r in _rows(d, "card_rows") if _is_copy("1")(r)).__setitem__(2, "999"),
        ("copies", "999"),
    ),
    "a library ahead of its log": (_set("card_libraries", "seq", 9), ("card", "9")),
    "a gap in the library's log": (_drop("card_actions", _seq(2)), ("card_actions", "2")),
    "a deck that is not one": (
        lambda d: next(r for r in _rows(d, "card_rows") if r[1] == "decks").__setitem__(4, "{}"),
        ("card_rows", "decks"),
    ),
    "a library action that is not one": (
        _body("card_actions", lambda b: {**b, "action": {"kind": "fly"}}, row=1),
        ("card_actions", "2"),
    ),
}


def _import_command(
    document: Any, there: str, folder: Path, capfd: pytest.CaptureFixture[str], *, replace: bool = False
) -> tuple[int, str]:
    """``python -m bot import FILE --db THERE`` in this process: its status and its standard error."""
    file = folder / "guild.json"
    file.write_text(json.dumps(document), encoding="utf-8")
    capfd.readouterr()
    status = main(["import", str(file), "--db", there, *(["--replace"] if replace else [])])
    return status, capfd.readouterr().err


def _refused_in_one_line(err: str, words: tuple[str, ...]) -> str:
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert "Traceback" not in err
    line = lines[0]
    assert line.startswith("error: ")
    for word in words:
        assert word.lower() in line.lower(), (word, line)
    return line


@pytest.mark.parametrize("case", list(TAMPERED))
def test_a_tampered_import_is_refused_in_one_line_and_writes_nothing(
    case: str,
    dbs: Databases,
    played: dict[str, Any],
    *,
    tmp_path: Path,
    capfd: pytest.CaptureFixture[str],
    caplog: pytest.LogCaptureFixture,
) -> None:
    """Each document below would leave a guild the bot cannot load, or one its rules forbid: refused
    with status 4 and one line saying what and where, before anything is written (here: a store
    that holds the guild, imported with --replace, keeps it as it was)."""
    there = dbs.new("there")
    asyncio.run(_import(there, played))
    before = asyncio.run(_export(there))
    change, words = TAMPERED[case]
    document = copy.deepcopy(played)
    changed = change(document)
    document = changed.document if isinstance(changed, _Instead) else document
    with caplog.at_level(logging.WARNING):
        status, err = _import_command(document, there, tmp_path, capfd, replace=True)
    assert status == EXIT_REFUSED, err
    _refused_in_one_line(err, words)
    assert not [r for r in caplog.records if r.levelno >= logging.WARNING], "nothing logged besides the line"
    assert asyncio.run(_export(there))["tables"] == before["tables"], "the store was left as it was"
    assert asyncio.run(_guilds(there)) == [GUILD]


async def _guilds(db: str) -> list[str]:
    store = await Store.open(db)
    try:
        return await transfer.all_guilds(store)
    finally:
        await store.close()


def test_the_real_export_imports_through_the_command(
    dbs: Databases, played: dict[str, Any], tmp_path: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    """The untouched document passes every check the tampered ones fail, and arrives whole."""
    there = dbs.new("there")
    status, err = _import_command(played, there, tmp_path, capfd)
    assert status == 0, err
    assert asyncio.run(_export(there))["tables"] == played["tables"]


def test_an_export_of_an_older_schema_lacks_only_the_tables_made_since(dbs: Databases, played: dict[str, Any]) -> None:
    """An export taken at schema 9 has no ``guild_messages``: imported all the same, where a current
    one without it is refused (``a missing table`` above)."""
    document = copy.deepcopy(played)
    document["schema"] = 9
    del document["tables"]["guild_messages"]
    there = dbs.new("there")
    assert asyncio.run(_import(there, document)) == transfer.rows_of(document)
    del document["tables"]["snapshots"]
    with pytest.raises(transfer.TransferError, match="no table snapshots"):
        asyncio.run(_import(dbs.new("again"), document))


def test_a_log_without_its_snapshot_is_checked_by_replaying_it(dbs: Databases, played: dict[str, Any]) -> None:
    """The round is loaded as the bot loads it: with no snapshot, its whole log replayed by the rules."""
    document = copy.deepcopy(played)
    document["tables"]["snapshots"]["rows"] = []
    there = dbs.new("there")
    assert asyncio.run(_import(there, document)) == transfer.rows_of(document)


@pytest.mark.parametrize("case", ["a player at -500 points", "a step written as a word", "a missing column"])
def test_a_refused_import_into_a_new_file_leaves_no_file(case: str, played: dict[str, Any], tmp_path: Path) -> None:
    """The command as an operator runs it (standard input, a new database file): one line, no
    traceback, and no file left behind."""
    change, words = TAMPERED[case]
    document = copy.deepcopy(played)
    change(document)
    there = tmp_path / "new.db"
    refused = _bot("import", "--db", str(there), stdin=json.dumps(document).encode())
    assert refused.returncode == EXIT_REFUSED, refused.stderr.decode()
    _refused_in_one_line(refused.stderr.decode(), words)
    assert not list(tmp_path.glob("new.db*")), "nothing was created"


# --- export and migrate-store read their source and never write it ---------------------------------


def _store_at_schema(path: Path, version: int) -> None:
    """A database file as an older version of the bot left it: migrations 1..version, one guild."""
    conn = sqlite3.connect(path)
    try:
        conn.execute("PRAGMA journal_mode=WAL")
        conn.execute("CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, applied_at TEXT NOT NULL)")
        for number, sql in migrations(MIGRATIONS_DIR)[:version]:
            conn.executescript(sql)
            conn.execute("INSERT INTO schema_migrations VALUES (?, ?)", (number, "2026-11-01T00:00:00+00:00"))
        conn.execute("INSERT INTO guilds VALUES (?, '7', '2026-12-05T12:00:00+00:00')", (GUILD,))
        conn.commit()
    finally:
        conn.close()


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _source_command(*args: str) -> subprocess.CompletedProcess[bytes]:
    refused = _bot(*args)
    assert refused.returncode == EXIT_STORE, refused.stderr.decode()
    assert len(refused.stderr.decode().strip().splitlines()) == 1, refused.stderr.decode()
    assert "Traceback" not in refused.stderr.decode()
    return refused


def test_export_and_migrate_refuse_an_older_store_and_leave_it_as_it_was(tmp_path: Path) -> None:
    """Reading a store must not upgrade it: a file at schema 9 (before the lot board's message) keeps
    its bytes and its version, and the command says how to read it."""
    old = tmp_path / "old.db"
    _store_at_schema(old, 9)
    digest = _digest(old)
    exported = _source_command("export", GUILD, "--db", str(old))
    assert "schema version 9" in exported.stderr.decode()
    assert "python -m bot run" in exported.stderr.decode()
    moved = _source_command("migrate-store", "--from", str(old), "--to", str(tmp_path / "new.db"))
    assert "schema version 9" in moved.stderr.decode()
    assert _digest(old) == digest
    assert sqlite3.connect(old).execute("SELECT MAX(version) FROM schema_migrations").fetchone() == (9,)
    assert not (tmp_path / "new.db").exists(), "the destination is not made for a source that cannot be read"


def test_export_and_migrate_refuse_a_source_that_is_not_there(tmp_path: Path) -> None:
    missing = tmp_path / "missing.db"
    for args in (
        ("export", GUILD, "--db", str(missing)),
        ("migrate-store", "--from", str(missing), "--to", str(tmp_path / "to.db")),
    ):
        refused = _source_command(*args)
        assert "no such file" in refused.stderr.decode()
        assert not missing.exists(), "a missing source is not created"
        assert not (tmp_path / "to.db").exists()


def test_an_export_reads_its_source_without_writing_it(sources: dict[str, tuple[str, dict[str, Any]]]) -> None:
    source, _ = sources["week"]
    digest = _digest(Path(source))
    exported = _bot("export", GUILD, "--db", source)
    assert exported.returncode == 0, exported.stderr.decode()
    assert _digest(Path(source)) == digest


async def _tables_of(db: str) -> set[str]:
    from data.base import target
    from data.engine import engine_for

    where = target(db)
    conn = await engine_for(where).open_read_only(where)
    try:
        return await engine_for(where).table_names(conn)
    finally:
        await conn.close()


def test_an_export_of_an_empty_database_does_not_make_it_the_bots(dbs: Databases) -> None:
    """On PostgreSQL too, a database with no store in it (a wrong URL) is refused, not given the bot's
    tables."""
    empty = dbs.new("empty")
    if dbs.engine == "sqlite":
        sqlite3.connect(empty).close()
    refused = _source_command("export", GUILD, "--db", empty)
    assert "store" in refused.stderr.decode() or "bot" in refused.stderr.decode()
    assert asyncio.run(_tables_of(empty)) == set()
