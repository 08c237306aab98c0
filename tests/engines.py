"""Databases for the tests on both engines: a SQLite file, or a fresh schema on the test PostgreSQL.

``TEST_DATABASE_URL`` names the PostgreSQL server (``.ci/with-postgres`` starts one and sets it; so do
``make test`` and ``.ci/run``). Without it, or when it does not answer, the PostgreSQL cases skip with
the reason, except under ``REQUIRE_POSTGRES=1`` (CI), where they fail. Each case gets a schema of its
own (``?search_path=``), dropped afterwards: a fresh database, at a fraction of CREATE DATABASE's cost.
"""

from __future__ import annotations

import asyncio
import os
import sqlite3
import uuid
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

ENGINES = ("sqlite", "postgresql")
SKIP_REASON = (
    "no PostgreSQL for the tests: TEST_DATABASE_URL is not set (run `make test`, or `.ci/with-postgres"
    " .venv/bin/python -m pytest ...`, which start a throwaway server)"
)


def _in_thread(coro: Any) -> Any:
    """Run a coroutine to its end on a loop of its own (callable from sync code and from a test's loop)."""
    with ThreadPoolExecutor(1) as pool:
        return pool.submit(asyncio.run, coro).result()


_reachable: dict[str, str | None] = {}


def server_url() -> str:
    """The test server's URL, or skip (fail under ``REQUIRE_POSTGRES=1``) saying why there is none."""
    url = os.environ.get("TEST_DATABASE_URL", "").strip()
    required = os.environ.get("REQUIRE_POSTGRES") == "1"
    if not url:
        if required:
            pytest.fail("REQUIRE_POSTGRES=1 but TEST_DATABASE_URL is not set")
        pytest.skip(SKIP_REASON)
    if url not in _reachable:
        _reachable[url] = _in_thread(_check(url))
    problem = _reachable[url]
    if problem is not None:
        if required:
            pytest.fail(f"the test PostgreSQL at TEST_DATABASE_URL does not answer: {problem}")
        pytest.skip(f"the test PostgreSQL at TEST_DATABASE_URL does not answer ({problem})")
    return url


async def _check(url: str) -> str | None:
    import asyncpg

    try:
        conn = await asyncpg.connect(url, timeout=5)
    except Exception as exc:  # noqa: BLE001 - whatever it is, it is the reason to skip
        return f"{exc.__class__.__name__}: {exc}"
    await conn.close()
    return None


def with_schema(url: str, schema: str) -> str:
    return f"{url}{'&' if '?' in url else '?'}search_path={schema}"


async def _sql(url: str, sql: str) -> list[Any]:
    import asyncpg

    conn = await asyncpg.connect(url)
    try:
        if not sql.lstrip().upper().startswith("SELECT"):
            await conn.execute(sql)  # DDL, possibly several statements
            return []
        return list(await conn.fetch(sql))
    finally:
        await conn.close()


class Databases:
    """Fresh databases of one engine for one test; PostgreSQL's schemas are dropped at the end."""

    def __init__(self, engine: str, folder: Path) -> None:
        self.engine = engine
        self.folder = folder
        self._schemas: list[str] = []
        self._count = 0

    def new(self, name: str = "round") -> str:
        """A database nobody used: a file name in the test's folder, or a PostgreSQL URL with a new schema."""
        self._count += 1
        if self.engine == "sqlite":
            return str(self.folder / f"{name}-{self._count}.db")
        url = server_url()
        schema = f"t_{uuid.uuid4().hex[:16]}"
        _in_thread(_sql(url, f"CREATE SCHEMA {schema}"))
        self._schemas.append(schema)
        return with_schema(url, schema)

    def drop(self) -> None:
        if self._schemas:
            url = server_url()
            _in_thread(_sql(url, "; ".join(f"DROP SCHEMA IF EXISTS {s} CASCADE" for s in self._schemas)))
            self._schemas.clear()


def rows(url: str, sql: str) -> list[tuple[Any, ...]]:
    """A query's rows on either engine, as tuples (a test's look at what is durable)."""
    if "://" not in url:
        conn = sqlite3.connect(url)
        try:
            return conn.execute(sql).fetchall()
        finally:
            conn.close()
    from data.postgres import to_postgres

    return [tuple(r) for r in _in_thread(_sql(url, to_postgres(sql)))]


def databases(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Databases]:
    found = Databases(request.param, tmp_path)
    if request.param == "postgresql":
        server_url()  # skip (or fail) before the test runs
    try:
        yield found
    finally:
        found.drop()


@contextmanager
def postgres_databases(folder: Path) -> Iterator[Databases]:
    """Fresh PostgreSQL databases inside a test (skipped, or failed under CI, without a server)."""
    server_url()
    found = Databases("postgresql", folder)
    try:
        yield found
    finally:
        found.drop()
