"""The round's web record: every page of a replayed season, its JSON twin, and what it never shows."""

from __future__ import annotations

import hashlib
import json
import re
import unicodedata
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bot.web import pages
from bot.web.render import to_html, to_json
from bot.web.season import Season
from bot.web.site import NotFound, Redirect
from data.read_store import ReadOnlyError, ReadStore
from games.nomic.actions import OfferTrade, PresentHand
from games.nomic.items import Items
from games.nomic.phases import BoundaryKind, Phase
from games.nomic.state import JudgeRequest, Proposal, RulesetVersion

from .support import FRIDAY, SATURDAY, apply, cards, give, new_round, tick
from .web_support import (
    GUILD,
    HOSTILE_GUILD,
    HOSTILE_NAMES,
    RTL_WORD,
    isolation_faults,
    read_only_site,
    render,
    replay_hostile_season,
    replay_into,
    replay_season,
    strings_of,
)

WEEK_1 = "2026-12-06"
WEEK_2 = "2026-12-13"


@pytest.fixture(scope="module")
def season_db(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, Any]]:
    """The whole season replayed into a file, with its state document."""
    db = tmp_path_factory.mktemp("web") / "season.db"
    return db, replay_into(db)


def _text(html: str) -> str:
    """The page's words, tags left out (entities kept: escaping is checked on the HTML)."""
    return " ".join(re.sub(r"<[^>]+>", " ", html).split())


async def test_the_front_pages_and_the_ruleset_with_its_history_and_diffs(
    season_db: tuple[Path, dict[str, Any]],
) -> None:
    db, document = season_db
    async with read_only_site(db) as site:
        html, data = await render(site, "/")
        assert data["guilds"] == [{"id": GUILD, "name": "Server sim", "url": "/g/sim"}]
        assert 'href="/g/sim"' in html

        html, data = await render(site, "/g/sim")
        assert data["ruleset"]["version"] == document["ruleset_version"] == 3
        assert data["judge"] is None
        assert data["players"] == len(document["players"]) == 4
        assert data["now"]["phase"] == document["phase"] == "auction"
        assert data["now"]["ends"] == "2026-12-24T00:00:00Z"
        assert data["now"]["time_left"] == "4d"
        assert [p["number"] for p in data["latest_decided"]] == [3, 2, 1]
        assert data["weeks"] == 4

        html, data = await render(site, "/g/sim/ruleset")
        options = {o["option"]: o["value"] for s in data["sections"] for o in s["options"]}
        assert options["auction.lots_per_auction"] == "8"
        assert options["hands.poker_kickers"] == "true"
        assert data["made"]["by"] == {"text": "moderator mod", "kind": "moderator", "who": "mod", "url": None}
        assert "auction.lots_per_auction" in html
        assert "how many lots an auction holds" in html

        # versions 1 and 2 left the state for the archive at the week's start: the history still has them
        html, data = await render(site, "/g/sim/ruleset/history")
        rows = data["versions"]
        assert [v["version"] for v in rows] == [3, 2, 1]
        assert rows[1]["by"]["url"] == "/g/sim/proposals/1"
        assert rows[1]["change"] == "auction.lots_per_auction = 8"
        assert rows[0]["in_force"]
        assert rows[0]["diff_url"] == "/g/sim/ruleset/diff/2/3"
        assert rows[2]["diff_url"] is None
        assert 'href="/g/sim/proposals/1"' in html
        assert '<form class="inline box" method="get" action="/g/sim/ruleset/diff">' in html

        _, data = await render(site, "/g/sim/ruleset/v/1")
        assert {o["option"]: o["value"] for s in data["sections"] for o in s["options"]}[
            "auction.lots_per_auction"
        ] == "6"
        assert data["by"]["text"] == "initial"
        assert not data["in_force"]
        assert data["current_diff_url"] == "/g/sim/ruleset/diff/1/3"

        html, data = await render(site, "/g/sim/ruleset/diff/1/3")
        assert [(c["option"], c["old"], c["new"]) for c in data["changed"]] == [
            ("auction.lots_per_auction", "6", "8"),
            ("hands.poker_kickers", "false", "true"),
        ]
        _, same = await render(site, "/g/sim/ruleset/diff/2/2")
        assert same["changed"] == []
        with pytest.raises(Redirect) as moved:
            await site.page("/g/sim/ruleset/diff", {"from": "1", "to": "2"})
        assert moved.value.location == "/g/sim/ruleset/diff/1/2"


