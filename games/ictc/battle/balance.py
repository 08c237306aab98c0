"""The figures ``python -m bot selfplay ictc`` reports: who wins each pairing of decks (and the draws), who went
first and how often that won, how battles end, how long they take.

A deck's share means something only against one other deck, so the split is given pairing by pairing, each
share out of that pairing's games; the starter decks aim at 40–60% in every pairing (``FAIR``).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence

from games.ictc.battle.state import BattleOptions, BattleState

FAIR = (40.0, 60.0)
"""The share of a pairing's games each deck may win for the pairing to count as fair (percent)."""
DRAW = "draw"
"""The winner's deck of a battle nobody won."""


def stats(state: BattleState) -> dict[str, str | float | bool]:
    winner = state.winner
    won = DRAW if winner is None else state.sides[winner].deck_name
    decks = " vs ".join(sorted(s.deck_name for s in state.sides))
    return {
        "winner's deck": won,
        "pairing": decks,
        "first player's deck": state.sides[state.first].deck_name,
        "first player won": winner is not None and winner == state.first,
        "ending": state.ending.value if state.ending is not None else "none",
        "turns": float(state.turn),
        "kitty cards": float(sum(len(s.kitty) for s in state.sides)),
        "winner's health": float(state.sides[winner].health) if winner is not None else 0.0,
    }


def _share(part: float, whole: int) -> str:
    return f"{100 * part / max(whole, 1):.1f}%"


def _fair(part: int, whole: int) -> bool:
    return FAIR[0] <= 100 * part / max(whole, 1) <= FAIR[1]


def pairing_line(pairing: str, games: Sequence[tuple[str, str, bool]]) -> str:
    """One pairing's games, each (winner's deck or ``draw``, first player's deck, first player won)."""
    total = len(games)
    won = Counter(w for w, _, _ in games)
    first = Counter(f for _, f, _ in games)
    first_won = _share(sum(1 for *_, yes in games if yes), total)
    decks = pairing.split(" vs ")
    draws = f"draws {_share(won[DRAW], total)}"
    if len(set(decks)) < 2:
        same = f"    {pairing} ({total} games, the same deck on both sides)"
        return f"{same}: {draws}; the player going first won {first_won}"
    a, b = decks
    fair = "" if _fair(won[a], total) and _fair(won[b], total) else f" ⚠ not within {FAIR[0]:.0f}–{FAIR[1]:.0f}%"
    return (
        f"    {a} vs {b} ({total} games): {a} won {_share(won[a], total)}, {b} won {_share(won[b], total)},"
        f" {draws}{fair}; {a} went first in {_share(first[a], total)}, and the player going first won {first_won}"
    )


def lines(
    figures: Mapping[str, Sequence[str | float | bool]], games: int, players: int, options: BattleOptions | None
) -> list[str]:
    """Each pairing's split beside what a fair one gives, each deck over the games it played, the first player."""
    del players
    n = max(games, 1)
    won = [str(v) for v in figures.get("winner's deck", ())]
    pairings = [str(v) for v in figures.get("pairing", ())]
    first = [str(v) for v in figures.get("first player's deck", ())]
    first_won = [bool(v) for v in figures.get("first player won", ())]
    by_pairing: dict[str, list[tuple[str, str, bool]]] = {}
    for pairing, winner, opener, yes in zip(pairings, won, first, first_won, strict=False):
        by_pairing.setdefault(pairing, []).append((winner, opener, yes))
    fair = f"{FAIR[0]:.0f}–{FAIR[1]:.0f}%"
    out = [f"  win split by deck, pairing by pairing, of each pairing's games (fair: each deck wins {fair}):"]
    out += [pairing_line(pairing, found) for pairing, found in sorted(by_pairing.items())]
    played: Counter[str] = Counter()
    for pairing in pairings:
        played.update(set(pairing.split(" vs ")))
    wins = Counter(w for w in won if w != DRAW)
    out.append(
        "  each deck over the games it played: "
        + ", ".join(f"{deck} won {_share(wins[deck], count)} of {count}" for deck, count in sorted(played.items()))
    )
    draws = sum(1 for w in won if w == DRAW)
    out.append(
        f"  first player won {_share(sum(first_won), n)} of all games, draws {_share(draws, n)}"
        " (no edge: near half of the games with a winner)"
    )
    endings = Counter(str(e) for e in figures.get("ending", ()))
    out.append("  endings: " + ", ".join(f"{e} {_share(c, n)}" for e, c in sorted(endings.items())))
    turns = sorted(float(v) for v in figures.get("turns", ()))
    if turns:
        cap = (options or BattleOptions()).turn_cap
        out.append(
            f"  turns: median {turns[len(turns) // 2]:g}, p10 {turns[len(turns) // 10]:g},"
            f" p90 {turns[(9 * len(turns)) // 10]:g} (cap {cap if cap is not None else 'none'})"
        )
    kitty = sorted(float(v) for v in figures.get("kitty cards", ()))
    if kitty:
        out.append(f"  kitty: median {kitty[len(kitty) // 2]:g} cards")
    return out
