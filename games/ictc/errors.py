"""Typed errors of the card library, in the round's family so every adapter answers them alike."""

from __future__ import annotations

from games.nomic.errors import BadInputError, ConflictError, NotAllowedError, UnknownError


class CardInputError(BadInputError):
    """A card command or a card's field could not be read (a cost, a colour, a keyword...)."""


class CardCheckError(CardInputError):
    """A card fails one or more hard checks; ``problems`` lists each in words."""

    def __init__(self, problems: list[str]) -> None:
        self.problems = tuple(problems)
        if len(problems) == 1:
            text = problems[0]
        else:
            text = f"the card has {len(problems)} problems: " + "; ".join(
                f"({i}) {p}" for i, p in enumerate(problems, 1)
            )
        super().__init__(text)


class UnknownCardError(UnknownError):
    """No card, copy, deck, guild or contest goes by that name or number (or it is someone's draft)."""


class NotYoursError(NotAllowedError):
    """Only the card's maker (or a guild's officers, or moderators) may do that."""


class CardStateError(ConflictError):
    """The card is not in a state that allows it (already submitted, not approved yet...)."""


class BlockedError(ConflictError):
    """The card is too close to another player's protected design."""
