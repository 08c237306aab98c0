"""The test game (a secret ballot) end to end: many seats awaited at once, private input, events for
some seats only, a game's own 10-second deadline, a restart in the middle of a vote and a deadline
that passed while the bot was down."""

from __future__ import annotations

import asyncio
import io
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from bot.sim.replay import ReplayResult, read_scenario, replay
from bot.sim.selfplay import run_selfplay
from bot.sim.world import MessageLine
from games.tables import lobby
from games.tables.lobby import JoinTable, OpenTable, PlayMove, StartTable, TableStatus, TurnTimeout
from games.tables.registry import register, unregister

from .ballot_game import BALLOT, ENGINE

SCENARIO = Path(__file__).parent / "scenarios" / "table_ballot.jsonl"
SEED = "7"
T0 = datetime(2026, 12, 7, 9, 0, tzinfo=UTC)


@pytest.fixture(scope="module", autouse=True)
def ballot_registered() -> Iterator[None]:
    register(BALLOT)
    yield
    unregister(BALLOT.name)


def run(lines: Any = None, **kwargs: Any) -> ReplayResult:
    lines = lines if lines is not None else read_scenario(SCENARIO, io.StringIO())
    return asyncio.run(replay(lines, seed=SEED, **kwargs))


@pytest.fixture(scope="module")
def result(ballot_registered: None) -> ReplayResult:
    return run()


def said(result: ReplayResult, message_id: str) -> list[dict[str, Any]]:
    return [e for e in result.transcript if e.get("reply_to") == message_id]


def public(result: ReplayResult) -> list[dict[str, Any]]:
    return [e for e in result.transcript if "to" not in e]


def test_the_ballot_ran_to_its_end_in_the_simulator(result: ReplayResult) -> None:
    tables = {t["thread"]: t for t in result.document["tables"]}
    assert tables["ballot-1"]["status"] == "finished"
    assert tables["ballot-1"]["players"] == ["alice", "carol", "bob"]
    assert tables["ballot-2"]["status"] == "finished"


def test_a_secret_move_typed_in_the_thread_is_refused_privately(result: ReplayResult) -> None:
    (answer,) = said(result, "b5")
    assert answer["to"] == "bob"
    assert "secret" in answer["content"]
    assert "`!ballot-1 `" in answer["content"], "the pointer names the private ways"
    assert not any("bob has voted" in e["content"] and e["at"] < "2026-12-07T09:01:03Z" for e in public(result))


def test_a_dm_vote_is_answered_privately_and_the_thread_learns_only_that_it_was_cast(result: ReplayResult) -> None:
    answers = said(result, "b6")
    assert {e.get("to") for e in answers} == {"bob"}
    assert any("You vote A" in e["content"] for e in answers)
    thread = [e["content"] for e in public(result) if e["at"] == "2026-12-07T09:01:03Z"]
    assert thread == ["bob has voted (1 of 3)."]
    assert said(result, "b7")[0]["to"] == "alice", "a member at one table may leave its name out"
    assert len([e for e in result.transcript if e.get("reply_to") == "b7"]) == 2, "a redelivered DM changes nothing"


def test_no_vote_is_public_before_the_reveal(result: ReplayResult) -> None:
    before = [e["content"] for e in public(result) if e["at"] < "2026-12-07T09:01:05Z"]
    assert not any(f"{who} {c}" in text for text in before for who in ("alice", "bob", "carol") for c in "ABC")
    reveal = [e for e in public(result) if "Round 1, the votes" in e["content"]]
    assert [e["at"] for e in reveal] == ["2026-12-07T09:01:05Z"], "revealed together, when the last vote is in"
    assert "alice B, carol A, bob A" in reveal[0]["content"]


def test_the_games_own_deadline_applies_once_at_its_instant_after_downtime(result: ReplayResult) -> None:
    timeouts = [e for e in public(result) if "Round 2, the votes" in e["content"]]
    assert len(timeouts) == 1
    assert timeouts[0]["at"] == "2026-12-07T09:01:15Z", "10 s after round 2 began, not when the bot came back"
    assert "⌛" in timeouts[0]["content"]
    assert "carol -, bob -" in timeouts[0]["content"], "a missing vote is an abstention"
    assert said(result, "b10")[0]["content"].startswith("Can't do that: you have voted")


def test_the_table_speaks_its_language(result: ReplayResult) -> None:
    opened = [e["content"] for e in public(result) if e.get("channel") == "ballot-2"]
    assert opened[0].startswith("erin 開了 **ballot-2**")
    assert any("等待 erin" in text for text in opened)
    assert "is not a language of Secret ballot" in said(result, "b17")[0]["content"]


@pytest.mark.parametrize("cut_at", ["b8", "b11"])
def test_a_restart_in_the_middle_of_a_vote_ends_the_same(tmp_path: Path, result: ReplayResult, cut_at: str) -> None:
    """b8: two of three votes are in; b11: the bot went down with round 2's deadline still ahead."""
    lines = read_scenario(SCENARIO, io.StringIO())
    db = tmp_path / "ballot.db"
    cut = next(i for i, (_, line) in enumerate(lines) if isinstance(line, MessageLine) and line.id == cut_at)
    first = run(lines[:cut], db=db)
    resumed = run(lines, db=db)
    assert resumed.skipped == cut
    assert resumed.document == result.document
    both = first.transcript + resumed.transcript
    assert len([e for e in both if "Round 2, the votes" in e["content"]]) == 1


def test_selfplay_runs_the_ballot() -> None:
    report = run_selfplay("ballot", games=30, players=4, seed="b")
    assert report.games == 30
    assert report.statuses == {"finished": 30}


def test_votes_at_once_a_timeout_and_shared_wins_in_the_pure_table() -> None:
    open_ = OpenTable(
        game="ballot", number=1, seed="s", member="alice", member_name="alice", game_options='{"rounds": 1}'
    )
    t = lobby.apply(None, open_, T0, lobby.action_rng("s", 1)).table
    t = lobby.apply(t, JoinTable(member="bob", member_name="bob"), T0, lobby.action_rng("s", 2)).table
    step = lobby.apply(t, StartTable(member="alice"), T0, lobby.action_rng("s", 3))
    t = step.table
    assert ENGINE.awaiting(lobby.game_state(t)) == {"alice", "bob"}
    assert [c.key for c in t.clocks] == ["vote:1"]
    assert t.deadline == T0 + timedelta(seconds=10)
    vote = PlayMove(member="bob", action=ENGINE.dump_action(ENGINE.parse_action(lobby.game_state(t), "bob", "vote B")))
    t = lobby.apply(t, vote, T0 + timedelta(seconds=3), lobby.action_rng("s", 4)).table
    assert t.deadline == T0 + timedelta(seconds=10), "a vote does not restart the phase's clock"
    with pytest.raises(lobby.TableError):
        lobby.apply(t, TurnTimeout(key="vote:1"), T0 + timedelta(seconds=9), lobby.action_rng("s", 5))
    step = lobby.apply(t, TurnTimeout(key="vote:1"), T0 + timedelta(seconds=10), lobby.action_rng("s", 5))
    t = step.table
    assert t.status is TableStatus.FINISHED
    assert t.winners == ("bob",)
    assert dict(t.scores) == {"alice": 0, "bob": 1}
    assert t.outcomes == (("bob", "ballot-win", "1"),), "what outlives the table is stored with its end"
    assert all(not s.autopilot and s.timeouts == 0 for s in t.seats), "a phase deadline is no strike"
