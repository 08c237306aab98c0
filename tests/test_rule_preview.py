"""A proposal carrying a rule block is answered with a preview: the last week's log replayed with its rules
in force, compared with what happened (tests/scenarios/rule_preview.jsonl).

The round starts on Saturday 5 December. In its first week alice and bob bid on the only lot and carol and
dave bid on none; bob's urgent proposal fails on Wednesday; alice presents a five of a kind; bob is elected
judge at the week's end. On Monday of the second week four urgent proposals each enact one of the four rules
every round can have, a plain proposal carries none, and one's rule block does not read.
"""

from __future__ import annotations

import asyncio
import io
from datetime import UTC, datetime
from functools import cache
from pathlib import Path

import pytest

from bot.sim.replay import ReplayResult, read_scenario, replay
from bot.sim.world import Line
from data.store import Store
from games.nomic import preview, service
from games.nomic.actions import Propose
from games.nomic.service import read_logged, replay_logged
from games.nomic.state import RoundState
from tests.support import new_round

from .test_governance_replay import answers

SCENARIO = Path(__file__).resolve().parent / "scenarios" / "rule_preview.jsonl"
PROPOSALS = ("pv1", "pv2", "pv3", "pv4")


def lines() -> list[tuple[int, Line]]:
    errors = io.StringIO()
    found = read_scenario(SCENARIO, errors)
    assert errors.getvalue() == ""
    return found


@cache
def run() -> ReplayResult:
    return asyncio.run(replay(lines(), seed="3"))


def previewed(answer: str) -> list[str]:
    """The preview's lines of an answer."""
    said = answer.split("\n")
    return next((said[i:] for i, line in enumerate(said) if line.startswith(("Preview:", "No preview:"))), [])


def test_each_of_the_four_rules_is_previewed_against_the_week_that_happened() -> None:
    result = run()
    found = {m: previewed(answers(result, m)[0]) for m in PROPOSALS}
    assert found["pv1"] == [
        (
            "Preview: had it been in force since Mon 2026-12-07 10:00 UTC (16 logged actions replayed), compared"
            " with what happened:"
        ),
        "- bob +20 points",  # the judge elected at the week's end, paid at the auction's start
    ]
    assert found["pv2"][1:] == ["- carol −10 points", "- dave −10 points"]  # alice and bob bid on lot 1
    assert found["pv3"][1:] == ["- alice +1 Standard Proposal-Maker"]  # her five of a kind
    assert found["pv4"][1:] == ["- bob −5 points"]  # his proposal failed on Wednesday
    pay = answers(result, "pv1")[0].split("\n")
    assert pay[1:4] == [
        "If it passes:",
        "Rule 12.6 “The judge's pay” would be enacted: At the start of each auction phase the judge gains 20 points.",
        "- its mechanics are its rule block's",
    ]
    assert all(len(answers(result, m)[0]) <= 2000 for m in PROPOSALS)


def test_a_proposal_without_a_rule_block_or_refused_has_no_preview() -> None:
    result = run()
    assert previewed(answers(result, "plain")[0]) == []
    (refused,) = answers(result, "bad")
    assert refused.startswith("Can't do that: line 2: the rule block of rule 4.6: rule block, line 1, column 6:")
    assert "Preview" not in refused
    assert [p["message"] for p in result.document["proposals"]][-1] == "plain"


def test_the_preview_is_logged_with_its_proposal_and_a_replay_of_the_log_gives_it_back(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    db = tmp_path / "preview.db"
    result = asyncio.run(replay(lines(), seed="3", db=db))
    said = {m: previewed(answers(result, m)[0]) for m in PROPOSALS}

    def never(*args: object) -> tuple[str, ...]:
        raise AssertionError("a logged proposal's preview is not worked out again")

    monkeypatch.setattr(service, "preview_from_log", never)

    async def from_the_log() -> tuple[list[Propose], RoundState | None]:
        store = await Store.open(db)
        try:
            rows = await store.log("sim")
        finally:
            await store.close()
        state: RoundState | None = None
        for row in rows:
            state = replay_logged("sim", state, row)
        return [a for r in rows if isinstance(a := read_logged(r.body), Propose)], state

    logged, state = asyncio.run(from_the_log())
    by_message = {a.message: a for a in logged}
    assert {m: list(by_message[m].preview or ()) for m in PROPOSALS} == said
    assert by_message["plain"].preview is None
    assert state is not None
    kept = {p.message: list(p.preview) for p in state.proposals.values() if p.message in PROPOSALS}
    assert kept == said


def test_the_same_log_gives_the_same_preview() -> None:
    again = asyncio.run(replay(lines(), seed="3"))
    for message in PROPOSALS:
        assert answers(again, message) == answers(run(), message)


def test_a_log_longer_than_a_preview_may_replay_gets_a_note(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(preview, "BUDGET", 10)
    result = asyncio.run(replay(lines(), seed="3"))
    for message in PROPOSALS:
        assert previewed(answers(result, message)[0]) == [
            "No preview: the round's log is longer than a preview may replay (10 actions)."
        ]


def test_the_preview_names_a_few_players_counts_the_rest_and_says_what_was_refused() -> None:
    names = [f"player{n:02}" for n in range(12)]
    actual = new_round(players=names)
    altered = actual.model_copy(
        update={
            "players": {
                pid: p.model_copy(update={"points": p.points + 5, "spm": 1, "items": {"Gold Star": 2}})
                for pid, p in actual.players.items()
            }
        }
    )
    since = datetime(2026, 12, 7, 10, tzinfo=UTC)
    said = preview.lines(preview.Replayed(since, actual, altered, 40, refused=2))
    assert said[0] == (
        "Preview: had it been in force since Mon 2026-12-07 10:00 UTC (40 logged actions replayed), compared with"
        " what happened:"
    )
    assert said[1] == "- player00 +5 points, +1 Standard Proposal-Maker, +2 Gold Stars"
    named = [line for line in said if line.startswith("- player")]
    assert 0 < len(named) <= preview.SHOWN
    assert said[-2:] == (f"- and {12 - len(named)} more players", "- 2 logged actions would have been refused")
    assert sum(len(line) + 1 for line in said) <= preview.LENGTH
    same = preview.lines(preview.Replayed(since, actual, actual, 3))
    assert same[1] == "- nothing would have changed: its rules would have given or taken nothing from anyone"


async def test_the_web_record_shows_a_proposal_s_preview(tmp_path: Path) -> None:
    from .web_support import read_only_site, render

    db = tmp_path / "preview.db"
    await replay(lines(), seed="3", db=db)
    async with read_only_site(db) as site:
        html, data = await render(site, "/g/sim/proposals/2")
        assert data["preview"][1:] == ["bob +20 points"]
        assert "<h2>Preview</h2>" in html
        assert "<li><bdi>bob +20 points</bdi></li>" in html
        _, plain = await render(site, "/g/sim/proposals/6")
        assert plain["preview"] == []
