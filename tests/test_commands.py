"""The command parser (text in, typed action or typed error out) and the router on a real store.

The parser tests pin down every command word and alias, and that bad input of every kind is a
``RuleError`` with a short, printable message. The router property test feeds arbitrary text
through ``Router.message`` with a real ``RoundService`` on a temporary SQLite store.
"""

from __future__ import annotations

import asyncio
import shutil
import tempfile
from collections.abc import Iterator
from datetime import timedelta
from itertools import count
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bot.router import Router
from data.store import Store
from games.nomic import commands
from games.nomic.actions import (
    AcceptTrade,
    Action,
    AdminGive,
    AdminLot,
    AdminSet,
    AdminTake,
    AssentRemoval,
    CancelTrade,
    CastConfidence,
    Challenge,
    DeclineTrade,
    GenerateLot,
    GiveRuling,
    Join,
    Leave,
    MakeRequest,
    OfferTrade,
    PlaceBid,
    PresentHand,
    Resign,
    SetNotice,
    ShowHelp,
    ShowInventory,
    ShowLots,
    ShowModLog,
    ShowNotices,
    ShowPhase,
    ShowPlacements,
    ShowProposals,
    ShowRuleset,
    ShowRulesetDiff,
    ShowRulesetHistory,
    ShowRulings,
    ShowTrades,
    StartRound,
    UseItem,
)
from games.nomic.commands import ALIASES, COMMAND_WORDS, COMMANDS_BY_NAME, parse
from games.nomic.context import ChannelRole, Context
from games.nomic.errors import BadCardError, BadInputError, RuleError, UnknownError
from games.nomic.items import Items, parse_amount
from games.nomic.members import unknown_member
from games.nomic.phases import Phase
from games.nomic.ruleset import Ruleset
from games.nomic.service import RoundService
from tests.support import FRIDAY, MONDAY, cards

MEMBERS = {"alice", "bob", "carol", "mod"}


def resolve(token: str) -> str:
    name = token.strip().rstrip(",.;:!?").removeprefix("@")
    if name not in MEMBERS:
        raise unknown_member(name)
    return name


def readable(error: RuleError) -> str:
    """A refusal's text: present, short, printable, free of control and bidi characters."""
    text = str(error)
    assert text.strip()
    assert len(text) <= 400, text
    assert all(ch.isprintable() for ch in text), repr(text)
    return text


def refused(text: str, error: type[RuleError] = RuleError, match: str | None = None) -> str:
    with pytest.raises(error, match=match) as info:
        parse(text, resolve)
    return readable(info.value)


# --- every command word -------------------------------------------------------------------------

