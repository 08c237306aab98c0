"""The web record's addresses and the data behind each: reads the round, never changes it.

``Site.page(path)`` finds the page an address names, gathers what it needs (the state from the round's
service, archived records, the thread games' tables and the season from the store's read-only view)
and hands it to a pure function of ``bot.web.pages``. Anything that names nothing (an unknown guild, a
guild whose moderators turned the record off, a number no record has, a malformed address) raises
``NotFound``; the server turns it into a 404 page.

The same ``Site`` runs inside the bot (``WEB_PORT``: the state is the bot's own, always current) and on
its own over a database file (``python -m bot web --db``: a service that only reads, reloaded when
the file's log moves on, so a replay still running can be watched).
"""

from __future__ import annotations

import logging
import re
import unicodedata
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import replace
from datetime import datetime
from typing import TypeVar
from urllib.parse import unquote

from pydantic import BaseModel

from bot.web import pages
from bot.web.pages import GuildHead, Page
from bot.web.season import Season, SeasonBook, SeasonError
from data.read_store import ReadStore
from games.nomic import archive
from games.nomic.service import RoundService
from games.nomic.state import JudgeRequest, Proposal, RoundState, RulesetVersion
from games.tables.model import Table

M = TypeVar("M", bound=BaseModel)
log = logging.getLogger(__name__)

_NUMBER = re.compile(r"^[1-9][0-9]{0,8}$")
_DAY = re.compile(r"^\d{4}-\d{2}-\d{2}$")
_RULE = re.compile(r"^(?:0|[1-9][0-9]{0,2})\.(?:0|[1-9][0-9]{0,2})$")
"""A rule's number as the document writes it (``4.2``; ``04.2`` is no address)."""
_MEMBER = re.compile(r"^[\w.\-]{1,64}$")
MAX_PATH = 300
_UNSEEN = frozenset({"Cc", "Cf", "Zs", "Zl", "Zp"})
"""Controls, format characters (bidi, zero-width) and spaces: no address of the record has one, and a
browser drops or reads some of them (a tab, a backslash) so that ``/\t/x`` or ``/\\x`` means another site."""
_BREAKS = frozenset({"Cc", "Zl", "Zp"})
"""Controls and line breaks: never in a Location (CR LF would start a header of its own)."""
_LOCATION = re.compile(r"/(?![/\\])(?:[A-Za-z0-9\-._~!$&'()*+,;=:@/?]|%[0-9A-Fa-f]{2})*")

ON, HIDDEN, OFF = "on", "hidden", "off"


class NotFound(Exception):  # noqa: N818 - an answer (HTTP 404), not a fault
    """The address names nothing the record shows."""


class Redirect(Exception):  # noqa: N818 - an answer (HTTP 303), not a fault
    """The address is a form's answer: the page it asks for has a stable address of its own."""

    def __init__(self, location: str) -> None:
        super().__init__(location)
        self.location = location


def _plain_path(path: str) -> bool:
    """A path a browser reads as written: one leading slash, no backslash, nothing unseen."""
    if "//" in path or "\\" in path or not path.startswith("/"):
        return False
    if path.isascii():
        return path.isprintable() and " " not in path
    return not any(unicodedata.category(ch) in _UNSEEN for ch in path)


def same_site(location: str) -> bool:
    """Whether a redirect to ``location`` keeps a browser on this site: a path of one leading slash in plain
    ASCII, which stays one however often something on the way percent-decodes it (``/%2F%2Fx``, ``/%5Cx``
    or ``/%09/x`` would not) and never carries a control character or a line break."""
    if not _LOCATION.fullmatch(location):
        return False
    seen = location
    for _ in range(3):
        seen = unquote(seen)
        if seen.startswith(("//", "/\\")) or any(unicodedata.category(ch) in _BREAKS for ch in seen):
            return False
    return True


def _number(text: str) -> int:
    if not _NUMBER.match(text):
        raise NotFound(text)
    return int(text)


GuildNames = Callable[[str], str | None]
ChannelOf = Callable[[str, str], Awaitable[str | None]]
"""(guild, channel role) to the id of the Discord channel that plays that role, when known."""
DISCORD = "https://discord.com/channels"


def _snowflake(text: str) -> bool:
    return text.isascii() and text.isdigit()


