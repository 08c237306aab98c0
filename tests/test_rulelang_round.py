"""Rule blocks in a round: woken by the engine's actions and ticks, applied by the rules of a moderator's
correction, replayed alike from the log; and the item kinds they make, held, traded, given and used.

The ruleset document that will keep the blocks is not part of these tests: the blocks in force are
put in place with ``in_force`` (``games.nomic.rulelang.force.blocks_in_force`` replaced).
"""

from __future__ import annotations

import io
import random
from collections.abc import Iterator
from datetime import datetime, timedelta
from itertools import count
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bot.bench.ticks import RULE_SETS, rule_trigger_report, rule_trigger_timings
from bot.router import Post, Router
from bot.sim.replay import read_scenario, replay
from bot.sim.statedoc import state_document
from data.store import Store
from games.nomic import engine
from games.nomic.actions import (
    Action,
    AdminGive,
    AdminLot,
    DeleteMessage,
    Join,
    PlaceBid,
    PresentHand,
    Propose,
    React,
    Stand,
    StartRound,
    Tick,
)
from games.nomic.context import ChannelRole, Context
from games.nomic.errors import BadInputError
from games.nomic.events import Event, RuleAnnouncement, RuleApplied
from games.nomic.items import Items
from games.nomic.phases import BoundaryKind, Phase
from games.nomic.rulelang import force
from games.nomic.rulelang.effects import apply_effects
from games.nomic.rulelang.program import POINTS, SPM
from games.nomic.rulelang.run import Change, Stopped, Transfer
from games.nomic.ruleset import Ruleset
from games.nomic.service import RoundService
from games.nomic.state import RoundState, Vote
from tests.support import (
    AUC,
    GA,
    MOD,
    MONDAY,
    NEXT_SUNDAY,
    SATURDAY,
    SUNDAY,
    THURSDAY,
    Scenario,
    apply,
    cards,
    ctx,
    give,
    new_round,
)
from tests.test_rulelang import FAILED_PROPOSAL, FIVE_OF_A_KIND, JUDGE_BONUS, NO_BID_TAX

AE, PL, AS_ = BoundaryKind.AUCTION_END, BoundaryKind.PLACEMENTS, BoundaryKind.AUCTION_START
PROP, ELECT = ChannelRole.PROPOSALS, ChannelRole.JUDGE_ELECTIONS
ITEMS = """\
item "Gold Star" is a token
item "Golden Ticket" can be redeemed for 15 points
item "Charter" works as a Standard Proposal-Maker
when a player joins:
  the player gains 1 Gold Star
"""


@pytest.fixture
def in_force(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[tuple[str, str]]]:
    """The rule blocks in force: (rule number, block) pairs a test appends to."""
    blocks: list[tuple[str, str]] = []
    monkeypatch.setattr(force, "blocks_in_force", lambda state: tuple(blocks))
    return blocks


def step(state: RoundState, actor: str, action: Action, channel: ChannelRole = GA, at: datetime | None = None):
    transition = engine.apply(state, ctx(actor, channel, at or state.clock), action, random.Random(0))
    return transition.state, transition.events


def advance(state: RoundState, at: datetime, *kinds: BoundaryKind) -> tuple[RoundState, tuple[Event, ...]]:
    transition = engine.advance(state, Tick(at=at, boundaries=kinds), random.Random(1))
    return transition.state, transition.events


def told(events: tuple[Event, ...]) -> list[str]:
    return [e.text() for e in events if isinstance(e, RuleApplied | RuleAnnouncement)]


# --- the four rules the round must carry, through the engine ----------------------------------------


def test_the_judge_gains_20_points_when_the_auction_phase_starts(in_force: list[tuple[str, str]]) -> None:
    in_force.append(("12.4", JUDGE_BONUS))
    state = new_round(Phase.BARTERING, players=["alice", "bob"])
    state = apply(state, "alice", Stand(message="c1", text="me"), ELECT)
    state = apply(state, "bob", React(message="c1", vote=Vote.FOR), ELECT)
    state, events = advance(state, NEXT_SUNDAY, AS_)
    assert state.judge == "alice"
    weekly = state.ruleset.auction.weekly_points
    assert (state.players["alice"].points, state.players["bob"].points) == (weekly + 20, weekly)
    assert told(events) == ["Rule 12.4 (when an auction phase starts): alice gains 20 points."]
    assert events[-1].channel is GA


