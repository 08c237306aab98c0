"""Framework pieces an arranged match needs: a table opened for agreed players and started at once, another
store's part of the transaction that opens or ends a table (both commit or neither), referees who act
without a seat, and a move naming a member who does not sit at the table."""

from __future__ import annotations

import random
import sqlite3
from collections.abc import AsyncIterator, Iterator, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import aiosqlite
import pytest

from data.table_store import TableStore
from games.nomic.members import unknown_member
from games.tables import lobby
from games.tables.actions import ArrangedSeat
from games.tables.engine import (
    MODERATORS,
    REFEREE,
    GameEvent,
    IllegalActionError,
    NotASeatError,
    SeatsOnly,
)
from games.tables.lobby import Table, TableStatus
from games.tables.players import TableResolver
from games.tables.registry import GameSpec, register, unregister
from games.tables.service import Actor, TableService

from .ballot_game import ENGINE, BallotEngine, BallotSetup, BallotState, RandomVoter, Vote

GUILD = "g1"
T0 = datetime(2026, 12, 7, 9, tzinfo=UTC)
ALICE, BOB, CAROL = Actor("alice", "alice"), Actor("bob", "bob"), Actor("carol", "carol")
MOD = Actor("mod", "mod", moderator=True)


class RefereedBallot(BallotEngine):
    """The ballot, where a named judge (``carol``) or any moderator may close a round for everyone."""

    name = "refballot"
    title = "Refereed ballot"

    def referees(self, state: BallotState) -> frozenset[str]:
        return frozenset() if self._over(state) else frozenset({"carol", MODERATORS})

    def apply(
        self, state: BallotState, seat: str, action: Vote, rng: random.Random
    ) -> tuple[BallotState, tuple[GameEvent, ...]]:
        if seat.startswith(REFEREE):
            member = seat.removeprefix(REFEREE)
            votes = tuple(v or action.choice for v in state.votes)
            new = state.model_copy(update={"votes": votes, "round": state.options.rounds + 1})
            return new, (SeatsOnly(frozenset(state.seats), f"{member} closed the ballot"),)
        return super().apply(state, seat, action, rng)


REFEREED = GameSpec(engine=RefereedBallot(), ai=RandomVoter(), locales=Path(__file__).parent / "ballot_locales")
BALLOT_SPEC = GameSpec(engine=ENGINE, ai=RandomVoter(), locales=Path(__file__).parent / "ballot_locales")


@pytest.fixture(autouse=True)
def games_registered() -> Iterator[None]:
    register(BALLOT_SPEC)
    register(REFEREED)
    yield
    unregister(REFEREED.name)
    unregister(BALLOT_SPEC.name)


@pytest.fixture
async def store(tmp_path: Path) -> AsyncIterator[TableStore]:
    s = await TableStore.open(tmp_path / "tables.db", synchronous="NORMAL")
    yield s
    await s.close()


def setup_json(weight: int = 1, pledge: str | None = None) -> str:
    return BallotSetup(weight=weight, pledge=pledge).model_dump_json()


# --- an arranged table ------------------------------------------------------------------------------


async def test_an_arranged_table_seats_everyone_with_what_they_bring_and_starts_in_one_action(
    store: TableStore,
) -> None:
    service = TableService(store, seed="a")
    seats = [ArrangedSeat(member="alice", member_name="alice", setup=setup_json(2, "B")), ArrangedSeat(
        member="bob", member_name="bob", setup=setup_json(3)
    )]
    outcome = await service.arrange(GUILD, BOB, "ballot", seats, at=T0, event_id="accepted")
    assert outcome.accepted, outcome.error
    table = outcome.table
    assert table is not None
    assert table.status is TableStatus.PLAYING
    assert {s.member for s in table.seats} == {"alice", "bob"}
    state = lobby.game_state(table)
    assert isinstance(state, BallotState)
    weights = dict(zip(state.seats, state.weights, strict=True))
    assert weights == {"alice": 2, "bob": 3}
    assert dict(zip(state.seats, state.pledges, strict=True))["alice"] == "B"
    log = await store.log(GUILD, table.name)
    assert [(e.kind, e.actor) for e in log] == [("open", "bob")], "one logged action, by who accepted"
    assert [p.kind for p in outcome.posts][:2] == ["opened", "lobby"]
    assert "starts at once" in outcome.posts[1].text, "no `!join` and `!start` to ask for"
    assert "!start" not in outcome.posts[1].text
    assert any(p.kind == "board" for p in outcome.posts)
    assert not any("pledge" in p.text.casefold() and p.public for p in outcome.posts), "a secret stays secret"
    again = await service.arrange(GUILD, BOB, "ballot", seats, at=T0, event_id="accepted")
    assert again.duplicate, "a redelivered acceptance opens nothing more"
    assert [t.name for t in await service.open_tables(GUILD)] == ["ballot-1"]
    rebuilt = lobby.replay([(lobby.ACTION_ADAPTER.validate_json(e.body), e.at) for e in log])
    assert rebuilt == table, "the log alone rebuilds the started table"


