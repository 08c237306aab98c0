"""關你核四: a negotiation game of secret simultaneous votes about Taiwan's fourth nuclear power plant.

``cards`` is the card set (``data/cardsets/nuclear.toml``), ``state`` the table, ``actions`` the
moves, ``rules`` the pure rules, ``commands`` the thread grammar, ``events`` what happened,
``views`` the texts, ``texts`` the catalogue (``locales/``), ``engine`` the ``GameEngine``, ``ai`` a
computer player that votes by its stance and interest, ``picture`` the board's image.

``GAME`` is what the package registers (``[project.entry-points."nomic.games"]`` in pyproject.toml).
"""

from __future__ import annotations

from pathlib import Path

from games.nuclear.actions import NuclearAction
from games.nuclear.ai import StanceAI
from games.nuclear.engine import ENGINE
from games.nuclear.picture import render_nuclear
from games.nuclear.state import NuclearOptions, NuclearState
from games.tables.engine import AISeat, GameEngine
from games.tables.registry import GameSpec

_ENGINE: GameEngine[NuclearState, NuclearAction, NuclearOptions] = ENGINE
_AI: AISeat[NuclearState, NuclearAction] = StanceAI()
"""The annotations make mypy check that the engine and the AI implement the framework's interfaces."""

GAME = GameSpec(
    engine=ENGINE,
    ai=_AI,
    picture=render_nuclear,
    locales=Path(__file__).parent / "locales",
    default_lang="zh-TW",
    aliases=("核四", "lungmen"),
)
"""關你核四 behind the ``GameEngine`` interface of thread games."""
