"""Holding changes applied in one batch equal the same changes applied one at a time.

``HoldingChanges`` copies the players and lots once however many changes a tick makes. The
oracle below is the one-change-one-copy code it replaced, kept verbatim in spirit: every change
a new state, every loss of points a look at the player's bids. Placements, which pay every
player at once, are compared with the old loop built on that oracle.
"""

from __future__ import annotations

import bisect
import contextlib
import random
import sys

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from games.nomic import engine
from games.nomic.actions import AdminLot, AdminSet, PlaceBid, PresentHand
from games.nomic.cards import Card, Suit, remove_cards, sort_cards
from games.nomic.common import HoldingChanges, Transition, change_holding, invalidate_bids, shortfall
from games.nomic.errors import InsufficientError, RuleError
from games.nomic.events import BidsInvalidated, Event, PlacementsMade
from games.nomic.items import Items
from games.nomic.phases import Phase
from games.nomic.presenting import make_placements
from games.nomic.rulelang.effects import apply_effects
from games.nomic.rulelang.program import POINTS, SPM
from games.nomic.rulelang.run import Change, Effect, Transfer
from games.nomic.ruleset import Ruleset
from games.nomic.state import PlacementRecord, RoundState
from tests.support import AUC, MOD, MONDAY, apply, ctx, give, new_round
from tests.test_hands import places_by_comparing_ranks

NAMES = ["ann", "ben", "cat", "dan"]

# --- the oracle: one change, one new state ------------------------------------------------------


def one_change(
    state: RoundState, player_id: str, *, add: Items | None = None, remove: Items | None = None, reason: str
) -> Transition:
    player = state.players[player_id]
    points, spm, cards = player.points, player.spm, player.cards
    if remove is not None:
        if shortfall(player, remove):
            raise InsufficientError(f"{player.name} lacks {shortfall(player, remove)}")
        points -= remove.points
        spm -= remove.spm
        cards = remove_cards(cards, remove.cards)
    if add is not None:
        points += add.points
        spm += add.spm
        cards = sort_cards((*cards, *add.cards))
    updated = player.model_copy(update={"points": points, "spm": spm, "cards": cards})
    state = state.model_copy(update={"players": {**state.players, player_id: updated}})
    if points < player.points:
        return one_lapse(state, player_id, reason)
    return Transition(state)


def one_lapse(state: RoundState, player_id: str, reason: str, *, all_bids: bool = False) -> Transition:
    player = state.players.get(player_id)
    points = player.points if player is not None and not all_bids else -1
    if player is not None and not all_bids and (state.ruleset.auction.revive_bids or player.bid_ceiling <= points):
        return Transition(state)
    lost: list[tuple[int, int]] = []
    lots = dict(state.lots)
    for number, lot in state.lots.items():
        start = bisect.bisect_right(lot.bids, points, key=lambda b: b.amount)
        doomed = {b.id for b in lot.bids[start:] if b.player == player_id}
        if not doomed:
            continue
        lost.extend((number, b.amount) for b in lot.bids[start:] if b.id in doomed)
        lots[number] = lot.lapse(doomed, name=player.name if player is not None else player_id, reason=reason)
    players = state.players
    if player is not None and player.bid_ceiling > max(points, 0):
        players = {**players, player_id: player.model_copy(update={"bid_ceiling": max(points, 0)})}
    if not lost:
        return Transition(state.model_copy(update={"players": players}) if players is not state.players else state)
    name = player.name if player is not None else player_id
    event = BidsInvalidated(name=name, bids=tuple(sorted(lost)), reason=reason)
    return Transition(state.model_copy(update={"lots": lots, "players": players}), (event,))


