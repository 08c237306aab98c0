"""Every command gets its own answer, once: a DM whose action also tells other members something
privately, and a seat handed to the computer whose moves fill more than one message.

The simulator's contract: every command message gets at least one answer, addressed to its author
(``reply_to`` its id; ``to`` them when it was a DM); a post is one Discord message (at most 2,000
characters), whatever the computer played at once.
"""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from bot.refusals import KEEP
from bot.router import Router
from bot.sim.replay import ReplayResult, replay
from bot.sim.world import read_line
from data import group_commit
from data.group_commit import GroupCommit, Written
from data.library_store import LibraryStore
from data.store import Store
from data.stores import open_stores
from data.table_store import TableStore
from games.ictc.service import LibraryService
from games.nomic.service import RoundService
from games.tables import posts
from games.tables.service import TableService
from scheduler.live import catch_up

from .test_group_commit import Engine, Job, turn
from .test_store import GUILD, ctx, resolve, start

DISCORD_LIMIT = 2000
SETUP = {"at": "2026-12-07T09:00:00Z", "type": "setup", "admins": ["mod"]}


def msg(mid: str, second: int, channel: str, author: str, content: str) -> dict[str, Any]:
    at = f"2026-12-07T09:00:{second:02d}Z"
    return {"at": at, "type": "message", "id": mid, "channel": channel, "author": author, "content": content}


def run(*raw: dict[str, Any], seed: str = "1", until: datetime | None = None) -> ReplayResult:
    lines = [(i, read_line(d)) for i, d in enumerate(raw)]
    return asyncio.run(replay(lines, seed=seed, until=until))


def answers(result: ReplayResult, mid: str) -> list[dict[str, Any]]:
    return [e for e in result.transcript if e.get("reply_to") == mid]


def test_a_dm_start_that_hands_another_member_cards_is_still_answered_to_its_author() -> None:
    """Under this seed the computer's seats hand alice cards as the game starts: posts for alice alone,
    which are no answer to bob's DM."""
    result = run(
        SETUP,
        msg("p", 1, "game-actions", "alice", "!play wikipedia ai:2"),
        msg("j", 2, "wikipedia-1", "bob", "!join"),
        msg("s", 3, "dm", "bob", "!wikipedia-1 start"),
        seed="6",
    )
    told_alice = [e for e in result.transcript if e.get("to") == "alice" and "hands card" in e["content"]]
    assert told_alice, "the seed no longer has the computer hand alice a card at the start"
    said = answers(result, "s")
    assert said, "bob's DM got no answer"
    assert all(e.get("to") == "bob" for e in said), said
    assert any("wikipedia-1" in e["content"] for e in said)


def _long_autoplay(seed: str) -> ReplayResult:
    """alice never plays: after three timeouts the computer plays her seat, and the game, at once."""
    return run(
        SETUP,
        msg("p", 1, "game-actions", "alice", "!play wikipedia ai:3 turn:1h"),
        msg("s", 3, "wikipedia-1", "alice", "!start"),
        seed=seed,
        until=datetime(2026, 12, 9, tzinfo=UTC),
    )


