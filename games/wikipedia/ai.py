"""A cooperative computer editor: it plans each whole turn on a light copy of the table.

It sees what a player at the table sees: its own hand, the articles, and the cards of the other
hands it can name (``WikipediaState.known``: problems picked up in the open, its own gifts). The
others' cards it cannot name count with the deck as unseen; it never reads them, nor the order of
the deck.

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

The greedy choices are short-sighted where it matters most, in the last turns: which problem to
clear, which card to hand on, whether to make an FA and fully protect it so that the players still
to come clear its problems for nothing. So while few turns are left (``Tactics.search_turns``), the
first move of a turn is chosen by look-ahead (``plan_search``): every distinct first move (each kind
of problem, each section, protection, the most useful gifts) is followed by the greedy rest of the
turn, and then the rest of the game is played by greedy editors at every seat, on a few guesses at
the cards this seat has not seen (``_deal``: the same guesses for every plan, drawn with a generator
seeded by public facts). The plan that wins on most guesses is played; ties go to the greedy plan.
Positions with more sections missing than the turns left could write are not searched.
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
        "hpt",
        "k",
        "left",
        "limit",
        "live",
        "pool",
        "ppt",
        "probs",
        "prot",
        "ranks",
        "receive",
        "role",
        "secs",
        "seed",
        "semi_expert",
        "static",
        "unseen",
    )

    def __init__(self) -> None:
        self.k = 0
        self.admin = 0
        self.role: tuple[int, ...] = ()
        """Article index each seat is expert on, -1 for the administrator."""
        self.hands: list[list[int]] = []
        """The cards of each hand the planning seat can name: all of its own, some of the others'."""
        self.hidden: tuple[int, ...] = ()
        """How many cards of each hand the planning seat cannot name."""
        self.secs: list[int] = []
        self.probs: list[list[int]] = []
        self.prot: list[int] = []
        """0 none, 1 semi, 2 full."""
        self.unseen: list[int] = []
        """Cards the planning seat has not seen (the deck and the others' cards it cannot name) by slot."""
        self.pool: tuple[int, ...] = ()
        """The unseen cards themselves, in order of number."""
        self.hpt = 4
        self.ppt = 2
        """Hours a turn and problems a turn."""
        self.seed = 0
        """Where this seat's samples of the unseen cards start (from public facts only)."""
        self.cur = 0
        self.hours = 0
        self.left = 0
        """Turns that can still start after this one."""
        self.limit: int | None = None
        self.admin_pays = True
        self.semi_expert = True
        self.static: tuple[object, ...] = ()
        """What decides ``free``, ``experts`` and ``ranks`` (the key of ``_SEATS``)."""
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
        self.receive: dict[tuple[int, ...], dict[int, float]] = {}
        """``_Table.receive_gain`` by giver, receiver, sections lacking and the receiver's hand, then slot (shared)."""

    def setup(self) -> None:
        """Work out ``free``, ``experts``, ``live``, ``counts`` and the costs from the rest."""
        static = self.static = (self.role, self.admin, self.admin_pays, self.semi_expert)
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
        pool = list(state.deck)
        for j in range(light.k):
            if j != viewer:
                pool.extend(state.hidden_from(viewer, j))
        light.pool = tuple(sorted(pool))
        light.unseen = _count(pool)
        light.seed = state.turn * 1000 + state.actions
        light.cur = viewer
        light.hours = state.hours
        options = state.options
        light.left = len(state.deck) // options.problems_per_turn
        light.limit = options.hand_limit
        light.hpt = options.hours_per_turn
        light.ppt = options.problems_per_turn
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
        light.pool = self.pool
        light.hpt = self.hpt
        light.ppt = self.ppt
        light.seed = self.seed
        light.cur = self.cur
        light.hours = self.hours
        light.left = self.left
        light.limit = self.limit
        light.admin_pays = self.admin_pays
        light.semi_expert = self.semi_expert
        light.static = self.static
        light.free = self.free
        light.experts = self.experts
        light.ranks = self.ranks
        light.live = self.live[:]
        light.counts = [c[:] for c in self.counts]
        light.costs = self.costs
        light.cheapest = self.cheapest
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
    search_turns: int = 3
    """While at most this many turns can start after this one, each turn's first move is chosen by look-ahead."""
    search_samples: int = 3
    """Samples of the unseen cards the look-ahead plays the rest of the game out on (0: no look-ahead)."""
    search_gifts: int = 3
    """How many gifts, the most useful first, the look-ahead tries as a first move."""
    search_reach: int = 0
    """Sections missing beyond one a turn still to come (this one included) past which the look-ahead gives up."""


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
    3: Tactics(
        give_first=1.0,
        fix_urgency=0.3,
        cheapest_bonus=2.0,
        endgame=2,
        endgame_give=1.3,
        search_samples=4,
        search_gifts=4,
    ),
    4: Tactics(expert_writes=5, support_weight=0.8, endgame=3, endgame_give=2.0),
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
"""What self-play found best for each number of players (cards are scarcer, hours less so, with fewer).

The look-ahead's effort trades wins for speed (``python -m bot selfplay`` keeps to about 200 games a
second on two cores): three samples and three gifts, four of each at three players, where they win most.
"""


