"""ICTC battles, rule by rule: the setup (shuffle, cut, kitty with ties, seven cards), each phase of the turn,
paying costs (coloured first, X, choices, the pool), combat (blockers, splits, no roll-over, hitting back and
every keyword), Flash windows and their deadline, the end (health, concession, the turn cap, an empty deck)."""

from __future__ import annotations

import json
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from games.ictc.battle import rules
from games.ictc.battle.actions import DeclareBlocks, PlayCard
from games.ictc.battle.ai import Skirmisher
from games.ictc.battle.engine import ENGINE, kitty_outcomes
from games.ictc.battle.payment import need_of, payable, plan
from games.ictc.battle.rules import new_game
from games.ictc.battle.state import BattleOptions, BattleSetup, Ending, Phase
from games.ictc.battle.table import zone_of
from games.ictc.cards import Keyword, build_fields
from games.ictc.cost import Cost, Output
from games.ictc.palette import Palette
from games.ictc.starter import builtin_keywords
from games.tables.engine import IllegalActionError, NotYourTurnError

from .battle_support import SEATS, Moves, Zones, battle, made, number, starter

HOUND = starter("Flame Hound")
SCOUT = starter("Cinder Scout")
GIANT = starter("Ash Giant")
WELL = starter("Ember Well")
SPRING = starter("Grove Spring")
POOL = starter("Tide Pool")
PRISM = starter("Prism Stone")
BEAR = starter("Bramble Bear")
THORN = starter("Thornling")
GULL = starter("Gull Rider")
DRAKE = starter("Storm Drake")
WARDEN = starter("Old Oak Warden")
REEF = starter("Reef Guard")
SELL = starter("Wandering Sellsword")
SPARK = starter("Spark")
FIREBALL = starter("Fireball")
FLARE = starter("Flare Up")
BARK = starter("Barkskin")
FROST = starter("Frost Snap")


# --- the setup --------------------------------------------------------------------------------------


def test_the_deal_waits_for_both_cuts_then_flips_the_kitty_and_deals_seven() -> None:
    state = new_game(
        SEATS, None, random.Random(3), {"alice": BattleSetup(deck="Ember"), "bob": BattleSetup(deck="Grove")}
    )
    assert state.phase is Phase.CUT
    assert ENGINE.awaiting(state) == {"alice"}
    m = Moves(state)
    before = m.state.sides[1].deck
    m.do("alice", "!cut 5")
    assert m.state.sides[1].deck == before[5:] + before[:5], "alice's cut moves bob's top 5 cards under"
    assert ENGINE.awaiting(m.state) == {"bob"}
    with pytest.raises(NotYourTurnError):
        m.do("alice", "!cut")
    m.do("bob", "!cut")
    s = m.state
    kitties = [len(side.kitty) for side in s.sides]
    assert kitties[0] == kitties[1] >= 1
    totals = [sum(s.defn(c).fields.cost.total for c in side.kitty) for side in s.sides]
    assert totals[s.first] > totals[1 - s.first], "the higher kitty goes first"
    for k in range(kitties[0] - 1):
        assert sum(s.defn(c).fields.cost.total for c in s.sides[0].kitty[: k + 1]) == sum(
            s.defn(c).fields.cost.total for c in s.sides[1].kitty[: k + 1]
        ), "every flip before the last was a tie"
    assert len(s.sides[1 - s.first].hand) == 7
    assert len(s.sides[s.first].hand) == 8, "seven, and the first turn's draw"
    assert s.phase is Phase.POWER
    assert s.active == s.first
    assert s.turn == 1


def test_a_tied_kitty_flips_again_until_one_is_higher() -> None:
    a = Zones(deck=[*[SELL] * 10, WELL, WELL, HOUND])
    b = Zones(deck=[*[THORN] * 10, SPRING, SPRING, SCOUT])
    dealt = battle(a, b, phase=Phase.CUT, turn=0)
    state = dealt.model_copy(update={"sides": tuple(s.model_copy(update={"cut": False}) for s in dealt.sides)})
    m = Moves(state)
    m.do("alice", "!cut 10")
    m.do("bob", "!cut 10")
    s = m.state
    assert s.flips == 3, "Well against Spring twice (0 and 0), then Hound (2) against Scout (1)"
    assert [s.name(c) for c in s.sides[0].kitty] == ["Ember Well", "Ember Well", "Flame Hound"]
    assert s.first == 0
    assert m.public().count("Kitty:") == 3


