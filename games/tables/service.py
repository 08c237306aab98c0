"""The tables' service: the pure table model (``lobby``) joined to the store, one guild at a time.

Every adapter ends here: the simulator and Discord's prefix commands through ``command`` (the text
path, ``games.tables.commands``), the thread UI's buttons through ``open``/``join``/``leave``/
``start``/``play``/``end`` (a button carries the same command text ``play`` reads), the schedulers
through ``due`` (``games.tables.core``).
"""

from __future__ import annotations

from datetime import datetime

from games.tables.acting import SecretInOpenError
from games.tables.actions import LeaveTable
from games.tables.commands import (
    TABLE_WORDS,
    CommandPath,
    answers_outside,
    games_text,
    is_table_name,
    parse_play,
    thread_help,
)
from games.tables.core import (
    MAX_DUE_STEPS,
    SYSTEM,
    Actor,
    StoredTableLike,
    TableOutcome,
    TableStoreLike,
    error_text,
)
from games.tables.model import TableOptions
from games.tables.posts import TablePost

__all__ = [
    "MAX_DUE_STEPS",
    "SYSTEM",
    "TABLE_WORDS",
    "Actor",
    "SecretInOpenError",
    "StoredTableLike",
    "TableOptions",
    "TableOutcome",
    "TablePost",
    "TableService",
    "TableStoreLike",
    "answers_outside",
    "error_text",
    "games_text",
    "is_table_name",
    "parse_play",
    "thread_help",
]


class TableService(CommandPath):
    """Tables of every guild: cached while open, loaded from the store on first use.

    ``seed`` (the simulator's ``--seed``) derives each table's seed from its guild and name, so a
    replay repeats exactly; without it every table gets a fresh ``secrets`` seed. Either way the
    seed is stored with the table. ``options`` are the defaults of new tables (e.g. the turn limit).
    """

    async def member_left(
        self, guild: str, member: str, name: str, *, at: datetime, event_id: str, source_line: int | None = None
    ) -> list[TablePost]:
        """A member who left the server leaves every table they sit at, as ``!leave`` would: a lobby's seat
        goes, a game under way goes on with the AI in their seat (said in its thread). Each table's leave is
        logged under ``event_id``, the table's name and its step; a second notice of the same departure finds
        no seat of theirs and does nothing."""
        posts: list[TablePost] = []
        for table in await self.open_tables(guild):
            if table.seat_of(member) is None:
                continue
            outcome = await self._run(
                guild,
                table.name,
                lambda _found: LeaveTable(member=member, left_server=True),
                Actor(member, name),
                at=at,
                event_id=f"{event_id}:{table.name}:{table.seq}",
                source_line=source_line,
            )
            if outcome.error is None:
                posts.extend(outcome.posts)
        return posts
