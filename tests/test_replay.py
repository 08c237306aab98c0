"""Whole weeks through the simulator (bot.sim.replay), checked against the simulator contract."""

from __future__ import annotations

import io
import json
import re
from collections import Counter
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from bot.sim.replay import ReplayResult, read_scenario, replay, replay_file
from bot.sim.world import read_line
from data.table_store import TableStore
from games.tables.service import TableService

SCENARIOS = Path(__file__).parent / "scenarios"
WEEK = SCENARIOS / "week.jsonl"
UNTIL = datetime(2026, 12, 14, tzinfo=UTC)
REQUIRED_KEYS = {"now", "phase", "judge", "players", "lots", "proposals", "rulings"}
_LOT_SOLD = re.compile(r"Lot (\d+) \(([^)]*)\) goes to (\w+) for (\d+) points?")


def scenario_lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


async def run(path: Path, seed: str = "7", **kwargs: Any) -> ReplayResult:
    return await replay(read_scenario(path, io.StringIO()), seed=seed, **kwargs)


def answers(result: ReplayResult, message_id: str) -> list[dict[str, Any]]:
    return [e for e in result.transcript if e.get("reply_to") == message_id]


def answer(result: ReplayResult, message_id: str) -> str:
    found = answers(result, message_id)
    assert len(found) == 1, (message_id, found)
    return found[0]["content"]


@pytest.fixture(scope="module")
def week() -> ReplayResult:
    import asyncio

    return asyncio.run(run(WEEK, until=UNTIL))


# --- the state document -----------------------------------------------------------------------


def test_state_document_has_the_contract_keys(week: ReplayResult) -> None:
    doc = week.document
    assert set(doc) >= REQUIRED_KEYS
    assert doc["now"] == "2026-12-14T00:00:00Z"
    assert doc["phase"] == "auction"
    assert doc["judge"] is None
    assert doc["proposals"] == []
    assert doc["rulings"] == []
    for player in doc["players"].values():
        assert set(player) >= {"points", "cards", "items"}
        assert "standard_proposal_maker" in player["items"]
    for lot in doc["lots"]:
        assert set(lot) >= {"number", "cards", "high_bid"}


def test_week_points_items_and_placements(week: ReplayResult) -> None:
    players = week.document["players"]
    assert set(players) == {"alice", "bob", "carol", "dave", "erin"}, "frank left; only current players are listed"
    points = {name: p["points"] for name, p in players.items()}
    # 100 on Sunday; dave paid carol 80; settlement: erin 6, bob 70, carol 40 (bob's 50 on lot 4 lapsed);
    # erin paid dave 10; prizes 20/10/30/20; 100 on the next Sunday.
    assert points == {"alice": 220, "bob": 140, "carol": 270, "dave": 150, "erin": 184}
    spm = {name: p["items"]["standard_proposal_maker"] for name, p in players.items()}
    assert spm == {"alice": 1, "bob": 1, "carol": 0, "dave": 0, "erin": 0}
    for name in ("alice", "bob", "carol", "dave"):
        assert players[name]["cards"] == [], name
    sold = {
        int(m[1]): (m[2].split(), m[3], int(m[4])) for e in week.transcript for m in _LOT_SOLD.finditer(e["content"])
    }
    assert {n: (who, amount) for n, (_, who, amount) in sold.items()} == {
        1: ("erin", 6),
        3: ("bob", 70),
        4: ("carol", 40),
    }
    assert sold[3][0] == ["AS", "AH"]
    assert sorted(players["erin"]["cards"]) == sorted([*sold[1][0], "2D", "2H", "5C", "8C", "QH"])
    placements = week.document["last_placements"]
    assert [(p["place"], p["player"]) for p in placements] == [
        (1, "alice"),
        (2, "bob"),
        (3, "carol"),
        (4, "dave"),
        (5, "erin"),
    ]
    assert not any(p["coin_toss"] for p in placements)


