"""Adjustments for what the bot cannot carry out: proposed in a batch, confirmed by the opponent (applied all at
once, or refused whole), disputed before a judge (a named member or the moderators) who upholds or rejects, a
dispute nobody rules on; and undo to before action N when both agree, by replaying with the same dice."""

from __future__ import annotations

import random

import pytest

from games.ictc.battle.actions import Confirm, Dispute
from games.ictc.battle.ai import Skirmisher
from games.ictc.battle.engine import ENGINE
from games.ictc.battle.events import Said
from games.ictc.battle.rules import new_game
from games.ictc.battle.state import Phase
from games.ictc.battle.table import cr_of, zone_of
from games.tables.engine import MODERATORS, BadCommandError, IllegalActionError, NotYourTurnError, Timer, referee_seat

from .battle_support import Moves, Zones, battle, made, number, starter

HOUND = starter("Flame Hound")
WELL = starter("Ember Well")
THORN = starter("Thornling")
SPARK = starter("Spark")
ODD = made(name="Strange Rite", type="action", cost="0", text="Your opponent loses 3 health; one Soldier gets -1 CR.")


def odd_battle() -> Moves:
    return Moves(
        battle(Zones(hand=[ODD, HOUND], play=[WELL, WELL]), Zones(play=[THORN, HOUND], hand=[SPARK], deck=[HOUND]))
    )


def test_a_confirmed_batch_applies_at_once() -> None:
    m = odd_battle()
    m.do("alice", "!play Strange Rite")
    m.passes()
    thorn = number(m.state, "Thornling")
    m.do("alice", f"!adj hp @bob -3; cr #{thorn} -1 eot; note as the card says")
    assert ENGINE.awaiting(m.state) == {"bob"}, "play waits for the opponent's answer"
    with pytest.raises(IllegalActionError, match="opponent answers"):
        m.do("alice", "!confirm")
    with pytest.raises(IllegalActionError, match="proposal is open"):
        m.do("alice", "!end")
    m.do("bob", "!confirm")
    assert m.health(1) == 22
    assert zone_of(m.state, thorn) == "grave", "CR 0: it dies"
    assert m.state.proposal is None
    assert ENGINE.awaiting(m.state) == {"alice"}
    assert "Done, as confirmed by bob" in m.public()


def test_a_batch_that_no_longer_fits_is_refused_whole() -> None:
    m = odd_battle()
    thorn = number(m.state, "Thornling")
    m.do("alice", f"!adj hp @bob -3; move #{thorn} grave; cr #{thorn} -1 eot")
    with pytest.raises(IllegalActionError, match="not in play"):
        m.do("bob", "!confirm")
    assert m.health(1) == 25, "nothing of the batch was applied"
    assert zone_of(m.state, thorn) == "play"
    m.do("alice", "!withdraw")
    assert m.state.proposal is None


def test_a_proposal_names_no_hidden_card() -> None:
    m = odd_battle()
    spark = number(m.state, "Spark")
    m.state = m.state.model_copy(update={"active": 1})
    m.do("bob", f"!adj move #{spark} grave")
    assert "Spark" not in m.public()
    assert "a card in bob's hand" in m.public(), "its owner may say where their own card is"
    assert "Spark" not in ENGINE.public_view(m.state)
    m.do("alice", "!confirm")
    assert zone_of(m.state, spark) == "grave"


def test_the_other_player_s_hidden_cards_answer_as_a_number_the_battle_does_not_have() -> None:
    """`!adj discard #N` (then `!withdraw`) must not sort the other player's cards into hand and deck."""
    m = odd_battle()
    spark, hound = number(m.state, "Spark"), number(m.state, "Flame Hound", 1, 1)
    assert (m.zone(spark), m.zone(hound)) == ("hand", "deck")
    before = m.state
    answers = set()
    for card in (spark, hound, 99):
        for form in ("!adj discard #{}", "!adj move #{} top", "!adj cr #{} -1 eot", "!play #{}", "!use #{}"):
            with pytest.raises(BadCommandError) as refused:
                m.do("alice", form.format(card))
            answers.add((form, str(refused.value).replace(f"#{card}", "#N")))
    assert answers == {
        (form, "there is no card #N you can see here")
        for form in ("!adj discard #{}", "!adj move #{} top", "!adj cr #{} -1 eot", "!play #{}", "!use #{}")
    }
    assert m.state == before, "nothing was proposed"
    assert m.public() == ""
    thorn = number(m.state, "Thornling")
    m.do("alice", f"!adj move #{thorn} grave")
    assert "Thornling #" in m.public(), "a card in play is public: named as before"


