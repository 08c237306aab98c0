"""Two bot processes, one store, the shards split between them: one is killed with SIGKILL in the
middle of a busy week and the other takes its guilds over with nothing lost and nothing applied twice.

The processes are ``python -m bot shard-sim`` (the bot without Discord, on a virtual clock); the store
and the guilds' locks (advisory locks) are one real PostgreSQL database (tests/pg_support.py). Everything
is asserted from the store afterwards, against the same script played by one process uninterrupted (on
SQLite):
every action a process acknowledged is in the log once, each guild's log (scheduled ticks included)
is the uninterrupted run's, step for step, and so are the state documents.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
import urllib.request
from collections import Counter
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest

from bot.shards import shard_of
from bot.sim.shards import documents
from data.stores import open_stores
from tests.engines import rows
from tests.pg_support import pg_db, pg_url  # noqa: F401 - the fixtures

ROOT = Path(__file__).resolve().parent.parent
WEEK = ROOT / "tests" / "scenarios" / "week.jsonl"
UNTIL = "2026-12-14T00:00:00Z"
GUILDS = 10
TIMEOUT = 120
MONDAY_LAST = "2026-12-07T00:00:04+00:00"
"""The instant of the week's last line before Thursday."""
THURSDAY_NEXT = "2026-12-10T01:00:00+00:00"
"""The instant of the week's first line after the auction's settlement."""


def guild_ids(count: int) -> list[str]:
    """Snowflake-like ids whose shard (of 2) alternates: (id >> 22) % 2."""
    return [str(((7000 + i) << 22) + 17 * i) for i in range(count)]


def write_script(path: Path, guilds: list[str]) -> None:
    """Every guild plays the week scenario; the lines of all guilds interleaved in time order."""
    week = [json.loads(line) for line in WEEK.read_text(encoding="utf-8").splitlines() if line.strip()]
    lines = [{**line, "guild": guild} for guild in guilds for line in week]
    lines.sort(key=lambda line: line["at"])
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")


def sim(*args: str) -> list[str]:
    return [sys.executable, "-m", "bot", "shard-sim", *args]


def spawn(*args: str, env: dict[str, str] | None = None) -> subprocess.Popen[str]:
    return subprocess.Popen(
        sim(*args), cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, encoding="utf-8", env=env
    )


def events(text: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in text.splitlines() if line.strip()]


def log_of(db: Path | str) -> dict[str, list[tuple[int, str, str]]]:
    """Each guild's action log: (seq, event id, kind) in order."""
    out: dict[str, list[tuple[int, str, str]]] = {}
    query = "SELECT guild_id, seq, event_id, kind FROM actions ORDER BY guild_id, seq"
    for guild, seq, event, kind in rows(str(db), query):
        out.setdefault(str(guild), []).append((int(seq), str(event), str(kind)))
    return out


async def docs(db: Path | str, guilds: list[str]) -> dict[str, dict[str, Any]]:
    stores = await open_stores(db)
    try:
        return await documents(stores, guilds, datetime.fromisoformat(UTC_UNTIL))
    finally:
        await stores.close()


UTC_UNTIL = UNTIL.replace("Z", "+00:00")


