"""What happened, as typed facts. Every adapter shows the same sentence for the same event.

An event produced by a member's command is part of the answer to that command; an event of
scheduled work is announced in the channel it names.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import field
from datetime import datetime

from games.nomic.amendments import ChangeNote, note_for_people
from games.nomic.cards import Card
from games.nomic.context import ChannelRole
from games.nomic.items import Items, kind_plural
from games.nomic.state import ChangeKind, PlacementRecord
from games.values import valueclass


def _plural(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


def cards_text(cards: tuple[Card, ...] | list[Card]) -> str:
    return " ".join(c.code for c in cards) if cards else "no cards"


@valueclass
class Event:
    channel: ChannelRole = field(default=ChannelRole.GAME_ACTIONS, init=False)

    def text(self) -> str:  # pragma: no cover - every event overrides it
        raise NotImplementedError

    def reply_to(self) -> str | None:
        """The message an announcement answers, when it answers one."""
        return None

    def announce(self) -> ChannelRole | None:
        """Where an event caused by a member's command is announced besides the answer (None: nowhere)."""
        return None

    def recipient(self) -> str | None:
        """The one member an event is for (a DM: an outbid notice, a personal reminder); None: a channel's."""
        return None

    def expires(self) -> datetime | None:
        """A reminder: not worth posting at or after this instant (when it is caught up after downtime)."""
        return None

    def private_answer(self) -> bool:
        """The answer this event is part of is for the acting member alone (a sealed bid's amount)."""
        return False

    def aside(self) -> ChannelRole | None:
        """A channel this event is posted in on its own, never as part of the answer, even when the command
        was typed there (a sealed bid's hash line, while its answer stays private); None: not such an event."""
        return None


@valueclass
class RoundStarted(Event):
    at: datetime
    ruleset: str

    def text(self) -> str:
        return f"The round has started with the `{self.ruleset}` ruleset. Use `!join` in #game-actions to play."


@valueclass
class Joined(Event):
    name: str
    points: int

    def text(self) -> str:
        return f"Welcome, {self.name}: you are now a player with {_plural(self.points, 'point')}."


@valueclass
class Left(Event):
    name: str
    left_server: bool

    def text(self) -> str:
        why = "left the server and is" if self.left_server else "is"
        return f"{self.name} {why} no longer a player; their items are gone and their bids and offers lapse."


@valueclass
class BidPlaced(Event):
    name: str
    lot: int
    amount: int
    player: str = field(default="", compare=False)
    beaten: str | None = field(default=None, compare=False)
    """The player whose bid was the highest valid one before (it is beaten now), if someone else's."""
    beaten_amount: int = field(default=0, compare=False)

    def text(self) -> str:
        return f"{self.name} bids {_plural(self.amount, 'point')} on lot {self.lot}; it is now the highest bid."


@valueclass
class BidsInvalidated(Event):
    name: str
    bids: tuple[tuple[int, int], ...]
    """(lot, amount) of each bid that lost its validity."""
    reason: str
    player: str = field(default="", compare=False)
    """The bidder's id (the name is what is shown)."""
    sealed: bool = False
    """The bids are sealed: only their bidder is told (the opening says it to everyone)."""

    def text(self) -> str:
        listed = ", ".join(f"{amount} on lot {lot}" for lot, amount in self.bids)
        noun, verb = ("bid", "counts") if len(self.bids) == 1 else ("bids", "count")
        said = f"{self.name}'s {noun} ({listed}) no longer {verb}: {self.reason}."
        return f"🔒 Told to you alone while bids are sealed (the opening shows it): {said}" if self.sealed else said

    def recipient(self) -> str | None:
        if self.sealed and self.player:
            return self.player
        return None


@valueclass
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


@valueclass
class PassedOver:
    """A bid that would have won its lot had it not lapsed, and the reason it lapsed."""

    name: str
    amount: int
    reason: str


SHOWN_LAPSES = 3
"""Lapsed bids a settlement line names; the rest are counted."""