def test_the_first_player_may_skip_the_first_draw_by_option() -> None:
    options = BattleOptions(first_draw=False)
    state = new_game(SEATS, options, random.Random(1))
    m = Moves(state)
    m.do("alice", "!cut")
    m.do("bob", "!cut")
    assert len(m.state.sides[m.state.first].hand) == 7


def test_typing_a_deck_of_ones_own_copies_is_refused() -> None:
    with pytest.raises(IllegalActionError, match="challenge"):
        ENGINE.check_setup(BattleSetup(deck="Burn"), None)
    with pytest.raises(IllegalActionError, match="challenge"):
        ENGINE.check_setup(BattleSetup(deck="Ember", owner="123"), None)
    ENGINE.check_setup(BattleSetup(deck="tide"), None)


# --- the turn: Power-Up and Action ----------------------------------------------------------------


def test_power_up_allows_one_power_card_and_ends_with_anything_else() -> None:
    state = battle(Zones(hand=[WELL, WELL, HOUND], play=[WELL]), Zones(), phase=Phase.POWER)
    m = Moves(state)
    m.do("alice", "!play Ember Well")
    with pytest.raises(IllegalActionError, match="played your Power card"):
        m.do("alice", "!play Ember Well")
    m.do("alice", "!play Flame Hound")
    assert m.state.phase is Phase.ACTION
    with pytest.raises(IllegalActionError, match="Power-Up"):
        m.do("alice", "!play Ember Well")


def test_the_next_turn_draws_readies_everything_and_lets_last_turns_soldiers_attack() -> None:
    state = battle(Zones(hand=[HOUND], play=[WELL, WELL], deck=[SPARK]), Zones(deck=[THORN, THORN]))
    m = Moves(state)
    m.do("alice", "!play Flame Hound")
    hound = number(m.state, "Flame Hound")
    with pytest.raises(IllegalActionError, match="no Haste"):
        m.do("alice", f"!attack #{hound}")
    m.do("alice", "!end")
    assert m.state.active == 1
    assert m.state.phase is Phase.POWER
    assert len(m.state.sides[1].hand) == 1, "bob drew at his Power-Up"
    m.do("bob", "!end")
    m.passes()
    assert all(not p.tapped for p in m.state.sides[0].play), "alice's Power cards are ready again"
    assert m.state.sides[0].hand == (number(m.state, "Spark"),)
    m.do("alice", f"!attack #{hound}")
    assert m.state.phase is Phase.DEFEND or m.state.window is not None or m.state.combat is None


def test_haste_attacks_at_once_and_a_cannot_attack_soldier_never_does() -> None:
    state = battle(Zones(hand=[SCOUT], play=[WELL, REEF]), Zones())
    m = Moves(state)
    m.do("alice", "!play Cinder Scout")
    scout, reef = number(m.state, "Cinder Scout"), number(m.state, "Reef Guard")
    with pytest.raises(IllegalActionError, match="cannot attack"):
        m.do("alice", f"!attack #{reef}")
    m.do("alice", f"!attack #{scout}")
    assert m.health(1) == 24


def test_regroup_ends_this_turns_effects_and_the_hand_limit_discards() -> None:
    hand = [HOUND] * 11 + [FLARE]
    state = battle(Zones(hand=hand, play=[WELL, BEAR], pool=(("R", 2),)), Zones())
    m = Moves(state)
    bear = number(m.state, "Bramble Bear")
    m.do("alice", f"!play Flare Up > #{bear}")
    assert m.state.permanent(bear).cr_eot == 2  # type: ignore[union-attr]
    m.do("alice", "!end")
    assert m.state.phase is Phase.DISCARD, "12 cards, 11 after the Flash: one over the limit"
    assert zone_of(m.state, number(m.state, "Flare Up")) == "grave", "the Flash card went to the grave"
    assert m.state.permanent(bear).cr_eot == 0  # type: ignore[union-attr]
    assert m.state.sides[0].pool == ()
    with pytest.raises(IllegalActionError, match="exactly 1"):
        m.do("alice", "!discard " + " ".join(f"#{c}" for c in m.state.sides[0].hand[:2]))
    m.do("alice", f"!discard #{m.state.sides[0].hand[0]}")
    assert len(m.state.sides[0].hand) == 10
    assert m.state.active == 1


