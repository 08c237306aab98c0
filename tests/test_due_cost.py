"""The check for scheduled work, made before every command and at every re-arm, costs the same whatever
the guild holds (designs in its card library, tables under way, requests and votes with reminders):
each source keeps its next due instant until what it was worked out from changes. And what it keeps is
what a process that has just started works out from the store."""

from __future__ import annotations

import asyncio
import random
import sys
import tempfile
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path
from types import FrameType

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bot.bench import due as due_bench
from bot.bench.due import START, build_guild, context
from bot.router import Router
from data.library_store import LibraryStore
from data.store import Store
from data.table_store import TableStore
from games.ictc.service import LibraryService
from games.nomic import engine
from games.nomic.actions import (
    Action,
    AdminLot,
    AdminSet,
    CastConfidence,
    Challenge,
    GiveRuling,
    Join,
    MakeRequest,
    PlaceBid,
    Propose,
    React,
    SetNotice,
    StartRound,
    Tick,
)
from games.nomic.context import ChannelRole
from games.nomic.errors import RuleError
from games.nomic.kept import forget_all
from games.nomic.ruleset import Ruleset
from games.nomic.service import RoundService
from games.nomic.state import RoundState, Vote
from games.tables.on_demand import TablesOnDemand
from games.tables.registry import register, unregister
from games.tables.service import TableService
from scheduler.due import next_tick, opening
from tests.ballot_game import BALLOT
from tests.ictc_support import resolve
from tests.support import cards, give, new_round

CHECKS = 20


@dataclass
class Stores:
    round: Store
    tables: TableStore
    library: LibraryStore

    def router(self, *, on_demand: bool = False) -> Router:
        """A router with empty caches on these stores: what a process that has just started sees (``on_demand``:
        its tables' service made when a guild first needs it, as a replay makes it)."""
        tables = self.on_demand() if on_demand else TableService(self.tables, seed="1")
        return Router(RoundService(self.round), tables, LibraryService(self.library))

    def on_demand(self) -> TablesOnDemand:
        return TablesOnDemand(lambda: TableService(self.tables, seed="1"), self.tables.any_table)

    async def close(self) -> None:
        await self.library.close()
        await self.tables.close()
        await self.round.close()


async def _open(path: Path) -> Stores:
    """The round's, the tables' and the card library's stores on one database file, as the bot runs them."""
    store = await Store.open(path, synchronous="NORMAL")
    return Stores(store, await TableStore.open(path), await LibraryStore.open(path, synchronous="NORMAL", store=store))


@pytest.fixture
async def stores(tmp_path: Path) -> AsyncIterator[Stores]:
    found = await _open(tmp_path / "due.db")
    yield found
    await found.close()


async def _calls(check: Callable[[], Awaitable[object]], checks: int = CHECKS, *, warm: bool = True) -> int:
    """The Python calls (``sys.setprofile``) of ``checks`` checks made one after another (``warm``: after one
    that may work things out): a measure of work that no load on the machine can blur."""
    if warm:
        await check()
    calls = 0

    def profile(frame: FrameType, event: str, arg: object) -> None:
        nonlocal calls
        if event in ("call", "c_call"):
            calls += 1

    sys.setprofile(profile)
    try:
        for _ in range(checks):
            await check()
    finally:
        sys.setprofile(None)
    return calls


async def test_the_due_check_with_nothing_due_costs_the_same_at_any_size(stores: Stores) -> None:
    router = stores.router()
    await build_guild(router, "small", 10, 2, 2)
    await build_guild(router, "big", 400, 25, 40)
    now = START + timedelta(minutes=5)
    small = await _calls(lambda: router.due_work("small", now))
    big = await _calls(lambda: router.due_work("big", now))
    assert big == small, "the check before each command does not grow with the library, the tables or reminders"
    small = await _calls(lambda: router.next_due("small"))
    big = await _calls(lambda: router.next_due("big"))
    assert big == small, "nor does working out when the guild's job runs next"
    assert await router.next_due("big") == await stores.router().next_due("big")

    for guild in ("small", "big"):
        joined = await router.service.act(guild, context("newcomer", ChannelRole.GAME_ACTIONS, "late", now), Join())
        assert joined.accepted
    small = await _calls(lambda: router.due_work("small", now), 1, warm=False)
    big = await _calls(lambda: router.due_work("big", now), 1, warm=False)
    assert big == small, "a new state that changed no request nor proposal looks through none of them again"


