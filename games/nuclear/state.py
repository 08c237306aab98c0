"""The table of a 關你核四 game as frozen pydantic values; the rules copy them on change.

Seats are kept by index (turn order, the speaker card passes to the next index) and cards by their ids
(``P07``, ``A13``, ``G1``), so the state dumps to JSON and back whole. Everything hidden (hands, the
deck, the removed cards, votes not yet revealed, cards placed face down, which cards a gift held) is in
the state, which only the engine reads; what each seat may see is the views' business.
"""

from __future__ import annotations

import re
from enum import StrEnum
from typing import Annotated, Literal

from pydantic import AfterValidator, BaseModel, BeforeValidator, ConfigDict, Field, ValidationInfo
from pydantic_core import PydanticCustomError

from games.nuclear.cards import Sym


class _Value(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


_DURATION = re.compile(r"^(?:(\d{1,2})m)?(?:(\d{1,4})s?)?$")


def _seconds(value: object) -> object:
    """``180``, ``180s``, ``3m`` and ``2m30s`` as seconds (what ``!play ... negotiation:180s`` types)."""
    if isinstance(value, str):
        match = _DURATION.match(value.strip().casefold())
        if match is None or not any(match.groups()):
            raise ValueError("write a duration such as 90s, 3m or 2m30s")
        minutes, seconds = (int(g) if g else 0 for g in match.groups())
        return minutes * 60 + seconds
    return value


Seconds = Annotated[int, BeforeValidator(_seconds), Field(ge=5, le=3600)]

NEGOTIATION_CAP = 180
"""The source: 「協商階段不可超過三分鐘」, the negotiation lasts three minutes at most."""


def _at_most_three_minutes(value: int, info: ValidationInfo) -> int:
    """A longer negotiation is refused where a table is set up (``!play``, Python values); a table
    stored before the cap (JSON) reads back at the cap rather than failing to load."""
    if value <= NEGOTIATION_CAP:
        return value
    if info.mode == "json":
        return NEGOTIATION_CAP
    raise PydanticCustomError("negotiation_cap", "the negotiation lasts at most 3 minutes (180 s)")


NegotiationSeconds = Annotated[Seconds, AfterValidator(_at_most_three_minutes)]

Removal = Literal["seed", "balanced", "off"]
REMOVALS: dict[Removal, dict[int, int]] = {"seed": {5: 7, 7: 3}, "balanced": {5: 6, 7: 5}, "off": {}}
"""How many cards of the removal pool leave the game, by the number of players."""


class NuclearOptions(_Value):
    """Every point the source leaves open, with the default this engine plays (``!rules nuclear``)."""

    proposal: Seconds = Field(120, description="seconds the speaker has to propose")
    vote: Seconds = Field(90, description="seconds for the first (secret) vote")
    negotiation: NegotiationSeconds = Field(
        NEGOTIATION_CAP, description="seconds of negotiation at most (3 min at most); the speaker may end it sooner"
    )
    placement: Seconds = Field(60, description="seconds to place 1 or 2 cards face down for the second vote")
    countdown: Seconds = Field(30, description="seconds the speaker has to count 1, 2, 3")
    reveal: Seconds = Field(15, description="seconds to reveal or withdraw after the count")
    first_vote_counts: bool = Field(default=True, description="the first vote's cards count in the final tally")
    first_vote_optional: bool = Field(default=False, description="a voter may abstain in the first vote")
    eye: Literal["majority", "vote", "off"] = Field(
        "majority", description="the eye: +1 to the side that reveals more eyes, one more vote, or nothing"
    )
    referendum_turnout: bool = Field(default=True, description="a referendum needs as many yes votes as players")
    swings: bool = Field(
        default=False,
        description="house rule: a passed bill moves both indices, a failed referendum gives the other side 2",
    )
    removal: Removal = Field("seed", description="cards removed at 5 and 7 players: seed (7/3), balanced (6/5), off")
    anyone_gives: bool = Field(default=False, description="non-speakers may also give cards during the negotiation")
    ties: Literal["shared", "passed"] = Field(
        "shared", description="tied top scores: shared wins, or most passed proposals first"
    )
    max_rounds: int = Field(40, ge=4, le=200, description="the stalemate cap: the game ends after this round")


class Phase(StrEnum):
    PROPOSE = "propose"
    VOTE1 = "vote1"
    TALK = "talk"
    PLACE = "place"
    COUNT = "count"
    REVEAL = "reveal"
    OVER = "over"


Ending = Literal["pro", "anti", "cap"]
Choice = Literal["reveal", "withdraw"]
ABSTAIN = "-"
"""A first-vote entry of a voter who abstained (only with ``first_vote_optional``)."""


class Deal(_Value):
    """One negotiation step: cards given, a passed proposal transferred, or a promise noted."""

    round: int
    giver: int
    receiver: int
    kind: Literal["give", "transfer", "promise"]
    cards: tuple[str, ...] = ()
    note: str = ""


class RoundRecord(_Value):
    """How a round ended: what the board shows of the last round, and what self-play counts."""

    round: int
    speaker: int
    proposal: str | None
    yes: int = 0
    no: int = 0
    passed: bool = False
    eye: Sym | None = None


class NuclearState(_Value):
    options: NuclearOptions
    seats: tuple[str, ...]
    """Players in turn order; the speaker card passes to the next seat."""
    stances: tuple[Sym, ...]
    """Each seat's public stance card."""
    hands: tuple[tuple[str, ...], ...]
    passed: tuple[tuple[str, ...], ...]
    """Each seat's passed proposals (their points)."""
    deck: tuple[str, ...]
    """Face down; ``deck[0]`` is drawn next."""
    discard: tuple[str, ...] = ()
    removed: tuple[str, ...] = ()
    """Out of the game, unseen (the 5/7-player removal)."""
    pro: int = 0
    anti: int = 0
    round: int = 1
    speaker: int = 0
    phase: Phase = Phase.PROPOSE
    proposal: str | None = None
    voters: tuple[int, ...] = ()
    """Seats in this round's first vote."""
    vote1: tuple[str | None, ...] = ()
    """Per seat: the card placed in the first vote (``ABSTAIN``, or None: not yet / not voting)."""
    placers: tuple[int, ...] = ()
    """Seats placing cards in this round's second vote."""
    placed: tuple[tuple[str, ...], ...] = ()
    """Per seat: the cards placed face down in the second vote (empty: not yet / not voting)."""
    choices: tuple[Choice | None, ...] = ()
    """Per seat: reveal or withdraw, once chosen in the window after the count."""
    deals: tuple[Deal, ...] = ()
    history: tuple[RoundRecord, ...] = ()
    ending: Ending | None = None
    actions: int = 0

    def index(self, side: Sym) -> int:
        return self.pro if side == "pro" else self.anti

    def seat_index(self, seat: str) -> int | None:
        try:
            return self.seats.index(seat)
        except ValueError:
            return None

    @property
    def n(self) -> int:
        return len(self.seats)

    def target(self, side: Sym) -> int:
        return PRO_TARGET if side == "pro" else ANTI_TARGET


PRO_TARGET = 12
ANTI_TARGET = 18
STANCES: dict[int, tuple[int, int]] = {4: (2, 2), 5: (2, 3), 6: (3, 3), 7: (3, 4), 8: (4, 4)}
"""Pro and anti stance cards by the number of players."""
