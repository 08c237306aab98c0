"""Outbid notices and members' notice settings (``!notify``).

A player who opted in is told privately when their highest bid on a lot is beaten by another
player's, or stops counting because they can no longer afford it (after a trade, a payment at
settlement, a moderator's correction). At most one notice a minute goes to a player: what happens
within the minute after a notice waits in the state (``RoundState.outbid_pending``) and goes out
in one notice, naming every lot, with the scheduled work at the minute's end. Both the waiting
notices and the time of the last one are state, so a restart neither repeats nor loses one.

A notice names lots, amounts and the public bids; never a card a player holds.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime, timedelta

from games.nomic.actions import SetNotice
from games.nomic.common import Transition, highest_bid, rebuilt
from games.nomic.context import Context
from games.nomic.events import BidPlaced, BidsInvalidated, Event, Notice
from games.nomic.state import MemberNotices, OutbidItem, RoundState
from games.values import valueclass

NOTICE_INTERVAL = timedelta(minutes=1)
"""The least time between two outbid notices to one player."""

_WORDS = {
    "outbid": (
        "Outbid notices",
        "I will tell you by DM when your highest bid on a lot is beaten or stops counting, at most once a minute",
        "no DMs about your bids",
    ),
    "reminders": (
        "Personal reminders",
        "I will remind you by DM to present a hand before placements, and, as judge, of requests waiting for you",
        "no personal reminders (the channel reminders still appear in their channels)",
    ),
}


def check_set(state: RoundState, ctx: Context, action: SetNotice) -> None:
    """Any member may choose; a member who is not a player yet keeps the choice for when they play."""
    del state, ctx, action


def apply_set(state: RoundState, ctx: Context, action: SetNotice) -> Transition:
    check_set(state, ctx, action)
    current = state.notices_of(ctx.actor)
    title, on_text, off_text = _WORDS[action.notice]
    if getattr(current, action.notice) == action.on:
        return Transition(state, (Notice(f"{title} were already {_on(action.on)} for you."),))
    chosen = current.model_copy(update={action.notice: action.on})
    notices = {k: v for k, v in state.notices.items() if k != ctx.actor}
    if chosen != MemberNotices():
        notices[ctx.actor] = chosen
    update: dict[str, object] = {"notices": notices}
    if action.notice == "outbid" and not action.on and ctx.actor in state.outbid_pending:
        update["outbid_pending"] = {k: v for k, v in state.outbid_pending.items() if k != ctx.actor}
    text = f"{title} are {_on(action.on)} for you: {on_text if action.on else off_text}."
    return Transition(state.model_copy(update=update), (Notice(text),))


def _on(on: bool) -> str:
    return "on" if on else "off"


def settings_text(state: RoundState, member: str) -> str:
    """``!notify``: what the member is told privately, and how to change it."""
    mine = state.notices_of(member)
    lines = ["Your notices:"]
    for key in ("outbid", "reminders"):
        title, on_text, off_text = _WORDS[key]
        on = bool(getattr(mine, key))
        lines.append(f"- {title}: **{_on(on)}** ({on_text if on else off_text}). `!notify {key} {_on(not on)}`")
    return "\n".join(lines)


# --- outbid notices ------------------------------------------------------------------------------


@valueclass
class OutbidNotice(Event):
    """Lots on which one player lost the lead, told to them alone."""

    player: str
    lines: tuple[str, ...]

    def text(self) -> str:
        count = len(self.lines)
        head = "📣 Auction news for you:" if count == 1 else f"📣 Auction news for you, on {count} lots:"
        return "\n".join(
            [head, *(f"- {line}" for line in self.lines), "`!lots` shows every lot; `!notify outbid off` stops these."]
        )

    def recipient(self) -> str | None:
        return self.player


def wants_outbid(state: RoundState, member: str) -> bool:
    notices = state.notices.get(member)
    return notices is not None and notices.outbid


def _items(state: RoundState, events: Iterable[Event]) -> dict[str, list[OutbidItem]]:
    """Who lost the lead where, from the events of one action or tick, for those who want to know."""
    found: dict[str, list[OutbidItem]] = {}
    if not state.notices:
        return found  # nobody has chosen any notice: nobody wants to be told
    for event in events:
        if isinstance(event, BidPlaced) and event.beaten is not None:
            who = event.beaten
            if who in state.players and wants_outbid(state, who):
                found.setdefault(who, []).append(OutbidItem(lot=event.lot, amount=event.beaten_amount))
        elif isinstance(event, BidsInvalidated) and event.player and not event.sealed:
            # (a sealed bid's lapse is told to its bidder whatever their choice: nobody else is told)
            who = event.player
            player = state.players.get(who)
            if player is not None and wants_outbid(state, who):
                items = [
                    OutbidItem(lot=lot, amount=amount, lapsed=True, points=player.points) for lot, amount in event.bids
                ]
                found.setdefault(who, []).extend(items)
    return found


def _merged(earlier: tuple[OutbidItem, ...], later: Iterable[OutbidItem]) -> tuple[OutbidItem, ...]:
    """One item a lot, the latest; lots in number order."""
    by_lot = {item.lot: item for item in (*earlier, *later)}
    return tuple(by_lot[lot] for lot in sorted(by_lot))


def _line(state: RoundState, player: str, item: OutbidItem) -> str | None:
    """What one item says now, or None when it no longer matters (the player leads again, or a
    beaten bid's lot is no longer up: its settlement said what became of it)."""
    lot = state.lots.get(item.lot)
    if state.sealed_bids and not item.lapsed:
        return None  # nobody is outbid while bids are sealed: the opening tells
    high = highest_bid(state, lot) if lot is not None else None
    if high is not None and high.player == player:
        return None
    if item.lapsed:
        left = (
            f" (you had {item.points} point{'s' if item.points != 1 else ''} left)" if item.points is not None else ""
        )
        return f"Lot {item.lot}: your bid of {item.amount} no longer counts: you could no longer afford it{left}."
    if lot is None:
        return None
    if high is None:
        return f"Lot {item.lot}: your bid of {item.amount} is no longer the highest."
    leader = state.players[high.player].name if high.player in state.players else high.player
    return (
        f"Lot {item.lot}: your bid of {item.amount} was beaten; the highest valid bid is now {high.amount} by {leader}."
    )


def _send(state: RoundState, player: str, items: tuple[OutbidItem, ...]) -> OutbidNotice | None:
    lines = tuple(line for line in (_line(state, player, item) for item in items) if line is not None)
    return OutbidNotice(player, lines) if lines else None


def record(step: Transition, at: datetime) -> Transition:
    """Tell the players who lost a lead in ``step`` (at once, or with the next notice due to them)."""
    found = _items(step.state, step.events)
    if not found:
        return step
    state = step.state
    pending = dict(state.outbid_pending)
    sent = dict(state.outbid_sent)
    events: list[Event] = []
    for player in sorted(found):
        items = _merged(pending.pop(player, ()), found[player])
        last = sent.get(player)
        if last is not None and at < last + NOTICE_INTERVAL:
            pending[player] = items
            continue
        notice = _send(state, player, items)
        if notice is not None:
            events.append(notice)
            sent[player] = at
    state = rebuilt(state, {"outbid_pending": pending, "outbid_sent": sent})
    return Transition(state, (*step.events, *events), step.archived)


def flush(state: RoundState, at: datetime) -> Transition:
    """Send every waiting notice whose minute is over, and forget notices sent over a minute ago."""
    if not state.outbid_pending and not state.outbid_sent:
        return Transition(state)
    pending = dict(state.outbid_pending)
    sent = {p: when for p, when in state.outbid_sent.items() if at < when + NOTICE_INTERVAL}
    events: list[Event] = []
    for player in sorted(state.outbid_pending):
        last = state.outbid_sent.get(player)
        if last is not None and at < last + NOTICE_INTERVAL:
            continue
        items = pending.pop(player)
        if player not in state.players or not wants_outbid(state, player):
            continue
        notice = _send(state, player, items)
        if notice is not None:
            events.append(notice)
            sent[player] = at
    if pending == state.outbid_pending and sent == state.outbid_sent:
        return Transition(state)
    return Transition(state.model_copy(update={"outbid_pending": pending, "outbid_sent": sent}), tuple(events))


def due(state: RoundState) -> list[datetime]:
    """When waiting notices may go out: a minute after each player's last one."""
    out: list[datetime] = []
    for player in state.outbid_pending:
        last = state.outbid_sent.get(player)
        out.append(last + NOTICE_INTERVAL if last is not None else state.clock)
    return out
