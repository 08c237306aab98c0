"""The web record over HTTP, `!web` and `!admin web` on every path, the command line's `web` and `export-wiki`."""

from __future__ import annotations

import asyncio
import io
import json
from collections.abc import AsyncIterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import aiohttp
import pytest
from hypothesis import given
from hypothesis import strategies as st
from yarl import URL

from bot.cli import main
from bot.router import Router
from bot.sim.console import console
from bot.sim.world import GUILD, MessageLine, SetupLine, World
from bot.web.desk import WebDesk
from bot.web.record import WebRecord, serve_file
from bot.web.wiki import export_guild
from data.store import Store
from games.nomic.service import RoundService

from .web_support import replay_into, replay_season

AT = datetime(2026, 12, 7, 9, tzinfo=UTC)


@pytest.fixture(scope="module")
def season_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    db = tmp_path_factory.mktemp("web-http") / "season.db"
    replay_into(db)
    return db


@pytest.fixture
async def served(season_db: Path) -> AsyncIterator[WebRecord]:
    record = await WebRecord.start(season_db, None, "127.0.0.1", 0)
    try:
        yield record
    finally:
        await record.stop()


async def _get(url: str, *, method: str = "GET") -> tuple[int, str, dict[str, str]]:
    async with aiohttp.ClientSession() as session, session.request(method, url, allow_redirects=False) as response:
        return response.status, await response.text(), dict(response.headers)


async def test_pages_and_their_json_twins_over_http(served: WebRecord) -> None:
    base = served.url
    status, body, headers = await _get(base + "/g/sim/proposals/1")
    assert status == 200
    assert headers["Content-Type"].startswith("text/html")
    assert headers["X-Content-Type-Options"] == "nosniff"
    assert "script-src" not in headers["Content-Security-Policy"]  # no script runs on these pages
    assert "<h1>Proposal 1</h1>" in body
    status, body, headers = await _get(base + "/g/sim/proposals/1.json")
    assert status == 200
    assert headers["Content-Type"].startswith("application/json")
    assert json.loads(body)["amendments"] == [{"option": "auction.lots_per_auction", "value": "8"}]
    status, body, _ = await _get(base + "/index.json")
    assert json.loads(body)["guilds"][0]["url"] == "/g/sim"
    status, _, headers = await _get(base + "/g/sim/ruleset/diff?from=1&to=3")
    assert (status, headers["Location"]) == (303, "/g/sim/ruleset/diff/1/3")
    status, _, headers = await _get(base + "/g/sim/ruleset/diff?from=x")
    assert (status, headers["Location"]) == (303, "/g/sim/ruleset/history")


async def test_bad_paths_and_unknown_guilds_are_404s_never_a_traceback(served: WebRecord) -> None:
    base = served.url
    for path in (
        "/g/unknown", "/g/unknown/week", "/g/sim/proposals/0", "/g/sim/proposals/abc", "/g/sim/proposals/-1",
        "/g/sim/proposals/99999999999999999999999", "/g/sim/ruleset/v/0", "/g/sim/ruleset/diff/1",
        "/g/sim/season/not-a-week", "/g/sim/players/%3Cscript%3E", "/g/sim/%00", "/favicon.ico", "/g//sim",
        "/g/sim/rulings/1/2", "/" + "a/" * 300, "/g/sim/week.json.json", "/g/%F0%9F%92%A5",
    ):  # fmt: skip
        status, body, _ = await _get(base + path)
        assert status == 404, path
        assert "Traceback" not in body
        assert "no such page" in body or json.loads(body)["error"] == "not found"
    status, body, _ = await _get(base + "/g/unknown/week.json")
    assert status == 404
    assert json.loads(body)["error"] == "not found"
    status, _, _ = await _get(base + "/g/sim", method="POST")
    assert status == 405