async def test_an_arranged_table_refuses_a_member_twice_and_a_bad_setup(store: TableStore) -> None:
    service = TableService(store, seed="a")
    twice = [ArrangedSeat(member="alice", member_name="alice"), ArrangedSeat(member="alice", member_name="alice")]
    assert (await service.arrange(GUILD, ALICE, "ballot", twice, at=T0, event_id="e1")).error is not None
    bad = [ArrangedSeat(member="alice", member_name="alice", setup=setup_json(1, "Z")), ArrangedSeat(
        member="bob", member_name="bob"
    )]
    refused = await service.arrange(GUILD, ALICE, "ballot", bad, at=T0, event_id="e2")
    assert refused.error is not None
    assert await service.open_tables(GUILD) == []


# --- another store's part of a table's transaction --------------------------------------------------


@dataclass
class Ledger:
    """A side store in the same SQLite file: a row per table that ended (or opened), written in its transaction."""

    path: Path
    fail: bool = False
    said: tuple[str, ...] = ("the ledger took note",)
    done: list[str] = field(default_factory=list)

    def part(self, table: Table) -> Part:
        return Part(self, table.name, self.said)

    @asynccontextmanager
    async def keeper(self, guild: str, table: Table, at: datetime) -> AsyncIterator[Part | None]:
        del guild, at
        yield self.part(table)

    @asynccontextmanager
    async def joining(self, table: Table) -> AsyncIterator[Part | None]:
        yield self.part(table)

    def rows(self) -> list[str]:
        with sqlite3.connect(self.path) as conn:
            conn.execute("CREATE TABLE IF NOT EXISTS ledger (name TEXT)")
            return [str(r[0]) for r in conn.execute("SELECT name FROM ledger ORDER BY rowid")]


@dataclass
class Part:
    ledger: Ledger
    name: str
    notes: tuple[str, ...]

    async def write(self, conn: aiosqlite.Connection) -> None:
        await conn.execute("INSERT INTO ledger (name) VALUES (?)", (self.name,))
        if self.ledger.fail:
            raise RuntimeError("the ledger refuses")

    def committed(self) -> None:
        self.ledger.done.append(self.name)


async def ended_by_moderator(service: TableService, ledger: Ledger, event: str) -> Sequence[Any]:
    posts = await service.command(GUILD, MOD, "!end-table", at=T0, event_id=event, thread="ballot-1")
    assert posts is not None
    return posts


async def test_the_ending_transaction_carries_what_outlives_the_table(store: TableStore, tmp_path: Path) -> None:
    ledger = Ledger(tmp_path / "tables.db")
    ledger.rows()
    service = TableService(store, seed="s")
    service.keep_ends(ledger.keeper)
    await service.command(GUILD, ALICE, "!play ballot", at=T0, event_id="p1")
    await service.command(GUILD, BOB, "!join", at=T0, event_id="p2", thread="ballot-1")
    await service.command(GUILD, BOB, "!start", at=T0, event_id="p3", thread="ballot-1")
    assert ledger.rows() == [], "nothing is written while the table is open"

    ledger.fail = True
    with pytest.raises(RuntimeError):
        await ended_by_moderator(service, ledger, "end1")
    assert ledger.rows() == []
    assert (await service.find(GUILD, "ballot-1")).status is TableStatus.PLAYING, "neither part was kept"  # type: ignore[union-attr]
    assert ledger.done == []

    ledger.fail = False
    posts = await ended_by_moderator(service, ledger, "end2")
    assert ledger.rows() == ["ballot-1"]
    assert ledger.done == ["ballot-1"]
    kinds = [p.kind for p in posts]
    assert "the ledger took note" in [p.text for p in posts]
    assert kinds.index("end") > next(i for i, p in enumerate(posts) if p.text == "the ledger took note"), (
        "the note comes before the table's last word"
    )
    assert (await service.find(GUILD, "ballot-1")).status is TableStatus.ABANDONED  # type: ignore[union-attr]