def test_a_player_presenting_five_of_a_kind_gains_a_proposal_maker(in_force: list[tuple[str, str]]) -> None:
    in_force.append(("6.5", FIVE_OF_A_KIND))
    state = new_round(Phase.BARTERING, players=["alice", "bob"])
    state = give(state, "alice", hand="AS AS AS AS AS")
    state = give(state, "bob", hand="2H 3H 4H 5H 7H")
    state, events = step(state, "alice", PresentHand(cards=cards("AS AS AS AS AS")))
    assert state.players["alice"].spm == 1
    assert told(events) == ["Rule 6.5 (when a hand is presented): alice gains 1 Standard Proposal-Maker."]
    assert events[-1].announce() is GA, "the answer's rule effects are posted in #game-actions too"
    state, events = step(state, "bob", PresentHand(cards=cards("2H 3H 4H 5H 7H")))
    assert state.players["bob"].spm == 0
    assert told(events) == [], "a flush is no five of a kind"


def test_a_failed_proposal_costs_its_proposer_what_they_have(in_force: list[tuple[str, str]]) -> None:
    in_force.append(("10.9", FAILED_PROPOSAL))
    state = new_round(Phase.AUCTION, players=["alice", "bob"])
    state = give(state, "alice", points=3, spm=2)
    state = give(state, "bob", points=40)
    state = apply(state, "alice", Propose(message="p1", text="Lots have three cards."), PROP)
    state = apply(state, "alice", Propose(message="p2", text="Bids are in euros."), PROP)
    state, _ = advance(state, THURSDAY, AE)
    state = apply(state, "bob", React(message="p2", vote=Vote.FOR), PROP, at=THURSDAY + timedelta(hours=1))
    state, _ = advance(state, SATURDAY, PL)
    before = state.players["alice"].points
    state, events = advance(state, NEXT_SUNDAY, AS_)
    assert [p.status.value for p in sorted(state.proposals.values(), key=lambda p: p.number)] == ["failed", "passed"]
    weekly = state.ruleset.auction.weekly_points
    assert before == 3
    assert state.players["alice"].points == weekly, "the 3 points she had are gone, never fewer than none"
    assert told(events) == [
        ("Rule 10.9 (when a proposal fails): alice loses 3 points.\n"
        "- alice had only 3 points, so lost those instead of 5 points")
    ]


def test_players_who_bid_on_no_lot_lose_10_points_at_the_auction_end(in_force: list[tuple[str, str]]) -> None:
    in_force.append(("4.5", NO_BID_TAX))
    state = new_round(Phase.AUCTION, players=["alice", "bob", "carol", "dave"])
    for name, points in (("alice", 50), ("bob", 30), ("carol", 30), ("dave", 4)):
        state = give(state, name, points=points)
    for hand in ("AS KS", "2D 3D"):
        state = apply(state, MOD, AdminLot(cards=cards(hand)))
    state = apply(state, "alice", PlaceBid(lot=1, amount=5), AUC)
    state = apply(state, "carol", PlaceBid(lot=2, amount=5), AUC)
    state = apply(state, "alice", PlaceBid(lot=2, amount=6), AUC)
    state, events = advance(state, THURSDAY, AE)
    points = {name: p.points for name, p in state.players.items()}
    assert points == {"alice": 50 - 5 - 6, "bob": 20, "carol": 30, "dave": 0}, "carol bid, though she lost the lot"
    assert told(events) == [
        ("Rule 4.5 (when an auction phase ends): bob loses 10 points; dave loses 4 points.\n"
        "- dave had only 4 points, so lost those instead of 10 points")
    ]


def test_the_rules_act_in_rule_number_order_each_on_what_the_last_left(in_force: list[tuple[str, str]]) -> None:
    in_force.extend(
        [
            ("4.10", "when a player joins:\n  if the player has at least 5 points: the player gains 100 points"),
            ("4.9", "when a player joins: the player gains 5 points"),
        ]
    )
    state = new_round(Phase.AUCTION, players=["alice"])
    assert state.players["alice"].points == 105


