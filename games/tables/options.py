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
from games.tables.events import duration_text
from games.tables.i18n import LANGUAGES, normalise, tr
from games.tables.model import DEFAULT_LOBBY_HOURS, DEFAULT_TURN_SECONDS
from games.tables.registry import get_game, get_spec, specs
from games.tables.text import framework_error, invalid_value
from games.tables.values import typed_fields

PLAY_USAGE = tr("en", "error.play_usage")
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
        word = f"{_shown(where)}:{_shown(typed)}".replace("`", "")
        raise invalid_value(model, first, "error.not_valid", word=word) from exc


def parse_play(args: list[str] | tuple[str, ...]) -> PlayRequest:
    """Read ``GAME key:value ...``; ``BadCommandError`` names the option that is wrong and the ones there are."""
    if not args:
        raise _with_usage("error.say_which_game", games=", ".join(sorted(specs())))
    engine = get_game(args[0])
    ai, turn, lang = 0, None, None
    lobby_hours: int | bool | None = False
    chosen: dict[str, str] = {}
    setup: dict[str, str] = {}
    setup_fields = set(typed_fields(engine.setup_model)) if engine.setup_model is not None else set()
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
                raise framework_error(
                    BadCommandError,
                    "error.not_a_language",
                    shown=_shown(value).replace("`", ""),
                    title=engine.title,
                    langs=", ".join(engine.languages),
                )
        elif key == "lobby" and value:
            lobby_hours = None if value.casefold() in _NONE_WORDS else parse_turn_limit(value) // 3600 or 1
        elif sep and key in engine.options_model.model_fields:
            chosen[key] = value
        elif sep and key in setup_fields:
            setup[key] = value
        else:
            raise _with_usage(
                "error.not_an_option",
                shown=_shown(word).replace("`", ""),
                game=engine.name,
                known=sorted(engine.options_model.model_fields),
            )
    options = _model_json(engine.options_model, chosen) if chosen else None
    setup_json = _model_json(engine.setup_model, setup) if setup and engine.setup_model is not None else None
    return PlayRequest(engine.name, ai, turn, lang, lobby_hours, options, setup_json)


def _with_usage(key: str, known: list[str] | None = None, **fields: object) -> BadCommandError:
    """A refusal of ``!play``'s words that shows how to write them, in each of the framework's languages."""
    texts = {}
    for lang in LANGUAGES:
        words = tr(lang, "list.separator").join(f"`{key}`" for key in known or ())
        listed = {} if known is None else {"known": words or tr(lang, "error.no_options")}
        texts[lang] = tr(lang, key, usage=tr(lang, "error.play_usage"), **listed, **fields)
    return BadCommandError(texts["en"], texts=texts)


def parse_setup(engine: AnyEngine, args: list[str], lang: str = "en") -> str | None:
    """``!join key:value ...``: what a seat brings (the game's ``setup_model``), or None for nothing;
    ``BadCommandError`` in ``lang``, the table's language."""
    if not args:
        return None
    model = engine.setup_model
    if model is None:
        raise BadCommandError(tr(lang, "error.join_alone", title=engine.title))
    given: dict[str, str] = {}
    for word in args:
        key, value, sep = _split(word)
        if not sep or key not in typed_fields(model):
            known = tr(lang, "list.separator").join(f"`{k}:…`" for k in typed_fields(model))
            raise BadCommandError(tr(lang, "error.not_brought", word=_shown(word), title=engine.title, known=known))
        given[key] = value
    return _model_json(model, given)


class OptionEntry(NamedTuple):
    """One ``key:value`` word ``!play`` (or ``!join``) reads, with its default and what it means."""

    key: str
    default: str
    description: str
    kind: str
    """``table`` (the framework's), ``game`` (the game's options) or ``seat`` (what a seat brings)."""


def _shown_default(value: object) -> str:
    return "on" if value is True else "off" if value is False else "none" if value is None else str(value)


