"""A computer performer: it estimates each shown Trick's chance from the cards it has not seen.

It decides from a ``SeatView``, built first and alone from the state: its own hand, the public
table, and the unseen cards as one sorted set (the deck and the other hands together, which it
cannot tell apart). So it never reads the deck's order or another player's hand; a test swaps the
hidden cards around and checks that its choices stay the same.

- On its turn it estimates, for every shown Trick, the chance of performing it: it deals itself
  the extra cards the attempt would allow (one after each Move but the last) from the unseen cards
  many times over and checks whether its hand and those cards can meet every Move at once
  (``moves.feasible``). It attempts the best Trick when the chance is at least ``attempt_at`` (or
  when the deck is about to run out and the gamble beats keeping its pile), otherwise it draws.
- In an attempt it always takes the extra card; it plays a full plan of the Moves left when its
  hand has one, otherwise the Move whose cards leave the most other Moves within reach.
- After a success it goes for an Encore only when the next Trick, still unknown, looks almost sure
  (``encore_at``), judged the same way over the unseen cards.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from games.sardini.actions import (
    ActOver,
    AttemptTrick,
    Draw,
    Encore,
    GiveUp,
    PlayMove,
    SardiniAction,
    TakeExtra,
)
from games.sardini.cards import DECK_SIZE, cards_of, mask
from games.sardini.moves import Move, can_meet
from games.sardini.plans import feasible, sets, solve
from games.sardini.state import Phase, SardiniState
from games.sardini.tricks import TRICKS

SAMPLES = 24
"""Deals per Trick when its chance is estimated."""
CANDIDATES = 40
"""Sets per Move weighed when no full plan exists."""


@dataclass(frozen=True, slots=True)
class Tactics:
    attempt_at: float = 0.7
    """The least estimated chance at which it attempts a Trick."""
    encore_at: float = 0.9


@dataclass(frozen=True, slots=True)
class SeatView:
    """Everything one seat may know. ``unseen`` is sorted: the deck's order is not in it."""

    hand: int
    shown: tuple[int, ...]
    unseen: tuple[int, ...]
    deck_size: int
    next_draw: int
    pile: int
    phase: Phase
    attempt_trick: int | None
    done: frozenset[int]
    extra: bool
    call_extra: bool

    @classmethod
    def of(cls, state: SardiniState, seat: str) -> SeatView:
        i = state.seats.index(seat)
        hand = mask(state.hands[i])
        public = mask(state.shown) | mask(state.out) | hand
        for pile in state.piles:
            public |= mask(pile)
        attempt = state.attempt
        if attempt is not None:
            public |= mask(attempt.played())
        unseen = tuple(c for c in range(DECK_SIZE) if not public >> c & 1)
        return cls(
            hand=hand,
            shown=state.shown,
            unseen=unseen,
            deck_size=len(state.deck),
            next_draw=state.next_draw(),
            pile=len(state.piles[i]),
            phase=state.phase,
            attempt_trick=attempt.trick if attempt is not None else None,
            done=attempt.done_moves() if attempt is not None else frozenset(),
            extra=attempt.extra if attempt is not None else False,
            call_extra=state.call_extra,
        )


def chance(moves: tuple[Move, ...], hand: int, view: SeatView, rng: random.Random, samples: int = SAMPLES) -> float:
    """The estimated chance of meeting all ``moves`` from ``hand`` and the extra cards an attempt allows."""
    if not moves:
        return 1.0
    if not any(can_meet(m, hand) for m in moves):
        return 0.0
    if feasible(moves, hand):
        return 1.0
    extra = min(len(moves) - 1, view.deck_size, len(view.unseen))
    if extra <= 0:
        return 0.0
    hits = 0
    for _ in range(samples):
        if feasible(moves, hand | mask(rng.sample(view.unseen, extra))):
            hits += 1
    return hits / samples


class Performer:
    """The computer seat of the Sardini game."""

    def __init__(self, tactics: Tactics | None = None) -> None:
        self.tactics = tactics or Tactics()

    def choose(self, state: SardiniState, seat: str, rng: random.Random) -> SardiniAction:
        return self.decide(SeatView.of(state, seat), rng)

    def decide(self, view: SeatView, rng: random.Random) -> SardiniAction:
        if view.phase is Phase.TURN:
            return self._turn(view, rng)
        if view.phase is Phase.ATTEMPT:
            return self._attempt(view)
        return self._call(view, rng)

    def _turn(self, view: SeatView, rng: random.Random) -> SardiniAction:
        best: tuple[float, int, int] | None = None
        for trick in view.shown:
            found = TRICKS[trick]
            p = chance(found.moves, view.hand, view, rng)
            key = (p, found.min_won, -trick)
            if best is None or key > best:
                best = key
        if best is not None and view.hand:
            p, won, trick = best[0], best[1], -best[2]
            last_chance = view.deck_size <= view.next_draw
            if p >= self.tactics.attempt_at or (last_chance and p > 0 and p * (view.pile + won) > view.pile):
                return AttemptTrick(trick=trick)
        return Draw()

    def _attempt(self, view: SeatView) -> SardiniAction:
        if view.extra and view.deck_size:
            return TakeExtra()
        if view.attempt_trick is None:
            return GiveUp()
        moves = TRICKS[view.attempt_trick].moves
        left = [k for k in range(len(moves)) if k not in view.done]
        plan = solve([moves[k] for k in left], view.hand)
        if plan is not None:
            k = min(range(len(left)), key=lambda j: plan[j].bit_count())
            return PlayMove(move=left[k] + 1, cards=tuple(cards_of(plan[k])))
        best: tuple[int, int, int, int] | None = None
        for k in left:
            for n, found in enumerate(sets(moves[k], view.hand)):
                if n >= CANDIDATES:
                    break
                rest = view.hand & ~found
                reach = sum(1 for j in left if j != k and can_meet(moves[j], rest))
                key = (reach, -found.bit_count(), -k, found)
                if best is None or key[:3] > best[:3]:
                    best = key
        if best is None:
            return GiveUp()
        return PlayMove(move=-best[2] + 1, cards=tuple(cards_of(best[3])))

    def _call(self, view: SeatView, rng: random.Random) -> SardiniAction:
        if view.call_extra and view.deck_size:
            return TakeExtra()
        if not view.deck_size or not view.hand or not view.unseen:
            return ActOver()
        total = 0.0
        rounds = 8
        for _ in range(rounds):
            trick = rng.choice(view.unseen)
            total += chance(TRICKS[trick].moves, view.hand, view, rng, samples=6)
        if total / rounds >= self.tactics.encore_at:
            return Encore()
        return ActOver()

