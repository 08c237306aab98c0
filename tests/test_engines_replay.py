"""Every scenario replays with ``--db`` on both engines and ends as it does on a throwaway SQLite file;
a second run on the same database resumes after the last line and changes nothing."""

from __future__ import annotations

import asyncio
import io
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from bot.sim.replay import ReplayResult, read_scenario, replay
from tests.engines import Databases, rows

ROOT = Path(__file__).resolve().parents[1]
SCENARIOS = sorted((Path(__file__).parent / "scenarios").glob("*.jsonl"))
SEED = "7"


def _replay(scenario: Path, db: str | None) -> ReplayResult:
    lines = read_scenario(scenario, io.StringIO())
    return asyncio.run(replay(lines, seed=SEED, db=db))


@pytest.fixture(scope="module")
def reference() -> dict[Path, ReplayResult]:
    """Each scenario on a temporary SQLite file, as ``replay`` without ``--db`` runs it."""
    return {}


def _expected(reference: dict[Path, ReplayResult], scenario: Path) -> ReplayResult:
    if scenario not in reference:
        reference[scenario] = _replay(scenario, None)
    return reference[scenario]


def _logs(db: str) -> dict[str, list[tuple[Any, ...]]]:
    return {
        "actions": rows(
            db, "SELECT guild_id, seq, event_id, at, actor, kind, body FROM actions ORDER BY guild_id, seq"
        ),
        "table_actions": rows(
            db,
            "SELECT guild_id, table_name, seq, event_id, kind, body FROM table_actions"
            " ORDER BY guild_id, table_name, seq",
        ),
        "card_actions": rows(db, "SELECT guild_id, seq, event_id, kind, body FROM card_actions ORDER BY guild_id, seq"),
    }


@pytest.mark.parametrize("scenario", SCENARIOS, ids=[s.stem for s in SCENARIOS])
def test_scenario_on_each_engine_ends_as_on_a_throwaway_file(
    scenario: Path, dbs: Databases, reference: dict[Path, ReplayResult]
) -> None:
    expected = _expected(reference, scenario)
    db = dbs.new(scenario.stem)
    first = _replay(scenario, db)
    assert first.document == expected.document
    assert first.transcript == expected.transcript
    logged = _logs(db)
    assert logged["actions"], "the scenario logged actions"
    again = _replay(scenario, db)
    assert again.skipped == len(read_scenario(scenario, io.StringIO())), "the second run resumed after the last line"
    assert again.document == expected.document
    assert _logs(db) == logged


def test_the_command_line_replays_onto_a_postgresql_url(tmp_path: Path, dbs: Databases) -> None:
    """``python -m bot replay --db URL`` (and a path, and ``sqlite:///``) write the same state document."""
    scenario = ROOT / "tests" / "scenarios" / "week.jsonl"
    db = dbs.new("cli")
    if dbs.engine == "sqlite":
        db = f"sqlite:///{db}"
    state = tmp_path / "state.json"
    done = subprocess.run(
        [sys.executable, "-m", "bot", "replay", str(scenario), "--seed", SEED, "--db", db, "--state", str(state)],
        cwd=ROOT,
        capture_output=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr.decode()
    assert json.loads(state.read_text(encoding="utf-8")) == _replay(scenario, None).document
    assert "password" not in done.stderr.decode()
