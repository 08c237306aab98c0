"""Commands refused, remembered by their event, so a redelivery of one changes nothing.

An accepted action's event id is in its store's log, whose unique key makes a redelivery a no-op.
A refused command logs nothing, so without this a redelivery could be carried out once the command
became valid (a bid refused before the auction, delivered again in it; a ``!join`` at a full table,
delivered again once a seat is free) or answered with a second, different refusal. Every adapter's
command goes through ``bot.router.Router``, which asks here first and tells what it refused.

Each guild's refusals of the last ``KEEP`` are read once (on first use in this process, or after
the guild was forgotten: another process acted for it) and then kept in memory, so asking costs
nothing on the path of every command. A refusal is in memory before it is answered and its row
rides on the store's next commit (within a second), not waited for: a refusal changes nothing, so
its answer is not held back for an fsync, nor does it cost a commit of its own on a busy store (a
tenth of a busy week's commands are refused). Only a crash within that second forgets one, and
Discord replays no event of a crashed process's session.
Rows older than ``KEEP`` are pruned as new ones are written: a redelivery comes within minutes (a
gateway session resumed), at worst days (a process down over a weekend).
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Protocol, runtime_checkable

KEEP = timedelta(days=30)
"""How long a refusal is remembered."""


@runtime_checkable
class RefusalStore(Protocol):
    """Where refusals last (``data.store.Store``)."""

    async def refused_events(self, guild: str, since: datetime) -> list[tuple[str, datetime]]: ...

    async def remember_refused(
        self, guild: str, event_id: str, *, at: datetime, source_line: int | None, forget_before: datetime
    ) -> None: ...


class Refusals:
    """The refused events of every guild this process acts for."""

    def __init__(self, store: RefusalStore | None, keep: timedelta = KEEP) -> None:
        self._store = store
        """None: refusals last as long as the process (a store that keeps none, e.g. a benchmark's)."""
        self._keep = keep
        self._guilds: dict[str, dict[str, datetime]] = {}
        """Each guild's refused events (when refused), read from the store on first use."""
        self._pruned: dict[str, int] = {}
        """How many each guild kept after its last pruning in memory."""

    def known(self, guild: str, event_id: str) -> bool | None:
        """Whether ``event_id`` was refused before, when the guild's refusals are read already (None:
        not yet, ask ``seen``)."""
        refused = self._guilds.get(guild)
        return None if refused is None else event_id in refused

    async def seen(self, guild: str, event_id: str, at: datetime) -> bool:
        """Whether ``event_id`` was refused before (``at``: now, which bounds what is worth reading)."""
        refused = self._guilds.get(guild)
        if refused is None:
            refused = await self._read(guild, at)
        return event_id in refused

    async def claim(self, guild: str, event_id: str, at: datetime) -> bool:
        """Note a refusal in this process, before anything is awaited; False when it was noted already
        (the same event delivered twice at once: the other delivery answers it)."""
        refused = self._guilds.get(guild)
        if refused is None:
            refused = await self._read(guild, at)
        if event_id in refused:
            return False
        refused[event_id] = at
        if len(refused) > 2 * self._pruned.get(guild, 0) + 64:
            cutoff = at - self._keep
            for old in [e for e, when in refused.items() if when < cutoff]:
                del refused[old]
            self._pruned[guild] = len(refused)
        return True

    async def keep(self, guild: str, event_id: str, at: datetime, source_line: int | None = None) -> None:
        """Write a claimed refusal to the store, with its next commit (a redelivery after a restart, or to
        the process that takes the guild over, knows it too)."""
        if self._store is not None:
            await self._store.remember_refused(
                guild, event_id, at=at, source_line=source_line, forget_before=at - self._keep
            )

    def forget(self, guild: str) -> None:
        """Read the guild's refusals again on next use (another process may have refused commands meanwhile)."""
        self._guilds.pop(guild, None)
        self._pruned.pop(guild, None)

    async def _read(self, guild: str, at: datetime) -> dict[str, datetime]:
        found = await self._store.refused_events(guild, at - self._keep) if self._store is not None else []
        refused = self._guilds.setdefault(guild, {})  # (read meanwhile by another command of the guild)
        refused.update(found)
        self._pruned[guild] = len(refused)
        return refused
