"""Sealed bids (``auction.sealed_bids``): sent privately, shown in #auctions as a hash, opened together at
the auction's end and settled by the open rules; the rules first, then the simulator's answers and state."""

from __future__ import annotations

import hashlib
import io
import random
import re
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest

from bot.sim.replay import ReplayResult, read_scenario, replay
from bot.web import pages
from bot.web.render import to_html, to_json
from bot.web.wiki import week_markup
from games.nomic import engine
from games.nomic.actions import AcceptTrade, Action, AdminLot, AdminSet, OfferTrade, PlaceBid, SetNotice, Tick
from games.nomic.auction import SEALED_HERE
from games.nomic.context import ChannelRole, Context
from games.nomic.errors import (
    BadInputError,
    InsufficientError,
    NotAPlayerError,
    UnknownError,
    WrongChannelError,
    WrongPhaseError,
)
from games.nomic.events import BidsInvalidated, Event, LotSold, OptionChanged
from games.nomic.notices import OutbidNotice
from games.nomic.phases import BoundaryKind, Phase
from games.nomic.ruleset import Ruleset, load_ruleset
from games.nomic.sealed import BidsOpened, SealedBidMade, SealedBidPosted
from games.nomic.service import Outcome, action_rng
from games.nomic.state import RoundState
from games.nomic.views import inventory, lots
from tests.support import (
    AUC,
    GA,
    MOD,
    MONDAY,
    NEXT_SUNDAY,
    SUNDAY,
    THURSDAY,
    Scenario,
    apply,
    cards,
    ctx,
    give,
    items,
    new_round,
    tick,
)
from tests.test_auction_trades import auction, with_lots
from tests.test_web import _all_pages

AE, AS_ = BoundaryKind.AUCTION_END, BoundaryKind.AUCTION_START
HEX64 = re.compile(r"\b[0-9a-f]{64}\b")
OPENED = re.compile(
    r"`(?P<hashed>(?P<lot>\d+)\|(?P<bidder>[^|`]+)\|(?P<amount>\d+)\|(?P<salt>[0-9a-f]+))` → `(?P<digest>[0-9a-f]{64})`"
)


def sealed_rules() -> Ruleset:
    return Ruleset().with_option("auction.sealed_bids", "on")


def sealed_auction(*players: str, points: int = 100, lots: tuple[str, ...] = ("AS KH", "QS QH")) -> RoundState:
    return with_lots(auction(*players, points=points, ruleset=sealed_rules()), *lots)


def dm(actor: str, at: Any = MONDAY) -> Context:
    """A command only its member saw (a DM to the bot, a slash command)."""
    return ctx(actor, ChannelRole.OTHER, at).model_copy(update={"private": True})


def step(state: RoundState, context: Context, action: Action) -> tuple[RoundState, tuple[Event, ...]]:
    done = engine.apply(state, context, action, action_rng(state.seed, state.seq + 1))
    return done.state, done.events


def bid(state: RoundState, actor: str, lot: int, amount: int, minutes: int = 0) -> RoundState:
    return step(state, dm(actor, MONDAY + timedelta(minutes=minutes)), PlaceBid(lot=lot, amount=amount))[0]


def end_auction(state: RoundState) -> tuple[RoundState, tuple[Event, ...]]:
    done = engine.advance(state, Tick(at=THURSDAY, boundaries=(AE,), phase_ends_at=NEXT_SUNDAY), random.Random(1))
    return done.state, done.events


