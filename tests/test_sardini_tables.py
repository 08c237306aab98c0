"""The Sardini game at a table of the framework: a late turn does what the game says (a Draw, giving up),
the lobby suggests a cap on Draws, and no card in anyone's hand ever reaches a public post."""

from __future__ import annotations

import io
import random
import re
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bot.sim.console import console
from bot.sim.replay import read_scenario, replay
from games.sardini.cards import CODES, mask
from games.sardini.events import CardsDrawn
from games.sardini.state import Phase, SardiniState
from games.tables import lobby
from games.tables.engine import BadCommandError, audience_of
from games.tables.lobby import (
    JoinTable,
    Moved,
    OpenTable,
    PlayMove,
    SetAISeats,
    StartTable,
    TableStatus,
    TimedOut,
    TurnTimeout,
)
from games.tables.options import parse_play
from games.tables.posts import TablePost, members_of, route
from games.tables.registry import get_ai

T0 = datetime(2026, 12, 7, 9, 0, tzinfo=UTC)
SCENARIO = Path(__file__).parent / "scenarios" / "table_sardini.jsonl"
CARD = re.compile(r"\b(?:10|[1-9])[WHSK]\b")


def opened(humans: int, ais: int = 0, options: str | None = None, seed: str = "s") -> lobby.Table:
    table = lobby.apply(
        None,
        OpenTable(game="sardini", number=1, seed=seed, member="m0", member_name="m0", game_options=options),
        T0,
        lobby.action_rng(seed, 1),
    ).table
    for k in range(1, humans):
        table = step(table, JoinTable(member=f"m{k}", member_name=f"m{k}")).table
    if ais:
        table = step(table, SetAISeats(member="m0", count=ais)).table
    return table


def step(table: lobby.Table, action: Any, at: datetime = T0) -> lobby.Step:
    return lobby.apply(table, action, at, lobby.action_rng(table.seed, table.seq + 1))


def state_of(table: lobby.Table) -> SardiniState:
    found = lobby.game_state(table)
    assert isinstance(found, SardiniState)
    return found


def public_cards(state: SardiniState) -> set[str]:
    """Cards everyone has seen: shown Tricks, piles, out of play, the attempt's played cards."""
    seen = mask(state.shown) | mask(state.out)
    for pile in state.piles:
        seen |= mask(pile)
    if state.attempt is not None:
        seen |= mask(state.attempt.played())
    return {CODES[c] for c in range(40) if seen >> c & 1}


def check_posts(table: lobby.Table, done: lobby.Step, posts: list[TablePost], shown: set[str]) -> int:
    """Every card a public post names is public; drawn cards go to the drawer's member alone."""
    private = 0
    for post in posts:
        if post.public:
            named = set(CARD.findall(post.text))
            assert named <= shown, f"a hidden card reached the thread: {named - shown} in {post.text!r}"
    for event in done.events:
        for inner in event.events if isinstance(event, Moved) else (event,):
            if isinstance(inner, CardsDrawn):
                members = members_of(done.table, audience_of(inner) or frozenset())
                carrying = [p for p in posts if inner.text() in p.text]
                assert bool(carrying) == bool(members), "told to the drawer's member; an AI seat is told nothing"
                for post in carrying:
                    assert not post.public
                    assert set(post.to) == set(members)
                private += bool(members)
    return private


def play(humans: int, ais: int, seed: int, options: str | None = None) -> tuple[int, int]:
    """A seeded game of members and AI seats through the table transitions, with some turns left to run out."""
    rng = random.Random(seed)
    table = opened(humans, ais, options, seed=str(seed))
    done = step(table, StartTable(member="m0"))
    table = done.table
    at = T0
    drawn = check_posts(table, done, route(table, done.events, at), public_cards(state_of(table)))
    ai = get_ai("sardini")
    moves = 0
    while table.status is TableStatus.PLAYING and moves < 500:
        state = state_of(table)
        engine = lobby.engine_of(table)
        seat = table.seat_named(state.seats[state.current])
        assert seat is not None
        at += timedelta(minutes=1)
        if seat.member is None or seat.autopilot:
            break  # the AI moves at once; nobody is awaited here
        if rng.random() < 0.08 and table.deadline is not None:
            at = max(at, table.deadline)
            action: Any = TurnTimeout(key=table.clocks[0].key)
        else:
            chosen = ai.choose(state, seat.name, rng)
            action = PlayMove(member=seat.member, action=engine.dump_action(chosen))
        done = step(table, action, at)
        table = done.table
        drawn += check_posts(table, done, route(table, done.events, at), public_cards(state_of(table)))
        moves += 1
    return drawn, moves


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 10**6), humans=st.integers(2, 4), ais=st.integers(0, 2))
def test_no_card_in_a_hand_ever_reaches_a_public_post(seed: int, humans: int, ais: int) -> None:
    play(humans, ais, seed)


