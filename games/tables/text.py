"""Small helpers for reading thread commands: normalising text and naming seats."""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Sequence
from typing import Literal, TypeVar, get_args, get_origin

from annotated_types import Ge, Le
from pydantic import BaseModel
from pydantic_core import ErrorDetails

from games.tables.engine import BadCommandError, GameRuleError
from games.tables.i18n import DEFAULT, LANGUAGES, tr

MAX_COMMAND_LENGTH = 300
"""Thread commands are short; anything longer is refused before it is read."""

_MENTION = re.compile(r"^<@!?(\d+)>$")
E = TypeVar("E", bound=GameRuleError)


def framework_error(kind: type[E], key: str, **fields: object) -> E:
    """A rule error of the framework's own, with its sentence in each of the framework's languages
    (raised where the table's language is not at hand; the refusal picks the table's)."""
    texts = {lang: tr(lang, key, **fields) for lang in LANGUAGES}
    return kind(texts[DEFAULT], texts=texts)


def tokens(text: str, prefix: str = "!", *, fold: bool = True) -> list[str]:
    """The words of a command, folded to lower case (unless ``fold`` is False); a leading ``prefix`` is dropped.

    Commas count as spaces. ``BadCommandError`` for empty or overlong text.
    """
    if len(text) > MAX_COMMAND_LENGTH:
        raise framework_error(BadCommandError, "error.command_too_long", max=MAX_COMMAND_LENGTH)
    folded = unicodedata.normalize("NFKC", text).strip()
    if fold:
        folded = folded.casefold()
    if prefix and folded.startswith(prefix):
        folded = folded[len(prefix) :]
    words = folded.replace(",", " ").split()
    if not words:
        raise framework_error(BadCommandError, "error.empty_command")
    return words


def _first_word(text: str) -> str | None:
    """The word a command starts with, folded, after any prefix or mark, without invisible characters."""
    folded = unicodedata.normalize("NFKC", text[:MAX_COMMAND_LENGTH]).casefold()
    folded = "".join(ch for ch in folded if unicodedata.category(ch) != "Cf")
    start = next((i for i, ch in enumerate(folded) if ch.isalnum()), len(folded))
    first = folded[start:].split(maxsplit=1)
    return first[0] if first else None


def opens_with(text: str, words: frozenset[str]) -> bool:
    """Whether ``text`` starts with one of ``words`` (folded) as a command would, however it is typed:
    any case, after a prefix or a mark (``!``, ``/``, ``！``, a quote, a spoiler bar), before anything that
    is not a letter of the word's own script or that holds a digit (``vote.``, ``vote:P04``, ``voteP04``,
    ``投P04``; not ``voter``, ``開始``)."""
    typed = _first_word(text) if words else None
    if typed is None:
        return False
    for word in words:
        if not typed.startswith(word):
            continue
        rest = typed[len(word) :]
        if not rest or not (rest[0].isalpha() and rest[0].isascii() == word[-1].isascii()):
            return True
        if any(ch.isdigit() for ch in rest):
            return True  # a card's id run on: ``voteP04``
    return False


def near_word(text: str, words: frozenset[str]) -> bool:
    """Whether the word ``text`` starts with (its letters) is one slip from one of ``words``: a letter missing,
    added or changed, or two side by side swapped (``vot``, ``voet``, ``頭票``); only words of four letters or
    more count, two in a script written without spaces, so that a short word is not everything's neighbour."""
    typed = _first_word(text)
    letters = re.match(r"[^\W\d_]+", typed) if typed is not None else None
    if letters is None:
        return False
    slip = letters.group(0)
    return any(len(word) >= (4 if word.isascii() else 2) and _one_slip(slip, word) for word in words)


def _one_slip(a: str, b: str) -> bool:
    if a == b or abs(len(a) - len(b)) > 1:
        return False
    if len(a) == len(b):
        diff = [i for i, (x, y) in enumerate(zip(a, b, strict=True)) if x != y]
        swapped = len(diff) == 2 and diff[1] == diff[0] + 1 and a[diff[0]] == b[diff[1]] and a[diff[1]] == b[diff[0]]
        return len(diff) == 1 or swapped
    short, long = sorted((a, b), key=len)
    return any(long[:i] + long[i + 1 :] == short for i in range(len(long)))


PlayerResolver = Callable[[Sequence[str]], str]
"""Maps the words of a move that name a player (``@bob``, ``<@123>``, ``bob``, as typed) to a seat.

An engine alone knows only its seats' names (``resolve_seat``); at a table the service passes
one that also knows who the members are (``games.tables.players``)."""


