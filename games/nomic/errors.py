"""Typed rule errors. Each carries a sentence an adapter can show as the answer as it is."""

from __future__ import annotations

from games.values import valueclass


class RuleError(ValueError):
    """An action that the rules do not allow; nothing was changed."""


class BadInputError(RuleError):
    """The command could not be read (missing or malformed arguments)."""


class BadCardError(BadInputError):
    """Text that is not a card code."""


class NotAPlayerError(RuleError):
    """Only players may act, vote and possess items."""


class WrongChannelError(RuleError):
    """The command belongs to another channel."""


class WrongPhaseError(RuleError):
    """The action is not allowed at this time of the week."""


class NotAllowedError(RuleError):
    """The member lacks the office or permission the action needs."""


class UnknownError(RuleError):
    """A lot, trade, member or other numbered thing that does not exist."""


class InsufficientError(RuleError):
    """The actor does not possess what the action needs."""


class ConflictError(RuleError):
    """The action contradicts the current state (already done, too low, not open)."""


class MemberNameError(RuleError):
    """A typed ``@name`` that does not name exactly one member; ``candidates`` are who it could be."""

    def __init__(self, message: str, typed: str, candidates: tuple[MemberCandidate, ...] = ()) -> None:
        super().__init__(message)
        self.typed = typed
        self.candidates = candidates


class UnknownMemberError(MemberNameError, UnknownError):
    """No member goes by the typed name (or a mention names someone not on the server)."""


class AmbiguousMemberError(MemberNameError):
    """Several members go by the typed name, or only a nickname or display name matches it."""


@valueclass
class MemberCandidate:
    """A member a typed name could mean, as the refusal lists them."""

    id: str
    display: str
    username: str
    by_username: bool
    """The typed name is this member's username (not only a name they are shown by)."""
