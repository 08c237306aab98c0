"""The web record's ruleset as the document: a rule's anchor, the values the bot enforces marked with their
options, the mechanics of a rule shown, the rulings that cite it, its history word by word, diffs between
versions, the moderators' open to-do items, and the wiki export of all of it.

The round is tests/scenarios/ruleset_document.jsonl (see tests/test_ruleset_replay.py): rule 4.2 amended to
eight lots, rule 4.4's words changed, rule 5.3 repealed, rule 4.5 enacted as words the bot does not enforce,
a request naming rule 4.2 and one naming rule 4.20, to-do item 3 done; at its end a moderator's own document
whose rule 4.2 has a rule block.
"""

from __future__ import annotations

import asyncio
import io
import re
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from bot.sim.replay import read_scenario, replay
from bot.web import pages
from bot.web.render import to_html
from bot.web.site import NotFound
from bot.web.wiki import export_guild
from games.nomic.document import parse_markdown
from games.nomic.state import JudgeRequest, RequestStatus

from .test_ruleset_replay import SCENARIO
from .web_support import isolation_faults, read_only_site, render, strings_of

BEFORE_IMPORT = datetime(2026, 12, 14, tzinfo=UTC)


async def replay_rules(db: Path, upto: datetime | None = BEFORE_IMPORT) -> Path:
    """The scenario (its lines up to ``upto``, the clock run on to it) replayed into ``db``."""
    lines = [(n, line) for n, line in read_scenario(SCENARIO, io.StringIO()) if upto is None or line.at <= upto]
    await replay(lines, seed="5", db=db, until=upto)
    return db


def replayed(db: Path, upto: datetime | None) -> Path:
    return asyncio.run(replay_rules(db, upto))


