"""The state of one guild's round: typed, immutable values that rule functions copy on change.

Collections are replaced, never mutated, so a transition can share everything it did not touch
with the state it came from, and an old state stays valid after a rejected or failed action.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Collection
from datetime import datetime
from enum import StrEnum
from typing import Any

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    SerializerFunctionWrapHandler,
    field_serializer,
    field_validator,
    model_serializer,
    model_validator,
)

from games.nomic.cards import CardField
from games.nomic.document import RuleDocument, default_document
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
    bid_ceiling: int = 0
    """At least the amount of the player's highest bid on any lot: an index, so that a loss of
    points that leaves every bid affordable need not look at the lots."""
    items: dict[str, int] = Field(default_factory=dict)
    """Items of the kinds the rules make (``games.nomic.rulelang``), by kind name; only kinds held."""

    def holding(self) -> Items:
        kinds = tuple(sorted(self.items.items()))
        return Items(points=self.points, cards=self.cards, spm=self.spm, kinds=kinds)


class Bid(_Value):
    """A bid that has not lapsed; a lapsed bid leaves its lot for good (the log keeps it)."""

    id: int
    lot: int
    player: str
    amount: int
    at: datetime


class LapsedBid(_Value):
    """A bid that stopped counting, with the reason the rules knew when it lapsed.

    Kept on its lot until the lot is settled, so the settlement can say why a higher bid lost.
    """

    id: int
    player: str
    name: str
    amount: int
    reason: str


class Seal(_Value):
    """A sealed bid as it was made: what its public hash commits to (``games.nomic.sealed``).

    Every sealed bid made on a lot stays here until the bids open, a replaced one too, so that
    every hash posted can be checked at the opening.
    """

    id: int
    """The bid's number (``Bid.id``)."""
    player: str
    name: str
    amount: int
    salt: str
    at: datetime


class Lot(_Value):
    number: int
    cards: tuple[CardField, ...]
    created_at: datetime
    created_by: str | None = None
    rolls: tuple[tuple[int, int], ...] = ()
    """The (d13, d4) faces rolled for each card; empty when a moderator placed the lot."""
    bids: tuple[Bid, ...] = ()
    lapsed: tuple[LapsedBid, ...] = ()
    """Bids that left ``bids`` for good, in the order they lapsed."""
    seals: tuple[Seal, ...] = ()
    """While bids are sealed: every sealed bid made on the lot, in the order they were made."""

    def lapse(self, ids: Collection[int], *, name: str, reason: str) -> Lot:
        """The lot with the bids ``ids`` moved from ``bids`` to ``lapsed``, with their reason."""
        gone = tuple(
            LapsedBid(id=b.id, player=b.player, name=name, amount=b.amount, reason=reason)
            for b in self.bids
            if b.id in ids
        )
        kept = tuple(b for b in self.bids if b.id not in ids)
        return self.model_copy(update={"bids": kept, "lapsed": (*self.lapsed, *gone)})


class TradeStatus(StrEnum):
    OPEN = "open"
    ACCEPTED = "accepted"
    DECLINED = "declined"
    CANCELLED = "cancelled"
    VOID = "void"
    EXPIRED = "expired"


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
    score: int | None = None
    """The hand's rank as one number (``hands.hand_score``), made when it was presented, so that
    placements sort thousands of hands without ranking each again. None in snapshots written
    before scores were kept: placements rank such a hand then."""
    ranked_under: str = ""
    """The ranking options ``score`` was made under (``hands.ranking_tag``); placements rank the
    hand again when the options in force are others (a moderator or a proposal changed them)."""


class PlacementRecord(_Value):
    place: int
    player: str
    name: str
    cards: tuple[CardField, ...]
    category: str
    coin_toss: bool = False
    prize: Items = Items()
    cards_returned: bool = False
    tie: tuple[int, int] | None = None
    """With ``coin_toss``: the first and last place of the equal hands the tosses put in order.
    None in records written before it was kept."""


class RulesetVersion(_Value):
    version: int
    ruleset: Ruleset
    at: datetime
    by: str
    """Who made it: ``initial``, ``moderator NAME`` or ``proposal ID``."""
    change: str = ""
    document: RuleDocument = Field(default_factory=default_document)
    """The rules' text of this version. Versions stored before the rules were a document have the
    default one, whose placeholders read as the version's options: the text they always meant."""

    @model_serializer(mode="wrap")
    def _default_left_out(self, handler: SerializerFunctionWrapHandler) -> Any:
        """The default document is not written: reading the version back gives it (so an archived version
        costs its text only when a server changed it)."""
        data = handler(self)
        if isinstance(data, dict) and _is_default(self.document):
            data.pop("document", None)
        return data


