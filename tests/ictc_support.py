"""Builders of the card library's tests: contexts, commands typed against a pure state, cards."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from games.ictc import engine
from games.ictc.commands import parse_library
from games.ictc.errors import CardInputError
from games.ictc.events import Note
from games.ictc.starter import initial_state
from games.ictc.state import LibraryState
from games.nomic.context import ChannelRole, Context
from games.nomic.errors import RuleError

T0 = datetime(2026, 12, 4, 12, tzinfo=UTC)
MOD = "mod"


def lctx(actor: str, at: datetime = T0, *, event_id: str = "", moderator: bool | None = None) -> Context:
    return Context(
        actor=actor,
        actor_name=actor,
        channel=ChannelRole.GAME_ACTIONS,
        at=at,
        is_moderator=actor == MOD if moderator is None else moderator,
        event_id=event_id,
    )


def resolve(token: str) -> str:
    name = token.removeprefix("@")
    if not name:
        raise CardInputError("no member")
    return name


class Lib:
    """A library driven by typed commands, as the router would (no store)."""

    def __init__(self, state: LibraryState | None = None, at: datetime = T0) -> None:
        self.state = state or initial_state()
        self.at = at
        self.said: list[Note] = []

    def do(self, actor: str, text: str, *, minutes: int = 1) -> list[Note]:
        """Apply a state-changing command (raising its RuleError) or answer a question."""
        self.at += timedelta(minutes=minutes)
        action = parse_library(text, resolve)
        if not action.changes_state:
            notes = engine.query(self.state, lctx(actor, self.at), action)
        else:
            step = engine.apply(self.state, lctx(actor, self.at), action)
            self.state = step.state
            notes = list(step.notes)
        self.said.extend(notes)
        return notes

    def answer(self, actor: str, text: str) -> tuple[object, ...]:
        """What the actor is told, as a value: each note, or the refusal and whether it is theirs alone."""
        before = self.state
        try:
            notes = self.do(actor, text)
        except RuleError as exc:
            action = parse_library(text, resolve)
            alone = engine.refused_privately(before, lctx(actor, self.at), action)
            return ("refused", type(exc).__name__, str(exc), alone)
        return ("said", *((n.text, n.private, n.card, n.review, n.to) for n in notes))

    def text(self, actor: str, text: str) -> str:
        return "\n".join(n.text for n in self.do(actor, text))

    def design(self, name: str) -> object:
        return next(d for d in self.state.designs.values() if d.name == name)


IMP_TEXT = "A quick imp of living flame that darts between the lines."


def new_soldier(lib: Lib, owner: str, name: str, text: str = IMP_TEXT, **fields: str) -> int:
    """A soldier draft (``fields`` change the defaults); its number."""
    raw = {"type": "soldier", "cost": "R+1", "cr": "2", "keywords": "Haste", "text": text, **fields}
    lib.do(owner, f"!card new {name} | " + " | ".join(f"{k}: {v}" for k, v in raw.items()))
    return max(d.id for d in lib.state.designs.values() if d.owner == owner)


def approved(lib: Lib, owner: str, name: str, text: str = IMP_TEXT, *, by: tuple[str, str] = ("bob", "carol")) -> int:
    """A soldier submitted and approved by two members; its number."""
    number = new_soldier(lib, owner, name, text)
    lib.do(owner, f"!card submit #{number}")
    for member in by:
        lib.do(member, f"!card approve #{number}")
    return number
