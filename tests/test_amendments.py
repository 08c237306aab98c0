"""Proposals amend the rules' text in plain lines (games/nomic/amendments.py), at the engine.

The four lines (amend, replace, repeal, enact) are read anywhere in a proposal; what the bot
understood is in the answer; refusals change nothing and spend nothing; when proposals pass
together their lines apply in proposal order, a line whose rule or quoted text is gone lapses alone;
what the bot does not enforce goes on the moderators' to-do list; a moderator may import a document.
"""

from __future__ import annotations

import json
import os
import random
from pathlib import Path

import pytest

from games.nomic import amendments, engine
from games.nomic.actions import (
    AdminSet,
    CloseTodo,
    EditMessage,
    GenerateLot,
    ImportRuleset,
    PlaceBid,
    Propose,
)
from games.nomic.amendments import BlockError, parse_changes
from games.nomic.context import ChannelRole
from games.nomic.document import default_document, render, to_markdown
from games.nomic.errors import BadInputError, ConflictError, NotAllowedError, RuleError, UnknownError
from games.nomic.events import (
    ProposalLeftToPeople,
    ProposalRecorded,
    RulesetAmended,
    RulesetImported,
    TodoAdded,
    TodoDone,
)
from games.nomic.phases import BoundaryKind
from games.nomic.state import ChangeKind, ProposalStatus, RoundState

from .test_governance import (
    AGAINST,
    FOR,
    GA,
    MOD,
    PROP,
    context,
    day,
    do,
    give_spm,
    propose,
    refused,
    start,
    tick,
    tick_events,
    to_saturday,
    to_sunday,
    to_thursday,
    votes,
)

SNAPSHOTS = Path(__file__).resolve().parent / "snapshots"
AMEND_42 = "Amend rule 4.2 to read: Each auction phase offers 8 lots of 2 cards."
REPLACE_42 = 'Replace "six lots" with "eight lots" in rule 4.2'


def recorded(state: RoundState, author: str, message: str, text: str) -> ProposalRecorded:
    action = Propose(message=message, text=text)
    step = engine.apply(state, context(author, PROP, day(1)), action, random.Random(0))
    (event,) = [e for e in step.events if isinstance(e, ProposalRecorded)]
    return event


def rule_text(state: RoundState, number: str) -> str:
    rule = state.document.rule(number)
    assert rule is not None
    return render(rule.text, state.ruleset.option_paths(), bold=False)


# --- reading the lines -----------------------------------------------------------------------------------


def test_the_four_lines_are_read_anywhere_in_any_case() -> None:
    text = (
        "urgent: Amend rule 4.2 to read: Each auction phase offers 8 lots.\n"
        "Some words about why.\n"
        '- REPLACE "highest" with “lowest” in Rule 4.4.\n'
        "> repeal rule 5.3\n"
        '**Enact rule 4.5 "Judge\'s pay":** The judge gains 20 points.\n'
        "```rule\nwhen an auction phase starts:\n  the judge gains 20 points\n```\n"
        "```amend\nAmend rule 1.1 to read: not a line, it is in the amend block\n```"
    )
    changes = parse_changes(text, "urgent:")
    assert [(c.kind, c.rule, c.line) for c in changes] == [
        (ChangeKind.AMEND, "4.2", 1),
        (ChangeKind.REPLACE, "4.4", 3),
        (ChangeKind.REPEAL, "5.3", 4),
        (ChangeKind.ENACT, "4.5", 5),
    ]
    assert changes[0].text == "Each auction phase offers 8 lots."
    assert (changes[1].old, changes[1].new) == ("highest", "lowest")
    assert changes[3].title == "Judge's pay"
    assert changes[3].block == "when an auction phase starts:\n  the judge gains 20 points"
    assert changes[0].block is None


@pytest.mark.parametrize(
    ("text", "why"),
    [
        ("Amend rule 4.2 to say: eight lots", "line 1: `Amend rule 4.2 to say: eight lots` cannot be read"),
        ("Words.\nRepeal rule four", "line 2: `four` is not a rule number"),
        ('Replace "" with "x" in rule 4.2', "line 1: `Replace \"\" with \"x\" in rule 4.2` cannot be read"),
        ("Amend rule 4.2 to read:", "line 1: rule 4.2 needs its text after the colon"),
        ("Just words.\n```rule\nwhen the week ends\n```", "line 2: a ```rule block belongs right after"),
        ("Repeal rule 5.3\n```rule\nx\n```", "line 2: a ```rule block belongs right after"),
        ('Enact rule 4.5 "T": x\n```rule\nx', "line 2: the ```rule block opened here is not closed"),
    ],
)
def test_an_unreadable_line_is_refused_with_its_line(text: str, why: str) -> None:
    with pytest.raises(BadInputError) as caught:
        parse_changes(text)
    assert str(caught.value).startswith(why), str(caught.value)


