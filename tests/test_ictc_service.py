"""The card library on a real store: one transaction per action, redelivery, bad input, restarts,
guild votes caught up after downtime, and card copies traded with the round in one transaction."""

from __future__ import annotations

import sqlite3
from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from bot.router import Router
from data.library_store import LibraryStore
from data.store import Store
from games.ictc.service import LibraryService
from games.ictc.state import DesignStatus
from games.nomic.actions import StartRound
from games.nomic.context import ChannelRole, Context
from games.nomic.ruleset import Ruleset
from games.nomic.service import RoundService
from games.nomic.state import TradeStatus
from scheduler.due import opening

from .ictc_support import resolve

GUILD = "g1"
T0 = datetime(2026, 12, 7, 9, tzinfo=UTC)
"""A Monday: the round's next boundary is Thursday 00:00."""
IMP = "!card new Fire Imp | type: soldier | cost: R+1 | cr: 2 | keywords: Haste | text: A quick imp of flame."


class Bot:
    """A router with the round and the card library on one database file, as the bot runs them."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.now = T0
        self._n = 0
        self.stores: list[Store | LibraryStore] = []
        self.router: Router

    async def start(self, *, fresh: bool = True) -> Bot:
        store = await Store.open(self.path, synchronous="NORMAL")
        cards = await LibraryStore.open(self.path, synchronous="NORMAL", store=store)
        self.stores += [store, cards]
        self.router = Router(RoundService(store), None, LibraryService(cards))
        if fresh:
            ruleset = Ruleset()
            phase, presenting = opening(ruleset, T0)
            ctx = Context(actor="setup", actor_name="setup", channel=ChannelRole.OTHER, at=T0, event_id="setup")
            start = StartRound(ruleset=ruleset, phase=phase, presenting_open=presenting, moderators=("mod",))
            await self.router.service.start(GUILD, ctx, start, seed="s")
        return self

    async def stop(self) -> None:
        while self.stores:
            await self.stores.pop().close()

    async def restart(self) -> None:
        await self.stop()
        await self.start(fresh=False)

    async def say(self, actor: str, content: str, *, event: str | None = None) -> str:
        self._n += 1
        self.now += timedelta(minutes=1)
        ctx = Context(
            actor=actor,
            actor_name=actor,
            channel=ChannelRole.GAME_ACTIONS,
            at=self.now,
            is_moderator=actor == "mod",
            event_id=event or f"msg:{self._n}",
        )
        posts = await self.router.message(GUILD, ctx, content, resolve, message_id=event or f"m{self._n}")
        return "\n".join(p.text for p in posts)

    @property
    def library(self) -> LibraryService:
        assert self.router.library is not None
        return self.router.library

    def rows(self) -> tuple[int, int, int]:
        """Rows of the library's three tables, read by another connection."""
        with sqlite3.connect(self.path) as conn:
            return tuple(  # type: ignore[return-value]
                conn.execute(f"SELECT COUNT(*) FROM {t}").fetchone()[0]
                for t in ("card_libraries", "card_rows", "card_actions")
            )


@pytest.fixture
async def bot(tmp_path: Path) -> AsyncIterator[Bot]:
    b = await Bot(tmp_path / "cards.db").start()
    yield b
    await b.stop()


async def test_each_action_commits_its_rows_and_its_log_row_and_a_restart_reads_them_back(bot: Bot) -> None:
    assert bot.rows() == (0, 0, 0), "a library is written only by its first action"
    assert "The card library" in await bot.say("alice", "!card help")
    assert bot.rows() == (0, 0, 0), "questions write nothing"
    await bot.say("alice", IMP)
    libraries, rows, log = bot.rows()
    assert (libraries, log) == (1, 1)
    assert rows >= 24, "the starter set and the new design (and its maker's name)"
    await bot.say("alice", "!card submit Fire Imp")
    await bot.say("bob", "!card approve Fire Imp")
    before = await bot.library.state(GUILD)
    assert bot.rows()[2] == 3
    await bot.restart()
    after = await bot.library.state(GUILD)
    assert after == before
    assert after.designs[24].current.approvals == ("bob",)


async def test_a_redelivered_event_changes_nothing_and_gets_no_second_answer(bot: Bot) -> None:
    first = await bot.say("alice", IMP, event="msg:dup")
    assert "draft is saved" in first
    rows = bot.rows()
    assert await bot.say("alice", IMP, event="msg:dup") == ""
    assert bot.rows() == rows
    await bot.restart()
    assert await bot.say("alice", IMP, event="msg:dup") == ""
    assert len([d for d in (await bot.library.state(GUILD)).designs.values() if d.owner == "alice"]) == 1


