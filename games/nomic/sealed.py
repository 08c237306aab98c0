"""Sealed bids (``auction.sealed_bids``): sent privately, committed to in public, opened together.

The round's community once ran sealed auctions by hand: each bidder posted a hash of their bid and
showed what it was made of when the auction ended. With the option on, the bot keeps that protocol.
Where the open rules cannot apply as they are, a sealed auction goes by these:

- A bid is sent where only its bidder sees it: a DM to the bot (``!bid LOT AMOUNT``) or ``/bid``. A bid
  typed where others read it is refused privately (the Discord adapter removes the message when it
  may), so that no amount stays public; every answer to a bid is its bidder's alone.
- It is checked as an open bid is, privately: the auction phase runs, the lot exists, the amount is a
  natural number the bidder can afford when bidding. Nobody sees the highest bid, so a bid need not
  exceed it; instead a member's later bid on a lot replaces their earlier one there, higher or lower.
- #auctions is told who bid on which lot, and the SHA-256 hash of ``LOT|BIDDER|AMOUNT|SALT`` (the
  bidder's member id; the salt 128 bits from the action's seeded dice, so a replay draws the same salt
  and a live round's come from its secret seed); nothing of the amount. The bidder is told the text
  hashed.
- A bid whose bidder can no longer afford it stops counting for good, as in an open auction; only the
  bidder is told then, and the opening tells everyone.
- When the auction ends every bid opens at once, replaced ones too: #auctions lists each with its
  amount, its salt and its hash. Then the lots are settled by the open rules: in lot order, each to its
  highest bid still valid, the points paid then; equal amounts go to the bid made first (a replacing bid
  counts from when it was made).
- The option is read when an auction phase starts (``RoundState.sealed_bids``): switched during an
  auction, it changes the next one, so no bid made in the open is sealed afterwards, nor the reverse.
"""

from __future__ import annotations

import hashlib
import random
from dataclasses import field

from games.nomic.actions import PlaceBid
from games.nomic.auction import check_bid, with_placed
from games.nomic.common import Transition, highest_bid, with_bid
from games.nomic.context import ChannelRole, Context
from games.nomic.events import Event
from games.nomic.state import Bid, Lot, RoundState, Seal
from games.values import valueclass

SALT_BITS = 128


def _points(n: int) -> str:
    return f"{n} point{'' if n == 1 else 's'}"


def commitment(lot: int, seal: Seal) -> str:
    """The text a sealed bid's hash is made from: ``LOT|BIDDER|AMOUNT|SALT``."""
    return f"{lot}|{seal.player}|{seal.amount}|{seal.salt}"


def seal_hash(lot: int, seal: Seal) -> str:
    """The hash #auctions shows when the bid is made: SHA-256 of ``commitment``, in hex."""
    return hashlib.sha256(commitment(lot, seal).encode("utf-8")).hexdigest()


def bidders(lot: Lot) -> int:
    """How many members made a sealed bid on the lot: all that anyone may know of its bids.

    A lapse does not lower it (that would tell that a bid was above what its bidder has left)."""
    return len({seal.player for seal in lot.seals})


def public_high(state: RoundState, lot: Lot) -> Bid | None:
    """The lot's highest valid bid as anyone may see it: none while bids are sealed."""
    return None if state.sealed_bids else highest_bid(state, lot)


def own_bids(state: RoundState, player: str) -> list[tuple[int, int]]:
    """(lot, amount) of the player's sealed bids still counting, for their eyes only."""
    return [(n, bid.amount) for n in sorted(state.lots) for bid in state.lots[n].bids if bid.player == player]


@valueclass
class SealedBidMade(Event):
    """The bidder's answer: what they bid and what its hash is made of, for them alone."""

    lot: int
    amount: int
    hashed: str
    digest: str
    replaced: int | None = None
    """The amount of the bidder's earlier bid on the lot, which this one replaces."""

    def text(self) -> str:
        instead = f", replacing your bid of {_points(self.replaced)}" if self.replaced is not None else ""
        return (
            f"🔒 Your sealed bid of {_points(self.amount)} on lot {self.lot} is in{instead}. #auctions shows only its"
            f" hash, `{self.digest}`: the SHA-256 of `{self.hashed}`. Every bid opens when the auction ends; until"
            f" then a new bid of yours on lot {self.lot} replaces this one."
        )

    def private_answer(self) -> bool:
        return True


