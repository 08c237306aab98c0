"""A running web record: the site, its read-only view of the database, and its HTTP server.

``WebRecord.start`` serves the record of a service that is running in this process (the bot, the
console); ``serve_file`` serves a database file on its own (``python -m bot web --db``), reloading
what changed in it, and never writing to it.
"""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import IO

from bot.web.desk import guild_url
from bot.web.server import WebServer
from bot.web.site import ChannelOf, GuildNames, Site
from data.base import Target
from data.read_store import ReadStore
from games.nomic.service import RoundService


class WebRecord:
    def __init__(self, site: Site, server: WebServer, read: ReadStore, base_url: str | None) -> None:
        self.site = site
        self.server = server
        self.read = read
        self._base_url = base_url

    @classmethod
    async def start(
        cls,
        path: str | Path | Target,
        service: RoundService | None,
        host: str,
        port: int,
        *,
        clock: Callable[[], datetime] | None = None,
        names: GuildNames | None = None,
        channel_of: ChannelOf | None = None,
        base_url: str | None = None,
    ) -> WebRecord:
        """Serve the record of the database at ``path``. ``service``: the running round's service (its
        state is current); None: a service of its own that only reads the file. ``StoreOpenError`` when
        the file cannot be read; ``OSError`` when the port cannot be had."""
        read = await ReadStore.open(path)
        try:
            live = service is not None
            own = service if service is not None else RoundService(read)
            site = Site(read, own, live=live, clock=clock, names=names, channel_of=channel_of)
            server = WebServer(site, host, port)
            await server.start()
        except BaseException:
            await read.close()
            raise
        return cls(site, server, read, base_url)

    @property
    def url(self) -> str:
        """Where members reach the site: the configured public address, else the one it listens on."""
        return (self._base_url or self.server.url).rstrip("/")

    async def stop(self) -> None:
        try:
            await self.server.stop()
        finally:
            await self.read.close()


async def serve_file(
    db: Path | Target,
    host: str,
    port: int,
    *,
    out: IO[str] = sys.stdout,
    stop: asyncio.Event | None = None,
) -> int:
    """``python -m bot web --db PATH``: serve the file's record until interrupted (or ``stop`` is set)."""
    record = await WebRecord.start(db, None, host, port)
    try:
        guilds = await record.read.guilds()
        print(f"Serving the web record of {db} at {record.url}/ (read-only; Ctrl-C stops).", file=out, flush=True)
        for guild in guilds:
            print(f"  {guild_url(record.url, guild)}", file=out, flush=True)
        await (stop or asyncio.Event()).wait()
    finally:
        await record.stop()
    return 0
