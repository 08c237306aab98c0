"""Which process owns which guild: Discord's shard formula and the ``SHARD_COUNT``/``SHARD_IDS`` settings.

Discord sends a guild's events on shard ``(guild_id >> 22) % shard_count`` only; a process that runs
shards 0 and 1 of 4 sees (and so may act for) those shards' guilds and no other. The simulator's
guild ids are not snowflakes (``sim``): they have no shard and belong to shard 0.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass


def shard_of(guild: int | str, shard_count: int) -> int:
    """The shard whose gateway connection carries the guild (Discord's formula)."""
    if shard_count < 1:
        raise ValueError("a shard count is at least 1")
    text = str(guild)
    if not (text.isascii() and text.isdigit()):
        return 0
    return (int(text) >> 22) % shard_count


def parse_shard_ids(text: str) -> tuple[int, ...] | None:
    """``auto`` (or blank): every shard (None); else ids separated by commas, e.g. ``0,1`` or ``0-3``."""
    words = text.replace(" ", "")
    if words.lower() in {"", "auto"}:
        return None
    ids: list[int] = []
    for part in words.split(","):
        if not part:
            continue
        low, dash, high = part.partition("-")
        if not low.isdigit() or (dash and not high.isdigit()):
            raise ValueError(f"shard ids are whole numbers like 0,1 or a range like 0-3, not {part!r}")
        ids.extend(range(int(low), int(high) + 1) if dash else [int(low)])
    if not ids:
        raise ValueError("give at least one shard id, or auto")
    return tuple(sorted(set(ids)))


@dataclass(frozen=True)
class ShardPlan:
    """The shards this process runs: ``count`` None means unsharded (one gateway connection, every guild)."""

    count: int | None = None
    ids: tuple[int, ...] | None = None
    """None: every shard of ``count``."""

    def __post_init__(self) -> None:
        if self.count is not None and self.count < 1:
            raise ValueError("SHARD_COUNT is at least 1 (or auto, or unset for no sharding)")
        if self.ids is not None:
            if self.count is None:
                raise ValueError("SHARD_IDS needs a numeric SHARD_COUNT: the ids are out of that many shards")
            wrong = [i for i in self.ids if not 0 <= i < self.count]
            if wrong:
                raise ValueError(f"shard ids {wrong} are not below SHARD_COUNT={self.count}")

    @property
    def shard_ids(self) -> tuple[int, ...]:
        """The ids this process runs (``(0,)`` unsharded)."""
        if self.ids is not None:
            return self.ids
        return tuple(range(self.count)) if self.count is not None else (0,)

    def owns(self, guild: int | str) -> bool:
        """Whether the guild's events come to this process."""
        if self.count is None:
            return True
        return shard_of(guild, self.count) in self.shard_ids

    def mine(self, guilds: Iterable[str]) -> list[str]:
        return [g for g in guilds if self.owns(g)]
