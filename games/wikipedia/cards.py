"""The 52-card deck: four articles of thirteen cards, each card with a useful end and a problem end.

Numbering follows a normal pack with one suit an article: within an article the first seven cards
are facts, the next three sources and the last three links (A-7, 8-10, J-K). Card ``n`` belongs to
article ``(n - 1) // 13``. A link card's article is the article it links *to*.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum


class Article(StrEnum):
    ART = "art"
    GEOGRAPHY = "geography"
    HISTORY = "history"
    SCIENCE = "science"

    @property
    def position(self) -> int:
        return _ARTICLE_INDEX[self]

    @property
    def label(self) -> str:
        return self.value.capitalize()


ARTICLES: tuple[Article, ...] = tuple(Article)
_ARTICLE_INDEX = {a: i for i, a in enumerate(ARTICLES)}


class Kind(StrEnum):
    FACT = "fact"
    SOURCE = "source"
    LINK = "link"


DECK_SIZE = 52
PER_ARTICLE = 13
FACTS_PER_ARTICLE = 7
SOURCES_PER_ARTICLE = 3

FACT_PROBLEMS = ("Advertising", "Spelling", "Grammar", "Incomplete", "Troll", "Sockpuppet", "Bias")
SOURCE_PROBLEMS = ("Copyvio", "Unreliable", "Outdated")
LINK_PROBLEMS = ("Spam", "POV", "Broken")

HEADINGS: dict[Article, tuple[str, ...]] = {
    Article.ART: ("Origins", "Materials", "Techniques", "Movements", "Patrons", "Reception", "Legacy"),
    Article.GEOGRAPHY: ("Climate", "Landforms", "Rivers", "Wildlife", "Transport", "Economy", "Settlements"),
    Article.HISTORY: ("Background", "Causes", "Key figures", "Battles", "Daily life", "Aftermath", "Historiography"),
    Article.SCIENCE: ("Theory", "Experiments", "Discoveries", "Instruments", "Uses", "Debates", "Open questions"),
}
"""Flavour only: the section heading printed on each fact card."""


@dataclass(frozen=True, slots=True)
class Card:
    number: int
    article: Article
    kind: Kind
    problem: str
    heading: str

    @property
    def useful_end(self) -> str:
        if self.kind is Kind.FACT:
            return f'{self.article.value} fact "{self.heading}"'
        if self.kind is Kind.SOURCE:
            return f"{self.article.value} source"
        return f"link to {self.article.value}"

    def describe(self) -> str:
        """How a card in hand is shown: number, useful end, then its problem end."""
        return f"#{self.number} {self.useful_end} (problem: {self.problem})"

    def as_problem(self) -> str:
        return f"#{self.number} {self.problem}"


def _build() -> dict[int, Card]:
    cards: dict[int, Card] = {}
    for a, article in enumerate(ARTICLES):
        for i in range(PER_ARTICLE):
            n = a * PER_ARTICLE + i + 1
            if i < FACTS_PER_ARTICLE:
                cards[n] = Card(n, article, Kind.FACT, FACT_PROBLEMS[i], HEADINGS[article][i])
            elif i < FACTS_PER_ARTICLE + SOURCES_PER_ARTICLE:
                cards[n] = Card(n, article, Kind.SOURCE, SOURCE_PROBLEMS[i - FACTS_PER_ARTICLE], "")
            else:
                cards[n] = Card(n, article, Kind.LINK, LINK_PROBLEMS[i - FACTS_PER_ARTICLE - SOURCES_PER_ARTICLE], "")
    return cards


CARDS: dict[int, Card] = _build()
ALL_CARDS: tuple[int, ...] = tuple(range(1, DECK_SIZE + 1))
ARTICLE_OF: dict[int, int] = {n: c.article.position for n, c in CARDS.items()}
"""Card number to the index of its article in ``ARTICLES`` (fast lookups for the rules and the AI)."""
KIND_OF: dict[int, Kind] = {n: c.kind for n, c in CARDS.items()}


def is_fact(card: int) -> bool:
    return KIND_OF[card] is Kind.FACT


def supports(card: int, article: int) -> bool:
    """Whether ``card`` can be the second card of a section of ``article`` (by index)."""
    kind = KIND_OF.get(card)
    if kind is Kind.SOURCE:
        return ARTICLE_OF[card] == article
    if kind is Kind.LINK:
        return ARTICLE_OF[card] != article
    return False


def parse_article(word: str) -> Article | None:
    """An article from its name or any prefix of it (``a``, ``geo``, ``hist``, ``sci``...)."""
    for article in ARTICLES:
        if word and article.value.startswith(word):
            return article
    return None