def _lapses(lapsed: tuple[PassedOver, ...], higher: bool) -> str:
    adjective = "higher " if higher else ""
    shown = "".join(f" {b.name}'s {adjective}bid of {b.amount} lapsed: {b.reason}." for b in lapsed[:SHOWN_LAPSES])
    rest = len(lapsed) - SHOWN_LAPSES
    if rest > 0:
        shown += f" (and {rest} more {adjective}{'bid' if rest == 1 else 'bids'} lapsed)"
    return shown


@valueclass
class LotSold(Event):
    lot: int
    cards: tuple[Card, ...]
    name: str
    amount: int
    lapsed: tuple[PassedOver, ...] = ()
    """Bids above the winning one that lapsed, highest first."""
    channel: ChannelRole = field(default=ChannelRole.AUCTIONS, init=False)
    player: str = field(default="", compare=False)
    """The winner's id (the name is what is shown)."""

    def text(self) -> str:
        sold = f"Lot {self.lot} ({cards_text(self.cards)}) goes to {self.name} for {_plural(self.amount, 'point')}."
        return sold + _lapses(self.lapsed, higher=True)


@valueclass
class LotUnsold(Event):
    lot: int
    cards: tuple[Card, ...]
    kept: bool
    lapsed: tuple[PassedOver, ...] = ()
    """Bids on the lot that lapsed, highest first."""
    channel: ChannelRole = field(default=ChannelRole.AUCTIONS, init=False)

    def text(self) -> str:
        fate = "it stays for the next auction" if self.kept else "it is discarded"
        unsold = f"Lot {self.lot} ({cards_text(self.cards)}) had no valid bid; {fate}."
        return unsold + _lapses(self.lapsed, higher=False)


@valueclass
class PhaseBegins(Event):
    phase: str
    ends_at: datetime
    note: str = ""

    def text(self) -> str:
        stamp = self.ends_at.strftime("%A %Y-%m-%d %H:%M UTC")
        extra = f" {self.note}" if self.note else ""
        return f"The {self.phase} phase has begun; it ends {stamp}.{extra}"


@valueclass
class PointsGranted(Event):
    amount: int
    players: int

    def text(self) -> str:
        if self.players == 1:
            return f"The one player gains {_plural(self.amount, 'point')}."
        return f"Each of the {_plural(self.players, 'player')} gains {_plural(self.amount, 'point')}."


@valueclass
class HandPresented(Event):
    name: str
    cards: tuple[Card, ...]
    category: str

    def text(self) -> str:
        return (
            f"{self.name} presents {cards_text(self.cards)} ({self.category}). "
            "The cards are set aside until placements."
        )


ANNOUNCED_AFTER_PRIZES = 6
"""Places the placements announcement lists after the last prize place (by default 5th to 10th)."""
ANNOUNCED_AT_MOST = 20
"""The most places the announcement lists, however many prize places a ruleset has: the rest are
counted in one line, and ``!placements`` lists them all."""


def ordinal(n: int) -> str:
    """1st, 2nd, 3rd, 4th, 11th, 21st, 3,000th."""
    suffix = "th" if 11 <= n % 100 <= 13 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n:,}{suffix}"


def _tie_text(record: PlacementRecord) -> str:
    if not record.coin_toss:
        return ""
    if record.tie is None:  # a record from before ties were kept
        return " (after a coin toss)"
    first, last = record.tie
    if last - first == 1:
        other = last if record.place == first else first
        return f" (tied with {ordinal(other)}; a coin toss set the order)"
    return f" (tied with places {first:,} to {last:,}; coin tosses set the order)"


def _prize_text(record: PlacementRecord) -> str:
    won = "" if record.prize.empty else f"wins {record.prize.describe()}"
    if not record.cards_returned:
        return won
    return f"{won} and gets their cards back" if won else "gets their cards back"


