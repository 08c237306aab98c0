"""``python -m bot bench --web``: do the bot's commands stay quick while its web record is under load?

A round of ``--players`` players is played for two weeks through the simulator (joins, lots, bids,
proposals with votes, requests and rulings, an election, presented hands and placements) into a
database on disk, as the bot would have written it. Then, in one process and on one event loop as in
the bot, the web record is served on 127.0.0.1 from the round's own service, and commands (a bid, an
inventory, the lots, the phase: one every ``PACE`` seconds, each through ``Router.message`` with its
durable commit) are timed twice: alone, and while another process sends ``--web-requests`` requests,
``--web-concurrency`` at a time, over the site's pages (their JSON twins and a few bad addresses too).
"""

from __future__ import annotations

import asyncio
import json
import math
import random
import sys
import tempfile
import time
from collections.abc import Sequence
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from bot.bench.load import stop
from bot.bench.machine import printed
from bot.router import Router
from bot.sim.world import GUILD, MessageLine, ReactLine, SetupLine, World
from bot.web.desk import WebDesk
from bot.web.record import WebRecord
from data.store import Store
from games.nomic.service import RoundService

START = datetime(2026, 1, 3, 6, tzinfo=UTC)
"""A Saturday: players join before the first auction."""
WEEK = timedelta(days=7)
PACE = 0.02
"""Seconds between two timed commands: a busy server, not a benchmark of the loop alone."""
BASELINE_COMMANDS = 200
PROPOSALS_A_WEEK = 12
REQUESTS_A_WEEK = 6
_RANKS = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")
_SUITS = ("S", "H", "C", "D")


class Season:
    """The simulated server, fed line by line through the same ``World`` as a replay."""

    def __init__(self, world: World, rng: random.Random, players: int) -> None:
        self.world = world
        self.rng = rng
        self.players = [f"p{n}" for n in range(1, players + 1)]
        self.ids = 0
        self.bid_floor: dict[int, int] = {}

    def _id(self) -> str:
        self.ids += 1
        return f"m{self.ids}"

    async def say(self, at: datetime, author: str, channel: str, content: str) -> str:
        mid = self._id()
        await self.world.feed(
            MessageLine(type="message", at=at, id=mid, channel=channel, author=author, content=content)
        )
        return mid

    async def react(self, at: datetime, message: str, user: str, emoji: str) -> None:
        await self.world.feed(ReactLine(type="react", at=at, message=message, user=user, emoji=emoji))

    def card(self) -> str:
        return self.rng.choice(_RANKS) + self.rng.choice(_SUITS)

    async def week(self, saturday: datetime) -> None:
        """From a Saturday after placements to the next one: lots, an election, bids, proposals, rulings,
        hands and placements."""
        at = saturday + timedelta(hours=6)
        state = await self.world.service.state(GUILD)
        lots = state.ruleset.auction.lots_per_auction - len(state.lots) if state is not None else 0
        for _ in range(lots):
            await self.say(at, "mod", "game-actions", f"!admin lot {self.card()} {self.card()}")
        judge = self.rng.choice(self.players)
        candidacy = await self.say(at, judge, "judge-elections", "I would like to be the judge.")
        for voter in self.players[:10]:
            await self.react(at, candidacy, voter, "👍")
        monday = saturday + timedelta(days=2, hours=9)
        state = await self.world.service.state(GUILD)
        numbers = sorted(state.lots) if state is not None else []
        for n, player in enumerate(self.players):
            lot = numbers[n % len(numbers)]
            amount = self.bid_floor.get(lot, 0) + 1 + n % 3
            self.bid_floor[lot] = amount
            await self.say(monday + timedelta(seconds=n), player, "auctions", f"!bid {lot} {amount}")
        for n in range(PROPOSALS_A_WEEK):
            author = self.players[n % len(self.players)]
            text = f"urgent: proposal {n} of the week: let the lots of week {saturday:%W} be {n} percent shinier."
            message = await self.say(monday + timedelta(hours=1, minutes=n), author, "proposals", text)
            for voter in self.players[: 20 + n]:
                await self.react(monday + timedelta(hours=2), message, voter, "👍" if hash(voter) % 3 else "👎")
        sunday = saturday + timedelta(days=1)
        tuesday = monday + timedelta(days=1)
        state = await self.world.service.state(GUILD)
        judge_now = state.judge if state is not None else None
        for n in range(REQUESTS_A_WEEK):
            asker = self.players[(n + 1) % len(self.players)]
            await self.say(
                tuesday + timedelta(minutes=n), asker, "game-actions", f"!request Is rule {n} still in force?"
            )
        if judge_now is not None:
            first = state.next_request if state is not None else 1
            for number in range(first, first + REQUESTS_A_WEEK):
                await self.say(tuesday + timedelta(hours=2), judge_now, "game-actions", f"!rule {number} Yes, it is.")
        friday = sunday + timedelta(days=5)
        for player in self.players:
            hand = " ".join(self.card() for _ in range(5))
            await self.say(friday, "mod", "game-actions", f"!admin give @{player} {hand}")
            await self.say(friday + timedelta(minutes=1), player, "game-actions", f"!present {hand}")


