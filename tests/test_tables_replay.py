"""Thread games through the simulator: the replayed table scenario, a whole game typed in its thread, the console."""

from __future__ import annotations

import asyncio
import io
import json
import random
import tempfile
from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from bot.router import Router
from bot.sim.console import console
from bot.sim.replay import ReplayResult, read_scenario, replay, replay_file
from bot.sim.statedoc import state_document
from bot.sim.world import GUILD, MessageLine, Said, SetupLine, World
from data.store import Store
from data.table_store import TableStore
from games.nomic.service import RoundService
from games.tables import lobby
from games.tables.service import TableService
from games.wikipedia.ai import GreedyEditor
from games.wikipedia.engine import ENGINE
from games.wikipedia.state import WikipediaState

SCENARIO = Path(__file__).parent / "scenarios" / "table_wikipedia.jsonl"
SEED = "11"


def run(seed: str = SEED, **kwargs: Any) -> ReplayResult:
    return asyncio.run(replay(read_scenario(SCENARIO, io.StringIO()), seed=seed, **kwargs))


@pytest.fixture(scope="module")
def result() -> ReplayResult:
    return run()


def answers(result: ReplayResult, message_id: str) -> list[dict[str, Any]]:
    return [e for e in result.transcript if e.get("reply_to") == message_id]


def answer(result: ReplayResult, message_id: str) -> str:
    found = answers(result, message_id)
    assert len(found) >= 1, message_id
    return "\n".join(e["content"] for e in found)


def public(result: ReplayResult) -> list[dict[str, Any]]:
    return [e for e in result.transcript if "to" not in e]


def private(result: ReplayResult) -> list[dict[str, Any]]:
    return [e for e in result.transcript if "to" in e]


# --- the replayed scenario ----------------------------------------------------------------------


def test_state_document_lists_the_tables(result: ReplayResult) -> None:
    tables = {t["thread"]: t for t in result.document["tables"]}
    assert set(tables) == {"wikipedia-1", "wikipedia-2"}
    first = tables["wikipedia-1"]
    assert first["game"] == "wikipedia"
    assert first["status"] in {"won", "lost"}
    assert sorted(first["players"]) == ["alice", "bob"]
    assert sorted(first["ai_seats"]) == ["AI-1", "AI-2"]
    assert sorted(first["ai_for_good"]) == ["alice", "bob"], "both let three turns in a row run out"
    assert first["to_move"] is None
    assert first["seed"] == f"{SEED}:{GUILD}:wikipedia-1"
    second = tables["wikipedia-2"]
    assert second["status"] == "abandoned"
    assert sorted(second["players"]) == ["alice", "bob"], "alice sits at both tables"
    assert set(result.document["players"]) == {"alice"}, "the round's !join in #game-actions still works"


def test_the_game_ran_to_its_end_in_the_thread(result: ReplayResult) -> None:
    thread = [e for e in public(result) if e["channel"] == "wikipedia-1"]
    said = "\n".join(e["content"] for e in thread)
    assert said.count("⏰") == 6, "a reminder at half time of each of the six turns that ran out"
    assert said.count("Time is up for") == 6
    assert said.count("the AI plays this seat from now on") == 2
    assert "**wikipedia-1** is over" in said
    final = next(t for t in result.document["tables"] if t["thread"] == "wikipedia-1")
    assert f"The editors {final['status']}" in said
    instants = [e["at"] for e in result.transcript]
    assert instants == sorted(instants)
    timed_out = [e for e in thread if e["content"].startswith("⌛")]
    assert all(e["reply_to"] is None for e in timed_out), "scheduled posts answer no message"
    assert timed_out[0]["at"] == "2026-12-07T11:10:00Z", "two hours after the turn began at the start"


def test_no_public_message_shows_a_hand(result: ReplayResult) -> None:
    hands = [e for e in private(result) if "Your hand" in e["content"]]
    assert {e["to"] for e in hands} == {"alice", "bob"}
    hand_lines = {line for e in hands for line in e["content"].splitlines() if line.startswith("- #")}
    assert hand_lines
    for entry in public(result):
        assert "Your hand" not in entry["content"]
        assert "(problem:" not in entry["content"]
        for line in hand_lines:
            assert line not in entry["content"]


