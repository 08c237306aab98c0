"""A game's 10-second deadline on the live scheduler (scheduler/live.py): the guild's one APScheduler job
is armed at the table's deadline, re-armed after every move and every run (earlier or later), and
firing it applies the timeout exactly once, also when a stale job fires or the bot restarts."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any, cast

import pytest

from bot.router import Post, Router
from data.store import Store
from data.table_store import TableStore
from games.nomic.service import RoundService
from games.tables.registry import register, unregister
from games.tables.service import Actor, TableService
from scheduler.clock import Clock, RealClock, VirtualClock
from scheduler.live import LiveScheduler

from .ballot_game import BALLOT

G = "g1"
T0 = datetime(2026, 12, 7, 9, 0, tzinfo=UTC)
MS = timedelta(milliseconds=1)
ALICE, BOB, CAROL = Actor("alice", "alice"), Actor("bob", "bob"), Actor("carol", "carol")


@pytest.fixture(autouse=True)
def ballot_registered() -> Iterator[None]:
    register(BALLOT)
    yield
    unregister(BALLOT.name)


@dataclass
class Bot:
    """What the live scheduler drives: the router on a store, and every post its runs made."""

    router: Router
    tables: TableService
    store: TableStore
    round_store: Store
    scheduler: LiveScheduler
    posts: list[Post]

    def said(self, text: str) -> list[Post]:
        return [p for p in self.posts if text in p.text]

    async def timeouts(self, table: str) -> list[str]:
        """The timeout actions in the table's log (their clock keys)."""
        log = await self.store.log(G, table)
        return [json.loads(e.body)["key"] for e in log if e.kind == "timeout"]


async def _bot(path: Path, clock: Clock) -> Bot:
    store = await Store.open(path)
    table_store = await TableStore.open(path)
    tables = TableService(table_store, seed="1")
    router = Router(RoundService(store), tables)
    posts: list[Post] = []

    async def work(guild: str, now: datetime) -> None:
        posts.extend(await router.due_work(guild, now))

    async def announce(*args: object) -> None:
        raise AssertionError("the round-only path is not used when work is given")

    scheduler = LiveScheduler(router.service, clock, announce, work=work, next_due=router.next_due)
    return Bot(router, tables, table_store, store, scheduler, posts)


async def _close(bot: Bot) -> None:
    bot.scheduler.shutdown()
    await bot.store.close()
    await bot.round_store.close()


@pytest.fixture
async def virtual(tmp_path: Path) -> AsyncIterator[tuple[Bot, VirtualClock]]:
    clock = VirtualClock(T0)
    bot = await _bot(tmp_path / "live.db", clock)
    yield bot, clock
    await _close(bot)


async def say(bot: Bot, actor: Actor, text: str, at: datetime, thread: str | None = None) -> None:
    """A command as an adapter sends it, followed by the re-arm every adapter does after a command."""
    event = f"{actor.id}:{text}:{at.isoformat()}"
    posts = await bot.tables.command(G, actor, text, at=at, event_id=event, thread=thread, private=True)
    assert posts is not None
    assert not [p for p in posts if p.error], [p.text for p in posts]
    await bot.scheduler.arm(G)


async def three_voters(bot: Bot, at: datetime, options: str, table: str) -> None:
    await say(bot, ALICE, f"!play ballot {options}", at)
    await say(bot, BOB, "!join", at, table)
    await say(bot, CAROL, "!join", at, table)
    await say(bot, ALICE, "!start", at, table)


async def fire(bot: Bot, clock: VirtualClock, at: datetime) -> None:
    """The guild's job runs at ``at`` (what APScheduler calls: ``run_due``), on the virtual clock."""
    clock.set(at)
    await bot.scheduler.run_due(G)


async def test_the_job_is_armed_at_a_ten_second_deadline_and_follows_moves_earlier_and_later(
    virtual: tuple[Bot, VirtualClock],
) -> None:
    bot, clock = virtual
    await three_voters(bot, T0, "rounds:3 seconds:60", "ballot-1")
    assert bot.scheduler.armed_at(G) == T0 + timedelta(seconds=60) + MS

    # a second table with the default 10-second vote: the guild's one job moves earlier
    await three_voters(bot, T0 + timedelta(seconds=5), "rounds:3", "ballot-2")
    assert bot.scheduler.armed_at(G) == T0 + timedelta(seconds=15) + MS
    stale = bot.scheduler.armed_at(G)
    assert stale is not None

    # every vote of round 1 is in: the reveal starts round 2's 10 seconds; the job moves later
    for actor in (ALICE, BOB, CAROL):
        await say(bot, actor, "!vote A", T0 + timedelta(seconds=8), "ballot-2")
    assert len(bot.said("Round 1, the votes")) == 0, "a move's posts are its own; the job has not run"
    assert bot.scheduler.armed_at(G) == T0 + timedelta(seconds=18) + MS

    # the job armed before the move fires anyway (already submitted): it finds nothing due
    before = await bot.tables.find(G, "ballot-2")
    await fire(bot, clock, stale)
    assert bot.posts == []
    assert await bot.tables.find(G, "ballot-2") == before
    assert bot.scheduler.armed_at(G) == T0 + timedelta(seconds=18) + MS

    # at its run time the job applies round 2's deadline, once, and re-arms for round 3
    await fire(bot, clock, T0 + timedelta(seconds=18) + MS)
    assert len(bot.said("Round 2, the votes")) == 1
    assert bot.scheduler.armed_at(G) == T0 + timedelta(seconds=28) + MS
    await fire(bot, clock, T0 + timedelta(seconds=18) + MS)  # fired twice at the same instant
    assert len(bot.said("Round 2, the votes")) == 1
    assert await bot.timeouts("ballot-2") == ["vote:2"]
    assert await bot.timeouts("ballot-1") == []