@valueclass
class SealedBidPosted(Event):
    """What everyone sees of a sealed bid: who bid on which lot, and the hash that commits to the amount."""

    name: str
    lot: int
    digest: str
    replaces: bool
    bidders: int
    channel: ChannelRole = field(default=ChannelRole.AUCTIONS, init=False)

    def text(self) -> str:
        again = ", replacing their earlier bid there" if self.replaces else ""
        count = f"{self.bidders} bidder{'' if self.bidders == 1 else 's'} on lot {self.lot}"
        return f"🔒 {self.name} made a sealed bid on lot {self.lot}{again} ({count}). Hash: `{self.digest}`"

    def aside(self) -> ChannelRole | None:
        return ChannelRole.AUCTIONS


@valueclass
class OpenedBid:
    lot: int
    name: str
    amount: int
    hashed: str
    digest: str
    status: str = ""
    """Why it is out of the running (replaced, lapsed), or empty."""


@valueclass
class BidsOpened(Event):
    """Every sealed bid of the auction, opened at its end before the lots are settled."""

    bids: tuple[OpenedBid, ...]
    channel: ChannelRole = field(default=ChannelRole.AUCTIONS, init=False)

    def text(self) -> str:
        count = f"{len(self.bids)} bid{'' if len(self.bids) == 1 else 's'}"
        head = (
            f"🔓 The sealed bids open ({count}). Each line shows the text its hash was made from,"
            " `LOT|BIDDER|AMOUNT|SALT` (the bidder as their member id), then the hash posted when the bid was made:"
            " anyone can check it with SHA-256. The lots then go by the open rules."
        )
        lines = [head]
        for bid in self.bids:
            status = f" ({bid.status})" if bid.status else ""
            lines.append(f"- Lot {bid.lot}: {bid.name}, {_points(bid.amount)}{status}: `{bid.hashed}` → `{bid.digest}`")
        return "\n".join(lines)


def apply_sealed_bid(state: RoundState, ctx: Context, action: PlaceBid, rng: random.Random) -> Transition:
    """Take a sealed bid: it replaces the bidder's earlier one on the lot (counted or lapsed)."""
    check_bid(state, ctx, action)
    lot = state.lots[action.lot]
    name = state.players[ctx.actor].name
    earlier = next((seal for seal in reversed(lot.seals) if seal.player == ctx.actor), None)
    salt = f"{rng.getrandbits(SALT_BITS):0{SALT_BITS // 4}x}"
    seal = Seal(id=state.next_bid, player=ctx.actor, name=name, amount=action.amount, salt=salt, at=ctx.at)
    bid = Bid(id=seal.id, lot=lot.number, player=ctx.actor, amount=action.amount, at=ctx.at)
    kept = tuple(b for b in lot.bids if b.player != ctx.actor)
    lapsed = tuple(g for g in lot.lapsed if g.player != ctx.actor)
    lot = with_bid(lot.model_copy(update={"bids": kept, "lapsed": lapsed, "seals": (*lot.seals, seal)}), bid)
    digest = seal_hash(lot.number, seal)
    made = SealedBidMade(
        lot.number, action.amount, commitment(lot.number, seal), digest, earlier.amount if earlier else None
    )
    posted = SealedBidPosted(name, lot.number, digest, replaces=earlier is not None, bidders=bidders(lot))
    return Transition(with_placed(state, lot, bid), (made, posted))


def open_bids(state: RoundState) -> Transition:
    """Open every sealed bid of the auction (the settlement follows, by the open rules)."""
    opened: list[OpenedBid] = []
    lots: dict[int, Lot] = {}
    for number in sorted(state.lots):
        lot = state.lots[number]
        if not lot.seals:
            continue
        lapsed = {gone.id: gone.reason for gone in lot.lapsed}
        latest = {seal.player: seal.id for seal in lot.seals}
        for seal in lot.seals:
            if latest[seal.player] != seal.id:
                status = "replaced by their later bid"
            elif seal.id in lapsed:
                status = f"lapsed: {lapsed[seal.id]}"
            else:
                status = ""
            opened.append(
                OpenedBid(number, seal.name, seal.amount, commitment(number, seal), seal_hash(number, seal), status)
            )
        lots[number] = lot.model_copy(update={"seals": ()})
    state = state.model_copy(update={"sealed_bids": False, "lots": {**state.lots, **lots}})
    return Transition(state, (BidsOpened(tuple(opened)),) if opened else ())
