"""``python -m bot shard-sim``: one process of a sharded deployment, headless, on a virtual clock.

It plays a script of many guilds' scenario lines (the simulator contract's lines, each with a
``guild``) for the guilds its shards own, each guild on its own virtual clock, as the Discord
adapter would act for them: it takes the guild's lock first (``data.ownership``), stops acting for
a guild whose lock it lost, and with ``--take-over`` waits for the locks of the other shards'
guilds and takes each over when it frees (the process that held it stopped or died). A guild taken
over (or met again after a restart) resumes exactly after the last line finished there, through the
same resume as ``replay --db``, and its missed scheduled work is caught up first through the same
path as the bot's start (``Router.due_work``); idempotence on (guild, event id) and the state's clock
make both exactly once.

It tells what it does on standard output, one JSON object a line, for the tests and operators that
watch it: ``owned`` (the guilds of its shards), ``elsewhere`` (a guild another process holds),
``resumed`` (a guild met part-way: where it resumed, what the catch-up applied), ``ack`` (a line
finished and, when it was an action, committed), ``finished`` (a guild's script is over), ``lost``
(a guild's lock went away: it stops acting for it) and ``done``. Log lines go to standard error.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import IO, Any

from pydantic import ValidationError

from bot.health import Health, HealthServer
from bot.logs import acting_for
from bot.router import Router
from bot.shards import ShardPlan, shard_of
from bot.sim.statedoc import guild_document
from bot.sim.world import Line, MessageLine, World, describe_error, iso, read_line
from bot.web.desk import WebDesk
from data.base import LEASE_SECONDS, OwnedElsewhereError, ReplayProgress, Target
from data.ownership import GuildOwnership, fence_of, open_ownership
from data.stores import Stores, open_stores
from games.ictc.service import LibraryService
from games.nomic.service import RoundService
from games.tables.service import TableService

log = logging.getLogger(__name__)

EXIT_LOST = 5
"""Some guild of this process's shards was held elsewhere (without ``--take-over``) or its lock was lost."""
POLL_SECONDS = 0.05
"""How often a process waiting to take a guild over asks for its lock (wall-clock, not the game's time)."""

Script = dict[str, list[tuple[int, Line]]]
"""Each guild's lines in order, numbered from 0 within the guild."""


def read_script(path: Path, errors: IO[str]) -> Script:
    """The guilds' lines; a line without a ``guild`` or not valid is reported and left out."""
    script: Script = {}
    with path.open(encoding="utf-8") as fh:
        for number, raw in enumerate(fh, start=1):
            if not raw.strip():
                continue
            try:
                data = json.loads(raw)
            except ValueError as exc:
                print(f"line {number}: skipped: not JSON ({exc})", file=errors)
                continue
            guild = data.pop("guild", None) if isinstance(data, dict) else None
            if not isinstance(guild, str) or not guild:
                print(f"line {number}: skipped: a line names its guild (`guild`: the server's id)", file=errors)
                continue
            try:
                line = read_line(data)
            except ValidationError as exc:
                print(f"line {number}: skipped: {describe_error(exc)}", file=errors)
                continue
            lines = script.setdefault(guild, [])
            lines.append((len(lines), line))
    return script


async def resume_point(stores: Stores, guild: str) -> int | None:
    """The last line of the guild finished in this store (None: none yet); as ``replay --db`` resumes."""
    done = [
        await stores.round.finished_line(guild),
        await stores.round.last_source_line(guild),
        await stores.round.last_refused_line(guild),
        await stores.tables.last_source_line(guild),
        await stores.cards.last_source_line(guild),
    ]
    found = [line for line in done if line is not None]
    return max(found) if found else None


