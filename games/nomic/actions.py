"""The actions of the round as typed, serialisable values: what the log stores and replays.

Randomness is not part of an action: the engine draws it from an RNG seeded by the guild's
stored seed and the action's sequence number, so a replay of the log rolls the same dice.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter

from games.nomic.cards import CardField
from games.nomic.items import Items
from games.nomic.phases import BoundaryKind, Phase, ReminderKind
from games.nomic.ruleset import Ruleset
from games.nomic.state import LEGACY_VARIANT, Vote


class _Action(BaseModel):
    model_config = ConfigDict(frozen=True)

    @property
    def changes_state(self) -> bool:
        return True


class _Query(_Action):
    @property
    def changes_state(self) -> bool:
        return False


class StartRound(_Action):
    """Opens a guild's round; the scheduler supplies the phase the round starts in."""

    kind: Literal["start_round"] = "start_round"
    ruleset: Ruleset
    phase: Phase
    presenting_open: bool
    moderators: tuple[str, ...] = ()


class Join(_Action):
    kind: Literal["join"] = "join"


class Leave(_Action):
    kind: Literal["leave"] = "leave"
    left_server: bool = False


class PlaceBid(_Action):
    kind: Literal["bid"] = "bid"
    lot: int
    amount: int


class GenerateLot(_Action):
    kind: Literal["generate"] = "generate"


class PresentHand(_Action):
    kind: Literal["present"] = "present"
    cards: tuple[CardField, ...]


class OfferTrade(_Action):
    kind: Literal["offer"] = "offer"
    target: str
    give: Items
    get: Items


class AcceptTrade(_Action):
    kind: Literal["accept"] = "accept"
    number: int


class DeclineTrade(_Action):
    kind: Literal["decline"] = "decline"
    number: int


class CancelTrade(_Action):
    kind: Literal["cancel"] = "cancel"
    number: int


class AdminGive(_Action):
    kind: Literal["admin_give"] = "admin_give"
    target: str
    items: Items


class AdminTake(_Action):
    kind: Literal["admin_take"] = "admin_take"
    target: str
    items: Items


class AdminLot(_Action):
    kind: Literal["admin_lot"] = "admin_lot"
    cards: tuple[CardField, ...]


class AdminSet(_Action):
    kind: Literal["admin_set"] = "admin_set"
    option: str
    value: str


class ImportRuleset(_Action):
    """A moderator's own ruleset document (Markdown), in force as a new version."""

    kind: Literal["ruleset_import"] = "ruleset_import"
    text: str


class CloseTodo(_Action):
    """``!admin done N [NOTE]``: a moderator carried out an item of the to-do list."""

    kind: Literal["todo_done"] = "todo_done"
    number: int
    note: str = ""


class Propose(_Action):
    """A player's message in #proposals.

    ``window_starts`` and ``window_ends``: the phase a standard proposal would vote through, as the
    calendar in force gives it, filled in by the adapter (the rules never read a calendar). They
    only shape the answer; the vote itself opens and closes with the phase changes.
    """

    kind: Literal["propose"] = "propose"
    message: str
    text: str
    window_starts: datetime | None = None
    window_ends: datetime | None = None
    preview: tuple[str, ...] | None = None
    """What its rule blocks would have done over the last week (``games.nomic.preview``), worked out from
    the log by the round's service when the proposal is made (None: not worked out) and logged with it."""


class Stand(_Action):
    """A player's message in #judge-elections: a candidacy."""

    kind: Literal["stand"] = "stand"
    message: str
    text: str


class React(_Action):
    """A vote reaction added to or removed from a tracked message."""

    kind: Literal["react"] = "react"
    message: str
    vote: Vote
    added: bool = True
    variant: str = LEGACY_VARIANT
    """The emoji as reacted (``👍🏽``); actions logged before variants were kept have none."""


class EditMessage(_Action):
    kind: Literal["edit"] = "edit"
    message: str
    text: str


class DeleteMessage(_Action):
    kind: Literal["delete"] = "delete"
    message: str


class MakeRequest(_Action):
    kind: Literal["request"] = "request"
    text: str


class GiveRuling(_Action):
    kind: Literal["rule"] = "rule"
    number: int
    text: str


class Challenge(_Action):
    kind: Literal["overturn"] = "overturn"
    number: int


class CastConfidence(_Action):
    kind: Literal["confidence"] = "confidence"
    number: int
    overturn: bool


class AssentRemoval(_Action):
    kind: Literal["remove_judge"] = "remove_judge"


class Resign(_Action):
    kind: Literal["resign"] = "resign"