def one_by_one_placements(state: RoundState, rng: random.Random) -> Transition:
    """Placements as they were: every hand ranked from its cards under the options in force (scores
    kept with the hands are not read), ranks themselves sorted, a new players map for every player
    placed."""
    options = state.ruleset.hands
    hands = {pid: h.cards for pid, h in state.hands.items() if pid in state.players}
    placements = places_by_comparing_ranks(
        hands, rng, wrap=options.wrap_around_straights, poker=options.poker_kickers
    )
    events: list[Event] = []
    records: list[PlacementRecord] = []
    for placement in placements:
        index = placement.place - 1
        points = options.prize_points[index] if index < len(options.prize_points) else 0
        spm = options.prize_proposal_makers[index] if index < len(options.prize_proposal_makers) else 0
        returned = placement.place >= options.return_cards_from_place
        prize = Items(points=points, spm=spm, cards=hands[placement.player] if returned else ())
        step = one_change(state, placement.player, add=prize, reason="placements")
        state = step.state
        events.extend(step.events)
        tied = [q.place for q in placements if q.rank == placement.rank]
        records.append(
            PlacementRecord(
                place=placement.place,
                player=placement.player,
                name=state.players[placement.player].name,
                cards=hands[placement.player],
                category=placement.rank.category.label,
                coin_toss=placement.coin_toss,
                prize=Items(points=points, spm=spm),
                cards_returned=returned,
                tie=(min(tied), max(tied)) if placement.coin_toss else None,
            )
        )
    state = state.model_copy(update={"hands": {}, "presenting_open": False, "last_placements": tuple(records)})
    return Transition(state, (PlacementsMade(tuple(records)), *events))


# --- strategies ---------------------------------------------------------------------------------

_cards = st.lists(st.builds(Card, st.integers(1, 4), st.sampled_from([Suit.SPADES, Suit.HEARTS])), max_size=4).map(
    tuple
)
"""A few cards from a small pool, so that removals often find what they take."""
_items = st.builds(Items, points=st.integers(0, 40), cards=_cards, spm=st.integers(0, 1))


@st.composite
def auctions(draw: st.DrawFn) -> RoundState:
    """Four players with points, cards and items, and bids on three lots placed through the rules."""
    revive = draw(st.booleans())
    state = new_round(players=NAMES, ruleset=Ruleset().with_option("auction.revive_bids", str(revive).lower()))
    for name in NAMES:
        hand = " ".join(c.code for c in draw(_cards))
        state = give(state, name, points=draw(st.integers(0, 60)), spm=draw(st.integers(0, 2)), hand=hand)
    for _ in range(3):
        state = apply(state, MOD, AdminLot(cards=(Card(1, Suit.SPADES), Card(13, Suit.HEARTS))))
    for _ in range(draw(st.integers(0, 14))):
        bid = PlaceBid(lot=draw(st.integers(1, 3)), amount=draw(st.integers(1, 60)))
        with contextlib.suppress(RuleError):  # an unaffordable or too low bid is refused
            state = apply(state, draw(st.sampled_from(NAMES)), bid, AUC)
    return state


_player = st.sampled_from(NAMES)
_step = st.one_of(
    st.tuples(st.just("change"), _player, st.none() | _items, st.none() | _items),
    st.tuples(st.just("grant"), _player, _items),
    st.tuples(st.just("lapse"), st.sampled_from([*NAMES, "gone"]), st.booleans()),
)


def _one_step(state: RoundState, step: tuple) -> Transition:
    kind, who, *rest = step
    if kind == "change":
        return one_change(state, who, add=rest[0], remove=rest[1], reason=f"step {kind}")
    if kind == "grant":
        return one_change(state, who, add=rest[0], reason=f"step {kind}")
    return one_lapse(state, who, f"step {kind}", all_bids=rest[0])


def _batch_step(changes: HoldingChanges, step: tuple) -> None:
    kind, who, *rest = step
    if kind == "change":
        changes.change(who, add=rest[0], remove=rest[1], reason=f"step {kind}")
    elif kind == "grant":
        changes.grant(who, points=rest[0].points, spm=rest[0].spm, cards=rest[0].cards)
    else:
        changes.lapse_bids(who, f"step {kind}", all_bids=rest[0])