def sha(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


# --- the rules ---------------------------------------------------------------------------------


def test_the_option_is_off_by_default_and_in_the_ruleset_file() -> None:
    assert Ruleset().auction.sealed_bids is False
    assert load_ruleset().auction.sealed_bids is False
    assert "next auction phase" in Ruleset().describe("auction.sealed_bids")


def test_a_sealed_bid_is_answered_to_its_bidder_and_shown_to_everyone_only_as_a_hash() -> None:
    state = sealed_auction("alice", "bob")
    state, events = step(state, dm("alice"), PlaceBid(lot=1, amount=37))
    made = next(e for e in events if isinstance(e, SealedBidMade))
    posted = next(e for e in events if isinstance(e, SealedBidPosted))
    outcome = Outcome(events=events)
    assert outcome.private, "the answer is the bidder's alone"
    assert "37" in outcome.text()
    assert posted.text() not in outcome.text(), "the hash line is not part of the answer"
    assert posted.aside() is ChannelRole.AUCTIONS
    assert "37" not in posted.text()
    assert "alice" in posted.text()
    assert "lot 1" in posted.text()
    salt = state.lots[1].seals[0].salt
    assert len(salt) == 32
    assert made.hashed == f"1|alice|37|{salt}"
    assert HEX64.findall(posted.text()) == [sha(made.hashed)], "the hash commits to lot, bidder, amount and salt"
    assert [(b.player, b.amount) for b in state.lots[1].bids] == [("alice", 37)]


def test_the_salt_comes_from_the_rounds_dice_the_same_on_every_replay_and_other_with_another_seed() -> None:
    state = sealed_auction("alice")
    first = bid(state, "alice", 1, 30).lots[1].seals[0].salt
    assert bid(state, "alice", 1, 30).lots[1].seals[0].salt == first
    other = state.model_copy(update={"seed": "another seed"})
    assert bid(other, "alice", 1, 30).lots[1].seals[0].salt != first


def test_a_bid_typed_where_others_read_it_is_refused_before_anything_else_is_checked() -> None:
    state = sealed_auction("alice")
    for amount in (30, 5000, 0):
        with pytest.raises(WrongChannelError) as refused:
            engine.apply(state, ctx("alice", AUC), PlaceBid(lot=1, amount=amount), random.Random(0))
        assert str(refused.value) == SEALED_HERE, "the refusal never tells anything about the amount"
    with pytest.raises(WrongChannelError):
        engine.apply(state, ctx("zed", AUC), PlaceBid(lot=9, amount=30), random.Random(0))


@pytest.mark.parametrize(
    ("actor", "lot", "amount", "error"),
    [
        ("alice", 1, 101, InsufficientError),
        ("alice", 1, 0, BadInputError),
        ("alice", 9, 10, UnknownError),
        ("zed", 1, 10, NotAPlayerError),
    ],
)
def test_a_sealed_bid_is_checked_privately_as_an_open_one(actor: str, lot: int, amount: int, error: type) -> None:
    state = sealed_auction("alice")
    with pytest.raises(error):
        engine.apply(state, dm(actor), PlaceBid(lot=lot, amount=amount), random.Random(0))


def test_no_sealed_bid_outside_the_auction_phase() -> None:
    state = sealed_auction("alice").model_copy(update={"phase": Phase.BARTERING})
    with pytest.raises(WrongPhaseError):
        engine.apply(state, dm("alice"), PlaceBid(lot=1, amount=10), random.Random(0))


def test_a_bid_need_not_beat_one_nobody_can_see_and_a_later_bid_replaces_the_earlier_one() -> None:
    state = sealed_auction("alice", "bob")
    state = bid(state, "alice", 1, 30)
    state = bid(state, "bob", 1, 40, minutes=1)
    state = bid(state, "bob", 1, 25, minutes=2)  # lower than alice's: taken, and it replaces bob's 40
    lot = state.lots[1]
    assert [(b.player, b.amount) for b in lot.bids] == [("bob", 25), ("alice", 30)]
    assert [(s.player, s.amount) for s in lot.seals] == [("alice", 30), ("bob", 40), ("bob", 25)]
    state, events = end_auction(state)
    sold = [e for e in events if isinstance(e, LotSold)]
    assert [(e.lot, e.name, e.amount) for e in sold] == [(1, "alice", 30)]
    assert state.players["alice"].points == 70
    assert state.players["bob"].points == 100


def test_the_opening_lists_every_bid_each_hash_checkable_then_the_open_rules_settle_the_lots() -> None:
    state = sealed_auction("alice", "bob", "carol")
    posted: list[str] = []
    for actor, lot, amount, minute in (
        ("alice", 1, 80, 0),
        ("alice", 2, 60, 1),
        ("bob", 2, 50, 2),
        ("carol", 2, 50, 3),  # as much as bob's, later: bob's goes first
        ("carol", 1, 10, 4),
    ):
        state, events = step(state, dm(actor, MONDAY + timedelta(minutes=minute)), PlaceBid(lot=lot, amount=amount))
        posted.extend(HEX64.findall(next(e for e in events if isinstance(e, SealedBidPosted)).text()))
    state, events = end_auction(state)
    opening = next(e for e in events if isinstance(e, BidsOpened))
    assert events.index(opening) < min(events.index(e) for e in events if isinstance(e, LotSold)), "opened first"
    found = [m.groupdict() for m in OPENED.finditer(opening.text())]
    assert len(found) == 5
    for line in found:
        assert sha(line["hashed"]) == line["digest"], "anyone can check each hash"
    assert sorted(line["digest"] for line in found) == sorted(posted), "every hash posted is opened"
    assert {(line["lot"], line["bidder"], line["amount"]) for line in found} == {
        ("1", "alice", "80"),
        ("2", "alice", "60"),
        ("2", "bob", "50"),
        ("2", "carol", "50"),
        ("1", "carol", "10"),
    }
    sold = [(e.lot, e.name, e.amount) for e in events if isinstance(e, LotSold)]
    # lot 1 first: alice pays 80, so her 60 on lot 2 no longer counts; bob's 50 came before carol's
    assert sold == [(1, "alice", 80), (2, "bob", 50)]
    assert state.sealed_bids is False, "the bids are open now"
    assert all(not lot.seals for lot in state.lots.values())


def test_a_bid_that_lapses_while_sealed_is_told_to_its_bidder_alone_and_shown_at_the_opening() -> None:
    state = sealed_auction("alice", "bob")
    state = bid(state, "alice", 1, 90)
    state = apply(state, "alice", OfferTrade(target="bob", give=items(points=50), get=items()), at=MONDAY)
    state, events = step(state, ctx("bob", GA), AcceptTrade(number=1))
    lapse = next(e for e in events if isinstance(e, BidsInvalidated))
    assert lapse.recipient() == "alice", "told to the bidder alone"
    assert "90" not in Outcome(events=events).text(), "the public answer to the trade names no amount"
    assert "Lot 1: AS KH - 1 sealed bid" in lots(state), "the count does not drop with a lapse"
    state = bid(state, "bob", 1, 20, minutes=5)
    state, events = end_auction(state)
    opening = next(e for e in events if isinstance(e, BidsOpened)).text()
    assert re.search(r"alice, 90 points \(lapsed: they gave 50 points in trade 1\)", opening)
    assert [(e.lot, e.name) for e in events if isinstance(e, LotSold)] == [(1, "bob")]


def test_nobody_is_told_they_were_outbid_while_bids_are_sealed() -> None:
    state = sealed_auction("alice", "bob")
    state = apply(state, "alice", SetNotice(notice="outbid", on=True))
    state = bid(state, "alice", 1, 30)
    state, events = step(state, dm("bob", MONDAY + timedelta(minutes=5)), PlaceBid(lot=1, amount=60))
    assert not [e for e in events if isinstance(e, OutbidNotice)]


def test_the_lots_show_how_many_bid_never_how_much_and_the_bidder_sees_their_own() -> None:
    state = sealed_auction("alice", "bob")
    state = bid(state, "alice", 1, 37)
    state = bid(state, "alice", 1, 41, minutes=1)
    state = bid(state, "bob", 1, 43, minutes=2)
    shown = lots(state)
    assert "Lot 1: AS KH - 2 sealed bids" in shown
    assert "Lot 2: QS QH - no sealed bid yet" in shown
    assert not re.search(r"\b(37|41|43)\b", shown)
    assert "lot 1: 41" in inventory(state, "alice", asking_self=True)
    assert not re.search(r"\b(37|41|43)\b", inventory(state, "alice", asking_self=False))


def test_switching_the_option_during_an_auction_changes_the_next_one() -> None:
    state = new_round(Phase.AUCTION, players=("alice", "bob"))
    state = give(give(state, "alice", points=100), "bob", points=100)
    state = apply(state, MOD, AdminLot(cards=cards("AS KH")))
    state, events = step(state, ctx(MOD), AdminSet(option="auction.sealed_bids", value="on"))
    note = next(e for e in events if isinstance(e, OptionChanged)).text()
    assert "The auction running keeps its open bids; the next auction phase takes sealed bids." in note
    state = apply(state, "alice", PlaceBid(lot=1, amount=30), AUC)  # still open: typed in #auctions
    with pytest.raises(WrongChannelError):
        engine.apply(state, dm("bob"), PlaceBid(lot=1, amount=40), random.Random(0))
    state, _ = end_auction(state)
    state = tick(state, NEXT_SUNDAY, AS_)
    assert state.sealed_bids is True
    assert state.phase is Phase.AUCTION
    state = apply(state, MOD, AdminSet(option="auction.sealed_bids", value="off"), at=NEXT_SUNDAY)
    assert state.sealed_bids is True, "the sealed auction stays sealed to its end"


def test_a_round_that_starts_in_a_sealed_auction_takes_sealed_bids_at_once() -> None:
    assert new_round(Phase.AUCTION, ruleset=sealed_rules()).sealed_bids is True
    assert new_round(Phase.BARTERING, ruleset=sealed_rules()).sealed_bids is False


# --- the simulator ------------------------------------------------------------------------------


def said(result: ReplayResult, message: str) -> list[dict[str, Any]]:
    return [e for e in result.transcript if e.get("reply_to") == message]


def sealed_week(tmp_path: Path) -> Scenario:
    """Set up on a Friday; the Sunday's auction takes sealed bids."""
    s = Scenario()
    friday = SUNDAY - timedelta(days=2)
    s.setup(friday, ["mod"])
    for name in ("alice", "bob", "carol"):
        s.say(friday, name, "!join")
    s.say(friday, "mod", "!admin set auction.sealed_bids on")
    s.say(friday, "mod", "!admin lot AS KH")
    s.say(friday, "mod", "!admin lot QS QH")
    return s


async def run(s: Scenario, tmp_path: Path, **kwargs: Any) -> ReplayResult:
    return await replay(read_scenario(s.write(tmp_path / "sealed.jsonl"), io.StringIO()), seed="5", **kwargs)


async def test_a_dm_bid_is_answered_privately_and_its_hash_posted_in_auctions(tmp_path: Path) -> None:
    s = sealed_week(tmp_path)
    first = s.say(MONDAY, "alice", "!bid 1 37", channel="dm")
    second = s.say(MONDAY, "bob", "!bid 1 43", channel="dm")
    typed = s.say(MONDAY, "carol", "!bid 2 47", channel="auctions")
    looked = s.say(MONDAY, "carol", "!lots", channel="auctions")
    result = await run(s, tmp_path)
    answer = said(result, first)
    assert [e.get("to") for e in answer] == ["alice"], "the answer reaches the bidder alone"
    assert "37" in answer[0]["content"]
    hash_lines = [
        e for e in result.transcript if e.get("channel") == "auctions" and "sealed bid on lot" in e["content"]
    ]
    assert [e["content"].split(" made")[0] for e in hash_lines] == ["🔒 alice", "🔒 bob"]
    assert all(not re.search(r"\b(37|43)\b", HEX64.sub("", e["content"])) for e in hash_lines)
    refused = said(result, typed)
    assert [e.get("to") for e in refused] == ["carol"], "a typed bid is refused privately"
    assert SEALED_HERE in refused[0]["content"]
    assert "47" not in refused[0]["content"]
    assert "Lot 1: AS KH - 2 sealed bids" in said(result, looked)[0]["content"]
    lots_now = result.document["lots"]
    assert [(lot["high_bid"], lot["sealed_bids"]) for lot in lots_now] == [(None, 2), (None, 0)]
    assert second in {e.get("reply_to") for e in result.transcript}


async def test_the_simulator_opens_the_bids_at_the_auctions_end(tmp_path: Path) -> None:
    s = sealed_week(tmp_path)
    s.say(MONDAY, "alice", "!bid 1 37", channel="dm")
    s.say(MONDAY, "bob", "!bid 1 43", channel="dm")
    s.say(MONDAY, "carol", "!bid 2 47", channel="dm")
    result = await run(s, tmp_path, until=THURSDAY + timedelta(minutes=1))
    posted = [
        HEX64.findall(e["content"])[0]
        for e in result.transcript
        if e.get("channel") == "auctions" and "sealed bid on lot" in e["content"]
    ]
    opening = next(e for e in result.transcript if e.get("channel") == "auctions" and "🔓" in e["content"])
    assert opening["at"].startswith(THURSDAY.strftime("%Y-%m-%d"))
    found = [m.groupdict() for m in OPENED.finditer(opening["content"])]
    assert sorted(f["digest"] for f in found) == sorted(posted)
    assert all(sha(f["hashed"]) == f["digest"] for f in found)
    assert "Lot 1 (AS KH) goes to bob for 43 points." in opening["content"]
    assert "Lot 2 (QS QH) goes to carol for 47 points." in opening["content"]
    players = result.document["players"]
    assert players["bob"]["points"] == 57
    assert sorted(players["bob"]["cards"]) == ["AS", "KH"]
    assert players["alice"]["points"] == 100


async def test_same_seed_same_hashes_another_seed_other_salts(tmp_path: Path) -> None:
    s = sealed_week(tmp_path)
    s.say(MONDAY, "alice", "!bid 1 37", channel="dm")
    path = s.write(tmp_path / "s.jsonl")

    async def hashes(seed: str) -> list[str]:
        result = await replay(read_scenario(path, io.StringIO()), seed=seed)
        return [h for e in result.transcript if e.get("channel") == "auctions" for h in HEX64.findall(e["content"])]

    assert await hashes("1") == await hashes("1")
    assert await hashes("1") != await hashes("2")


async def test_a_dm_bid_while_bids_are_open_is_sent_to_auctions(tmp_path: Path) -> None:
    s = Scenario()
    s.setup(SUNDAY - timedelta(days=2), ["mod"])
    s.say(SUNDAY - timedelta(days=2), "alice", "!join")
    s.say(SUNDAY - timedelta(days=2), "mod", "!admin lot AS KH")
    sent = s.say(MONDAY, "alice", "!bid 1 30", channel="dm")
    result = await run(s, tmp_path)
    answer = said(result, sent)
    assert [e.get("to") for e in answer] == ["alice"]
    assert "#auctions" in answer[0]["content"]
    assert result.document["lots"][0]["high_bid"] is None


def test_no_page_of_the_web_record_nor_the_wiki_shows_a_sealed_amount() -> None:
    state = sealed_auction("alice", "bob")
    state = bid(state, "alice", 1, 37)
    state = bid(state, "bob", 1, 43, minutes=1)
    g = pages.GuildHead("g1", "Test")
    for page in _all_pages(state, g):
        shown = to_html(page) + to_json(page)
        assert not re.search(r"\b(37|43)\b", HEX64.sub("", shown)), page.path
    week = pages.week_page(g, state, state.clock)
    assert [(lot["high_bid"], lot["bids"]) for lot in week.data["lots"]] == [(None, 2), (None, 0)]
    assert "sealed until the auction ends" in to_html(week)
    assert "sealed until the auction ends" in "\n".join(week_markup(week))