SAMPLES: dict[str, list[tuple[str, Action]]] = {
    "join": [("!join", Join())],
    "leave": [("!leave", Leave())],
    "inventory": [("!inventory", ShowInventory()), ("!inventory @bob", ShowInventory(target="bob"))],
    "bid": [("!bid 2 15", PlaceBid(lot=2, amount=15)), ("!bid 1 1000", PlaceBid(lot=1, amount=1000))],
    "lots": [("!lots", ShowLots())],
    "generate": [("!generate", GenerateLot())],
    "present": [
        ("!present AS KS QS JS 10S", PresentHand(cards=cards("AS KS QS JS 10S"))),
        ("!present as, ks,qs js 10s", PresentHand(cards=cards("AS KS QS JS 10S"))),
        ("!present 2D 2D 2D 2D 2D", PresentHand(cards=cards("2D 2D 2D 2D 2D"))),
    ],
    "offer": [
        (
            "!offer @bob give 10 points, AS for 2D spm",
            OfferTrade(target="bob", give=Items(points=10, cards=cards("AS")), get=Items(cards=cards("2D"), spm=1)),
        ),
        ("!offer @bob 5 pts for nothing", OfferTrade(target="bob", give=Items(points=5), get=Items())),
        ("!offer @carol give nothing FOR 2 spms", OfferTrade(target="carol", give=Items(), get=Items(spm=2))),
        (
            "!offer @bob give 3points for 10h",
            OfferTrade(target="bob", give=Items(points=3), get=Items(cards=cards("10H"))),
        ),
    ],
    "accept": [("!accept 3", AcceptTrade(number=3)), ("!accept #3", AcceptTrade(number=3))],
    "decline": [("!decline 4", DeclineTrade(number=4))],
    "cancel": [("!cancel #5", CancelTrade(number=5))],
    "trades": [("!trades", ShowTrades())],
    "use": [
        ("!use Golden Ticket", UseItem(item="Golden Ticket")),
        ("!use 3 golden tickets", UseItem(item="golden tickets", count=3)),
    ],
    "proposals": [("!proposals", ShowProposals())],
    "placements": [("!placements", ShowPlacements()), ("!placements 3", ShowPlacements(page=3))],
    "request": [("!request Is a flush with a pair a flush?", MakeRequest(text="Is a flush with a pair a flush?"))],
    "rule": [("!rule 2 Yes it is.", GiveRuling(number=2, text="Yes it is."))],
    "overturn": [("!overturn 2", Challenge(number=2))],
    "confidence": [
        ("!confidence 2 overturn", CastConfidence(number=2, overturn=True)),
        ("!confidence #2 AFFIRM", CastConfidence(number=2, overturn=False)),
    ],
    "remove-judge": [("!remove-judge", AssentRemoval())],
    "resign": [("!resign", Resign())],
    "rulings": [("!rulings", ShowRulings())],
    "ruleset": [
        ("!ruleset", ShowRuleset()),
        ("!ruleset history", ShowRulesetHistory()),
        ("!ruleset diff 1 2", ShowRulesetDiff(old=1, new=2)),
    ],
    "phase": [("!phase", ShowPhase())],
    "help": [("!help", ShowHelp()), ("!help bid", ShowHelp())],
    "admin": [
        ("!admin give @alice 10 points AS", AdminGive(target="alice", items=Items(points=10, cards=cards("AS")))),
        ("!admin take @alice 2 spm", AdminTake(target="alice", items=Items(spm=2))),
        ("!admin lot AS kh", AdminLot(cards=cards("AS KH"))),
        ("!admin set auction.lots_per_auction 8", AdminSet(option="auction.lots_per_auction", value="8")),
        ("!ADMIN SET hands.prize_points 20, 10", AdminSet(option="hands.prize_points", value="20, 10")),
        ("!admin log", ShowModLog()),
        ("!admin log 25", ShowModLog(count=25)),
    ],
    "notify": [
        ("!notify", ShowNotices()),
        ("!notify outbid on", SetNotice(notice="outbid", on=True)),
        ("!NOTIFY Reminders OFF", SetNotice(notice="reminders", on=False)),
    ],
}


def test_every_command_word_has_samples() -> None:
    missing = set(COMMANDS_BY_NAME) - set(SAMPLES)
    assert not missing, f"command words without a parser test: {sorted(missing)}"
    assert len(COMMAND_WORDS) == len(COMMANDS_BY_NAME), "two command words share a name"


@pytest.mark.parametrize(
    ("text", "expected"), [pair for pairs in SAMPLES.values() for pair in pairs], ids=lambda v: str(v)[:40]
)
def test_command_word_parses(text: str, expected: Action) -> None:
    assert parse(text, resolve) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("!inv", ShowInventory()),
        ("!i @bob", ShowInventory(target="bob")),
        ("!rules", ShowRuleset()),
        ("!h", ShowHelp()),
        ("!commands", ShowHelp()),
        ("!removejudge", AssentRemoval()),
        ("!remove_judge", AssentRemoval()),
        ("!JOIN", Join()),
        ("!Bid 1 5", PlaceBid(lot=1, amount=5)),
        ("   !join  ", Join()),
        ("! join", Join()),
        ("!bid\t1\n5", PlaceBid(lot=1, amount=5)),
    ],
)
def test_aliases_case_and_spacing(text: str, expected: Action) -> None:
    assert parse(text, resolve) == expected


def test_aliases_name_real_commands() -> None:
    for alias, name in ALIASES.items():
        assert name in COMMANDS_BY_NAME, alias
        assert alias not in COMMANDS_BY_NAME


def test_is_command() -> None:
    assert commands.is_command("!join")
    assert commands.is_command("  !join")
    assert not commands.is_command("join")
    assert not commands.is_command("hello !join")
    assert not commands.is_command("")


# --- bad input ------------------------------------------------------------------------------------

HUGE = "9" * 5000


