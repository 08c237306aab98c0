"""Every thread game by name, with its computer player.

The annotated assignments below make mypy check that each game really implements
``GameEngine`` and its AI ``AISeat``.
"""

from __future__ import annotations

from games.tables.engine import AISeat, AnyAISeat, AnyEngine, BadCommandError, GameEngine
from games.wikipedia.actions import WikipediaAction
from games.wikipedia.ai import GreedyEditor
from games.wikipedia.engine import ENGINE as _WIKIPEDIA_ENGINE
from games.wikipedia.state import WikipediaOptions, WikipediaState

WIKIPEDIA: GameEngine[WikipediaState, WikipediaAction, WikipediaOptions] = _WIKIPEDIA_ENGINE
WIKIPEDIA_AI: AISeat[WikipediaState, WikipediaAction] = GreedyEditor()

GAMES: dict[str, AnyEngine] = {WIKIPEDIA.name: WIKIPEDIA}
AI_SEATS: dict[str, AnyAISeat] = {WIKIPEDIA.name: WIKIPEDIA_AI}


def get_game(name: str) -> AnyEngine:
    """The engine called ``name`` (any case); ``BadCommandError`` naming the games there are otherwise."""
    engine = GAMES.get(name.strip().casefold())
    if engine is None:
        known = ", ".join(sorted(GAMES))
        shown = name if len(name) <= 30 else name[:30] + "…"
        raise BadCommandError(f"there is no game called `{shown}`; the games are {known}")
    return engine


def get_ai(name: str) -> AnyAISeat:
    """The computer player of the game called ``name``."""
    return AI_SEATS[get_game(name).name]
