"""The tables' service on a real store: several tables, errors, persistence, redelivery, timers, routing."""

from __future__ import annotations

import sqlite3
from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from bot.router import Router
from data.group_commit import Behind
from data.store import Store
from data.table_store import TableStore
from games.nomic.actions import StartRound
from games.nomic.context import ChannelRole, Context
from games.nomic.members import unknown_member
from games.nomic.ruleset import Ruleset
from games.nomic.service import RoundService
from games.tables import lobby
from games.tables.lobby import Table, TableStatus
from games.tables.service import Actor, TablePost, TableService
from games.wikipedia.engine import ENGINE
from games.wikipedia.state import WikipediaState
from scheduler.due import opening

GUILD = "g1"
T0 = datetime(2026, 12, 7, 9, tzinfo=UTC)
"""A Monday: the round's next boundary is Thursday 00:00."""
MINUTE = timedelta(minutes=1)
HOUR = timedelta(hours=1)
ALICE, BOB, CAROL = Actor("alice", "alice"), Actor("bob", "bob"), Actor("carol", "carol")
MOD = Actor("mod", "mod", moderator=True)


_OPENED: list[TableStore | Store] = []


async def open_store(path: Path) -> TableStore:
    """A table store that is closed at the test's end even when the test fails (closing twice is fine)."""
    store = await TableStore.open(path, synchronous="NORMAL")
    _OPENED.append(store)
    return store


@pytest.fixture(autouse=True)
async def _close_stores() -> AsyncIterator[None]:
    yield
    while _OPENED:
        await _OPENED.pop().close()


@pytest.fixture
async def store(tmp_path: Path) -> AsyncIterator[TableStore]:
    s = await open_store(tmp_path / "tables.db")
    yield s
    await s.close()


class Driver:
    """Types commands as members, each with a fresh event id and a clock that moves a minute a command."""

    def __init__(self, service: TableService, start: datetime = T0) -> None:
        self.service = service
        self.now = start
        self.n = 0

    async def say(
        self, actor: Actor, text: str, thread: str | None = None, *, event: str | None = None
    ) -> list[TablePost]:
        self.n += 1
        posts = await self.service.command(
            GUILD, actor, text, at=self.now, event_id=event or f"e{self.n}", thread=thread
        )
        assert posts is not None, text
        return posts

    async def table(self, name: str = "wikipedia-1") -> Table:
        found = await self.service.find(GUILD, name)
        assert found is not None
        return found

    async def state(self, name: str = "wikipedia-1") -> WikipediaState:
        state = lobby.game_state(await self.table(name))
        assert isinstance(state, WikipediaState)
        return state


def text(posts: list[TablePost]) -> str:
    return "\n".join(p.text for p in posts)


async def two_humans(d: Driver, *, ai: int = 0, turn: str = "2h") -> None:
    await d.say(ALICE, f"!play wikipedia ai:{ai} turn:{turn}")
    await d.say(BOB, "!join", "wikipedia-1")
    await d.say(BOB, "!start", "wikipedia-1")


# --- several tables -------------------------------------------------------------------------------


async def test_several_tables_and_one_member_at_several(store: TableStore) -> None:
    d = Driver(TableService(store, seed="x"))
    opened = await d.say(ALICE, "!play wikipedia ai:1")
    assert [p.kind for p in opened] == ["opened", "lobby"]
    assert opened[0].table is None, "the answer goes where !play was typed"
    assert opened[1].table == "wikipedia-1", "the lobby is posted in the table's thread"
    await d.say(ALICE, "!play wikipedia")
    await d.say(BOB, "!join", "wikipedia-1")
    await d.say(BOB, "!join", "wikipedia-2")
    await d.say(CAROL, "!join", "wikipedia-2")
    assert [t.name for t in await d.service.open_tables(GUILD)] == ["wikipedia-1", "wikipedia-2"]
    listing = text(await d.say(CAROL, "!games"))
    assert "wikipedia-1" in listing
    assert "wikipedia-2" in listing
    await d.say(BOB, "!start", "wikipedia-1")
    await d.say(ALICE, "!start", "wikipedia-2")
    one, two = await d.table("wikipedia-1"), await d.table("wikipedia-2")
    assert {s.member for s in one.humans} == {"alice", "bob"}
    assert {s.member for s in two.humans} == {"alice", "bob", "carol"}
    assert one.seed != two.seed
    mover = (await d.state("wikipedia-2")).seats[(await d.state("wikipedia-2")).current]
    await d.say(Actor(mover, mover), "!pass", "wikipedia-2")
    assert await d.table("wikipedia-1") == one, "a move at one table leaves the other alone"
    assert (await d.table("wikipedia-2")).moves == two.moves + 1
    # numbers count per game and guild; another guild starts again at 1
    posts = await d.service.command("g2", ALICE, "!play wikipedia ai:1", at=T0, event_id="other-guild")
    assert posts is not None
    assert posts[1].table == "wikipedia-1"
    assert len(await d.service.open_tables("g2")) == 1
    assert len(await d.service.open_tables(GUILD)) == 2


