"""A card's fields: every hard check refuses (all problems at once), every soft check warns; the starter set."""

from __future__ import annotations

from pathlib import Path

import pytest

from games.ictc.cards import CardType, build_fields, check_name, suggested_cost, warnings
from games.ictc.errors import CardCheckError, CardInputError
from games.ictc.palette import Palette
from games.ictc.starter import STARTER_FILE, builtin_keywords, read_starter, starter_set

GOOD = {"name": "Fire Imp", "type": "soldier", "cost": "R+1", "cr": "2", "text": "A quick imp.", "keywords": "Haste"}


def build(**changes: str) -> object:
    raw = {**GOOD, **changes}
    return build_fields({k: v for k, v in raw.items() if v is not None}, Palette.CLASSIC, builtin_keywords())


def problems(**changes: str) -> list[str]:
    with pytest.raises(CardCheckError) as caught:
        build(**changes)
    return list(caught.value.problems)


def test_a_good_card_reads_with_colours_from_its_cost() -> None:
    fields = build()
    assert fields.type is CardType.SOLDIER
    assert fields.colours == ("R",)
    assert fields.cr == 2
    assert fields.keywords == ("Haste",)
    assert warnings(fields) == ()


@pytest.mark.parametrize(
    ("changes", "says"),
    [
        ({"name": "🔥 Imp"}, "not `🔥`"),
        ({"name": "x" * 41}, "at most 40"),
        ({"name": "1234"}, "at least one letter"),
        ({"name": ""}, "name is missing"),
        ({"type": "wizard"}, "not a card type"),
        ({"type": ""}, "type is missing"),
        ({"cost": "99999R"}, "too large"),
        ({"cost": ""}, "cost is missing"),
        ({"text": "x" * 4000}, "4,000 characters long; a card holds at most 350"),
        ({"text": ""}, "description"),
        ({"cr": ""}, "needs a combat rating"),
        ({"cr": "0"}, "at least 1"),
        ({"cr": "two"}, "whole number"),
        ({"keywords": "Teleport"}, "not a keyword of this server"),
        ({"keywords": "Armor"}, "takes a number"),
        ({"keywords": "Haste 2"}, "takes no number"),
        ({"keywords": "Flight, Flight"}, "named twice"),
        ({"colours": "Y"}, "not a colour of this server"),
        ({"restrictions": ";".join(["no"] * 6)}, "at most 5 restrictions"),
        ({"output": "R"}, "only Power cards have an output"),
    ],
)
def test_each_hard_check_refuses(changes: dict[str, str], says: str) -> None:
    found = problems(**changes)
    assert any(says in p for p in found), found


def test_a_cr_on_anything_but_a_soldier_and_a_power_card_without_output_are_refused() -> None:
    assert any("only Soldiers have a CR" in p for p in problems(type="action"))
    found = problems(type="power", cr="")
    assert any("must say what power it makes" in p for p in found)


def test_every_problem_is_named_at_once() -> None:
    found = problems(name="🔥", cost="99999R", keywords="Teleport", text="x" * 4000)
    assert len(found) == 4
    with pytest.raises(CardCheckError, match=r"the card has 4 problems: \(1\)"):
        build(name="🔥", cost="99999R", keywords="Teleport", text="x" * 4000)


def test_names_take_letters_of_any_script_and_simple_punctuation() -> None:
    assert check_name("  Ash   Giant ") == "Ash Giant"
    assert check_name("Dragón d'Or (II)") == "Dragón d'Or (II)"
    assert check_name("火龍") == "火龍"
    for bad in ("Imp|Two", "Imp: Two", "Imp\u200b", "@everyone"):
        with pytest.raises(CardInputError):
            check_name(bad)


def test_soft_check_a_soldier_costs_at_least_its_cr() -> None:
    found = warnings(build(cost="R", cr="3", keywords=""))
    assert any("costs 1 for CR 3" in w for w in found)


def test_soft_check_a_cost_over_two_is_a_third_coloured() -> None:
    assert any("a third coloured: 1 of 5" in w for w in warnings(build(cost="R+4", cr="4", keywords="")))
    assert not any("third" in w for w in warnings(build(cost="2R+4", cr="5", keywords="")))
    assert not any("third" in w for w in warnings(build(cost="2", cr="2", keywords="", colours="none")))


def test_soft_check_the_colours_match_the_cost() -> None:
    found = warnings(build(colours="G"))
    assert any("asks for red but the card is not red" in w for w in found)
    assert any("the card is green but its cost asks for no green" in w for w in found)
    power = build(type="power", cr="", keywords="", cost="0", output="G", colours="G")
    assert warnings(power) == (), "a Power card's colour may come from its output"


def test_soft_check_the_seeds_cost_formula() -> None:
    cheap = build(type="action", cr="", keywords="", cost="R", text="Deal 5 damage to a Soldier.")
    assert suggested_cost(cheap) == 6
    assert any("suggests a cost of about 6" in w for w in warnings(cheap))
    flash = build(type="flash", cr="", keywords="", cost="R", text="Deal 1 damage to a Soldier.")
    assert suggested_cost(flash) == 1, "a Flash card needs no activation point"
    soldier = build(cost="R+1", cr="2", keywords="Haste", restrictions="Cannot block")
    assert suggested_cost(soldier) == 2, "1 to play + CR 2 + Haste - a restriction - the Soldier's own restriction"
    assert suggested_cost(build(cost="2R+X", type="action", cr="", keywords="", text="Deal X damage.")) is None


def test_the_starter_set_passes_every_check_and_holds_two_different_decks() -> None:
    starter = starter_set()
    assert len(starter.decks) >= 2
    sizes = [deck.size for deck in starter.decks]
    assert all(size >= 30 for size in sizes)
    contents = {tuple(sorted(deck.entries)) for deck in starter.decks}
    assert len(contents) == len(starter.decks)
    colours = {c for card in starter.cards for c in card.colours}
    assert len(colours) >= 3, "several colours"
    for card in starter.cards:
        assert warnings(card) == (), card.name
        for palette in Palette:
            assert set(card.colours) <= set(palette.letters), "fits every palette"
    assert {"flight", "reach", "haste", "vigilant", "armor", "pierce"} <= set(starter.keywords)


def test_a_broken_starter_file_is_refused_with_every_problem(tmp_path: Path) -> None:
    text = STARTER_FILE.read_text(encoding="utf-8")
    broken = text.replace('cost = "2B+2"', 'cost = "2B+99"').replace('"Tide Pool x11"', '"Tide Pool x1"')
    broken = broken.replace('"Grove Spring x12", ', '"Grove Spring x12", "Nothing Such x1", ')
    path = tmp_path / "starter.toml"
    path.write_text(broken, encoding="utf-8")
    with pytest.raises(ValueError, match="starter set is not usable") as caught:
        read_starter(path)
    said = str(caught.value)
    assert "Storm Drake" in said
    assert "Nothing Such" in said
    assert "the deck Tide holds 20 cards" in said
