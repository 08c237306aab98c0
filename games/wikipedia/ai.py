"""A cooperative computer editor: it plans each whole turn on a light copy of the table.

It sees what a player at the table sees: its own hand, the articles, and the cards that reached
the other hands in the open (fixed problems and gifts are announced in the thread). The cards the
others were dealt face down and still hold count with the deck as unseen; it never reads them, nor
the order of the deck.

At the first call of a turn the editor copies the table into ``_Light`` (plain lists of card
numbers that mirror the rules) and plays the whole turn out there, one greedy choice after
another; the later calls of that turn only check that the table is the one it predicted and hand
over the next move, so a turn costs one plan however many moves it has.

Each choice takes the first of these that applies:

1. a move towards winning this turn, when its hand and the problems on the table are enough for
   every missing section and the hours cover them and every fix;
2. problems that cost it no time (free cards);
3. a section for an article short of four: free when it is the expert, or paid with the card the
   table misses least (until the last turns a non-expert leaves an article with an expert to that
   expert); before backing a section with a link it fixes a source of that article from the table;
4. as administrator, protection for a GA (semi) or an FA (full);
5. a gift that lets a player write a section (the next to play first);
6. a one-hour fix: first problems it fixes as cheaply as any player still to play (the
   administrator rather on articles without an expert, which only it fixes in an hour), then
   nearly finished articles and cards that pair with its hand;
7. a lesser gift (a fact or source for the expert of its article, a link for an expert who will
   lack support); a two-hour fix, also taken early when it would otherwise strand the last hour
   (a card and one problem fewer beat an idle hour); ending the turn.

In the last turns, clearing problems (cheapest first against the players still to play) comes
before all gifts but those that let a player write a section.

It scores a hand by the sections it could write for articles that still need them (a free section,
by the article's expert, counts more than one paid with a discard). Cards it pays with are the ones
whose kind the table has most to spare (counting hands, problems and unseen cards; a source counts
only while its article lacks sections), so a card the table is short of is never thrown away while
another will do. The knobs of ``Tactics`` were tuned by self-play for each number of players
(``TACTICS``; ``python -m bot selfplay wikipedia``): with two players cards are the scarce resource,
with four or five the hours.
"""

from __future__ import annotations

import random
from collections.abc import Iterable
from dataclasses import dataclass
from itertools import permutations

from games.wikipedia.actions import AddSection, EndTurn, FixProblem, GiveCard, Protect, WikipediaAction
from games.wikipedia.cards import ARTICLE_OF, ARTICLES, KIND_OF, Kind
from games.wikipedia.state import FA_SECTIONS, GA_SECTIONS, Outcome, Protection, WikipediaOptions, WikipediaState

_N = 4  # articles
_FACT, _SOURCE, _LINK = 0, 1, 2
_FACTS, _SOURCES, _LINKS = 0, _N, 2 * _N
_KIND_CODE = {Kind.FACT: _FACT, Kind.SOURCE: _SOURCE, Kind.LINK: _LINK}
_PROTECTION_CODE = {Protection.NONE: 0, Protection.SEMI: 1, Protection.FULL: 2}

_ART: tuple[int, ...] = (0, *(ARTICLE_OF[c] for c in range(1, 53)))
"""Card number to the index of its article (index 0 unused)."""
_KIND: tuple[int, ...] = (0, *(_KIND_CODE[KIND_OF[c]] for c in range(1, 53)))
_SLOT: tuple[int, ...] = (0, *(_KIND[c] * _N + _ART[c] for c in range(1, 53)))
"""Card number to its slot in a count vector: facts by article, then sources, then links."""

# Light actions: (SECTION, fact, support, payment or 0), (FIX, card), (PROTECT, article),
# (GIVE, card, seat), (END,).
_SECTION, _FIX, _PROTECT, _GIVE, _END = 0, 1, 2, 3, 4
_Act = tuple[int, ...]


def _scarce(slack: int) -> float:
    """Worth of a card by the slack left in its kind: none spare is critical, plenty is nearly nothing."""
    if slack <= 0:
        return 4.0
    return 2.0 if slack == 1 else 1.0 if slack == 2 else 0.3


def _count(cards: Iterable[int], into: list[int] | None = None) -> list[int]:
    """Cards counted by kind and article (12 slots; see ``_SLOT``)."""
    counts = into if into is not None else [0] * (3 * _N)
    for c in cards:
        counts[_SLOT[c]] += 1
    return counts