# --- the kept answer is the one worked out afresh ---------------------------------------------------------

PLAYERS = ("alice", "bob", "carol", "dave")
JUDGE = "dave"
_player = st.sampled_from(PLAYERS[:3])
_move = st.one_of(
    st.builds(lambda: AdminLot(cards=cards("AS KH"))),
    st.builds(lambda lot, amount: PlaceBid(lot=lot, amount=amount), st.integers(1, 2), st.integers(1, 60)),
    st.builds(
        lambda n, urgent: Propose(message=f"m{n}", text=("urgent: " if urgent else "") + f"change {n}"),
        st.integers(1, 4),
        st.booleans(),
    ),
    st.builds(
        lambda n, vote, added: React(message=f"m{n}", vote=vote, added=added),
        st.integers(1, 4),
        st.sampled_from(list(Vote)),
        st.booleans(),
    ),
    st.builds(lambda n: MakeRequest(text=f"may I do {n}?"), st.integers(1, 3)),
    st.builds(lambda n: GiveRuling(number=n, text="yes"), st.integers(1, 3)),
    st.builds(lambda n: Challenge(number=n), st.integers(1, 3)),
    st.builds(lambda n, overturn: CastConfidence(number=n, overturn=overturn), st.integers(1, 3), st.booleans()),
    st.builds(lambda kind, on: SetNotice(notice=kind, on=on), st.sampled_from(["outbid", "reminders"]), st.booleans()),
    st.builds(
        lambda option, value: AdminSet(option=option, value=value),
        st.sampled_from(
            [
                "reminders.auction_end_hours",
                "reminders.judge_request_hours",
                "reminders.standard_vote_hours",
                "reminders.confidence_vote_hours",
                "reminders.present_hand_hours",
            ]
        ),
        st.sampled_from(["off", "on", "1", "6, 2", "30"]),
    ),
    st.builds(lambda days: AdminSet(option="calendar.auction_days", value=str(days)), st.integers(1, 5)),
)
_step = st.tuples(st.integers(0, 36 * 60), _player, _move)


def _actor(player: str, action: Action) -> str:
    """Who makes the move: the judge rules, a moderator sets options and places lots, a player the rest."""
    if isinstance(action, GiveRuling):
        return JUDGE
    return "mod" if isinstance(action, AdminLot | AdminSet) else player


def _channel(action: Action) -> ChannelRole:
    if isinstance(action, PlaceBid):
        return ChannelRole.AUCTIONS
    if isinstance(action, Propose):
        return ChannelRole.PROPOSALS
    return ChannelRole.GAME_ACTIONS


def _afresh(state: RoundState) -> Tick:
    """The next tick worked out from the state read back from its JSON (a process that just started):
    no object of it is one an answer was kept for, and no answer is kept."""
    forget_all()
    return next_tick(RoundState.model_validate_json(state.model_dump_json()))


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(steps=st.lists(_step, min_size=5, max_size=40))
def test_the_kept_next_tick_is_the_one_worked_out_afresh_over_any_play(steps: list[tuple[int, str, Action]]) -> None:
    state = new_round(players=PLAYERS).model_copy(update={"judge": JUDGE})
    for player in PLAYERS:
        state = give(state, player, points=100, spm=2)
    rng = random.Random(0)
    now = state.clock
    opening_moves: list[tuple[str, Action]] = [
        ("alice", MakeRequest(text="may I?")),
        ("bob", MakeRequest(text="may I too?")),
        ("carol", Propose(message="m1", text="urgent: change 1")),
        ("mod", AdminLot(cards=cards("AS KH"))),
    ]
    for player, action in opening_moves:
        state = engine.apply(state, context(player, _channel(action), "", now), action, rng).state
    seen: list[RoundState] = [state]
    for minutes, player, action in steps:
        now += timedelta(minutes=minutes)
        while (tick := next_tick(state)).at <= now:
            assert tick == _afresh(state)
            state = engine.advance(state, tick, rng).state
            seen.append(state)
        try:
            state = engine.apply(state, context(_actor(player, action), _channel(action), "", now), action, rng).state
        except RuleError:
            continue
        assert next_tick(state) == _afresh(state), action
        seen.append(state)
    for earlier in seen:
        assert next_tick(earlier) == _afresh(earlier), "an earlier state keeps its own answer"


