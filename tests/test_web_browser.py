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

from .web_support import replay_season

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


def test_the_artifacts_folder_is_ignored_by_git() -> None:
    ignore = (Path(__file__).resolve().parents[1] / ".gitignore").read_text(encoding="utf-8")
    assert "tests/artifacts/" in ignore