def test_out_of_turn_moves_are_refused_and_change_nothing() -> None:
    state = battle(Zones(hand=[HOUND], play=[WELL, WELL]), Zones(hand=[HOUND], play=[SPRING, SPRING]))
    with pytest.raises(NotYourTurnError):
        Moves(state).do("bob", "!play Flame Hound")
    with pytest.raises(IllegalActionError):
        Moves(state).do("alice", "!block none")


# --- paying costs -----------------------------------------------------------------------------------


def test_costs_are_paid_coloured_first_from_the_pool_then_by_tapping() -> None:
    state = battle(Zones(hand=[GIANT], play=[WELL, WELL, PRISM, SPRING, SPRING], pool=(("G", 1),)), Zones())
    m = Moves(state)
    m.do("alice", "!play Ash Giant")  # 2R+2: the two Wells for R, the pool's G and one Spring for the rest
    tapped = {m.state.name(p.card) for p in m.state.sides[0].play if p.tapped}
    assert tapped == {"Ember Well", "Grove Spring"}
    assert sum(p.tapped for p in m.state.sides[0].play) == 3, "the Prism Stone, good for any colour, is kept"
    assert m.state.sides[0].pool == ()


def test_x_is_the_players_choice_and_what_cannot_be_paid_is_refused() -> None:
    state = battle(Zones(hand=[FIREBALL, FIREBALL], play=[WELL, WELL, WELL, SPRING]), Zones(health=25))
    m = Moves(state)
    with pytest.raises(IllegalActionError, match="cannot pay"):
        m.do("alice", "!play Fireball x=3 > @bob")
    m.do("alice", "!play Fireball x=2 > @bob")
    assert m.health(1) == 23
    assert m.public().count("tapping") == 1
    with pytest.raises(IllegalActionError, match="cannot pay"):
        m.do("alice", "!play Fireball x=0 > @bob")


def test_a_choice_of_colours_pays_whichever_is_missing_and_a_tap_fills_the_pool() -> None:
    state = battle(Zones(hand=[SCOUT, HOUND], play=[PRISM, SPRING]), Zones())
    m = Moves(state)
    m.do("alice", "!play Cinder Scout")  # R: only the Prism can make it
    prism = number(m.state, "Prism Stone")
    assert m.state.permanent(prism).tapped  # type: ignore[union-attr]
    m.do("alice", f"!tap #{number(m.state, 'Grove Spring')}")
    assert m.state.sides[0].pool == (("G", 1),)
    with pytest.raises(IllegalActionError, match="tapped already"):
        m.do("alice", f"!tap #{prism}")


def test_the_invariants_name_each_card_out_of_place() -> None:
    """Cards are counted in one pass while all is well; a card lost, twice over or on the wrong side is named."""
    state = battle(Zones(hand=[HOUND, SCOUT], play=[WELL]), Zones(hand=[THORN]))
    assert ENGINE.invariants(state) == []
    mine, theirs = state.sides
    hound, scout = mine.hand
    thorn = theirs.hand[0]
    broken = state.model_copy(
        update={
            "sides": (
                mine.model_copy(update={"hand": (hound,), "grave": (hound, thorn)}),
                theirs.model_copy(update={"hand": ()}),
            )
        }
    )
    found = ENGINE.invariants(broken)
    assert f"#{hound} is in 2 zones" in found
    assert f"#{scout} is in 0 zones" in found
    assert f"#{thorn} is in alice's grave but belongs to the other player" in found
    assert f"#{thorn} is in 1 zones" not in found