async def play_season(path: Path, players: int, seed: str, weeks: int = 2) -> tuple[World, Store, datetime]:
    """The round on disk, two weeks in; the world stands on the Monday of the next auction."""
    store = await Store.open(path)
    try:
        world = World(Router(RoundService(store), web=WebDesk(store, None)), seed=seed)
        season = Season(world, random.Random(seed), players)
        await world.feed(SetupLine(type="setup", at=START, admins=["mod"]))
        for player in season.players:
            await season.say(START, player, "game-actions", "!join")
        saturday = START.replace(hour=0)
        for _ in range(weeks):
            await season.week(saturday)
            saturday += WEEK
        monday = saturday + timedelta(days=2, hours=9)
        for _ in range(6):
            await season.say(
                saturday + timedelta(hours=6), "mod", "game-actions", f"!admin lot {season.card()} {season.card()}"
            )
        await world.advance(monday)
    except BaseException:
        await store.close()  # the season failed: its store's thread must not keep the process alive
        raise
    return world, store, monday


class Commands:
    """The timed commands, in turn: a bid (a durable commit), an inventory, the lots, the phase."""

    def __init__(self, world: World, at: datetime, players: Sequence[str], lots: Sequence[int]) -> None:
        self.world = world
        self.at = at
        self.players = players
        self.lots = lots
        self.n = 0
        self.amounts: dict[int, int] = {}

    def _line(self) -> MessageLine:
        self.n += 1
        player = self.players[self.n % len(self.players)]
        kind = self.n % 4
        if kind == 0:
            lot = self.lots[self.n % len(self.lots)]
            self.amounts[lot] = self.amounts.get(lot, 0) + 1
            channel, text = "auctions", f"!bid {lot} {self.amounts[lot]}"
        else:
            channel, text = "game-actions", ("!inventory", "!lots", "!phase")[kind - 1]
        return MessageLine(type="message", at=self.at, id=f"t{self.n}", channel=channel, author=player, content=text)

    async def timed(self) -> float:
        line = self._line()
        began = time.perf_counter()
        await self.world.feed(line)
        return time.perf_counter() - began


def _ms(values: Sequence[float], q: float) -> float:
    """The nearest-rank percentile ``q`` (0..100), in milliseconds."""
    if not values:
        return math.nan
    ordered = sorted(values)
    return ordered[max(0, math.ceil(q / 100 * len(ordered)) - 1)] * 1000


def _row(label: str, values: Sequence[float]) -> str:
    return (
        f"  {label:<22}{len(values):>6}{_ms(values, 0):>9.2f}{_ms(values, 50):>9.2f}{_ms(values, 99):>9.2f}"
        f"{_ms(values, 100):>9.2f}"
    )


def load_paths(players: Sequence[str], proposals: int, requests: int, weeks: Sequence[str]) -> list[str]:
    """The pages the load asks for, each in turn: every kind of page, JSON twins, some bad addresses."""
    g = f"/g/{GUILD}"
    paths = [
        "/", g, f"{g}/week", f"{g}/ruleset", f"{g}/ruleset/history", f"{g}/ruleset/v/1", f"{g}/players",
        f"{g}/proposals", f"{g}/rulings", f"{g}/games", f"{g}/season", f"{g}.json", f"{g}/week.json",
        f"{g}/players.json", f"{g}/nothing", "/g/unknown/week", f"{g}/proposals/0",
    ]  # fmt: skip
    paths += [f"{g}/players/{p}" for p in players[:5]]
    paths += [f"{g}/proposals/{n}" for n in range(1, min(proposals, 5) + 1)]
    paths += [f"{g}/rulings/{n}" for n in range(1, min(requests, 3) + 1)]
    paths += [f"{g}/season/{w}" for w in weeks[:2]]
    return paths