def _supports(card: int, article: int) -> bool:
    kind = _KIND[card]
    if kind == _SOURCE:
        return _ART[card] == article
    return kind == _LINK and _ART[card] != article


_COST = ((2, 1, 1, 1), (1, 1, 0, 0), (0, 0, 0, 0))
"""Hours to fix a problem by protection (none, semi, full) and fixer's rank (see ``_Light.ranks``)."""
_SEATS: dict[tuple[object, ...], tuple[tuple[tuple[bool, ...], ...], tuple[int, ...], tuple[tuple[int, ...], ...]]] = {}
"""``_Light._seats`` of the tables seen lately."""


class _Light:
    """A mutable copy of what a turn can change, with the rules it needs (mirrors ``rules``)."""

    __slots__ = (
        "admin",
        "admin_pays",
        "cheapest",
        "costs",
        "counts",
        "cur",
        "experts",
        "free",
        "hands",
        "hidden",
        "hours",
        "k",
        "left",
        "limit",
        "live",
        "plans",
        "probs",
        "prot",
        "ranks",
        "receive",
        "role",
        "secs",
        "semi_expert",
        "unseen",
    )

    def __init__(self) -> None:
        self.k = 0
        self.admin = 0
        self.role: tuple[int, ...] = ()
        """Article index each seat is expert on, -1 for the administrator."""
        self.hands: list[list[int]] = []
        """The cards of each hand the planning seat knows of: all of its own, the others' shown ones."""
        self.hidden: tuple[int, ...] = ()
        """How many cards each hand holds that the planning seat has not seen."""
        self.secs: list[int] = []
        self.probs: list[list[int]] = []
        self.prot: list[int] = []
        """0 none, 1 semi, 2 full."""
        self.unseen: list[int] = []
        """Cards the planning seat has not seen (the deck and the others' hidden cards) counted by slot."""
        self.cur = 0
        self.hours = 0
        self.left = 0
        """Turns that can still start after this one."""
        self.limit: int | None = None
        self.admin_pays = True
        self.semi_expert = True
        self.free: tuple[tuple[bool, ...], ...] = ()
        """Whether seat j writes sections of article a without paying."""
        self.experts: tuple[int, ...] = ()
        """How many seats are expert on each article."""
        self.ranks: tuple[tuple[int, ...], ...] = ()
        """Per seat and article: 0 anyone, 1 its expert, 2 its expert (free on semi), 3 the administrator."""
        self.live: list[int] = []
        """Cards still in play (hands, problems, unseen) counted by slot."""
        self.counts: list[list[int]] = []
        """Each hand counted by slot."""
        self.costs: list[list[int]] = []
        """``cost(j, a)`` for every seat and article."""
        self.cheapest: list[int] = []
        """The least any seat pays to fix a problem of each article."""
        self.plans: dict[tuple[int, ...], list[list[tuple[int, int, float]]]] = {}
        """``_Table.plans`` by the sections each article lacks (shared by copies)."""
        self.receive: dict[tuple[int, ...], float] = {}
        """``_Table.receive_gain`` by seat, slot, size of its hand and sections lacking (one turn; shared)."""

    def setup(self) -> None:
        """Work out ``free``, ``experts``, ``live``, ``counts`` and the costs from the rest."""
        static = (self.role, self.admin, self.admin_pays, self.semi_expert)
        seats = _SEATS.get(static)
        if seats is None:
            if len(_SEATS) > 64:
                _SEATS.clear()
            seats = _SEATS[static] = self._seats()
        self.free, self.experts, self.ranks = seats
        live = self.unseen[:]
        for hand in self.hands:
            _count(hand, live)
        for p in self.probs:
            _count(p, live)
        self.live = live
        self.counts = [_count(h) for h in self.hands]
        self.price()

    def _seats(self) -> tuple[tuple[tuple[bool, ...], ...], tuple[int, ...], tuple[tuple[int, ...], ...]]:
        k = self.k
        free = tuple(tuple(not self.pays(j, a) for a in range(_N)) for j in range(k))
        experts = tuple(sum(1 for j in range(k) if j != self.admin and self.role[j] == a) for a in range(_N))
        ranks = tuple(
            tuple(3 if j == self.admin else 1 + self.semi_expert if self.role[j] == a else 0 for a in range(_N))
            for j in range(k)
        )
        return free, experts, ranks

    def price(self) -> None:
        """Work out ``costs`` and ``cheapest`` (again, after a protection)."""
        prot = self.prot
        self.costs = [[_COST[prot[a]][rank[a]] for a in range(_N)] for rank in self.ranks]
        self.cheapest = [min(_COST[prot[a]][r[a]] for r in self.ranks) for a in range(_N)]

    @classmethod
    def of(cls, state: WikipediaState, seat: int | None = None) -> _Light:
        """What seat ``seat`` (by default the one to play) sees of ``state``: its hand, never the others'."""
        light = cls()
        viewer = state.current if seat is None else seat
        light.k = len(state.seats)
        light.admin = state.admin
        light.role = tuple(-1 if j == state.admin else _ART[r] for j, r in enumerate(state.roles))
        light.hands = [list(h) for h in seen_hands(state, viewer)]
        light.hidden = tuple(len(h) - len(s) for h, s in zip(state.hands, light.hands, strict=True))
        light.secs = [len(p.sections) for p in state.pages]
        light.probs = [list(p.problems) for p in state.pages]
        light.prot = [_PROTECTION_CODE[p.protection] for p in state.pages]
        unseen = _count(state.deck)
        for j in range(light.k):
            if j != viewer:
                _count(state.unseen_in_hand(j), unseen)
        light.unseen = unseen
        light.cur = viewer
        light.hours = state.hours
        options = state.options
        light.left = len(state.deck) // options.problems_per_turn
        light.limit = options.hand_limit
        light.admin_pays = options.administrator_pays
        light.semi_expert = options.expert_instant_on_semi
        light.setup()
        return light

    def copy(self) -> _Light:
        light = _Light.__new__(_Light)
        light.k = self.k
        light.admin = self.admin
        light.role = self.role
        light.hands = [h[:] for h in self.hands]
        light.hidden = self.hidden
        light.secs = self.secs[:]
        light.probs = [p[:] for p in self.probs]
        light.prot = self.prot[:]
        light.unseen = self.unseen
        light.cur = self.cur
        light.hours = self.hours
        light.left = self.left
        light.limit = self.limit
        light.admin_pays = self.admin_pays
        light.semi_expert = self.semi_expert
        light.free = self.free
        light.experts = self.experts
        light.ranks = self.ranks
        light.live = self.live[:]
        light.counts = [c[:] for c in self.counts]
        light.costs = self.costs
        light.cheapest = self.cheapest
        light.plans = self.plans
        light.receive = self.receive
        return light

    def cost(self, j: int, a: int) -> int:
        """Hours seat ``j`` needs to pick up a problem from article ``a`` (``rules.fix_cost``)."""
        p = self.prot[a]
        if p == 2:
            return 0
        admin = j == self.admin
        expert = self.role[j] == a
        if p == 1:
            return 0 if admin or (expert and self.semi_expert) else 1
        return 1 if admin or expert else 2

    def pays(self, j: int, a: int) -> bool:
        """Whether seat ``j`` discards a card to add a section to ``a`` (``rules.needs_payment``)."""
        if j == self.admin:
            return self.admin_pays
        return self.role[j] != a

    def room(self, j: int) -> bool:
        return self.limit is None or len(self.hands[j]) + self.hidden[j] < self.limit

    def protectable(self, a: int) -> bool:
        """Whether the administrator could protect ``a`` now (``rules.protection_for``)."""
        if self.probs[a]:
            return False
        n = self.secs[a]
        return (n >= FA_SECTIONS and self.prot[a] < 2) or (n >= GA_SECTIONS and self.prot[a] == 0)

    def won(self) -> bool:
        return all(n >= GA_SECTIONS for n in self.secs) and not any(self.probs)

    def apply(self, act: _Act) -> bool:
        """Carry out a legal action of the current seat; True when it wins the game."""
        kind = act[0]
        hand = self.hands[self.cur]
        counts = self.counts[self.cur]
        if kind == _SECTION:
            live = self.live
            for card in act[1:]:
                if card:
                    hand.remove(card)
                    slot = _SLOT[card]
                    live[slot] -= 1
                    counts[slot] -= 1
            self.secs[_ART[act[1]]] += 1
            self.hours -= 1
            return self.won()
        if kind == _FIX:
            card = act[1]
            a = _ART[card]
            self.hours -= self.costs[self.cur][a]
            self.probs[a].remove(card)
            hand.append(card)
            counts[_SLOT[card]] += 1
            return self.won()
        if kind == _PROTECT:
            a = act[1]
            self.prot[a] = 2 if self.secs[a] >= FA_SECTIONS else 1
            self.price()
            self.hours -= 1
        elif kind == _GIVE:
            card = act[1]
            hand.remove(card)
            self.hands[act[2]].append(card)
            counts[_SLOT[card]] -= 1
            self.counts[act[2]][_SLOT[card]] += 1
            self.hours -= 1
        else:
            self.hours = 0
        return False