_KEYS = st.sampled_from(["R", "G", "K", "", "R/G", "G/K"])
_UNITS = st.lists(st.tuples(_KEYS, st.integers(1, 2)), min_size=1, max_size=2)


@settings(max_examples=300, deadline=None)
@given(
    pool=st.lists(st.tuples(_KEYS, st.integers(1, 2)), max_size=3),
    outputs=st.lists(_UNITS, max_size=7),
    coloured=st.lists(st.tuples(st.sampled_from("RGK"), st.integers(1, 3)), max_size=2, unique_by=lambda c: c[0]),
    generic=st.integers(0, 4),
    x=st.sampled_from([None, "", "R"]),
    paid_x=st.integers(0, 3),
)
def test_a_cost_counts_as_payable_exactly_when_the_bot_finds_how_to_pay_it(
    *,
    pool: list[tuple[str, int]],
    outputs: list[list[tuple[str, int]]],
    coloured: list[tuple[str, int]],
    generic: int,
    x: str | None,
    paid_x: int,
) -> None:
    """Whether a card can be played asks only whether its cost can be paid (``payable``), never which cards
    to tap (``plan``): both must agree, or a legal play would be refused or an illegal one let through."""
    powers = [(n * 3 + 1, Output(units=tuple(units))) for n, units in enumerate(outputs)]
    need = need_of(Cost(coloured=tuple(sorted(coloured)), generic=generic, x=x), paid_x)
    assert payable(pool, powers, need) == (plan(pool, powers, need) is not None)
    assert payable(pool, powers[::-1], need) == payable(pool, powers, need), "the order of the cards is no matter"


# --- combat -----------------------------------------------------------------------------------------


def _fight(attacker_side: Zones, defender_side: Zones) -> Moves:
    return Moves(battle(attacker_side, defender_side))


def test_an_unblocked_attacker_hits_the_player_and_tapping_follows_vigilance() -> None:
    m = _fight(Zones(play=[HOUND, WARDEN]), Zones())
    hound, warden = number(m.state, "Flame Hound"), number(m.state, "Old Oak Warden")
    m.do("alice", "!attack all")
    assert m.health(1) == 19
    assert m.state.permanent(hound).tapped
    assert not m.state.permanent(warden).tapped
    assert m.state.active == 1, "after combat the turn ends (Regroup): one combat a turn"


def test_several_blockers_and_the_attackers_split_without_roll_over() -> None:
    m = _fight(Zones(play=[WARDEN]), Zones(play=[THORN, THORN, SELL], hand=[HOUND]))
    warden = number(m.state, "Old Oak Warden")
    thorns = [number(m.state, "Thornling", 1, k) for k in (0, 1)]
    sell = number(m.state, "Wandering Sellsword")
    m.do("alice", f"!attack #{warden}")
    m.do("bob", "!pass")
    m.do("bob", f"!block #{thorns[0]} > #{warden}, #{thorns[1]} > #{warden}, #{sell} > #{warden}")
    m.passes()
    assert m.state.phase is Phase.SPLIT
    assert ENGINE.awaiting(m.state) == {"alice"}
    with pytest.raises(IllegalActionError, match="deals 4 in all"):
        m.do("alice", f"!split #{warden}: #{thorns[0]}=1, #{thorns[1]}=1")
    with pytest.raises(IllegalActionError, match="does not fight"):
        m.do("alice", f"!split #{warden}: #{thorns[0]}=1, @bob=3")
    m.do("alice", f"!split #{warden}: #{thorns[0]}=3, #{sell}=1")
    s = m.state
    assert zone_of(s, thorns[0]) == "grave", "3 damage on a CR 1: the extra 2 are lost, not passed on"
    assert zone_of(s, thorns[1]) == "play"
    assert zone_of(s, sell) == "play"
    assert zone_of(s, warden) == "grave", "1 + 1 + 2 = 4 damage, all at once, on a CR 4"
    assert m.health(1) == 25


