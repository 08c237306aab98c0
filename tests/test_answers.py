"""Every command gets its own answer, once: a DM whose action also tells other members something
privately, and a seat handed to the computer whose moves fill more than one message.

The simulator's contract: every command message gets at least one answer, addressed to its author
(``reply_to`` its id; ``to`` them when it was a DM); a post is one Discord message (at most 2,000
characters), whatever the computer played at once.
"""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime
from typing import Any

import pytest

from bot.sim.replay import ReplayResult, replay
from bot.sim.world import read_line
from games.tables import posts

DISCORD_LIMIT = 2000
SETUP = {"at": "2026-12-07T09:00:00Z", "type": "setup", "admins": ["mod"]}


def msg(mid: str, second: int, channel: str, author: str, content: str) -> dict[str, Any]:
    at = f"2026-12-07T09:00:{second:02d}Z"
    return {"at": at, "type": "message", "id": mid, "channel": channel, "author": author, "content": content}


def run(*raw: dict[str, Any], seed: str = "1", until: datetime | None = None) -> ReplayResult:
    lines = [(i, read_line(d)) for i, d in enumerate(raw)]
    return asyncio.run(replay(lines, seed=seed, until=until))


def answers(result: ReplayResult, mid: str) -> list[dict[str, Any]]:
    return [e for e in result.transcript if e.get("reply_to") == mid]


def test_a_dm_start_that_hands_another_member_cards_is_still_answered_to_its_author() -> None:
    """Under this seed the computer's seats hand alice cards as the game starts: posts for alice alone,
    which are no answer to bob's DM."""
    result = run(
        SETUP,
        msg("p", 1, "game-actions", "alice", "!play wikipedia ai:2"),
        msg("j", 2, "wikipedia-1", "bob", "!join"),
        msg("s", 3, "dm", "bob", "!wikipedia-1 start"),
        seed="6",
    )
    told_alice = [e for e in result.transcript if e.get("to") == "alice" and "hands card" in e["content"]]
    assert told_alice, "the seed no longer has the computer hand alice a card at the start"
    said = answers(result, "s")
    assert said, "bob's DM got no answer"
    assert all(e.get("to") == "bob" for e in said), said
    assert any("wikipedia-1" in e["content"] for e in said)


def _long_autoplay(seed: str) -> ReplayResult:
    """alice never plays: after three timeouts the computer plays her seat, and the game, at once."""
    return run(
        SETUP,
        msg("p", 1, "game-actions", "alice", "!play wikipedia ai:3 turn:1h"),
        msg("s", 3, "wikipedia-1", "alice", "!start"),
        seed=seed,
        until=datetime(2026, 12, 9, tzinfo=UTC),
    )


def test_the_moves_of_a_seat_handed_to_the_computer_come_in_posts_of_one_message_each(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    result = _long_autoplay("3")
    thread = [e for e in result.transcript if e.get("channel") == "wikipedia-1"]
    assert all(len(e["content"]) <= DISCORD_LIMIT for e in result.transcript)

    monkeypatch.setattr(posts, "POST_LIMIT", 10**9)
    whole = [e for e in _long_autoplay("3").transcript if e.get("channel") == "wikipedia-1"]
    longest = max(whole, key=lambda e: len(e["content"]))
    assert len(longest["content"]) > DISCORD_LIMIT, "the computer's run would fit one message anyway"
    at = longest["at"]
    split = [e["content"] for e in thread if e["at"] == at]
    assert len(split) > len([e for e in whole if e["at"] == at]), "the long run became several posts"
    # everything still said, in order, and no line cut: the posts are the run's lines, grouped
    assert "\n".join(split) == "\n".join(e["content"] for e in whole if e["at"] == at)
    assert [e["content"] for e in thread if e["at"] != at] == [e["content"] for e in whole if e["at"] != at]
