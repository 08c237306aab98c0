"""A whole ICTC battle in the simulator (``tests/scenarios/table_ictc.jsonl``, ``--seed 7``): two members'
starter decks, a challenge, the cuts, turns typed in the thread, a Flash window that runs out, a hand shown
by DM, an adjustment disputed and upheld by a moderator, an undo both agree to, a concession and the kitty;
the same battle again after a restart at any of several points."""

from __future__ import annotations

import asyncio
import io
import re
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest

from bot.sim.replay import ReplayResult, read_scenario, replay
from bot.sim.world import GUILD, MessageLine
from data.table_store import TableStore
from games.ictc.battle.state import BattleState
from games.ictc.battle.table import zone_of
from games.tables import lobby
from games.tables.lobby import Table

SCENARIO = Path(__file__).parent / "scenarios" / "table_ictc.jsonl"
SEED = "7"


def run(lines: Any = None, **kwargs: Any) -> ReplayResult:
    lines = lines if lines is not None else read_scenario(SCENARIO, io.StringIO())
    return asyncio.run(replay(lines, seed=SEED, **kwargs))


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> tuple[ReplayResult, BattleState]:
    db = tmp_path_factory.mktemp("ictc") / "whole.db"
    result = run(db=db)
    return result, asyncio.run(battle_in(db))


async def battle_in(db: Path) -> BattleState:
    """The battle of ``ictc-1`` as the store holds it."""
    store = await TableStore.open(db)
    try:
        row = await store.table(GUILD, "ictc-1")
        assert row is not None
        return lobby.game_state(Table.model_validate_json(row.body))  # type: ignore[no-any-return]
    finally:
        await store.close()


def thread(result: ReplayResult) -> list[str]:
    return [e["content"] for e in result.transcript if e.get("channel") == "ictc-1"]


def test_the_battle_is_played_to_its_end_and_the_kitty_moves(played: tuple[ReplayResult, BattleState]) -> None:
    result, state = played
    tables = {t["thread"]: t for t in result.document["tables"]}
    assert tables["ictc-1"]["status"] == "finished"
    assert sorted(tables["ictc-1"]["players"]) == ["alice", "bob"]
    challenge = result.document["cards"]["challenges"][0]
    assert challenge["status"] == "over"
    assert challenge["winner"] == "alice"
    assert challenge["kitty"], "bob's cards turned over at the start now belong to alice"
    assert set(challenge["kitty"]) <= set(result.document["cards"]["copies"]["alice"])
    assert state.winner == state.seats.index("alice")
    assert any("The kitty goes to alice" in line for line in thread(result))


def test_the_thread_tells_the_whole_story(played: tuple[ReplayResult, BattleState]) -> None:
    result, _ = played
    said = "\n".join(thread(result))
    closed = [line for line in thread(result) if line.startswith("⌛") and "closes unanswered" in line]
    assert len(closed) == 1, "the window left to run out closed once, when its 30 seconds had passed"
    assert "disputes it: a moderator decides" in said
    assert "Done, as confirmed by the judge" in said
    assert "the battle is back as it stood before `#28`" in said
    assert "bob concedes" in said
    challenge = next(e["content"] for e in result.transcript if "Challenge #1" in e["content"])
    assert "with a deck of 30 cards" in challenge
    assert "your playable decks hold 30 cards" in challenge


def test_hands_go_only_to_their_players_and_no_hidden_card_is_named(
    played: tuple[ReplayResult, BattleState],
) -> None:
    result, state = played
    private = [e for e in result.transcript if "to" in e]
    assert any(e["to"] == "alice" and "You drew 7 cards" in e["content"] for e in private)
    assert any(e["to"] == "bob" and "You drew" in e["content"] for e in private)
    shown = next(e for e in private if e["to"] == "alice" and "Your hand" in e["content"])
    assert shown["reply_to"] == "i17"
    public = "\n".join(e["content"] for e in result.transcript if "to" not in e)
    hidden = [n for n in range(1, len(state.cards) + 1) if zone_of(state, n) in {"hand", "deck"}]
    assert hidden
    for number in hidden:
        assert not re.search(rf"{re.escape(state.name(number))} #{number}\b", public), f"#{number} is hidden"


@pytest.mark.parametrize("cut_at", ["i17", "i27", "i42"])
def test_a_restart_mid_battle_ends_the_same(
    tmp_path: Path, played: tuple[ReplayResult, BattleState], cut_at: str
) -> None:
    """i17: the bot is down while a Flash window's 30 seconds pass; i27: in a dispute; i42: in an undo."""
    result, _ = played
    lines = read_scenario(SCENARIO, io.StringIO())
    db = tmp_path / "cut.db"
    cut = next(i for i, (_, line) in enumerate(lines) if isinstance(line, MessageLine) and line.id == cut_at)
    first = run(lines[:cut], db=db)
    resumed = run(lines, db=db)
    assert resumed.skipped == cut
    assert resumed.document == result.document
    both = first.transcript + resumed.transcript
    assert len([e for e in both if e["content"].startswith("⌛") and "closes unanswered" in e["content"]]) == 1


def test_a_member_with_no_seat_learns_nothing_of_the_hands_by_play(tmp_path: Path) -> None:
    """`!play #N` in the thread from a member who plays no seat is answered alike for every card they cannot
    see, in a hand or in a deck, and for a number the battle does not have (it once read as the first seat's
    move, so only that seat's hand got "you do not play at this table")."""
    lines = read_scenario(SCENARIO, io.StringIO())
    cut = next(i for i, (_, line) in enumerate(lines) if isinstance(line, MessageLine) and line.id == "i8")
    db = tmp_path / "probe.db"
    begun = lines[:cut]
    last = begun[-1][1]
    assert isinstance(last, MessageLine)
    probes = [
        (
            len(lines) + n,
            MessageLine(
                at=last.at + timedelta(milliseconds=n + 1),
                type="message",
                id=f"probe{n}",
                channel="ictc-1",
                author="carol",
                content=f"!play #{n}",
            ),
        )
        for n in range(1, 63)
    ]
    result = run([*begun, *probes], db=db)
    state = asyncio.run(battle_in(db))
    hidden = [n for n in range(1, len(state.cards) + 1) if zone_of(state, n) in {"hand", "deck"}]
    assert any(zone_of(state, n) == "hand" for n in hidden)
    answers: dict[int, list[tuple[str | None, str]]] = {}
    for entry in result.transcript:
        if str(entry.get("reply_to", "")).startswith("probe"):
            n = int(entry["reply_to"].removeprefix("probe"))
            answers.setdefault(n, []).append((entry.get("channel"), entry["content"].replace(f"#{n}", "#N")))
    none = answers[len(state.cards) + 1]
    for n in hidden:
        assert answers[n] == none, f"carol's `!play #{n}` tells that it is in a {zone_of(state, n)}: {answers[n]}"
