"""``python -m bot bench --game sardini``: how long the Move checks take (the bot runs ``can_meet``
after every step of an attempt, the AI ``feasible`` many times a turn) and how fast whole games go."""

from __future__ import annotations

import random
import statistics
import time
from collections.abc import Callable
from functools import partial

from games.sardini.ai import Performer
from games.sardini.cards import mask
from games.sardini.moves import can_meet
from games.sardini.plans import feasible
from games.sardini.rules import apply, new_game
from games.sardini.state import Phase
from games.sardini.tricks import TRICKS

HANDS = 200


def _per_call(check: Callable[[int], bool], hands: list[int], runs: int) -> float:
    """Microseconds per call of ``check`` over ``hands``, the best of ``runs`` batches."""
    best = float("inf")
    for _ in range(runs):
        started = time.perf_counter()
        for hand in hands:
            check(hand)
        best = min(best, time.perf_counter() - started)
    return best / len(hands) * 1e6


def _spread(values: list[float]) -> str:
    return f"min {min(values):.1f} µs, median {statistics.median(values):.1f} µs, max {max(values):.1f} µs"


def bench(runs: int = 5, seed: str = "bench") -> list[str]:
    """The report's lines: per Move (exact check) and per Trick (whole plan), then games per second."""
    rng = random.Random(seed)
    moves = list({m.source: m for trick in TRICKS.values() for m in trick.moves}.values())
    lines = [f"sardini: {len(moves)} distinct Moves of the 40 Tricks, {HANDS} random hands each, best of {runs} runs"]
    for size in (10, 30):
        hands = [mask(rng.sample(range(40), size)) for _ in range(HANDS)]
        per_move = [_per_call(partial(can_meet, move), hands, runs) for move in moves]
        lines.append(f"  can_meet, {size}-card hand, per Move: {_spread(per_move)}")
        per_trick = [_per_call(partial(feasible, trick.moves), hands, runs) for trick in TRICKS.values()]
        lines.append(f"  feasible (a whole Trick), {size}-card hand, per Trick: {_spread(per_trick)}")
    ai = Performer()
    for players in (2, 4, 6):
        games, actions = 40, 0
        started = time.perf_counter()
        for g in range(games):
            game_rng = random.Random(f"{seed}:{players}:{g}")
            state = new_game([f"p{n}" for n in range(players)], None, game_rng)
            while state.phase is not Phase.OVER:
                seat = state.seats[state.current]
                state, _ = apply(state, seat, ai.choose(state, seat, game_rng))
                actions += 1
        took = time.perf_counter() - started
        lines.append(
            f"  {players} AI players: {games / took:.0f} games/s, {took / actions * 1e3:.2f} ms per AI action"
        )
    return lines
