"""The pages of the round's web record, as pure functions of the data: no store, no server, no clock.

Each function returns a ``Page``: its title, its template, and ``data``, which is at once what the
template shows and the page's JSON twin (``/g/GUILD/proposals/12.json``). Only what the round shows
everyone is put in ``data``: a player's points and how many cards they hold, never which cards; no
trade offer (its items are private until it is accepted); no table's board or hand; a vote of
confidence's tally only once it is decided. Lots, presented hands and placements are announced in
the server's channels, so they are public here too.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any
from urllib.parse import quote

from bot.web.season import ConfidenceResult, Season, Week
from games.nomic.document import RuleDocument, Slot, option_label, parts, render, show, slots, word_changes
from games.nomic.events import ordinal
from games.nomic.hands import hand_score, score_category
from games.nomic.history import Fate, RuleChange, changes_between, rule_versions, version_changes
from games.nomic.items import Items
from games.nomic.proposals import tally
from games.nomic.ruleset import Ruleset
from games.nomic.sealed import bidders, public_high
from games.nomic.state import (
    JudgeRequest,
    PlacementRecord,
    PresentedHand,
    Proposal,
    RequestStatus,
    RoundState,
    RulesetVersion,
    TodoItem,
)
from games.nomic.views import cites
from games.tables.model import Table
from scheduler.calendar import format_remaining, phase_window, placements_at

PART_TITLES = {
    "calendar": "The week",
    "auction": "Auctions",
    "hands": "Hands and placements",
    "proposals": "Proposals",
    "judge": "The judge",
    "trades": "Trades",
}


@dataclass(frozen=True)
class GuildHead:
    """A guild as every page names it."""

    id: str
    name: str

    @property
    def base(self) -> str:
        return f"/g/{quote(self.id, safe='')}"

    def url(self, *parts: object) -> str:
        """The address of one of the guild's pages: ``url("proposals", 12)``."""
        tail = "/".join(quote(str(p), safe="") for p in parts)
        return f"{self.base}/{tail}" if tail else self.base


LARGE_PAGE_ROWS = 40
"""Rows of lists on a page from which the server renders it in a worker thread."""


@dataclass(frozen=True)
class Page:
    title: str
    template: str
    data: dict[str, Any]
    """What the page shows, and its JSON twin."""
    path: str
    """The page's own address (its JSON twin adds ``.json``)."""
    guild: GuildHead | None = None
    crumbs: tuple[tuple[str, str], ...] = field(default=())
    """(label, address) of the pages above this one."""
    hidden: bool = False
    """The guild's moderators keep it off the front page: search engines are asked to leave it out too."""
    named: bool = False
    """The title is a name a member chose (a player's, the server's): shown isolated, as every name is."""

    @property
    def large(self) -> bool:
        """Many rows (players, placements, weeks): worth rendering off the event loop."""
        return sum(len(v) for v in self.data.values() if isinstance(v, list)) > LARGE_PAGE_ROWS


# -- pieces shared by several pages --


def _items(items: Items) -> str:
    return items.describe()


def _version_by(version: RulesetVersion, g: GuildHead) -> dict[str, Any]:
    """Who made a version, with the address of the proposal when a proposal did."""
    kind, _, who = version.by.partition(" ")
    out: dict[str, Any] = {"text": version.by, "kind": kind, "who": who or None, "url": None}
    if kind == "proposal" and who.isdigit():
        out["url"] = g.url("proposals", who)
    return out


def _version(version: RulesetVersion, g: GuildHead) -> dict[str, Any]:
    return {
        "version": version.version,
        "at": version.at,
        "by": _version_by(version, g),
        "change": version.change,
        "url": g.url("ruleset", "v", version.version),
    }


def _value(value: object) -> str:
    if isinstance(value, tuple | list):
        return ", ".join(_value(v) for v in value)
    return str(value).lower() if isinstance(value, bool) else str(value)


