"""A page as HTML (Jinja2, escaping everything a member wrote) or as its JSON twin."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from functools import cache
from typing import Any

from jinja2 import Environment, PackageLoader, StrictUndefined, select_autoescape

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
    env.filters["iso"] = lambda v: iso(v) if isinstance(v, datetime) else ""
    return env


def json_address(path: str) -> str:
    """The address of a page's JSON twin (``/`` has ``/index.json``)."""
    return (path.rstrip("/") or "/index") + ".json"


def to_html(page: Page) -> str:
    template = environment().get_template(page.template)
    json_path = json_address(page.path) if page.path else None
    return template.render(page=page, data=page.data, g=page.guild, crumbs=page.crumbs, json_path=json_path)