def test_a_lot_won_tells_the_winner_and_the_price(in_force: list[tuple[str, str]]) -> None:
    rule = "when a lot is won:\n  if the amount is at least 10: the winner gives 2 points to the judge"
    in_force.append(("5.3", rule))
    state = new_round(Phase.AUCTION, players=["alice", "bob"])
    state = give(state, "alice", points=30).model_copy(update={"judge": "bob", "judge_name": "bob"})
    state = apply(state, MOD, AdminLot(cards=cards("AS KS")))
    state = apply(state, MOD, AdminLot(cards=cards("2S 3S")))
    state = apply(state, "alice", PlaceBid(lot=1, amount=12), AUC)
    state = apply(state, "alice", PlaceBid(lot=2, amount=3), AUC)
    state, events = advance(state, THURSDAY, AE)
    assert (state.players["alice"].points, state.players["bob"].points) == (30 - 15 - 2, 2)
    assert told(events) == ["Rule 5.3 (when a lot is won): alice loses 2 points; bob gains 2 points."]


def test_a_rules_loss_of_points_lets_unaffordable_bids_lapse(in_force: list[tuple[str, str]]) -> None:
    in_force.append(("2.4", "when a player joins: every player who is not the player loses 8 points"))
    state = new_round(Phase.AUCTION, players=["alice"])
    state = give(state, "alice", points=10)
    state = apply(state, MOD, AdminLot(cards=cards("AS KS")))
    state = apply(state, "alice", PlaceBid(lot=1, amount=9), AUC)
    state, events = step(state, "bob", Join())
    assert state.players["alice"].points == 2
    assert state.lots[1].bids == ()
    assert any("no longer counts: rule 2.4 took points from them" in e.text() for e in events)


def test_an_announcement_is_the_members_words_escaped(in_force: list[tuple[str, str]]) -> None:
    in_force.append(("1.7", 'when a player joins: announce "@everyone **welcome** <@123> \u202e"'))
    state = new_round(Phase.AUCTION)
    _, events = step(state, "alice", Join())
    (said,) = [e for e in events if isinstance(e, RuleAnnouncement)]
    assert said.announce() is GA
    text = said.text()
    assert text.startswith("Rule 1.7 announces:\n> ")
    assert "@everyone" not in text
    assert "<@123>" not in text
    assert "**" not in text
    assert "\u202e" not in text
    assert "\\*\\*welcome\\*\\*" in text


def test_an_announcement_from_a_tick_is_posted_in_game_actions(in_force: list[tuple[str, str]]) -> None:
    in_force.append(("1.8", 'when the week ends: announce "A new week."'))
    state = new_round(Phase.BARTERING, players=["alice"])
    _, events = advance(state, NEXT_SUNDAY, AS_)
    (said,) = [e for e in events if isinstance(e, RuleAnnouncement)]
    assert said.channel is GA
    assert "A new week." in said.text()


def test_a_run_past_its_budget_changes_nothing_and_says_so() -> None:
    state = new_round(Phase.AUCTION, players=["alice"])
    after, events = apply_effects(state, [Stopped("3.3", 200_000)], MONDAY)
    assert after == state
    assert [e.text() for e in events] == [
        ("Rule 3.3 (when it was triggered): nothing changed.\n"
        "- it stopped after 200,000 steps, the most a rule may take, and changed nothing")
    ]


def test_a_rule_waits_for_its_own_trigger(in_force: list[tuple[str, str]]) -> None:
    """A rule of another trigger changes nothing: the same state and events as with no rule at all."""
    state = new_round(Phase.BARTERING, players=["alice"])
    state = give(state, "alice", hand="AS AS AS AS AS")
    hand = PresentHand(cards=cards("AS AS AS AS AS"))
    plain = engine.apply(state, ctx("alice", GA, state.clock), hand, random.Random(0))
    in_force.append(("9.9", "when a player joins: the player gains 1 point"))
    other = engine.apply(state, ctx("alice", GA, state.clock), hand, random.Random(0))
    assert (plain.state, plain.events) == (other.state, other.events)


# --- effects never make anything negative -----------------------------------------------------------

_NAMES = ["alice", "bob", "carol"]


