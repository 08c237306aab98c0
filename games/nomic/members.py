"""Which member a typed ``@name`` means.

A real mention carries an id and needs no guessing. A name typed by hand is only safe when it is
a username (unique on Discord, chosen once) that nobody else shows as a server nickname or
display name: anyone can take another member's username as their nickname, and would then
receive trades, gifts and look-ups meant for them. Anything less certain is refused, and the
refusal lists who the name could mean.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable
from typing import NamedTuple

from games.nomic.errors import AmbiguousMemberError, MemberCandidate, UnknownMemberError

MAX_LISTED = 5
"""Candidates named in a refusal; the rest are counted."""
TRAILING = ",.;:!?"
"""Punctuation after a typed name (``@bob,``) that counts only when no name has it."""
MAX_NAME_SHOWN = 32

_INVISIBLE = {"Cc", "Cf", "Zl", "Zp"}
_MARKDOWN = re.compile(r"([\\*_~|`\[\]()])")


class Known(NamedTuple):
    """A member as the matcher sees them: the unique username and the names they are shown by.

    A named tuple: a large server builds one per member for every typed name, and these are cheap.
    """

    id: str
    username: str
    nick: str | None = None
    """The server nickname."""
    global_name: str | None = None
    """The display name the member chose for every server."""

    @property
    def display(self) -> str:
        return self.nick or self.global_name or self.username

    def names(self) -> tuple[str, ...]:
        """The names other than the username that members see them by."""
        return tuple(n for n in (self.nick, self.global_name) if n)


def fold(name: str) -> str:
    """A name as it is compared: compatibility forms, no invisible characters, no case, single spaces."""
    if name.isascii() and name.isprintable():
        return " ".join(name.lower().split())  # the same, for the common case, in a fraction of the time
    text = unicodedata.normalize("NFKC", name)
    text = "".join(ch for ch in text if unicodedata.category(ch) not in _INVISIBLE)
    return " ".join(text.casefold().split())


def plain(name: str, limit: int = MAX_NAME_SHOWN) -> str:
    """A member's name fit for a message: no markdown, no mention, printable, short."""
    text = "".join(ch for ch in name if ch.isprintable())
    text = text if len(text) <= limit else text[: limit - 1] + "…"
    return _MARKDOWN.sub(r"\\\1", text).replace("@", "@\u200b") or "?"


def _code(text: str, limit: int = MAX_NAME_SHOWN) -> str:
    visible = "".join(ch for ch in text if ch.isprintable() and ch != "`")
    visible = visible if len(visible) <= limit else visible[: limit - 1] + "…"
    return f"`{visible}`" if visible else "`?`"


def typed_shown(typed: str) -> str:
    """The typed name quoted back, as ``@name`` in a code span."""
    return _code("@" + typed.removeprefix("@"))


def candidate(member: Known, *, by_username: bool) -> MemberCandidate:
    return MemberCandidate(id=member.id, display=member.display, username=member.username, by_username=by_username)


def listing(candidates: Iterable[MemberCandidate]) -> str:
    """``Bob (`@bob`), Bob (`@mallory`)``: at most ``MAX_LISTED``, then how many more."""
    found = list(candidates)
    shown = [f"{plain(c.display)} ({_code('@' + c.username)})" for c in found[:MAX_LISTED]]
    if len(found) > MAX_LISTED:
        shown.append(f"and {len(found) - MAX_LISTED} more")
    return ", ".join(shown)


HOW_TO_PICK = "pick the member from Discord's @ list as you type, or type their username"


def unknown_member(typed: str) -> UnknownMemberError:
    """The refusal of a name nobody goes by."""
    return UnknownMemberError(f"no member is called {typed_shown(typed)}; {HOW_TO_PICK}", typed)


def ambiguous_member(typed: str, candidates: tuple[MemberCandidate, ...]) -> AmbiguousMemberError:
    """The refusal of a name several members go by, or that only a nickname or display name matches."""
    if len(candidates) == 1:
        text = (
            f"{typed_shown(typed)} is only the nickname or display name of {listing(candidates)}, not a username;"
            f" to be sure who you mean, {HOW_TO_PICK}"
        )
    else:
        text = f"more than one member goes by {typed_shown(typed)}: {listing(candidates)}; {HOW_TO_PICK}"
    return AmbiguousMemberError(text, typed, candidates)


def _candidates(wanted: str, members: Iterable[Known]) -> tuple[MemberCandidate, ...]:
    """Everyone ``wanted`` could mean: username matches first, then those shown by that name."""
    by_username: list[MemberCandidate] = []
    shown: list[MemberCandidate] = []
    for member in members:
        if fold(member.username) == wanted:
            by_username.append(candidate(member, by_username=True))
        elif (member.nick and fold(member.nick) == wanted) or (
            member.global_name and fold(member.global_name) == wanted
        ):
            shown.append(candidate(member, by_username=False))
    shown.sort(key=lambda c: (fold(c.display), fold(c.username)))
    return (*by_username, *shown)


def match_member(typed: str, members: Iterable[Known]) -> str:
    """The id of the one member whose username is ``typed`` (``@`` optional) and whom nobody else is shown as.

    ``UnknownMemberError`` when nobody goes by the name; ``AmbiguousMemberError`` when several
    members do, or when it is only someone's nickname or display name.
    """
    name = typed.strip().removeprefix("@")
    everyone = list(members)
    found = _candidates(fold(name), everyone)
    bare = name.rstrip(TRAILING)
    if not found and bare != name:
        name = bare
        found = _candidates(fold(name), everyone)
    if not found or not fold(name):
        raise unknown_member(name)
    if len(found) == 1 and found[0].by_username:
        return found[0].id
    raise ambiguous_member(name, found)
