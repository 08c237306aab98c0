"""The figures ``python -m bot selfplay ictc`` reports: who wins (by deck, by going first), how battles end,
how long they take."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from games.ictc.battle.state import BattleOptions, BattleState


def stats(state: BattleState) -> dict[str, str | float | bool]:
    winner = state.winner
    won = "draw" if winner is None else state.sides[winner].deck_name
    decks = " vs ".join(sorted(s.deck_name for s in state.sides))
    return {
        "winner's deck": won,
        "pairing": decks,
        "first player won": winner is not None and winner == state.first,
        "ending": state.ending.value if state.ending is not None else "none",
        "turns": float(state.turn),
        "kitty cards": float(sum(len(s.kitty) for s in state.sides)),
        "winner's health": float(state.sides[winner].health) if winner is not None else 0.0,
    }


def lines(
    figures: Mapping[str, Sequence[str | float | bool]], games: int, players: int, options: BattleOptions | None
) -> list[str]:
    """The win split beside what a fair game would give (every deck and each seat near half)."""
    del players
    out: list[str] = []
    won = [str(v) for v in figures.get("winner's deck", ())]
    n = max(games, 1)
    counts: dict[str, int] = {}
    for deck in won:
        counts[deck] = counts.get(deck, 0) + 1
    split = ", ".join(f"{deck} {100 * c / n:.1f}%" for deck, c in sorted(counts.items(), key=lambda kv: -kv[1]))
    out.append(f"  win split by deck: {split}  (a fair pairing: each near 50%)")
    by_pairing: dict[str, dict[str, int]] = {}
    for pairing, winner in zip(figures.get("pairing", ()), won, strict=False):
        tally = by_pairing.setdefault(str(pairing), {})
        tally[winner] = tally.get(winner, 0) + 1
    for pairing, tally in sorted(by_pairing.items()):
        total = sum(tally.values())
        split = ", ".join(f"{deck} {100 * c / total:.0f}%" for deck, c in sorted(tally.items(), key=lambda kv: -kv[1]))
        out.append(f"  {pairing} ({total} games): {split}")
    first = [bool(v) for v in figures.get("first player won", ())]
    out.append(f"  first player won: {100 * sum(first) / n:.1f}%  (no edge: near 50%)")
    endings: dict[str, int] = {}
    for ending in figures.get("ending", ()):
        endings[str(ending)] = endings.get(str(ending), 0) + 1
    out.append("  endings: " + ", ".join(f"{e} {100 * c / n:.1f}%" for e, c in sorted(endings.items())))
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
