"""Whether a Sardini state is sound: self-play checks it after every action.

Each of the 40 cards is in exactly one place (the deck, the shown Tricks, a hand, the attempt's
played cards, a pile, out of play); the counter is the nominal size of the last Draw (0 after an
attempt, never above the cap); an eliminated player holds nothing and never has the turn; the phase
agrees with the attempt and the call; the game ends only as the rules end it.
"""

from __future__ import annotations

from games.sardini.cards import DECK_SIZE, code
from games.sardini.moves import explain
from games.sardini.state import Ending, Phase, SardiniState
from games.sardini.tricks import TRICKS


def invariants(state: SardiniState) -> list[str]:
    """What is inconsistent in ``state`` (one line each); empty when it is sound."""
    out: list[str] = []
    played = state.attempt.played() if state.attempt is not None else ()
    places = [
        ("the deck", state.deck),
        ("the shown Tricks", state.shown),
        *((f"{s}'s hand", h) for s, h in zip(state.seats, state.hands, strict=True)),
        ("the attempt", played),
        *((f"{s}'s pile", p) for s, p in zip(state.seats, state.piles, strict=True)),
        ("out of play", state.out),
    ]
    where: dict[int, list[str]] = {}
    for name, cards in places:
        for c in cards:
            where.setdefault(c, []).append(name)
    for c in range(DECK_SIZE):
        found = where.get(c, [])
        if len(found) != 1:
            out.append(f"{code(c)} is in {len(found)} places ({', '.join(found) or 'none'})")
    if set(where) - set(range(DECK_SIZE)):
        out.append("a card outside the deck of 40 is in play")
    for seat, pile, won in zip(state.seats, state.piles, state.won, strict=True):
        if not set(won) <= set(pile):
            out.append(f"{seat} won Tricks that are not in their pile")
    cap = state.options.draw_cap
    if state.counter < 0 or (cap is not None and state.counter > cap):
        out.append(f"the counter is {state.counter} (cap {cap})")
    if state.phase in (Phase.ATTEMPT, Phase.CALL) and state.counter != 0:
        out.append("an attempt this turn but the counter was not reset")
    for seat, alive, hand in zip(state.seats, state.alive, state.hands, strict=True):
        if not alive and hand:
            out.append(f"{seat} is eliminated but holds cards")
    if (state.phase is Phase.ATTEMPT) != (state.attempt is not None):
        out.append(f"phase {state.phase.value} with attempt {state.attempt}")
    if (state.phase is Phase.CALL) != (state.vacant is not None):
        out.append(f"phase {state.phase.value} with vacant place {state.vacant}")
    if state.call_extra and state.phase is not Phase.CALL:
        out.append("a call's extra card outside a call")
    if state.phase is Phase.OVER:
        if state.ending is None:
            out.append("the game is over without an ending")
        elif state.ending is Ending.SURVIVOR and state.players_left != 1:
            out.append(f"ended with one survivor but {state.players_left} are left")
        elif state.ending is Ending.DECK and state.deck:
            out.append("ended by the deck with cards still in it")
        return out
    if state.ending is not None:
        out.append("an ending while the game goes on")
    if state.players_left < 2:
        out.append("the game goes on with fewer than two players")
    if not state.alive[state.current]:
        out.append(f"{state.seats[state.current]} is eliminated but has the turn")
    if state.phase is Phase.TURN and not state.deck:
        out.append("a turn begins with an empty deck")
    attempt = state.attempt
    if attempt is not None:
        trick = TRICKS[attempt.trick]
        if attempt.trick not in state.shown:
            out.append(f"the attempted Trick {code(attempt.trick)} is not shown")
        indexes = [k for k, _ in attempt.done]
        if len(set(indexes)) != len(indexes) or not all(0 <= k < len(trick.moves) for k in indexes):
            out.append(f"the attempt's Moves {indexes} are not distinct Moves of {trick.name}")
        elif len(indexes) == len(trick.moves):
            out.append("every Move is done but the Trick was not won")
        for k, cards in attempt.done:
            if 0 <= k < len(trick.moves) and explain(trick.moves[k], cards) is not None:
                out.append(f"the cards played for Move {k + 1} of {trick.name} do not meet it")
    return out
