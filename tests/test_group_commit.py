"""Group commit: concurrent actions share transactions, each answered only once its own committed.

The generic writer (``data.group_commit``) is checked on an in-memory engine, a property test
included; the round's service on the real SQLite writer: one busy guild and several guilds at
once, a failed transaction, a redelivered event inside a batch, the guild's lock let go while its
action commits, and a replay that shares its writer with another guild's load.
"""

from __future__ import annotations

import asyncio
import io
import shutil
import sqlite3
import subprocess
import sys
import textwrap
import threading
from collections.abc import Callable, Hashable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bot.router import Router
from bot.sim.replay import _run, read_scenario, replay
from data.base import ReplayProgress
from data.group_commit import Done, GroupCommit, Halted, Outcome, Superseded, Written
from data.library_store import LibraryConflictError, LibraryStore
from data.sqlite_writer import SqliteWriter
from data.store import Store
from data.stores import open_stores
from data.table_store import TableStore
from games.nomic.actions import AdminGive, Join, PlaceBid, StartRound
from games.nomic.context import ChannelRole, Context
from games.nomic.items import Items
from games.nomic.ruleset import Ruleset
from games.nomic.service import RoundService
from scheduler.due import opening

MONDAY = datetime(2026, 12, 7, 9, tzinfo=UTC)
"""In the auction phase."""
SCENARIOS = Path(__file__).parent / "scenarios"


# --- the generic writer, on an engine in memory -------------------------------------------------


@dataclass(eq=False)
class Job:
    name: str
    key: Hashable | None = None
    told: list[Outcome] = field(default_factory=list)

    def settled(self, outcome: Outcome) -> None:
        self.told.append(outcome)


class Engine:
    """Writes nothing; each batch waits until the test lets it finish, with the outcomes it chose."""

    def __init__(self) -> None:
        self.batches: list[list[str]] = []
        self._pending: list[tuple[list[Job], Done]] = []

    def start(self, jobs: Sequence[Job], done: Done) -> None:
        self.batches.append([job.name for job in jobs])
        self._pending.append((list(jobs), done))

    def finish(self, outcome_of: Callable[[Job], Outcome] | BaseException = lambda _: Written.STORED) -> None:
        jobs, done = self._pending.pop(0)
        if isinstance(outcome_of, BaseException):
            done(outcome_of)
            return
        broken: set[Hashable] = set()
        outcomes: list[Outcome] = []
        for job in jobs:
            outcome: Outcome = Superseded() if job.key in broken else outcome_of(job)
            if job.key is not None and outcome is not Written.STORED:
                broken.add(job.key)
            outcomes.append(outcome)
        done(outcomes)

    async def close(self) -> None:
        return None


async def turn() -> None:
    for _ in range(3):
        await asyncio.sleep(0)


async def test_jobs_queued_while_a_batch_commits_share_the_next_transaction() -> None:
    engine = Engine()
    writer: GroupCommit[Job] = GroupCommit(engine)
    first = writer.submit(Job("a1", "a"))
    rest = [writer.submit(Job(name, name[0])) for name in ("a2", "b1", "a3", "c1")]
    assert engine.batches == [["a1"]], "the first job is written at once"
    engine.finish()
    await turn()
    assert first.result() is Written.STORED
    assert not any(f.done() for f in rest), "nobody is answered before their own transaction committed"
    assert engine.batches == [["a1"], ["a2", "b1", "a3", "c1"]]
    engine.finish()
    await turn()
    assert [f.result() for f in rest] == [Written.STORED] * 4
    assert writer.batches == 2


async def test_a_failed_transaction_fails_its_jobs_and_the_queued_jobs_of_their_keys() -> None:
    engine = Engine()
    writer: GroupCommit[Job] = GroupCommit(engine)
    jobs = {name: Job(name, name[0]) for name in ("a1", "a2", "b1", "a3", "b2", "c1")}
    futures = {name: writer.submit(jobs[name]) for name in ("a1", "a2", "b1")}
    engine.finish()
    await turn()
    assert engine.batches[-1] == ["a2", "b1"]
    futures |= {name: writer.submit(jobs[name]) for name in ("a3", "b2", "c1")}  # queued meanwhile
    engine.finish(sqlite3.OperationalError("disk I/O error"))
    await turn()
    for name in ("a2", "b1"):
        assert isinstance(jobs[name].told[0], sqlite3.OperationalError)
        with pytest.raises(sqlite3.OperationalError):
            futures[name].result()
    for name in ("a3", "b2"):  # applied on top of what failed: not written either, to be applied again
        assert isinstance(jobs[name].told[0], Superseded)
        with pytest.raises(Superseded):
            futures[name].result()
    assert engine.batches[-1] == ["c1"], "another key's job is written as usual"
    engine.finish()
    await turn()
    assert futures["c1"].result() is Written.STORED
    assert all(len(job.told) == 1 for job in jobs.values())


