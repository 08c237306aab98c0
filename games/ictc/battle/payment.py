"""Paying a cost from the power pool and by tapping Power cards, automatically.

Power comes in units: a colour letter (``R``), a choice of colours (``R/G``, spent as any one of
them) or ``""`` (any colour, which pays only the generic part). A cost asks for coloured units
(an X in a colour adds X of it) and a generic part (an X of any colour adds X). The bot pays the
coloured part first, from the pool and then by tapping the fewest Power cards it can (cards of
one colour before cards of a choice), then the generic part; what a tapped card makes beyond the
cost stays in the pool until Regroup.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from itertools import combinations

from games.ictc.cost import Cost, Output

MAX_EXHAUSTIVE = 14
"""Above this many untapped Power cards the bot trusts its greedy choice of cards to tap."""


@dataclass(frozen=True)
class Need:
    coloured: tuple[tuple[str, int], ...]
    generic: int

    @property
    def total(self) -> int:
        return self.generic + sum(n for _, n in self.coloured)

    def words(self) -> str:
        parts = [f"{n}{c}" if n > 1 else c for c, n in self.coloured]
        if self.generic:
            parts.append(str(self.generic))
        return "+".join(parts) or "0"


@lru_cache(maxsize=1024)
def need_of(cost: Cost, x: int = 0) -> Need:
    coloured = Counter(dict(cost.coloured))
    generic = cost.generic
    if cost.x is not None and x > 0:
        if cost.x:
            coloured[cost.x] += x
        else:
            generic += x
    return Need(tuple(sorted((c, n) for c, n in coloured.items() if n > 0)), generic)


def units_of(output: Output) -> list[str]:
    return [key for key, n in output.units for _ in range(n)]


def _matching(choices: Sequence[Sequence[str]], slots: Sequence[str]) -> dict[int, int]:
    """A largest matching of choice units (their colours) to coloured slots: slot index -> choice index."""
    owner: dict[int, int] = {}

    def augment(i: int, seen: set[int]) -> bool:
        for j, slot in enumerate(slots):
            if slot in choices[i] and j not in seen:
                seen.add(j)
                if j not in owner or augment(owner[j], seen):
                    owner[j] = i
                    return True
        return False

    for i in range(len(choices)):
        augment(i, set())
    return owner


def _split(units: Iterable[str], need: Need) -> tuple[dict[str, int], list[str], list[str], list[str]]:
    """Fixed units spent on their colour; the coloured slots still open; fixed spares; choice units."""
    deficit = dict(need.coloured)
    spent: dict[str, int] = {}
    spare: list[str] = []
    choices: list[str] = []
    for unit in units:
        if "/" in unit:
            choices.append(unit)
        elif unit and deficit.get(unit, 0) > 0:
            deficit[unit] -= 1
            spent[unit] = spent.get(unit, 0) + 1
        else:
            spare.append(unit)
    slots = [c for c, n in sorted(deficit.items()) for _ in range(n)]
    return spent, slots, spare, choices


def shortfall(units: Iterable[str], need: Need) -> int:
    """Units still missing to pay ``need`` from ``units`` (0: it can be paid)."""
    _, slots, spare, choices = _split(units, need)
    matched = _matching([c.split("/") for c in choices], slots)
    open_slots = len(slots) - len(matched)
    free = len(spare) + len(choices) - len(matched)
    return open_slots + max(0, need.generic - free)


def spend(units: Sequence[str], need: Need) -> list[str]:
    """What is left of ``units`` once ``need`` is paid (it must be payable): the generic part takes
    any-colour units first, then single colours, and keeps choices, the most useful, for last."""
    _, slots, spare, choices = _split(units, need)
    matched = _matching([c.split("/") for c in choices], slots)
    used_choices = set(matched.values())
    left = sorted(spare, key=lambda u: (u != "", u)) + [c for i, c in enumerate(choices) if i not in used_choices]
    return left[need.generic :]


@dataclass(frozen=True)
class Payment:
    taps: tuple[int, ...]
    """The Power cards tapped to pay."""
    pool: tuple[tuple[str, int], ...]
    """The pool afterwards."""


def _rank(output: Output) -> tuple[int, int]:
    """Cards of any colour first (they pay generic only), then one colour, then choices (most flexible last)."""
    keys = [k for k, _ in output.units]
    kind = 0 if all(k == "" for k in keys) else 2 if any("/" in k for k in keys) else 1
    return kind, output.total


def plan(pool: Sequence[tuple[str, int]], powers: Sequence[tuple[int, Output]], need: Need) -> Payment | None:
    """The cards to tap (with the pool) to pay ``need``, or None when even all of them cannot.

    The choice depends on the cards' numbers only through their order, so it is worked out (and kept)
    with the cards numbered 0, 1, ... in the order of their numbers: the same Power cards in play under
    other numbers, later in the battle or in another one, find it made already.
    """
    numbers = sorted(card for card, _ in powers)
    label = {card: n for n, card in enumerate(numbers)}
    found = _plan(tuple(pool), tuple((label[card], output) for card, output in powers), need)
    if found is None or not found.taps:
        return found
    return Payment(tuple(numbers[n] for n in found.taps), found.pool)


def payable(pool: Sequence[tuple[str, int]], powers: Sequence[tuple[int, Output]], need: Need) -> bool:
    """Whether ``plan`` finds a way to pay ``need``, without working out which cards it taps.

    With up to ``MAX_EXHAUSTIVE`` Power cards it finds one exactly when the pool and all of them
    together pay (adding power never makes paying harder), whichever cards they are; with more it
    may miss one, so ``plan`` itself says.
    """
    if len(powers) > MAX_EXHAUSTIVE:
        return plan(pool, powers, need) is not None
    return _pays(tuple(pool), tuple(sorted(output.units for _, output in powers)), need)


@lru_cache(maxsize=4096)
def _pays(pool: tuple[tuple[str, int], ...], outputs: tuple[tuple[tuple[str, int], ...], ...], need: Need) -> bool:
    units = [key for key, n in pool for _ in range(n)]
    units += [key for output in outputs for key, n in output for _ in range(n)]
    return shortfall(units, need) == 0


@lru_cache(maxsize=4096)
def _plan(pool: tuple[tuple[str, int], ...], powers: tuple[tuple[int, Output], ...], need: Need) -> Payment | None:
    units = [key for key, n in pool for _ in range(n)]
    if shortfall(units, need) == 0:
        return Payment((), _pool(spend(units, need)))
    direct = _direct(units, powers, need)
    if direct is not None:
        return direct
    return _search(units, powers, need)


def _direct(units: list[str], powers: Sequence[tuple[int, Output]], need: Need) -> Payment | None:
    """The usual case in two passes: cards of the colours still missing, then cards for the rest."""
    _, slots, spare, choices = _split(units, need)
    missing = Counter(slots)
    generic = max(0, need.generic - len(spare) - len(choices))
    chosen: list[int] = []
    have = list(units)
    ordered = sorted(powers, key=lambda p: (_rank(p[1]), p[0]))

    def take(card: int, output: Output) -> None:
        nonlocal generic
        chosen.append(card)
        for key in units_of(output):
            have.append(key)
            letters = key.split("/") if key else []
            hit = next((c for c in letters if missing[c] > 0), None)
            if hit is not None:
                missing[hit] -= 1
            else:
                generic -= 1

    for card, output in ordered:
        if sum(missing.values()) <= 0:
            break
        if any(missing[c] > 0 for key in units_of(output) for c in (key.split("/") if key else [])):
            take(card, output)
    for card, output in ordered:
        if generic <= 0:
            break
        if card not in chosen:
            take(card, output)
    if shortfall(have, need) == 0:
        return Payment(tuple(chosen), _pool(spend(have, need)))
    return None


def _search(units: list[str], powers: Sequence[tuple[int, Output]], need: Need) -> Payment | None:
    if shortfall(units, need) == 0:
        return Payment((), _pool(spend(units, need)))
    everything = units + [u for _, out in powers for u in units_of(out)]
    if shortfall(everything, need) > 0:
        return None
    chosen: list[int] = []
    have = list(units)
    left = sorted(powers, key=lambda p: (_rank(p[1]), p[0]))
    while shortfall(have, need) > 0 and left:
        best = min(left, key=lambda p: (shortfall(have + units_of(p[1]), need), _rank(p[1]), p[0]))
        left.remove(best)
        chosen.append(best[0])
        have += units_of(best[1])
    if shortfall(have, need) > 0 and len(powers) <= MAX_EXHAUSTIVE:
        found = _exhaustive(units, powers, need)
        if found is None:
            return None
        chosen, have = found
    if shortfall(have, need) > 0:
        return None
    return Payment(tuple(chosen), _pool(spend(have, need)))


def _exhaustive(
    units: list[str], powers: Sequence[tuple[int, Output]], need: Need
) -> tuple[list[int], list[str]] | None:
    for size in range(1, len(powers) + 1):
        for combo in combinations(powers, size):
            have = units + [u for _, out in combo for u in units_of(out)]
            if shortfall(have, need) == 0:
                return [card for card, _ in combo], have
    return None


def _pool(units: Iterable[str]) -> tuple[tuple[str, int], ...]:
    return tuple(sorted(Counter(units).items()))


def add_to_pool(pool: Sequence[tuple[str, int]], units: Iterable[str]) -> tuple[tuple[str, int], ...]:
    counts = Counter(dict(pool))
    counts.update(units)
    return tuple(sorted((k, n) for k, n in counts.items() if n > 0))


def pool_words(pool: Sequence[tuple[str, int]]) -> str:
    parts = [(f"{n}{k}" if n > 1 else k) if k else str(n) for k, n in pool]
    return "+".join(parts) if parts else "empty"


def most_x(pool: Sequence[tuple[str, int]], powers: Sequence[tuple[int, Output]], cost: Cost) -> int:
    """The largest X that can be paid now (0 when the cost has no X or nothing is left for it)."""
    if cost.x is None:
        return 0
    best = 0
    total = sum(n for _, n in pool) + sum(out.total for _, out in powers)
    for x in range(1, total + 1):
        if not payable(pool, powers, need_of(cost, x)):
            break
        best = x
    return best
