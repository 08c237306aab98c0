"""The moderators' to-do list: what passed proposals ask for that the bot does not enforce.

A passed proposal whose changes the bot cannot carry out by itself (a changed sentence it does not
enforce, a repealed rule, or no amendment line at all) becomes one item, posted where the moderators'
log is (``TodoAdded``). ``!admin todo`` lists the open items and ``!admin done N [NOTE]`` closes one; a
closed item leaves the state at the next week's start, for the archive.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from games.nomic.actions import CloseTodo
from games.nomic.amendments import ChangeNote, note_for_people
from games.nomic.common import Transition, require_moderator
from games.nomic.context import Context
from games.nomic.errors import ConflictError, UnknownError
from games.nomic.events import TodoAdded, TodoDone
from games.nomic.state import ChangeKind, Proposal, RoundState, TodoItem

LINE_LENGTH = 300
"""Characters of one line of an item (the proposal's whole text is in ``!proposals``)."""
MAX_LINES = 8
PAGE = 5
"""Items on one page of ``!admin todo``: with ``LISTED_LINES`` lines of ``LISTED_LENGTH`` each, a page fits
one message."""
LISTED_LINES = 3
LISTED_LENGTH = 100
MAX_NOTE = 300


def _cut(text: str, limit: int = LINE_LENGTH) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def plain_lines(proposal: Proposal) -> tuple[str, ...]:
    """A proposal without amendment lines: all of it is for people."""
    return (f"proposal {proposal.number} changes no rule's text; it says: “{_cut(proposal.text, 250)}”",)


def change_lines(notes: Sequence[ChangeNote]) -> tuple[str, ...]:
    """The applied changes the bot does not enforce, one line each."""
    out: list[str] = []
    for note in notes:
        if not note_for_people(note):
            continue
        if note.kind is ChangeKind.REPEAL:
            out.append(f"rule {note.rule} “{note.title}” is repealed: it no longer applies")
            continue
        said = " ".join(f"“{s}”" for s in note.unenforced)
        verb = "is enacted" if note.kind is ChangeKind.ENACT else "now says"
        out.append(_cut(f"rule {note.rule} “{note.title}” {verb} {said}"))
    if len(out) > MAX_LINES:
        out[MAX_LINES - 1 :] = [f"and {len(out) - MAX_LINES + 1} more rules: see the proposal"]
    return tuple(out)


def add(state: RoundState, proposal: Proposal, lines: tuple[str, ...], at: datetime) -> Transition:
    number = state.next_todo
    item = TodoItem(number=number, proposal=proposal.number, message=proposal.message, at=at, lines=lines)
    state = state.model_copy(update={"todos": {**state.todos, number: item}, "next_todo": number + 1})
    return Transition(state, (TodoAdded(number, proposal.number, lines),))


def check_done(state: RoundState, ctx: Context, action: CloseTodo) -> None:
    require_moderator(ctx)
    item = state.todos.get(action.number)
    if item is None:
        if 0 < action.number < state.next_todo:
            raise ConflictError(f"to-do {action.number} was done already")
        raise UnknownError(f"there is no to-do {action.number}; `!admin todo` lists the open ones")
    if item.done_at is not None:
        raise ConflictError(f"to-do {action.number} was done already, by {item.done_by}")


def apply_done(state: RoundState, ctx: Context, action: CloseTodo) -> Transition:
    check_done(state, ctx, action)
    note = _cut(action.note, MAX_NOTE)
    done = state.todos[action.number].model_copy(update={"done_at": ctx.at, "done_by": ctx.actor_name, "note": note})
    state = state.model_copy(update={"todos": {**state.todos, action.number: done}})
    return Transition(state, (TodoDone(action.number, ctx.actor_name, note),))


def listing(state: RoundState, page: int = 1) -> str:
    """``!admin todo``: the open items, oldest first."""
    open_items = [state.todos[n] for n in sorted(state.todos) if state.todos[n].done_at is None]
    if not open_items:
        return "The moderators' to-do list is empty: the bot enforces every rule change that has passed."
    pages = -(-len(open_items) // PAGE)
    if page > pages:
        raise UnknownError(f"the to-do list has {pages} page{'s' if pages != 1 else ''}")
    shown = open_items[(page - 1) * PAGE : page * PAGE]
    lines = [f"The moderators' to-do list ({len(open_items)} open; `!admin done N [NOTE]` closes one):"]
    for item in shown:
        lines.append(f"**{item.number}.** proposal {item.proposal}, passed {item.at:%a %Y-%m-%d %H:%M} UTC:")
        lines.extend(f"- {_cut(line, LISTED_LENGTH)}" for line in item.lines[:LISTED_LINES])
        if len(item.lines) > LISTED_LINES:
            lines.append(f"- and {len(item.lines) - LISTED_LINES} more: see proposal {item.proposal}")
    if page < pages:
        lines.append(f"Page {page} of {pages}: `!admin todo {page + 1}` for more.")
    return "\n".join(lines)
