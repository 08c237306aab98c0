"""Every effect of the vocabulary, every trigger and every target kind, carried out in a battle; and a card
without a script, which the bot shows and leaves to the players."""

from __future__ import annotations

import pytest

from games.ictc.battle.events import Told
from games.ictc.battle.state import Phase
from games.ictc.battle.table import cr_of, zone_of
from games.tables.engine import IllegalActionError

from .battle_support import Moves, Zones, battle, made, number, starter

HOUND = starter("Flame Hound")
WARDEN = starter("Old Oak Warden")
WELL = starter("Ember Well")
SPRING = starter("Grove Spring")
THORN = starter("Thornling")
SPARK = starter("Spark")


def spell(script: str, *, kind: str = "action", cost: str = "0", name: str = "Test Spell") -> object:
    return made(name=name, type=kind, cost=cost, text="Does a thing.", script=script)


def run(script: str, a: Zones | None = None, b: Zones | None = None, *, kind: str = "action") -> Moves:
    card = spell(script, kind=kind)
    first = a or Zones()
    mine = Zones(
        hand=[card, *first.hand],
        play=first.play,
        deck=first.deck,
        grave=first.grave,
        tapped=first.tapped,
        new=first.new,
        health=first.health,
    )
    return Moves(battle(mine, b or Zones()))


def test_damage_to_a_player_or_a_soldier() -> None:
    m = run("damage(any, 2)", b=Zones(play=[HOUND]))
    m.do("alice", "!play Test Spell > @bob")
    assert m.health(1) == 23
    m = run("damage(any, 2)", b=Zones(play=[HOUND]))
    hound = number(m.state, "Flame Hound")
    m.do("alice", f"!play Test Spell > #{hound}")
    assert zone_of(m.state, hound) == "grave"


def test_heal_a_player_beyond_the_start_and_a_soldier_s_damage() -> None:
    m = run("heal(you, 3)", a=Zones(health=24))
    m.do("alice", "!play Test Spell")
    assert m.health(0) == 27, "health has no upper limit"
    assert m.state.sides[0].gained == 3


def test_heal_takes_damage_off_a_soldier() -> None:
    m = run("heal(own_soldier, 2)", a=Zones(play=[WARDEN]))
    warden = number(m.state, "Old Oak Warden")
    m.state = m.state.model_copy(
        update={
            "sides": (
                m.state.sides[0].model_copy(
                    update={"play": (m.state.sides[0].play[0].model_copy(update={"damage": 3}),)}
                ),
                m.state.sides[1],
            )
        }
    )
    m.do("alice", f"!play Test Spell > #{warden}")
    assert m.state.permanent(warden).damage == 1  # type: ignore[union-attr]


def test_draw_and_a_discard_the_owner_chooses_after_drawing() -> None:
    m = run("draw(you, 2) & discard(you, 1, owner)", a=Zones(deck=[HOUND, THORN]))
    m.do("alice", "!play Test Spell")
    assert m.state.choice is not None
    assert m.state.choice.seat == 0
    assert len(m.state.sides[0].hand) == 2
    with pytest.raises(IllegalActionError):
        m.do("alice", "!end")
    m.do("alice", f"!discard #{number(m.state, 'Thornling')}")
    assert zone_of(m.state, number(m.state, "Thornling")) == "grave"
    assert m.state.choice is None
    assert m.state.phase is Phase.ACTION


def test_the_caster_chooses_from_the_opponent_s_hand_seeing_it_alone() -> None:
    m = run("discard(opponent, 1, caster)", b=Zones(hand=[HOUND, THORN]))
    events = m.do("alice", "!play Test Spell")
    shown = [e for e in events if isinstance(e, Told)]
    assert shown
    assert shown[0].audience == frozenset({"alice"})
    assert "Flame Hound" in shown[0].text()
    public = "\n".join(e.text() for e in events if not isinstance(e, Told))
    assert "Flame Hound" not in public
    assert "Thornling" not in public
    m.do("alice", f"!discard #{number(m.state, 'Flame Hound')}")
    assert zone_of(m.state, number(m.state, "Flame Hound")) == "grave"


def test_a_random_discard_asks_nobody() -> None:
    m = run("discard(opponent, 1, random)", b=Zones(hand=[HOUND, THORN]))
    m.do("alice", "!play Test Spell")
    assert m.state.choice is None
    assert len(m.state.sides[1].hand) == 1
    assert len(m.state.sides[1].grave) == 1


