"""The Great Sardini is Dead: draw, or attempt a shown Trick by meeting its Moves; fail and you are out.

``cards`` are the 40 cards as numbers, ``moves`` the Move language (parser, English, the set check
and the exact "can this hand meet it"), ``plans`` the sets that meet a Move and plans for whole
Tricks, ``tricks`` the 40 Trick cards read from ``data/cardsets/sardini.toml``, ``state`` the table,
``actions`` the moves, ``rules`` the pure rules, ``scoring`` the end and its score, ``invariants``
what a sound state is, ``commands`` the thread grammar, ``views`` the texts (from ``locales/``),
``engine`` the ``GameEngine``, ``ai`` the computer performer, ``picture`` the board's image,
``balance`` the figures self-play reports and ``bench`` the timings. ``GAME`` is what the package registers
(``[project.entry-points."nomic.games"]`` in pyproject.toml).
"""

from __future__ import annotations

from games.sardini.actions import SardiniAction
from games.sardini.ai import Performer
from games.sardini.bench import bench
from games.sardini.engine import ENGINE
from games.sardini.picture import render_sardini
from games.sardini.state import SardiniOptions, SardiniState
from games.sardini.texts import LOCALES
from games.tables.engine import AISeat, GameEngine
from games.tables.registry import GameSpec

_ENGINE: GameEngine[SardiniState, SardiniAction, SardiniOptions] = ENGINE
_AI: AISeat[SardiniState, SardiniAction] = Performer()
"""The annotations make mypy check that the engine and the AI implement the framework's interfaces."""

GAME = GameSpec(engine=ENGINE, ai=_AI, picture=render_sardini, locales=LOCALES, bench=bench)