@settings(max_examples=150, deadline=None)
@given(
    st.lists(st.integers(0, 30), min_size=3, max_size=3),
    st.lists(
        st.one_of(
            st.builds(Change, st.just("1.1"), st.sampled_from(_NAMES), st.sampled_from([POINTS, SPM, "Gold Star"]),
                      st.integers(-40, 40).filter(bool)),
            st.builds(Transfer, st.just("1.2"), st.sampled_from(_NAMES), st.sampled_from(_NAMES),
                      st.sampled_from([POINTS, SPM, "Gold Star"]), st.integers(1, 40)),
        ),
        max_size=12,
    ),
)  # fmt: skip
def test_effects_never_make_a_holding_negative(points: list[int], effects: list[Change | Transfer]) -> None:
    state = new_round(Phase.AUCTION, players=_NAMES)
    for name, n in zip(_NAMES, points, strict=True):
        state = give(state, name, points=n, spm=n % 3)
    blocks = (("11.1", 'item "Gold Star" is a token'),)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(force, "blocks_in_force", lambda _state: blocks)
        after, _ = apply_effects(state, effects, MONDAY)
    for player in after.players.values():
        assert player.points >= 0
        assert player.spm >= 0
        assert all(n > 0 for n in player.items.values())
    gained = sum(e.count for e in effects if isinstance(e, Change) and e.item == POINTS and e.count > 0)
    total_before = sum(p.points for p in state.players.values())
    total_after = sum(p.points for p in after.players.values())
    assert total_after <= total_before + gained, "a transfer moves points, it never makes any"


# --- the same log, the same effects -------------------------------------------------------------------


async def test_a_replay_of_the_log_makes_the_same_effects(in_force: list[tuple[str, str]], tmp_path: Path) -> None:
    in_force.extend([("4.5", NO_BID_TAX), ("6.5", FIVE_OF_A_KIND), ("12.4", JUDGE_BONUS), ("11.1", ITEMS)])
    store = await Store.open(tmp_path / "rules.db")
    try:
        service = RoundService(store)
        ids = count(1)

        def c(actor: str, channel: ChannelRole, at: datetime) -> Context:
            return Context(actor=actor, actor_name=actor, channel=channel, at=at, is_moderator=actor == MOD,
                           event_id=f"e{next(ids)}")  # fmt: skip

        start = StartRound(ruleset=Ruleset(), phase=Phase.AUCTION, presenting_open=False, moderators=(MOD,))
        assert (await service.start("g", c("setup", ChannelRole.OTHER, MONDAY), start, seed="s")).accepted
        for name in ("alice", "bob", "carol"):
            assert (await service.act("g", c(name, GA, MONDAY), Join())).accepted
            assert (await service.act("g", c(MOD, GA, MONDAY), AdminGive(target=name, items=Items(points=20)))).accepted
        assert (await service.act("g", c(MOD, GA, MONDAY), AdminLot(cards=cards("AS AS")))).accepted
        assert (await service.act("g", c("alice", AUC, MONDAY), PlaceBid(lot=1, amount=5))).accepted
        assert (await service.tick("g", Tick(at=THURSDAY, boundaries=(AE,)))).accepted
        live = await service.state("g")
        assert live is not None
        assert {n: p.points for n, p in live.players.items()} == {"alice": 15, "bob": 10, "carol": 10}
        assert {n: dict(p.items) for n, p in live.players.items()} == {n: {"Gold Star": 1} for n in live.players}
        replayed = await RoundService(store).state("g")
        assert replayed == live
    finally:
        await store.close()


# --- item kinds: held, shown, given, traded, used -------------------------------------------------------


class Desk:
    """A round on a real store, driven by typed commands through the router."""

    def __init__(self, router: Router) -> None:
        self.router = router
        self.ids = count(1)
        self.at = MONDAY

    async def say(self, actor: str, text: str, channel: ChannelRole = GA) -> str:
        number = next(self.ids)
        context = Context(actor=actor, actor_name=actor, channel=channel, at=self.at, is_moderator=actor == MOD,
                          event_id=f"m{number}")  # fmt: skip
        posts: list[Post] = await self.router.message(
            "g", context, text, lambda token: token.lstrip("@"), message_id=f"m{number}"
        )
        return "\n".join(p.text for p in posts)


