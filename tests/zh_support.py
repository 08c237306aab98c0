"""Whether a text meant for a Traditional Chinese table has English in it, and every text a simulated
Discord shows: messages (ephemeral ones too), their embeds, buttons, menus and placeholders, and forms.

The heuristic: a run of two or more ASCII words (letters only) is an English phrase. Code spans
(commands, ``key:value`` words), mentions, Discord timestamps and the names given (members, seats,
tables) are taken out first: they are typed or shown as they are in every language.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from typing import Any

import discord

_CODE = re.compile(r"`[^`]*`")
_DISCORD = re.compile(r"<(?:@[!&]?|#|t:)[0-9]+(?::[A-Za-z])?>")
_WORD = re.compile(r"[A-Za-z]+(?:['’][A-Za-z]+)*")
_MARKS = "*_~|()[]\"'.,;:!?…“”’"
_BREAK = "\x00"


def english_runs(text: str, names: Iterable[str] = ()) -> list[str]:
    """The English phrases of ``text``: two or more ASCII words in a row (spaces and ASCII punctuation
    between them), not broken by a character of another script, a number or a name."""
    plain = _CODE.sub(_BREAK, text)
    plain = _DISCORD.sub(_BREAK, plain)
    for name in sorted(names, key=len, reverse=True):
        plain = plain.replace(name, _BREAK)
    runs: list[str] = []
    for segment in re.split(r"[^\x00-\x7f]|\x00", plain):
        current: list[str] = []
        for token in [*segment.split(), _BREAK]:
            core = token.strip(_MARKS)
            if core and _WORD.fullmatch(core):
                current.append(core)
                continue
            if len(current) >= 2:
                runs.append(" ".join(current))
            current = []
    return runs


def _component_texts(component: Any) -> Iterator[str]:
    if isinstance(component, dict):
        for key in ("label", "placeholder", "title", "description", "content"):
            value = component.get(key)
            if isinstance(value, str):
                yield value
        for key in ("components", "component", "options"):
            value = component.get(key)
            if isinstance(value, dict):
                yield from _component_texts(value)
            elif isinstance(value, list):
                for item in value:
                    yield from _component_texts(item)
        return
    for attr in ("label", "placeholder"):
        value = getattr(component, attr, None)
        if isinstance(value, str):
            yield value
    for option in getattr(component, "options", None) or ():
        yield option.label
        if option.description:
            yield option.description
    for child in getattr(component, "children", None) or ():
        yield from _component_texts(child)


def message_texts(message: Any) -> Iterator[str]:
    """Every text of a message as its reader sees it: content, embeds, buttons, menus and their options."""
    if message.content:
        yield message.content
    for embed in message.embeds:
        if isinstance(embed, discord.Embed):
            yield from (embed.title or "", embed.description or "", embed.footer.text or "")
            for field in embed.fields:
                yield from (field.name or "", field.value or "")
        elif isinstance(embed, dict):
            yield from (
                embed.get("title", ""),
                embed.get("description", ""),
                (embed.get("footer") or {}).get("text", ""),
            )
    for row in message.components:
        yield from _component_texts(row)


def result_texts(result: Any) -> Iterator[str]:
    """Every text an interaction's answer shows: its message, follow-ups and form."""
    if result.response is not None:
        yield from message_texts(result.response)
    for followup in result.followups:
        yield from message_texts(followup)
    if result.modal is not None:
        yield from _component_texts(result.modal)


_CJK = "\u3400-\u9fff\uf900-\ufaff"
_SLIPS = (
    re.compile(rf"[,:;][ \t]*[{_CJK}（「『]"),  # an ASCII comma, colon or semicolon before Chinese
    re.compile(rf"[{_CJK}）」』][,:;]"),  # ... or after it
    re.compile(r"[。！？；：，][ \t]+\S"),  # a space after a full-width mark
)


def punctuation_slips(text: str) -> list[str]:
    """Where a Chinese text uses ASCII commas, colons or semicolons, or leaves a space after 。: each
    slip with a little of its context. Code spans and Discord's markup are left out."""
    plain = _DISCORD.sub(_BREAK, _CODE.sub(_BREAK, text)).replace("*", "")
    return [plain[max(m.start() - 8, 0) : m.end() + 8] for slip in _SLIPS for m in slip.finditer(plain)]