def test_a_line_that_only_begins_like_a_word_is_no_amendment() -> None:
    assert parse_changes("Replace the judge with a council.\nEnactment of rules is slow.") == ()


# --- at proposal time ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("line", "why"),
    [
        ("Amend rule 4.9 to read: x", "line 2: there is no rule 4.9 (section 4 has rules 4.1 to 4.4)"),
        ("Repeal rule 14.1", "line 2: there is no rule 14.1"),
        ('Replace "nine lots" with "two lots" in rule 4.2', "line 2: rule 4.2 does not say “nine lots”; it reads:"),
        ('Replace "the" with "a" in rule 4.4', "line 2: “the” stands 7 times in rule 4.4; quote more of it"),
        ("Amend rule 4.2 to read: Each auction phase offers 30 lots of 2 cards.",
         ("line 2: rule 4.2 would make lots per auction (`auction.lots_per_auction`) 30, which the ruleset does not"
          " allow: Input should be less than or equal to 25")),
        ('Enact rule 4.4 "Again": x', "line 2: rule 4.4 exists already"),
        ('Enact rule 15.1 "Far": x', ("line 2: there is no section 15: a new rule goes in sections 1 to 13, or opens"
                                      " section 14")),
        ("Amend rule 4.2 to read: Each auction phase offers {auction.lots} lots.",
         "line 2: rule 4.2: `{auction.lots}` names no option of the ruleset"),
        ("Amend rule 4.2 to read: Each auction phase offers 6 lots of 2 cards.", "line 2: rule 4.2 already says that"),
    ],
)  # fmt: skip
def test_bad_input_is_refused_at_proposal_time_and_spends_nothing(line: str, why: str) -> None:
    state = give_spm(start(), "alice")
    message = refused(state, "alice", Propose(message="s1", text=f"Change.\n{line}"), BadInputError, PROP, at=day(1))
    assert message.startswith(why), message
    assert "s1" not in state.proposals
    assert state.players["alice"].spm == 1


def test_a_rule_block_the_rule_language_refuses_is_refused_with_its_place() -> None:
    state = give_spm(start(), "alice")
    text = (
        'Pay the judge.\nEnact rule 4.5 "Pay": The judge gains 20.\n'
        "```rule\nwhen an auction phase starts:\n  explode\n```"
    )
    message = refused(state, "alice", Propose(message="s1", text=text), BadInputError, PROP, at=day(1))
    assert message.startswith("line 3: the rule block of rule 4.5: rule block, line 2, column 3: name whom")
    assert state.players["alice"].spm == 1
    accepted = propose(state, "alice", "s1", text.replace("explode", "the judge gains 20 points"), at=day(1))
    assert accepted.proposals["s1"].changes[0].block == "when an auction phase starts:\n  the judge gains 20 points"


def test_a_checker_put_in_place_of_the_language_is_the_one_asked(monkeypatch: pytest.MonkeyPatch) -> None:
    def checker(source: str) -> None:
        if "explode" in source:
            raise BlockError("line 2, column 3: `explode` is no effect", line=2, column=3)

    monkeypatch.setattr(amendments, "check_block", checker)
    state = give_spm(start(), "alice")
    text = 'Pay the judge.\nEnact rule 4.5 "Pay": The judge gains 20.\n```rule\nwhen auction starts:\n  explode\n```'
    message = refused(state, "alice", Propose(message="s1", text=text), BadInputError, PROP, at=day(1))
    assert message == "line 3: the rule block of rule 4.5: line 2, column 3: `explode` is no effect"