# --- a guild's kept next due instant is the one a process that has just started reads ---------------------

_IMP = "!card new {name} | type: soldier | cost: R+1 | cr: 2 | text: A quick imp of flame."
_command = st.one_of(
    st.tuples(
        st.just("table"),
        st.sampled_from(["alice", "bob"]),
        st.sampled_from(["!play ballot rounds:2 seconds:60", "!play ballot"]),
    ),
    st.tuples(st.just("seat"), st.sampled_from(["bob", "carol", "erin"]), st.sampled_from(["!join", "!leave"])),
    st.tuples(st.just("seat"), st.sampled_from(["alice", "bob"]), st.sampled_from(["!start", "!end-table"])),
    st.tuples(st.just("seat"), st.sampled_from(["alice", "bob", "carol"]), st.sampled_from(["!vote A", "!vote B"])),
    st.tuples(
        st.just("say"),
        st.just("gina"),
        st.sampled_from(["!guild create Smiths vote quorum:1 hours:2", "!guild join Smiths"]),
    ),
    st.tuples(
        st.just("say"),
        st.sampled_from(["alice", "bob"]),
        st.sampled_from([_IMP.format(name="Fire Imp"), _IMP.format(name="Sea Imp")]),
    ),
    st.tuples(
        st.just("say"),
        st.sampled_from(["alice", "bob"]),
        st.sampled_from(["!card submit #24 guild:Smiths", "!card submit #25 guild:Smiths"]),
    ),
    st.tuples(
        st.just("say"), st.sampled_from(["gina", "bob"]), st.sampled_from(["!card approve #24", "!card reject #25"])
    ),
    st.tuples(
        st.just("say"), st.sampled_from(["alice", "bob", "carol"]), st.sampled_from(["!join", "!request may I?"])
    ),
    st.tuples(st.just("wait"), st.just(""), st.sampled_from(["5", "30", "90", "600"])),
)


async def _play_and_compare(path: Path, commands: list[tuple[str, str, str]]) -> None:
    store = await Store.open(path, synchronous="NORMAL")
    stores = Stores(
        store, await TableStore.open(path), await LibraryStore.open(path, synchronous="NORMAL", store=store)
    )
    try:
        router = stores.router()
        await _started(router)
        now = START
        setup = [
            ("say", "gina", "!guild create Smiths vote quorum:1 hours:2"),
            ("say", "alice", _IMP.format(name="Fire Imp")),
            ("say", "bob", _IMP.format(name="Sea Imp")),
        ]
        for n, (kind, actor, text) in enumerate([*setup, *commands]):
            if kind == "wait":
                now += timedelta(minutes=int(text))
                await router.due_work("g", now)
            else:
                now += timedelta(seconds=10)
                await router.due_work("g", now)
                assert router.tables is not None
                tables = await router.tables.open_tables("g")
                thread = tables[-1].name if kind == "seat" and tables else None
                if kind == "seat" and thread is None:
                    continue
                await router.message(
                    "g", context(actor, ChannelRole.GAME_ACTIONS, f"e{n}", now), text, resolve, thread=thread
                )
            due = await router.next_due("g")
            assert due == await stores.router().next_due("g"), (kind, actor, text)
            assert due == await stores.router(on_demand=True).next_due("g"), "made on demand, the same"
    finally:
        await stores.close()


@pytest.fixture
def ballot() -> Iterator[None]:
    register(BALLOT)
    yield
    unregister(BALLOT.name)


@settings(
    max_examples=25,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],  # registering a game only
)
@given(commands=st.lists(_command, min_size=3, max_size=25))
def test_a_guilds_kept_next_due_is_what_a_fresh_start_reads_from_the_store(
    ballot: None, commands: list[tuple[str, str, str]]
) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        asyncio.run(_play_and_compare(Path(tmp) / "due.db", commands))


# --- the tables' service, made when a guild first needs it ----------------------------------------------------


