"""The web record in a real browser: Debian's Chromium, headless, driven by Playwright, JavaScript off.

Needs the system browser at /usr/bin/chromium (``.ci/run`` and ``make browser`` install Debian's
``chromium`` package when it is missing; Playwright never downloads one). Without it the test is
skipped and says so. The screenshots are kept in tests/artifacts/web/ (ignored by git).
"""

from __future__ import annotations

import os
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from bot.web.record import WebRecord

from .test_web_ruleset import replay_rules
from .web_support import HOSTILE_GUILD, replay_hostile_season, replay_season

CHROMIUM = Path(os.environ.get("CHROMIUM", "/usr/bin/chromium"))
ARTIFACTS = Path(__file__).resolve().parent / "artifacts" / "web"
ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
PHONE = {"width": 390, "height": 844}


def _playwright() -> Any:
    if not CHROMIUM.exists():
        pytest.skip(
            f"no Chromium at {CHROMIUM}: install Debian's `chromium` package (`make browser`, as root) to run the"
            " browser test; .ci/run installs it"
        )
    try:
        from playwright.async_api import async_playwright
    except ImportError:  # pragma: no cover - a dev install has it
        pytest.skip("the playwright package is missing: `pip install -e '.[dev]'`")
    return async_playwright


@pytest.fixture
async def browser_page(tmp_path: Path) -> AsyncIterator[Any]:
    """A page of a fresh headless Chromium profile, phone-sized, JavaScript off."""
    async_playwright = _playwright()
    profile = tmp_path / "profile"
    async with async_playwright() as pw:
        context = await pw.chromium.launch_persistent_context(
            str(profile),
            executable_path=str(CHROMIUM),
            headless=True,
            args=ARGS,
            viewport=PHONE,
            java_script_enabled=False,
        )
        try:
            yield context.pages[0] if context.pages else await context.new_page()
        finally:
            await context.close()


@pytest.fixture
async def site(tmp_path: Path) -> AsyncIterator[str]:
    db = tmp_path / "season.db"
    await replay_season(db)
    record = await WebRecord.start(db, None, "127.0.0.1", 0)
    try:
        yield record.url
    finally:
        await record.stop()


@pytest.fixture
async def hostile_site(tmp_path: Path) -> AsyncIterator[str]:
    """The season of members whose names and texts try to disguise the page, on a server named likewise."""
    db = tmp_path / "hostile.db"
    await replay_hostile_season(db)
    record = await WebRecord.start(db, None, "127.0.0.1", 0, names=lambda _: HOSTILE_GUILD)
    try:
        yield record.url
    finally:
        await record.stop()


@pytest.fixture
async def rules_site(tmp_path: Path) -> AsyncIterator[str]:
    """A round whose proposals amended, replaced, repealed and enacted rules (tests/test_web_ruleset.py)."""
    record = await WebRecord.start(await replay_rules(tmp_path / "rules.db"), None, "127.0.0.1", 0)
    try:
        yield record.url
    finally:
        await record.stop()


GLYPHS = """(cell) => {
    const out = [];
    const walk = document.createTreeWalker(cell, NodeFilter.SHOW_TEXT);
    for (let node = walk.nextNode(); node; node = walk.nextNode()) {
        const parent = node.parentElement;
        const where = parent.closest("a") ? "a" : parent.closest("span.muted") ? "muted" : "";
        for (let i = 0; i < node.data.length; i++) {
            const range = document.createRange();
            range.setStart(node, i);
            range.setEnd(node, i + 1);
            const box = range.getBoundingClientRect();
            if (box.width > 0) out.push({ch: node.data[i], x: box.left, y: box.top, where: where});
        }
    }
    return out;
}"""
"""Each drawn character of an element in reading order: where it is drawn, and whether it is in a link
(``a``: a member's name) or in small print (``muted``: the ``(judge)`` after a ruling)."""