_CACHE = 4096
_LATE: dict[tuple[object, ...], tuple[list[int], tuple[int, ...]]] = {}
"""``_Table.cheapest`` and ``_Table.writers`` late in a game, by seats, seat to play, turns left and protection."""
_PLANS: dict[tuple[object, ...], list[list[tuple[int, int, float]]]] = {}
"""``_Table.plans`` by seats, the worth of a paid section and the sections each article lacks."""


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
            key = (light.static, i, self.turns_left, *light.prot)
            late = _LATE.get(key)
            if late is None:
                if len(_LATE) > _CACHE:
                    _LATE.clear()
                active = [j for j in range(k) if (j - i) % k <= self.turns_left]
                cheapest = [min(self.costs[j][a] for j in active) for a in range(_N)]
                writers = tuple(sum(1 for j in active if light.free[j][a] and j != light.admin) for a in range(_N))
                late = _LATE[key] = (cheapest, writers)
            self.cheapest, self.writers = late
        """The least any seat still to play pays to fix each article; experts still to play on each."""
        key = (light.static, tactics.paid_weight, *self.need)
        plans = _PLANS.get(key)
        if plans is None:
            if len(_PLANS) > _CACHE:
                _PLANS.clear()
            plans = _PLANS[key] = self._plans()
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
            i, k, left = self.i, self.k, self.turns_left
            mine = self.base(i)
            cards: dict[int, int] = {}
            for card in self.hand:
                if _SLOT[card] not in cards:
                    cards[_SLOT[card]] = card
            keeps = [(slot, card, mine - self.potential_without(i, card)) for slot, card in cards.items()]
            receive = light.receive
            delay = self.tactics.give_delay
            need = self.need
            for to in range(k):
                if to == i or (to - i) % k > left or not light.room(to):
                    continue
                key = (i, to, *need, *self.counts[to])
                cache = receive.get(key)
                if cache is None:
                    if len(receive) > _CACHE:
                        receive.clear()
                    cache = receive[key] = {}
                late = delay * ((to - i) % k)
                for slot, card, keep in keeps:
                    gain = cache.get(slot)
                    if gain is None:
                        gain = cache[slot] = self.receive_gain(card, to)
                    gain -= keep + late
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
        acts = plan(light, tactics)
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
    """Every hand as ``seat`` knows it: its own whole, of the others the cards it can name."""
    return tuple(state.known_to(seat, j) for j in range(len(state.seats)))


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


def plan(light: _Light, tactics: Tactics) -> list[_Act]:
    """The moves of the seat to play for the rest of its turn (``light`` is left as it was).

    In the last turns (``Tactics.search_turns``) the greedy plan is weighed against plans that start
    with another move, by playing the rest of the game out on samples of the unseen cards.
    """
    acts = plan_turn(light.copy(), tactics)
    if not 1 <= light.left <= tactics.search_turns or not tactics.search_samples:
        return acts
    if _hopeless(light, tactics):
        return acts
    return plan_search(light, tactics, acts)