# --- properties ---------------------------------------------------------------------------------


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(auctions(), st.lists(_step, max_size=12))
def test_a_batch_equals_its_changes_one_at_a_time(state: RoundState, steps: list[tuple]) -> None:
    before = state.model_copy(deep=True)
    expected, events, failed_at = state, [], None
    for n, step in enumerate(steps):
        try:
            one = _one_step(expected, step)
        except InsufficientError:
            failed_at = n
            break
        expected = one.state
        events.extend(one.events)

    changes = HoldingChanges(state)
    for n, step in enumerate(steps):
        if n == failed_at:
            with pytest.raises(InsufficientError):
                _batch_step(changes, step)
            break
        _batch_step(changes, step)
    else:
        result = changes.transition()
        assert result.state == expected
        assert list(result.events) == events
        if expected is state:
            assert result.state is state  # nothing changed: the very same state, so nothing is logged
    assert state == before  # the batch worked on copies


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(auctions(), st.lists(_step, max_size=6))
def test_single_change_helpers_equal_the_oracle(state: RoundState, steps: list[tuple]) -> None:
    for step in steps:
        kind, who, *rest = step
        try:
            expected = _one_step(state, step)
        except InsufficientError:
            with pytest.raises(InsufficientError):
                change_holding(state, who, add=rest[0], remove=rest[1], reason=f"step {kind}")
            return
        if kind == "change":
            got = change_holding(state, who, add=rest[0], remove=rest[1], reason=f"step {kind}")
        elif kind == "grant":
            got = change_holding(state, who, add=rest[0], reason=f"step {kind}")
        else:
            got = invalidate_bids(state, who, f"step {kind}", all_bids=rest[0])
        assert got.state == expected.state
        assert got.events == expected.events
        assert (got.state is state) == (expected.state is state)
        state = got.state


def test_revive_turned_off_lapses_every_unaffordable_bid_as_one_by_one_would() -> None:
    rules = Ruleset().with_option("auction.revive_bids", "true")
    state = new_round(players=NAMES, ruleset=rules)
    for n, name in enumerate(NAMES):
        state = give(state, name, points=50 + n)
        state = apply(state, MOD, AdminLot(cards=(Card(1, Suit.SPADES), Card(2, Suit.SPADES))))
    for n, name in enumerate(NAMES):
        state = apply(state, name, PlaceBid(lot=n + 1, amount=40 + n), AUC)
    for name in NAMES[:3]:
        state = one_change(state, name, remove=Items(points=20), reason="set-up").state  # bids now unaffordable
    expected = state.model_copy(update={"ruleset": Ruleset()})  # revive off, as the change makes it
    expected_events: list[Event] = []
    for name in sorted(state.players):
        step = one_lapse(expected, name, "bids no longer revive")
        expected = step.state
        expected_events.extend(step.events)
    step = engine.apply(state, ctx(MOD), AdminSet(option="auction.revive_bids", value="false"), random.Random(0))
    assert step.state.lots == expected.lots
    assert step.state.players == expected.players
    assert [e for e in step.events if isinstance(e, BidsInvalidated)] == expected_events
    assert {lot.number for lot in step.state.lots.values() if lot.bids} == {4}
    assert len(expected_events) == 3


_POOL = [Card(r, s) for r in (1, 2, 3, 12, 13) for s in (Suit.SPADES, Suit.CLUBS)]
_TELLING = [
    "QS KC AS 2C 3S",  # a straight only with wrap-around
    "AS 2C 2S 3C QS",  # a pair of twos with an ace: above kings card by card, below them with poker kickers
    "KS KC QS 3C 2S",
    "KC KS QC 3S 2C",  # ties the hand above with poker kickers only
]
"""Hands that each ranking option orders differently; random draws from the pool seldom make them."""
_OPTIONS = ["hands.poker_kickers", "hands.wrap_around_straights"]
_hand = st.one_of(
    st.lists(st.sampled_from(_POOL), min_size=5, max_size=5).map(tuple),
    st.sampled_from(_TELLING).map(lambda text: tuple(Card.parse(c) for c in text.split())),
)


