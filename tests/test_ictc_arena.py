"""Challenges between members' decks, played in the simulator: the challenge shows the decks' sizes and the kitty
rule, acceptance opens the thread with both decks, the copies stay in the battle, the winner takes the kitty in
the transaction that ends the table (all or nothing), a concession loses, and a first meeting's exclusions hold."""

from __future__ import annotations

import random
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from bot.router import Router
from bot.sim.world import GUILD, LeaveLine, MessageLine, Said, SetupLine, World
from data.library_store import LibraryStore
from data.store import Store
from data.table_store import TableStore
from games.ictc.battle.ai import Skirmisher
from games.ictc.battle.engine import ENGINE
from games.ictc.battle.state import BattleState
from games.ictc.service import LibraryService
from games.ictc.state import ChallengeStatus
from games.nomic.service import RoundService
from games.tables import lobby
from games.tables.lobby import TableStatus
from games.tables.service import TableService

T0 = datetime(2026, 12, 7, 9, tzinfo=UTC)


@dataclass
class Sim:
    world: World
    stores: list[Any]
    said: list[Said] = field(default_factory=list)
    now: datetime = T0
    n: int = 0

    async def say(self, author: str, content: str, channel: str = "game-actions") -> list[Said]:
        self.n += 1
        self.now += timedelta(seconds=5)
        start = len(self.said)
        line = MessageLine(
            type="message", at=self.now, id=f"m{self.n}", channel=channel, author=author, content=content
        )
        await self.world.feed(line, number=self.n)
        return self.said[start:]

    @property
    def router(self) -> Router:
        return self.world.router

    async def library(self) -> Any:
        assert self.router.library is not None
        return await self.router.library.state(GUILD)

    async def table(self, name: str = "ictc-1") -> Any:
        tables = self.router.tables
        assert tables is not None
        return await tables.find(GUILD, name)

    async def battle(self, name: str = "ictc-1") -> BattleState:
        found = lobby.game_state(await self.table(name))
        assert isinstance(found, BattleState)
        return found

    def public(self) -> list[Said]:
        return [s for s in self.said if s.to is None]


@pytest.fixture
async def sim(tmp_path: Path) -> AsyncIterator[Sim]:
    path = tmp_path / "arena.db"
    store = await Store.open(path)
    tables = await TableStore.open(path)
    cards = await LibraryStore.open(path)
    router = Router(RoundService(store), TableService(tables, seed="arena"), LibraryService(cards))
    world = World(router, seed="arena")
    s = Sim(world, [store, tables, cards])
    world.on_say = s.said.append
    await world.feed(SetupLine(type="setup", at=T0, admins=["mod"]), number=0)
    yield s
    for opened in (cards, tables, store):
        await opened.close()


async def claimed(s: Sim) -> None:
    await s.say("alice", "!card starter Ember")
    await s.say("bob", "!card starter Grove")


async def test_a_challenge_shows_sizes_and_the_kitty_and_acceptance_opens_the_battle(sim: Sim) -> None:
    s = sim
    await claimed(s)
    said = await s.say("alice", "!challenge @bob deck:Ember")
    text = said[0].content
    assert "with a deck of 30 cards" in text
    assert "the winner takes the other's cards turned over (the kitty)" in text
    assert "your playable decks hold 30 cards" in text
    assert "Flame Hound" not in text, "a deck's cards stay private"
    said = await s.say("bob", "!challenge accept")
    assert any(x.channel == "ictc-1" for x in said), "the battle's thread opens"
    table = await s.table()
    assert table.status is TableStatus.PLAYING
    assert {seat.member for seat in table.seats} == {"alice", "bob"}
    state = await s.battle()
    assert {side.owner for side in state.sides} == {"alice", "bob"}
    assert all(len(side.deck) == 30 for side in state.sides)
    lib = await s.library()
    challenge = lib.challenges[1]
    assert challenge.status is ChallengeStatus.PLAYING
    assert challenge.table == "ictc-1"
    assert len(challenge.copies) == 60
    meeting = next(iter(lib.meetings.values()))
    assert meeting.met_at is not None, "the two have met: no exclusions at their next battle"


