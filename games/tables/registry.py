"""Every thread game by name: each game package registers itself, the framework imports none.

A game package exposes a ``GameSpec`` and names it in ``pyproject.toml``::

    [project.entry-points."nomic.games"]
    wikipedia = "games.wikipedia:GAME"

The registry reads that group (``importlib.metadata``) on first use, and imports a game's package
only when that game is asked for by name (every game, when all are listed or a name is an alias).
``register`` adds a game at run time: tests use it for the test game, and a deployment could for a
private one.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from importlib.metadata import EntryPoint, entry_points
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
_points: dict[str, EntryPoint] | None = None
"""The entry points not loaded yet, by name (None: the group not read yet)."""


def _unloaded() -> dict[str, EntryPoint]:
    global _points  # noqa: PLW0603 - the registry is one per process by design
    if _points is None:
        _points = {point.name: point for point in entry_points(group=ENTRY_POINT_GROUP)}
    return _points


def _load(point: EntryPoint) -> None:
    spec = point.load()
    if isinstance(spec, GameSpec) and spec.name not in _GAMES:
        _GAMES[spec.name] = spec


def _load_entry_points() -> None:
    points = _unloaded()
    while points:
        _load(points.pop(next(iter(points))))


def _named(name: str) -> GameSpec | None:
    """The game called exactly ``name``, importing no other game's package: an entry point is named as the
    game it brings, so a table of one game never loads the others (nor their start-up)."""
    if name not in _GAMES:
        point = _unloaded().pop(name, None)
        if point is not None:
            _load(point)
    return _GAMES.get(name)


def register(spec: GameSpec) -> None:
    """Add (or replace) a game by its name."""
    _unloaded().pop(spec.name, None)
    _GAMES[spec.name] = spec


def unregister(name: str) -> None:
    _unloaded().pop(name, None)
    _GAMES.pop(name, None)


def specs() -> dict[str, GameSpec]:
    """Every registered game by name."""
    _load_entry_points()
    return dict(_GAMES)


class _Games(Mapping[str, AnyEngine]):
    """``GAMES``: the engines by name, read through to the registry each time."""

    def __getitem__(self, key: str) -> AnyEngine:
        return _spec(key).engine

    def __contains__(self, key: object) -> bool:
        return isinstance(key, str) and (_named(key) is not None or key in specs())

    def __iter__(self) -> Iterator[str]:
        return iter(specs())

    def __len__(self) -> int:
        return len(specs())


def _spec(name: str) -> GameSpec:
    """The game called exactly ``name`` (``KeyError`` when there is none)."""
    spec = _named(name)
    return spec if spec is not None else specs()[name]


class _AISeats(Mapping[str, AnyAISeat]):
    """``AI_SEATS``: the computer players by game name, read through to the registry."""

    def __getitem__(self, key: str) -> AnyAISeat:
        return _spec(key).ai

    def __iter__(self) -> Iterator[str]:
        return iter(specs())

    def __len__(self) -> int:
        return len(specs())


GAMES: Mapping[str, AnyEngine] = _Games()
AI_SEATS: Mapping[str, AnyAISeat] = _AISeats()


def get_spec(name: str) -> GameSpec:
    """The game called ``name`` (any case); ``BadCommandError`` naming the games there are otherwise."""
    wanted = name.strip().casefold()
    spec = _named(wanted)
    if spec is not None:
        return spec
    found = specs()
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
