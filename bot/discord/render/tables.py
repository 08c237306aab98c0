"""Pictures of thread game tables: each game package draws its own public table (``GameSpec.picture``).

``table_picture(table)`` is what the Discord adapter attaches to a board message; a game without
a picture simply has none (the embed's words stay). No game is imported here.
"""

from __future__ import annotations

from games.tables import lobby
from games.tables.lobby import Table
from games.tables.registry import get_spec

PICTURE_FILE = "table.png"


def table_picture(table: Table) -> bytes | None:
    """The public table as a small PNG, or None (not started yet, or a game without a picture)."""
    spec = get_spec(table.game)
    if spec.picture is None or table.board is None:
        return None
    return spec.picture(lobby.game_state(table))
