"""Texts by language: catalogues of ``key = "text with {fields}"`` in TOML files, one per language.

The framework's own texts (lobby, timers, errors) live in ``games/tables/locales/LANG.toml``; a
game keeps its own in ``locales/`` beside its package and declares the languages it has
(``GameEngine.languages``). A missing key in a language falls back to English, so a half-written
catalogue never breaks a table; the completeness test keeps that from shipping.

Plural forms: ``key.one`` and ``key.other`` (``plural`` picks one by ``n``); Chinese needs only ``other``.
"""

from __future__ import annotations

import tomllib
from collections.abc import Mapping
from functools import cache
from pathlib import Path
from string import Formatter

DEFAULT = "en"
LANGUAGES: tuple[str, ...] = ("en", "zh-TW")
"""The languages the framework's own texts are written in."""
LANGUAGE_NAMES: Mapping[str, str] = {"en": "English", "zh-TW": "繁體中文"}
_OWN = Path(__file__).parent / "locales"


def normalise(lang: str) -> str | None:
    """A language code as catalogues name it (``zh-tw`` → ``zh-TW``, ``EN`` → ``en``); None if unknown."""
    folded = lang.strip().replace("_", "-").casefold()
    aliases = {"zh": "zh-TW", "tw": "zh-TW", "zh-hant": "zh-TW", "zh-hant-tw": "zh-TW", "english": "en"}
    folded = aliases.get(folded, folded).casefold()
    return next((known for known in LANGUAGES if known.casefold() == folded), None)


@cache
def load_catalogue(folder: str, lang: str) -> Mapping[str, str]:
    """The flat ``key -> text`` of ``folder/LANG.toml`` (nested tables become dotted keys)."""
    path = Path(folder) / f"{lang}.toml"
    if not path.exists():
        return {}
    with path.open("rb") as handle:
        data = tomllib.load(handle)
    out: dict[str, str] = {}

    def walk(prefix: str, value: object) -> None:
        if isinstance(value, dict):
            for k, v in value.items():
                walk(f"{prefix}.{k}" if prefix else str(k), v)
        else:
            out[prefix] = str(value)

    walk("", data)
    return out


def fields_of(text: str) -> frozenset[str]:
    """The ``{fields}`` a text fills in."""
    return frozenset(name for _, name, _, _ in Formatter().parse(text) if name)


class Catalogue:
    """The texts of one folder of ``LANG.toml`` files."""

    def __init__(self, folder: Path | str) -> None:
        self.folder = str(folder)

    def text(self, lang: str, key: str, **fields: object) -> str:
        own = load_catalogue(self.folder, lang).get(key)
        if own is None:
            own = load_catalogue(self.folder, DEFAULT).get(key)
        if own is None:
            raise KeyError(f"no text {key!r} in {self.folder}")
        return own.format(**fields) if fields else own

    def plural(self, lang: str, key: str, n: int, **fields: object) -> str:
        form = "one" if n == 1 and f"{key}.one" in load_catalogue(self.folder, lang) else "other"
        return self.text(lang, f"{key}.{form}", n=n, **fields)

    def keys(self, lang: str) -> frozenset[str]:
        return frozenset(load_catalogue(self.folder, lang))

    def missing(self, languages: tuple[str, ...]) -> list[str]:
        """Keys (and fields) a language lacks or gets wrong, one line each; empty when complete."""
        english = load_catalogue(self.folder, DEFAULT)
        out: list[str] = []
        for lang in languages:
            other = load_catalogue(self.folder, lang)
            for key, text in english.items():
                base = key.removesuffix(".one").removesuffix(".other")
                found = other.get(key) if not key.endswith(".one") or lang == DEFAULT else other.get(key, "")
                if key.endswith(".one") and lang != DEFAULT and found == "" and f"{base}.other" in other:
                    continue  # a language without a singular form
                if found is None:
                    out.append(f"{lang}: missing {key}")
                elif fields_of(found) - fields_of(text) - {"n"}:
                    out.append(f"{lang}: {key} uses fields English does not give: {sorted(fields_of(found))}")
            out.extend(f"{lang}: {key} is not in English" for key in other if key not in english)
        return out


FRAMEWORK = Catalogue(_OWN)


def tr(lang: str, key: str, **fields: object) -> str:
    """One of the framework's own texts in ``lang``."""
    return FRAMEWORK.text(lang, key, **fields)


def trn(lang: str, key: str, n: int, **fields: object) -> str:
    """A framework text whose form depends on a count ``n``."""
    return FRAMEWORK.plural(lang, key, n, **fields)


def players_text(lang: str, low: int, high: int) -> str:
    """How many players a game seats: "2 players" for a fixed number, "2 to 6 players" otherwise."""
    return tr(lang, "list.players_exact", n=low) if low == high else tr(lang, "list.players_range", min=low, max=high)


def join_names(lang: str, names: tuple[str, ...] | list[str]) -> str:
    """Names in a list as the language writes one (``a, b`` or ``a、b``)."""
    return tr(lang, "list.separator").join(names) if names else tr(lang, "list.nobody")