def _drawn_after(before: list[dict[str, Any]], after: list[dict[str, Any]]) -> None:
    """``after`` is drawn on the line where ``before`` ends, to the right of all of it."""
    line = after[0]["y"]
    assert all(abs(g["y"] - line) < 8 for g in after), "what follows wraps: widen the window"
    ends = [g["x"] for g in before if abs(g["y"] - line) < 8]
    assert ends, "what follows a member's text is not on its line"
    assert min(g["x"] for g in after) > max(ends), "what follows a member's text is drawn among its characters"


async def _fits_the_phone(page: Any) -> bool:
    """Nothing wider than the screen but the tables, which scroll inside their own box."""
    width = await page.evaluate("document.documentElement.scrollWidth")
    return int(width) <= PHONE["width"]


async def _shot(page: Any, name: str) -> Path:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    target = ARTIFACTS / name
    await page.screenshot(path=str(target), full_page=True)
    print(f"screenshot: {target}")  # where the artifact is, for whoever runs the test
    return target


async def test_a_replayed_week_in_chromium_from_the_ruleset_to_a_proposal_and_back(
    site: str, browser_page: Any
) -> None:
    page = browser_page
    await page.goto(f"{site}/g/sim/ruleset")
    assert await page.inner_text("h1") == "The ruleset in force"
    assert await _fits_the_phone(page)
    await page.click("text=Every version and what changed")
    assert page.url == f"{site}/g/sim/ruleset/history"

    await page.click('a[href="/g/sim/proposals/1"]')
    assert page.url == f"{site}/g/sim/proposals/1"
    assert await page.inner_text("h1") == "Proposal 1"
    body = await page.inner_text("main")
    assert "Eight lots a week" in body
    assert "auction.lots_per_auction = 8" in body
    assert await _fits_the_phone(page)
    shot = await _shot(page, "proposal-1.png")
    assert shot.stat().st_size > 5_000

    await page.click("text=ruleset version 2")
    assert page.url == f"{site}/g/sim/ruleset/v/2"
    assert await page.inner_text("h1") == "Ruleset version 2"
    await page.go_back()
    assert page.url == f"{site}/g/sim/proposals/1"
    await page.click("nav >> text=Ruleset")
    assert page.url == f"{site}/g/sim/ruleset"

    # the history's form works without JavaScript: a GET, answered with the diff's own address
    await page.goto(f"{site}/g/sim/ruleset/history")
    await page.fill('input[name="from"]', "1")
    await page.fill('input[name="to"]', "3")
    await page.click("button[type=submit]")
    assert page.url == f"{site}/g/sim/ruleset/diff/1/3"
    assert "hands.poker_kickers" in await page.inner_text("table")

    await page.goto(f"{site}/g/sim/proposals/3")
    assert "<script>alert(1)</script>" in await page.inner_text(".text")  # shown as text, never run

    for path in ("/g/sim", "/g/sim/week", "/g/sim/players", "/g/sim/rulings", "/g/sim/games"):
        await page.goto(site + path)
        assert await _fits_the_phone(page), path
    await page.goto(f"{site}/g/sim/season")
    assert await _fits_the_phone(page)
    await _shot(page, "season.png")
    await page.click("text=2026-12-06")
    assert await page.inner_text("h1") == "The week of 2026-12-06"
    assert "Straight Flush" in await page.inner_text("main")

    response = await page.goto(f"{site}/g/sim/proposals/42")
    assert response is not None
    assert response.status == 404
    assert "no such page" in await page.inner_text("main")