@pytest.fixture
def busy(tmp_path: Path) -> tuple[Path, list[str], Path]:
    """The script, its guilds and the store of one process that played it uninterrupted."""
    guilds = guild_ids(GUILDS)
    assert {shard_of(g, 2) for g in guilds} == {0, 1}
    script = tmp_path / "week.jsonl"
    write_script(script, guilds)
    reference = tmp_path / "reference.db"
    done = subprocess.run(
        sim("--script", str(script), "--db", str(reference), "--until", UNTIL),
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return script, guilds, reference


def read_acks_until(proc: subprocess.Popen[str], enough: int) -> list[dict[str, Any]]:
    """A process's reports, read as it writes them, until it acknowledged ``enough`` lines (or ended)."""
    assert proc.stdout is not None
    seen: list[dict[str, Any]] = []
    acks = 0
    deadline = time.monotonic() + TIMEOUT
    while acks < enough and time.monotonic() < deadline:
        raw = proc.stdout.readline()
        if not raw:
            break
        entry = json.loads(raw)
        seen.append(entry)
        acks += entry["event"] == "ack"
    return seen


def read_until_finished(proc: subprocess.Popen[str], guilds: int, event: str = "finished") -> list[dict[str, Any]]:
    """A process's reports until it finished (or holds, hanging) ``guilds`` guilds."""
    assert proc.stdout is not None
    seen: list[dict[str, Any]] = []
    while sum(e["event"] == event for e in seen) < guilds:
        raw = proc.stdout.readline()
        assert raw, "the process ended early"
        seen.append(json.loads(raw))
    return seen


def kill(proc: subprocess.Popen[str]) -> list[dict[str, Any]]:
    """SIGKILL, then what it had written before dying (acknowledged all the same)."""
    proc.send_signal(signal.SIGKILL)
    out, _ = proc.communicate(timeout=TIMEOUT)
    assert proc.returncode == -signal.SIGKILL
    return events(out)


async def assert_as_uninterrupted(
    shared: str, reference: Path, guilds: list[str], acked: list[dict[str, Any]]
) -> None:
    got, want = log_of(shared), log_of(reference)
    assert sorted(got) == sorted(guilds)
    for guild in guilds:
        # the same steps in the same order: nothing lost, nothing applied twice, every tick once
        assert got[guild] == want[guild], guild
        ticks = [event for _, event, kind in got[guild] if kind == "tick"]
        assert ticks, guild
        assert len(ticks) == len(set(ticks)), guild
    counts = Counter((guild, event) for guild, rows in got.items() for _, event, _ in rows)
    expected = {(guild, event) for guild, rows in want.items() for _, event, _ in rows}
    for entry in acked:
        if entry["event"] != "ack" or entry["id"] is None:
            continue
        key = (entry["guild"], entry["id"])
        if key in expected:  # an acknowledged action (not a refusal or a question): logged exactly once
            assert counts[key] == 1, key
    assert await docs(shared, guilds) == await docs(reference, guilds)


async def test_a_process_killed_mid_week_is_taken_over_with_nothing_lost_or_doubled(
    busy: tuple[Path, list[str], Path],
    pg_db: str,  # noqa: F811
) -> None:
    script, guilds, reference = busy
    shared = pg_db
    common = ("--script", str(script), "--db", shared, "--shard-count", "2", "--until", UNTIL)
    first = spawn(*common, "--shard-ids", "0")
    seen = read_acks_until(first, 5)  # the first process holds its guilds before the second starts
    second = spawn(*common, "--shard-ids", "1", "--take-over")
    mine = [g for g in guilds if shard_of(g, 2) == 0]
    lines_of_first = sum(1 for line in script.read_text().splitlines() if json.loads(line)["guild"] in mine)
    seen += read_acks_until(first, lines_of_first * 2 // 5)
    seen += kill(first)
    acked_first = [e for e in seen if e["event"] == "ack"]
    assert 0 < len(acked_first) < lines_of_first, "killed in the middle of the week"
    out, err = second.communicate(timeout=TIMEOUT)
    assert second.returncode == 0, err
    reports = events(out)
    done = next(e for e in reports if e["event"] == "done")
    assert sorted(done["played"]) == sorted(guilds)
    taken = {e["guild"] for e in reports if e["event"] == "resumed" and e["orphan"]}
    assert taken == set(mine)  # every guild of the dead process was taken over, after its last finished line
    await assert_as_uninterrupted(shared, reference, guilds, acked_first + reports)


async def test_a_process_that_stops_answering_loses_its_guilds_to_another_after_its_lease(
    busy: tuple[Path, list[str], Path],
    pg_db: str,  # noqa: F811
) -> None:
    """SIGSTOP in the middle of the week: the stopped process's connections stay open and it renews
    nothing, so the server ends its lock connection (and any commit it left open) a lease later and the
    other process takes its guilds over (it used to wait for them for ever). Resumed, the stopped
    process finds them gone and writes nothing more: the store is the uninterrupted run's."""
    script, guilds, reference = busy
    lease = {**os.environ, "GUILD_LEASE_SECONDS": "3"}
    common = ("--script", str(script), "--db", pg_db, "--shard-count", "2", "--until", UNTIL)
    first = spawn(*common, "--shard-ids", "0", env=lease)
    mine = [g for g in guilds if shard_of(g, 2) == 0]
    lines_of_first = sum(1 for line in script.read_text().splitlines() if json.loads(line)["guild"] in mine)
    seen = read_acks_until(first, lines_of_first * 2 // 5)
    first.send_signal(signal.SIGSTOP)
    try:
        second = spawn(*common, "--shard-ids", "1", "--take-over", env=lease)
        out, err = second.communicate(timeout=TIMEOUT)
    finally:
        first.send_signal(signal.SIGCONT)
    assert second.returncode == 0, err
    reports = events(out)
    done = next(e for e in reports if e["event"] == "done")
    assert sorted(done["played"]) == sorted(guilds)
    assert {e["guild"] for e in reports if e["event"] == "resumed" and e["orphan"]} == set(mine)
    rest, err_first = first.communicate(timeout=TIMEOUT)
    assert first.returncode == 5, err_first  # it stopped acting for its guilds, without a traceback
    seen += events(rest)
    assert {e["guild"] for e in seen if e["event"] == "lost"} == set(mine)
    await assert_as_uninterrupted(pg_db, reference, guilds, seen + reports)


async def test_a_guild_taken_over_catches_up_the_phase_change_it_missed_once(
    busy: tuple[Path, list[str], Path],
    pg_db: str,  # noqa: F811
) -> None:
    """The first process hangs on Wednesday (its guilds' Thursday settlement not applied) and is killed;
    the second applies each one's settlement once, through the start-up catch-up, before their next line."""
    script, guilds, reference = busy
    shared = pg_db
    common = ("--script", str(script), "--db", shared, "--shard-count", "2", "--until", UNTIL)
    first = spawn(*common, "--shard-ids", "0", "--stop-at", "2026-12-09T12:00:00Z")
    mine = [g for g in guilds if shard_of(g, 2) == 0]
    seen = read_until_finished(first, len(mine), "holding")  # then it hangs, holding its locks
    holding = {e["guild"] for e in seen if e["event"] == "holding"}
    assert holding == set(mine)
    second = spawn(*common, "--shard-ids", "1", "--take-over")
    own = read_until_finished(second, len(guilds) - len(mine))
    # its own guilds played through; the first process's are held: not one line of theirs was played
    assert not [e for e in own if e.get("guild") in mine]
    seen += kill(first)
    out, err = second.communicate(timeout=TIMEOUT)
    assert second.returncode == 0, err
    reports = own + events(out)
    resumed = {e["guild"]: e for e in reports if e["event"] == "resumed"}
    assert set(resumed) == set(mine)
    reference_log = log_of(reference)
    for guild in mine:
        # every tick due between the last line the first process finished (Monday) and the next line
        # (Thursday 01:00), the auction's settlement among them: applied by the catch-up, once
        missed = [
            event
            for _, event, kind in reference_log[guild]
            if kind == "tick" and MONDAY_LAST < event.removeprefix("tick:") <= THURSDAY_NEXT
        ]
        assert "tick:2026-12-10T00:00:00+00:00" in missed
        assert resumed[guild]["caught_up"] == len(missed), (resumed[guild], missed)
    await assert_as_uninterrupted(shared, reference, guilds, seen + reports)


async def test_a_process_without_take_over_leaves_guilds_held_elsewhere_alone(
    busy: tuple[Path, list[str], Path],
    pg_db: str,  # noqa: F811
) -> None:
    script, guilds, _ = busy
    common = ("--script", str(script), "--db", pg_db, "--shard-count", "2")
    first = spawn(*common, "--shard-ids", "0", "--stop-at", "2026-12-06T00:00:00Z", "--health-port", "0")
    mine = [g for g in guilds if shard_of(g, 2) == 0]
    seen = read_until_finished(first, len(mine), "holding")
    url = next(e["url"] for e in seen if e["event"] == "health")
    with urllib.request.urlopen(url, timeout=10) as response:  # noqa: S310 - our own process, on 127.0.0.1
        assert response.status == 200
        report = json.loads(response.read())
    assert report["status"] == "ok"
    assert report["shards"] == {"ids": [0], "count": 2}
    assert report["guilds_owned"] == len(mine)
    assert report["last_commit"] is not None
    try:
        # a second process configured for the same shard: it must not act for the guilds
        second = subprocess.run(
            sim(*common, "--shard-ids", "0"), cwd=ROOT, capture_output=True, text=True, timeout=TIMEOUT, check=False
        )
    finally:
        kill(first)
    assert second.returncode == 5
    reports = events(second.stdout)
    assert {e["guild"] for e in reports if e["event"] == "elsewhere"} == {g for g in guilds if shard_of(g, 2) == 0}
    assert not [e for e in reports if e["event"] == "ack"]
    assert "run by another process" in second.stderr


def test_the_script_names_each_line_s_guild(tmp_path: Path) -> None:
    script = tmp_path / "bad.jsonl"
    script.write_text(
        '{"at": "2026-12-05T12:00:00Z", "type": "setup"}\n'
        '{"guild": "1", "at": "2026-12-05T12:00:00Z", "type": "setup"}\n',
        encoding="utf-8",
    )
    done = subprocess.run(
        sim("--script", str(script), "--db", str(tmp_path / "s.db")),
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert "line 1: skipped: a line names its guild" in done.stderr
    assert events(done.stdout)[-1] == {"event": "done", "played": ["1"]}
