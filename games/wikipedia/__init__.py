"""The cooperative Wikipedia card game: two to five editors bring four articles to GA or FA together.

``cards`` is the deck, ``state`` the table, ``actions`` the moves, ``rules`` the pure rules,
``commands`` the thread grammar, ``views`` the texts, ``engine`` the ``GameEngine`` that ties
them together, ``ai`` a cooperative computer editor and ``picture`` the board's image.

``GAME`` is what the package registers (``[project.entry-points."nomic.games"]`` in
pyproject.toml): every thread game package has this shape and exposes a ``GameSpec`` so.
"""

from __future__ import annotations

from games.tables.engine import AISeat, GameEngine
from games.tables.registry import GameSpec
from games.wikipedia.actions import WikipediaAction
from games.wikipedia.ai import GreedyEditor
from games.wikipedia.engine import ENGINE
from games.wikipedia.picture import render_wikipedia
from games.wikipedia.state import WikipediaOptions, WikipediaState

_ENGINE: GameEngine[WikipediaState, WikipediaAction, WikipediaOptions] = ENGINE
_AI: AISeat[WikipediaState, WikipediaAction] = GreedyEditor()
"""The annotations make mypy check that the engine and the AI implement the framework's interfaces."""

GAME = GameSpec(engine=ENGINE, ai=_AI, picture=render_wikipedia)
