"""Reminders before deadlines: the auction's end, placements, standard votes, votes of confidence,
and requests waiting for the judge.

A reminder is scheduled work like a phase change: it falls at an instant (a deadline less a lead
time of ``ruleset.reminders``), the tick at that instant says it, and the tick's place in the log is
its "sent" mark: the state's clock passes the instant once, so a restart neither repeats a reminder
nor skips one (one missed while the bot was down comes with the catch-up; the adapter drops it
then if its deadline has passed, see ``Event.expires``). Reminders change nothing in the state.

Deadlines the calendar sets (the auction's end, placements, the end of the phase standard
proposals vote through) reach the rules with the tick (``Tick.reminders``); the state's own (votes
of confidence, requests) are found here. Whether there is anything to say is decided at the instant.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import field
from datetime import datetime, timedelta

from games.nomic.actions import CalendarReminder, Tick
from games.nomic.context import ChannelRole
from games.nomic.events import Event, when
from games.nomic.kept import kept
from games.nomic.phases import Phase, ReminderKind
from games.nomic.proposals import standard_voting
from games.nomic.ruleset import Reminders
from games.nomic.state import JudgeRequest, ProposalClass, ProposalStatus, RequestStatus, RoundState
from games.values import valueclass

SHOWN = 10
"""Proposals or requests a reminder lists; the rest are counted."""


def _soon(hours: int) -> str:
    return "in under an hour" if hours == 1 else f"in under {hours} hours"


def _excerpt(text: str, limit: int = 70) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def _more(count: int, what: str) -> list[str]:
    rest = count - SHOWN
    return [f"- … and {rest} more {what}{'' if rest == 1 else 's'}"] if rest > 0 else []


@valueclass
class Reminder(Event):
    deadline: datetime
    hours: int

    def expires(self) -> datetime | None:
        return self.deadline


@valueclass
class AuctionEnding(Reminder):
    lots: int
    sealed: bool = False
    channel: ChannelRole = field(default=ChannelRole.AUCTIONS, init=False)

    def text(self) -> str:
        count = f"{self.lots} lot{' is' if self.lots == 1 else 's are'}"
        how = (
            "Bids are sealed: send `!bid LOT AMOUNT` to me by DM or use `/bid`; they all open when the auction ends."
            if self.sealed
            else "Bid with `!bid LOT AMOUNT`; `!lots` shows the highest valid bids."
        )
        return f"⏰ The auction ends {_soon(self.hours)}, {when(self.deadline, relative=True)}: {count} up. {how}"


@valueclass
class PresentReminder(Reminder):
    """To one player who holds a hand's worth of cards and has not presented this week; no card named."""

    player: str = ""

    def text(self) -> str:
        return (
            f"⏰ Placements are {_soon(self.hours)}, {when(self.deadline, relative=True)}, and you have not"
            " presented a hand this week though you hold enough cards for one. Present five with"
            " `!present C1 C2 C3 C4 C5` in #game-actions. (`!notify reminders off` stops these reminders.)"
        )

    def recipient(self) -> str | None:
        return self.player


@valueclass
class VotesEnding(Reminder):
    proposals: tuple[tuple[int, str, str], ...] = ()
    """(number, author's name, text) of each standard proposal in its vote, in number order."""
    channel: ChannelRole = field(default=ChannelRole.PROPOSALS, init=False)

    def text(self) -> str:
        count = len(self.proposals)
        which, where = ("one proposal", "its message") if count == 1 else (f"{count} proposals", "each one's message")
        head = (
            f"⏰ Voting on {which} ends {_soon(self.hours)}, {when(self.deadline, relative=True)}."
            f" React 👍 or 👎 on {where}; what counts is the reactions present when it ends:"
        )
        lines = [head]
        lines.extend(f"- Proposal {n} by {name}: {_excerpt(text)}" for n, name, text in self.proposals[:SHOWN])
        lines.extend(_more(count, "proposal"))
        return "\n".join(lines)


