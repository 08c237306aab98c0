"""The HTTP side of the web record (aiohttp, which discord.py brings): GET only, HTML or JSON.

Every address ending in ``.json`` is the JSON twin of the page without it (``/`` is ``/index.json``).
What names nothing is a 404 page (or a JSON ``{"error": "not found"}``); an unexpected failure is
logged and answered with a plain 500 page, never a traceback. The server runs on the caller's event
loop: inside the bot (``WEB_PORT``), the console, or ``python -m bot web --db``.
"""

from __future__ import annotations

import asyncio
import logging
from dataclasses import replace

from aiohttp import web

from bot.web.pages import not_found_page
from bot.web.render import json_address, to_html, to_json
from bot.web.site import NotFound, Redirect, Site, same_site

log = logging.getLogger(__name__)

HEADERS = {
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "same-origin",
    "X-Frame-Options": "DENY",
    "Content-Security-Policy": (
        "default-src 'none'; style-src 'unsafe-inline'; img-src 'self'; form-action 'self'; base-uri 'none';"
        " frame-ancestors 'none'"
    ),
    "Cache-Control": "no-cache",
}
FAILED = (
    "<!doctype html><html lang=en><meta charset=utf-8><title>Something went wrong</title>"
    "<p>Something went wrong on our side while making this page. Please try again in a moment."
)
SITE_KEY = web.AppKey("site", Site)


def split_json(path: str) -> tuple[str, bool]:
    """The page's address and whether its JSON twin is asked for."""
    if path.endswith(".json"):
        bare = path[: -len(".json")]
        return ("/" if bare in {"", "/index"} else bare), True
    return path, False


async def _handle(request: web.Request) -> web.StreamResponse:
    site = request.app[SITE_KEY]
    path, as_json = split_json(request.path)
    try:
        page = await site.page(path, dict(request.query))
        status = 200
    except NotFound:
        page, status = not_found_page(path), 404
    except Redirect as moved:
        location = json_address(moved.location) if as_json else moved.location
        if same_site(location):
            raise web.HTTPSeeOther(location, headers=HEADERS) from None
        log.warning("web record: a redirect off the site refused: %r", location[:200])
        page, status = not_found_page(path), 404
    except Exception:
        log.exception("web record: %s failed", request.path[:200])
        return web.Response(text=FAILED, status=500, content_type="text/html", headers=HEADERS)
    headers = dict(HEADERS)
    if page.hidden:
        headers["X-Robots-Tag"] = "noindex"
    if as_json:
        text = await asyncio.to_thread(to_json, page) if page.large else to_json(page)
        return web.Response(text=text, status=status, content_type="application/json", headers=headers)
    if status == 404:
        page = replace(page, path="")
    # a long page is rendered in a worker thread: the loop (the bot's commands) is never held for a whole render
    text = await asyncio.to_thread(to_html, page) if page.large else to_html(page)
    return web.Response(text=text, status=status, content_type="text/html", headers=headers)


def make_app(site: Site) -> web.Application:
    app = web.Application()
    app[SITE_KEY] = site
    app.router.add_get("/{tail:.*}", _handle)
    return app


class WebServer:
    """The site on ``host:port`` of the running event loop; ``port=0`` picks a free port."""

    def __init__(self, site: Site, host: str, port: int) -> None:
        self.site = site
        self.host = host
        self.port = port
        self._runner: web.AppRunner | None = None

    async def start(self) -> None:
        runner = web.AppRunner(make_app(self.site), access_log=None, handle_signals=False)
        await runner.setup()
        tcp = web.TCPSite(runner, self.host, self.port, reuse_address=True)
        try:
            await tcp.start()
        except BaseException:
            await runner.cleanup()
            raise
        self._runner = runner
        server = tcp._server
        sockets = getattr(server, "sockets", None) or []
        if sockets:
            self.port = int(sockets[0].getsockname()[1])

    @property
    def url(self) -> str:
        host = "127.0.0.1" if self.host in {"0.0.0.0", "::", ""} else self.host  # noqa: S104 - naming, not binding
        return f"http://{host}:{self.port}"

    async def stop(self) -> None:
        if self._runner is not None:
            runner, self._runner = self._runner, None
            await runner.cleanup()