def plan_search(light: _Light, tactics: Tactics, greedy: list[_Act]) -> list[_Act]:
    """Of the greedy plan and the plans that start with each other move, the one that wins most often.

    Each plan is played to the end of the turn, then the rest of the game is played by the greedy
    editor at every seat, once for each sample of the cards this seat has not seen (the same
    samples for every plan). A plan that wins this turn is taken at once; ties go to the greedy plan.
    """
    plans: list[tuple[list[_Act], _Light]] = []
    ends: set[tuple[object, ...]] = set()
    for first in (None, *_first_moves(light, tactics, greedy[0])):
        after = light.copy()
        if first is None:
            acts = greedy
            won = False
            for act in acts:
                if act[0] == _END:
                    break
                if after.apply(act):
                    won = True
                    break
        else:
            won = after.apply(first)
            acts = [first]
            if not won and first[0] != _END and after.hours > 0:
                acts.extend(plan_turn(after, tactics))
                won = after.won()
        if won:
            return acts
        key = _state_key(after)
        if key in ends:
            continue
        ends.add(key)
        plans.append((acts, after))
    if len(plans) == 1:
        return greedy
    rng = random.Random(light.seed)
    deals = [_deal(light, rng) for _ in range(tactics.search_samples)]
    greedy_wins = sum(_rollout(plans[0][1], hidden, deck, tactics) for hidden, deck in deals)
    if greedy_wins == len(deals):
        return greedy
    best = (greedy_wins, greedy)
    for acts, after in plans[1:]:
        wins = 0
        for n, (hidden, deck) in enumerate(deals):
            if wins + len(deals) - n <= best[0]:
                break
            wins += _rollout(after, hidden, deck, tactics)
        if wins > best[0]:
            best = (wins, acts)
            if wins == len(deals):
                break
    return best[1]


def _state_key(light: _Light) -> tuple[object, ...]:
    """What of a table the rest of the game depends on, the same whatever order the turn's moves came in."""
    return (
        tuple(tuple(c) for c in light.counts),
        tuple(tuple(sorted(p)) for p in light.probs),
        tuple(light.secs),
        tuple(light.prot),
    )


def _first_moves(light: _Light, tactics: Tactics, skip: _Act) -> list[_Act]:
    """The moves worth trying first but ``skip``: each kind of fix and section, protection, the best gifts."""
    i = light.cur
    hand = light.hands[i]
    out: list[_Act] = []
    seen: set[tuple[int, ...]] = set()
    if light.room(i):
        row = light.costs[i]
        for a in range(_N):
            if row[a] <= light.hours:
                for card in light.probs[a]:
                    key: tuple[int, ...] = (_FIX, _SLOT[card])
                    if key not in seen:
                        seen.add(key)
                        out.append((_FIX, card))
    for fact in hand:
        if _KIND[fact] != _FACT:
            continue
        a = _ART[fact]
        pays = light.pays(i, a)
        for support in hand:
            if support == fact or not _supports(support, a):
                continue
            payments = [c for c in hand if c not in (fact, support)] if pays else [0]
            for payment in payments:
                key = (_SECTION, _SLOT[fact], _SLOT[support], _SLOT[payment] if payment else -1)
                if key not in seen:
                    seen.add(key)
                    out.append((_SECTION, fact, support, payment))
    if i == light.admin and tactics.protect:
        out.extend((_PROTECT, a) for a in range(_N) if light.protectable(a))
    if tactics.search_gifts and tactics.give:
        t = _Table(light.copy(), tactics)
        mine = t.base(i)
        gifts: list[tuple[float, int, int]] = []
        for to in range(light.k):
            if to == i or not t.reachable(to) or not light.room(to):
                continue
            for card in hand:
                key = (_GIVE, _SLOT[card], to)
                if key not in seen:
                    seen.add(key)
                    gain = t.receive_gain(card, to) - mine + t.potential_without(i, card)
                    gifts.append((-gain, card, to))
        gifts.sort()
        out.extend((_GIVE, card, to) for _, card, to in gifts[: tactics.search_gifts])
    return [act for act in out if act != skip]


def _deal(light: _Light, rng: random.Random) -> tuple[list[list[int]], list[int]]:
    """A guess at the cards this seat has not seen: the others' hidden cards and the deck in order.

    Drawn from the unseen cards only, by a generator seeded with public facts, so that neither the
    order of the deck nor anyone's hidden cards can change the guess.
    """
    cards = list(light.pool)
    rng.shuffle(cards)
    hidden: list[list[int]] = []
    n = 0
    for j in range(light.k):
        h = light.hidden[j] if j != light.cur else 0
        hidden.append(cards[n : n + h])
        n += h
    return hidden, cards[n:]


