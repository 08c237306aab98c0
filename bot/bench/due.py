"""``python -m bot bench --due``: the check for scheduled work made before every command, by guild size.

``Router.due_work`` runs before each command and each scenario line; when nothing is due it should cost
the same whatever the guild holds. Each case is a guild of its own on one on-disk store: a round
(Monday morning, lots up, ``requests`` open requests, as many urgent proposals in their vote), ``tables``
Wikipedia games under way and a card library of ``designs`` designs. Two figures a case:

* nothing changed: the check asked again and again (CPU time a check, and the Python calls a check
  makes, a count no load on the machine can blur);
* after an action: the first check after a member's ``!join`` (a new state of the round).

With ``--baseline DIR`` a worker on that checkout (e.g. ``git worktree add /tmp/before main``) measures the
same cases, the two taking turns run by run. A checkout without a card library measures its cases without
designs only. This file is the worker too (run on the other checkout's packages), so it imports the bot's
modules only inside the worker.
"""

from __future__ import annotations

import json
import os
import statistics
import sys
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from bot.router import Router
    from data.library_store import LibraryStore
    from data.store import Store
    from data.table_store import TableStore
    from games.ictc.service import LibraryService
    from games.nomic.context import ChannelRole, Context

HERE = Path(__file__).resolve().parents[2]
"""This checkout."""

CASES: tuple[tuple[int, int, int], ...] = (
    (0, 0, 0),
    (100, 0, 0),
    (1000, 0, 0),
    (0, 10, 0),
    (0, 100, 0),
    (0, 0, 100),
    (1000, 100, 100),
)
"""(designs, tables, requests) of each guild."""
CHECKS = 2000
CHANGES = 200

Found = dict[str, list[float]]


def _case_name(case: Sequence[int]) -> str:
    designs, tables, requests = case
    return f"{designs:,} designs, {tables} tables, {requests} requests"


# --- the guilds and the worker (on either checkout's packages) ----------------------------------------

START = datetime(2026, 12, 7, 9, tzinfo=UTC)
"""A Monday morning: the round's next boundary is Thursday, every reminder of a case falls after noon."""


def context(actor: str, channel: ChannelRole, event: str, at: datetime = START) -> Context:
    from games.nomic.context import Context

    return Context(actor=actor, actor_name=actor, channel=channel, at=at, is_moderator=actor == "mod", event_id=event)


async def build_guild(router: Router, guild: str, designs: int, tables: int, requests: int) -> None:
    """A round with lots up, ``requests`` open requests and as many urgent proposals in their vote, ``tables``
    Wikipedia games under way, and a card library of ``designs`` designs (as if read from the store)."""
    from games.nomic.actions import Action, AdminLot, Join, MakeRequest, Propose, StartRound
    from games.nomic.cards import Card
    from games.nomic.context import ChannelRole
    from games.nomic.ruleset import Ruleset
    from games.tables.service import Actor
    from scheduler.due import opening

    ruleset = Ruleset()
    phase, presenting = opening(ruleset, START)
    begin = StartRound(ruleset=ruleset, phase=phase, presenting_open=presenting, moderators=("mod",))
    await router.service.start(guild, context("setup", ChannelRole.OTHER, "setup"), begin, seed="s")
    moves: list[tuple[str, ChannelRole, Action]] = [
        ("mod", ChannelRole.GAME_ACTIONS, AdminLot(cards=(Card.parse("AS"), Card.parse("KH"))))
    ]
    moves += [(f"p{n}", ChannelRole.GAME_ACTIONS, Join()) for n in range(max(requests, 1))]
    for n in range(requests):
        moves.append((f"p{n}", ChannelRole.GAME_ACTIONS, MakeRequest(text=f"Does rule {n} allow it?")))
        moves.append((f"p{n}", ChannelRole.PROPOSALS, Propose(message=f"u{n}", text=f"urgent: typo {n}")))
    for n, (actor, channel, action) in enumerate(moves):
        outcome = await router.service.act(guild, context(actor, channel, f"r{n}"), action)
        if not outcome.accepted:
            raise RuntimeError(f"{guild}: {action.kind} refused: {outcome.error}")
    table_service = router.tables
    if tables and table_service is None:
        raise RuntimeError("tables asked of a router without them")
    if table_service is not None:
        for n in range(tables):
            name = f"wikipedia-{n + 1}"
            for actor, text, thread in (
                (f"a{n}", "!play wikipedia", None),
                (f"b{n}", "!join", name),
                (f"b{n}", "!start", name),
            ):
                posts = await table_service.command(
                    guild, Actor(actor, actor), text, at=START, event_id=f"{name}{text}", thread=thread
                )
                if not posts or any(p.error for p in posts):
                    raise RuntimeError(f"{guild}: {text} at {name} refused")
    if designs:
        from bot.bench.cards import library_of

        if router.library is None:
            raise RuntimeError("designs asked of a router without the card library")
        router.library._states[guild] = library_of(designs, guild)


def _worker(cases: Sequence[tuple[int, int, int]]) -> None:  # pragma: no cover - run in a subprocess
    import asyncio
    import tempfile

    with tempfile.TemporaryDirectory(prefix="nomic-due-bench-") as tmp:
        asyncio.run(_serve(Path(tmp) / "due.db", cases))