@dataclass(frozen=True, slots=True)
class Tactics:
    """Knobs of the editor (``TACTICS`` holds what self-play found best for each number of players)."""

    protect: bool = True
    give: bool = True
    paid_weight: float = 0.9
    """What a section its writer must pay for is worth, against 1 for a free one."""
    pay_threshold: float = 1.5
    """A non-expert writes a section when the payment costs the table at most this much."""
    expert_writes: int = 8
    """While more turns than this remain, sections of an article with an expert are left to it."""
    source_first: int = 1
    """Before backing a section with a link, fix a source of its article lying on it at up to this many hours."""
    support_weight: float = 1.8
    """Scarcity of a source or link against a fact with the same slack."""
    endgame: int = 0
    """While fewer turns than this remain, clearing problems comes before all but the surest gifts."""
    endgame_give: float = 0.9
    """Smallest gain of a gift in the endgame."""
    give_first: float = 1.3
    """Smallest gain (in sections) of a gift worth more than any one-hour fix."""
    give_threshold: float = 1.0
    """Smallest gain (in sections) that is worth an hour of giving before slow fixes."""
    give_delay: float = 0.0
    """What a gift loses per turn the receiver waits for its turn."""
    future_bonus: float = 2.0
    """Worth of handing an expert a fact or source of their article they cannot pair yet."""
    link_bonus: float = 1.0
    """Worth of handing an expert a link while their article lacks support."""
    fix_urgency: float = 0.5
    """Weight of how far along an article is when choosing which problem to fix."""
    cheapest_bonus: float = 4.0
    """Bonus for fixing a problem no player still to play could fix in less time."""
    orphan_bonus: float = 1.5
    """Bonus for fixing a problem of an article without an expert."""
    admin_expert_penalty: float = 0.5
    """What the administrator's fix of an article with an expert loses (its hours are scarcer)."""
    card_gain: float = 3.0
    """Weight of what a problem card adds to the fixer's hand when choosing which problem to fix."""
    scarcity_weight: float = 1.0
    """Weight of how scarce a card's kind is when choosing what to pay with."""
    pack_hours: int = 2
    """With at most this many hours left, take a two-hour fix rather than strand the last hour."""