@pytest.mark.parametrize(
    "text",
    [
        "!bid",
        "!bid 1",
        "!bid 1 2 3",
        "!bid one 2",
        "!bid 1 two",
        "!bid 1 0",
        "!bid 0 5",
        "!bid 1 -5",
        "!bid -1 5",
        "!bid 1 1.5",
        "!bid 1 1e3",
        "!bid 1 1_000",
        "!bid 1 0x10",
        f"!bid 1 {HUGE}",
        f"!bid {HUGE} 1",
        "!bid 1 99999999999",
        "!bid 1 ²",
        "!bid 1 ١٢",
        "!bid 1 ５",
        "!bid 1 +5",
        "!join now",
        "!leave please",
        "!generate 2",
        "!lots 1",
        "!phase now",
        "!accept",
        "!accept x",
        "!accept 0",
        "!accept -1",
        "!accept 1 2",
        f"!accept {HUGE}",
        "!decline",
        "!cancel 1 2",
        "!offer",
        "!offer @bob give 10 points",
        "!offer @bob give 10 points for AS for KS",
        "!offer @bob give for AS",
        "!offer @bob give 10 points for",
        "!offer @bob give 0 points for AS",
        "!offer @bob give -3 points for AS",
        f"!offer @bob give {HUGE} points for AS",
        "!offer @bob give XX for AS",
        "!offer @bob give points for AS",
        "!offer @bob give nothing AS for KS",
        "!offer @bob give 1ZS for AS",
        "!present",
        "!present AS KS QS JS 1S",
        "!present ZZ",
        "!present 11H",
        "!present A",
        "!admin",
        "!admin foo",
        "!admin give @bob",
        "!admin give @bob nothing-at-all",
        "!admin take @bob 0 points",
        "!admin lot",
        "!admin lot AS XX",
        "!admin set",
        "!admin set auction.lots_per_auction",
        "!admin log 0",
        "!admin log 51",
        "!admin log 1 2",
        "!notify outbid",
        "!notify outbid maybe",
        "!notify everything on",
        "!notify outbid on now",
        "!inventory @alice @bob",
        "!ruleset diff 1",
        "!ruleset diff a b",
        "!ruleset bogus",
        "!confidence 1",
        "!confidence 1 maybe",
        "!overturn",
        "!rule 1",
        "!request",
        "!nosuch",
        "!",
        "!   ",
        "!\u202e",
        "!\x00",
    ],
)
def test_bad_input_is_a_rule_error_with_a_readable_message(text: str) -> None:
    message = refused(text)
    assert HUGE[:50] not in message


@pytest.mark.parametrize(
    ("text", "error"),
    [
        ("!bid 1 0", BadInputError),
        ("!bid 1 -5", BadInputError),
        (f"!bid 1 {HUGE}", BadInputError),
        ("!bid x 5", BadInputError),
        ("!offer @zed give 1 points for AS", UnknownError),
        ("!offer bob give 1 points for AS", UnknownError),
        ("!inventory @nobody", UnknownError),
        ("!admin give @zed 1 points", UnknownError),
        ("!present AS KS QS JS 1S", BadCardError),
        ("!admin lot AS XX", BadCardError),
        ("!nosuch", UnknownError),
    ],
)
def test_bad_input_error_types(text: str, error: type[RuleError]) -> None:
    refused(text, error)


def test_numbers_messages_say_what_is_wrong() -> None:
    assert "at least 1" in refused("!bid 1 0")
    assert "negative" in refused("!bid 1 -5")
    assert "too large" in refused("!bid 1 " + "9" * 1500)
    assert "too large" in refused("!offer @bob give " + "9" * 1500 + " points for AS")
    with pytest.raises(BadInputError, match="too large"):
        parse_amount(HUGE)
    assert "whole number" in refused("!bid 1 abc")


def test_ten_thousand_character_message_is_refused_before_reading() -> None:
    for text in ("!bid 1 " + "9" * 10_000, "!join " + "x" * 10_000, "!" + "\u202e" * 10_000):
        message = refused(text, BadInputError, match="too long")
        assert len(message) < 200