def option_sections(rules: Ruleset) -> list[dict[str, Any]]:
    """The ruleset's options grouped by part, each with its value and what it means."""
    sections: list[dict[str, Any]] = []
    for path, value in rules.option_paths().items():
        part = path.split(".", 1)[0]
        if not sections or sections[-1]["part"] != part:
            sections.append({"part": part, "title": PART_TITLES.get(part, part), "options": []})
        sections[-1]["options"].append({"option": path, "value": _value(value), "meaning": rules.describe(path)})
    return sections


def _placement(record: PlacementRecord, g: GuildHead) -> dict[str, Any]:
    tie = None
    if record.coin_toss and record.tie is not None:
        tie = {"first": record.tie[0], "last": record.tie[1]}
    return {
        "place": record.place,
        "ordinal": ordinal(record.place),
        "player": record.player,
        "name": record.name,
        "url": g.url("players", record.player),
        "cards": [c.code for c in record.cards],
        "category": record.category,
        "prize": None if record.prize.empty else _items(record.prize),
        "cards_returned": record.cards_returned,
        "coin_toss": record.coin_toss,
        "tie": tie,
    }


def _hand_category(state: RoundState, hand: PresentedHand) -> str:
    score = hand.score
    if score is None:
        options = state.ruleset.hands
        score = hand_score(hand.cards, wrap_around=options.wrap_around_straights, poker_kickers=options.poker_kickers)
    return score_category(score).label


def _name_of(state: RoundState | None, member: str | None, fallback: str | None = None) -> str | None:
    if member is None:
        return fallback
    player = state.players.get(member) if state is not None else None
    return player.name if player is not None else (fallback or member)


def phase_now(state: RoundState, now: datetime) -> dict[str, Any]:
    """The phase the round is in, when it ends and how long is left, as of ``now``."""
    cal = state.ruleset.calendar
    at = max(now, state.clock)
    _, started, ends = phase_window(cal, state.clock)
    left = ends - at
    out: dict[str, Any] = {
        "phase": state.phase.value,
        "started": started,
        "ends": ends,
        "time_left": format_remaining(left) if left.total_seconds() > 0 else "none: the phase is ending",
        "as_of": at,
        "presenting_open": state.presenting_open,
        "placements_at": placements_at(cal, state.clock) if state.presenting_open else None,
    }
    if state.presenting_open:
        out["placements_left"] = format_remaining(out["placements_at"] - at)
    return out


def _proposal_row(p: Proposal, state: RoundState, g: GuildHead) -> dict[str, Any]:
    votes_for, votes_against = tally(state, p.message) if p.status.open else (p.votes_for, p.votes_against)
    return {
        "number": p.number,
        "url": g.url("proposals", p.number),
        "class": p.kind.value,
        "author": p.author,
        "author_name": p.author_name,
        "status": p.status.value,
        "open": p.status.open,
        "votes_for": votes_for,
        "votes_against": votes_against,
        "created_at": p.created_at,
        "decided_at": p.decided_at,
        "excerpt": _excerpt(p.text, 120),
    }


def _excerpt(text: str, limit: int) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def _request_row(r: JudgeRequest, g: GuildHead) -> dict[str, Any]:
    last = r.rulings[-1] if r.rulings else None
    return {
        "number": r.number,
        "url": g.url("rulings", r.number),
        "by": r.by,
        "by_name": r.by_name,
        "at": r.at,
        "status": r.status.value,
        "excerpt": _excerpt(r.text, 120),
        "ruling": None
        if last is None
        else {"judge": last.judge_name, "at": last.at, "excerpt": _excerpt(last.text, 160)},
        "confidence_until": r.confidence.ends_at if r.confidence is not None else None,
    }


def _judge(state: RoundState, g: GuildHead) -> dict[str, Any] | None:
    if state.judge is None:
        return None
    return {"id": state.judge, "name": state.judge_name, "url": g.url("players", state.judge)}


# -- the pages --


def index_page(guilds: Sequence[GuildHead]) -> Page:
    listed = [{"id": g.id, "name": g.name, "url": g.base} for g in guilds]
    return Page("Nomic rounds", "index.html", {"guilds": listed}, "/")