# --- bad input --------------------------------------------------------------------------------------


async def test_bad_input_is_answered_with_the_reason_and_changes_nothing(store: TableStore) -> None:
    d = Driver(TableService(store, seed="x"))
    assert "no game called `chess`" in text(await d.say(ALICE, "!play chess"))
    assert await d.service.open_tables(GUILD) == []
    await two_humans(d)
    state = await d.state()
    mover = state.seats[state.current]
    other = next(s for s in state.seats if s != mover)
    hand = state.hands[state.current]
    missing = next(c for c in range(1, 53) if c not in hand)
    cases = [
        (Actor(other, other), "!pass", "it is " + mover + "'s turn"),
        (CAROL, "!pass", "you do not play at this table"),
        (CAROL, "!join", "seats are only taken in the lobby"),
        (Actor(mover, mover), f"!give {missing} @{other}", f"you do not hold card #{missing}"),
        (Actor(mover, mover), "!give 3 @nobody", "nobody called `nobody`"),
        (Actor(mover, mover), "!section 99 1", "card numbers run from 1 to 52"),
        (Actor(mover, mover), "!dance", "not a Wikipedia command"),
        (Actor(mover, mover), "!" + "x" * 3000, "too long"),
        (Actor(mover, mover), "!start", "already under way"),
        (Actor(mover, mover), "!end-table", "only moderators"),
        (Actor(mover, mover), "!play wikipedia", "from a channel"),
        (Actor(mover, mover), "!ai 2", "AI seats are only set in the lobby"),
    ]
    for actor, command, reason in cases:
        before = await d.table()
        posts = await d.say(actor, command, "wikipedia-1")
        assert len(posts) == 1, command
        assert posts[0].error, command
        assert reason in posts[0].text, (command, posts[0].text)
        assert posts[0].text.startswith("Can't do that: ")
        assert await d.table() == before, command
    assert [e.kind for e in await store.log(GUILD, "wikipedia-1")] == ["open", "join", "start"]


async def test_lobby_refusals(store: TableStore) -> None:
    d = Driver(TableService(store, seed="x"))
    await d.say(ALICE, "!play wikipedia ai:3")
    assert "is full" not in text(await d.say(BOB, "!join", "wikipedia-1"))
    assert "is full" in text(await d.say(CAROL, "!join", "wikipedia-1"))
    assert "already sit" in text(await d.say(BOB, "!join", "wikipedia-1"))
    assert "not started" in text(await d.say(BOB, "!pass", "wikipedia-1"))
    hand = await d.say(BOB, "!hand", "wikipedia-1")
    assert hand[0].private
    assert hand[0].error
    await d.say(BOB, "!ai 0", "wikipedia-1")
    await d.say(BOB, "!leave", "wikipedia-1")
    assert "at least 2" in text(await d.say(ALICE, "!start", "wikipedia-1"))
    assert (await d.table()).status is TableStatus.LOBBY


