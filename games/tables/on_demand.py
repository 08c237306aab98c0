"""The tables' service, made when a guild first has a table or a command for one comes.

Most guilds' messages are the round's. A process that meets none for the tables (a replay of the round, a
server that plays no thread game) asks the store once per guild whether it has any table and, told none,
never loads the tables' code: the due check and the week's review then know there is nothing of theirs.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from datetime import datetime

    from games.tables.service import TableService


class TablesOnDemand:
    """``make`` builds the service (once); ``any_table(guild)`` says whether the guild's store holds a table,
    ended ones included. A guild found without tables is remembered as such until ``forget`` (another
    process may have opened one) or until the service exists: from then on every guild asks the service."""

    def __init__(self, make: Callable[[], TableService], any_table: Callable[[str], Awaitable[bool]]) -> None:
        self._make = make
        self._any_table = any_table
        self._made: TableService | None = None
        self._none: set[str] = set()
        self._when_made: list[Callable[[TableService], None]] = []

    @classmethod
    def ready(cls, service: TableService) -> TablesOnDemand:
        """A service made already (the bot's, whose buttons and threads use it from the start)."""

        async def every_guild(_guild: str) -> bool:
            return True

        made = cls(lambda: service, every_guild)
        made._made = service
        return made

    @property
    def made(self) -> TableService | None:
        """The service if it was made (None: no guild has needed it yet)."""
        return self._made

    @property
    def service(self) -> TableService:
        """The service, made now if it was not yet."""
        if self._made is None:
            self._made = service = self._make()
            self._none.clear()
            for hook in self._when_made:
                hook(service)
        return self._made

    def when_made(self, hook: Callable[[TableService], None]) -> None:
        """Call ``hook`` with the service as soon as it exists (now, if it does)."""
        if self._made is not None:
            hook(self._made)
        else:
            self._when_made.append(hook)

    async def of(self, guild: str) -> TableService | None:
        """The service, if the guild may have tables; None when the store holds none of its tables (and the
        service was not made): nothing of the tables is due, logged or ended there."""
        if self._made is not None:
            return self._made
        if guild in self._none:
            return None
        if await self._any_table(guild):
            return self.service
        self._none.add(guild)
        return None

    def kept_next_due(self, guild: str) -> tuple[datetime | None] | None:
        """The service's ``kept_next_due``; ``(None,)`` for a guild known to have no table; None: ask ``of``."""
        if self._made is not None:
            return self._made.kept_next_due(guild)
        return (None,) if guild in self._none else None

    def forget(self, guild: str) -> None:
        """Another process may act for the guild now: what was known of its tables may be stale."""
        self._none.discard(guild)
        if self._made is not None:
            self._made.forget(guild)
