"""Typed card commands in the simulator: a replayed scenario, its state document, resuming, the console."""

from __future__ import annotations

import io
import json
from pathlib import Path

from bot.sim.console import console
from bot.sim.replay import read_scenario, replay

SCENARIO = Path(__file__).resolve().parent / "scenarios" / "cards.jsonl"


async def _run(db: Path | None = None, lines: list | None = None) -> tuple[list[dict], dict]:  # type: ignore[type-arg]
    read = lines if lines is not None else read_scenario(SCENARIO, io.StringIO())
    result = await replay(read, seed="3", db=db)
    return result.transcript, result.document


def _answers(transcript: list[dict], message: str) -> list[str]:  # type: ignore[type-arg]
    return [t["content"] for t in transcript if t.get("reply_to") == message]


async def test_the_card_scenario_replays_into_the_state_document() -> None:
    transcript, document = await _run()
    cards = document["cards"]
    designs = {d["name"]: d for d in cards["designs"]}
    assert set(designs) == {"Fire Imp", "Blaze Imp", "Sea Wall"}
    imp = designs["Fire Imp"]
    assert imp["protected"]
    assert imp["version"] == 2, "edited after approval: a new version"
    assert imp["status"] == "pending"
    assert imp["approvals"] == []
    assert imp["minted"] == 2
    assert designs["Blaze Imp"]["status"] == "draft", "blocked by the protected imp: still a draft"
    wall = designs["Sea Wall"]
    assert wall["status"] == "approved"
    assert wall["approved_by"] == "guild:Smiths", "the guild's vote was counted at its deadline"
    assert 1 in cards["copies"]["bob"], "the imp's copy went to bob in trade 1"
    assert 3 in cards["copies"]["alice"]
    decks = {(d["owner"], d["name"]): d for d in cards["decks"]}
    assert decks[("alice", "Ember")]["playable"]
    assert not decks[("bob", "Tide")]["playable"], "bob traded one of its copies away"
    assert cards["exclusions"] == [{"by": "alice", "design": wall["id"], "met": False}]
    assert cards["guilds"][0]["name"] == "Smiths"
    assert [t["status"] for t in document["trades"]] == ["accepted"]
    assert "give" in document["trades"][0]
    assert document["trades"][0]["give"] == "card copy 1"

    # every command is answered, a draft only to its maker, a redelivered approval not again
    commands = {t["reply_to"] for t in transcript if t.get("reply_to")}
    assert {f"c{n}" for n in range(1, 26)} <= commands
    assert [t.get("to") for t in transcript if t.get("reply_to") == "c1"] == ["alice"]
    assert len(_answers(transcript, "c6")) == 1
    assert "too close to another member's protected design" in _answers(transcript, "c5")[0]
    assert "99999 is too large" in _answers(transcript, "c23")[0]
    vote = [t for t in transcript if "The guild Smiths approves" in t["content"]]
    assert [t["at"] for t in vote] == ["2026-12-05T12:11:00Z", "2026-12-05T12:11:00Z"]
    assert [t.get("to") for t in vote] == [None, "bob"]


async def test_a_replay_killed_part_way_and_resumed_ends_as_an_uninterrupted_one(tmp_path: Path) -> None:
    lines = read_scenario(SCENARIO, io.StringIO())
    _, whole = await _run(tmp_path / "whole.db")
    db = tmp_path / "parts.db"
    await _run(db, lines[:14])
    await _run(db, lines[:20])
    _, resumed = await _run(db, lines)
    assert resumed["cards"] == whole["cards"]
    assert resumed["players"] == whole["players"]
    assert resumed["trades"] == whole["trades"]


async def test_card_commands_work_in_the_console(tmp_path: Path) -> None:
    typed = "\n".join(
        [
            "!card new Tin Soldier | type: soldier | cost: 2 | cr: 2 | text: Stands in line, very straight.",
            "!card submit Tin Soldier",
            "/as bob",
            "!card approve Tin Soldier",
            "!card starter Grove",
            "/state",
            "/quit",
        ]
    )
    out = io.StringIO()
    assert await console(db=tmp_path / "c.db", stdin=io.StringIO(typed + "\n"), out=out) == 0
    text = out.getvalue()
    assert "bot (only you): Your draft is saved as card #24" in text
    assert "bob approves **Tin Soldier**" in text
    assert "bob takes the starter deck Grove" in text
    document = json.loads(text[text.index("{") : text.rindex("}") + 1])
    assert document["cards"]["designs"][0]["approvals"] == ["bob"]
    assert len(document["cards"]["copies"]["bob"]) == 30


async def test_a_card_typed_in_a_dm_to_the_bot_is_answered_privately() -> None:
    lines = [
        {"at": "2026-12-04T12:00:00Z", "type": "setup", "admins": ["mod"]},
        {
            "at": "2026-12-04T12:01:00Z",
            "type": "message",
            "id": "d1",
            "channel": "dm",
            "author": "alice",
            "content": "!card new Secret Imp | type: soldier | cost: R+1 | cr: 2 | text: Nobody must see this.",
        },
        {
            "at": "2026-12-04T12:02:00Z",
            "type": "message",
            "id": "d2",
            "channel": "dm",
            "author": "alice",
            "content": "!card protect Secret Imp",
        },
        {
            "at": "2026-12-04T12:03:00Z",
            "type": "message",
            "id": "d3",
            "channel": "dm",
            "author": "alice",
            "content": "!card submit Secret Imp",
        },
    ]
    from bot.sim.world import read_line

    transcript, document = await _run(lines=[(n, read_line(line)) for n, line in enumerate(lines)])
    assert [t.get("to") or t["channel"] for t in transcript] == ["alice", "alice", "alice", "game-actions"]
    assert "alice submits a card" in transcript[-1]["content"], "the submitted card is shown in the open"
    assert all(
        "Nobody must see this" not in t["content"] for t in transcript if t.get("channel") and t != transcript[-1]
    )
    assert document["cards"]["designs"][0]["protected"]
    assert document["cards"]["designs"][0]["status"] == "pending", "submitted by DM: shown to everyone from now on"