def test_unknown_command_is_shown_shortened_and_clean() -> None:
    message = refused("!" + "x" * 500)
    assert "x" * 30 not in message
    message = refused("!no\u202esuch\x00cmd`@everyone")
    assert "\u202e" not in message
    assert "\x00" not in message
    assert "@everyone" not in message


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("!jo\u202ein", Join()),
        ("!join\x00", Join()),
        ("\u200b!join", None),  # a zero-width space before the prefix: not a command at all
        ("!bid 1\u200b 5", PlaceBid(lot=1, amount=5)),
        ("!bid 1 5\u2066", PlaceBid(lot=1, amount=5)),
    ],
)
def test_control_and_bidi_characters_are_dropped(text: str, expected: Action | None) -> None:
    if expected is None:
        assert not commands.is_command(text)
        return
    assert parse(text, resolve) == expected


@pytest.mark.parametrize("text", ["!bid \x00 5", "!bid 1 \u202e", "!accept \u202e", "!present \x00\u2067"])
def test_control_characters_inside_arguments_are_refused_cleanly(text: str) -> None:
    refused(text)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("10 points", Items(points=10)),
        ("10points", Items(points=10)),
        ("1 pt", Items(points=1)),
        ("2 pts, AS", Items(points=2, cards=cards("AS"))),
        ("spm", Items(spm=1)),
        ("spm spm", Items(spm=2)),
        ("3 spms", Items(spm=3)),
        ("AS,AS 10h", Items(cards=cards("AS AS 10H"))),
        ("nothing", Items()),
        ("NOTHING", Items()),
    ],
)
def test_items(text: str, expected: Items) -> None:
    assert Items.parse(text) == expected


@pytest.mark.parametrize(
    "text",
    [
        "",
        "points",
        "0 points",
        "-1 points",
        "nothing nothing",
        "10 points nothing",
        "AS XX",
        "x" * 70,
        " ".join(["AS"] * 61),
        "9999999999 points 9999999999 points",
    ],
)
def test_bad_items(text: str) -> None:
    with pytest.raises(BadInputError) as info:
        Items.parse(text)
    readable(info.value)


# --- the router on a real store, fed arbitrary text ------------------------------------------------

GUILD = "g"


async def _build_template(path: Path, phase: Phase) -> None:
    store = await Store.open(path, synchronous="NORMAL")
    try:
        service = RoundService(store)
        router = Router(service)
        at = MONDAY if phase is Phase.AUCTION else FRIDAY
        ctx = Context(actor="setup", actor_name="setup", channel=ChannelRole.OTHER, at=at, event_id="setup")
        start = StartRound(
            ruleset=Ruleset(), phase=phase, presenting_open=phase is Phase.BARTERING, moderators=("mod",)
        )
        await service.start(GUILD, ctx, start, seed="s")
        ids = count(1)

        async def say(actor: str, channel: ChannelRole, text: str) -> None:
            c = Context(
                actor=actor,
                actor_name=actor,
                channel=channel,
                at=at,
                is_moderator=actor == "mod",
                event_id=f"t{next(ids)}",
            )
            posts = await router.message(GUILD, c, text, resolve, message_id=f"t{next(ids)}")
            assert posts
            assert not posts[0].error, posts[0].text

        ga = ChannelRole.GAME_ACTIONS
        for name in ("alice", "bob", "carol"):
            await say(name, ga, "!join")
            await say("mod", ga, f"!admin give @{name} 100 points 2 spm AS KS QS JS 10S 2D 2D")
        await say("mod", ga, "!admin lot AS AH")
        await say("mod", ga, "!admin lot KD KC")
        if phase is Phase.AUCTION:
            await say("alice", ChannelRole.AUCTIONS, "!bid 1 20")
            await say("bob", ChannelRole.AUCTIONS, "!bid 2 30")
        await say("alice", ga, "!offer @bob give 10 points for 2D")
        await say("bob", ga, "!offer @carol give AS for 5 points")
        await service.save_snapshots()
    finally:
        await store.close()


@pytest.fixture(scope="module")
def templates() -> Iterator[dict[Phase, Path]]:
    with tempfile.TemporaryDirectory(prefix="nomic-router-") as tmp:
        out = {}
        for phase in Phase:
            path = Path(tmp) / f"{phase.value}.db"
            asyncio.run(_build_template(path, phase))
            out[phase] = path
        yield out


