"""``GET /healthz``: what one process of the bot runs and whether its store keeps up, as JSON.

For a load balancer, a container's health check or a person with ``curl``: the shards this process
runs, each shard's gateway latency, when the store last committed, how many writes wait for the
next commit, and how many guilds this process holds. It answers 200 while the process holds its
locks and 503 once it lost them (the lock connection closed): another process may be taking its
guilds over. The same aiohttp stack as the web record (``bot/web/server.py``), on a port of its own
(``HEALTH_PORT``), so a private health port never exposes the public site and the other way round.
"""

from __future__ import annotations

import json
import logging
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from aiohttp import web

from data.group_commit import GroupCommit

log = logging.getLogger(__name__)

Latencies = Callable[[], list[tuple[int, float]]]
"""Each shard's id and its gateway latency in seconds (discord.py's ``latencies``)."""


def _iso(at: datetime | None) -> str | None:
    return at.astimezone(UTC).isoformat().replace("+00:00", "Z") if at is not None else None


@dataclass
class Health:
    """Where the figures come from; each part may be missing (before login, without a store)."""

    shards: Callable[[], tuple[Sequence[int], int | None]]
    """The shard ids this process runs and the shard count (None: unsharded)."""
    owned: Callable[[], Sequence[str]]
    """The guilds this process holds (``GuildOwnership.owned``)."""
    writer: Callable[[], GroupCommit[Any] | None] = lambda: None
    latencies: Latencies = list
    healthy: Callable[[], bool] = lambda: True
    started: datetime = field(default_factory=lambda: datetime.now(UTC))

    def report(self) -> dict[str, Any]:
        writer = self.writer()
        ids, count = self.shards()
        latency = {
            str(shard): round(seconds * 1000, 1)
            for shard, seconds in self.latencies()
            if math.isfinite(seconds)  # NaN or inf: the shard has not connected yet
        }
        return {
            "status": "ok" if self.healthy() else "lost",
            "shards": {"ids": list(ids), "count": count},
            "gateway_latency_ms": latency,
            "last_commit": _iso(writer.last_commit) if writer is not None else None,
            "commit_queue": writer.waiting if writer is not None else 0,
            "commits": writer.batches if writer is not None else 0,
            "guilds_owned": len(self.owned()),
            "up_since": _iso(self.started),
        }


HEALTH_KEY = web.AppKey("health", Health)


async def _healthz(request: web.Request) -> web.Response:
    report = request.app[HEALTH_KEY].report()
    status = 200 if report["status"] == "ok" else 503
    return web.Response(
        text=json.dumps(report, indent=1) + "\n",
        status=status,
        content_type="application/json",
        headers={"Cache-Control": "no-store"},
    )


class HealthServer:
    """``/healthz`` on the caller's event loop until ``stop``."""

    def __init__(self, runner: web.AppRunner, site: web.TCPSite, host: str, port: int) -> None:
        self._runner = runner
        self._site = site
        self.host = host
        self.port = port

    @property
    def url(self) -> str:
        return f"http://{self.host}:{self.port}/healthz"

    @classmethod
    async def start(cls, health: Health, host: str, port: int) -> HealthServer:
        """Listen on ``host:port`` (0: any free port); ``OSError`` when it cannot be had."""
        app = web.Application()
        app[HEALTH_KEY] = health
        app.router.add_get("/healthz", _healthz)
        runner = web.AppRunner(app, access_log=None)
        await runner.setup()
        site = web.TCPSite(runner, host, port)
        try:
            await site.start()
        except BaseException:
            await runner.cleanup()
            raise
        bound = port
        server = getattr(site, "_server", None)
        sockets = getattr(server, "sockets", None) or []
        if sockets:
            bound = int(sockets[0].getsockname()[1])
        return cls(runner, site, host, bound)

    async def stop(self) -> None:
        await self._runner.cleanup()