def test_the_answer_says_what_the_bot_understood() -> None:
    state = start()
    event = recorded(state, "alice", "u1", f"urgent: eight lots\n{AMEND_42}")
    assert event.text().split("\n")[1:] == [
        "If it passes:",
        "Rule 4.2 “Lots on offer”: Each auction phase offers ~~6~~ **8** lots of 2 cards.",
        "- enforced by the bot: lots per auction 6 → 8",
    ]
    event = recorded(state, "alice", "u1", "urgent: Amend rule 4.2 to read: Every auction has some lots.")
    assert event.text().split("\n")[2:] == [
        "Rule 4.2 “Lots on offer”: ~~Each~~ **Every** auction ~~phase offers 6 lots of 2 cards.~~ **has some lots.**",
        "- rule 4.2 would no longer say how many lots an auction holds; the bot would keep 6",
        "- rule 4.2 would no longer say how many cards make a lot; the bot would keep 2",
        "- not enforced by the bot: “Every auction has some lots.”",
    ]
    event = recorded(state, "alice", "u1", 'urgent: Replace "highest" with "lowest" in rule 4.1')
    assert event.text().split("\n")[2:] == [
        "Rule 4.1 “Bidding”: … it must be higher than the ~~highest~~ **lowest** valid bid on that lot, and …",
        (
            "- not enforced by the bot: “A bid is a whole number of points of at least 1; it must be higher than the"
            " lowest valid bid on that lot, and the bidder must hold that many points when bidding.”"
        ),
    ]
    # a value bound in two rules: both read the new one
    text = "urgent: Amend rule 1.4 to read: When a week ends the bot posts a summary of it in #game-actions: off."
    assert recorded(state, "alice", "u1", text).text().endswith("- enforced by the bot: weekly on → off")


def test_answers_stay_within_one_discord_message() -> None:
    """A long proposal's answer, its outcome, and the views of a long document and a long history."""
    from games.nomic import todo, views

    state = start()
    sentence = "A long sentence about lots and bids that nobody will ever enforce. "
    lines = [f'Enact rule {s}.{n} "T{s}{n}": {(sentence * 20)[:1000]}' for s in (1, 2, 3) for n in (7, 8, 9)]
    text = "urgent: " + "\n".join(lines)[:3990].rsplit("\n", 1)[0]
    assert len(recorded(state, "alice", "u1", text).text()) <= 2000
    state = propose(state, "alice", "u1", text, at=day(1))
    state = propose(state, "bob", "u2", "urgent: " + sentence * 50, at=day(1))
    state, events = tick_events(state, day(3))
    assert all(len(e.text()) <= 2000 for e in events)
    markdown = "# Many\n\n" + "".join(
        f"## {s}. Section {s}\n\n"
        + "".join(f"### {s}.{n} Rule {s}.{n}\n\nWe auction {{auction.lots_per_auction}} lots. {sentence * 6}\n\n"
                  for n in range(1, 11))
        for s in range(1, 14)
    )  # fmt: skip
    state = do(state, MOD, ImportRuleset(text=markdown), at=day(3, 1))
    for n in range(12):
        state = do(state, MOD, AdminSet(option="auction.lots_per_auction", value=str(n + 2)), at=day(3, 2))
        state = do(state, MOD, AdminSet(option="auction.weekly_points", value=str(n + 2)), at=day(3, 2))
    answers = [
        views.contents(state),
        views.rule(state, "4.2"),
        views.rule_history(state, "4.2", ()),
        views.ruleset_diff(state, 1, state.ruleset_version),
        todo.listing(state),
    ]
    assert all(len(answer) <= 2000 for answer in answers), [len(a) for a in answers]
    assert "**4. Section 4**: 4.1 to 4.10 (10 rules)" in answers[0], "too many to name: counted"


# --- on passing ------------------------------------------------------------------------------------------


@pytest.mark.parametrize("line", [AMEND_42, REPLACE_42, 'Replace "6 lots" with "8 lots" in rule 4.2'])
def test_the_options_follow_the_text_and_the_next_auction_has_eight_lots(line: str) -> None:
    state = give_spm(start(), "alice")
    state = propose(state, "alice", "s1", f"Eight lots.\n{line}", at=day(1))
    state = to_thursday(state)
    state = votes(state, "s1", ("alice",), FOR, at=day(4, 1))
    state = votes(state, "s1", ("bob", "carol"), AGAINST, at=day(4, 1))
    state = to_saturday(state)
    state, events = tick_events(state, day(7), BoundaryKind.AUCTION_START)
    assert state.proposals["s1"].status is ProposalStatus.PASSED
    assert state.ruleset.auction.lots_per_auction == 8
    assert rule_text(state, "4.2") == "Each auction phase offers 8 lots of 2 cards."
    (amended,) = [e for e in events if isinstance(e, RulesetAmended)]
    assert "ruleset version 2 (rule 4.2 amended: auction.lots_per_auction = 8)" in amended.text()
    assert not amended.todo, "every change is enforced: nothing for the moderators"
    assert state.ruleset_versions[-1].document is state.document
    # outside the auction phase players make lots up to the new limit
    state = to_thursday(state, week=1)
    for n in range(8):
        state = do(state, ("alice", "bob")[n % 2], GenerateLot(), at=day(11, 1))
    assert len(state.lots) == 8
    refused(state, "carol", GenerateLot(), ConflictError, at=day(11, 2))


