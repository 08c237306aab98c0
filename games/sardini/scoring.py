"""The end of a Sardini game in numbers and words: who won, what each seat scores, the summary.

The survivors score their piles; the most cards wins, ties go to the most Tricks, then the win is
shared. A lone survivor wins whatever the piles say; an eliminated player's pile scores nothing.
"""

from __future__ import annotations

from games.sardini.state import Ending, Phase, SardiniState
from games.sardini.texts import t, tn
from games.sardini.tricks import TRICKS


def winners(state: SardiniState) -> tuple[str, ...]:
    """A lone survivor; else the survivors with the most cards, then the most Tricks (the win shared)."""
    if state.phase is not Phase.OVER:
        return ()
    alive = [i for i, a in enumerate(state.alive) if a]
    if state.ending is Ending.SURVIVOR:
        return tuple(state.seats[i] for i in alive)
    best = max((len(state.piles[i]), len(state.won[i])) for i in alive)
    return tuple(state.seats[i] for i in alive if (len(state.piles[i]), len(state.won[i])) == best)


def scores(state: SardiniState) -> dict[str, int]:
    """Cards each player scores: survivors their pile, the eliminated nothing."""
    return {seat: len(state.piles[i]) if state.alive[i] else 0 for i, seat in enumerate(state.seats)}


def pile_line(state: SardiniState, i: int, lang: str = "en") -> str:
    names = ", ".join(TRICKS[c].name for c in state.won[i])
    n, k = len(state.piles[i]), len(state.won[i])
    tricks = tn(lang, "summary.tricks", k, names=names) if k else ""
    line = tn(lang, "summary.pile", n, seat=state.seats[i], tricks=tricks)
    return line if state.alive[i] else line + " " + t(lang, "summary.not_scored")


def summary(state: SardiniState, lang: str = "en") -> str:
    """The end in words: why it ended, who won, and every player's pile."""
    best = winners(state)
    why = t(lang, "summary.survivor" if state.ending is Ending.SURVIVOR else "summary.deck")
    top = max((len(state.piles[state.seats.index(s)]) for s in best), default=0)
    if state.ending is Ending.SURVIVOR:
        head = tn(lang, "summary.lone", top, seat=best[0])
    elif top == 0:
        # an eliminated player may have performed Tricks: then only the survivors have none
        key = "summary.no_survivor" if any(state.won) else "summary.nobody"
        head = t(lang, key, seats=", ".join(best))
    elif len(best) == 1:
        head = tn(lang, "summary.wins", top, seat=best[0])
    else:
        head = tn(lang, "summary.shared", top, seats=", ".join(best))
    piles = "; ".join(pile_line(state, i, lang) for i in range(len(state.seats)))
    return f"{why} {head} {t(lang, 'summary.piles', piles=piles)}"