async def test_crafted_positions_too_few_hours_and_wrong_role(tmp_path: Path) -> None:
    path = tmp_path / "t.db"
    store = await open_store(path)
    d = Driver(TableService(store, seed="x"))
    await two_humans(d)
    table = await d.table()
    state = await d.state()
    non_admin = 1 - state.admin
    article = next(a for a in range(4) if state.expertise(non_admin) != a)
    problem = article * 13 + 1
    crafted = state.model_copy(
        update={
            "current": non_admin,
            "hours": 1,
            "pages": tuple(
                p.model_copy(update={"problems": (problem,)}) if i == article else p for i, p in enumerate(state.pages)
            ),
        }
    )
    who = crafted.seats[non_admin]
    body = table.model_copy(update={"board": ENGINE.dump_state(crafted), "turn_seat": who, "seq": table.seq + 1})
    await store.commit(
        GUILD,
        name=body.name,
        game=body.game,
        number=body.number,
        status=body.status.value,
        seed=body.seed,
        seq=body.seq,
        body=body.model_dump_json(),
        opened_at=body.opened_at,
        event_id="crafted",
        at=T0,
        actor="test",
        kind="crafted",
        action="{}",
    )
    d = Driver(TableService(store, seed="x"))
    d.n = 100  # fresh event ids: e1.. were used before the restart
    member = Actor(who, who)
    assert "only the administrator" in text(await d.say(member, "!protect art", "wikipedia-1"))
    hours = text(await d.say(member, f"!fix {problem}", "wikipedia-1"))
    assert "takes you 2 hours and you have 1 hour left" in hours
    assert await d.table() == body
    await store.close()


# --- persistence ------------------------------------------------------------------------------------


async def _play_some(d: Driver, moves: int) -> None:
    for _ in range(moves):
        table = await d.table()
        if table.status is not TableStatus.PLAYING:
            return
        state = await d.state()
        mover = state.seats[state.current]
        legal = ENGINE.legal_actions(state, mover)
        action = legal[d.n % len(legal)]
        d.now += MINUTE
        posts = await d.say(Actor(mover, mover), "!" + ENGINE.format_action(state, action), "wikipedia-1")
        assert not any(p.error for p in posts), text(posts)


async def test_a_table_resumes_identically_after_reopening_the_store(tmp_path: Path) -> None:
    steady_store = await open_store(tmp_path / "steady.db")
    steady = Driver(TableService(steady_store, seed="r"))
    path = tmp_path / "restarted.db"
    store = await open_store(path)
    restarted = Driver(TableService(store, seed="r"))
    for d in (steady, restarted):
        await two_humans(d, ai=1)
        await _play_some(d, 15)
    before = await restarted.table()
    await store.close()

    store = await open_store(path)
    service = TableService(store, seed="r")
    again = await service.find(GUILD, "wikipedia-1")
    assert again == before
    assert [t.name for t in await service.open_tables(GUILD)] == ["wikipedia-1"]
    resumed = Driver(service, restarted.now)
    resumed.n = restarted.n
    for d in (steady, resumed):
        await _play_some(d, 25)
        d.now += 30 * HOUR
        await d.service.due(GUILD, d.now)
    assert await resumed.table() == await steady.table()
    # the log alone, replayed from the stored seed, gives the same table
    log = await store.log(GUILD, "wikipedia-1")
    rebuilt = lobby.replay([(lobby.ACTION_ADAPTER.validate_json(e.body), e.at) for e in log])
    assert rebuilt == await resumed.table()
    await store.close()
    await steady_store.close()


