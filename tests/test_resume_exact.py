"""Resuming a replay is exact: killed at any write to the store, a run resumed on the same ``--db``
ends exactly where an uninterrupted run ends (the state document and both action logs).

What is durable at a kill depends only on how many writes had committed (a write is one
transaction: killed inside it, none of it is durable), so "after write k" and "before write k + 1"
are one kill point. The sweep takes, during one uninterrupted run, a copy of the database files as
they are on disk before each write and after the last (what a kill there leaves), resumes a fresh
run on each copy and compares. Other runs are interrupted in-process (a write raises, the run
unwinds and closes the file) and a few are killed for real, with SIGKILL, in a subprocess.
"""

from __future__ import annotations

import asyncio
import inspect
import io
import json
import os
import shutil
import subprocess
import sys
import textwrap
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from bot.sim.replay import _run as replay_run
from bot.sim.replay import read_scenario, replay
from data.base import ReplayProgress
from data.sqlite_writer import SqliteWriter
from data.store import Store
from data.stores import open_stores
from data.table_store import TableStore
from tests.engines import Databases, postgres_databases, rows

ROOT = Path(__file__).resolve().parents[1]
SCENARIOS = Path(__file__).parent / "scenarios"
WEEK = SCENARIOS / "week.jsonl"
TABLES = SCENARIOS / "table_wikipedia.jsonl"
UNTIL = {WEEK: datetime(2026, 12, 14, tzinfo=UTC), TABLES: datetime(2026, 12, 9, tzinfo=UTC)}
SEED = "7"

WRITES: dict[type, tuple[str, ...]] = {
    Store: (
        "append",
        "write_snapshot",
        "bind_channel",
        "set_moderator_role",
        "set_web_mode",
        "set_meta",
        "set_message",
        "save_progress",
        "setup_change",
        "add_mod_log",
        "hold_notice",
        "drop_held",
        "remember_refused",
    ),
    TableStore: ("commit", "attach_thread"),
}
"""Every method of the stores that writes to the file (opening, which migrates, aside)."""
READS: dict[type, tuple[str, ...]] = {
    Store: (
        "open",
        "close",
        "schema_version",
        "guilds",
        "seed",
        "load",
        "log",
        "has_event",
        "last_source_line",
        "finished_line",
        "archived",
        "archived_count",
        "guild_settings",
        "meta",
        "message",
        "mod_log",
        "mod_log_count",
        "held_notices",
        "refused_events",
        "last_refused_line",
    ),
    TableStore: (
        "open",
        "close",
        "open_tables",
        "all_tables",
        "table",
        "last_number",
        "guilds_with_open_tables",
        "any_table",
        "has_event",
        "log",
        "last_source_line",
    ),
}


class Killed(Exception):  # noqa: N818 - what happened to the process, not an error of the code
    """The process died at this point."""


class Faults:
    """Counts the stores' writes; once ``survive`` writes have committed, every later write dies.

    ``images``: before each write, and once the run is over, a copy of the database files as they
    are on disk at that moment (what a kill there would leave), numbered by the writes done.
    """

    def __init__(self, survive: int | None = None, *, db: Path | None = None, images: Path | None = None) -> None:
        self.survive = survive
        self.done = 0
        self.names: list[str] = []
        """What each write was (``Store.append``...), in order."""
        self.db = db
        self.images = images

    def image(self) -> None:
        if self.db is None or self.images is None:
            return
        for suffix in ("", "-wal"):  # -shm is rebuilt from the WAL on open
            source = self.db.with_name(self.db.name + suffix)
            if source.exists():
                shutil.copyfile(source, self.images / f"{self.done}.db{suffix}")

    def write(self, original: Callable[..., Any], name: str) -> Callable[..., Any]:
        async def guarded(*args: Any, **kwargs: Any) -> Any:
            if self.survive is not None and self.done >= self.survive:
                raise Killed(f"killed before write {self.done + 1} ({name})")
            self.image()
            result = await original(*args, **kwargs)
            self.done += 1
            self.names.append(name)
            return result

        return guarded


@contextmanager
def faults(survive: int | None = None, *, db: Path | None = None, images: Path | None = None) -> Iterator[Faults]:
    found = Faults(survive, db=db, images=images)
    patch = pytest.MonkeyPatch()
    try:
        for cls, names in WRITES.items():
            for name in names:
                patch.setattr(cls, name, found.write(getattr(cls, name), f"{cls.__name__}.{name}"))
        yield found
    finally:
        patch.undo()


