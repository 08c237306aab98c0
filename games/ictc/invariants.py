"""What no card library the rules made can hold: a value filed under another key, a copy of no design,
a number handed out twice.

The library is stored a row per value, keyed as ``key_of`` says; its service reads it back by those
keys. A library that breaks one of these was not written by the rules (an edited export), and
``python -m bot import`` refuses it rather than let the library go on from it.
"""

from __future__ import annotations

from collections.abc import Mapping

from pydantic import BaseModel

from games.ictc.library import guild_key
from games.ictc.state import (
    COLLECTIONS,
    CardGuild,
    Challenge,
    Contest,
    Copy,
    Deck,
    Design,
    LibraryState,
    Meeting,
    Member,
    deck_key,
    meeting_key,
)


def key_of(value: BaseModel) -> str:
    """The key a library value is stored under (its row's ``key``)."""
    match value:
        case Design() | Copy() | Member():
            return str(value.id)
        case Contest() | Challenge():
            return str(value.number)
        case Deck():
            return deck_key(value.owner, value.name)
        case CardGuild():
            return guild_key(value.name)
        case Meeting():
            return meeting_key(value.a, value.b)
    raise TypeError(f"{type(value).__name__} is not a value of the card library")


_NUMBERED = {
    "designs": "next_design",
    "copies": "next_copy",
    "contests": "next_contest",
    "challenges": "next_challenge",
}
"""The collections numbered by a counter of the library's ``Meta``: the counter is past each number."""


def invariants(state: LibraryState) -> list[str]:
    """What is inconsistent in ``state`` (one line each); empty when the rules could have made it."""
    found: list[str] = []
    for name in COLLECTIONS:
        values: Mapping[object, BaseModel] = getattr(state, name)
        counter = _NUMBERED.get(name)
        below = getattr(state.meta, counter) if counter is not None else None
        for key, value in values.items():
            own = key_of(value)
            if own != str(key):
                found.append(f"{name} {own} is filed under {key}")
            elif below is not None and not 1 <= int(own) < below:
                found.append(f"{name} {own} is not a number the library handed out (1 to {below - 1})")
    for copy in state.copies.values():
        design = state.designs.get(copy.design)
        if design is None:
            found.append(f"copy {copy.id} is of design {copy.design}, which the library does not have")
        elif not 1 <= copy.version <= len(design.versions):
            found.append(f"copy {copy.id} is of version {copy.version} of design {copy.design}, which it does not have")
    return found
