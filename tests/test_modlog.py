"""The moderators' log on a real store: each accepted correction once, in its action's transaction;
refusals, redeliveries and players' actions never; ``!admin log`` for moderators only."""

from __future__ import annotations

import sqlite3
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from bot.router import Router
from data.store import KEEP, ModLogRecord, Store
from games.nomic.actions import StartRound
from games.nomic.context import ChannelRole, Context
from games.nomic.phases import Phase
from games.nomic.ruleset import Ruleset
from games.nomic.service import RoundService
from tests.support import MONDAY

GUILD = "g"
def resolve(token: str) -> str:
    return token.strip().removeprefix("@")


def ctx(actor: str, n: int) -> Context:
    return Context(
        actor=actor,
        actor_name=actor,
        channel=ChannelRole.GAME_ACTIONS,
        at=MONDAY,
        is_moderator=actor == "mod",
        event_id=f"msg:{n}",
    )


@pytest.fixture
async def router(tmp_path: Path) -> AsyncIterator[Router]:
    store = await Store.open(tmp_path / "log.db")
    service = RoundService(store)
    start = StartRound(ruleset=Ruleset(), phase=Phase.AUCTION, presenting_open=False, moderators=("mod",))
    await service.start(GUILD, Context(actor="setup", actor_name="setup", channel=ChannelRole.OTHER, at=MONDAY), start)
    try:
        yield Router(service)
    finally:
        await store.close()


async def say(router: Router, actor: str, text: str, n: int) -> list[str]:
    return [p.text for p in await router.message(GUILD, ctx(actor, n), text, resolve)]


async def test_each_accepted_correction_is_logged_once_with_who_when_and_what(router: Router) -> None:
    await say(router, "alice", "!join", 1)
    posts = await router.message(GUILD, ctx("mod", 2), "!admin give @alice 5 points AS", resolve)
    assert [(p.channel, p.text) for p in posts[1:]] == [
        (ChannelRole.MOD_LOG, "🛠️ mod · `!admin give`: mod gave alice 5 points, 1 card.")
    ]
    await say(router, "mod", "!admin give @alice 5 points AS", 2)  # redelivered
    await say(router, "mod", "!admin take @alice 500 points", 3)  # refused
    await say(router, "alice", "!notify outbid on", 4)  # a player's own setting
    await say(router, "mod", "!admin lot AS KH", 5)
    await say(router, "mod", "!admin set reminders.auction_end_hours 6", 6)
    entries, total = await router.service.mod_log(GUILD, limit=10)
    assert total == 3
    assert [(e.kind, e.name, e.at) for e in entries] == [
        ("admin_set", "mod", MONDAY),
        ("admin_lot", "mod", MONDAY),
        ("admin_give", "mod", MONDAY),
    ]
    assert entries[0].what == "mod set `reminders.auction_end_hours` from [24, 1] to [6] (ruleset version 2)."

    text = (await say(router, "mod", "!admin log 2", 7))[0]
    assert text.startswith("Moderators' log (the latest 2 of 3, newest first):\n- Mon 2026-12-07 00:00 UTC")
    assert "`!admin lot`: A moderator placed lot 1: AS KH." in text
    refused = await say(router, "alice", "!admin log", 8)
    assert refused == ["Can't do that: only moderators can read the moderators' log."]


async def test_a_setup_change_and_its_log_entry_are_one_transaction(tmp_path: Path) -> None:
    store = await Store.open(tmp_path / "setup.db")
    try:
        entry = ModLogRecord(MONDAY, "1", "mod", "setup", "#auctions → #bids")
        await store.setup_change(GUILD, entry, channels={"auctions": "42"}, moderator_role=KEEP)
        assert (await store.guild_settings(GUILD)).channels == {"auctions": "42"}
        assert await store.mod_log(GUILD, limit=5) == [entry]
        with pytest.raises(sqlite3.ProgrammingError):  # a failure inside the transaction leaves neither
            await store.setup_change(GUILD, entry, channels={"game-actions": "7", "proposals": object()})  # type: ignore[dict-item]
        assert (await store.guild_settings(GUILD)).channels == {"auctions": "42"}
        assert await store.mod_log_count(GUILD) == 1
    finally:
        await store.close()