async def test_copies_in_a_battle_cannot_be_traded_until_it_ends(sim: Sim) -> None:
    s = sim
    await s.say("alice", "!join")
    await s.say("bob", "!join")
    await claimed(s)
    await s.say("alice", "!challenge @bob")
    await s.say("bob", "!challenge accept")
    lib = await s.library()
    mine = lib.copies_of("alice")[0].id
    said = await s.say("alice", f"!offer @bob give copy:{mine} for 1 points")
    assert "in a battle (ictc-1)" in said[0].content


async def test_a_deck_whose_copies_are_in_another_battle_says_which_copy_where_and_when_it_comes_back(
    sim: Sim,
) -> None:
    s = sim
    await claimed(s)
    await s.say("carol", "!card starter Tide")
    await s.say("alice", "!challenge @bob deck:Ember")
    await s.say("alice", "!challenge @carol deck:Ember")
    await s.say("bob", "!challenge accept")
    said = await s.say("carol", "!challenge accept")
    text = said[0].content
    assert "alice's deck Ember" in text
    assert "card copy 1 (Ember Well) is in a battle (ictc-1)" in text
    assert "comes back when that battle ends" in text
    assert (await s.table("ictc-2")) is None, "no table opened"
    await s.say("carol", "!challenge @bob deck:Tide")
    said = await s.say("bob", "!challenge accept")
    text = said[0].content
    assert "your deck Grove" in text
    assert "(ictc-1)" in text
    assert "`!challenge accept deck:NAME`" in text, "what to do meanwhile"


async def play_out(s: Sim, name: str = "ictc-1", *, loser: str | None = None, limit: int = 3000) -> None:
    """Both players play by typing the computer player's choices, as members would (or ``loser`` concedes)."""
    ai = Skirmisher()
    for _ in range(limit):
        table = await s.table(name)
        if table.status is not TableStatus.PLAYING:
            return
        state = await s.battle(name)
        if loser is not None and state.turn >= 2:
            await s.say(loser, "!concede", channel=name)
            continue
        waiting = sorted(ENGINE.awaiting(state))
        if not waiting:
            raise AssertionError("the battle waits for nobody")
        seat = waiting[0]
        member = table.seat_named(seat).member
        action = ai.choose(state, seat, random.Random(0))
        await s.say(member, "!" + ENGINE.format_action(state, action), channel=name)
    raise AssertionError("the battle did not end")


async def test_the_winner_takes_the_kitty_when_the_battle_ends(sim: Sim) -> None:
    s = sim
    await claimed(s)
    await s.say("alice", "!challenge @bob")
    await s.say("bob", "!challenge accept")
    await play_out(s, loser="bob")
    state = await s.battle()
    kitty = {side.owner: [state.card(c).copy_id for c in side.kitty] for side in state.sides}
    assert kitty["bob"], "the kitty was turned over before bob conceded"
    table = await s.table()
    assert table.status is TableStatus.FINISHED
    lib = await s.library()
    challenge = lib.challenges[1]
    assert challenge.status is ChallengeStatus.OVER
    assert challenge.winner == "alice"
    assert sorted(challenge.kitty) == sorted(kitty["bob"])
    for copy in kitty["bob"]:
        assert lib.copies[copy].owner == "alice"
        assert lib.copies[copy].origin == "kitty"
    for copy in kitty["alice"]:
        assert lib.copies[copy].owner == "alice", "the winner keeps their own"
    assert lib.in_battle(kitty["alice"][0]) is None, "every copy is free again"
    thread = [x.content for x in s.said if x.channel == "ictc-1"]
    assert any("The kitty goes to alice" in line for line in thread)
    first = kitty["bob"][0]
    if len(kitty["bob"]) == 1:
        assert any(f"card copy {first} (" in line and ") now belongs to alice." in line for line in thread)
    else:
        assert any(f"card copies {first} (" in line and ") now belong to alice." in line for line in thread)
    last = thread[-1]
    assert "won the battle" in last, "the kitty's word comes before the table's last one"


async def test_without_ante_nothing_changes_hands(sim: Sim) -> None:
    s = sim
    await claimed(s)
    await s.say("alice", "!challenge @bob ante:off")
    await s.say("bob", "!challenge accept")
    before = {c.id: c.owner for c in (await s.library()).copies.values()}
    await play_out(s, loser="alice")
    after = {c.id: c.owner for c in (await s.library()).copies.values()}
    assert after == before
    assert (await s.library()).challenges[1].status is ChallengeStatus.OVER


