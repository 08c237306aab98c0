"""A battle's moves as typed values: what a command means, what the table's log and the history store.

Cards are named by their number in the battle; players by ``P0``/``P1``. A target is either.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter

from games.ictc.battle.state import Adjustment


class _Act(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class Cut(_Act):
    kind: Literal["cut"] = "cut"
    at: int | None = None
    """Cards taken from the top to the bottom; None: wherever the shuffle falls."""


class PlayCard(_Act):
    """Play a card from the hand: a Power card (in Power-Up), a Soldier, an Action or a Flash."""

    kind: Literal["play"] = "play"
    card: int
    x: int = 0
    targets: tuple[str, ...] = ()


class TapPower(_Act):
    """Tap a Power card for its power (paying is automatic; this fills the pool by hand)."""

    kind: Literal["tap"] = "tap"
    card: int


class UseAbility(_Act):
    kind: Literal["use"] = "use"
    card: int
    targets: tuple[str, ...] = ()


class DeclareAttack(_Act):
    kind: Literal["attack"] = "attack"
    attacks: tuple[tuple[int, str], ...]
    """(attacker, target): the target a player (``P1``) or a Soldier's number as text."""


class DeclareBlocks(_Act):
    kind: Literal["block"] = "block"
    blocks: tuple[tuple[int, int], ...] = ()
    """(blocker, attacker); empty: no blocks."""


class SplitDamage(_Act):
    kind: Literal["split"] = "split"
    splits: tuple[tuple[int, tuple[tuple[str, int], ...]], ...] = ()
    """(dealer, ((victim, n), ...)) for the mover's Soldiers that fight several; empty: split automatically."""


class Pass(_Act):
    kind: Literal["pass"] = "pass"


class EndTurn(_Act):
    kind: Literal["end"] = "end"


class Discard(_Act):
    kind: Literal["discard"] = "discard"
    cards: tuple[int, ...]


class Propose(_Act):
    """Adjustments for the table that the bot cannot carry out itself; the opponent confirms them."""

    kind: Literal["adj"] = "adj"
    adjustments: tuple[Adjustment, ...]


class ProposeUndo(_Act):
    kind: Literal["undo"] = "undo"
    to: int
    """Back to the battle as it stood before action ``to``."""


class Confirm(_Act):
    kind: Literal["confirm"] = "confirm"


class Dispute(_Act):
    kind: Literal["dispute"] = "dispute"
    judge: str | None = None
    """A member who does not play here (an id); None: the server's moderators."""


class Withdraw(_Act):
    kind: Literal["withdraw"] = "withdraw"


class Rule(_Act):
    """The judge of a dispute decides: the proposal is carried out, or dropped."""

    kind: Literal["rule"] = "rule"
    uphold: bool


class Concede(_Act):
    kind: Literal["concede"] = "concede"


class Autopass(_Act):
    kind: Literal["autopass"] = "autopass"
    on: bool


BattleAction = Annotated[
    Cut
    | PlayCard
    | TapPower
    | UseAbility
    | DeclareAttack
    | DeclareBlocks
    | SplitDamage
    | Pass
    | EndTurn
    | Discard
    | Propose
    | ProposeUndo
    | Confirm
    | Dispute
    | Withdraw
    | Rule
    | Concede
    | Autopass,
    Field(discriminator="kind"),
]
ACTION_ADAPTER: TypeAdapter[BattleAction] = TypeAdapter(BattleAction)
