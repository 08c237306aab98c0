"""Similarity with the library: its properties, the thresholds, and what they mean for a submission."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from games.ictc.cards import CardFields, CardType, build_fields
from games.ictc.errors import BlockedError
from games.ictc.palette import Palette
from games.ictc.similarity import Closeness, assess, closeness, similarity
from games.ictc.starter import builtin_keywords
from games.ictc.state import DesignStatus, LibraryOptions

from .ictc_support import Lib, new_soldier

OPTIONS = LibraryOptions()


def card(kind: str = "soldier", text: str = "A quick imp of flame.", cost: str = "R+1", **more: str) -> CardFields:
    raw = {"name": "X", "type": kind, "cost": cost, "text": text, **more}
    if kind == "soldier":
        raw.setdefault("cr", "2")
    if kind == "power":
        raw.setdefault("output", "R")
    return build_fields(raw, Palette.CLASSIC, builtin_keywords())


texts = st.text(alphabet="abcdefgh ", min_size=1, max_size=40).filter(lambda t: t.strip())
kinds = st.sampled_from(["soldier", "action", "flash", "power"])
cost_texts = st.sampled_from(["0", "R", "R+1", "2R+2", "G", "2G+X", "3", "XK"])


cards = st.builds(card, kinds, texts, cost_texts)


@given(cards, cards)
def test_similarity_is_symmetric_and_between_zero_and_one(a: CardFields, b: CardFields) -> None:
    score = similarity(a, b)
    assert 0.0 <= score <= 1.0
    assert score == similarity(b, a)
    if a.type is not b.type:
        assert score == 0.0, "only cards of one type are compared"


@given(kinds, texts, cost_texts)
def test_a_card_is_wholly_like_itself_whatever_its_name(kind: str, text: str, cost: str) -> None:
    a = card(kind, text, cost)
    assert similarity(a, a.model_copy(update={"name": "Another Name"})) == 1.0


def test_each_field_counts() -> None:
    base = card()
    assert similarity(base, card(cost="2R+1")) == 1.0, "a colour within one counts as the same cost"
    assert similarity(base, card(cost="4R+4")) < 1.0
    assert similarity(base, card(cr="3")) == 1.0, "a CR within one counts as the same"
    assert similarity(base, card(cr="9")) < 1.0
    assert similarity(base, card(keywords="Flight")) < 1.0
    assert similarity(base, card(text="Something else entirely, about the sea.")) < 0.85
    assert similarity(card("power", output="R"), card("power", output="G")) < 1.0


@pytest.mark.parametrize(
    ("score", "means"),
    [
        (1.0, Closeness.BLOCK),
        (0.85, Closeness.BLOCK),
        (0.8499, Closeness.FLAG),
        (0.6, Closeness.FLAG),
        (0.5999, Closeness.FREE),
        (0.0, Closeness.FREE),
    ],
)
def test_the_thresholds(score: float, means: Closeness) -> None:
    assert closeness(score, OPTIONS) is means


def test_the_thresholds_are_options() -> None:
    strict = LibraryOptions(block_at=0.5, flag_at=0.3)
    assert closeness(0.55, strict) is Closeness.BLOCK
    assert closeness(0.35, strict) is Closeness.FLAG


def _protected_imp(lib: Lib) -> int:
    number = new_soldier(lib, "alice", "Fire Imp")
    lib.do("alice", f"!card protect #{number}")
    lib.do("alice", f"!card submit #{number}")
    return number


def test_close_to_another_members_protected_design_blocks_and_nothing_changes() -> None:
    lib = Lib()
    _protected_imp(lib)
    copy = new_soldier(lib, "bob", "Blaze Imp")
    before = lib.state
    with pytest.raises(BlockedError, match=r"too close to another member's protected design \(Fire Imp"):
        lib.do("bob", f"!card submit #{copy}")
    assert lib.state is before
    assert lib.state.designs[copy].status is DesignStatus.DRAFT


def test_near_another_members_protected_design_flags_for_the_approvers() -> None:
    lib = Lib()
    imp = _protected_imp(lib)
    near = new_soldier(lib, "bob", "Ember Imp", text="A quick imp of living flame that burns the lines.", cr="5")
    fields = lib.state.designs[near].current.fields
    score = similarity(fields, lib.state.designs[imp].current.fields)
    assert 0.6 <= score < 0.85, score
    said = lib.text("bob", f"!card submit #{near}")
    assert "🚩 Flagged, close to a protected design: Fire Imp" in said
    assert lib.state.designs[near].current.flags[0].design == imp


def test_copying_an_unprotected_design_or_your_own_is_allowed() -> None:
    lib = Lib()
    first = new_soldier(lib, "alice", "Fire Imp")
    lib.do("alice", f"!card submit #{first}")
    twin = new_soldier(lib, "bob", "Twin Imp")
    lib.do("bob", f"!card submit #{twin}")
    assert lib.state.designs[twin].current.flags == ()
    lib2 = Lib()
    own = new_soldier(lib2, "alice", "Fire Imp")
    lib2.do("alice", f"!card protect #{own}")
    lib2.do("alice", f"!card submit #{own}")
    again = new_soldier(lib2, "alice", "Fire Imp Two")
    lib2.do("alice", f"!card submit #{again}")
    assert lib2.state.designs[again].status is DesignStatus.PENDING


def test_a_protected_draft_blocks_nobody_until_it_is_shown() -> None:
    lib = Lib()
    draft = new_soldier(lib, "alice", "Fire Imp")
    lib.do("alice", f"!card protect #{draft}")
    copy = new_soldier(lib, "bob", "Blaze Imp")
    said = lib.text("bob", f"!card submit #{copy}")
    assert "Fire Imp" not in said, "a draft is private: no score against it is shown"


def test_the_three_nearest_are_always_shown() -> None:
    lib = Lib()
    number = new_soldier(lib, "alice", "Odd One", text="Sings to the moon.", cr="7")
    lib.do("alice", f"!card submit #{number}")
    version = lib.state.designs[number].current
    assert len(version.nearest) == 3
    assert all(n.design != number for n in version.nearest)
    assert [n.score for n in version.nearest] == sorted((n.score for n in version.nearest), reverse=True)
    found = assess(version.fields, "alice", number, lib.state.designs.values(), OPTIONS)
    assert found.nearest == version.nearest
    assert found.blocked == ()
    assert all(n.design for n in found.nearest if n.score > 0)


def test_designs_of_another_type_are_never_near() -> None:
    lib = Lib()
    lib.do("alice", "!card new Imp Fire | type: action | cost: R+1 | text: A quick imp of living flame.")
    number = max(lib.state.designs)
    lib.do("alice", f"!card submit #{number}")
    kinds = {lib.state.designs[n.design].current.fields.type for n in lib.state.designs[number].current.nearest}
    assert kinds <= {CardType.ACTION}


# --- mechanics: the same card in a battle, whatever its words ----------------------------------

BOLT = "!card new {name} | type: action | cost: {cost} | script: {script} | text: {text}"


def _protected_bolt(lib: Lib) -> int:
    lib.do("alice", BOLT.format(name="Fire Bolt", cost="R+1", script="damage(any, 2)", text="A bolt of fire."))
    number = max(lib.state.designs)
    lib.do("alice", f"!card protect #{number}")
    lib.do("alice", f"!card submit #{number}")
    return number


def _draft(lib: Lib, owner: str, **fields: str) -> int:
    values = {"name": "Quiet Word", "cost": "R+1", "script": "damage(any, 2)", "text": "Hush falls on the field."}
    lib.do(owner, BOLT.format(**(values | fields)))
    return max(lib.state.designs)


def test_the_same_type_cost_and_script_as_a_protected_design_is_blocked_whatever_its_words() -> None:
    lib = Lib()
    bolt = _protected_bolt(lib)
    copy = _draft(lib, "bob")
    words = similarity(lib.state.designs[copy].current.fields.model_copy(update={"script": None}), card("action"))
    assert words < 0.85, "its words alone are far from the protected design's"
    before = lib.state
    with pytest.raises(BlockedError, match=r"too close to another member's protected design \(Fire Bolt") as refused:
        lib.do("bob", f"!card submit #{copy}")
    assert "1.00" in str(refused.value)
    assert "the same rules in a battle" in str(refused.value)
    assert lib.state is before
    assert similarity(lib.state.designs[copy].current.fields, lib.state.designs[bolt].current.fields) == 1.0


def test_a_script_is_compared_as_a_battle_reads_it_not_as_typed() -> None:
    lib = Lib()
    _protected_bolt(lib)
    copy = _draft(lib, "bob", script="DAMAGE( any ,2 )", cost="1 + R")
    refused_before = lib.state
    with pytest.raises(BlockedError):
        lib.do("bob", f"!card submit #{copy}")
    assert lib.state is refused_before


@pytest.mark.parametrize(
    "change",
    [
        {"cost": "R+2"},
        {"cost": "2R+1"},
        {"script": "damage(any, 3)"},
        {"script": "damage(soldier, 2)"},
        {"script": "damage(any, 2) & draw(you, 1)"},
    ],
)
def test_other_rules_are_another_card_left_to_the_score(change: dict[str, str]) -> None:
    lib = Lib()
    _protected_bolt(lib)
    other = _draft(lib, "bob", **change)
    lib.do("bob", f"!card submit #{other}")
    assert lib.state.designs[other].status is DesignStatus.PENDING


def test_without_a_script_a_cards_words_are_its_rules() -> None:
    a = card("action", "Deal two damage to anything.", "R+1")
    b = card("action", "Every player draws a card.", "R+1")
    assert similarity(a, b) < 0.85, "the same type and cost, and nothing carried out alike"
    soldier = card(text="A quick imp of flame.")
    other = card(text="An old knight who guards the gate.")
    assert similarity(soldier, other) < 0.85, "a Soldier's bare cost and CR are no design of anyone's"


def test_the_same_script_on_another_type_is_another_card() -> None:
    flash = card("flash", "Hush falls on the field.", "R+1", script="damage(any, 2)")
    action = card("action", "A bolt of fire.", "R+1", script="damage(any, 2)")
    assert similarity(flash, action) == 0.0


@given(kinds, texts, texts, cost_texts)
def test_a_card_with_its_scripted_rules_kept_is_wholly_like_it_whatever_its_words(
    kind: str, text: str, other: str, cost: str
) -> None:
    script = "damage(any, 1)" if kind in {"action", "flash"} else "on play: draw(you, 1)"
    a = card(kind, text, cost, script=script)
    b = card(kind, other, cost, script=script).model_copy(update={"name": "Another Name"})
    assert similarity(a, b) == 1.0
    assert similarity(b, a) == 1.0