def placement_line(record: PlacementRecord) -> str:
    """One place as the announcement and ``!placements`` show it."""
    prize = _prize_text(record)
    return (
        f"{record.place}. {record.name}: {cards_text(record.cards)}, {record.category}{_tie_text(record)}"
        + (f" - {prize}" if prize else "")
    )


def _is_plain(record: PlacementRecord) -> bool:
    """A place past the prizes: nothing won, the presented cards back."""
    return record.cards_returned and record.prize.empty


def announced(records: tuple[PlacementRecord, ...]) -> int:
    """How many places the announcement lists: every prize place, then a few more, within a limit.

    Prize places come first (prizes go by place, and cards come back from some place on), so
    the first plain place ends them.
    """
    prize_places = next((n for n, r in enumerate(records) if _is_plain(r)), len(records))
    shown = min(prize_places + ANNOUNCED_AFTER_PRIZES, ANNOUNCED_AT_MOST)
    return len(records) if len(records) <= shown + 1 else shown  # one line counting a single place says no less


@valueclass
class PlacementsMade(Event):
    """Every place, as the state keeps them (``RoundState.last_placements``); the text lists the top."""

    placements: tuple[PlacementRecord, ...]

    def text(self) -> str:
        records = self.placements
        if not records:
            return "Placements: nobody presented a hand this week."
        shown = announced(records)
        out = [f"Placements of the {len(records):,} presented hand{'' if len(records) == 1 else 's'}:"]
        out.extend(placement_line(r) for r in records[:shown])
        rest = records[shown:]
        if rest:
            placed = f"placed {ordinal(rest[0].place)} to {ordinal(rest[-1].place)}"
            got = "each got their presented cards back" if all(map(_is_plain, rest)) else "some of them won prizes too"
            more = f"And {len(rest):,} more players {placed}; {got}."
            out.append(f"{more} `!placements` lists every place, page by page.")
        return "\n".join(out)


@valueclass
class TradeOffered(Event):
    number: int
    offerer: str
    target: str
    give: Items
    get: Items
    expires_at: datetime | None = None

    def text(self) -> str:
        expires = f" The offer expires at the week's end, {_stamp(self.expires_at)}." if self.expires_at else ""
        return (
            f"Trade {self.number}: {self.offerer} offers {self.target} {self.give.describe()} "
            f"for {self.get.describe()}. {self.target} can `!accept {self.number}` or `!decline {self.number}`."
            f"{expires}"
        )


@valueclass
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


@valueclass
class TradeClosed(Event):
    number: int
    how: str
    by: str

    def text(self) -> str:
        return f"Trade {self.number} was {self.how} by {self.by}."


@valueclass
class TradesVoided(Event):
    numbers: tuple[int, ...]
    reason: str

    def text(self) -> str:
        listed = ", ".join(str(n) for n in self.numbers)
        return f"{'Trade' if len(self.numbers) == 1 else 'Trades'} {listed} can no longer happen: {self.reason}."


@valueclass
class ExpiredOffer:
    number: int
    offerer: str
    target: str
    give: Items
    get: Items


SHOWN_EXPIRED = 50
"""Expired offers an announcement lists one by one; the rest are counted."""


@valueclass
class TradesExpired(Event):
    """Offers that lapsed at the end of the week they were made; trades are public, so items are named."""

    offers: tuple[ExpiredOffer, ...]

    def text(self) -> str:
        out = ["Trade offers expire at the end of the week they were made in; these have expired:"]
        out.extend(
            f"Trade {o.number}: {o.offerer} offered {o.target} {o.give.describe()} for {o.get.describe()}"
            for o in self.offers[:SHOWN_EXPIRED]
        )
        rest = len(self.offers) - SHOWN_EXPIRED
        if rest > 0:
            out.append(f"... and {_plural(rest, 'more offer')}.")
        out.append("Make a new offer with `!offer` if you still want to trade.")
        return "\n".join(out)