async def test_the_kitty_and_the_table_s_end_commit_together_or_not_at_all(sim: Sim, monkeypatch: Any) -> None:
    s = sim
    await claimed(s)
    await s.say("alice", "!challenge @bob")
    await s.say("bob", "!challenge accept")
    library = s.router.library
    assert library is not None
    real = library.join_action

    async def failing(*args: Any, **kwargs: Any) -> Any:
        write = await real(*args, **kwargs)
        if kwargs.get("event_id", "").startswith("battle-end"):
            original = write.write

            async def broken(conn: Any) -> None:
                await original(conn)
                raise RuntimeError("the disk is full")

            write.write = broken
        return write

    monkeypatch.setattr(library, "join_action", failing)
    with pytest.raises(RuntimeError):
        await s.say("bob", "!concede", channel="ictc-1")
    assert (await s.table()).status is TableStatus.PLAYING, "the table did not end"
    assert (await s.library()).challenges[1].status is ChallengeStatus.PLAYING, "nor did the kitty move"
    monkeypatch.setattr(library, "join_action", real)
    await s.say("bob", "!concede", channel="ictc-1")
    assert (await s.table()).status is TableStatus.FINISHED
    assert (await s.library()).challenges[1].status is ChallengeStatus.OVER


async def test_a_moderator_ending_the_table_frees_the_copies_and_moves_no_kitty(sim: Sim) -> None:
    s = sim
    await claimed(s)
    await s.say("alice", "!challenge @bob")
    await s.say("bob", "!challenge accept")
    await s.say("mod", "!end-table", channel="ictc-1")
    lib = await s.library()
    assert lib.challenges[1].status is ChallengeStatus.OVER
    assert lib.challenges[1].kitty == ()
    assert all(lib.in_battle(c) is None for c in lib.copies)


async def test_declines_withdrawals_and_refusals(sim: Sim) -> None:
    s = sim
    await s.say("bob", "!challenges")
    said = await s.say("alice", "!challenge @bob")
    assert "no playable deck" in said[0].content
    await claimed(s)
    said = await s.say("alice", "!challenge @alice")
    assert "someone else" in said[0].content
    await s.say("alice", "!challenge @bob")
    said = await s.say("alice", "!challenge @bob")
    assert "already" in said[0].content
    said = await s.say("alice", "!challenge accept")
    assert "no open challenge made to you" in said[0].content
    said = await s.say("bob", "!challenge decline")
    assert "declines challenge #1" in said[0].content
    await s.say("alice", "!challenge @bob")
    said = await s.say("alice", "!challenge withdraw")
    assert "withdraws challenge #2" in said[0].content
    said = await s.say("bob", "!challenges")
    assert "no open challenge" in said[0].content


async def test_a_first_meeting_s_exclusions_leave_those_copies_out(sim: Sim) -> None:
    s = sim
    await claimed(s)
    await s.say("carol", "!card starter Tide")
    await s.say(
        "alice", "!card new Ember Bolt | type: action | cost: R+1 | text: Deal 2 damage. | script: damage(any, 2)"
    )
    await s.say("alice", "!card submit Ember Bolt")
    await s.say("bob", "!card approve Ember Bolt")
    await s.say("carol", "!card approve Ember Bolt")
    await s.say("alice", "!card mint Ember Bolt x2")
    deck = (
        "Ember Well x12, Flame Hound x5, Ash Giant x1, Fireball x7, Flare Up x1, Wandering Sellsword x2,"
        " Ember Bolt x2"
    )
    await s.say("alice", f"!card deck save Bolts: {deck}")
    said = await s.say("bob", "!card exclude @alice Ember Bolt")
    assert "excludes" in said[0].content
    await s.say("alice", "!challenge @bob deck:Bolts")
    await s.say("bob", "!challenge accept")
    state = await s.battle()
    alice = next(i for i, side in enumerate(state.sides) if side.owner == "alice")
    names = [state.defn(n).name for n, c in enumerate(state.cards, 1) if c.owner == alice]
    assert "Ember Bolt" not in names
    assert len(names) == 28, "the deck's two Ember Bolts stay out of this first battle"
    said = await s.say("bob", "!card exclude @alice Ember Bolt")
    assert "battled before" in said[0].content


