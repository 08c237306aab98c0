"""Exactly once across processes: what the action log's unique (guild, event id) guarantees when a guild
moves from one process to another, and what a process whose copy of the guild went stale does.

Two services on two connections to one file stand for two processes (the lock keeps them from acting
for one guild at once; these tests show what holds in the window where it could not).
"""

from __future__ import annotations

import sqlite3
import time
from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from data.store import Store
from games.nomic.actions import Join, StartRound
from games.nomic.context import ChannelRole, Context
from games.nomic.ruleset import load_ruleset
from games.nomic.service import RoundService
from scheduler.due import opening
from scheduler.live import catch_up

FRIDAY = datetime(2026, 12, 4, 12, tzinfo=UTC)
GUILD = "4194304000"


@pytest.fixture
async def two(tmp_path: Path) -> AsyncIterator[tuple[RoundService, RoundService, Path]]:
    path = tmp_path / "shared.db"
    first = await Store.open(path, synchronous="NORMAL")
    second = await Store.open(path, synchronous="NORMAL")
    a, b = RoundService(first), RoundService(second)
    ruleset = load_ruleset("default")
    phase, presenting = opening(ruleset, FRIDAY)
    setup = Context(actor="setup", actor_name="setup", channel=ChannelRole.OTHER, at=FRIDAY, event_id="setup")
    await a.start(GUILD, setup, StartRound(ruleset=ruleset, phase=phase, presenting_open=presenting))
    try:
        yield a, b, path
    finally:
        await first.close()
        await second.close()


def logged(path: Path) -> list[tuple[int, str]]:
    with sqlite3.connect(path) as conn:
        return [(int(s), str(e)) for s, e in conn.execute("SELECT seq, event_id FROM actions ORDER BY seq")]


async def test_a_stale_process_catching_up_applies_nothing_twice_and_stops_at_once(
    two: tuple[RoundService, RoundService, Path],
) -> None:
    """The second process read the guild before the first applied Sunday's ticks: its catch-up finds
    them logged, reads the guild again and stops (it used to retry the same tick 10,000 times)."""
    a, b, path = two
    await b.state(GUILD)  # cached before the first process moved on
    sunday = FRIDAY + timedelta(days=2, hours=1)
    applied = await catch_up(a, GUILD, sunday)
    assert applied
    before = logged(path)
    started = time.perf_counter()
    again = await catch_up(b, GUILD, sunday)
    assert time.perf_counter() - started < 5
    assert [o for _, o in again if not o.duplicate] == []
    assert len(again) <= 1
    assert logged(path) == before  # every tick once
    state_a, state_b = await a.state(GUILD), await b.state(GUILD)
    assert state_a is not None
    assert state_b is not None
    assert state_b.seq == state_a.seq
    assert state_b.clock == state_a.clock


async def test_a_redelivered_event_is_logged_once_whichever_process_gets_it(
    two: tuple[RoundService, RoundService, Path],
) -> None:
    a, b, path = two
    ctx = Context(actor="alice", actor_name="alice", channel=ChannelRole.GAME_ACTIONS, at=FRIDAY, event_id="msg:1")
    assert (await a.act(GUILD, ctx, Join())).accepted
    again = await b.act(GUILD, ctx, Join())  # the other process reads the guild (fresh) and meets the event
    assert again.duplicate
    assert [event for _, event in logged(path)].count("msg:1") == 1