def _rows(db: Path | str) -> dict[str, list[tuple[Any, ...]]]:
    """The durable record of what happened: both action logs and the refusals, row by row (on either engine)."""
    return {
        "actions": rows(
            str(db),
            "SELECT guild_id, seq, event_id, at, actor, kind, body, source_line FROM actions ORDER BY guild_id, seq",
        ),
        "table_actions": rows(
            str(db),
            "SELECT guild_id, table_name, seq, event_id, at, actor, kind, body, source_line FROM table_actions"
            " ORDER BY guild_id, table_name, seq",
        ),
        "refused_events": rows(
            str(db), "SELECT guild_id, event_id, at, source_line FROM refused_events ORDER BY guild_id, event_id"
        ),
    }


def _run(scenario: Path, db: Path | str) -> dict[str, Any]:
    lines = read_scenario(scenario, io.StringIO())
    return asyncio.run(replay(lines, seed=SEED, db=db, until=UNTIL[scenario])).document


def _sweep(scenario: Path, tmp_path: Path) -> None:
    """Resume from the file as a kill left it after each number of writes; compare with the whole run."""
    whole, images = tmp_path / "whole.db", tmp_path / "images"
    images.mkdir()
    with faults(db=whole, images=images) as run:
        expected = _run(scenario, whole)
        run.image()
    expected_rows = _rows(whole)
    total = run.done
    assert total >= 20, "the scenario should write many times"
    wrong: list[str] = []
    for done in range(total + 1):
        db = tmp_path / f"killed-{done}.db"
        for suffix in ("", "-wal"):
            image = images / f"{done}.db{suffix}"
            if image.exists():
                shutil.copyfile(image, db.with_name(db.name + suffix))
        resumed = _run(scenario, db)
        differ = [key for key in expected if resumed.get(key) != expected[key]]
        differ += [table for table, rows in _rows(db).items() if rows != expected_rows[table]]
        if differ:
            last = f" ({run.names[done - 1]})" if done else ""
            wrong.append(f"killed after write {done}{last} of {total}: {', '.join(differ)} differ")
    assert not wrong, "\n".join(wrong)


def test_every_write_of_the_stores_is_in_the_sweep() -> None:
    """A new way of writing to the file must be listed in WRITES, or the sweep would miss it."""
    for cls in (Store, TableStore):
        public = {
            name
            for klass in cls.__mro__[:-1]  # inherited ones too (TableStore's open and close), not object's
            for name, member in vars(klass).items()
            if not name.startswith("_")
            and (inspect.iscoroutinefunction(member) or isinstance(member, classmethod))
        }
        assert public == set(WRITES[cls]) | set(READS[cls]), cls.__name__


def test_killed_at_any_write_of_a_week_resumes_exactly(tmp_path: Path) -> None:
    _sweep(WEEK, tmp_path)


def test_killed_at_any_write_of_a_thread_game_resumes_exactly(tmp_path: Path) -> None:
    _sweep(TABLES, tmp_path)


def test_most_commits_of_a_replay_are_an_action_row_alone(tmp_path: Path) -> None:
    """A row that records its scenario line (``source_line``) tells a resumed run as much as a progress
    mark, so a replay on a lasting file adds a mark only to the commits that record no line (ticks, a
    snapshot): an action's commit is its one row, with no transaction of its own around it. (The
    sweeps above show that resuming stays exact.)"""
    statements: list[str] = []

    async def traced() -> None:
        lines = read_scenario(WEEK, io.StringIO())
        stores = await open_stores(tmp_path / "traced.db", progress=ReplayProgress())
        writer = stores.round.writer.conn
        assert isinstance(writer, SqliteWriter)
        writer.connection.set_trace_callback(statements.append)
        try:
            await replay_run(
                stores.round, lines, seed=SEED, until=UNTIL[WEEK], table_store=stores.tables, library_store=stores.cards
            )
        finally:
            await stores.close()

    asyncio.run(traced())
    actions = sum(s.startswith("INSERT INTO actions") for s in statements)
    marks = sum(s.startswith("INSERT INTO replay_progress") for s in statements)
    transactions = statements.count("BEGIN IMMEDIATE")
    assert actions >= 40
    assert marks * 4 < actions, f"{marks} progress marks for {actions} actions"
    assert transactions * 2 < actions, f"{transactions} transactions of their own for {actions} actions"


def test_killed_at_writes_of_a_week_resumes_exactly_on_postgresql(
    tmp_path: Path, uninterrupted: dict[Path, tuple[dict[str, Any], dict[str, Any]]]
) -> None:
    """The sweep on PostgreSQL, whose database cannot be copied as a file: a run on a fresh database is
    stopped before write k + 1 (every later write dies), then resumed on it, for every k."""
    expected, expected_rows = uninterrupted[WEEK]
    with faults() as counted:
        _run(WEEK, tmp_path / "count.db")
    total = counted.done
    wrong: list[str] = []
    with postgres_databases(tmp_path) as dbs:
        for done in range(total + 1):
            db = dbs.new(f"k{done}")
            if done < total:
                with faults(done), pytest.raises(Killed):
                    _run(WEEK, db)
            else:
                _run(WEEK, db)
            resumed = _run(WEEK, db)
            differ = [key for key in expected if resumed.get(key) != expected[key]]
            differ += [table for table, found in _rows(db).items() if found != expected_rows[table]]
            if differ:
                wrong.append(f"killed after write {done} ({counted.names[done - 1] if done else ''}): {differ}")
    assert not wrong, "\n".join(wrong)