def test_a_targeted_soldier_hits_back_and_blocks_another_attacker_as_it_likes() -> None:
    m = _fight(Zones(play=[HOUND, SELL]), Zones(play=[BEAR]))
    hound, sell, bear = (number(m.state, n) for n in ("Flame Hound", "Wandering Sellsword", "Bramble Bear"))
    m.do("alice", f"!attack #{hound} > #{bear}, #{sell} > @bob")
    m.do("bob", f"!block #{bear} > #{sell}")
    m.passes()
    assert m.state.phase is Phase.SPLIT
    assert ENGINE.awaiting(m.state) == {"bob"}, "the Bear fights two: bob splits"
    m.do("bob", f"!split #{bear}: #{hound}=2, #{sell}=0")
    s = m.state
    assert zone_of(s, hound) == "grave"
    assert zone_of(s, bear) == "grave", "Armor 1 once: 2 + 2 - 1 = 3 damage on CR 2"
    assert m.health(1) == 25


def test_flight_and_reach_decide_who_may_block() -> None:
    m = _fight(Zones(play=[GULL]), Zones(play=[HOUND, THORN], hand=[SPARK]))
    gull, hound, thorn = (number(m.state, n) for n in ("Gull Rider", "Flame Hound", "Thornling"))
    m.do("alice", f"!attack #{gull}")
    m.do("bob", "!pass")
    with pytest.raises(IllegalActionError, match="cannot block"):
        m.do("bob", f"!block #{hound} > #{gull}")
    m.do("bob", f"!block #{thorn} > #{gull}")
    m.passes()
    assert zone_of(m.state, gull) == "grave"
    assert zone_of(m.state, thorn) == "grave"


def test_cannot_block_and_tapped_soldiers_do_not_block() -> None:
    m = _fight(Zones(play=[HOUND]), Zones(play=[GIANT, SELL], tapped=["Wandering Sellsword"]))
    m.do("alice", "!attack all")
    assert m.state.combat is None, "no blocker could: the damage went through at once"
    assert m.health(1) == 23


def test_the_board_and_the_hand_show_every_keyword_and_restriction() -> None:
    glossary = {**builtin_keywords(), "burrow": Keyword(name="Burrow", text="It hides underground.")}
    raw = {"name": "Mole", "type": "soldier", "cost": "G+1", "cr": "2", "keywords": "Haste, Burrow", "text": "Digs."}
    mole = build_fields(raw, Palette.CLASSIC, glossary)
    wall = made(name="Wall", type="soldier", cost="2", cr="3", text="Stays.", script="static: cannot_attack")
    m = Moves(battle(Zones(play=[mole, GIANT, wall], hand=[mole, GIANT]), Zones()))
    board = ENGINE.public_view(m.state)
    assert f"Mole #{number(m.state, 'Mole', 0, 1)} (CR 2, Haste, Burrow)" in board, "a keyword the server defined"
    assert f"Ash Giant #{number(m.state, 'Ash Giant', 0, 1)} (CR 4, cannot block)" in board, "a written restriction"
    assert f"Wall #{number(m.state, 'Wall')} (CR 3, cannot attack)" in board, "a restriction only its script says"
    hand = ENGINE.private_view(m.state, "alice")
    assert "**#1 Mole** · Soldier · G+1 · CR 2 · Haste, Burrow ·" in hand
    assert "**#2 Ash Giant** · Soldier · 2R+2 · CR 4 · cannot block ·" in hand


def test_the_computer_never_blocks_with_a_soldier_that_cannot() -> None:
    m = _fight(Zones(play=[HOUND, SCOUT]), Zones(play=[GIANT, THORN], health=3))
    m.do("alice", "!attack all")
    blocks = Skirmisher().choose(m.state, "bob", random.Random(0))
    assert isinstance(blocks, DeclareBlocks)
    giant = number(m.state, "Ash Giant")
    assert blocks.blocks, "in danger, it blocks with what can"
    assert all(blocker != giant for blocker, _ in blocks.blocks)
    offered = [a for a in ENGINE.legal_actions(m.state, "bob") if isinstance(a, DeclareBlocks)]
    assert all(giant not in (b for b, _ in a.blocks) for a in offered)