@pytest.fixture
async def desk(tmp_path: Path, in_force: list[tuple[str, str]]) -> Iterator[Desk]:
    in_force.append(("11.1", ITEMS))
    store = await Store.open(tmp_path / "items.db")
    service = RoundService(store)
    setup = Context(actor="setup", actor_name="setup", channel=ChannelRole.OTHER, at=MONDAY, event_id="setup")
    start = StartRound(ruleset=Ruleset(), phase=Phase.AUCTION, presenting_open=False, moderators=(MOD,))
    await service.start("g", setup, start, seed="s")
    yield Desk(Router(service))
    await store.close()


async def test_item_kinds_are_held_shown_given_and_traded_by_name(desk: Desk) -> None:
    joined = await desk.say("alice", "!join")
    assert "Rule 11.1 (when a player joins): alice gains 1 Gold Star." in joined
    await desk.say("bob", "!join")
    given_ = await desk.say(MOD, "!admin give @alice 2 golden tickets, 1 charter")
    assert "mod gave alice 1 Charter, 2 Golden Tickets." in given_
    shown = await desk.say("bob", "!inventory @alice")
    assert "Items: 1 Charter (works as a Standard Proposal-Maker); 1 Gold Star (a token" in shown
    assert "2 Golden Tickets (can be redeemed for 15 points" in shown
    offered = await desk.say("alice", "!offer @bob give 1 gold star for nothing")
    assert "alice offers bob 1 Gold Star for nothing" in offered
    assert "Trade 1 is done" in await desk.say("bob", "!accept 1")
    refused = await desk.say("alice", "!offer @bob give 1 gold star for nothing")
    assert "alice lacks" in refused or "you lack 1 Gold Star more (has 0)" in refused
    assert "is not an item" in await desk.say("alice", "!offer @bob give 1 silver star for nothing")
    taken = await desk.say(MOD, "!admin take @bob gold star")
    assert "took 1 Gold Star from bob" in taken
    state = await desk.router.service.state("g")
    assert state is not None
    assert state.players["alice"].items == {"Charter": 1, "Golden Ticket": 2}
    assert state.players["bob"].items == {"Gold Star": 1}, "his own from joining, and alice's taken back"
    document = state_document(state, desk.at)
    assert document["players"]["alice"]["items"] == {
        "standard_proposal_maker": 0,
        "Charter": 1,
        "Golden Ticket": 2,
    }


async def test_a_redeemable_item_is_used_for_its_points(desk: Desk) -> None:
    await desk.say("alice", "!join")
    await desk.say(MOD, "!admin give @alice 2 Golden Ticket")
    assert "alice redeems 2 Golden Tickets for 30 points." in await desk.say("alice", "!use 2 golden tickets")
    assert "you have 0 Golden Tickets, not 1" in await desk.say("alice", "!use Golden Ticket")
    assert "a token with no use of its own" in await desk.say("alice", "!use gold star")
    assert "no rule in force makes an item called `Tin Can`" in await desk.say("alice", "!use Tin Can")
    state = await desk.router.service.state("g")
    assert state is not None
    assert state.players["alice"].points == 30


async def test_an_item_that_works_as_a_proposal_maker_is_spent_and_returned(desk: Desk) -> None:
    await desk.say("alice", "!join")
    refused = await desk.say("alice", "More lots.", PROP)
    assert "Standard Proposal-Maker and you have none" in refused
    await desk.say(MOD, "!admin give @alice charter")
    made = await desk.say("alice", "Six lots, then.", PROP)
    assert "A Charter (it works as a Standard Proposal-Maker) was used." in made
    state = await desk.router.service.state("g")
    assert state is not None
    assert state.players["alice"].items == {"Gold Star": 1}
    (message,) = state.proposals
    deleted = Context(actor="alice", actor_name="alice", channel=PROP, at=desk.at, event_id="deleted")
    outcome = await desk.router.service.act("g", deleted, DeleteMessage(message=message))
    assert "The Charter was returned." in outcome.text()
    state = await desk.router.service.state("g")
    assert state is not None
    assert state.players["alice"].items == {"Charter": 1, "Gold Star": 1}


