"""Cards in hand are private: only their owner is ever shown which they are."""

from __future__ import annotations

import io
import json

from bot.sim.replay import read_scenario, replay


def _lines(*objects: dict[str, object]) -> str:
    return "\n".join(json.dumps(o, ensure_ascii=False) for o in objects) + "\n"


async def test_inventories_show_cards_only_to_their_owner(tmp_path) -> None:
    scenario = tmp_path / "s.jsonl"
    at = "2026-12-06T00:0{}:00Z"
    scenario.write_text(
        _lines(
            {"at": at.format(0), "type": "setup", "admins": ["mod"]},
            {
                "at": at.format(1),
                "type": "message",
                "id": "j1",
                "channel": "game-actions",
                "author": "alice",
                "content": "!join",
            },
            {
                "at": at.format(1),
                "type": "message",
                "id": "j2",
                "channel": "game-actions",
                "author": "bob",
                "content": "!join",
            },
            {
                "at": at.format(2),
                "type": "message",
                "id": "g1",
                "channel": "game-actions",
                "author": "mod",
                "content": "!admin give @alice QH 7C",
            },
            {
                "at": at.format(3),
                "type": "message",
                "id": "i1",
                "channel": "game-actions",
                "author": "alice",
                "content": "!inventory",
            },
            {
                "at": at.format(4),
                "type": "message",
                "id": "i2",
                "channel": "auctions",
                "author": "bob",
                "content": "!inventory @alice",
            },
        ),
        encoding="utf-8",
    )
    result = await replay(read_scenario(scenario, io.StringIO()), seed="1")
    own = [e for e in result.transcript if e["reply_to"] == "i1"]
    other = [e for e in result.transcript if e["reply_to"] == "i2"]
    assert len(own) == 1
    assert own[0].get("to") == "alice"
    assert "channel" not in own[0]
    assert "QH" in own[0]["content"]
    assert "7C" in own[0]["content"]
    assert len(other) == 1
    assert other[0]["channel"] == "auctions"
    assert "Cards: 2" in other[0]["content"]
    public = [e for e in result.transcript if "to" not in e]
    assert not any("QH" in e["content"] or "7C" in e["content"] for e in public)