def test_bad_input_gets_the_reason(result: ReplayResult) -> None:
    expected = {
        "t3": "only players at this table can start it",
        "t4": "There is no such table as wikipedia-2",
        "t5": "there is no game called `chess`",
        "t6": "at most 4 AI seats, not 5",
        "t8": "wikipedia-1 is full",
        "t10": "the game has not started yet",
        "t12": "needs at least 2 players",
        "t19": "you do not play at this table",
        "t22": "seats are only taken in the lobby",
        "t23": "card numbers run from 1 to 52, not 99",
        "t24": "already under way",
        "t25": "only moderators can end a table",
        "t27": "wikipedia-2 has ended (abandoned)",
        "t32": "wikipedia-1 has ended",
    }
    for message, reason in expected.items():
        assert reason in answer(result, message), message
    refused = [m for m in ("t20", "t21") if "turn, not yours" in answer(result, m)]
    assert len(refused) == 1, "of two members passing at once exactly one is out of turn"
    assert [e["to"] for e in answers(result, "t10")] == ["alice"], "!hand answers privately, errors too"


def test_every_command_is_answered_once_and_redelivery_is_silent(result: ReplayResult) -> None:
    lines = [json.loads(raw) for raw in SCENARIO.read_text(encoding="utf-8").splitlines()]
    ids = [line["id"] for line in lines if line["type"] == "message"]
    for message in ids:
        assert answers(result, message), message
    assert ids.count("t20") == 2
    first = answers(result, "t20")
    assert len(first) == 1, "the repeated t20 changed nothing and got no second answer"


def test_lobby_and_listing_answers(result: ReplayResult) -> None:
    assert "Opened **wikipedia-1**" in answer(result, "t1")
    lobby_post = next(e for e in public(result) if e["channel"] == "wikipedia-1")
    assert "alice opened **wikipedia-1**" in lobby_post["content"]
    listing = answer(result, "t14")
    assert "**wikipedia-1**" in listing
    assert "**wikipedia-2**" in listing
    assert "No tables are open" in answer(result, "t31")
    assert "Wikipedia, the cooperative card game" in answer(result, "t29")
    assert "`!section FACT SUPPORT" in answer(result, "t30")
    assert "A moderator ended wikipedia-2" in answer(result, "t26")


def test_same_seed_same_game_and_another_seed_another(result: ReplayResult) -> None:
    again = run()
    assert again.transcript == result.transcript
    assert again.document == result.document
    other = run(seed="12")
    assert other.document["tables"][0]["seed"] != result.document["tables"][0]["seed"]
    assert other.transcript != result.transcript


def test_an_interrupted_replay_resumes_to_the_same_end(tmp_path: Path, result: ReplayResult) -> None:
    lines = read_scenario(SCENARIO, io.StringIO())
    db = tmp_path / "resume.db"
    cut = next(i for i, (_, line) in enumerate(lines) if isinstance(line, MessageLine) and line.id == "t21")
    asyncio.run(replay(lines[:cut], seed=SEED, db=db))
    resumed = asyncio.run(replay(lines, seed=SEED, db=db))
    assert resumed.skipped == cut
    assert resumed.document == result.document


def test_replay_command_line_writes_the_tables(tmp_path: Path) -> None:
    state, transcript = tmp_path / "state.json", tmp_path / "transcript.jsonl"
    replay_file(SCENARIO, seed=SEED, state_out=state, transcript_out=transcript, errors=io.StringIO())
    doc = json.loads(state.read_text(encoding="utf-8"))
    assert [t["thread"] for t in doc["tables"]] == ["wikipedia-1", "wikipedia-2"]
    to_alice = [json.loads(raw) for raw in transcript.read_text(encoding="utf-8").splitlines()]
    assert any(e.get("to") == "alice" and "Your hand" in e["content"] for e in to_alice)


# --- a whole game typed in the thread -----------------------------------------------------------