async def test_this_week_players_and_prizes(season_db: tuple[Path, dict[str, Any]]) -> None:
    db, document = season_db
    async with read_only_site(db) as site:
        _, data = await render(site, "/g/sim/week")
        assert data["lots"] == []
        assert data["lots_per_auction"] == 8
        assert data["hands"] == []
        assert data["placements"] == []  # nobody presented for the second placements

        html, data = await render(site, "/g/sim/players")
        shown = {p["id"]: (p["points"], p["cards"], p["spm"]) for p in data["players"]}
        expected = {
            pid: (p["points"], len(p["cards"]), p["items"]["standard_proposal_maker"])
            for pid, p in document["players"].items()
        }
        assert shown == expected
        assert [p["id"] for p in data["players"]] == ["alice", "carol", "dave", "bob"]  # by points
        wins = {p["id"]: (p["placements_won"], p["lots_won"]) for p in data["players"]}
        assert wins == {"alice": (1, 0), "bob": (1, 1), "carol": (1, 1), "dave": (0, 1)}
        assert "AS" not in _text(html)  # bob holds AS KD: how many cards, never which

        _, data = await render(site, "/g/sim/players/alice")
        assert data["prizes"] == [
            {
                "week": WEEK_1,
                "at": "2026-12-12T00:00:00Z",
                "what": "placement",
                "place": 1,
                "ordinal": "1st",
                "category": "Straight Flush",
                "prize": "20 points, 1 Standard Proposal-Maker",
                "cards_returned": False,
            }
        ]
        assert [t["week"] for t in data["judge_terms"]] == [WEEK_1]
        assert [p["number"] for p in data["proposals"]] == [2]

        _, data = await render(site, "/g/sim/players/bob")
        assert [(x["what"], x.get("lot"), x.get("amount"), x.get("prize")) for x in data["prizes"]] == [
            ("placement", None, None, "10 points, 1 Standard Proposal-Maker"),
            ("lot", 1, 40, None),
        ]
        assert [t["how"] for t in data["judge_terms"]] == ["elected with 2 votes"]


async def test_proposals_with_votes_outcomes_amendments_and_escaped_text(
    season_db: tuple[Path, dict[str, Any]],
) -> None:
    db, document = season_db
    async with read_only_site(db) as site:
        _, data = await render(site, "/g/sim/proposals")
        assert data["open"] == []
        decided = {p["number"]: (p["class"], p["status"], p["votes_for"], p["votes_against"]) for p in data["decided"]}
        assert decided == {
            1: ("urgent", "passed", 2, 0),
            2: ("standard", "passed", 2, 1),
            3: ("urgent", "failed", 0, 3),
        }
        assert {p["number"]: p["status"] for p in document["proposals"]} == {1: "passed", 2: "passed", 3: "failed"}

        html, data = await render(site, "/g/sim/proposals/1")
        assert data["amendments"] == [{"option": "auction.lots_per_auction", "value": "8"}]
        assert [v["version"] for v in data["ruleset_versions"]] == [2]
        assert data["decided_at"] == "2026-12-07T12:20:00Z"
        assert data["discord_url"] is None  # the simulator's messages are not on Discord
        assert 'href="/g/sim/ruleset/v/2"' in html
        assert "Eight lots a week" in html

        html, data = await render(site, "/g/sim/proposals/3")
        assert data["text"] == "urgent: <b>bold</b> & <script>alert(1)</script> should stay text"
        assert "<script>" not in html
        assert "<b>bold" not in html
        assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html
        assert "&amp;" in html


