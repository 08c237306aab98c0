"""The table of a Wikipedia game as frozen pydantic values; rules copy them on change.

Everything is kept by seat index and card number (plain ints in tuples), so a transition shares
all it did not touch with the state it came from, and a state dumps to JSON and back whole.
"""

from __future__ import annotations

from enum import StrEnum

from pydantic import Field

from games.tables.frozen import Frozen
from games.wikipedia.cards import ARTICLE_OF, ARTICLES, Article


class Protection(StrEnum):
    NONE = "none"
    SEMI = "semi"
    FULL = "full"


class Grade(StrEnum):
    """What an article is worth now; problems cancel any grade."""

    DRAFT = "draft"
    GOOD = "GA"
    FEATURED = "FA"


class Outcome(StrEnum):
    PLAYING = "playing"
    WON = "won"
    LOST = "lost"


GA_SECTIONS = 4
FA_SECTIONS = 5


class WikipediaOptions(Frozen):
    """Every point the rule text leaves open, with the default this engine plays."""

    hours_per_turn: int = Field(4, ge=1, le=12, description="hours in each player's positive phase")
    problems_per_turn: int = Field(2, ge=1, le=4, description="cards turned up as problems at each turn's start")
    starting_hand: int = Field(2, ge=0, le=5, description="cards dealt face down to each player at the start")
    hand_limit: int | None = Field(
        None, ge=2, le=52, description="most cards a hand may hold (none in the source text); checked on fix and give"
    )
    administrator_pays: bool = Field(
        default=True, description="the administrator, being nobody's expert, pays a card for every section"
    )
    expert_instant_on_semi: bool = Field(
        default=False,
        description="on: a semi-protected GA's expert fixes it instantly too; off (as the text says):"
        " only the administrator does, everyone else takes an hour",
    )


class Section(Frozen):
    fact: int
    support: int
    """A source of the same article or a link to another article."""


class Page(Frozen):
    """One article in the middle of the table."""

    article: Article
    sections: tuple[Section, ...] = ()
    problems: tuple[int, ...] = ()
    """Problem cards lying across the article, oldest first."""
    protection: Protection = Protection.NONE

    @property
    def grade(self) -> Grade:
        if self.problems:
            return Grade.DRAFT
        n = len(self.sections)
        if n >= FA_SECTIONS:
            return Grade.FEATURED
        if n >= GA_SECTIONS:
            return Grade.GOOD
        return Grade.DRAFT


def blank_pages() -> tuple[Page, ...]:
    return tuple(Page(article=a) for a in ARTICLES)


class WikipediaState(Frozen):
    options: WikipediaOptions
    seats: tuple[str, ...]
    """Players in turn order, as given to ``new_game``."""
    roles: tuple[int, ...]
    """The face-up role card of each seat; it stays on the table all game and is out of play."""
    admin: int
    """Seat index of the administrator (the highest role card)."""
    hands: tuple[tuple[int, ...], ...]
    deck: tuple[int, ...]
    """Face-down draw pile; ``deck[0]`` is drawn next."""
    pages: tuple[Page, ...]
    """The four articles, in ``ARTICLES`` order."""
    discard: tuple[int, ...] = ()
    """Cards paid for sections by non-experts."""
    turn: int = 1
    current: int
    """Seat index of the player whose turn it is."""
    hours: int
    """Hours left in the current player's positive phase."""
    outcome: Outcome = Outcome.PLAYING
    actions: int = 0
    """Actions applied so far."""
    drawn: tuple[int, ...] = ()
    """The problems turned up at the start of the current turn."""
    known: tuple[tuple[tuple[int, ...], ...], ...] | None = None
    """``known[v][j]``: the cards of seat ``j``'s hand that seat ``v`` can name (``known[j][j]`` is empty).

    A card picked up from an article is named to everyone. The thread says who gave whom a card but
    not which: the giver knows where its card went and the receiver which card left the giver, while
    the others can no longer name any card the giver holds. Cards dealt face down are named to nobody
    but their holder. None in a game stored before this was kept: then nobody can name another's card.
    """

    def known_to(self, viewer: int, seat: int) -> tuple[int, ...]:
        """The cards of ``seat``'s hand that ``viewer`` can name (all of them when it is its own)."""
        if viewer == seat:
            return self.hands[seat]
        return () if self.known is None else self.known[viewer][seat]

    def hidden_from(self, viewer: int, seat: int) -> tuple[int, ...]:
        """The cards of ``seat``'s hand that ``viewer`` cannot name."""
        named = self.known_to(viewer, seat)
        return tuple(c for c in self.hands[seat] if c not in named)

    def page(self, article: Article | int) -> Page:
        return self.pages[article if isinstance(article, int) else article.position]

    def seat_index(self, seat: str) -> int | None:
        try:
            return self.seats.index(seat)
        except ValueError:
            return None

    def expertise(self, seat: int) -> int | None:
        """The article index ``seat`` is expert on, or None for the administrator."""
        if seat == self.admin:
            return None
        return ARTICLE_OF[self.roles[seat]]
