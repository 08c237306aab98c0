"""Governance through the simulator: the scenarios in tests/scenarios/governance_*.jsonl.

``governance_proposals`` runs two weeks of proposals of both classes (passed, failed, retracted by
edit and by deletion, refused amendments, two amendments taking effect at one instant) and checks
that an amendment changes the next auction. ``governance_judge`` runs five weeks of elections
(a tie, a departed candidate, an empty week), rulings that stand and are overturned, a removal
whose earlier assent lapsed, and a resignation. ``governance_office`` reads the seed closely: votes
in several skin tones, a judge who may not rule on their own request and who then leaves the game,
a second vote of confidence after one that let the ruling stand, a ruling replaced during its
vote, a standard proposal's voting window, and a re-elected judge whose term starts without assents.

Lines marked ``"noise": true`` (the replay ignores unknown keys) are events that must change
nothing: reactions other than 👍/👎, a reaction already present, reactions, edits and deletions of
unknown or closed messages, a redelivered message. (A non-player's 👍 is recorded, since reactions
are counted when a vote ends, so it is not noise; the documents show it never counts.) Each
scenario is also replayed without the noise and must give the same state document and transcript.
"""

from __future__ import annotations

import asyncio
import io
import json
import subprocess
import sys
from datetime import UTC, datetime
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from bot.sim.replay import ReplayResult, read_scenario, replay

SCENARIOS = Path(__file__).resolve().parent / "scenarios"
PROPOSALS = SCENARIOS / "governance_proposals.jsonl"
JUDGE = SCENARIOS / "governance_judge.jsonl"
OFFICE = SCENARIOS / "governance_office.jsonl"
ROOT = Path(__file__).resolve().parents[1]
SEED = "7"


def raw_lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def when(text: str) -> datetime:
    return datetime.fromisoformat(text.replace("Z", "+00:00")).astimezone(UTC)


@cache
def run(path: Path, *, until: str | None = None, upto: str | None = None, noise: bool = True) -> ReplayResult:
    """Replay ``path`` (only lines up to ``upto``, without noise lines if asked) to ``until``."""
    errors = io.StringIO()
    lines = read_scenario(path, errors)
    assert errors.getvalue() == ""
    raw = raw_lines(path)
    assert len(raw) == len(lines)
    kept = [
        (number, line)
        for (number, line), data in zip(lines, raw, strict=True)
        if (noise or not data.get("noise")) and (upto is None or line.at <= when(upto))
    ]
    return asyncio.run(replay(kept, seed=SEED, until=when(until) if until else None))


def said(result: ReplayResult, *, channel: str | None = None, reply_to: str | None = None) -> list[dict[str, Any]]:
    return [
        entry
        for entry in result.transcript
        if (channel is None or entry.get("channel") == channel) and (reply_to is None or entry["reply_to"] == reply_to)
    ]


def answers(result: ReplayResult, message: str) -> list[str]:
    return [entry["content"] for entry in result.transcript if entry["reply_to"] == message]


def proposal_rows(result: ReplayResult) -> list[tuple[str, str, str, str, int, int]]:
    return [
        (p["message"], p["author"], p["class"], p["status"], p["votes_for"], p["votes_against"])
        for p in result.document["proposals"]
    ]


# --- the scenarios are well formed -------------------------------------------------------------


@pytest.mark.parametrize("path", [PROPOSALS, JUDGE, OFFICE], ids=["proposals", "judge", "office"])
def test_every_command_and_post_is_answered_and_noise_is_silent(path: Path) -> None:
    result = run(path)
    raw = raw_lines(path)
    assert result.lines == len(raw)
    seen: set[str] = set()
    for data in raw:
        if data["type"] != "message" or data["id"] in seen:
            continue
        seen.add(data["id"])
        if data["content"].startswith("!") or data["channel"] in {"proposals", "judge-elections"}:
            assert answers(result, data["id"]), data
    noise_at = {data["at"] for data in raw if data.get("noise")}
    assert noise_at
    assert not [entry for entry in result.transcript if entry["at"] in noise_at]


@pytest.mark.parametrize("path", [PROPOSALS, JUDGE, OFFICE], ids=["proposals", "judge", "office"])
def test_noise_lines_change_nothing(path: Path) -> None:
    full = run(path)
    quiet = run(path, noise=False)
    assert quiet.lines < full.lines
    assert quiet.document == full.document
    assert quiet.transcript == full.transcript