def home_page(
    g: GuildHead, state: RoundState, now: datetime, proposals: Sequence[Proposal], season: Season | None
) -> Page:
    """The guild's front page: where the round is and what happened last."""
    open_ones = sorted((p for p in state.proposals.values() if p.status.open), key=lambda p: p.number)
    decided = sorted((p for p in proposals if not p.status.open), key=lambda p: -p.number)[:5]
    weeks = season.ordered() if season is not None else []
    data = {
        "guild": {"id": g.id, "name": g.name},
        "now": phase_now(state, now),
        "ruleset": {"name": state.ruleset.name, "version": state.ruleset_version, "url": g.url("ruleset")},
        "judge": _judge(state, g),
        "players": len(state.players),
        "lots": len(state.lots),
        "hands_presented": len(state.hands),
        "open_proposals": [_proposal_row(p, state, g) for p in open_ones],
        "latest_decided": [_proposal_row(p, state, g) for p in decided],
        "open_requests": sum(1 for r in state.requests.values() if r.status is RequestStatus.OPEN),
        "open_todos": sum(1 for item in state.todos.values() if item.done_at is None),
        "weeks": len(weeks),
        "started_at": state.started_at,
        "links": {
            "week": g.url("week"),
            "ruleset": g.url("ruleset"),
            "todo": f"{g.url('ruleset')}#todo",
            "players": g.url("players"),
            "proposals": g.url("proposals"),
            "rulings": g.url("rulings"),
            "games": g.url("games"),
            "season": g.url("season"),
        },
    }
    return Page(g.name, "home.html", data, g.base, g, named=True)


def week_page(g: GuildHead, state: RoundState, now: datetime) -> Page:
    """This week: the phase and the time left, the lots with their high bids, hands and placements."""
    lots = []
    for number in sorted(state.lots):
        lot = state.lots[number]
        high = public_high(state, lot)
        lots.append(
            {
                "number": number,
                "cards": [c.code for c in lot.cards],
                "high_bid": None
                if high is None
                else {
                    "amount": high.amount,
                    "player": high.player,
                    "name": _name_of(state, high.player),
                    "url": g.url("players", high.player),
                },
                "bids": bidders(lot) if state.sealed_bids else len(lot.bids),
                "sealed": state.sealed_bids,
                "rolled": bool(lot.rolls),
            }
        )
    hands = [
        {
            "player": hand.player,
            "name": _name_of(state, hand.player),
            "url": g.url("players", hand.player),
            "cards": [c.code for c in hand.cards],
            "category": _hand_category(state, hand),
            "at": hand.at,
        }
        for hand in sorted(state.hands.values(), key=lambda h: h.at)
    ]
    data = {
        "now": phase_now(state, now),
        "lots": lots,
        "lots_per_auction": state.ruleset.auction.lots_per_auction,
        "hands": hands,
        "placements": [_placement(r, g) for r in state.last_placements],
        "judge": _judge(state, g),
    }
    return Page("This week", "week.html", data, g.url("week"), g, ((g.name, g.base),))


# -- the rules as a document --


def rule_anchor(number: str) -> str:
    """The rule's place on the ruleset page: ``#rule-4.2``."""
    return f"rule-{number}"


def _rule_url(g: GuildHead, number: str) -> str:
    return g.url("ruleset", "rules", number)


def _bound(path: str, values: Mapping[str, object], rules: Ruleset) -> dict[str, Any]:
    """A value the bot enforces, as a rule's text shows it: the value, and the option it is bound to."""
    return {
        "value": show(values[path]),
        "option": path,
        "label": option_label(path),
        "meaning": rules.describe(path),
    }


def _text_parts(template: str, values: Mapping[str, object], rules: Ruleset) -> list[dict[str, Any]]:
    """A rule's text in pieces: the words as written (``text``) and the values bound to options."""
    return [_bound(part.path, values, rules) if isinstance(part, Slot) else {"text": part} for part in parts(template)]


