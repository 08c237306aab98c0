"""A cooperative computer editor: greedy, one action at a time, re-planned after every action.

It knows what a table of cooperating players would tell each other (everyone's hand) and what
anyone can work out (the articles, and so which cards are still unseen) but never the order of
the deck. It scores a hand by
the sections it could write for articles that still need them (a free section, by the article's
expert, counts more than one paid with a discard), and picks, in this order:

1. the fixes that win the game this turn, when every article has its sections;
2. problems that cost it no time (free cards);
3. a section for an article short of four: free when it is the expert, or paid with the card the
   table misses least;
4. as administrator, protection for a GA (semi) or an FA (full);
5. one-hour fixes, on nearly finished articles first;
6. a card for a player who can turn it into a section (an expert first);
7. two-hour fixes (a card and one problem fewer beat an idle hour); gifts of lesser value; ending
   the turn.

Cards it pays with are the ones whose kind the table has most to spare (counting hands, problems
and unseen cards), so a fact of an article short of facts is never thrown away while another card will
do. The knobs of ``Tactics`` were tuned by self-play (``python -m bot selfplay wikipedia``).
"""

from __future__ import annotations

import random
from collections.abc import Iterable
from dataclasses import dataclass

from games.wikipedia.actions import AddSection, EndTurn, FixProblem, GiveCard, Protect, WikipediaAction
from games.wikipedia.cards import ARTICLE_OF, KIND_OF, Kind
from games.wikipedia.rules import fix_cost, needs_payment, protection_for
from games.wikipedia.state import FA_SECTIONS, GA_SECTIONS, Outcome, WikipediaState

_N = 4  # articles


def _scarce(slack: int) -> float:
    """Worth of a card by the slack left in its kind: none spare is critical, plenty is nearly nothing."""
    if slack <= 0:
        return 4.0
    return 2.0 if slack == 1 else 1.0 if slack == 2 else 0.3


@dataclass(frozen=True, slots=True)
class Tactics:
    """Knobs of the greedy editor; the defaults are what self-play found to win most."""

    protect: bool = True
    give: bool = True
    paid_weight: float = 0.9
    """What a section its writer must pay for is worth, against 1 for a free one."""
    pay_threshold: float = 2.0
    """A non-expert writes a section when the payment costs the table at most this much."""
    give_threshold: float = 1.0
    """Smallest gain (in sections) that is worth an hour of giving before slow fixes."""
    future_bonus: float = 1.2
    """Worth of handing an expert a fact or source of their article they cannot pair yet."""
    fix_urgency: float = 0.3
    """Weight of how far along an article is when choosing which problem to fix."""
    card_gain: float = 3.0
    """Weight of what a problem card adds to the fixer's hand when choosing which problem to fix."""
    scarcity_weight: float = 1.0
    """Weight of how scarce a card's kind is when choosing what to pay with."""
    build_featured: bool = False
    """An expert adds a fifth section to its article with a spare fact and source."""


_FACTS, _SOURCES, _LINKS = 0, _N, 2 * _N
_SLOT: dict[int, int] = {
    c: {Kind.FACT: _FACTS, Kind.SOURCE: _SOURCES, Kind.LINK: _LINKS}[KIND_OF[c]] + ARTICLE_OF[c] for c in KIND_OF
}
"""Card number to its slot in a count vector: facts by article, then sources, then links."""


def _count(cards: Iterable[int], into: list[int] | None = None) -> list[int]:
    """Cards counted by kind and article (12 slots; see ``_SLOT``)."""
    counts = into if into is not None else [0] * (3 * _N)
    for c in cards:
        counts[_SLOT[c]] += 1
    return counts