TACTICS: dict[int, Tactics] = {
    2: Tactics(
        paid_weight=0.7,
        expert_writes=3,
        give_first=1.0,
        cheapest_bonus=2.0,
        orphan_bonus=2.5,
        card_gain=2.5,
        support_weight=2.5,
        endgame=2,
        endgame_give=0.5,
    ),
    3: Tactics(give_first=1.0, fix_urgency=0.3, cheapest_bonus=2.0, endgame=2, endgame_give=1.3),
    4: Tactics(expert_writes=5, support_weight=0.8, endgame=3, endgame_give=1.3),
    5: Tactics(
        pay_threshold=3.0,
        give_delay=0.05,
        fix_urgency=0.3,
        cheapest_bonus=2.0,
        support_weight=0.8,
        source_first=0,
        endgame=2,
        endgame_give=1.3,
    ),
}
"""What self-play found best for each number of players (cards are scarcer, hours less so, with fewer)."""


class _Table:
    """What one choice needs, computed once per call."""

    def __init__(self, light: _Light, tactics: Tactics) -> None:
        self.light = light
        self.tactics = tactics
        i = self.i = light.cur
        k = self.k = light.k
        self.hand = light.hands[i]
        self.hours = light.hours
        self.sections = light.secs
        self.turns_left = light.left
        self.need = [GA_SECTIONS - n if n < GA_SECTIONS else 0 for n in light.secs]
        self.last_turn = self.turns_left == 0
        self.counts = light.counts
        self.free = light.free
        self.experts = light.experts
        self.costs = light.costs
        if self.turns_left + 1 >= k:
            self.cheapest = light.cheapest
            self.writers = light.experts
        else:
            active = [j for j in range(k) if (j - i) % k <= self.turns_left]
            self.cheapest = [min(self.costs[j][a] for j in active) for a in range(_N)]
            self.writers = tuple(sum(1 for j in active if light.free[j][a] and j != light.admin) for a in range(_N))
        """The least any seat still to play pays to fix each article; experts still to play on each."""
        plans = light.plans.get(tuple(self.need))
        if plans is None:
            plans = light.plans[tuple(self.need)] = self._plans()
        self.plans = plans
        """Per seat: (article, sections it lacks, worth of one) for needy articles, free ones first."""
        self._slack: tuple[list[int], list[int], int] | None = None
        self._gift: tuple[float, int, int] | bool | None = False
        self._memo: dict[int, float] = {}
        """Potentials of a seat's hand with (key ``16 j + slot``) or without (``-1 - key``) one more card."""

    def _plans(self) -> list[list[tuple[int, int, float]]]:
        paid = self.tactics.paid_weight
        need = self.need
        needy = [a for _, a in sorted((-n, a) for a, n in enumerate(need) if n)]
        plans = []
        for row in self.free:
            plan = [(a, need[a], 1.0) for a in needy if row[a]]
            plan.extend((a, need[a], paid) for a in needy if not row[a])
            plans.append(plan)
        return plans

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
            if paired < usable:
                linked = pool - counts[_LINKS + a]
                linked = min(linked, usable - paired)
                if linked > 0:
                    pool -= linked
                    paired += linked
            total += paired * worth
        return total

    def base(self, j: int) -> float:
        """Seat ``j``'s potential with its hand as it is."""
        value = self._memo.get(j + 1000)
        if value is None:
            value = self._memo[j + 1000] = self.potential(j, self.counts[j])
        return value

    def potential_without(self, j: int, card: int) -> float:
        slot = _SLOT[card]
        key = -1 - (j * 16 + slot)
        value = self._memo.get(key)
        if value is None:
            counts = self.counts[j]
            counts[slot] -= 1
            value = self._memo[key] = self.potential(j, counts)
            counts[slot] += 1
        return value

    def potential_with(self, j: int, card: int) -> float:
        slot = _SLOT[card]
        key = j * 16 + slot
        value = self._memo.get(key)
        if value is None:
            counts = self.counts[j]
            counts[slot] += 1
            value = self._memo[key] = self.potential(j, counts)
            counts[slot] -= 1
        return value

    def loss(self, j: int, card: int) -> float:
        """How much the table loses if seat ``j`` parts with ``card`` for good (as a payment)."""
        own = self.base(j) - self.potential_without(j, card)
        return own + self.tactics.scarcity_weight * self.scarcity(card)

    def slack(self) -> tuple[list[int], list[int], int]:
        """Cards to spare (in hands, problems and unseen) once the sections wanted are written.

        Facts by article, supports by article (its sources and links to others) and supports in
        all (sources an article can still use, and links).
        """
        if self._slack is None:
            left = self.light.live
            need = self.need
            links = left[_LINKS] + left[_LINKS + 1] + left[_LINKS + 2] + left[_LINKS + 3]
            facts = [left[_FACTS + a] - need[a] for a in range(_N)]
            supports = [left[_SOURCES + a] + links - left[_LINKS + a] - need[a] for a in range(_N)]
            sources = 0
            for a in range(_N):
                sources += left[_SOURCES + a] if left[_SOURCES + a] < need[a] else need[a]
            self._slack = (facts, supports, sources + links - sum(need))
        return self._slack

    def scarcity(self, card: int) -> float:
        """How badly the table needs ``card`` to finish, judged by what is left of its kind."""
        a = _ART[card]
        kind = _KIND[card]
        if kind == _FACT:
            if self.need[a] == 0:
                return 0.0
            return _scarce(self.slack()[0][a])
        if kind == _SOURCE:
            if self.need[a] == 0:
                return 0.0
            _, supports, spare = self.slack()
            return self.tactics.support_weight * _scarce(min(supports[a], spare))
        if not any(self.need[b] for b in range(_N) if b != a):
            return 0.0
        return self.tactics.support_weight * _scarce(self.slack()[2])

    def best_gift(self) -> tuple[float, int, int] | None:
        """The gift that gains most, as (gain, card, seat), or None (computed once)."""
        if self._gift is not False:
            return self._gift  # type: ignore[return-value]
        best: tuple[float, int, int] | None = None
        if self.tactics.give and not self.last_turn:
            light = self.light
            mine = self.base(self.i)
            cards: dict[int, int] = {}
            for card in self.hand:
                cards.setdefault(_SLOT[card], card)
            keeps = {slot: mine - self.potential_without(self.i, card) for slot, card in cards.items()}
            cache = light.receive
            need = tuple(self.need)
            delay = self.tactics.give_delay
            for to in range(self.k):
                if to == self.i or not self.reachable(to) or not light.room(to):
                    continue
                size = len(light.hands[to])
                late = delay * ((to - self.i) % self.k)
                for slot, card in cards.items():
                    key = (to, slot, size, *need)
                    gain = cache.get(key)
                    if gain is None:
                        gain = cache[key] = self.receive_gain(card, to)
                    gain -= keeps[slot] + late
                    if best is None or gain > best[0]:
                        best = (gain, card, to)
        self._gift = best
        return best

    def receive_gain(self, card: int, to: int) -> float:
        """What ``card`` adds to seat ``to``, this seat's turn (its hand within a turn is known by its size)."""
        counts = self.counts[to]
        theirs = self.base(to)
        slot = _SLOT[card]
        counts[slot] += 1
        gain = self.potential(to, counts) - theirs
        counts[slot] -= 1
        a = _ART[card]
        tactics = self.tactics
        if _KIND[card] != _LINK:
            if self.need[a] and self.free[to][a] and not self.free[self.i][a]:
                gain += tactics.future_bonus
        elif tactics.link_bonus:
            links = counts[_LINKS] + counts[_LINKS + 1] + counts[_LINKS + 2] + counts[_LINKS + 3]
            for b in range(_N):
                if (
                    b != a
                    and self.need[b]
                    and self.free[to][b]
                    and not self.free[self.i][b]
                    and counts[_SOURCES + b] + links - counts[_LINKS + b] < self.need[b]
                ):
                    gain += tactics.link_bonus
                    break
        return gain