def test_command_line_replay_writes_the_same_document(tmp_path: Path) -> None:
    state_out, transcript_out = tmp_path / "state.json", tmp_path / "transcript.jsonl"
    command = [sys.executable, "-m", "bot", "replay", str(PROPOSALS), "--seed", SEED]
    command += ["--state", str(state_out), "--transcript", str(transcript_out)]
    done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 0, done.stderr
    assert json.loads(state_out.read_text(encoding="utf-8")) == run(PROPOSALS).document
    transcript = [json.loads(line) for line in transcript_out.read_text(encoding="utf-8").splitlines()]
    assert transcript == run(PROPOSALS).transcript


# --- proposals ---------------------------------------------------------------------------------


def test_proposals_state_document() -> None:
    doc = run(PROPOSALS).document
    assert proposal_rows(run(PROPOSALS)) == [
        ("u1", "bob", "urgent", "passed", 1, 2),  # at most two against
        ("u2", "carol", "urgent", "failed", 1, 3),  # three against
        ("u3", "dave", "urgent", "passed", 0, 2),  # a third 👎 was removed before the end
        ("s1", "alice", "standard", "passed", 1, 2),  # exactly a third in favour
        ("s2", "bob", "standard", "failed", 1, 3),  # a quarter
        ("s3", "carol", "standard", "retracted", 0, 0),  # deleted before its vote
        ("s4", "alice", "standard", "passed", 2, 0),  # amended by an edit before its vote
        ("s5", "carol", "standard", "retracted", 0, 0),  # edited during its vote
        ("u4", "frank", "urgent", "retracted", 0, 0),  # edited during its vote
        ("u5", "bob", "urgent", "passed", 0, 2),  # frank's 👎 left with him
        ("s6", "dave", "standard", "voting", 1, 1),  # made in bartering, votes through the auction
    ]
    assert [p["number"] for p in doc["proposals"]] == list(range(1, 12))
    assert doc["phase"] == "auction"
    assert doc["ruleset_version"] == 3
    # frank left; the others got 150 at each of the two week starts after the amendment
    assert {name: p["points"] for name, p in doc["players"].items()} == dict.fromkeys(
        ("alice", "bob", "carol", "dave"), 300
    )
    # every item was used, and the one of the deleted proposal came back and was used again
    assert {p["items"]["standard_proposal_maker"] for p in doc["players"].values()} == {0}
    assert len(doc["lots"]) == 2


def test_outcomes_are_announced_in_proposals_replying_to_the_proposal() -> None:
    result = run(PROPOSALS)
    expected = {
        "u1": ("2026-12-08T10:00:00Z", "has passed with 1 for and 2 against"),
        "u2": ("2026-12-08T10:05:00Z", "has failed with 1 for and 3 against"),
        "u3": ("2026-12-08T10:10:00Z", "has passed with 0 for and 2 against"),
        "s1": ("2026-12-13T00:00:00Z", "has passed with 1 for and 2 against"),
        "s2": ("2026-12-13T00:00:00Z", "has failed with 1 for and 3 against"),
        "s4": ("2026-12-13T00:00:00Z", "has passed with 2 for and 0 against"),
        "u5": ("2026-12-13T12:00:00Z", "has passed with 0 for and 2 against"),
        "s3": ("2026-12-07T10:00:00Z", "is retracted: it was deleted. The Standard Proposal-Maker was returned."),
        "s5": ("2026-12-11T09:00:00Z", "is retracted: it was edited during its vote."),
        "u4": ("2026-12-11T11:00:00Z", "is retracted: it was edited during its vote."),
    }
    outcomes = [e for e in said(result) if any(w in e["content"] for w in ("has passed", "has failed", "is retracted"))]
    assert len(outcomes) == len(expected)
    for entry in outcomes:
        assert entry["channel"] == "proposals"
        at, text = expected[entry["reply_to"]]
        assert entry["at"] == at
        assert text in entry["content"]
    # the item is returned only for the deletion before voting
    assert "returned" not in " ".join(e["content"] for e in outcomes if e["reply_to"] != "s3")
    # s6 is still voting: nothing announced for it but its recording
    assert len(answers(result, "s6")) == 1


def test_standard_made_in_bartering_is_decided_when_the_next_auction_ends() -> None:
    result = run(PROPOSALS, until="2026-12-24T00:00:00Z")
    assert proposal_rows(result)[-1] == ("s6", "dave", "standard", "passed", 1, 1)
    (decided,) = [e for e in said(result, reply_to="s6") if "has passed" in e["content"]]
    assert (decided["at"], decided["channel"]) == ("2026-12-24T00:00:00Z", "proposals")
    assert result.document["phase"] == "bartering"
    # before the auction ends it is still open, though a week start fell inside its vote
    early = run(PROPOSALS, until="2026-12-23T23:59:59Z")
    assert proposal_rows(early)[-1][3] == "voting"


