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
    text = f"**{table.name}**: {event.text(table.lang)}"
    return [TablePost(text, table=table.name, private=True, kind="private", at=at, to=members)]


def route(table: Table, events: Sequence[TableEvent], at: datetime) -> list[TablePost]:
    """Events as posts: public text runs joined into one thread post, each board a post of its own,
    each event for some seats a private post to their members only."""
    posts: list[TablePost] = []
    lines: list[str] = []
    held: list[TablePost] = []
    kind = ""
    mentions: list[str] = []
    lang = table.lang

    def flush() -> None:
        if lines:
            posts.append(TablePost("\n".join(lines), table=table.name, kind=kind, mentions=tuple(mentions), at=at))
        lines.clear()
        mentions.clear()
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
        if not lines:
            kind = event.kind
        lines.append(text)
        if isinstance(event, YourTurn | Reminder | TimedOut) and event.member not in mentions:
            mentions.append(event.member)
        if isinstance(event, Awaited):
            mentions.extend(m for m in event.members if m not in mentions)
    flush()
    return posts


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