def test_the_seeded_games_do_draw_cards_privately() -> None:
    drawn = sum(play(3, 1, seed)[0] for seed in range(5))
    assert drawn > 10, "the property is not vacuous"


def test_a_late_turn_without_an_attempt_is_a_draw_not_the_ais_choice() -> None:
    table = step(opened(2), StartTable(member="m0")).table
    state = state_of(table)
    mover = state.seats[state.current]
    clock = table.clocks[0]
    assert clock.kind == "turn"
    assert clock.seat == mover
    done = step(table, TurnTimeout(key=clock.key), clock.deadline)
    after = state_of(done.table)
    assert len(after.hands[state.current]) == 1, "the late turn was a Draw of one card"
    said = "\n".join(e.text() for e in done.events if audience_of(e) is None)
    assert f"⌛ Time is up for {mover} (1 in a row so far); the game says what that turn does:" in said
    assert f"{mover} had begun no attempt, so the turn is a Draw: {mover} draws 1 card" in said
    assert "the AI plays this turn" not in said
    timed = [e for e in done.events if isinstance(e, TimedOut)]
    assert timed[0].handled
    assert done.table.seat_named(mover) is not None
    assert after.seats[after.current] != mover


def test_a_late_turn_in_the_middle_of_an_attempt_is_giving_up() -> None:
    table = step(opened(3, options='{"starting_hand": 5}'), StartTable(member="m0")).table
    state = state_of(table)
    mover = table.seat_named(state.seats[state.current])
    assert mover is not None
    assert mover.member is not None
    engine = lobby.engine_of(table)
    attempt = next(a for a in engine.legal_actions(state, mover.name) if a.kind == "attempt")
    table = step(table, PlayMove(member=mover.member, action=engine.dump_action(attempt))).table
    during = state_of(table)
    if during.phase is not Phase.ATTEMPT:
        return  # eliminated at once: nothing is left to time out (the seed makes this rare)
    clock = table.clocks[0]
    done = step(table, TurnTimeout(key=clock.key), clock.deadline)
    after = state_of(done.table)
    assert not after.alive[during.current]
    said = "\n".join(e.text() for e in done.events if audience_of(e) is None)
    assert "time ran out in the middle of" in said


def test_the_lobby_suggests_a_cap_on_draws_from_four_seats() -> None:
    table = opened(3)
    joined = step(table, JoinTable(member="m3", member_name="m3"))
    said = "\n".join(e.text() for e in joined.events)
    assert "consider `draw_cap:4`" in said
    again = step(joined.table, SetAISeats(member="m0", count=1))
    assert "draw_cap" not in "\n".join(e.text() for e in again.events), "said once, when the size got there"
    assert "draw_cap:4" in lobby.board_text(again.table)
    capped = opened(3, options='{"draw_cap": 4}')
    assert "consider" not in "\n".join(e.text() for e in step(capped, JoinTable(member="m9", member_name="m9")).events)


