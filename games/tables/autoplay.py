"""The AI driver: computer seats (and seats whose time ran out) move at once, as the game awaits them."""

from __future__ import annotations

import random
from collections.abc import Collection
from typing import Any

from games.tables.engine import GameRuleError
from games.tables.events import Moved, TableEvent
from games.tables.model import Table
from games.tables.registry import get_spec

MAX_AI_ACTIONS = 20_000
"""More computer moves than this in one transition means a broken engine, not a long game."""


def run_ai(
    table: Table, state: Any, rng: random.Random, events: list[TableEvent], *, forced: Collection[str] = ()
) -> Any:
    """Let the AI move while an AI-played seat (or one of ``forced``, while it stays awaited) is awaited.

    Seats move in seat order; a seat of ``forced`` is played only until the game stops waiting
    for it (the rest of its turn, its vote), then it is its member's again.
    """
    spec = get_spec(table.game)
    engine, ai = spec.engine, spec.ai
    still = set(forced)
    for _ in range(MAX_AI_ACTIONS):
        awaited = engine.awaiting(state)
        if not awaited:
            break
        still &= awaited
        mover = None
        for name in engine.seats(state):
            seat = table.seat_named(name)
            if name in awaited and seat is not None and (seat.played_by_ai or name in still):
                mover = name
                break
        if mover is None:
            break
        try:
            state, happened = engine.apply(state, mover, ai.choose(state, mover, rng), rng)
        except GameRuleError:
            legal = engine.legal_actions(state, mover)
            if not legal:
                break
            state, happened = engine.apply(state, mover, legal[-1], rng)
        events.append(Moved(mover, by_ai=True, events=tuple(happened)))
    return state