def test_changes_passing_together_apply_in_proposal_order_and_a_gone_quote_lapses_alone() -> None:
    state = start()
    state = propose(state, "alice", "zz", f"urgent: eight\n{REPLACE_42}", at=day(1))
    second = 'urgent: seven\nReplace "six lots" with "seven lots" in rule 4.2\nRepeal rule 5.3'
    state = propose(state, "bob", "aa", second, at=day(1))
    third = "urgent: Amend rule 4.2 to read: Each auction phase offers 9 lots."
    state = propose(state, "carol", "mm", third, at=day(1))
    state, events = tick_events(state, day(3))
    amended = [e for e in events if isinstance(e, RulesetAmended)]
    assert [(e.message, e.version) for e in amended] == [("zz", 2), ("aa", 3), ("mm", 4)]
    assert amended[1].lapsed == (
        (
            "line 2 (rule 4.2) lapsed: rule 4.2 does not say “six lots”; it reads: “Each auction phase offers 8 lots"
            " of 2 cards.”"
        ),
    )
    assert "line 2 (rule 4.2) lapsed" in amended[1].text()
    assert state.document.rule("5.3") is None, "the rest of the proposal applies"
    assert state.proposals["aa"].note.startswith("line 2 (rule 4.2) lapsed")
    # the third saw the text the first left: it amends the rule that now says 8, to 9
    assert state.ruleset.auction.lots_per_auction == 9
    assert rule_text(state, "4.2") == "Each auction phase offers 9 lots."
    assert [v.change for v in state.ruleset_versions[1:]] == [
        "rule 4.2 amended: auction.lots_per_auction = 8",
        "rule 5.3 repealed",
        "rule 4.2 amended: auction.lots_per_auction = 9",
    ]


def test_a_proposal_whose_every_line_lapsed_changes_nothing_and_says_so() -> None:
    state = start()
    state = propose(state, "alice", "u1", "urgent: Repeal rule 5.3", at=day(1))
    state = propose(state, "bob", "u2", "urgent: Repeal rule 5.3", at=day(1))
    state, events = tick_events(state, day(3))
    last = [e for e in events if isinstance(e, RulesetAmended)][-1]
    assert last.text().startswith("Proposal 2 passed, but none of its amendment lines applies any more;")
    assert state.ruleset_version == 2


def test_the_amend_block_still_works_beside_the_lines() -> None:
    state = start()
    text = f"urgent: both\n{AMEND_42}\n```amend\nauction.weekly_points = 150\n```"
    state = propose(state, "alice", "u1", text, at=day(1))
    state = tick(state, day(3))
    assert (state.ruleset.auction.lots_per_auction, state.ruleset.auction.weekly_points) == (8, 150)
    assert state.ruleset_versions[-1].change == (
        "rule 4.2 amended: auction.lots_per_auction = 8; auction.weekly_points = 150"
    )
    assert rule_text(state, "3.3") == "At the start of every auction phase each player gains 150 points."


def test_turning_revival_off_in_the_text_lapses_the_waiting_bids() -> None:
    state = start(("alice", "bob"))
    state = do(state, MOD, AdminSet(option="auction.revive_bids", value="on"), at=day(1))
    state = do(state, MOD, AdminSet(option="auction.weekly_points", value="50"), at=day(1))
    state = state.model_copy(
        update={"players": {k: p.model_copy(update={"points": 50}) for k, p in state.players.items()}}
    )
    state = do(state, MOD, engine_lot(), at=day(1))
    state = do(state, "alice", PlaceBid(lot=1, amount=40), ChannelRole.AUCTIONS, at=day(1, 1))
    state = do(state, MOD, take(20), at=day(1, 2))
    assert state.lots[1].bids, "with revival the bid waits"
    text = (
        "urgent: Amend rule 4.3 to read: A bid stops counting as soon as its bidder cannot pay it or is no longer"
        " a player. Such a bid counts again once its bidder can pay it: off."
    )
    state = propose(state, "bob", "u1", text, at=day(1, 3))
    state = tick(state, day(3, 3))
    assert not state.ruleset.auction.revive_bids
    assert not state.lots[1].bids


