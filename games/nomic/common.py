"""Shared pieces of the rules: transitions, the checks every action starts with, and holdings.

Every change of a player's points passes through ``change_holding`` (or, for many changes at
once, ``HoldingChanges``) so that no path can forget the rule that an unaffordable bid stops
counting.
"""

from __future__ import annotations

import bisect
from collections.abc import Iterable, Mapping, Sequence
from datetime import datetime, timedelta
from typing import TypeVar

from pydantic import BaseModel

from games.nomic.archive import Archived
from games.nomic.cards import Card, missing_cards, remove_cards, sort_cards
from games.nomic.context import ChannelRole, Context
from games.nomic.errors import InsufficientError, NotAllowedError, NotAPlayerError, WrongChannelError
from games.nomic.events import BidsInvalidated, Event
from games.nomic.items import Items, kind_plural
from games.nomic.ruleset import Ruleset
from games.nomic.state import Bid, Lot, Player, RoundState, RulesetVersion
from games.values import valueclass


@valueclass
class Transition:
    state: RoundState
    events: tuple[Event, ...] = ()
    archived: tuple[Archived, ...] = ()
    """Records that left the state (``games.nomic.archive``): the store keeps them with the action."""


def adopt_ruleset(state: RoundState, ruleset: Ruleset, record: RulesetVersion, at: datetime) -> RoundState:
    """A new ruleset version (its options and its text) in force from ``at``.

    A changed calendar only shapes the time to come: the clock moves up to the change, so no
    boundary of the new calendar that would have fallen before it is applied after the fact.
    """
    update: dict[str, object] = {
        "ruleset": ruleset,
        "ruleset_versions": (*state.ruleset_versions, record),
        "document": record.document,
    }
    just_before = at - timedelta(microseconds=1)
    if ruleset.calendar != state.ruleset.calendar and just_before > state.clock:
        update["clock"] = just_before
    return state.model_copy(update=update)


def lapse_unrevived(before: Ruleset, state: RoundState) -> Transition:
    """When a change turned bid revival off, the bids that were only waiting to become affordable again
    lapse for good now, as they would have without the option; otherwise a settlement could charge more
    than a player has."""
    if not before.auction.revive_bids or state.ruleset.auction.revive_bids:
        return Transition(state)
    changes = HoldingChanges(state)
    for player_id in sorted(state.players):
        changes.lapse_bids(player_id, "bids no longer revive")
    return changes.transition()


def require_channel(ctx: Context, *roles: ChannelRole) -> None:
    if ctx.channel not in roles:
        where = " or ".join(r.mention for r in roles)
        raise WrongChannelError(f"use this command in {where}")


def require_player(state: RoundState, ctx: Context) -> Player:
    player = state.players.get(ctx.actor)
    if player is None:
        raise NotAPlayerError("only players can do that; use `!join` in #game-actions to become one")
    return player


def require_moderator(ctx: Context) -> None:
    if not ctx.is_moderator:
        raise NotAllowedError("only moderators can do that")


def member_label(member_id: str) -> str:
    """How to name a member who is not a player: a Discord mention for snowflake ids."""
    return f"<@{member_id}>" if member_id.isdigit() else member_id


def target_player(state: RoundState, target: str) -> Player:
    player = state.players.get(target)
    if player is None:
        raise NotAPlayerError(f"{member_label(target)} is not a player: they need to `!join` in #game-actions first")
    return player


def shortfall(player: Player, items: Items) -> str | None:
    """What ``player`` lacks to hand over ``items``, or None when they have it all."""
    lacking: list[str] = []
    if items.points > player.points:
        lacking.append(f"{items.points - player.points} more points (has {player.points})")
    missing = missing_cards(player.cards, items.cards)
    if missing:
        lacking.append("the cards " + " ".join(c.code for c in missing))
    if items.spm > player.spm:
        lacking.append(f"{items.spm - player.spm} more Standard Proposal-Makers (has {player.spm})")
    for name, count in items.kinds:
        held = player.items.get(name, 0)
        if count > held:
            lacking.append(f"{kind_plural(name, count - held)} more (has {held})")
    return "; ".join(lacking) if lacking else None


def require_holding(player: Player, items: Items, who: str) -> None:
    lacking = shortfall(player, items)
    if lacking:
        raise InsufficientError(f"{who} {'lack' if who == 'you' else 'lacks'} {lacking}")