def resolve_seat(seats: Sequence[str], words: Sequence[str]) -> str:
    """The seat named by ``words``: ``@name``, ``name``, or a Discord mention ``<@id>`` of a seat id.

    Names are compared without case; several words are joined with single spaces. This is what
    an engine knows alone; a table resolves members more carefully (``games.tables.players``).
    """
    if not words:
        raise framework_error(BadCommandError, "error.say_who")
    wanted = " ".join(words).strip()
    match = _MENTION.match(wanted)
    if match is not None:
        wanted = match.group(1)
    wanted = unicodedata.normalize("NFKC", wanted.removeprefix("@")).casefold()
    for seat in seats:
        if unicodedata.normalize("NFKC", seat).casefold() == wanted:
            return seat
    shown = wanted if len(wanted) <= 40 else wanted[:40] + "…"
    raise framework_error(BadCommandError, "error.nobody_called", name=shown.replace("`", ""))


def number(word: str, what: str, low: int, high: int) -> int:
    """An integer from ``low`` to ``high`` written as ``12`` or ``#12``."""
    digits = word.removeprefix("#")
    if not digits.isdecimal() or not digits.isascii() or len(digits) > 6:
        shown = word if len(word) <= 20 else word[:20] + "…"
        raise framework_error(BadCommandError, "error.not_a_number", shown=shown, what=what, low=low, high=high)
    value = int(digits)
    if not low <= value <= high:
        raise framework_error(BadCommandError, "error.number_range", what=what, low=low, high=high, value=value)
    return value


_LIMITS = {
    "greater_than_equal": ("error.value_at_least", "ge"),
    "less_than_equal": ("error.value_at_most", "le"),
    "greater_than": ("error.value_above", "gt"),
    "less_than": ("error.value_below", "lt"),
}
_KINDS = {
    "int_parsing": "error.value_whole",
    "int_from_float": "error.value_whole",
    "float_parsing": "error.value_number",
    "bool_parsing": "error.value_on_off",
}


def _range(model: type[BaseModel], error: ErrorDetails) -> tuple[int, int, bool] | None:
    """A whole-number field's bounds when it has both (and whether ``none`` is a value too): a refusal then
    says the whole range rather than the one bound the value crossed."""
    loc = error.get("loc", ())
    field = model.model_fields.get(str(loc[0])) if loc else None
    if field is None:
        return None
    args = get_args(field.annotation) or (field.annotation,)
    low = next((m.ge for m in field.metadata if isinstance(m, Ge)), None)
    high = next((m.le for m in field.metadata if isinstance(m, Le)), None)
    if int not in args or not isinstance(low, int) or not isinstance(high, int):
        return None
    return low, high, type(None) in args


def _why(model: type[BaseModel], error: ErrorDetails, lang: str) -> str:
    """Why a value is refused, in ``lang``: its bound, the kind of value it must be, its choices, or the
    sentence of the validator that refused it (in ``lang`` when it raised a ``GameRuleError`` with texts)."""
    kind = error.get("type", "")
    ctx = error.get("ctx") or {}
    ranged = _range(model, error) if kind in _LIMITS or kind in {"int_parsing", "int_from_float"} else None
    if ranged is not None:
        low, high, none = ranged
        return tr(lang, "error.value_range_none" if none else "error.value_range", low=low, high=high)
    if kind in _LIMITS:
        key, bound = _LIMITS[kind]
        return tr(lang, key, limit=ctx.get(bound, "?"))
    if kind in _KINDS:
        return tr(lang, _KINDS[kind])
    raised = ctx.get("error")
    if kind == "value_error" and isinstance(raised, ValueError):
        # a validator's own sentence: a rule error's in ``lang`` when it gives one, without pydantic's prefix
        return str(raised.in_language(lang) if isinstance(raised, GameRuleError) else raised)
    loc = error.get("loc", ())
    field = model.model_fields.get(str(loc[0])) if loc else None
    choices = get_args(field.annotation) if field is not None and get_origin(field.annotation) is Literal else ()
    if kind == "literal_error" and choices:
        return tr(lang, "error.value_one_of", choices=tr(lang, "list.separator").join(f"`{c}`" for c in choices))
    return str(error.get("msg", ""))


def invalid_value(model: type[BaseModel], error: ErrorDetails, key: str, **fields: object) -> BadCommandError:
    """A value ``model`` refused (``error``, pydantic's first), as the framework's sentence ``key``
    with its ``{why}`` in each of the framework's languages."""
    texts = {lang: tr(lang, key, why=_why(model, error, lang), **fields) for lang in LANGUAGES}
    return BadCommandError(texts[DEFAULT], texts=texts)
