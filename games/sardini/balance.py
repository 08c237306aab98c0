"""The figures self-play reports for Sardini, beside the balance table of the game's specification.

``stats`` gives one finished game's numbers (self-play keeps them, game by game); ``lines`` turns
them into the report: Tricks performed, eliminations, games nobody scored in, the winner's cards and
the share of shown Tricks performed by rank band, each next to the specification's figure.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from games.sardini.scoring import winners
from games.sardini.state import Ending, SardiniOptions, SardiniState
from games.sardini.tricks import TRICKS

BANDS = ((1, 2), (3, 4), (5, 6), (7, 8), (9, 10))
SPEC: dict[int, tuple[str, str, str, str]] = {
    2: ("3.4", "0.33", "10%", "10.5"),
    3: ("3.6", "0.33", "5%", "8.8"),
    4: ("2.9", "0.20", "15%", "6.0"),
    5: ("2.4", "0.19", "41%", "3.8"),
    6: ("1.7", "0.09", "58%", "2.4"),
}
"""Tricks per game, eliminations per game, games where nobody scores, the winner's cards (the literal rules)."""
SPEC_CAPPED = ("3.5–3.7", "", "5–8%", "")
"""With ``draw_cap:4`` at 4 to 6 players."""
SPEC_BANDS = ("78%", "67%", "53%", "32%", "15%")


def stats(state: SardiniState) -> dict[str, str | float | bool]:
    best = winners(state)
    top = max((len(state.piles[state.seats.index(s)]) for s in best), default=0)
    scored = any(state.piles[i] for i, alive in enumerate(state.alive) if alive)
    out: dict[str, str | float | bool] = {
        "tricks": float(sum(len(w) for w in state.won)),
        "eliminations": float(state.alive.count(False)),
        "nobody": not scored,
        "winner_cards": float(top),
        "deck_end": state.ending is Ending.DECK,
    }
    won = {c for w in state.won for c in w}
    for low, high in BANDS:
        band = [c for c in state.flipped if low <= TRICKS[c].rank <= high]
        out[f"shown_{low}"] = float(len(band))
        out[f"done_{low}"] = float(sum(1 for c in band if c in won))
    return out


def lines(
    figures: Mapping[str, Sequence[str | float | bool]], games: int, players: int, options: SardiniOptions | None
) -> list[str]:
    n = max(games, 1)
    totals = {name: sum(float(v) for v in values if not isinstance(v, str)) for name, values in figures.items()}
    capped = options is not None and options.draw_cap == 4
    spec: tuple[str, ...] = SPEC.get(players, ("", "", "", ""))
    if options is not None and options != SardiniOptions(draw_cap=options.draw_cap):
        spec = ("", "", "", "")
    elif capped:
        spec = SPEC_CAPPED if players >= 4 else ("", "", "", "")
    elif options is not None and options.draw_cap is not None:
        spec = ("", "", "", "")
    mine = (
        f"{totals.get('tricks', 0) / n:.2f}",
        f"{totals.get('eliminations', 0) / n:.2f}",
        f"{100 * totals.get('nobody', 0) / n:.1f}%",
        f"{totals.get('winner_cards', 0) / n:.2f}",
    )
    names = ("Tricks performed per game", "eliminations per game", "games where nobody scored", "winner's cards")
    out = ["  balance (this run; the specification's figure in brackets, where it gives one):"]
    for name, value, reference in zip(names, mine, spec, strict=True):
        out.append(f"    {name}: {value}" + (f" [{reference}]" if reference else ""))
    shares = []
    for (low, high), reference in zip(BANDS, SPEC_BANDS, strict=True):
        shown = totals.get(f"shown_{low}", 0)
        share = 100 * totals.get(f"done_{low}", 0) / shown if shown else 0.0
        shares.append(f"{low}-{high} {share:.0f}% [{reference}]")
    out.append("    shown Tricks performed, by rank: " + ", ".join(shares))
    out.append(f"    games ended by the deck: {100 * totals.get('deck_end', 0) / n:.1f}% (the rest by a lone survivor)")
    return out