@dataclass
class ShardSim:
    """One process: its shards, its store and its locks; ``run`` plays the script."""

    plan: ShardPlan
    stores: Stores
    ownership: GuildOwnership
    seed: str = "shards"
    until: datetime | None = None
    take_over: bool = False
    stop_at: datetime | None = None
    """Play only the lines before this instant, then wait to be stopped (a process that hangs mid-week)."""
    out: Callable[[dict[str, Any]], None] = field(default=lambda _: None)
    router: Router = field(init=False)
    lost: set[str] = field(default_factory=set)

    def __post_init__(self) -> None:
        tables = TableService(self.stores.tables, seed=self.seed)
        library = LibraryService(self.stores.cards)
        self.router = Router(RoundService(self.stores.round), tables, library, WebDesk(self.stores.round, None))
        self.ownership.on_lost(self._lost)

    def _lost(self, guilds: list[str]) -> None:
        self.lost.update(guilds)
        for guild in guilds:
            self.router.forget(guild)  # another process may write it from now on: never act on this cache again
            self.out({"event": "lost", "guild": guild})

    def shard(self, guild: str) -> int:
        return shard_of(guild, self.plan.count) if self.plan.count is not None else 0

    async def run(self, script: Script) -> int:
        """Play every guild of this process's shards (and, taking over, every other one); 0 when all were."""
        mine = self.plan.mine(script)
        others = [g for g in script if g not in mine] if self.take_over else []
        self.out({"event": "owned", "guilds": mine, "shards": list(self.plan.shard_ids)})
        results = await asyncio.gather(
            *(self._guild(g, script[g], orphan=False) for g in mine),
            *(self._guild(g, script[g], orphan=True) for g in others),
        )
        try:
            await self.stores.round.save_progress()
            await self.router.service.save_snapshots()
        except Exception:
            if all(results):
                raise
            # guilds lost while this process was stopped: their last marks are not this process's to write
            log.warning("the last progress marks and snapshots could not be written", exc_info=True)
        self.out({"event": "done", "played": sorted(g for g, ok in zip([*mine, *others], results, strict=True) if ok)})
        return 0 if all(results) else EXIT_LOST

    async def _claim(self, guild: str, *, orphan: bool) -> bool:
        """Take the guild's lock; waiting for it when taking over (its holder may still be at work), then
        asking again and again without waiting for any one guild (the others' claims go on meanwhile)."""
        polling = orphan or self.take_over
        while True:
            if await self.ownership.acquire(guild, wait=not polling):
                return True
            if not polling:
                self.out({"event": "elsewhere", "guild": guild})
                log.warning("guild %s is run by another process; not acting for it here", guild)
                return False
            await asyncio.sleep(POLL_SECONDS)

    async def _guild(self, guild: str, lines: list[tuple[int, Line]], *, orphan: bool) -> bool:
        with acting_for(guild, self.shard(guild)):
            try:
                if not await self._claim(guild, orphan=orphan):
                    return False
                await self._play(guild, lines, orphan=orphan)
            except OwnedElsewhereError as exc:
                log.warning("%s", exc)
                return False
            except Exception:
                # a write that failed because this process was stopped past its lease (the server ended
                # its connections): the lock connection tells (a round trip), the guild is lost
                if self.ownership.holds(guild) and guild not in self.lost and await self.ownership.check():
                    raise
                log.warning("guild %s: lost while acting for it; another may take it over", guild, exc_info=True)
                return False
            return True

    async def _play(self, guild: str, lines: list[tuple[int, Line]], *, orphan: bool) -> None:
        world = World(self.router, seed=f"{self.seed}/{guild}", guild=guild)
        done = await resume_point(self.stores, guild)
        remaining = [(n, line) for n, line in lines if done is None or n > done]
        if done is not None:
            for number, line in lines[: done + 1]:
                await world.feed(line, number=number, replaying=False)
                world.now = line.at if world.now is None or line.at > world.now else world.now
            # met part-way (taken over, or after a restart): the scheduled work missed since the last
            # finished line is caught up first, as the bot does at start, up to the next line's instant
            state = await self.router.service.latest(guild)
            before = state.seq if state is not None else 0
            target = remaining[0][1].at if remaining else (self.until or world.now)
            if target is not None and (self.stop_at is None or target < self.stop_at):
                await world.advance(target)
            state = await self.router.service.latest(guild)
            caught = (state.seq if state is not None else 0) - before
            self.out({"event": "resumed", "guild": guild, "after": done, "caught_up": caught, "orphan": orphan})
            log.info("guild %s: resumed after line %d; caught up %d scheduled works", guild, done, caught)
        for number, line in remaining:
            if self.stop_at is not None and line.at >= self.stop_at:
                await self.stores.round.save_progress()
                self.out({"event": "holding", "guild": guild, "line": number})
                await asyncio.Event().wait()  # hang here, locks held, until the process is killed
            self._still_mine(guild)
            await world.feed(line, number=number)
            self.stores.round.mark_finished(guild, number)
            self._still_mine(guild)
            self.out({"event": "ack", "guild": guild, "line": number, "id": _event_of(line)})
        if self.until is not None and (self.stop_at is None or self.until < self.stop_at):
            self._still_mine(guild)
            await world.advance(self.until)
        self.out({"event": "finished", "guild": guild, "now": iso(world.now) if world.now else None})

    def _still_mine(self, guild: str) -> None:
        if guild in self.lost or not self.ownership.holds(guild):
            raise OwnedElsewhereError(guild, "its lock was lost; another process may take it over")

    async def documents(self, guilds: list[str], now: datetime) -> dict[str, dict[str, Any]]:
        """Each guild's state document (the simulator contract's) as the store holds it."""
        return await documents(self.stores, guilds, now)