def _is_default(document: RuleDocument) -> bool:
    default = default_document()
    return document is default or document == default


def _with_document(version: dict[str, Any], document: Any) -> dict[str, Any]:
    """A stored version given the document in force (left out, for the default one, when that is None)."""
    rest = {k: v for k, v in version.items() if k != "document"}
    return rest if document is None else {**rest, "document": document}


class ProposalClass(StrEnum):
    URGENT = "urgent"
    STANDARD = "standard"


class ProposalStatus(StrEnum):
    PENDING = "pending"
    VOTING = "voting"
    PASSED = "passed"
    FAILED = "failed"
    RETRACTED = "retracted"

    @property
    def open(self) -> bool:
        return self in {ProposalStatus.PENDING, ProposalStatus.VOTING}


class Vote(StrEnum):
    FOR = "for"
    AGAINST = "against"


LEGACY_VARIANT = ""
"""The variant of a vote recorded before variants were kept (an old snapshot or logged action):
it is removed by the voter's removal of any variant of that vote, as it was then."""

Reaction = tuple[str, Vote, str]
"""A vote reaction on a message: (member id, vote, variant). The variant is the emoji as reacted,
skin tone included (``👍``, ``👍🏽``): a member may hold several variants of one vote, and the vote
stands while any of them remains."""


class Amendment(_Value):
    """One ``option = value`` line of a proposal's amend block."""

    option: str
    value: str


class ChangeKind(StrEnum):
    AMEND = "amend"
    REPLACE = "replace"
    REPEAL = "repeal"
    ENACT = "enact"


class TextChange(_Value):
    """One amendment line of a proposal (``games.nomic.amendments``): a change to the rules' text."""

    kind: ChangeKind
    rule: str
    text: str = ""
    """Amend and enact: the new text as written."""
    old: str = ""
    """Replace: the quoted text to replace ..."""
    new: str = ""
    """... and what replaces it."""
    title: str = ""
    """Enact: the new rule's title."""
    block: str | None = None
    """The ```rule block written right after the line (None: none; empty: an amended rule loses its block)."""
    line: int = 0
    """The line of the proposal it was read from (1 is the first)."""


class Proposal(_Value):
    number: int
    message: str
    author: str
    author_name: str
    text: str
    kind: ProposalClass
    status: ProposalStatus
    created_at: datetime
    voting_starts: datetime | None = None
    voting_ends: datetime | None = None
    """Known from submission for urgent proposals; standard ones end with the phase they vote in."""
    amendments: tuple[Amendment, ...] = ()
    changes: tuple[TextChange, ...] = ()
    """The amendment lines: changes to the rules' text, applied in order when the proposal passes."""
    votes_for: int = 0
    votes_against: int = 0
    decided_at: datetime | None = None
    note: str = ""
    paid_with: str = ""
    """The item kind a standard proposal spent in place of a Standard Proposal-Maker ("": one of those)."""
    preview: tuple[str, ...] = ()
    """What its rule blocks would have done over the week before it was made (``games.nomic.preview``)."""


class TodoItem(_Value):
    """What a passed proposal asks of the moderators because the bot does not enforce it (``!admin todo``)."""

    number: int
    proposal: int
    message: str
    """The proposal's message."""
    at: datetime
    lines: tuple[str, ...]
    """What to carry out, one thing a line, short: the proposal's text is in ``!proposals``."""
    done_at: datetime | None = None
    done_by: str = ""
    note: str = ""


class Candidacy(_Value):
    message: str
    author: str
    author_name: str
    at: datetime


class Ruling(_Value):
    judge: str
    judge_name: str
    text: str
    at: datetime


class ConfidenceVote(_Value):
    started_by: str
    started_at: datetime
    ends_at: datetime
    votes: dict[str, bool] = Field(default_factory=dict)
    """Player id to True for overturning, False for affirming; the last vote counts."""


class RequestStatus(StrEnum):
    OPEN = "open"
    ANSWERED = "answered"
    OVERTURNED = "overturned"


