"""The state of one guild's round: typed, immutable values that rule functions copy on change.

Collections are replaced, never mutated, so a transition can share everything it did not touch
with the state it came from, and an old state stays valid after a rejected or failed action.
"""

from __future__ import annotations

from datetime import datetime
from enum import StrEnum

from pydantic import BaseModel, ConfigDict, Field

from games.nomic.cards import CardField
from games.nomic.items import Items
from games.nomic.phases import Phase
from games.nomic.ruleset import Ruleset


class _Value(BaseModel):
    model_config = ConfigDict(frozen=True)


class Player(_Value):
    id: str
    name: str
    points: int = 0
    cards: tuple[CardField, ...] = ()
    spm: int = 0
    joined_at: datetime

    def holding(self) -> Items:
        return Items(points=self.points, cards=self.cards, spm=self.spm)


class Bid(_Value):
    id: int
    lot: int
    player: str
    amount: int
    at: datetime
    valid: bool = True


class Lot(_Value):
    number: int
    cards: tuple[CardField, ...]
    created_at: datetime
    created_by: str | None = None
    rolls: tuple[tuple[int, int], ...] = ()
    """The (d13, d4) faces rolled for each card; empty when a moderator placed the lot."""
    bids: tuple[Bid, ...] = ()


class TradeStatus(StrEnum):
    OPEN = "open"
    ACCEPTED = "accepted"
    DECLINED = "declined"
    CANCELLED = "cancelled"
    VOID = "void"


class Trade(_Value):
    number: int
    offerer: str
    target: str
    give: Items
    get: Items
    created_at: datetime
    status: TradeStatus = TradeStatus.OPEN
    closed_at: datetime | None = None


class PresentedHand(_Value):
    player: str
    cards: tuple[CardField, ...]
    at: datetime


class PlacementRecord(_Value):
    place: int
    player: str
    name: str
    cards: tuple[CardField, ...]
    category: str
    coin_toss: bool = False
    prize: Items = Items()
    cards_returned: bool = False


class RulesetVersion(_Value):
    version: int
    ruleset: Ruleset
    at: datetime
    by: str
    """Who made it: ``initial``, ``moderator NAME`` or ``proposal ID``."""
    change: str = ""


class RoundState(_Value):
    """Everything the rules need; the store keeps it as snapshots plus the action log."""

    guild: str
    started_at: datetime
    clock: datetime
    """The last instant whose scheduled work has been applied; never moves backwards."""
    seq: int = 0
    phase: Phase = Phase.AUCTION
    presenting_open: bool = False
    """True from the bartering phase's start until its placements."""
    """How many logged actions produced this state."""
    seed: str = ""
    ruleset: Ruleset
    ruleset_versions: tuple[RulesetVersion, ...] = ()
    moderators: frozenset[str] = frozenset()
    players: dict[str, Player] = Field(default_factory=dict)
    lots: dict[int, Lot] = Field(default_factory=dict)
    next_bid: int = 1
    trades: dict[int, Trade] = Field(default_factory=dict)
    next_trade: int = 1
    hands: dict[str, PresentedHand] = Field(default_factory=dict)
    """Hands presented in the current bartering phase, by player id."""
    presented_this_phase: frozenset[str] = frozenset()
    last_placements: tuple[PlacementRecord, ...] = ()

    @property
    def ruleset_version(self) -> int:
        return self.ruleset_versions[-1].version if self.ruleset_versions else 1

    def player(self, player_id: str) -> Player | None:
        return self.players.get(player_id)