def _citing(g: GuildHead, number: str, requests: Sequence[JudgeRequest]) -> list[dict[str, Any]]:
    """The requests (and rulings) that name rule ``number``, newest first (those that never write the number
    are passed over before its pattern is tried: a page asks this of every rule)."""
    return [
        _request_row(r, g)
        for r in sorted(requests, key=lambda r: -r.number)
        if any(number in text for text in (r.text, *(x.text for x in r.rulings))) and cites(r, number)
    ]


def _every_request(state: RoundState, requests: Sequence[JudgeRequest]) -> list[JudgeRequest]:
    """``requests`` (archived ones) with the state's own, the state's copy of each winning."""
    return list({r.number: r for r in (*requests, *state.requests.values())}.values())


def document_data(
    g: GuildHead,
    document: RuleDocument,
    rules: Ruleset,
    requests: Sequence[JudgeRequest] = (),
) -> dict[str, Any]:
    """The document as a page shows it: sections, and each rule with its text in pieces (the values the bot
    enforces marked with their options), its mechanics, its history's address and the rulings citing it."""
    values = rules.option_paths()
    sections = []
    for section in document.sections:
        rows = []
        for rule in section.rules:
            bound = slots(rule.text)
            rows.append(
                {
                    "number": rule.number,
                    "title": rule.title,
                    "anchor": rule_anchor(rule.number),
                    "text": render(rule.text, values, bold=False),
                    "parts": _text_parts(rule.text, values, rules),
                    "binds": [_bound(path, values, rules) for path in bound],
                    "mechanics": bool(rule.block.strip()),
                    "block": rule.block,
                    "history_url": _rule_url(g, rule.number),
                    "rulings": _citing(g, rule.number, requests),
                }
            )
        sections.append(
            {"number": section.number, "title": section.title, "anchor": f"section-{section.number}", "rules": rows}
        )
    return {"title": document.title, "intro": document.intro, "sections": sections}


def _todo(g: GuildHead, item: TodoItem) -> dict[str, Any]:
    return {
        "number": item.number,
        "proposal": item.proposal,
        "proposal_url": g.url("proposals", item.proposal),
        "at": item.at,
        "lines": list(item.lines),
    }


def open_todos(g: GuildHead, state: RoundState) -> list[dict[str, Any]]:
    """The moderators' to-do items not done yet, oldest first: what passed and the bot does not enforce."""
    return [_todo(g, state.todos[n]) for n in sorted(state.todos) if state.todos[n].done_at is None]


def ruleset_page(g: GuildHead, state: RoundState, requests: Sequence[JudgeRequest] = ()) -> Page:
    """The rules in force as a document, the moderators' open to-do items, and every option with its value.
    ``requests``: every request, the archived ones too (a ruling shows under each rule it cites)."""
    current = state.ruleset_versions[-1] if state.ruleset_versions else None
    data = {
        "name": state.ruleset.name,
        "version": state.ruleset_version,
        "made": _version(current, g) if current is not None else None,
        "document": document_data(g, state.document, state.ruleset, _every_request(state, requests)),
        "todo": open_todos(g, state),
        "sections": option_sections(state.ruleset),
        "history_url": g.url("ruleset", "history"),
    }
    return Page("The ruleset in force", "ruleset.html", data, g.url("ruleset"), g, ((g.name, g.base),))


def _words(old: str, new: str) -> list[dict[str, str]]:
    return [{"kind": kind.value, "text": text} for kind, text in word_changes(old, new)]


def _rule_change(g: GuildHead, change: RuleChange) -> dict[str, Any]:
    return {
        "number": change.number,
        "fate": change.fate.value,
        "title": change.title,
        "old_title": change.old_title if change.retitled else None,
        "url": _rule_url(g, change.number),
        "words": _words(change.before, change.after) if change.fate is Fate.CHANGED else [],
        "text": change.after or change.before,
        "block_changed": change.block_changed,
        "block": change.block,
        "options": [{"option": p, "old": was, "new": now} for p, was, now in change.values],
    }