async def test_requests_rulings_votes_of_confidence_and_judges_by_week(season_db: tuple[Path, dict[str, Any]]) -> None:
    db, _ = season_db
    async with read_only_site(db) as site:
        _, data = await render(site, "/g/sim/rulings")
        assert [r["number"] for r in data["in_play"]] == [3, 1]
        assert [r["number"] for r in data["settled"]] == [2]  # archived at the week's start
        weeks = {w["week"]: w for w in data["weeks"]}
        assert [j["name"] for j in weeks[WEEK_1]["judges"]] == ["alice"]
        assert [(j["name"], j["how"]) for j in weeks[WEEK_2]["judges"]] == [
            ("bob", "elected with 2 votes"),
            (None, "bob resigns as judge."),
        ]
        assert weeks[WEEK_1]["requests"] == [1, 2]
        assert weeks[WEEK_1]["confidence"] == [
            {"request": 1, "overturned": True, "votes_overturn": 2, "votes_affirm": 1, "at": "2026-12-08T12:00:00Z"}
        ]
        assert [j["how"] for j in weeks["2026-12-20"]["judges"]] == ["nobody stood for judge"]

        _, data = await render(site, "/g/sim/rulings/1")
        assert data["status"] == "overturned"
        assert [r["judge_name"] for r in data["rulings"]] == ["alice"]
        assert data["confidence_running"] is None
        assert [c["overturned"] for c in data["confidence_decided"]] == [True]

        _, data = await render(site, "/g/sim/rulings/2")
        assert data["settled"]
        assert data["rulings"][0]["text"] == "Yes, within a week, to replace their own ruling."


async def test_thread_games_and_the_season_week_by_week(season_db: tuple[Path, dict[str, Any]]) -> None:
    db, document = season_db
    async with read_only_site(db) as site:
        html, data = await render(site, "/g/sim/games")
        [table] = data["tables"]
        assert table["name"] == "wikipedia-1" == document["tables"][0]["thread"]
        assert table["status"] == "lost"
        assert [s["name"] for s in table["seats"]] == ["AI-1", "AI-2", "carol"]
        assert table["summary"].startswith("The editors lost")
        assert "board" not in json.dumps(table)

        _, data = await render(site, "/g/sim/season")
        assert [w["week"] for w in data["weeks"]] == ["2026-12-20", WEEK_2, WEEK_1, "2026-11-29"]
        week = {w["week"]: w for w in data["weeks"]}[WEEK_1]
        assert [(lot["lot"], lot["name"], lot["amount"]) for lot in week["lots"]] == [(1, "bob", 40), (2, "carol", 25)]
        assert [(r["place"], r["name"], r["prize"]) for r in week["winners"]] == [
            (1, "alice", "20 points, 1 Standard Proposal-Maker"),
            (2, "bob", "10 points, 1 Standard Proposal-Maker"),
            (3, "carol", "30 points"),
        ]
        assert week["placements"] == []  # every place is on the week's own page
        _, whole = await render(site, f"/g/sim/season/{WEEK_1}")
        assert [r["category"] for r in whole["placements"]] == ["Straight Flush", "Full House", "Two Pair"]
        assert [(p["number"], p["passed"]) for p in week["proposals"]] == [(1, True)]

        html, data = await render(site, f"/g/sim/season/{WEEK_2}")
        assert [(lot["lot"], lot["name"]) for lot in data["lots"]] == [(3, "dave")]
        assert [(p["number"], p["passed"]) for p in data["proposals"]] == [(3, False), (2, True)]
        assert [v["version"] for v in data["ruleset_versions"]] == [3]
        assert "bob resigns as judge." in html


async def test_the_season_replayed_from_the_log_ends_in_the_round_s_own_state(
    season_db: tuple[Path, dict[str, Any]],
) -> None:
    db, _ = season_db
    async with read_only_site(db) as site:
        season = await site.seasons.season(GUILD)
        state = await site.service.state(GUILD)
        assert season.state == state
        again = await site.seasons.season(GUILD)  # nothing new in the log: the same fold, kept
        assert again is season
        assert again.seq == state.seq if state is not None else False


