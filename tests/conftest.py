"""Fixtures of the Discord adapter's tests (tests/test_discord_*.py), run on simcord.

``simcord_bot`` is the bot simcord's ``simcord_env`` fixture drives: a real ``NomicBot`` on a
temporary database, with a virtual clock placed on a known Friday (the bartering phase; the
next auction starts on Sunday 2026-12-06) and no timers: tests move the clock and then run the
scheduled work, or let the next command run it.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import discord
import pytest

from bot.discord.app import NomicBot, create_bot
from bot.settings import Settings
from scheduler.clock import VirtualClock
from tests.engines import ENGINES, Databases, databases, postgres_databases

FRIDAY_NOON = datetime(2026, 12, 4, 12, tzinfo=UTC)
ROLE_NAMES = ("game-actions", "auctions", "proposals", "judge-elections")


@pytest.fixture
def bot_clock() -> VirtualClock:
    return VirtualClock(FRIDAY_NOON)


@pytest.fixture
def bot_settings(tmp_path: Path) -> Settings:
    return Settings(
        _env_file=None,  # type: ignore[call-arg]
        discord_token=None,
        database_path=tmp_path / "nomic.db",
        sqlite_synchronous="NORMAL",
        board_refresh_seconds=30,
        bids_answer_seconds=30,
        moderator_role=None,
    )


@pytest.fixture
def simcord_bot(bot_settings: Settings, bot_clock: VirtualClock) -> NomicBot:
    return create_bot(bot_settings, clock=bot_clock, timers=False)


@dataclass
class Server:
    """A guild with the four channels of the round, a moderator and three members."""

    env: Any
    bot: NomicBot
    clock: VirtualClock
    guild: Any
    channels: dict[str, Any]
    mod: Any
    alice: Any
    bob: Any
    carol: Any

    @property
    def game_actions(self) -> Any:
        return self.channels["game-actions"]

    @property
    def auctions(self) -> Any:
        return self.channels["auctions"]

    @property
    def proposals(self) -> Any:
        return self.channels["proposals"]

    @property
    def general(self) -> Any:
        return self.channels["general"]

    def bot_messages(self, channel: Any) -> list[discord.Message]:
        """What the bot said in a channel, oldest first, ephemeral answers included."""
        return [m for m in channel.history() if m.author.id == self.bot.user.id]

    def last_answer(self, channel: Any) -> str:
        said = self.bot_messages(channel)
        return said[-1].content if said else ""

    async def advance(self, to: datetime) -> None:
        """Move the bot's clock and apply what fell due, as the timers would have."""
        self.clock.set(to)
        await self.bot.run_scheduled_work()
        await self.env.settle()

    async def join_all(self) -> None:
        for member in (self.mod, self.alice, self.bob, self.carol):
            await member.send(self.game_actions, "!join")

    async def state(self) -> Any:
        return await self.bot.service.state(str(self.guild.id))


@pytest.fixture
async def discord_server(simcord_env: Any, simcord_bot: NomicBot, bot_clock: VirtualClock) -> AsyncIterator[Server]:
    env = simcord_env
    guild = env.create_guild("Nomic")
    channels = {name: guild.create_text_channel(name) for name in (*ROLE_NAMES, "general")}
    mods = guild.create_role("Mods", permissions=discord.Permissions(manage_guild=True))
    mod = guild.add_member(env.create_user("mod"), roles=[mods])
    members = [guild.add_member(env.create_user(name)) for name in ("alice", "bob", "carol")]
    await mod.send(channels["general"], "!admin sync")
    server = Server(env, simcord_bot, bot_clock, guild, channels, mod, *members)
    yield server
    await server.bot.release()


@pytest.fixture(params=ENGINES)
def dbs(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Databases]:
    """Fresh databases on each engine (SQLite; PostgreSQL when TEST_DATABASE_URL names a server)."""
    yield from databases(request, tmp_path)


@pytest.fixture
def pg_dbs(tmp_path: Path) -> Iterator[Databases]:
    """Fresh PostgreSQL databases, for the cases only PostgreSQL has (skipped without a server)."""
    with postgres_databases(tmp_path) as found:
        yield found


@pytest.fixture
def db_url(dbs: Databases) -> str:
    """One fresh database on each engine: a file path, or a PostgreSQL URL."""
    return dbs.new()
