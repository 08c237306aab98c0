"""The ruleset as a document (games/nomic/document.py): the default text, Markdown both ways, and how a
rule's new text binds the values the bot enforces."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from games.nomic.document import (
    DocumentError,
    Rule,
    RuleDocument,
    Section,
    bind,
    bound_options,
    default_document,
    find_quote,
    parse_markdown,
    parse_number,
    render,
    to_markdown,
    word_diff,
)
from games.nomic.ruleset import Ruleset

ROOT = Path(__file__).resolve().parents[1]
SEED = Path("/work/shared/seeds/infinite-nomic-round-10-ruleset.txt")
VALUES = Ruleset().option_paths()
LOTS = default_document().rule("4.2")


def test_the_default_document_has_the_rounds_sections_in_order_and_binds_every_option() -> None:
    document = default_document()
    assert [(s.number, s.title) for s in document.sections] == list(
        enumerate(
            [
                "General",
                "Players",
                "Phases",
                "Auctions",
                "Lots",
                "Presenting a hand",
                "Prizes",
                "Scoring",
                "Trades",
                "Proposals",
                "Items",
                "The judge",
                "Elections",
            ],
            1,
        )
    )
    bound = bound_options(document)
    missing = [path for path in Ruleset().option_paths() if path not in bound]
    assert not missing, f"options no rule of the default document binds: {missing}"
    assert document.rule("4.5") is None, "4.5 is left free for enacted rules"
    assert LOTS is not None
    assert render(LOTS.text, VALUES) == "Each auction phase offers **6** lots of **2** cards."
    assert bound["auction.lots_per_auction"][0] == "4.2"


def test_the_default_document_restates_the_seed_in_its_own_words() -> None:
    if not SEED.is_file():
        pytest.skip("the seed ruleset is not on this machine")
    ours = " ".join((ROOT / "data" / "rulesets" / "default.md").read_text(encoding="utf-8").split()).lower()
    seed = SEED.read_text(encoding="utf-8")
    sentences = [" ".join(s.split()).lower() for s in re.split(r"(?<=[.!?])\s+|\n", seed)]
    copied = [s for s in sentences if len(s) > 30 and s in ours]
    assert not copied, copied
    # nor long runs of the seed's words
    words = " ".join(seed.split()).lower().split()
    runs = {" ".join(words[i : i + 9]) for i in range(len(words) - 8)}
    assert not [r for r in runs if r in ours]


def test_markdown_round_trip_of_the_default_document() -> None:
    document = default_document()
    assert parse_markdown(to_markdown(document)) == document


_TEXT = st.text(alphabet="abcdefghijklmnopqrstuvwxyz ABC,;:'!?0123456789-", min_size=1, max_size=60).filter(
    lambda s: s.strip() != ""
)
_PLACEHOLDER = st.sampled_from(sorted(VALUES)).map(lambda p: "{" + p + "}")


@st.composite
def documents(draw: st.DrawFn) -> RuleDocument:
    sections = []
    for s in range(1, draw(st.integers(1, 4)) + 1):
        rules = []
        numbers = sorted(draw(st.sets(st.integers(1, 30), min_size=1, max_size=4)))
        for n in numbers:
            words = st.lists(st.one_of(_TEXT, _PLACEHOLDER), min_size=1, max_size=4)
            paragraphs = draw(st.lists(words, min_size=1, max_size=4))
            text = "\n\n".join(" ".join(p.strip() for p in para) for para in paragraphs)
            block = draw(st.one_of(st.just(""), st.just("when the week ends:\n  announce \"hi\"")))
            rules.append(Rule(number=f"{s}.{n}", title=draw(_TEXT).strip(), text=text.strip(), block=block))
        sections.append(Section(number=s, title=draw(_TEXT).strip(), rules=tuple(rules)))
    intro = draw(st.one_of(st.just(""), _TEXT.map(str.strip)))
    return RuleDocument(title=draw(_TEXT).strip(), intro=intro, sections=tuple(sections))


@settings(max_examples=60, deadline=None)
@given(documents())
def test_markdown_round_trip_of_any_document(document: RuleDocument) -> None:
    assert parse_markdown(to_markdown(document)) == document


@pytest.mark.parametrize(
    ("markdown", "where"),
    [
        ("# T\n## 1. A\n### 1.1 B\nIt holds {auction.lots} lots.\n", "line 4: `{auction.lots}` names no option"),
        ("# T\n## 1. A\n### 2.1 B\ntext\n", "line 3: rule 2.1 stands under section 1"),
        ("# T\n## 1. A\n### 1.1 B\n\n### 1.2 C\ntext\n", "line 3: rule 1.1 has no text"),
        ("# T\n## 1. A\n### 1.1 B\ntext\n```rule\nwhen\n", "line 5: the fenced block opened here is not closed"),
        ("# T\n## 1. A\nloose words\n", "line 3: text under a section belongs to a rule"),
        ("# T\nnothing else\n", "the document has no rules"),
        ("# T\n## 2. A\n### 2.1 B\ntext\n## 1. C\n", "line 5: section 1 comes after section 2"),
    ],
)
def test_a_document_that_cannot_be_read_is_refused_with_its_line(markdown: str, where: str) -> None:
    with pytest.raises(DocumentError, match=re.escape(where)):
        parse_markdown(markdown)


# --- binding --------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "Each auction phase offers 8 lots of 2 cards.",
        "Each auction phase offers eight lots of two cards.",
        "Each auction phase offers **8** lots of **2** cards.",
        "Each  auction phase offers 8\nlots of 2 cards.",
    ],
)
def test_a_new_text_matching_the_template_binds_its_values(text: str) -> None:
    assert LOTS is not None
    binding = bind(LOTS.text, text, VALUES)
    assert binding.template == LOTS.text
    assert binding.values == {"auction.lots_per_auction": "8", "auction.cards_per_lot": "2"}
    assert binding.dropped == ()


def test_the_same_value_in_two_placeholders_follows_each_ones_place() -> None:
    assert LOTS is not None
    both_two = {**VALUES, "auction.lots_per_auction": 2}
    binding = bind(LOTS.text, "Each auction phase offers 3 lots of 2 cards.", both_two)
    assert binding.values == {"auction.lots_per_auction": "3", "auction.cards_per_lot": "2"}
    binding = bind(LOTS.text, "Each auction phase offers 2 lots of 3 cards, drawn face up.", both_two)
    assert binding.values == {"auction.lots_per_auction": "2", "auction.cards_per_lot": "3"}
    assert binding.template.endswith("{auction.cards_per_lot} cards, drawn face up.")


def test_words_around_a_value_may_change_and_a_dropped_value_is_named() -> None:
    assert LOTS is not None
    binding = bind(LOTS.text, "Every auction has 8 lots.", VALUES)
    assert binding.template == "Every auction has {auction.lots_per_auction} lots."
    assert binding.values == {"auction.lots_per_auction": "8"}
    assert binding.dropped == ("auction.cards_per_lot",)
    binding = bind(LOTS.text, "Each auction phase offers many lots of 2 cards.", VALUES)
    assert binding.dropped == ("auction.lots_per_auction",)
    assert "{auction.cards_per_lot}" in binding.template


def test_placeholders_written_into_a_new_text_bind_and_unknown_ones_are_refused() -> None:
    assert LOTS is not None
    binding = bind(LOTS.text, "Each auction phase offers {auction.lots_per_auction} lots of 2 cards.", VALUES)
    assert binding.template == LOTS.text
    with pytest.raises(DocumentError, match=r"`\{auction.lots\}` names no option"):
        bind(LOTS.text, "Each auction phase offers {auction.lots} lots.", VALUES)


def test_one_text_may_not_give_one_option_two_values() -> None:
    template = "There are {auction.lots_per_auction} lots; yes, {auction.lots_per_auction} lots."
    with pytest.raises(DocumentError, match="two things of lots per auction"):
        bind(template, "There are 8 lots; yes, 7 lots.", VALUES)


@pytest.mark.parametrize(
    ("rule", "text", "path", "raw"),
    [
        ("7.2", "The places, from first down, win these points: 30, 20, 10 and 5.", "hands.prize_points",
         "[30, 20, 10, 5]"),
        ("3.4", "Before the auction phase ends, #auctions is reminded this many hours ahead of its end: none.",
         "reminders.auction_end_hours", "[]"),
        ("4.3", ("A bid stops counting as soon as its bidder cannot pay it or is no longer a player. Such a bid counts"
                 " again once its bidder can pay it: on."), "auction.revive_bids", "on"),
        ("1.1", ("Every time these rules name is in UTC, and a day begins at 00:00. Each week begins at 00:00 on"
                 " Monday."), "calendar.week_start", "monday"),
        ("3.3", "At the start of every auction phase each player gains one hundred fifty points.",
         "auction.weekly_points", "150"),
    ],
)  # fmt: skip
def test_values_of_every_kind_are_read_from_the_text(rule: str, text: str, path: str, raw: str) -> None:
    found = default_document().rule(rule)
    assert found is not None
    assert bind(found.text, text, VALUES).values[path] == raw


def test_numbers_in_words() -> None:
    assert [parse_number(w) for w in ("six", "twenty-five", "one hundred", "a lot", "1,000", "Eight")] == [
        6,
        25,
        100,
        None,
        1000,
        8,
    ]


def test_a_quote_is_found_word_for_word_or_with_its_numbers_either_way() -> None:
    text = "Each auction phase offers 6 lots of 2 cards."
    assert find_quote(text, "6 lots") == [(26, 32)]
    assert find_quote(text, "six lots") == [(26, 32)]
    assert find_quote(text, "SIX  Lots") == [(26, 32)]
    assert find_quote(text, "sixteen lots") == []
    assert find_quote("16 lots and 6 lots", "six lots") == [(12, 18)]


def test_a_word_diff_strikes_what_went_and_bolds_what_came() -> None:
    assert word_diff("offers 6 lots of 2 cards.", "offers 8 lots of 2 cards.") == "offers ~~6~~ **8** lots of 2 cards."
    long_before = " ".join(f"w{i}" for i in range(40))
    shown = word_diff(long_before + " end.", long_before + " stop.")
    assert shown.startswith("… w34")
    assert shown.endswith("~~end.~~ **stop.**")
