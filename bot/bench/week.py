"""``python -m bot bench``: replay a busy week on an on-disk store and measure it.

The week goes through the same path a live text command takes (``Router.due_work`` then
``Router.message``, so the router parses the text and the ``RoundService`` checks, logs and
commits it), on a virtual clock:

* Saturday: the moderator raises the weekly grant so that thousands of increasing bids fit,
  players join, the moderator places lots and players generate the rest;
* Sunday 00:00: the auction-start tick grants the weekly points;
* Sunday to Wednesday: bids (most valid and increasing, some too low or otherwise rejected),
  trade offers with their answers (accepts, declines, a few cancels) and inventory look-ups;
* Thursday 00:00: the settlement tick;
* bartering: the moderator gives every player five cards (``!admin give``), every player
  presents them, more look-ups;
* Saturday 00:00: the placements tick.

The same run measures raw single-row aiosqlite commits on the same disk with the same PRAGMAs,
so the durable action rate can be read against what the disk allows. Then ``bot.bench.ticks``
times the auction start, the settlement and the placements at several server sizes.
"""

from __future__ import annotations

import gc
import math
import random
import resource
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path

from bot.bench import ticks as bench_ticks
from bot.bench.digest import digest_bench
from bot.bench.machine import Loaded, printed
from bot.bench.stores import raw_commits
from bot.router import Router
from data.store import (
    AppendWatch,
    ArchiveRow,
    JoinedWrite,
    LoggedAction,
    LogRow,
    ModLogRecord,
    ModLogRow,
    Snapshot,
    Store,
)
from games.nomic import commands, engine
from games.nomic.actions import StartRound
from games.nomic.context import ChannelRole, Context
from games.nomic.members import unknown_member
from games.nomic.phases import BoundaryKind
from games.nomic.ruleset import load_ruleset
from games.nomic.service import RoundService, action_rng
from games.nomic.state import Lot, RoundState
from scheduler.due import next_tick, opening

GUILD = "bench"
ADMIN = "admin"
START = datetime(2026, 1, 3, 6, 0, tzinfo=UTC)
"""A Saturday morning, after that week's placements: players join before the Sunday."""
SUNDAY = datetime(2026, 1, 4, tzinfo=UTC)
THURSDAY = datetime(2026, 1, 8, tzinfo=UTC)
SATURDAY = datetime(2026, 1, 10, tzinfo=UTC)

RAW_ROWS = 2_000
PROGRESS_EVERY = 2_000
QUERY_KINDS = frozenset({"inventory"})
GOAL_RATIO = 0.8
GOAL_TICK_MS = 50.0

_RANKS = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")
_SUITS = ("S", "H", "C", "D")


@dataclass(frozen=True)
class Sample:
    kind: str
    changes_state: bool
    accepted: bool
    seconds: float


@dataclass(frozen=True)
class TickSample:
    at: datetime
    boundaries: tuple[str, ...]
    seconds: float
    rules_seconds: float
    posts: int

    @property
    def label(self) -> str:
        names = {"auction_start": "auction start", "auction_end": "settlement", "placements": "placements"}
        return f"{self.at:%A} {' + '.join(names.get(b, b) for b in self.boundaries) or 'tick'}"


@dataclass
class GcPauses:
    """Collections of the cyclic garbage collector while the week runs, and the time they took."""

    count: int = 0
    seconds: float = 0.0
    longest: float = 0.0
    _started: float = 0.0

    def __call__(self, phase: str, info: dict[str, int]) -> None:
        del info
        if phase == "start":
            self._started = time.perf_counter()
            return
        elapsed = time.perf_counter() - self._started
        self.count += 1
        self.seconds += elapsed
        self.longest = max(self.longest, elapsed)


