"""What a library action says: notes, each for everyone, for the member alone, or for some members."""

from __future__ import annotations

from dataclasses import dataclass

from games.ictc.state import LibraryState


@dataclass(frozen=True)
class Note:
    text: str
    private: bool = False
    """Only the acting member sees it (a draft, a play deck, a refusal)."""
    card: tuple[int, int] | None = None
    """(design, version): the card to draw with the text (a picture on Discord)."""
    review: bool = False
    """Show the card's Approve / Reject / Comment buttons with it."""
    to: tuple[str, ...] = ()
    """Members who are told this privately (the maker, when a guild decided); never the channel."""


@dataclass(frozen=True)
class Step:
    """A transition's result: the new state and what to say."""

    state: LibraryState
    notes: tuple[Note, ...] = ()