def test_the_moves_of_a_seat_handed_to_the_computer_come_in_posts_of_one_message_each(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    result = _long_autoplay("3")
    thread = [e for e in result.transcript if e.get("channel") == "wikipedia-1"]
    assert all(len(e["content"]) <= DISCORD_LIMIT for e in result.transcript)

    monkeypatch.setattr(posts, "POST_LIMIT", 10**9)
    whole = [e for e in _long_autoplay("3").transcript if e.get("channel") == "wikipedia-1"]
    longest = max(whole, key=lambda e: len(e["content"]))
    assert len(longest["content"]) > DISCORD_LIMIT, "the computer's run would fit one message anyway"
    at = longest["at"]
    split = [e["content"] for e in thread if e["at"] == at]
    assert len(split) > len([e for e in whole if e["at"] == at]), "the long run became several posts"
    # everything still said, in order, and no line cut: the posts are the run's lines, grouped
    assert "\n".join(split) == "\n".join(e["content"] for e in whole if e["at"] == at)
    assert [e["content"] for e in thread if e["at"] != at] == [e["content"] for e in whole if e["at"] != at]


# --- refusals remembered, on each engine ------------------------------------------------------------

MONDAY = datetime(2026, 12, 7, 9, tzinfo=UTC)
THURSDAY = datetime(2026, 12, 10, 9, tzinfo=UTC)


async def _refused_generate_redelivered(db: str) -> None:
    store = await Store.open(db)
    try:
        service = RoundService(store)
        await start(service, MONDAY - timedelta(days=2))
        router = Router(service)
        assert not (await router.message(GUILD, ctx("alice", MONDAY, "msg:join"), "!join", resolve))[0].error
        await catch_up(service, GUILD, MONDAY)
        refused = await router.message(GUILD, ctx("alice", MONDAY, "msg:gen"), "!generate", resolve)
        assert refused
        assert refused[0].error, "no lots are generated in the auction phase"
    finally:
        await store.close()
    store = await Store.open(db)  # a restart: nothing cached
    try:
        service = RoundService(store)
        router = Router(service)
        await catch_up(service, GUILD, THURSDAY)
        lots = (await service.state(GUILD)).lots
        again = await router.message(GUILD, ctx("alice", THURSDAY, "msg:gen"), "!generate", resolve)
        assert again == [], "the refused event came again once it could be carried out: it changes nothing"
        assert (await service.state(GUILD)).lots == lots
        fresh = await router.message(GUILD, ctx("alice", THURSDAY, "msg:gen2"), "!generate", resolve)
        assert not fresh[0].error, "a new message with the same words is carried out"
        # a month on, a new refusal prunes the old ones: no redelivery comes that late
        late = THURSDAY + KEEP + timedelta(days=1)
        assert (await router.message(GUILD, ctx("bob", late, "msg:late"), "!generate", resolve))[0].error
        await store.writer.flush()  # a refusal's row rides on the next commit, not waited for
        kept = [event for event, _at in await store.refused_events(GUILD, datetime(2000, 1, 1, tzinfo=UTC))]
        assert kept == ["msg:late"]
        assert await store.last_refused_line(GUILD) is None
    finally:
        await store.close()


def test_a_refusal_outlives_a_restart_and_a_month_later_is_forgotten(db_url: str) -> None:
    asyncio.run(_refused_generate_redelivered(db_url))


async def test_a_refused_command_delivered_twice_at_once_is_answered_once(tmp_path: Path) -> None:
    store = await Store.open(tmp_path / "twice.db")
    try:
        service = RoundService(store)
        await start(service, MONDAY - timedelta(days=2))
        router = Router(service)
        await router.message(GUILD, ctx("alice", MONDAY, "msg:join"), "!join", resolve)
        await catch_up(service, GUILD, MONDAY)
        refused = ctx("alice", MONDAY, "msg:gen")
        both = await asyncio.gather(*(router.message(GUILD, refused, "!generate", resolve) for _ in range(2)))
        assert sorted(len(posts) for posts in both) == [0, 1], both
    finally:
        await store.close()


async def test_a_refused_round_command_asks_the_database_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Whether a refused command's event was logged before (a redelivery refused by the state it made) is
    asked of the round's store alone, once: outside a table's thread only the round takes the round's
    words, and the rules' refusal and the router's answer ask the same question. A tenth of a busy week's
    commands are refused; every question is a trip to the database."""
    asked: list[str] = []
    for cls in (Store, TableStore, LibraryStore):
        original = cls.has_event

        async def counted(self: Any, guild: str, event_id: str, original: Any = original) -> bool:
            asked.append(f"{type(self).__name__}:{event_id}")
            return bool(await original(self, guild, event_id))

        monkeypatch.setattr(cls, "has_event", counted)
    stores = await open_stores(tmp_path / "asked.db")
    try:
        service = RoundService(stores.round)
        await start(service, MONDAY - timedelta(days=2))
        router = Router(service, TableService(stores.tables, seed="t"), LibraryService(stores.cards))
        await router.message(GUILD, ctx("alice", MONDAY, "msg:join"), "!join", resolve)
        await catch_up(service, GUILD, MONDAY)
        asked.clear()
        refused = await router.message(GUILD, ctx("alice", MONDAY, "msg:gen"), "!generate", resolve)
        assert refused[0].error, "no lots are generated in the auction phase"
        assert asked == ["Store:msg:gen"]
        again = await router.message(GUILD, ctx("alice", MONDAY, "msg:gen"), "!generate", resolve)
        assert again == [], "remembered: not answered again"
    finally:
        await stores.close()


# --- a refusal's row costs no commit of its own ----------------------------------------------------


async def test_a_job_for_later_rides_on_the_next_write_or_a_flush() -> None:
    engine = Engine()
    writer: GroupCommit[Job] = GroupCommit(engine)
    refused = writer.later(Job("r1"))
    await turn()
    assert engine.batches == [], "no transaction is started for it"
    action = writer.write(Job("a1", "a"))
    assert engine.batches == [["r1", "a1"]], "it rides on the next write's transaction"
    engine.finish()
    await turn()
    assert refused.result() is Written.STORED
    assert action.result() is Written.STORED
    again = writer.later(Job("r2"))
    flushing = asyncio.ensure_future(writer.flush())
    await turn()
    assert engine.batches[-1] == ["r2"], "a flush (and a close) writes it"
    engine.finish()
    await flushing
    assert again.result() is Written.STORED


async def test_a_job_for_later_alone_gets_a_transaction_of_its_own_soon(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(group_commit, "LATER_SECONDS", 0)
    engine = Engine()
    writer: GroupCommit[Job] = GroupCommit(engine)
    refused = writer.later(Job("r1"))
    await turn()
    assert engine.batches == [["r1"]]
    engine.finish()
    await turn()
    assert refused.result() is Written.STORED
