"""No event addressed to some seats ever reaches a public post, a board or another seat's view.

Seeded games of every kind of table (a turn game with gifts, a secret ballot) are played through
the real table transitions, members and AI seats mixed; every step's events go through the one
routing function (``games.tables.posts.route``) and every post is checked.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from games.tables import lobby
from games.tables.engine import audience_of
from games.tables.lobby import JoinTable, Moved, OpenTable, PlayMove, SetAISeats, StartTable, TableStatus
from games.tables.posts import TablePost, members_of, route
from games.tables.registry import get_ai, register, unregister

from .ballot_game import BALLOT

T0 = datetime(2026, 12, 7, 9, 0, tzinfo=UTC)


@pytest.fixture(scope="module", autouse=True)
def ballot_registered() -> Iterator[None]:
    register(BALLOT)
    yield
    unregister(BALLOT.name)


def _check(table: lobby.Table, step: lobby.Step, posts: list[TablePost]) -> int:
    """Every private event goes to its seats' members only; nothing private is in a public post."""
    public = [p.text for p in posts if p.public]
    assert not any("pledge " in p for p in public), "a secret pledge reached the thread"
    checked = 0
    for event in step.events:
        inner = event.events if isinstance(event, Moved) else (event,)
        for e in inner:
            audience = audience_of(e)
            if audience is None:
                continue
            text = e.text(table.lang)
            assert not any(text in p for p in public), f"a private event reached the thread: {text}"
            carrying = [p for p in posts if text in p.text]
            for post in carrying:
                assert post.to, "a private event went out without naming its members"
                assert set(post.to) == set(members_of(step.table, audience))
            checked += 1
    return checked


def play_table(
    game: str, humans: int, ais: int, seed: int, options: str | None = None, *, bring: bool = False
) -> tuple[int, int]:
    """The private events checked and the moves members played (the others were timeouts). ``bring``: every
    member brings a random ballot setup (a public weight, a secret pledge)."""
    rng = random.Random(seed)
    at = T0
    seq = 1
    table = lobby.apply(
        None,
        OpenTable(game=game, number=1, seed=str(seed), member="m0", member_name="m0", game_options=options),
        at,
        lobby.action_rng(str(seed), seq),
    ).table

    def step(action: Any, when: datetime) -> lobby.Step:
        return lobby.apply(table, action, when, lobby.action_rng(table.seed, table.seq + 1))

    checked = played = 0
    for k in range(1 if not bring else 0, humans):
        setup = f'{{"weight": {rng.randint(1, 3)}, "pledge": "{rng.choice("AB")}"}}' if bring else None
        joined = step(JoinTable(member=f"m{k}", member_name=f"m{k}", setup=setup), at)
        table = joined.table
        checked += _check(table, joined, route(table, joined.events, at))
    if ais:
        table = step(SetAISeats(member="m0", count=ais), at).table
    done = step(StartTable(member="m0"), at)
    table = done.table
    checked += _check(table, done, route(table, done.events, at))
    ai = get_ai(game)
    moves = 0
    while table.status is TableStatus.PLAYING and moves < 2000:
        engine = lobby.engine_of(table)
        state = lobby.game_state(table)
        awaited = [s for s in table.seats if s.name in engine.awaiting(state) and s.member is not None]
        at += timedelta(seconds=1)
        if not awaited:
            break
        seat = rng.choice(awaited)
        if rng.random() < 0.05 and table.deadline is not None:
            action: Any = lobby.TurnTimeout(key=table.clocks[0].key)
            at = max(at, table.deadline)
        else:
            move = ai.choose(state, seat.name, rng)
            action = PlayMove(member=seat.member or "", action=engine.dump_action(move))
            played += 1
        done = step(action, at)
        table = done.table
        checked += _check(table, done, route(table, done.events, at))
        moves += 1
    return checked, played


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 10**6), humans=st.integers(2, 4), ais=st.integers(0, 1))
def test_wikipedia_gifts_never_reach_the_thread(seed: int, humans: int, ais: int) -> None:
    play_table("wikipedia", humans, ais, seed)


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 10**6), humans=st.integers(2, 4), ais=st.integers(0, 2))
def test_secret_votes_never_reach_the_thread(seed: int, humans: int, ais: int) -> None:
    checked, played = play_table("ballot", humans, ais, seed, '{"rounds": 3}')
    assert checked >= played, "each vote a member cast told them, privately"


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 10**6), humans=st.integers(2, 4), ais=st.integers(0, 2))
def test_what_a_seat_brings_in_secret_never_reaches_the_thread(seed: int, humans: int, ais: int) -> None:
    checked, _ = play_table("ballot", humans, ais, seed, '{"rounds": 2}', bring=True)
    assert checked >= humans, "each member was told what they bring, privately"


def test_seeded_ballots_carry_private_votes() -> None:
    """The ballot property is not vacuous: members do cast votes, each told them alone."""
    checked, played = zip(*(play_table("ballot", 3, 0, seed, '{"rounds": 3}') for seed in range(4)), strict=True)
    assert sum(played) > 0
    assert sum(checked) >= sum(played)


def test_many_seeded_wikipedia_games_carry_private_gifts() -> None:
    """The property is not vacuous: the seeded games do give cards."""
    total = sum(play_table("wikipedia", 3, 0, seed)[0] for seed in range(6))
    assert total > 0


def test_a_wikipedia_gift_tells_the_thread_who_gave_whom_and_only_the_two_which_card() -> None:
    from games.wikipedia.actions import GiveCard
    from games.wikipedia.engine import ENGINE
    from games.wikipedia.events import CardGiven, GiftSeen

    state = ENGINE.new_game(["ann", "ben", "cat"], None, random.Random(3))
    giver = ENGINE.to_move(state)
    assert giver is not None
    receiver = next(s for s in state.seats if s != giver)
    card = state.hands[state.seats.index(giver)][0]
    _, events = ENGINE.apply(state, giver, GiveCard(card=card, to=receiver), random.Random(0))
    public = [e for e in events if audience_of(e) is None]
    private = [e for e in events if audience_of(e) is not None]
    assert [type(e) for e in public] == [GiftSeen]
    assert public[0].text() == f"{giver} gives {receiver} a card (3 hours left)."
    assert f"#{card}" not in public[0].text()
    assert [type(e) for e in private] == [CardGiven]
    assert audience_of(private[0]) == {giver, receiver}