class _Table:
    """What one decision needs, computed once per call."""

    def __init__(self, state: WikipediaState, i: int, tactics: Tactics) -> None:
        self.state = state
        self.tactics = tactics
        self.i = i
        self.k = len(state.seats)
        self.hand = state.hands[i]
        self.hours = state.hours
        self.sections = [len(p.sections) for p in state.pages]
        self.turns_left = len(state.deck) // state.options.problems_per_turn
        """Turns that can still start after this one."""
        self.need = [max(0, GA_SECTIONS - n) for n in self.sections]
        """Sections each article still lacks to be a GA."""
        self.last_turn = self.turns_left == 0
        self.counts = [_count(h) for h in state.hands]
        self.free = [[not needs_payment(state, j, a) for a in range(_N)] for j in range(self.k)]
        """Whether seat j writes sections of article a without paying."""
        self.experts: list[list[int]] = [[j for j in range(self.k) if self.free[j][a]] for a in range(_N)]
        paid = tactics.paid_weight
        needy = [a for _, a in sorted((-n, a) for a, n in enumerate(self.need) if n)]
        self.plans: list[list[tuple[int, int, float]]] = []
        """Per seat: (article, sections it lacks, worth of one) for needy articles, free ones first."""
        for row in self.free:
            plan = [(a, self.need[a], 1.0) for a in needy if row[a]]
            plan.extend((a, self.need[a], paid) for a in needy if not row[a])
            self.plans.append(plan)
        left = [sum(col) for col in zip(*self.counts, strict=True)]
        _count(state.deck, left)
        for page in state.pages:
            _count(page.problems, left)
        links = sum(left[_LINKS:])
        self.fact_slack = [left[_FACTS + a] - self.need[a] for a in range(_N)]
        self.support_slack = [left[_SOURCES + a] + links - left[_LINKS + a] - self.need[a] for a in range(_N)]
        self.global_slack = sum(left[_SOURCES:_LINKS]) + links - sum(self.need)

    def room(self, j: int) -> bool:
        """Whether seat ``j``'s hand may take one more card (the ``hand_limit`` option)."""
        limit = self.state.options.hand_limit
        return limit is None or len(self.state.hands[j]) < limit

    def reachable(self, j: int) -> bool:
        """Whether seat ``j`` has a turn before the deck runs out (this seat: now)."""
        return (j - self.i) % self.k <= self.turns_left

    def potential(self, j: int, counts: list[int]) -> float:
        """Sections seat ``j`` could write from ``counts`` for articles short of a GA (weighted)."""
        total = 0.0
        pool = counts[_LINKS] + counts[_LINKS + 1] + counts[_LINKS + 2] + counts[_LINKS + 3]
        for a, need, worth in self.plans[j]:
            facts = counts[a]
            if not facts:
                continue
            usable = facts if facts < need else need
            sources = counts[_SOURCES + a]
            paired = usable if usable < sources else sources
            linked = min(usable - paired, pool - counts[_LINKS + a])
            if linked > 0:
                pool -= linked
                paired += linked
            total += paired * worth
        return total

    def potential_without(self, j: int, card: int) -> float:
        """Seat ``j``'s potential without ``card``."""
        counts = self.counts[j]
        slot = _SLOT[card]
        counts[slot] -= 1
        value = self.potential(j, counts)
        counts[slot] += 1
        return value

    def potential_with(self, j: int, card: int) -> float:
        """Seat ``j``'s potential with ``card`` added."""
        counts = self.counts[j]
        slot = _SLOT[card]
        counts[slot] += 1
        value = self.potential(j, counts)
        counts[slot] -= 1
        return value

    def loss(self, j: int, card: int) -> float:
        """How much the table loses if seat ``j`` parts with ``card`` for good (as a payment)."""
        own = self.potential(j, self.counts[j]) - self.potential_without(j, card)
        return own + self.tactics.scarcity_weight * self.scarcity(card)

    def scarcity(self, card: int) -> float:
        """How badly the table needs ``card`` to finish, judged by what is left of its kind."""
        a = ARTICLE_OF[card]
        kind = KIND_OF[card]
        if kind is Kind.FACT:
            if self.need[a] == 0:
                return 0.0
            return _scarce(self.fact_slack[a])
        if kind is Kind.SOURCE:
            if self.need[a] == 0:
                return 0.0
            return 0.8 * _scarce(min(self.support_slack[a], self.global_slack))
        if not any(self.need[b] for b in range(_N) if b != a):
            return 0.0
        return 0.8 * _scarce(self.global_slack)

    def gift_gain(self, card: int, to: int, mine: float) -> float:
        """What the table gains when this seat (whose potential is ``mine``) hands ``card`` to ``to``."""
        keep = mine - self.potential_without(self.i, card)
        gain = self.potential_with(to, card) - self.potential(to, self.counts[to])
        a = ARTICLE_OF[card]
        if KIND_OF[card] is not Kind.LINK and self.need[a] and self.free[to][a] and not self.free[self.i][a]:
            gain += self.tactics.future_bonus
        return gain - keep


