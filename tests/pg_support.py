"""A real PostgreSQL server for the tests that need one: ``NOMIC_TEST_PG`` when set (a URL), else a
throwaway cluster made with this machine's ``initdb`` and stopped at the end; skipped when neither.

The cluster lives in a temporary folder, listens on 127.0.0.1 on a free port, trusts local users, and
runs as the ``postgres`` user when the tests run as root (PostgreSQL refuses to run as root).
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import tempfile
import uuid
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest

PG_BINS = (Path("/usr/lib/postgresql"),)


def _bin(name: str) -> str | None:
    found = shutil.which(name)
    if found:
        return found
    for root in PG_BINS:
        for candidate in sorted(root.glob(f"*/bin/{name}"), reverse=True):
            return str(candidate)
    return None


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _as_server_user(argv: list[str]) -> list[str]:
    if os.geteuid() != 0:
        return argv
    runuser = shutil.which("runuser")
    if runuser is None:
        pytest.skip("PostgreSQL cannot run as root and runuser is missing")
    return [runuser, "-u", "postgres", "--", *argv]


@pytest.fixture(scope="session")
def pg_url() -> Iterator[str]:
    given = os.environ.get("NOMIC_TEST_PG")
    if given:
        yield given
        return
    initdb, pg_ctl = _bin("initdb"), _bin("pg_ctl")
    if initdb is None or pg_ctl is None:
        pytest.skip("no PostgreSQL server on this machine (initdb/pg_ctl) and NOMIC_TEST_PG is not set")
    root = Path(tempfile.mkdtemp(prefix="nomic-pg-"))
    data = root / "data"
    port = _free_port()
    if os.geteuid() == 0:
        shutil.chown(root, "postgres", "postgres")
    subprocess.run(
        _as_server_user([initdb, "-D", str(data), "-U", "postgres", "--auth=trust", "-E", "UTF8", "--no-sync"]),
        check=True,
        capture_output=True,
    )
    options = f"-p {port} -c listen_addresses=127.0.0.1 -c unix_socket_directories={root} -c fsync=off"
    subprocess.run(
        _as_server_user([pg_ctl, "-D", str(data), "-o", options, "-l", str(root / "log"), "-w", "start"]),
        check=True,
        capture_output=True,
    )
    try:
        yield f"postgresql://postgres@127.0.0.1:{port}/postgres"
    finally:
        subprocess.run(
            _as_server_user([pg_ctl, "-D", str(data), "-m", "immediate", "-w", "stop"]),
            check=False,
            capture_output=True,
        )
        shutil.rmtree(root, ignore_errors=True)


@pytest.fixture
async def pg_db(pg_url: str) -> AsyncIterator[str]:
    """A fresh database on the server for one test (advisory locks and tables are per database)."""
    import asyncpg

    name = f"nomic_test_{uuid.uuid4().hex[:12]}"
    admin = await asyncpg.connect(pg_url)
    try:
        await admin.execute(f'CREATE DATABASE "{name}"')
    finally:
        await admin.close()
    base, _, _ = pg_url.rpartition("/")
    try:
        yield f"{base}/{name}"
    finally:
        admin = await asyncpg.connect(pg_url)
        try:
            await admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        finally:
            await admin.close()