async def test_every_page_has_a_json_twin_and_unknown_addresses_are_not_found(
    season_db: tuple[Path, dict[str, Any]],
) -> None:
    db, _ = season_db
    paths = [
        "/", "/g/sim", "/g/sim/week", "/g/sim/ruleset", "/g/sim/ruleset/history", "/g/sim/ruleset/v/2",
        "/g/sim/ruleset/diff/3/1", "/g/sim/players", "/g/sim/players/dave", "/g/sim/proposals", "/g/sim/proposals/2",
        "/g/sim/rulings", "/g/sim/rulings/3", "/g/sim/games", "/g/sim/season", f"/g/sim/season/{WEEK_2}",
    ]  # fmt: skip
    async with read_only_site(db) as site:
        for path in paths:
            html, data = await render(site, path)
            assert data["html"] == path
            assert html.startswith("<!doctype html>")
            assert f'href="{path.rstrip("/") or "/index"}.json"' in html or path == "/"
        for bad in (
            "/g/nowhere", "/g", "/x", "/g/sim/nothing", "/g/sim/proposals/0", "/g/sim/proposals/4",
            "/g/sim/proposals/x",
            "/g/sim/proposals/99999999999999999999", "/g/sim/ruleset/v/9", "/g/sim/ruleset/diff/1/9",
            "/g/sim/season/2026-12-07", "/g/sim/season/../../etc", "/g/sim/players/nobody", "/g/sim/players/<b>",
            "/g/sim/rulings/7", "/g/sim/proposals/1/2", "/g/" + "x" * 400,
        ):  # fmt: skip
            with pytest.raises(NotFound):
                await site.page(bad)


async def test_the_site_reads_the_file_and_never_writes_it(tmp_path: Path) -> None:
    db = tmp_path / "season.db"
    await replay_season(db, until=None)
    before = hashlib.sha256(db.read_bytes()).hexdigest()
    async with read_only_site(db) as site:
        for path in ("/g/sim", "/g/sim/season", "/g/sim/players/alice", "/g/sim/rulings/1"):
            await site.page(path)
        with pytest.raises(ReadOnlyError):
            await site.read.append(GUILD, seq=1)
    assert hashlib.sha256(db.read_bytes()).hexdigest() == before


async def test_a_replay_going_on_beside_the_site_shows_on_its_pages(tmp_path: Path) -> None:
    db = tmp_path / "season.db"
    await replay_season(db, last=datetime(2026, 12, 6, 12, tzinfo=UTC), until=None)
    async with read_only_site(db) as site:
        _, data = await render(site, "/g/sim/week")
        assert [(lot["number"], lot["high_bid"]["amount"]) for lot in data["lots"]] == [(1, 40), (2, 25)]
        await replay_season(db)  # the rest of the season, written by another connection meanwhile
        _, data = await render(site, "/g/sim/week")
        assert data["lots"] == []
        _, data = await render(site, "/g/sim/season")
        assert len(data["weeks"]) == 4


async def test_mid_week_the_lots_their_high_bids_and_the_hands_presented(tmp_path: Path) -> None:
    auction = tmp_path / "auction.db"
    await replay_season(auction, last=datetime(2026, 12, 8, tzinfo=UTC), until=None)
    async with read_only_site(auction) as site:
        html, data = await render(site, "/g/sim/week")
        assert data["now"]["phase"] == "auction"
        assert data["now"]["ends"] == "2026-12-10T00:00:00Z"
        lots = [
            (lot["number"], lot["cards"], lot["high_bid"]["name"], lot["high_bid"]["amount"]) for lot in data["lots"]
        ]
        assert lots == [(1, ["AS", "KD"], "bob", 40), (2, ["AC", "QS"], "carol", 25)]
        assert "40 by" in _text(html)

    bartering = tmp_path / "bartering.db"
    await replay_season(bartering, last=datetime(2026, 12, 11, 12, tzinfo=UTC), until=None)
    async with read_only_site(bartering) as site:
        html, data = await render(site, "/g/sim/week")
        assert data["now"]["phase"] == "bartering"
        assert data["now"]["presenting_open"]
        assert data["now"]["placements_at"] == "2026-12-12T00:00:00Z"
        hands = [(h["name"], h["cards"], h["category"]) for h in data["hands"]]
        assert hands == [
            ("alice", ["6S", "5S", "4S", "3S", "2S"], "Straight Flush"),
            ("bob", ["AH", "AC", "AD", "KS", "KC"], "Full House"),
            ("carol", ["9H", "9D", "3C", "3D", "2C"], "Two Pair"),
        ]
        assert "6♠" in html
        _, home = await render(site, "/g/sim")
        assert home["judge"]["name"] == "alice"
        assert home["hands_presented"] == 3


PAGES = [
    "/", "/g/sim", "/g/sim/week", "/g/sim/ruleset", "/g/sim/ruleset/history", "/g/sim/ruleset/v/2",
    "/g/sim/ruleset/diff/3/1", "/g/sim/players", "/g/sim/players/dave", "/g/sim/proposals", "/g/sim/proposals/2",
    "/g/sim/rulings", "/g/sim/rulings/3", "/g/sim/games", "/g/sim/season", f"/g/sim/season/{WEEK_2}",
]  # fmt: skip