class UseItem(_Action):
    """``!use NAME``: redeem items of a kind a rule makes for their points."""

    kind: Literal["use"] = "use"
    item: str
    count: int = 1


class SetNotice(_Action):
    """``!notify outbid on``: a member's choice of what they are told privately."""

    kind: Literal["notify"] = "notify"
    notice: Literal["outbid", "reminders"]
    on: bool


class CalendarReminder(BaseModel):
    """A reminder whose deadline the calendar sets, handed to the rules with the tick at its instant
    (the rules never read a calendar, as with ``Tick.boundaries``)."""

    model_config = ConfigDict(frozen=True)

    kind: ReminderKind
    deadline: datetime
    hours: int

    @property
    def at(self) -> datetime:
        return self.deadline - timedelta(hours=self.hours)


class Tick(_Action):
    """Scheduled work due at ``at`` (phase boundaries and the like)."""

    kind: Literal["tick"] = "tick"
    at: datetime
    boundaries: tuple[BoundaryKind, ...] = ()
    phase_ends_at: datetime | None = None
    """When the phase in force after this tick ends, for the announcement."""
    reminders: tuple[CalendarReminder, ...] = ()
    """Reminders of calendar deadlines falling at ``at`` (those of the state's own deadlines, such as a
    vote of confidence, the rules find themselves)."""


class ShowInventory(_Query):
    kind: Literal["inventory"] = "inventory"
    target: str | None = None


class ShowLots(_Query):
    kind: Literal["lots"] = "lots"


class ShowPhase(_Query):
    kind: Literal["phase"] = "phase"


class ShowRuleset(_Query):
    """``!ruleset``: the contents; ``!ruleset 4.2``: one rule; ``!ruleset options``: every option."""

    kind: Literal["ruleset"] = "ruleset"
    rule: str | None = None
    options: bool = False


class ShowTrades(_Query):
    kind: Literal["trades"] = "trades"


class ShowRulesetHistory(_Query):
    kind: Literal["ruleset_history"] = "ruleset_history"
    page: int = Field(1, ge=1)
    rule: str | None = None
    """One rule's history: each version that changed what it says."""


class ShowRulesetDiff(_Query):
    kind: Literal["ruleset_diff"] = "ruleset_diff"
    old: int
    new: int


class ShowProposals(_Query):
    kind: Literal["proposals"] = "proposals"
    page: int = Field(1, ge=1)


class ShowRulings(_Query):
    kind: Literal["rulings"] = "rulings"
    page: int = Field(1, ge=1)


class ShowPlacements(_Query):
    kind: Literal["placements"] = "placements"
    page: int = Field(1, ge=1)


class ShowHelp(_Query):
    kind: Literal["help"] = "help"


class ShowNotices(_Query):
    kind: Literal["notices"] = "notices"


MOD_LOG_SHOWN = 10
MOD_LOG_MOST = 50


class ShowModLog(_Query):
    kind: Literal["mod_log"] = "mod_log"
    count: int = Field(MOD_LOG_SHOWN, ge=1, le=MOD_LOG_MOST)


class ShowTodo(_Query):
    """``!admin todo [PAGE]``: the moderators' open to-do items."""

    kind: Literal["todo"] = "todo"
    page: int = Field(1, ge=1)


Action = Annotated[
    StartRound
    | Join
    | Leave
    | PlaceBid
    | GenerateLot
    | PresentHand
    | OfferTrade
    | AcceptTrade
    | DeclineTrade
    | CancelTrade
    | AdminGive
    | AdminTake
    | AdminLot
    | AdminSet
    | ImportRuleset
    | CloseTodo
    | Propose
    | Stand
    | React
    | EditMessage
    | DeleteMessage
    | MakeRequest
    | GiveRuling
    | Challenge
    | CastConfidence
    | AssentRemoval
    | Resign
    | SetNotice
    | UseItem
    | Tick
    | ShowInventory
    | ShowLots
    | ShowPhase
    | ShowRuleset
    | ShowTrades
    | ShowRulesetHistory
    | ShowRulesetDiff
    | ShowProposals
    | ShowRulings
    | ShowPlacements
    | ShowHelp
    | ShowNotices
    | ShowModLog
    | ShowTodo,
    Field(discriminator="kind"),
]

MODERATION = (AdminGive, AdminTake, AdminLot, AdminSet, ImportRuleset, CloseTodo)
"""Moderators' corrections: each one accepted is kept in the moderators' log."""

ACTION_ADAPTER: TypeAdapter[Action] = TypeAdapter(Action)