class GreedyEditor:
    """The computer seat of the Wikipedia game (an ``AISeat``)."""

    def __init__(self, tactics: Tactics | None = None) -> None:
        self.tactics = tactics
        """Fixed knobs, or None for those of ``TACTICS`` for the number of players."""
        self._planned: dict[tuple[object, ...], tuple[WikipediaOptions, tuple[object, ...], WikipediaAction]] = {}
        """The rest of each turn under way: by (seats, turn, actions so far), the table expected then and its move."""

    def choose(self, state: WikipediaState, seat: str, rng: random.Random) -> WikipediaAction:
        """The editor is deterministic (``rng`` is unused): the same table always gets the same move."""
        del rng
        if state.outcome is not Outcome.PLAYING:
            return EndTurn()
        planned = self._planned.pop((state.seats, state.turn, state.actions), None)
        me = state.seats.index(seat)
        if planned is not None and planned[0] is state.options and planned[1] == _table_of(state, me):
            return planned[2]
        light = _Light.of(state, me)
        tactics = self.tactics or TACTICS.get(light.k) or Tactics()
        acts = plan_turn(light.copy(), tactics)
        if len(self._planned) > 256:
            self._planned.clear()
        self._remember(state, light, acts)
        return _action(state, acts[0])

    def _remember(self, state: WikipediaState, light: _Light, acts: list[_Act]) -> None:
        """File the moves after the first under the tables they will be played on."""
        actions = state.actions
        for n in range(1, len(acts)):
            if light.apply(acts[n - 1]) or light.hours <= 0:
                return
            actions += 1
            table = (
                state.roles,
                len(state.deck),
                light.hours,
                tuple(tuple(h) for h in light.hands),
                tuple(tuple(p) for p in light.probs),
                tuple(zip(light.secs, light.prot, strict=True)),
            )
            self._planned[state.seats, state.turn, actions] = (state.options, table, _action(state, acts[n]))