def test_passed_amendments_take_effect_in_creation_order_and_change_the_next_auction() -> None:
    result = run(PROPOSALS)
    (v2,) = [e for e in said(result, reply_to="s1") if "takes effect" in e["content"]]
    (v3,) = [e for e in said(result, reply_to="s4") if "takes effect" in e["content"]]
    assert "ruleset version 2 (auction.weekly_points = 150)" in v2["content"]
    assert "ruleset version 3 (auction.lots_per_auction = 2)" in v3["content"]
    assert v2["channel"] == v3["channel"] == "proposals"
    assert v2["at"] == v3["at"] == "2026-12-13T00:00:00Z"
    assert result.transcript.index(v2) < result.transcript.index(v3)
    grants = [e["content"] for e in said(result, channel="game-actions") if "players gains" in e["content"]]
    assert [g.splitlines()[-1] for g in grants] == ["Each of the 4 players gains 150 points."] * 2
    # the amended limit: two lots for the coming auction, the third is refused
    assert answers(result, "l1")[0].startswith("alice generates lot 1")
    assert answers(result, "l2")[0].startswith("bob generates lot 2")
    assert answers(result, "l3") == ["Can't do that: there are already 2 lots; an auction has 2."]
    # nothing failed or retracted reached the ruleset: `!ruleset` history would show only these two
    assert "auction.lots_per_auction = 4" not in json.dumps(result.transcript)


def test_invalid_amendments_are_answered_and_use_nothing() -> None:
    result = run(PROPOSALS)
    for message, reason in (("bad1", "no option `auction.no_such_option`"), ("bad2", "`auction.weekly_points`")):
        (entry,) = said(result, reply_to=message)
        assert entry["channel"] == "proposals"
        assert entry["content"].startswith("Can't do that")
        assert reason in entry["content"]
    assert not [p for p in result.document["proposals"] if p["message"] in {"bad1", "bad2", "sx"}]
    # alice had 2 items: one for s1, none for the refused ones, one for s4
    assert [p["message"] for p in result.document["proposals"] if p["author"] == "alice"] == ["s1", "s4"]
    (no_item,) = said(result, reply_to="sx")
    assert "Standard Proposal-Maker" in no_item["content"]


def test_edit_with_a_bad_amendment_is_answered_and_the_earlier_text_kept() -> None:
    result = run(PROPOSALS)
    edits = [e for e in said(result, reply_to="s4") if e["at"] == "2026-12-08T12:30:00Z"]
    assert len(edits) == 1
    assert edits[0]["channel"] == "proposals"
    assert "no option `auction.nope`" in edits[0]["content"]
    assert "keeps its earlier text" in edits[0]["content"]
    # the earlier text is the first edit's (lots_per_auction = 2), not the original's (= 4)
    assert result.document["ruleset_version"] == 3
    assert "auction.lots_per_auction = 2" in json.dumps(said(result, reply_to="s4"), ensure_ascii=False)


@pytest.mark.parametrize(
    ("upto", "rows"),
    [
        # Wednesday: the standard proposals are still waiting for their vote
        ("2026-12-09T12:00:00Z", {"s1": ("pending", 1, 0), "s4": ("pending", 0, 0), "s5": ("pending", 0, 0)}),
        # Thursday night: they vote; the tally counts players' reactions only
        ("2026-12-10T02:00:00Z", {"s1": ("voting", 1, 2), "s2": ("voting", 1, 3), "s4": ("voting", 2, 0)}),
    ],
)
def test_open_proposals_in_the_document(upto: str, rows: dict[str, tuple[str, int, int]]) -> None:
    result = run(PROPOSALS, upto=upto)
    found = {p["message"]: (p["status"], p["votes_for"], p["votes_against"]) for p in result.document["proposals"]}
    for message, row in rows.items():
        assert found[message] == row
    spm = {name: p["items"]["standard_proposal_maker"] for name, p in result.document["players"].items()}
    assert spm["alice"] == 0
    assert spm["carol"] == (1 if upto < "2026-12-08T13:00:00Z" else 0)


# --- the judge and elections ---------------------------------------------------------------


def ruling_rows(result: ReplayResult) -> list[tuple[int, str]]:
    return [(r["request"], r["status"]) for r in result.document["rulings"]]