@dataclass
class TimedStore:
    """The real store, with the time spent in ``append`` (one durable transaction) added up."""

    store: Store
    appends: int = 0
    append_seconds: float = 0.0
    snapshots: int = 0
    snapshot_seconds: float = 0.0
    snapshot_bytes: int = 0

    async def seed(self, guild: str) -> str | None:
        return await self.store.seed(guild)

    async def has_event(self, guild: str, event_id: str) -> bool:
        return await self.store.has_event(guild, event_id)

    async def load(self, guild: str) -> tuple[Snapshot | None, list[LoggedAction]]:
        return await self.store.load(guild)

    async def log(self, guild: str, *, after: int = 0, limit: int | None = None) -> list[LogRow]:
        return await self.store.log(guild, after=after, limit=limit)

    async def append(
        self,
        guild: str,
        *,
        seq: int,
        event_id: str,
        at: datetime,
        actor: str,
        kind: str,
        body: str,
        source_line: int | None = None,
        seed: str | None = None,
        snapshot: str | None = None,
        archive: Sequence[ArchiveRow] = (),
        joined: JoinedWrite | None = None,
        mod_log: Sequence[ModLogRow] = (),
        watch: AppendWatch | None = None,
    ) -> bool:
        started = time.perf_counter()
        stored = await self.store.append(
            guild,
            seq=seq,
            event_id=event_id,
            at=at,
            actor=actor,
            kind=kind,
            body=body,
            source_line=source_line,
            seed=seed,
            snapshot=snapshot,
            archive=archive,
            joined=joined,
            mod_log=mod_log,
            watch=watch,
        )
        elapsed = time.perf_counter() - started
        self.appends += 1
        self.append_seconds += elapsed
        if snapshot is not None:
            self.snapshots += 1
            self.snapshot_seconds += elapsed
            self.snapshot_bytes = max(self.snapshot_bytes, len(snapshot))
        return stored

    async def write_snapshot(self, guild: str, *, seq: int, at: datetime, body: str) -> None:
        await self.store.write_snapshot(guild, seq=seq, at=at, body=body)

    async def archived(
        self, guild: str, kind: str, *, limit: int | None = None, numbers: Sequence[int] | None = None
    ) -> list[str]:
        return await self.store.archived(guild, kind, limit=limit, numbers=numbers)

    async def archived_count(self, guild: str, kind: str) -> int:
        return await self.store.archived_count(guild, kind)

    async def mod_log(self, guild: str, *, limit: int) -> list[ModLogRecord]:
        return await self.store.mod_log(guild, limit=limit)

    async def mod_log_count(self, guild: str) -> int:
        return await self.store.mod_log_count(guild)


@dataclass
class Pending:
    number: int
    offerer: str
    target: str


@dataclass
class Week:
    """The simulated server: members, the virtual clock, and what each command cost."""

    router: Router
    rng: random.Random
    players: list[str]
    members: set[str] = field(default_factory=set)
    samples: list[Sample] = field(default_factory=list)
    ticks: list[TickSample] = field(default_factory=list)
    next_due: datetime | None = None
    messages: int = 0
    started: float = field(default_factory=time.perf_counter)
    phase_name: str = "setup"
    bids_settled: int = 0

    @property
    def service(self) -> RoundService:
        return self.router.service

    def resolve(self, token: str) -> str:
        name = token.strip().removeprefix("@").rstrip(",;:!?.")
        if name not in self.members:
            raise unknown_member(name)
        return name

    async def state(self) -> RoundState:
        state = await self.service.state(GUILD)
        if state is None:
            raise RuntimeError("the bench round has not started")
        return state

    async def run_due(self, until: datetime) -> None:
        """Apply, one tick at a time, the scheduled work due by ``until``; time each tick."""
        while True:
            state = await self.state()
            tick = next_tick(state)
            if tick.at > until:
                self.next_due = tick.at
                return
            rules = math.inf
            for _ in range(3):
                started = time.perf_counter()
                engine.advance(state, tick, action_rng(state.seed, state.seq + 1))
                rules = min(rules, time.perf_counter() - started)
            if BoundaryKind.AUCTION_END in tick.boundaries:
                self.bids_settled = sum(len(lot.bids) for lot in state.lots.values())
            started = time.perf_counter()
            posts = await self.router.due_work(GUILD, tick.at)
            elapsed = time.perf_counter() - started
            after = await self.state()
            if after.clock != tick.at:
                raise RuntimeError(f"the tick at {tick.at.isoformat()} was not applied")
            self.ticks.append(TickSample(tick.at, tuple(b.value for b in tick.boundaries), elapsed, rules, len(posts)))

    async def command(self, actor: str, channel: ChannelRole, content: str, kind: str, at: datetime) -> bool:
        """One member's message, as the live adapter handles it; returns whether it was accepted."""
        if self.next_due is None or at >= self.next_due:
            await self.run_due(at)
        self.messages += 1
        ctx = Context(
            actor=actor,
            actor_name=actor,
            channel=channel,
            at=at,
            is_moderator=actor == ADMIN,
            event_id=f"msg:{self.messages}",
        )
        before = (await self.state()).seq
        started = time.perf_counter()
        posts = await self.router.due_work(GUILD, at)
        posts += await self.router.message(GUILD, ctx, content, self.resolve)
        elapsed = time.perf_counter() - started
        changes = kind not in QUERY_KINDS
        if changes:
            accepted = (await self.state()).seq > before
        else:
            accepted = bool(posts) and not posts[-1].text.startswith("Can't do that")
        self.samples.append(Sample(kind, changes, accepted, elapsed))
        if self.messages % PROGRESS_EVERY == 0:
            wall = time.perf_counter() - self.started
            done = sum(1 for s in self.samples if s.accepted and s.changes_state)
            print(
                f"[bench] {self.messages:>6,} commands, {done:,} committed, {wall:6.1f}s ({self.phase_name})",
                file=sys.stderr,
                flush=True,
            )
        return accepted


