"""``!play GAME key:value ...``: the table's options and any field of the game's options model.

Table options: ``ai:N`` (computer players), ``turn:24h`` (the turn limit of games without clocks
of their own), ``lang:zh-TW`` (the table's language), ``lobby:24h`` or ``lobby:never`` (how long a
lobby waits for ``!start``). Every other ``key:value`` sets the field ``key`` of the game's options
(``hours_per_turn:5``, ``hand_limit:none``, ``administrator_pays:off``), checked by its model.
Keys of the game's ``setup_model`` are what the seat brings (``!join deck:mine``).
"""

from __future__ import annotations

from typing import Any, NamedTuple

from pydantic import BaseModel, ValidationError

from games.tables.clocks import parse_turn_limit
from games.tables.engine import AnyEngine, BadCommandError
from games.tables.i18n import LANGUAGES, normalise, tr
from games.tables.model import DEFAULT_LOBBY_HOURS
from games.tables.registry import get_game, specs

PLAY_USAGE = "`!play GAME [ai:N] [turn:24h] [lang:en] [lobby:24h] [OPTION:VALUE ...]`, e.g. `!play wikipedia ai:2`"
_NONE_WORDS = {"none", "null", "no-limit", "never", "off-limit"}


class PlayRequest(NamedTuple):
    game: str
    ai: int
    turn: int | None
    lang: str | None = None
    lobby_hours: int | bool | None = False
    """False: the default; None: the lobby never expires."""
    game_options: str | None = None
    setup: str | None = None


def _split(word: str) -> tuple[str, str, bool]:
    key, sep, value = word.replace("=", ":").partition(":")
    return key.strip().casefold().replace("-", "_"), value.strip(), bool(sep)


def _shown(word: str) -> str:
    return word if len(word) <= 30 else word[:30] + "…"


def _value(model: type[BaseModel], key: str, value: str) -> Any:
    if value.casefold() in _NONE_WORDS:
        return None
    annotation = model.model_fields[key].annotation
    if annotation is bool or str(annotation).startswith("bool"):
        return (
            value.casefold() in {"on", "yes", "true", "1"}
            if value.casefold() in {"on", "off", "yes", "no", "true", "false", "1", "0"}
            else value
        )
    return value


def _model_json(model: type[BaseModel], given: dict[str, str]) -> str:
    data = {key: _value(model, key, value) for key, value in given.items()}
    try:
        return model.model_validate(data).model_dump_json()
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first.get("loc", ()))
        typed = given.get(where, "")
        raise BadCommandError(f"`{_shown(where)}:{_shown(typed)}` is not valid: {first.get('msg')}") from exc


def parse_play(args: list[str] | tuple[str, ...]) -> PlayRequest:
    """Read ``GAME key:value ...``; ``BadCommandError`` names the option that is wrong and the ones there are."""
    if not args:
        raise BadCommandError(f"say which game: {PLAY_USAGE}; the games are {', '.join(sorted(specs()))}")
    engine = get_game(args[0])
    ai, turn, lang = 0, None, None
    lobby_hours: int | bool | None = False
    chosen: dict[str, str] = {}
    setup: dict[str, str] = {}
    setup_fields = set(engine.setup_model.model_fields) if engine.setup_model is not None else set()
    for word in args[1:]:
        key, value, sep = _split(word)
        if not sep and key.startswith("ai") and key[2:].isdecimal():
            key, value, sep = "ai", key[2:], True
        if key == "ai" and value.isdecimal() and value.isascii() and len(value) <= 2:
            ai = int(value)
        elif key in {"turn", "timer", "time"} and value:
            turn = parse_turn_limit(value)
        elif key in {"lang", "language"} and value:
            lang = normalise(value)
            if lang is None or lang not in engine.languages:
                raise BadCommandError(
                    f"`{_shown(value)}` is not a language of {engine.title};"
                    f" it is played in {', '.join(engine.languages)}"
                )
        elif key == "lobby" and value:
            lobby_hours = None if value.casefold() in _NONE_WORDS else parse_turn_limit(value) // 3600 or 1
        elif sep and key in engine.options_model.model_fields:
            chosen[key] = value
        elif sep and key in setup_fields:
            setup[key] = value
        else:
            known = ", ".join(sorted(engine.options_model.model_fields))
            raise BadCommandError(
                f"`{_shown(word)}` is not an option of `!play {engine.name}`; write {PLAY_USAGE}."
                f" The game's options: {known or 'none'} (`!rules {engine.name}` explains them)"
            )
    options = _model_json(engine.options_model, chosen) if chosen else None
    setup_json = _model_json(engine.setup_model, setup) if setup and engine.setup_model is not None else None
    return PlayRequest(engine.name, ai, turn, lang, lobby_hours, options, setup_json)


def parse_setup(engine: AnyEngine, args: list[str]) -> str | None:
    """``!join key:value ...``: what a seat brings (the game's ``setup_model``), or None for nothing."""
    if not args:
        return None
    model = engine.setup_model
    if model is None:
        raise BadCommandError(f"{engine.title} takes nothing when you join: write `!join` alone")
    given: dict[str, str] = {}
    for word in args:
        key, value, sep = _split(word)
        if not sep or key not in model.model_fields:
            known = ", ".join(f"`{k}:…`" for k in model.model_fields)
            raise BadCommandError(
                f"`{_shown(word)}` is not something to bring to {engine.title}; you may bring {known}"
            )
        given[key] = value
    return _model_json(model, given)


def options_help(engine: AnyEngine, lang: str) -> str:
    """The options ``!play`` takes for ``engine``: the table's and the game's, with their defaults."""
    langs = ", ".join(lang_ for lang_ in LANGUAGES if lang_ in engine.languages) or "en"
    lines = [tr(lang, "options.head", game=engine.name)]
    lines.append(tr(lang, "options.table", langs=langs, lobby=DEFAULT_LOBBY_HOURS))
    model = engine.options_model
    defaults = model()
    for key, info in model.model_fields.items():
        default = getattr(defaults, key)
        shown = "on" if default is True else "off" if default is False else "none" if default is None else default
        lines.append(f"- `{key}:…` ({tr(lang, 'options.default', value=shown)}): {info.description or ''}".rstrip(": "))
    return "\n".join(lines)