def test_week_lots_carry_over_and_new_lot_is_generated_in_bartering(week: ReplayResult) -> None:
    lots = week.document["lots"]
    # lot 2 was carried over; the lot generated after the settlement takes the next number, never a freed one
    assert [lot["number"] for lot in lots] == [2, 5]
    assert all(len(lot["cards"]) == 2 and lot["high_bid"] is None for lot in lots)
    generated = answer(week, "g3")
    assert "generates lot 5" in generated
    assert "d13=" in generated
    assert "d4=" in generated
    unsold = [e for e in week.transcript if "had no valid bid" in e["content"]]
    assert len(unsold) == 1
    assert "Lot 2" in unsold[0]["content"]


def test_week_trades(week: ReplayResult) -> None:
    statuses = {t["number"]: t["status"] for t in week.document["trades"]}
    assert statuses == {1: "accepted", 2: "declined", 3: "cancelled", 4: "accepted", 5: "expired"}
    assert "not offered to you" in answer(week, "t3-wrong")
    assert "lapse" in answer(week, "t1a") or "no longer count" in answer(week, "t1a")


def test_week_open_offer_expires_with_its_week(week: ReplayResult) -> None:
    sunday = [e for e in week.transcript if e["at"] == "2026-12-13T00:00:00Z" and e["reply_to"] is None]
    expired = [e for e in sunday if "expired" in e["content"]]
    assert len(expired) == 1
    assert expired[0]["channel"] == "game-actions"
    assert "Trade 5: carol offered alice 5 points for nothing" in expired[0]["content"]
    refused = answer(week, "t5a")
    assert "trade 5 expired at the end of the week it was made" in refused


# --- the transcript ---------------------------------------------------------------------------------


def test_every_command_message_gets_an_answer_replying_to_it(week: ReplayResult) -> None:
    lines = scenario_lines(WEEK)
    messages = [line for line in lines if line["type"] == "message"]
    seen: set[str] = set()
    for line in messages:
        if line["id"] in seen:
            continue
        seen.add(line["id"])
        found = answers(week, line["id"])
        if line["content"].lstrip().startswith("!"):
            assert found, f"no answer to {line['id']} {line['content']!r}"
            for entry in found:
                assert entry["at"] == line["at"]
                assert entry.get("channel") == line["channel"] or entry.get("to") == line["author"]
        else:
            assert found == [], line["id"]


def test_redelivered_message_gets_no_second_answer_and_changes_nothing(week: ReplayResult) -> None:
    ids = Counter(line["id"] for line in scenario_lines(WEEK) if line["type"] == "message")
    repeated = [mid for mid, n in ids.items() if n > 1]
    assert repeated == ["b3"]
    assert len(answers(week, "b3")) == 1
    assert "bob bids 70" in answer(week, "b3")


def test_transcript_entries_are_well_formed(week: ReplayResult) -> None:
    ats = [e["at"] for e in week.transcript]
    assert ats == sorted(ats)
    for entry in week.transcript:
        assert set(entry) in ({"at", "channel", "content", "reply_to"}, {"at", "to", "content", "reply_to"})
        assert entry["content"].strip()
        if entry["reply_to"] is None:
            assert entry.get("channel"), "an announcement names its channel"


