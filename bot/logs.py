"""Log lines as text (default) or JSON lines (``LOG_FORMAT=json``), with the guild and the shard they concern.

Many processes of a sharded bot write to one log collector: a JSON object a line lets it filter by
guild or shard without parsing sentences. The guild and the shard come from the task that logs
(``acting_for``), so the code that logs need not pass them; a record may also carry them itself
(``extra={"guild": ...}``).
"""

from __future__ import annotations

import contextvars
import json
import logging
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from typing import IO

GUILD: contextvars.ContextVar[str | None] = contextvars.ContextVar("nomic_guild", default=None)
SHARD: contextvars.ContextVar[int | None] = contextvars.ContextVar("nomic_shard", default=None)
PROCESS: dict[str, object] = {}
"""Fields of every line of this process (its shard ids), set once at start."""

TEXT_FORMAT = "%(asctime)s %(levelname)s %(name)s: %(message)s"


@contextmanager
def acting_for(guild: str | None, shard: int | None = None) -> Iterator[None]:
    """Lines logged inside name this guild (and shard)."""
    guild_token = GUILD.set(guild)
    shard_token = SHARD.set(shard)
    try:
        yield
    finally:
        SHARD.reset(shard_token)
        GUILD.reset(guild_token)


class _Fields(logging.Filter):
    """Puts the task's guild and shard on each record that does not carry its own."""

    def filter(self, record: logging.LogRecord) -> bool:
        if getattr(record, "guild", None) is None:
            record.guild = GUILD.get()
        if getattr(record, "shard", None) is None:
            record.shard = SHARD.get()
        return True


class JsonFormatter(logging.Formatter):
    """One JSON object a line: time (UTC), level, logger, message, guild, shard, and the exception."""

    def format(self, record: logging.LogRecord) -> str:
        entry: dict[str, object] = {
            "time": datetime.fromtimestamp(record.created, UTC).isoformat().replace("+00:00", "Z"),
            "level": record.levelname,
            "logger": record.name,
            "message": record.getMessage(),
        }
        for name in ("guild", "shard"):
            value = getattr(record, name, None)
            if value is not None:
                entry[name] = value
        entry.update(PROCESS)
        if record.exc_info:
            entry["exception"] = self.formatException(record.exc_info)
        return json.dumps(entry, ensure_ascii=False, default=str)


class _TextWithGuild(logging.Formatter):
    """The text format, with ``[guild G]`` when a line concerns one."""

    def format(self, record: logging.LogRecord) -> str:
        text = super().format(record)
        guild = getattr(record, "guild", None)
        return f"{text} [guild {guild}]" if guild is not None else text


def configure(level: str, fmt: str = "text", *, stream: IO[str] | None = None, **process: object) -> logging.Handler:
    """Set the root logger up for this process; ``process`` fields (``shards=[0, 1]``) go on every JSON line."""
    PROCESS.clear()
    PROCESS.update({k: v for k, v in process.items() if v is not None})
    handler = logging.StreamHandler(stream if stream is not None else sys.stdout)
    handler.addFilter(_Fields())
    handler.setFormatter(JsonFormatter() if fmt == "json" else _TextWithGuild(TEXT_FORMAT))
    root = logging.getLogger()
    for old in list(root.handlers):
        root.removeHandler(old)
    root.addHandler(handler)
    root.setLevel(level.upper())
    return handler
