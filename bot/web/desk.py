"""``!web`` and ``!admin web on|hidden|off``: the link to the round's record, and whether it shows.

Like every command these end in the router, so Discord, the console and a replay give the same words.
The choice is the guild's setting in the store (``guild_settings.web``), which the site reads.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Protocol
from urllib.parse import quote

from games.nomic.context import Context
from games.nomic.errors import BadInputError, NotAllowedError


class WebMode(StrEnum):
    ON = "on"
    """Listed on the site's front page."""
    HIDDEN = "hidden"
    """Not listed; its pages answer to whoever has the link."""
    OFF = "off"
    """Its pages answer "not found"."""


WEB_USAGE = "usage: `!admin web on`, `!admin web hidden` or `!admin web off`"
WEB_SUMMARY = "the link to this round's public record on the web"


class WebSettings(Protocol):
    """What the desk needs of the store (``data.store.Store``)."""

    async def guild_settings(self, guild: str) -> object: ...

    async def set_web_mode(self, guild: str, mode: str) -> None: ...


def is_web_command(text: str) -> bool:
    """``!web`` or ``!admin web ...`` (the grammar's other ``!admin`` words stay the round's)."""
    words = text.strip().removeprefix("!").split(maxsplit=2)
    if not words:
        return False
    first = words[0].casefold()
    return first == "web" or (first == "admin" and len(words) > 1 and words[1].casefold() == "web")


def guild_url(base: str, guild: str) -> str:
    return f"{base.rstrip('/')}/g/{quote(guild, safe='')}"


class WebDesk:
    def __init__(self, store: WebSettings, base_url: str | None) -> None:
        """``base_url``: where the site is served (None: this process serves no site)."""
        self.store = store
        self.base_url = base_url

    async def mode(self, guild: str) -> WebMode:
        stored = getattr(await self.store.guild_settings(guild), "web", WebMode.ON.value)
        try:
            return WebMode(stored)
        except ValueError:
            return WebMode.ON

    async def answer(self, guild: str, ctx: Context, text: str) -> str:
        """The answer to ``!web`` or ``!admin web ...``; a ``RuleError`` when it cannot be done."""
        words = text.strip().removeprefix("!").split()
        if words[0].casefold() == "web":
            if len(words) > 1:
                raise BadInputError("`!web` takes nothing after it")
            return await self._link(guild)
        args = words[2:]
        if not args:
            return f"The web record of this server is {await self._state_words(guild)}. ({WEB_USAGE})"
        if not ctx.is_moderator:
            raise NotAllowedError("only moderators can turn the web record on, hide it or turn it off")
        if len(args) > 1:
            raise BadInputError(WEB_USAGE)
        try:
            wanted = WebMode(args[0].casefold())
        except ValueError:
            raise BadInputError(WEB_USAGE) from None
        if wanted is await self.mode(guild):
            return f"The web record of this server is already {await self._state_words(guild)}."
        await self.store.set_web_mode(guild, wanted.value)
        return f"Done: the web record of this server is now {await self._state_words(guild)}."

    async def _state_words(self, guild: str) -> str:
        mode = await self.mode(guild)
        if mode is WebMode.OFF:
            return "off: its pages answer that there is no such page"
        shown = "on, listed on the site's front page" if mode is WebMode.ON else "hidden: not listed, open to its link"
        if self.base_url is None:
            return f"{shown} (this bot serves no site now: its operator has not set `WEB_PORT`)"
        return f"{shown} ({guild_url(self.base_url, guild)})"

    async def _link(self, guild: str) -> str:
        if self.base_url is None:
            return "This bot serves no web record: its operator has not set `WEB_PORT`."
        mode = await self.mode(guild)
        if mode is WebMode.OFF:
            return "The web record of this server is turned off; a moderator can turn it on with `!admin web on`."
        hidden = " It is not listed on the site's front page: share the link." if mode is WebMode.HIDDEN else ""
        return (
            "The round's record on the web: the ruleset and its history, this week, the players, proposals, "
            f"rulings and the season: {guild_url(self.base_url, guild)}{hidden}"
        )
