"""The week's three big ticks at several server sizes, side by side (part of ``python -m bot bench``).

For each size the rules alone (no store) build the states just before the auction start, the
settlement and the placements, with every player taking part: each one bids, receives five
cards and presents them; and once more the placements after a moderator changed how hands
rank, so that every hand is ranked again. Each state then enters an on-disk store as a
snapshot, as if the week had been played there, and the tick runs the way the live scheduler
runs it (``Router.due_work``: rules, the durable commit, the posts). Runs are interleaved (every
size and tick once per run) so that a machine that slows down mid-way slows every column alike.

Nothing is collected before a timed tick: the bot's own policy (``bot.memory``) settles the
collector after each tick as the bot does, and full collections that still fall inside a timed
tick are counted (``--tick-gc python`` leaves Python's collector as it is, for comparison).
"""

from __future__ import annotations

import gc
import random
import statistics
import sys
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from bot.memory import Memory
from bot.router import Router
from data.store import Store
from games.nomic import engine
from games.nomic.actions import Action, AdminGive, AdminLot, AdminSet, Join, PlaceBid, PresentHand, StartRound, Tick
from games.nomic.cards import Card
from games.nomic.common import Transition
from games.nomic.context import ChannelRole, Context
from games.nomic.items import Items
from games.nomic.phases import BoundaryKind
from games.nomic.rulelang import force, triggers
from games.nomic.ruleset import load_ruleset
from games.nomic.service import RoundService, action_rng
from games.nomic.state import RoundState
from scheduler.due import next_tick, opening

SIZES = (300, 1_000, 3_000)
RUNS = 5
BIDS_PER_PLAYER = 3
GOAL_MS = 50.0
ADMIN = "admin"
START = datetime(2026, 1, 3, 6, 0, tzinfo=UTC)
"""A Saturday morning after placements: the players join before Sunday's auction start."""

_LABELS = {
    BoundaryKind.AUCTION_START: "auction start",
    BoundaryKind.AUCTION_END: "settlement",
    BoundaryKind.PLACEMENTS: "placements",
}
RERANKED = " (re-ranked)"
"""The label's end for the placements after the ranking options changed."""


@dataclass(frozen=True)
class TickCase:
    """A state and the tick due next on it."""

    label: str
    state: RoundState
    tick: Tick


@dataclass
class Timings:
    wall: list[float]
    rules: list[float]
    full_collections: int = 0
    """Full collections of Python's collector that fell inside the timed ticks."""


def _apply(state: RoundState, actor: str, channel: ChannelRole, action: Action, at: datetime) -> RoundState:
    ctx = Context(actor=actor, actor_name=actor, channel=channel, at=at, is_moderator=actor == ADMIN)
    return engine.apply(state, ctx, action, action_rng(state.seed, state.seq + 1)).state


def _advance(state: RoundState, tick: Tick) -> RoundState:
    return engine.advance(state, tick, action_rng(state.seed, state.seq + 1)).state


def _case(state: RoundState, note: str = "") -> TickCase:
    """The next boundary's tick and the state before it (the reminders' ticks before it applied)."""
    tick = next_tick(state)
    while not tick.boundaries:
        state = _advance(state, tick)
        tick = next_tick(state)
    label = " + ".join(_LABELS.get(kind, kind.value) for kind in tick.boundaries) or "tick"
    return TickCase(label + note, state, tick)


def _card(rng: random.Random) -> Card:
    return Card.roll(rng)[0]


