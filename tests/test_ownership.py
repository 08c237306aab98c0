"""Shards and guild ownership: Discord's shard formula, the settings, and the per-guild lock on a real
PostgreSQL (two processes' lock connections in one test; tests/test_shard_sim.py runs real processes)."""

from __future__ import annotations

import asyncio
from pathlib import Path

import asyncpg
import pytest
from hypothesis import given
from hypothesis import strategies as st

from bot.discord.sharding import GuildKeeper
from bot.settings import Settings
from bot.shards import ShardPlan, parse_shard_ids, shard_of
from data.base import OwnedElsewhereError, fenced_insert
from data.ownership import LocalOwnership, PgOwnership, lock_key, open_ownership
from tests.pg_support import pg_db, pg_url  # noqa: F401 - the fixtures

pytestmark = pytest.mark.filterwarnings("ignore::ResourceWarning")


def test_shard_of_is_discords_formula() -> None:
    # Discord's documented example: this guild is on shard 0 of 1 and shard (id >> 22) % n otherwise
    guild = 197038439483310086
    assert shard_of(guild, 1) == 0
    assert shard_of(guild, 2) == (guild >> 22) % 2
    assert shard_of(str(guild), 7) == (guild >> 22) % 7
    assert shard_of("sim", 4) == 0


@given(st.integers(min_value=0, max_value=2**63 - 1), st.integers(min_value=1, max_value=64))
def test_every_guild_has_exactly_one_owner_among_the_processes(guild: int, count: int) -> None:
    plans = [ShardPlan(count=count, ids=(i,)) for i in range(count)]
    assert sum(plan.owns(str(guild)) for plan in plans) == 1


@given(st.text(min_size=1, max_size=30))
def test_lock_key_is_a_signed_64_bit_number_that_does_not_change(guild: str) -> None:
    key = lock_key(guild)
    assert -(2**63) <= key < 2**63
    assert key == lock_key(guild)


def test_lock_key_is_the_same_in_every_process() -> None:
    # a fixed value: Python's hash() would differ between processes, this must not
    assert lock_key("197038439483310086") == lock_key("197038439483310086")
    assert lock_key("1") != lock_key("2")
    assert lock_key("sim") == 6847237858771532503


def test_shard_ids_parse_lists_ranges_and_auto() -> None:
    assert parse_shard_ids("auto") is None
    assert parse_shard_ids("") is None
    assert parse_shard_ids("2, 0") == (0, 2)
    assert parse_shard_ids("0-2,5") == (0, 1, 2, 5)
    with pytest.raises(ValueError, match="whole numbers"):
        parse_shard_ids("one")


def test_settings_read_the_shards_and_refuse_ids_past_the_count() -> None:
    settings = Settings(_env_file=None, shard_count="4", shard_ids="1,3")  # type: ignore[call-arg]
    assert settings.shard_plan() == ShardPlan(count=4, ids=(1, 3))
    assert settings.sharded
    plain = Settings(_env_file=None)  # type: ignore[call-arg]
    assert not plain.sharded
    assert plain.shard_plan().shard_ids == (0,)
    auto = Settings(_env_file=None, shard_count="auto")  # type: ignore[call-arg]
    assert auto.sharded
    assert auto.shard_plan().count is None
    with pytest.raises(ValueError, match="not below SHARD_COUNT"):
        Settings(_env_file=None, shard_count="2", shard_ids="2")  # type: ignore[call-arg]
    with pytest.raises(ValueError, match="at least 1"):
        Settings(_env_file=None, shard_count="0")  # type: ignore[call-arg]
    with pytest.raises(ValueError, match="numeric SHARD_COUNT"):
        Settings(_env_file=None, shard_ids="0")  # type: ignore[call-arg]


async def test_local_ownership_holds_every_guild() -> None:
    local = await open_ownership("nomic.db")
    assert isinstance(local, LocalOwnership)
    await local.ensure("g1")
    assert local.holds("g2")
    assert local.owned() == ["g1"]
    assert await local.check()


async def test_one_process_holds_a_guild_until_it_releases_it(pg_db: str) -> None:  # noqa: F811
    first = await PgOwnership.open(pg_db)
    second = await PgOwnership.open(pg_db)
    try:
        await first.ensure("g-release")
        assert await first.acquire("g-release")  # asked again: still held, not locked twice
        assert not await second.acquire("g-release")
        with pytest.raises(OwnedElsewhereError, match="another process"):
            await second.ensure("g-release")
        await first.release("g-release")
        assert not first.holds("g-release")
        assert await second.acquire("g-release")
        # one release frees it although it was asked for twice above
        assert not await first.acquire("g-release")
    finally:
        await first.close()
        await second.close()