@st.composite
def bartering(draw: st.DrawFn) -> RoundState:
    """Players who present hands (some identical, so that coin tosses happen) under varied prizes.

    A moderator may change the ranking options between presentations, so that hands are kept with
    scores made under other options than those in force at placements; and some hands may come
    from an older snapshot, without a score at all.
    """
    prizes = draw(st.lists(st.integers(0, 30), max_size=5))
    makers = draw(st.lists(st.integers(0, 2), max_size=3))
    rules = (
        Ruleset()
        .with_option("hands.prize_points", f"[{','.join(map(str, prizes))}]")
        .with_option("hands.prize_proposal_makers", f"[{','.join(map(str, makers))}]")
        .with_option("hands.return_cards_from_place", str(draw(st.integers(1, 7))))
        .with_option("hands.poker_kickers", str(draw(st.booleans())).lower())
        .with_option("hands.wrap_around_straights", str(draw(st.booleans())).lower())
    )
    names = [f"p{i}" for i in range(draw(st.integers(0, 9)))]
    state = new_round(Phase.BARTERING, players=names, ruleset=rules)
    shared = draw(_hand)
    for name in names:
        hand = shared if draw(st.booleans()) else draw(_hand)
        extra = " ".join(c.code for c in draw(st.lists(st.sampled_from(_POOL), max_size=2)))
        state = give(state, name, points=draw(st.integers(0, 5)), hand=" ".join(c.code for c in hand) + " " + extra)
        if draw(st.booleans()):
            state = apply(state, name, PresentHand(cards=hand))
        if draw(st.integers(0, 3)) == 0:
            option, value = draw(st.sampled_from(_OPTIONS)), draw(st.booleans())
            state = apply(state, MOD, AdminSet(option=option, value=str(value).lower()))
    if state.hands and draw(st.booleans()):
        # as a snapshot written before scores were kept holds them
        data = state.model_dump(mode="json")
        for player in draw(st.sets(st.sampled_from(sorted(data["hands"])))):
            del data["hands"][player]["score"], data["hands"][player]["ranked_under"]
        state = RoundState.model_validate(data)
    return state


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(bartering(), st.integers(0, 2**32))
def test_placements_equal_the_one_by_one_placements(state: RoundState, seed: int) -> None:
    expected = one_by_one_placements(state, random.Random(seed))
    got = make_placements(state, random.Random(seed))
    assert got.state == expected.state
    assert got.events == expected.events


def test_a_state_taken_mid_batch_stays_as_it_was() -> None:
    state = give(new_round(players=NAMES), "ann", points=10)
    changes = HoldingChanges(state)
    assert changes.state() is state
    changes.grant("ann", points=5)
    middle = changes.state()
    changes.grant("ann", points=7)
    changes.change("ben", add=Items(points=1), reason="test")
    assert middle.players["ann"].points == 15
    assert middle.players["ben"].points == 0
    end = changes.state()
    assert end.players["ann"].points == 22
    assert end.players["ben"].points == 1
    assert state.players["ann"].points == 10


# --- a rule's effects: one pass, one copy a player ------------------------------------------------------


def _effect_bundle(item: str, count: int) -> Items:
    return Items(points=count) if item == POINTS else Items(spm=count)


def effects_one_by_one(state: RoundState, effects: list[Change | Transfer]) -> tuple[RoundState, list[Event]]:
    """A rule's effects as the oracle applies them: each alone, each a new state, nothing below zero."""
    events: list[Event] = []
    held = {POINTS: lambda p: p.points, SPM: lambda p: p.spm}

    def step(player: str, *, add: Items | None = None, remove: Items | None = None) -> None:
        nonlocal state
        done = one_change(state, player, add=add, remove=remove, reason=f"rule {effect.rule} took points from them")
        state = done.state
        events.extend(done.events)

    for effect in effects:
        if isinstance(effect, Change):
            if effect.player not in state.players:
                continue
            if effect.count > 0:
                step(effect.player, add=_effect_bundle(effect.item, effect.count))
                continue
            taken = min(held[effect.item](state.players[effect.player]), -effect.count)
            if taken:
                step(effect.player, remove=_effect_bundle(effect.item, taken))
            continue
        if effect.giver not in state.players or effect.receiver not in state.players:
            continue
        moved = min(held[effect.item](state.players[effect.giver]), effect.count)
        if moved:
            step(effect.giver, remove=_effect_bundle(effect.item, moved))
            step(effect.receiver, add=_effect_bundle(effect.item, moved))
    return state, events


