"""The weekly review: what the week just ended did, in one embed posted in #game-actions.

At the week's end the rules gather the week's records (``week_records``) from the state before the
archive takes the decided ones out of it: lots sold and their prices (kept in ``RoundState.week``
since they left the state at settlement), placements, proposals decided with their votes, ruleset
versions with a short diff (the rules whose words changed, the options that changed), rulings, and
the judge just elected. The adapter adds the thread games finished that week (``FinishedGame``),
which the round does not know. ``build`` is a pure function of those records and fits Discord's
limits for one embed, however busy the week.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import field, replace
from datetime import datetime, timedelta

from games.nomic.context import ChannelRole
from games.nomic.events import Event, cards_text, placement_line
from games.nomic.history import Fate, version_changes
from games.nomic.ruleset import Ruleset
from games.nomic.state import (
    PlacementRecord,
    ProposalStatus,
    RequestStatus,
    RoundState,
    RulesetVersion,
    SaleRecord,
)
from games.values import valueclass

TITLE_LIMIT = 256
DESCRIPTION_LIMIT = 4096
FIELDS_LIMIT = 25
FIELD_NAME_LIMIT = 256
FIELD_VALUE_LIMIT = 1024
FOOTER_LIMIT = 2048
TOTAL_LIMIT = 6000
"""Discord's limits for one embed (the total counts the title, description, field names and
values, and the footer)."""
TOTAL_BUDGET = TOTAL_LIMIT - 100
"""What the review allows itself: a margin for the adapter's own touches."""

EXCERPT = 60
PLACES_SHOWN = 10


def _excerpt(text: str, limit: int = EXCERPT) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


@valueclass
class ProposalNote:
    number: int
    author: str
    passed: bool
    votes_for: int
    votes_against: int
    text: str


@valueclass
class VersionNote:
    version: int
    by: str
    changes: tuple[str, ...]
    """``option: old → new`` for each option that changed."""
    rules: tuple[str, ...] = ()
    """What it did to the rules' text: ``rule 4.2 amended``, ``rule 4.5 “Pay” enacted``, ``rule 5.3 repealed``."""


@valueclass
class RulingNote:
    number: int
    asker: str
    judge: str
    text: str
    status: str
    replaced: bool = False


@valueclass
class FinishedGame:
    """A thread game's table that ended during the week, as the adapter found it."""

    name: str
    game: str
    status: str
    players: tuple[str, ...] = ()
    winners: tuple[str, ...] = ()
    summary: str = ""


@valueclass
class WeekRecords:
    since: datetime
    until: datetime
    bids: int = 0
    sales: tuple[SaleRecord, ...] = ()
    unsold: tuple[int, ...] = ()
    placements: tuple[PlacementRecord, ...] = ()
    proposals: tuple[ProposalNote, ...] = ()
    versions: tuple[VersionNote, ...] = ()
    rulings: tuple[RulingNote, ...] = ()
    judge: str | None = None
    games: tuple[FinishedGame, ...] = ()

    def with_games(self, games: Sequence[FinishedGame]) -> WeekRecords:
        return replace(self, games=tuple(games))

    @property
    def empty(self) -> bool:
        """Nothing happened worth a review (the judge alone is announced in #judge-elections)."""
        return not (
            self.bids
            or self.sales
            or self.unsold
            or self.placements
            or self.proposals
            or self.versions
            or self.rulings
            or self.games
        )


def week_records(state: RoundState, until: datetime) -> WeekRecords:
    """The records of the week ending at ``until``, from the state before the archive takes them."""
    since = state.week.since or state.started_at

    def in_week(at: datetime | None) -> bool:
        """What the week's ticks decided: the week-start tick belongs to the week before."""
        return at is not None and since < at <= until

    def acted_in_week(at: datetime) -> bool:
        """What members did: at the week's start, after its tick; never at its end, which comes first."""
        return since <= at < until

    proposals = tuple(
        ProposalNote(p.number, p.author_name, p.status is ProposalStatus.PASSED, p.votes_for, p.votes_against, p.text)
        for p in sorted(state.proposals.values(), key=lambda p: p.number)
        if p.status in {ProposalStatus.PASSED, ProposalStatus.FAILED} and in_week(p.decided_at)
    )
    versions = state.ruleset_versions
    notes = tuple(
        VersionNote(
            v.version,
            v.by,
            ruleset_changes(versions[i - 1].ruleset, v.ruleset),
            rules_changed(versions[i - 1], v),
        )
        for i, v in enumerate(versions)
        if i > 0 and (acted_in_week(v.at) if v.by.startswith("moderator") else in_week(v.at))
    )
    rulings: list[RulingNote] = []
    for number in sorted(state.requests):
        request = state.requests[number]
        given = [r for r in request.rulings if acted_in_week(r.at)]
        if not given:
            continue
        last = given[-1]
        status = request.status.value if request.status is not RequestStatus.ANSWERED else "stands"
        replaced = len(given) > 1 or request.rulings[0] is not given[0]
        rulings.append(RulingNote(number, request.by_name, last.judge_name, last.text, status, replaced))
    return WeekRecords(
        since=since,
        until=until,
        bids=state.week.bids,
        sales=state.week.sales,
        unsold=state.week.unsold,
        placements=state.last_placements if state.week.placed else (),
        proposals=proposals,
        versions=notes,
        rulings=tuple(rulings),
        judge=state.judge_name if state.judge is not None else None,
    )


