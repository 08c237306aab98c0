"""From a table's events to what is posted, and to whom: the one place that decides who sees what.

A post is public (the table's thread), a reply where the command was typed, or private to some
members (``to``: each of them alone, by an ephemeral answer or a DM). An event addressed to some
seats (``audience``) becomes a private post to those seats' members and nothing else: never a
thread post, never part of a board, never another member's post.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from games.tables.engine import GameEvent, audience_of
from games.tables.events import Awaited, BoardShown, Moved, Reminder, TableEvent, TimedOut, YourTurn
from games.tables.i18n import join_names, tr
from games.tables.model import Table, TableStatus
from games.tables.registry import get_game

POST_LIMIT = 2000
"""The most characters of one thread post: a Discord message's limit, so a post is one message anywhere."""


@dataclass(frozen=True)
class TablePost:
    """One thing the service says.

    ``table`` None: in reply to the command, where it was typed (errors, ``!hand``, ``!games``, the
    ``opened`` answer to ``!play`` in its channel). ``table`` set: in that table's thread (an answer
    when the command was typed there, an announcement otherwise), unless ``to`` names members: then
    to each of them privately and never to the thread. The first post of a new table (``kind``
    ``lobby``, right after the ``opened`` answer) is where the adapter creates the thread ``GAME-N``
    and binds it with ``TableService.attach_thread``.
    """

    text: str
    table: str | None = None
    private: bool = False
    """Only the acting member sees it (ephemeral or DM): ``!hand``, a secret move's receipt."""
    error: bool = False
    kind: str = "reply"
    """reply, opened, lobby, move, board, turn, reminder, timeout, end, hand, help, rules, games, error,
    secret (a secret move typed in the open, refused), private (an event for some seats)."""
    mentions: tuple[str, ...] = ()
    """Members the post is addressed to (whose input is awaited): the adapter may ping them."""
    at: datetime | None = None
    to: tuple[str, ...] = ()
    """Members who each see this post privately; when set the post never goes to the thread."""
    lang: str | None = None
    """The language of a text that is no table's (``!rules``, ``!games``, ``!help``): an adapter titles it in it."""

    @property
    def public(self) -> bool:
        return not self.private and not self.to and not self.error


def members_of(table: Table, seats: frozenset[str]) -> tuple[str, ...]:
    """The members who hold ``seats`` now (AI seats and members who left have nobody to tell)."""
    return tuple(s.member for s in table.seats if s.name in seats and s.member is not None and not s.left)


def _private_posts(table: Table, event: GameEvent, at: datetime) -> list[TablePost]:
    audience = audience_of(event)
    if audience is None:
        return []
    members = members_of(table, audience)
    if not members:
        return []
    text = tr(table.lang, "list.about", table=table.name, text=event.text(table.lang))
    return [TablePost(text, table=table.name, private=True, kind="private", at=at, to=members)]


def route(table: Table, events: Sequence[TableEvent], at: datetime, limit: int | None = None) -> list[TablePost]:
    """Events as posts: public text runs joined into thread posts of at most ``limit`` characters
    (``POST_LIMIT``; a run the AI played for a seat that passed to it can be long), each board a post
    of its own, each event for some seats a private post to their members only."""
    posts: list[TablePost] = []
    lines: list[_Line] = []
    held: list[TablePost] = []
    lang = table.lang

    def flush() -> None:
        for run in _runs(lines, POST_LIMIT if limit is None else limit):
            mentions = tuple(dict.fromkeys(m for line in run for m in line.mentions))
            text = "\n".join(line.text for line in run)
            posts.append(TablePost(text, table=table.name, kind=run[0].kind, mentions=mentions, at=at))
        lines.clear()
        posts.extend(held)
        held.clear()

    for event in events:
        if isinstance(event, BoardShown):
            flush()
            posts.append(TablePost(event.text(lang), table=table.name, kind="board", at=at))
            continue
        if isinstance(event, Moved):
            public = [e.text(lang) for e in event.events if audience_of(e) is None]
            for inner in event.events:
                held.extend(_private_posts(table, inner, at))
            if not public:
                continue
            text = "\n".join(public)
        elif audience_of(event) is not None:
            held.extend(_private_posts(table, event, at))
            continue
        else:
            text = event.text(lang)
        mentions: tuple[str, ...] = ()
        if isinstance(event, YourTurn | Reminder | TimedOut):
            mentions = (event.member,)
        if isinstance(event, Awaited):
            mentions = (*mentions, *event.members)
        kind = event.kind
        for number, part in enumerate(_pieces(text, POST_LIMIT if limit is None else limit)):
            lines.append(_Line(part, kind, mentions if number == 0 else ()))
    flush()
    return posts


@dataclass(frozen=True)
class _Line:
    """A line of a thread post: its event's kind and whom it pings."""

    text: str
    kind: str
    mentions: tuple[str, ...]


def _pieces(text: str, limit: int) -> list[str]:
    """An event's text as lines none longer than ``limit``: only a line longer than a whole post is cut,
    at its last space before the limit when it has one."""
    out: list[str] = []
    for whole in text.split("\n"):
        line = whole
        while len(line) > limit:
            cut = line.rfind(" ", 0, limit + 1)
            cut = cut if cut > 0 else limit
            out.append(line[:cut])
            line = line[cut:].lstrip(" ")
        out.append(line)
    return out


def _runs(lines: Sequence[_Line], limit: int) -> list[list[_Line]]:
    """Consecutive lines grouped into posts of at most ``limit`` characters, each line whole."""
    runs: list[list[_Line]] = []
    size = 0
    for line in lines:
        if runs and size + 1 + len(line.text) <= limit:
            runs[-1].append(line)
            size += 1 + len(line.text)
        else:
            runs.append([line])
            size = len(line.text)
    return runs


def opened_post(table: Table, at: datetime) -> TablePost:
    """The answer to ``!play`` where it was typed: the table's thread is where the game happens. A table
    opened for the members who agreed to play (an accepted challenge) starts with them seated: nobody joins."""
    title = get_game(table.game).title
    if table.status is TableStatus.PLAYING:
        seats = join_names(table.lang, [s.name for s in table.seats])
        text = tr(table.lang, "lobby.opened_reply_started", table=table.name, title=title, seats=seats)
    else:
        text = tr(table.lang, "lobby.opened_reply", table=table.name, title=title)
    return TablePost(text, kind="opened", at=at)
