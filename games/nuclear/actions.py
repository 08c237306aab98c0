"""The moves of a 關你核四 round as typed, serialisable values (what an action log stores)."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter


class _Action(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class Propose(_Action):
    """The speaker plays a card from hand face up as this round's proposal."""

    kind: Literal["propose"] = "propose"
    card: str


class Vote(_Action):
    """A secret vote: one card in the first vote, one or two placed face down in the second."""

    kind: Literal["vote"] = "vote"
    cards: tuple[str, ...]


class Abstain(_Action):
    """No card in the first vote (only when the table's option allows it)."""

    kind: Literal["abstain"] = "abstain"


class Give(_Action):
    """Cards from hand to another player, binding at once; which cards only the two see."""

    kind: Literal["give"] = "give"
    cards: tuple[str, ...]
    to: str


class Transfer(_Action):
    """A passed proposal moves to another player and scores for them."""

    kind: Literal["transfer"] = "transfer"
    card: str
    to: str


class Promise(_Action):
    """A promise of support, noted in the thread and never enforced."""

    kind: Literal["promise"] = "promise"
    to: str
    note: str = ""


class EndTalk(_Action):
    """The speaker ends the negotiation: the second vote begins."""

    kind: Literal["end"] = "end"


class Count(_Action):
    """The speaker counts "1, 2, 3": the window to reveal or withdraw opens."""

    kind: Literal["count"] = "count"


class Reveal(_Action):
    kind: Literal["reveal"] = "reveal"


class Withdraw(_Action):
    kind: Literal["withdraw"] = "withdraw"


NuclearAction = Annotated[
    Propose | Vote | Abstain | Give | Transfer | Promise | EndTalk | Count | Reveal | Withdraw,
    Field(discriminator="kind"),
]
ACTION_ADAPTER: TypeAdapter[NuclearAction] = TypeAdapter(NuclearAction)

SECRET_KINDS = frozenset({"vote", "abstain", "give", "reveal", "withdraw"})
"""Moves that name what others may not see yet (a vote, the cards of a gift, a reveal-or-withdraw)."""
MAX_NOTE = 120