def ruleset_changes(old: Ruleset, new: Ruleset) -> tuple[str, ...]:
    """A short diff: ``option: old → new`` for each option that differs."""
    before, after = old.option_paths(), new.option_paths()
    return tuple(
        f"{path}: {_shown(before.get(path))} → {_shown(value)}"
        for path, value in after.items()
        if before.get(path) != value
    )


def rules_changed(previous: RulesetVersion, version: RulesetVersion) -> tuple[str, ...]:
    """What ``version`` did to the rules' words, rule by rule, in a few words each."""
    out: list[str] = []
    for change in version_changes(previous, version):
        if change.fate is Fate.NEW:
            out.append(f"rule {change.number} “{_excerpt(change.title, 40)}” enacted")
        elif change.fate is Fate.GONE:
            out.append(f"rule {change.number} repealed")
        elif change.reworded:
            out.append(f"rule {change.number} amended")
        elif change.block_changed:
            out.append(f"rule {change.number}'s mechanics changed")
        elif change.retitled:
            out.append(f"rule {change.number} retitled “{_excerpt(change.title, 40)}”")
        # a value alone that reads otherwise is its option's change, listed with the options
    return tuple(out)


def _shown(value: object) -> str:
    if isinstance(value, tuple | list):
        return "[" + ", ".join(str(v) for v in value) + "]"
    if isinstance(value, bool):
        return str(value).lower()
    return str(value)


# --- the review ----------------------------------------------------------------------------------


@valueclass
class Digest:
    """One embed's worth: what Discord shows as an embed and the simulator as text."""

    title: str
    description: str
    fields: tuple[tuple[str, str], ...] = ()
    footer: str = ""

    @property
    def size(self) -> int:
        """Characters as Discord counts them against its total for an embed."""
        return len(self.title) + len(self.description) + len(self.footer) + sum(len(n) + len(v) for n, v in self.fields)

    def text(self) -> str:
        parts = [f"**{self.title}**", self.description]
        parts.extend(f"**{name}**\n{value}" for name, value in self.fields)
        if self.footer:
            parts.append(self.footer)
        return "\n\n".join(parts)


def _day(at: datetime) -> str:
    return f"{at:%a} {at.day} {at:%b %Y}"


def _count(n: int, word: str) -> str:
    return f"{n:,} {word}{'' if n == 1 else 's'}"


def _sales(records: WeekRecords) -> list[str]:
    lines = [f"Lot {s.lot} ({cards_text(s.cards)}): {s.name}, {_count(s.amount, 'point')}" for s in records.sales]
    if records.unsold:
        listed = ", ".join(str(n) for n in records.unsold)
        lines.append(f"No valid bid on lot{'s' if len(records.unsold) > 1 else ''} {listed}.")
    return lines


def _placements(records: WeekRecords) -> list[str]:
    shown = records.placements[:PLACES_SHOWN]
    lines = [placement_line(r) for r in shown]
    rest = len(records.placements) - len(shown)
    if rest > 0:
        lines.append(f"… and {_count(rest, 'more place')}: `!placements` lists them.")
    return lines


def _proposals(records: WeekRecords) -> list[str]:
    return [
        f"{p.number} by {p.author} {'passed' if p.passed else 'failed'} ({p.votes_for} for, {p.votes_against} against):"
        f" {_excerpt(p.text)}"
        for p in records.proposals
    ]


def _versions(records: WeekRecords) -> list[str]:
    lines: list[str] = []
    for v in records.versions:
        changed = "; ".join((*v.rules, *v.changes)) or "the rules read as before"
        lines.append(f"Version {v.version} ({v.by}): {changed}")
    return lines


