"""Prefix bids answered together: one "bids received" message per channel, at a steady pace.

A ✅ per accepted bid (Discord takes about four reactions a second in a channel) and a reply per
refused one (five messages in five seconds) left the last bidder of a 500-bid burst waiting minutes.
Instead, each channel has one message listing the bidders of the last few minutes with their
latest bid, taken or refused (and why). It is edited while it is still the channel's newest message;
once members have posted below it, it is posted again under their bids and the previous one is
deleted, so the channel keeps a single one. It changes at most once every ``pace`` seconds (the first
bid of a quiet channel is answered at once). When more bidders wait than one message holds (a
hundred bidders' lines fill it), those who waited longest are shown and the rest at the next change,
before anyone answered already. A refused bid also reaches its bidder by DM when their
DMs are open, at a pace of its own. Slash ``/bid`` is answered by its interaction, which counts
against no channel.

Which message is a channel's is kept in the store (``guild_messages``, role ``receipts:CHANNEL``), as
the lot board is, so a restarted bot edits or replaces that message rather than leaving it behind with
lines nobody updates. The lines come back from the round itself: each bidder's latest bid still on
its lot within the last minutes (a refused bid is in no log: its bidder had it by DM already).
"""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING

import discord

from bot.discord import notices
from bot.discord.io import MESSAGE_LIMIT, TOO_OLD_TO_EDIT, dms_closed
from bot.discord.permissions import cannot_post

if TYPE_CHECKING:
    from bot.discord.app import NomicBot

log = logging.getLogger(__name__)

PACE = 2.5
"""Seconds between two changes of a channel's message: two every five seconds, beside the board's."""
SHOWN_FOR = 180.0
"""Seconds a bidder stays on the message after their latest bid."""
DMS_PER_SECOND = 10
"""Refusals told by DM at most this many a second (ten at a time): the rest of the bot keeps most of
Discord's 50 requests a second."""
TITLE = "Bids received"
FOOTER = "Bid with /bid: its answer comes at once (a refusal only you see)."
LOST = "the bids received (the answer to `!bid`)"
DESCRIPTION_LIMIT = 4000
TOTAL_LIMIT = 5800
"""Discord takes 4,096 characters an embed and 6,000 in all of a message's embeds."""
REASON_LIMIT = 80
"""A refusal's reason in the channel, cut to this many characters (the DM has it whole): a hundred bidders'
lines fit in one message."""


@dataclass
class _Bids:
    """A member's bids of the last minutes: the latest taken, the latest refused (and why)."""

    at: float
    taken: tuple[int, int] | None = None
    refused: tuple[int, int, str] | None = None
    refused_last: bool = False
    count: int = 0
    fresh: bool = True
    """A bid came since the channel's message last showed this member: they wait for their answer."""

    def line(self, member: int) -> str:
        parts = []
        if self.taken is not None:
            parts.append(f"✅ lot {self.taken[0]}: {self.taken[1]}")
        if self.refused is not None:
            lot, amount, why = self.refused
            parts.append(f"❌ lot {lot}: {amount} — {why}")
        if not self.refused_last:
            parts.reverse()  # in the order they came
        return f"<@{member}> " + " · ".join(parts)


@dataclass
class _Desk:
    """One channel's bids received and its message."""

    channel: discord.TextChannel
    bids: dict[int, _Bids] = field(default_factory=dict)
    """Member id to their bids, the member who bid longest ago first."""
    refusals: dict[int, tuple[discord.Member, list[str]]] = field(default_factory=dict)
    """Refusals to tell by DM once the message shows them."""
    message: discord.Message | discord.PartialMessage | None = None
    last: float = float("-inf")
    dirty: bool = False
    task: asyncio.Task[None] | None = None
    loaded: bool = False
    """The store's message and the round's recent bids were read (once, after a start)."""


def role_of(channel: discord.abc.Snowflake) -> str:
    """The channel's message among those the store keeps per guild (``Store.message``)."""
    return f"receipts:{channel.id}"


def refusal_of(text: str) -> str:
    """The reason of a refusal's answer ("Can't do that: you cannot afford 500 points (you have 100).")."""
    reason = text.split(": ", 1)[1] if ": " in text else text
    reason = reason.rstrip(".")
    return reason if len(reason) <= REASON_LIMIT else reason[: REASON_LIMIT - 1] + "…"


