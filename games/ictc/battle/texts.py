"""The battle's own texts: one catalogue of ``locales/LANG.toml`` (English today)."""

from __future__ import annotations

from pathlib import Path

from games.tables.i18n import Catalogue

LOCALES = Path(__file__).parent / "locales"
TEXTS = Catalogue(LOCALES)


def t(lang: str, key: str, **fields: object) -> str:
    return TEXTS.text(lang, key, **fields)


def tn(lang: str, key: str, n: int, **fields: object) -> str:
    """A text whose form depends on a count ``n`` (``key.one`` / ``key.other``)."""
    return TEXTS.plural(lang, key, n, **fields)
