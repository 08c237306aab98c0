"""Applying a rule's effects to the round, by the rules of a moderator's correction.

Every change goes through ``HoldingChanges`` (so a loss of points lets unaffordable bids lapse, as
any loss does), and nothing ever goes below zero: a loss or a gift of more than a player has takes
what there is and says so; an item kind no rule in force makes is given to nobody.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from games.nomic.common import HoldingChanges, member_label
from games.nomic.events import Event, RuleAnnouncement, RuleApplied
from games.nomic.items import Items, kind_plural
from games.nomic.rulelang.force import resolve_kind
from games.nomic.rulelang.program import POINTS, SPM, Trigger
from games.nomic.rulelang.run import Announcement, Change, Effect, Stopped, Transfer
from games.nomic.state import Player, RoundState

_BUILT_IN = frozenset({POINTS, SPM})


def _held(player: Player, item: str) -> int:
    if item == POINTS:
        return player.points
    if item == SPM:
        return player.spm
    return player.items.get(item, 0)


def _bundle(item: str, count: int) -> Items:
    if item == POINTS:
        return Items(points=count)
    if item == SPM:
        return Items(spm=count)
    return Items(kinds=((item, count),))


def _words(item: str, count: int) -> str:
    if item == POINTS:
        return f"{count} point{'s' if count != 1 else ''}"
    if item == SPM:
        return f"{count} Standard Proposal-Maker{'s' if count != 1 else ''}"
    return kind_plural(item, count)


class _Tally:
    """One rule's run: each player's net change by item, in the order the players were first changed."""

    def __init__(self, rule: str, trigger: str) -> None:
        self.rule = rule
        self.trigger = trigger
        self.net: dict[str, dict[str, int]] = {}
        self.notes: list[str] = []
        self.reason = f"rule {rule} took points from them" if rule else "a rule took points from them"

    def add(self, player: str, item: str, count: int) -> None:
        if count:
            by_item = self.net.setdefault(player, {})
            by_item[item] = by_item.get(item, 0) + count

    def add_each(self, players: Sequence[str], item: str, count: int) -> None:
        """``add`` for each of ``players``, in one pass."""
        net = self.net
        for player in players:
            by_item = net.get(player)
            if by_item is None:
                net[player] = {item: count}
            else:
                by_item[item] = by_item.get(item, 0) + count

    def event(self, state: RoundState) -> RuleApplied:
        groups: dict[str, list[str]] = {}
        phrases: dict[tuple[tuple[str, int], ...], str] = {}  # most players of a run change alike
        players = state.players
        for player, by_item in self.net.items():
            key = tuple(by_item.items())
            phrase = phrases.get(key)
            if phrase is None:
                gains = [_words(item, n) for item, n in key if n > 0]
                losses = [_words(item, -n) for item, n in key if n < 0]
                said = [f"gains {' and '.join(gains)}"] if gains else []
                said += [f"loses {' and '.join(losses)}"] if losses else []
                phrase = phrases[key] = " and ".join(said)
            if phrase:
                found = players.get(player)
                groups.setdefault(phrase, []).append(found.name if found is not None else player)
        changes = tuple((what, tuple(names)) for what, names in groups.items())
        return RuleApplied(self.rule, self.trigger, changes, tuple(self.notes))


def _gains_alike(effects: Sequence[Effect], start: int, changes: HoldingChanges, tally: _Tally) -> int:
    """The run of effects from ``start`` that give points alike (the same rule, the same count: what
    ``every player gains 5 points`` makes), applied in one pass, one copy a player; the index after it."""
    first = effects[start]
    rule, gain = first.rule, first.count  # type: ignore[union-attr]
    gainers: list[str] = []
    end, count = start, len(effects)
    while end < count:
        effect = effects[end]
        if type(effect) is not Change or effect.item != POINTS or effect.count != gain or effect.rule != rule:
            break
        if changes.has_player(effect.player):
            gainers.append(effect.player)
        else:
            tally.notes.append(f"{member_label(effect.player)} is not a player, so nothing happened to them")
        end += 1
    changes.grant_points(gainers, gain)
    tally.add_each(gainers, POINTS, gain)
    return end


def apply_effects(
    state: RoundState, effects: Sequence[Effect], at: datetime, *, trigger: Trigger | None = None
) -> tuple[RoundState, tuple[Event, ...]]:
    """The state after ``effects`` and the events that tell of them: one ``RuleApplied`` per rule that
    changed something or has a note, its announcements, and the bids that lapsed."""
    del at  # the effects of one transition happen at its instant; nothing here is timed
    changes = HoldingChanges(state)
    tallies: dict[str, _Tally] = {}
    announcements: list[Event] = []
    kinds_checked: dict[str, str | None] = {}
    said = trigger.value if trigger is not None else "it was triggered"

    def item_of(effect: Change | Transfer, tally: _Tally) -> str | None:
        if effect.item is POINTS or effect.item in _BUILT_IN:
            return effect.item
        if effect.item not in kinds_checked:
            kinds_checked[effect.item] = resolve_kind(state, effect.item)
        name = kinds_checked[effect.item]
        if name is None:
            tally.notes.append(f"no rule in force makes the item {effect.item}, so none was given or taken")
        return name

    def name_of(player: str) -> str:
        found = changes.peek(player) if changes.has_player(player) else None
        return found.name if found is not None else player

    index, count = 0, len(effects)
    while index < count:
        effect = effects[index]
        index += 1
        if type(effect) is Change and effect.item == POINTS and effect.count > 0:
            tally = tallies.get(effect.rule)
            if tally is None:
                tally = tallies[effect.rule] = _Tally(effect.rule, said)
            index = _gains_alike(effects, index - 1, changes, tally)
            continue
        tally = tallies.get(effect.rule)
        if tally is None:
            tally = tallies[effect.rule] = _Tally(effect.rule, said)
        reason = tally.reason
        if isinstance(effect, Announcement):
            announcements.append(RuleAnnouncement(effect.rule, effect.text))
            continue
        if isinstance(effect, Stopped):
            tally.notes.append(
                f"it stopped after {effect.steps:,} steps, the most a rule may take, and changed nothing"
            )
            continue
        item = item_of(effect, tally)
        if item is None:
            continue
        if isinstance(effect, Change):
            if not changes.has_player(effect.player):
                tally.notes.append(f"{member_label(effect.player)} is not a player, so nothing happened to them")
                continue
            if effect.count > 0:
                if item == POINTS:  # the common case, without building a bundle: a gain never lapses a bid
                    changes.grant(effect.player, points=effect.count)
                else:
                    changes.change(effect.player, add=_bundle(item, effect.count), reason=reason)
                tally.add(effect.player, item, effect.count)
                continue
            have = _held(changes.peek(effect.player), item)
            taken = min(have, -effect.count)
            if taken < -effect.count:
                tally.notes.append(
                    f"{name_of(effect.player)} had only {_words(item, have)}, so lost {'those' if have else 'nothing'}"
                    f" instead of {_words(item, -effect.count)}"
                )
            if taken:
                changes.change(effect.player, remove=_bundle(item, taken), reason=reason)
            tally.add(effect.player, item, -taken)
            continue
        if isinstance(effect, Transfer):
            if not changes.has_player(effect.giver) or not changes.has_player(effect.receiver):
                gone = effect.receiver if changes.has_player(effect.giver) else effect.giver
                tally.notes.append(f"{member_label(gone)} is not a player, so nothing moved")
                continue
            have = _held(changes.peek(effect.giver), item)
            moved = min(have, effect.count)
            if moved < effect.count:
                tally.notes.append(
                    f"{name_of(effect.giver)} had only {_words(item, have)} to give"
                    f" instead of {_words(item, effect.count)}"
                )
            if moved:
                changes.change(effect.giver, remove=_bundle(item, moved), reason=reason)
                changes.change(effect.receiver, add=_bundle(item, moved), reason=reason)
            tally.add(effect.giver, item, -moved)
            tally.add(effect.receiver, item, moved)
    new = changes.state()
    events: list[Event] = [t.event(new) for t in tallies.values() if t.net or t.notes]
    events.extend(announcements)
    events.extend(changes.events)
    return new, tuple(events)