@pytest.mark.parametrize(
    ("line", "says"),
    [
        (IMP.replace("A quick imp of flame.", "x" * 4000), "4,000 characters long; a card holds at most 350"),
        (IMP.replace("R+1", "99999R"), "99999 is too large for a cost"),
        (IMP.replace("Haste", "Teleport"), "`Teleport` is not a keyword of this server"),
        (IMP.replace("Fire Imp", "Fire 🔥 Imp"), "not `🔥`"),
        ("!card new " + "y" * 11_000, "too long"),
        ("!card frobnicate", "not a card command"),
        ("!card approve #999", "there is no card #999"),
    ],
)
async def test_bad_input_is_answered_with_the_reason_and_nothing_is_stored(bot: Bot, line: str, says: str) -> None:
    await bot.say("bob", "!guild create Smiths")  # the library exists on disk
    rows = bot.rows()
    state = await bot.library.state(GUILD)
    answer = await bot.say("alice", line)
    assert answer.startswith("Can't do that:")
    assert says in answer
    assert bot.rows() == rows
    assert await bot.library.state(GUILD) is state


async def test_a_guild_vote_due_while_the_bot_was_down_is_counted_once_after_the_restart(bot: Bot) -> None:
    await bot.say("gina", "!guild create Smiths vote quorum:1 hours:24")
    await bot.say("alice", IMP)
    await bot.say("alice", "!card submit Fire Imp guild:Smiths")
    await bot.say("gina", "!card approve Fire Imp")
    deadline = bot.now - timedelta(minutes=1) + timedelta(hours=24)  # the submission, a minute ago, plus 24h
    assert await bot.router.next_due(GUILD) == deadline, "the vote's deadline comes before the round's Thursday"
    await bot.restart()  # the bot is down past the deadline
    later = deadline + timedelta(days=1)
    posts = await bot.router.due_work(GUILD, later)
    said = [p.text for p in posts]
    approvals = [t for t in said if "The guild Smiths approves" in t]
    assert len(approvals) == 2, "announced in #game-actions and told to the maker"
    public = next(p for p in posts if "The guild Smiths approves" in p.text and not p.to)
    assert public.channel is ChannelRole.GAME_ACTIONS
    assert public.at == deadline
    assert public.card == (24, 1)
    assert any(p.to == ("alice",) for p in posts)
    assert (await bot.library.state(GUILD)).designs[24].status is DesignStatus.APPROVED
    assert await bot.router.due_work(GUILD, later) == []
    await bot.restart()
    assert [p for p in await bot.router.due_work(GUILD, later) if "Smiths" in p.text] == []
    assert await bot.router.next_due(GUILD) != deadline


async def _copies_to_trade(bot: Bot) -> tuple[int, int]:
    await bot.say("alice", "!card starter Ember")
    await bot.say("bob", "!card starter Tide")
    await bot.say("alice", "!join")
    await bot.say("bob", "!join")
    state = await bot.library.state(GUILD)
    return state.copies_of("alice")[0].id, state.copies_of("bob")[0].id


async def test_a_trade_of_copies_moves_them_with_the_round_trade_in_one_transaction(bot: Bot) -> None:
    mine, theirs = await _copies_to_trade(bot)
    refused = await bot.say("alice", f"!offer @bob give copy:{theirs} for nothing")
    assert f"card copy {theirs} is not alice's" in refused
    stranger = await bot.say("carol", f"!offer @bob give copy:{mine} for nothing")
    assert "only players can do that" in stranger, "the round's own refusal comes first"
    offered = await bot.say("alice", f"!offer @bob give copy:{mine} for copy:{theirs}")
    assert "Trade 1" in offered
    assert f"card copy {mine} is Ember Well" in offered
    settled = await bot.say("bob", "!accept 1", event="msg:accept")
    assert "Trade 1 is done" in settled
    assert f"Card copies moved: card copy {mine} (Ember Well, #1 v1 by the starter set) now belongs to bob" in settled
    assert f"; card copy {theirs} (Tide Pool, #15 v1 by the starter set) now belongs to alice." in settled
    log = bot.rows()[2]
    assert await bot.say("bob", "!accept 1", event="msg:accept") == "", "a redelivered acceptance changes nothing"
    assert bot.rows()[2] == log
    state = await bot.library.state(GUILD)
    assert state.copies[mine].owner == "bob"
    assert state.copies[theirs].owner == "alice"
    round_state = await bot.router.service.state(GUILD)
    assert round_state is not None
    assert round_state.closed_trades[1].status is TradeStatus.ACCEPTED
    await bot.restart()
    again = await bot.library.state(GUILD)
    assert again.copies[mine].owner == "bob", "written in the trade's transaction"
    assert (await bot.router.service.state(GUILD)).closed_trades[1].status is TradeStatus.ACCEPTED  # type: ignore[union-attr]