async def test_a_writer_that_halts_on_failure_writes_nothing_after_the_first_failed_write() -> None:
    """A replay applies its next lines while earlier ones commit: once a write fails, no later one may be
    durable (a resumed run would skip the line that failed), whatever its key."""
    engine = Engine()
    writer: GroupCommit[Job] = GroupCommit(engine)
    writer.halt_on_failure = True
    jobs = {name: Job(name, name[0]) for name in ("a1", "a2", "b1", "c1")}
    first = writer.submit(jobs["a1"])
    queued = {name: writer.submit(jobs[name]) for name in ("a2", "b1")}
    later = writer.later(jobs["c1"])
    engine.finish(sqlite3.OperationalError("disk I/O error"))
    await turn()
    with pytest.raises(sqlite3.OperationalError):
        first.result()
    for name, future in [*queued.items(), ("c1", later)]:
        assert isinstance(jobs[name].told[0], Halted | Superseded), name
        with pytest.raises((Halted, Superseded)):
            future.result()
    assert engine.batches == [["a1"]], "nothing queued behind the failed write is written"
    with pytest.raises(Halted):
        writer.submit(Job("d1", "d"))
    with pytest.raises(Halted):
        writer.write(Job("e1"))
    assert engine.batches == [["a1"]]


async def test_a_duplicate_keeps_out_only_itself_and_the_later_jobs_of_its_key() -> None:
    engine = Engine()
    writer: GroupCommit[Job] = GroupCommit(engine)
    writer.submit(Job("first"))
    jobs = [Job("a-dup", "a"), Job("b1", "b"), Job("a2", "a"), Job("b2", "b")]
    futures = [writer.submit(job) for job in jobs]
    engine.finish()
    await turn()
    engine.finish(lambda job: Written.DUPLICATE if job.name == "a-dup" else Written.STORED)
    await turn()
    assert futures[0].result() is Written.DUPLICATE
    assert futures[1].result() is Written.STORED
    assert futures[3].result() is Written.STORED
    with pytest.raises(Superseded):
        futures[2].result()


async def test_a_write_on_an_idle_writer_that_is_not_stored_fails_the_jobs_of_its_key_queued_behind_it() -> None:
    engine = Engine()
    writer: GroupCommit[Job] = GroupCommit(engine)
    told: list[str] = []
    first = Job("a1", "a")
    written = writer.write(first, queued=lambda: told.append("queued"))
    assert told == ["queued"], "the caller may let others go ahead as soon as the job is queued"
    assert engine.batches == [["a1"]], "a job on an idle writer is written at once, alone"
    queued = {name: writer.submit(Job(name, name[0])) for name in ("a2", "b1")}
    engine.finish(lambda _: Written.DUPLICATE)
    await turn()
    assert await written is Written.DUPLICATE
    assert first.told == [Written.DUPLICATE]
    with pytest.raises(Superseded):
        queued["a2"].result()
    assert engine.batches == [["a1"], ["b1"]], "the other keys' jobs go on in the next batch"
    engine.finish()
    await turn()
    assert queued["b1"].result() is Written.STORED
    assert (writer.batches, writer.jobs) == (2, 3)
    again = writer.write(Job("a3", "a"))
    engine.finish()
    assert await again is Written.STORED, "the writer is idle again, and takes the next write alone"
    await writer.close()


async def test_a_cancelled_waiter_does_not_cut_its_write_short() -> None:
    engine = Engine()
    writer: GroupCommit[Job] = GroupCommit(engine)
    job = Job("a1", "a")
    waiting = asyncio.ensure_future(writer.write(job))
    await turn()
    waiting.cancel()
    await turn()
    assert engine.batches == [["a1"]]
    engine.finish()
    await turn()
    assert job.told == [Written.STORED], "the job is told what became of it all the same"
    await writer.close()