def _described(engine: AnyEngine, section: str, key: str, fallback: str | None, lang: str) -> str:
    """A game's text for one of its fields (``options.KEY`` or ``setup.KEY`` of its catalogue), else
    the model's own description (games whose texts are English only keep them there)."""
    catalogue = get_spec(engine.name).catalogue
    wanted = f"{section}.{key}"
    if catalogue is not None and (wanted in catalogue.keys(lang) or wanted in catalogue.keys("en")):
        return catalogue.text(lang, wanted)
    return fallback or ""


def option_entries(engine: AnyEngine, lang: str) -> list[OptionEntry]:
    """Every ``key:value`` word of ``!play GAME``, in the order ``!rules GAME`` lists them."""
    langs = tr(lang, "list.separator").join(code for code in LANGUAGES if code in engine.languages) or "en"
    day = duration_text(DEFAULT_TURN_SECONDS, lang)
    entries = [
        OptionEntry("ai", "0", tr(lang, "options.ai"), "table"),
        OptionEntry("turn", day, tr(lang, "options.turn"), "table"),
        OptionEntry("lang", engine.languages[0], tr(lang, "options.lang", langs=langs), "table"),
        OptionEntry("lobby", duration_text(DEFAULT_LOBBY_HOURS * 3600, lang), tr(lang, "options.lobby"), "table"),
    ]
    model = engine.options_model
    defaults = model()
    for key, info in model.model_fields.items():
        text = _described(engine, "options", key, info.description, lang)
        entries.append(OptionEntry(key, _shown_default(getattr(defaults, key)), text, "game"))
    setup = engine.setup_model
    if setup is not None:
        for key, info in typed_fields(setup).items():
            default = "" if info.is_required() else _shown_default(info.default)
            entries.append(OptionEntry(key, default, _described(engine, "setup", key, info.description, lang), "seat"))
    return entries


def _entry_line(entry: OptionEntry, lang: str) -> str:
    if not entry.default:
        return tr(lang, "options.line_bare", name=entry.key, text=entry.description)
    return tr(lang, "options.line", name=entry.key, default=entry.default, text=entry.description)


def options_help(engine: AnyEngine, lang: str) -> str:
    """The options ``!play`` takes for ``engine``: the table's and the game's, with their defaults;
    then what a seat may bring (``!join key:value``), when the game takes anything."""
    entries = option_entries(engine, lang)
    lines = [tr(lang, "options.head", game=engine.name)]
    lines += [_entry_line(e, lang) for e in entries if e.kind != "seat"]
    seat = [_entry_line(e, lang) for e in entries if e.kind == "seat"]
    if seat:
        lines += [tr(lang, "options.brings_head", game=engine.name), *seat]
    return "\n".join(lines)


HINT_WIDTH = 100
"""Discord's limit on an autocomplete choice's name and value."""


def option_hints(engine: AnyEngine, typed: str, lang: str, limit: int = 25) -> list[tuple[str, str]]:
    """Choices for the slash form's ``options``: the words typed so far, the last one completed to a
    ``key:value`` of the game (its default when no value is typed yet), each with what it means.

    Returns (shown, value) pairs; ``value`` is the whole option text the choice puts in the box.
    ``ai``, ``turn`` and ``lang`` have slash options of their own and are not offered here.
    """
    words = typed.split()
    partial = words.pop() if words and not typed[-1:].isspace() else ""
    used = {_split(word)[0] for word in words}
    key_part, value_part, sep = _split(partial)
    out: list[tuple[str, str]] = []
    for entry in option_entries(engine, lang):
        if entry.key in {"ai", "turn", "lang"} or entry.key in used or not entry.key.startswith(key_part):
            continue
        value = value_part if sep and value_part else entry.default
        chosen = " ".join([*words, f"{entry.key}:{value}"])
        if len(chosen) > HINT_WIDTH:
            continue
        word = f"{entry.key}:{value}"
        if entry.default:
            shown = tr(lang, "options.hint", word=word, text=entry.description, default=entry.default)
        else:
            shown = tr(lang, "options.hint_bare", word=word, text=entry.description)
        out.append((shown if len(shown) <= HINT_WIDTH else shown[: HINT_WIDTH - 1] + "…", chosen))
    return out[:limit]