async def test_practice_against_the_computer_with_starter_decks(sim: Sim) -> None:
    s = sim
    said = await s.say("alice", "!play ictc ai:1 deck:Tide")
    assert any("the starter deck Tide" in x.content for x in said)
    await s.say("alice", "!start", channel="ictc-1")
    state = await s.battle()
    decks = {state.seats[i]: side.deck_name for i, side in enumerate(state.sides)}
    assert decks["alice"] == "Tide"
    assert decks["AI-1"] in {"Ember", "Grove"}, "the computer brings a deck alice does not play"
    assert all(side.owner is None for side in state.sides), "starter decks for practice: no kitty"
    ai = Skirmisher()
    for _ in range(200):
        table = await s.table()
        if table.status is not TableStatus.PLAYING:
            break
        state = await s.battle()
        waiting = sorted(ENGINE.awaiting(state))
        assert waiting == ["alice"], "the computer moves at once; only alice is ever waited for"
        await s.say("alice", "!" + ENGINE.format_action(state, ai.choose(state, "alice", random.Random(0))), "ictc-1")
    assert (await s.battle()).turn >= 3


async def test_in_a_battle_s_thread_play_is_the_game_s_move_and_still_opens_no_table(sim: Sim) -> None:
    s = sim
    await s.say("alice", "!play ictc ai:1 deck:Ember")
    await s.say("alice", "!start", channel="ictc-1")
    await s.say("alice", "!cut", channel="ictc-1")
    said = await s.say("alice", "!play ictc", channel="ictc-1")
    assert "open a new table from a channel" in said[0].content
    state = await s.battle()
    if "alice" in ENGINE.awaiting(state):
        card = state.sides[state.seats.index("alice")].hand[0]
        said = await s.say("alice", f"!play #{card}", channel="ictc-1")
        assert "open a new table" not in said[0].content


async def challenged_and_cut(s: Sim, name: str = "ictc-1") -> None:
    """alice challenges bob with the kitty at stake, bob accepts (the battle is table ``name``), and both cut."""
    await claimed(s)
    await s.say("alice", "!challenge @bob")
    await s.say("bob", "!challenge accept")
    for _ in range(2):
        state = await s.battle(name)
        seat = sorted(ENGINE.awaiting(state))[0]
        await s.say(seat, "!cut", channel=name)


def thread(s: Sim) -> str:
    return "\n".join(x.content for x in s.said if x.channel == "ictc-1" and x.to is None)


async def test_the_computer_playing_for_a_member_who_left_never_agrees_to_an_undo(sim: Sim) -> None:
    s = sim
    await challenged_and_cut(s)
    await s.say("bob", "!leave", channel="ictc-1")
    assert (await s.table()).seat_named("bob").autopilot, "the computer plays bob's seat"
    state = await s.battle()
    assert ENGINE.awaiting(state) == {"alice"}
    kitty = [side.kitty for side in state.sides]
    await s.say("alice", "!undo 1", channel="ictc-1")
    after = await s.battle()
    assert "Undone by agreement (bob)" not in thread(s), "bob never agreed"
    assert after.turn >= 1, "the cut still stands"
    assert [side.kitty for side in after.sides] == kitty, "the kitty was not turned over anew"
    assert after.proposal is not None
    assert after.proposal.disputed, "it waits for a moderator's ruling"
    await s.say("alice", "!withdraw", channel="ictc-1")
    assert (await s.battle()).proposal is None


async def test_a_dispute_cannot_name_a_player_of_the_battle_as_its_judge(sim: Sim) -> None:
    s = sim
    await challenged_and_cut(s)
    state = await s.battle()
    mover = sorted(ENGINE.awaiting(state))[0]
    other = next(seat for seat in state.seats if seat != mover)
    await s.say(mover, f"!adj hp @{other} -1", channel="ictc-1")
    for judge in (f"@{mover}", f"@{other}", "me"):
        said = await s.say(other, f"!dispute {judge}", channel="ictc-1")
        assert said[0].content.startswith("Can't do that:"), said[0].content
        assert "plays in this battle" in said[0].content
        assert "`!dispute` alone asks the moderators" in said[0].content
        assert not (await s.battle()).proposal.disputed  # type: ignore[union-attr]
    await s.say("carol", "!challenges")  # carol is a member of the server who does not play here
    said = await s.say(other, "!dispute @carol", channel="ictc-1")
    assert "carol decides" in said[0].content or "<@carol> decides" in said[0].content
    assert lobby.game_state(await s.table()).proposal.judge == "carol"