def rule_page(
    g: GuildHead,
    state: RoundState,
    number: str,
    versions: Sequence[RulesetVersion],
    requests: Sequence[JudgeRequest] = (),
) -> Page | None:
    """One rule: as it reads (or that it is gone), the rulings citing it, and each version that changed
    it, newest first, word by word. None when no version ever had it. ``versions`` and ``requests``:
    every one, the archived ones too."""
    every = [*versions, *state.ruleset_versions]
    entries = rule_versions(number, every)
    if not entries:
        return None
    found = state.document.rule(number)
    values = state.ruleset.option_paths()
    history = []
    for entry in reversed(entries):
        words: list[dict[str, str]] = []
        if entry.text is None:
            kind = "repealed"
        elif entry.previous is None:
            kind = "in force from the start" if entry.first else "enacted"
        else:
            kind, words = "changed", _words(entry.previous, entry.text)
        history.append({**_version(entry.version, g), "kind": kind, "text": entry.text, "words": words})
    data = {
        "number": number,
        "in_force": found is not None,
        "title": found.title if found is not None else None,
        "text": render(found.text, values, bold=False) if found is not None else None,
        "parts": _text_parts(found.text, values, state.ruleset) if found is not None else [],
        "binds": [_bound(p, values, state.ruleset) for p in slots(found.text)] if found is not None else [],
        "mechanics": bool(found.block.strip()) if found is not None else False,
        "block": found.block if found is not None else "",
        "in_document_url": f"{g.url('ruleset')}#{rule_anchor(number)}" if found is not None else None,
        "rulings": _citing(g, number, _every_request(state, requests)),
        "history": history,
    }
    crumbs = ((g.name, g.base), ("Ruleset", g.url("ruleset")))
    return Page(f"Rule {number}", "rule.html", data, _rule_url(g, number), g, crumbs)


def history_page(g: GuildHead, versions: Sequence[RulesetVersion], in_force: int) -> Page:
    """Every version, newest first, each with who made it, the rules whose text it changed and a diff
    against the one before."""
    rows = []
    ordered = sorted(versions, key=lambda v: v.version)
    earlier = {v.version: ordered[i - 1] for i, v in enumerate(ordered) if i > 0}
    for version in reversed(ordered):
        row = _version(version, g)
        before = earlier.get(version.version)
        row["rules"] = (
            [
                {"number": c.number, "fate": c.fate.value, "url": _rule_url(g, c.number)}
                for c in version_changes(before, version)
            ]
            if before is not None
            else []
        )
        row["in_force"] = version.version == in_force
        row["diff_url"] = (
            g.url("ruleset", "diff", version.version - 1, version.version) if version.version > 1 else None
        )
        rows.append(row)
    data = {"versions": rows, "in_force": in_force, "diff_form": g.url("ruleset", "diff")}
    crumbs = ((g.name, g.base), ("Ruleset", g.url("ruleset")))
    return Page("Ruleset history", "history.html", data, g.url("ruleset", "history"), g, crumbs)


def version_page(g: GuildHead, version: RulesetVersion, in_force: int) -> Page:
    data = {
        **_version(version, g),
        "name": version.ruleset.name,
        "in_force": version.version == in_force,
        "document": document_data(g, version.document, version.ruleset),
        "sections": option_sections(version.ruleset),
        "previous_diff_url": g.url("ruleset", "diff", version.version - 1, version.version)
        if version.version > 1
        else None,
        "current_diff_url": g.url("ruleset", "diff", version.version, in_force)
        if version.version != in_force
        else None,
    }
    crumbs = ((g.name, g.base), ("Ruleset", g.url("ruleset")), ("History", g.url("ruleset", "history")))
    return Page(
        f"Ruleset version {version.version}", "version.html", data, g.url("ruleset", "v", version.version), g, crumbs
    )


def diff_page(g: GuildHead, old: RulesetVersion, new: RulesetVersion) -> Page:
    before, after = old.ruleset.option_paths(), new.ruleset.option_paths()
    changed = [
        {"option": path, "old": _value(before[path]), "new": _value(after[path]), "meaning": new.ruleset.describe(path)}
        for path in before
        if before[path] != after[path]
    ]
    rules = changes_between(old.document, new.document, before, after)
    data = {
        "old": _version(old, g),
        "new": _version(new, g),
        "rules": [_rule_change(g, c) for c in rules],
        "changed": changed,
    }
    crumbs = ((g.name, g.base), ("Ruleset", g.url("ruleset")), ("History", g.url("ruleset", "history")))
    path = g.url("ruleset", "diff", old.version, new.version)
    return Page(f"Ruleset version {old.version} to {new.version}", "diff.html", data, path, g, crumbs)