class BidReceipts:
    def __init__(self, bot: NomicBot, pace: float = PACE, *, dms_per_second: int = DMS_PER_SECOND) -> None:
        self._bot = bot
        self._pace = pace
        self._desks: dict[int, _Desk] = {}
        self._dms_per_second = max(1, dms_per_second)
        self._dms: dict[int, tuple[discord.Member, list[str], str]] = {}
        """Member id to (member, refusals, where) to tell by DM, oldest first."""
        self._dm_task: asyncio.Task[None] | None = None

    def add(
        self, channel: discord.TextChannel, member: discord.Member, lot: int, amount: int, answer: str | None
    ) -> None:
        """A prefix bid was taken (``answer`` None) or refused (``answer``: the refusal, in the words every
        adapter answers with): list it soon, and tell a refusal by DM."""
        refused = refusal_of(answer) if answer is not None else None
        loop = asyncio.get_running_loop()
        desk = self._desks.setdefault(channel.id, _Desk(channel))
        desk.channel = channel
        bids = desk.bids.pop(member.id, None) or _Bids(loop.time())
        desk.bids[member.id] = bids
        bids.at = loop.time()
        bids.fresh = True
        bids.count += 1
        bids.refused_last = refused is not None
        if refused is None:
            bids.taken = (lot, amount)
        else:
            bids.refused = (lot, amount, refused)
        desk.dirty = True
        if desk.task is None or desk.task.done():
            desk.task = loop.create_task(self._flush(desk))
        if answer is not None:
            desk.refusals.setdefault(member.id, (member, []))[1].append(f"`!bid {lot} {amount}`: {answer}")

    def stop(self) -> None:
        for desk in self._desks.values():
            if desk.task is not None:
                desk.task.cancel()
        if self._dm_task is not None:
            self._dm_task.cancel()

    async def _flush(self, desk: _Desk) -> None:
        loop = asyncio.get_running_loop()
        while desk.dirty:
            wait = desk.last + self._pace - loop.time()
            if wait > 0:
                await asyncio.sleep(wait)
            desk.dirty = False
            desk.last = loop.time()
            self._dm_refusals(desk)
            try:
                await self._show(desk)
            except discord.HTTPException as exc:
                guild = desk.channel.guild
                failure = notices.from_error(exc, desk.channel, guild.me, LOST)
                if failure is None:
                    log.warning("guild %s: could not post the bids received: %s", guild.id, exc)
                else:
                    await self._bot.notices.report(guild, await self._bot.config(guild.id), failure)

    def _dm_refusals(self, desk: _Desk) -> None:
        """The refusals the message is about to show go to their bidders by DM too (one DM each)."""
        for member_id, (member, answers) in desk.refusals.items():
            _, told, _ = self._dms.pop(member_id, (member, [], desk.channel.mention))
            self._dms[member_id] = (member, [*told, *answers], desk.channel.mention)
        desk.refusals.clear()
        if self._dms and (self._dm_task is None or self._dm_task.done()):
            self._dm_task = asyncio.get_running_loop().create_task(self._tell())

    def _lines(self, desk: _Desk, now: float) -> list[_Line]:
        for member in [m for m, bid in desk.bids.items() if now - bid.at > SHOWN_FOR]:
            del desk.bids[member]
        return [_Line(member, bid.line(member), bid.fresh, bid.count) for member, bid in desk.bids.items()]

    async def _load(self, desk: _Desk) -> None:
        """After a start: the channel's message as the store knows it, and the bids it listed as the
        round has them, older than (and under) any bid since."""
        desk.loaded = True
        channel = desk.channel
        guild = str(channel.guild.id)
        kept = await self._bot.db.message(guild, role_of(channel))
        if desk.message is None and kept is not None and kept[0] == str(channel.id) and kept[1].isdigit():
            desk.message = channel.get_partial_message(int(kept[1]))
        state = await self._bot.service.state(guild)
        if state is None or state.sealed_bids:
            return  # sealed bids are never listed in a channel
        now, ticks = self._bot.clock.now(), asyncio.get_running_loop().time()
        latest: dict[str, tuple[datetime, int, int]] = {}
        for lot in state.lots.values():
            for bid in lot.bids:
                if (now - bid.at).total_seconds() <= SHOWN_FOR and bid.at >= latest.get(bid.player, (bid.at,))[0]:
                    latest[bid.player] = (bid.at, lot.number, bid.amount)
        earlier: dict[int, _Bids] = {}
        for player, (at, lot_number, amount) in sorted(latest.items(), key=lambda item: item[1][0]):
            if player.isdigit():
                age = (now - at).total_seconds()
                earlier[int(player)] = _Bids(ticks - age, taken=(lot_number, amount), fresh=False)
        for member, since in desk.bids.items():
            before = earlier.pop(member, None)
            if before is not None and since.taken is None:
                since.taken = before.taken
        desk.bids = {**earlier, **desk.bids}

    async def _show(self, desk: _Desk) -> None:
        channel = desk.channel
        guild = channel.guild
        if not desk.loaded:
            await self._load(desk)
        lines = self._lines(desk, asyncio.get_running_loop().time())
        if not lines:
            return
        me = guild.me
        missing = cannot_post(channel, me) if me is not None else []
        if missing:
            config = await self._bot.config(guild.id)
            await self._bot.notices.report(guild, config, notices.forbidden(channel, missing, LOST))
            return
        with_embeds = me is not None and channel.permissions_for(me).embed_links
        kept = _pick(lines, TOTAL_LIMIT - len(TITLE) - len(FOOTER) if with_embeds else MESSAGE_LIMIT - len(TITLE) - 6)
        content, shown = _render(kept, len(lines)) if with_embeds else (_plain(kept, len(lines)), [])
        desk.message, old = await self._post(desk, content, shown), desk.message
        if old is None or old.id != desk.message.id:
            await self._bot.db.set_message(str(guild.id), role_of(channel), str(channel.id), str(desk.message.id))
        for line in kept:
            bids = desk.bids.get(line.member)
            if bids is not None and bids.count == line.count:  # no newer bid came meanwhile
                bids.fresh = False
        if any(line.fresh for line in lines if line not in kept):
            desk.dirty = True  # more bidders waiting than one message holds: they come next
        if old is not None and old.id != desk.message.id:
            try:  # one such message in the channel: the new one, below the bids it answers
                await old.delete()
            except discord.HTTPException:
                log.info("guild %s: could not delete the previous bids received", guild.id)

    @staticmethod
    async def _post(desk: _Desk, content: str | None, shown: list[discord.Embed]) -> discord.Message:
        """Edit the channel's message while it is the newest there; otherwise post it anew."""
        old, channel = desk.message, desk.channel
        if old is not None and channel.last_message_id == old.id:
            try:
                return await old.edit(content=content, embeds=shown)
            except discord.NotFound:
                desk.message = None
            except discord.HTTPException as exc:
                if exc.code != TOO_OLD_TO_EDIT:
                    raise
        return await channel.send(content=content, embeds=shown)

    async def _tell(self) -> None:
        """Each refused bidder by DM, with every refusal since they were last told; a few a second."""
        loop = asyncio.get_running_loop()
        while self._dms:
            started = loop.time()
            for _ in range(min(self._dms_per_second, len(self._dms))):
                member_id = next(iter(self._dms))
                member, refusals, where = self._dms.pop(member_id)
                head = f"Your bid{'s' if len(refusals) > 1 else ''} in {where}:"
                try:
                    await member.send("\n".join([head, *refusals])[:MESSAGE_LIMIT])
                except discord.HTTPException as exc:
                    if not dms_closed(exc):  # closed DMs: the channel's message told them
                        log.info("could not DM %s a refused bid: %s", member_id, exc)
            wait = started + 1 - loop.time()
            if wait > 0 and self._dms:
                await asyncio.sleep(wait)


