"""The ruleset document through the simulator: tests/scenarios/ruleset_document.jsonl, over two weeks.

Monday of the first week three standard proposals are made: alice's amends rule 4.2 to eight lots,
bob's replaces "six lots" with "seven lots" in it and repeals rule 5.3, carol's enacts rule 4.5 (a
text the bot does not enforce). dave's four urgent ones are refused when made (no such rule, a value
the ruleset does not allow, a quote the rule does not hold, a line that cannot be read); his text-only
change and bob's plain proposal pass on Wednesday. The standard ones pass together when the second
week starts, in the order they were made: bob's quote is gone by then, so that line lapses and his
repeal applies. Players could make six lots in the first week's bartering and eight in the second's,
so the third week's auction has eight. A request naming rule 4.2 is shown under it. Moderators read
and close their to-do list; a document of a moderator's own is refused for an unknown placeholder,
refused to a player, then put in force.
"""

from __future__ import annotations

import asyncio
import io
from functools import cache
from pathlib import Path
from typing import Any

from bot.sim.replay import ReplayResult, read_scenario, replay

from .test_governance_replay import answers, when

SCENARIO = Path(__file__).resolve().parent / "scenarios" / "ruleset_document.jsonl"


@cache
def run(upto: str | None = None, until: str | None = None) -> ReplayResult:
    errors = io.StringIO()
    lines = read_scenario(SCENARIO, errors)
    assert errors.getvalue() == ""
    kept = [(n, line) for n, line in lines if upto is None or line.at <= when(upto)]
    return asyncio.run(replay(kept, seed="5", until=when(until) if until else None))


def only(result: ReplayResult, message: str) -> str:
    (answer,) = [a for a in answers(result, message) if "has passed" not in a]
    return answer


def rules(document: dict[str, Any]) -> dict[str, str]:
    return {r["number"]: r["text"] for r in document["ruleset"]["rules"]}


def test_every_command_and_proposal_is_answered_within_one_discord_message() -> None:
    result = run()
    assert result.lines == len(SCENARIO.read_text(encoding="utf-8").splitlines())
    for entry in result.transcript:
        assert len(entry["content"]) <= 2000, entry
    for message in ("s1", "s2", "s3", "bad1", "bad2", "bad3", "bad4", "u1", "u2", "r1", "q1", "q5", "i1", "i2", "i3"):
        assert answers(result, message), message


def test_what_the_bot_understood_is_in_the_answer_to_each_proposal() -> None:
    result = run()
    assert only(result, "s1").split("\n")[1:] == [
        "If it passes:",
        "Rule 4.2 “Lots on offer”: Each auction phase offers ~~6~~ **8** lots of 2 cards.",
        "- enforced by the bot: lots per auction 6 → 8",
    ]
    assert only(result, "s2").split("\n")[2:] == [
        "Rule 4.2 “Lots on offer”: Each auction phase offers ~~6~~ **7** lots of 2 cards.",
        "- enforced by the bot: lots per auction 6 → 7",
        "Rule 5.3 “Rolling the cards” would be repealed.",
    ]
    assert only(result, "s3").split("\n")[2:] == [
        "Rule 4.5 “The judge's pay” would be enacted: At the start of each auction phase the judge gains 20 points.",
        "- not enforced by the bot: “At the start of each auction phase the judge gains 20 points.”",
    ]


def test_bad_input_is_refused_with_what_and_where_and_nothing_is_recorded_or_spent() -> None:
    result = run()
    assert answers(result, "bad1") == ["Can't do that: line 1: there is no rule 4.9 (section 4 has rules 4.1 to 4.4)."]
    assert answers(result, "bad2") == [
        (
            "Can't do that: line 1: rule 4.2 would make lots per auction (`auction.lots_per_auction`) 30, which the"
            " ruleset does not allow: Input should be less than or equal to 25."
        )
    ]
    assert answers(result, "bad3")[0].startswith("Can't do that: line 1: rule 4.2 does not say “nine lots”; it reads:")
    assert answers(result, "bad4") == [
        (
            "Can't do that: line 1: `Amend rule 4.2 to say: more lots` cannot be read; write `Amend rule 4.2 to read:"
            " TEXT`."
        )
    ]
    made = [p["message"] for p in result.document["proposals"]]
    assert made == ["s1", "s2", "s3", "u1", "u2"]