def _prizes(season: Season | None) -> dict[str, list[dict[str, Any]]]:
    """Each member's prizes, week by week: placements that won something, and lots won."""
    out: dict[str, list[dict[str, Any]]] = {}
    for week in season.ordered() if season is not None else []:
        for record in week.placements:
            if record.prize.empty and not record.cards_returned:
                continue
            out.setdefault(record.player, []).append(
                {
                    "week": week.key,
                    "at": week.placed_at,
                    "what": "placement",
                    "place": record.place,
                    "ordinal": ordinal(record.place),
                    "category": record.category,
                    "prize": None if record.prize.empty else _items(record.prize),
                    "cards_returned": record.cards_returned,
                }
            )
        for lot in week.lots:
            if lot.player is None:
                continue
            out.setdefault(lot.player, []).append(
                {
                    "week": week.key,
                    "at": lot.at,
                    "what": "lot",
                    "lot": lot.lot,
                    "cards": list(lot.cards),
                    "amount": lot.amount,
                }
            )
    return out


def players_page(g: GuildHead, state: RoundState, season: Season | None) -> Page:
    """Points, how many cards (never which), Standard Proposal-Makers and prizes of every player."""
    prizes = _prizes(season)
    players = [
        {
            "id": pid,
            "name": p.name,
            "url": g.url("players", pid),
            "points": p.points,
            "cards": len(p.cards),
            "spm": p.spm,
            "joined_at": p.joined_at,
            "judge": pid == state.judge,
            "placements_won": sum(1 for x in prizes.get(pid, ()) if x["what"] == "placement" and x["prize"]),
            "lots_won": sum(1 for x in prizes.get(pid, ()) if x["what"] == "lot"),
        }
        for pid, p in sorted(state.players.items(), key=lambda item: (-item[1].points, item[1].name.casefold()))
    ]
    return Page("Players", "players.html", {"players": players}, g.url("players"), g, ((g.name, g.base),))


def known_member(member: str, state: RoundState, season: Season | None, proposals: Sequence[Proposal]) -> bool:
    """Whether the record knows ``member`` at all: a player now, or someone in its history."""
    if member in state.players:
        return True
    if member in _prizes(season):
        return True
    if any(p.author == member for p in proposals):
        return True
    weeks = season.ordered() if season is not None else []
    return any(o.judge == member for w in weeks for o in w.offices)


def _member_name(member: str, state: RoundState, season: Season | None, authored: Sequence[Proposal]) -> str:
    """A member's name: as a player now, else as the record last knew it."""
    player = state.players.get(member)
    if player is not None:
        return player.name
    weeks = list(reversed(season.ordered())) if season is not None else []
    found = [r.name for w in weeks for r in w.placements if r.player == member]
    found += [o.name for w in weeks for o in w.offices if o.judge == member and o.name]
    found += [lot.name for w in weeks for lot in w.lots if lot.player == member and lot.name]
    found += [p.author_name for p in authored]
    return found[0] if found else member


def player_page(
    g: GuildHead, member: str, state: RoundState, season: Season | None, proposals: Sequence[Proposal]
) -> Page:
    player = state.players.get(member)
    history = _prizes(season).get(member, [])
    authored = sorted((p for p in proposals if p.author == member), key=lambda p: -p.number)
    terms = [
        {"week": w.key, "url": g.url("season", w.key), "from": o.at, "how": o.how}
        for w in (season.ordered() if season is not None else [])
        for o in w.offices
        if o.judge == member
    ]
    name = _member_name(member, state, season, authored)
    data = {
        "id": member,
        "name": name,
        "player": player is not None,
        "points": player.points if player is not None else None,
        "cards": len(player.cards) if player is not None else None,
        "spm": player.spm if player is not None else None,
        "joined_at": player.joined_at if player is not None else None,
        "judge": member == state.judge,
        "prizes": sorted(history, key=lambda x: x["at"], reverse=True),
        "proposals": [_proposal_row(p, state, g) for p in authored],
        "judge_terms": terms,
    }
    crumbs = ((g.name, g.base), ("Players", g.url("players")))
    return Page(name, "player.html", data, g.url("players", member), g, crumbs, named=True)