@pytest.fixture
async def world() -> AsyncIterator[World]:
    with tempfile.TemporaryDirectory(prefix="tables-") as tmp:
        path = Path(tmp) / "game.db"
        store = await Store.open(path, synchronous="NORMAL")
        tables = await TableStore.open(path, synchronous="NORMAL")
        try:
            yield World(Router(RoundService(store), TableService(tables, seed="typed")), seed="typed")
        finally:
            await tables.close()
            await store.close()


async def test_a_whole_game_typed_in_the_thread(world: World) -> None:
    said: list[Said] = []
    world.on_say = said.append
    at = datetime(2026, 12, 7, 9, tzinfo=UTC)
    counter = iter(range(1, 10_000))

    async def post(author: str, content: str, channel: str = "wikipedia-1") -> str:
        mid = f"w{next(counter)}"
        await world.feed(MessageLine(type="message", at=at, id=mid, channel=channel, author=author, content=content))
        return mid

    await world.feed(SetupLine(type="setup", at=at, admins=["mod"]))
    await post("alice", "!play wikipedia ai:1", "game-actions")
    await post("alice", "!start")
    assert world.tables is not None
    editor, rng = GreedyEditor(), random.Random(0)
    typed: list[str] = []
    for _ in range(2_000):
        table = await world.tables.find(GUILD, "wikipedia-1")
        assert table is not None
        if not table.status.open:
            break
        state = lobby.game_state(table)
        assert isinstance(state, WikipediaState)
        mover = ENGINE.to_move(state)
        assert mover == "alice", "the AI seat moves by itself; only alice is ever waited for"
        at += timedelta(minutes=7)
        if len(typed) % 10 == 0:
            await post("alice", "!hand")
            await post("bob", "!pass")
        command = "!" + ENGINE.format_action(state, editor.choose(state, mover, rng))
        typed.append(await post("alice", command))
    else:
        pytest.fail("the game did not end")
    answered = {s.reply_to for s in said}
    assert all(mid in answered for mid in typed)
    errors = [s.content for s in said if s.content.startswith("Can't do that") and s.to is None]
    assert errors
    assert all("do not play at this table" in e for e in errors), "only bob, who is not seated, was refused"
    for s in said:
        if s.to is None:
            assert "Your hand" not in s.content
            assert "(problem:" not in s.content
    assert any(s.to == "alice" and "Your hand" in s.content for s in said)
    tables = await world.tables.all_tables(GUILD)
    doc = state_document(await world.service.state(GUILD), at, tables)
    (entry,) = doc["tables"]
    assert entry["status"] in {"won", "lost"}
    assert entry["players"] == ["alice"]
    assert entry["ai_seats"] == ["AI-1"]
    assert entry["ai_for_good"] == []
    assert entry["timeouts"] == {}
    assert entry["moves"] == lobby.game_state(tables[0]).actions
    assert entry["moves"] > len(typed), "the AI seat moved too"


# --- the console ---------------------------------------------------------------------------------


async def test_the_console_plays_in_a_thread() -> None:
    session = "\n".join(
        [
            "!play wikipedia ai:1",
            "/in wikipedia-1",
            "!start",
            "!hand",
            "!board",
            "/advance 2d",
            "/state",
            "/quit",
        ]
    )
    out = io.StringIO()
    code = await console(seed="c", start=datetime(2026, 12, 7, 9, tzinfo=UTC), stdin=io.StringIO(session), out=out)
    assert code == 0
    text = out.getvalue()
    assert "bot #wikipedia-1: you opened **wikipedia-1**" in text
    assert "[2026-12-07T09:00:00Z] you in #wikipedia-1>" in text
    assert "bot (only you): **wikipedia-1**, your seat you:" in text
    assert "⏰ you, it is still your turn" in text
    start = text.index('{\n  "now"')
    doc = json.loads(text[start : text.index("\n}\n", start) + 2])
    (entry,) = doc["tables"]
    assert entry["thread"] == "wikipedia-1"
    assert entry["players"] == ["you"]
    assert entry["timeouts"] == {"you": 2}