def test_after_the_first_week_the_rules_read_as_the_passed_proposals_left_them() -> None:
    before = run(upto="2026-12-12T23:00:00Z", until="2026-12-12T23:00:00Z").document
    assert before["ruleset"]["options"]["auction.lots_per_auction"] == 6
    assert rules(before)["4.2"] == "Each auction phase offers 6 lots of 2 cards."
    assert rules(before)["4.4"].startswith("When the auction phase ends")
    assert "earliest bid" in rules(before)["4.4"]
    assert before["ruleset"]["version"] == before["ruleset_version"] == 2
    after = run(upto="2026-12-13T00:00:00Z", until="2026-12-13T00:30:00Z").document
    assert after["ruleset"]["version"] == 5
    assert after["ruleset"]["options"]["auction.lots_per_auction"] == 8
    text = rules(after)
    assert text["4.2"] == "Each auction phase offers 8 lots of 2 cards."
    assert text["4.5"] == "At the start of each auction phase the judge gains 20 points."
    assert "5.3" not in text
    four_two = next(r for r in after["ruleset"]["rules"] if r["number"] == "4.2")
    assert four_two["binds"] == ["auction.lots_per_auction", "auction.cards_per_lot"]
    # the first week's bartering still had six lots
    assert answers(run(), "l7") == ["Can't do that: there are already 6 lots; an auction has 6."]


def test_passing_together_in_order_with_the_gone_quote_lapsing_alone() -> None:
    result = run()
    passed = {m: [a for a in answers(result, m) if "takes effect" in a] for m in ("s1", "s2", "s3")}
    assert "ruleset version 3 (rule 4.2 amended: auction.lots_per_auction = 8)" in passed["s1"][0]
    assert passed["s2"][0].split("\n")[1:] == [
        "Proposal 2 takes effect: ruleset version 4 (rule 5.3 repealed).",
        "Rule 5.3 “Rolling the cards” is repealed.",
        (
            "- line 2 (rule 4.2) lapsed: rule 4.2 does not say “six lots”; it reads: “Each auction phase offers 8 lots"
            " of 2 cards.”"
        ),
        "What the bot does not enforce is on the moderators' to-do list (item 3): they carry it out.",
    ]
    assert "ruleset version 5 (rule 4.5 enacted)" in passed["s3"][0]
    # u2 had no amendment line: passed, and the bot says it changes nothing by itself
    (u2,) = [a for a in answers(result, "u2") if "has passed" in a]
    assert "changes no rule's text" in u2
    assert "(item 2)" in u2


def test_the_next_auction_has_eight_lots() -> None:
    result = run(upto="2026-12-20T00:00:00Z", until="2026-12-20T00:00:00Z")
    assert len(result.document["lots"]) == 8
    assert result.document["phase"] == "auction"
    assert answers(result, "m2")[0].startswith("bob generates lot 8.")
    assert answers(result, "m3") == ["Can't do that: there are already 8 lots; an auction has 8."]