def proposals_page(g: GuildHead, state: RoundState, proposals: Sequence[Proposal]) -> Page:
    ordered = sorted(proposals, key=lambda p: -p.number)
    data = {
        "open": [_proposal_row(p, state, g) for p in reversed(ordered) if p.status.open],
        "decided": [_proposal_row(p, state, g) for p in ordered if not p.status.open],
    }
    return Page("Proposals", "proposals.html", data, g.url("proposals"), g, ((g.name, g.base),))


def proposal_page(
    g: GuildHead,
    proposal: Proposal,
    state: RoundState,
    versions: Sequence[RulesetVersion],
    discord_url: str | None = None,
) -> Page:
    """``discord_url``: the proposal's message on Discord, when it can be known."""
    row = _proposal_row(proposal, state, g)
    made = [v for v in versions if v.by == f"proposal {proposal.number}"]
    data = {
        **row,
        "text": proposal.text,
        "message": proposal.message,
        "discord_url": discord_url,
        "voting_starts": proposal.voting_starts,
        "voting_ends": proposal.voting_ends,
        "amendments": [{"option": a.option, "value": a.value} for a in proposal.amendments],
        "preview": [line.removeprefix("- ") for line in proposal.preview],
        "note": proposal.note,
        "ruleset_versions": [_version(v, g) for v in made],
        "votes_final": not proposal.status.open,
    }
    crumbs = ((g.name, g.base), ("Proposals", g.url("proposals")))
    return Page(f"Proposal {proposal.number}", "proposal.html", data, g.url("proposals", proposal.number), g, crumbs)


def _judges(g: GuildHead, week: Week) -> list[dict[str, Any]]:
    return [
        {"id": judge, "name": name, "url": g.url("players", judge) if judge else None, "from": at, "how": how}
        for judge, name, at, how in week.judges()
    ]


def _weeks_judges(g: GuildHead, season: Season | None) -> list[dict[str, Any]]:
    return [
        {
            "week": week.key,
            "start": week.start,
            "url": g.url("season", week.key),
            "judges": _judges(g, week),
            "requests": list(week.requests),
            "ruled": sorted(set(week.ruled)),
            "confidence": [_confidence(c) for c in week.confidence],
        }
        for week in reversed(season.ordered() if season is not None else [])
    ]


def _confidence(c: ConfidenceResult) -> dict[str, Any]:
    return {
        "request": c.number,
        "overturned": c.overturned,
        "votes_overturn": c.votes_overturn,
        "votes_affirm": c.votes_affirm,
        "at": c.at,
    }


def rulings_page(g: GuildHead, state: RoundState, requests: Sequence[JudgeRequest], season: Season | None) -> Page:
    """Requests, rulings and votes of confidence, and who was judge week by week."""
    ordered = sorted(requests, key=lambda r: -r.number)
    live = set(state.requests)
    data = {
        "judge": _judge(state, g),
        "in_play": [_request_row(r, g) for r in ordered if r.number in live],
        "settled": [_request_row(r, g) for r in ordered if r.number not in live],
        "weeks": _weeks_judges(g, season),
    }
    return Page("Requests and rulings", "rulings.html", data, g.url("rulings"), g, ((g.name, g.base),))


