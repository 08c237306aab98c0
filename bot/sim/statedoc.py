"""The state document of the simulator contract, built from the round's state."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import TYPE_CHECKING, Any

from bot.sim.world import iso
from games.nomic.document import render, slots
from games.nomic.proposals import tally
from games.nomic.sealed import bidders, public_high
from games.nomic.service import RoundService
from games.nomic.state import JudgeRequest, Proposal, RoundState

if TYPE_CHECKING:
    from games.ictc.state import LibraryState
    from games.tables.model import Table


def table_entry(table: Table) -> dict[str, Any]:
    """One thread game's table: the contract's keys (thread, game, status, players) and more."""
    deadline = table.deadline
    return {
        "thread": table.name,
        "game": table.game,
        "status": table.status.value,
        "players": [s.member for s in table.humans if s.member is not None],
        "ai_seats": [s.name for s in table.ai_seats],
        "seats": [s.name for s in table.seats],
        "ai_for_good": [s.member for s in table.seats if s.member is not None and s.autopilot],
        "timeouts": {s.member: s.timeouts for s in table.seats if s.member is not None and s.timeouts},
        "to_move": table.turn_seat,
        "turn_deadline": iso(deadline) if deadline is not None else None,
        "moves": table.moves,
        "winners": list(table.winners),
        "summary": table.summary,
        "seed": table.seed,
    }


def cards_entry(library: LibraryState | None) -> dict[str, Any]:
    """The card library: members' designs (the starter set's are left out), copies, decks, guilds. None: a
    library that holds the starter set alone, whose entry is that of an empty one (read without loading it)."""
    if library is None:
        return {
            "designs": [],
            "copies": {},
            "decks": [],
            "guilds": [],
            "exclusions": [],
            "contests": [],
            "challenges": [],
        }
    from games.ictc.copies import deck_problems
    from games.ictc.state import STARTER

    designs = []
    for design in sorted(library.designs.values(), key=lambda d: d.id):
        if design.owner == STARTER:
            continue
        version = design.current
        fields = version.fields
        designs.append(
            {
                "id": design.id,
                "name": fields.name,
                "owner": design.owner,
                "type": fields.type.value,
                "cost": fields.cost.text(),
                "status": design.status.value,
                "version": version.number,
                "versions": len(design.versions),
                "approvals": [m for m in version.approvals if m != design.owner],
                "approved_by": version.approved_by,
                "protected": design.protected,
                "flagged": bool(version.flags),
                "warnings": len(version.warnings),
                "minted": design.minted,
            }
        )
    copies: dict[str, list[int]] = {}
    for copy in sorted(library.copies.values(), key=lambda c: c.id):
        copies.setdefault(copy.owner, []).append(copy.id)
    return {
        "designs": designs,
        "copies": copies,
        "decks": [
            {"owner": d.owner, "name": d.name, "cards": len(d.copies), "playable": not deck_problems(library, d)}
            for d in sorted(library.decks.values(), key=lambda d: (d.owner, d.name))
        ],
        "guilds": [
            {"name": g.name, "mode": g.mode.value, "members": list(g.members), "officers": list(g.officers)}
            for g in sorted(library.guilds.values(), key=lambda g: g.name)
        ],
        "exclusions": [
            {"by": e.by, "design": e.design, "met": m.met_at is not None}
            for m in library.meetings.values()
            for e in m.exclusions
        ],
        "contests": [
            {"number": c.number, "design": c.design, "by": c.by, "status": c.status.value}
            for c in sorted(library.contests.values(), key=lambda c: c.number)
        ],
        "challenges": [
            {
                "number": c.number,
                "by": c.by,
                "to": c.to,
                "ante": c.ante,
                "status": c.status.value,
                "table": c.table,
                "winner": c.winner,
                "kitty": list(c.kitty),
            }
            for c in sorted(library.challenges.values(), key=lambda c: c.number)
        ],
    }


def ruleset_entry(state: RoundState) -> dict[str, Any]:
    """The rules in force: the version, each rule as it reads (values plain) with the options it binds,
    and every option's value (as JSON: lists for tuples, strings for choices)."""
    values = state.ruleset.option_paths()
    rules = [
        {
            "number": rule.number,
            "section": section.title,
            "title": rule.title,
            "text": render(rule.text, values, bold=False),
            "binds": slots(rule.text),
            "mechanics": bool(rule.block.strip()),
        }
        for section in state.document.sections
        for rule in section.rules
    ]
    options = state.ruleset.model_dump(mode="json")
    return {
        "version": state.ruleset_version,
        "title": state.document.title,
        "rules": rules,
        "options": {path: options[path.split(".")[0]][path.split(".")[1]] for path in values},
    }


