"""The Discord adapter's side of running sharded: which guilds this process acts for, and ``/healthz``.

``GuildKeeper`` holds the process's ``GuildOwnership`` (``data.ownership``: PostgreSQL's advisory locks
when the store is PostgreSQL, the local no-op otherwise). The bot asks it before acting for a guild;
when the lock connection dies it makes the bot forget every guild it held (cached state, timer,
settings), and every half lease (``GUILD_LEASE_SECONDS``) it checks the connection and takes over the
guilds of the process's shards whose locks freed, through the bot's start path (``ensure_round``: read
afresh, missed scheduled work caught up once). A process that stops answering loses its locks a lease
after its last renewal, so another takes its guilds over within about a lease and a half. It also
serves ``/healthz`` (``bot.health``) when ``HEALTH_PORT`` is set.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Sequence
from typing import TYPE_CHECKING, Any

from bot.health import Health, HealthServer
from data.base import OwnedElsewhereError
from data.ownership import GuildOwnership, LocalOwnership, open_ownership

if TYPE_CHECKING:
    import discord

    from data.group_commit import GroupCommit

log = logging.getLogger(__name__)

CLAIMS_A_LEASE = 2
"""How often a process on PostgreSQL checks its lock connection and claims its shards' guilds held elsewhere,
a lease (wall-clock; their holder stopped, died or stopped answering: each is taken over, its missed work
caught up)."""


class GuildKeeper:
    """This process's guild locks, their loss and their retaking, and its health endpoint."""

    def __init__(self, bot: Any, writer: Callable[[], GroupCommit[Any] | None]) -> None:
        """``bot``: the ``NomicBot`` (its settings, guilds, ``ensure_round`` and ``forget_guild``)."""
        self._bot = bot
        self._writer = writer
        self.ownership: GuildOwnership = LocalOwnership()
        self.health: HealthServer | None = None
        self._claiming: asyncio.Task[None] | None = None
        self._lost = False

    async def open(self, url: str | None) -> None:
        """Take the locks on ``url``'s PostgreSQL (once; a SQLite store keeps the local no-op)."""
        if url is not None and isinstance(self.ownership, LocalOwnership):
            self.use(await open_ownership(url, lease=self._bot.settings.guild_lease_seconds))

    def use(self, ownership: GuildOwnership) -> None:
        self.ownership = ownership
        ownership.on_lost(self._guilds_lost)

    def owns(self, guild: str) -> bool:
        """Whether this process acts for the guild now (its lock is held here)."""
        return self.ownership.holds(guild)

    def owned(self) -> list[str]:
        return self.ownership.owned()

    @property
    def lost(self) -> bool:
        """The locks went with their connection, and no guild was taken again since (``/healthz``: 503)."""
        return self._lost and not self.ownership.owned()

    def _guilds_lost(self, guilds: list[str]) -> None:
        """Another process may act for these guilds from now on: nothing cached or scheduled of them stays."""
        self._lost = True
        for guild in guilds:
            self._bot.forget_guild(guild)
        log.warning("stopped acting for %d guilds: their locks went with the lock connection", len(guilds))

    async def resume(self, guilds: Sequence[discord.Guild]) -> None:
        """Start or catch up each guild this process may act for (a guild held elsewhere is left to its holder).

        The locks are claimed first, all of them, so a guild whose previous holder's commit still holds it
        keeps none of the others waiting; then each guild taken is started or caught up."""
        taken = set(await self.ownership.claim([str(guild.id) for guild in guilds]))
        for guild in guilds:
            where = {"guild": str(guild.id), "shard": guild.shard_id}
            if str(guild.id) not in taken:
                log.info("%s", OwnedElsewhereError(str(guild.id)), extra=where)
                continue
            try:
                await self._bot.ensure_round(guild, arm=True)
            except OwnedElsewhereError as exc:
                log.info("%s", exc, extra=where)

    async def start(self, *, timers: bool) -> None:
        """``/healthz`` when ``HEALTH_PORT`` is set; with real timers on PostgreSQL, the claiming loop."""
        if timers and not isinstance(self.ownership, LocalOwnership) and self._claiming is None:
            every = self._bot.settings.guild_lease_seconds / CLAIMS_A_LEASE
            self._claiming = asyncio.create_task(self._every(every, self.claim))
        await self._start_health()

    async def claim(self) -> None:
        """Check the lock connection; take over this process's guilds whose locks freed."""
        await self.ownership.check()
        if self._bot.is_ready():
            await self.resume([g for g in self._bot.guilds if not self.ownership.holds(str(g.id))])

    @staticmethod
    async def _every(seconds: float, work: Callable[[], Awaitable[None]]) -> None:
        while True:
            await asyncio.sleep(seconds)
            try:
                await work()
            except Exception:
                log.exception("claiming this process's guilds failed; trying again later")

    async def _start_health(self) -> None:
        settings = self._bot.settings
        if settings.health_port is None or self.health is not None:
            return
        source = Health(
            lambda: (self.shard_ids(), getattr(self._bot, "shard_count", None)),
            self.owned,
            writer=self._writer,
            latencies=self.latencies,
            healthy=lambda: not self.lost,
        )
        try:
            self.health = await HealthServer.start(source, settings.health_host, settings.health_port)
        except OSError as exc:
            log.error("/healthz cannot listen on %s:%s: %s", settings.health_host, settings.health_port, exc)  # noqa: TRY400
            return
        log.info("health at %s", self.health.url)

    def shard_ids(self) -> list[int]:
        """The shards this process's gateway runs (``[0]`` unsharded)."""
        ids = getattr(self._bot, "shard_ids", None)
        return list(ids) if ids else [0]

    def latencies(self) -> list[tuple[int, float]]:
        """Each shard's gateway latency (seconds; NaN before it connected)."""
        found = getattr(self._bot, "latencies", None)
        if isinstance(found, list):
            return [(int(shard), float(seconds)) for shard, seconds in found]
        return [(0, float(self._bot.latency))]

    async def stop(self) -> None:
        """Stop claiming and serving ``/healthz``; the locks stay until ``close``."""
        if self._claiming is not None:
            claiming, self._claiming = self._claiming, None
            claiming.cancel()
        if self.health is not None:
            health, self.health = self.health, None
            await health.stop()

    async def close(self) -> None:
        """Release every guild: another process may take them over at once."""
        await self.ownership.close()