def engine_lot() -> object:
    from games.nomic.actions import AdminLot

    from .support import cards

    return AdminLot(cards=cards("AS KH"))


def take(points: int) -> object:
    from games.nomic.actions import AdminTake
    from games.nomic.items import Items

    return AdminTake(target="alice", items=Items(points=points))


# --- what the bot does not enforce ----------------------------------------------------------------------


def test_unenforced_changes_and_plain_proposals_go_on_the_moderators_list() -> None:
    state = start()
    state = propose(state, "alice", "u1", 'urgent: Replace "highest bid" with "lowest bid" in rule 4.4', at=day(1))
    state = propose(state, "bob", "u2", "urgent: auctions have eight lots of two cards", at=day(1))
    state, events = tick_events(state, day(3))
    added = [e for e in events if isinstance(e, TodoAdded)]
    mod_log = ChannelRole.MOD_LOG
    assert [(e.number, e.proposal, e.channel) for e in added] == [(1, 1, mod_log), (2, 2, mod_log)]
    assert added[0].lines[0].startswith("rule 4.4 “Settling the auction” now says “Each lot goes to its lowest bid")
    assert added[1].lines == (
        "proposal 2 changes no rule's text; it says: “urgent: auctions have eight lots of two cards”",
    )
    (left,) = [e for e in events if isinstance(e, ProposalLeftToPeople)]
    assert left.message == "u2"
    assert "on the moderators' to-do list (item 2)" in left.text()
    assert state.ruleset.auction.lots_per_auction == 6, "a plain proposal changes nothing by itself"
    assert next(e for e in events if isinstance(e, RulesetAmended)).todo == 1
    # a moderator closes one; others may not; twice is refused
    refused(state, "alice", CloseTodo(number=1), NotAllowedError, at=day(3, 1))
    step = engine.apply(state, context(MOD, GA, day(3, 1)), CloseTodo(number=1, note="done by hand"), random.Random(0))
    assert step.events == (TodoDone(1, MOD, "done by hand"),)
    state = step.state
    assert refused(state, MOD, CloseTodo(number=1), ConflictError, at=day(3, 2)).startswith("to-do 1 was done already")
    refused(state, MOD, CloseTodo(number=9), UnknownError, at=day(3, 2))
    # a done item leaves the state at the next week's start; an open one stays
    state = to_sunday(to_saturday(to_thursday(state)))
    assert sorted(state.todos) == [2]
    assert refused(state, MOD, CloseTodo(number=1), ConflictError, at=day(7, 1)).startswith("to-do 1 was done")


def test_an_enforced_change_needs_no_moderator() -> None:
    state = start()
    state = propose(state, "alice", "u1", f"urgent: {AMEND_42}", at=day(1))
    state, events = tick_events(state, day(3))
    assert not [e for e in events if isinstance(e, TodoAdded)]
    assert state.todos == {}


# --- editing a proposal ----------------------------------------------------------------------------------


def test_an_edit_before_the_vote_reads_the_lines_again_and_a_bad_one_keeps_the_old_text() -> None:
    state = give_spm(start(), "alice")
    state = propose(state, "alice", "s1", f"Eight.\n{AMEND_42}", at=day(1))
    refused(state, "alice", EditMessage(message="s1", text="Nine.\nRepeal rule 99.1"), BadInputError, at=day(1, 1))
    state = do(state, "alice", EditMessage(message="s1", text=f"Eight.\n{REPLACE_42}\nRepeal rule 5.3"), at=day(1, 1))
    assert [c.kind for c in state.proposals["s1"].changes] == [ChangeKind.REPLACE, ChangeKind.REPEAL]


# --- importing a document --------------------------------------------------------------------------------


