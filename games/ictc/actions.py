"""The card library's actions as typed values: what a command means, what the log records."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter


class _Act(BaseModel):
    model_config = ConfigDict(frozen=True)

    @property
    def changes_state(self) -> bool:
        return True


class _Ask(_Act):
    @property
    def changes_state(self) -> bool:
        return False


class NewCard(_Act):
    kind: Literal["card_new"] = "card_new"
    raw: dict[str, str]
    """The fields as typed (``name``, ``type``, ``cost``...), read against the server's palette and glossary."""


class EditCard(_Act):
    kind: Literal["card_edit"] = "card_edit"
    ref: str
    raw: dict[str, str]


class SubmitCard(_Act):
    kind: Literal["card_submit"] = "card_submit"
    ref: str
    guild: str | None = None


class AskGuild(_Act):
    kind: Literal["card_ask"] = "card_ask"
    ref: str
    guild: str


class ProtectCard(_Act):
    kind: Literal["card_protect"] = "card_protect"
    ref: str
    protect: bool = True


class JudgeCard(_Act):
    """Approve or reject a version (a button names its version; typed, the current one)."""

    kind: Literal["card_judge"] = "card_judge"
    ref: str
    approve: bool
    version: int | None = None
    reason: str = ""


class CommentCard(_Act):
    kind: Literal["card_comment"] = "card_comment"
    ref: str
    text: str
    version: int | None = None


class MintCopies(_Act):
    kind: Literal["card_mint"] = "card_mint"
    ref: str
    count: int = 1


class SaveDeck(_Act):
    kind: Literal["card_deck_save"] = "card_deck_save"
    name: str
    entries: tuple[str, ...]
    """``copy:12`` (one copy) or ``NAME xN`` (N of your copies of a design)."""


class DeleteDeck(_Act):
    kind: Literal["card_deck_delete"] = "card_deck_delete"
    name: str


class ClaimStarter(_Act):
    kind: Literal["card_starter"] = "card_starter"
    deck: str


class DefineKeyword(_Act):
    kind: Literal["card_keyword"] = "card_keyword"
    name: str
    text: str


class SetOption(_Act):
    kind: Literal["card_option"] = "card_option"
    key: str
    value: str


class Exclude(_Act):
    kind: Literal["card_exclude"] = "card_exclude"
    member: str
    ref: str
    exclude: bool = True


class ContestCard(_Act):
    kind: Literal["card_contest"] = "card_contest"
    ref: str
    text: str = ""


class DecideContest(_Act):
    kind: Literal["card_decide"] = "card_decide"
    number: int
    uphold: bool
    note: str = ""


class CreateGuild(_Act):
    kind: Literal["guild_create"] = "guild_create"
    name: str
    mode: str = "vote"
    settings: dict[str, str] = Field(default_factory=dict)


class JoinGuild(_Act):
    kind: Literal["guild_join"] = "guild_join"
    name: str


class LeaveGuild(_Act):
    kind: Literal["guild_leave"] = "guild_leave"
    name: str


class SetOfficer(_Act):
    kind: Literal["guild_officer"] = "guild_officer"
    name: str
    member: str
    add: bool = True


class GuildSettings(_Act):
    kind: Literal["guild_set"] = "guild_set"
    name: str
    settings: dict[str, str]


class CloseReview(_Act):
    """Scheduled work: a guild's vote on a version reaches its deadline."""

    kind: Literal["review_close"] = "review_close"
    design: int
    version: int


class CopyMove(BaseModel):
    model_config = ConfigDict(frozen=True)

    copy_id: int
    giver: str
    taker: str


class MoveCopies(_Act):
    """Copies change hands (a trade of the round settled, a kitty won): checked, then all or none."""

    kind: Literal["copies_move"] = "copies_move"
    moves: tuple[CopyMove, ...]
    reason: str = "trade"


class BeginBattle(_Act):
    """Two members' battle starts: their first meeting's exclusions are settled for good."""

    kind: Literal["battle_begin"] = "battle_begin"
    a: str
    b: str


class IssueChallenge(_Act):
    """A member challenges another to a battle with one of their play decks."""

    kind: Literal["challenge_issue"] = "challenge_issue"
    to: str
    deck: str | None = None
    """The challenger's play deck (None: their only playable one)."""
    ante: bool = True


class AnswerChallenge(_Act):
    """The challenged declines, or the challenger withdraws."""

    kind: Literal["challenge_answer"] = "challenge_answer"
    number: int | None = None
    answer: Literal["decline", "withdraw"]


class AcceptChallenge(_Act):
    """A challenge accepted: its battle's table opened, both decks' copies in it until it ends."""

    kind: Literal["challenge_accept"] = "challenge_accept"
    number: int
    deck: str
    table: str
    copies: tuple[int, ...]


class EndChallenge(_Act):
    """A challenge's battle ended: the kitty's copies (if any) to the winner, every copy free again."""

    kind: Literal["challenge_end"] = "challenge_end"
    table: str
    winner: str | None = None
    moves: tuple[CopyMove, ...] = ()


# --- questions -------------------------------------------------------------------------------


class ShowCard(_Ask):
    kind: Literal["card_show"] = "card_show"
    ref: str
    version: int | None = None


class CardHistory(_Ask):
    kind: Literal["card_history"] = "card_history"
    ref: str


class ListCards(_Ask):
    kind: Literal["card_list"] = "card_list"
    member: str | None = None
    which: Literal["all", "pending", "mine", "starter"] = "all"


class MasterDeck(_Ask):
    kind: Literal["card_master"] = "card_master"
    member: str | None = None


class ShowCopies(_Ask):
    kind: Literal["card_copies"] = "card_copies"
    member: str | None = None


class ShowDecks(_Ask):
    kind: Literal["card_decks"] = "card_decks"
    name: str | None = None


class ShowKeywords(_Ask):
    kind: Literal["card_keywords"] = "card_keywords"


class ShowOptions(_Ask):
    kind: Literal["card_options"] = "card_options"


class ShowStarter(_Ask):
    kind: Literal["card_starters"] = "card_starters"


class ShowGuilds(_Ask):
    kind: Literal["guild_list"] = "guild_list"
    name: str | None = None


class MeetMember(_Ask):
    kind: Literal["card_meet"] = "card_meet"
    member: str


class ShowContests(_Ask):
    kind: Literal["card_contests"] = "card_contests"


class ShowChallenges(_Ask):
    kind: Literal["challenge_list"] = "challenge_list"


class CardHelp(_Ask):
    kind: Literal["card_help"] = "card_help"
    topic: str = "card"


LibraryAction = Annotated[
    NewCard
    | EditCard
    | SubmitCard
    | AskGuild
    | ProtectCard
    | JudgeCard
    | CommentCard
    | MintCopies
    | SaveDeck
    | DeleteDeck
    | ClaimStarter
    | DefineKeyword
    | SetOption
    | Exclude
    | ContestCard
    | DecideContest
    | CreateGuild
    | JoinGuild
    | LeaveGuild
    | SetOfficer
    | GuildSettings
    | CloseReview
    | MoveCopies
    | BeginBattle
    | IssueChallenge
    | AnswerChallenge
    | AcceptChallenge
    | EndChallenge
    | ShowChallenges
    | ShowCard
    | CardHistory
    | ListCards
    | MasterDeck
    | ShowCopies
    | ShowDecks
    | ShowKeywords
    | ShowOptions
    | ShowStarter
    | ShowGuilds
    | MeetMember
    | ShowContests
    | CardHelp,
    Field(discriminator="kind"),
]

ACTION_ADAPTER: TypeAdapter[LibraryAction] = TypeAdapter(LibraryAction)