async def test_conceding_during_the_cut_forfeits_the_kitty_as_a_loss_does(sim: Sim) -> None:
    s = sim
    await claimed(s)
    before = {c.id: c.owner for c in (await s.library()).copies.values()}
    await s.say("alice", "!challenge @bob")
    await s.say("bob", "!challenge accept")
    assert (await s.battle()).sides[0].kitty == ()
    await s.say("bob", "!concede", channel="ictc-1")
    state = await s.battle()
    assert (await s.table()).status is TableStatus.FINISHED
    bob = next(i for i, side in enumerate(state.sides) if side.owner == "bob")
    kitty = [state.card(c).copy_id for c in state.sides[bob].kitty]
    assert kitty, "the kitty was turned over before the concession counted"
    lib = await s.library()
    challenge = lib.challenges[1]
    assert challenge.winner == "alice"
    assert sorted(challenge.kitty) == sorted(kitty)
    after = {c.id: c.owner for c in lib.copies.values()}
    assert after.keys() == before.keys(), "no copy lost, none made"
    assert {c for c in after if after[c] != before[c]} == set(kitty), "bob's kitty and nothing else changed hands"
    assert all(after[c] == "alice" for c in kitty)
    assert all(lib.in_battle(c) is None for c in after)
    assert "The kitty goes to alice" in thread(s)


async def left_the_server(s: Sim, member: str) -> list[Said]:
    s.n += 1
    s.now += timedelta(seconds=5)
    start = len(s.said)
    await s.world.feed(LeaveLine(type="leave", at=s.now, user=member), number=s.n)
    return s.said[start:]


async def test_a_member_who_leaves_the_server_leaves_their_seat_to_the_computer(sim: Sim) -> None:
    s = sim
    await s.say("carol", "!play ictc deck:Tide")
    await s.say("dave", "!join ictc-1 deck:Ember")
    battle = "ictc-2"
    await challenged_and_cut(s, battle)
    assert (await s.table(battle)).seat_named("bob") is not None
    said = await left_the_server(s, "bob")
    assert [x.content for x in said if x.channel == battle and "bob left the server" in x.content], said
    seat = (await s.table(battle)).seat_named("bob")
    assert seat.left
    assert seat.autopilot, "the computer plays bob's seat from now on"
    assert ENGINE.awaiting(await s.battle(battle)) == {"alice"}, "the computer moved for bob at once"
    said = await left_the_server(s, "bob")
    assert said == [], "leaving twice changes nothing"
    await left_the_server(s, "dave")
    assert [seat.member for seat in (await s.table()).seats] == ["carol"], "a lobby's seat simply goes"
    await play_out(s, battle)
    assert (await s.table(battle)).status is TableStatus.FINISHED, "the battle went on to its end"
    assert (await s.library()).challenges[1].status is ChallengeStatus.OVER


async def test_in_the_thread_a_card_alice_cannot_see_is_answered_as_one_that_does_not_exist(sim: Sim) -> None:
    """`!adj discard #N` then `!withdraw`, for every card of bob's that alice cannot see: the same answers, to
    the same audience, as for a number the battle does not have (the issue's way of reading bob's hand)."""
    s = sim
    await challenged_and_cut(s)
    state = await s.battle()
    bob = state.seats.index("bob")
    hidden = [*state.sides[bob].hand, *state.sides[bob].deck]
    assert state.sides[bob].hand
    assert state.sides[bob].deck

    async def answers(card: int) -> list[tuple[str | None, str | None, str]]:
        found = []
        for text in (f"!adj discard #{card}", f"!adj move #{card} top", "!withdraw"):
            said = await s.say("alice", text, channel="ictc-1")
            found.extend((x.channel, x.to, x.content.replace(f"#{card}", "#N")) for x in said)
        return found

    unseen = await answers(len(state.cards) + 1)
    assert unseen
    assert all(x[2].startswith("Can't do that:") for x in unseen), unseen
    for card in hidden:
        assert await answers(card) == unseen, f"bob's #{card} ({'hand' if card in state.sides[bob].hand else 'deck'})"
    assert (await s.battle()).proposal is None
