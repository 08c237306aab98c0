"""``python -m bot bench --cards N``: the card library at N designs, on disk.

Times what grows with the library: submitting a card (its comparison with every design of its type,
then the commit), approving one (a commit of one design's row), and reading the library back after
a restart. Each is run ``runs`` times; the table gives the minimum and the median.
"""

from __future__ import annotations

import random
import statistics
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

from bot.bench.machine import printed
from data.library_store import LibraryStore
from games.ictc import engine
from games.ictc.actions import NewCard
from games.ictc.service import LibraryService
from games.ictc.starter import initial_state
from games.ictc.state import DesignStatus, LibraryState
from games.nomic.context import ChannelRole, Context

T0 = datetime(2026, 12, 7, 9, tzinfo=UTC)
_WORDS = [
    "fire",
    "water",
    "imp",
    "dragon",
    "quick",
    "slow",
    "deal",
    "damage",
    "to",
    "each",
    "soldier",
    "player",
    "draw",
    "a",
    "card",
    "heal",
    "gain",
    "lose",
    "tap",
    "ready",
    "return",
    "hand",
    "until",
    "the",
    "end",
    "of",
    "turn",
    "when",
    "it",
    "attacks",
    "blocks",
    "dies",
    "enters",
    "play",
    "your",
    "opponent",
    "chooses",
]


def _ctx(actor: str, at: datetime, event: str = "") -> Context:
    return Context(actor=actor, actor_name=actor, channel=ChannelRole.OTHER, at=at, event_id=event)


def _card(rng: random.Random, number: int) -> dict[str, str]:
    kind = rng.choice(["soldier", "action", "flash", "power"])
    text = " ".join(rng.choice(_WORDS) for _ in range(rng.randint(12, 50)))[:340].capitalize() + "."
    raw = {"name": f"Card {number}", "type": kind, "cost": rng.choice(["R+1", "2G+2", "B", "3", "2K+X"]), "text": text}
    if kind == "soldier":
        raw["cr"] = str(rng.randint(1, 6))
    if kind == "power":
        raw |= {"output": "R", "cost": "0"}
    return raw


def library_of(size: int, seed: str) -> LibraryState:
    """A library of ``size`` submitted designs by 50 members, every seventh protected (built directly)."""
    rng = random.Random(seed)
    state = initial_state()
    for number in range(size):
        state = engine.apply(state, _ctx(f"m{number % 50}", T0), NewCard(raw=_card(rng, number))).state
    designs = {
        n: d.model_copy(update={"status": DesignStatus.PENDING, "protected": n % 7 == 0})
        if d.owner != "~starter"
        else d
        for n, d in state.designs.items()
    }
    return state.model_copy(update={"designs": designs})


def _row(name: str, times: list[float]) -> str:
    return f"| {name} | {min(times) * 1000:.1f} | {statistics.median(times) * 1000:.1f} |"


async def cards_bench(*, designs: int, runs: int, seed: str, where: Path | None) -> int:
    at_the_end = printed()
    try:
        return await _cards_bench(designs=designs, runs=runs, seed=seed, where=where)
    finally:
        at_the_end()


async def _cards_bench(*, designs: int, runs: int, seed: str, where: Path | None) -> int:
    with tempfile.TemporaryDirectory(prefix="nomic-cards-bench-") as tmp:
        path = (where or Path(tmp)) / "cards-bench.db"
        store = await LibraryStore.open(path, synchronous="FULL")
        try:
            timed = await _timed(store, designs=designs, runs=runs, seed=seed)
        finally:
            await store.close()  # a failed step too: an open connection keeps the process alive
    if timed is None:
        return 1
    submit, approve, load = timed
    print(f"Card library of {designs} designs (+ the starter set), {runs} runs, on disk (synchronous=FULL):\n")
    print("| step | min ms | median ms |\n| --- | --- | --- |")
    print(_row("`!card submit` (compare with the library, commit)", submit))
    print(_row("`!card approve` (commit one design)", approve))
    print(_row("read the library back after a restart", load))
    return 0


async def _timed(
    store: LibraryStore, *, designs: int, runs: int, seed: str
) -> tuple[list[float], list[float], list[float]] | None:
    """Submit, approve and load timings, or None when a step failed (said on standard output)."""
    service = LibraryService(store)
    built = library_of(designs, seed)
    service._states["g"] = built  # the bench seeds the cache, then commits it
    rng = random.Random(f"{seed}:runs")
    at = T0
    await service.command("g", _ctx("z", at, "first"), "!guild create Bench", lambda t: t)
    submit: list[float] = []
    approve: list[float] = []
    for run in range(runs):
        at += timedelta(minutes=1)
        raw = _card(rng, designs + run) | {"name": f"Probe {run}"}
        line = "!card new " + " | ".join(f"{k}: {v}" for k, v in raw.items())
        await service.command("g", _ctx("zed", at, f"new{run}"), line, lambda t: t)
        number = max((await service.state("g")).designs)
        started = time.perf_counter()
        said = await service.command("g", _ctx("zed", at, f"submit{run}"), f"!card submit #{number}", lambda t: t)
        submit.append(time.perf_counter() - started)
        if said.error is not None and "too close" not in str(said.error):
            print(f"submit failed: {said.error}")
            return None
        started = time.perf_counter()
        judged = await service.command("g", _ctx("yan", at, f"approve{run}"), f"!card approve #{number}", lambda t: t)
        approve.append(time.perf_counter() - started)
        if not judged.accepted and said.accepted:
            print(f"approve failed: {judged.error}")
            return None
    load: list[float] = []
    for _ in range(runs):
        service.forget("g")
        started = time.perf_counter()
        await service.state("g")
        load.append(time.perf_counter() - started)
    return submit, approve, load
