"""Read-only answers rendered from the state, in the same words on every adapter."""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from typing import TypeVar

from pydantic import BaseModel

from games.nomic.archive import Archive
from games.nomic.common import highest_bid, member_label
from games.nomic.document import RuleDocument, option_label, render, show, slots, word_diff
from games.nomic.errors import NotAPlayerError, UnknownError
from games.nomic.events import cards_text, placement_line
from games.nomic.history import Fate, changes_between, rule_versions
from games.nomic.items import kind_plural
from games.nomic.proposals import tally
from games.nomic.rulelang.force import in_force
from games.nomic.ruleset import Ruleset
from games.nomic.sealed import bidders, own_bids
from games.nomic.state import JudgeRequest, Lot, Proposal, RequestStatus, RoundState, RulesetVersion
from games.nomic.trades import offers_expire_at

T = TypeVar("T", bound=BaseModel)


def inventory(
    state: RoundState, player_id: str, *, asking_self: bool, copies: Mapping[str, int] | None = None
) -> str:
    """A player's holdings. Cards in hand are private: only their owner sees which they are.

    ``copies``: the card copies the player owns in the card library (card name → how many), when
    a library runs; private like the cards: another member sees only how many there are."""
    player = state.players.get(player_id)
    if player is None:
        if asking_self:
            raise NotAPlayerError("you are not a player; use `!join` in #game-actions to become one")
        raise NotAPlayerError(f"{member_label(player_id)} is not a player")
    cards = f"Cards ({len(player.cards)}): {cards_text(player.cards)}" if asking_self else f"Cards: {len(player.cards)}"
    lines = [
        f"{player.name}: {player.points} point{'s' if player.points != 1 else ''}",
        cards,
        f"Standard Proposal-Makers: {player.spm}",
    ]
    if player.items:
        lines.append(f"Items: {items_text(state, player.items)}")
    owned = sum(copies.values()) if copies else 0
    if copies and owned:
        listed = ", ".join(f"{name} ×{n}" for name, n in sorted(copies.items(), key=lambda kv: kv[0].casefold()))
        lines.append(f"Card copies ({owned}): {listed}" if asking_self else f"Card copies: {owned}")
    hand = state.hands.get(player_id)
    if hand is not None:
        lines.append(f"Presented this week: {cards_text(hand.cards)}")
    if asking_self and state.sealed_bids:
        mine = ", ".join(f"lot {lot}: {amount}" for lot, amount in own_bids(state, player_id))
        lines.append(f"Your sealed bids (only you see them): {mine or 'none that count'}")
    return "\n".join(lines)


def items_text(state: RoundState, items: Mapping[str, int]) -> str:
    """A player's items of the rules' kinds, each with what it is for (held items are public, as points are)."""
    kinds = in_force(state).kinds
    shown: list[str] = []
    for name, count in sorted(items.items(), key=lambda kv: kv[0].casefold()):
        kind = kinds.find(name)
        use = kind.describe() if kind is not None else "no rule in force makes it any more"
        shown.append(f"{kind_plural(name, count)} ({use})")
    return "; ".join(shown)


def lots(state: RoundState) -> str:
    limit = state.ruleset.auction.lots_per_auction
    if not state.lots:
        return f"There are no lots yet (an auction holds {limit}). Players generate them outside the auction phase."
    if state.sealed_bids:
        return _sealed_lots(state, limit)
    out = [f"Lots ({len(state.lots)} of {limit}):"]
    for number in sorted(state.lots):
        lot = state.lots[number]
        high = highest_bid(state, lot)
        if high is None:
            bid = "no valid bid"
        else:
            who = state.players[high.player].name if high.player in state.players else high.player
            bid = f"highest valid bid {high.amount} by {who}"
        out.append(f"Lot {number}: {cards_text(lot.cards)} - {bid}")
    return "\n".join(out)


def _sealed_lots(state: RoundState, limit: int) -> str:
    """While bids are sealed: how many members bid on each lot, never an amount."""
    head = (
        f"Lots ({len(state.lots)} of {limit}). Bids are sealed: send `!bid LOT AMOUNT` to me by DM or use `/bid`;"
        " they all open when the auction ends."
    )
    out = [head]
    for number in sorted(state.lots):
        lot = state.lots[number]
        out.append(f"Lot {number}: {cards_text(lot.cards)} - {sealed_label(lot)}")
    return "\n".join(out)