async def test_a_game_in_the_console_names_no_drawn_card_in_the_thread() -> None:
    lines = ["!play sardini ai:1 starting_hand:3", "/in sardini-1", "!start", "!draw", "!hand", "!draw"]
    lines += ["!attempt T1", "!hand", "!giveup", "/state"]
    out = io.StringIO()
    start = datetime(2026, 12, 5, 12, tzinfo=UTC)
    assert await console(seed="s", start=start, stdin=io.StringIO("\n".join(lines) + "\n"), out=out) == 0
    said = out.getvalue()
    drawn: set[str] = set()
    public = 0
    for block in said.split("\n  bot "):
        where, _, body = block.partition(": ")
        if where.startswith("(only you)"):
            for line in body.splitlines():
                if "You drew" in line:
                    drawn |= set(CARD.findall(line))
            continue
        if not where.startswith("#sardini-1"):
            continue
        for line in body.splitlines():
            named = set(CARD.findall(line)) & drawn
            face_up = any(word in line for word in ("meets Move", "out of play", "Out of play", "done with"))
            assert not named or face_up, f"a drawn card in the thread: {line}"
            public += 1
    assert drawn, "the session drew cards"
    assert public > 10
    assert '"status": "finished"' in said


async def test_the_replayed_scenario_tells_drawn_cards_to_their_drawers_and_runs_late_turns_by_the_rules() -> None:
    lines = read_scenario(SCENARIO, io.StringIO())
    result = await replay(lines, seed="7")
    drawn: set[str] = set()
    for entry in result.transcript:
        content = str(entry["content"])
        if "You drew" in content:
            assert "to" in entry, "a drawn card is told to its drawer alone"
            assert "channel" not in entry
            drawn |= set(CARD.findall(content))
    assert drawn
    for entry in result.transcript:
        if "channel" not in entry:
            continue
        for line in str(entry["content"]).splitlines():
            named = set(CARD.findall(line)) & drawn
            assert not named or "out of play" in line.casefold() or "meets Move" in line, line
    said = "\n".join(str(e["content"]) for e in result.transcript if "channel" in e)
    assert "after that you give up the attempt and are eliminated." in said
    assert "carol's time ran out in the middle of Linking Rings" in said
    assert "after that your turn is a Draw." in said
    assert "alice had begun no attempt, so the turn is a Draw" in said
    dm = [e for e in result.transcript if e.get("reply_to") == "s7"]
    assert dm
    assert all(e.get("to") == "carol" for e in dm), "a draw sent by DM is answered privately"
    tables = result.document["tables"]
    assert isinstance(tables, list)
    assert tables[0]["game"] == "sardini"


async def test_a_hand_that_meets_no_move_is_asked_to_confirm_and_the_final_board_says_the_end_once() -> None:
    """The deal of seed ``s`` gives `you` 1W with Smoke and Mirrors (2 Smoke; a pair) on show."""
    lines = ["!play sardini ai:1 starting_hand:1", "/in sardini-1", "!start", "!hand", "!attempt T1"]
    lines += ["!attempt T1 confirm", "!board"]
    out = io.StringIO()
    start = datetime(2026, 12, 5, 12, tzinfo=UTC)
    assert await console(seed="s", start=start, stdin=io.StringIO("\n".join(lines) + "\n"), out=out) == 0
    answers = re.split(r"\(message c\d+\)", out.getvalue())[-4:]
    hand, refused, confirmed, board = answers
    assert "Your hand (1 card): 1W" in hand
    assert "T1 Smoke and Mirrors: ✗ 2 Smoke · ✗ 2 cards of the same rank" in hand
    assert "your hand can meet none of the Moves of T1" in refused
    assert "`!attempt T1 confirm`" in refused
    assert "eliminated" not in refused, "refused: nothing happened"
    assert "you can meet none of the Moves left of Smoke and Mirrors" in confirmed
    assert board.count("the last one standing, wins") == 1, board


@pytest.mark.parametrize(
    ("word", "said"),
    [
        ("tricks:0", "`tricks:0` is not valid: it must be a whole number from 1 to 7, or `none`"),
        ("tricks:abc", "`tricks:abc` is not valid: it must be a whole number from 1 to 7, or `none`"),
        ("starting_hand:9", "`starting_hand:9` is not valid: it must be a whole number from 0 to 5"),
        ("failed_trick:x", "`failed_trick:x` is not valid: it must be one of `stays`, `out`"),
        ("draw_after_last:maybe", "`draw_after_last:maybe` is not valid: it must be `on` or `off`"),
    ],
)
def test_a_bad_option_is_refused_with_what_it_takes(word: str, said: str) -> None:
    with pytest.raises(BadCommandError) as refused:
        parse_play(["sardini", word])
    assert str(refused.value) == said
    assert "Input should" not in str(refused.value)
