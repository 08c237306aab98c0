"""``python -m bot bench --load``: durable actions under load, measured side by side with the disk.

Every round measures, one after the other on the same disk, in an order that rotates from round to
round (so drift of the disk or of the machine's other load spreads over all of them):

* raw single-row aiosqlite commits (one autocommit INSERT each: the cheapest durable write);
* raw batched aiosqlite commits (``BATCH`` rows a transaction: what the disk allows a group commit);
* sequential: members of one guild bid one after another, each waiting for the answer;
* one busy guild: ``MEMBERS`` members bid at once, each waiting for their answer before the next bid;
* busy guilds: ``GUILDS`` guilds at once, one member at a time in each;
* a busy week (``bot.bench.week``'s replay, smaller: ``WEEK``), its wall time.

With ``--baseline DIR`` (a checkout of an earlier version, e.g. ``git worktree add /tmp/before main``)
the round measures the bids and the week of that version too, each right beside the same measure of
this version (which of the two goes first alternates from round to round). Each measurement
runs in a process of its own (``python -c``, the checkout's code on its path, this file's functions),
so both versions pay the same start-up, and only the work itself is timed.

A bid goes through ``Router.message`` as a typed command does (parse, rules, log, commit, answer);
every bid is valid (each lot's amounts rise in arrival order), so every one is a durable action.
Figures are actions per second; ratios are taken within a round, then summarised (min, median).
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import os
import random
import statistics
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import aiosqlite

from bot.router import Router
from data.store import Store
from games.nomic.actions import StartRound
from games.nomic.context import ChannelRole, Context
from games.nomic.ruleset import load_ruleset
from games.nomic.service import RoundService
from scheduler.due import opening

MONDAY = datetime(2026, 1, 5, 9, tzinfo=UTC)
"""In the auction phase: bids are taken."""
ADMIN = "admin"
LOTS = 6
MEMBERS = 50
GUILDS = 8
BATCH = 50
ACTIONS = 1_000
ROUNDS = 7
WEEK = {"players": 100, "bids": 3_000, "trades": 300}
"""The busy week of each round: ``bot.bench.week``'s replay, a fifth of its default size."""
GOALS = {"one guild": 3.0, "guilds": 2.0}

KINDS = ("raw", "batched", "sequential", "one guild", "guilds", "week")
CODE_KINDS = ("sequential", "one guild", "guilds", "week")
"""The kinds that measure the bot's code (the others, the disk): measured for the baseline too."""
BEFORE = " (before)"
THIS_FILE = Path(__file__).resolve()
HERE = THIS_FILE.parents[2]
"""The checkout this file belongs to."""


@dataclass
class Guild:
    """A started guild with members who can afford any bid, and the next amount of each lot."""

    name: str
    members: list[str]
    amounts: dict[int, int] = field(default_factory=lambda: dict.fromkeys(range(1, LOTS + 1), 0))
    messages: int = 0

    def resolve(self, token: str) -> str:
        name = token.strip().removeprefix("@")
        if name != ADMIN and name not in self.members:
            # imported here: a baseline from before games/nomic/members.py resolves every name it is given
            from games.nomic.members import unknown_member

            raise unknown_member(name)
        return name

    def bid(self) -> str:
        """The next bid: lots in turn, each lot's amount one above its last (valid in arrival order)."""
        lot = self.messages % LOTS + 1
        self.amounts[lot] += 1
        return f"!bid {lot} {self.amounts[lot]}"


async def _command(router: Router, guild: Guild, actor: str, content: str, channel: ChannelRole) -> bool:
    guild.messages += 1
    ctx = Context(
        actor=actor,
        actor_name=actor,
        channel=channel,
        at=MONDAY,
        is_moderator=actor == ADMIN,
        event_id=f"msg:{guild.name}:{guild.messages}",
    )
    posts = await router.message(guild.name, ctx, content, guild.resolve)
    return bool(posts) and not posts[0].error


