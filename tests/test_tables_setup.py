"""What a seat brings to a table (``!join weight:2 pledge:B`` at the test ballot): checked by the game
against the table's options, refused with the reason, stored with the seat, shown to everyone or to
the seat alone as the game says, never typed in the open when it is secret, kept through a restart,
and handed to ``new_game``."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Literal

import pytest
from pydantic import BaseModel, Field

from bot.sim.replay import ReplayResult, replay
from bot.sim.world import Line, read_line
from games.tables import lobby
from games.tables.engine import BadCommandError, EngineDefaults, IllegalActionError
from games.tables.lobby import JoinTable, OpenTable, StartTable, TableError
from games.tables.registry import register, unregister

from .ballot_game import BALLOT, ENGINE, BallotSetup, BallotState

T0 = datetime(2026, 12, 7, 9, 0, tzinfo=UTC)


@pytest.fixture(scope="module", autouse=True)
def ballot_registered() -> Iterator[None]:
    register(BALLOT)
    yield
    unregister(BALLOT.name)


def msg(mid: str, second: int, channel: str, author: str, content: str) -> dict[str, Any]:
    at = f"2026-12-07T09:{second // 60:02d}:{second % 60:02d}Z"
    return {"at": at, "type": "message", "id": mid, "channel": channel, "author": author, "content": content}


RAW: list[dict[str, Any]] = [
    {"at": "2026-12-07T09:00:00Z", "type": "setup", "admins": ["mod"]},
    msg("p1", 1, "game-actions", "alice", "!play ballot rounds:1 pledge:A"),  # a secret typed in a channel
    msg("p2", 2, "game-actions", "alice", "!play ballot rounds:1 weight:3"),
    msg("j1", 3, "ballot-1", "bob", "!join weight:2"),
    msg("j2", 4, "ballot-1", "carol", "!join pledge:B"),  # a secret typed in the thread
    msg("j3", 5, "ballot-1", "carol", "!join weight:9"),
    msg("j4", 6, "ballot-1", "carol", "!join colour:red"),
    msg("j5", 7, "ballot-1", "carol", "!join"),
    msg("j6", 8, "dm", "carol", "!ballot-1 join pledge:Z"),
    msg("j7", 9, "dm", "carol", "!ballot-1 join pledge:a"),
    msg("j8", 10, "ballot-1", "bob", "!board"),
    msg("j9", 11, "ballot-1", "carol", "!hand"),
    msg("s1", 20, "ballot-1", "alice", "!start"),
    msg("h1", 21, "ballot-1", "carol", "!hand"),
    msg("v1", 22, "dm", "alice", "!vote A"),
    msg("v2", 23, "dm", "bob", "!vote B"),
    msg("v3", 24, "dm", "carol", "!vote A"),
]


def lines() -> list[tuple[int, Line]]:
    return [(i, read_line(d)) for i, d in enumerate(RAW)]


def run(part: list[tuple[int, Line]] | None = None, **kwargs: Any) -> ReplayResult:
    return asyncio.run(replay(part if part is not None else lines(), seed="3", **kwargs))


@pytest.fixture(scope="module")
def result(ballot_registered: None) -> ReplayResult:
    return run()


def said(result: ReplayResult, mid: str) -> list[dict[str, Any]]:
    return [e for e in result.transcript if e.get("reply_to") == mid]


def public(result: ReplayResult) -> list[str]:
    return [e["content"] for e in result.transcript if "to" not in e]


def test_what_everyone_may_know_is_public_and_the_rest_goes_to_the_seat_alone(result: ReplayResult) -> None:
    opened = next(e["content"] for e in result.transcript if e.get("channel") == "ballot-1")
    assert "What the seats bring: alice weight 3." in opened
    assert any(e.get("to") == "alice" and "You bring weight 3" in e["content"] for e in result.transcript)
    answers = said(result, "j1")
    assert [e["content"] for e in answers if "channel" in e] == [
        "bob sits down, bringing weight 2. Seated (2 of 6): alice, bob."
    ]
    assert [e["to"] for e in answers if "to" in e] == ["bob"]
    carol = said(result, "j7")
    assert {e.get("to") for e in carol} == {"carol"}, "changing a secret says nothing in the thread"
    assert any("You bring weight 1, pledge A" in e["content"] for e in carol)
    board = said(result, "j8")[0]["content"]
    assert "What the seats bring: alice weight 3, bob weight 2." in board
    (hand,) = said(result, "j9")
    assert hand["to"] == "carol"
    assert "you bring weight 1, pledge A" in hand["content"], "`!hand` in the lobby shows what the seat brings"


def test_a_secret_is_never_typed_in_the_open(result: ReplayResult) -> None:
    for mid, where in (("p1", "channel"), ("j2", "thread")):
        (refusal,) = said(result, mid)
        assert "to" in refusal, f"a refused secret {where} setup is answered privately"
        assert "secret" in refusal["content"]
    assert "ballot-1" in said(result, "j2")[0]["content"], "the pointer names the table"
    tables = {t["thread"]: t for t in result.document["tables"]}
    assert set(tables) == {"ballot-1"}, "the refused !play opened nothing"
    assert not any(f"pledge {c}" in text.casefold() for text in public(result) for c in "ab")


def test_the_game_checks_what_a_seat_brings_and_says_why_not(result: ReplayResult) -> None:
    assert said(result, "j3")[0]["content"] == (
        "Can't do that: `weight:9` is not valid: it must be a whole number from 1 to 3."
    )
    assert (
        "`colour:red` is not something to bring to Secret ballot; you may bring `weight:…`, `pledge:…`"
        in (said(result, "j4")[0]["content"])
    )
    refused = said(result, "j6")[0]
    assert refused["to"] == "carol"
    assert refused["content"] == "Can't do that: you can only pledge to one of the choices A, B, C, not Z."


def test_new_game_gets_what_each_seat_brought(result: ReplayResult) -> None:
    (hand,) = said(result, "h1")
    assert "Your secret pledge: A." in hand["content"]
    assert hand["to"] == "carol"
    weights = [text for text in public(result) if "Weights:" in text]
    assert weights
    assert "alice 3" in weights[0]
    assert "bob 2" in weights[0], "the board shows the weights"
    (reveal,) = [text for text in public(result) if "Round 1, the votes" in text]
    assert "alice A ×3" in reveal
    assert "bob B ×2" in reveal
    assert "Most votes: A." in reveal, "A has 3 + 1 votes against B's 2"
    (ballot,) = result.document["tables"]
    assert ballot["winners"] == ["carol"], "carol's pledge to A won her a bonus point"


@pytest.mark.parametrize("cut_at", ["j8", "s1"])
def test_what_a_seat_brings_survives_a_restart(tmp_path: Path, result: ReplayResult, cut_at: str) -> None:
    every = lines()
    db = tmp_path / "setup.db"
    cut = next(i for i, (_, line) in enumerate(every) if getattr(line, "id", None) == cut_at)
    run(every[:cut], db=db)
    resumed = run(every, db=db)
    assert resumed.skipped == cut
    assert resumed.document == result.document
    assert any("alice A ×3" in e["content"] for e in resumed.transcript)


def test_the_pure_table_checks_stores_and_deals_what_seats_bring() -> None:
    def step(table: Any, action: Any, seq: int) -> Any:
        return lobby.apply(table, action, T0, lobby.action_rng("s", seq)).table

    options = '{"rounds": 1, "choices": "XY"}'
    opened = OpenTable(game="ballot", number=1, seed="s", member="ann", member_name="ann", game_options=options)
    t = step(None, opened, 1)
    with pytest.raises(IllegalActionError, match="one of the choices X, Y, not A"):
        step(t, JoinTable(member="ben", member_name="ben", setup='{"pledge": "A"}'), 2)
    with pytest.raises(BadCommandError):
        step(t, JoinTable(member="ben", member_name="ben", setup='{"weight": 0}'), 2)
    t = step(t, JoinTable(member="ben", member_name="ben", setup='{"weight": 2, "pledge": "y"}'), 2)
    stored = t.seat_named("ben")
    assert stored is not None
    assert BallotSetup.model_validate_json(stored.setup or "") == BallotSetup(weight=2, pledge="Y")
    assert lobby.Table.model_validate_json(t.model_dump_json()) == t
    t = step(t, StartTable(member="ann"), 3)
    with pytest.raises(TableError):
        step(t, JoinTable(member="ben", member_name="ben", setup='{"weight": 3}'), 4)
    state = lobby.game_state(t)
    assert isinstance(state, BallotState)
    i = state.seats.index("ben")
    assert (state.weight(i), state.pledge(i)) == (2, "Y")
    assert state.weight(state.seats.index("ann")) == 1
    assert "Your secret pledge: Y." in ENGINE.private_view(state, "ben")
    assert "Y" not in ENGINE.public_view(state).split("Choices:")[0], "the public view names no pledge"


def test_a_games_default_join_form_follows_its_setup_model() -> None:
    """A game that only declares a ``setup_model`` gets a menu for a choice or a switch, a box otherwise."""

    class Stance(BaseModel):
        stance: Literal["hawk", "dove"] = Field("dove", description="your stance")
        bold: bool = False
        deck: str = Field(description="the deck you bring")

    class Plain(EngineDefaults):
        setup_model = Stance

    form = Plain().join_form(None, "en")
    assert [(f.key, f.label, f.choices, f.required, f.placeholder) for f in form] == [
        ("stance", "your stance", (("hawk", "hawk"), ("dove", "dove")), False, "dove"),
        ("bold", "bold", (("on", "on"), ("off", "off")), False, "off"),
        ("deck", "the deck you bring", (), True, ""),
    ]
    shown = Plain().describe_setup(Stance(stance="hawk", deck="red"), "en")
    assert shown.public is None, "by default what a seat brings is for its eyes only"
    assert shown.private == "stance:hawk bold:off deck:red"
    assert EngineDefaults().join_form(None, "en") == (), "a game that takes nothing has no form"