async def guild_document(
    service: RoundService,
    guild: str,
    now: datetime,
    tables: Sequence[Table] = (),
    cards: LibraryState | None = None,
    *,
    starter_cards: bool = False,
) -> dict[str, Any]:
    """The state document of a guild: its state and the records that left it for the archive.
    ``starter_cards``: ``cards`` is None because the library holds the starter set alone (``own_library``)."""
    state = await service.state(guild)
    if state is None:
        document = state_document(None, now, tables)
    else:
        document = state_document(
            state,
            now,
            tables,
            archived_proposals=await service.archived(guild, Proposal),
            archived_requests=await service.archived(guild, JudgeRequest),
        )
    if cards is not None or starter_cards:
        document["cards"] = cards_entry(cards)
    return document


def state_document(
    state: RoundState | None,
    now: datetime,
    tables: Sequence[Table] = (),
    *,
    archived_proposals: Sequence[Proposal] = (),
    archived_requests: Sequence[JudgeRequest] = (),
) -> dict[str, Any]:
    """``archived_*``: the proposals and requests that left the state (``games.nomic.archive``)."""
    entries = [table_entry(t) for t in tables]
    if state is None:
        return {
            "now": iso(now),
            "phase": None,
            "judge": None,
            "players": {},
            "lots": [],
            "proposals": [],
            "rulings": [],
            "tables": entries,
        }
    players = {
        pid: {
            "points": p.points,
            "cards": [c.code for c in p.cards],
            "items": {"standard_proposal_maker": p.spm, **p.items},
        }
        for pid, p in sorted(state.players.items())
    }
    lots = []
    for number in sorted(state.lots):
        lot = state.lots[number]
        high = public_high(state, lot)
        entry: dict[str, Any] = {
            "number": number,
            "cards": [c.code for c in lot.cards],
            "high_bid": {"player": high.player, "amount": high.amount} if high is not None else None,
        }
        if state.sealed_bids:
            entry["sealed_bids"] = bidders(lot)  # no high bid before the opening: how many bid, never how much
        lots.append(entry)
    proposals = []
    for p in sorted([*state.proposals.values(), *archived_proposals], key=lambda p: p.number):
        votes_for, votes_against = (p.votes_for, p.votes_against) if not p.status.open else tally(state, p.message)
        proposals.append(
            {
                "message": p.message,
                "number": p.number,
                "author": p.author,
                "class": p.kind.value,
                "status": p.status.value,
                "votes_for": votes_for,
                "votes_against": votes_against,
            }
        )
    rulings = [
        {
            "request": r.number,
            "status": r.status.value,
            "by": r.by,
            "rulings": len(r.rulings),
            "confidence_vote": r.confidence is not None,
        }
        for r in sorted([*state.requests.values(), *archived_requests], key=lambda r: r.number)
    ]
    return {
        "now": iso(now),
        "phase": state.phase.value,
        "judge": state.judge,
        "players": players,
        "lots": lots,
        "proposals": proposals,
        "rulings": rulings,
        "candidacies": [c.author for c in state.candidacies.values()],
        "tables": entries,
        "ruleset_version": state.ruleset_version,
        "ruleset": ruleset_entry(state),
        "todo": [
            {
                "number": item.number,
                "proposal": item.proposal,
                "status": "open" if item.done_at is None else "done",
                "lines": list(item.lines),
            }
            for item in sorted(state.todos.values(), key=lambda i: i.number)
        ],
        "trades": [
            {
                "number": t.number,
                "offerer": t.offerer,
                "target": t.target,
                "give": t.give.describe(),
                "get": t.get.describe(),
                "status": t.status.value,
            }
            for t in sorted([*state.trades.values(), *state.closed_trades.values()], key=lambda t: t.number)
        ],
        "presented": sorted(state.hands),
        "last_placements": [
            {"place": r.place, "player": r.player, "category": r.category, "coin_toss": r.coin_toss}
            for r in state.last_placements
        ],
        "seed": state.seed,
    }