async def _setup(router: Router, name: str, members: int) -> Guild:
    ruleset = load_ruleset()
    phase, presenting = opening(ruleset, MONDAY)
    ctx = Context(actor="setup", actor_name="setup", channel=ChannelRole.OTHER, at=MONDAY, event_id="setup")
    start = StartRound(ruleset=ruleset, phase=phase, presenting_open=presenting, moderators=(ADMIN,))
    await router.service.start(name, ctx, start, seed=f"load:{name}")
    guild = Guild(name, [f"m{i}" for i in range(1, members + 1)])
    ga = ChannelRole.GAME_ACTIONS
    for member in guild.members:
        await _command(router, guild, member, "!join", ga)
        await _command(router, guild, ADMIN, f"!admin give @{member} 1000000000 points", ga)
    for n in range(LOTS):
        await _command(router, guild, ADMIN, f"!admin lot {'A23456'[n]}S KH", ga)
    return guild


async def _bids(router: Router, guild: Guild, members: Sequence[str], count: int) -> int:
    """``count`` bids, each waiting for its answer, by ``members`` in turn; returns how many were accepted."""
    accepted = 0
    for member in itertools.islice(itertools.cycle(members), count):
        accepted += await _command(router, guild, member, guild.bid(), ChannelRole.AUCTIONS)
    return accepted


async def raw_commits(path: Path, rows: int, batch: int = 1) -> float:
    """Durable rows per second through aiosqlite: ``batch`` rows a transaction (1: autocommit INSERTs)."""
    conn = await aiosqlite.connect(str(path), isolation_level=None)
    try:
        for pragma in ("journal_mode=WAL", "synchronous=FULL", "foreign_keys=ON", "busy_timeout=5000"):
            await conn.execute(f"PRAGMA {pragma}")
        await conn.execute(
            "CREATE TABLE IF NOT EXISTS raw (id INTEGER PRIMARY KEY, at TEXT NOT NULL, body TEXT NOT NULL)"
        )
        insert = "INSERT INTO raw (at, body) VALUES (?, ?)"
        started = time.perf_counter()
        if batch <= 1:
            for i in range(rows):
                await conn.execute(insert, (f"{i:08d}", "x" * 200))
        else:
            for first in range(0, rows, batch):
                await conn.execute("BEGIN IMMEDIATE")
                chunk = [(f"{i:08d}", "x" * 200) for i in range(first, min(rows, first + batch))]
                await conn.executemany(insert, chunk)
                await conn.execute("COMMIT")
        elapsed = time.perf_counter() - started
    finally:
        await conn.close()
    return rows / elapsed


@dataclass
class Measured:
    rate: float
    """Actions (or rows) per second."""
    commits: int = 0
    """Transactions the store committed for them (0: not counted)."""


def _commits(store: Store) -> int:
    writer = getattr(store, "writer", None)
    return int(getattr(writer, "batches", 0))


async def _timed(store: Store, work: Callable[[], Awaitable[int]], expected: int) -> Measured:
    before = _commits(store)
    started = time.perf_counter()
    accepted = await work()
    elapsed = time.perf_counter() - started
    if accepted != expected:
        raise RuntimeError(f"{expected - accepted} of {expected} bids were refused")
    return Measured(accepted / elapsed, _commits(store) - before)