def test_the_computer_taps_a_blocker_before_attacking_never_one_that_cannot_block() -> None:
    m = Moves(battle(Zones(hand=[FROST], play=[POOL, HOUND]), Zones(play=[GIANT, THORN])))
    pick = Skirmisher().choose(m.state, "alice", random.Random(0))
    thorn = str(number(m.state, "Thornling"))
    assert pick == PlayCard(card=number(m.state, "Frost Snap"), targets=(thorn,)), "the blocker, not the Giant"


def test_armor_prevents_damage_once_a_combat_and_pierce_carries_on() -> None:
    piercer = made(name="Lance", type="soldier", cost="2R+2", cr="4", keywords="Pierce", text="Through.")
    m = _fight(Zones(play=[piercer]), Zones(play=[BEAR]))
    lance, bear = number(m.state, "Lance"), number(m.state, "Bramble Bear")
    m.do("alice", f"!attack #{lance}")
    m.do("bob", f"!block #{bear} > #{lance}")
    assert m.state.phase is Phase.SPLIT
    with pytest.raises(IllegalActionError, match="does not fight"):
        m.do("alice", f"!split #{lance}: #{bear}=1, @bob=3")
    m.do("alice", f"!split #{lance}: #{bear}=3, @bob=1")
    assert zone_of(m.state, bear) == "grave", "lethal is 2 CR + 1 Armor"
    assert m.health(1) == 24, "what was left went on to the player"


# --- Flash windows ----------------------------------------------------------------------------------


def test_a_flash_window_after_each_card_times_out_as_a_pass() -> None:
    m = Moves(battle(Zones(hand=[HOUND, HOUND], play=[WELL] * 4), Zones(hand=[BARK], play=[SPRING])))
    m.do("alice", "!play Flame Hound")
    assert ENGINE.awaiting(m.state) == {"bob"}
    timers = ENGINE.timers(m.state)
    assert len(timers) == 1
    assert timers[0].seconds == 30
    assert timers[0].kind == "phase"
    m.timeout()
    assert m.state.window is None
    assert ENGINE.awaiting(m.state) == {"alice"}
    assert "closes unanswered" in m.public()
    m.do("alice", "!play Flame Hound")
    assert ENGINE.timers(m.state)[0].key != timers[0].key, "each window has a deadline of its own"


def test_a_flash_in_a_window_takes_effect_at_once_and_answers_go_back_and_forth() -> None:
    m = _fight(Zones(play=[HOUND, WELL], hand=[FLARE, SCOUT]), Zones(play=[SELL, SPRING], hand=[BARK, THORN]))
    hound, sell = number(m.state, "Flame Hound"), number(m.state, "Wandering Sellsword")
    m.do("alice", f"!attack #{hound}")
    m.do("bob", "!pass")
    m.do("bob", f"!block #{sell} > #{hound}")
    assert ENGINE.awaiting(m.state) == {"alice"}, "after the blocks, the attacker's window"
    m.do("alice", f"!play Flare Up > #{hound}")
    assert m.state.permanent(hound).cr_eot == 2, "at once: no stack"  # type: ignore[union-attr]
    assert ENGINE.awaiting(m.state) == {"bob"}
    m.do("bob", f"!play Barkskin > #{sell}")
    assert ENGINE.awaiting(m.state) == {"alice"}
    m.do("alice", "!pass")
    s = m.state
    assert zone_of(s, sell) == "grave", "4 damage less 2 prevented is its CR 2"
    assert zone_of(s, hound) == "play", "2 damage on a CR pumped to 4"


def test_only_flash_cards_in_a_window_and_autopass_skips_them() -> None:
    m = Moves(battle(Zones(hand=[HOUND, HOUND], play=[WELL] * 4), Zones(hand=[SCOUT], play=[WELL])))
    m.do("alice", "!play Flame Hound")
    with pytest.raises(IllegalActionError, match="only Flash cards"):
        m.do("bob", "!play Cinder Scout")
    m.do("bob", "!autopass on")
    assert m.state.window is None
    m.do("alice", "!play Flame Hound")
    assert m.state.window is None, "bob passes every window now"