def test_destroy_with_a_filter_refuses_what_does_not_fit() -> None:
    m = run("destroy(enemy_soldier[cr<=2])", b=Zones(play=[HOUND, WARDEN]))
    warden, hound = number(m.state, "Old Oak Warden"), number(m.state, "Flame Hound")
    with pytest.raises(IllegalActionError, match="not a target"):
        m.do("alice", f"!play Test Spell > #{warden}")
    m.do("alice", f"!play Test Spell > #{hound}")
    assert zone_of(m.state, hound) == "grave"


def test_cr_changes_for_the_turn_and_for_good_and_a_cr_of_zero_dies() -> None:
    m = run("cr_mod(soldier, +2, eot) & cr_mod(it, +1, perm)", a=Zones(play=[HOUND]))
    hound = number(m.state, "Flame Hound")
    m.do("alice", f"!play Test Spell > #{hound}")
    assert cr_of(m.state, hound) == 5
    m.do("alice", "!end")
    assert cr_of(m.state, hound) == 3, "the turn's +2 ended at Regroup, the +1 stays"
    m = run("cr_mod(enemy_soldier, -2, eot)", b=Zones(play=[HOUND]))
    m.do("alice", f"!play Test Spell > #{number(m.state, 'Flame Hound')}")
    assert zone_of(m.state, number(m.state, "Flame Hound")) == "grave"


def test_tap_ready_and_the_previous_target_as_it() -> None:
    m = run("damage(soldier, 1) & tap(it)", b=Zones(play=[WARDEN]))
    warden = number(m.state, "Old Oak Warden")
    m.do("alice", f"!play Test Spell > #{warden}")
    perm = m.state.permanent(warden)
    assert perm is not None
    assert perm.tapped
    assert perm.damage == 1
    m = run("ready(own_soldiers)", a=Zones(play=[HOUND, THORN], tapped=["Flame Hound", "Thornling"]))
    m.do("alice", "!play Test Spell")
    assert not any(p.tapped for p in m.state.sides[0].play)


def test_return_to_hand_takes_a_soldier_back_with_its_damage_and_changes_gone() -> None:
    m = run("return_to_hand(soldier)", b=Zones(play=[WARDEN]))
    warden = number(m.state, "Old Oak Warden")
    m.do("alice", f"!play Test Spell > #{warden}")
    assert m.state.sides[1].hand == (warden,)


def test_power_and_an_extra_power_play() -> None:
    m = run("add_power(2G) & extra_power_play(1)", a=Zones(hand=[WELL, WELL]))
    m.state = m.state.model_copy(update={"phase": Phase.POWER})
    m.do("alice", "!play Ember Well")
    m.do("alice", "!play Test Spell")
    assert m.state.sides[0].pool == (("G", 2),)
    with pytest.raises(IllegalActionError, match="Power-Up"):
        m.do("alice", "!play Ember Well")  # the spell ended the Power-Up


def test_an_extra_power_play_in_power_up() -> None:
    rite = made(name="Rite", type="power", cost="0", output="R", text="Grows.", script="tap: extra_power_play(1)")
    m = Moves(battle(Zones(hand=[WELL, WELL], play=[rite]), Zones(), phase=Phase.POWER))
    m.do("alice", "!play Ember Well")
    m.do("alice", f"!use #{number(m.state, 'Rite')}")
    m.do("alice", "!play Ember Well")
    assert sum(1 for p in m.state.sides[0].play if m.state.name(p.card) == "Ember Well") == 2


def test_grant_a_keyword_for_the_turn_or_for_good() -> None:
    m = run("grant(own_soldier, Flight, eot)", a=Zones(play=[HOUND]), b=Zones(play=[WARDEN]))
    hound, warden = number(m.state, "Flame Hound"), number(m.state, "Old Oak Warden")
    m.do("alice", f"!play Test Spell > #{hound}")
    m.do("alice", f"!attack #{hound}")
    assert m.health(1) == 23, "the Warden could not block a Soldier with Flight: the blocks were skipped"
    assert zone_of(m.state, warden) == "play"
    m = run("grant(own_soldier, Armor 2, perm)", a=Zones(play=[HOUND]))
    m.do("alice", f"!play Test Spell > #{number(m.state, 'Flame Hound')}")
    m.do("alice", "!end")
    assert "armor 2" in {k for p in m.state.sides[0].play for k in (k.casefold() for k in p.grants)}


def test_prevent_shields_a_player_this_turn_only() -> None:
    m = run("prevent(you, 3)", b=Zones(hand=[SPARK], play=[WELL]))
    m.do("alice", "!play Test Spell")
    m.passes()
    assert m.state.sides[0].shield == 3
    m.do("alice", "!end")
    m.passes()
    assert m.state.sides[0].shield == 0, "gone at Regroup"
    m = run("prevent(you, 3)", b=Zones(play=[HOUND]))
    m.do("alice", "!play Test Spell")
    assert m.state.sides[0].shield == 3