async def test_a_restart_rearms_from_the_store_and_applies_a_deadline_missed_while_down_once(tmp_path: Path) -> None:
    clock = VirtualClock(T0)
    bot = await _bot(tmp_path / "live.db", clock)
    try:
        await three_voters(bot, T0, "rounds:2 seconds:60", "ballot-1")
        await three_voters(bot, T0 + timedelta(seconds=5), "rounds:2", "ballot-2")
        await say(bot, ALICE, "!vote B", T0 + timedelta(seconds=6), "ballot-2")
        assert bot.scheduler.armed_at(G) == T0 + timedelta(seconds=15) + MS
    finally:
        await _close(bot)

    clock.set(T0 + timedelta(seconds=40))  # down through ballot-2's rounds 1 and 2
    again = await _bot(tmp_path / "live.db", clock)
    try:
        assert again.scheduler.armed_at(G) is None
        await again.scheduler.resume(await again.tables.guilds())
        assert [p.at for p in again.said("Round 1, the votes")] == [T0 + timedelta(seconds=15)]
        assert [p.at for p in again.said("Round 2, the votes")] == [T0 + timedelta(seconds=25)]
        assert "alice B" in again.said("Round 1, the votes")[0].text, "the vote cast before the restart counts"
        assert again.scheduler.armed_at(G) == T0 + timedelta(seconds=60) + MS, "ballot-1's deadline is next"
        await again.scheduler.resume([G])
        assert len(again.said("Round 1, the votes")) == 1
        assert await again.timeouts("ballot-2") == ["vote:1", "vote:2"]
    finally:
        await _close(again)


async def test_the_real_scheduler_fires_a_deadline_seconds_away_once(tmp_path: Path) -> None:
    """On the wall clock: the table started 9.7 s ago, so its 10-second vote ends in about 0.3 s.

    Nothing here measures time: the wait is a guard against a hang, however slow the machine."""
    bot = await _bot(tmp_path / "live.db", RealClock())
    try:
        started = datetime.now(UTC) - timedelta(seconds=9.7)
        await three_voters(bot, started, "rounds:2", "ballot-1")
        found = await bot.tables.find(G, "ballot-1")
        assert found is not None
        assert found.deadline == started + timedelta(seconds=10)
        assert bot.scheduler.armed_at(G) == found.deadline + MS
        bot.scheduler.start()
        rearmed = found.deadline + timedelta(seconds=10) + MS
        for _ in range(3000):  # at most 30 s; the job posts first and re-arms after, on a busy machine later
            if bot.said("Round 1, the votes") and bot.scheduler.armed_at(G) == rearmed:
                break
            await asyncio.sleep(0.01)
        assert len(bot.said("Round 1, the votes")) == 1
        assert bot.said("Round 1, the votes")[0].at == found.deadline
        assert bot.scheduler.armed_at(G) == rearmed, "re-armed for round 2"
        await bot.scheduler.run_due(G)  # a second run right after: nothing more is due
        assert len(bot.said("Round 1, the votes")) == 1
        assert await bot.timeouts("ballot-1") == ["vote:1"]
    finally:
        await _close(bot)


async def test_the_last_arm_wins_when_two_overlap() -> None:
    """A command's re-arm and the job's own re-arm may overlap: the one that read the store last sets the job."""
    first_read = asyncio.Event()
    release = asyncio.Event()
    answers = [T0 + timedelta(seconds=30), T0 + timedelta(seconds=10)]
    calls = 0

    async def next_due(guild: str) -> datetime | None:
        nonlocal calls
        calls += 1
        answer = answers[calls - 1]
        if calls == 1:  # read before a move made the deadline sooner, and slow to come back
            first_read.set()
            await release.wait()
        return answer

    async def work(guild: str, now: datetime) -> None:
        return None

    scheduler = LiveScheduler(cast(Any, None), VirtualClock(T0), cast(Any, None), work=work, next_due=next_due)
    slow = asyncio.create_task(scheduler.arm(G))
    await first_read.wait()
    fresh = asyncio.create_task(scheduler.arm(G))
    await asyncio.sleep(0)
    release.set()
    await asyncio.gather(slow, fresh)
    assert scheduler.armed_at(G) == T0 + timedelta(seconds=10) + MS


async def test_a_run_whose_announcements_fail_still_rearms() -> None:
    """The work was applied (and committed) before posting failed: the next deadline must still fire."""
    due = [T0 + timedelta(seconds=20)]

    async def work(guild: str, now: datetime) -> None:
        raise RuntimeError("Discord would not take the post")

    async def next_due(guild: str) -> datetime | None:
        return due[0]

    scheduler = LiveScheduler(cast(Any, None), VirtualClock(T0), cast(Any, None), work=work, next_due=next_due)
    with pytest.raises(RuntimeError):
        await scheduler.run_due(G)
    assert scheduler.armed_at(G) == T0 + timedelta(seconds=20) + MS
