"""Replayed scenarios: each outbid notice and reminder at its instant and exactly once, also when the
run is stopped and resumed on its ``--db`` across it; the week's review; nothing private in them."""

from __future__ import annotations

import io
import re
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from bot.sim.replay import read_scenario, replay

SCENARIO = Path(__file__).parent / "scenarios" / "notices.jsonl"
CARD = re.compile(r"\b(10|[2-9AJQK])[SHCD]\b")
LINES = read_scenario(SCENARIO, io.StringIO())


def ids() -> list[str]:
    return [getattr(line, "id", "") for _, line in LINES]


async def run(lines: list[Any], db: Path | None = None, until: datetime | None = None) -> Any:
    return await replay(lines, seed="1", db=db, until=until)


def starting(transcript: list[dict[str, Any]], prefix: str) -> list[tuple[str, str]]:
    return [(e["at"], e.get("to") or e["channel"]) for e in transcript if e["content"].startswith(prefix)]


async def test_each_notice_and_reminder_comes_once_at_its_instant() -> None:
    said = (await run(LINES)).transcript
    assert starting(said, "📣 Auction news") == [
        ("2026-12-07T09:00:30Z", "alice"),  # at once: her first notice
        ("2026-12-07T09:01:30Z", "alice"),  # the next one waits for the minute's end
    ]
    assert starting(said, "⏰ The auction ends") == [
        ("2026-12-09T00:00:00Z", "auctions"),
        ("2026-12-09T23:00:00Z", "auctions"),
    ]
    # carol opted out of personal reminders; alice presented later that day
    assert starting(said, "⏰ Placements are") == [("2026-12-11T00:00:00Z", "alice"), ("2026-12-11T00:00:00Z", "bob")]
    assert starting(said, "**The week in review") == [("2026-12-13T00:00:00Z", "game-actions")]
    for entry in said:
        if entry["content"].startswith(("📣", "⏰")):
            assert entry["reply_to"] is None
            assert not CARD.search(entry["content"]), entry


@pytest.mark.parametrize("stop_after", ["n2", "b4", "lots", "g3", "p1"])
async def test_a_run_stopped_and_resumed_on_its_db_tells_each_once(tmp_path: Path, stop_after: str) -> None:
    """Stopped after a line (a waiting notice, a reminder's instant ahead), resumed later: the two
    transcripts together are the uninterrupted one, and the state is the same."""
    whole = await run(LINES)
    db = tmp_path / "r.db"
    cut = ids().index(stop_after) + 1
    first = await run(LINES[:cut], db=db)
    second = await run(LINES, db=db)
    assert first.transcript + second.transcript == whole.transcript
    assert second.document == whole.document


async def test_a_reminder_sent_before_a_stop_is_not_sent_again_on_resume(tmp_path: Path) -> None:
    db = tmp_path / "r.db"
    cut = ids().index("lots") + 1
    wednesday_noon = datetime(2026, 12, 9, 12, tzinfo=UTC)
    first = await run(LINES[:cut], db=db, until=wednesday_noon)  # the clock ran past the 24-hour reminder
    assert starting(first.transcript, "⏰ The auction ends") == [("2026-12-09T00:00:00Z", "auctions")]
    second = await run(LINES, db=db)
    assert starting(second.transcript, "⏰ The auction ends") == [("2026-12-09T23:00:00Z", "auctions")]