_someone = st.sampled_from([*NAMES, "gone"])
_gains_alike = st.builds(
    lambda who, count: [Change("1.1", name, POINTS, count) for name in who],
    st.lists(_someone, min_size=1, max_size=6),
    st.integers(1, 30),
)
"""What ``every player gains N points`` makes: the same gain for several players, one after another."""
_one_effect = st.one_of(
    st.builds(Change, st.just("1.1"), _someone, st.sampled_from([POINTS, SPM]), st.integers(-40, 40).filter(bool)),
    st.builds(Transfer, st.just("1.1"), _someone, _someone, st.sampled_from([POINTS, SPM]), st.integers(1, 40)),
).map(lambda e: [e])


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(auctions(), st.lists(st.one_of(_gains_alike, _one_effect), max_size=8))
def test_a_rule_s_effects_in_one_pass_equal_them_one_at_a_time(state: RoundState, runs: list[list[Effect]]) -> None:
    effects = [effect for run in runs for effect in run]
    players = {pid: p.model_copy(update={"cards": sort_cards(p.cards)}) for pid, p in state.players.items()}
    state = state.model_copy(update={"players": players})  # the round keeps every hand in order
    before = state.model_copy(deep=True)
    expected, lapses = effects_one_by_one(state, effects)  # type: ignore[arg-type]
    got, events = apply_effects(state, effects, MONDAY)
    assert got == expected
    assert [(e.name, e.bids, e.reason) for e in events if isinstance(e, BidsInvalidated)] == [
        (e.name, e.bids, e.reason) for e in lapses if isinstance(e, BidsInvalidated)
    ]
    assert state == before  # the state the rule read is left as it was


def test_a_rule_changing_every_player_twice_makes_one_new_player_each() -> None:
    names = [f"p{n:02}" for n in range(40)]
    state = new_round(players=names)
    for name in names:
        state = give(state, name, points=20)
    effects: list[Effect] = [Change("1.9", name, POINTS, 5) for name in names]
    effects += [Change("1.9", name, POINTS, -2) for name in names]
    made = 0

    def count(frame: object, event: str, arg: object) -> None:
        nonlocal made
        if event == "c_call" and arg is object.__new__:  # how a model is made, by pydantic or not
            made += 1

    sys.setprofile(count)
    try:
        after, _ = apply_effects(state, effects, MONDAY)
    finally:
        sys.setprofile(None)
    assert all(after.players[name].points == 23 for name in names)
    assert made <= len(names) + 5, "a player changed by several effects of one rule is copied once"


def test_placements_make_one_new_player_and_one_unvalidated_record_a_hand() -> None:
    """At thousands of players, validating a record per place and re-sorting cards per prize was most of
    the placements: they are made from the values the rules already hold, one new player each."""
    names = [f"p{n:02}" for n in range(40)]
    state = new_round(Phase.BARTERING, players=names)
    for n, name in enumerate(names):
        hand = ("AS KS QS JS 10S", "2H 2D 5C 9S JD", "3C 3D 3H 8S 8D", "4S 6H 7C 9D QC")[n % 4]
        state = give(state, name, hand=hand)
        state = apply(state, name, PresentHand(cards=tuple(Card.parse(code) for code in hand.split())))
    made = validated = 0

    def count(frame: object, event: str, arg: object) -> None:
        nonlocal made, validated
        if event == "c_call" and arg is object.__new__:
            made += 1
        if event == "c_call" and getattr(arg, "__name__", "") == "validate_python":
            validated += 1

    sys.setprofile(count)
    try:
        step = make_placements(state, random.Random(3))
    finally:
        sys.setprofile(None)
    assert step == one_by_one_placements(state, random.Random(3))
    assert validated <= 5, "the records and prizes are not validated one by one"
    assert made <= 2 * len(names) + 10, "one new player and one record a hand"