def change_holding(
    state: RoundState, player_id: str, *, add: Items | None = None, remove: Items | None = None, reason: str
) -> Transition:
    """Move items into or out of a player's possession and let unaffordable bids lapse.

    The caller has checked possession; a negative result is a bug and raises.
    """
    changes = HoldingChanges(state)
    changes.change(player_id, add=add, remove=remove, reason=reason)
    return changes.transition()


M = TypeVar("M", bound=BaseModel)
_new = object.__new__
_set = object.__setattr__


def rebuilt(model: M, update: Mapping[str, object]) -> M:
    """``model`` with the fields of ``update`` changed, made without validation.

    For values the rules computed from a valid model (points after a checked change, a card tuple
    sorted as it is kept): a pydantic ``model_copy`` costs some 3.5 µs, which at thousands of
    players is most of a tick's rule triggers; this is a tenth of that and builds the same model.
    """
    fields = dict(model.__dict__)
    fields.update(update)
    new = _new(type(model))
    _set(new, "__dict__", fields)
    _set(new, "__pydantic_fields_set__", _fields_set(model, update))
    _set(new, "__pydantic_extra__", None)
    _set(new, "__pydantic_private__", None)
    return new


def made_unvalidated(model_type: type[M], each: Iterable[dict[str, object]]) -> list[M]:
    """A model of ``model_type`` from each of ``each``, a value for each of its fields, made without validation.

    For records the rules fill from values they hold already checked (a placement's player, cards and
    prize): validating thousands of them was most of a placements' cost, and a call for each a tenth
    of the rest. Every field must be given, in the form validation would have left it: the model is
    the one validation makes. Each ``fields`` becomes its model's own; the set of fields given is one
    per type, shared as models share it until changed.
    """
    every = _EVERY_FIELD.get(model_type)
    if every is None:
        every = _EVERY_FIELD[model_type] = set(model_type.model_fields)
    made: list[M] = []
    for fields in each:
        new = _new(model_type)
        _set(new, "__dict__", fields)
        _set(new, "__pydantic_fields_set__", every)
        _set(new, "__pydantic_extra__", None)
        _set(new, "__pydantic_private__", None)
        made.append(new)
    return made


_EVERY_FIELD: dict[type[BaseModel], set[str]] = {}


def _fields_set(model: BaseModel, update: Mapping[str, object]) -> set[str]:
    """The fields set of ``model`` once ``update`` is made: its own set while it names them all already.
    A set is shared, never changed: a model's set is replaced (most players' name every field)."""
    fields_set = model.__pydantic_fields_set__
    return fields_set if fields_set.issuperset(update) else fields_set | update.keys()


_POINTS = frozenset({"points"})
_GRANTED = frozenset({"points", "spm", "cards"})


def _changed_in_place(model: BaseModel, update: Mapping[str, object]) -> None:
    """``update`` made to a model nothing else holds yet (``HoldingChanges``)."""
    model.__dict__.update(update)
    _set(model, "__pydantic_fields_set__", _fields_set(model, update))