def test_every_adjustment_kind() -> None:
    m = odd_battle()
    hound = number(m.state, "Flame Hound", 1)
    m.do(
        "alice",
        f"!adj damage #{hound} +1; tap #{hound}; draw @bob 1; power @alice 2R; cr #{hound} +2 perm; move #{hound} top",
    )
    m.do("bob", "!confirm")
    s = m.state
    assert s.sides[0].pool == (("R", 2),)
    assert len(s.sides[1].hand) == 2
    assert s.sides[1].deck[0] == hound, "moved back to the top of its owner's deck"
    m.do("alice", "!adj power @alice -R; ready #2")
    with pytest.raises(IllegalActionError):
        m.do("bob", "!confirm")  # #2 is not in play: the whole batch waits, unchanged
    assert m.state.sides[0].pool == (("R", 2),)


def test_a_dispute_goes_to_the_moderators_and_a_judge_upholds_or_rejects() -> None:
    m = odd_battle()
    m.do("alice", "!adj hp @bob -3")
    m.do("bob", "!dispute")
    assert ENGINE.awaiting(m.state) == frozenset()
    assert ENGINE.referees(m.state) == {MODERATORS}
    with pytest.raises(IllegalActionError, match="before its judge"):
        m.do("bob", "!confirm")
    judge = referee_seat("mod-1")
    m.do(judge, "!rule reject")
    assert m.health(1) == 25
    assert m.state.proposal is None
    assert ENGINE.referees(m.state) == frozenset()


def test_a_named_judge_rules_alone() -> None:
    m = odd_battle()
    m.do("alice", "!adj hp @bob -3")
    m.state, _ = ENGINE.apply(
        m.state, "bob", ENGINE.parse_action(m.state, "bob", "!dispute <@carol-id>"), random.Random(0)
    )
    assert ENGINE.referees(m.state) == {"carol-id"}
    with pytest.raises(IllegalActionError, match="another member"):
        m.do(referee_seat("dave-id"), "!rule uphold")
    with pytest.raises(IllegalActionError, match="only rules"):
        m.do(referee_seat("carol-id"), "!end")
    m.do(referee_seat("carol-id"), "!rule uphold")
    assert m.health(1) == 22


def test_a_dispute_nobody_rules_on_lapses() -> None:
    m = odd_battle()
    m.do("alice", "!adj hp @bob -3")
    m.do("bob", "!dispute")
    timers = ENGINE.timers(m.state)
    assert timers
    assert timers[0].seconds == 24 * 3600
    m.timeout()
    assert m.state.proposal is None
    assert m.health(1) == 25
    assert "dropped" in m.public()


def test_undo_goes_back_to_before_an_action_with_the_same_dice() -> None:
    state = new_game(("alice", "bob"), None, random.Random(11))
    m = Moves(state)
    m.do("alice", "!cut")
    m.do("bob", "!cut")
    first = m.state.seats[m.state.first]
    other = m.state.seats[1 - m.state.first]
    snapshot = m.state
    mark = m.state.step
    m.do(first, "!end")
    m.passes()
    assert m.state.active != snapshot.active
    with pytest.raises(IllegalActionError, match="from #1 to"):
        m.do(other, f"!undo {m.state.step}")
    m.do(other, f"!undo {mark}")
    m.do(first, "!confirm")
    back = m.state
    assert back.sides == snapshot.sides, "the same shuffle, the same cuts, the same cards"
    assert back.phase is snapshot.phase
    assert back.active == snapshot.active
    assert back.history == snapshot.history
    assert "back as it stood before" in m.public()


def test_undo_replays_the_random_parts_identically() -> None:
    rite = made(name="Hex", type="action", cost="0", text="Discard.", script="discard(opponent, 1, random)")
    m = Moves(battle(Zones(hand=[rite, HOUND], play=[WELL, WELL]), Zones(hand=[HOUND, THORN, SPARK])))
    m.do("alice", "!play Hex")
    lost = m.state.sides[1].grave
    m.passes()
    m.do("alice", "!play Flame Hound")
    m.passes()
    m.do("bob", "!undo 1")
    m.do("alice", "!confirm")
    assert m.state.sides[1].grave == (), "back to before the Hex"
    m.do("alice", "!play Hex")
    assert m.state.sides[1].grave == lost, "the same dice: undo cannot be used to roll again"