async def _run_load(url: str, requests: int, concurrency: int, paths: Sequence[str]) -> dict[str, Any]:
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "bot.web.load", url, str(requests), str(concurrency), *paths,
        stdout=asyncio.subprocess.PIPE,
    )  # fmt: skip
    try:
        out, _ = await proc.communicate()
    finally:
        await stop(proc)  # a bench that failed or was stopped leaves no load running
    if proc.returncode != 0:
        raise RuntimeError(f"the load process failed with status {proc.returncode}")
    result: dict[str, Any] = json.loads(out)
    return result


async def web_bench(*, requests: int, concurrency: int, players: int, runs: int, seed: str, where: Path | None) -> int:
    """Print command latency with and without the web load, and how the site answered the load."""
    del runs
    at_the_end = printed()
    try:
        return await _web_bench(requests=requests, concurrency=concurrency, players=players, seed=seed, where=where)
    finally:
        at_the_end()


async def _web_bench(*, requests: int, concurrency: int, players: int, seed: str, where: Path | None) -> int:
    with tempfile.TemporaryDirectory(prefix="nomic-web-bench-", dir=where) as tmp:
        path = Path(tmp) / "web.db"
        began = time.perf_counter()
        world, store, monday = await play_season(path, players, seed)
        built = time.perf_counter() - began
        try:
            service = world.service
            record = await WebRecord.start(path, service, "127.0.0.1", 0, clock=lambda: monday)
            try:
                state = await service.state(GUILD)
                if state is None:
                    raise RuntimeError("the bench round did not start")
                fold_began = time.perf_counter()
                season = await record.site.seasons.season(GUILD)
                fold = time.perf_counter() - fold_began
                weeks = [w.key for w in season.ordered()]
                proposals = state.next_proposal - 1
                paths = load_paths(sorted(state.players), proposals, state.next_request - 1, weeks)
                commands = Commands(world, monday, sorted(state.players), sorted(state.lots))
                alone = []
                for _ in range(BASELINE_COMMANDS):
                    alone.append(await commands.timed())
                    await asyncio.sleep(PACE)
                loaded: list[float] = []
                task = asyncio.ensure_future(_run_load(record.server.url, requests, concurrency, paths))
                try:
                    while not task.done():
                        loaded.append(await commands.timed())
                        await asyncio.sleep(PACE)
                    result = task.result()
                finally:
                    if not task.done():  # a command failed: the load stops with it
                        task.cancel()
                        await asyncio.gather(task, return_exceptions=True)
            finally:
                await record.stop()
            log_size = state.seq
        finally:
            await store.close()
    latencies = result["latencies"]
    print(f"Web record under load: {players} players, a log of {log_size:,} actions (season built in {built:.1f} s)")
    print(f"The season's first fold (the whole log replayed, in a worker thread): {fold * 1000:.0f} ms")
    print(
        "Command latency (a bid with its commit, an inventory, the lots, the phase; one every 20 ms), alone and"
        f" while {requests:,} requests come {concurrency} at a time, ms:"
    )
    print(f"  {'':<22}{'n':>6}{'min':>9}{'median':>9}{'p99':>9}{'max':>9}")
    print(_row("without web load", alone))
    print(_row("under the web load", loaded))
    rate = len(latencies) / result["seconds"] if result["seconds"] else math.nan
    print(
        f"The load: {len(latencies)} requests over {len(paths)} addresses in {result['seconds']:.2f} s ({rate:.0f}/s);"
        f" statuses {result['statuses']}; failures {result['failures'] or 'none'}; tracebacks {result['tracebacks']}"
    )
    print(_row("request latency", latencies))
    failed = bool(result["failures"]) or result["tracebacks"] or any(s.startswith("5") for s in result["statuses"])
    return 1 if failed else 0