def test_announcements(week: ReplayResult) -> None:
    announced = [e for e in week.transcript if e["reply_to"] is None]
    by_time: dict[str, list[str]] = {}
    for e in announced:
        by_time.setdefault(e["at"], []).append(e["content"])
    sunday = "\n".join(by_time["2026-12-06T00:00:00Z"])
    assert "auction phase has begun" in sunday
    assert "6 players gains 100 points" in sunday
    thursday = "\n".join(by_time["2026-12-10T00:00:00Z"])
    assert "bartering phase has begun" in thursday
    assert "Lot 3 (AS AH) goes to bob for 70 points" in thursday
    assert "Lot 4 (KD KC) goes to carol for 40 points" in thursday
    settlement = "\n".join(
        e["content"] for e in announced if e["at"] == "2026-12-10T00:00:00Z" and e["channel"] == "auctions"
    )
    # #auctions says why a higher bid did not win, with the reason known when it lapsed
    assert "goes to carol for 40 points. bob's higher bid of 50 lapsed: they paid 70 for lot 3." in settlement
    assert "goes to erin for 6 points. frank's higher bid of 7 lapsed: they stopped being a player." in settlement
    assert "dave's bid of 30 lapsed: they gave 80 points in trade 1." in settlement
    assert "bob's bid (50 on lot 4) no longer counts: they paid 70 for lot 3." in thursday
    assert "70 on lot 3" not in thursday, "the winning bid is paid, not lapsed"
    saturday = "\n".join(by_time["2026-12-12T00:00:00Z"])
    assert "1. alice" in saturday
    assert "5. erin" in saturday
    assert "cards back" in saturday
    next_sunday = "\n".join(by_time["2026-12-13T00:00:00Z"])
    assert "5 players gains 100 points" in next_sunday
    left = [e for e in announced if "frank" in e["content"]]
    assert left
    assert left[0]["at"] == "2026-12-06T10:00:00Z"


def test_leave_line_invalidates_bids(week: ReplayResult) -> None:
    assert "frank" not in week.document["players"]
    assert "Lot 1" in answer(week, "lots1")
    # frank's 7 on lot 1 lapsed when he left, so erin's 6 won it
    assert any("goes to erin for 6 points" in e["content"] for e in week.transcript)


def test_unknown_message_ids_in_react_edit_delete_lines_are_ignored(week: ReplayResult) -> None:
    quiet = {line["at"] for line in scenario_lines(WEEK) if line["type"] in {"react", "unreact", "edit", "delete"}}
    assert len(quiet) == 4
    assert [e for e in week.transcript if e["at"] in quiet] == []


# --- reproducibility, files, and bad lines -----------------------------------------------------------


async def test_same_seed_same_transcript_and_state(tmp_path: Path) -> None:
    first = await run(WEEK, seed="42", until=UNTIL)
    second = await run(WEEK, seed="42", until=UNTIL, db=tmp_path / "second.db")
    assert first.transcript == second.transcript
    assert first.document == second.document
    other = await run(WEEK, seed="43", until=UNTIL)
    assert other.document["players"].keys() == first.document["players"].keys()


def test_replay_file_writes_state_and_transcript(tmp_path: Path) -> None:
    state, transcript = tmp_path / "state.json", tmp_path / "transcript.jsonl"
    result = replay_file(WEEK, seed="7", until=UNTIL, state_out=state, transcript_out=transcript)
    assert json.loads(state.read_text(encoding="utf-8")) == result.document
    written = [json.loads(line) for line in transcript.read_text(encoding="utf-8").splitlines()]
    assert written == result.transcript


async def test_bad_lines_are_reported_and_skipped(tmp_path: Path) -> None:
    path = tmp_path / "bad.jsonl"
    good = scenario_lines(WEEK)[:3]
    raw = [
        json.dumps(good[0]),
        "not json at all",
        "[1, 2]",
        json.dumps({"at": "2026-12-05T12:00:30Z", "type": "teleport"}),
        json.dumps({"at": "2026-12-05T12:00:40", "type": "leave", "user": "x"}),
        "",
        json.dumps(good[1]),
        json.dumps(good[2]),
    ]
    path.write_text("\n".join(raw) + "\n", encoding="utf-8")
    errors = io.StringIO()
    lines = read_scenario(path, errors)
    assert len(lines) == 3
    assert errors.getvalue().count("skipped") == 4
    result = await replay(lines, seed="1")
    assert set(result.document["players"]) == {"alice", "bob"}


