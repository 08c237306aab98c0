"""What a checked rule block is: its rules (a trigger and what happens) and the item kinds it makes.

Plain frozen values, so a program compiled once can be shared by every guild and every tick.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum, StrEnum


class Trigger(StrEnum):
    """The moments a rule can react to, in the words ``docs/rule-language.md`` gives them."""

    AUCTION_STARTS = "an auction phase starts"
    AUCTION_ENDS = "an auction phase ends"
    BARTERING_STARTS = "a bartering phase starts"
    PLACEMENTS = "placements are made"
    PLAYER_JOINS = "a player joins"
    PLAYER_LEAVES = "a player leaves"
    HAND_PRESENTED = "a hand is presented"
    LOT_WON = "a lot is won"
    PROPOSAL_PASSES = "a proposal passes"
    PROPOSAL_FAILS = "a proposal fails"
    RULING_MADE = "a ruling is made"
    WEEK_ENDS = "the week ends"


class Role(StrEnum):
    """Whom a rule names: one player the occasion makes known, or each player of a quantifier."""

    PLAYER = "the player"
    JUDGE = "the judge"
    PROPOSER = "the proposer"
    WINNER = "the winner"
    EACH = "each player"


ROLES_OF: dict[Trigger, frozenset[Role]] = {
    trigger: frozenset({Role.JUDGE} | extra)
    for trigger, extra in (
        (Trigger.AUCTION_STARTS, set()),
        (Trigger.AUCTION_ENDS, set()),
        (Trigger.BARTERING_STARTS, set()),
        (Trigger.PLACEMENTS, set()),
        (Trigger.PLAYER_JOINS, {Role.PLAYER}),
        (Trigger.PLAYER_LEAVES, {Role.PLAYER}),
        (Trigger.HAND_PRESENTED, {Role.PLAYER}),
        (Trigger.LOT_WON, {Role.PLAYER, Role.WINNER}),
        (Trigger.PROPOSAL_PASSES, {Role.PLAYER, Role.PROPOSER}),
        (Trigger.PROPOSAL_FAILS, {Role.PLAYER, Role.PROPOSER}),
        (Trigger.RULING_MADE, {Role.PLAYER}),
        (Trigger.WEEK_ENDS, set()),
    )
}
"""The single players each trigger makes known (the judge is known at every one, when there is one)."""


class Compare(Enum):
    EXACTLY = "exactly"
    AT_LEAST = "at least"
    AT_MOST = "at most"
    MORE_THAN = "more than"
    FEWER_THAN = "fewer than"
    NOT = "not"


POINTS = "points"
SPM = "Standard Proposal-Maker"
"""The two item names every rule knows; any other is a kind a rule makes."""


class Use(StrEnum):
    """What an item kind a rule makes is good for."""

    TOKEN = "a token"  # noqa: S105 - a kind of item, not a secret
    """Nothing of its own: players hold, give and trade it, and rules count it."""
    PROPOSAL_MAKER = "works as a Standard Proposal-Maker"
    """A standard proposal may spend one in place of a Standard Proposal-Maker."""
    REDEEMABLE = "can be redeemed for points"
    """``!use NAME`` turns one into its points."""


@dataclass(frozen=True, slots=True)
class ItemKind:
    name: str
    use: Use
    points: int = 0
    """For ``REDEEMABLE``: the points one item is redeemed for."""

    def describe(self) -> str:
        if self.use is Use.REDEEMABLE:
            return f"can be redeemed for {self.points} point{'s' if self.points != 1 else ''} (`!use {self.name}`)"
        if self.use is Use.TOKEN:
            return "a token: no use of its own; players hold, give and trade it, and rules count it"
        return str(self.use)


# --- conditions -----------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Every:
    """Each player (in the order of their ids), or each one the condition holds for."""

    who: Cond | None = None


Who = Role | Every


@dataclass(frozen=True, slots=True)
class Holds:
    subject: Role
    item: str
    compare: Compare
    count: int


@dataclass(frozen=True, slots=True)
class IsRole:
    subject: Role
    role: Role


@dataclass(frozen=True, slots=True)
class BidOn:
    """The number of lots the subject bid on in this auction phase."""

    subject: Role
    compare: Compare
    count: int


@dataclass(frozen=True, slots=True)
class Placed:
    """The subject's place in the latest placements; ``place`` 0 with ``EXACTLY``: no place at all."""

    subject: Role
    compare: Compare
    place: int


@dataclass(frozen=True, slots=True)
class CategoryIs:
    compare: Compare
    category: int
    """``games.nomic.hands.Category``'s value."""


@dataclass(frozen=True, slots=True)
class PhaseIs:
    phase: str


@dataclass(frozen=True, slots=True)
class PlayerCount:
    compare: Compare
    count: int


@dataclass(frozen=True, slots=True)
class AmountIs:
    compare: Compare
    count: int


@dataclass(frozen=True, slots=True)
class Not:
    inner: Cond


@dataclass(frozen=True, slots=True)
class AllOf:
    parts: tuple[Cond, ...]


@dataclass(frozen=True, slots=True)
class AnyOf:
    parts: tuple[Cond, ...]


Cond = Holds | IsRole | BidOn | Placed | CategoryIs | PhaseIs | PlayerCount | AmountIs | Not | AllOf | AnyOf


# --- statements -----------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Gain:
    who: Who
    item: str
    count: int


@dataclass(frozen=True, slots=True)
class Lose:
    who: Who
    item: str
    count: int


@dataclass(frozen=True, slots=True)
class Give:
    giver: Who
    receiver: Who
    item: str
    count: int


@dataclass(frozen=True, slots=True)
class Announce:
    text: str


@dataclass(frozen=True, slots=True)
class If:
    condition: Cond
    then: tuple[Stmt, ...]
    otherwise: tuple[Stmt, ...] = ()


Stmt = Gain | Lose | Give | Announce | If


@dataclass(frozen=True, slots=True)
class Rule:
    trigger: Trigger
    body: tuple[Stmt, ...]
    line: int


@dataclass(frozen=True, slots=True)
class Cost:
    """An upper bound on the steps of one run: ``fixed`` plus ``per_player`` for each player."""

    fixed: int = 0
    per_player: int = 0

    def at(self, players: int) -> int:
        return self.fixed + self.per_player * players

    def __add__(self, other: Cost) -> Cost:
        return Cost(self.fixed + other.fixed, self.per_player + other.per_player)


@dataclass(frozen=True, slots=True)
class Program:
    source: str
    rules: tuple[Rule, ...]
    kinds: tuple[ItemKind, ...] = ()
    costs: tuple[Cost, ...] = ()
    """Each rule's bound on its steps, in the order of ``rules``."""

    @property
    def triggers(self) -> frozenset[Trigger]:
        return frozenset(r.trigger for r in self.rules)