def request_page(g: GuildHead, request: JudgeRequest, state: RoundState, season: Season | None) -> Page:
    row = _request_row(request, g)
    confidence = request.confidence
    data = {
        **row,
        "text": request.text,
        "settled": request.number not in state.requests,
        "waits_for_another_judge": request.status is RequestStatus.OPEN and request.by == state.judge,
        "rulings": [
            {"judge": r.judge, "judge_name": r.judge_name, "text": r.text, "at": r.at} for r in request.rulings
        ],
        "confidence_running": None
        if confidence is None
        else {
            "started_by": _name_of(state, confidence.started_by),
            "started_at": confidence.started_at,
            "ends_at": confidence.ends_at,
        },
        "confidence_decided": [_confidence(c) for c in (season.confidence_of(request.number) if season else [])],
    }
    crumbs = ((g.name, g.base), ("Rulings", g.url("rulings")))
    return Page(f"Request {request.number}", "request.html", data, g.url("rulings", request.number), g, crumbs)


def games_page(g: GuildHead, tables: Sequence[Table], threads: Mapping[str, str] | None = None) -> Page:
    """The thread games: who played, and how each ended. Never a board or a hand. ``threads``: table name
    to its thread's address on Discord, when known."""
    threads = threads or {}
    rows = [_table_row(t, threads) for t in sorted(tables, key=lambda t: (t.opened_at, t.name), reverse=True)]
    return Page("Thread games", "games.html", {"tables": rows}, g.url("games"), g, ((g.name, g.base),))


def _table_row(t: Table, threads: Mapping[str, str]) -> dict[str, Any]:
    return {
        "name": t.name,
        "game": t.game,
        "status": t.status.value,
        "open": t.status.open,
        "opened_at": t.opened_at,
        "started_at": t.started_at,
        "ended_at": t.ended_at,
        "seats": [{"name": s.name, "ai": s.is_ai, "autopilot": s.autopilot, "left": s.left} for s in t.seats],
        "moves": t.moves,
        "winners": list(t.winners),
        "scores": [{"seat": seat, "score": score} for seat, score in t.scores],
        "summary": t.summary,
        "discord_url": threads.get(t.name),
    }


def _week_summary(g: GuildHead, week: Week, *, full: bool = True) -> dict[str, Any]:
    """A week's record; ``full`` with every place of its placements (the season lists the prize winners)."""
    return {
        "week": week.key,
        "start": week.start,
        "url": g.url("season", week.key),
        "judges": _judges(g, week),
        "lots": [
            {
                "lot": lot.lot,
                "cards": list(lot.cards),
                "name": lot.name,
                "player": lot.player,
                "url": g.url("players", lot.player) if lot.player else None,
                "amount": lot.amount,
                "kept": lot.kept,
                "at": lot.at,
            }
            for lot in week.lots
        ],
        "placements": [_placement(r, g) for r in week.placements] if full else [],
        "winners": [_placement(r, g) for r in week.placements if not r.prize.empty],
        "placed_at": week.placed_at,
        "proposals": [
            {
                "number": d.number,
                "url": g.url("proposals", d.number),
                "passed": d.passed,
                "votes_for": d.votes_for,
                "votes_against": d.votes_against,
                "at": d.at,
            }
            for d in week.proposals
        ],
        "ruleset_versions": [{"version": v, "url": g.url("ruleset", "v", v)} for v in week.versions],
        "requests": list(week.requests),
        "ruled": sorted(set(week.ruled)),
        "confidence": [_confidence(c) for c in week.confidence],
        "joined": list(week.joined),
        "left": list(week.left),
        "players": week.players,
    }


def season_page(g: GuildHead, season: Season | None) -> Page:
    """Week by week, newest first: who judged, who won lots and placements, what passed."""
    weeks = [_week_summary(g, w, full=False) for w in reversed(season.ordered())] if season is not None else []
    data = {"weeks": weeks, "available": season is not None}
    return Page("The season", "season.html", data, g.url("season"), g, ((g.name, g.base),))


def week_record_page(g: GuildHead, week: Week) -> Page:
    data = _week_summary(g, week)
    crumbs = ((g.name, g.base), ("Season", g.url("season")))
    return Page(f"The week of {week.key}", "week_record.html", data, g.url("season", week.key), g, crumbs)


def not_found_page(what: str) -> Page:
    return Page("Not found", "not_found.html", {"error": "not found", "what": what}, "")