def test_a_refused_bid_stays_refused_after_a_kill_past_the_next_tick(dbs: Databases) -> None:
    """The case the sweep found: alice's bid on Saturday is refused (no auction yet); killed once
    Sunday's phase change committed, the resumed run must not replay her bid against Sunday's state."""
    whole = dbs.new("whole")
    expected = _run(WEEK, whole)
    sunday = datetime(2026, 12, 6, tzinfo=UTC).isoformat()
    before = rows(whole, f"SELECT COUNT(*) FROM actions WHERE at < '{sunday}'")[0][0]
    tick = rows(whole, f"SELECT seq FROM actions WHERE kind = 'tick' AND at = '{sunday}'")
    assert tick == [(before + 1,)], "Sunday's phase change is the write after the round's first lines"
    db = dbs.new("killed")
    with faults(before + 1), pytest.raises(Killed):
        _run(WEEK, db)
    resumed = _run(WEEK, db)
    logged = {row[2] for row in _rows(db)["actions"]}
    assert "msg:early-bid" not in logged, "alice's Saturday bid ran again, after Sunday's tick"
    assert resumed == expected
    assert _rows(db) == _rows(whole)


# --- real kills -------------------------------------------------------------------------------

_KILLER = textwrap.dedent(
    """
    import json, os, signal, sys
    from data.store import Store
    from data.table_store import TableStore
    from bot.cli import main

    survive = int(os.environ["KILL_AFTER_WRITES"])
    done = 0

    def guard(cls, name):
        original = getattr(cls, name, None)
        if original is None:
            return
        async def guarded(*args, **kwargs):
            global done
            result = await original(*args, **kwargs)
            done += 1
            if done >= survive:
                os.kill(os.getpid(), signal.SIGKILL)
            return result
        setattr(cls, name, guarded)

    classes = {"Store": Store, "TableStore": TableStore}
    for cls, names in json.loads(os.environ["STORE_WRITES"]).items():
        for name in names:
            guard(classes[cls], name)
    sys.exit(main(sys.argv[1:]))
    """
)
"""``python -m bot`` that kills itself (SIGKILL) right after the store's ``KILL_AFTER_WRITES``-th write."""


def _replay_command(scenario: Path, db: Path | str, state: Path) -> list[str]:
    until = UNTIL[scenario].isoformat().replace("+00:00", "Z")
    return ["replay", str(scenario), "--seed", SEED, "--db", str(db), "--state", str(state), "--until", until]


@pytest.fixture(scope="module")
def uninterrupted(tmp_path_factory: pytest.TempPathFactory) -> dict[Path, tuple[dict[str, Any], dict[str, Any]]]:
    """Each scenario's state document and action logs after a run never interrupted."""
    out = {}
    for scenario in (WEEK, TABLES):
        db = tmp_path_factory.mktemp("whole") / "whole.db"
        out[scenario] = (_run(scenario, db), _rows(db))
    return out


@pytest.mark.parametrize(("scenario", "survive"), [(WEEK, 12), (TABLES, 15)])
def test_sigkilled_replay_resumes_exactly(
    tmp_path: Path,
    dbs: Databases,
    uninterrupted: dict[Path, tuple[dict[str, Any], dict[str, Any]]],
    scenario: Path,
    survive: int,
) -> None:
    """Killed for real right after a write (week: 12 is Sunday's phase change), then the command again,
    on each engine."""
    db, state = dbs.new("killed"), tmp_path / "state.json"
    writes = json.dumps({cls.__name__: names for cls, names in WRITES.items()})
    env = {**os.environ, "KILL_AFTER_WRITES": str(survive), "STORE_WRITES": writes}
    killed = subprocess.run(
        [sys.executable, "-c", _KILLER, *_replay_command(scenario, db, state)],
        cwd=ROOT,
        env=env,
        timeout=120,
        capture_output=True,
        check=False,
    )
    assert killed.returncode == -9, killed.stderr.decode()
    assert not state.exists()
    resumed = subprocess.run(
        [sys.executable, "-m", "bot", *_replay_command(scenario, db, state)],
        cwd=ROOT,
        timeout=120,
        capture_output=True,
        check=False,
    )
    assert resumed.returncode == 0, resumed.stderr.decode()
    document, rows = uninterrupted[scenario]
    assert json.loads(state.read_text(encoding="utf-8")) == document
    assert _rows(db) == rows
