"""What the round is done with leaves the state for the store: the state stays small as seasons pass,
and the views and the state document still show everything."""

from __future__ import annotations

import random
import sqlite3
import sys
from datetime import datetime, timedelta
from pathlib import Path

import pytest

from bot.sim.replay import read_scenario, replay
from games.nomic import engine
from games.nomic.actions import GiveRuling, MakeRequest, Propose, React, Tick
from games.nomic.archive import ArchiveKind, retire
from games.nomic.context import ChannelRole
from games.nomic.errors import ConflictError, UnknownError
from games.nomic.phases import BoundaryKind
from games.nomic.state import JudgeRequest, Proposal, ProposalStatus, RequestStatus, Vote
from tests.support import GA, SUNDAY, Scenario, apply, ctx, new_round

PROP = ChannelRole.PROPOSALS


def _decided_round() -> tuple:
    """Alice's urgent proposal (passing, with an amendment) decided on Wednesday; a ruling on Monday."""
    state = new_round(players=["alice", "bob", "carol"], at=SUNDAY)
    state = state.model_copy(update={"judge": "carol", "judge_name": "carol"})
    text = "urgent: eight lots\n```amend\nauction.lots_per_auction = 8\n```"
    state = apply(state, "alice", Propose(message="p1", text=text), PROP, at=SUNDAY + timedelta(hours=1))
    state = apply(state, "bob", React(message="p1", vote=Vote.FOR, added=True), PROP, at=SUNDAY + timedelta(hours=2))
    state = apply(state, "bob", MakeRequest(text="Is it Sunday?"), at=SUNDAY + timedelta(days=1))
    state = apply(state, "carol", GiveRuling(number=1, text="Yes."), at=SUNDAY + timedelta(days=1, hours=1))
    return engine.advance(state, Tick(at=SUNDAY + timedelta(days=3, hours=2)), random.Random(1)).state


def test_a_week_start_retires_what_is_settled_and_keeps_what_is_not() -> None:
    state = _decided_round()
    assert state.proposals["p1"].status is ProposalStatus.PASSED
    assert [v.version for v in state.ruleset_versions] == [1, 2]
    week_start = SUNDAY + timedelta(days=7)
    step = engine.advance(state, Tick(at=week_start, boundaries=(BoundaryKind.AUCTION_START,)), random.Random(1))
    kept = step.state
    assert kept.proposals == {}
    assert "p1" not in kept.reactions
    assert [v.version for v in kept.ruleset_versions] == [2]
    assert kept.ruleset.auction.lots_per_auction == 8
    assert kept.ruleset_version == 2
    # request 1 was ruled on six days ago, within the week the judge may replace it: it stays
    assert sorted(kept.requests) == [1]
    archived = {(a.kind, a.number) for a in step.archived}
    assert archived == {(ArchiveKind.PROPOSAL, 1), (ArchiveKind.RULESET_VERSION, 1)}
    proposal = Proposal.model_validate_json(next(a.body for a in step.archived if a.kind is ArchiveKind.PROPOSAL))
    assert proposal == state.proposals["p1"]
    # a week later the first ruling can no longer be challenged or replaced; a newer one still can
    later = kept.model_copy(update={"judge": "carol", "judge_name": "carol"})  # nobody stood: elect her again
    later = apply(later, "bob", MakeRequest(text="Is it Tuesday?"), at=week_start + timedelta(days=2))
    later = apply(later, "carol", GiveRuling(number=2, text="Yes."), at=week_start + timedelta(days=2, hours=1))
    later = engine.advance(later, Tick(at=week_start + timedelta(days=3)), random.Random(1)).state
    step = engine.advance(
        later, Tick(at=week_start + timedelta(days=7), boundaries=(BoundaryKind.AUCTION_START,)), random.Random(1)
    )
    assert sorted(step.state.requests) == [2]
    assert [(a.kind, a.number) for a in step.archived] == [(ArchiveKind.REQUEST, 1)]
    assert JudgeRequest.model_validate_json(step.archived[0].body).status is RequestStatus.ANSWERED
    # a settled request is closed, not unknown
    settled = step.state.model_copy(update={"judge": "carol", "judge_name": "carol"})
    with pytest.raises(ConflictError, match="settled"):
        engine.apply(
            settled, ctx("carol", GA, week_start + timedelta(days=7, hours=1)), GiveRuling(number=1, text="No."),
            random.Random(1),
        )
    with pytest.raises(UnknownError, match="no request 9"):
        engine.apply(
            settled, ctx("carol", GA, week_start + timedelta(days=7, hours=1)), GiveRuling(number=9, text="No."),
            random.Random(1),
        )


def test_what_a_week_start_decides_stays_a_week() -> None:
    """A proposal decided by the week's start itself, and a version it makes, are shown for a week."""
    state = _decided_round()
    at = SUNDAY + timedelta(days=7)
    proposal = state.proposals["p1"].model_copy(update={"decided_at": at})
    version = state.ruleset_versions[-1].model_copy(update={"at": at})
    state = state.model_copy(
        update={"proposals": {"p1": proposal}, "ruleset_versions": (state.ruleset_versions[0], version)}
    )
    kept, archived = retire(state, at)
    assert kept.proposals == {"p1": proposal}
    assert [v.version for v in kept.ruleset_versions] == [1, 2]
    assert archived == ()
    assert retire(kept, at + timedelta(days=7))[0].proposals == {}