def _event_of(line: Line) -> str | None:
    return f"msg:{line.id}" if isinstance(line, MessageLine) else None


async def documents(stores: Stores, guilds: list[str], now: datetime) -> dict[str, dict[str, Any]]:
    """The guilds' state documents read from a store (fresh services: nothing cached from a run)."""
    service = RoundService(stores.round)
    tables = TableService(stores.tables)
    library = LibraryService(stores.cards)
    out: dict[str, dict[str, Any]] = {}
    for guild in guilds:
        played = await tables.all_tables(guild)
        out[guild] = await guild_document(service, guild, now, played, await library.state(guild))
    return out


async def shard_sim(
    *,
    script: Path,
    db: Target,
    plan: ShardPlan,
    seed: str = "shards",
    until: datetime | None = None,
    take_over: bool = False,
    stop_at: datetime | None = None,
    health: tuple[str, int] | None = None,
    lease: float = LEASE_SECONDS,
    out: IO[str] = sys.stdout,
    errors: IO[str] = sys.stderr,
) -> int:
    """The command: read the script, open the store and the locks, play, report; the exit status."""
    lines = read_script(script, errors)

    def tell(entry: dict[str, Any]) -> None:
        out.write(json.dumps(entry) + "\n")
        out.flush()

    ownership = await open_ownership(db.url if db.postgres else None, lease=lease)
    try:
        stores = await open_stores(db, progress=ReplayProgress(), lease=lease)
        stores.round.fence = fence_of(ownership)
        try:
            sim = ShardSim(
                plan, stores, ownership, seed=seed, until=until, take_over=take_over, stop_at=stop_at, out=tell
            )
            server = None
            if health is not None:
                source = Health(
                    lambda: (plan.shard_ids, plan.count),
                    ownership.owned,
                    writer=lambda: stores.round.writer,
                    healthy=lambda: not sim.lost,
                )
                server = await HealthServer.start(source, *health)
                tell({"event": "health", "url": server.url})
            try:
                return await sim.run(lines)
            finally:
                if server is not None:
                    await server.stop()
        finally:
            await stores.close()
    finally:
        await ownership.close()


def shard_sim_command(args: argparse.Namespace) -> int:
    """``shard-sim``: logs on standard error (JSON lines with LOG_FORMAT=json), its reports on standard output."""
    from bot.logs import configure
    from bot.settings import Settings
    from bot.shards import ShardPlan, parse_shard_ids
    from bot.sim.shards import shard_sim

    if not args.script.is_file():
        print(f"no such script file: {args.script}", file=sys.stderr)
        return 2
    try:
        plan = ShardPlan(count=args.shard_count, ids=parse_shard_ids(args.shard_ids))
    except ValueError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    settings = Settings()
    configure(settings.log_level, settings.log_format, stream=sys.stderr, shards=list(plan.shard_ids))
    return asyncio.run(
        shard_sim(
            script=args.script,
            db=args.db,
            plan=plan,
            seed=args.seed,
            until=args.until,
            take_over=args.take_over,
            stop_at=args.stop_at,
            health=("127.0.0.1", args.health_port) if args.health_port is not None else None,
            lease=settings.guild_lease_seconds,
        )
    )