@settings(max_examples=60, deadline=None)
@given(
    steps=st.lists(
        st.one_of(
            st.tuples(st.just("submit"), st.sampled_from("abc")),
            st.tuples(st.just("finish"), st.sampled_from(["ok", "dup", "fail-job", "fail-all"])),
        ),
        max_size=40,
    )
)
def test_every_job_is_told_once_and_a_key_never_skips_over_a_job_not_written(steps: list[tuple[str, str]]) -> None:
    """Whatever the order of submissions and outcomes: each job is settled exactly once, and a job
    is written only if every job of its key queued before it was written or settled before it was
    queued (what it was applied on top of is then durable)."""

    async def play() -> None:
        engine = Engine()
        writer: GroupCommit[Job] = GroupCommit(engine)
        order: list[Job] = []
        settled_before: dict[str, set[str]] = {}  # job -> the jobs already settled when it was queued
        serial = iter(range(1000))
        for kind, value in steps:
            if kind == "submit":
                job = Job(f"{value}{next(serial)}", value)
                settled_before[job.name] = {j.name for j in order if j.told}
                order.append(job)
                writer.submit(job)
            elif engine._pending:
                chosen = value

                def outcome(job: Job, chosen: str = chosen) -> Outcome:
                    if job.name.endswith(("0", "5")) and chosen == "dup":
                        return Written.DUPLICATE
                    if job.name.endswith(("1", "7")) and chosen == "fail-job":
                        return ValueError("this job's own failure")
                    return Written.STORED

                engine.finish(RuntimeError("the disk is full") if value == "fail-all" else outcome)
            await turn()
        while engine._pending:
            engine.finish()
            await turn()
        assert all(len(job.told) == 1 for job in order), [(j.name, j.told) for j in order]
        for index, job in enumerate(order):
            if job.told[0] is not Written.STORED:
                continue
            for earlier in order[:index]:
                if earlier.key == job.key and earlier.told[0] is not Written.STORED:
                    assert earlier.name in settled_before[job.name], (
                        f"{job.name} was written on top of {earlier.name}, which was not"
                    )

    asyncio.run(play())


# --- the round's service on SQLite ----------------------------------------------------------------


def ctx(actor: str, event_id: str, channel: ChannelRole = ChannelRole.GAME_ACTIONS) -> Context:
    return Context(
        actor=actor, actor_name=actor, channel=channel, at=MONDAY, is_moderator=actor == "mod", event_id=event_id
    )


async def started(service: RoundService, guild: str, members: Sequence[str], points: int = 10_000) -> None:
    ruleset = Ruleset()
    phase, presenting = opening(ruleset, MONDAY)
    action = StartRound(ruleset=ruleset, phase=phase, presenting_open=presenting, moderators=("mod",))
    assert (await service.start(guild, ctx("setup", "setup", ChannelRole.OTHER), action, seed="s")).accepted
    for member in members:
        assert (await service.act(guild, ctx(member, f"join:{member}"), Join())).accepted
        if points:
            give = AdminGive(target=member, items=Items(points=points))
            assert (await service.act(guild, ctx("mod", f"give:{member}"), give)).accepted
    for n in range(2):
        await Router(service).message(guild, ctx("mod", f"lot:{n}"), f"!admin lot A{'SH'[n]} KD", lambda t: t)


@pytest.fixture
async def store(tmp_path: Path) -> Any:
    s = await Store.open(tmp_path / "round.db")
    yield s
    await s.close()


def logged(path: Path, guild: str) -> list[str]:
    """The guild's logged event ids in log order, read by another connection (what is on disk)."""
    conn = sqlite3.connect(path)
    try:
        rows = conn.execute("SELECT event_id FROM actions WHERE guild_id = ? ORDER BY seq", (guild,)).fetchall()
    finally:
        conn.close()
    return [str(r[0]) for r in rows]


@contextmanager
def held_writer() -> Iterator[threading.Event]:
    """The writer's thread stops before its next transaction until the event is set."""
    gate = threading.Event()
    original = SqliteWriter._run_batch

    def waiting(self: SqliteWriter, jobs: Sequence[Any]) -> list[Outcome]:
        gate.wait(timeout=30)
        return original(self, jobs)

    patch = pytest.MonkeyPatch()
    patch.setattr(SqliteWriter, "_run_batch", waiting)
    try:
        yield gate
    finally:
        gate.set()
        patch.undo()