def _card(rng: random.Random) -> str:
    return rng.choice(_RANKS) + rng.choice(_SUITS)


def _spread(start: datetime, end: datetime, count: int) -> list[datetime]:
    """``count`` instants evenly inside ``(start, end)``."""
    step = (end - start) / (count + 1)
    return [start + step * (i + 1) for i in range(count)]


def _weekly_points(bids: int, lots: int) -> int:
    """A grant large enough for the bids' increasing amounts (about two points a step)."""
    needed = bids * 4 // max(lots, 1)
    return max(100, math.ceil(needed / 1000) * 1000)


async def _saturday(week: Week, rng: random.Random, *, bids: int) -> None:
    week.phase_name = "joining"
    lots = load_ruleset().auction.lots_per_auction
    extra_joins = max(1, len(week.players) // 60)
    placed = lots // 2
    generated = lots - placed
    count = 1 + len(week.players) + extra_joins + lots
    times = iter(_spread(START, SUNDAY - timedelta(hours=1), count))
    ga = ChannelRole.GAME_ACTIONS
    await week.command(
        ADMIN, ga, f"!admin set auction.weekly_points {_weekly_points(bids, lots)}", "admin_set", next(times)
    )
    for player in week.players:
        await week.command(player, ga, "!join", "join", next(times))
    for _ in range(extra_joins):
        await week.command(rng.choice(week.players), ga, "!join", "join", next(times))
    for _ in range(placed):
        await week.command(ADMIN, ga, f"!admin lot {_card(rng)} {_card(rng)}", "admin_lot", next(times))
    for player in rng.sample(week.players, min(generated, len(week.players))):
        await week.command(player, ga, "!generate", "generate", next(times))


def _top_bid(lot: Lot) -> int:
    """The lot's highest valid bid as the generator sees it (the bench never revives bids)."""
    return lot.bids[-1].amount if lot.bids else 0


def _bid(state: RoundState, rng: random.Random, players: Sequence[str]) -> tuple[str, ChannelRole, str]:
    """Most bids beat the highest valid bid by a little; some are too low, unaffordable or misplaced."""
    numbers = sorted(state.lots)
    number = rng.choice(numbers)
    top = _top_bid(state.lots[number])
    roll = rng.random()
    channel = ChannelRole.AUCTIONS
    if roll < 0.84 or (roll < 0.96 and top == 0):
        amount = top + rng.randint(1, 3)
        for _ in range(20):
            bidder = rng.choice(players)
            if state.players[bidder].points >= amount:
                break
        return bidder, channel, f"!bid {number} {amount}"
    bidder = rng.choice(players)
    if roll < 0.96:
        amount = rng.randint(max(1, top - 25), top)
    elif roll < 0.98:
        amount = state.players[bidder].points + rng.randint(1, 100)
    elif roll < 0.99:
        number = numbers[-1] + rng.randint(1, 4)
        amount = top + 1
    else:
        amount = top + 1
        channel = ChannelRole.GAME_ACTIONS
    return bidder, channel, f"!bid {number} {amount}"


def _inventory(rng: random.Random, players: Sequence[str]) -> tuple[str, ChannelRole, str]:
    actor = rng.choice(players)
    channel = rng.choice((ChannelRole.GAME_ACTIONS, ChannelRole.AUCTIONS, ChannelRole.OTHER))
    roll = rng.random()
    if roll < 0.7:
        return actor, channel, "!inventory"
    if roll < 0.9:
        return actor, channel, f"!inventory @{rng.choice(players)}"
    return actor, channel, "!inv"


async def _auction(week: Week, rng: random.Random, *, bids: int, trades: int, lookups: int) -> None:
    """Bids, trade offers and their answers, and look-ups, interleaved over the auction phase."""
    week.phase_name = "auction"
    remaining = {"bid": bids, "offer": trades, "respond": trades, "inventory": lookups}
    total = sum(remaining.values())
    pending: list[Pending] = []
    ga = ChannelRole.GAME_ACTIONS
    players = week.players
    for at in _spread(SUNDAY, THURSDAY - timedelta(minutes=1), total):
        kinds = [k for k, n in remaining.items() if n > 0 and (k != "respond" or pending)]
        if not kinds:
            break
        slot = rng.choices(kinds, weights=[remaining[k] for k in kinds])[0]
        remaining[slot] -= 1
        if slot == "bid":
            if week.next_due is not None and at >= week.next_due:
                await week.run_due(at)
            actor, channel, content = _bid(await week.state(), rng, players)
            await week.command(actor, channel, content, "bid", at)
        elif slot == "inventory":
            actor, channel, content = _inventory(rng, players)
            await week.command(actor, channel, content, "inventory", at)
        elif slot == "offer":
            offerer, target = rng.sample(players, 2)
            shown = f"@{target}" if rng.random() >= 0.03 else f"@ghost{rng.randint(1, 99)}"
            give = rng.randint(1, 50)
            get = "nothing" if rng.random() < 0.5 else f"{rng.randint(1, 30)} points"
            content = f"!offer {shown} give {give} points for {get}"
            if await week.command(offerer, ga, content, "offer", at):
                number = (await week.state()).next_trade - 1
                pending.append(Pending(number, offerer, target))
        else:
            trade = pending.pop(rng.randrange(len(pending)))
            roll = rng.random()
            if roll < 0.75:
                await week.command(trade.target, ga, f"!accept {trade.number}", "accept", at)
            elif roll < 0.93:
                await week.command(trade.target, ga, f"!decline {trade.number}", "decline", at)
            elif roll < 0.98:
                await week.command(trade.offerer, ga, f"!cancel {trade.number}", "cancel", at)
            else:
                outsider = next((p for p in players[:8] if p not in (trade.offerer, trade.target)), ADMIN)
                await week.command(outsider, ga, f"!accept #{trade.number}", "accept", at)
                pending.append(trade)


async def _bartering(week: Week, rng: random.Random, *, lookups: int) -> None:
    """The moderator hands out five cards each; every player presents them; a few try twice."""
    week.phase_name = "bartering"
    ga = ChannelRole.GAME_ACTIONS
    players = week.players
    hands = {p: [_card(rng) for _ in range(5)] for p in players}
    retries = max(1, len(players) // 50)
    steps: list[tuple[str, str]] = [("give", p) for p in players]
    presents: list[tuple[str, str]] = [("present", p) for p in players]
    presents += [("present", p) for p in rng.sample(players, min(retries, len(players)))]
    looks: list[tuple[str, str]] = [("inventory", "") for _ in range(lookups)]
    rest = presents + looks
    rng.shuffle(rest)
    steps += rest
    for at, (what, player) in zip(_spread(THURSDAY, SATURDAY - timedelta(hours=1), len(steps)), steps, strict=True):
        if what == "give":
            await week.command(ADMIN, ga, f"!admin give @{player} {' '.join(hands[player])}", "admin_give", at)
        elif what == "present":
            shown = list(hands[player])
            rng.shuffle(shown)
            await week.command(player, ga, f"!present {' '.join(shown)}", "present", at)
        else:
            actor, channel, content = _inventory(rng, players)
            await week.command(actor, channel, content, "inventory", at)


def _pct(values: Sequence[float], q: float) -> float:
    """The nearest-rank percentile ``q`` (0..100) of ``values``, in milliseconds."""
    if not values:
        return math.nan
    ordered = sorted(values)
    index = max(0, math.ceil(q / 100 * len(ordered)) - 1)
    return ordered[index] * 1000


def _latency_row(label: str, samples: Sequence[Sample]) -> str:
    values = [s.seconds for s in samples]
    mean = sum(values) / len(values) * 1000 if values else math.nan
    top = max(values) * 1000 if values else math.nan
    return f"  {label:<34}{len(values):>8,}{_pct(values, 50):>9.3f}{_pct(values, 99):>9.3f}{mean:>9.3f}{top:>9.2f}"


def report(
    week: Week,
    timed: TimedStore,
    pauses: GcPauses,
    *,
    raw_before: float,
    raw_after: float,
    wall: float,
    db: Path,
    state: RoundState,
    header: str,
    kept: str,
) -> str:
    samples = week.samples
    durable = [s for s in samples if s.changes_state and s.accepted]
    durable_seconds = sum(s.seconds for s in durable)
    durable_rate = len(durable) / durable_seconds if durable_seconds else math.nan
    raw_rate = 2 / (1 / raw_before + 1 / raw_after)
    ratio = durable_rate / raw_rate
    command_seconds = sum(s.seconds for s in samples)
    tick_seconds = sum(t.seconds for t in week.ticks)
    ok = "met" if ratio >= GOAL_RATIO else "NOT met"
    half = RAW_ROWS // 2
    raw_note = f"({half:,} rows before: {raw_before:.0f}/s, {half:,} after: {raw_after:.0f}/s)"
    wall_note = (
        f"({len(samples):,} commands + {len(week.ticks)} ticks in {wall:.1f}s;"
        f" {command_seconds:.1f}s in commands, {tick_seconds * 1000:.0f} ms in ticks)"
    )
    append_ms = timed.append_seconds / max(timed.appends, 1) * 1000
    rest_ms = (durable_seconds / max(len(durable), 1)) * 1000 - append_ms
    append_note = (
        f"ms ({timed.appends:,} appends, {timed.append_seconds:.1f}s; {timed.snapshots} with a snapshot:"
        f" {timed.snapshot_seconds:.2f}s, the largest {timed.snapshot_bytes / 1e6:.2f} MB)"
    )
    lines = [
        header,
        f"store: {db} (WAL, synchronous=FULL{kept}), {db.stat().st_size / 1e6:.1f} MB after the run",
        "",
        "Throughput",
        f"  {'durable actions (accepted, committed)':<50}{len(durable):>10,}",
        f"  {'durable actions/s (count / sum of their latencies)':<50}{durable_rate:>10.0f}",
        f"  {'raw aiosqlite single-row commits/s':<50}{raw_rate:>10.0f}   {raw_note}",
        f"  {'ratio durable / raw':<50}{ratio:>10.2f}   (goal >= {GOAL_RATIO}: {ok})",
        f"  {'durable actions/s over the whole replay wall time':<50}{len(durable) / wall:>10.0f}   {wall_note}",
        f"  {'store.append (one durable transaction), mean':<50}{append_ms:>10.3f} {append_note}",
        f"  {'the rest of a durable action (parse, rules, JSON)':<50}{rest_ms:>10.3f} ms per action, mean",
        "",
        f"Latency per command (ms)            {'count':>8}{'p50':>9}{'p99':>9}{'mean':>9}{'max':>9}",
        _latency_row("all commands", samples),
        _latency_row("state-changing, all", [s for s in samples if s.changes_state]),
        _latency_row("state-changing, accepted (durable)", durable),
        _latency_row("state-changing, rejected", [s for s in samples if s.changes_state and not s.accepted]),
        _latency_row("queries (inventory)", [s for s in samples if not s.changes_state]),
        "",
        f"{f'Ticks (ms; goal < {GOAL_TICK_MS:.0f} each)':<36}{'wall':>9}{'rules':>9}{'posts':>7}",
    ]
    for tick in week.ticks:
        verdict = "ok" if tick.seconds * 1000 < GOAL_TICK_MS else "OVER"
        lines.append(
            f"  {tick.label:<34}{tick.seconds * 1000:>9.2f}{tick.rules_seconds * 1000:>9.2f}{tick.posts:>7}   {verdict}"
        )
    lines += ["", f"Commands by kind                    {'accepted':>9}{'rejected':>9}{'p50 ms':>9}{'p99 ms':>9}"]
    accepted = Counter(s.kind for s in samples if s.accepted)
    rejected = Counter(s.kind for s in samples if not s.accepted)
    for kind in sorted({s.kind for s in samples}, key=lambda k: -(accepted[k] + rejected[k])):
        values = [s.seconds for s in samples if s.kind == kind]
        lines.append(
            f"  {kind:<34}{accepted[kind]:>9,}{rejected[kind]:>9,}{_pct(values, 50):>9.3f}{_pct(values, 99):>9.3f}"
        )
    lines.append(f"  {'total':<34}{sum(accepted.values()):>9,}{sum(rejected.values()):>9,}")
    usage = resource.getrusage(resource.RUSAGE_SELF)
    gc_note = f"({pauses.count:,} collections, the longest {pauses.longest * 1000:.1f} ms)"
    trades = len(state.trades) + len(state.closed_trades)
    summary = f"{trades:,} trades, {week.bids_settled:,} bids on the lots at settlement, seq {state.seq:,}"
    lines += [
        "",
        "Memory and state",
        f"  {'peak RSS (getrusage maxrss)':<50}{usage.ru_maxrss / 1024:>10.1f} MB",
        f"  {'garbage-collector pauses during the replay':<50}{pauses.seconds * 1000:>10.0f} ms {gc_note}",
        f"  {'final state':<50}{len(state.players):>10,} players, {summary}",
    ]
    return "\n".join(lines)


async def bench(
    *,
    players: int,
    bids: int,
    trades: int,
    seed: str,
    where: Path | None,
    week: bool = True,
    tick_sizes: Sequence[int] = bench_ticks.SIZES,
    tick_runs: int = bench_ticks.RUNS,
    tick_gc: str = "bot",
    digest_runs: int = 0,
    postgres: str | None = None,
    store_actions: int = 2_000,
    store_runs: int = 5,
) -> int:
    """Replay a busy week on an on-disk store, time the big ticks by server size, and the week's review
    of a busy week; with ``postgres`` (a URL), durable actions per second on each engine
    (``bot.bench.stores``); print them; returns 0."""
    if players < 2 or bids < 0 or trades < 0 or any(size < 2 for size in tick_sizes) or tick_runs < 1:
        print("the bench needs at least 2 players, one run and no negative counts", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory(prefix="nomic-bench-") as tmp:
        folder = where if where is not None else Path(tmp)
        folder.mkdir(parents=True, exist_ok=True)
        kept = "" if where is not None else "; a temporary folder, removed at exit"
        if week:
            loaded = Loaded()
            report = await week_bench(players=players, bids=bids, trades=trades, seed=seed, folder=folder, kept=kept)
            print(loaded.framed(report))
        if tick_sizes:
            if week:
                print()
            loaded = Loaded()
            print(loaded.framed(await bench_ticks.tick_bench(tick_sizes, tick_runs, seed, folder, gc_policy=tick_gc)))
        if postgres:
            from bot.bench.stores import store_bench

            if week or tick_sizes:
                print()
            loaded = Loaded()
            print(loaded.framed(await store_bench(postgres, folder, actions=store_actions, runs=store_runs)))
    if digest_runs > 0:
        print()
        print(digest_bench(players=players, bids=bids, runs=digest_runs, seed=seed))
    return 0


async def week_bench(*, players: int, bids: int, trades: int, seed: str, folder: Path, kept: str) -> str:
    """Replay a busy week on an on-disk store; the report of what it cost."""
    lookups = 900
    stamp = f"{seed}-{time.time_ns()}"
    db = folder / f"bench-{stamp}.db"
    raw_db = folder / f"raw-{stamp}.db"
    print(f"[bench] raw commits ({RAW_ROWS // 2:,} rows) on {raw_db}", file=sys.stderr, flush=True)
    raw_before = await raw_commits(raw_db, RAW_ROWS // 2)

    store = await Store.open(db, synchronous="FULL")
    timed = TimedStore(store)
    try:
        router = Router(RoundService(timed))
        rng = random.Random(f"bench:{seed}")
        names = [f"p{i}" for i in range(1, players + 1)]
        week = Week(router=router, rng=rng, players=names, members={*names, ADMIN})
        ruleset = load_ruleset()
        phase, presenting = opening(ruleset, START)
        ctx = Context(actor="setup", actor_name="setup", channel=ChannelRole.OTHER, at=START, event_id="setup")
        action = StartRound(ruleset=ruleset, phase=phase, presenting_open=presenting, moderators=(ADMIN,))
        pauses = GcPauses()
        gc.callbacks.append(pauses)
        try:
            started = time.perf_counter()
            week.started = started
            outcome = await router.service.start(GUILD, ctx, action, seed=f"bench:{seed}")
            if not outcome.accepted:
                raise RuntimeError(f"could not start the bench round: {outcome.text()}")
            await _saturday(week, rng, bids=bids)
            await _auction(week, rng, bids=bids, trades=trades, lookups=lookups * 2 // 3)
            await week.run_due(THURSDAY)
            await _bartering(week, rng, lookups=lookups - lookups * 2 // 3)
            await week.run_due(SATURDAY)
            wall = time.perf_counter() - started
        finally:
            gc.callbacks.remove(pauses)
        state = await week.state()
    finally:
        await store.close()

    print(f"[bench] raw commits ({RAW_ROWS // 2:,} rows) again after the replay", file=sys.stderr, flush=True)
    raw_after = await raw_commits(raw_db, RAW_ROWS // 2)
    header = f"Nomic bench: {players:,} players, {bids:,} bids, {trades:,} trades, {lookups} look-ups, seed {seed!r}"
    return report(
        week,
        timed,
        pauses,
        raw_before=raw_before,
        raw_after=raw_after,
        wall=wall,
        db=db,
        state=state,
        header=header,
        kept=kept,
    )


# --- `python -m bot bench --offer-weeks N`: the cost of `!offer` after weeks of unanswered offers ---

OFFERS_PER_WEEK = 183
"""Unanswered offers a week; ten weeks of them is about the 1,825 open offers a long-running server had
when offers never expired."""
PROBE_OFFERS = 200
OFFER_RUNS = 5


def _median(values: Sequence[float]) -> float:
    ordered = sorted(values)
    middle = len(ordered) // 2
    return ordered[middle] if len(ordered) % 2 else (ordered[middle - 1] + ordered[middle]) / 2


async def _unanswered_offers(week: Week, rng: random.Random, *, weeks: int, per_week: int) -> datetime:
    """``per_week`` offers nobody answers in each of ``weeks`` weeks; returns the probing instant."""
    ga = ChannelRole.GAME_ACTIONS
    await week.command(ADMIN, ga, "!admin set auction.weekly_points 100", "admin_set", START)
    for at, player in zip(_spread(START, SUNDAY - timedelta(hours=1), len(week.players)), week.players, strict=True):
        await week.command(player, ga, "!join", "join", at)
    for n in range(weeks):
        start = SUNDAY + timedelta(days=7 * n)
        for at in _spread(start, start + timedelta(days=6), per_week):
            offerer, target = rng.sample(week.players, 2)
            await week.command(offerer, ga, f"!offer @{target} give nothing for 1 points", "offer", at)
    # the last week's Saturday, after its offers and before it ends: they are all still open
    return SUNDAY + timedelta(days=7 * (weeks - 1) + 6, hours=1)


async def _probe_offers(week: Week, at: datetime, probes: int) -> tuple[float, float]:
    """Median ms of ``probes`` offers through the router (each cancelled again, untimed) and of
    the same offer in the rules alone (``engine.apply``, no store)."""
    ga = ChannelRole.GAME_ACTIONS
    prober, target = week.players[0], week.players[1]
    state = await week.state()
    ctx = Context(actor=prober, actor_name=prober, channel=ga, at=at, event_id="probe")
    action = commands.parse(f"!offer @{target} give nothing for 1 points", week.resolve)
    rules: list[float] = []
    for _ in range(probes):
        started = time.perf_counter()
        engine.apply(state, ctx, action, action_rng(state.seed, state.seq + 1))
        rules.append(time.perf_counter() - started)
    routed: list[float] = []
    for i in range(probes):
        moment = at + timedelta(seconds=2 * i)
        before = len(week.samples)
        if not await week.command(prober, ga, f"!offer @{target} give nothing for 1 points", "probe", moment):
            raise RuntimeError("a probe offer was refused")
        routed.append(week.samples[before].seconds)
        number = (await week.state()).next_trade - 1
        await week.command(prober, ga, f"!cancel {number}", "cancel", moment + timedelta(seconds=1))
    return _median(routed) * 1000, _median(rules) * 1000


async def offers_bench(
    *,
    weeks: int,
    players: int,
    seed: str,
    where: Path | None,
    per_week: int = OFFERS_PER_WEEK,
    runs: int = OFFER_RUNS,
) -> int:
    """Weeks of unanswered offers, then ``!offer`` timed: min and median over ``runs`` rounds."""
    if players < 2 or weeks < 1 or per_week < 0:
        print("the offer bench needs at least 2 players and no negative counts", file=sys.stderr)
        return 2
    at_the_end = printed()
    try:
        return await _offers_bench(weeks=weeks, players=players, seed=seed, where=where, per_week=per_week, runs=runs)
    finally:
        at_the_end()


async def _offers_bench(*, weeks: int, players: int, seed: str, where: Path | None, per_week: int, runs: int) -> int:
    routed: list[float] = []
    rules: list[float] = []
    open_offers = closed = snapshot = 0
    with tempfile.TemporaryDirectory(prefix="nomic-offers-") as tmp:
        folder = where if where is not None else Path(tmp)
        folder.mkdir(parents=True, exist_ok=True)
        for run in range(runs):
            db = folder / f"offers-{seed}-{run}-{time.time_ns()}.db"
            store = await Store.open(db, synchronous="FULL")
            try:
                router = Router(RoundService(TimedStore(store)))
                rng = random.Random(f"offers:{seed}")
                names = [f"p{i}" for i in range(1, players + 1)]
                week = Week(router=router, rng=rng, players=names, members={*names, ADMIN})
                ruleset = load_ruleset()
                phase, presenting = opening(ruleset, START)
                ctx = Context(actor="setup", actor_name="setup", channel=ChannelRole.OTHER, at=START, event_id="setup")
                start = StartRound(ruleset=ruleset, phase=phase, presenting_open=presenting, moderators=(ADMIN,))
                await router.service.start(GUILD, ctx, start, seed=f"offers:{seed}")
                at = await _unanswered_offers(week, rng, weeks=weeks, per_week=per_week)
                await week.run_due(at)
                state = await week.state()
                open_offers, closed = len(state.trades), len(state.closed_trades)
                snapshot = len(state.model_dump_json())
                median_routed, median_rules = await _probe_offers(week, at, PROBE_OFFERS)
            finally:
                await store.close()
            routed.append(median_routed)
            rules.append(median_rules)
            print(
                f"[bench] run {run + 1}/{runs}: !offer {median_routed:.3f} ms, rules {median_rules:.3f} ms",
                file=sys.stderr,
                flush=True,
            )
    lines = [
        (
            f"Offer bench: {players} players, {weeks} weeks of {per_week} unanswered offers,"
            f" {PROBE_OFFERS} probe offers a run, {runs} runs, seed {seed!r}"
        ),
        f"  {'open offers when probing':<48}{open_offers:>10,}",
        f"  {'closed trades kept in the state':<48}{closed:>10,}",
        f"  {'state snapshot':<48}{snapshot / 1000:>10.1f} KB",
        (
            f"  {'!offer through the router (median of a run)':<48}min {min(routed):.3f} ms,"
            f" median {_median(routed):.3f} ms"
        ),
        f"  {'!offer in the rules alone (median of a run)':<48}min {min(rules):.3f} ms, median {_median(rules):.3f} ms",
    ]
    print("\n".join(lines))
    return 0
