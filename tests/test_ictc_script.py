"""A card's script: the effect vocabulary read and printed back, its hard checks on each card type, and a
script as part of a card's rules (a new version to approve, shown to approvers, counted by the rule of thumb)."""

from __future__ import annotations

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from games.ictc.cards import build_fields, suggested_cost, warnings
from games.ictc.errors import CardCheckError, CardInputError
from games.ictc.palette import Palette
from games.ictc.script import EFFECT_NAMES, MAX_SCRIPT, check_for_card, parse_script
from games.ictc.starter import builtin_keywords, starter_set

from .ictc_support import Lib


@pytest.mark.parametrize(
    "text",
    [
        "damage(any, 2)",
        "damage(enemy_soldier[cr<=2, tapped], X)",
        "heal(you, 3)",
        "draw(you, 2) & discard(you, 1, owner)",
        "discard(opponent, 1, random)",
        "destroy(soldier[flight])",
        "cr_mod(own_soldier, +2, eot)",
        "cr_mod(self, -X, perm)",
        "tap(soldier) & damage(it, 1)",
        "ready(all_soldiers)",
        "return_to_hand(enemy_soldier)",
        "add_power(2G+1)",
        "extra_power_play(1)",
        "grant(own_soldier, Armor 2, eot)",
        "grant(self, Flight, perm)",
        "prevent(player, 3)",
        "on death: draw(you, 1)",
        "start of turn: heal(you, 1); tap 1R: damage(any, 1)",
        "tap: add_power(R/G)",
        "static: cannot_attack, cannot_block",
    ],
)
def test_every_effect_reads_back_as_itself(text: str) -> None:
    script = parse_script(text)
    assert parse_script(script.text()) == script
    assert script.text() == parse_script(script.text()).text()


def test_the_vocabulary_is_the_specification_s() -> None:
    assert set(EFFECT_NAMES) == {
        "damage",
        "heal",
        "draw",
        "discard",
        "destroy",
        "cr_mod",
        "tap",
        "ready",
        "return_to_hand",
        "add_power",
        "extra_power_play",
        "grant",
        "prevent",
    }


def test_spacing_and_case_do_not_matter_and_the_canonical_text_is_tidy() -> None:
    script = parse_script("  On Death :  DRAW( You , 1 )  ;tap   1r : damage(ANY,1)")
    assert script.text() == "on death: draw(you, 1); tap R: damage(any, 1)"
    assert [c.trigger for c in script.clauses] == ["death", "tap"]
    assert parse_script("prevent(soldier, 2, eot)").text() == "prevent(soldier, 2)"


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ("explode(any, 2)", "not an effect"),
        ("damage(any)", "takes 2 arguments"),
        ("damage(all, 2)", "not a target damage takes"),
        ("damage(any, 0)", "from 1 to 20"),
        ("damage(any, 99)", "from 1 to 20"),
        ("cr_mod(soldier, 2, eot)", "signed amount"),
        ("cr_mod(soldier, +2, forever)", "not a duration"),
        ("grant(soldier, Telepathy, eot)", "not a keyword a battle carries out"),
        ("grant(soldier, Armor, eot)", "Armor takes a number"),
        ("discard(you, 1, judge)", "owner, caster or random"),
        ("draw(soldier, 1)", "not a target draw takes"),
        ("on death: damage(any, 1)", "need no choosing"),
        ("tap(it)", "first effect cannot use it"),
        ("whenever: draw(you, 1)", "not a trigger"),
        ("static: flies", "static takes"),
        ("tap X: draw(you, 1)", "has no X"),
        ("destroy(player[cr<=2])", "not a target destroy takes"),
        ("destroy(soldier[huge])", "not a filter"),
        ("prevent(soldier, 2, perm)", "lasts to the end of the turn"),
        ("damage(any, 1); " * 7, "at most 6 clauses"),
        ("d" * 400, "at most 300"),
    ],
)
def test_a_script_that_cannot_be_read_says_why(text: str, says: str) -> None:
    with pytest.raises(CardInputError, match=says.replace("(", r"\(")):
        parse_script(text)


@pytest.mark.parametrize(
    ("card_type", "text", "says"),
    [
        ("flash", "cr_mod(soldier, +2, perm)", "end by the end of the turn"),
        ("flash", "grant(soldier, Flight, perm)", "end by the end of the turn"),
        ("action", "on death: draw(you, 1)", "happens when it is played"),
        ("flash", "tap: draw(you, 1)", "happens when it is played"),
        ("power", "static: cannot_block", "Power card"),
        ("action", "static: cannot_block", "only a Soldier"),
        ("action", "cr_mod(self, +1, perm)", "has no self"),
    ],
)
def test_hard_checks_by_card_type(card_type: str, text: str, says: str) -> None:
    found = check_for_card(parse_script(text), card_type)
    assert any(says in p for p in found), found