def tick_cases(players: int, seed: str) -> list[TickCase]:
    """The states before the auction start, the settlement and the placements of one busy week, and
    the placements once more after a moderator made poker kickers the tie-break."""
    rng = random.Random(f"ticks:{seed}:{players}")
    ruleset = load_ruleset()
    phase, presenting = opening(ruleset, START)
    setup = Context(actor="setup", actor_name="setup", channel=ChannelRole.OTHER, at=START)
    start = StartRound(ruleset=ruleset, phase=phase, presenting_open=presenting, moderators=(ADMIN,))
    state = engine.start_round("ticks", f"bench:{seed}", setup, start).state
    ga, auctions = ChannelRole.GAME_ACTIONS, ChannelRole.AUCTIONS
    lots = ruleset.auction.lots_per_auction
    bids = players * BIDS_PER_PLAYER
    # Enough weekly points that the rising bids stay affordable (about two points a step).
    grant = max(100, bids * 4 // lots)
    state = _apply(state, ADMIN, ga, AdminSet(option="auction.weekly_points", value=str(grant)), START)
    names = [f"p{i}" for i in range(1, players + 1)]
    for name in names:
        state = _apply(state, name, ga, Join(), START)
    for _ in range(lots):
        state = _apply(state, ADMIN, ga, AdminLot(cards=(_card(rng), _card(rng))), START)

    cases = [_case(state)]
    state = _advance(cases[-1].state, cases[-1].tick)
    at = state.clock + timedelta(hours=1)
    top = dict.fromkeys(state.lots, 0)
    numbers = sorted(top)
    for _ in range(bids):
        number = rng.choice(numbers)
        amount = top[number] + rng.randint(1, 3)
        bidder = rng.choice(names)
        if state.players[bidder].points >= amount:
            state = _apply(state, bidder, auctions, PlaceBid(lot=number, amount=amount), at)
            top[number] = amount

    cases.append(_case(state))
    state = _advance(cases[-1].state, cases[-1].tick)
    at = state.clock + timedelta(hours=1)
    for name in names:
        hand = tuple(_card(rng) for _ in range(5))
        state = _apply(state, ADMIN, ga, AdminGive(target=name, items=Items(cards=hand)), at)
        state = _apply(state, name, ga, PresentHand(cards=hand), at)
    cases.append(_case(state))
    changed = _apply(state, ADMIN, ga, AdminSet(option="hands.poker_kickers", value="true"), at)
    cases.append(_case(changed, RERANKED))
    return cases


class _FullCollections:
    """Counts the collector's full collections (generation 2) while ``counting``."""

    def __init__(self) -> None:
        self.counting = False
        self.seen = 0

    def __call__(self, phase: str, info: dict[str, int]) -> None:
        if self.counting and phase == "start" and info["generation"] == 2:
            self.seen += 1


async def _run_tick(
    store: Store, router: Router, guild: str, case: TickCase, *, memory: Memory, full: _FullCollections
) -> tuple[float, int]:
    """Put the state in the store as the guild's snapshot, load it, and time its tick.

    Returns the seconds and the full collections during the tick.
    """
    state = case.state.model_copy(update={"guild": guild})
    # One setup row under the snapshot, so that the guild exists and nothing needs replaying.
    await store.append(
        guild,
        seq=state.seq,
        event_id="bench:setup",
        at=state.clock,
        actor="setup",
        kind="start_round",
        body="{}",
        seed=state.seed,
        snapshot=state.model_dump_json(),
    )
    if await router.service.state(guild) != state:
        raise RuntimeError(f"guild {guild}: the stored state does not load back as it was")
    seen = full.seen
    full.counting = True
    started = time.perf_counter()
    await router.due_work(guild, case.tick.at)
    elapsed = time.perf_counter() - started
    full.counting = False
    memory.settle()  # as the bot does after scheduled work
    after = await router.service.state(guild)
    if after is None or after.clock != case.tick.at:
        raise RuntimeError(f"guild {guild}: the tick at {case.tick.at.isoformat()} was not applied")
    router.service.forget(guild)
    return elapsed, full.seen - seen


def _rules_seconds(case: TickCase) -> float:
    gc.collect()
    started = time.perf_counter()
    _advance(case.state, case.tick)
    return time.perf_counter() - started


async def measure(
    sizes: Sequence[int], runs: int, seed: str, folder: Path, *, memory: Memory | None = None
) -> dict[tuple[str, int], Timings]:
    memory = memory if memory is not None else Memory()
    cases: dict[int, list[TickCase]] = {}
    for size in sizes:
        print(f"[bench] building the ticks' states for {size:,} players", file=sys.stderr, flush=True)
        cases[size] = tick_cases(size, seed)
    timings: dict[tuple[str, int], Timings] = {}
    full = _FullCollections()
    gc.callbacks.append(full)
    store = await Store.open(folder / f"ticks-{seed}-{time.time_ns()}.db", synchronous="FULL")
    try:
        router = Router(RoundService(store))
        memory.settle()  # the states are built: as the bot does once they are loaded
        for run in range(runs):
            print(f"[bench] ticks, run {run + 1} of {runs}", file=sys.stderr, flush=True)
            for size in sizes:
                for n, case in enumerate(cases[size]):
                    guild = f"ticks-{size}-{n}-{run}"
                    wall, collections = await _run_tick(store, router, guild, case, memory=memory, full=full)
                    timing = timings.setdefault((case.label, size), Timings([], []))
                    timing.wall.append(wall)
                    timing.full_collections += collections
                    timing.rules.append(_rules_seconds(case))
    finally:
        gc.callbacks.remove(full)
        await store.close()
    return timings


def report(timings: dict[tuple[str, int], Timings], sizes: Sequence[int], runs: int, *, policy: str = "bot") -> str:
    cell = 24
    head = "".join(f"  {f'{size:,} players':>{cell}}" for size in sizes)
    label_width = max(16, *(len(label) + 1 for label, _ in timings))
    lines = [
        f"Ticks by server size (ms over {runs} runs: wall min / median, [rules alone, min]; goal < {GOAL_MS:.0f})",
        f"  {'':<{label_width}}{head}",
    ]
    labels = list(dict.fromkeys(label for label, _ in timings))
    for label in labels:
        row = f"  {label:<{label_width}}"
        for size in sizes:
            timing = timings.get((label, size))
            if timing is None:
                row += f"  {'-':>{cell}}"
                continue
            low = min(timing.wall) * 1000
            mid = statistics.median(timing.wall) * 1000
            rules = min(timing.rules) * 1000
            text = f"{low:.1f} / {mid:.1f} [{rules:.1f}]{'' if mid < GOAL_MS else ' OVER'}"
            row += f"  {text:>{cell}}"
        lines.append(row)
    collections = sum(t.full_collections for t in timings.values())
    ticks = sum(len(t.wall) for t in timings.values())
    collector = "the bot's (bot.memory)" if policy == "bot" else "Python's defaults"
    lines.append(f"Full garbage collections inside the {ticks} timed ticks: {collections} (collector: {collector})")
    return "\n".join(lines)


RULE_BLOCKS = (
    ("4.5", "when an auction phase ends:\n  every player who bid on no lot loses 10 points"),
    ("6.5", "when a hand is presented:\n  if its category is five of a kind: the player gains 1 spm"),
    ("8.4", 'item "Star" is a token\nwhen placements are made: every player who placed in the top 10 gains a Star'),
    ("10.9", "when a proposal fails:\n  its proposer loses 5 points"),
    ("12.4", "when an auction phase starts:\n  the judge gains 20 points"),
)
"""A round's rules for the rule triggers' timing: the four every round can have, and one that looks at
every player at the placements."""
EVERY_PLAYER_BLOCK = ("1.9", "when the week ends: every player who has under 50 points gains 5 points")
"""A rule that changes every player (all have fewer than 50 points before the weekly grant): the most a
tick's rule can cost, one new holding per player."""
RULE_SETS: dict[str, force.Blocks] = {
    "a round's rules": RULE_BLOCKS,
    "a round's rules and one changing every player": (*RULE_BLOCKS, EVERY_PLAYER_BLOCK),
}
RULES_GOAL_MS = 20.0


@contextmanager
def _in_force(blocks: force.Blocks) -> Iterator[None]:
    """``blocks`` in force while timing (the ruleset document is where a round keeps them)."""
    original = force.blocks_in_force

    def given(state: RoundState) -> force.Blocks:
        del state
        return blocks

    force.blocks_in_force = given
    try:
        yield
    finally:
        force.blocks_in_force = original


class _TimedTriggers:
    """The time a tick spends in the rule triggers (``triggers.fire`` and the bids counted for them)."""

    def __init__(self) -> None:
        self.seconds = 0.0

    @contextmanager
    def counting(self) -> Iterator[None]:
        fire, bids = triggers.fire, triggers.bids_before_settlement

        def timed_fire(*args: Any, **kwargs: Any) -> Transition:
            started = time.perf_counter()
            try:
                return fire(*args, **kwargs)
            finally:
                self.seconds += time.perf_counter() - started

        def timed_bids(state: RoundState) -> dict[str, int] | None:
            started = time.perf_counter()
            try:
                return bids(state)
            finally:
                self.seconds += time.perf_counter() - started

        triggers.fire, triggers.bids_before_settlement = timed_fire, timed_bids
        try:
            yield
        finally:
            triggers.fire, triggers.bids_before_settlement = fire, bids


Timed = dict[tuple[str, str, int], list[float]]
"""Seconds in the rule triggers by (set of rules, tick, server size), run by run."""


def rule_trigger_timings(sizes: Sequence[int], runs: int, seed: str) -> Timed:
    """The seconds each big tick (rules alone) spends in its rule triggers with each of ``RULE_SETS``
    in force (with no block in force the triggers are a look-up that finds nothing)."""
    found: Timed = {}
    for size in sizes:
        print(f"[bench] rule triggers: building the ticks' states for {size:,} players", file=sys.stderr, flush=True)
        cases = tick_cases(size, seed)
        for _ in range(runs):
            for name, blocks in RULE_SETS.items():
                for case in cases:
                    timer = _TimedTriggers()
                    with _in_force(blocks), timer.counting():
                        _rules_seconds(case)
                    found.setdefault((name, case.label, size), []).append(timer.seconds)
    return found


def rule_trigger_report(found: Timed, sizes: Sequence[int], runs: int) -> str:
    cell = 18
    head = "".join(f"  {f'{size:,} players':>{cell}}" for size in sizes)
    label_width = max(16, *(len(label) + 1 for _, label, _ in found))
    title = (
        "Rule triggers: time a tick spends in them, rules alone"
        f" (ms over {runs} runs: min / median; goal < {RULES_GOAL_MS:.0f})"
    )
    lines = [title, f"    {'':<{label_width}}{head}"]
    for name in dict.fromkeys(name for name, _, _ in found):
        lines.append(f"  with {name} ({len(RULE_SETS.get(name, ()))} blocks):")
        for label in dict.fromkeys(label for set_name, label, _ in found if set_name == name):
            row = f"    {label:<{label_width}}"
            for size in sizes:
                seconds = found.get((name, label, size))
                if not seconds:
                    row += f"  {'-':>{cell}}"
                    continue
                low, mid = min(seconds) * 1000, statistics.median(seconds) * 1000
                row += f"  {f'{low:.1f} / {mid:.1f}' + ('' if mid < RULES_GOAL_MS else ' OVER'):>{cell}}"
            lines.append(row)
    return "\n".join(lines)


async def tick_bench(sizes: Sequence[int], runs: int, seed: str, folder: Path, *, gc_policy: str = "bot") -> str:
    """The table of tick times by server size, and what rule blocks add to them; ``gc_policy`` ``python``
    leaves the collector as Python sets it."""
    memory = Memory(enabled=gc_policy == "bot")
    ticks = report(await measure(sizes, runs, seed, folder, memory=memory), sizes, runs, policy=gc_policy)
    rules = rule_trigger_report(rule_trigger_timings(sizes, runs, seed), sizes, runs)
    return f"{ticks}\n\n{rules}"