def test_a_moderator_gives_only_kinds_a_rule_makes(in_force: list[tuple[str, str]]) -> None:
    in_force.append(("11.1", ITEMS))
    state = new_round(Phase.AUCTION, players=["alice"])
    tin = AdminGive(target="alice", items=Items(kinds=(("Tin Can", 1),)))
    with pytest.raises(BadInputError, match="no rule in force makes an item called Tin Can"):
        engine.apply(state, ctx(MOD, GA, state.clock), tin, random.Random(0))
    star = AdminGive(target="alice", items=Items(kinds=(("Gold Star", 2),)))
    assert engine.apply(state, ctx(MOD, GA, state.clock), star, random.Random(0)).state.players["alice"].items == {
        "Gold Star": 3
    }


def test_items_parse_names_of_known_kinds_only() -> None:
    kinds = ("Gold Star", "Golden Ticket")
    assert Items.parse("2 gold stars, 10 points golden ticket", kinds) == Items(
        points=10, kinds=(("Gold Star", 2), ("Golden Ticket", 1))
    )
    assert Items.parse("AS gold star", lambda: kinds) == Items(cards=cards("AS"), kinds=(("Gold Star", 1),))
    assert Items(kinds=(("Gold Star", 2),)).describe() == "2 Gold Stars"


# --- through the simulator, and the bench ---------------------------------------------------------------


async def test_a_week_in_the_simulator_announces_what_the_rules_did(
    in_force: list[tuple[str, str]], tmp_path: Path
) -> None:
    in_force.extend([("10.9", FAILED_PROPOSAL), ("11.1", ITEMS)])
    scenario = Scenario()
    scenario.setup(SUNDAY, ["mod"])
    joined = scenario.say(MONDAY, "alice", "!join")
    scenario.say(MONDAY, "mod", "!admin give @alice 1 spm, 2 points")
    scenario.say(MONDAY + timedelta(hours=1), "alice", "The judge wears a hat.", channel="proposals")
    path = scenario.write(tmp_path / "rules.jsonl")
    result = await replay(read_scenario(path, io.StringIO()), seed="1", until=NEXT_SUNDAY + timedelta(hours=1))
    (answer,) = [e for e in result.transcript if e.get("reply_to") == joined]
    assert "Rule 11.1 (when a player joins): alice gains 1 Gold Star." in answer["content"]
    failed = [e for e in result.transcript if "Rule 10.9 (when a proposal fails)" in e["content"]]
    assert [e["channel"] for e in failed] == ["game-actions"]
    assert "alice had only 2 points, so lost those instead of 5 points" in failed[0]["content"]
    alice = result.document["players"]["alice"]
    assert alice["items"] == {"standard_proposal_maker": 0, "Gold Star": 1}
    assert alice["points"] == Ruleset().auction.weekly_points, "the week's 100 after losing the 2 she had"


def test_the_tick_bench_times_the_rule_triggers_of_every_big_tick() -> None:
    original = force.blocks_in_force
    found = rule_trigger_timings([12], 1, "test")
    assert force.blocks_in_force is original, "the bench leaves the rules in force as they were"
    ticks = {"auction start", "settlement", "placements", "placements (re-ranked)"}
    assert {(name, label) for name, label, _ in found} == {(name, t) for name in RULE_SETS for t in ticks}
    assert all(len(seconds) == 1 and seconds[0] > 0 for seconds in found.values())
    assert rule_trigger_report(found, [12], 1).startswith("Rule triggers: time a tick spends in them")


def test_the_rule_trigger_bench_runs_two_checkouts_in_turn(tmp_path: Path) -> None:
    """``bench --rule-triggers --baseline DIR``: a worker on each checkout, the same ticks timed in each."""
    from bot.bench.rule_triggers import HERE, measure, report

    versions = {"before": HERE, "this version": HERE}
    found = measure(versions, [12], 2, "test")
    assert set(found) == {"before", "this version"}
    ticks = ("auction start", "settlement", "placements", "placements (re-ranked)")
    for timed in found.values():
        assert {(name, label) for name, label, _ in timed} == {(name, t) for name in RULE_SETS for t in ticks}
        assert all(len(seconds) == 2 for seconds in timed.values())
    text = report(found, versions, [12], 2)
    assert "versions in turn" in text
    assert "before, 12" in text
    assert "this version, 12" in text
