""".ci/with-postgres on a machine unlike a developer's: a long TMPDIR, a checkout the postgres user
cannot enter (root's home), folders left by a run that was killed, a command that fails."""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / ".ci" / "with-postgres"
SHOW_URL = 'printf %s "$TEST_DATABASE_URL"'


def _server_here() -> bool:
    if shutil.which("initdb") or shutil.which("pg_config"):
        return True
    return any(Path("/usr/lib/postgresql").glob("*/bin/initdb"))


pytestmark = pytest.mark.skipif(not _server_here(), reason="no PostgreSQL server programs on this machine")


def _run(command: str, *, cwd: Path = ROOT, tmpdir: str | None = None) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "TMPDIR": tmpdir} if tmpdir is not None else dict(os.environ)
    return subprocess.run(
        [str(SCRIPT), "bash", "-c", command], cwd=cwd, env=env, capture_output=True, text=True, timeout=120, check=False
    )


def _folder_of(url: str) -> Path:
    return Path(url.split("host=", 1)[1].split("&", 1)[0])


@pytest.fixture
def short_tmp() -> Iterator[Path]:
    """A folder with a short path, for the script's TMPDIR (pytest's own may be too long for a socket)."""
    folder = Path(tempfile.mkdtemp(prefix="ci-", dir="/tmp"))
    folder.chmod(0o755)
    try:
        yield folder
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def test_the_server_answers_and_everything_is_removed_even_when_the_command_fails(short_tmp: Path) -> None:
    done = _run(f"{SHOW_URL}; exit 3", tmpdir=str(short_tmp))
    assert done.returncode == 3, done.stderr
    assert done.stdout.startswith("postgresql://postgres@/postgres?host=")
    assert not _folder_of(done.stdout).exists()


def test_a_long_tmpdir_does_not_stop_the_server(short_tmp: Path) -> None:
    """A unix socket's path holds at most 107 bytes: the server would refuse to start in a deep TMPDIR."""
    deep = short_tmp / ("d" * 90)
    deep.mkdir()
    done = _run(SHOW_URL, tmpdir=str(deep))
    assert done.returncode == 0, done.stderr
    assert len(str(_folder_of(done.stdout))) < 60


@pytest.mark.skipif(os.geteuid() != 0, reason="as root only: the server then runs as the postgres user")
def test_as_root_in_folders_the_postgres_user_cannot_enter(short_tmp: Path) -> None:
    """CI often clones into /root (mode 700): neither the checkout nor a TMPDIR there is open to postgres."""
    private = short_tmp / "private"
    private.mkdir(mode=0o700)
    checkout = private / "checkout"
    checkout.mkdir()
    done = _run(SHOW_URL, cwd=checkout, tmpdir=str(private))
    assert done.returncode == 0, done.stderr
    assert "could not change directory" not in done.stderr


def test_folders_of_a_killed_run_are_removed_and_a_running_ones_kept(short_tmp: Path) -> None:
    killed = short_tmp / "nomic-pg.killed"
    (killed / "data").mkdir(parents=True)
    (killed / "owner").write_text(f"{_dead_pid()}\n")
    running = short_tmp / "nomic-pg.running"
    (running / "data").mkdir(parents=True)
    (running / "owner").write_text(f"{os.getpid()}\n")
    minutes_ago = time.time() - 300
    for folder in (killed, running):
        os.utime(folder, (minutes_ago, minutes_ago))
    done = _run("true", tmpdir=str(short_tmp))
    assert done.returncode == 0, done.stderr
    assert not killed.exists()
    assert running.exists()


def _dead_pid() -> int:
    """The id of a process that has ended."""
    child = subprocess.Popen(["true"])
    child.wait()
    return child.pid