@valueclass
class ItemsAdjusted(Event):
    name: str
    items: Items
    given: bool
    by: str

    by_self: bool = False
    """A moderator correcting their own holdings (allowed: a lone moderator who plays needs it)."""

    def text(self) -> str:
        """Cards are counted, not named: the answer is public and a holding is private."""
        whom = "themselves" if self.by_self else self.name
        if self.given:
            return f"{self.by} gave {whom} {self.items.describe(hide_cards=True)}."
        return f"{self.by} took {self.items.describe(hide_cards=True)} from {whom}."


@valueclass
class OptionChanged(Event):
    option: str
    old: str
    new: str
    version: int
    by: str
    note: str = ""
    """When the change does not take effect at once, when it does."""

    def text(self) -> str:
        note = f" {self.note}" if self.note else ""
        return f"{self.by} set `{self.option}` from {self.old} to {self.new} (ruleset version {self.version}).{note}"


def _stamp(at: datetime) -> str:
    return at.strftime("%a %Y-%m-%d %H:%M UTC")


def when(at: datetime, *, relative: bool = False) -> str:
    """An instant in UTC and as Discord timestamps, which Discord shows in each reader's time zone
    (and, with ``relative``, as "in 2 days"); elsewhere they read as the tags they are."""
    unix = int(at.timestamp())
    tags = f"<t:{unix}:F>, <t:{unix}:R>" if relative else f"<t:{unix}:F>"
    return f"{_stamp(at)} ({tags})"


def _excerpt(text: str, limit: int = 80) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def _quoted(text: str) -> str:
    """A member's words as a block quote, so they never run into the sentence that follows."""
    return "\n".join(f"> {line}" if line.strip() else ">" for line in text.splitlines() or [""])


CHANGES_SHOWN = 1_300
"""Characters an answer gives to the changes of a proposal, so the whole answer stays within one message."""
DIFF_SHOWN = 500
MAX_SHOWN = 1_000_000
"""No limit (the caller cuts the lines with others)."""