class HoldingChanges:
    """Holding changes and bid lapses applied in order to working copies of the players and lots.

    Each map is copied at most once, on its first change, however many changes follow: a tick
    that pays thousands of players (placements) or a ruleset change that looks at every player
    costs one copy, not one copy per player. A player is copied once too, on their first change:
    until the copy is seen (``player``, ``state``) nothing else holds it, so later changes are made
    to it in place. The result is what applying the changes one at a time, each to a copy of its
    own, gives (tests/test_holdings.py keeps that code as the oracle): the same state, the same
    events in the same order, and the very same state object when nothing changed.
    """

    def __init__(self, state: RoundState) -> None:
        self._state = state
        self._players: dict[str, Player] = state.players
        self._lots: dict[int, Lot] = state.lots
        self._own_players = False
        self._own_lots = False
        self._unseen: set[str] = set()
        """Players whose copy this batch made and nothing else has seen: changed in place."""
        self.events: list[Event] = []

    def player(self, player_id: str) -> Player:
        """The player as the changes so far leave them (theirs to keep: later changes copy them anew)."""
        self._unseen.discard(player_id)
        return self._players[player_id]

    def peek(self, player_id: str) -> Player:
        """The player as the changes so far leave them, to read at once and not to keep: a later change
        may be made to this very object."""
        return self._players[player_id]

    def has_player(self, player_id: str) -> bool:
        return player_id in self._players

    def _set_player(self, player_id: str, player: Player) -> None:
        if not self._own_players:
            self._players = dict(self._players)
            self._own_players = True
        self._players[player_id] = player

    def _update(self, player_id: str, player: Player, update: dict[str, object]) -> None:
        """``player`` (the one in the working map) with ``update``: copied on the first change, then changed
        in place while nothing else has seen the copy."""
        if player_id in self._unseen:
            _changed_in_place(player, update)
            return
        self._set_player(player_id, rebuilt(player, update))
        self._unseen.add(player_id)

    def _set_lot(self, number: int, lot: Lot) -> None:
        if not self._own_lots:
            self._lots = dict(self._lots)
            self._own_lots = True
        self._lots[number] = lot

    def change(self, player_id: str, *, add: Items | None = None, remove: Items | None = None, reason: str) -> None:
        """What ``change_holding`` does, on the working maps."""
        player = self._players[player_id]
        points, spm, cards = player.points, player.spm, player.cards
        update: dict[str, object] = {}
        if remove is not None:
            lacking = shortfall(player, remove)
            if lacking:
                raise InsufficientError(f"{player.name} lacks {lacking}")
            points -= remove.points
            spm -= remove.spm
            cards = remove_cards(cards, remove.cards)
        if add is not None:
            points += add.points
            spm += add.spm
            cards = sort_cards((*cards, *add.cards))
        if (remove is not None and remove.kinds) or (add is not None and add.kinds):
            update["items"] = _kinds_after(player.items, add, remove)
        before = player.points
        update.update({"points": points, "spm": spm, "cards": cards})
        self._update(player_id, player, update)
        if points < before:
            self.lapse_bids(player_id, reason)

    def grant(self, player_id: str, *, points: int = 0, spm: int = 0, cards: Sequence[Card] = ()) -> None:
        """``change`` with ``add`` alone, without building an ``Items``: a gain never makes a bid lapse."""
        if points < 0 or spm < 0:
            raise ValueError("a grant cannot take anything away")
        player = self._players[player_id]
        cards = sort_cards((*player.cards, *cards))
        self._update(player_id, player, {"points": player.points + points, "spm": player.spm + spm, "cards": cards})

    def grant_each(self, prizes: Iterable[tuple[str, int, int, Sequence[Card]]]) -> None:
        """``grant`` of each ``(player, points, spm, cards)`` of ``prizes``, in one pass (placements pay
        every player): a new player each, built without a call per player. The cards come in the order
        cards are kept (``sort_cards``, as a presented hand is): a player who held none takes them as
        they are, and only one who held some has them sorted again."""
        if not self._own_players:
            self._players = dict(self._players)
            self._own_players = True
        players, unseen = self._players, self._unseen
        new = _new  # ``rebuilt``, unrolled: at thousands of players the calls are most of the cost
        for player_id, points, spm, cards in prizes:
            if points < 0 or spm < 0:
                raise ValueError("a grant cannot take anything away")
            player = players[player_id]
            if player_id in unseen:
                given = sort_cards((*player.cards, *cards)) if cards and player.cards else tuple(cards or player.cards)
                _changed_in_place(player, {"points": player.points + points, "spm": player.spm + spm, "cards": given})
                continue
            fields = player.__dict__.copy()
            fields["points"] += points
            fields["spm"] += spm
            if cards:
                held = fields["cards"]
                fields["cards"] = sort_cards((*held, *cards)) if held else tuple(cards)
            made = new(Player)
            _set(made, "__dict__", fields)
            fields_set = player.__pydantic_fields_set__
            _set(made, "__pydantic_fields_set__", fields_set if fields_set >= _GRANTED else fields_set | _GRANTED)
            _set(made, "__pydantic_extra__", None)
            _set(made, "__pydantic_private__", None)
            players[player_id] = made
            unseen.add(player_id)

    def grant_points(self, player_ids: Sequence[str], points: int) -> None:
        """``grant`` of ``points`` to each of ``player_ids`` (a rule's "every player gains"), in one pass; their
        cards, kept in order by every change, are left as they are."""
        if points < 0:
            raise ValueError("a grant cannot take anything away")
        if not self._own_players:
            self._players = dict(self._players)
            self._own_players = True
        players, unseen = self._players, self._unseen
        new = _new  # ``rebuilt``, unrolled: at thousands of players the calls are most of the cost
        for player_id in player_ids:
            player = players[player_id]
            if player_id in unseen:
                _changed_in_place(player, {"points": player.points + points})
                continue
            fields = player.__dict__.copy()
            fields["points"] += points
            made = new(Player)
            _set(made, "__dict__", fields)
            fields_set = player.__pydantic_fields_set__
            _set(made, "__pydantic_fields_set__", fields_set if "points" in fields_set else fields_set | _POINTS)
            _set(made, "__pydantic_extra__", None)
            _set(made, "__pydantic_private__", None)
            players[player_id] = made
            unseen.add(player_id)

    def lapse_bids(self, player_id: str, reason: str, *, all_bids: bool = False) -> None:
        """What ``invalidate_bids`` does, on the working maps."""
        player = self._players.get(player_id)
        points = player.points if player is not None and not all_bids else -1
        revive = self._state.ruleset.auction.revive_bids
        if player is not None and not all_bids and (revive or player.bid_ceiling <= points):
            return
        name = player.name if player is not None else player_id
        lost: list[tuple[int, int]] = []
        for number, lot in tuple(self._lots.items()):
            start = bisect.bisect_right(lot.bids, points, key=lambda b: b.amount)
            doomed = {b.id for b in lot.bids[start:] if b.player == player_id}
            if not doomed:
                continue
            lost.extend((number, b.amount) for b in lot.bids[start:] if b.id in doomed)
            self._set_lot(number, lot.lapse(doomed, name=name, reason=reason))
        if player is not None and player.bid_ceiling > max(points, 0):
            self._update(player_id, player, {"bid_ceiling": max(points, 0)})
        if lost:
            sealed = self._state.sealed_bids
            lapse = BidsInvalidated(name=name, bids=tuple(sorted(lost)), reason=reason, player=player_id, sealed=sealed)
            self.events.append(lapse)

    def state(self) -> RoundState:
        """The state with every change so far; later changes copy the maps anew, leaving it as it is."""
        update: dict[str, object] = {}
        if self._own_players:
            update["players"] = self._players
        if self._own_lots:
            update["lots"] = self._lots
        if update:
            self._state = self._state.model_copy(update=update)
            self._own_players = self._own_lots = False
        self._unseen.clear()
        return self._state

    def transition(self) -> Transition:
        return Transition(self.state(), tuple(self.events))