def _rulings(records: WeekRecords) -> list[str]:
    out = []
    for r in records.rulings:
        again = " again" if r.replaced else ""
        out.append(f"Request {r.number} from {r.asker}: judge {r.judge} ruled{again}: {_excerpt(r.text)} ({r.status})")
    return out


def _games(records: WeekRecords) -> list[str]:
    out = []
    for g in records.games:
        who = ", ".join(g.players) or "nobody"
        won = f"; won by {', '.join(g.winners)}" if g.winners else ""
        summary = f": {_excerpt(g.summary, 80)}" if g.summary else ""
        out.append(f"{g.name} ({g.game}, {g.status}{won}) with {who}{summary}")
    return out


def _fit(lines: Sequence[str], limit: int) -> str:
    """As many whole lines as fit in ``limit`` characters, then a line counting the rest."""
    kept: list[str] = []
    used = 0
    for index, line in enumerate(lines):
        rest = len(lines) - index - 1
        tail = len(f"\n… and {rest} more") if rest else 0
        need = len(line) + (1 if kept else 0)
        if used + need + tail > limit:
            break
        kept.append(line)
        used += need
    else:
        return "\n".join(kept)
    if not kept:  # not even the first line fits whole: it is cut short
        more = f"\n… and {len(lines) - 1} more" if len(lines) > 1 else ""
        room = max(limit - len(more) - 1, 0)
        return (lines[0][:room] + "…" + more)[:limit] if room else ""
    # the last line kept left room for exactly this count (``tail`` above)
    return "\n".join(kept) + f"\n… and {len(lines) - len(kept)} more"


def build(records: WeekRecords) -> Digest:
    """The week's review within Discord's limits for one embed: a short count of everything in the
    description, one field per kind of record, long lists cut with a count of the rest."""
    until = records.until - timedelta(microseconds=1)
    title = f"The week in review: {_day(records.since)} to {_day(until)}"[:TITLE_LIMIT]
    passed = sum(p.passed for p in records.proposals)
    failed = len(records.proposals) - passed
    counted = [
        (records.bids, _count(records.bids, "bid")),
        (len(records.sales), f"{_count(len(records.sales), 'lot')} sold"),
        (len(records.placements), f"{_count(len(records.placements), 'hand')} placed"),
        (passed, f"{_count(passed, 'proposal')} passed"),
        (failed, f"{_count(failed, 'proposal')} failed"),
        (len(records.versions), _count(len(records.versions), "ruleset change")),
        (len(records.rulings), _count(len(records.rulings), "ruling")),
        (len(records.games), f"{_count(len(records.games), 'thread game')} finished"),
    ]
    counts = [text for n, text in counted if n]
    judge = (
        f"**{records.judge}** is the judge this week." if records.judge else "The office of judge is empty this week."
    )
    description = f"{'; '.join(counts) if counts else 'A quiet week'}.\n{judge}"
    sections = [
        ("Lots sold", _sales(records)),
        ("Placements and prizes", _placements(records)),
        ("Proposals decided", _proposals(records)),
        ("Ruleset changes", _versions(records)),
        ("Rulings", _rulings(records)),
        ("Thread games finished", _games(records)),
    ]
    sections = [(name, lines) for name, lines in sections if lines][:FIELDS_LIMIT]
    footer = "!placements, !proposals, !rulings and !ruleset history have the whole story."
    budget = TOTAL_BUDGET - len(title) - len(description) - len(footer) - sum(len(n) for n, _ in sections)
    values: dict[str, str] = {}
    # the shortest sections first, each within an even share of what is left: a long list cannot
    # crowd out a short one
    order = sorted(sections, key=lambda s: len("\n".join(s[1])))
    for done, (name, lines) in enumerate(order):
        share = max(budget, 0) // (len(order) - done)
        values[name] = _fit(lines, min(FIELD_VALUE_LIMIT, share))
        budget -= len(values[name])
    fields = tuple((name, values[name]) for name, _ in sections if values[name])
    return Digest(title, description[:DESCRIPTION_LIMIT], fields, footer)


@valueclass
class WeekReviewed(Event):
    """The week's end: its review. The adapter adds the thread games finished in the week."""

    records: WeekRecords
    channel: ChannelRole = field(default=ChannelRole.GAME_ACTIONS, init=False)

    def text(self) -> str:
        return build(self.records).text()