async def test_when_the_library_part_fails_the_round_trade_is_not_settled_either(bot: Bot) -> None:
    mine, _ = await _copies_to_trade(bot)
    await bot.say("alice", f"!offer @bob give copy:{mine} for nothing")
    # another process gives the copy away after this one read it
    with sqlite3.connect(bot.path) as conn:
        conn.execute(
            "UPDATE card_rows SET owner_id = 'carol' WHERE guild_id = ? AND collection = 'copies' AND key = ?",
            (GUILD, str(mine)),
        )
    answer = await bot.say("bob", "!accept 1")
    assert "changed hands meanwhile; nothing was traded" in answer
    round_state = await bot.router.service.state(GUILD)
    assert round_state is not None
    assert round_state.trades[1].status is TradeStatus.OPEN, "the round's part rolled back with the library's"
    with sqlite3.connect(bot.path) as conn:
        kinds = [r[0] for r in conn.execute("SELECT kind FROM actions WHERE guild_id = ? ORDER BY seq", (GUILD,))]
        moves = conn.execute("SELECT COUNT(*) FROM card_actions WHERE kind = 'copies_move'").fetchone()[0]
    assert "accept" not in kinds
    assert moves == 0
    assert (await bot.library.state(GUILD)).copies[mine].owner == "alice", "the cache is untouched"


async def test_inventory_counts_ones_own_copies_by_card_and_anothers_only_in_all(bot: Bot) -> None:
    await _copies_to_trade(bot)
    state = await bot.library.state(GUILD)
    names: dict[str, int] = {}
    for copy in state.copies_of("alice"):
        name = state.designs[copy.design].name
        names[name] = names.get(name, 0) + 1
    assert len(names) > 1
    ctx = Context(actor="alice", actor_name="alice", channel=ChannelRole.GAME_ACTIONS, at=bot.now, event_id="inv")
    (own,) = await bot.router.message(GUILD, ctx, "!inventory", resolve)
    assert own.private, "one's own inventory names cards: only its owner sees it"
    listed = ", ".join(f"{name} ×{n}" for name, n in sorted(names.items(), key=lambda kv: kv[0].casefold()))
    total = sum(names.values())
    assert f"\nCard copies ({total}): {listed}" in own.text
    other = await bot.say("bob", "!inventory @alice")
    assert f"\nCard copies: {total}" in other
    assert not any(name in other for name in names), "another member's copies are counted, never named"
    await bot.say("carol", "!join")
    assert "Card copies" not in await bot.say("carol", "!inventory"), "no copies, no line"
    bare = Router(bot.router.service)
    (plain,) = await bare.message(GUILD, ctx, "!inventory", resolve)
    assert "Card copies" not in plain.text, "without the card library the round's inventory is as it was"


async def test_copies_are_refused_where_no_library_runs_and_never_given_by_moderators(bot: Bot) -> None:
    mine, _ = await _copies_to_trade(bot)
    given = await bot.say("mod", f"!admin give @bob copy:{mine}")
    assert "change hands by trade" in given
    bare = Router(bot.router.service)
    ctx = Context(actor="alice", actor_name="alice", channel=ChannelRole.GAME_ACTIONS, at=bot.now, event_id="x1")
    posts = await bare.message(GUILD, ctx, f"!offer @bob give copy:{mine} for nothing", resolve)
    assert posts[0].error
    assert "only where the card library runs" in posts[0].text


