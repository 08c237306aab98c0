"""Small helpers for reading thread commands: normalising text and naming seats."""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Sequence

from games.tables.engine import BadCommandError

MAX_COMMAND_LENGTH = 300
"""Thread commands are short; anything longer is refused before it is read."""

_MENTION = re.compile(r"^<@!?(\d+)>$")


def tokens(text: str, prefix: str = "!", *, fold: bool = True) -> list[str]:
    """The words of a command, folded to lower case (unless ``fold`` is False); a leading ``prefix`` is dropped.

    Commas count as spaces. ``BadCommandError`` for empty or overlong text.
    """
    if len(text) > MAX_COMMAND_LENGTH:
        raise BadCommandError(f"that is too long for a command (at most {MAX_COMMAND_LENGTH} characters)")
    folded = unicodedata.normalize("NFKC", text).strip()
    if fold:
        folded = folded.casefold()
    if prefix and folded.startswith(prefix):
        folded = folded[len(prefix) :]
    words = folded.replace(",", " ").split()
    if not words:
        raise BadCommandError("the command is empty")
    return words


def opens_with(text: str, words: frozenset[str]) -> bool:
    """Whether ``text`` starts with one of ``words`` (folded) as a command would, however it is typed:
    any case, after a prefix or a mark (``!``, ``/``, ``！``, a quote, a spoiler bar), before anything that
    is not a letter of the word's own script or that holds a digit (``vote.``, ``vote:P04``, ``voteP04``,
    ``投P04``; not ``voter``, ``開始``)."""
    if not words:
        return False
    folded = unicodedata.normalize("NFKC", text[:MAX_COMMAND_LENGTH]).casefold()
    start = next((i for i, ch in enumerate(folded) if ch.isalnum()), len(folded))
    first = folded[start:].split(maxsplit=1)
    if not first:
        return False
    typed = first[0]
    for word in words:
        if not typed.startswith(word):
            continue
        rest = typed[len(word) :]
        if not rest or not (rest[0].isalpha() and rest[0].isascii() == word[-1].isascii()):
            return True
        if any(ch.isdigit() for ch in rest):
            return True  # a card's id run on: ``voteP04``
    return False


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
        raise BadCommandError("say who: name a player, e.g. `@bob`")
    wanted = " ".join(words).strip()
    match = _MENTION.match(wanted)
    if match is not None:
        wanted = match.group(1)
    wanted = unicodedata.normalize("NFKC", wanted.removeprefix("@")).casefold()
    for seat in seats:
        if unicodedata.normalize("NFKC", seat).casefold() == wanted:
            return seat
    shown = wanted if len(wanted) <= 40 else wanted[:40] + "…"
    raise BadCommandError(f"nobody called `{shown}` sits at this table")


def number(word: str, what: str, low: int, high: int) -> int:
    """An integer from ``low`` to ``high`` written as ``12`` or ``#12``."""
    digits = word.removeprefix("#")
    if not digits.isdecimal() or not digits.isascii() or len(digits) > 6:
        shown = word if len(word) <= 20 else word[:20] + "…"
        raise BadCommandError(f"`{shown}` is not a {what} number ({low} to {high})")
    value = int(digits)
    if not low <= value <= high:
        raise BadCommandError(f"{what} numbers run from {low} to {high}, not {value}")
    return value