class JudgeRequest(_Value):
    number: int
    by: str
    by_name: str
    text: str
    at: datetime
    status: RequestStatus = RequestStatus.OPEN
    rulings: tuple[Ruling, ...] = ()
    """Every ruling on the request; the last one is in force (a judge may replace their own)."""
    confidence: ConfidenceVote | None = None
    """The vote of confidence running on the ruling in force, if any (one at a time)."""


class MemberNotices(_Value):
    """What a member chose to be told privately (``!notify``); kept by member, player or not."""

    outbid: bool = False
    """A DM when their highest bid on a lot is beaten or lapses (opt-in)."""
    reminders: bool = True
    """Personal reminders: a hand to present before placements, requests waiting for the judge (opt-out)."""


class OutbidItem(_Value):
    """One lot on which a player lost the lead, waiting to be told (notices are coalesced)."""

    lot: int
    amount: int
    """The player's bid that was beaten or lapsed."""
    lapsed: bool = False
    """True: the bid stopped counting (unaffordable); False: another bid beat it."""
    points: int | None = None
    """For a lapse: the points the player had left then."""


class SaleRecord(_Value):
    lot: int
    cards: tuple[CardField, ...]
    name: str
    amount: int


class WeekLog(_Value):
    """What the week's review needs and the state would otherwise forget before the week ends."""

    since: datetime | None = None
    """When the week began (None: when the round started)."""
    bids: int = 0
    """Bids accepted this week."""
    sales: tuple[SaleRecord, ...] = ()
    unsold: tuple[int, ...] = ()
    placed: bool = False
    """Placements were made this week (``RoundState.last_placements`` are this week's)."""


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
    document: RuleDocument = Field(default_factory=default_document)
    """The rules' text in force (the last version's). A snapshot writes it once, and not at all while it
    is the default one (``_documents_once``); versions that share it do not repeat it."""
    todos: dict[int, TodoItem] = Field(default_factory=dict)
    """The moderators' to-do list: open items, and done ones until the next week starts."""
    next_todo: int = 1
    moderators: frozenset[str] = frozenset()
    players: dict[str, Player] = Field(default_factory=dict)
    lots: dict[int, Lot] = Field(default_factory=dict)
    next_lot: int = 1
    """The number of the next lot: lots are numbered in order of creation and never reused.
    A snapshot written before this counter existed gets one on loading (``_lot_counter``)."""
    next_bid: int = 1
    sealed_bids: bool = False
    """Bids are secret now: the auction running takes sealed bids (``auction.sealed_bids`` as it was when
    the phase began); False again once they are opened at its end."""
    trades: dict[int, Trade] = Field(default_factory=dict)
    """Open trade offers."""
    open_offer_counts: dict[str, int] = Field(default_factory=dict, exclude=True)
    """Open offers by offerer: an index of ``trades``, kept by the trade rules so that an offer
    need not look at every other one, and rebuilt (not stored) when a snapshot is loaded."""
    closed_trades: dict[int, Trade] = Field(default_factory=dict)
    """Recently closed trades (at most a week's, and at most ``trades.MAX_CLOSED_TRADES``), so
    that a late answer to one is told what became of it; the action log keeps them all."""
    next_trade: int = 1
    hands: dict[str, PresentedHand] = Field(default_factory=dict)
    """Hands presented in the current bartering phase, by player id."""
    presented_this_phase: frozenset[str] = frozenset()
    last_placements: tuple[PlacementRecord, ...] = ()
    proposals: dict[str, Proposal] = Field(default_factory=dict)
    """By message id."""
    next_proposal: int = 1
    reactions: dict[str, frozenset[Reaction]] = Field(default_factory=dict)
    """Vote reactions present on tracked messages, by message id."""
    candidacies: dict[str, Candidacy] = Field(default_factory=dict)
    judge: str | None = None
    judge_name: str | None = None
    removal_assents: frozenset[str] = frozenset()
    requests: dict[int, JudgeRequest] = Field(default_factory=dict)
    next_request: int = 1
    notices: dict[str, MemberNotices] = Field(default_factory=dict)
    """Members' notice settings (``!notify``), only for those who changed a default."""
    outbid_pending: dict[str, tuple[OutbidItem, ...]] = Field(default_factory=dict)
    """Outbid notices not sent yet because the player had one less than a minute before."""
    outbid_sent: dict[str, datetime] = Field(default_factory=dict)
    """When each player was last sent an outbid notice, while that is under a minute ago (pruned at ticks)."""
    week: WeekLog = WeekLog()

    @field_validator("reactions", mode="before")
    @classmethod
    def _reactions_with_variants(cls, value: Any) -> Any:
        """Snapshots from before variants were kept hold (member, vote) pairs: they load as legacy votes."""
        if not isinstance(value, dict):
            return value
        return {
            message: [
                (*pair, LEGACY_VARIANT) if isinstance(pair, list | tuple) and len(pair) == 2 else pair
                for pair in present
            ]
            if isinstance(present, list | tuple | set | frozenset)
            else present
            for message, present in value.items()
        }

    @field_serializer("document", mode="wrap")
    def _document_once(self, document: RuleDocument, handler: SerializerFunctionWrapHandler) -> Any:
        """The rules' text in force, written once, and as ``null`` while it is the default one."""
        return None if _is_default(document) else handler(document)

    @field_serializer("ruleset_versions", mode="wrap")
    def _versions_share(self, versions: tuple[RulesetVersion, ...], handler: SerializerFunctionWrapHandler) -> Any:
        """A version whose (own) text is the one in force says so with a ``null`` document."""
        out = handler(versions)
        if isinstance(out, list) and not _is_default(self.document):
            for version, dumped in zip(versions, out, strict=True):
                shared = version.document is self.document or version.document == self.document
                if shared and isinstance(dumped, dict):
                    dumped["document"] = None
        return out

    @model_validator(mode="before")
    @classmethod
    def _documents_back(cls, data: Any) -> Any:
        """Undo what the serializers left out: a ``null`` (or missing) text in force is the default one, and a
        version with a ``null`` document has the one in force."""
        if not isinstance(data, dict) or ("document" not in data and "ruleset_versions" not in data):
            return data
        shared = data.get("document")
        data = {k: v for k, v in data.items() if k != "document" or v is not None}
        versions = data.get("ruleset_versions")
        sharing = isinstance(versions, list | tuple) and any(
            isinstance(v, dict) and v.get("document", 0) is None for v in versions
        )
        if sharing and isinstance(versions, list | tuple):
            data["ruleset_versions"] = [
                _with_document(v, shared) if isinstance(v, dict) and v.get("document", 0) is None else v
                for v in versions
            ]
        return data

    @model_validator(mode="before")
    @classmethod
    def _judge_is_a_player(cls, data: Any) -> Any:
        """Only players act: a judge who had stopped being a player (kept by older versions) is no judge."""
        if isinstance(data, dict) and data.get("judge") is not None and data["judge"] not in data.get("players", {}):
            return {**data, "judge": None, "judge_name": None, "removal_assents": []}
        return data

    @model_validator(mode="after")
    def _derived(self) -> RoundState:
        """Rebuild the offer index, and give a snapshot from before the lot counter its counter.

        Runs when a state is built or loaded, never on ``model_copy``, so it costs nothing per action.
        """
        counts = Counter(t.offerer for t in self.trades.values())
        object.__setattr__(self, "open_offer_counts", dict(counts))
        if "next_lot" not in self.model_fields_set:
            object.__setattr__(self, "next_lot", _lot_counter(self))
        return self

    @property
    def ruleset_version(self) -> int:
        return self.ruleset_versions[-1].version if self.ruleset_versions else 1

    def player(self, player_id: str) -> Player | None:
        return self.players.get(player_id)

    def trade(self, number: int) -> Trade | None:
        return self.trades.get(number) or self.closed_trades.get(number)

    def notices_of(self, member: str) -> MemberNotices:
        return self.notices.get(member, _DEFAULT_NOTICES)


_DEFAULT_NOTICES = MemberNotices()


def _lot_counter(state: RoundState) -> int:
    """Past every lot number a round may have used before the counter existed.

    That code gave a new lot the lowest free number, so it never used a number above the most
    lots an auction held under any ruleset version in force; continuing after that (or after a
    lot still there) never reuses a number. It may skip a few that were never used.
    """
    limits = [v.ruleset.auction.lots_per_auction for v in state.ruleset_versions]
    return max([state.ruleset.auction.lots_per_auction, *limits, *state.lots]) + 1
