"""A page as HTML (Jinja2, escaping everything a member wrote) or as its JSON twin.

What a member wrote is also isolated for direction on every page: a ``<bdi>`` of its own (``member`` and
``said``), so that a right-to-left override, an isolate left open or closed twice, or right-to-left
words cannot turn round or move the page's text that follows. Names (``member``) also show what they
hide: a direction control or an invisible character is drawn as a small ``⟨U+202E⟩``, so one name
cannot pass for another (U+202E then ``ecila`` shows as ``⟨U+202E⟩ecila``, never as ``alice``). Longer texts
(``said``: proposals, requests, rulings) keep their characters, which right-to-left writing needs, with
every control that opens a direction closed within the text. The JSON twin keeps every string as it is.
"""

from __future__ import annotations

import json
import unicodedata
from datetime import UTC, datetime
from functools import cache
from typing import Any

from jinja2 import Environment, PackageLoader, StrictUndefined, select_autoescape
from markupsafe import Markup, escape

from bot.web.pages import Page

SUITS = {"S": "♠", "H": "♥", "C": "♣", "D": "♦"}


def stamp(value: object) -> str:
    """An instant as every page writes it: ``Sun 2026-12-06 00:00 UTC``."""
    if not isinstance(value, datetime):
        return "" if value is None else str(value)
    return value.astimezone(UTC).strftime("%a %Y-%m-%d %H:%M UTC")


def short(value: object) -> str:
    """An instant within a week's page: ``Tue 12-15 10:00``."""
    return value.astimezone(UTC).strftime("%a %m-%d %H:%M") if isinstance(value, datetime) else ""


def iso(value: datetime) -> str:
    return value.astimezone(UTC).isoformat().replace("+00:00", "Z")


def card(code: str) -> str:
    """A card code with its suit's symbol, for the eye (``10H`` as ``10♥``)."""
    return code[:-1] + SUITS.get(code[-1:], code[-1:]) if code else code


EMBEDDINGS = {"\u202a", "\u202b", "\u202d", "\u202e"}
"""LRE, RLE, LRO, RLO: closed by PDF (U+202C)."""
ISOLATES = {"\u2066", "\u2067", "\u2068"}
"""LRI, RLI, FSI: closed by PDI (U+2069)."""
PDF, PDI = "\u202c", "\u2069"
JOINERS = {"\u200c", "\u200d"}
"""ZWNJ and ZWJ: needed within emoji and many scripts, invisible between two ASCII characters."""
BLANKS = {"\u034f", "\u115f", "\u1160", "\u17b4", "\u17b5", "\u3164", "\uffa0", *map(chr, range(0x180B, 0x1810))}
"""Letters and marks that draw nothing (fillers, the combining grapheme joiner, Mongolian variation selectors)."""
BLACK_FLAG, TAGS = "\U0001f3f4", range(0xE0020, 0xE0080)
"""Tag characters spell a subdivision flag after the black flag; anywhere else they hide."""


BDI = Markup("<bdi>%s</bdi>")
UNSEEN = Markup('<span class="unseen">%s</span>')


def _hidden(text: str, i: int) -> bool:
    """Whether ``text[i]`` draws nothing or turns the direction of what is around it."""
    ch = text[i]
    if ch in JOINERS:
        around = text[i - 1 : i] + text[i + 1 : i + 2]
        return around.isascii()
    if ord(ch) in TAGS:
        j = i
        while j > 0 and ord(text[j - 1]) in TAGS:
            j -= 1
        return text[j - 1 : j] != BLACK_FLAG
    return ch in BLANKS or unicodedata.category(ch) in {"Cc", "Cf", "Zl", "Zp"}


def _revealed(text: str) -> list[tuple[str, bool]]:
    """The text in runs, each either shown as it is (False) or a hidden character's marker (True)."""
    runs: list[tuple[str, bool]] = []
    plain: list[str] = []
    for i, ch in enumerate(text):
        if _hidden(text, i):
            if plain:
                runs.append(("".join(plain), False))
                plain = []
            runs.append((f"⟨U+{ord(ch):04X}⟩", True))
        else:
            plain.append(ch)
    if plain:
        runs.append(("".join(plain), False))
    return runs


def member(value: object) -> Markup:
    """A name (or a short line of the bot's that names members), isolated, with what it hides shown."""
    if value is None:
        return Markup("")
    text = str(value)
    if text.isascii() and text.isprintable():
        return BDI % text  # most names: nothing hidden (escaped by %)
    runs = [UNSEEN % run if marker else escape(run) for run, marker in _revealed(text)]
    return BDI % Markup("").join(runs)


def member_text(value: object) -> str:
    """A name where no element can isolate it (the page's ``<title>``): hidden characters shown, and the
    whole between FSI and PDI."""
    return "\u2068" + "".join(run for run, _ in _revealed("" if value is None else str(value))) + "\u2069"


def balanced(text: str) -> str:
    """The text with every direction it opens closed by its end (and at each line break), and every close
    without an opening left out, so nothing in it reaches the text around it."""
    if text.isascii():
        return text
    out: list[str] = []
    opened: list[str] = []
    for ch in text:
        if ch in EMBEDDINGS or ch in ISOLATES:
            opened.append(ch)
        elif ch == PDF:
            if not opened or opened[-1] not in EMBEDDINGS:
                continue
            opened.pop()
        elif ch == PDI:
            if not any(o in ISOLATES for o in opened):
                continue
            while opened[-1] not in ISOLATES:  # a PDI closes the embeddings opened inside its isolate: said here
                out.append(PDF)
                opened.pop()
            opened.pop()
        elif ch in "\n\r\u2029\x85":
            out.extend(_closing(opened))
            opened.clear()
        out.append(ch)
    out.extend(_closing(opened))
    return "".join(out)


def _closing(opened: list[str]) -> list[str]:
    return [PDI if o in ISOLATES else PDF for o in reversed(opened)]


def said(value: object) -> Markup:
    """What a member wrote at length, isolated, its directions closed within it."""
    if value is None:
        return Markup("")
    return BDI % balanced(str(value))


def _default(value: object) -> Any:
    if isinstance(value, datetime):
        return iso(value)
    if isinstance(value, set | frozenset | tuple):
        return list(value)
    raise TypeError(f"{type(value).__name__} is not JSON")


def to_json(page: Page) -> str:
    """The page's JSON twin: its data, with its title and the address of its HTML page."""
    body = {"title": page.title, "html": page.path or None, **page.data}
    if page.guild is not None:
        body["guild"] = {"id": page.guild.id, "name": page.guild.name, "url": page.guild.base}
    return json.dumps(body, default=_default, ensure_ascii=False, indent=1)


@cache
def environment() -> Environment:
    env = Environment(
        loader=PackageLoader("bot.web", "templates"),
        autoescape=select_autoescape(["html"], default=True),
        undefined=StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.filters["stamp"] = stamp
    env.filters["short"] = short
    env.filters["card"] = card
    env.filters["member"] = member
    env.filters["member_text"] = member_text
    env.filters["said"] = said
    env.filters["balanced"] = balanced
    env.filters["iso"] = lambda v: iso(v) if isinstance(v, datetime) else ""
    return env


def json_address(path: str) -> str:
    """The address of a page's JSON twin (``/`` has ``/index.json``)."""
    return (path.rstrip("/") or "/index") + ".json"


def to_html(page: Page) -> str:
    template = environment().get_template(page.template)
    json_path = json_address(page.path) if page.path else None
    return template.render(page=page, data=page.data, g=page.guild, crumbs=page.crumbs, json_path=json_path)
