"""Which seat a move's player argument names (``give 3 @bob``): the round's rule for members, at a table.

A Discord mention names its member's seat by id. A typed name goes to the server's members
first (``games.nomic.members.match_member``: a username nobody else is shown by), so a member
who takes another's username as a nickname gets nothing meant for the other. A seat's own name,
as the board shows it, names that seat only when no other member on the server could be meant
(seat names are made from display names, but they are unique at the table and the moves menu
writes them). AI seats (``AI-1``) are named by their names: no member can take one.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from games.nomic.errors import AmbiguousMemberError, MemberCandidate, MemberNameError
from games.nomic.members import MAX_LISTED, fold, plain, typed_shown
from games.tables.engine import BadCommandError, NotASeatError
from games.tables.i18n import tr
from games.tables.lobby import Seat, Table, engine_of
from games.tables.text import PlayerResolver

MemberLookup = Callable[[str], str]
"""The adapter's members (``games.nomic.commands.MemberResolver``): ``@name`` or ``<@id>`` to a member id,
or ``MemberNameError`` listing who the name could be."""

_MENTION = re.compile(r"^<@!?(\d{1,25})>[,.;:!?]*$")
_TRAILING = ",.;:!?"


class AmbiguousPlayerError(BadCommandError):
    """A typed name that could mean more than one member, or a member only by a nickname."""


class TableResolver:
    """The table's rule for a move's player argument (called with the words: the seat they name), and
    ``member`` for a member who need not sit at the table (the judge a dispute names)."""

    def __init__(self, table: Table, members: MemberLookup | None) -> None:
        self._table = table
        self._members = members

    def __call__(self, words: Sequence[str]) -> str:
        return seat_for(self._table, words, self._members)

    def member(self, words: Sequence[str]) -> str:
        """The id of the member ``words`` name (a mention, ``@name``, or a seat's name), seated or not."""
        if not words:
            raise BadCommandError(tr(self._table.lang, "error.say_who_member"))
        wanted = " ".join(words).strip()
        mention = _MENTION.match(wanted)
        if mention is not None:
            return mention.group(1)
        name = wanted.removeprefix("@").strip()
        if self._members is not None:
            try:
                return self._members("@" + name)
            except MemberNameError as exc:
                raise AmbiguousPlayerError(_member_refusal(self._table, exc)) from exc
        named = _named(self._table, name)
        if named is not None and named.member is not None:
            return named.member
        raise _nobody(self._table, name)


def seat_resolver(table: Table, members: MemberLookup | None) -> PlayerResolver:
    """The table's rule for a move's player argument (a ``TableResolver``).

    ``members`` None: the text was written by the bot itself (a choice of the moves menu), so
    seat names are taken as the board shows them.
    """
    return TableResolver(table, members)


def seat_for(table: Table, words: Sequence[str], members: MemberLookup | None) -> str:
    """The name of the seat ``words`` name; a ``GameRuleError`` that says why not, and who it could be."""
    lang = table.lang
    if not words:
        raise BadCommandError(tr(lang, "error.say_who"))
    wanted = " ".join(words).strip()
    mention = _MENTION.match(wanted)
    if mention is not None:
        seat = _seat_of_member(table, mention.group(1))
        if seat is None:
            raise NotASeatError(tr(lang, "error.mentioned_not_seated"))
        return seat.name
    name = wanted.removeprefix("@").strip()
    named = _named(table, name)
    if named is not None and named.is_ai:
        return named.name
    if members is None:
        if named is not None:
            return named.name
        raise _nobody(table, name)
    try:
        member = members("@" + name)
    except MemberNameError as exc:
        if named is not None and all(c.id == named.member for c in exc.candidates):
            return named.name  # the table's own name for the seat; nobody else on the server goes by it
        if named is None and not exc.candidates:
            raise _nobody(table, name) from exc
        if named is None:
            raise AmbiguousPlayerError(_with_menu(table, _member_refusal(table, exc))) from exc
        raise _ambiguous(name, named, table, exc.candidates) from exc
    seat = _seat_of_member(table, member)
    if named is not None and (seat is None or named.name != seat.name):
        # the board calls another seat by this member's username
        shown = seat.name if seat is not None else name
        raise _ambiguous(name, named, table, (MemberCandidate(member, shown, name, by_username=True),))
    if seat is None:
        raise NotASeatError(tr(lang, "error.member_not_seated", who=typed_shown(name)))
    return seat.name


def _seat_of_member(table: Table, member: str) -> Seat | None:
    """The seat ``member`` holds or held (a seat its member left is played by the AI, and is still a seat)."""
    return next((s for s in table.seats if s.member == member), None)


def _named(table: Table, name: str) -> Seat | None:
    """The seat called ``name`` (without case); punctuation after it counts only when no seat has it."""
    for wanted in dict.fromkeys((fold(name), fold(name.rstrip(_TRAILING)))):
        found = next((s for s in table.seats if fold(s.name) == wanted), None)
        if found is not None:
            return found
    return None


def _nobody(table: Table, name: str) -> BadCommandError:
    shown = fold(name)
    shown = shown if len(shown) <= 40 else shown[:40] + "…"
    return BadCommandError(tr(table.lang, "error.nobody_called", name=shown.replace("`", "")))


def _with_menu(table: Table, why: str) -> str:
    """A refusal of a name, with the other way to pick: the moves menu under the game's private button."""
    button = engine_of(table).private_words(table.lang).button
    return tr(table.lang, "error.or_menu", why=why, button=button)


def _listing(table: Table, candidates: Sequence[MemberCandidate]) -> str:
    """``Bob (`@bob`), Bob (`@mallory`)``: at most ``MAX_LISTED``, then how many more."""
    lang = table.lang
    shown = [
        tr(lang, "error.candidate", name=plain(c.display), who=typed_shown(c.username)) for c in candidates[:MAX_LISTED]
    ]
    if len(candidates) > MAX_LISTED:
        shown.append(tr(lang, "error.more", n=len(candidates) - MAX_LISTED))
    return tr(lang, "list.separator").join(shown)


def _member_refusal(table: Table, exc: MemberNameError) -> str:
    """The server's refusal of a typed name, in the table's language: who the name could be, and how to pick."""
    lang = table.lang
    how = tr(lang, "error.how_to_pick")
    who = typed_shown(exc.typed)
    if not isinstance(exc, AmbiguousMemberError) or not exc.candidates:
        return tr(lang, "error.no_member", who=who, how=how)
    listing = _listing(table, exc.candidates)
    key = "error.member_nickname" if len(exc.candidates) == 1 else "error.member_several"
    return tr(lang, key, who=who, listing=listing, how=how)


def _ambiguous(name: str, named: Seat, table: Table, others: Sequence[MemberCandidate]) -> AmbiguousPlayerError:
    """The seat the board calls ``name`` and members of the server who go by it are different people."""
    lang = table.lang
    own = next((c for c in others if c.id == named.member), None)
    if own is not None:
        first = tr(lang, "error.the_seat_of", seat=plain(named.name), who=typed_shown(own.username))
    else:
        first = tr(lang, "error.the_seat", seat=plain(named.name))
    rest = tr(lang, "list.separator").join(_who(table, c) for c in others if c.id != named.member)
    why = tr(lang, "error.could_be", who=typed_shown(name), first=first, rest=rest, how=tr(lang, "error.how_to_pick"))
    return AmbiguousPlayerError(_with_menu(table, why))


def _who(table: Table, candidate: MemberCandidate) -> str:
    seat = _seat_of_member(table, candidate.id)
    who = typed_shown(candidate.username)
    if seat is None:
        return tr(table.lang, "error.candidate_elsewhere", name=plain(candidate.display), who=who)
    return tr(table.lang, "error.the_seat_of", seat=plain(seat.name), who=who)