def seen_hands(state: WikipediaState, seat: int) -> tuple[tuple[int, ...], ...]:
    """Every hand as ``seat`` knows it: its own whole, of the others the cards that reached them in the open."""
    if state.concealed is None:
        return tuple(h if j == seat else () for j, h in enumerate(state.hands))
    return tuple(
        h if j == seat or not hidden else tuple(c for c in h if c not in hidden)
        for j, (h, hidden) in enumerate(zip(state.hands, state.concealed, strict=True))
    )


def _table_of(state: WikipediaState, seat: int) -> tuple[object, ...]:
    """What of ``state`` a planned move relies on (compared with what ``_remember`` expected)."""
    return (
        state.roles,
        len(state.deck),
        state.hours,
        seen_hands(state, seat),
        tuple(p.problems for p in state.pages),
        tuple((len(p.sections), _PROTECTION_CODE[p.protection]) for p in state.pages),
    )


def _action(state: WikipediaState, act: _Act) -> WikipediaAction:
    kind = act[0]
    if kind == _SECTION:
        return AddSection(fact=act[1], support=act[2], payment=act[3] or None)
    if kind == _FIX:
        return FixProblem(card=act[1])
    if kind == _PROTECT:
        return Protect(article=ARTICLES[act[1]])
    if kind == _GIVE:
        return GiveCard(card=act[1], to=state.seats[act[2]])
    return EndTurn()


