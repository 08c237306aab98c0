"""The ruleset as data: every point the rule text leaves open is a named option with a default.

A guild's ruleset is stored with a version history; a passed amendment or a moderator's
``!admin set`` makes a new version. Option paths such as ``auction.lots_per_auction`` are what
amendments and ``!admin set`` name.
"""

from __future__ import annotations

import re
import tomllib
from enum import StrEnum
from pathlib import Path
from typing import Annotated, Any

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    ValidationError,
    ValidationInfo,
    field_validator,
    model_validator,
)

from games.nomic.errors import BadInputError, UnknownError

RULESETS_DIR = Path(__file__).resolve().parents[2] / "data" / "rulesets"


class _Part(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid", validate_default=True)


class Weekday(StrEnum):
    MONDAY = "monday"
    TUESDAY = "tuesday"
    WEDNESDAY = "wednesday"
    THURSDAY = "thursday"
    FRIDAY = "friday"
    SATURDAY = "saturday"
    SUNDAY = "sunday"

    @property
    def python_weekday(self) -> int:
        """Python's weekday number (Monday is 0)."""
        return _WEEKDAY_NUMBERS[self]


_WEEKDAY_NUMBERS = {day: number for number, day in enumerate(Weekday)}


class Calendar(_Part):
    week_start: Weekday = Field(Weekday.SUNDAY, description="the day (00:00 UTC) each week and its auction start")
    auction_days: int = Field(4, ge=1, le=6, description="days of the auction phase; the rest is bartering")
    placement_hours_before_end: int = Field(
        24, ge=1, le=144, description="hours before the bartering phase ends that placements are made"
    )


class UnsoldLots(StrEnum):
    CARRY_OVER = "carry_over"
    DISCARD = "discard"


class Auction(_Part):
    lots_per_auction: int = Field(6, ge=1, le=25, description="how many lots an auction holds")
    cards_per_lot: int = Field(2, ge=1, le=10, description="how many cards make a lot")
    weekly_points: int = Field(100, ge=0, le=1_000_000, description="points each player gains at each auction start")
    starting_points: int = Field(0, ge=0, le=1_000_000, description="points a new player starts with")
    revive_bids: bool = Field(
        default=False, description="a bid that became unaffordable counts again once it is affordable"
    )
    unsold_lots: UnsoldLots = Field(UnsoldLots.CARRY_OVER, description="what happens to lots nobody validly bid on")
    sealed_bids: bool = Field(
        default=False,
        description="bids are sealed: sent by DM or /bid, shown in #auctions only as a hash, all opened when the"
        " auction ends; a change takes effect when the next auction phase starts",
    )


Prize = Annotated[int, Field(ge=0, le=1_000_000)]
"""A prize is never negative: points and items never go below zero."""


class Hands(_Part):
    hand_size: int = Field(5, ge=5, le=5, description="cards in a presented hand")
    wrap_around_straights: bool = Field(
        default=False, description="straights may run over the ace, such as Q-K-A-2-3"
    )
    poker_kickers: bool = Field(
        default=False,
        description="break ties as in poker (grouped ranks, suits ignored) instead of card by card",
    )
    prize_points: tuple[Prize, ...] = Field((20, 10, 30, 20), description="points for 1st, 2nd, 3rd, ... place")
    prize_proposal_makers: tuple[Prize, ...] = Field(
        (1, 1), description="Standard Proposal-Makers for 1st, 2nd, ... place"
    )
    return_cards_from_place: int = Field(
        5, ge=1, le=1000, description="this place and lower get their presented cards back"
    )


class Proposals(_Part):
    urgent_prefix: str = Field("urgent:", min_length=1, max_length=32, description="how an urgent proposal begins")
    urgent_voting_hours: int = Field(48, ge=1, le=24 * 14, description="length of an urgent proposal's vote")
    urgent_max_against: int = Field(2, ge=0, le=1000, description="an urgent proposal fails with more votes against")
    standard_ratio_numerator: int = Field(1, ge=0, le=1000, description="the share of votes in favour needed ...")
    standard_ratio_denominator: int = Field(3, ge=1, le=1000, description="... out of this many")


class Judge(_Part):
    challenge_days: int = Field(4, ge=0, le=60, description="days after a ruling that it can be challenged")
    confidence_vote_days: int = Field(2, ge=1, le=60, description="days a vote of confidence runs")
    replace_ruling_days: int = Field(7, ge=0, le=60, description="days the judge may replace their own ruling")
    removal_assents: int = Field(2, ge=1, le=100, description="players whose assent removes the judge")


class OfferExpiry(StrEnum):
    WEEK_END = "week_end"
    NEVER = "never"


class Trades(_Part):
    offers_expire: OfferExpiry = Field(
        OfferExpiry.WEEK_END,
        description="when an open trade offer lapses: week_end (at the end of the week it was made) or never (off)",
    )

    @field_validator("offers_expire", mode="before")
    @classmethod
    def _on_off(cls, value: Any) -> Any:
        """``off`` (and ``false``, ``no``) reads as never; ``on`` as the end of the week."""
        if isinstance(value, bool):
            return OfferExpiry.WEEK_END if value else OfferExpiry.NEVER
        return value


LeadHours = Annotated[int, Field(ge=1, le=24 * 14)]
"""Hours before a deadline (or, for the judge, after a request) that a reminder is sent."""
MAX_LEADS = 4


class Reminders(_Part):
    """Reminders before deadlines, each a list of lead times in hours (``off``: none; ``on``: the default).

    Reminders are scheduled work like the phase changes: each is sent once, at its instant. One that
    fell while the bot was down is sent when the bot is back, as late as the outage was, but only
    while what it reminds of is still ahead; one whose deadline has passed by then is dropped (requests
    waiting for the judge have no deadline: their reminder always comes). A lead longer than the phase
    (or vote) it reminds of is never sent.
    """

    auction_end_hours: tuple[LeadHours, ...] = Field(
        (24, 1), description="hours before the auction ends that #auctions is reminded"
    )
    present_hand_hours: tuple[LeadHours, ...] = Field(
        (24,),
        description="hours before placements that players who hold a hand and have not presented one get a DM",
    )
    standard_vote_hours: tuple[LeadHours, ...] = Field(
        (24,), description="hours before standard proposals' votes end that #proposals is reminded"
    )
    confidence_vote_hours: tuple[LeadHours, ...] = Field(
        (12,), description="hours before a vote of confidence ends that #game-actions is reminded"
    )
    judge_request_hours: tuple[LeadHours, ...] = Field(
        (24,),
        description="hours a request waits unanswered before the judge gets a DM about it (it has no deadline:"
        " one missed while the bot was down comes when it is back)",
    )

    @field_validator("*", mode="before")
    @classmethod
    def _leads(cls, value: Any, info: ValidationInfo) -> Any:
        """``off`` (and ``none``, ``0``) is no reminder; ``on`` the default; one number one lead time."""
        if value is False or value is None or (isinstance(value, str) and value.strip().lower() in {"none", ""}):
            return ()
        if value is True:
            return cls.model_fields[str(info.field_name)].default
        if isinstance(value, int):
            return (value,) if value else ()
        return value

    @field_validator("*")
    @classmethod
    def _ordered(cls, value: tuple[int, ...]) -> tuple[int, ...]:
        """Longest lead first, each once, at most a few: a reminder is not a countdown."""
        leads = tuple(sorted(set(value), reverse=True))
        if len(leads) > MAX_LEADS:
            raise ValueError(f"at most {MAX_LEADS} lead times")
        return leads


class DigestOptions(_Part):
    weekly: bool = Field(default=True, description="post a review of the week in #game-actions when the week ends")


class Ruleset(_Part):
    """The whole set of options; ``name`` is the file it was loaded from."""

    name: str = "default"
    calendar: Calendar = Calendar()
    auction: Auction = Auction()
    hands: Hands = Hands()
    proposals: Proposals = Proposals()
    judge: Judge = Judge()
    trades: Trades = Trades()
    reminders: Reminders = Reminders()
    digest: DigestOptions = DigestOptions()

    @model_validator(mode="after")
    def _placements_inside_bartering(self) -> Ruleset:
        bartering_hours = (7 - self.calendar.auction_days) * 24
        if self.calendar.placement_hours_before_end > bartering_hours:
            raise ValueError("placements must fall inside the bartering phase")
        return self

    def option_paths(self) -> dict[str, Any]:
        """Every option as ``part.name`` with its current value."""
        out: dict[str, Any] = {}
        for part_name in type(self).model_fields:
            part = getattr(self, part_name)
            if isinstance(part, _Part):
                for field in type(part).model_fields:
                    out[f"{part_name}.{field}"] = getattr(part, field)
        return out

    def describe(self, path: str) -> str:
        part_name, _, field = path.partition(".")
        part = getattr(self, part_name, None)
        if not isinstance(part, _Part) or field not in type(part).model_fields:
            raise UnknownError(f"there is no option `{path}`")
        return type(part).model_fields[field].description or ""

    def with_option(self, path: str, raw: str) -> Ruleset:
        """A copy with one option changed, validated as a whole; ``raw`` is the text given."""
        part_name, _, field = path.strip().partition(".")
        part = getattr(self, part_name, None)
        if not isinstance(part, _Part) or field not in type(part).model_fields:
            known = ", ".join(sorted(self.option_paths()))
            raise UnknownError(f"there is no option `{path[:60]}`; options are: {known}")
        value: Any = _parse_value(raw)
        data = self.model_dump(mode="json")
        data[part_name][field] = value
        try:
            return Ruleset.model_validate(data)
        except ValidationError as exc:
            first = exc.errors()[0]
            raise BadInputError(f"`{path}` cannot be {raw[:40]!r}: {first['msg']}") from None


_INTEGER = re.compile(r"-?[0-9]{1,11}")
"""ASCII digits only: ``str.isdigit`` accepts ``²``, which ``int`` refuses."""


def _parse_value(raw: str) -> Any:
    text = raw.strip()
    lowered = text.lower()
    if lowered in {"true", "yes", "on"}:
        return True
    if lowered in {"false", "no", "off"}:
        return False
    if "," in text or (text.startswith("[") and text.endswith("]")):
        inner = text.strip("[]")
        return [_parse_value(part) for part in inner.split(",") if part.strip()]
    if _INTEGER.fullmatch(text):
        return int(text)
    return text.strip("\"'")


def load_ruleset(name: str = "default", directory: Path = RULESETS_DIR) -> Ruleset:
    path = directory / f"{name}.toml"
    with path.open("rb") as fh:
        data = tomllib.load(fh)
    return Ruleset.model_validate({"name": name, **data})