def test_judge_state_document() -> None:
    result = run(JUDGE)
    doc = result.document
    assert doc["judge"] == "carol"
    assert ruling_rows(result) == [(1, "overturned"), (2, "answered"), (3, "answered"), (4, "open")]
    assert sorted(doc["players"]) == ["bob", "carol", "dave"]


def test_elections_each_week() -> None:
    result = run(JUDGE, until="2027-01-10T00:00:00Z")
    elections = [
        (e["at"], e["content"])
        for e in said(result, channel="judge-elections")
        if e["reply_to"] is None and "office of judge is empty until" not in e["content"]
    ]
    assert elections == [
        (
            "2026-12-06T00:00:00Z",
            "bob is the judge for this week with 1 👍 vote (the earliest of the tied candidacies).",
        ),
        ("2026-12-13T00:00:00Z", "bob is the judge for this week with 2 👍 votes."),
        ("2026-12-20T00:00:00Z", "carol is the judge for this week with 1 👍 vote."),
        ("2026-12-27T00:00:00Z", "dave is the judge for this week with 0 👍 votes."),
        ("2027-01-03T00:00:00Z", "carol is the judge for this week with 1 👍 vote."),
        ("2027-01-10T00:00:00Z", "No one stood for judge last week; the office of judge is empty this week."),
    ]
    assert result.document["judge"] is None
    assert result.document["candidacies"] == []


@pytest.mark.parametrize(
    ("upto", "judge", "rulings"),
    [
        ("2026-12-05T23:59:59Z", None, []),
        ("2026-12-06T04:30:00Z", "bob", [(1, "answered"), (2, "answered"), (3, "answered")]),
        ("2026-12-09T04:59:59Z", "bob", [(1, "answered"), (2, "answered"), (3, "answered")]),
        ("2026-12-09T05:00:00Z", "bob", [(1, "answered"), (2, "answered"), (3, "answered")]),
        ("2026-12-11T05:59:59Z", "bob", [(1, "answered"), (2, "answered"), (3, "answered")]),
        ("2026-12-11T06:00:00Z", "bob", [(1, "overturned"), (2, "answered"), (3, "answered")]),
        ("2026-12-14T03:00:00Z", "bob", [(1, "overturned"), (2, "answered"), (3, "answered"), (4, "open")]),
        ("2026-12-20T00:00:00Z", "carol", None),
        ("2026-12-21T01:00:30Z", "carol", None),  # alice's assent against bob lapsed
        ("2026-12-21T01:01:00Z", None, None),
        ("2026-12-27T00:30:00Z", "dave", None),
        ("2026-12-27T01:01:00Z", None, None),
    ],
)
def test_judge_over_time(upto: str, judge: str | None, rulings: list[tuple[int, str]] | None) -> None:
    result = run(JUDGE, upto=upto, until=upto)
    assert result.document["judge"] == judge
    if rulings is not None:
        assert ruling_rows(result) == rulings


def test_confidence_votes_and_refusals_are_answered() -> None:
    result = run(JUDGE)
    decided = [(e["at"], e["content"]) for e in said(result) if e["content"].startswith("The ruling on request")]
    assert decided == [
        ("2026-12-09T05:00:00Z", "The ruling on request 2 stands: 1 to overturn, 1 to affirm."),
        ("2026-12-11T06:00:00Z", "The ruling on request 1 is overturned: 2 to overturn, 1 to affirm."),
    ]
    refused = {
        "e5": "only players",  # a non-player's candidacy
        "r1b": "cannot make a request of themselves",
        "r2": "only the judge can rule",
        "v5": "only players",  # a non-player's confidence vote
        "v10": "within 4 days",
        "r9": "can no longer be replaced",
        "x2": "already assented",
        "x3": "`!resign`",
        "x4": "only players",
        "y1": "only the judge can resign",
    }
    for message, reason in refused.items():
        (answer,) = answers(result, message)
        assert answer.startswith("Can't do that"), message
        assert reason in answer, message
    assert "replaces their ruling on request 1" in answers(result, "r8")[0]
    assert answers(result, "x1") == ["alice assents to removing judge bob (1 of 2)."]
    assert answers(result, "x5") == ["dave assents to removing judge carol (1 of 2)."]
    assert "carol is removed" in answers(result, "x6")[0]
    assert answers(result, "y2")[0].startswith("dave resigns as judge.")


# --- the office: the seed read closely -------------------------------------------------------