def sealed_label(lot: Lot) -> str:
    """What a lot board says of a lot's bids while they are sealed."""
    count = bidders(lot)
    return "no sealed bid yet" if count == 0 else f"{count} sealed bid{'' if count == 1 else 's'}"


def trades(state: RoundState, player_id: str) -> str:
    mine = [t for t in state.trades.values() if player_id in (t.offerer, t.target)]
    if not mine:
        return "You have no open trade offers."
    out = ["Open trade offers:"]
    until = offers_expire_at(state)
    expires = f" (expires {until:%a %Y-%m-%d %H:%M} UTC)" if until is not None else ""
    for t in sorted(mine, key=lambda t: t.number):
        offerer = state.players[t.offerer].name if t.offerer in state.players else t.offerer
        target = state.players[t.target].name if t.target in state.players else t.target
        out.append(
            f"Trade {t.number}: {offerer} gives {t.give.describe()} to {target} for {t.get.describe()}{expires}"
        )
    return "\n".join(out)


_PART_TITLES = {
    "calendar": "The week",
    "auction": "Auctions",
    "hands": "Hands and placements",
    "proposals": "Proposals",
    "judge": "The judge",
    "trades": "Trades",
    "reminders": (
        "Reminders (lead times in hours, `off` for none; one missed while the bot was down comes when it is back,"
        " as late as the outage was, and only while its deadline is ahead)"
    ),
    "digest": "The week's review",
}


def ruleset(state: RoundState) -> str:
    """Every option with its value and what it means, under the version in force."""
    current = state.ruleset_versions[-1] if state.ruleset_versions else None
    made = f", made by {current.by}" if current is not None else ""
    out = [f"Ruleset `{state.ruleset.name}`, version {state.ruleset_version}{made}."]
    out.extend(option_lines(state.ruleset))
    out.append("Change an option with a passed amendment or `!admin set OPTION VALUE`.")
    return "\n".join(out)


def option_lines(rules: Ruleset) -> list[str]:
    out: list[str] = []
    section = ""
    for path, value in rules.option_paths().items():
        part = path.split(".", 1)[0]
        if part != section:
            section = part
            out.append(f"__{_PART_TITLES.get(part, part)}__")
        shown = ", ".join(str(v) for v in value) if isinstance(value, tuple) else str(value)
        shown = shown.lower() if isinstance(value, bool) else shown
        out.append(f"- `{path}` = {shown}: {rules.describe(path)}")
    return out


HISTORY_PAGE = 15
"""Ruleset versions on one page of ``!ruleset history``."""
DECIDED_PAGE = 10
"""Decided proposals (or settled requests) on one page of ``!proposals`` (``!rulings``)."""
IN_PLAY_SHOWN = 20
"""Requests still in play listed by ``!rulings`` (the newest; the count of the rest is given)."""
PLACEMENTS_PAGE = 20
"""Places on one page of ``!placements``."""


