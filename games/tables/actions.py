"""What a table's action log stores: every way a table changes, as a typed value."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter

from games.tables.model import TableOptions


class _Action(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class ArrangedSeat(_Action):
    """A member seated at a table from its opening (a challenge accepted, a pairing), with what they bring."""

    member: str
    member_name: str
    setup: str | None = None


class OpenTable(_Action):
    kind: Literal["open"] = "open"
    game: str
    number: int = Field(ge=1)
    seed: str
    member: str
    member_name: str
    ai_seats: int = Field(0, ge=0, le=20)
    options: TableOptions = TableOptions()
    game_options: str | None = None
    lang: str | None = None
    """None: the game's default language."""
    setup: str | None = None
    """What the opener brings to their seat (the game's ``setup_model`` JSON)."""
    others: tuple[ArrangedSeat, ...] = ()
    """Members seated with the opener from the start (an arranged match); empty: a lobby others join."""
    start: bool = False
    """Start the game at once (an arranged match needs no lobby)."""


class JoinTable(_Action):
    kind: Literal["join"] = "join"
    member: str
    member_name: str
    setup: str | None = None


class LeaveTable(_Action):
    kind: Literal["leave"] = "leave"
    member: str
    left_server: bool = False
    """The member left the server (not just the table): said so in the thread."""


class SetAISeats(_Action):
    kind: Literal["ai"] = "ai"
    member: str
    count: int = Field(ge=0, le=20)
    moderator: bool = False


class StartTable(_Action):
    kind: Literal["start"] = "start"
    member: str
    moderator: bool = False


class PlayMove(_Action):
    kind: Literal["move"] = "move"
    member: str
    action: str
    """The engine's ``dump_action`` of the move."""
    moderator: bool = False
    """The member moderates the server (a referee's move may need it)."""


class TurnReminder(_Action):
    kind: Literal["remind"] = "remind"
    key: str | None = None
    """The clock reminded of; None (older logs): the turn clock."""


class TurnTimeout(_Action):
    kind: Literal["timeout"] = "timeout"
    key: str | None = None
    """The clock that ran out; None (older logs): the turn clock."""


class ExpireLobby(_Action):
    kind: Literal["expire"] = "expire"


class EndTable(_Action):
    kind: Literal["end"] = "end"
    member: str
    moderator: bool = False


TableAction = Annotated[
    OpenTable
    | JoinTable
    | LeaveTable
    | SetAISeats
    | StartTable
    | PlayMove
    | TurnReminder
    | TurnTimeout
    | ExpireLobby
    | EndTable,
    Field(discriminator="kind"),
]
ACTION_ADAPTER: TypeAdapter[TableAction] = TypeAdapter(TableAction)
