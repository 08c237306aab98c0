"""DMs to the bot in the simulator: every answer goes ``to`` its author, never to a ``dm`` channel.

The contract: a ``message`` line with ``"channel": "dm"`` is a DM to the bot; its answers are private
(``to`` the member). What the command does at a table is posted in the table's thread as usual.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bot.sim.replay import ReplayResult, replay
from bot.sim.world import read_line
from games.tables.registry import register, unregister

from .ballot_game import BALLOT

SETUP = {"at": "2026-12-07T09:00:00Z", "type": "setup", "admins": ["mod"]}


@pytest.fixture(scope="module", autouse=True)
def ballot_registered() -> Iterator[None]:
    register(BALLOT)
    yield
    unregister(BALLOT.name)


def msg(mid: str, at: str, channel: str, author: str, content: str) -> dict[str, Any]:
    return {"at": at, "type": "message", "id": mid, "channel": channel, "author": author, "content": content}


def run(*raw: dict[str, Any]) -> ReplayResult:
    lines = [(i, read_line(d)) for i, d in enumerate(raw)]
    return asyncio.run(replay(lines, seed="1"))


def answers(result: ReplayResult, mid: str) -> list[dict[str, Any]]:
    return [e for e in result.transcript if e.get("reply_to") == mid]


def dm(mid: str, second: int, author: str, content: str) -> dict[str, Any]:
    return msg(mid, f"2026-12-07T09:00:{second:02d}Z", "dm", author, content)


REFUSED = [
    dm("d1", 1, "alice", "!vote A"),  # at no table
    dm("d2", 2, "alice", "hello"),  # not a command, at no table
    dm("d3", 3, "alice", "!" + "x" * 3000),  # too long
    msg("b1", "2026-12-07T09:00:04Z", "game-actions", "alice", "!play ballot rounds:1"),
    dm("d4", 5, "alice", "!vote A"),  # the game has not started
    dm("d5", 6, "alice", "!ballot-9 vote A"),  # a table she does not play at
    dm("d6", 7, "alice", "!play ballot"),  # tables open from a channel
    dm("d7", 8, "alice", "!join"),  # seated already
    dm("d8", 9, "alice", "!ai 99"),
    dm("d9", 10, "bob", "!"),
]


def test_a_dm_before_the_round_started_is_answered_to_its_author() -> None:
    result = run(msg("d0", "2026-12-07T08:59:00Z", "dm", "alice", "!vote A"), SETUP)
    (answer,) = answers(result, "d0")
    assert answer.get("to") == "alice"
    assert "channel" not in answer


def test_every_refused_dm_is_answered_privately_to_its_author() -> None:
    result = run(SETUP, *REFUSED)
    assert not [e for e in result.transcript if e.get("channel") == "dm"]
    for line in REFUSED:
        if line["channel"] != "dm":
            continue
        said = answers(result, line["id"])
        assert said, f"{line['id']} got no answer"
        assert all(e.get("to") == line["author"] for e in said), said
        assert any(e["content"].startswith(("Can't do that", "You do not", "There is no")) for e in said), said


def test_an_accepted_dm_command_gets_a_private_answer_and_its_effect_is_public() -> None:
    result = run(
        SETUP,
        msg("b1", "2026-12-07T09:00:01Z", "game-actions", "alice", "!play ballot"),
        msg("b2", "2026-12-07T09:00:02Z", "ballot-1", "bob", "!join"),
        dm("d1", 3, "bob", "!ballot-1 leave"),
    )
    said = answers(result, "d1")
    assert [e.get("to") for e in said] == ["bob"], said
    assert "ballot-1" in said[0]["content"]
    assert any(e.get("channel") == "ballot-1" and "bob leaves the table" in e["content"] for e in result.transcript)


_WORDS = st.sampled_from(
    [
        "!vote",
        "vote",
        "!ballot-1",
        "ballot-1",
        "!ballot-2",
        "A",
        "B",
        "Z",
        "!hand",
        "!board",
        "!join",
        "!leave",
        "!start",
        "!ai",
        "2",
        "!help",
        "!games",
        "!rules",
        "!",
        "",
        "!inventory",
        "weight:2",
        "pledge:B",
        "x" * 40,
        "é",
        "<@1>",
        "@bob",
    ]
)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.tuples(st.sampled_from(["alice", "bob", "carol"]), st.lists(_WORDS, max_size=4)), max_size=6))
def test_no_dm_is_ever_answered_in_a_channel(dms: list[tuple[str, list[str]]]) -> None:
    lines = [
        SETUP,
        msg("b1", "2026-12-07T09:00:01Z", "game-actions", "alice", "!play ballot rounds:1"),
        msg("b2", "2026-12-07T09:00:02Z", "ballot-1", "bob", "!join"),
    ]
    lines += [dm(f"d{i}", 3 + i, author, " ".join(words)) for i, (author, words) in enumerate(dms)]
    result = run(*lines)
    assert not [e for e in result.transcript if e.get("channel") == "dm"]
    for i, (author, words) in enumerate(dms):
        said = answers(result, f"d{i}")
        assert all(e.get("to") == author for e in said), said
        if " ".join(words).strip():
            assert said, f"the DM {' '.join(words)!r} got no answer"