WORDS = [
    *COMMANDS_BY_NAME,
    *ALIASES,
    "@alice",
    "@bob",
    "@carol",
    "@mod",
    "@zed",
    "alice",
    "1",
    "2",
    "3",
    "0",
    "-1",
    "10",
    "20",
    "50",
    "99999999999",
    "1_0",
    "AS",
    "KS",
    "QS",
    "JS",
    "10S",
    "2D",
    "AH",
    "ZZ",
    "10h",
    "points",
    "pts",
    "spm",
    "nothing",
    "for",
    "give",
    "take",
    "lot",
    "set",
    "history",
    "diff",
    "overturn",
    "affirm",
    "auction.lots_per_auction",
    "auction.revive_bids",
    "hands.prize_points",
    "calendar.week_start",
    "true",
    "off",
    "²",
    "--5",
    "\u202e",
    "\x00",
    "\u200b",
    ",",
    "#1",
    "urgent:",
    "x" * 30,
]
_command_text = st.lists(st.sampled_from(WORDS), min_size=1, max_size=8).map(lambda ws: "!" + " ".join(ws))
_any_text = st.one_of(
    st.text(max_size=60),
    st.text(max_size=60).map(lambda t: "!" + t),
    _command_text,
    _command_text,
    _command_text,
)
_actor = st.sampled_from(["alice", "bob", "carol", "mod", "zed"])
_channel = st.sampled_from(list(ChannelRole))
_batch = st.lists(st.tuples(_actor, _channel, _any_text), min_size=1, max_size=4)


async def _feed(template: Path, batch: list[tuple[str, ChannelRole, str]]) -> None:
    with tempfile.TemporaryDirectory(prefix="nomic-example-") as tmp:
        path = Path(tmp) / "round.db"
        shutil.copyfile(template, path)
        store = await Store.open(path, synchronous="NORMAL")
        try:
            service = RoundService(store, snapshot_every=3)
            router = Router(service)
            base = await service.state(GUILD)
            assert base is not None
            for n, (actor, channel, text) in enumerate(batch):
                before = await service.state(GUILD)
                assert before is not None
                ctx = Context(
                    actor=actor,
                    actor_name=actor,
                    channel=channel,
                    at=before.clock + timedelta(minutes=n + 1),
                    is_moderator=actor == "mod",
                    event_id=f"msg:h{n}",
                )
                posts = await router.message(GUILD, ctx, text, resolve, message_id=f"h{n}")
                after = await service.state(GUILD)
                assert after is not None
                if commands.is_command(text):
                    assert posts, f"no answer to {text!r}"
                for post in posts:
                    assert post.text.strip(), f"an empty answer to {text!r}"
                if posts and all(p.error for p in posts):
                    assert after == before, f"refused {text!r} but the state changed"
                    assert all(p.text.startswith("Can't do that") for p in posts)
                if after != before:
                    assert after.seq == before.seq + 1
                    assert not any(p.error for p in posts)
                else:
                    assert after.seq == before.seq
            # what was committed replays to the same state from the store
            final = await service.state(GUILD)
            reloaded = await RoundService(store, snapshot_every=3).state(GUILD)
            assert reloaded == final
        finally:
            await store.close()


@pytest.mark.parametrize("phase", list(Phase))
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(batch=_batch)
def test_router_answers_every_command_and_refusals_change_nothing(
    templates: dict[Phase, Path], phase: Phase, batch: list[tuple[str, ChannelRole, str]]
) -> None:
    asyncio.run(_feed(templates[phase], batch))


@pytest.mark.parametrize(
    "text",
    [
        "!bid 1 " + "9" * 10_000,
        "!" + "\u202e" * 5000,
        "!admin set auction.lots_per_auction ²",
        "!admin set auction.lots_per_auction --5",
        "!admin set hands.prize_points 1,²,3",
        "!admin set calendar.week_start \x00",
        "!bid 1 " + "9" * 5000,
        "!offer @bob give " + "AS " * 100 + "for nothing",
        "!present " + "AS " * 400,
        "!request " + "?" * 1990,
        "\x00\x00!join",
    ],
)
def test_router_survives_nasty_messages(templates: dict[Phase, Path], text: str) -> None:
    for actor in ("mod", "alice"):
        asyncio.run(_feed(templates[Phase.AUCTION], [(actor, ChannelRole.GAME_ACTIONS, text)]))
