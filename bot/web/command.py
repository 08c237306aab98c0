"""``python -m bot web`` (a database's record served until Ctrl-C), ``export-wiki GUILD``, and where the
console serves the record."""

from __future__ import annotations

import argparse
import asyncio
import sys


def console_web(settings: object) -> tuple[str, int] | None:
    """The console serves the web record on this machine when ``WEB_PORT`` is set."""
    port = getattr(settings, "web_port", None)
    return ("127.0.0.1", port) if port is not None else None


def web_command(args: argparse.Namespace) -> int:
    """``web --db PATH`` (serve a file's record until Ctrl-C) and ``export-wiki GUILD``."""
    from bot.settings import Settings

    settings = Settings()
    db = args.db or settings.database
    if args.command == "export-wiki":
        from bot.web.wiki import export_guild

        if args.out is None:
            return asyncio.run(export_guild(db, args.guild))
        with args.out.open("w", encoding="utf-8") as fh:
            return asyncio.run(export_guild(db, args.guild, out=fh))
    from bot.web.record import serve_file

    port = args.port if args.port is not None else (settings.web_port if settings.web_port is not None else 8080)
    host = args.host or settings.web_host
    try:
        return asyncio.run(serve_file(db, host, port))
    except KeyboardInterrupt:
        return 0
    except OSError as exc:
        print(f"error: cannot serve on {host}:{port}: {exc.strerror or exc}", file=sys.stderr)
        return 2
