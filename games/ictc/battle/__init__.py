"""ICTC battles: two players' decks in a thread (``ictc-N``), the turn enforced, scripted cards carried out,
the rest adjusted by the players and confirmed by the opponent (or a judge).

``state`` the battle as values, ``actions`` the moves, ``rules`` the turn and everything that
happens in it, ``payment`` paying costs, ``effects`` a card's script, ``combat`` attackers,
blockers and damage, ``adjust`` what players propose, ``table`` the working copy of a step,
``legal`` the moves on offer, ``commands`` the thread's grammar, ``views`` the texts (from
``locales/``), ``engine`` the ``GameEngine``, ``ai`` the computer player, ``invariants`` what a sound
battle is, ``balance`` the figures self-play reports and ``picture`` the board's image. ``GAME`` is
what the package registers (``[project.entry-points."nomic.games"]`` in pyproject.toml).
"""

from __future__ import annotations

from games.ictc.battle.actions import BattleAction
from games.ictc.battle.ai import Skirmisher
from games.ictc.battle.engine import ENGINE
from games.ictc.battle.picture import render_battle
from games.ictc.battle.state import BattleOptions, BattleState
from games.ictc.battle.texts import LOCALES
from games.tables.engine import AISeat, GameEngine
from games.tables.registry import GameSpec

_ENGINE: GameEngine[BattleState, BattleAction, BattleOptions] = ENGINE
_AI: AISeat[BattleState, BattleAction] = Skirmisher()
"""The annotations make mypy check that the engine and the AI implement the framework's interfaces."""

GAME = GameSpec(engine=ENGINE, ai=_AI, picture=render_battle, locales=LOCALES)
"""ICTC battles behind the ``GameEngine`` interface of thread games."""