async def test_what_members_wrote_is_isolated_for_direction_on_every_page(tmp_path: Path) -> None:
    """Names, proposals, requests and rulings with overrides, isolates and zero-width characters disguise
    nothing: each sits in an isolate of its own, what follows it is outside, and names show what they hide."""
    from bot.web.site import Site
    from games.nomic.service import RoundService

    db = tmp_path / "hostile.db"
    await replay_hostile_season(db)
    read = await ReadStore.open(db)
    try:
        site = Site(read, RoundService(read), live=False, names=lambda _: HOSTILE_GUILD)
        shown = [await site.page(path) for path in ("/", "/g/sim", *(p for p in PAGES[2:] if "players/" not in p))]
        shown += [await site.page(f"/g/sim/season/{week}") for week in ("2026-12-06", "2026-12-20")]
        head, state, _ = await site.guild("sim")
        season = await site.season("sim")
        proposals = await site.proposals("sim", state)
        shown += [await site.page(f"/g/sim/proposals/{p.number}") for p in proposals]
        shown += [await site.page(f"/g/sim/rulings/{r.number}") for r in await site.requests("sim", state)]
        shown += [  # a name like these has no address: its page is made here
            pages.player_page(head, member, state, season, proposals)
            for member in HOSTILE_NAMES.values()
            if pages.known_member(member, state, season, proposals)
        ]
        # a typed @name loses what it hides, so these names get no cards to present in the scenario: here they do
        placed = new_round(Phase.BARTERING, at=FRIDAY, players=list(HOSTILE_NAMES.values())[:3])
        for name, hand in zip(placed.players, ("2S 3S 4S 5S 6S", "AC AD AH KS KC", "3D 3C 9H 9D 2C"), strict=True):
            placed = apply(give(placed, name, hand=hand), name, PresentHand(cards=cards(hand)))
        shown.append(pages.week_page(head, placed, placed.clock))
        placed = tick(placed, SATURDAY, BoundaryKind.PLACEMENTS)
        assert len(placed.last_placements) == 3
        shown.append(pages.week_page(head, placed, placed.clock))
        assert any(RTL_WORD in s for page in shown for s in strings_of(page.data))  # the members' texts are there
        for page in shown:
            html = to_html(page)
            written = [*strings_of(page.data), page.title, HOSTILE_GUILD, *(label for label, _ in page.crumbs)]
            assert isolation_faults(html, written) == [], page.path
            assert "<b>" not in html, page.path
            assert "<i>" not in html, page.path
        players = to_html(await site.page("/g/sim/players"))
        unseen = '<span class="unseen">⟨U+{}⟩</span>'.format
        dave = f"{unseen('2067')}&lt;i&gt;dave{unseen('2069')}{unseen('2069')}&amp;{unseen('200B')}"
        assert f"<bdi>{dave}</bdi>" in players  # the hidden characters shown, the markup escaped
        assert f"<bdi>{unseen('202E')}ecila</bdi>" in players  # never "alice"
        assert "<bdi>בוב</bdi>" in players
        mod = f"moderator m{unseen('200D')}od{unseen('061C')}{unseen('200F')}{unseen('2066')}"
        assert f"<bdi>{mod}</bdi>" in to_html(await site.page("/g/sim/ruleset"))
        assert "<title>Players · \u2068⟨U+202E⟩SERVER⟨U+200B⟩\u2069</title>" in players
        _, data = await render(site, "/g/sim/players")
        assert {p["name"] for p in data["players"]} == set(HOSTILE_NAMES.values()) - {HOSTILE_NAMES["mod"]}
    finally:
        await read.close()


def _all_pages(state: Any, g: pages.GuildHead) -> list[pages.Page]:
    now = state.clock
    return [
        pages.home_page(g, state, now, list(state.proposals.values()), None),
        pages.week_page(g, state, now),
        pages.players_page(g, state, None),
        *(pages.player_page(g, pid, state, None, []) for pid in state.players),
        pages.ruleset_page(g, state),
        pages.proposals_page(g, state, list(state.proposals.values())),
        pages.rulings_page(g, state, list(state.requests.values()), None),
        pages.season_page(g, None),
    ]