def _rollout(after: _Light, hidden: list[list[int]], deck: list[int], tactics: Tactics) -> bool:
    """Whether the greedy editors win from the end of this turn, with these hidden cards and this deck."""
    light = after.copy()
    for j, cards in enumerate(hidden):
        if cards:
            light.hands[j].extend(cards)
            _count(cards, light.counts[j])
    light.hidden = (0,) * light.k
    light.unseen = _count(deck)
    ppt = light.ppt
    top = 0
    while True:
        if len(deck) - top < ppt:
            return False
        for card in deck[top : top + ppt]:
            light.probs[_ART[card]].append(card)
            light.unseen[_SLOT[card]] -= 1
        top += ppt
        light.cur = (light.cur + 1) % light.k
        light.hours = light.hpt
        light.left = (len(deck) - top) // ppt
        if _hopeless(light, tactics, everyone=False):
            return False
        if not light.left:
            return can_finish(light)
        plan_turn(light, tactics)
        if light.won():
            return True


def _hopeless(light: _Light, tactics: Tactics, *, everyone: bool = True) -> bool:
    """Whether more sections are missing than the turns left could plausibly write (the look-ahead gives up).

    Each turn still to come (this one included) is reckoned good for one section, on top of those that
    the hands known to this seat (or only the hand of the seat to play) could write at once.
    """
    need = [GA_SECTIONS - n if n < GA_SECTIONS else 0 for n in light.secs]
    missing = sum(need)
    reach = light.left + 1 + tactics.search_reach
    if missing <= reach:
        return False
    for counts in light.counts if everyone else (light.counts[light.cur],):
        links = counts[_LINKS] + counts[_LINKS + 1] + counts[_LINKS + 2] + counts[_LINKS + 3]
        for a in range(_N):
            if need[a] and counts[a]:
                facts = min(counts[a], need[a])
                ready = min(facts, counts[_SOURCES + a])
                if ready < facts:
                    linked = min(facts - ready, links - counts[_LINKS + a])
                    if linked > 0:
                        ready += linked
                        links -= linked
                reach += ready
        if missing <= reach:
            return False
    return True


def plan_turn(light: _Light, tactics: Tactics, *, pack: bool = True) -> list[_Act]:
    """The moves of the current seat for the rest of its turn (``light`` is changed)."""
    acts: list[_Act] = []
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
    win = _winning_sections(light, t.need, [c for _, c in costs])
    if win is None:
        return None
    return (_FIX, min(costs)[1]) if costs else win[0]


def _winning_sections(light: _Light, need: list[int], extra: list[int]) -> list[_Act] | None:
    """Sections for every article short of a GA from the current hand and ``extra`` cards, or None."""
    i = light.cur
    hand = light.hands[i]
    if light.limit is not None and len(hand) + len(extra) > light.limit:
        return None
    cards = [*hand, *extra]
    needy = [a for a in range(_N) if need[a]]
    for order in permutations(needy):
        pool = cards[:]
        out: list[_Act] = []
        for a in order:
            for _ in range(need[a]):
                fact = next((c for c in pool if _KIND[c] == _FACT and _ART[c] == a), None)
                if fact is None:
                    break
                pool.remove(fact)
                support = next((c for c in pool if _KIND[c] == _SOURCE and _ART[c] == a), None)
                if support is None:
                    links = [c for c in pool if _KIND[c] == _LINK and _ART[c] != a]
                    if not links:
                        break
                    support = max(links, key=lambda c: need[_ART[c]])
                pool.remove(support)
                out.append((_SECTION, fact, support, 0))
            else:
                continue
            break
        else:
            paid: list[_Act] = []
            for sec in out:
                if light.pays(i, _ART[sec[1]]):
                    if not pool:
                        break
                    paid.append((_SECTION, sec[1], sec[2], pool.pop()))
                else:
                    paid.append(sec)
            else:
                return paid
    return None


def can_finish(light: _Light) -> bool:
    """Whether the seat to play can win within its hours, from its hand and the problems on the table."""
    if light.won():
        return True
    if not light.room(light.cur):
        return False
    need = [GA_SECTIONS - n if n < GA_SECTIONS else 0 for n in light.secs]
    row = light.costs[light.cur]
    if sum(need) + sum(row[a] * len(light.probs[a]) for a in range(_N)) > light.hours:
        return False
    if not any(need):
        return True
    return _winning_sections(light, need, [c for p in light.probs for c in p]) is not None


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