def _cut(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _rules(numbers: Sequence[str]) -> str:
    return ("rule " if len(numbers) == 1 else "rules ") + ", ".join(numbers)


def change_lines(notes: Sequence[ChangeNote], *, passed: bool, limit: int = CHANGES_SHOWN) -> list[str]:
    """What amendment lines do, rule by rule: the diff, each enforced value that changes, each bound value
    a new text drops, and each changed sentence the bot will not enforce. ``passed``: they took effect
    (else they would, if the proposal passes)."""
    would, keeps, says = ("", "keeps", "says") if passed else ("would ", "would keep", "would say")
    lines: list[str] = []
    for note in notes:
        head = f"Rule {note.rule} “{note.title}”"
        if note.kind is ChangeKind.REPEAL:
            lines.append(f"{head} {'is' if passed else 'would be'} repealed.")
        elif note.kind is ChangeKind.ENACT:
            lines.append(f"{head} {'is' if passed else 'would be'} enacted: {_cut(note.diff, DIFF_SHOWN)}")
        else:
            lines.append(f"{head}: {_cut(note.diff, DIFF_SHOWN) or 'only its rule block changes'}")
        for value in note.values:
            others = [r for r in value.rules if r != note.rule]
            also = f" ({_rules(others)} {'reads' if len(others) == 1 else 'read'} it too)" if others else ""
            lines.append(f"- enforced by the bot: {value.label} {value.old} → {value.new}{also}")
        for dropped in note.dropped:
            still = f" ({_rules(dropped.elsewhere)} still {'says' if passed else 'would say'} it)"
            lines.append(
                f"- rule {dropped.rule} {would}no longer {says.split()[-1]} {dropped.what}; the bot {keeps}"
                f" {dropped.kept}" + (still if dropped.elsewhere else "")
            )
        if note.mechanics and note.kind is not ChangeKind.REPEAL:
            lines.append("- its mechanics are its rule block's")
        elif note_for_people(note) and note.kind is not ChangeKind.REPEAL:
            lines.extend(f"- not enforced by the bot: “{_cut(s, 300)}”" for s in note.unenforced)
    return _within(lines, limit)


def _within(lines: list[str], limit: int) -> list[str]:
    out: list[str] = []
    used = 0
    for line in lines:
        if used + len(line) + 1 > limit:
            out.append(f"… and {len(lines) - len(out)} more lines (the proposal's own text has every change).")
            break
        out.append(line)
        used += len(line) + 1
    return out


@valueclass
class ProposalRecorded(Event):
    number: int
    name: str
    kind: str
    voting_ends: datetime | None
    amendments: int
    voting_starts: datetime | None = None
    """For a standard proposal: when its phase is expected to start (None: not known)."""
    phase: str = ""
    """For a standard proposal: the phase it votes through."""
    paid_with: str = ""
    """The item kind used in place of a Standard Proposal-Maker ("": one of those)."""
    changes: tuple[ChangeNote, ...] = ()
    """What its amendment lines would do if it passed, as the bot read them."""
    preview: tuple[str, ...] = ()
    """What its rule blocks would have done over the last week (``games.nomic.preview``)."""

    def text(self) -> str:
        previewed = sum(len(line) + 1 for line in self.preview)
        lines = change_lines(self.changes, passed=False, limit=CHANGES_SHOWN - previewed)
        said = self._head() + ("\nIf it passes:\n" + "\n".join(lines) if lines else "")
        return "\n".join([said, *self.preview])

    def _head(self) -> str:
        used = f"A {self.paid_with} (it works as a Standard Proposal-Maker)" if self.paid_with else (
            "A Standard Proposal-Maker"
        )
        if self.kind == "urgent" and self.voting_ends is not None:
            when_ = f"Voting is open now until {when(self.voting_ends, relative=True)}"
        elif self.voting_starts is not None and self.voting_ends is not None:
            when_ = (
                f"{used} was used. Voting runs through the {self.phase} phase, "
                f"from {when(self.voting_starts)} to {when(self.voting_ends, relative=True)}"
            )
        else:
            when_ = f"{used} was used. Voting runs through the next phase"
        amend = f" It carries {_plural(self.amendments, 'amendment')} to the ruleset." if self.amendments else ""
        return f"Proposal {self.number} by {self.name} is {self.kind}. {when_}: react 👍 or 👎.{amend}"


@valueclass
class ProposalVotingOpens(Event):
    """Standard proposals whose vote opens with the phase that starts now."""

    proposals: tuple[tuple[int, str, str], ...]
    """(number, author's name, text) of each, in number order."""
    phase: str
    ends_at: datetime | None
    channel: ChannelRole = field(default=ChannelRole.PROPOSALS, init=False)

    def text(self) -> str:
        until = when(self.ends_at, relative=True) if self.ends_at is not None else f"the {self.phase} phase ends"
        count = len(self.proposals)
        which, where = ("one proposal", "its message") if count == 1 else (f"{count} proposals", "each one's message")
        lines = [f"Voting opens now on {which}, until {until}. React 👍 or 👎 on {where}:"]
        lines.extend(f"- Proposal {number} by {name}: {_excerpt(text)}" for number, name, text in self.proposals)
        return "\n".join(lines)


@valueclass
class ProposalAmended(Event):
    number: int
    message: str
    changes: tuple[ChangeNote, ...] = ()
    channel: ChannelRole = field(default=ChannelRole.PROPOSALS, init=False)

    def text(self) -> str:
        lines = change_lines(self.changes, passed=False)
        edited = f"Proposal {self.number} now reads as edited (its vote has not started)."
        return edited + ("\nIf it passes:\n" + "\n".join(lines) if lines else "")

    def reply_to(self) -> str | None:
        return self.message


@valueclass
class ProposalRetracted(Event):
    number: int
    message: str
    why: str
    item_returned: bool
    channel: ChannelRole = field(default=ChannelRole.PROPOSALS, init=False)
    returned_item: str = "Standard Proposal-Maker"

    def text(self) -> str:
        back = f" The {self.returned_item} was returned." if self.item_returned else ""
        return f"Proposal {self.number} is retracted: {self.why}.{back}"

    def reply_to(self) -> str | None:
        return self.message


@valueclass
class ProposalDecided(Event):
    number: int
    message: str
    name: str
    passed: bool
    votes_for: int
    votes_against: int
    channel: ChannelRole = field(default=ChannelRole.PROPOSALS, init=False)

    def text(self) -> str:
        verdict = "passed" if self.passed else "failed"
        return (
            f"Proposal {self.number} by {self.name} has {verdict} "
            f"with {self.votes_for} for and {self.votes_against} against."
        )

    def reply_to(self) -> str | None:
        return self.message


@valueclass
class RulesetAmended(Event):
    number: int
    message: str
    version: int
    change: str
    problem: str
    notes: tuple[ChangeNote, ...] = ()
    lapsed: tuple[str, ...] = ()
    """Amendment lines that no longer applied, each with why."""
    todo: int = 0
    """The moderators' to-do item made of what the bot does not enforce (0: none)."""
    channel: ChannelRole = field(default=ChannelRole.PROPOSALS, init=False)

    def text(self) -> str:
        lapsed = [f"- {_cut(line, 300)}" for line in self.lapsed]
        if not self.version:
            head = f"Proposal {self.number} passed, but {_cut(self.problem, 300)}; the ruleset is unchanged."
            return "\n".join([head, *_within(lapsed, CHANGES_SHOWN)])
        lines = [f"Proposal {self.number} takes effect: ruleset version {self.version} ({_cut(self.change, 300)})."]
        if self.problem:
            lines.append(f"Its amend block lapsed: {_cut(self.problem, 200)}.")
        lines.extend(_within([*change_lines(self.notes, passed=True, limit=MAX_SHOWN), *lapsed], CHANGES_SHOWN))
        if self.todo:
            lines.append(
                f"What the bot does not enforce is on the moderators' to-do list (item {self.todo}): they carry it out."
            )
        return "\n".join(lines)

    def reply_to(self) -> str | None:
        return self.message


@valueclass
class ProposalLeftToPeople(Event):
    """A passed proposal without amendment lines: the bot changes nothing by itself."""

    number: int
    message: str
    todo: int
    channel: ChannelRole = field(default=ChannelRole.PROPOSALS, init=False)

    def text(self) -> str:
        return (
            f"Proposal {self.number} changes no rule's text, so the bot enforces nothing of it by itself: it is on"
            f" the moderators' to-do list (item {self.todo}), and they carry it out."
        )

    def reply_to(self) -> str | None:
        return self.message


@valueclass
class TodoAdded(Event):
    """A new item of the moderators' to-do list, posted where the moderators' log is."""

    number: int
    proposal: int
    lines: tuple[str, ...]
    channel: ChannelRole = field(default=ChannelRole.MOD_LOG, init=False)

    def text(self) -> str:
        head = (
            f"📝 To-do {self.number}: proposal {self.proposal} passed with what the bot does not enforce; carry it"
            f" out, then `!admin done {self.number}`:"
        )
        return "\n".join([head, *(f"- {line}" for line in self.lines)])


@valueclass
class TodoDone(Event):
    number: int
    by: str
    note: str = ""

    def text(self) -> str:
        return f"{self.by} marked to-do {self.number} done" + (f": {self.note}" if self.note else "") + "."


@valueclass
class RulesetImported(Event):
    """A moderator's own ruleset document, in force as a new version."""

    by: str
    version: int
    title: str
    rules: int
    notes: tuple[ChangeNote, ...]
    bound: tuple[str, ...]
    """The options the document binds."""
    unbound: tuple[str, ...]
    """The options no rule binds any more (the bot keeps their values)."""

    def text(self) -> str:
        bound = len(self.bound)
        lines = [
            f"{self.by} imported the ruleset document “{self.title}” ({_plural(self.rules, 'rule')}): ruleset"
            f" version {self.version}. It binds {bound} option{'' if bound == 1 else 's'}"
            + (f": {', '.join(f'`{p}`' for p in self.bound)}." if bound <= 12 else ".")
        ]
        if self.unbound:
            shown = ", ".join(f"`{p}`" for p in self.unbound[:12])
            more = f" and {len(self.unbound) - 12} more" if len(self.unbound) > 12 else ""
            lines.append(f"No rule binds {shown}{more}: the bot keeps their values.")
        gone = [n.rule for n in self.notes if n.kind is ChangeKind.REPEAL]
        if gone:
            listed = ", ".join(gone[:30]) + (f" and {len(gone) - 30} more" if len(gone) > 30 else "")
            lines.append(f"Rules no longer in it: {listed}.")
        changed = [_import_line(n) for n in self.notes if n.kind is not ChangeKind.REPEAL]
        if not self.notes:
            lines.append("Its text is the same as before.")
        elif changed:
            lines.append("New and changed rules:")
            lines.extend(_within(changed, CHANGES_SHOWN - sum(len(line) for line in lines)))
        return "\n".join(lines)


def _import_line(note: ChangeNote) -> str:
    head = f"Rule {note.rule} “{note.title}”"
    block = " (with a rule block)" if note.mechanics else ""
    if note.kind is ChangeKind.ENACT:
        return f"{head} is new{block}: {_cut(note.diff, 200)}"
    return f"{head}{block}: {_cut(note.diff, 300) or 'its title or rule block changed'}"


@valueclass
class CandidacyRecorded(Event):
    name: str
    channel: ChannelRole = field(default=ChannelRole.JUDGE_ELECTIONS, init=False)

    def text(self) -> str:
        return f"{self.name} stands for judge. Players back a candidate with 👍 until the week ends."


@valueclass
class JudgeElected(Event):
    name: str | None
    votes: int
    tie_broken: bool
    channel: ChannelRole = field(default=ChannelRole.JUDGE_ELECTIONS, init=False)

    def text(self) -> str:
        if self.name is None:
            return "No one stood for judge last week; the office of judge is empty this week."
        tie = " (the earliest of the tied candidacies)" if self.tie_broken else ""
        return f"{self.name} is the judge for this week with {_plural(self.votes, '👍 vote')}{tie}."


@valueclass
class RequestMade(Event):
    number: int
    name: str
    judge: str | None

    def text(self) -> str:
        who = f"The judge, {self.judge}," if self.judge else "There is no judge right now; the next judge"
        return f"Request {self.number} from {self.name} is recorded. {who} answers with `!rule {self.number} ...`."


@valueclass
class RulingGiven(Event):
    number: int
    judge: str
    text_: str
    replaces: bool
    challenge_until: datetime | None
    vote_ended: bool = False
    """A vote of confidence was running on the ruling this one replaces; it ends without a result."""

    def text(self) -> str:
        kind = "replaces their ruling" if self.replaces else "rules"
        lines = [f"Judge {self.judge} {kind} on request {self.number}:", _quoted(self.text_)]
        if self.vote_ended:
            lines.append(
                "The vote of confidence on the earlier ruling has ended without a result, since that ruling "
                "was replaced; the votes cast in it no longer count."
            )
        if self.challenge_until is not None:
            how = "The new ruling can be challenged afresh" if self.vote_ended else "It can be challenged"
            lines.append(f"{how} with `!overturn {self.number}` until {when(self.challenge_until, relative=True)}.")
        return "\n".join(lines)


@valueclass
class ConfidenceStarted(Event):
    number: int
    name: str
    ends_at: datetime

    def text(self) -> str:
        return (
            f"{self.name} calls a vote of confidence on the ruling on request {self.number}. Players vote with "
            f"`!confidence {self.number} overturn` or `!confidence {self.number} affirm` until "
            f"{when(self.ends_at, relative=True)}."
        )


@valueclass
class ConfidenceCast(Event):
    number: int
    name: str
    overturn: bool

    def text(self) -> str:
        side = "overturn" if self.overturn else "affirm"
        return f"{self.name} votes to {side} the ruling on request {self.number} (the last vote counts)."


@valueclass
class ConfidenceDecided(Event):
    number: int
    overturned: bool
    votes_overturn: int
    votes_affirm: int

    def text(self) -> str:
        verdict = "is overturned" if self.overturned else "stands"
        return (
            f"The ruling on request {self.number} {verdict}: "
            f"{self.votes_overturn} to overturn, {self.votes_affirm} to affirm."
        )


@valueclass
class JudgeChanged(Event):
    name: str | None
    why: str

    def text(self) -> str:
        if self.name is not None:
            return self.why
        return (
            f"{self.why} The office of judge is empty until the next election: rulings already given stand, "
            "and open requests wait for the next judge."
        )

    def announce(self) -> ChannelRole | None:
        """Whoever follows the elections learns that the office is empty."""
        return ChannelRole.JUDGE_ELECTIONS


@valueclass
class RemovalAssent(Event):
    name: str
    judge: str
    count: int
    needed: int

    def text(self) -> str:
        return f"{self.name} assents to removing judge {self.judge} ({self.count} of {self.needed})."


@valueclass
class Notice(Event):
    """Plain information, such as the answer to a query."""

    body: str

    def text(self) -> str:
        return self.body


SHOWN_NAMES = 10
"""Players a rule's announcement names for one change; the rest are counted."""
SHOWN_NOTES = 5


def _rule_label(rule: str) -> str:
    return f"Rule {rule}" if rule else "A rule"


@valueclass
class RuleApplied(Event):
    """What a rule block did on one occasion: the players grouped by what they gained or lost."""

    rule: str
    trigger: str
    changes: tuple[tuple[str, tuple[str, ...]], ...]
    """(what happened, e.g. ``gains 20 points``, the names it happened to), in the order first made."""
    notes: tuple[str, ...] = ()

    def text(self) -> str:
        parts: list[str] = []
        for what, names in self.changes:
            if len(names) == 1:
                parts.append(f"{names[0]} {what}")
                continue
            listed = ", ".join(names[:SHOWN_NAMES])
            rest = len(names) - SHOWN_NAMES
            if rest > 0:
                listed += f" and {rest:,} more"
            each = what.replace("gains ", "gain ").replace("loses ", "lose ")  # no kind's name has these words
            parts.append(f"{len(names):,} players each {each} ({listed})")
        said = "; ".join(parts) + "." if parts else "nothing changed."
        notes = list(self.notes[:SHOWN_NOTES])
        if len(self.notes) > SHOWN_NOTES:
            notes.append(f"and {_plural(len(self.notes) - SHOWN_NOTES, 'more note')}")
        noted = "".join(f"\n- {note}" for note in notes)
        return f"{_rule_label(self.rule)} (when {self.trigger}): {said}{noted}"

    def announce(self) -> ChannelRole | None:
        return ChannelRole.GAME_ACTIONS


@valueclass
class RuleAnnouncement(Event):
    """An announcement a rule block makes; its words are a member's, shown as a quote."""

    rule: str
    body: str

    def text(self) -> str:
        return f"{_rule_label(self.rule)} announces:\n{_quoted(escape_member_text(self.body))}"

    def announce(self) -> ChannelRole | None:
        return ChannelRole.GAME_ACTIONS


_MARKDOWN = set("\\*_~`|>#[]()-")


def escape_member_text(text: str) -> str:
    """A member's words as plain text: no formatting, no mention, no control or direction character."""
    out: list[str] = []
    for ch in " ".join(text.split()):
        if not ch.isprintable():
            continue
        if ch in _MARKDOWN:
            out.append("\\")
        out.append(ch)
        if ch == "@":
            out.append("\u200b")
    return "".join(out)


@valueclass
class ItemUsed(Event):
    name: str
    kind: str
    count: int
    points: int

    def text(self) -> str:
        return f"{self.name} redeems {kind_plural(self.kind, self.count)} for {_plural(self.points, 'point')}."