# --- planning a turn --------------------------------------------------------------------------


def plan_turn(light: _Light, tactics: Tactics, *, pack: bool = True) -> list[_Act]:
    """The moves of the current seat for the rest of its turn (``light`` is changed)."""
    acts: list[_Act] = []
    if pack:
        light.receive = {}
        light.plans = {}
    while light.hours > 0:
        act = _choose(light, tactics)
        if pack and tactics.pack_hours and 2 <= light.hours <= tactics.pack_hours and _quick(light, act):
            act = _packed(light, tactics, act)
        acts.append(act)
        if act[0] == _END or light.apply(act):
            break
    return acts


def _quick(light: _Light, act: _Act) -> bool:
    """Whether ``act`` is a one-hour fix or a gift (what a two-hour fix may replace)."""
    return act[0] == _GIVE or (act[0] == _FIX and light.costs[light.cur][_ART[act[1]]] == 1)


def _packed(light: _Light, tactics: Tactics, act: _Act) -> _Act:
    """A two-hour fix instead of ``act`` when ``act`` would leave the turn's last hour idle."""
    slow = _fix(_Table(light, tactics), 2)
    if slow is None or light.costs[light.cur][_ART[slow[1]]] != 2:
        return act
    trial = light.copy()
    trial.receive = {}
    if trial.apply(act):
        return act
    plan_turn(trial, tactics, pack=False)
    return slow if trial.hours > 0 and not trial.won() else act


def _choose(light: _Light, tactics: Tactics) -> _Act:
    t = _Table(light, tactics)
    if t.turns_left < tactics.endgame:
        return (
            _finish(t)
            or _free_fix(t)
            or _section(t)
            or _protect(t)
            or _give(t, tactics.endgame_give)
            or _cleanup(t)
            or _give(t, 0.05)
            or (_END,)
        )
    return (
        _finish(t)
        or _free_fix(t)
        or _section(t)
        or _protect(t)
        or _give(t, tactics.give_first)
        or _fix(t, 1)
        or _give(t, tactics.give_threshold)
        or _fix(t, 2)
        or _give(t, 0.05)
        or (_END,)
    )


def _finish(t: _Table) -> _Act | None:
    """A move towards winning this turn, when the hand and the problems are enough."""
    light = t.light
    if not light.room(t.i):
        return None
    need = sum(t.need)
    if need > t.hours:
        return None
    row = t.costs[t.i]
    if sum(row[a] * len(light.probs[a]) for a in range(_N)) + need > t.hours:
        return None
    costs = [(row[a], c) for a in range(_N) for c in light.probs[a]]
    if not need:
        return (_FIX, min(costs)[1]) if costs else None
    win = _winning_sections(t, [c for _, c in costs])
    if win is None:
        return None
    return (_FIX, min(costs)[1]) if costs else win[0]


def _winning_sections(t: _Table, extra: list[int]) -> list[_Act] | None:
    """Sections for every article short of a GA from the hand and ``extra`` cards, or None."""
    light = t.light
    if light.limit is not None and len(t.hand) + len(extra) > light.limit:
        return None
    cards = [*t.hand, *extra]
    needy = [a for a in range(_N) if t.need[a]]
    for order in permutations(needy):
        pool = cards[:]
        out: list[_Act] = []
        for a in order:
            for _ in range(t.need[a]):
                fact = next((c for c in pool if _KIND[c] == _FACT and _ART[c] == a), None)
                if fact is None:
                    break
                pool.remove(fact)
                support = next((c for c in pool if _KIND[c] == _SOURCE and _ART[c] == a), None)
                if support is None:
                    links = [c for c in pool if _KIND[c] == _LINK and _ART[c] != a]
                    if not links:
                        break
                    support = max(links, key=lambda c: t.need[_ART[c]])
                pool.remove(support)
                out.append((_SECTION, fact, support, 0))
            else:
                continue
            break
        else:
            paid: list[_Act] = []
            for sec in out:
                if light.pays(t.i, _ART[sec[1]]):
                    if not pool:
                        break
                    paid.append((_SECTION, sec[1], sec[2], pool.pop()))
                else:
                    paid.append(sec)
            else:
                return paid
    return None


def _free_fix(t: _Table) -> _Act | None:
    light = t.light
    if not light.room(t.i):
        return None
    free = [c for a in range(_N) if t.costs[t.i][a] == 0 for c in light.probs[a]]
    return (_FIX, max(free, key=t.scarcity)) if free else None