async def test_a_game_won_by_its_moves_ends_with_the_side_write_too(store: TableStore, tmp_path: Path) -> None:
    ledger = Ledger(tmp_path / "tables.db", said=())
    ledger.rows()
    service = TableService(store, seed="w")
    service.keep_ends(ledger.keeper)
    seats = [ArrangedSeat(member="alice", member_name="alice"), ArrangedSeat(member="bob", member_name="bob")]
    await service.arrange(GUILD, BOB, "ballot", seats, at=T0, event_id="open")
    n = 0
    table = await service.find(GUILD, "ballot-1")
    while table is not None and table.status is TableStatus.PLAYING:
        for actor in (ALICE, BOB):
            n += 1
            await service.play(GUILD, "ballot-1", actor, "vote A", at=T0, event_id=f"v{n}")
        table = await service.find(GUILD, "ballot-1")
    assert table is not None
    assert table.status is TableStatus.FINISHED
    assert ledger.rows() == ["ballot-1"]


async def test_an_arranged_opening_carries_its_side_write_or_is_refused(store: TableStore, tmp_path: Path) -> None:
    ledger = Ledger(tmp_path / "tables.db")
    ledger.rows()
    service = TableService(store, seed="j")
    seats = [ArrangedSeat(member="alice", member_name="alice"), ArrangedSeat(member="bob", member_name="bob")]

    @asynccontextmanager
    async def refusing(table: Table) -> AsyncIterator[Part | None]:
        del table
        raise IllegalActionError("the challenge was withdrawn meanwhile")
        yield None  # pragma: no cover

    refused = await service.arrange(GUILD, BOB, "ballot", seats, at=T0, event_id="a1", joining=refusing)
    assert refused.error is not None
    assert "withdrawn" in refused.posts[0].text
    assert await service.open_tables(GUILD) == []
    opened = await service.arrange(GUILD, BOB, "ballot", seats, at=T0, event_id="a2", joining=ledger.joining)
    assert opened.accepted
    assert ledger.rows() == ["ballot-1"]
    assert "the ledger took note" in [p.text for p in opened.posts]


# --- referees and members named in a move -------------------------------------------------------------


async def test_a_referee_acts_without_a_seat_and_others_are_still_refused(store: TableStore) -> None:
    service = TableService(store, seed="r")
    seats = [ArrangedSeat(member="alice", member_name="alice"), ArrangedSeat(member="bob", member_name="bob")]
    await service.arrange(GUILD, BOB, "refballot", seats, at=T0, event_id="open")
    stranger = await service.play(GUILD, "refballot-1", Actor("dave", "dave"), "vote A", at=T0, event_id="d")
    assert isinstance(stranger.error, NotASeatError)
    judged = await service.play(GUILD, "refballot-1", CAROL, "vote C", at=T0, event_id="c")
    assert judged.accepted, judged.error
    assert judged.table is not None
    assert judged.table.status is TableStatus.FINISHED
    assert any(p.to and "carol closed the ballot" in p.text for p in judged.posts)
    # any moderator may, when the game says so: the flag is logged with the move
    await service.arrange(GUILD, BOB, "refballot", seats, at=T0, event_id="open2")
    moderated = await service.play(GUILD, "refballot-2", MOD, "vote B", at=T0, event_id="m")
    assert moderated.accepted, moderated.error
    log = await store.log(GUILD, "refballot-2")
    moves = [lobby.ACTION_ADAPTER.validate_json(e.body) for e in log if e.kind == "move"]
    assert [getattr(m, "moderator", None) for m in moves] == [True]
    assert lobby.replay([(lobby.ACTION_ADAPTER.validate_json(e.body), e.at) for e in log]) == moderated.table


def test_a_move_may_name_a_member_who_does_not_sit_at_the_table() -> None:
    seats = (lobby.Seat(name="alice", member="111"), lobby.Seat(name="bob", member="222"))
    table = Table(name="refballot-1", game="refballot", number=1, seed="s", host="111", seats=seats, opened_at=T0)
    members = {"carol": "333", "alice": "111"}

    def lookup(token: str) -> str:
        name = token.removeprefix("@")
        if name in members:
            return members[name]
        raise unknown_member(name)

    resolver = TableResolver(table, lookup)
    assert resolver(["@alice"]) == "alice", "a player still names a seat"
    assert resolver.member(["@carol"]) == "333"
    assert resolver.member(["<@444>"]) == "444"
    with pytest.raises(ValueError, match="dave"):
        resolver.member(["@dave"])
    bare = TableResolver(table, None)
    assert bare.member(["bob"]) == "222", "without the server's members, a seat's name names its member"
