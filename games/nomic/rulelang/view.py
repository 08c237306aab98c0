"""The rule language's read-only view of a round's state (``games.nomic.rulelang.run.View``)."""

from __future__ import annotations

import operator
from collections import Counter
from collections.abc import Mapping, Sequence

from games.nomic.rulelang.force import Kinds
from games.nomic.rulelang.program import SPM
from games.nomic.state import RoundState


def lots_bid_on(state: RoundState) -> dict[str, int]:
    """How many lots each player bid on in this auction phase: the lots' bids, lapsed ones included.

    Taken before the settlement when a rule runs at the auction's end, since settled lots leave.
    """
    count: Counter[str] = Counter()
    for lot in state.lots.values():
        bidders = set(map(_BIDDER, lot.bids))
        bidders.update(map(_BIDDER, lot.lapsed))
        count.update(bidders)
    return dict(count)


_BIDDER = operator.attrgetter("player")


class StateView:
    """Public facts of one state; what it works out (the players' order, places, bids) is worked out once."""

    def __init__(self, state: RoundState, kinds: Kinds, *, bids: Mapping[str, int] | None = None) -> None:
        self._state = state
        self._kinds = kinds
        self._bids = bids
        self._ids: list[str] | None = None
        self._places: dict[str, int] | None = None

    def player_ids(self) -> Sequence[str]:
        if self._ids is None:
            self._ids = sorted(self._state.players)
        return self._ids

    def is_player(self, player: str) -> bool:
        return player in self._state.players

    def points(self, player: str) -> int:
        found = self._state.players.get(player)
        return found.points if found is not None else 0

    def held(self, player: str, item: str) -> int:
        found = self._state.players.get(player)
        if found is None:
            return 0
        if item == SPM:
            return found.spm
        kind = self._kinds.find(item)
        return found.items.get(kind.name if kind is not None else item, 0)

    def judge(self) -> str | None:
        return self._state.judge

    def phase(self) -> str:
        return self._state.phase.value

    def place(self, player: str) -> int | None:
        if self._places is None:
            self._places = {r.player: r.place for r in self._state.last_placements}
        return self._places.get(player)

    def lots_bid_on(self, player: str) -> int:
        if self._bids is None:
            self._bids = lots_bid_on(self._state)
        return self._bids.get(player, 0)
