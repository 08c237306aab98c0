"""A whole 關你核四 game in the simulator (``tests/scenarios/table_nuclear.jsonl``, ``--seed 7``) and in the
console: alice and three computer seats, her secret moves by DM, a secret move typed in the thread,
a proposal, a negotiation and a reveal window whose time runs out, restarts mid-game, the end."""

from __future__ import annotations

import asyncio
import io
import json
import re
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from bot.sim.console import console
from bot.sim.replay import ReplayResult, read_scenario, replay
from bot.sim.world import GUILD, MessageLine
from data.table_store import TableStore
from games.nuclear.cards import ALL_IDS
from games.nuclear.state import NuclearState
from games.tables import lobby
from games.tables.lobby import Table

SCENARIO = Path(__file__).parent / "scenarios" / "table_nuclear.jsonl"
SEED = "7"
CARD = re.compile(r"(?<![A-Za-z0-9])(P\d\d|A\d\d|G[12])(?![0-9])")


def run(lines: Any = None, **kwargs: Any) -> ReplayResult:
    lines = lines if lines is not None else read_scenario(SCENARIO, io.StringIO())
    return asyncio.run(replay(lines, seed=SEED, **kwargs))


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> tuple[ReplayResult, NuclearState]:
    db = tmp_path_factory.mktemp("nuclear") / "whole.db"
    result = run(db=db)

    async def final() -> NuclearState:
        store = await TableStore.open(db)
        try:
            row = await store.table(GUILD, "nuclear-1")
            assert row is not None
            return lobby.game_state(Table.model_validate_json(row.body))  # type: ignore[no-any-return]
        finally:
            await store.close()

    return result, asyncio.run(final())


def thread(result: ReplayResult) -> list[dict[str, Any]]:
    return [e for e in result.transcript if e.get("channel") == "nuclear-1"]


def said(result: ReplayResult, message: str) -> list[dict[str, Any]]:
    return [e for e in result.transcript if e.get("reply_to") == message]


def test_the_whole_game_is_played_to_its_end(played: tuple[ReplayResult, NuclearState]) -> None:
    result, state = played
    (found,) = result.document["tables"]
    assert found["status"] == "finished"
    assert found["players"] == ["alice"]
    assert found["winners"]
    assert "獲勝" in found["summary"], "the table speaks Traditional Chinese"
    assert state.ending in {"pro", "anti"}
    ended = [e["content"] for e in thread(result) if "**nuclear-1** 結束了" in e["content"] or "【" in e["content"]]
    assert ended, "the end is announced with the scores"


def test_secret_moves_go_by_dm_and_the_thread_learns_only_that_they_were_made(
    played: tuple[ReplayResult, NuclearState],
) -> None:
    result, _ = played
    (refused,) = said(result, "n4")
    assert refused["to"] == "alice"
    assert "秘密行動" in refused["content"]
    assert not [e for e in thread(result) if e["at"] < "2026-12-07T09:00:25Z" and "alice 已投票" in e["content"]]
    answers = said(result, "n5")
    assert any(e.get("to") == "alice" and "你第一輪投出：P20" in e["content"] for e in answers)
    public = [e["content"] for e in thread(result) if e["at"] == "2026-12-07T09:00:25Z"]
    assert public[0].startswith("alice 已投票（3/3）。"), "the last vote: then every card at once"
    line = next(
        ln for _, ln in read_scenario(SCENARIO, io.StringIO()) if isinstance(ln, MessageLine) and " give " in ln.content
    )
    *_, first, second, to = line.content.split()
    gift = said(result, line.id)
    told = [e["content"] for e in gift if e.get("to") == "alice" and "給" in e["content"]]
    assert told, "the giver sees which cards"
    assert first in told[0]
    assert second in told[0]
    announced = [e["content"] for e in thread(result) if e["at"] == gift[0]["at"]]
    assert announced == [f"alice 給了 {to.removeprefix('@')} 2 張牌。"], "the thread learns how many, never which"
    assert not [e for e in announced if first in e or second in e]


