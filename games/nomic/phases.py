"""The phases of the week and the boundaries between them, as the rules know them.

The rules never read a calendar: scheduled work arrives as a ``Tick`` naming the boundaries
that fall at its instant, and the state records the phase those boundaries produced.
"""

from __future__ import annotations

from enum import StrEnum


class Phase(StrEnum):
    AUCTION = "auction"
    BARTERING = "bartering"


class BoundaryKind(StrEnum):
    """In the order they apply when several fall at one instant."""

    AUCTION_END = "auction_end"
    PLACEMENTS = "placements"
    AUCTION_START = "auction_start"

    @property
    def order(self) -> int:
        return list(BoundaryKind).index(self)


class ReminderKind(StrEnum):
    """Reminders the round sends before a deadline; each has lead times in ``ruleset.reminders``."""

    AUCTION_END = "auction_end"
    PRESENT_HAND = "present_hand"
    STANDARD_VOTE = "standard_vote"
    CONFIDENCE_VOTE = "confidence_vote"
    JUDGE_REQUEST = "judge_request"