def test_office_state_document() -> None:
    result = run(OFFICE)
    doc = result.document
    assert doc["judge"] == "dave"  # re-elected, with one assent of this term against him
    assert sorted(doc["players"]) == ["bob", "carol", "dave", "erin"]
    assert ruling_rows(result) == [(1, "answered"), (2, "overturned")]
    assert proposal_rows(result) == [
        ("s1", "bob", "standard", "passed", 1, 2),  # carol's 👍🏾 still stood when her 👍 went
        ("u1", "carol", "urgent", "passed", 0, 0),
    ]
    assert "t1" not in json.dumps(doc["proposals"])  # talk in #game-actions is no proposal
    assert doc["candidacies"] == []


def test_office_votes_count_every_skin_tone_once() -> None:
    result = run(OFFICE)
    elections = [e["content"] for e in said(result, channel="judge-elections") if "for this week" in e["content"]]
    assert elections == [
        "alice is the judge for this week with 2 👍 votes.",  # carol's 👍🏽 and erin's 👍
        "dave is the judge for this week with 1 👍 vote.",
        "dave is the judge for this week with 1 👍 vote.",
    ]


def test_office_the_judge_waits_for_another_on_their_own_request() -> None:
    result = run(OFFICE)
    assert answers(result, "rr1") == ["Can't do that: request 1 is your own request; it waits for another judge."]
    (ruled,) = answers(result, "rr4")
    assert ruled.startswith("Judge dave rules on request 1:\n> Yes, a lot may be empty.\nIt can be challenged")


def test_office_confidence_votes_after_one_that_stood_and_after_a_replacement() -> None:
    result = run(OFFICE)
    (ruled,) = answers(result, "rr2")
    assert ruled.splitlines()[:2] == ["Judge alice rules on request 2:", "> True"]
    decided = [(e["at"], e["content"]) for e in said(result) if e["content"].startswith("The ruling on request")]
    assert decided == [
        ("2026-12-08T02:00:00Z", "The ruling on request 2 stands: 0 to overturn, 1 to affirm."),
        # the vote called afresh on the replacement runs to its end though alice left the game
        ("2026-12-11T00:00:00Z", "The ruling on request 2 is overturned: 2 to overturn, 0 to affirm."),
    ]
    assert "calls a vote of confidence" in answers(result, "o2")[0]  # a second vote after one that stood
    (replaced,) = answers(result, "rr3")
    assert "replaces their ruling on request 2" in replaced
    assert "vote of confidence" in replaced
    assert "replaced" in replaced
    assert "afresh" in replaced
    assert "calls a vote of confidence" in answers(result, "o3")[0]


def test_office_a_judge_who_leaves_the_game_empties_the_office() -> None:
    result = run(OFFICE)
    (answer,) = answers(result, "l1")
    assert answer.startswith("alice is no longer a player")
    assert "no longer the judge" in answer
    (announced,) = [e for e in said(result, channel="judge-elections") if e["at"] == "2026-12-10T01:00:00Z"]
    assert announced["reply_to"] is None
    assert "alice" in announced["content"]
    assert "empty until the next election" in announced["content"]
    early = run(OFFICE, upto="2026-12-10T01:00:00Z", until="2026-12-10T01:00:00Z")
    assert early.document["judge"] is None


def test_office_a_standard_proposal_names_its_window_and_its_vote_is_announced() -> None:
    result = run(OFFICE)
    (recorded,) = answers(result, "s1")[:1]
    assert "from Thu 2026-12-10 00:00 UTC (<t:1796860800:F>)" in recorded
    assert "to Sun 2026-12-13 00:00 UTC (<t:1797120000:F>, <t:1797120000:R>)" in recorded
    (opens,) = [e for e in said(result, channel="proposals") if e["content"].startswith("Voting opens")]
    assert opens["at"] == "2026-12-10T00:00:00Z"
    assert opens["reply_to"] is None
    assert "Proposal 1 by bob: Lots hold three cards." in opens["content"]
    assert "Sun 2026-12-13 00:00 UTC (<t:1797120000:F>, <t:1797120000:R>)" in opens["content"]
    assert answers(result, "t1") == []


def test_office_removal_assents_belong_to_one_term() -> None:
    result = run(OFFICE)
    assert answers(result, "x1") == ["dave assents to removing judge alice (1 of 2)."]
    assert answers(result, "x2") == ["bob assents to removing judge dave (1 of 2)."]
    assert answers(result, "x3") == ["carol assents to removing judge dave (1 of 2)."]