async def test_message_before_setup_is_answered_but_changes_nothing(tmp_path: Path) -> None:
    path = tmp_path / "early.jsonl"
    lines = [
        {
            "at": "2026-12-05T11:00:00Z",
            "type": "message",
            "id": "x1",
            "channel": "game-actions",
            "author": "a",
            "content": "!join",
        },
        {"at": "2026-12-05T12:00:00Z", "type": "setup", "admins": []},
        {
            "at": "2026-12-05T12:01:00Z",
            "type": "message",
            "id": "x2",
            "channel": "game-actions",
            "author": "a",
            "content": "!join",
        },
    ]
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    result = await run(path)
    assert answers(result, "x1")
    assert "Welcome" in answer(result, "x2")
    assert result.document["players"]["a"]["points"] == 0


async def test_round_started_on_a_sunday_gives_no_points_until_the_next(tmp_path: Path) -> None:
    """The example of the brief: setup at Sunday 00:00, then a moderator's grant."""
    path = tmp_path / "s1.jsonl"
    lines = [
        {"at": "2026-12-06T00:00:00Z", "type": "setup", "admins": ["mod"]},
        {
            "at": "2026-12-06T00:01:00Z",
            "type": "message",
            "id": "m1",
            "channel": "game-actions",
            "author": "alice",
            "content": "!join",
        },
        {
            "at": "2026-12-06T00:02:00Z",
            "type": "message",
            "id": "m2",
            "channel": "game-actions",
            "author": "mod",
            "content": "!admin give @alice 100 points",
        },
        {
            "at": "2026-12-06T00:03:00Z",
            "type": "message",
            "id": "m3",
            "channel": "game-actions",
            "author": "mod",
            "content": "!admin lot AS KH",
        },
        {
            "at": "2026-12-06T00:04:00Z",
            "type": "message",
            "id": "m4",
            "channel": "auctions",
            "author": "alice",
            "content": "!bid 1 30",
        },
    ]
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    result = await run(path, until=datetime(2026, 12, 10, 1, tzinfo=UTC))
    alice = result.document["players"]["alice"]
    assert alice["points"] == 70
    assert sorted(alice["cards"]) == ["AS", "KH"]
    assert result.document["phase"] == "bartering"
    assert result.document["now"] == "2026-12-10T01:00:00Z"


async def test_the_rounds_commands_cost_the_thread_games_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    """Outside a table's thread only ``!play``, ``!games`` and ``!rules GAME`` are the tables': the round's
    commands (the most of a busy week) and talk in a channel that is no table's go to the round without
    asking the tables anything, and no table is looked for in the store."""
    asked: list[str] = []
    found = TableService.command

    async def command(self: TableService, guild: str, actor: Any, content: str, **kwargs: Any) -> Any:
        asked.append(content)
        return await found(self, guild, actor, content, **kwargs)

    looked = TableStore.table

    async def table(self: TableStore, guild: str, key: str) -> Any:
        asked.append(f"table {key}")
        return await looked(self, guild, key)

    monkeypatch.setattr(TableService, "command", command)
    monkeypatch.setattr(TableStore, "table", table)
    said = [
        ("j1", "game-actions", "!join"),
        ("i1", "general", "!inventory"),
        ("c1", "general", "good luck everyone"),
        ("l1", "auctions", "!lots"),
        ("b1", "auctions", "!bid 1 5"),
    ]
    raw = [{"at": "2026-12-05T12:00:00Z", "type": "setup", "admins": ["mod"]}] + [
        {
            "at": f"2026-12-05T12:0{n}:00Z",
            "type": "message",
            "id": mid,
            "channel": where,
            "author": "alice",
            "content": text,
        }
        for n, (mid, where, text) in enumerate(said, 1)
    ]
    result = await replay([(n, read_line(data)) for n, data in enumerate(raw)], seed="7")
    assert all(answers(result, mid) for mid, _, text in said if text.startswith("!")), "every command was answered"
    assert asked == [], asked