def test_mass_targets_and_a_soldier_s_own_clauses() -> None:
    m = run("damage(enemy_soldiers, 1)", b=Zones(play=[THORN, THORN, HOUND]))
    m.do("alice", "!play Test Spell")
    assert len(m.state.sides[1].grave) == 2
    assert m.state.permanent(number(m.state, "Flame Hound")).damage == 1  # type: ignore[union-attr]


def test_on_death_start_of_turn_and_tap_abilities_with_a_cost() -> None:
    martyr = made(name="Martyr", type="soldier", cost="1", cr="1", text="Gives.", script="on death: draw(you, 1)")
    m = Moves(battle(Zones(hand=[SPARK], play=[WELL, martyr], deck=[HOUND]), Zones()))
    m.do("alice", f"!play Spark > #{number(m.state, 'Martyr')}")
    assert m.state.sides[0].hand == (number(m.state, "Flame Hound"),), "it drew its owner a card as it died"

    healer = made(
        name="Spring Idol", type="power", cost="0", output="G", text="Heals.", script="start of turn: heal(you, 1)"
    )
    m = Moves(battle(Zones(), Zones(play=[healer], health=20, deck=[THORN])))
    m.do("alice", "!end")
    assert m.health(1) == 21

    gunner = made(name="Gunner", type="soldier", cost="2", cr="1", text="Shoots.", script="tap R: damage(any, 1)")
    m = Moves(battle(Zones(play=[WELL, gunner], new=["Gunner"]), Zones()))
    with pytest.raises(IllegalActionError, match="no Haste"):
        m.do("alice", f"!use #{number(m.state, 'Gunner')} > @bob")
    m = Moves(battle(Zones(play=[WELL, gunner]), Zones()))
    m.do("alice", f"!use #{number(m.state, 'Gunner')} > @bob")
    assert m.health(1) == 24
    assert m.state.permanent(number(m.state, "Ember Well")).tapped  # type: ignore[union-attr]
    with pytest.raises(IllegalActionError, match="tapped"):
        m.do("alice", f"!use #{number(m.state, 'Gunner')} > @bob")


def test_a_death_clause_discards_at_random_since_nobody_is_asked_midway() -> None:
    curse = made(
        name="Curse", type="soldier", cost="1", cr="1", text="Spite.", script="on death: discard(opponent, 1, owner)"
    )
    m = Moves(battle(Zones(hand=[SPARK], play=[WELL]), Zones(play=[curse], hand=[HOUND, THORN])))
    m.do("alice", f"!play Spark > #{number(m.state, 'Curse')}")
    assert m.state.choice is None
    assert len(m.state.sides[0].grave) == 1, "alice lost a card at random... her only one"


def test_targets_must_match_and_a_gone_target_does_nothing() -> None:
    m = run("damage(soldier, 3) & damage(enemy_soldier, 1)", b=Zones(play=[HOUND, THORN]))
    hound, thorn = number(m.state, "Flame Hound"), number(m.state, "Thornling")
    with pytest.raises(IllegalActionError, match="name 2 targets"):
        m.do("alice", f"!play Test Spell > #{hound}")
    m.do("alice", f"!play Test Spell > #{hound}, #{hound}")
    assert "Its target is gone" in m.public()
    assert zone_of(m.state, thorn) == "play"


def test_an_unscripted_card_is_shown_and_left_to_the_players() -> None:
    odd = made(name="Strange Rite", type="action", cost="0", text="Swap your health with your opponent's.")
    m = Moves(battle(Zones(hand=[odd]), Zones()))
    m.do("alice", "!play Strange Rite")
    said = m.public()
    assert "Swap your health with your opponent's." in said
    assert "I cannot carry that card out myself" in said
    assert m.health(0) == 25
    assert m.health(1) == 25
    with pytest.raises(IllegalActionError, match="no target"):
        Moves(battle(Zones(hand=[odd]), Zones())).do("alice", "!play Strange Rite > @bob")


def test_static_restrictions_hold() -> None:
    wall = made(
        name="Wall", type="soldier", cost="2", cr="3", text="Stays.", script="static: cannot_attack, cannot_block"
    )
    m = Moves(battle(Zones(play=[wall]), Zones(play=[HOUND])))
    with pytest.raises(IllegalActionError, match="cannot attack"):
        m.do("alice", f"!attack #{number(m.state, 'Wall')}")