async def _guilds(folder: Path, kind: str, actions: int) -> Measured:
    """One measurement of the bids of ``kind`` on a fresh database file."""
    db = folder / f"load-{kind.replace(' ', '-')}-{time.time_ns()}.db"
    store = await Store.open(db, synchronous="FULL")
    try:
        router = Router(RoundService(store))
        if kind == "sequential":
            guild = await _setup(router, "seq", MEMBERS)
            found = await _timed(store, lambda: _bids(router, guild, guild.members, actions), actions)
            names = [guild.name]
        elif kind == "one guild":
            busy = await _setup(router, "busy", MEMBERS)
            per_member = actions // MEMBERS

            async def one_guild() -> int:
                return sum(await asyncio.gather(*(_bids(router, busy, [m], per_member) for m in busy.members)))

            found = await _timed(store, one_guild, per_member * MEMBERS)
            names = [busy.name]
        else:
            many = [await _setup(router, f"g{n}", MEMBERS // GUILDS + 1) for n in range(GUILDS)]
            per_guild = actions // GUILDS

            async def guilds() -> int:
                return sum(await asyncio.gather(*(_bids(router, g, g.members, per_guild) for g in many)))

            found = await _timed(store, guilds, per_guild * GUILDS)
            names = [g.name for g in many]
        await _check_durable(store, router.service, names)
    finally:
        await store.close()
    return found


async def _week(folder: Path, players: int, bids: int, trades: int) -> Measured:
    """``bot.bench.week``'s busy week (of the checkout that runs it), its commands a second."""
    played = await _played_week(folder, players, bids, trades)
    return Measured(played["messages"] / played["wall"])


def _week_module() -> Any:
    """``bot.bench.week`` of the checkout that runs this file."""
    try:
        from bot.bench import week as week_bench
    except ImportError:  # a baseline from before the benchmarks had a folder of their own
        from bot import bench as week_bench  # type: ignore[no-redef]
    return week_bench


async def _played_week(folder: Path, players: int, bids: int, trades: int) -> dict[str, float]:
    """Play ``bot.bench.week``'s busy week on the code of the checkout that runs it: its commands, the durable
    ones among them, and the wall and CPU seconds (user and system, this process) it took."""
    week_bench = _week_module()
    db = folder / f"week-{time.time_ns()}.db"
    store = await Store.open(db, synchronous="FULL")
    try:
        router = Router(RoundService(store))
        rng = random.Random("bench:load")
        names = [f"p{i}" for i in range(1, players + 1)]
        week = week_bench.Week(router=router, rng=rng, players=names, members={*names, week_bench.ADMIN})
        ruleset = load_ruleset()
        phase, presenting = opening(ruleset, week_bench.START)
        ctx = Context(
            actor="setup", actor_name="setup", channel=ChannelRole.OTHER, at=week_bench.START, event_id="setup"
        )
        start = StartRound(ruleset=ruleset, phase=phase, presenting_open=presenting, moderators=(week_bench.ADMIN,))
        started, cpu = time.perf_counter(), time.process_time()
        await router.service.start(week_bench.GUILD, ctx, start, seed="bench:load")
        await week_bench._saturday(week, rng, bids=bids)
        await week_bench._auction(week, rng, bids=bids, trades=trades, lookups=600)
        await week.run_due(week_bench.THURSDAY)
        await week_bench._bartering(week, rng, lookups=300)
        await week.run_due(week_bench.SATURDAY)
        wall, cpu = time.perf_counter() - started, time.process_time() - cpu
    finally:
        await store.close()
    durable = sum(1 for sample in week.samples if sample.accepted and sample.changes_state)
    return {"messages": week.messages, "durable": durable, "wall": wall, "cpu": cpu}


async def week_cpu(folder: str, week: dict[str, int] | None) -> dict[str, float]:
    """The busy week in this process (``bot.bench.cpu``'s measuring processes); ``None``: nothing but the
    start-up (the imports of this file and of the week's own module), for what the processes pay before the
    week: the bench's code (the week's script, the ticks' bench it imports, and the rule language that one
    imports) is then no part of what a command is counted to cost."""
    if week is None:
        _week_module()
        return {"messages": 0, "durable": 0, "wall": 0.0, "cpu": 0.0}
    return await _played_week(Path(folder), **week)


async def measure(kind: str, folder: str, actions: int, week: dict[str, int]) -> dict[str, float]:
    """One measurement in this process (the entry point of the measuring processes)."""
    where = Path(folder)
    if kind in {"raw", "batched"}:
        db = where / f"raw-{time.time_ns()}.db"
        found = Measured(await raw_commits(db, actions, BATCH if kind == "batched" else 1))
    elif kind == "week":
        found = await _week(where, **week)
    else:
        found = await _guilds(where, kind, actions)
    return {"rate": found.rate, "commits": found.commits}


_RUNNER = """
import asyncio, importlib.util, json, sys
path, function, args = sys.argv[1:4]
spec = importlib.util.spec_from_file_location("_bench_elsewhere", path)
module = importlib.util.module_from_spec(spec)
sys.modules[spec.name] = module
spec.loader.exec_module(module)
print(json.dumps(asyncio.run(getattr(module, function)(*json.loads(args)))))
"""


CHILD_SECONDS = 3_600.0
"""The longest a measuring process may take before it is stopped and the bench fails: a process that
hangs (a baseline that leaves a connection open, a bot that never settles) ends the bench, not the
machine's patience."""


async def run_in(checkout: Path, path: Path, function: str, *args: Any) -> Any:
    """``await function(*args)`` of the file at ``path`` in a process of its own, on the code of ``checkout``
    (first on its path), the result as JSON: how a bench measures an earlier version with today's bench.

    The process is killed if it outlasts ``CHILD_SECONDS`` or the bench stops first (an error, Ctrl-C, a
    caller's own ``asyncio.timeout``)."""
    env = {**os.environ, "PYTHONPATH": str(checkout)}
    proc = await asyncio.create_subprocess_exec(
        sys.executable,
        "-c",
        _RUNNER,
        str(path),
        function,
        json.dumps(args),
        cwd=checkout,
        env=env,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    try:
        async with asyncio.timeout(CHILD_SECONDS):
            out, err = await proc.communicate()
    except TimeoutError:
        raise RuntimeError(f"{function}{args!r} in {checkout} ran over {CHILD_SECONDS:g} s: stopped") from None
    finally:
        await stop(proc)
    if proc.returncode != 0:
        raise RuntimeError(f"{function}{args!r} in {checkout} failed:\n{err.decode()[-3000:]}")
    return json.loads(out.decode().splitlines()[-1])


async def stop(proc: asyncio.subprocess.Process) -> None:
    """Kill ``proc`` if it still runs, and reap it."""
    if proc.returncode is None:
        with contextlib.suppress(ProcessLookupError):
            proc.kill()
        await proc.wait()


async def _in_process_of(checkout: Path, kind: str, folder: Path, actions: int, week: dict[str, int]) -> Measured:
    """``measure`` in a process of its own, on the code of ``checkout``."""
    found = await run_in(checkout, THIS_FILE, "measure", kind, str(folder), actions, week)
    return Measured(float(found["rate"]), int(found["commits"]))


async def _round(
    folder: Path, number: int, order: Sequence[str], actions: int, week: dict[str, int], *, baseline: Path | None
) -> dict[str, Measured]:
    """One round: every kind once (and the code's kinds on the baseline), in ``order``."""
    here = HERE
    found: dict[str, Measured] = {}
    for kind in order:
        versions = [(kind, here)]
        if baseline is not None and kind in CODE_KINDS:
            versions.append((kind + BEFORE, baseline))
            if number % 2:
                versions.reverse()  # each version goes first in every other round
        for name, checkout in versions:
            found[name] = await _in_process_of(checkout, kind, folder, actions, week)
    return found


async def _check_durable(store: Store, service: RoundService, guilds: Sequence[str]) -> None:
    """What the service holds is what the store replays to: nothing was lost or applied twice."""
    fresh = RoundService(store)
    for guild in guilds:
        if await fresh.state(guild) != await service.state(guild):
            raise RuntimeError(f"guild {guild}: the state reloaded from the store differs from the cached one")


def _summary(values: Sequence[float]) -> str:
    return f"min {min(values):>8.0f}  median {statistics.median(values):>8.0f}"


def _ratio(values: Sequence[float]) -> str:
    return f"min {min(values):>8.2f}  median {statistics.median(values):>8.2f}"


def report(rounds: list[dict[str, Measured]], actions: int, week: dict[str, int], baseline: Path | None) -> str:
    def rates(kind: str) -> list[float]:
        return [r[kind].rate for r in rounds]

    def ratios(kind: str, base: str) -> list[float]:
        return [r[kind].rate / r[base].rate for r in rounds]

    def commits(kind: str) -> str:
        spent = statistics.median(r[kind].commits for r in rounds)
        return f"   {spent:,.0f} commits (median)" if spent else ""

    def row(label: str, kind: str) -> list[str]:
        found = [f"  {label:<46}{_summary(rates(kind))}{commits(kind)}"]
        if kind + BEFORE in rounds[0]:
            found.append(f"  {'  before':<46}{_summary(rates(kind + BEFORE))}{commits(kind + BEFORE)}")
        return found

    def ratio(label: str, kind: str, base: str, goal: float | None = None) -> str:
        values = ratios(kind, base)
        verdict = ""
        if goal is not None:
            verdict = f"   (goal >= {goal:g}: {'met' if statistics.median(values) >= goal else 'NOT met'})"
        return f"  {label:<46}{_ratio(values)}{verdict}"

    week_size = f"{week['players']} players, {week['bids']:,} bids, {week['trades']} trades"
    lines = [
        (
            f"Load bench: {actions:,} bids a measurement, {len(rounds)} interleaved rounds"
            f" ({MEMBERS} members in one guild; {GUILDS} guilds; raw batches of {BATCH} rows; the week: {week_size})"
        ),
        f"  before: {baseline}" if baseline is not None else "  (no --baseline: no figures of an earlier version)",
        "",
        "per second (the week: commands a second)",
        *row("raw aiosqlite single-row commits", "raw"),
        *row(f"raw aiosqlite commits of {BATCH} rows", "batched"),
        *row("sequential bids (one at a time)", "sequential"),
        *row(f"{MEMBERS} members bidding at once, one guild", "one guild"),
        *row(f"{GUILDS} guilds at once, one bid at a time each", "guilds"),
        *row("the busy week", "week"),
        "",
        "ratios (within each round)",
        ratio("sequential / raw single-row", "sequential", "raw"),
        ratio(f"{MEMBERS} members, one guild / sequential", "one guild", "sequential", GOALS["one guild"]),
        ratio(f"{GUILDS} guilds / sequential", "guilds", "sequential", GOALS["guilds"]),
        ratio(f"{MEMBERS} members, one guild / raw batched", "one guild", "batched"),
        ratio("raw batched / raw single-row", "batched", "raw"),
    ]
    if baseline is not None:
        lines += [
            ratio("sequential / before", "sequential", "sequential" + BEFORE, 1.0),
            ratio(f"{MEMBERS} members, one guild / before", "one guild", "one guild" + BEFORE),
            ratio(f"{GUILDS} guilds / before", "guilds", "guilds" + BEFORE),
            ratio("the busy week / before", "week", "week" + BEFORE, 1.0),
        ]
    return "\n".join(lines)


async def load_bench(
    *,
    actions: int = ACTIONS,
    rounds: int = ROUNDS,
    where: Path | None = None,
    baseline: Path | None = None,
    week: dict[str, int] | None = None,
) -> str:
    """Measure ``rounds`` interleaved rounds (with ``baseline``'s code too, when given); the report."""
    from bot.bench.machine import Loaded  # here: a baseline's measuring process reads this file with its own bot

    loaded = Loaded()
    sizes = dict(week or WEEK)
    results: list[dict[str, Measured]] = []
    with tempfile.TemporaryDirectory(prefix="nomic-load-") as tmp:
        folder = where if where is not None else Path(tmp)
        folder.mkdir(parents=True, exist_ok=True)
        # not counted: the first measurement of a run is the slowest (cold files, caches, the disk's queue)
        for checkout in (HERE, baseline):
            if checkout is not None:
                await _in_process_of(checkout, "sequential", folder, actions, sizes)
        for number in range(rounds):
            shift = number % len(KINDS)
            order = KINDS[shift:] + KINDS[:shift]
            results.append(await _round(folder, number, order, actions, sizes, baseline=baseline))
            done = ", ".join(f"{k} {v.rate:,.0f}/s" for k, v in results[-1].items())
            print(f"[bench] load round {number + 1}/{rounds}: {done}", file=sys.stderr, flush=True)
    return loaded.framed(report(results, actions, sizes, baseline))