def test_reading_the_rules_their_history_and_a_diff() -> None:
    result = run()
    assert answers(result, "q1") == [
        (
            "**Rule 4.2 Lots on offer** (version 5)\n"
            "Each auction phase offers **8** lots of **2** cards.\n"
            "Enforced by the bot: lots per auction (`auction.lots_per_auction`) = 8; cards per lot"
            " (`auction.cards_per_lot`) = 2.\n"
            "Rulings citing it (1, newest first):\n"  # a request naming rule 4.20 does not cite it
            "1. open - Do the lots carried over count towards the 8 of rule 4.2? (by alice)"
        )
    ]
    assert answers(result, "q2") == [
        (
            "History of rule 4.2, newest first:\n"
            "v3 - 2026-12-13 00:00 UTC by proposal 1: Each auction phase offers ~~6~~ **8** lots of 2 cards.\n"
            "v1 - 2026-12-05 12:00 UTC by initial: in force from the start: Each auction phase offers 6 lots of 2"
            " cards."
        )
    ]
    assert answers(result, "q3")[0].split("\n") == [
        "From version 1 to 5:",
        "- rule 4.2 “Lots on offer”: Each auction phase offers ~~6~~ **8** lots of 2 cards. (lots per auction 6 → 8)",
        (
            "- rule 4.4 “Settling the auction”: … numbers. Each lot goes to its ~~highest~~ **earliest** bid that is"
            " still valid at …"
        ),
        "- rule 4.5 “The judge's pay” is new: At the start of each auction phase the judge gains 20 points.",
        "- rule 5.3 “Rolling the cards” is gone",
        "Options:",
        "- `auction.lots_per_auction`: 6 -> 8",
    ]
    contents = answers(result, "q4")[0].split("\n")
    assert contents[0] == "**The rules of the round**, version 5, made by proposal 3."
    assert contents[4] == (
        "**4. Auctions**: 4.1 Bidding · 4.2 Lots on offer · 4.3 Bids that can no longer be paid · 4.4 Settling the"
        " auction · 4.5 The judge's pay"
    )
    assert contents[5] == "**5. Lots**: 5.1 Numbers · 5.2 Making lots"
    assert answers(result, "q8")[0].endswith(
        "The bot enforces nothing of it by itself: the players, the judge and the moderators uphold it."
    )
    assert answers(result, "q9") == [
        "Can't do that: rule 5.3 is no longer in force (version 3 was the last to have it)."
    ]


def test_the_moderators_to_do_list() -> None:
    result = run()
    listing = answers(result, "q5")[0].split("\n")
    assert listing[0] == "The moderators' to-do list (4 open; `!admin done N [NOTE]` closes one):"
    assert [line.split(".**")[0] for line in listing if line.startswith("**")] == ["**1", "**2", "**3", "**4"]
    assert answers(result, "q6") == ["Can't do that: only moderators can read the moderators' to-do list."]
    assert answers(result, "q7") == ["mod marked to-do 3 done: the judge is paid by hand each Sunday."]
    assert [(t["number"], t["proposal"], t["status"]) for t in result.document["todo"]] == [
        (1, 4, "open"),
        (2, 5, "open"),
        (4, 3, "open"),
    ]


def test_a_moderators_own_document() -> None:
    result = run()
    assert answers(result, "i1") == ["Can't do that: line 7: `{auction.lots}` names no option of the ruleset."]
    assert answers(result, "i2") == ["Can't do that: only moderators can do that."]
    imported = answers(result, "i3")[0].split("\n")
    assert imported[0] == (
        "mod imported the ruleset document “Our rules” (1 rule): ruleset version 6. It binds 2 options:"
        " `auction.lots_per_auction`, `auction.cards_per_lot`."
    )
    assert imported[-1] == (
        "Rule 4.2 “Lots” (with a rule block): ~~Each~~ **An** auction ~~phase~~ offers 8 lots of 2 cards."
    )
    ruleset = result.document["ruleset"]
    assert ruleset["title"] == "Our rules"
    assert ruleset["rules"] == [
        {
            "number": "4.2",
            "section": "Auctions",
            "title": "Lots",
            "text": "An auction offers 8 lots of 2 cards.",
            "binds": ["auction.lots_per_auction", "auction.cards_per_lot"],
            "mechanics": True,
        }
    ]
    assert ruleset["options"]["auction.lots_per_auction"] == 8


def test_a_whole_document_imported_in_one_replayed_message(tmp_path: Path) -> None:
    from games.nomic.document import default_document, to_markdown

    from .support import SUNDAY, Scenario

    markdown = to_markdown(default_document()).replace("Each auction phase offers", "Every auction phase offers")
    assert len(markdown) > 8000
    s = Scenario()
    s.setup(SUNDAY, ["mod"])
    s.say(SUNDAY, "mod", f"!ruleset import\n```markdown\n{markdown}```", mid="imp")
    s.say(SUNDAY, "mod", "!ruleset 4.2", mid="show")
    lines = read_scenario(s.write(tmp_path / "import.jsonl"), io.StringIO())
    result = asyncio.run(replay(lines, seed="1"))
    assert answers(result, "imp")[0].startswith("mod imported the ruleset document “The rules of the round” (45 rules)")
    assert "Every auction phase offers **6** lots of **2** cards." in answers(result, "show")[0]
    assert result.document["ruleset"]["version"] == 2
