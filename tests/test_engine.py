"""Which database a URL names, and that its password never shows: in messages, logs or settings."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from bot.settings import Settings
from data.base import StoreOpenError, redact, target
from data.postgres import to_postgres
from data.store import Store
from tests.engines import Databases, rows

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.parametrize(
    ("given", "path"),
    [
        ("nomic.db", Path("nomic.db")),
        ("/var/lib/nomic-bot/nomic.db", Path("/var/lib/nomic-bot/nomic.db")),
        ("sqlite:///nomic.db", Path("nomic.db")),
        ("sqlite:////var/lib/nomic-bot/nomic.db", Path("/var/lib/nomic-bot/nomic.db")),
    ],
)
def test_paths_and_sqlite_urls_name_a_sqlite_file(given: str, path: Path) -> None:
    assert target(given).path == path


def test_postgresql_urls_and_unknown_ones() -> None:
    assert target("postgresql://u:p@h/db").postgres
    assert target("postgres://h/db").postgres
    with pytest.raises(ValueError, match="unknown kind of database 'mysql'"):
        target("mysql://h/db")
    with pytest.raises(ValueError, match="names a file"):
        target("sqlite://")


def test_the_password_is_never_shown() -> None:
    url = "postgresql://nomic:s3cret@db.example:5432/nomic?password=s3cret&search_path=bot"
    assert "s3cret" not in redact(url)
    assert "nomic:***@db.example:5432/nomic" in redact(url)
    where = target(url)
    assert "s3cret" not in str(where)
    assert "s3cret" not in repr(where)
    settings = Settings(_env_file=None, database_url=url)  # type: ignore[call-arg]
    assert settings.database.url == url
    assert "s3cret" not in repr(settings)
    assert "s3cret" not in str(settings.model_dump())


@pytest.mark.parametrize(
    "url",
    [
        "postgresql://nomic:s3#cret@db.example/nomic",
        "postgresql://nomic:s3/cret@db.example/nomic",
        "postgresql://nomic:s3?cret@db.example/nomic",
        "postgresql://nomic:s3@cret@db.example/nomic",
        "postgresql://nomic@db.example/nomic?sslmode=require&PASSWORD=s3cret",
    ],
)
def test_a_password_pasted_with_url_characters_is_never_shown_either(url: str) -> None:
    """A raw password holding ``# / ? @`` makes a URL parser see a fragment, a path or a query in it."""
    shown = redact(url)
    assert "s3" not in shown
    assert "cret" not in shown
    assert shown.startswith("postgresql://nomic")


@pytest.mark.parametrize(
    "url",
    ["postgresql://nomic:s3#cret@127.0.0.1:1/nomic", "postgresql://nomic:s3?cret@127.0.0.1:1/nomic"],
)
def test_a_url_the_driver_cannot_read_is_refused_without_a_piece_of_its_password(url: str) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "bot", "export", "g", "--db", url],
        cwd=ROOT,
        capture_output=True,
        timeout=60,
        check=False,
    )
    err = done.stderr.decode()
    assert done.returncode == 3, err
    assert "s3" not in err
    assert "cret" not in err
    assert "its URL cannot be read" in err


def test_a_settings_url_refused_at_start_does_not_quote_it() -> None:
    with pytest.raises(ValueError, match="unknown kind of database") as refused:
        Settings(_env_file=None, database_url="mysql://nomic:s3cret@h/db")  # type: ignore[call-arg]
    assert "s3cret" not in str(refused.value)


def test_a_settings_url_of_no_known_engine_is_refused_at_start() -> None:
    with pytest.raises(ValueError, match="unknown kind of database"):
        Settings(_env_file=None, database_url="mongodb://h/db")  # type: ignore[call-arg]
    assert Settings(_env_file=None, database_url="").database == target("nomic.db")  # type: ignore[call-arg]


def test_placeholders_become_postgresqls() -> None:
    converted = to_postgres("SELECT a FROM t WHERE b = ? AND c IN (?, ?)")
    assert converted == "SELECT a FROM t WHERE b = $1 AND c IN ($2, $3)"
    assert to_postgres("SELECT '?' FROM t WHERE b = ?") == "SELECT '?' FROM t WHERE b = $1"


def test_a_server_that_does_not_answer_is_one_line_without_the_password() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "bot", "export", "g", "--db", "postgresql://nomic:s3cret@127.0.0.1:1/nomic"],
        cwd=ROOT,
        capture_output=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 3
    err = done.stderr.decode()
    assert "s3cret" not in err
    assert err.count("\n") == 1
    assert "no PostgreSQL server answers there" in err


async def test_a_postgresql_database_of_a_newer_version_or_another_program_is_refused(pg_dbs: Databases) -> None:
    """SQLite's cases are in tests/test_store_errors.py."""
    dbs = pg_dbs
    newer = dbs.new("newer")
    store = await Store.open(newer)
    await store.close()
    rows(newer, "INSERT INTO schema_migrations (version, applied_at) VALUES (99, 'later')")
    with pytest.raises(StoreOpenError, match="newer version of the bot"):
        await Store.open(newer)
    other = dbs.new("other")
    rows(other, "CREATE TABLE invoices (id INT)")
    with pytest.raises(StoreOpenError, match="another program's tables \\(invoices\\)"):
        await Store.open(other)
    assert rows(other, "SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema()") == [
        ("invoices",)
    ], "nothing was created there"


