"""A replayed season for the web record's tests: the scenario tests/scenarios/web_season.jsonl on disk.

The season runs from a Saturday (the round starts in a bartering phase) over two whole weeks into a
third: lots sold and carried, hands presented and placed, an urgent proposal with an amendment, a
standard one, a failed one whose text is markup, a moderator's change of an option, a ruling
overturned by a vote of confidence, two elections, a resignation, a thread game the AI finishes,
and a week start that moves the settled records to the archive.
"""

from __future__ import annotations

import asyncio
import io
import json
import re
import unicodedata
from collections.abc import AsyncIterator, Iterable
from contextlib import asynccontextmanager
from datetime import UTC, datetime
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

from bot.sim.replay import read_scenario, replay
from bot.sim.world import MessageLine, ReactLine, SetupLine
from bot.web.render import to_html, to_json
from bot.web.site import Site
from data.read_store import ReadStore
from games.nomic.service import RoundService

SCENARIO = Path(__file__).resolve().parent / "scenarios" / "web_season.jsonl"
SEED = "7"
UNTIL = datetime(2026, 12, 21, tzinfo=UTC)
GUILD = "sim"


def lines_until(last: datetime | None = None) -> list[Any]:
    """The scenario's lines, those after ``last`` left out."""
    lines = read_scenario(SCENARIO, io.StringIO())
    return [(n, line) for n, line in lines if last is None or line.at <= last]


def replay_into(db: Path, *, last: datetime | None = None, until: datetime | None = UNTIL) -> dict[str, Any]:
    """Replay the season (up to line time ``last``, clock run on to ``until``) into ``db``; its state document."""
    return asyncio.run(replay_season(db, last=last, until=until))


async def replay_season(db: Path, *, last: datetime | None = None, until: datetime | None = UNTIL) -> dict[str, Any]:
    """``replay_into`` on the running event loop."""
    result = await replay(lines_until(last), seed=SEED, db=db, until=until)
    return result.document


@asynccontextmanager
async def read_only_site(db: Path) -> AsyncIterator[Site]:
    """The site as ``python -m bot web --db`` serves it."""
    read = await ReadStore.open(db)
    try:
        yield Site(read, RoundService(read), live=False)
    finally:
        await read.close()


async def render(site: Site, path: str) -> tuple[str, dict[str, Any]]:
    """A page's HTML and its JSON twin."""
    page = await site.page(path)
    return to_html(page), json.loads(to_json(page))


# -- a season whose members write to disguise the page ------------------------------------------

HOSTILE_NAMES = {
    "alice": "\u202eecila",  # a right-to-left override: shows as "alice", and would turn what follows around
    "bob": "בוב",  # right-to-left letters: a name not isolated pulls the comma and number after it into itself
    "carol": "קרול",
    "dave": "\u2067<i>dave\u2069\u2069&\u200b",  # an isolate closed twice (the second would close the page's own),
    # markup, a zero-width space (one name looking like another)
    "mod": "m\u200dod\u061c\u200f\u2066",  # a joiner between letters, an Arabic letter mark, an RLM, an open isolate
}
"""The season's members under names that hide characters or are written right to left, as members may choose
(a name with a hidden character cannot be typed as an ``@name``: its member is given no cards, and places nowhere)."""
HOSTILE_TAIL = " \u202e\u2069\u202b\u200e עולם 2"
"""Added to the first line of every text a member writes (proposals, requests, rulings): the round keeps no
control character of a text, but its right-to-left words and the number after them would pull what follows."""
RTL_WORD = "עולם"
HOSTILE_GUILD = "\u202eSERVER\u200b"
BIDI_AND_HIDDEN = frozenset(
    "\u061c\u200b\u200c\u200d\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u2060\ufeff"
)
"""Characters that change the direction of what follows or show nothing."""
MARKER = re.compile(r"⟨U\+([0-9A-F]{4,6})⟩")
"""How the pages show such a character in a name: ``⟨U+202E⟩``."""


def _hostile_text(content: str) -> str:
    first, newline, rest = content.partition("\n")
    return first + HOSTILE_TAIL + newline + rest