async def _started(router: Router, guild: str = "g") -> None:
    start = StartRound(
        ruleset=Ruleset(), phase=opening(Ruleset(), START)[0], presenting_open=False, moderators=("mod",)
    )
    await router.service.start(guild, context("setup", ChannelRole.OTHER, "setup", START), start, seed="s")


async def test_a_guild_that_plays_no_thread_game_never_makes_the_tables_service(stores: Stores, ballot: None) -> None:
    demand = stores.on_demand()
    router = Router(RoundService(stores.round), demand, LibraryService(stores.library))
    await _started(router)
    now = START + timedelta(minutes=1)
    said = [
        ("alice", ChannelRole.GAME_ACTIONS, "!join", None),
        ("alice", ChannelRole.GAME_ACTIONS, "!phase", None),
        ("alice", ChannelRole.OTHER, "talk in a thread named like a table", "ballot-1"),
        ("bob", ChannelRole.GAME_ACTIONS, "!join", None),
    ]
    for n, (actor, channel, text, thread) in enumerate(said):
        await router.due_work("g", now)
        await router.message("g", context(actor, channel, f"e{n}", now), text, resolve, thread=thread)
    await router.due_work("g", now + timedelta(days=8))  # a week's review: no table ended in it
    assert await router.next_due("g") == await stores.router().next_due("g")
    assert demand.made is None, "nothing of the tables was needed"
    posts = await router.message("g", context("alice", ChannelRole.GAME_ACTIONS, "p", now), "!play ballot", resolve)
    assert demand.made is not None
    assert "ballot-1" in posts[0].text
    assert await router.next_due("g") == await stores.router().next_due("g")


async def test_a_process_that_starts_on_a_guild_with_tables_makes_the_service_and_finds_their_clocks(
    stores: Stores, ballot: None
) -> None:
    first = stores.router()
    await _started(first)
    for n, (actor, text) in enumerate([("alice", "!play ballot seconds:60"), ("bob", "!join"), ("alice", "!start")]):
        thread = None if n == 0 else "ballot-1"
        ctx = context(actor, ChannelRole.GAME_ACTIONS, f"t{n}", START)
        await first.message("g", ctx, text, resolve, thread=thread)
    table_due = await first.next_due("g")
    assert table_due is not None
    assert table_due <= START + timedelta(seconds=60), "the turn's clock comes first"
    demand = stores.on_demand()
    again = Router(RoundService(stores.round), demand, LibraryService(stores.library))
    assert await again.next_due("g") == table_due
    assert demand.made is not None
    posts = await again.due_work("g", table_due)
    assert any(p.thread == "ballot-1" for p in posts), "the turn timed out in its thread"


async def test_a_guild_once_found_without_tables_is_read_again_when_another_process_acted_for_it(
    stores: Stores, ballot: None
) -> None:
    demand = stores.on_demand()
    mine = Router(RoundService(stores.round), demand, LibraryService(stores.library))
    other = stores.router()
    await _started(other)
    assert await mine.next_due("g") == await other.next_due("g")
    for n, (actor, text) in enumerate([("alice", "!play ballot seconds:60"), ("bob", "!join"), ("alice", "!start")]):
        thread = None if n == 0 else "ballot-1"
        await other.message("g", context(actor, ChannelRole.GAME_ACTIONS, f"o{n}", START), text, resolve, thread=thread)
    assert demand.kept_next_due("g") == (None,), "what this process knew: no table"
    mine.forget("g")  # the guild's lock changed hands: what this process knew may be stale
    state = await other.service.state("g")
    assert state is not None
    found = await mine.next_due("g")
    assert found == await other.next_due("g") != next_tick(state).at, "the table's clock, not the round's tick"
    assert demand.made is not None


def test_the_due_bench_runs_its_worker_and_reports_each_case() -> None:
    cases = ((10, 1, 1), (60, 4, 5))
    versions = {"this version": due_bench.HERE}
    found = due_bench.measure(versions, 1, cases)
    text = due_bench.report(found, versions, 1, (0.0, 0.0, 0.0), cases)
    assert "60 designs, 4 tables, 5 requests" in text
    calls = found["this version"]
    assert calls["calls|10 designs, 1 tables, 1 requests"] == calls["calls|60 designs, 4 tables, 5 requests"]