class Site:
    def __init__(
        self,
        read: ReadStore,
        service: RoundService,
        *,
        live: bool,
        clock: Callable[[], datetime] | None = None,
        names: GuildNames | None = None,
        channel_of: ChannelOf | None = None,
    ) -> None:
        """``live``: ``service`` is the running bot's, whose state is always current; otherwise a service
        over ``read`` that is reloaded whenever the file's log has moved on. ``clock``: "now" for the
        time left in a phase (None: the instant of the round's last logged action). ``names``: a guild's name;
        ``channel_of``: its channels, for links to Discord (None: those bound with ``/setup``)."""
        self.read = read
        self.service = service
        self.live = live
        self.clock = clock
        self.names = names
        self.channel_of = channel_of
        self.seasons = SeasonBook(lambda guild, after, limit: read.log(guild, after=after, limit=limit))

    # -- what pages are made of --

    async def _head(self, guild: str) -> GuildHead:
        named = self.names(guild) if self.names is not None else None
        return GuildHead(guild, named or f"Server {guild}")

    async def listed(self) -> list[GuildHead]:
        """The guilds the index lists: every guild with a round whose moderators left the record on."""
        modes = await self.read.web_modes()
        return [await self._head(g) for g in await self.read.guilds() if modes.get(g, ON) == ON]

    async def guild(self, guild: str) -> tuple[GuildHead, RoundState, bool]:
        """The guild's head, its state and whether it is hidden; ``NotFound`` when the record shows none."""
        mode = await self.read.web_mode(guild)
        if mode == OFF:
            raise NotFound(guild)
        head, state, _ = await self.guild_any(guild)
        return head, state, mode == HIDDEN

    async def guild_any(self, guild: str) -> tuple[GuildHead, RoundState, bool]:
        """As ``guild``, whatever its moderators chose (the operator's wiki export)."""
        if guild not in await self.read.guilds():
            raise NotFound(guild)
        state = await self._state(guild)
        if state is None:
            raise NotFound(guild)
        return await self._head(guild), state, False

    async def _state(self, guild: str) -> RoundState | None:
        if not self.live:
            latest = await self.read.latest(guild)
            cached = await self.service.state(guild)
            if latest is not None and cached is not None and cached.seq != latest[0]:
                self.service.forget(guild)
        return await self.service.state(guild)

    async def now(self, guild: str, state: RoundState) -> datetime:
        if self.clock is not None:
            return self.clock()
        latest = await self.read.latest(guild)
        return max(state.clock, latest[1]) if latest is not None else state.clock

    async def _archived(self, guild: str, model: type[M], numbers: Sequence[int] | None = None) -> list[M]:
        bodies = await self.read.archived(guild, archive.KIND_OF[model].value, numbers=numbers)
        return archive.load(model, bodies)

    async def proposals(self, guild: str, state: RoundState) -> list[Proposal]:
        """Every proposal: those still in the state and those archived (the state's copy wins)."""
        found = {p.number: p for p in await self._archived(guild, Proposal)}
        found.update({p.number: p for p in state.proposals.values()})
        return [found[n] for n in sorted(found)]

    async def requests(self, guild: str, state: RoundState) -> list[JudgeRequest]:
        found = {r.number: r for r in await self._archived(guild, JudgeRequest)}
        found.update(state.requests)
        return [found[n] for n in sorted(found)]

    async def versions(self, guild: str, state: RoundState) -> list[RulesetVersion]:
        found = {v.version: v for v in await self._archived(guild, RulesetVersion)}
        found.update({v.version: v for v in state.ruleset_versions})
        return [found[n] for n in sorted(found)]

    async def season(self, guild: str) -> Season | None:
        """The season week by week (None when the log cannot be replayed: the pages say so)."""
        try:
            return await self.seasons.season(guild)
        except SeasonError:
            log.exception("web record: the season of guild %s cannot be replayed", guild)
            return None

    async def tables(self, guild: str) -> list[Table]:
        return [Table.model_validate_json(row.body) for row in await self.read.tables(guild)]

    async def _threads(self, guild: str) -> dict[str, str]:
        """Each table's thread on Discord."""
        if not _snowflake(guild):
            return {}
        rows = await self.read.tables(guild)
        return {r.name: f"{DISCORD}/{guild}/{r.thread_id}" for r in rows if r.thread_id and _snowflake(r.thread_id)}

    async def message_url(self, guild: str, role: str, message: str) -> str | None:
        """A message's address on Discord, when its guild, channel and id are Discord's."""
        if not (_snowflake(guild) and _snowflake(message)):
            return None
        if self.channel_of is not None:
            channel = await self.channel_of(guild, role)
        else:
            channel = (await self.read.channels(guild)).get(role)
        return f"{DISCORD}/{guild}/{channel}/{message}" if channel and _snowflake(channel) else None

    # -- addresses --

    async def page(self, path: str, query: dict[str, str] | None = None) -> Page:
        """The page at ``path`` (without ``.json``); ``NotFound`` or ``Redirect`` when it is none."""
        if len(path) > MAX_PATH or not _plain_path(path):
            raise NotFound(path[:40])
        if len(path) > 1 and path.endswith("/"):
            # one address a page: /g/sim/ is /g/sim, and only a page that exists is pointed to, by its own address
            found = await self.page(path.rstrip("/"), query)
            raise Redirect(found.path)
        parts = path.split("/")[1:] if path != "/" else []
        if not parts:
            return pages.index_page(await self.listed())
        if parts[0] != "g" or len(parts) < 2:
            raise NotFound(path)
        head, state, hidden = await self.guild(parts[1])
        page = await self.guild_page(head, state, parts[2:], query)
        return replace(page, hidden=True) if hidden else page

    async def guild_page(
        self, g: GuildHead, state: RoundState, rest: list[str], query: dict[str, str] | None = None
    ) -> Page:
        """The guild's page at ``rest`` (``["proposals", "12"]``)."""
        guild = g.id
        query = query or {}
        match rest:
            case []:
                season = await self.season(guild)
                return pages.home_page(
                    g, state, await self.now(guild, state), await self.proposals(guild, state), season
                )
            case ["week"]:
                return pages.week_page(g, state, await self.now(guild, state))
            case ["ruleset"]:
                return pages.ruleset_page(g, state, await self.requests(guild, state))
            case ["ruleset", "rules", number]:
                if not _RULE.match(number):
                    raise NotFound(number)
                rule = pages.rule_page(
                    g, state, number, await self.versions(guild, state), await self.requests(guild, state)
                )
                if rule is None:
                    raise NotFound(number)
                return rule
            case ["ruleset", "history"]:
                return pages.history_page(g, await self.versions(guild, state), state.ruleset_version)
            case ["ruleset", "v", number]:
                wanted = _number(number)
                found = {v.version: v for v in await self.versions(guild, state)}
                if wanted not in found:
                    raise NotFound(number)
                return pages.version_page(g, found[wanted], state.ruleset_version)
            case ["ruleset", "diff"]:
                old, new = query.get("from", ""), query.get("to", "")
                if _NUMBER.match(old) and _NUMBER.match(new):
                    raise Redirect(g.url("ruleset", "diff", int(old), int(new)))
                raise Redirect(g.url("ruleset", "history"))
            case ["ruleset", "diff", old, new]:
                found = {v.version: v for v in await self.versions(guild, state)}
                a, b = _number(old), _number(new)
                if a not in found or b not in found:
                    raise NotFound(f"{old}/{new}")
                return pages.diff_page(g, found[a], found[b])
            case ["players"]:
                return pages.players_page(g, state, await self.season(guild))
            case ["players", member]:
                if not _MEMBER.match(member):
                    raise NotFound(member)
                season = await self.season(guild)
                proposals = await self.proposals(guild, state)
                if not pages.known_member(member, state, season, proposals):
                    raise NotFound(member)
                return pages.player_page(g, member, state, season, proposals)
            case ["proposals"]:
                return pages.proposals_page(g, state, await self.proposals(guild, state))
            case ["proposals", number]:
                wanted = _number(number)
                proposal = next((p for p in state.proposals.values() if p.number == wanted), None)
                if proposal is None:
                    archived = await self._archived(guild, Proposal, [wanted])
                    proposal = archived[0] if archived else None
                if proposal is None:
                    raise NotFound(number)
                versions = await self.versions(guild, state)
                link = await self.message_url(guild, "proposals", proposal.message)
                return pages.proposal_page(g, proposal, state, versions, link)
            case ["rulings"]:
                return pages.rulings_page(g, state, await self.requests(guild, state), await self.season(guild))
            case ["rulings", number]:
                wanted = _number(number)
                request = state.requests.get(wanted)
                if request is None:
                    archived_requests = await self._archived(guild, JudgeRequest, [wanted])
                    request = archived_requests[0] if archived_requests else None
                if request is None:
                    raise NotFound(number)
                return pages.request_page(g, request, state, await self.season(guild))
            case ["games"]:
                return pages.games_page(g, await self.tables(guild), await self._threads(guild))
            case ["season"]:
                return pages.season_page(g, await self.season(guild))
            case ["season", day]:
                season = await self.season(guild)
                week = season.week(day) if season is not None and _DAY.match(day) else None
                if week is None:
                    raise NotFound(day)
                return pages.week_record_page(g, week)
        raise NotFound("/".join(rest))
