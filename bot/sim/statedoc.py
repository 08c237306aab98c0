"""The state document of the simulator contract, built from the round's state."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from bot.sim.world import iso
from games.nomic.common import highest_bid
from games.nomic.state import RoundState


def state_document(state: RoundState | None, now: datetime) -> dict[str, Any]:
    if state is None:
        return {
            "now": iso(now),
            "phase": None,
            "judge": None,
            "players": {},
            "lots": [],
            "proposals": [],
            "rulings": [],
            "tables": [],
        }
    players = {
        pid: {
            "points": p.points,
            "cards": [c.code for c in p.cards],
            "items": {"standard_proposal_maker": p.spm},
        }
        for pid, p in sorted(state.players.items())
    }
    lots = []
    for number in sorted(state.lots):
        lot = state.lots[number]
        high = highest_bid(state, lot)
        lots.append(
            {
                "number": number,
                "cards": [c.code for c in lot.cards],
                "high_bid": {"player": high.player, "amount": high.amount} if high is not None else None,
            }
        )
    return {
        "now": iso(now),
        "phase": state.phase.value,
        "judge": None,
        "players": players,
        "lots": lots,
        "proposals": [],
        "rulings": [],
        "tables": [],
        "ruleset_version": state.ruleset_version,
        "trades": [
            {
                "number": t.number,
                "offerer": t.offerer,
                "target": t.target,
                "give": t.give.describe(),
                "get": t.get.describe(),
                "status": t.status.value,
            }
            for t in sorted(state.trades.values(), key=lambda t: t.number)
        ],
        "presented": sorted(state.hands),
        "last_placements": [
            {"place": r.place, "player": r.player, "category": r.category, "coin_toss": r.coin_toss}
            for r in state.last_placements
        ],
        "seed": state.seed,
    }