async def test_a_name_or_text_that_hides_characters_disguises_nothing_in_chromium(
    hostile_site: str, browser_page: Any
) -> None:
    """A right-to-left override in a judge's name neither turns the name round (it would read "alice") nor
    what follows it; the ruling before it, with its right-to-left words, leaves the judge's name after it."""
    page = browser_page
    await page.set_viewport_size({"width": 1400, "height": 900})
    await page.goto(f"{hostile_site}/g/sim/rulings")
    cell = page.locator('tr:has(a[href="/g/sim/rulings/2"]) td').nth(4)
    text = await cell.inner_text()
    assert "(⟨U+202E⟩ecila)" in text
    assert "alice" not in text
    glyphs = await cell.evaluate(GLYPHS)
    ruling = [g for g in glyphs if g["where"] != "muted"]
    judge = [g for g in glyphs if g["where"] == "muted"]
    assert "".join(g["ch"] for g in judge) == "(⟨U+202E⟩ecila)"
    _drawn_after(ruling, judge)
    xs = [g["x"] for g in judge]
    assert xs == sorted(xs), "the judge's name is drawn turned round"

    # a right-to-left name keeps to itself: the comma and the "2nd" after it are drawn after it, not within it
    await page.goto(f"{hostile_site}/g/sim/season")
    placed = page.locator('section:has(a[href="/g/sim/season/2026-12-06"]) dt:has-text("Placements") + dd')
    assert await placed.inner_text() == "1st בוב, 2nd קרול"
    glyphs = await placed.evaluate(GLYPHS)
    first = [g for g in glyphs[: len("1st בוב")] if g["where"] == "a"]
    following = glyphs[len("1st בוב") : len("1st בוב, 2nd")]
    assert "".join(g["ch"] for g in first) == "בוב"
    assert "".join(g["ch"] for g in following).strip() == ", 2nd"
    _drawn_after(first, [g for g in following if g["ch"].strip()])

    await page.goto(f"{hostile_site}/g/sim")
    assert await page.inner_text("h1") == "⟨U+202E⟩SERVER⟨U+200B⟩"
    assert await page.title() == "\u2068⟨U+202E⟩SERVER⟨U+200B⟩\u2069 · \u2068⟨U+202E⟩SERVER⟨U+200B⟩\u2069"
    await _shot(page, "hostile-home.png")


async def test_the_ruleset_document_in_chromium_from_a_rule_s_anchor_to_its_history(
    rules_site: str, browser_page: Any
) -> None:
    page = browser_page
    await page.goto(f"{rules_site}/g/sim/ruleset")
    assert await _fits_the_phone(page)
    await page.click('nav.toc a[href="#rule-4.2"]')
    assert page.url == f"{rules_site}/g/sim/ruleset#rule-4.2"
    assert await page.eval_on_selector("section.rule:target", "s => s.id") == "rule-4.2"
    top = await page.eval_on_selector("#rule-4\\.2", "s => s.getBoundingClientRect().top")
    assert 0 <= top < 50, "the rule is scrolled to the top of the screen"

    # a value the bot enforces stands out from the words around it and names its option on hover
    bound = page.locator("#rule-4\\.2 strong.bound").first
    assert await bound.inner_text() == "8"
    assert await bound.get_attribute("title") == "auction.lots_per_auction: how many lots an auction holds"
    colours = "e => [getComputedStyle(e).backgroundColor, getComputedStyle(e.parentElement).backgroundColor]"
    marked, around = await bound.evaluate(colours)
    assert marked != around
    await _shot(page, "ruleset-4.2.png")

    await page.click("#rule-4\\.2 >> text=history")
    assert page.url == f"{rules_site}/g/sim/ruleset/rules/4.2"
    assert await page.inner_text("h1") == "Rule 4.2"
    change = page.locator("ol.history > li").first
    assert await change.locator("del").inner_text() == "6"
    assert await change.locator("ins").inner_text() == "8"
    struck = await change.locator("del").evaluate("e => getComputedStyle(e).textDecorationLine")
    assert "line-through" in struck
    assert await _fits_the_phone(page)
    await page.click("text=In the ruleset")
    assert page.url == f"{rules_site}/g/sim/ruleset#rule-4.2"

    await page.goto(f"{rules_site}/g/sim/ruleset/diff/1/5")
    assert await _fits_the_phone(page)
    assert "5.3" in await page.inner_text("main")
    await page.goto(f"{rules_site}/g/sim/ruleset#todo")
    items = page.locator("ol.todo > li")
    assert await items.count() == 3
    await _shot(page, "ruleset-todo.png")


def test_the_artifacts_folder_is_ignored_by_git() -> None:
    ignore = (Path(__file__).resolve().parents[1] / ".gitignore").read_text(encoding="utf-8")
    assert "tests/artifacts/" in ignore