def _season(weeks: int) -> Scenario:
    """``weeks`` weeks of the same busy routine: an urgent amendment, a standard proposal (which the
    moderators, once it passed, mark done on their to-do list), a request and its ruling, a trade, and the
    judge standing again; then the same questions at the same hour."""
    s = Scenario()
    start = SUNDAY - timedelta(days=1)
    s.setup(start, ["mod"])
    players = ["alice", "bob", "carol", "dave"]
    for name in players:
        s.say(start + timedelta(minutes=1), name, "!join")
    for week in range(weeks):
        sunday = SUNDAY + timedelta(days=7 * week)

        def at(day: int, hour: int, minute: int = 0, sunday: datetime = sunday) -> datetime:
            return sunday + timedelta(days=day, hours=hour, minutes=minute)

        for when in (at(0, 1), *([start + timedelta(hours=1)] if week == 0 else [])):
            stand = s.say(when, "dave", "I will judge.", "judge-elections")
            s.raw(at=_iso(when + timedelta(minutes=1)), type="react", message=stand, user="alice", emoji="👍")
        lots = 7 if week % 2 == 0 else 6
        urgent = s.say(at(1, 10), "alice", f"urgent: {lots} lots\n```amend\nauction.lots_per_auction = {lots}\n```",
                       "proposals")
        for voter in ("bob", "carol"):
            s.raw(at=_iso(at(1, 10, 5)), type="react", message=urgent, user=voter, emoji="👍")
        s.say(at(1, 11), "mod", "!admin give @bob spm")
        if week:  # last week's thanks passed with no amendment line: the moderators see to it
            s.say(at(1, 11, 30), "mod", f"!admin done {week}")
        standard = s.say(at(1, 12), "bob", f"Week {week + 1}: we thank the judge.", "proposals")
        s.raw(at=_iso(at(4, 10)), type="react", message=standard, user="alice", emoji="👍")
        s.say(at(2, 9), "carol", f"!request Is week {week + 1} a fine week?")
        s.say(at(2, 10), "dave", f"!rule {week + 1} It is.")
        s.say(at(3, 9), "alice", "!offer @bob give 1 points for nothing")
        s.say(at(3, 10), "bob", f"!accept {week + 1}")
    last = SUNDAY + timedelta(days=7 * (weeks - 1))
    for i, question in enumerate(QUESTIONS):
        s.say(last + timedelta(days=5, minutes=i), "dave" if question.startswith("!rule ") else "carol",
              question, mid=f"q{i}")
    s.lines.sort(key=lambda line: line["at"])  # stable: lines of the same instant keep their order
    return s


QUESTIONS = ("!proposals", "!proposals 2", "!rulings 2", "!ruleset history 2", "!ruleset diff 1 2",
             "!rule 1 Changed my mind.")


def _iso(at: datetime) -> str:
    return at.isoformat().replace("+00:00", "Z")


async def _run_season(tmp_path: Path, weeks: int) -> tuple[int, dict, dict[str, str]]:
    """The stored snapshot's size, the state document (with the archive's counts) and the answers."""
    path = _season(weeks).write(tmp_path / f"season-{weeks}.jsonl")
    db = tmp_path / f"season-{weeks}.db"
    result = await replay(read_scenario(path, sys.stderr), seed="season", db=db)
    with sqlite3.connect(db) as conn:
        (size,) = conn.execute("SELECT length(body) FROM snapshots").fetchone()
        archived = dict(conn.execute("SELECT kind, COUNT(*) FROM archive GROUP BY kind").fetchall())
    result.document["archived"] = archived
    answers = {q: next((t["content"] for t in result.transcript if t.get("reply_to") == f"q{i}"), "")
               for i, q in enumerate(QUESTIONS)}
    return size, result.document, answers


async def test_after_24_weeks_the_snapshot_is_no_bigger_than_after_2(tmp_path: Path) -> None:
    small, doc2, _ = await _run_season(tmp_path, 2)
    large, doc24, answers = await _run_season(tmp_path, 24)
    # the state holds the same week's business either way: proposals of this week and last, two rulings
    # that can still be challenged or replaced, the version in force and the one before it
    assert doc2["archived"] == {"proposal": 1, "ruleset_version": 1}
    assert doc24["archived"] == {"proposal": 45, "request": 22, "ruleset_version": 23}
    assert large <= small * 1.05, (small, large)
    # while the state document and the views still show everything
    assert len(doc2["proposals"]) == 4
    assert len(doc24["proposals"]) == 48
    assert [p["number"] for p in doc24["proposals"]] == list(range(1, 49))
    assert [p["status"] for p in doc24["proposals"][:2]] == ["passed", "passed"]
    assert doc24["proposals"][-1]["status"] == "voting"
    assert [r["request"] for r in doc24["rulings"]] == list(range(1, 25))
    assert {r["status"] for r in doc24["rulings"]} == {"answered"}
    assert "Open proposals:" in answers["!proposals"]
    assert "Page 1 of 5: `!proposals 2` for older ones." in answers["!proposals"]
    assert "Decided, newest first (page 2):" in answers["!proposals 2"]
    assert "Settled, newest first (page 2):" in answers["!rulings 2"]
    assert "\nv10 - " in answers["!ruleset history 2"]
    assert "`auction.lots_per_auction`: 6 -> 7" in answers["!ruleset diff 1 2"]
    assert "request 1 is settled" in answers["!rule 1 Changed my mind."]
