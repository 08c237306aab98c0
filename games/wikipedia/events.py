"""What happened at a Wikipedia table, as typed values; ``text`` is the sentence the thread shows."""

from __future__ import annotations

from dataclasses import dataclass

from games.wikipedia.cards import CARDS, Article
from games.wikipedia.state import Grade, Protection


def _hours(n: int) -> str:
    return "no time" if n == 0 else f"{n} hour{'' if n == 1 else 's'}"


def _left(n: int) -> str:
    return f"{n} hour{'' if n == 1 else 's'} left"


@dataclass(frozen=True, slots=True)
class TurnStarted:
    turn: int
    seat: str
    drawn: tuple[int, ...]
    hours: int

    def text(self, lang: str = "en") -> str:
        del lang
        found = ", ".join(f"{CARDS[c].as_problem()} on {CARDS[c].article.label}" for c in self.drawn)
        return f"Turn {self.turn}: {self.seat} turns up new problems ({found}) and has {_hours(self.hours)} to work."


@dataclass(frozen=True, slots=True)
class SectionAdded:
    seat: str
    article: Article
    fact: int
    support: int
    payment: int | None
    sections: int
    hours_left: int

    def text(self, lang: str = "en") -> str:
        del lang
        paid = f", paying with #{self.payment}" if self.payment is not None else ""
        return (
            f"{self.seat} writes a new {self.article.label} section from #{self.fact} and #{self.support}{paid}: "
            f"{self.sections} section{'' if self.sections == 1 else 's'} now ({_left(self.hours_left)})."
        )


@dataclass(frozen=True, slots=True)
class ProblemFixed:
    seat: str
    card: int
    article: Article
    cost: int
    hours_left: int

    def text(self, lang: str = "en") -> str:
        del lang
        took = "at once" if self.cost == 0 else f"in {_hours(self.cost)}"
        return (
            f"{self.seat} clears the {CARDS[self.card].problem} problem (#{self.card}) from {self.article.label} "
            f"{took} and takes the card ({_left(self.hours_left)})."
        )


@dataclass(frozen=True, slots=True)
class ArticleProtected:
    seat: str
    article: Article
    level: Protection
    hours_left: int

    def text(self, lang: str = "en") -> str:
        del lang
        how = "fully protects" if self.level is Protection.FULL else "semi-protects"
        return f"{self.seat} {how} {self.article.label} ({_left(self.hours_left)})."


@dataclass(frozen=True, slots=True)
class CardGiven:
    """Which card was given: seen by the giver and the receiver only (``GiftSeen`` is the thread's)."""

    seat: str
    to: str
    card: int
    hours_left: int

    @property
    def audience(self) -> frozenset[str]:
        return frozenset({self.seat, self.to})

    def text(self, lang: str = "en") -> str:
        del lang
        return f"{self.seat} hands card #{self.card} to {self.to} ({_left(self.hours_left)})."


@dataclass(frozen=True, slots=True)
class GiftSeen:
    """What everyone learns of a gift: who gave whom how many cards, never which."""

    seat: str
    to: str
    count: int
    hours_left: int

    def text(self, lang: str = "en") -> str:
        del lang
        cards = "a card" if self.count == 1 else f"{self.count} cards"
        return f"{self.seat} gives {self.to} {cards} ({_left(self.hours_left)})."


@dataclass(frozen=True, slots=True)
class HoursPassed:
    seat: str
    hours: int
    hours_left: int

    def text(self, lang: str = "en") -> str:
        del lang
        if self.hours_left == 0:
            return f"{self.seat} lets {_hours(self.hours)} go by and ends the turn."
        return f"{self.seat} lets {_hours(self.hours)} go by ({_left(self.hours_left)})."


@dataclass(frozen=True, slots=True)
class GradeChanged:
    article: Article
    before: Grade
    after: Grade

    def text(self, lang: str = "en") -> str:
        del lang
        names = {Grade.GOOD: "a good article (GA)", Grade.FEATURED: "a featured article (FA)"}
        if self.after is Grade.DRAFT:
            return f"{self.article.label} has a problem again and is no longer {names[self.before]}."
        return f"{self.article.label} is now {names[self.after]}."


@dataclass(frozen=True, slots=True)
class GameWon:
    turn: int

    def text(self, lang: str = "en") -> str:
        del lang
        return f"All four articles are good or featured articles on turn {self.turn}: the editors win together!"


@dataclass(frozen=True, slots=True)
class GameLost:
    turn: int
    deck: int

    def text(self, lang: str = "en") -> str:
        del lang
        left = "is empty" if self.deck == 0 else f"holds only {self.deck} card{'' if self.deck == 1 else 's'}"
        return f"Turn {self.turn} cannot begin: the deck {left}. The encyclopaedia is unfinished; the editors lose."


WikipediaEvent = (
    TurnStarted
    | SectionAdded
    | ProblemFixed
    | ArticleProtected
    | CardGiven
    | GiftSeen
    | HoursPassed
    | GradeChanged
    | GameWon
    | GameLost
)
