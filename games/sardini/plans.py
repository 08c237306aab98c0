"""Sets of cards that meet a Move, and plans for a whole Trick: one disjoint set for each of its Moves.

The rules never need these (they decide with ``moves.can_meet``, exact and cheap); the AI does, to
estimate a Trick's chance and pick its cards, and so do the hand's hints and the menus of moves.
``solve`` searches the Moves with a shape or a sum by their sets, fewest first, and settles the
simple Moves (any cards passing their terms) at once by Hall's condition, so its search stays small.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from itertools import combinations, product

from games.sardini.cards import RANK, cards_of, mask
from games.sardini.moves import RANK_MASK, SHAPE_MAX, SUIT_MASK, Move, Shape, can_meet


def _sizes(move: Move, n: int) -> range:
    """The set sizes worth trying: the fewest cards unless a sum may need more."""
    cap = n if move.hi is None else min(move.hi, n)
    if move.shape is not None and move.shape in SHAPE_MAX:
        cap = min(cap, SHAPE_MAX[move.shape])
    if move.sum_mask is None:
        return range(move.lo, min(move.lo, cap) + 1)
    return range(move.lo, cap + 1)


def sets(move: Move, hand: int) -> Iterator[int]:
    """Sets of ``hand`` (masks) that meet ``move``, the fewest cards first. Without a sum term only
    the smallest sets are listed: every set that meets such a Move holds one of them."""
    avail = hand & move.card_mask
    cards = cards_of(avail)
    if len(cards) < move.lo:
        return
    shape = move.shape
    for size in _sizes(move, len(cards)):
        if shape in (None, Shape.SAME_SUIT, Shape.SAME_RANK):
            if shape is None:
                pools = [cards]
            elif shape is Shape.SAME_SUIT:
                pools = [cards_of(avail & SUIT_MASK[s]) for s in range(4)]
            else:
                pools = [cards_of(avail & RANK_MASK[r]) for r in range(1, 11)]
            for pool in pools:
                for combo in combinations(pool, size):
                    if move.sum_ok(sum(RANK[c] for c in combo)):
                        yield mask(combo)
        elif shape in (Shape.DIFF_SUIT, Shape.DIFF_RANK):
            if shape is Shape.DIFF_SUIT:
                groups = [cards_of(avail & SUIT_MASK[s]) for s in range(4)]
            else:
                groups = [cards_of(avail & RANK_MASK[r]) for r in range(1, 11)]
            groups = [g for g in groups if g]
            for chosen in combinations(groups, size):
                for combo in product(*chosen):
                    if move.sum_ok(sum(RANK[c] for c in combo)):
                        yield mask(combo)
        else:
            parts = [avail] if shape is Shape.RUN else [avail & SUIT_MASK[s] for s in range(4)]
            for part in parts:
                for start in range(1, 12 - size):
                    if not move.sum_ok(size * start + size * (size - 1) // 2):
                        continue
                    columns = [cards_of(part & RANK_MASK[r]) for r in range(start, start + size)]
                    if all(columns):
                        for combo in product(*columns):
                            yield mask(combo)


class _OutOfBudgetError(Exception):
    pass


@dataclass
class _Search:
    moves: Sequence[Move]
    budget: int
    simple: list[int] = field(default_factory=list)
    hall: list[tuple[int, int]] = field(default_factory=list)
    """(cards any of a group of simple Moves may use, cards the group needs), every group."""
    failed: set[tuple[int, int]] = field(default_factory=set)

    def tick(self, n: int = 1) -> None:
        self.budget -= n
        if self.budget < 0:
            raise _OutOfBudgetError

    def hall_ok(self, avail: int) -> bool:
        """Hall's condition: the simple Moves can share ``avail`` exactly when every group of them
        finds as many usable cards as it needs together."""
        return all((union & avail).bit_count() >= need for union, need in self.hall)


def _hall_groups(moves: Sequence[Move], simple: Sequence[int]) -> list[tuple[int, int]]:
    out = []
    for chosen in range(1, 1 << len(simple)):
        union = need = 0
        for j, index in enumerate(simple):
            if chosen >> j & 1:
                union |= moves[index].card_mask
                need += moves[index].lo
        out.append((union, need))
    return out


def _assign_simple(moves: Sequence[Move], simple: list[int], avail: int) -> dict[int, int]:
    """Cards for each simple Move (``lo`` each) from ``avail``, which passes Hall's condition: each
    card is taken only when the rest can still be shared, so the greedy choice never fails."""
    need = {i: moves[i].lo for i in simple}
    out = dict.fromkeys(simple, 0)
    for i in sorted(simple, key=lambda k: (avail & moves[k].card_mask).bit_count()):
        while need[i]:
            others = [k for k in simple if need[k] and k != i]
            options = cards_of(avail & moves[i].card_mask)
            options.sort(key=lambda c: sum(1 for k in others if moves[k].passes(c)))
            for c in options:
                rest = avail & ~(1 << c)
                left = {k: need[k] - (k == i) for k in simple}
                if all(
                    (union & rest).bit_count() >= total
                    for union, total in _hall_groups_needed(moves, simple, left)
                ):
                    out[i] |= 1 << c
                    avail = rest
                    need[i] -= 1
                    break
            else:  # pragma: no cover - Hall's condition guarantees a card
                raise AssertionError("simple Moves could not share cards that pass Hall's condition")
    return out


def _hall_groups_needed(moves: Sequence[Move], simple: Sequence[int], need: dict[int, int]) -> list[tuple[int, int]]:
    active = [i for i in simple if need[i]]
    out = []
    for chosen in range(1, 1 << len(active)):
        union = total = 0
        for j, index in enumerate(active):
            if chosen >> j & 1:
                union |= moves[index].card_mask
                total += need[index]
        out.append((union, total))
    return out


def solve(moves: Sequence[Move], hand: int, *, budget: int = 20_000, assign: bool = True) -> list[int] | None:
    """Disjoint sets of ``hand`` (masks), one per Move in order, each meeting its Move; None when
    there are none, or when the search looked at more than ``budget`` sets without deciding (a
    hint, never a rule: the rules decide failure with ``can_meet``). ``assign`` False: only whether."""
    search = _Search(moves, budget)
    search.simple = [i for i, m in enumerate(moves) if m.simple]
    shaped = [i for i, m in enumerate(moves) if not m.simple]
    search.hall = _hall_groups(moves, search.simple)
    if not search.hall_ok(hand) or not all(can_meet(moves[i], hand) for i in shaped):
        return None
    try:
        listed = {}
        for i in shaped:
            found = []
            for s in sets(moves[i], hand):
                search.tick()
                found.append(s)
            listed[i] = found
        order = sorted(shaped, key=lambda i: len(listed[i]))
        chosen = _descend(search, order, listed, 0, hand)
    except _OutOfBudgetError:
        return None
    if chosen is None:
        return None
    out = [0] * len(moves)
    for i, s in chosen.items():
        out[i] = s
    if assign and search.simple:
        rest = hand
        for s in chosen.values():
            rest &= ~s
        for i, s in _assign_simple(moves, search.simple, rest).items():
            out[i] = s
    return out


def _descend(
    search: _Search, order: list[int], listed: dict[int, list[int]], depth: int, avail: int
) -> dict[int, int] | None:
    if depth == len(order):
        return {} if search.hall_ok(avail) else None
    if (depth, avail) in search.failed:
        return None
    index = order[depth]
    later = order[depth + 1 :]
    for s in listed[index]:
        search.tick()
        if s & ~avail:
            continue
        rest = avail & ~s
        if not search.hall_ok(rest) or not all(can_meet(search.moves[k], rest) for k in later):
            continue
        found = _descend(search, order, listed, depth + 1, rest)
        if found is not None:
            found[index] = s
            return found
    search.failed.add((depth, avail))
    return None


def feasible(moves: Sequence[Move], hand: int, *, budget: int = 20_000) -> bool:
    """Whether ``hand`` can perform all of ``moves`` at once (see ``solve``)."""
    return solve(moves, hand, budget=budget, assign=False) is not None