def _kinds_after(held: dict[str, int], add: Items | None, remove: Items | None) -> dict[str, int]:
    """A player's items of the rules' kinds after a change (a kind no longer held leaves the map)."""
    after = dict(held)
    for name, count in remove.kinds if remove is not None else ():
        after[name] = after.get(name, 0) - count
    for name, count in add.kinds if add is not None else ():
        after[name] = after.get(name, 0) + count
    return {name: count for name, count in sorted(after.items()) if count > 0}


def bid_counts(state: RoundState, bid: Bid) -> bool:
    """Whether a bid takes part in its lot's auction right now (lapsed bids are gone already)."""
    if state.ruleset.auction.revive_bids:
        player = state.players.get(bid.player)
        return player is not None and player.points >= bid.amount
    return True


def bid_order(bid: Bid) -> tuple[int, int]:
    """A lot's bids are kept in this order: by amount, the earlier first among equal amounts."""
    return (bid.amount, -bid.id)


def with_bid(lot: Lot, bid: Bid) -> Lot:
    """The lot with a new bid in its place; without revival it always goes on top."""
    bids = lot.bids
    if not bids or bid_order(bid) > bid_order(bids[-1]):
        return rebuilt(lot, {"bids": (*bids, bid)})
    index = bisect.bisect_right(bids, bid_order(bid), key=bid_order)
    return rebuilt(lot, {"bids": (*bids[:index], bid, *bids[index:])})


def highest_bid(state: RoundState, lot: Lot) -> Bid | None:
    """The highest bid that counts (the earliest of equal ones).

    Lapsed bids leave their lot and the rest stay in ``bid_order``, so the answer is the topmost
    bid that counts: without revival that is simply the last one.
    """
    for bid in reversed(lot.bids):
        if bid_counts(state, bid):
            return bid
    return None


def invalidate_bids(state: RoundState, player_id: str, reason: str, *, all_bids: bool = False) -> Transition:
    """Remove for good the player's bids they can no longer afford (or all of them).

    Bids are ordered by amount, so only those above the player's points are looked at, and
    ``bid_ceiling`` lets a loss of points that leaves every bid affordable skip even that.
    """
    changes = HoldingChanges(state)
    changes.lapse_bids(player_id, reason, all_bids=all_bids)
    return changes.transition()