async def test_fifty_members_bidding_at_once_share_commits_in_arrival_order(store: Store) -> None:
    service = RoundService(store)
    members = [f"m{i}" for i in range(50)]
    await started(service, "g", members)
    path = Path(store.path)
    on_disk_when_answered: list[bool] = []

    async def bid(n: int) -> None:
        event = f"bid:{n}"
        outcome = await service.act("g", ctx(members[n % 50], event, ChannelRole.AUCTIONS), PlaceBid(lot=1, amount=n))
        assert outcome.accepted, outcome.text()
        on_disk_when_answered.append(event in logged(path, "g"))

    before = store.writer.batches
    await asyncio.gather(*(bid(n) for n in range(1, 151)))
    assert all(on_disk_when_answered), "an answer came before its action was committed"
    assert store.writer.batches - before < 30, "concurrent actions should share transactions"
    assert [e for e in logged(path, "g") if e.startswith("bid:")] == [f"bid:{n}" for n in range(1, 151)]
    state = await service.state("g")
    assert state is not None
    assert state.lots[1].bids[-1].amount == 150
    assert await RoundService(store).state("g") == state, "the cache is what the log replays to"


async def test_the_guild_lock_is_let_go_while_its_action_commits(store: Store) -> None:
    service = RoundService(store)
    await started(service, "g", ["alice", "bob"])
    with held_writer() as gate:
        bid = ChannelRole.AUCTIONS
        first = asyncio.ensure_future(service.act("g", ctx("alice", "b1", bid), PlaceBid(lot=1, amount=5)))
        await turn()
        second = asyncio.ensure_future(service.act("g", ctx("bob", "b2", bid), PlaceBid(lot=1, amount=6)))
        for _ in range(50):
            await asyncio.sleep(0)
            if store.writer.waiting:
                break
        assert store.writer.waiting == 1, "bob's bid was applied and queued while alice's is not yet committed"
        assert not first.done()
        assert not second.done()
        assert (await service.state("g")).lots[1].bids == (), "readers see only what is committed"
        gate.set()
        assert (await first).accepted
        assert (await second).accepted
    assert [b.amount for b in (await service.state("g")).lots[1].bids] == [5, 6]