async def test_redelivered_events_change_nothing(tmp_path: Path) -> None:
    path = tmp_path / "t.db"
    store = await open_store(path)
    d = Driver(TableService(store, seed="x"))
    assert await d.say(ALICE, "!play wikipedia ai:1", event="m1")
    assert await d.say(ALICE, "!play wikipedia ai:1", event="m1") == []
    assert [t.name for t in await d.service.open_tables(GUILD)] == ["wikipedia-1"]
    await d.say(BOB, "!join", "wikipedia-1", event="m2")
    assert await d.say(BOB, "!join", "wikipedia-1", event="m2") == []
    await d.say(BOB, "!start", "wikipedia-1", event="m3")
    state = await d.state()
    mover = Actor(state.seats[state.current], state.seats[state.current])
    await d.say(mover, "!pass", "wikipedia-1", event="m4")
    after = await d.table()
    assert await d.say(mover, "!pass", "wikipedia-1", event="m4") == []
    assert await d.table() == after
    await store.close()
    # after a restart too: the log remembers the event ids
    store = await open_store(path)
    d = Driver(TableService(store, seed="x"))
    assert await d.say(mover, "!pass", "wikipedia-1", event="m4") == []
    assert await d.say(ALICE, "!play wikipedia", event="m1") == []
    assert await d.table() == after
    assert [e.event_id for e in await store.log(GUILD, "wikipedia-1")] == ["m1", "m2", "m3", "m4"]
    with pytest.raises(Behind) as refused:  # the step is logged under another event: read the tables again
        await store.commit(
            GUILD,
            name="wikipedia-1",
            game="wikipedia",
            number=1,
            status="playing",
            seed="x",
            seq=after.seq,
            body=after.model_dump_json(),
            opened_at=after.opened_at,
            event_id="fresh",
            at=T0,
            actor="x",
            kind="x",
            action="{}",
        )
    assert isinstance(refused.value.__cause__, sqlite3.IntegrityError)
    await store.close()


async def test_threads_are_bound_and_found_by_id(tmp_path: Path) -> None:
    path = tmp_path / "t.db"
    store = await open_store(path)
    d = Driver(TableService(store, seed="x"))
    await d.say(ALICE, "!play wikipedia ai:1")
    assert await d.service.attach_thread(GUILD, "wikipedia-1", "555")
    assert not await d.service.attach_thread(GUILD, "wikipedia-9", "556")
    posts = await d.say(ALICE, "!start", "555")
    assert any(p.kind == "board" for p in posts)
    await store.close()
    store = await open_store(path)
    service = TableService(store)
    assert await service.thread_of(GUILD, "wikipedia-1") == "555"
    found = await service.find(GUILD, "555")
    assert found is not None
    assert found.name == "wikipedia-1"
    # a thread that is no table is left to the round
    assert await service.command(GUILD, ALICE, "!join", at=T0, event_id="x", thread="777") is None
    assert await service.command(GUILD, ALICE, "!bid 1 5", at=T0, event_id="y") is None
    await store.close()


async def test_discord_mentions_name_seats(store: TableStore) -> None:
    d = Driver(TableService(store, seed="m"))
    alice, bob = Actor("111", "Alice"), Actor("222", "Bob")
    await d.say(alice, "!play wikipedia")
    await d.say(bob, "!join", "wikipedia-1")
    await d.say(bob, "!start", "wikipedia-1")
    state = await d.state()
    mover = alice if state.seats[state.current] == "Alice" else bob
    receiver = bob if mover is alice else alice
    card = state.hands[state.current][0]
    posts = await d.say(mover, f"!give {card} <@{receiver.id}>", "wikipedia-1")
    assert f"hands card #{card} to {receiver.name}" in text(posts)
    assert card in (await d.state()).hands[1 - state.current]
    assert "Alice" in (await d.service.board(GUILD, "wikipedia-1"))
    moves = await d.service.legal_moves(GUILD, "wikipedia-1", mover)
    assert "pass" in moves
    assert await d.service.legal_moves(GUILD, "wikipedia-1", Actor("333", "Zed")) == []


# --- turn timers ------------------------------------------------------------------------------------


async def test_timeouts_reminders_and_the_ai_taking_over(store: TableStore) -> None:
    d = Driver(TableService(store, seed="t"))
    await d.say(ALICE, "!play wikipedia ai:1 turn:2h")
    await d.say(ALICE, "!start", "wikipedia-1")
    service = d.service
    assert await service.next_due(GUILD) == T0 + HOUR
    assert await service.due(GUILD, T0 + HOUR - MINUTE) == []
    reminder = await service.due(GUILD, T0 + HOUR)
    assert [p.kind for p in reminder] == ["reminder"]
    assert reminder[0].mentions == ("alice",)
    assert reminder[0].table == "wikipedia-1"
    assert reminder[0].at == T0 + HOUR
    assert await service.due(GUILD, T0 + HOUR) == [], "a reminder is posted once"
    first = await service.due(GUILD, T0 + 2 * HOUR)
    assert "Time is up for alice: the AI plays this turn" in text(first)
    assert any(p.kind == "board" for p in first)
    seat = (await d.table()).seat_named("alice")
    assert seat is not None
    assert seat.timeouts == 1
    assert (await d.table()).turn_started_at == T0 + 2 * HOUR
    rest = await service.due(GUILD, T0 + 100 * HOUR)
    said = text(rest)
    assert said.count("⏰") == 2
    assert said.count("Time is up") == 2
    assert "the AI plays this seat from now on" in said
    table = await d.table()
    assert table.status in {TableStatus.WON, TableStatus.LOST}
    assert table.ended_at == T0 + 6 * HOUR
    assert await service.next_due(GUILD) is None
    assert await service.due(GUILD, T0 + 200 * HOUR) == []
    kinds = [e.kind for e in await store.log(GUILD, "wikipedia-1")]
    assert kinds == ["open", "start"] + ["remind", "timeout"] * 3
    assert "has ended" in text(await d.say(ALICE, "!pass", "wikipedia-1"))


