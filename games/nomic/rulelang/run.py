"""Running a rule: an occasion and a read-only view of the round in, typed effects out.

A run changes nothing: it reads the round as it was when the trigger fired and says what should
happen. ``games.nomic.rulelang.effects.apply_effects`` then applies the effects through the same
rules as a moderator's correction. Every condition tested, effect made and player visited is a
step; a run that would go past its budget stops and makes no effect but a note.
"""

from __future__ import annotations

import operator
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from games.nomic.rulelang.program import (
    POINTS,
    AllOf,
    AmountIs,
    Announce,
    AnyOf,
    BidOn,
    CategoryIs,
    Compare,
    Cond,
    Every,
    Gain,
    Give,
    Holds,
    If,
    IsRole,
    Lose,
    Not,
    PhaseIs,
    Placed,
    PlayerCount,
    Program,
    Role,
    Rule,
    Stmt,
    Trigger,
    Who,
)
from games.nomic.rulelang.syntax import RUN_BUDGET


@dataclass(frozen=True, slots=True)
class Occasion:
    """A trigger that fired and what it makes known."""

    trigger: Trigger
    player: str | None = None
    """The player concerned: who joined, left, presented, won the lot, proposed, or asked for the ruling."""
    category: int | None = None
    """A presented hand's category (``games.nomic.hands.Category``'s value)."""
    lot: int | None = None
    amount: int | None = None
    """What the lot's winner paid."""
    proposal: int | None = None
    ruling: int | None = None
    """The number of the request the ruling answers."""


class View(Protocol):
    """What a rule may read of the round: public facts only, never a card a player holds."""

    def player_ids(self) -> Sequence[str]:
        """The players, in a fixed order (their ids sorted)."""
        ...

    def is_player(self, player: str) -> bool: ...

    def points(self, player: str) -> int: ...

    def held(self, player: str, item: str) -> int:
        """How many of ``item`` (a kind's name or ``SPM``) the player holds."""
        ...

    def judge(self) -> str | None: ...

    def phase(self) -> str: ...

    def place(self, player: str) -> int | None:
        """The player's place in the latest placements (None: not placed)."""
        ...

    def lots_bid_on(self, player: str) -> int:
        """The lots the player bid on in this auction phase."""
        ...


# --- effects ---------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Change:
    """A player gains (``count`` above 0) or loses (below 0) points or items of one kind."""

    rule: str
    player: str
    item: str
    count: int


@dataclass(frozen=True, slots=True)
class Transfer:
    """Points or items move from one player to another: what the giver has, up to ``count``."""

    rule: str
    giver: str
    receiver: str
    item: str
    count: int


@dataclass(frozen=True, slots=True)
class Announcement:
    rule: str
    text: str


@dataclass(frozen=True, slots=True)
class Stopped:
    """The run went past its budget and made no effect."""

    rule: str
    steps: int


Effect = Change | Transfer | Announcement | Stopped


class _OutOfStepsError(Exception):
    pass


