"""``python -m bot replay --db``: a run killed part-way and started again ends like an uninterrupted one."""

from __future__ import annotations

import json
import os
import random
import signal
import sqlite3
import subprocess
import sys
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
START = datetime(2026, 12, 5, 9, tzinfo=UTC)  # a Saturday: the first Sunday grants 100 points
PLAYERS = [f"p{n}" for n in range(12)]
CARDS = [f"{r}{s}" for r in ("A", "2", "5", "9", "10", "K") for s in "SHCD"]


def iso(at: datetime) -> str:
    return at.isoformat().replace("+00:00", "Z")


def long_scenario(lines: int, seed: int = 1) -> list[dict]:
    """A busy fortnight and a half: joins, lots, bids, trades, hands, leaves and chatter."""
    rng = random.Random(seed)
    at = START
    out: list[dict] = [{"at": iso(at), "type": "setup", "admins": ["mod"]}]
    ids = iter(range(1, 10**9))

    def say(author: str, content: str, channel: str = "game-actions") -> None:
        out.append(
            {
                "at": iso(at),
                "type": "message",
                "id": f"m{next(ids)}",
                "channel": channel,
                "author": author,
                "content": content,
            }
        )

    for p in PLAYERS:
        at += timedelta(seconds=30)
        say(p, "!join")
    step = timedelta(days=17) / lines
    high: dict[int, int] = {}
    while len(out) < lines:
        before = at
        at += step * rng.uniform(0.5, 1.5)
        if at.weekday() == 3 and before.weekday() == 2:  # Thursday: the auction was settled
            high.clear()
        p = rng.choice(PLAYERS)
        q = rng.choice([x for x in PLAYERS if x != p])
        roll = rng.random()
        if roll < 0.30:
            lot = rng.randint(1, 6)
            high[lot] = high.get(lot, 0) + rng.randint(1, 4)
            say(p, f"!bid {lot} {high[lot]}", "auctions")
        elif roll < 0.36:
            say(p, "!generate")
        elif roll < 0.42:
            say("mod", f"!admin give @{p} {rng.randint(1, 40)} points " + " ".join(rng.choices(CARDS, k=3)))
        elif roll < 0.46:
            say("mod", f"!admin lot {rng.choice(CARDS)} {rng.choice(CARDS)}")
        elif roll < 0.56:
            say(p, f"!offer @{q} give {rng.randint(1, 30)} points for {rng.choice([*CARDS, 'nothing'])}")
        elif roll < 0.66:
            say(p, f"!{rng.choice(['accept', 'decline', 'cancel'])} {rng.randint(1, 60)}")
        elif roll < 0.72:
            say(p, "!present " + " ".join(rng.choices(CARDS, k=5)))
        elif roll < 0.76:
            say(p, rng.choice(["!inventory", "!lots", "!phase", "!trades"]), rng.choice(["auctions", "game-actions"]))
        elif roll < 0.765:
            out.append({"at": iso(at), "type": "leave", "user": p})
        elif roll < 0.80:
            say(p, "!join")
        elif roll < 0.82 and out[-1]["type"] == "message":
            out.append(dict(out[-1]))  # a redelivered event
        elif roll < 0.84:
            out.append(
                {"at": iso(at), "type": "react", "message": f"m{rng.randint(1, 5000)}", "user": p, "emoji": "👍"}
            )
        else:
            say(p, rng.choice(["gl hf", "anyone trading aces?", "!bid x y", "!nosuch", "!accept -1"]))
    return out


def _replay(scenario: Path, db: Path, state: Path, seed: str = "resume") -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [
            sys.executable,
            "-m",
            "bot",
            "replay",
            str(scenario),
            "--seed",
            seed,
            "--db",
            str(db),
            "--state",
            str(state),
            "--until",
            "2026-12-23T00:00:00Z",
        ],
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )


def _logged(db: Path) -> int:
    if not db.exists():
        return 0
    try:
        conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=0.2)
        try:
            return int(conn.execute("SELECT COUNT(*) FROM actions").fetchone()[0])
        finally:
            conn.close()
    except sqlite3.Error:
        return 0


def _kill_after(proc: subprocess.Popen[bytes], db: Path, actions: int, limit: float = 60.0) -> bool:
    """SIGKILL the run once ``actions`` rows are committed; False when it finished first."""
    deadline = time.monotonic() + limit
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            return False
        if _logged(db) >= actions:
            os.kill(proc.pid, signal.SIGKILL)
            proc.wait()
            return True
        time.sleep(0.01)
    proc.kill()
    proc.wait()
    pytest.fail("the replay made no progress")


def _finish(proc: subprocess.Popen[bytes]) -> None:
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == 0, err.decode()


@pytest.fixture(scope="module")
def scenario(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("resume") / "long.jsonl"
    lines = long_scenario(2500)
    path.write_text("".join(json.dumps(line, ensure_ascii=False) + "\n" for line in lines), encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def uninterrupted(scenario: Path, tmp_path_factory: pytest.TempPathFactory) -> dict:
    out = tmp_path_factory.mktemp("whole")
    proc = _replay(scenario, out / "whole.db", out / "state.json")
    _finish(proc)
    doc = json.loads((out / "state.json").read_text(encoding="utf-8"))
    total = _logged(out / "whole.db")
    assert total > 500, "the scenario should commit many actions"
    return {"doc": doc, "actions": total}


def test_uninterrupted_run_covers_weeks(uninterrupted: dict) -> None:
    doc = uninterrupted["doc"]
    assert doc["now"] == "2026-12-23T00:00:00Z"
    assert doc["players"]
    assert any(p["cards"] for p in doc["players"].values())


@pytest.mark.parametrize("fractions", [(0.3,), (0.15, 0.55, 0.9)])
def test_killed_and_restarted_run_ends_in_the_same_state(
    scenario: Path, uninterrupted: dict, tmp_path: Path, fractions: tuple[float, ...]
) -> None:
    db, state = tmp_path / "resumed.db", tmp_path / "state.json"
    kills = 0
    for fraction in fractions:
        proc = _replay(scenario, db, state)
        if not _kill_after(proc, db, int(uninterrupted["actions"] * fraction)):
            break  # it finished first
        kills += 1
        assert not state.exists(), "a killed run writes no state document"
    assert kills >= 1, "the run finished before it could be killed"
    _finish(_replay(scenario, db, state))
    resumed = json.loads(state.read_text(encoding="utf-8"))
    expected = uninterrupted["doc"]
    assert resumed.keys() == expected.keys()
    for key in expected:
        assert resumed[key] == expected[key], key
    assert _logged(db) == uninterrupted["actions"]


def test_rerun_of_a_finished_run_changes_nothing(scenario: Path, uninterrupted: dict, tmp_path: Path) -> None:
    db, state = tmp_path / "twice.db", tmp_path / "state.json"
    _finish(_replay(scenario, db, state))
    first = json.loads(state.read_text(encoding="utf-8"))
    _finish(_replay(scenario, db, state))
    assert json.loads(state.read_text(encoding="utf-8")) == first == uninterrupted["doc"]
    assert _logged(db) == uninterrupted["actions"]