async def test_catch_up_after_downtime_applies_each_timeout_once(tmp_path: Path) -> None:
    one_store = await open_store(tmp_path / "one.db")
    one = Driver(TableService(one_store, seed="c"))
    pieces_path = tmp_path / "pieces.db"
    pieces_store = await open_store(pieces_path)
    pieces = Driver(TableService(pieces_store, seed="c"))
    for d in (one, pieces):
        await two_humans(d, ai=2, turn="3h")
    await pieces_store.close()
    await one.service.due(GUILD, T0 + 200 * HOUR)
    expected = await one.table()
    moments = [T0 + 2 * HOUR, T0 + 5 * HOUR, T0 + 5 * HOUR, T0 + 9 * HOUR + 30 * MINUTE, T0 + 200 * HOUR]
    for moment in moments:
        store = await open_store(pieces_path)
        await TableService(store, seed="c").due(GUILD, moment)
        await TableService(store, seed="c").due(GUILD, moment)
        await store.close()
    store = await open_store(pieces_path)
    got = await TableService(store).find(GUILD, "wikipedia-1")
    assert got == expected
    assert got is not None
    assert got.status in {TableStatus.WON, TableStatus.LOST}
    log = await store.log(GUILD, "wikipedia-1")
    timeouts = [e for e in log if e.kind == "timeout"]
    assert len(timeouts) == 6, "two members, three timeouts each"
    assert len({e.event_id for e in timeouts}) == 6
    assert [e.at for e in log] == sorted(e.at for e in log)
    assert [e.kind for e in log] == [e.kind for e in await one_store.log(GUILD, "wikipedia-1")]
    await store.close()
    await one_store.close()


async def test_a_late_move_meets_the_timeout_first(store: TableStore) -> None:
    d = Driver(TableService(store, seed="x"))
    await two_humans(d, turn="2h")
    state = await d.state()
    mover = state.seats[state.current]
    d.now = T0 + 3 * HOUR
    posts = await d.say(Actor(mover, mover), "!pass", "wikipedia-1")
    kinds = [p.kind for p in posts]
    assert kinds[:2] == ["reminder", "timeout"], "the scheduled work that fell due comes first"
    assert posts[-1].error
    assert "turn, not yours" in posts[-1].text


# --- the router -------------------------------------------------------------------------------------


async def _router(tmp_path: Path) -> tuple[Router, Store, TableStore]:
    path = tmp_path / "r.db"
    store = await Store.open(path, synchronous="NORMAL")
    _OPENED.append(store)
    tables = await open_store(path)
    router = Router(RoundService(store), TableService(tables, seed="router"))
    ruleset = Ruleset()
    phase, presenting = opening(ruleset, T0)
    ctx = Context(actor="setup", actor_name="setup", channel=ChannelRole.OTHER, at=T0, event_id="setup")
    start = StartRound(ruleset=ruleset, phase=phase, presenting_open=presenting, moderators=("mod",))
    await router.service.start(GUILD, ctx, start, seed="s")
    return router, store, tables


def _ctx(actor: str, channel: ChannelRole, at: datetime, event: str) -> Context:
    return Context(actor=actor, actor_name=actor, channel=channel, at=at, event_id=event)