def test_no_hidden_card_is_named_in_the_thread(played: tuple[ReplayResult, NuclearState]) -> None:
    result, state = played
    face_up = (
        {c for p in state.passed for c in p} | set(state.discard) | {r.proposal for r in state.history if r.proposal}
    )
    hidden = ({c for h in state.hands for c in h} | set(state.deck) | set(state.removed)) & (set(ALL_IDS) - face_up)
    assert hidden, "some cards were never shown"
    for entry in thread(result):
        assert not set(CARD.findall(entry["content"])) & hidden, entry["content"][:300]


def test_every_deadline_of_the_game_passes_once_at_its_instant(played: tuple[ReplayResult, NuclearState]) -> None:
    result, _ = played
    posts = thread(result)
    talk = [e for e in posts if "⌛ 協商時間到。" in e["content"]]
    assert [e["at"] for e in talk] == ["2026-12-07T09:04:21Z"], "three minutes after the negotiation opened"
    countdown = [e["content"] for e in posts if "等待 alice：還有 3 分鐘" in e["content"]]
    assert countdown
    assert re.search(r"<t:\d+:R>", countdown[0]), "a live countdown in each reader's client"
    window = [e for e in posts if "alice 沒有及時選擇：收回" in e["content"]]
    assert [e["at"] for e in window] == ["2026-12-07T09:01:15Z"], "15 seconds after the count"
    proposal = [e for e in posts if "⌛" in e["content"] and "alice" in e["content"] and "提案" in e["content"]]
    assert proposal, "the speaker's proposal ran out and the computer proposed for her"


@pytest.mark.parametrize("cut_at", ["n17", "n24", "n36"])
def test_a_restart_mid_game_ends_the_same(
    tmp_path: Path, played: tuple[ReplayResult, NuclearState], cut_at: str
) -> None:
    """n17: the bot is down while the negotiation's three minutes pass; n24: in a reveal window;
    n36: in the second vote, before alice places her cards."""
    result, _ = played
    lines = read_scenario(SCENARIO, io.StringIO())
    db = tmp_path / "cut.db"
    cut = next(i for i, (_, line) in enumerate(lines) if isinstance(line, MessageLine) and line.id == cut_at)
    first = run(lines[:cut], db=db)
    resumed = run(lines, db=db)
    assert resumed.skipped == cut
    assert resumed.document == result.document
    both = first.transcript + resumed.transcript
    assert len([e for e in both if "⌛ 協商時間到。" in e["content"]]) == 1


def _console_input() -> tuple[str, datetime]:
    """The scenario as typed in the console: the same members, channels and instants."""
    lines = [json.loads(raw) for raw in SCENARIO.read_text(encoding="utf-8").splitlines() if raw.strip()]
    start = datetime.fromisoformat(lines[0]["at"])
    now = start
    typed = ["/as alice"]
    for data in lines[1:]:
        at = datetime.fromisoformat(data["at"])
        if at > now:
            typed.append(f"/advance {int((at - now).total_seconds())}s")
            now = at
        typed += [f"/in {data['channel']}", data["content"]]
    typed += ["/in game-actions", "/state", "/quit"]
    return "\n".join(typed) + "\n", start.astimezone(UTC)


async def test_the_same_game_runs_in_the_console(played: tuple[ReplayResult, NuclearState]) -> None:
    result, _ = played
    stdin, start = _console_input()
    out = io.StringIO()
    assert await console(seed=SEED, start=start, stdin=io.StringIO(stdin), out=out) == 0
    text = out.getvalue()
    assert "bot (only alice): **nuclear-1**：你第一輪投出：P20" in text
    assert "⌛ 協商時間到。" in text
    start_doc = text.index('{\n  "now"')
    document = json.loads(text[start_doc : text.index("\n}\n", start_doc) + 2])
    (found,) = document["tables"]
    expected = result.document["tables"][0]
    assert found["status"] == "finished"
    assert (found["winners"], found["summary"], found["moves"]) == (
        expected["winners"],
        expected["summary"],
        expected["moves"],
    ), "the console plays exactly the game the replay plays"