def test_no_page_shows_a_card_in_hand_or_an_offer_not_accepted() -> None:
    """Cards held (only their owner sees which) and a trade offer's items never reach a page or its JSON."""
    state = new_round(Phase.BARTERING, at=FRIDAY, players=["alice", "bob"])
    state = give(state, "alice", points=50, hand="7C 7D QH JS 4D 9C")
    state = give(state, "bob", points=40, hand="8H 8S 2C 5D 6H")
    state = apply(state, "bob", PresentHand(cards=cards("8H 8S 2C 5D 6H")))
    offer = OfferTrade(target="bob", give=Items(cards=cards("7C")), get=Items(points=33))
    state = apply(state, "alice", offer)
    assert state.trades
    g = pages.GuildHead("g1", "Test")
    for page in _all_pages(state, g):
        shown = to_html(page) + to_json(page)
        for code in ("7C", "7♣", "7D", "QH", "JS", "J♠", "4D", "9C"):
            assert not re.search(rf"(?<![\w]){code}(?![\w])", shown), (page.path, code)
        assert "33 points" not in shown
    players = pages.players_page(g, state, None).data["players"]
    assert {p["id"]: p["cards"] for p in players} == {"alice": 6, "bob": 0}
    week = to_html(pages.week_page(g, state, state.clock))
    assert "8♥" in week  # a presented hand is public: it was announced when presented


def test_a_running_vote_of_confidence_shows_no_count_until_it_ends() -> None:
    from games.nomic.actions import CastConfidence, Challenge, GiveRuling, MakeRequest

    state = new_round(players=["alice", "bob", "carol"])
    state = state.model_copy(update={"judge": "alice", "judge_name": "alice"})
    state = apply(state, "bob", MakeRequest(text="Is this fine?"))
    state = apply(state, "alice", GiveRuling(number=1, text="Yes."))
    state = apply(state, "carol", Challenge(number=1))
    state = apply(state, "bob", CastConfidence(number=1, overturn=True))
    g = pages.GuildHead("g1", "Test")
    page = pages.request_page(g, state.requests[1], state, None)
    assert page.data["confidence_running"]["started_by"] == "carol"
    assert page.data["confidence_decided"] == []
    assert set(page.data["confidence_running"]) == {"started_by", "started_at", "ends_at"}


def test_a_proposal_links_to_its_message_on_discord() -> None:
    state = new_round(players=["alice"])
    proposal = Proposal(
        number=4,
        message="1234567890123",
        author="alice",
        author_name="alice",
        text="More lots",
        kind="urgent",
        status="voting",
        created_at=state.clock,
    )
    g = pages.GuildHead("99887766554433", "Nomic")
    url = "https://discord.com/channels/99887766554433/555/1234567890123"
    html = to_html(pages.proposal_page(g, proposal, state, (), url))
    assert f'<a href="{url}">the message in #proposals</a>' in html
    assert "(so far)" in html


async def test_links_to_discord_need_a_discord_guild_channel_and_message(tmp_path: Path) -> None:
    from data.store import Store

    db = tmp_path / "season.db"
    await replay_season(db, until=None)
    store = await Store.open(db)
    await store.bind_channel("99887766554433", "proposals", "555")
    await store.close()
    async with read_only_site(db) as site:
        assert await site.message_url("99887766554433", "proposals", "1234") == (
            "https://discord.com/channels/99887766554433/555/1234"
        )
        assert await site.message_url("99887766554433", "auctions", "1234") is None  # no channel bound
        assert await site.message_url(GUILD, "proposals", "1234") is None
        assert await site.message_url("99887766554433", "proposals", "p1") is None


def test_a_season_of_a_log_with_a_gap_is_an_error_the_pages_can_show() -> None:
    from bot.web.season import SeasonError, replay_step

    ctx = {"actor": "a", "actor_name": "a", "channel": "game-actions", "at": "2026-12-06T00:00:00Z"}
    body = json.dumps({"ctx": ctx, "action": {"kind": "join"}})
    with pytest.raises(SeasonError):
        replay_step(GUILD, None, 3, body)
    with pytest.raises(SeasonError, match="cannot be read"):
        replay_step(GUILD, None, 1, "not a logged action")
    assert pages.season_page(pages.GuildHead("g1", "Test"), None).data == {"weeks": [], "available": False}