class GreedyEditor:
    """The computer seat of the Wikipedia game (an ``AISeat``)."""

    def __init__(self, tactics: Tactics | None = None) -> None:
        self.tactics = tactics or Tactics()

    def choose(self, state: WikipediaState, seat: str, rng: random.Random) -> WikipediaAction:
        """The editor is deterministic (``rng`` is unused): the same table always gets the same move."""
        del rng
        if state.outcome is not Outcome.PLAYING:
            return EndTurn()
        t = _Table(state, state.seats.index(seat), self.tactics)
        return (
            self._finish(t)
            or self._free_fix(t)
            or self._section(t)
            or self._protect(t)
            or self._fix(t, 1)
            or self._give(t, self.tactics.give_threshold)
            or self._fix(t, 2)
            or self._give(t, 0.05)
            or EndTurn()
        )

    @staticmethod
    def _finish(t: _Table) -> WikipediaAction | None:
        if any(t.need) or not t.room(t.i):
            return None
        costs = [(fix_cost(t.state, t.i, a), c) for a, p in enumerate(t.state.pages) for c in p.problems]
        if costs and sum(cost for cost, _ in costs) <= t.hours:
            return FixProblem(card=min(costs)[1])
        return None

    @staticmethod
    def _free_fix(t: _Table) -> WikipediaAction | None:
        if not t.room(t.i):
            return None
        free = [c for a, p in enumerate(t.state.pages) if fix_cost(t.state, t.i, a) == 0 for c in p.problems]
        return FixProblem(card=max(free, key=t.scarcity)) if free else None

    def _section(self, t: _Table) -> WikipediaAction | None:
        best: tuple[float, AddSection] | None = None
        for a in range(_N):
            free = t.free[t.i][a]
            if t.need[a] == 0 and not (free and self.tactics.build_featured and t.sections[a] < FA_SECTIONS):
                continue
            pair = _pair(t, a, sources_only=t.need[a] == 0)
            if pair is None:
                continue
            fact, support = pair
            if free:
                score = (10.0 - t.sections[a]) if t.need[a] else 1.0
                candidate = AddSection(fact=fact, support=support)
            else:
                rest = [c for c in t.hand if c not in pair]
                if not rest:
                    continue
                payment = min(rest, key=lambda c: t.loss(t.i, c))
                cost = t.loss(t.i, payment)
                if cost > self.tactics.pay_threshold and not t.last_turn:
                    continue
                score = 5.0 - t.sections[a] - cost
                candidate = AddSection(fact=fact, support=support, payment=payment)
            if best is None or score > best[0]:
                best = (score, candidate)
        return best[1] if best is not None else None

    def _protect(self, t: _Table) -> WikipediaAction | None:
        if not self.tactics.protect or t.i != t.state.admin or t.last_turn:
            return None
        for page in t.state.pages:
            if protection_for(page) is not None:
                return Protect(article=page.article)
        return None

    def _fix(self, t: _Table, max_cost: int) -> WikipediaAction | None:
        if not t.room(t.i):
            return None
        best: tuple[float, int] | None = None
        base = t.potential(t.i, t.counts[t.i])
        for a, page in enumerate(t.state.pages):
            if not page.problems:
                continue
            cost = fix_cost(t.state, t.i, a)
            if cost > max_cost or cost > t.hours:
                continue
            urgency = self.tactics.fix_urgency * (t.sections[a] + (2.0 if t.need[a] == 0 else 0.0))
            for card in page.problems:
                gain = t.potential_with(t.i, card) - base
                score = urgency + self.tactics.card_gain * gain + 0.1 * t.scarcity(card)
                if best is None or score > best[0]:
                    best = (score, card)
        return FixProblem(card=best[1]) if best is not None else None

    def _give(self, t: _Table, threshold: float) -> WikipediaAction | None:
        if not self.tactics.give or t.last_turn:
            return None
        best: tuple[float, int, int] | None = None
        mine = t.potential(t.i, t.counts[t.i])
        for to in range(t.k):
            if to == t.i or not t.reachable(to) or not t.room(to):
                continue
            for card in t.hand:
                gain = t.gift_gain(card, to, mine)
                if gain > threshold and (best is None or gain > best[0]):
                    best = (gain, card, to)
        if best is None:
            return None
        return GiveCard(card=best[1], to=t.state.seats[best[2]])


def _pair(t: _Table, article: int, *, sources_only: bool) -> tuple[int, int] | None:
    """A fact of ``article`` in hand and its best support: a source first, else the least wanted link."""
    fact = next((c for c in t.hand if KIND_OF[c] is Kind.FACT and ARTICLE_OF[c] == article), None)
    if fact is None:
        return None
    links: list[int] = []
    for c in t.hand:
        kind = KIND_OF[c]
        if kind is Kind.SOURCE and ARTICLE_OF[c] == article:
            return fact, c
        if kind is Kind.LINK and ARTICLE_OF[c] != article:
            links.append(c)
    if sources_only or not links:
        return None
    return fact, min(links, key=lambda c: sum(t.need[b] for b in range(_N) if b != ARTICLE_OF[c]))