def _resolve(token: str) -> str:
    name = token.lstrip("@")
    if not name:
        raise unknown_member(name)
    return name


async def test_router_sends_thread_commands_to_tables_and_keeps_the_round(tmp_path: Path) -> None:
    router, store, tables = await _router(tmp_path)
    ga, other = ChannelRole.GAME_ACTIONS, ChannelRole.OTHER

    async def say(actor: str, content: str, channel: ChannelRole, event: str, thread: str | None = None) -> str:
        posts = await router.message(GUILD, _ctx(actor, channel, T0, event), content, _resolve, thread=thread)
        return "\n".join(p.text for p in posts)

    assert "Opened **wikipedia-1**" in await say("alice", "!play wikipedia ai:1", ga, "m1")
    assert "Welcome, alice" in await say("alice", "!join", ga, "m2"), "!join in #game-actions is the round's"
    assert "bob sits down" in await say("bob", "!join", other, "m3", "wikipedia-1")
    state = await router.service.state(GUILD)
    assert state is not None
    assert set(state.players) == {"alice"}, "joining a table does not join the round"
    assert "The rules of the round" in await say("bob", "!rules", ga, "m4")
    assert "Wikipedia, the cooperative card game" in await say("bob", "!rules wikipedia", ga, "m5")
    assert "version" in (await say("bob", "!rules history", ga, "m6")).lower()
    assert "not a player" in await say("bob", "!inventory", other, "m7", "wikipedia-1")
    assert "There are no lots" in await say("bob", "!lots", other, "m8", "wikipedia-1")
    assert "no such table" in await say("bob", "!board", other, "m9", "wikipedia-4")
    assert await say("bob", "just chatting", other, "m10", "wikipedia-1") == ""
    assert "Commands in this thread" in await say("bob", "!help", other, "m11", "wikipedia-1")
    assert "Thread games: `!play GAME" in await say("bob", "!help", ga, "m12")
    assert "wikipedia-1" in await say("carol", "!games", ga, "m13")
    await store.close()
    await tables.close()


async def test_due_work_runs_round_and_tables_in_time_order(tmp_path: Path) -> None:
    router, store, tables = await _router(tmp_path)
    ga, other = ChannelRole.GAME_ACTIONS, ChannelRole.OTHER
    await router.message(GUILD, _ctx("alice", ga, T0, "m1"), "!play wikipedia ai:1 turn:1d", _resolve)
    await router.message(GUILD, _ctx("alice", other, T0, "m2"), "!start", _resolve, thread="wikipedia-1")
    assert await router.next_due(GUILD) == T0 + 12 * HOUR
    thursday = datetime(2026, 12, 10, tzinfo=UTC)
    posts = await router.due_work(GUILD, thursday + 10 * HOUR)
    instants = [p.at for p in posts]
    assert instants == sorted(instants), "round ticks and table deadlines interleave in time order"
    (bartering,) = [i for i, p in enumerate(posts) if p.thread is None and "bartering phase has begun" in p.text]
    assert posts[bartering].at == thursday
    assert any(p.thread == "wikipedia-1" for p in posts[:bartering])
    assert any(p.thread == "wikipedia-1" and p.kind == "timeout" for p in posts[bartering:])
    assert await router.due_work(GUILD, thursday + 10 * HOUR) == []
    await store.close()
    await tables.close()


async def test_nasty_input_in_a_thread_is_answered_and_changes_nothing(store: TableStore) -> None:
    d = Driver(TableService(store, seed="x"))
    await two_humans(d, ai=1)
    before = await d.table()
    nasty = [
        "!",
        "!   ",
        "!\u202e\u200bpass",
        "!give ² @bob",
        "!section 1e9 2",
        "!ai 99",
        "!ai ²",
        "!fix " + "9" * 400,
        "!" + "🙂" * 10_000,
        "!join please",
        "!hand\x00",
        "!rules chess",
        "!end-table now",
    ]
    for content in nasty:
        posts = await d.say(CAROL, content, "wikipedia-1")
        assert posts, content
        assert all(p.error for p in posts if p.kind != "rules"), content
        assert await d.table() == before, content
    assert [e.kind for e in await store.log(GUILD, "wikipedia-1")] == ["open", "join", "start"]
