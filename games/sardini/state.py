"""The table of a Sardini game as frozen pydantic values; the rules copy them on change.

Cards are ints (``games.sardini.cards``), seats are indexes into ``seats``. Each of the 40 cards is
in exactly one place: the deck, the shown Tricks, a hand, the cards played in the attempt under
way, a pile, or out of play (``rules.invariants`` checks it after every action in self-play).
"""

from __future__ import annotations

from enum import StrEnum
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

MIN_SEATS = 2
MAX_SEATS = 6


class _Value(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class Phase(StrEnum):
    TURN = "turn"
    """The current player chooses: Draw, or attempt a shown Trick."""
    ATTEMPT = "attempt"
    """The current player does the Moves of a Trick, one set of cards each."""
    CALL = "call"
    """A Trick was performed: the player says "Act is over" or "Encore" before the next Trick is flipped."""
    OVER = "over"


class Ending(StrEnum):
    SURVIVOR = "survivor"
    """Only one player is left."""
    DECK = "deck"
    """The deck ran out (after the turn that took its last card)."""


class SardiniOptions(_Value):
    """Every point the source leaves open that a table may change, with the default this engine plays."""

    tricks: int | None = Field(
        None, ge=1, le=7, description="Tricks shown at the start; none: one fewer than the players (the source)"
    )
    draw_cap: int | None = Field(
        None,
        ge=1,
        le=40,
        description="the most cards one Draw takes (the counter stops there); none: no cap (the source)."
        " 4 is suggested at 4 or more players",
    )
    starting_hand: int = Field(
        0, ge=0, le=5, description="cards dealt face down to each player at the start (the source deals none)"
    )
    draw_after_last: bool = Field(
        default=False,
        description="after the last Move of a Trick the player may also take the one-card draw"
        " (the source offers it only before another Move)",
    )
    failed_trick: Literal["stays", "out"] = Field(
        "stays",
        description="a Trick someone failed stays shown (stays), or goes out of play and the deck's top card"
        " replaces it (out)",
    )


class Attempt(_Value):
    """The Trick the current player is performing, and what they did of it so far."""

    trick: int
    """The Trick's card (it stays among the shown Tricks until it is won)."""
    done: tuple[tuple[int, tuple[int, ...]], ...] = ()
    """(Move index from 0, the cards played for it), in the order they were played."""
    extra: bool = False
    """The one-card draw after a completed Move may be taken now."""
    encore: bool = False
    """This attempt follows an Encore."""

    def played(self) -> tuple[int, ...]:
        return tuple(c for _, cards in self.done for c in cards)

    def done_moves(self) -> frozenset[int]:
        return frozenset(i for i, _ in self.done)


class SardiniState(_Value):
    options: SardiniOptions
    seats: tuple[str, ...]
    """Players in turn order, as given to ``new_game``."""
    deck: tuple[int, ...]
    """Face down; ``deck[0]`` is the top."""
    shown: tuple[int, ...]
    """The shown Tricks, T1 first; a Trick won is replaced in its place by the next one flipped."""
    hands: tuple[tuple[int, ...], ...]
    piles: tuple[tuple[int, ...], ...]
    """Every card each player won (played cards and Trick cards)."""
    won: tuple[tuple[int, ...], ...]
    """The Trick cards each player won, in order (also in their pile)."""
    out: tuple[int, ...] = ()
    """Face up out of play: the hands of eliminated players and the cards of failed attempts."""
    alive: tuple[bool, ...]
    current: int
    """The seat index whose turn it is."""
    first: int
    """The seat that took the first turn (drawn at random)."""
    counter: int = 0
    """The nominal size of the last Draw; 0 when the last turn was an attempt (the next Draw takes 1)."""
    phase: Phase = Phase.TURN
    attempt: Attempt | None = None
    vacant: int | None = None
    """In the call after a success: where the next Trick will be flipped (the won Trick's place)."""
    call_extra: bool = False
    """In the call: the one-card draw after the last Move may still be taken (``draw_after_last``)."""
    turn: int = 1
    actions: int = 0
    ending: Ending | None = None
    flipped: tuple[int, ...] = ()
    """Every Trick ever shown, in order (the first ones at the deal)."""
    failed: tuple[int, ...] = ()
    """Tricks someone failed, in order."""

    def seat_index(self, seat: str) -> int | None:
        try:
            return self.seats.index(seat)
        except ValueError:
            return None

    def board(self) -> tuple[int | None, ...]:
        """The shown Tricks in their places, T1 first. In the call after a success the won Trick's
        place is None, kept for the Trick flipped next, so no other Trick changes its number."""
        if self.vacant is None:
            return self.shown
        return (*self.shown[: self.vacant], None, *self.shown[self.vacant :])

    def slot_of(self, trick: int) -> int:
        """The number (from 1) of a shown Trick on the board: ``T2`` is 2."""
        return self.board().index(trick) + 1

    @property
    def players_left(self) -> int:
        return sum(self.alive)

    def next_draw(self) -> int:
        """The nominal size of the next Draw: the last one plus one (1 after an attempt), capped."""
        nominal = self.counter + 1
        cap = self.options.draw_cap
        return min(nominal, cap) if cap is not None else nominal
