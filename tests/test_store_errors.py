"""A database file that cannot be used stops every command at once, with one line and exit status 3.

The files: cut short (a truncated copy), random bytes, a good database in a read-only folder, and a
database migrated by a newer version of the bot (which must be left byte for byte as it was). The
commands run for real, as subprocesses: ``replay``, ``console`` reading stdin, and ``run`` with a
dummy token (the database is opened before logging in, so no network is needed). Their timeout
only guards against a hang (the defect: a connection left open kept the process alive).
"""

from __future__ import annotations

import asyncio
import functools
import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import threading
from collections.abc import Awaitable, Callable, Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path

import pytest

from bot.cli import EXIT_STORE
from bot.discord.app import create_bot
from bot.settings import Settings
from data.base import StoreOpenError, migrations
from data.store import Store
from data.table_store import TableStore

ROOT = Path(__file__).resolve().parents[1]
WEEK = ROOT / "tests" / "scenarios" / "week.jsonl"
KNOWN = len(migrations())


def no_thread_left(before: set[threading.Thread]) -> None:
    """Every connection opened since ``before`` was closed: its worker thread ends (or the process would hang)."""
    for thread in set(threading.enumerate()) - before:
        thread.join(timeout=5)
        assert not thread.is_alive(), f"{thread.name} still runs: a connection was left open"


@functools.cache
def _played_week() -> bytes:
    from bot.sim.replay import read_scenario, replay

    with tempfile.TemporaryDirectory(prefix="nomic-good-") as tmp:
        path = Path(tmp) / "week.db"
        asyncio.run(replay(read_scenario(WEEK, sys.stderr), seed="7", db=path))
        assert not path.with_name(path.name + "-wal").exists()
        return path.read_bytes()


def good_database(path: Path) -> Path:
    """A database with a played week in it (large enough that cutting it in half damages it)."""
    path.write_bytes(_played_week())
    return path