def test_step_numbers_are_never_given_twice_after_an_undo() -> None:
    m = Moves(battle(Zones(hand=[HOUND, HOUND], play=[WELL, WELL, WELL, WELL]), Zones(hand=[SPARK])))
    m.do("alice", "!play Flame Hound")
    m.passes()
    m.do("alice", "!undo 1")
    m.do("bob", "!confirm")
    m.do("alice", "!play Flame Hound")
    m.passes()
    shown = [e.number for e in m.said if isinstance(e, Said) and e.number is not None]
    assert len(shown) == len(set(shown)), f"a step number came twice in the thread: {shown}"
    assert shown[-2] > max(shown[:-2]), "after the undo the numbers go on from the highest shown"
    assert "`#4` alice deploys Flame Hound" in m.public()
    with pytest.raises(IllegalActionError, match="#2 was undone"):
        m.do("bob", "!undo 2")
    m.do("alice", f"!undo {shown[-2]}")
    m.do("bob", "!confirm")
    assert m.state.sides[0].hand == (1, 2), "back to before the Hound played again"
    again = ENGINE.load_state(ENGINE.dump_state(m.state))
    assert again == m.state


def test_an_undo_needs_the_other_player() -> None:
    m = odd_battle()
    m.do("alice", "!play Flame Hound")
    m.passes()
    m.do("alice", "!undo 1")
    m.do("bob", "!dispute")
    m.do(referee_seat("mod"), "!rule reject")
    assert zone_of(m.state, number(m.state, "Flame Hound", 0)) == "play"
    assert m.state.phase is Phase.ACTION
    with pytest.raises(NotYourTurnError):
        m.do("bob", "!end")
    assert cr_of(m.state, number(m.state, "Flame Hound", 0)) == 2


def test_a_proposal_left_unanswered_is_dropped_when_the_turn_runs_out() -> None:
    m = odd_battle()
    m.do("alice", "!adj hp @bob -3")
    assert ENGINE.late_text(m.state, "bob", "en") == "the proposal waiting for your answer is dropped"
    late = ENGINE.on_timeout(m.state, Timer("turn:bob", 3600, "turn", "bob"), random.Random(0))
    assert late is not None
    m.state = late[0]
    assert m.state.proposal is None
    assert m.health(1) == 25, "nothing is carried out for someone who was away"
    assert ENGINE.awaiting(m.state) == {"alice"}


def test_the_computer_confirms_at_practice_and_takes_a_member_s_loss_to_a_judge() -> None:
    m = odd_battle()
    m.do("alice", "!adj hp @bob -3")
    assert Skirmisher().choose(m.state, "bob", random.Random(0)) == Confirm(), "starter decks: nothing at stake"
    sides = (m.state.sides[0].model_copy(update={"owner": "1"}), m.state.sides[1].model_copy(update={"owner": "2"}))
    owned = m.state.model_copy(update={"sides": sides})
    assert Skirmisher().choose(owned, "bob", random.Random(0)) == Dispute()
    gift = Moves(owned)
    gift.state = gift.state.model_copy(update={"proposal": None})
    gift.do("alice", "!adj hp @bob +2")
    assert Skirmisher().choose(gift.state, "bob", random.Random(0)) == Confirm()


def test_a_dispute_names_a_judge_who_does_not_play_here() -> None:
    m = odd_battle()
    m.do("alice", "!adj hp @bob -3")
    for judge in ("@alice", "alice", "@bob", "me", "opponent"):
        with pytest.raises(IllegalActionError, match=r"plays in this battle: a judge is a member who does not"):
            m.do("bob", f"!dispute {judge}")
    with pytest.raises(IllegalActionError, match="`!dispute` alone asks the moderators"):
        ENGINE.apply(m.state, "bob", Dispute(judge="alice"), random.Random(0))
    assert not m.state.proposal.disputed  # type: ignore[union-attr]
    m.do("bob", "!dispute @carol")
    assert ENGINE.referees(m.state) == {"carol"}
    for words in ("me", "opponent", "@alice"):
        with pytest.raises(IllegalActionError, match=r"before its judge|only rules|plays in this battle"):
            m.do(referee_seat("carol"), f"!dispute {words}")  # the judge has no seat: a refusal, nothing more


def test_the_computer_agrees_to_an_undo_only_for_its_own_seat() -> None:
    m = odd_battle()
    m.do("alice", "!play Flame Hound")
    m.passes()
    m.do("alice", "!undo 1")
    assert Skirmisher().choose(m.state, "bob", random.Random(0)) == Dispute(), "bob's seat: bob agrees, or a judge"
    ai = m.state.model_copy(update={"seats": ("alice", "AI-1")})
    assert Skirmisher().choose(ai, "AI-1", random.Random(0)) == Confirm(), "a computer seat at practice"
    m.do("bob", "!dispute")
    m.do(referee_seat("mod"), "!rule uphold")
    assert "Undone by the judge's ruling" in m.public()
    assert "by agreement" not in m.public()
    assert zone_of(m.state, number(m.state, "Flame Hound", 0)) == "hand"