async def test_a_dead_lock_connection_loses_every_guild_and_another_process_takes_them(
    pg_db: str,  # noqa: F811
) -> None:
    first = await PgOwnership.open(pg_db)
    second = await PgOwnership.open(pg_db)
    lost: list[list[str]] = []
    first.on_lost(lost.append)
    try:
        await first.ensure("g-a")
        await first.ensure("g-b")
        pid = await first._conn.fetchval("SELECT pg_backend_pid()")
        admin = await asyncpg.connect(pg_db)
        try:
            await admin.fetchval("SELECT pg_terminate_backend($1)", pid)
        finally:
            await admin.close()
        for _ in range(200):  # the server closes the session; the client hears of it on its next read
            if lost or not await first.check():
                break
            await asyncio.sleep(0.01)
        assert lost == [["g-a", "g-b"]]
        assert not first.holds("g-a")
        assert first.owned() == []
        assert await second.acquire("g-a")
        assert await second.acquire("g-b")
        with pytest.raises(OwnedElsewhereError):
            await first.ensure("g-a")  # connects again, and finds it taken
        await second.close()  # the other process goes away: its guilds come back
        assert await first.acquire("g-a")
    finally:
        await first.close()
        await second.close()


async def test_closing_releases_every_guild(pg_db: str) -> None:  # noqa: F811
    first = await PgOwnership.open(pg_db)
    second = await PgOwnership.open(pg_db)
    try:
        await first.ensure("g-close")
        await first.close()
        assert await second.acquire("g-close")
    finally:
        await second.close()


def test_shard_settings_the_bot_cannot_use_stop_it_in_one_line_each(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from bot.cli import main

    monkeypatch.chdir(tmp_path)  # no .env here
    monkeypatch.setenv("SHARD_COUNT", "2")
    monkeypatch.setenv("SHARD_IDS", "5")
    monkeypatch.setenv("DISCORD_TOKEN", "a-secret-token")
    assert main(["run"]) == 2
    err = capsys.readouterr().err
    assert err == "error: settings: shard ids [5] are not below SHARD_COUNT=2\n"


class _Guild:
    def __init__(self, guild: str) -> None:
        self.id = guild
        self.shard_id = 0


class _Bot:
    """What ``GuildKeeper`` asks of the bot: its guilds, and its start path (which takes the lock first)."""

    def __init__(self, guilds: list[str]) -> None:
        self.guilds = [_Guild(g) for g in guilds]
        self.keeper: GuildKeeper
        self.started: list[str] = []

    def is_ready(self) -> bool:
        return True

    async def ensure_round(self, guild: _Guild, *, arm: bool = False) -> None:
        await self.keeper.ownership.ensure(str(guild.id))
        self.started.append(str(guild.id))

    def forget_guild(self, guild: str) -> None:
        del guild


async def test_a_claim_takes_the_other_guilds_while_one_guild_s_epoch_is_still_held(
    pg_db: str,  # noqa: F811
) -> None:
    """A commit of one guild's previous holder, frozen, keeps that guild's epoch row: the claim takes the
    claim's other guilds at once (they used to wait for that guild's bump to give up, 5 s a guild)."""
    previous = await PgOwnership.open(pg_db)
    for guild in ("g-busy", "g-free"):
        await previous.ensure(guild)
    await previous.close()
    ownership = await PgOwnership.open(pg_db)
    ownership.bump_timeout = 60
    bot = _Bot(["g-busy", "g-free"])
    keeper = GuildKeeper(bot, lambda: None)
    keeper.use(ownership)
    bot.keeper = keeper
    admin = await asyncpg.connect(pg_db)
    try:
        frozen = admin.transaction()
        await frozen.start()
        await admin.execute("SELECT epoch FROM guild_owners WHERE guild_id = 'g-busy' FOR SHARE")
        claiming = asyncio.create_task(keeper.claim())
        for _ in range(1000):
            if ownership.holds("g-free"):
                break
            await asyncio.sleep(0.01)
        assert ownership.holds("g-free"), "the free guild waited behind the busy one"
        assert not ownership.holds("g-busy")
        assert not claiming.done()  # the busy guild's bump still waits, alone
        await frozen.rollback()
    finally:
        await admin.close()
    await asyncio.wait_for(claiming, 30)
    assert ownership.owned() == ["g-busy", "g-free"]
    assert bot.started == ["g-busy", "g-free"]
    await ownership.close()


def test_an_insert_or_an_upsert_carries_its_fence_and_no_other_statement_does() -> None:
    check = "WHERE EXISTS (SELECT 1 FROM guild_owners WHERE guild_id = ? AND epoch = ? FOR SHARE)"
    assert fenced_insert("INSERT INTO t (a, b) VALUES (?, NULL)") == f"INSERT INTO t (a, b) SELECT ?, NULL {check}"
    upsert = fenced_insert("INSERT INTO t (a, b) VALUES (?, ?) ON CONFLICT (a) DO UPDATE SET b = excluded.b")
    assert upsert == f"INSERT INTO t (a, b) SELECT ?, ? {check} ON CONFLICT (a) DO UPDATE SET b = excluded.b"
    for sql in (
        "INSERT INTO t (a) VALUES (?) ON CONFLICT (a) DO NOTHING",  # 0 rows would not tell a refusal
        "INSERT INTO t (a, b) VALUES (?, ?) ON CONFLICT (a) DO UPDATE SET b = excluded.b WHERE t.b < excluded.b",
        "INSERT INTO t (a, b) VALUES (?, ?) ON CONFLICT (a) DO UPDATE SET b = ?",
        "UPDATE t SET a = ? WHERE b = ?",
        "DELETE FROM t WHERE a = ?",
    ):
        assert fenced_insert(sql) is None, sql