def _hostile_line(line: Any) -> Any:
    names = HOSTILE_NAMES
    if isinstance(line, SetupLine):
        return line.model_copy(update={"admins": [names.get(a, a) for a in line.admins]})
    if isinstance(line, ReactLine):
        return line.model_copy(update={"user": names.get(line.user, line.user)})
    if not isinstance(line, MessageLine):
        return line
    words = [("@" + names[w[1:]]) if w.startswith("@") and w[1:] in names else w for w in line.content.split(" ")]
    content = " ".join(words)
    if line.channel == "proposals" or content.startswith(("!request ", "!rule ")):
        content = _hostile_text(content)
    return line.model_copy(update={"author": names.get(line.author, line.author), "content": content})


async def replay_hostile_season(db: Path) -> dict[str, Any]:
    """The season of ``replay_season``, its members named and writing with ``HOSTILE_NAMES``/``HOSTILE_TAIL``."""
    lines = [(n, _hostile_line(line)) for n, line in lines_until()]
    result = await replay(lines, seed=SEED, db=db, until=UNTIL)
    return result.document


class _Isolates(HTMLParser):
    """The text of a page, split into what is inside a direction isolate (``<bdi>`` or any element with
    ``dir``) and what is not; the ``<title>`` apart."""

    VOID = frozenset({"br", "meta", "link", "input", "img", "hr", "wbr"})

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.stack: list[tuple[str, int | None]] = []
        self.isolates: list[list[str]] = []
        self.outside: list[str] = []
        self.title: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in self.VOID:
            return
        isolating = tag == "bdi" or any(name == "dir" for name, _ in attrs)
        index = None
        if isolating:
            index = len(self.isolates)
            self.isolates.append([])
        self.stack.append((tag, index))

    def handle_endtag(self, tag: str) -> None:
        while self.stack:
            if self.stack.pop()[0] == tag:
                break

    def handle_data(self, data: str) -> None:
        tags = [t for t, _ in self.stack]
        if "title" in tags:
            self.title.append(data)
            return
        if "style" in tags:
            return
        open_isolates = [i for _, i in self.stack if i is not None]
        for i in open_isolates:
            self.isolates[i].append(data)
        if not open_isolates:
            self.outside.append(data)


def _plain(text: str) -> str:
    """A string with its marked characters given back and every hidden one left out, to compare."""
    unmarked = MARKER.sub(lambda m: chr(int(m.group(1), 16)), text)
    return "".join(c for c in unmarked if c not in BIDI_AND_HIDDEN)


def strings_of(value: object) -> Iterable[str]:
    """Every string in a page's data."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from strings_of(item)
    elif isinstance(value, list | tuple):
        for item in value:
            yield from strings_of(item)


def _written_by_a_member(text: str) -> bool:
    """Text the pages' own words never hold: a hidden character, raw or marked, or a right-to-left letter."""
    return bool(MARKER.search(text)) or any(
        c in BIDI_AND_HIDDEN or unicodedata.bidirectional(c) in {"R", "AL"} for c in text
    )


def isolation_faults(html: str, written: Iterable[str]) -> list[str]:
    """What is wrong with how a page isolates what members wrote (an empty list: nothing).

    ``written``: the strings the page may show (its data). Every hidden character, raw or marked, and
    every right-to-left letter (the pages' own words have none) is inside an isolate; every isolate holds
    exactly one of ``written`` (so what follows a member's text is never inside its isolate); the title
    isolates each part with FSI…PDI and hides nothing else."""
    parsed = _Isolates()
    parsed.feed(html)
    parsed.close()
    faults: list[str] = []
    known = {_plain(s) for s in written}
    faults += [f"outside any isolate: {text!r}" for text in parsed.outside if _written_by_a_member(text)]
    for pieces in parsed.isolates:
        text = "".join(pieces)
        if _plain(text) not in known:
            faults.append(f"an isolate holds more or less than one written string: {text!r}")
    title = "".join(parsed.title)
    depth = 0
    for c in title:
        if c == "\u2068":
            depth += 1
        elif c == "\u2069":
            depth -= 1
        elif c in BIDI_AND_HIDDEN:
            faults.append(f"a hidden character in the title: {title!r}")
            break
        if depth not in (0, 1):
            faults.append(f"the title's isolates are not one level, each closed: {title!r}")
            break
    if depth:
        faults.append(f"an isolate of the title is left open: {title!r}")
    return faults