def test_a_pass_without_a_flash_window_says_what_a_pass_is_for_and_what_to_do() -> None:
    m = _fight(Zones(play=[HOUND]), Zones(play=[THORN], hand=[SPARK]))
    with pytest.raises(IllegalActionError, match=r"`!pass` lets a Flash window go.*`!end` your turn"):
        m.do("alice", "!pass")
    m.do("alice", "!attack all")
    m.passes()
    assert m.state.phase is Phase.DEFEND
    with pytest.raises(IllegalActionError, match=r"Flash window.*`!block none`"):
        m.do("bob", "!pass")


def test_an_empty_hand_has_no_window() -> None:
    m = Moves(battle(Zones(hand=[HOUND], play=[WELL] * 2), Zones()))
    m.do("alice", "!play Flame Hound")
    assert m.state.window is None


# --- the end ----------------------------------------------------------------------------------------


def test_conceding_loses_at_any_time() -> None:
    m = Moves(battle(Zones(hand=[HOUND], play=[WELL] * 2), Zones(hand=[BARK])))
    m.do("bob", "!concede")
    assert m.state.winner == 0
    assert m.state.ending is Ending.CONCEDED
    assert ENGINE.status(m.state) == "finished"
    assert ENGINE.result(m.state).winners == ("alice",)


@pytest.mark.parametrize("cuts", [0, 1])
def test_conceding_during_the_cut_turns_the_kitty_over_first(cuts: int) -> None:
    """Whoever concedes before the kitty is turned over still loses it: the cuts are finished where the dice
    fall and the kitty is turned over as at the start, then the concession counts."""
    m = Moves(new_game(SEATS, None, random.Random(5)))
    for _ in range(cuts):
        m.do(m.state.seats[min(rules.awaiting(m.state))], "!cut")
    tops = [side.deck[0] for side in m.state.sides]
    m.do("bob", "!concede")
    assert m.state.winner == 0
    assert m.state.ending is Ending.CONCEDED
    assert all(side.cut for side in m.state.sides)
    assert all(side.kitty for side in m.state.sides), "each turned over at least one card"
    assert all(len(side.kitty) == m.state.flips for side in m.state.sides)
    if cuts:
        assert m.state.sides[1].kitty[0] == tops[1], "bob's deck was cut already: its top card is the kitty's"
    assert "cut for" in m.public()
    assert "Kitty: alice turns over" in m.public()
    assert all(not side.hand for side in m.state.sides), "nobody was dealt a hand"
    owned = m.state.model_copy(
        update={"sides": tuple(side.model_copy(update={"owner": f"m{k}"}) for k, side in enumerate(m.state.sides))}
    )
    owned = owned.model_copy(
        update={"cards": tuple(c.model_copy(update={"copy_id": n}) for n, c in enumerate(owned.cards, 1))}
    )
    (outcome,) = kitty_outcomes(owned)
    assert json.loads(outcome.value) == {"from": "m1", "to": "m0", "copies": list(m.state.sides[1].kitty)}


def test_the_turn_cap_ends_on_health_and_an_empty_deck_can_lose() -> None:
    m = Moves(battle(Zones(health=20), Zones(health=22, deck=[HOUND]), options=BattleOptions(turn_cap=3), turn=3))
    m.do("alice", "!end")
    assert m.state.over
    assert m.state.winner == 1
    assert m.state.ending is Ending.CAP
    m = Moves(battle(Zones(), Zones(), options=BattleOptions(empty_deck="lose")))
    m.do("alice", "!end")
    assert m.state.winner == 0
    assert m.state.ending is Ending.DECK
    m = Moves(battle(Zones(), Zones()))
    m.do("alice", "!end")
    assert not m.state.over
    assert "deck is empty" in m.public()


def test_health_at_zero_ends_the_battle_and_both_at_once_is_a_draw() -> None:
    m = Moves(battle(Zones(hand=[SPARK], play=[WELL]), Zones(health=1)))
    m.do("alice", "!play Spark > @bob")
    assert m.state.winner == 0
    assert m.state.ending is Ending.HEALTH
    m = _fight(Zones(play=[HOUND], health=2), Zones(play=[HOUND], health=2))
    m.do("alice", "!attack all")
    assert not m.state.over