@dataclass(frozen=True)
class _Line:
    member: int
    text: str
    fresh: bool
    count: int


MORE = "… and {n} more bidder{s}"


def _pick(lines: list[_Line], budget: int) -> list[_Line]:
    """The lines that fit in ``budget`` characters, in their order: first every bidder still waiting for an
    answer (the longest waiting first), then the most recent of those answered before."""
    budget -= len(MORE) + 8
    order = [line for line in lines if line.fresh] + [line for line in reversed(lines) if not line.fresh]
    chosen: set[int] = set()
    used = 0
    for line in order:
        if used + len(line.text) + 1 <= budget:
            chosen.add(line.member)
            used += len(line.text) + 1
    return [line for line in lines if line.member in chosen]


def _more(kept: list[_Line], total: int) -> list[str]:
    left_out = total - len(kept)
    return [MORE.format(n=left_out, s="s" if left_out > 1 else "")] if left_out else []


def _render(kept: list[_Line], total: int) -> tuple[str | None, list[discord.Embed]]:
    """The chosen lines in embeds of one message (each embed takes 4,096 characters)."""
    texts = _more(kept, total) + [line.text for line in kept]
    parts: list[list[str]] = [[]]
    size = 0
    for text in texts:
        if parts[-1] and size + len(text) + 1 > DESCRIPTION_LIMIT:
            parts.append([])
            size = 0
        parts[-1].append(text)
        size += len(text) + 1
    shown = [discord.Embed(description="\n".join(part), colour=discord.Colour.gold()) for part in parts]
    shown[0].title = TITLE
    shown[-1].set_footer(text=FOOTER)
    return None, shown


def _plain(kept: list[_Line], total: int) -> str:
    """Without Embed Links: the chosen lines in one message's text."""
    return "\n".join([f"**{TITLE}**", *_more(kept, total), *(line.text for line in kept)])
