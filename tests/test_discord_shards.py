"""The sharded bot's adapter on simulated Discord: a guild another process holds is answered, not written;
a guild taken back is read afresh and caught up once; ``/healthz``; the sharded client; JSON logs."""

from __future__ import annotations

import io
import json
import logging
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import aiohttp
import pytest

from bot.discord.app import OWNED_ELSEWHERE, NomicBot, ShardedNomicBot, create_bot
from bot.logs import acting_for, configure
from bot.settings import Settings
from data.base import OwnedElsewhereError
from data.ownership import LocalOwnership, Lost
from data.store import Store
from games.nomic.actions import Join
from games.nomic.context import ChannelRole, Context
from games.nomic.service import RoundService
from tests.engines import rows

from .conftest import Server

SUNDAY = datetime(2026, 12, 6, tzinfo=UTC)


@pytest.fixture
def bot_settings(tmp_path: Path) -> Settings:
    return Settings(
        _env_file=None,  # type: ignore[call-arg]
        discord_token=None,
        database_path=tmp_path / "nomic.db",
        sqlite_synchronous="NORMAL",
        board_refresh_seconds=30,
        moderator_role=None,
        health_port=0,
    )


class Locks(LocalOwnership):
    """The guild locks as PostgreSQL's behave for this process (tests/test_ownership.py runs the real ones):
    ``elsewhere`` are held by another process; ``lose`` is the lock connection dying."""

    def __init__(self) -> None:
        super().__init__()
        self.elsewhere: set[str] = set()
        self._listeners: list[Lost] = []

    async def acquire(self, guild: str) -> bool:
        if guild in self.elsewhere:
            return False
        return await super().acquire(guild)

    async def ensure(self, guild: str) -> None:
        if not await self.acquire(guild):
            raise OwnedElsewhereError(guild)

    def holds(self, guild: str) -> bool:
        return guild in self._held

    def on_lost(self, callback: Lost) -> None:
        self._listeners.append(callback)

    def lose(self) -> None:
        lost, self._held = sorted(self._held), set()
        for listener in self._listeners:
            listener(lost)


def logged(db: Path, guild: str) -> list[tuple[int, str, str]]:
    query = f"SELECT seq, event_id, kind FROM actions WHERE guild_id = '{guild}' ORDER BY seq"
    return [(int(seq), str(event), str(kind)) for seq, event, kind in rows(str(db), query)]


async def health(bot: NomicBot) -> tuple[int, dict[str, Any]]:
    assert bot.keeper.health is not None
    async with aiohttp.ClientSession() as session, session.get(bot.keeper.health.url) as response:
        return response.status, await response.json()


async def test_a_guild_held_by_another_process_is_answered_then_taken_back_and_caught_up_once(
    discord_server: Server, bot_settings: Settings
) -> None:
    s = discord_server
    db = bot_settings.database_path
    guild = str(s.guild.id)
    locks = Locks()
    s.bot.keeper.use(locks)
    await s.alice.send(s.game_actions, "!join")
    assert locks.owned() == [guild]
    status, report = await health(s.bot)
    assert status == 200
    assert report["status"] == "ok"
    assert report["guilds_owned"] == 1
    assert report["shards"] == {"ids": [0], "count": None}
    assert report["last_commit"] is not None
    assert report["commit_queue"] == 0
    assert set(report) >= {"gateway_latency_ms", "up_since", "commits"}

    locks.lose()  # the lock connection died; another process takes the guild over
    locks.elsewhere.add(guild)
    status, report = await health(s.bot)
    assert (status, report["status"], report["guilds_owned"]) == (503, "lost", 0)

    # that process acts for the guild (bob joins there), on the same store
    store = await Store.open(db, synchronous="NORMAL")
    try:
        ctx = Context(
            actor=str(s.bob.id), actor_name="bob", channel=ChannelRole.GAME_ACTIONS, at=s.clock.now(), event_id="msg:b"
        )
        assert (await RoundService(store).act(guild, ctx, Join())).accepted
    finally:
        await store.close()
    before = logged(db, guild)

    await s.carol.send(s.game_actions, "!join")
    assert s.last_answer(s.game_actions) == OWNED_ELSEWHERE
    assert logged(db, guild) == before  # nothing written by a process that does not hold the guild
    s.clock.set(SUNDAY + timedelta(hours=1))
    await s.bot.run_scheduled_work()
    assert logged(db, guild) == before  # nor by its timers

    locks.elsewhere.clear()  # that process stopped: its lock freed
    await s.carol.send(s.game_actions, "!join")
    state = await s.state()
    assert state is not None
    # read afresh: bob's join made elsewhere is there, Sunday's tick was caught up once, then carol joined
    assert {str(s.alice.id), str(s.bob.id), str(s.carol.id)} <= set(state.players)
    log = logged(db, guild)
    ticks = [event for _, event, kind in log if kind == "tick"]
    assert len(ticks) == len(set(ticks))
    assert "tick:2026-12-06T00:00:00+00:00" in ticks
    assert [seq for seq, _, _ in log] == list(range(1, len(log) + 1))
    status, report = await health(s.bot)
    assert (status, report["guilds_owned"]) == (200, 1)


def test_shard_count_runs_the_sharded_client_with_this_process_s_shards(tmp_path: Path) -> None:
    sharded = create_bot(
        Settings(_env_file=None, database_path=tmp_path / "a.db", shard_count="4", shard_ids="1,3")  # type: ignore[call-arg]
    )
    assert isinstance(sharded, ShardedNomicBot)
    assert sharded.shard_count == 4
    assert sharded.shard_ids == [1, 3]
    plain = create_bot(Settings(_env_file=None, database_path=tmp_path / "b.db"))  # type: ignore[call-arg]
    assert not isinstance(plain, ShardedNomicBot)
    assert plain.shard_count is None


def test_json_logs_name_the_guild_and_the_shard() -> None:
    out = io.StringIO()
    root = logging.getLogger()
    saved = (list(root.handlers), root.level)
    try:
        configure("INFO", "json", stream=out, shards=[0, 1])
        with acting_for("4194304000", 1):
            logging.getLogger("bot.test").warning("a tick for %s", "Sunday")
        logging.getLogger("bot.test").info("no guild here")
    finally:
        root.handlers[:] = saved[0]
        root.setLevel(saved[1])
    first, second = (json.loads(line) for line in out.getvalue().splitlines())
    assert first["message"] == "a tick for Sunday"
    assert (first["guild"], first["shard"], first["level"], first["shards"]) == ("4194304000", 1, "WARNING", [0, 1])
    assert first["time"].endswith("Z")
    assert "guild" not in second