async def test_the_card_library_bench_runs(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from bot.bench.cards import cards_bench

    assert await cards_bench(designs=40, runs=2, seed="t", where=tmp_path) == 0
    assert "`!card submit`" in capsys.readouterr().out


async def test_a_library_action_whose_commit_answer_was_lost_is_found_durable(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """On PostgreSQL the connection may be lost while COMMIT is on its way (a failover, a restart): the
    writer the library shares looks the batch's event up on another connection, so an action the server
    kept is answered as done and the library's next action does not meet a conflict with the row it did
    not know of."""
    import asyncpg
    from asyncpg.transaction import Transaction

    from tests.engines import postgres_databases

    with postgres_databases(tmp_path) as dbs:
        bot = await Bot(dbs.new("cards")).start()  # type: ignore[arg-type]
        try:
            original = Transaction._Transaction__commit
            dropped: list[bool] = []

            async def commit_then_drop(self: Transaction) -> None:
                await original(self)
                if not dropped:
                    dropped.append(True)
                    self._connection.terminate()
                    raise asyncpg.ConnectionDoesNotExistError("connection was closed in the middle of operation")

            monkeypatch.setattr(Transaction, "_Transaction__commit", commit_then_drop)
            assert "draft is saved" in await bot.say("alice", IMP)
            assert dropped
            submitted = await bot.say("alice", "!card submit Fire Imp")
            assert "changed meanwhile" not in submitted
            before = await bot.library.state(GUILD)
            await bot.restart()
            assert await bot.library.state(GUILD) == before
        finally:
            await bot.stop()


async def test_a_refusal_about_ones_own_draft_is_answered_to_its_maker_alone(bot: Bot) -> None:
    await bot.say("alice", IMP)
    ctx = Context(actor="alice", actor_name="alice", channel=ChannelRole.GAME_ACTIONS, at=bot.now, event_id="mint")
    (own,) = await bot.router.message(GUILD, ctx, "!card mint #24", resolve)
    assert own.error
    assert own.private, "'Fire Imp is not approved yet' names a private draft: not in the channel"
    assert "Fire Imp" in own.text
    ctx = ctx.model_copy(update={"actor": "bob", "actor_name": "bob", "event_id": "mint-bob"})
    (theirs,) = await bot.router.message(GUILD, ctx, "!card mint #24", resolve)
    assert theirs.error
    assert not theirs.private
    assert theirs.text == (await bot.say("bob", "!card mint #25")).replace("#25", "#24"), "as for no card at all"
    (copies,) = await bot.router.message(GUILD, ctx.model_copy(update={"event_id": "c"}), "!card copies", resolve)
    assert copies.private, "one's own copies, as one's own inventory, only to oneself"


async def test_an_offer_never_tells_which_copies_the_other_member_holds(bot: Bot) -> None:
    mine, theirs = await _copies_to_trade(bot)
    await bot.say("carol", "!card starter Ember")
    carols = (await bot.library.state(GUILD)).copies_of("carol")[0].id
    held = await bot.say("alice", f"!offer @bob give copy:{mine} for copy:{theirs}")
    elsewhere = await bot.say("alice", f"!offer @bob give copy:{mine} for copy:{carols}")
    assert held.startswith("Trade 1")
    assert elsewhere.startswith("Trade 2"), "whether bob holds the copy asked for is his to know"
    assert "bob's" not in elsewhere
    refused = await bot.say("bob", "!accept 2")
    assert f"card copy {carols} is not bob's" in refused, "accepting, bob is told about his own copies"
    state = await bot.library.state(GUILD)
    assert state.copies[carols].owner == "carol"
    assert state.copies[mine].owner == "alice"


async def test_a_guild_without_a_library_of_its_own_is_answered_without_building_the_starter_one(bot: Bot) -> None:
    """The check for due work and the replay's state document read nothing of the starter set: what they
    would read of it is what they answer without it (no vote under way, an entry like an empty library's)."""
    from bot.sim.statedoc import cards_entry
    from games.ictc.approvals import next_review
    from games.ictc.starter import initial_state

    starter = initial_state()
    assert next_review(starter) is None
    assert not starter.copies
    assert cards_entry(None) == cards_entry(starter)
    assert await bot.library.next_due(GUILD) is None
    assert await bot.library.copy_counts(GUILD, "alice") == {}
    assert await bot.library.own_library(GUILD) is None, "nothing stored, nothing built"
    assert await bot.say("alice", IMP)
    own = await bot.library.own_library(GUILD)
    assert own is not None
    assert any(d.owner == "alice" for d in own.designs.values())
    await bot.restart()
    again = await bot.library.own_library(GUILD)
    assert again is not None
    assert again.designs.keys() == own.designs.keys(), "read back from the store"
