"""Answers kept for the very objects they were worked out from.

The scheduler asks what is due next before every command. A state's parts are never changed in place
(an action that changes the proposals makes a new mapping of them, and leaves the other parts as they
were), so what a part implies, such as the instants its votes end, holds as long as the state carries
that very object: worked out again only when the part is another.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import wraps
from typing import ParamSpec, TypeVar

P = ParamSpec("P")
R = TypeVar("R")

KEPT = 64
"""Answers each function keeps (the oldest goes first): one a guild, for that many guilds at a time."""

_FORGETS: list[Callable[[], None]] = []


def kept(fn: Callable[P, R]) -> Callable[P, R]:
    """``fn`` (of values never changed in place, positional arguments only) answered without a call when
    given the very same objects as one of its last ``KEPT`` calls."""
    answers: dict[tuple[int, ...], tuple[tuple[object, ...], R]] = {}
    """By the identities of the arguments, each answer with them: kept alive, no other object takes their ids."""

    @wraps(fn)
    def answer(*args: P.args, **kwargs: P.kwargs) -> R:
        if kwargs:
            raise TypeError(f"{fn.__name__} takes positional arguments only")
        key = tuple(map(id, args))
        seen = answers.get(key)
        if seen is not None:
            return seen[1]
        found = fn(*args, **kwargs)
        if len(answers) >= KEPT:
            answers.pop(next(iter(answers)), None)
        answers[key] = (args, found)
        return found

    def forget() -> None:
        answers.clear()

    _FORGETS.append(forget)
    return answer


def forget_all() -> None:
    """Drop every kept answer: what is asked next is worked out afresh (to check it against a kept one)."""
    for forget in _FORGETS:
        forget()


def also_forget(forget: Callable[[], None]) -> None:
    """``forget`` is called with ``forget_all``: it drops answers kept elsewhere in the same way."""
    _FORGETS.append(forget)
