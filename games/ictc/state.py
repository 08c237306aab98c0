"""The library of one server: designs with their versions and approvals, copies, play decks, guilds,
first meetings, contests, the glossary and the server's options. Values only; the transitions live
in ``forge``, ``approvals``, ``guilds``, ``copies`` and ``meetings``.

Each collection is a dict of frozen values; a transition copies a dict only when it changes it and
replaces only the values it changes, so the store can write exactly the rows that changed (a value
that is not the very same object as before).
"""

from __future__ import annotations

from datetime import datetime
from enum import StrEnum

from pydantic import BaseModel, ConfigDict, Field

from games.ictc.cards import CardFields, Keyword
from games.ictc.palette import Palette

STARTER = "~starter"
"""The owner of the starter set's designs (no member id looks like this)."""


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True)


class DesignStatus(StrEnum):
    DRAFT = "draft"
    """Private to its maker; the only time it may be protected."""
    PENDING = "pending"
    """Shown to everyone; waiting for approvals."""
    APPROVED = "approved"
    BLOCKED = "blocked"
    """Moderators upheld a protector's contest: no new copies, no play deck takes it."""


class Verdict(_Frozen):
    """A member's approval or rejection of one version (their latest counts)."""

    member: str
    approve: bool
    at: datetime
    reason: str = ""


class Comment(_Frozen):
    member: str
    text: str
    at: datetime


class GuildMode(StrEnum):
    VOTE = "vote"
    """Members vote until a deadline; a majority with a quorum approves."""
    COMMITTEE = "committee"
    """Any k officers approve."""


class ReviewStatus(StrEnum):
    OPEN = "open"
    PASSED = "passed"
    FAILED = "failed"
    CLOSED = "closed"
    """The version was replaced (or blocked) before the guild decided."""


class Review(_Frozen):
    """A guild asked to approve one version."""

    guild: str
    """The guild's key (its name in lower case)."""
    mode: GuildMode
    opened_at: datetime
    deadline: datetime | None = None
    """Vote mode: when the votes are counted (scheduled work)."""
    status: ReviewStatus = ReviewStatus.OPEN
    yes: int = 0
    no: int = 0
    closed_at: datetime | None = None


class Near(_Frozen):
    """Another design close to this one, as the similarity check found it."""

    design: int
    name: str
    owner: str
    score: float
    protected: bool = False


class Version(_Frozen):
    number: int
    fields: CardFields
    made_at: datetime
    warnings: tuple[str, ...] = ()
    nearest: tuple[Near, ...] = ()
    flags: tuple[Near, ...] = ()
    """Close (but not too close) to another player's protected design: every approver sees it."""
    assessed: bool = False
    """Compared with the library (at submission, or when a submitted design is edited)."""
    verdicts: tuple[Verdict, ...] = ()
    comments: tuple[Comment, ...] = ()
    review: Review | None = None
    approved_by: str | None = None
    """``players``, ``guild:NAME``, or ``the starter set``; None while not approved."""
    approved_at: datetime | None = None

    @property
    def approvals(self) -> tuple[str, ...]:
        return tuple(v.member for v in self.verdicts if v.approve)

    @property
    def rejections(self) -> tuple[Verdict, ...]:
        return tuple(v for v in self.verdicts if not v.approve)


class Design(_Frozen):
    """A card a member made: every version, the latest in force."""

    id: int
    owner: str
    status: DesignStatus = DesignStatus.DRAFT
    protected: bool = False
    ever_unprotected: bool = False
    """Unprotecting is for good: such a design is never protected again."""
    versions: tuple[Version, ...]
    created_at: datetime
    minted: int = 0
    """Copies minted so far (the option ``mint_limit`` bounds it)."""

    @property
    def current(self) -> Version:
        return self.versions[-1]

    @property
    def name(self) -> str:
        return self.current.fields.name

    @property
    def visible(self) -> bool:
        """Seen by everyone (a draft only by its maker)."""
        return self.status is not DesignStatus.DRAFT

    def version(self, number: int) -> Version | None:
        return self.versions[number - 1] if 1 <= number <= len(self.versions) else None

    def public(self, version: Version) -> bool:
        """Whether everyone may see ``version``: the one submitted and every later one. The versions
        a design had while it was a draft stay its maker's, after it is shown too."""
        return self.visible and version.assessed


class Copy(_Frozen):
    """One printed card: a design at the version it was minted, owned by a member."""

    id: int
    design: int
    version: int
    owner: str
    minted_at: datetime
    origin: str = "mint"
    """``mint``, ``starter`` (a starter deck), or how it last changed hands (``trade``, ``kitty``)."""


class Deck(_Frozen):
    """A play deck: a named list of a member's copies."""

    owner: str
    name: str
    copies: tuple[int, ...]
    saved_at: datetime


class CardGuild(_Frozen):
    name: str
    mode: GuildMode
    members: tuple[str, ...]
    officers: tuple[str, ...]
    created_by: str
    created_at: datetime
    quorum: int = 3
    """Vote mode: votes needed for a decision."""
    hours: int = 48
    """Vote mode: how long a vote runs."""
    committee: int = 2
    """Committee mode: officers whose approval suffices."""


class Exclusion(_Frozen):
    by: str
    design: int
    at: datetime