def _page(
    live: Sequence[T], archive: Archive[T] | None, page: int, size: int, number: Callable[[T], int]
) -> tuple[list[T], int]:
    """Page ``page`` (from 1) of the records, newest first: those still in the state and the archived."""
    archive = archive or Archive()
    merged = sorted([*live, *archive.newest], key=number, reverse=True)
    pages = max(1, -(-(len(live) + archive.total) // size))
    return merged[(page - 1) * size : page * size], pages


def _check_page(page: int, pages: int, what: str) -> None:
    if page > pages:
        raise UnknownError(f"{what} has {pages} page{'s' if pages != 1 else ''}")


def _more(page: int, pages: int, command: str) -> str:
    return f"Page {page} of {pages}: `{command} {page + 1}` for older ones." if page < pages else ""


def ruleset_history(state: RoundState, archive: Archive[RulesetVersion] | None = None, page: int = 1) -> str:
    shown, pages = _page(state.ruleset_versions, archive, page, HISTORY_PAGE, lambda v: v.version)
    _check_page(page, pages, "the ruleset history")
    out = ["Ruleset versions, newest first:"]
    for version in shown:
        change = f": {version.change}" if version.change else ""
        out.append(f"v{version.version} - {version.at:%Y-%m-%d %H:%M} UTC by {version.by}{change}")
    more = _more(page, pages, "!ruleset history")
    return "\n".join([*out, more] if more else out)


DIFF_SHOWN = 1_100
"""Characters ``!ruleset diff`` gives to the rules' text changes before it counts the rest."""
OPTIONS_SHOWN = 12
"""Changed options ``!ruleset diff`` lists before it counts the rest (the answer stays one message)."""
ANSWER_LENGTH = 1_950
"""What an answer of the ruleset's may take: one Discord message, with room to spare."""


def ruleset_diff(state: RoundState, old: int, new: int, archived: Sequence[RulesetVersion] = ()) -> str:
    """The text changes word by word, rule by rule, with the options each rule binds that changed beside
    them; then every option that changed. ``archived``: the versions asked for that left the state."""
    versions = {v.version: v for v in (*archived, *state.ruleset_versions)}
    for number in (old, new):
        if number not in versions:
            raise UnknownError(f"there is no ruleset version {number} (versions 1 to {state.ruleset_version})")
    a, b = versions[old], versions[new]
    before, after = a.ruleset.option_paths(), b.ruleset.option_paths()
    changed = [path for path in before if before[path] != after[path]]
    texts = _text_changes(a.document, b.document, before, after)
    if not changed and not texts:
        return f"Versions {old} and {new} have the same options."
    out = [f"From version {old} to {new}:"]
    used = 0
    for number, line in enumerate(texts):
        if used + len(line) > DIFF_SHOWN:
            out.append(f"… and {len(texts) - number} more rules changed (`!ruleset history RULE` shows one).")
            break
        out.append(line)
        used += len(line)
    if changed:
        out.append("Options:" if texts else "Options (the text is the same):")
        out.extend(f"- `{path}`: {_value(before[path])} -> {_value(after[path])}" for path in changed[:OPTIONS_SHOWN])
        if len(changed) > OPTIONS_SHOWN:
            out.append(f"… and {len(changed) - OPTIONS_SHOWN} more options (`!ruleset options` shows their values).")
    elif texts:
        out.append("The options are the same.")
    return "\n".join(out)


def _text_changes(
    a: RuleDocument, b: RuleDocument, before: Mapping[str, object], after: Mapping[str, object]
) -> list[str]:
    lines: list[str] = []
    for change in changes_between(a, b, before, after):
        number = change.number
        if change.fate is Fate.GONE:
            lines.append(f"- rule {number} “{change.title}” is gone")
        elif change.fate is Fate.NEW:
            lines.append(f"- rule {number} “{change.title}” is new: {_short(change.after, 200)}")
        else:
            moved = "; ".join(f"{option_label(p)} {was} → {now}" for p, was, now in change.values)
            title = f"“{change.old_title}” → “{change.title}”" if change.retitled else f"“{change.title}”"
            if change.before != change.after:
                text = word_diff(change.before, change.after)
            else:
                text = "its rule block changed" if change.block_changed else ""
            lines.append(f"- rule {number} {title}: {_short(text, 400)}" + (f" ({moved})" if moved else ""))
    return lines


def _short(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def contents(state: RoundState) -> str:
    """``!ruleset``: the sections and their rules, numbers and titles, under the version in force."""
    current = state.ruleset_versions[-1] if state.ruleset_versions else None
    made = f", made by {current.by}" if current is not None else ""
    document = state.document
    head = f"**{document.title}**, version {state.ruleset_version}{made}."
    foot = (
        "`!ruleset 4.2` shows a rule; `!ruleset history [RULE]` and `!ruleset diff V1 V2` what changed;"
        " `!ruleset options` every option the bot enforces."
    )
    sections = []
    for section in document.sections:
        titles = " · ".join(f"{r.number} {r.title}" for r in section.rules) or "(no rules)"
        sections.append(f"**{section.number}. {section.title}**: {titles}")
    if sum(len(s) + 1 for s in sections) + len(head) + len(foot) > ANSWER_LENGTH:
        # too many rules to name in one message: each section with how many it has
        sections = [
            f"**{s.number}. {s.title}**: "
            + (f"{s.rules[0].number} to {s.rules[-1].number} ({len(s.rules)} rules)" if s.rules else "(no rules)")
            for s in document.sections
        ]
    return "\n".join([head, *sections, foot])


_CITED_SHOWN = 5


def cites(request: JudgeRequest, number: str) -> bool:
    """Whether a request or a ruling on it names rule ``number`` ("rule 4.2", "rules 4.2 and 5.1", "§4.2")."""
    pattern = re.compile(rf"(?:\brules?\b[^\n]{{0,40}}?|§\s*)(?<![\d.]){re.escape(number)}(?!\.?\d)", re.IGNORECASE)
    return any(pattern.search(text) for text in (request.text, *(r.text for r in request.rulings)))


def rule(state: RoundState, number: str, requests: Sequence[JudgeRequest] = ()) -> str:
    """``!ruleset 4.2``: the rule as it reads, what of it the bot enforces, and the rulings that cite it
    (``requests``: those that left the state, to look at with the state's own)."""
    found = state.document.rule(number)
    if found is None:
        gone = next((v.version for v in reversed(state.ruleset_versions) if v.document.rule(number)), None)
        if gone is not None:
            raise UnknownError(f"rule {number} is no longer in force (version {gone} was the last to have it)")
        raise UnknownError(f"there is no rule {number}; `!ruleset` lists the rules")
    values = state.ruleset.option_paths()
    out = [f"**Rule {found.number} {found.title}** (version {state.ruleset_version})", render(found.text, values)]
    bound = slots(found.text)
    if bound:
        listed = "; ".join(f"{option_label(p)} (`{p}`) = {show(values[p])}" for p in bound)
        out.append(f"Enforced by the bot: {listed}.")
    if found.block.strip():
        out.append("It has mechanics: a rule block, which the bot carries out.")
    if not bound and not found.block.strip():
        out.append("The bot enforces nothing of it by itself: the players, the judge and the moderators uphold it.")
    citing = sorted(
        {r.number: r for r in (*requests, *state.requests.values()) if cites(r, found.number)}.values(),
        key=lambda r: r.number,
        reverse=True,
    )
    if citing:
        out.append(f"Rulings citing it ({len(citing)}, newest first):")
        shown = 0
        for request in citing[:_CITED_SHOWN]:
            line = _request_line(state, request)
            if sum(len(x) + 1 for x in out) + len(line) > ANSWER_LENGTH - 60:
                break
            out.append(line)
            shown += 1
        if len(citing) > shown:
            out.append(f"… and {len(citing) - shown} older ones (`!rulings`).")
    return "\n".join(out)


RULE_HISTORY_PAGE = 4
"""Versions on one page of a rule's history (each one's change cut to ``_HISTORY_CHANGE`` characters)."""
_HISTORY_CHANGE = 380


def rule_history(state: RoundState, number: str, versions: Sequence[RulesetVersion], page: int = 1) -> str:
    """``!ruleset history 4.2``: each version that changed what the rule says (its text or a value it
    binds), newest first, word by word. ``versions``: every version, the archived ones too."""
    entries: list[str] = []
    for entry in rule_versions(number, [*versions, *state.ruleset_versions]):
        version = entry.version
        stamp = f"v{version.version} - {version.at:%Y-%m-%d %H:%M} UTC by {version.by}"
        if entry.text is None:
            entries.append(f"{stamp}: repealed")
        elif entry.previous is None:
            first = "in force from the start" if entry.first else "enacted"
            entries.append(f"{stamp}: {first}: {_short(entry.text, _HISTORY_CHANGE)}")
        else:
            entries.append(f"{stamp}: {_short(word_diff(entry.previous, entry.text), _HISTORY_CHANGE)}")
    if not entries:
        raise UnknownError(f"there is no rule {number} in any version; `!ruleset` lists the rules")
    entries.reverse()
    pages = -(-len(entries) // RULE_HISTORY_PAGE)
    _check_page(page, pages, f"the history of rule {number}")
    shown = entries[(page - 1) * RULE_HISTORY_PAGE : page * RULE_HISTORY_PAGE]
    out = [f"History of rule {number}, newest first:", *shown]
    more = _more(page, pages, f"!ruleset history {number}")
    return "\n".join([*out, more] if more else out)


def _value(value: object) -> str:
    if isinstance(value, tuple):
        return "[" + ", ".join(str(v) for v in value) + "]"
    return str(value).lower() if isinstance(value, bool) else str(value)


def proposals(state: RoundState, archive: Archive[Proposal] | None = None, page: int = 1) -> str:
    """Page 1: the open proposals and the latest outcomes; later pages: older outcomes."""
    open_ones = [p for p in state.proposals.values() if p.status.open]
    decided = [p for p in state.proposals.values() if not p.status.open]
    if not open_ones and not decided and not (archive and archive.total):
        return "There are no proposals yet. Any message in #proposals is one."
    shown, pages = _page(decided, archive, page, DECIDED_PAGE, lambda p: p.number)
    _check_page(page, pages, "the list of proposals")
    out: list[str] = []
    if open_ones and page == 1:
        out.append("Open proposals:")
        for p in sorted(open_ones, key=lambda p: p.number):
            votes_for, votes_against = tally(state, p.message)
            out.append(
                f"{p.number}. {p.kind.value} by {p.author_name}, {p.status.value}"
                f" ({votes_for} 👍, {votes_against} 👎 so far): {_excerpt(p.text)}"
            )
    if shown:
        out.append("Decided, newest first:" if page == 1 else f"Decided, newest first (page {page}):")
        out.extend(
            f"{p.number}. {p.status.value} ({p.votes_for} for, {p.votes_against} against): {_excerpt(p.text)}"
            for p in shown
        )
    more = _more(page, pages, "!proposals")
    return "\n".join([*out, more] if more else out)


def _excerpt(text: str, limit: int = 80) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def rulings(state: RoundState, archive: Archive[JudgeRequest] | None = None, page: int = 1) -> str:
    """Page 1: the requests still in play and the latest settled ones; later pages: older settled ones."""
    judge = state.judge_name or "nobody"
    if not state.requests and not (archive and archive.total):
        return f"The judge is {judge}. There are no requests yet; ask with `!request TEXT`."
    shown, pages = _page((), archive, page, DECIDED_PAGE, lambda r: r.number)
    _check_page(page, pages, "the list of rulings")
    out = [f"The judge is {judge}."]
    if state.requests and page == 1:
        in_play = sorted(state.requests)
        out.append("Requests in play:")
        if len(in_play) > IN_PLAY_SHOWN:
            out.append(f"({len(in_play) - IN_PLAY_SHOWN} earlier ones are in play too: ask by number.)")
        out.extend(_request_line(state, state.requests[n]) for n in in_play[-IN_PLAY_SHOWN:])
    if shown:
        out.append("Settled, newest first:" if page == 1 else f"Settled, newest first (page {page}):")
        out.extend(_request_line(state, r) for r in shown)
    more = _more(page, pages, "!rulings")
    return "\n".join([*out, more] if more else out)


def _request_line(state: RoundState, r: JudgeRequest) -> str:
    line = f"{r.number}. {r.status.value} - {_excerpt(r.text, 60)} (by {r.by_name})"
    if r.status is RequestStatus.OPEN and r.by == state.judge:
        line += "; the judge made it, so it waits for another judge"
    if r.rulings:
        last = r.rulings[-1]
        line += f"\n   ruling by {last.judge_name}: {_excerpt(last.text, 100)}"
    if r.confidence is not None:
        line += f"\n   vote of confidence until {r.confidence.ends_at:%Y-%m-%d %H:%M} UTC"
    return line


def placements(state: RoundState, page: int = 1) -> str:
    """Every place of the last placements with its hand and prize, page by page: the announcement
    lists the top places only."""
    records = state.last_placements
    if not records:
        return "No placements to show: nobody presented a hand for the last placements, or there have been none yet."
    pages = -(-len(records) // PLACEMENTS_PAGE)
    _check_page(page, pages, "the list of placements")
    shown = records[(page - 1) * PLACEMENTS_PAGE : page * PLACEMENTS_PAGE]
    hands = f"{len(records):,} presented hand{'s' if len(records) != 1 else ''}"
    of_pages = f", page {page} of {pages}" if pages > 1 else ""
    out = [f"The last placements ({hands}{of_pages}):"]
    out.extend(placement_line(r) for r in shown)
    if page < pages:
        following = records[page * PLACEMENTS_PAGE : (page + 1) * PLACEMENTS_PAGE]
        out.append(f"`!placements {page + 1}` for places {following[0].place:,} to {following[-1].place:,}.")
    return "\n".join(out)
