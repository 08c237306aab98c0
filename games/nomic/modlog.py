"""The moderators' log: who changed what, and when, outside the rules' normal course.

Every correction a moderator makes with ``!admin`` (ruleset changes included) is kept with the
action that made it, in the same transaction; the Discord adapter adds its own setup changes
(``/setup``, ``!admin sync``). ``!admin log [N]`` lists the latest. The texts are those of the
answers, so a correction's cards are counted, never named: the log may be read in the open.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from games.nomic.actions import MODERATION, Action
from games.nomic.context import Context
from games.nomic.events import Event, when
from games.values import valueclass

KIND_WORDS = {
    "admin_give": "!admin give",
    "admin_take": "!admin take",
    "admin_lot": "!admin lot",
    "admin_set": "!admin set",
    "ruleset_import": "/ruleset import",
    "todo_done": "!admin done",
    "admin_sync": "!admin sync",
    "setup": "/setup",
}
MAX_WHAT = 500


@valueclass
class ModLogEntry:
    at: datetime
    moderator: str
    """The member's id."""
    name: str
    kind: str
    what: str

    def line(self) -> str:
        return f"{when(self.at)} · {self.name} · `{KIND_WORDS.get(self.kind, self.kind)}`: {self.what}"

    def post_text(self) -> str:
        """The entry as posted in the moderators' log channel (the message shows when)."""
        return f"🛠️ {self.name} · `{KIND_WORDS.get(self.kind, self.kind)}`: {self.what}"


def entry(ctx: Context, action: Action, events: Sequence[Event]) -> ModLogEntry | None:
    """The log's entry for an accepted action, if it is a moderator's correction."""
    if not isinstance(action, MODERATION) or not ctx.is_moderator:
        return None
    what = " ".join(e.text() for e in events if e.recipient() is None)
    return ModLogEntry(ctx.at, ctx.actor, ctx.actor_name, action.kind, _short(what))


def _short(text: str) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= MAX_WHAT else flat[: MAX_WHAT - 1] + "…"


def log_text(entries: Sequence[ModLogEntry], total: int) -> str:
    """``!admin log``: the latest entries, newest first."""
    if not entries:
        return "The moderators' log is empty: no moderator has corrected the game or changed the setup yet."
    shown = f"the latest {len(entries)} of {total:,}" if total > len(entries) else f"all {total:,}"
    lines = [f"Moderators' log ({shown}, newest first):"]
    lines.extend(f"- {e.line()}" for e in entries)
    return "\n".join(lines)