@valueclass
class ConfidenceEnding(Reminder):
    number: int = 0

    def text(self) -> str:
        n = self.number
        return (
            f"⏰ The vote of confidence on the ruling on request {n} ends {_soon(self.hours)},"
            f" {when(self.deadline, relative=True)}: players vote with `!confidence {n} overturn` or"
            f" `!confidence {n} affirm` (the last vote counts)."
        )


@valueclass
class JudgeReminder(Event):
    """To the judge: requests that have waited for a ruling. They have no deadline, so late is still useful."""

    judge: str
    requests: tuple[tuple[int, str, str], ...]
    """(number, asker's name, text), in number order."""
    hours: int
    new_judge: bool = False

    def text(self) -> str:
        count = len(self.requests)
        which = "one request is" if count == 1 else f"{count} requests are"
        if self.new_judge:
            head = f"⏰ You are the judge now, and {which} waiting for a ruling (for over {_hours(self.hours)}):"
        else:
            head = f"⏰ As judge: {which} waiting for your ruling for over {_hours(self.hours)}:"
        lines = [head]
        lines.extend(f"- Request {n} from {name}: {_excerpt(text)}" for n, name, text in self.requests[:SHOWN])
        lines.extend(_more(count, "request"))
        lines.append("Answer with `!rule N TEXT` in #game-actions. (`!notify reminders off` stops these reminders.)")
        return "\n".join(lines)

    def recipient(self) -> str | None:
        return self.judge


def _hours(hours: int) -> str:
    if hours % 24 == 0:
        days = hours // 24
        return "a day" if days == 1 else f"{days} days"
    return "an hour" if hours == 1 else f"{hours} hours"


# --- when ----------------------------------------------------------------------------------------


def _standard_voting(state: RoundState) -> list[tuple[int, str, str]]:
    return sorted(
        (p.number, p.author_name, p.text)
        for p in state.proposals.values()
        if p.kind is ProposalClass.STANDARD and p.status is ProposalStatus.VOTING
    )


_KINDS = {
    (auction, presenting, voting): tuple(
        kind
        for kind, on in zip(
            (ReminderKind.AUCTION_END, ReminderKind.PRESENT_HAND, ReminderKind.STANDARD_VOTE),
            (auction, presenting, voting),
            strict=True,
        )
        if on
    )
    for auction in (False, True)
    for presenting in (False, True)
    for voting in (False, True)
}


def calendar_kinds(state: RoundState) -> tuple[ReminderKind, ...]:
    """The calendar deadlines the state has something to remind of as things stand: the state changes
    with every action, and the scheduler asks again after each one. One tuple for each combination, so
    that what the scheduler keeps for it is found again (``kept``)."""
    options = state.ruleset.reminders
    auction = state.phase is Phase.AUCTION and bool(state.lots)
    voting = bool(options.standard_vote_hours) and standard_voting(state.proposals)
    return _KINDS[(auction, state.presenting_open, voting)]


def calendar_due(
    options: Reminders, clock: datetime, deadlines: Iterable[tuple[ReminderKind, datetime]]
) -> list[CalendarReminder]:
    """The reminders of calendar deadlines (``deadlines``: the kinds ``calendar_kinds`` names, each with
    the deadline the scheduler gives it) that fall after the clock, at each lead time of its kind."""
    leads = {
        ReminderKind.AUCTION_END: options.auction_end_hours,
        ReminderKind.PRESENT_HAND: options.present_hand_hours,
        ReminderKind.STANDARD_VOTE: options.standard_vote_hours,
    }
    found = [
        CalendarReminder(kind=kind, deadline=deadline, hours=h) for kind, deadline in deadlines for h in leads[kind]
    ]
    return [r for r in found if r.at > clock]


def _confidence_instants(
    requests: Mapping[int, JudgeRequest], options: Reminders
) -> Iterable[tuple[datetime, JudgeRequest, int]]:
    for request in requests.values():
        vote = request.confidence
        if vote is None:
            continue
        for hours in options.confidence_vote_hours:
            at = vote.ends_at - timedelta(hours=hours)
            if at > vote.started_at:  # a lead as long as the vote: its start said it all
                yield at, request, hours