async def test_a_failed_transaction_answers_each_action_and_restores_the_cached_states(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A full disk, say: every action of the transaction gets the error (the adapters' "something went
    wrong" answer), and no cached state keeps what was not written."""
    service = RoundService(store)
    for guild in ("g", "h"):
        await started(service, guild, ["alice", "bob"])
    before = {guild: await service.state(guild) for guild in ("g", "h")}
    original = SqliteWriter._run_batch
    gate = threading.Event()
    calls = iter(range(1000))

    def failing(self: SqliteWriter, jobs: Sequence[Any]) -> list[Outcome]:
        call = next(calls)
        if call == 0:  # the first transaction waits, so the bids queue up behind it
            gate.wait(timeout=30)
        if call == 1:
            raise sqlite3.OperationalError("disk I/O error")
        return original(self, jobs)

    monkeypatch.setattr(SqliteWriter, "_run_batch", failing)
    blocker = asyncio.ensure_future(store.set_meta("hold", "1"))
    await turn()
    bids = [
        asyncio.ensure_future(service.act(g, ctx(m, f"{g}{m}", ChannelRole.AUCTIONS), PlaceBid(lot=1, amount=a)))
        for g, m, a in (("g", "alice", 5), ("h", "alice", 7), ("g", "bob", 9))
    ]
    await turn()
    assert store.writer.waiting == 3
    gate.set()
    await blocker
    results = await asyncio.gather(*bids, return_exceptions=True)
    assert all(isinstance(r, sqlite3.OperationalError) for r in results), results
    for guild in ("g", "h"):
        assert await service.state(guild) == before[guild]
        assert await RoundService(store).state(guild) == before[guild]
    # the store works on, and the same bids are taken now
    again = await service.act("g", ctx("alice", "ga2", ChannelRole.AUCTIONS), PlaceBid(lot=1, amount=5))
    assert again.accepted
    assert await RoundService(store).state("g") == await service.state("g")


async def test_a_redelivered_event_in_a_batch_stays_a_no_op_and_aborts_nothing(store: Store) -> None:
    service = RoundService(store)
    for guild in ("g", "h"):
        await started(service, guild, ["alice", "bob"], points=0)
    give = AdminGive(target="alice", items=Items(points=10))
    assert (await service.act("g", ctx("mod", "give-10"), give)).accepted
    with held_writer() as gate:
        blocker = asyncio.ensure_future(store.set_meta("hold", "1"))
        await turn()
        # the give comes again (the rules would take it again: only the log knows it), between others
        again = asyncio.ensure_future(service.act("g", ctx("mod", "give-10"), give))
        other = asyncio.ensure_future(service.act("h", ctx("mod", "h-give"), give))
        later = asyncio.ensure_future(
            service.act("g", ctx("alice", "g-bid", ChannelRole.AUCTIONS), PlaceBid(lot=1, amount=10))
        )
        await turn()
        assert store.writer.waiting == 3, "the three share the next transaction"
        gate.set()
        await blocker
        assert (await again).duplicate
        assert (await other).accepted
        assert (await later).accepted, "applied again on the state without the redelivered give, and taken"
    state = await service.state("g")
    assert state.players["alice"].points == 10, "the give counted once"
    assert state.lots[1].bids[-1].player == "alice"
    assert logged(Path(store.path), "g").count("give-10") == 1
    for guild in ("g", "h"):
        assert await RoundService(store).state(guild) == await service.state(guild)


async def test_a_redelivery_of_an_action_still_committing_is_a_no_op(store: Store) -> None:
    service = RoundService(store)
    await started(service, "g", ["alice"], points=0)
    give = AdminGive(target="alice", items=Items(points=10))
    with held_writer() as gate:
        first = asyncio.ensure_future(service.act("g", ctx("mod", "give-10"), give))
        await turn()
        assert (await service.act("g", ctx("mod", "give-10"), give)).duplicate
        gate.set()
        assert (await first).accepted
    assert (await service.state("g")).players["alice"].points == 10


async def test_tables_share_the_rounds_writer(tmp_path: Path) -> None:
    path = tmp_path / "both.db"
    store = await Store.open(path)
    tables = await TableStore.open(path, store=store)
    try:
        assert tables._writer is store.writer
        before = store.writer.batches
        await tables.attach_thread("g", "nothing-1", "123")
        assert store.writer.batches == before + 1
    finally:
        await tables.close()
        await store.close()


async def test_the_card_library_shares_the_rounds_writer_and_its_batches(tmp_path: Path) -> None:
    path = tmp_path / "both.db"
    store = await Store.open(path)
    cards = await LibraryStore.open(path, store=store)
    service = RoundService(store)
    try:
        await started(service, "g", ["alice"])
        at = datetime(2026, 1, 5, tzinfo=UTC)

        def action(seq: int, event: str) -> tuple[Any, Any]:
            changes = cards.changes(seq=seq, previous_seq=seq - 1, meta=f"m{seq}", first=seq == 1)
            return changes, cards.entry(event_id=event, at=at, actor="alice", kind="k", body="{}")

        before = store.writer.batches
        with held_writer() as gate:
            give = asyncio.ensure_future(
                service.act("g", ctx("mod", "give"), AdminGive(target="alice", items=Items(points=1)))
            )
            await turn()  # the give's batch waits at the writer; the next two queue behind it, together
            first = asyncio.ensure_future(cards.commit("g", *action(1, "c1")))
            stale = asyncio.ensure_future(cards.commit("g", *action(1, "c2")))
            await turn()
            gate.set()
            assert (await give).accepted
            assert await first
            with pytest.raises(LibraryConflictError):
                await stale
        assert store.writer.batches == before + 2, "no writer of its own: the library's actions ride a batch"
        assert not await cards.commit("g", *action(1, "c1")), "a redelivered event changes nothing"
        assert await cards.log("g") == [(1, "c1", "k")]
        assert (await cards.load("g")) is not None
    finally:
        await cards.close()
        await store.close()


# --- the replay: its lines in order, whatever else its writer carries -----------------------------


async def _replayed_beside_load(lines: list[Any], db: Path, until: datetime | None) -> tuple[dict[str, Any], list[Any]]:
    """The scenario replayed while another guild's actions keep the same writer busy."""
    progress = ReplayProgress()
    store = await Store.open(db, progress=progress)
    tables = await TableStore.open(db, progress=progress, store=store)
    cards = await LibraryStore.open(db, progress=progress, store=store)
    noise = RoundService(store)
    await started(noise, "noise", [f"n{i}" for i in range(8)])
    stop = asyncio.Event()
    batches: list[int] = []

    async def load(member: str) -> None:
        n = 0
        while not stop.is_set():
            n += 1
            give = AdminGive(target=member, items=Items(points=1))
            assert (await noise.act("noise", ctx("mod", f"{member}:{n}"), give)).accepted
            batches.append(store.writer.batches)

    workers = [asyncio.ensure_future(load(f"n{i}")) for i in range(8)]
    try:
        result = await _run(store, lines, seed="7", until=until, table_store=tables, library_store=cards)
    finally:
        stop.set()
        await asyncio.gather(*workers)
        await cards.close()
        await tables.close()
        await store.close()
    assert len(batches) > 20, "the load ran beside the replay"
    return result.document, result.transcript


async def test_a_replay_applies_its_next_lines_while_earlier_ones_commit(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """On a slow disk a replay does not wait for each commit before the next line: the round's everyday
    commands apply on top of the actions still committing, and share their transactions; each line is
    answered, in order, once durable, with the words and the state of a replay that waits each time."""
    lines = read_scenario(SCENARIOS / "week.jsonl", io.StringIO())
    until = datetime(2026, 12, 14, tzinfo=UTC)
    stores = await open_stores(tmp_path / "alone.db")
    try:
        one_by_one = await _run(
            stores.round, lines, seed="7", until=until, table_store=stores.tables, library_store=stores.cards
        )
    finally:
        await stores.close()
    run_batch = SqliteWriter._run_batch

    def slow(self: SqliteWriter, jobs: Sequence[Any]) -> list[Outcome]:
        threading.Event().wait(0.03)  # a slow disk: the next lines are applied meanwhile
        return run_batch(self, jobs)

    monkeypatch.setattr(SqliteWriter, "_run_batch", slow)
    batches: list[int] = []
    finish = GroupCommit._finish

    def counted(self: GroupCommit[Any], batch: list[Any], extra: Any, result: Any) -> None:
        batches.append(sum(1 for job, _ in batch if getattr(job, "event", None)))  # the actions in it
        finish(self, batch, extra, result)

    monkeypatch.setattr(GroupCommit, "_finish", counted)
    beside = await replay(lines, seed="7", db=tmp_path / "beside.db", until=until)
    assert beside.transcript == one_by_one.transcript
    assert beside.document == one_by_one.document
    assert max(batches) > 1, "every action waited for the commit of the one before"


@pytest.mark.parametrize(
    ("scenario", "until"),
    [
        ("week.jsonl", datetime(2026, 12, 14, tzinfo=UTC)),
        ("table_wikipedia.jsonl", datetime(2026, 12, 9, tzinfo=UTC)),
        ("governance_proposals.jsonl", None),
    ],
)
async def test_a_replay_sharing_its_writer_with_a_busy_guild_ends_the_same(
    tmp_path: Path, scenario: str, until: datetime | None
) -> None:
    lines = read_scenario(SCENARIOS / scenario, io.StringIO())
    alone = await replay(lines, seed="7", until=until)
    document, transcript = await _replayed_beside_load(lines, tmp_path / "busy.db", until)
    assert transcript == alone.transcript
    assert document == alone.document


# --- killed in the middle of a batch ----------------------------------------------------------------

_DYING_ON_COMMIT = textwrap.dedent(
    """
    def say(line):
        # one write per line: the writer's thread and the loop's print at once, and print's text and
        # its newline are two writes another thread's line can fall between
        os.write(1, (line + "\\n").encode())

    class Dying:
        # the writer's connection, killed with its process when it is told to COMMIT

        def __init__(self, conn, events):
            self._conn, self._events = conn, events

        def execute(self, sql, *args):
            if sql == "COMMIT":
                say("batch " + " ".join(self._events))
                os.kill(os.getpid(), signal.SIGKILL)
            return self._conn.execute(sql, *args)

        def __getattr__(self, name):
            return getattr(self._conn, name)
    """
).lstrip("\n")
"""The children's ``say`` and the writer's connection that kills its process at COMMIT (both scripts)."""


_KILLED_IN_A_BATCH = textwrap.dedent(
    """
    import asyncio, os, signal, sys
    from datetime import UTC, datetime
    from data.sqlite_writer import SqliteWriter
    from data.store import Store
    from games.nomic.actions import AdminGive, PlaceBid
    from games.nomic.context import ChannelRole
    from games.nomic.items import Items
    from games.nomic.service import RoundService
    from tests.test_group_commit import ctx, started

    transactions = 0
    original = SqliteWriter._transaction

    DYING_ON_COMMIT

    def killing(self, jobs, *, careful):
        # past the setup, the first transaction of several actions: every statement written, no COMMIT
        global transactions
        transactions += 1
        if transactions > 40 and len(jobs) >= 4:
            self._conn = Dying(self._conn, [job.event for job in jobs if getattr(job, "event", None)])
        return original(self, jobs, careful=careful)

    SqliteWriter._transaction = killing

    async def main():
        store = await Store.open(sys.argv[1])
        service = RoundService(store, snapshot_every=5)
        guilds = ["g1", "g2", "g3"]
        members = [f"m{i}" for i in range(6)]
        for guild in guilds:
            await started(service, guild, members)

        async def member(guild, name, n=0):
            while True:
                n += 1
                event = f"{guild}:{name}:{n}"
                if name == "mod":
                    action, where = AdminGive(target=members[n % 6], items=Items(points=1)), ChannelRole.GAME_ACTIONS
                else:
                    action, where = PlaceBid(lot=1 + n % 2, amount=1000 + n * 10 + int(name[1:])), ChannelRole.AUCTIONS
                outcome = await service.act(guild, ctx(name, event, where), action)
                if outcome.accepted:
                    say("ack " + event)

        await asyncio.gather(*(member(g, m) for g in guilds for m in [*members, "mod"]))

    asyncio.run(main())
    """
).replace("DYING_ON_COMMIT\n", _DYING_ON_COMMIT)


def test_killed_during_a_batch_every_answered_action_is_kept_and_none_is_half_written(tmp_path: Path) -> None:
    db = tmp_path / "killed.db"
    root = Path(__file__).resolve().parents[1]
    killed = subprocess.run(
        [sys.executable, "-c", _KILLED_IN_A_BATCH, str(db)],
        cwd=root,
        timeout=120,
        capture_output=True,
        check=False,
    )
    assert killed.returncode == -9, killed.stderr.decode()
    out = killed.stdout.decode().splitlines()
    acked = {line.split()[1] for line in out if line.startswith("ack ")}
    batches = [line.split()[1:] for line in out if line.startswith("batch ")]
    assert batches, f"killed outside a batch: {out[-3:]} {killed.stderr.decode()[-2000:]}"
    in_batch = batches[0]
    assert len(in_batch) >= 4
    assert len(acked) > 50

    conn = sqlite3.connect(db)
    try:
        rows = conn.execute("SELECT guild_id, event_id, kind FROM actions").fetchall()
        mod_log = dict(conn.execute("SELECT guild_id, COUNT(*) FROM mod_log GROUP BY guild_id").fetchall())
    finally:
        conn.close()
    kept = {event for _, event, _ in rows}
    assert acked <= kept, f"answered but lost: {sorted(acked - kept)[:5]}"
    assert not set(in_batch) & kept, "the transaction cut short left some of its actions"
    gives = {}
    for guild, _, kind in rows:
        gives[guild] = gives.get(guild, 0) + kind.startswith("admin_")
    assert mod_log == gives, "an action and its entry of the moderators' log are kept together or not at all"

    # the state after a restart: the latest snapshot plus the log after it, the same as the whole log
    whole = tmp_path / "whole.db"
    shutil.copyfile(db, whole)
    for suffix in ("-wal",):
        if db.with_name(db.name + suffix).exists():
            shutil.copyfile(db.with_name(db.name + suffix), whole.with_name(whole.name + suffix))

    async def states(path: Path, *, drop_snapshots: bool) -> dict[str, Any]:
        if drop_snapshots:
            raw = sqlite3.connect(path)
            raw.execute("DELETE FROM snapshots")
            raw.commit()
            raw.close()
        store = await Store.open(path)
        try:
            service = RoundService(store)
            return {guild: await service.state(guild) for guild in ("g1", "g2", "g3")}
        finally:
            await store.close()

    assert asyncio.run(states(db, drop_snapshots=False)) == asyncio.run(states(whole, drop_snapshots=True))


_KILLED_WITH_THE_LIBRARY = textwrap.dedent(
    """
    import asyncio, os, signal, sys
    from datetime import UTC, datetime
    from data.library_store import LibraryStore
    from data.sqlite_writer import SqliteWriter
    from data.store import Store
    from games.nomic.actions import PlaceBid
    from games.nomic.context import ChannelRole
    from games.nomic.service import RoundService
    from tests.test_group_commit import ctx, started

    batches = 0
    original = SqliteWriter.start

    DYING_ON_COMMIT

    def killing(self, jobs, done):
        # past the setup, the first batch of several jobs with a card action among them
        global batches
        batches += 1
        events = [job.event for job in jobs if getattr(job, "event", None)]
        if batches > 40 and len(jobs) >= 4 and any(event.startswith("lib:") for event in events):
            self._conn = Dying(self._conn, events)
        return original(self, jobs, done)

    SqliteWriter.start = killing

    async def main():
        store = await Store.open(sys.argv[1])
        cards = await LibraryStore.open(sys.argv[1], store=store)
        service = RoundService(store, snapshot_every=5)
        guilds = ["g1", "g2"]
        members = [f"m{i}" for i in range(6)]
        for guild in guilds:
            await started(service, guild, members)

        async def member(guild, name, n=0):
            while True:
                n += 1
                event = f"{guild}:{name}:{n}"
                action = PlaceBid(lot=1 + n % 2, amount=1000 + n * 10 + int(name[1:]))
                if (await service.act(guild, ctx(name, event, ChannelRole.AUCTIONS), action)).accepted:
                    say("ack " + event)

        async def library(guild, n=0):
            at = datetime(2026, 1, 5, tzinfo=UTC)
            while True:
                n += 1
                event = f"lib:{guild}:{n}"
                changes = cards.changes(seq=n, previous_seq=n - 1, meta=str(n), first=n == 1)
                entry = cards.entry(event_id=event, at=at, actor="m0", kind="card", body="{}")
                if await cards.commit(guild, changes, entry):
                    say("ack " + event)

        await asyncio.gather(*(member(g, m) for g in guilds for m in members), *(library(g) for g in guilds))

    asyncio.run(main())
    """
).replace("DYING_ON_COMMIT\n", _DYING_ON_COMMIT)


def test_killed_during_a_batch_with_card_actions_keeps_every_answered_one_and_no_half_of_the_others(
    tmp_path: Path,
) -> None:
    db = tmp_path / "killed.db"
    root = Path(__file__).resolve().parents[1]
    killed = subprocess.run(
        [sys.executable, "-c", _KILLED_WITH_THE_LIBRARY, str(db)],
        cwd=root,
        timeout=120,
        capture_output=True,
        check=False,
    )
    assert killed.returncode == -9, killed.stderr.decode()
    out = killed.stdout.decode().splitlines()
    acked = {line.split()[1] for line in out if line.startswith("ack ")}
    in_batch = next(line.split()[1:] for line in out if line.startswith("batch "))
    assert any(event.startswith("lib:") for event in in_batch)
    assert any(not event.startswith("lib:") for event in in_batch)
    assert any(event.startswith("lib:") for event in acked)

    conn = sqlite3.connect(db)
    try:
        kept = {str(r[0]) for r in conn.execute("SELECT event_id FROM actions UNION SELECT event_id FROM card_actions")}
        heads = dict(conn.execute("SELECT guild_id, seq FROM card_libraries").fetchall())
        logged = dict(conn.execute("SELECT guild_id, MAX(seq) FROM card_actions GROUP BY guild_id").fetchall())
    finally:
        conn.close()
    assert acked <= kept, f"answered but lost: {sorted(acked - kept)[:5]}"
    assert not set(in_batch) & kept, "the transaction cut short left some of its actions"
    assert heads == logged, "a library's row and its log are kept together or not at all"
