"""What happened, as typed facts. Every adapter shows the same sentence for the same event.

An event produced by a member's command is part of the answer to that command; an event of
scheduled work is announced in the channel it names.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime

from games.nomic.cards import Card
from games.nomic.context import ChannelRole
from games.nomic.items import Items


def _plural(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


def cards_text(cards: tuple[Card, ...] | list[Card]) -> str:
    return " ".join(c.code for c in cards) if cards else "no cards"


@dataclass(frozen=True)
class Event:
    channel: ChannelRole = field(default=ChannelRole.GAME_ACTIONS, init=False)

    def text(self) -> str:  # pragma: no cover - every event overrides it
        raise NotImplementedError


@dataclass(frozen=True)
class RoundStarted(Event):
    at: datetime
    ruleset: str

    def text(self) -> str:
        return f"The round has started with the `{self.ruleset}` ruleset. Use `!join` in #game-actions to play."


@dataclass(frozen=True)
class Joined(Event):
    name: str
    points: int

    def text(self) -> str:
        return f"Welcome, {self.name}: you are now a player with {_plural(self.points, 'point')}."


@dataclass(frozen=True)
class Left(Event):
    name: str
    left_server: bool

    def text(self) -> str:
        why = "left the server and is" if self.left_server else "is"
        return f"{self.name} {why} no longer a player; their items are gone and their bids and offers lapse."


@dataclass(frozen=True)
class BidPlaced(Event):
    name: str
    lot: int
    amount: int

    def text(self) -> str:
        return f"{self.name} bids {_plural(self.amount, 'point')} on lot {self.lot}; it is now the highest bid."


@dataclass(frozen=True)
class BidsInvalidated(Event):
    name: str
    bids: tuple[tuple[int, int], ...]
    """(lot, amount) of each bid that lost its validity."""
    reason: str

    def text(self) -> str:
        listed = ", ".join(f"{amount} on lot {lot}" for lot, amount in self.bids)
        return f"{self.name}'s {'bid' if len(self.bids) == 1 else 'bids'} ({listed}) no longer count: {self.reason}."


@dataclass(frozen=True)
class LotGenerated(Event):
    name: str
    lot: int
    cards: tuple[Card, ...]
    rolls: tuple[tuple[int, int], ...]
    by_moderator: bool = False

    def text(self) -> str:
        if self.by_moderator:
            return f"A moderator placed lot {self.lot}: {cards_text(self.cards)}."
        rolled = "; ".join(
            f"d13={d13}, d4={d4} -> {card.code}" for (d13, d4), card in zip(self.rolls, self.cards, strict=True)
        )
        return f"{self.name} generates lot {self.lot}. Rolls: {rolled}. Lot {self.lot} is {cards_text(self.cards)}."


@dataclass(frozen=True)
class LotSold(Event):
    lot: int
    cards: tuple[Card, ...]
    name: str
    amount: int
    channel: ChannelRole = field(default=ChannelRole.AUCTIONS, init=False)

    def text(self) -> str:
        return f"Lot {self.lot} ({cards_text(self.cards)}) goes to {self.name} for {_plural(self.amount, 'point')}."


@dataclass(frozen=True)
class LotUnsold(Event):
    lot: int
    cards: tuple[Card, ...]
    kept: bool
    channel: ChannelRole = field(default=ChannelRole.AUCTIONS, init=False)

    def text(self) -> str:
        fate = "it stays for the next auction" if self.kept else "it is discarded"
        return f"Lot {self.lot} ({cards_text(self.cards)}) had no valid bid; {fate}."


@dataclass(frozen=True)
class PhaseBegins(Event):
    phase: str
    ends_at: datetime
    note: str = ""

    def text(self) -> str:
        stamp = self.ends_at.strftime("%A %Y-%m-%d %H:%M UTC")
        extra = f" {self.note}" if self.note else ""
        return f"The {self.phase} phase has begun; it ends {stamp}.{extra}"


@dataclass(frozen=True)
class PointsGranted(Event):
    amount: int
    players: int

    def text(self) -> str:
        return f"Each of the {_plural(self.players, 'player')} gains {_plural(self.amount, 'point')}."


@dataclass(frozen=True)
class HandPresented(Event):
    name: str
    cards: tuple[Card, ...]
    category: str

    def text(self) -> str:
        return (
            f"{self.name} presents {cards_text(self.cards)} ({self.category}). "
            "The cards are set aside until placements."
        )


@dataclass(frozen=True)
class PlacementLine:
    place: int
    name: str
    cards: tuple[Card, ...]
    category: str
    prize: Items
    cards_returned: bool
    coin_toss: bool


@dataclass(frozen=True)
class PlacementsMade(Event):
    lines: tuple[PlacementLine, ...]

    def text(self) -> str:
        if not self.lines:
            return "Placements: nobody presented a hand this week."
        out = ["Placements of the presented hands:"]
        for line in self.lines:
            prize = line.prize.describe() if not line.prize.empty else ""
            if line.cards_returned:
                prize = "their cards back"
            toss = " (after a coin toss)" if line.coin_toss else ""
            out.append(
                f"{line.place}. {line.name}: {cards_text(line.cards)}, {line.category}{toss}"
                + (f" - wins {prize}" if prize else "")
            )
        return "\n".join(out)


@dataclass(frozen=True)
class TradeOffered(Event):
    number: int
    offerer: str
    target: str
    give: Items
    get: Items

    def text(self) -> str:
        return (
            f"Trade {self.number}: {self.offerer} offers {self.target} {self.give.describe()} "
            f"for {self.get.describe()}. {self.target} can `!accept {self.number}` or `!decline {self.number}`."
        )


@dataclass(frozen=True)
class TradeSettled(Event):
    number: int
    offerer: str
    target: str
    give: Items
    get: Items

    def text(self) -> str:
        return (
            f"Trade {self.number} is done: {self.offerer} gave {self.give.describe()} "
            f"and {self.target} gave {self.get.describe()}."
        )


@dataclass(frozen=True)
class TradeClosed(Event):
    number: int
    how: str
    by: str

    def text(self) -> str:
        return f"Trade {self.number} was {self.how} by {self.by}."


@dataclass(frozen=True)
class TradesVoided(Event):
    numbers: tuple[int, ...]
    reason: str

    def text(self) -> str:
        listed = ", ".join(str(n) for n in self.numbers)
        return f"{'Trade' if len(self.numbers) == 1 else 'Trades'} {listed} can no longer happen: {self.reason}."


@dataclass(frozen=True)
class ItemsAdjusted(Event):
    name: str
    items: Items
    given: bool
    by: str

    def text(self) -> str:
        if self.given:
            return f"{self.by} gave {self.name} {self.items.describe()}."
        return f"{self.by} took {self.items.describe()} from {self.name}."


@dataclass(frozen=True)
class OptionChanged(Event):
    option: str
    old: str
    new: str
    version: int
    by: str

    def text(self) -> str:
        return f"{self.by} set `{self.option}` from {self.old} to {self.new} (ruleset version {self.version})."


@dataclass(frozen=True)
class Notice(Event):
    """Plain information, such as the answer to a query."""

    body: str

    def text(self) -> str:
        return self.body
