"""Edges of the simulator contract found in review: each was once wrong."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pytest

from bot.sim.replay import ReplayResult, read_scenario, replay
from games.nomic.errors import BadInputError
from games.nomic.ruleset import Ruleset

SETUP = {"at": "2026-12-06T00:00:00Z", "type": "setup", "admins": ["mod"]}


def msg(mid: str, at: str, channel: str, author: str, content: str) -> dict[str, Any]:
    return {"at": at, "type": "message", "id": mid, "channel": channel, "author": author, "content": content}


async def run(tmp_path: Path, *lines: dict[str, Any], until: str | None = None) -> ReplayResult:
    path = tmp_path / "s.jsonl"
    path.write_text("".join(json.dumps(line, ensure_ascii=False) + "\n" for line in lines), encoding="utf-8")
    from datetime import datetime

    end = datetime.fromisoformat(until.replace("Z", "+00:00")) if until else None
    return await replay(read_scenario(path, io.StringIO()), seed="1", until=end)


def answers(result: ReplayResult, mid: str) -> list[str]:
    return [e["content"] for e in result.transcript if e["reply_to"] == mid]


@pytest.mark.parametrize(("option", "value"), [("hands.prize_points", "-50,10"), ("hands.prize_proposal_makers", "-3")])
def test_prizes_cannot_be_negative(option: str, value: str) -> None:
    with pytest.raises(BadInputError):
        Ruleset().with_option(option, value)


async def test_mentions_of_names_with_dots(tmp_path: Path) -> None:
    result = await run(
        tmp_path,
        SETUP,
        msg("j", "2026-12-06T00:01:00Z", "game-actions", "bob.smith", "!join"),
        msg("g", "2026-12-06T00:02:00Z", "game-actions", "mod", "!admin give @bob.smith 5 points"),
        msg("h", "2026-12-06T00:03:00Z", "game-actions", "mod", "!admin give @bob.smith, 1 point"),
    )
    assert result.document["players"]["bob.smith"]["points"] == 6


async def test_a_second_setup_line_makes_no_moderator(tmp_path: Path) -> None:
    result = await run(
        tmp_path,
        SETUP,
        msg("j", "2026-12-06T00:01:00Z", "game-actions", "eve", "!join"),
        {"at": "2026-12-06T00:02:00Z", "type": "setup", "admins": ["eve"]},
        msg("x", "2026-12-06T00:03:00Z", "game-actions", "eve", "!admin give @eve 500 points"),
    )
    assert result.document["players"]["eve"]["points"] == 0
    assert answers(result, "x") == ["Can't do that: only moderators can do that."]


async def test_shortening_the_auction_ends_it_now_not_in_the_past(tmp_path: Path) -> None:
    result = await run(
        tmp_path,
        SETUP,
        msg("j", "2026-12-06T00:00:00Z", "game-actions", "a", "!join"),
        msg("l", "2026-12-06T00:00:00Z", "game-actions", "mod", "!admin lot AS AH"),
        msg("g", "2026-12-06T00:00:00Z", "game-actions", "mod", "!admin give @a 50 points"),
        msg("b", "2026-12-06T00:00:00Z", "auctions", "a", "!bid 1 10"),
        msg("s", "2026-12-09T06:00:00Z", "game-actions", "mod", "!admin set calendar.auction_days 2"),
        msg("p", "2026-12-09T06:00:01Z", "game-actions", "a", "!phase"),
        until="2026-12-14T00:00:00Z",
    )
    stamps = [e["at"] for e in result.transcript]
    assert stamps == sorted(stamps)
    sold = next(e for e in result.transcript if e["content"].startswith("Lot 1 (AS AH) goes to a"))
    assert sold["at"] == "2026-12-09T06:00:00Z"
    assert answers(result, "p")[0].startswith("It is the bartering phase.")
    assert sorted(result.document["players"]["a"]["cards"]) == ["AH", "AS"]


async def test_edits_of_a_waiting_proposal_meet_the_same_checks(tmp_path: Path) -> None:
    result = await run(
        tmp_path,
        SETUP,
        msg("j", "2026-12-07T00:00:00Z", "game-actions", "a", "!join"),
        msg("g", "2026-12-07T00:00:00Z", "game-actions", "mod", "!admin give @a 2 spm"),
        msg("P", "2026-12-07T00:01:00Z", "proposals", "a", "standard one"),
        {"at": "2026-12-07T00:02:00Z", "type": "edit", "message": "P", "content": "   "},
        {"at": "2026-12-07T00:03:00Z", "type": "edit", "message": "P", "content": "z" * 10_000},
    )
    refusals = [e for e in result.transcript if e["reply_to"] == "P" and e["content"].startswith("Can't do that")]
    assert len(refusals) == 2
    (proposal,) = result.document["proposals"]
    assert proposal["status"] == "pending"


async def test_a_line_that_is_not_utf8_is_skipped_alone(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    good = json.dumps(msg("j", "2026-12-06T00:01:00Z", "game-actions", "a", "!join"))
    path.write_bytes(
        json.dumps(SETUP).encode() + b"\n" + b'{"at":"2026-12-06T00:00:30Z","type":"message","id":"x","channel":'
        b'"game-actions","author":"b","content":"!join \xff"}\n' + good.encode() + b"\n"
    )
    errors = io.StringIO()
    result = await replay(read_scenario(path, errors), seed="1")
    assert "line 2: skipped: not UTF-8" in errors.getvalue()
    assert set(result.document["players"]) == {"a"}
