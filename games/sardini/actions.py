"""What a player does at a Sardini table, as typed, serialisable values (what an action log stores)."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter


class _Action(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class Draw(_Action):
    """The turn's Draw: one card after an attempt, else one more than the last Draw."""

    kind: Literal["draw"] = "draw"


class AttemptTrick(_Action):
    """Name a shown Trick and start performing it."""

    kind: Literal["attempt"] = "attempt"
    trick: int
    """The Trick's card."""
    confirm: bool = False
    """Attempting with an empty hand fails at once: it must be confirmed."""


class PlayMove(_Action):
    """Meet one Move of the Trick under way with a set of cards from the hand."""

    kind: Literal["move"] = "move"
    move: int
    """The Move's number on the card, from 1."""
    cards: tuple[int, ...]


class TakeExtra(_Action):
    """Draw the one extra card a completed Move allows."""

    kind: Literal["extra"] = "extra"


class SkipExtra(_Action):
    kind: Literal["noextra"] = "noextra"


class GiveUp(_Action):
    """Stop the attempt: the player is eliminated."""

    kind: Literal["giveup"] = "giveup"


class Encore(_Action):
    """After a success: flip the next Trick and attempt it at once."""

    kind: Literal["encore"] = "encore"
    confirm: bool = False
    """With an empty hand the Encore fails at once: it must be confirmed."""


class ActOver(_Action):
    """After a success: flip the next Trick and end the turn."""

    kind: Literal["over"] = "over"


SardiniAction = Annotated[
    Draw | AttemptTrick | PlayMove | TakeExtra | SkipExtra | GiveUp | Encore | ActOver, Field(discriminator="kind")
]
ACTION_ADAPTER: TypeAdapter[SardiniAction] = TypeAdapter(SardiniAction)
