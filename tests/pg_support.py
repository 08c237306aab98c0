"""PostgreSQL for the shard tests: the test server of tests/engines.py (``TEST_DATABASE_URL``; ``make test``
starts one), and a fresh *database* a test (advisory locks are per database, not per schema, so two tests
sharing a database could see each other's guild locks).
"""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator
from urllib.parse import urlsplit, urlunsplit

import pytest

from tests.engines import server_url


@pytest.fixture
def pg_url() -> str:
    """The test server's URL (skipped without one, failed under ``REQUIRE_POSTGRES=1``)."""
    return server_url()


def on_database(url: str, name: str) -> str:
    """``url`` naming database ``name`` instead (its host, port and parameters kept)."""
    parts = urlsplit(url)
    return urlunsplit((parts.scheme, parts.netloc, f"/{name}", parts.query, parts.fragment))


@pytest.fixture
async def pg_db(pg_url: str) -> AsyncIterator[str]:
    """A database of its own on the test server for one test, migrated (a guild's lock moves its epoch,
    a row of the bot's schema), dropped afterwards."""
    import asyncpg

    from data.base import target
    from data.postgres import POSTGRES

    name = f"nomic_test_{uuid.uuid4().hex[:12]}"
    admin = await asyncpg.connect(pg_url)
    try:
        await admin.execute(f'CREATE DATABASE "{name}"')
    finally:
        await admin.close()
    try:
        url = on_database(pg_url, name)
        await POSTGRES.migrate(target(url))
        yield url
    finally:
        admin = await asyncpg.connect(pg_url)
        try:
            await admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        finally:
            await admin.close()