HOSTILE_ADDRESSES = [
    "/%09/evil.example/", "/%09/evil.example", "/%09%09/evil.example/", "//evil.example", "//evil.example/",
    "///evil.example/", "/\\evil.example", "/\\evil.example/", "/\\/evil.example/", "/%2F%2Fevil.example/",
    "/%2F/evil.example/", "/%5Cevil.example/", "/%5C%5Cevil.example/", "/%5C/evil.example/",
    "/%0d%0aLocation:%20http://evil.example/", "/%0D%0ALocation:%20//evil.example/", "/%0a/evil.example/",
    "/%0d/evil.example/", "/%00/evil.example/", "/%20/evil.example/", "/%C2%A0/evil.example/",
    "/%E3%80%80/evil.example/", "/%E2%80%8B/evil.example/", "/%E2%80%AE/evil.example/", "/%EF%BB%BF/evil.example/",
    "/%E2%88%95%E2%88%95evil.example/", "/%EF%BC%8F%EF%BC%8Fevil.example/", "/%E2%81%84%E2%81%84evil.example/",
    "/.//evil/", "/./evil.example/", "/.%2F/evil.example/", "/%2e/%2fevil.example/", "/%2e%2e//evil.example/",
    "/%252F%252Fevil.example/", "/%255Cevil.example/", "/%2509/evil.example/", "/https://evil.example/",
    "/https:/evil.example/", "/https:evil.example/", "/javascript:alert(1)/", "/g/sim/%09/evil.example/",
    "/g/sim//evil.example/", "/g/sim/..//evil.example/", "/g/%09/evil.example/", "/g/sim/%2F%2Fevil.example/",
    "/g/sim/players/%5C%5Cevil.example/", "/%09/evil.example/.json", "/%2F%2Fevil.example/.json",
    "/g/sim/ruleset/diff?from=%2F%2Fevil.example&to=1", "/g/sim/ruleset/diff/?from=1&to=//evil.example",
]  # fmt: skip
"""Addresses that try to make the site send a browser elsewhere: a tab or a backslash a browser drops or
reads as a slash, slashes and backslashes encoded once or twice, lookalike slashes, CR LF, schemes."""
RAW_ADDRESSES = [
    "/\t/evil.example/", "/ /evil.example/", "/\\evil.example/", "/\u2215\u2215evil.example/",
    "/\uff0f\uff0fevil.example/", "/\u3000/evil.example/", "/\x0b/evil.example/", "/\x0c/evil.example/",
]  # fmt: skip
"""The same, sent as they are (not percent-encoded) in the request line."""


def _same_site(location: str) -> bool:
    """Whether a browser following ``location`` stays on the site, whatever it drops or decodes first."""
    from urllib.parse import unquote, urljoin, urlsplit

    if not location.isascii() or not location.isprintable() or " " in location or "\\" in location:
        return False
    seen = location
    for _ in range(3):  # a proxy or a browser may decode once more
        if not seen.startswith("/") or seen[1:2] in {"/", "\\"}:
            return False
        if any(not c.isprintable() or c.isspace() or c == "\\" for c in seen):
            return False
        seen = unquote(seen)
    return urlsplit(urljoin("https://site.example/g/sim", location)).netloc == "site.example"


async def test_no_address_sends_a_browser_off_the_site(served: WebRecord) -> None:
    """Every answer to a hostile address is a 404 or a redirect to a page of the site itself."""
    for path in HOSTILE_ADDRESSES:
        async with (
            aiohttp.ClientSession() as session,
            session.get(URL(served.url + path, encoded=True), allow_redirects=False) as response,
        ):
            location = response.headers.get("Location")
            assert response.status == 404 or (response.status in {301, 302, 303, 307, 308}), path
            assert location is None or _same_site(location), (path, location)
            if location is not None:
                status, _, _ = await _get(served.url + location)
                assert status == 200, (path, location)  # a redirect leads to a page, never to a 404 or further
    host, port = "127.0.0.1", served.server.port
    for raw in RAW_ADDRESSES:
        reader, writer = await asyncio.open_connection(host, port)
        try:
            writer.write(f"GET {raw} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n".encode())
            answer = (await reader.read()).decode("latin-1")
        finally:
            writer.close()
        head = answer.partition("\r\n\r\n")[0].split("\r\n")
        status = int(head[0].split()[1])
        location = next((h.split(":", 1)[1].strip() for h in head[1:] if h.lower().startswith("location:")), None)
        assert status in {400, 404} or location is not None, (raw, head[0])
        assert location is None or _same_site(location), (raw, location)


async def test_a_page_s_address_with_a_slash_after_it_still_leads_to_the_page(served: WebRecord) -> None:
    for path, page in (
        ("/g/sim/", "/g/sim"), ("/g/sim/week/", "/g/sim/week"), ("/g/sim/proposals/1/", "/g/sim/proposals/1"),
        ("/g/sim/week/.json", "/g/sim/week.json"),
        ("/g/sim/ruleset/diff.json?from=1&to=3", "/g/sim/ruleset/diff/1/3.json"),
    ):  # fmt: skip
        status, _, headers = await _get(served.url + path)
        assert (status, headers.get("Location")) == (303, page), path
    for path in ("/g/nowhere/", "/g/sim/proposals/99/", "/nothing/"):  # nothing there: no redirect to it
        status, _, headers = await _get(served.url + path)
        assert (status, headers.get("Location")) == (404, None), path