def test_a_moderator_imports_a_document_and_the_options_keep_their_values() -> None:
    state = start()
    markdown = to_markdown(default_document()).replace(
        "Each auction phase offers {auction.lots_per_auction} lots of {auction.cards_per_lot} cards.",
        "An auction has {auction.lots_per_auction} lots.",
    )
    refused(state, "alice", ImportRuleset(text=markdown), NotAllowedError, at=day(1))
    step = engine.apply(state, context(MOD, GA, day(1)), ImportRuleset(text=markdown), random.Random(0))
    (event,) = step.events
    assert isinstance(event, RulesetImported)
    text = event.text()
    assert text.startswith("mod imported the ruleset document “The rules of the round” (45 rules): ruleset version 2.")
    assert text.split("\n")[1:] == [
        "No rule binds `auction.cards_per_lot`: the bot keeps their values.",
        "New and changed rules:",
        "Rule 4.2 “Lots on offer”: ~~Each~~ **An** auction ~~phase offers~~ **has** 6 ~~lots of 2 cards.~~ **lots.**",
    ]
    state = step.state
    assert state.ruleset_version == 2
    assert state.ruleset.auction.cards_per_lot == 2
    assert rule_text(state, "4.2") == "An auction has 6 lots."
    bad = markdown.replace("An auction has {auction.lots_per_auction} lots.", "An auction has {auction.lotz} lots.")
    message = refused(state, MOD, ImportRuleset(text=bad), BadInputError, at=day(1, 1))
    assert message.startswith("line ")
    assert "`{auction.lotz}` names no option of the ruleset" in message


def test_a_moderators_option_change_keeps_an_imported_text() -> None:
    state = start()
    markdown = "# Ours\n\n## 1. All\n\n### 1.1 Lots\n\nWe auction {auction.lots_per_auction} lots.\n"
    state = do(state, MOD, ImportRuleset(text=markdown), at=day(1))
    state = do(state, MOD, AdminSet(option="auction.lots_per_auction", value="9"), at=day(1, 1))
    assert state.document.title == "Ours"
    assert rule_text(state, "1.1") == "We auction 9 lots."
    assert state.ruleset_versions[-1].document == state.document


# --- stored states -----------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", sorted(p.name for p in SNAPSHOTS.glob("round_*.json") if p.name.count(".") == 1))
def test_a_snapshot_from_before_the_document_loads_with_the_default_one(name: str) -> None:
    body = (SNAPSHOTS / name).read_text(encoding="utf-8")
    assert "document" not in body
    state = RoundState.model_validate_json(body)
    assert state.document == default_document()
    assert all(v.document == default_document() for v in state.ruleset_versions)
    assert RoundState.model_validate_json(state.model_dump_json()) == state


def test_a_snapshot_writes_the_text_once_and_not_at_all_while_it_is_the_default() -> None:
    state = start()
    for n in range(3):
        state = do(state, MOD, AdminSet(option="auction.weekly_points", value=str(101 + n)), at=day(1, n))
    dumped = state.model_dump_json()
    assert "Each auction phase offers" not in dumped
    assert RoundState.model_validate_json(dumped) == state
    markdown = to_markdown(default_document()).replace("Each auction phase", "Every auction phase")
    state = do(state, MOD, ImportRuleset(text=markdown), at=day(2))
    state = do(state, MOD, AdminSet(option="auction.weekly_points", value="150"), at=day(2, 1))
    dumped = state.model_dump_json()
    assert dumped.count("Every auction phase offers") == 1, "the versions sharing the text in force do not repeat it"
    loaded = RoundState.model_validate_json(dumped)
    assert loaded == state
    assert [v.document.title for v in loaded.ruleset_versions] == [default_document().title] * 6
    assert loaded.ruleset_versions[0].document == default_document()
    assert loaded.ruleset_versions[-1].document.rule("4.2") == state.document.rule("4.2")
    stored = json.loads(dumped)
    assert [v.get("document", "left out") for v in stored["ruleset_versions"]][:4] == ["left out"] * 4


def test_a_refused_proposal_is_no_rule_error_for_the_router_to_swallow() -> None:
    """Every refusal is a ``RuleError``: the adapters answer it (nothing crashes)."""
    state = start()
    with pytest.raises(RuleError):
        engine.check(state, context("alice", PROP, day(1)), Propose(message="x", text="urgent: Repeal rule 0.0"))


def test_the_bench_of_amendment_lines_runs_every_case() -> None:
    from bot.bench.amendments import CASES, amendments_bench

    report = amendments_bench(players=12, runs=2, seed="t")
    assert report.count("\n") == len(CASES) + 4
    assert "goal: every application under 10 ms" in report
    first, *_, last = report.splitlines()
    assert first.startswith("machine at the start: load average ")
    assert last.startswith("machine at the end: load average "), "the machine's load beside the figures"
    assert last.endswith(f"on {os.cpu_count()} CPUs")
