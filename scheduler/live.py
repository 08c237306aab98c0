"""Running scheduled work: catch-up to an instant, and live scheduling on APScheduler.

Jobs are never stored: at start each guild's next job is derived from its stored state, and
every boundary missed while the bot was down is applied first, in order, exactly once.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from datetime import datetime, timedelta

from games.nomic.service import Outcome, RoundService
from scheduler.clock import Clock
from scheduler.due import next_tick

log = logging.getLogger(__name__)

Announce = Callable[[str, datetime, Outcome], Awaitable[None]]
"""Called with the guild, the instant and the outcome of each tick applied."""
Work = Callable[[str, datetime], Awaitable[object]]
"""Applies (and announces) every scheduled work of a guild due by an instant: the round's and more."""
NextDue = Callable[[str], Awaitable[datetime | None]]
"""The instant of a guild's next scheduled work, derived from its stored state; None: nothing."""
Owns = Callable[[str], bool]
"""Whether this process acts for a guild now (``data.ownership``): a guild another process runs has no job here."""

MAX_CATCH_UP = 10_000
"""More boundaries than this in one catch-up means a broken clock, not downtime."""


async def catch_up(service: RoundService, guild: str, now: datetime) -> list[tuple[datetime, Outcome]]:
    """Apply, in order, every tick of ``guild`` due at or before ``now``; each with its instant.

    The next tick is read from the latest state (with the actions still being committed), so a
    tick another task has just queued is not tried again.
    """
    outcomes: list[tuple[datetime, Outcome]] = []
    stale_at: datetime | None = None
    for _ in range(MAX_CATCH_UP):
        state = await service.latest(guild)
        if state is None:
            break
        tick = next_tick(state)
        if tick.at > now:
            break
        outcome = await service.tick(guild, tick)
        if outcome.duplicate:
            # logged before by another process: this copy of the guild is stale (the guild moved here
            # from a process that acted for it). Read it again from the store and go on from there;
            # the same tick found logged twice means the store itself is behind: stop, never loop.
            if stale_at == tick.at:
                log.error("guild %s: the tick at %s is logged but not in its state", guild, tick.at.isoformat())
                break
            stale_at = tick.at
            service.forget(guild)
            continue
        outcomes.append((tick.at, outcome))
    else:
        log.error("guild %s: stopped catching up after %d ticks", guild, MAX_CATCH_UP)
    return outcomes


class LiveScheduler:
    """One date job per guild, re-armed after each run from the state it produced.

    By default a job applies the round's ticks. ``work`` and ``next_due`` widen that to all of a
    guild's scheduled work (the Discord adapter passes ``Router.due_work`` and ``Router.next_due``,
    so the round and the thread games' turn timers share one job, in time order). ``owns`` keeps the jobs
    to the guilds this process holds (a sharded bot): a guild it lost runs nothing here and is not re-armed.
    """

    def __init__(
        self,
        service: RoundService,
        clock: Clock,
        announce: Announce,
        *,
        work: Work | None = None,
        next_due: NextDue | None = None,
        owns: Owns | None = None,
    ) -> None:
        self._service = service
        self._owns = owns
        self._clock = clock
        self._announce = announce
        self._work = work
        self._next_due = next_due
        # APScheduler loads with the live scheduler alone: a replay or a console catches up on a virtual
        # clock and never pays for it
        from apscheduler.schedulers.asyncio import AsyncIOScheduler

        self._scheduler = AsyncIOScheduler(timezone="UTC")
        self._arming: dict[str, asyncio.Lock] = {}

    def start(self) -> None:
        self._scheduler.start()

    def shutdown(self) -> None:
        if self._scheduler.running:
            self._scheduler.shutdown(wait=False)

    async def resume(self, guilds: list[str]) -> None:
        """At start: catch every guild up, then arm its next job."""
        for guild in guilds:
            await self.run_due(guild)

    async def run_due(self, guild: str) -> None:
        """The guild's job: apply what is due, then arm the next job, even when announcing failed
        (the work was committed before it was announced; the guild's timer must not stop)."""
        if self._owns is not None and not self._owns(guild):
            self.disarm(guild)
            return
        try:
            if self._work is not None:
                await self._work(guild, self._clock.now())
            else:
                for at, outcome in await catch_up(self._service, guild, self._clock.now()):
                    await self._announce(guild, at, outcome)
        finally:
            await self.arm(guild)

    async def next_at(self, guild: str) -> datetime | None:
        if self._next_due is not None:
            return await self._next_due(guild)
        state = await self._service.state(guild)
        return next_tick(state).at if state is not None else None

    def armed_at(self, guild: str) -> datetime | None:
        """When the guild's job runs next (None: no job); for tests and logs."""
        job = self._scheduler.get_job(f"round:{guild}")
        trigger = getattr(job, "trigger", None) if job is not None else None
        run_date = getattr(trigger, "run_date", None)
        return run_date if isinstance(run_date, datetime) else None

    async def arm(self, guild: str) -> None:
        """Set the guild's one job to its next work, read from the store now.

        One arm at a time per guild: a command's re-arm and the job's own may overlap, and the one
        that read the store last must be the one that sets the job (an earlier reading may be stale).
        """
        async with self._arming.setdefault(guild, asyncio.Lock()):
            if self._owns is not None and not self._owns(guild):
                self.disarm(guild)
                return
            at = await self.next_at(guild)
            self.disarm(guild)  # also while stopped, where add_job only queues: keep one pending job a guild
            if at is None:
                return
            job = f"round:{guild}"
            from apscheduler.triggers.date import DateTrigger

            self._scheduler.add_job(
                self.run_due,
                trigger=DateTrigger(run_date=at + timedelta(milliseconds=1)),
                args=[guild],
                id=job,
                replace_existing=True,
                misfire_grace_time=None,
                coalesce=True,
            )

    def disarm(self, guild: str) -> None:
        """Remove the guild's job (the guild went to another process, or it has no work ahead)."""
        job = f"round:{guild}"
        if self._scheduler.get_job(job) is not None:
            self._scheduler.remove_job(job)