def _section(t: _Table) -> _Act | None:
    tactics = t.tactics
    best: tuple[float, _Act] | None = None
    counts = t.counts[t.i]
    links = counts[_LINKS] + counts[_LINKS + 1] + counts[_LINKS + 2] + counts[_LINKS + 3]
    for a in range(_N):
        if not t.need[a] or not counts[a] or not (counts[_SOURCES + a] or links - counts[_LINKS + a]):
            continue
        pair = _pair(t, a)
        if pair is None:
            continue
        fact, support = pair
        if t.free[t.i][a]:
            score = 10.0 - t.sections[a]
            candidate: _Act = (_SECTION, fact, support, 0)
        else:
            if t.writers[a] and t.turns_left > tactics.expert_writes:
                continue
            rest = [c for c in t.hand if c not in (fact, support)]
            if not rest:
                continue
            payment = min(rest, key=lambda c: t.loss(t.i, c))
            cost = t.loss(t.i, payment)
            if cost > tactics.pay_threshold and not t.last_turn:
                continue
            score = 5.0 - t.sections[a] - cost
            candidate = (_SECTION, fact, support, payment)
        if best is None or score > best[0]:
            best = (score, candidate)
    if best is None:
        return None
    act = best[1]
    if tactics.source_first and _KIND[act[2]] == _LINK and t.hours >= 2 and t.light.room(t.i):
        a = _ART[act[1]]
        if t.costs[t.i][a] <= tactics.source_first:
            source = next((c for c in t.light.probs[a] if _KIND[c] == _SOURCE), None)
            if source is not None:
                return (_FIX, source)
    return act


def _protect(t: _Table) -> _Act | None:
    light = t.light
    if not t.tactics.protect or t.i != light.admin or t.last_turn:
        return None
    for a in range(_N):
        if light.protectable(a):
            return (_PROTECT, a)
    return None


def _cleanup(t: _Table) -> _Act | None:
    """Endgame: the problem this seat clears most cheaply compared with the seats still to play."""
    light = t.light
    if not light.room(t.i):
        return None
    best: tuple[float, int] | None = None
    costs = t.costs[t.i]
    base = t.base(t.i)
    for a in range(_N):
        cost = costs[a]
        if not light.probs[a] or cost > t.hours:
            continue
        saving = 2 * (t.cheapest[a] - cost) - cost
        for card in light.probs[a]:
            score = saving + t.tactics.card_gain * (t.potential_with(t.i, card) - base)
            if best is None or score > best[0]:
                best = (score, card)
    return (_FIX, best[1]) if best is not None else None


def _fix(t: _Table, max_cost: int) -> _Act | None:
    light = t.light
    if not light.room(t.i):
        return None
    tactics = t.tactics
    best: tuple[float, int] | None = None
    base = t.base(t.i)
    costs = t.costs[t.i]
    for a in range(_N):
        problems = light.probs[a]
        cost = costs[a]
        if not problems or cost > max_cost or cost > t.hours:
            continue
        urgency = tactics.fix_urgency * (t.sections[a] + (2.0 if t.need[a] == 0 else 0.0))
        if not t.experts[a]:
            urgency += tactics.orphan_bonus
        elif t.i == light.admin:
            urgency -= tactics.admin_expert_penalty
        if cost <= t.cheapest[a]:
            urgency += tactics.cheapest_bonus
        seen = 0
        for card in problems:
            bit = 1 << _SLOT[card]
            if seen & bit:
                continue
            seen |= bit
            gain = t.potential_with(t.i, card) - base
            score = urgency + tactics.card_gain * gain + 0.1 * t.scarcity(card)
            if best is None or score > best[0]:
                best = (score, card)
    return (_FIX, best[1]) if best is not None else None


def _give(t: _Table, threshold: float) -> _Act | None:
    best = t.best_gift()
    if best is None or best[0] <= threshold:
        return None
    return (_GIVE, best[1], best[2])


def _pair(t: _Table, article: int) -> tuple[int, int] | None:
    """A fact of ``article`` in hand and its best support: a source first, else the least wanted link."""
    fact = next((c for c in t.hand if _KIND[c] == _FACT and _ART[c] == article), None)
    if fact is None:
        return None
    links: list[int] = []
    for c in t.hand:
        if _supports(c, article):
            if _KIND[c] == _SOURCE:
                return fact, c
            links.append(c)
    if not links:
        return None
    return fact, max(links, key=lambda c: t.need[_ART[c]])
