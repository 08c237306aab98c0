"""Moving a server between databases: ``export`` / ``import`` of one guild and ``migrate-store``, SQLite
to PostgreSQL and back, compared row by row and by the state document a replay resumed there ends with."""

from __future__ import annotations

import asyncio
import io
import json
import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from bot.sim.replay import read_scenario, replay
from bot.sim.world import GUILD
from data import transfer
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
        return await transfer.import_guild(store, document, replace=replace)
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
