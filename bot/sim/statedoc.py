"""The state document of the simulator contract, built from the round's state."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from bot.sim.world import iso
from games.nomic.common import highest_bid
from games.nomic.proposals import tally
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
    proposals = []
    for p in sorted(state.proposals.values(), key=lambda p: p.number):
        votes_for, votes_against = (p.votes_for, p.votes_against) if not p.status.open else tally(state, p.message)
        proposals.append(
            {
                "message": p.message,
                "number": p.number,
                "author": p.author,
                "class": p.kind.value,
                "status": p.status.value,
                "votes_for": votes_for,
                "votes_against": votes_against,
            }
        )
    rulings = [
        {
            "request": r.number,
            "status": r.status.value,
            "by": r.by,
            "rulings": len(r.rulings),
            "confidence_vote": r.confidence is not None,
        }
        for _, r in sorted(state.requests.items())
    ]
    return {
        "now": iso(now),
        "phase": state.phase.value,
        "judge": state.judge,
        "players": players,
        "lots": lots,
        "proposals": proposals,
        "rulings": rulings,
        "candidacies": [c.author for c in state.candidacies.values()],
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
            for t in sorted([*state.trades.values(), *state.closed_trades.values()], key=lambda t: t.number)
        ],
        "presented": sorted(state.hands),
        "last_placements": [
            {"place": r.place, "player": r.player, "category": r.category, "coin_toss": r.coin_toss}
            for r in state.last_placements
        ],
        "seed": state.seed,
    }