async def test_a_redirect_off_the_site_is_never_sent_whatever_asks_for_it(
    served: WebRecord, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The last guard: the server sends a Location only when it is a path of the site itself."""
    from bot.web.site import Redirect

    asked: list[str] = []

    async def away(path: str, query: Any = None) -> Any:
        raise Redirect(asked[-1])

    monkeypatch.setattr(served.site, "page", away)
    for location in ("//evil.example", "/\t/evil.example", "/\\evil.example", "https://evil.example/", "/%2F/x",
                     "/%5Cx", "/%0d%0aSet-Cookie:%20a=b", "/%250d%250a", "/\u2215\u2215x", "", "g/sim"):  # fmt: skip
        asked.append(location)
        status, body, headers = await _get(served.url + "/g/sim/")
        assert (status, headers.get("Location")) == (404, None), location
        assert "no such page" in body
    asked.append("/g/sim/week")
    status, _, headers = await _get(served.url + "/g/sim/")
    assert (status, headers.get("Location")) == (303, "/g/sim/week")


def test_same_site_takes_the_site_s_own_addresses_and_nothing_that_leaves_it() -> None:
    from bot.web.site import same_site

    for good in ("/", "/g/sim", "/g/sim/ruleset/diff/1/3", "/g/sim/week.json", "/g/sim/players/a%20b", "/g/%C3%A9"):
        assert same_site(good), good
    for bad in (
        "//evil.example", "///evil.example", "/\\evil.example", "\\\\evil.example", "/%2F/evil.example",
        "/%2f%2fevil.example", "/%5Cevil.example", "/%5c/evil.example", "/%252F%252Fevil.example", "/%255Cevil.example",
        "/%09/evil.example", "/%2509/evil.example", "/%0d%0aLocation:%20http://evil.example", "/\t/evil.example",
        "/\n/evil.example", "/\u2215\u2215evil.example", "/\uff0fevil.example", "https://evil.example",
        "http:evil.example", "javascript:alert(1)", "evil.example", " /evil.example", "/evil example", "/%zz", "",
    ):  # fmt: skip
        assert not same_site(bad), bad


@given(st.lists(st.text(st.characters(exclude_categories=("Cc", "Cs", "Zl", "Zp")), min_size=1), max_size=4))
def test_every_address_the_pages_make_is_one_a_redirect_may_name(parts: list[str]) -> None:
    from bot.web.pages import GuildHead
    from bot.web.site import same_site

    g = GuildHead("1234", "x")
    assert same_site(g.url(*parts))
    assert same_site(g.base)


async def test_a_failure_while_making_a_page_is_a_plain_500(served: WebRecord, monkeypatch: pytest.MonkeyPatch) -> None:
    async def broken(path: str, query: Any = None) -> Any:
        raise RuntimeError("a bug")

    monkeypatch.setattr(served.site, "page", broken)
    status, body, _ = await _get(served.url + "/g/sim")
    assert status == 500
    assert "Something went wrong" in body
    assert "a bug" not in body
    assert "Traceback" not in body


async def test_the_server_answers_many_requests_at_once_while_commands_go_on(tmp_path: Path) -> None:
    """Not timed (the benchmark measures): every request answered rightly, every command answered."""
    db = tmp_path / "season.db"
    await replay_season(db)
    store = await Store.open(db)
    try:
        world = World(Router(RoundService(store), web=WebDesk(store, None)), seed="7")
        await world.feed(SetupLine(type="setup", at=AT, admins=["mod"]), replaying=False)
        world.members.update({"alice", "bob", "carol", "dave", "erin"})
        said: list[str] = []
        world.on_say = lambda s: said.append(s.content)
        record = await WebRecord.start(db, world.service, "127.0.0.1", 0)
        try:
            paths = ["/g/sim", "/g/sim/players", "/g/sim/season", "/g/sim/proposals/2.json", "/g/sim/nope"] * 40
            gate = asyncio.Semaphore(20)

            async def one(session: aiohttp.ClientSession, path: str) -> int:
                async with gate, session.get(record.url + path) as response:
                    await response.read()
                    return response.status

            async def commands() -> None:
                later = datetime(2026, 12, 21, 9, tzinfo=UTC)
                for n, text in enumerate(["!join", "!inventory", "!lots", "!phase"] * 5):
                    line = MessageLine(
                        type="message", at=later, id=f"x{n}", channel="game-actions", author="erin", content=text
                    )
                    await world.feed(line)

            async with aiohttp.ClientSession() as session:
                statuses, _ = await asyncio.gather(asyncio.gather(*(one(session, p) for p in paths)), commands())
            assert statuses.count(404) == 40
            assert statuses.count(200) == 160
            assert len(said) >= 20
            assert said[0] == "Welcome, erin: you are now a player with 0 points."
            _, body, _ = await _get(record.url + "/g/sim/players.json")
            assert "erin" in {p["id"] for p in json.loads(body)["players"]}  # the running service's state
        finally:
            await record.stop()
    finally:
        await store.close()


async def _world(db: Path, base_url: str | None) -> tuple[World, list[tuple[str, str]], Store]:
    store = await Store.open(db)
    world = World(Router(RoundService(store), web=WebDesk(store, base_url)), seed="7")
    said: list[tuple[str, str]] = []
    world.on_say = lambda s: said.append((s.reply_to or "", s.content))
    await world.feed(SetupLine(type="setup", at=AT, admins=["mod"]))
    return world, said, store


async def _say(world: World, mid: str, author: str, text: str, channel: str = "game-actions") -> None:
    await world.feed(MessageLine(type="message", at=AT, id=mid, channel=channel, author=author, content=text))


async def test_web_gives_the_link_and_moderators_hide_the_record_or_turn_it_off(tmp_path: Path) -> None:
    db = tmp_path / "round.db"
    world, said, store = await _world(db, "https://nomic.example.org/")
    record = await WebRecord.start(db, world.service, "127.0.0.1", 0)
    try:
        await _say(world, "w1", "alice", "!web")
        assert dict(said)["w1"].endswith("the season: https://nomic.example.org/g/sim")
        await _say(world, "w2", "alice", "!admin web off")
        assert dict(said)["w2"] == "Can't do that: only moderators can turn the web record on, hide it or turn it off."
        await _say(world, "w3", "mod", "!admin web hidden")
        assert dict(said)["w3"] == (
            "Done: the web record of this server is now hidden: not listed, open to its link"
            " (https://nomic.example.org/g/sim)."
        )
        status, body, headers = await _get(record.url + "/index.json")
        assert json.loads(body)["guilds"] == []
        status, body, headers = await _get(record.url + "/g/sim/week")
        assert status == 200
        assert headers["X-Robots-Tag"] == "noindex"
        await _say(world, "w4", "alice", "!web")
        assert "not listed on the site's front page" in dict(said)["w4"]
        await _say(world, "w5", "mod", "!admin web off")
        status, _, _ = await _get(record.url + "/g/sim/week")
        assert status == 404
        await _say(world, "w6", "alice", "!web")
        assert dict(said)["w6"].startswith("The web record of this server is turned off")
        await _say(world, "w7", "mod", "!admin web off")
        assert dict(said)["w7"].startswith("The web record of this server is already off")
        await _say(world, "w8", "mod", "!admin web sideways")
        assert dict(said)["w8"].startswith("Can't do that: usage: `!admin web on`")
        await _say(world, "w9", "mod", "!admin web on")
        status, _, _ = await _get(record.url + "/g/sim/week")
        assert status == 200
        await _say(world, "w10", "alice", "!admin web")
        assert dict(said)["w10"].startswith("The web record of this server is on, listed")
        await _say(world, "w11", "alice", "!admin give @mod 5 points")  # the round's own !admin is unchanged
        assert dict(said)["w11"] == "Can't do that: only moderators can do that."
        await _say(world, "w12", "alice", "!help")
        assert "`!web` - the link to this round's public record" in dict(said)["w12"]
    finally:
        await record.stop()
        await store.close()
    reopened = await Store.open(db)
    try:
        assert (await reopened.guild_settings(GUILD)).web == "on"
    finally:
        await reopened.close()


async def test_without_a_site_web_says_so(tmp_path: Path) -> None:
    world, said, store = await _world(tmp_path / "round.db", None)
    try:
        await _say(world, "w1", "bob", "!web")
        await _say(world, "w2", "bob", "!web please")
        await _say(world, "w3", "mod", "!admin web hidden")
        answers = dict(said)
        assert answers["w1"] == "This bot serves no web record: its operator has not set `WEB_PORT`."
        assert answers["w2"] == "Can't do that: `!web` takes nothing after it."
        assert "this bot serves no site now" in answers["w3"]
    finally:
        await store.close()


async def test_the_console_serves_the_record_and_gives_its_link(tmp_path: Path) -> None:
    out = io.StringIO()
    stdin = io.StringIO("!join\n!web\n/quit\n")
    start = datetime(2026, 12, 7, 9, tzinfo=UTC)
    assert await console(db=tmp_path / "c.db", seed="s", start=start, stdin=stdin, out=out, web=("127.0.0.1", 0)) == 0
    text = out.getvalue()
    links = [word for word in text.split() if word.startswith("http://127.0.0.1:")]
    assert links
    assert links[0].rstrip(".,)").endswith("/g/sim")
    assert "The round's record on the web" in text


async def test_web_command_serves_a_file_read_only_until_stopped(season_db: Path) -> None:
    out = io.StringIO()
    stop = asyncio.Event()
    task = asyncio.ensure_future(serve_file(season_db, "127.0.0.1", 0, out=out, stop=stop))
    for _ in range(200):
        if "/g/sim" in out.getvalue():
            break
        await asyncio.sleep(0.01)
    url = next(w for w in out.getvalue().split() if w.endswith("/g/sim"))
    status, body, _ = await _get(url + "/rulings/1")
    assert status == 200
    assert "overturned" in body
    stop.set()
    assert await task == 0


def test_web_command_refuses_a_file_that_is_not_there(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["web", "--db", str(tmp_path / "missing.db"), "--port", "0"]) == 3
    assert "there is no such file" in capsys.readouterr().err
    assert not (tmp_path / "missing.db").exists()


async def test_export_wiki_writes_the_ruleset_and_the_week_as_mediawiki(tmp_path: Path) -> None:
    db = tmp_path / "season.db"
    await replay_season(db, last=datetime(2026, 12, 11, 12, tzinfo=UTC), until=None)
    out, errors = io.StringIO(), io.StringIO()
    assert await export_guild(db, GUILD, out=out, errors=errors) == 0
    wiki = out.getvalue()
    assert wiki.startswith("''The round of <nowiki>Server sim</nowiki> as of")
    assert "== The ruleset in force ==" in wiki
    assert '{| class="wikitable sortable"' in wiki
    assert "| <nowiki>auction.lots_per_auction</nowiki> || '''<nowiki>8</nowiki>''' ||" in wiki
    assert "== Ruleset history ==" in wiki
    assert "| v2 || <nowiki>Mon 2026-12-07 12:20 UTC</nowiki> || <nowiki>proposal 1</nowiki> ||" in wiki
    assert "=== Lots (1 of 8) ===" in wiki
    assert "| <nowiki>alice</nowiki> || <nowiki>6♠ 5♠ 4♠ 3♠ 2♠</nowiki> || <nowiki>Straight Flush</nowiki>" in wiki
    assert "== Players ==" in wiki
    assert wiki.count("{|") == wiki.count("|}")
    assert await export_guild(db, "elsewhere", out=io.StringIO(), errors=errors) == 2
    assert "no round of the server 'elsewhere'" in errors.getvalue()


def test_export_wiki_escapes_what_members_wrote() -> None:
    from bot.web.wiki import text

    assert text("a | b {{x}} [[y]] <script>") == "<nowiki>a | b {{x}} [[y]] &lt;script&gt;</nowiki>"
    assert text("</nowiki>''bold''") == "<nowiki>&lt;/nowiki&gt;''bold''</nowiki>"


def test_export_wiki_on_the_command_line(season_db: Path, tmp_path: Path) -> None:
    target = tmp_path / "round.wiki"
    assert main(["export-wiki", "sim", "--db", str(season_db), "--out", str(target)]) == 0
    assert "== This week ==" in target.read_text(encoding="utf-8")


def test_the_settings_of_env_example_leave_the_site_off_and_name_its_address() -> None:
    from bot.settings import Settings

    example = Path(__file__).resolve().parents[1] / ".env.example"
    settings = Settings(_env_file=example)  # type: ignore[call-arg]
    assert settings.web_port is None
    assert settings.web_url() is None
    on = Settings(_env_file=None, web_port=8080, web_host="0.0.0.0")  # type: ignore[call-arg]  # noqa: S104
    assert on.web_url() == "http://127.0.0.1:8080"
    public = Settings(_env_file=None, web_port=8080, web_base_url="https://nomic.example.org/")  # type: ignore[call-arg]
    assert public.web_url() == "https://nomic.example.org"


async def test_the_console_goes_on_without_the_site_when_its_port_is_taken(tmp_path: Path) -> None:
    import socket

    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        out = io.StringIO()
        stdin = io.StringIO("!join\n!web\n")
        start = datetime(2026, 12, 7, 9, tzinfo=UTC)
        assert await console(seed="s", start=start, stdin=stdin, out=out, web=("127.0.0.1", port)) == 0
    text = out.getvalue()
    assert f"! the web record cannot listen on 127.0.0.1:{port}" in text
    assert "Welcome, you" in text
    assert "This bot serves no web record" in text