class _Run:
    def __init__(self, occasion: Occasion, view: View, budget: int, rule: str) -> None:
        self.occasion = occasion
        self.view = view
        self.left = budget
        self.rule = rule
        self.effects: list[Effect] = []

    def step(self, count: int = 1) -> None:
        self.left -= count
        if self.left < 0:
            raise _OutOfStepsError

    def single(self, role: Role, each: str | None) -> str | None:
        if role is Role.EACH:
            return each
        if role is Role.JUDGE:
            return self.view.judge()
        return self.occasion.player  # the player, the proposer, the winner: the occasion's player

    def players(self, who: Who) -> list[str]:
        self.step()
        if not isinstance(who, Every):
            found = self.single(who, None)
            return [found] if found is not None else []
        ids = self.view.player_ids()
        self.step(len(ids))  # one step a player, taken at once: a run out of steps makes no effect anyway
        if who.who is None:
            return list(ids)
        test, cond = self.test, who.who
        return [player for player in ids if test(cond, player)]

    def test(self, cond: Cond, each: str | None) -> bool:
        self.left -= 1
        if self.left < 0:
            raise _OutOfStepsError
        return _TESTS[type(cond)](self, cond, each)

    def _all(self, cond: AllOf, each: str | None) -> bool:
        return all(self.test(part, each) for part in cond.parts)

    def _any(self, cond: AnyOf, each: str | None) -> bool:
        return any(self.test(part, each) for part in cond.parts)

    def _not(self, cond: Not, each: str | None) -> bool:
        return not self.test(cond.inner, each)

    def _holds(self, cond: Holds, each: str | None) -> bool:
        player = each if cond.subject is Role.EACH else self.single(cond.subject, each)
        if player is None or not self.view.is_player(player):
            return False
        have = self.view.points(player) if cond.item == POINTS else self.view.held(player, cond.item)
        return _COMPARE[cond.compare](have, cond.count)

    def _is_role(self, cond: IsRole, each: str | None) -> bool:
        player = self.single(cond.subject, each)
        return player is not None and player == self.single(cond.role, each)

    def _bid_on(self, cond: BidOn, each: str | None) -> bool:
        player = each if cond.subject is Role.EACH else self.single(cond.subject, each)
        if player is None or not self.view.is_player(player):
            return False
        return _COMPARE[cond.compare](self.view.lots_bid_on(player), cond.count)

    def _placed(self, cond: Placed, each: str | None) -> bool:
        player = self.single(cond.subject, each)
        place = self.view.place(player) if player is not None else None
        if cond.place == 0:  # `placed` alone: some place; `did not place` negates it
            return place is not None
        return place is not None and _COMPARE[cond.compare](place, cond.place)

    def _category(self, cond: CategoryIs, each: str | None) -> bool:
        category = self.occasion.category
        return category is not None and _COMPARE[cond.compare](category, cond.category)

    def _phase(self, cond: PhaseIs, each: str | None) -> bool:
        return self.view.phase() == cond.phase

    def _count(self, cond: PlayerCount, each: str | None) -> bool:
        return _COMPARE[cond.compare](len(self.view.player_ids()), cond.count)

    def _amount(self, cond: AmountIs, each: str | None) -> bool:
        amount = self.occasion.amount
        return amount is not None and _COMPARE[cond.compare](amount, cond.count)

    def do(self, body: tuple[Stmt, ...]) -> None:
        for stmt in body:
            if isinstance(stmt, If):
                self.do(stmt.then if self.test(stmt.condition, None) else stmt.otherwise)
            elif isinstance(stmt, Gain | Lose):
                count = stmt.count if isinstance(stmt, Gain) else -stmt.count
                chosen = self.players(stmt.who)
                self.step(len(chosen))
                rule, item = self.rule, stmt.item
                self.effects.extend(Change(rule, player, item, count) for player in chosen)
            elif isinstance(stmt, Give):
                givers = self.players(stmt.giver)
                receivers = self.players(stmt.receiver)
                for giver in givers:
                    for receiver in receivers:
                        self.step()
                        if giver != receiver:
                            self.effects.append(Transfer(self.rule, giver, receiver, stmt.item, stmt.count))
            elif isinstance(stmt, Announce):
                self.step()
                self.effects.append(Announcement(self.rule, stmt.text))


_COMPARE: dict[Compare, Callable[[int, int], bool]] = {
    Compare.EXACTLY: operator.eq,
    Compare.AT_LEAST: operator.ge,
    Compare.AT_MOST: operator.le,
    Compare.MORE_THAN: operator.gt,
    Compare.FEWER_THAN: operator.lt,
    Compare.NOT: operator.ne,
}
_TESTS: dict[type[Any], Callable[[_Run, Any, str | None], bool]] = {
    AllOf: _Run._all,
    AnyOf: _Run._any,
    Not: _Run._not,
    Holds: _Run._holds,
    IsRole: _Run._is_role,
    BidOn: _Run._bid_on,
    Placed: _Run._placed,
    CategoryIs: _Run._category,
    PhaseIs: _Run._phase,
    PlayerCount: _Run._count,
    AmountIs: _Run._amount,
}
"""How each kind of condition is tested: one look-up, not a chain of type tests, for each player of a quantifier."""


def run_rule(rule: Rule, occasion: Occasion, view: View, budget: int = RUN_BUDGET, *, number: str = "") -> list[Effect]:
    """The effects of one rule on one occasion (none when its trigger is another)."""
    if rule.trigger is not occasion.trigger:
        return []
    state = _Run(occasion, view, budget, number)
    try:
        state.do(rule.body)
    except _OutOfStepsError:
        return [Stopped(number, budget)]
    return state.effects


def run(program: Program, occasion: Occasion, view: View, budget: int = RUN_BUDGET, *, rule: str = "") -> list[Effect]:
    """The effects of every rule of ``program`` that ``occasion`` triggers, in the order they are written.

    ``budget`` holds for each rule of the block; ``rule`` is the number of the ruleset's rule the
    block belongs to, carried by the effects so their announcements can say which rule acted.
    """
    effects: list[Effect] = []
    for each in program.rules:
        effects.extend(run_rule(each, occasion, view, budget, number=rule))
    return effects


__all__ = [
    "Announcement",
    "Change",
    "Compare",
    "Effect",
    "Occasion",
    "Stopped",
    "Transfer",
    "View",
    "run",
]