def test_a_flash_whose_effects_last_is_refused_as_a_card() -> None:
    raw = {
        "name": "Lasting",
        "type": "flash",
        "cost": "R",
        "text": "Forever stronger.",
        "script": "cr_mod(soldier, +1, perm)",
    }
    with pytest.raises(CardCheckError, match="eot"):
        build_fields(raw, Palette.CLASSIC, builtin_keywords())
    raw["script"] = "damage(any, X)"
    with pytest.raises(CardCheckError, match="uses X but the cost has no X"):
        build_fields(raw, Palette.CLASSIC, builtin_keywords())


def test_the_rule_of_thumb_counts_a_script() -> None:
    raw = {"name": "Bolt", "type": "action", "cost": "R", "text": "Zap.", "script": "damage(any, 3)"}
    fields = build_fields(raw, Palette.CLASSIC, builtin_keywords())
    assert suggested_cost(fields) == 4
    assert any("suggests a cost of about 4" in w for w in warnings(fields))
    walls = {
        "name": "Wall",
        "type": "soldier",
        "cost": "2",
        "cr": "2",
        "text": "Still.",
        "script": "static: cannot_attack",
    }
    assert suggested_cost(build_fields(walls, Palette.CLASSIC, builtin_keywords())) == 1


def test_the_starter_set_scripts_its_spells_and_restrictions() -> None:
    scripts = {c.name: c.script for c in starter_set().cards}
    assert scripts["Spark"] == "damage(any, 1)"
    assert scripts["Fireball"] == "damage(any, X)"
    assert scripts["Deep Insight"] == "draw(you, 2) & discard(you, 1, owner)"
    assert scripts["Reef Guard"] == "static: cannot_attack"
    assert scripts["Ash Giant"] == "static: cannot_block"
    assert scripts["Flame Hound"] is None, "a plain Soldier needs no script"


def test_a_script_is_a_rules_field_approvers_certify() -> None:
    lib = Lib()
    lib.do("alice", "!card new Ember Bolt | type: action | cost: R+1 | text: Deal 2 damage. | script: damage(any, 2)")
    shown = lib.text("alice", "!card show Ember Bolt")
    assert "Script (a battle carries it out; approving certifies it): `damage(any, 2)`" in shown
    lib.do("alice", "!card submit Ember Bolt")
    lib.do("bob", "!card approve Ember Bolt")
    lib.do("alice", "!card edit Ember Bolt | script: damage(any, 3)")
    design = next(d for d in lib.state.designs.values() if d.name == "Ember Bolt")
    assert len(design.versions) == 2, "a new script is a new version"
    assert design.current.approvals == (), "and its approvals start over"
    lib.do("alice", "!card new Plain Bolt | type: action | cost: R | text: Something odd.")
    assert "No script: in a battle its player carries it out by hand" in lib.text("alice", "!card show Plain Bolt")


_TARGETS = st.sampled_from(["any", "soldier", "enemy_soldier[cr<=3]", "own_soldier[tapped]", "player", "you"])
_EFFECTS = st.one_of(
    st.builds(lambda t, n: f"damage({t}, {n})", _TARGETS, st.integers(1, 20)),
    st.builds(lambda n: f"draw(you, {n})", st.integers(1, 5)),
    st.builds(lambda n, s: f"cr_mod(soldier, {s}{n}, eot)", st.integers(1, 9), st.sampled_from("+-")),
    st.builds(lambda k: f"grant(own_soldier, {k}, perm)", st.sampled_from(["Flight", "Reach", "Armor 3", "Pierce"])),
    st.builds(lambda c: f"add_power({c})", st.sampled_from(["R", "2G", "R/G", "1", "B+1"])),
)


@given(st.lists(st.lists(_EFFECTS, min_size=1, max_size=3), min_size=1, max_size=4))
def test_any_script_of_the_grammar_reads_back_as_itself(clauses: list[list[str]]) -> None:
    text = "; ".join(" & ".join(effects) for effects in clauses)
    assume(len(text) <= MAX_SCRIPT)  # a longer one is refused, as it should be (tested above)
    script = parse_script(text)
    assert parse_script(script.text()) == script
