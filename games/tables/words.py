"""What a router must know of the tables before it needs them: the words they answer and a table's name.

This module imports nothing of the tables' own, so a process whose guilds play no thread game routes every
message without loading the tables' code (``games.tables.on_demand`` makes the service when one is needed).
"""

from __future__ import annotations

import re

MAX_COMMAND_LENGTH = 2000
ALIASES = {
    "tables": "games",
    "sit": "join",
    "cards": "hand",
    "table": "board",
    "endtable": "end-table",
    "end_table": "end-table",
    "abandon": "end-table",
    "commands": "help",
    "h": "help",
}
TABLE_WORDS = frozenset(
    {"join", "leave", "start", "ai", "board", "hand", "help", "rules", "end-table", "games", "play"}
)
"""Words a table's thread reads itself; any other command there is a move of the game."""
_OUTSIDE_WORDS = frozenset({"play", "games", "rules"})
"""What the tables answer outside a table's thread (``!rules GAME`` only for a game's rules)."""

TABLE_NAME = re.compile(r"^([a-z][a-z0-9_]*)-([1-9][0-9]{0,8})$")
"""Tables (and their threads) are named ``GAME-N``: ``wikipedia-1``, ``wikipedia-2``..."""


def is_table_name(key: str) -> bool:
    """Whether ``key`` is shaped like a table's thread name (``GAME-N`` for a game we host)."""
    match = TABLE_NAME.match(key.strip().lstrip("#").casefold())
    if match is None:
        return False
    from games.tables.registry import GAMES  # (only for a name shaped like one: most channels are not)

    return match.group(1) in GAMES


def answers_outside(content: str) -> bool:
    """Whether the tables may answer ``content`` typed outside any table's thread (not in a DM):
    ``!play``, ``!games``, ``!rules GAME``, or a message too long for a command. False: the tables
    leave it to the round, so a router need not ask them (most messages of a busy round)."""
    if len(content) > MAX_COMMAND_LENGTH:
        return True
    words = content.strip().removeprefix("!").split(maxsplit=1)
    return bool(words) and word_answers_outside(words[0].casefold())


def word_answers_outside(verb: str) -> bool:
    """``answers_outside`` of a message short enough for a command whose first word, case folded and
    without the prefix, is ``verb`` (a router that read it already)."""
    return ALIASES.get(verb, verb) in _OUTSIDE_WORDS