class Meeting(_Frozen):
    """Two members before their first battle: each may exclude designs of the other's."""

    a: str
    b: str
    exclusions: tuple[Exclusion, ...] = ()
    met_at: datetime | None = None
    """When their first battle began: exclusions no longer change after it."""


class ContestStatus(StrEnum):
    OPEN = "open"
    UPHELD = "upheld"
    DISMISSED = "dismissed"


class Contest(_Frozen):
    number: int
    design: int
    version: int
    by: str
    protected_design: int
    score: float
    text: str
    at: datetime
    status: ContestStatus = ContestStatus.OPEN
    decided_by: str | None = None
    decided_at: datetime | None = None
    note: str = ""


class ChallengeStatus(StrEnum):
    OPEN = "open"
    DECLINED = "declined"
    WITHDRAWN = "withdrawn"
    PLAYING = "playing"
    """Accepted: its battle is under way and both decks' copies stay in it."""
    OVER = "over"


class Challenge(_Frozen):
    """One member's challenge to another, and the battle it became."""

    number: int
    by: str
    to: str
    deck: str
    """The challenger's play deck."""
    deck_size: int
    ante: bool
    at: datetime
    status: ChallengeStatus = ChallengeStatus.OPEN
    their_deck: str | None = None
    table: str | None = None
    copies: tuple[int, ...] = ()
    """Both decks' copies while the battle is under way (they change hands only by its kitty)."""
    winner: str | None = None
    kitty: tuple[int, ...] = ()
    """The copies the winner took."""
    closed_at: datetime | None = None


class ApprovalMode(StrEnum):
    EITHER = "either"
    PLAYERS = "players"
    GUILD = "guild"


class LibraryOptions(BaseModel):
    """The server's options of the card library (⚙), changed by moderators with ``!card option``."""

    model_config = ConfigDict(frozen=True, use_attribute_docstrings=True)

    palette: Palette = Palette.CLASSIC
    """The colours of power: classic (R G K W B P), bright (R G B P Y O) or colourless (R G K W B C)."""
    approval: ApprovalMode = ApprovalMode.EITHER
    """Who approves a card: enough players, a guild, or either."""
    approvals_needed: int = Field(2, ge=1, le=10)
    """Distinct members other than the maker whose approval suffices."""
    deck_min: int = Field(30, ge=1, le=200)
    """The fewest cards a play deck holds."""
    max_protected: int = Field(3, ge=0, le=10)
    """Designs a member may protect at once."""
    mint_limit: int = Field(20, ge=1, le=200)
    """Copies a maker may mint of one design, ever."""
    block_at: float = Field(0.85, ge=0.0, le=1.0)
    """Similarity to another member's protected design at which a submission is refused."""
    flag_at: float = Field(0.6, ge=0.0, le=1.0)
    """Similarity to another member's protected design at which a submission is flagged for approvers."""
    starter_claims: int = Field(1, ge=0, le=10)
    """Starter decks each member may claim."""
    max_exclusions: int = Field(10, ge=0, le=100)
    """Designs a member may exclude at a first meeting."""


OPTION_HELP: dict[str, str] = {
    name: (field.description or "").split("\n")[0] for name, field in LibraryOptions.model_fields.items()
}


class Member(_Frozen):
    id: str
    name: str
    starter_decks: tuple[str, ...] = ()


class Meta(_Frozen):
    options: LibraryOptions = LibraryOptions()
    next_design: int = 1
    next_copy: int = 1
    next_contest: int = 1
    next_challenge: int = 1
    keywords: dict[str, Keyword] = Field(default_factory=dict)
    """Keywords the server's members defined (text only), by lower-case name; the starter ones are data."""
    seq: int = 0
    """Actions applied: one more with every commit."""


class LibraryState(_Frozen):
    meta: Meta = Meta()
    designs: dict[int, Design] = Field(default_factory=dict)
    copies: dict[int, Copy] = Field(default_factory=dict)
    decks: dict[str, Deck] = Field(default_factory=dict)
    guilds: dict[str, CardGuild] = Field(default_factory=dict)
    meetings: dict[str, Meeting] = Field(default_factory=dict)
    contests: dict[int, Contest] = Field(default_factory=dict)
    members: dict[str, Member] = Field(default_factory=dict)
    challenges: dict[int, Challenge] = Field(default_factory=dict)

    @property
    def options(self) -> LibraryOptions:
        return self.meta.options

    def name_of(self, member: str) -> str:
        if member == STARTER:
            return "the starter set"
        found = self.members.get(member)
        return found.name if found is not None else member

    def in_battle(self, copy: int) -> Challenge | None:
        """The challenge whose battle holds ``copy`` now, if any."""
        return next(
            (c for c in self.challenges.values() if c.status is ChallengeStatus.PLAYING and copy in c.copies), None
        )

    def copies_of(self, member: str) -> list[Copy]:
        return sorted((c for c in self.copies.values() if c.owner == member), key=lambda c: c.id)


COLLECTIONS = ("designs", "copies", "decks", "guilds", "meetings", "contests", "members", "challenges")
"""The state's collections, each stored a row per value."""


def deck_key(owner: str, name: str) -> str:
    return f"{owner}\n{' '.join(name.split()).casefold()}"


def meeting_key(a: str, b: str) -> str:
    first, second = sorted((a, b))
    return f"{first}\n{second}"
