"""A replayed season for the web record's tests: the scenario tests/scenarios/web_season.jsonl on disk.

The season runs from a Saturday (the round starts in a bartering phase) over two whole weeks into a
third: lots sold and carried, hands presented and placed, an urgent proposal with an amendment, a
standard one, a failed one whose text is markup, a moderator's change of an option, a ruling
overturned by a vote of confidence, two elections, a resignation, a thread game the AI finishes,
and a week start that moves the settled records to the archive.
"""

from __future__ import annotations

import asyncio
import io
import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from bot.sim.replay import read_scenario, replay
from bot.web.render import to_html, to_json
from bot.web.site import Site
from data.read_store import ReadStore
from games.nomic.service import RoundService

SCENARIO = Path(__file__).resolve().parent / "scenarios" / "web_season.jsonl"
SEED = "7"
UNTIL = datetime(2026, 12, 21, tzinfo=UTC)
GUILD = "sim"


def lines_until(last: datetime | None = None) -> list[Any]:
    """The scenario's lines, those after ``last`` left out."""
    lines = read_scenario(SCENARIO, io.StringIO())
    return [(n, line) for n, line in lines if last is None or line.at <= last]


def replay_into(db: Path, *, last: datetime | None = None, until: datetime | None = UNTIL) -> dict[str, Any]:
    """Replay the season (up to line time ``last``, clock run on to ``until``) into ``db``; its state document."""
    return asyncio.run(replay_season(db, last=last, until=until))


async def replay_season(db: Path, *, last: datetime | None = None, until: datetime | None = UNTIL) -> dict[str, Any]:
    """``replay_into`` on the running event loop."""
    result = await replay(lines_until(last), seed=SEED, db=db, until=until)
    return result.document


@asynccontextmanager
async def read_only_site(db: Path) -> AsyncIterator[Site]:
    """The site as ``python -m bot web --db`` serves it."""
    read = await ReadStore.open(db)
    try:
        yield Site(read, RoundService(read), live=False)
    finally:
        await read.close()


async def render(site: Site, path: str) -> tuple[str, dict[str, Any]]:
    """A page's HTML and its JSON twin."""
    page = await site.page(path)
    return to_html(page), json.loads(to_json(page))
