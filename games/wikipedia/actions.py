"""The moves of a Wikipedia turn as typed, serialisable values (what an action log stores)."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter

from games.wikipedia.cards import Article


class _Action(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class AddSection(_Action):
    """Play a fact and its support from hand as a new section of the fact's article."""

    kind: Literal["section"] = "section"
    fact: int
    support: int
    payment: int | None = None
    """The card a non-expert discards; None for the article's expert."""


class FixProblem(_Action):
    """Pick up a problem card from an article into one's hand."""

    kind: Literal["fix"] = "fix"
    card: int


class Protect(_Action):
    """Administrator only: semi-protect a GA, or fully protect an FA."""

    kind: Literal["protect"] = "protect"
    article: Article


class GiveCard(_Action):
    kind: Literal["give"] = "give"
    card: int
    to: str
    """The receiving seat."""


class PassHour(_Action):
    """Spend one hour doing nothing."""

    kind: Literal["pass"] = "pass"


class EndTurn(_Action):
    """Pass every hour left: the turn goes to the next player."""

    kind: Literal["end"] = "end"


WikipediaAction = Annotated[
    AddSection | FixProblem | Protect | GiveCard | PassHour | EndTurn, Field(discriminator="kind")
]
ACTION_ADAPTER: TypeAdapter[WikipediaAction] = TypeAdapter(WikipediaAction)
