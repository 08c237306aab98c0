"""What no round the rules made can hold: negative holdings, records filed under another number.

The rules never leave a player below zero points, never file a lot, trade, proposal or request under
a number other than its own, and never hand out a number twice. A state that breaks one of these was
not made by them (an edited snapshot); ``python -m bot import`` refuses it rather than let the round
go on from it.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from games.nomic.items import Items
from games.nomic.state import RoundState


def _negative(what: str, counts: Iterable[tuple[str, int]]) -> list[str]:
    return [f"{what} has {value} {name}" for name, value in counts if value < 0]


def _items(what: str, items: Items) -> list[str]:
    found = _negative(what, (("points", items.points), ("Standard Proposal-Makers", items.spm)))
    found += [f"{what} holds copy {n}, which is no copy number" for n in items.copies if n < 1]
    return found


def _filed(what: str, records: Mapping[int, object], number: str, below: int | None) -> list[str]:
    """Each record under its own number (its ``number`` field), and below the next one to hand out."""
    found = []
    for key, record in records.items():
        own = getattr(record, number)
        if own != key:
            found.append(f"{what} {own} is filed under {key}")
        elif below is not None and isinstance(own, int) and not 1 <= own < below:
            found.append(f"{what} {own} is not a number the round handed out (1 to {below - 1})")
    return found


def invariants(state: RoundState) -> list[str]:
    """What is inconsistent in ``state`` (one line each); empty when the rules could have made it."""
    found: list[str] = []
    for key, player in state.players.items():
        if player.id != key:
            found.append(f"player {player.id} is filed under {key}")
        found += _negative(
            f"player {player.id}",
            (("points", player.points), ("Standard Proposal-Makers", player.spm), ("bid ceiling", player.bid_ceiling)),
        )
    found += _filed("lot", state.lots, "number", state.next_lot)
    for lot in state.lots.values():
        for bid in lot.bids:
            if bid.amount < 1:
                found.append(f"bid {bid.id} on lot {lot.number} is of {bid.amount} points")
            if not 1 <= bid.id < state.next_bid:
                found.append(f"bid {bid.id} is not a number the round handed out (1 to {state.next_bid - 1})")
    for trades in (state.trades, state.closed_trades):
        found += _filed("trade", trades, "number", state.next_trade)
        for trade in trades.values():
            found += _items(f"trade {trade.number}'s offer", trade.give) + _items(
                f"trade {trade.number}'s ask", trade.get
            )
    found += _filed("proposal", {p.number: p for p in state.proposals.values()}, "number", state.next_proposal)
    found += [f"proposal {p.number} is filed under message {m}" for m, p in state.proposals.items() if p.message != m]
    found += _filed("request", state.requests, "number", state.next_request)
    found += [f"the hand of {p} is filed under {h.player}" for p, h in state.hands.items() if h.player != p]
    if state.seq < 0:
        found.append(f"the round is at step {state.seq}")
    return found