def truncated(folder: Path) -> Path:
    path = good_database(folder / "cut.db")
    with path.open("r+b") as fh:
        fh.truncate(path.stat().st_size // 2)
    return path


def random_bytes(folder: Path) -> Path:
    path = folder / "noise.db"
    path.write_bytes(bytes((n * 7919 + 13) % 251 for n in range(64 * 1024)))
    return path


def newer(folder: Path) -> Path:
    """What a later version leaves: one more migration applied, with a table this version never heard of."""
    path = good_database(folder / "newer.db")
    conn = sqlite3.connect(path)
    try:
        with conn:
            conn.execute("CREATE TABLE from_the_future (x INTEGER)")
            conn.execute("INSERT INTO schema_migrations (version, applied_at) VALUES (?, '2031-01-01')", (KNOWN + 1,))
    finally:
        conn.close()
    return path


def other_program(folder: Path) -> Path:
    path = folder / "notes.db"
    conn = sqlite3.connect(path)
    try:
        with conn:
            conn.execute("CREATE TABLE notes (body TEXT)")
    finally:
        conn.close()
    return path


@contextmanager
def read_only(path: Path) -> Iterator[None]:
    """Make a folder or a file read-only for real: chmod for a normal user; for root, whom permissions
    do not stop, the immutable attribute (``chattr +i``). Skips, saying why, when neither holds here."""
    if os.geteuid() != 0:
        mode = path.stat().st_mode
        path.chmod(0o555 if path.is_dir() else 0o444)

        def undo() -> None:
            path.chmod(mode)
    else:
        if shutil.which("chattr") is None:
            pytest.skip("running as root without chattr: nothing here makes a file read-only for root")
        made = subprocess.run(["chattr", "+i", str(path)], capture_output=True, check=False)
        if made.returncode != 0:
            pytest.skip(f"running as root and `chattr +i` failed ({made.stderr.decode().strip()}), e.g. on tmpfs")

        def undo() -> None:
            subprocess.run(["chattr", "-i", str(path)], check=True)

    try:
        if _writable(path):
            pytest.skip(f"{path} stays writable for this user: the read-only case cannot be made here")
        yield
    finally:
        undo()


def _writable(path: Path) -> bool:
    try:
        if path.is_dir():
            (path / "probe").touch()
            (path / "probe").unlink()
        else:
            with path.open("r+b"):
                pass
    except OSError:
        return False
    return True


@contextmanager
def bad_file(kind: str, folder: Path) -> Iterator[Path]:
    folder.mkdir(parents=True, exist_ok=True)
    if kind == "read-only folder":
        inner = folder / "locked"
        inner.mkdir()
        path = good_database(inner / "nomic.db")
        with read_only(inner):
            yield path
        return
    if kind == "read-only file":
        path = good_database(folder / "nomic.db")
        with read_only(path):
            yield path
        return
    makers: dict[str, Callable[[Path], Path]] = {
        "truncated": truncated,
        "random bytes": random_bytes,
        "newer": newer,
        "another program's": other_program,
    }
    yield makers[kind](folder)


CASES = {
    "truncated": ("the file is damaged", "Restore it from a backup"),
    "random bytes": ("it is not a SQLite database", "move this file away"),
    "read-only folder": ("read-only", "writable for the user running the bot"),
    "newer": (f"newer version of the bot (schema version {KNOWN + 1}; this version knows up to {KNOWN})", "newer"),
}


MORE_CASES = {
    **CASES,
    "read-only file": ("read-only", "writable for the user running the bot"),
    "another program's": ("the SQLite database of another program (its tables: notes)", "its own database file"),
}


# --- opening, in-process -------------------------------------------------------------------------


@pytest.mark.parametrize("kind", list(MORE_CASES))
@pytest.mark.parametrize("opener", [Store.open, TableStore.open], ids=["Store", "TableStore"])
def test_a_file_that_cannot_be_used_is_refused_and_nothing_stays_open(
    tmp_path: Path, kind: str, opener: Callable[[Path], Awaitable[object]]
) -> None:
    problem, advice = MORE_CASES[kind]
    with bad_file(kind, tmp_path) as path:
        before = set(threading.enumerate())
        content = path.read_bytes()
        with pytest.raises(StoreOpenError) as refused:
            asyncio.run(opener(path))
        no_thread_left(before)
        assert path.read_bytes() == content, "a file the bot cannot use is never written"
    text = str(refused.value)
    assert "\n" not in text
    assert str(path) in text
    assert problem in text
    assert advice in text


def test_a_newer_file_is_left_byte_for_byte_as_it_was(tmp_path: Path) -> None:
    path = newer(tmp_path)
    before = path.read_bytes()
    for opener in (Store.open, TableStore.open):
        with pytest.raises(StoreOpenError, match="newer version"):
            asyncio.run(opener(path))
    assert path.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["newer.db"], "no journal left beside it"


async def test_the_bot_closes_the_first_connection_when_the_second_fails(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The bot opens the file twice (the round, the tables): a failure of the second closes the first."""
    settings = Settings(_env_file=None, discord_token=None, database_path=tmp_path / "nomic.db")  # type: ignore[call-arg]
    bot = create_bot(settings, timers=False)

    async def fail(*_args: object, **_kwargs: object) -> TableStore:
        raise StoreOpenError(tmp_path / "nomic.db", "a test failure", "Nothing to do")

    monkeypatch.setattr(TableStore, "open", fail)
    before = set(threading.enumerate())
    with pytest.raises(StoreOpenError, match="a test failure"):
        await bot.setup_hook()
    no_thread_left(before)
    assert bot.store is None
    assert bot.table_store is None


# --- the commands, for real ------------------------------------------------------------------------


def _commands(path: Path) -> dict[str, tuple[list[str], dict[str, str], str | None]]:
    """Each command that opens a database, as (arguments, environment, stdin)."""
    env = {k: v for k, v in os.environ.items() if k not in {"DISCORD_TOKEN", "DATABASE_PATH"}}
    bot = {**env, "DISCORD_TOKEN": "dummy.token.for-tests", "DATABASE_PATH": str(path)}
    return {
        "replay": (["replay", str(WEEK), "--db", str(path)], env, None),
        "console": (["console", "--db", str(path)], env, "!join\n/advance 1d\n/state\n"),
        "run": (["run"], bot, None),
    }


def test_every_command_stops_with_one_line_and_status_3(tmp_path: Path) -> None:
    """Every command on every kind of bad file (all at once: each process mostly waits for its imports)."""
    work = tmp_path / "cwd"  # no .env of a developer is read from here
    work.mkdir()
    wrong: list[str] = []
    with ExitStack() as stack:
        files = {kind: stack.enter_context(bad_file(kind, tmp_path / kind.replace(" ", "-"))) for kind in CASES}
        before = {kind: path.read_bytes() for kind, path in files.items()}
        running = {
            (kind, name): (
                subprocess.Popen(
                    [sys.executable, "-m", "bot", *args],
                    cwd=work,
                    env=env,
                    stdin=subprocess.PIPE,
                    stdout=subprocess.PIPE,
                    stderr=subprocess.PIPE,
                    text=True,
                ),
                stdin,
            )
            for kind, path in files.items()
            for name, (args, env, stdin) in _commands(path).items()
        }
        for (kind, name), (proc, stdin) in running.items():
            problem, advice = CASES[kind]
            try:
                out, err = proc.communicate(stdin, timeout=60)  # a hang guard only
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.communicate()
                wrong.append(f"`python -m bot {name}` hangs on a {kind} database")
                continue
            lines = err.strip().splitlines()
            line = lines[0] if lines else ""
            if proc.returncode != EXIT_STORE or len(lines) != 1:
                wrong.append(f"{name} on {kind}: status {proc.returncode}, stderr {err!r}, stdout {out[-300:]!r}")
            elif not all(part in line for part in (str(files[kind]), problem, advice)):
                wrong.append(f"{name} on {kind}: {line!r}")
        for kind, path in files.items():
            if path.read_bytes() != before[kind]:
                wrong.append(f"the {kind} file was written to")
    assert not wrong, "\n".join(wrong)
