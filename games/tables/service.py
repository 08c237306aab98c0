"""The tables' service: the pure table model (``lobby``) joined to the store, one guild at a time.

Every adapter ends here: the simulator and Discord's prefix commands through ``command`` (the text
path, ``games.tables.commands``), the thread UI's buttons through ``open``/``join``/``leave``/
``start``/``play``/``end`` (a button carries the same command text ``play`` reads), the schedulers
through ``due`` (``games.tables.core``).
"""

from __future__ import annotations

from games.tables.acting import SecretInOpenError
from games.tables.commands import TABLE_WORDS, CommandPath, games_text, is_table_name, parse_play, thread_help
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