@pytest.fixture(scope="module")
def week_two(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The round early in its second week: five versions, the default document as proposals left it."""
    return replayed(tmp_path_factory.mktemp("web-ruleset") / "round.db", BEFORE_IMPORT)


@pytest.fixture(scope="module")
def imported(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The whole scenario: the moderators' own document, whose rule 4.2 has mechanics."""
    return replayed(tmp_path_factory.mktemp("web-ruleset") / "round.db", None)


def _rules(data: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {r["number"]: r for s in data["document"]["sections"] for r in s["rules"]}


def _section(html: str, anchor: str) -> str:
    """The HTML of one rule's section on the page."""
    found = re.search(rf'<section class="rule" id="{re.escape(anchor)}">(.*?)</section>', html, re.DOTALL)
    assert found is not None, anchor
    return found[1]


async def test_the_ruleset_page_is_the_document_each_rule_at_its_anchor(week_two: Path) -> None:
    async with read_only_site(week_two) as site:
        html, data = await render(site, "/g/sim/ruleset")
    document = data["document"]
    assert document["title"] == "The rules of the round"
    assert [s["number"] for s in document["sections"]] == list(range(1, 14))
    rules = _rules(data)
    assert "5.3" not in rules
    assert list(rules)[11:17] == ["4.1", "4.2", "4.3", "4.4", "4.5", "5.1"]
    for number, rule in rules.items():
        assert rule["anchor"] == f"rule-{number}"
        assert f'<section class="rule" id="rule-{number}">' in html
        assert f'<a href="#rule-{number}">{number}</a>' in html  # the contents and the rule's own heading
        assert rule["history_url"] == f"/g/sim/ruleset/rules/{number}"
    assert '<h2 id="section-4">4. <bdi>Auctions</bdi></h2>' in html


async def test_a_value_the_bot_enforces_is_marked_with_its_option(week_two: Path) -> None:
    async with read_only_site(week_two) as site:
        html, data = await render(site, "/g/sim/ruleset")
    rule = _rules(data)["4.2"]
    assert rule["text"] == "Each auction phase offers 8 lots of 2 cards."
    bound = [None, "auction.lots_per_auction", None, "auction.cards_per_lot", None]
    assert [p.get("option") for p in rule["parts"]] == bound
    assert rule["parts"][1]["value"] == "8"
    assert [b["option"] for b in rule["binds"]] == ["auction.lots_per_auction", "auction.cards_per_lot"]
    section = _section(html, "rule-4.2")
    assert (
        '<bdi>Each auction phase offers <strong class="bound" title="auction.lots_per_auction: how many lots an'
        ' auction holds" data-option="auction.lots_per_auction">8</strong> lots of <strong class="bound"'
    ) in section
    assert "Enforced by the bot: lots per auction (<code>auction.lots_per_auction</code>) = <bdi>8</bdi>" in section
    # rule 4.5's words are enforced by nobody but people: nothing of it is marked
    enacted = _rules(data)["4.5"]
    assert enacted["binds"] == []
    assert not enacted["mechanics"]
    assert 'class="bound"' not in _section(html, "rule-4.5")
    assert "mechanics" not in _section(html, "rule-4.5")


async def test_the_rulings_that_cite_a_rule_are_under_it(week_two: Path) -> None:
    async with read_only_site(week_two) as site:
        html, data = await render(site, "/g/sim/ruleset")
    rules = _rules(data)
    assert [r["number"] for r in rules["4.2"]["rulings"]] == [1]  # request 2 names rule 4.20, not 4.2
    assert all(not r["rulings"] for n, r in rules.items() if n != "4.2")
    section = _section(html, "rule-4.2")
    assert '<a href="/g/sim/rulings/1">Request 1</a> (open) by <bdi>alice</bdi>' in section
    assert "<bdi>Do the lots carried over count towards the 8 of rule 4.2?</bdi>" in section


async def test_the_moderators_open_to_do_items_are_listed_until_done(week_two: Path) -> None:
    async with read_only_site(week_two) as site:
        html, data = await render(site, "/g/sim/ruleset")
        _, home = await render(site, "/g/sim")
    assert [(t["number"], t["proposal"]) for t in data["todo"]] == [(1, 4), (2, 5), (4, 3)]  # item 3 is done
    assert data["todo"][0]["lines"] == [
        (
            "rule 4.4 “Settling the auction” now says “Each lot goes to its earliest bid that is still valid at that"
            " moment, and the winner pays for it then, so paying for one lot can leave a later bid unpaid.”"
        )
    ]
    todo = html[html.index('<h2 id="todo">') : html.index('<h2 id="options">')]
    assert '<li value="4">From <a href="/g/sim/proposals/3">proposal 3</a>' in todo
    assert "is paid by hand" not in todo
    assert home["open_todos"] == 3
    assert home["links"]["todo"] == "/g/sim/ruleset#todo"


async def test_a_rule_s_page_gives_its_history_word_by_word(week_two: Path) -> None:
    async with read_only_site(week_two) as site:
        html, data = await render(site, "/g/sim/ruleset/rules/4.2")
        assert data["in_force"]
        assert data["in_document_url"] == "/g/sim/ruleset#rule-4.2"
        assert [(h["version"], h["kind"]) for h in data["history"]] == [(3, "changed"), (1, "in force from the start")]
        assert data["history"][0]["words"] == [
            {"kind": "same", "text": "Each auction phase offers"},
            {"kind": "removed", "text": "6"},
            {"kind": "added", "text": "8"},
            {"kind": "same", "text": "lots of 2 cards."},
        ]
        assert "<bdi>Each auction phase offers</bdi> <del><bdi>6</bdi></del> <ins><bdi>8</bdi></ins>" in html
        assert '<a href="/g/sim/proposals/1"><bdi>proposal 1</bdi></a>' in html
        assert [r["number"] for r in data["rulings"]] == [1]

        _, gone = await render(site, "/g/sim/ruleset/rules/5.3")
        assert not gone["in_force"]
        assert [(h["version"], h["kind"]) for h in gone["history"]] == [(4, "repealed"), (1, "in force from the start")]
        _, new = await render(site, "/g/sim/ruleset/rules/4.5")
        assert [(h["version"], h["kind"], h["text"]) for h in new["history"]] == [
            (5, "enacted", "At the start of each auction phase the judge gains 20 points.")
        ]
        for path in ("/g/sim/ruleset/rules/9.9", "/g/sim/ruleset/rules/04.2", "/g/sim/ruleset/rules/4.2.1"):
            with pytest.raises(NotFound):
                await site.page(path)


async def test_versions_show_what_they_did_to_the_text(week_two: Path) -> None:
    async with read_only_site(week_two) as site:
        html, data = await render(site, "/g/sim/ruleset/diff/1/5")
        assert [(r["number"], r["fate"]) for r in data["rules"]] == [
            ("4.2", "changed"),
            ("4.4", "changed"),
            ("4.5", "new"),
            ("5.3", "gone"),
        ]
        four_two = data["rules"][0]
        assert four_two["options"] == [{"option": "auction.lots_per_auction", "old": "6", "new": "8"}]
        assert [w["kind"] for w in data["rules"][1]["words"]] == ["cut", "same", "removed", "added", "same", "cut"]
        assert "<del><bdi>highest</bdi></del> <ins><bdi>earliest</bdi></ins>" in html
        assert [c["option"] for c in data["changed"]] == ["auction.lots_per_auction"]

        _, history = await render(site, "/g/sim/ruleset/history")
        assert {v["version"]: [(r["number"], r["fate"]) for r in v["rules"]] for v in history["versions"]} == {
            5: [("4.5", "new")],
            4: [("5.3", "gone")],
            3: [("4.2", "changed")],
            2: [("4.4", "changed")],
            1: [],
        }
        html, first = await render(site, "/g/sim/ruleset/v/1")
        assert "5.3" in _rules(first)
        assert _rules(first)["4.2"]["text"] == "Each auction phase offers 6 lots of 2 cards."
        assert '<section class="rule" id="rule-5.3">' in html


async def test_a_rule_with_mechanics_is_marked_and_its_block_shown(imported: Path) -> None:
    async with read_only_site(imported) as site:
        html, data = await render(site, "/g/sim/ruleset")
        rule = _rules(data)["4.2"]
        assert rule["mechanics"]
        assert rule["block"] == 'when the week ends: announce "hello"'
        section = _section(html, "rule-4.2")
        assert '<span class="tag mech">mechanics</span>' in section
        assert '<pre class="block"><bdi>when the week ends: announce &#34;hello&#34;</bdi></pre>' in section
        _, page = await render(site, "/g/sim/ruleset/rules/4.2")
        assert page["mechanics"]
        assert [h["version"] for h in page["history"]] == [6, 3, 1]


def test_what_members_wrote_into_the_document_is_isolated_and_escaped() -> None:
    from .support import new_round

    markdown = (
        "# Rules \u202eof עולם\n\n## 4. Auctions <b>now</b>\n\n"
        "### 4.2 Lots \u2067<i>x\n\n"
        "Each auction phase offers {auction.lots_per_auction} lots, עולם 2 \u202b<script>alert(1)</script>.\n\n"
        '```rule\nwhen the week ends: announce "</pre><script>x</script> עולם"\n```\n'
    )
    state = new_round(players=["alice"])
    request = JudgeRequest(
        number=1, by="alice", by_name="alice", text="Does rule 4.2 \u202eapply? עולם 2", at=state.clock,
        status=RequestStatus.OPEN,
    )  # fmt: skip
    first = state.ruleset_versions[0]
    document = parse_markdown(markdown)
    second = first.model_copy(update={"version": 2, "document": document, "by": "moderator mod"})
    state = state.model_copy(
        update={"document": document, "requests": {1: request}, "ruleset_versions": (first, second)}
    )
    g = pages.GuildHead("sim", "Server sim")
    rule = pages.rule_page(g, state, "4.2", [first, second])
    assert rule is not None
    shown = [
        pages.ruleset_page(g, state),
        rule,
        pages.diff_page(g, first, second),
        pages.version_page(g, second, 2),
    ]
    for page in shown:
        html = to_html(page)
        written = [*strings_of(page.data), page.title, "Server sim", *(label for label, _ in page.crumbs)]
        assert isolation_faults(html, written) == [], page.path
        assert "<script>" not in html, page.path
        assert "<b>" not in html, page.path
        assert "<i>" not in html, page.path
        assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html, page.path
    assert "&lt;/pre&gt;&lt;script&gt;" in to_html(shown[0])


async def test_the_wiki_export_gives_the_document(week_two: Path) -> None:
    out, errors = io.StringIO(), io.StringIO()
    assert await export_guild(week_two, "sim", out=out, errors=errors) == 0
    wiki = out.getvalue()
    assert "<nowiki>The rules of the round</nowiki>: ruleset <nowiki>default</nowiki>, version 5" in wiki
    assert "=== 4. <nowiki>Auctions</nowiki> ===" in wiki
    assert "==== <nowiki>4.2</nowiki> <nowiki>Lots on offer</nowiki> ====" in wiki
    assert (
        "<nowiki>Each auction phase offers </nowiki>'''<nowiki>8</nowiki>'''<nowiki> lots of </nowiki>"
        "'''<nowiki>2</nowiki>'''<nowiki> cards.</nowiki>"
    ) in wiki
    assert "''Enforced by the bot: <nowiki>lots per auction</nowiki> (<nowiki>auction.lots_per_auction</nowiki>)" in (
        wiki
    )
    assert "* Cited by request 1 (<nowiki>open</nowiki>): <nowiki>Do the lots carried over" in wiki
    assert "==== <nowiki>5.3</nowiki>" not in wiki
    todo = wiki[wiki.index("== The moderators' to-do list ==") : wiki.index("== The options the bot enforces ==")]
    assert todo.count("# From proposal") == 3
    assert "| v4 || " in wiki
    assert "|| <nowiki>5.3 (gone)</nowiki>" in wiki


async def test_the_wiki_export_shows_a_rule_block_as_it_is_written(imported: Path) -> None:
    out = io.StringIO()
    assert await export_guild(imported, "sim", out=out, errors=io.StringIO()) == 0
    assert "<pre>when the week ends: announce &quot;hello&quot;</pre>" in out.getvalue()