async def test_the_web_records_view_reads_each_engine_and_can_never_write(dbs: Databases) -> None:
    import asyncio

    from bot.sim.replay import read_scenario, replay
    from bot.sim.world import GUILD
    from data.read_store import ReadStore

    db = dbs.new("web")
    scenario = ROOT / "tests" / "scenarios" / "web_season.jsonl"
    await asyncio.to_thread(lambda: asyncio.run(replay(read_scenario(scenario, sys.stderr), seed="7", db=db)))
    store = await Store.open(db)
    try:
        _, logged = await store.load(GUILD)
        expected_guilds = await store.guilds()
    finally:
        await store.close()
    read = await ReadStore.open(db)
    try:
        assert await read.guilds() == expected_guilds == [GUILD]
        assert [row.seq for row in await read.log(GUILD)][-1] == (await read.latest(GUILD) or (0,))[0]
        assert await read.web_mode(GUILD) == "on"
        assert logged or await read.latest(GUILD)
        with pytest.raises(Exception, match=r"(?i)read-only|readonly"):
            await read._conn.execute("DELETE FROM actions WHERE guild_id = ?", (GUILD,))
    finally:
        await read.close()


@pytest.mark.parametrize(
    "url",
    ["postgresql:/nomic:s3cret@db.example/nomic", "Postgres:nomic:s3cret@db.example/nomic", "nomic:s3cret@db/nomic"],
)
def test_a_mistyped_postgresql_url_is_not_taken_for_a_file(url: str) -> None:
    """As a path it would be shown, password and all, in the message about a missing folder."""
    with pytest.raises(ValueError, match="mistyped PostgreSQL URL") as refused:
        target(url)
    assert "s3cret" not in str(refused.value)
    assert target("postgres.db").path == Path("postgres.db")  # a file may still be called so


def test_a_database_url_refused_at_start_stops_every_command_with_one_line_and_status_3(tmp_path: Path) -> None:
    """Unknown engine, mistyped URL, unreadable URL, no server: ``run`` (DATABASE_URL) and ``replay`` and
    ``console`` (``--db``) all end with status 3 and one line without the password, never a traceback."""
    env = {k: v for k, v in os.environ.items() if k not in {"DISCORD_TOKEN", "DATABASE_URL", "DATABASE_PATH"}}
    urls = [
        "mysql://nomic:s3cret@db.example/nomic",
        "postgresql:/nomic:s3cret@db.example/nomic",
        "nomic:s3cret@db.example/nomic",
        "postgresql://nomic:s3#cret@127.0.0.1:1/nomic",
        "postgresql://nomic:s3cret@127.0.0.1:1/nomic",
    ]
    week = ROOT / "tests" / "scenarios" / "cards.jsonl"
    running = {}
    for url in urls:
        runs = {
            "run": (["run"], {**env, "DISCORD_TOKEN": "dummy.token.for-tests", "DATABASE_URL": url}),
            "replay": (["replay", str(week), "--db", url], env),
            "console": (["console", "--db", url], env),
        }
        for name, (args, environ) in runs.items():
            running[url, name] = subprocess.Popen(
                [sys.executable, "-m", "bot", *args],
                cwd=tmp_path,
                env=environ,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
            )
    wrong = []
    for (url, name), proc in running.items():
        _, err = proc.communicate("", timeout=90)
        lines = err.strip().splitlines()
        if proc.returncode != 3 or len(lines) != 1 or "s3" in err or "cret" in err:
            wrong.append(f"{name} with {url}: status {proc.returncode}, stderr {err[-400:]!r}")
    assert not wrong, "\n".join(wrong)


def test_bench_with_a_postgresql_url_it_cannot_use_says_so_in_one_line_without_the_password() -> None:
    urls = [
        "postgresql://nomic:s3cret@127.0.0.1:1/nomic",
        "postgresql://nomic:s3#cret@127.0.0.1:1/nomic",
        "postgresql://nomic:s3cret@db.example:port/nomic",
        "mysql://nomic:s3cret@db.example/nomic",
        "postgresql:/nomic:s3cret@db.example/nomic",
    ]
    args = ["bench", "--stores-only", "--store-runs", "1", "--store-actions", "10", "--postgres"]
    running = {
        url: subprocess.Popen(
            [sys.executable, "-m", "bot", *args, url],
            cwd=ROOT,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for url in urls
    }
    wrong = []
    for url, proc in running.items():
        _, err = proc.communicate(timeout=90)
        lines = err.strip().splitlines()
        if proc.returncode != 3 or len(lines) != 1 or "s3" in err or "cret" in err:
            wrong.append(f"{url}: status {proc.returncode}, stderr {err[-400:]!r}")
    assert not wrong, "\n".join(wrong)