def _request_instants(
    requests: Mapping[int, JudgeRequest], options: Reminders
) -> Iterable[tuple[datetime, JudgeRequest, int]]:
    for request in requests.values():
        if request.status is RequestStatus.OPEN:
            for hours in options.judge_request_hours:
                yield request.at + timedelta(hours=hours), request, hours


@kept
def deadlines(requests: Mapping[int, JudgeRequest], options: Reminders) -> tuple[datetime, ...]:
    """Instants of the reminders of the requests' own deadlines (votes of confidence, waiting requests), in
    order, passed ones too."""
    found = [at for at, _, _ in _confidence_instants(requests, options)]
    found += [at for at, _, _ in _request_instants(requests, options)]
    return tuple(sorted(found))


def remind(state: RoundState, tick: Tick, since: datetime, *, judge: bool = True) -> list[Event]:
    """What the reminders falling in ``(since, tick.at]`` say, as the state stands after the tick's boundaries.

    ``judge=False``: the judge was just elected and told of every waiting request (``for_new_judge``).
    """
    events: list[Event] = []
    for due in sorted(set(tick.reminders), key=lambda r: (r.at, r.kind.value, -r.hours)):
        events.extend(_calendar(state, due))
    for at, request, hours in sorted(
        _confidence_instants(state.requests, state.ruleset.reminders), key=lambda t: (t[0], t[1].number)
    ):
        if since < at <= tick.at and request.confidence is not None:
            events.append(ConfidenceEnding(request.confidence.ends_at, hours, number=request.number))
    if judge:
        events.extend(_judge(state, since, tick.at))
    return events


def _calendar(state: RoundState, due: CalendarReminder) -> list[Event]:
    if due.kind is ReminderKind.AUCTION_END:
        if state.phase is Phase.AUCTION and state.lots:
            return [AuctionEnding(due.deadline, due.hours, len(state.lots), sealed=state.sealed_bids)]
        return []
    if due.kind is ReminderKind.STANDARD_VOTE:
        voting = _standard_voting(state)
        return [VotesEnding(due.deadline, due.hours, tuple(voting))] if voting else []
    if due.kind is ReminderKind.PRESENT_HAND and state.presenting_open:
        size = state.ruleset.hands.hand_size
        return [
            PresentReminder(due.deadline, due.hours, player=pid)
            for pid in sorted(state.players)
            if len(state.players[pid].cards) >= size
            and pid not in state.presented_this_phase
            and state.notices_of(pid).reminders
        ]
    return []


def _answerable(state: RoundState, request: JudgeRequest) -> bool:
    return request.status is RequestStatus.OPEN and state.judge is not None and request.by != state.judge


def _judge(state: RoundState, since: datetime, until: datetime) -> list[Event]:
    judge = state.judge
    if judge is None or not state.notices_of(judge).reminders:
        return []
    due: dict[int, tuple[JudgeRequest, int]] = {}
    for at, request, hours in _request_instants(state.requests, state.ruleset.reminders):
        if since < at <= until and _answerable(state, request):
            due[request.number] = (request, max(hours, due.get(request.number, (request, 0))[1]))
    if not due:
        return []
    hours = min(h for _, h in due.values())
    listed = tuple((n, due[n][0].by_name, due[n][0].text) for n in sorted(due))
    return [JudgeReminder(judge, listed, hours)]


def for_new_judge(state: RoundState, at: datetime) -> list[Event]:
    """A newly elected judge hears at once of the requests that have waited past the first lead time."""
    judge = state.judge
    leads = state.ruleset.reminders.judge_request_hours
    if judge is None or not leads or not state.notices_of(judge).reminders:
        return []
    hours = min(leads)
    waiting = sorted(
        (r.number, r.by_name, r.text)
        for r in state.requests.values()
        if _answerable(state, r) and r.at + timedelta(hours=hours) <= at
    )
    return [JudgeReminder(judge, tuple(waiting), hours, new_judge=True)] if waiting else []
