"""Every thread game by name: each game package registers itself, the framework imports none.

A game package exposes a ``GameSpec`` and names it in ``pyproject.toml``::

    [project.entry-points."nomic.games"]
    wikipedia = "games.wikipedia:GAME"

The registry reads that group (``importlib.metadata``) on first use. ``register`` adds a game
at run time: tests use it for the test game, and a deployment could for a private one.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from importlib.metadata import entry_points
from pathlib import Path
from typing import Any

from games.tables.engine import AnyAISeat, AnyEngine, BadCommandError
from games.tables.i18n import Catalogue
from games.tables.text import framework_error

ENTRY_POINT_GROUP = "nomic.games"


@dataclass(frozen=True)
class GameSpec:
    """What a game package brings: its engine, its AI, its texts, its picture and its language.

    ``picture``: the public table as a PNG (None: the board has words only); it must never draw
    anything hidden. ``locales``: the folder of the game's ``LANG.toml`` catalogues. ``bench``: the
    game's own timings (``python -m bot bench --game NAME``), given the runs per figure; lines of a report.
    """

    engine: AnyEngine
    ai: AnyAISeat
    picture: Callable[[Any], bytes | None] | None = None
    locales: Path | None = None
    default_lang: str = "en"
    aliases: tuple[str, ...] = field(default=())
    bench: Callable[[int], list[str]] | None = None

    @property
    def name(self) -> str:
        return self.engine.name

    @property
    def catalogue(self) -> Catalogue | None:
        return Catalogue(self.locales) if self.locales is not None else None


_GAMES: dict[str, GameSpec] = {}
_loaded = False


def _load_entry_points() -> None:
    global _loaded  # noqa: PLW0603 - the registry is one per process by design
    if _loaded:
        return
    _loaded = True
    for point in entry_points(group=ENTRY_POINT_GROUP):
        spec = point.load()
        if isinstance(spec, GameSpec) and spec.name not in _GAMES:
            _GAMES[spec.name] = spec


def register(spec: GameSpec) -> None:
    """Add (or replace) a game by its name."""
    _load_entry_points()
    _GAMES[spec.name] = spec


def unregister(name: str) -> None:
    _load_entry_points()
    _GAMES.pop(name, None)


def specs() -> dict[str, GameSpec]:
    """Every registered game by name."""
    _load_entry_points()
    return dict(_GAMES)


class _Games(Mapping[str, AnyEngine]):
    """``GAMES``: the engines by name, read through to the registry each time."""

    def __getitem__(self, key: str) -> AnyEngine:
        return specs()[key].engine

    def __iter__(self) -> Iterator[str]:
        return iter(specs())

    def __len__(self) -> int:
        return len(specs())


class _AISeats(Mapping[str, AnyAISeat]):
    """``AI_SEATS``: the computer players by game name, read through to the registry."""

    def __getitem__(self, key: str) -> AnyAISeat:
        return specs()[key].ai

    def __iter__(self) -> Iterator[str]:
        return iter(specs())

    def __len__(self) -> int:
        return len(specs())


GAMES: Mapping[str, AnyEngine] = _Games()
AI_SEATS: Mapping[str, AnyAISeat] = _AISeats()


def get_spec(name: str) -> GameSpec:
    """The game called ``name`` (any case); ``BadCommandError`` naming the games there are otherwise."""
    found = specs()
    wanted = name.strip().casefold()
    spec = found.get(wanted) or next((s for s in found.values() if wanted in s.aliases), None)
    if spec is None:
        known = ", ".join(sorted(found))
        shown = name if len(name) <= 30 else name[:30] + "…"
        raise framework_error(BadCommandError, "error.no_game", shown=shown.replace("`", ""), games=known)
    return spec


def get_game(name: str) -> AnyEngine:
    return get_spec(name).engine


def get_ai(name: str) -> AnyAISeat:
    """The computer player of the game called ``name``."""
    return get_spec(name).ai