async def test_a_read_only_view_refuses_a_missing_file_and_one_without_a_round(tmp_path: Path) -> None:
    import sqlite3

    from data.base import StoreOpenError

    with pytest.raises(StoreOpenError, match="no such file"):
        await ReadStore.open(tmp_path / "none.db")
    other = tmp_path / "other.db"
    sqlite3.connect(other).execute("CREATE TABLE notes (x)").connection.close()
    with pytest.raises(StoreOpenError, match="holds no round"):
        await ReadStore.open(other)
    assert not (tmp_path / "none.db").exists()


def test_archived_kinds_are_the_ones_the_site_reads() -> None:
    from games.nomic.archive import KIND_OF

    assert set(KIND_OF) == {Proposal, JudgeRequest, RulesetVersion}
    assert isinstance(Season(GUILD).weeks, dict)


def _directions_closed(text: str) -> bool:
    """Whether every direction each line of the text opens is closed in it, and it closes none it did not
    open: taking out innermost pairs (an opening right before its close) leaves no control."""
    for line in text.split("\n"):
        left = re.sub(r"[^\u202a-\u202e\u2066-\u2069]", "", line)
        while (fewer := re.sub(r"[\u202a\u202b\u202d\u202e]\u202c|[\u2066\u2067\u2068]\u2069", "", left)) != left:
            left = fewer
        if left:
            return False
    return True


DIRECTIONAL = st.text(st.sampled_from("ab א\n\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"), max_size=30)


@given(DIRECTIONAL)
def test_a_text_s_directions_are_closed_within_it_and_nothing_else_changes(text: str) -> None:
    from bot.web.render import PDF, PDI, balanced

    shown = balanced(text)
    assert _directions_closed(shown)
    assert [c for c in shown if c not in {PDF, PDI}] == [c for c in text if c not in {PDF, PDI}]
    assert balanced(shown) == shown


@given(st.text(max_size=30))
def test_a_name_hides_nothing_and_is_escaped_within_its_own_isolate(name: str) -> None:
    from bot.web.render import member

    html = str(member(name))
    assert html.startswith("<bdi>")
    assert html.endswith("</bdi>")
    inner = html[len("<bdi>") : -len("</bdi>")]
    assert "<bdi" not in inner
    assert "</bdi" not in inner
    assert not any(unicodedata.category(c) in {"Cc", "Zl", "Zp"} for c in inner)
    assert not set(inner) & set("\u061c\u200b\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\ufeff")
    assert "<" not in re.sub(r'<span class="unseen">⟨U\+[0-9A-F]{4,6}⟩</span>', "", inner)


def test_names_show_the_characters_they_hide_but_keep_those_emoji_and_scripts_need() -> None:
    from bot.web.render import member, member_text, said

    unseen = '<span class="unseen">⟨U+{}⟩</span>'.format
    assert str(member("\u202eecila")) == f"<bdi>{unseen('202E')}ecila</bdi>"
    assert str(member("al\u200dice")) == f"<bdi>al{unseen('200D')}ice</bdi>"  # joining nothing
    assert str(member("\u200c")) == f"<bdi>{unseen('200C')}</bdi>"
    family = "\U0001f468\u200d\U0001f469\u200d\U0001f467"
    assert str(member(family)) == f"<bdi>{family}</bdi>"
    assert str(member("می\u200cخواهم")) == "<bdi>می\u200cخواهم</bdi>"  # a Persian non-joiner
    scotland = "\U0001f3f4\U000e0067\U000e0062\U000e0073\U000e0063\U000e0074\U000e007f"
    assert str(member(scotland)) == f"<bdi>{scotland}</bdi>"
    assert str(member("bob\U000e0062")) == f"<bdi>bob{unseen('E0062')}</bdi>"
    assert str(member("\u3164")) == f"<bdi>{unseen('3164')}</bdi>"  # a filler that draws nothing
    assert str(member("<b>&\"'")) == "<bdi>&lt;b&gt;&amp;&#34;&#39;</bdi>"
    assert str(member(None)) == ""
    assert member_text("a\u202eb") == "\u2068a⟨U+202E⟩b\u2069"
    assert str(said("x \u202e<y>\n\u2069z")) == "<bdi>x \u202e&lt;y&gt;\u202c\nz</bdi>"