async def _serve(path: Path, cases: Sequence[tuple[int, int, int]]) -> None:  # pragma: no cover - subprocess
    import time
    from datetime import timedelta

    from bot.router import Router
    from data.store import Store
    from data.table_store import TableStore
    from games.nomic.actions import Join
    from games.nomic.context import ChannelRole
    from games.nomic.service import RoundService
    from games.tables.service import TableService

    store = await Store.open(path, synchronous="NORMAL")
    table_store = await TableStore.open(path)
    table_service = TableService(table_store, seed="1")
    closing: list[Store | TableStore | LibraryStore] = [table_store, store]
    library: LibraryService | None = None
    try:
        from data.library_store import LibraryStore
        from games.ictc.service import LibraryService

        library_store = await LibraryStore.open(path, synchronous="NORMAL", store=store)
        closing.insert(0, library_store)
        library = LibraryService(library_store)
    except ImportError:  # a checkout from before the card library
        cases = [case for case in cases if case[0] == 0]
    service = RoundService(store)
    router = Router(service, table_service) if library is None else Router(service, table_service, library)
    guilds: dict[tuple[int, int, int], str] = {}
    for case in cases:
        guild = guilds[case] = "g-" + "-".join(str(n) for n in case)
        await build_guild(router, guild, *case)
    now = START + timedelta(minutes=5)
    for guild in guilds.values():
        await router.due_work(guild, now)
    calls = {guild: await _calls_a_check(router, guild, now) for guild in guilds.values()}
    print("ready", flush=True)
    joined = 0
    for line in sys.stdin:
        if line.strip() != "run":
            break
        found: dict[str, float] = {}
        for case, guild in guilds.items():
            name = _case_name(case)
            began = time.process_time()
            for _ in range(CHECKS):
                await router.due_work(guild, now)
            found[f"same|{name}"] = (time.process_time() - began) / CHECKS
            spent = 0.0
            for _ in range(CHANGES):
                joined += 1
                await router.service.act(
                    guild, context(f"x{joined}", ChannelRole.GAME_ACTIONS, f"x{joined}", now), Join()
                )
                began = time.process_time()
                await router.due_work(guild, now)
                spent += time.process_time() - began
            found[f"after|{name}"] = spent / CHANGES
            found[f"calls|{name}"] = calls[guild]
        print(json.dumps(found), flush=True)
    for each in closing:
        await each.close()


async def _calls_a_check(router: Router, guild: str, now: datetime) -> float:  # pragma: no cover - subprocess
    """The Python calls of one check, nothing having changed (``sys.setprofile``)."""
    calls = 0

    def profile(frame: object, event: str, arg: object) -> None:
        nonlocal calls
        if event in ("call", "c_call"):
            calls += 1

    await router.due_work(guild, now)
    sys.setprofile(profile)
    try:
        await router.due_work(guild, now)
    finally:
        sys.setprofile(None)
    return float(calls)


# --- the bench ---------------------------------------------------------------------------------------


def measure(versions: dict[str, Path], runs: int, cases: Sequence[tuple[int, int, int]] = CASES) -> dict[str, Found]:
    """Each version's figures, run by run, the versions taking turns."""
    from bot.bench.turns import Worker, in_turn  # (here: the worker runs this file on another checkout's packages)

    args = [str(Path(__file__).resolve()), ";".join(",".join(str(n) for n in case) for case in cases)]
    answers = in_turn({label: Worker(path, args) for label, path in versions.items()}, runs, "due check")
    found: dict[str, Found] = {}
    for label, runs_found in answers.items():
        into = found[label] = {}
        for answer in runs_found:
            for key, value in answer.items():
                into.setdefault(key, []).append(float(value))
    return found


def report(
    found: dict[str, Found],
    versions: dict[str, Path],
    runs: int,
    load: Sequence[float],
    cases: Sequence[tuple[int, int, int]] = CASES,
) -> str:
    labels = list(found)
    cell = 26
    lines = [
        (
            "The check for scheduled work with nothing due, Router.due_work (µs of CPU a check over"
            f" {runs} runs, versions in turn: min / median; Python calls a check in brackets)"
        ),
        f"  load average at the start: {' '.join(f'{x:.2f}' for x in load)}",
        *(f"  {label}: {path}" for label, path in versions.items()),
        f"    {'':<40}" + "".join(f"  {label[:cell]:>{cell}}" for label in labels),
    ]
    for kind, title in (("same", "nothing changed since the last check"), ("after", "first check after a !join")):
        lines.append(f"  {title}:")
        for case in cases:
            name = _case_name(case)
            row = f"    {name:<40}"
            for label in labels:
                seconds = found[label].get(f"{kind}|{name}", [])
                calls = found[label].get(f"calls|{name}", [])
                if not seconds:
                    row += f"  {'-':>{cell}}"
                    continue
                text = f"{min(seconds) * 1e6:.1f} / {statistics.median(seconds) * 1e6:.1f}"
                if kind == "same" and calls:
                    text += f" ({calls[0]:.0f})"
                row += f"  {text:>{cell}}"
            lines.append(row)
    return "\n".join(lines)


def due_bench(runs: int, baseline: Path | None = None) -> str:
    """The report: this version's figures, and ``baseline``'s beside them when given."""
    versions = {"before": baseline} if baseline is not None else {}
    versions["this version"] = HERE
    load = os.getloadavg()
    return report(measure(versions, runs), versions, runs, load)


if __name__ == "__main__":  # pragma: no cover - the worker, on a checkout's packages
    _worker([(int(d), int(t), int(r)) for d, t, r in (case.split(",") for case in sys.argv[1].split(";"))])
