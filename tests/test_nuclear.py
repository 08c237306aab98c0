"""關你核四's rules, one by one: the cards, the deal, both votes, the negotiation, the 1-or-2 placement,
reveal and withdraw, the resolution (eye, referendums, government bills), both ends, the doubling, the
stalemate cap, the deck's refill and every phase's deadline."""

from __future__ import annotations

import random
from collections import Counter

import pytest

from games.nuclear import rules
from games.nuclear.actions import Abstain, Give, Promise, Vote
from games.nuclear.cards import ALL_IDS, CARDS, REMOVAL_POOL, CardSetError, load_cards, parse_card_id, parse_cards
from games.nuclear.engine import ENGINE
from games.nuclear.events import GameOver, GiftCards, GiftSeen, Resolved
from games.nuclear.state import ABSTAIN, NuclearState, Phase
from games.tables.engine import (
    BadCommandError,
    GameOverError,
    IllegalActionError,
    MissingCardError,
    NotYourTurnError,
    SeatingError,
    Timer,
    WrongRoleError,
)

from .nuclear_support import act, acts, arranged, game, private, public

PRO4 = ("pro", "anti", "pro", "anti")
"""ann (the first speaker) and cat are pro; bob and dan anti."""


def table(**options: object) -> NuclearState:
    """Four players, ann speaks; hands chosen for the votes below."""
    state = game(4, **options)  # type: ignore[arg-type]
    return arranged(
        state,
        {
            "ann": ["P01", "P45", "A13", "G1", "P50"],
            "bob": ["A19", "A35", "A01", "P02"],
            "cat": ["P12", "P17", "P25", "A20"],
            "dan": ["A21", "A36", "A02", "P03"],
        },
        stances=PRO4,
    )


def to_talk(state: NuclearState, proposal: str, votes: dict[str, str]) -> tuple[NuclearState, list]:
    speaker = state.seats[state.speaker]
    return acts(state, [(speaker, f"propose {proposal}"), *((s, f"vote {c}") for s, c in votes.items())])


def second_vote(state: NuclearState, places: dict[str, str], choices: dict[str, str]) -> tuple[NuclearState, list]:
    speaker = state.seats[state.speaker]
    moves = [(speaker, "end"), *((s, f"place {c}") for s, c in places.items()), (speaker, "count")]
    moves += list(choices.items())
    return acts(state, moves)


# --- the cards --------------------------------------------------------------------------------


def test_the_card_set_matches_the_spec() -> None:
    cards = list(CARDS.values())
    assert Counter(c.side for c in cards) == {"pro": 50, "anti": 61, "gov": 2}
    assert len(ALL_IDS) == 113
    assert [c.id for c in cards if c.kind == "referendum"] == ["P50", "A61"]
    assert tuple(f"A{n:02d}" for n in range(1, 13)) == REMOVAL_POOL, "anti, one opinion symbol, an eye"
    for side, totals in {"pro": (82, 64, 10, 98), "anti": (121, 77, 14, 105)}.items():
        mine = [c for c in cards if c.side == side]
        found = (sum(c.opinion for c in mine), sum(len(c.votes) for c in mine), sum(c.eye for c in mine))
        assert (*found, sum(c.score for c in mine)) == totals
    g1, g2 = CARDS["G1"], CARDS["G2"]
    assert (g1.yes, g1.no, g1.votes, g1.score, g1.doubles) == ("pro", "anti", ("pro", "pro"), 2, False)
    assert (g2.yes, g2.no, g2.votes, g2.score) == ("anti", "pro", ("anti", "anti"), 2)
    assert all(c.zh and c.en and c.zh != c.en for c in cards), "both languages' titles"
    assert CARDS["P50"].zh == "核四續建公投"
    assert CARDS["A61"].zh == "核四停建公投"


def test_a_card_file_that_drifts_from_the_spec_is_refused() -> None:
    from importlib.resources import files

    text = files("data").joinpath("cardsets", "nuclear.toml").read_text(encoding="utf-8")
    assert len(parse_cards(text)) == 113
    assert load_cards() is load_cards()
    with pytest.raises(CardSetError, match="50 pro"):
        parse_cards(text.replace('id = "P01"\nside = "pro"', 'id = "P01"\nside = "anti"', 1))
    with pytest.raises(CardSetError, match=r"vote symbols are P or A|own symbol"):
        parse_cards(
            text.replace(
                'id = "P01"\nside = "pro"\nkind = "issue"\nopinion = 1\nvotes = "P"',
                'id = "P01"\nside = "pro"\nkind = "issue"\nopinion = 1\nvotes = "A"',
                1,
            )
        )
    with pytest.raises(CardSetError, match="pro cards"):
        parse_cards(text.replace('opinion = 3\nvotes = "PP"', 'opinion = 2\nvotes = "PP"', 1))
    with pytest.raises(CardSetError, match="cannot be read"):
        parse_cards("[[card]]\nid = 1")


def test_card_ids_are_read_loosely() -> None:
    assert parse_card_id("p7") == "P07"
    assert parse_card_id("P07") == "P07"
    assert parse_card_id("a61") == "A61"
    assert parse_card_id("g2") == "G2"
    assert parse_card_id("P51") is None
    assert parse_card_id("bob") is None


def test_a_card_casts_its_symbols_into_the_proposals_boxes() -> None:
    pro, anti = CARDS["P01"], CARDS["A13"]
    assert CARDS["P12"].casts(pro) == (2, 0), "two pro symbols on a pro proposal: two yes votes"
    assert CARDS["A35"].casts(pro) == (0, 2)
    assert CARDS["P12"].casts(anti) == (0, 2)
    assert CARDS["G1"].casts(CARDS["G2"]) == (0, 2), "a bill used as a vote card votes with its symbols"
    assert CARDS["A01"].casts(pro) == (0, 1), "an eye is no vote by default"
    assert CARDS["A01"].casts(pro, eye_votes=True) == (0, 2)


# --- setting up -------------------------------------------------------------------------------


@pytest.mark.parametrize(("n", "pro", "removed"), [(4, 2, 0), (5, 2, 7), (6, 3, 0), (7, 3, 3), (8, 4, 0)])
def test_the_deal(n: int, pro: int, removed: int) -> None:
    state = game(n, seed=n)
    assert Counter(state.stances) == {"pro": pro, "anti": n - pro}
    assert len(state.removed) == removed
    assert set(state.removed) <= set(REMOVAL_POOL)
    assert all(len(h) == n for h in state.hands)
    assert len(state.deck) == 113 - n * n - removed
    assert (state.round, state.speaker, state.phase) == (1, 0, Phase.PROPOSE)
    assert (state.pro, state.anti) == (0, 0)
    board = ENGINE.public_view(state, "zh-TW")
    assert board.count("擁核｜手牌") == pro, "stances are public"
    assert f"移出 {removed} 張" in board
    assert not any(c in board for c in state.removed), "the removed cards stay unseen"


def test_the_removal_is_an_option() -> None:
    assert len(game(5, removal="balanced").removed) == 6
    assert len(game(7, removal="balanced").removed) == 5
    assert game(5, removal="off").removed == ()
    assert len({game(5, seed=s).removed for s in range(8)}) > 1, "drawn at random"


def test_seat_counts_outside_four_to_eight_are_refused() -> None:
    for n in (3, 9):
        with pytest.raises(SeatingError):
            rules.new_game([f"s{k}" for k in range(n)], None, random.Random(0))


# --- a round, step by step --------------------------------------------------------------------


def test_only_the_speaker_proposes_a_card_from_hand_and_everyone_sees_it() -> None:
    state = table()
    with pytest.raises(NotYourTurnError):
        act(state, "bob", "propose A19")
    with pytest.raises(MissingCardError):
        act(state, "ann", "propose A19")
    state, events = act(state, "ann", "propose P01")
    assert state.phase is Phase.VOTE1
    assert state.voters == (1, 2, 3), "the speaker does not vote on an issue"
    shown = public(events)
    assert "P01 “Generating nuclear power emits almost no carbon dioxide” (pro ⬜ · votes ⬜ · score 3)" in shown
    assert "Yes box ⬜ (pro votes), no box 🟩 (anti votes)." in shown
    assert "P01「核能發電過程幾乎不排放二氧化碳」（擁核 ⬜｜票 ⬜｜3 分）" in public(events, "zh-TW")


def test_the_first_vote_is_secret_one_card_each_and_revealed_together() -> None:
    state, _ = act(table(), "ann", "propose P01")
    assert ENGINE.awaiting(state) == {"bob", "cat", "dan"}
    assert ENGINE.is_secret(Vote(cards=("A19",)))
    with pytest.raises(IllegalActionError, match="exactly one"):
        act(state, "bob", "vote A19 A35")
    with pytest.raises(WrongRoleError):
        act(state, "ann", "vote P45")
    state, events = act(state, "bob", "vote A35")
    assert public(events) == "bob has voted (1 of 3)."
    assert "A35" in private(events, "bob")
    assert "no ×2" in private(events, "bob")
    assert "A35" not in ENGINE.public_view(state), "the board shows no vote before the reveal"
    assert "1 of 3 voted" in ENGINE.public_view(state)
    with pytest.raises(IllegalActionError, match="voted already"):
        act(state, "bob", "vote A19")
    state, events = acts(state, [("cat", "vote P12"), ("dan", "vote A21")])
    shown = public(events)
    assert "cat has voted (2 of 3)." in shown
    assert "**First vote**, every card at once:" in shown
    assert "bob: A35" in shown
    assert "cat: P12" in shown
    assert "dan: A21" in shown
    assert "So far 2 yes, 3 no." in shown
    assert state.phase is Phase.TALK
    assert ENGINE.awaiting(state) == {"ann"}


def test_the_first_vote_may_be_made_optional() -> None:
    state, _ = act(table(), "ann", "propose P01")
    with pytest.raises(IllegalActionError, match="mandatory"):
        act(state, "bob", "abstain")
    state, _ = act(table(first_vote_optional=True), "ann", "propose P01")
    state, events = acts(state, [("bob", "abstain"), ("cat", "vote P12"), ("dan", "vote A21")])
    assert "bob: abstains" in public(events)
    assert state.vote1[1] == ABSTAIN
    assert "So far 2 yes, 1 no." in public(events)
    assert ENGINE.is_secret(Abstain())


def test_gifts_are_binding_at_once_and_only_the_two_see_which_cards() -> None:
    state, _ = to_talk(table(), "P01", {"bob": "A35", "cat": "P12", "dan": "A21"})
    assert ENGINE.is_secret(Give(cards=("P45",), to="bob")), "typed in the thread it would show the cards"
    with pytest.raises(NotYourTurnError):
        act(state, "bob", "give A19 @cat")
    with pytest.raises(MissingCardError):
        act(state, "ann", "give A19 @bob")
    state, events = act(state, "ann", "give P45 A13 @bob")
    assert "P45" in state.hands[1]
    assert "A13" in state.hands[1]
    assert "P45" not in state.hands[0]
    assert [type(e) for e in events] == [GiftSeen, GiftCards]
    assert public(events) == "ann gave bob 2 cards."
    assert "P45" in private(events, "bob")
    assert "P45" in private(events, "ann")
    assert private(events, "cat") == ""
    assert "ann gave bob 2 cards." in ENGINE.public_view(state)
    assert "P45" not in ENGINE.public_view(state)
    assert "This round ann gave you P45, A13." in ENGINE.private_view(state, "bob")


def test_anyone_may_give_when_the_table_says_so() -> None:
    state, _ = to_talk(table(anyone_gives=True), "P01", {"bob": "A35", "cat": "P12", "dan": "A21"})
    state, events = act(state, "bob", "give A19 @ann")
    assert public(events) == "bob gave ann 1 card."
    assert ENGINE.awaiting(state) == {"ann"}, "only the speaker is awaited"


def test_a_transferred_proposal_scores_for_its_receiver() -> None:
    state = arranged(table(), passed={"ann": ["P02"]})
    state, _ = to_talk(state, "P01", {"bob": "A35", "cat": "P12", "dan": "A21"})
    with pytest.raises(MissingCardError):
        act(state, "ann", "transfer P03 @bob")
    state, events = act(state, "ann", "transfer P02 @bob")
    assert state.passed[1] == ("P02",)
    assert state.passed[0] == ()
    assert "ann hands the passed proposal P02" in public(events)
    assert rules.scores(state)["bob"] == 3


def test_promises_are_noted_and_never_enforced() -> None:
    state, _ = to_talk(table(), "P01", {"bob": "A35", "cat": "P12", "dan": "A21"})
    state, events = act(state, "ann", "promise @bob I back your next one `@everyone` <b>")
    assert public(events).startswith(
        "📝 ann promises bob support for their coming proposals: “I back your next one everyone b”"
    )
    assert state.deals[-1].kind == "promise"
    assert state.deals[-1].note == "I back your next one everyone b", "no markup, no pings"
    assert "📝 Round 1: ann promised bob support" in ENGINE.public_view(state)
    with pytest.raises(IllegalActionError):
        act(state, "ann", "promise @ann")


def test_the_speaker_ends_the_negotiation_and_the_second_vote_takes_one_or_two_cards() -> None:
    state, _ = to_talk(table(), "P01", {"bob": "A35", "cat": "P12", "dan": "A21"})
    with pytest.raises(NotYourTurnError):
        act(state, "bob", "end")
    state, events = act(state, "ann", "end")
    assert state.phase is Phase.PLACE
    assert "**Second vote**: bob, cat, dan" in public(events)
    with pytest.raises(IllegalActionError, match="one or two"):
        act(state, "bob", "place A19 A01 P02")
    state, events = act(state, "bob", "place A19 P02")
    assert public(events) == "bob placed 2 cards face down (1 of 3)."
    assert "A19" not in public(events)
    assert state.placed[1] == ("A19", "P02")
    assert "A19" not in state.hands[1]
    state, events = acts(state, [("cat", "place P17"), ("dan", "place A36")])
    assert state.phase is Phase.COUNT
    assert "ann, count to three" in public(events)
    with pytest.raises(NotYourTurnError):
        act(state, "bob", "count")
    with pytest.raises(IllegalActionError, match="after the speaker's count"):
        act(state, "bob", "reveal")
    state, events = act(state, "ann", "1 2 3")
    assert state.phase is Phase.REVEAL
    assert "ann: “1, 2, 3!” Reveal or withdraw within 15s" in public(events)


def test_reveal_or_withdraw_moves_both_cards_and_withdrawn_cards_are_never_shown() -> None:
    state, _ = to_talk(table(), "P01", {"bob": "A35", "cat": "P12", "dan": "A21"})
    state, events = second_vote(
        state, {"bob": "A19 P02", "cat": "P17 P25", "dan": "A36"}, {"bob": "reveal", "cat": "withdraw"}
    )
    assert public(events).endswith("cat has chosen (2 of 3).")
    assert "P17" not in public(events), "choices stay secret until all are in"
    assert "A19" not in public(events)
    with pytest.raises(IllegalActionError, match="locked"):
        act(state, "cat", "reveal")
    state, events = act(state, "dan", "withdraw")
    shown = public(events)
    assert "• bob reveals A19" in shown, "both of bob's cards, voting opposite ways"
    assert "P02" in shown
    assert "• cat withdraws 2 cards" in shown
    assert "• dan withdraws 1 card" in shown
    assert "P17" not in shown
    assert "P25" not in shown
    assert "A36" not in shown
    assert {"P17", "P25"} <= set(state.hands[2]), "withdrawn cards go back to the hand"
    assert "A36" in state.hands[3]
    assert {"A19", "P02", "A35", "P12", "A21"} <= set(state.discard), "revealed cards are discarded"


def test_both_votes_count_and_a_proposal_passes_with_one_yes_more() -> None:
    state, _ = to_talk(table(), "P01", {"bob": "A35", "cat": "P12", "dan": "A21"})  # 2 yes, 3 no
    state, events = second_vote(
        state, {"bob": "A19", "cat": "P17 P25", "dan": "A36"}, {"bob": "withdraw", "cat": "reveal", "dan": "withdraw"}
    )
    resolved = next(e for e in events if isinstance(e, Resolved))
    assert (resolved.first, resolved.second, resolved.passed) == ((2, 3), (2, 0), True)
    assert "Result: 4 yes, 3 no (first vote 2:3, second vote 2:0): **passed**." in public(events)
    assert state.passed[0] == ("P01",), "the proposal goes before its speaker"
    assert state.pro >= 1


def test_a_tie_fails_and_the_proposal_is_discarded() -> None:
    state, _ = to_talk(table(eye="off"), "P01", {"bob": "A35", "cat": "P12", "dan": "A21"})  # 2:3
    state, events = second_vote(
        state, {"bob": "A19", "cat": "P17", "dan": "A36"}, {"bob": "withdraw", "cat": "reveal", "dan": "withdraw"}
    )
    assert "Result: 3 yes, 3 no" in public(events)
    assert "**failed**" in public(events)
    assert "P01" in state.discard
    assert (state.pro, state.anti) == (0, 0)


def test_the_pass_rule_needs_one_yes_more() -> None:
    state = table().model_copy(update={"proposal": "P01"})
    assert not rules.passes(state, 0, 0), "0 to 0 fails"
    assert not rules.passes(state, 2, 2)
    assert rules.passes(state, 1, 0)
    assert rules.passes(state, 3, 2)


def test_the_first_vote_can_be_left_out_of_the_tally() -> None:
    state, _ = to_talk(table(first_vote_counts=False, eye="off"), "P01", {"bob": "A35", "cat": "P12", "dan": "A21"})
    state, events = second_vote(
        state, {"bob": "A19", "cat": "P17", "dan": "A36"}, {"bob": "withdraw", "cat": "reveal", "dan": "withdraw"}
    )
    assert "Result: 1 yes, 0 no (the second vote only): **passed**." in public(events)


def test_a_passed_proposal_adds_its_opinion_symbols() -> None:
    state, _ = to_talk(table(eye="off"), "P45", {"bob": "A35", "cat": "P12", "dan": "A21"})  # 2:3
    state, events = second_vote(
        state, {"bob": "A19", "cat": "P17 P25", "dan": "A36"}, {"bob": "withdraw", "cat": "reveal", "dan": "withdraw"}
    )
    assert state.pro == 3, "P45 has three opinion symbols"
    assert "⬜ pro index +3 → 3/12." in public(events)
    assert "擁核指數 +3 → 3/12" in public(events, "zh-TW")


# --- the eye ----------------------------------------------------------------------------------


def test_the_side_with_more_revealed_eyes_gains_one() -> None:
    # vote 1: bob A01 (anti eye), cat P17 (pro eye), dan A02 (anti eye): anti 2 eyes to pro 1
    state, _ = to_talk(table(), "P01", {"bob": "A01", "cat": "P17", "dan": "A02"})
    state, events = second_vote(
        state, {"bob": "A19", "cat": "P12", "dan": "A36"}, {"bob": "withdraw", "cat": "withdraw", "dan": "withdraw"}
    )
    assert state.anti == 1
    assert "👁 More anti eyes were revealed: anti index +1 → 1/18." in public(events)


def test_withdrawn_eyes_do_not_count_and_equal_eyes_give_nothing() -> None:
    state, _ = to_talk(table(), "P01", {"bob": "A01", "cat": "P17", "dan": "A21"})  # one eye each side
    state, _ = second_vote(
        state, {"bob": "A19", "cat": "P12", "dan": "A02"}, {"bob": "withdraw", "cat": "withdraw", "dan": "withdraw"}
    )
    assert (state.pro, state.anti) == (0, 0), "dan's eye was withdrawn: 1 to 1"


def test_an_eye_never_reaches_a_goal_and_comes_after_the_proposal() -> None:
    state = table().model_copy(update={"anti": 17, "pro": 10})
    state, _ = to_talk(state, "P01", {"bob": "A01", "cat": "P12", "dan": "A02"})
    state, events = second_vote(
        state, {"bob": "A19", "cat": "P17", "dan": "A36"}, {"bob": "withdraw", "cat": "withdraw", "dan": "withdraw"}
    )
    assert state.anti == 17, "the eye stops at 17"
    assert "but an eye never reaches the goal" in public(events)
    assert state.phase is Phase.PROPOSE, "an eye alone never ends the game"
    eyes = list(next(e for e in events if isinstance(e, Resolved)).effects)
    assert [e.why for e in eyes] == ["eye_capped"]


def test_the_eye_can_be_a_vote_or_nothing() -> None:
    state, _ = to_talk(table(eye="vote"), "P01", {"bob": "A01", "cat": "P17", "dan": "A21"})
    assert "2 yes, 3 no." in ENGINE.public_view(state), "each eye is one more vote of its card's side"
    state, _events = second_vote(
        state, {"bob": "A19", "cat": "P12", "dan": "A36"}, {"bob": "withdraw", "cat": "withdraw", "dan": "withdraw"}
    )
    assert (state.pro, state.anti) == (0, 0), "no eye bonus then"
    state, _ = to_talk(table(eye="off"), "P01", {"bob": "A01", "cat": "P12", "dan": "A02"})
    state, _ = second_vote(
        state, {"bob": "A19", "cat": "P17", "dan": "A36"}, {"bob": "withdraw", "cat": "withdraw", "dan": "withdraw"}
    )
    assert (state.pro, state.anti) == (0, 0)


# --- referendums and government bills ---------------------------------------------------------


def test_at_a_referendum_everyone_votes_the_speaker_too() -> None:
    state, events = act(table(), "ann", "propose P50")
    assert state.voters == (0, 1, 2, 3)
    assert "A referendum: everyone votes, the speaker too" in public(events)
    assert "at least 4 yes votes" in public(events)
    state, _ = acts(state, [("ann", "vote P01"), ("bob", "vote A35"), ("cat", "vote P12"), ("dan", "vote A21")])
    state, _ = act(state, "ann", "end")
    assert state.placers == (0, 1, 2, 3)
    assert "ann" in ENGINE.awaiting(state)


def test_a_referendum_needs_as_many_yes_votes_as_players() -> None:
    # yes 1 + 2 = 3 in the first vote against 3 no; then ann reveals P45: 4 yes... but no 3: passes
    state, _ = act(table(eye="off"), "ann", "propose P50")
    state, _ = acts(state, [("ann", "vote P01"), ("bob", "vote A35"), ("cat", "vote P12"), ("dan", "vote A21")])
    # first vote: ann 1 yes, cat 2 yes; bob 2 no, dan 1 no: 3 to 3
    state, events = second_vote(
        state,
        {"ann": "P45", "bob": "A19", "cat": "P17", "dan": "A36"},
        {"ann": "reveal", "bob": "withdraw", "cat": "withdraw", "dan": "withdraw"},
    )
    assert "Result: 4 yes, 3 no" in public(events)
    assert state.pro == 3, "passed: +3 to its side"
    assert state.passed[0] == ("P50",), "the speaker keeps it"
    assert "The referendum passed: pro index +3 → 3/12." in public(events)


def test_with_swings_a_referendum_short_of_the_turnout_fails_and_the_other_side_gains_two() -> None:
    state, _ = act(table(eye="off", swings=True), "ann", "propose P50")
    state, _ = acts(state, [("ann", "vote P01"), ("bob", "vote A19"), ("cat", "vote P17"), ("dan", "vote A21")])
    state, events = second_vote(
        state,
        {"ann": "P45", "bob": "A35", "cat": "P12", "dan": "A36"},
        {"ann": "reveal", "bob": "withdraw", "cat": "withdraw", "dan": "withdraw"},
    )
    assert "Result: 3 yes, 2 no" in public(events), "more yes than no..."
    assert "a referendum needs at least 4 yes votes (it had 3)" in public(events), "...but fewer than the players"
    assert state.anti == 2
    assert "P50" in state.discard
    assert "The referendum failed: anti index +2 → 2/18." in public(events)


def test_the_referendum_turnout_is_an_option() -> None:
    state, _ = act(table(eye="off", referendum_turnout=False), "ann", "propose P50")
    state, _ = acts(state, [("ann", "vote P01"), ("bob", "vote A19"), ("cat", "vote P17"), ("dan", "vote A21")])
    state, events = second_vote(
        state,
        {"ann": "P45", "bob": "A35", "cat": "P12", "dan": "A36"},
        {"ann": "reveal", "bob": "withdraw", "cat": "withdraw", "dan": "withdraw"},
    )
    assert "**passed**" in public(events)


def test_with_swings_a_failed_referendum_can_end_the_game() -> None:
    state = table(eye="off", swings=True).model_copy(update={"anti": 16})
    state, _ = act(state, "ann", "propose P50")
    state, _ = acts(state, [("ann", "vote P01"), ("bob", "vote A19"), ("cat", "vote P17"), ("dan", "vote A21")])
    state, _events = second_vote(
        state,
        {"ann": "P45", "bob": "A35", "cat": "P12", "dan": "A36"},
        {"ann": "withdraw", "bob": "reveal", "cat": "withdraw", "dan": "withdraw"},
    )
    assert state.phase is Phase.OVER
    assert state.ending == "anti"


def test_with_swings_government_bills_move_both_indices_and_never_double() -> None:
    state = table(eye="off", swings=True).model_copy(update={"pro": 3, "anti": 1})
    state, events = act(state, "ann", "propose G1")
    assert "A government bill: if it passes, pro +1 and anti −2" in public(events)
    state, _ = acts(state, [("bob", "vote P02"), ("cat", "vote P12"), ("dan", "vote A21")])
    state, events = second_vote(
        state, {"bob": "A19", "cat": "P17", "dan": "A36"}, {"bob": "withdraw", "cat": "withdraw", "dan": "withdraw"}
    )
    assert (state.pro, state.anti) == (4, 0), "anti −2 stops at 0"
    assert state.passed[0] == ("G1",)
    final = state.model_copy(update={"phase": Phase.OVER, "ending": "pro"})
    assert rules.scores(final)["ann"] == 2, "a bill scores 2 and never doubles"


def test_with_swings_the_mothballing_bill_favours_anti() -> None:
    state = arranged(table(eye="off", swings=True), {"ann": ["G2", "P01"]}).model_copy(update={"pro": 5, "anti": 4})
    state, _ = to_talk(state, "G2", {"bob": "A35", "cat": "P17", "dan": "A21"})  # 3 yes to 1 no
    state, _ = second_vote(
        state, {"bob": "A19", "cat": "P12", "dan": "A36"}, {"bob": "withdraw", "cat": "withdraw", "dan": "withdraw"}
    )
    assert (state.pro, state.anti) == (3, 5)


def _failed_referendum(state: NuclearState) -> tuple[NuclearState, list]:
    """ann's P50 short of the turnout: 3 yes to 2 no at four players."""
    state, _ = act(state, "ann", "propose P50")
    state, _ = acts(state, [("ann", "vote P01"), ("bob", "vote A19"), ("cat", "vote P17"), ("dan", "vote A21")])
    return second_vote(
        state,
        {"ann": "P45", "bob": "A35", "cat": "P12", "dan": "A36"},
        {"ann": "reveal", "bob": "withdraw", "cat": "withdraw", "dan": "withdraw"},
    )


def test_by_default_a_failed_referendum_is_only_discarded() -> None:
    state, events = act(table(eye="off"), "ann", "propose P50")
    assert "at least 4 yes votes" in public(events)
    assert "gains 2" not in public(events), "the proposal's announcement promises no swing"
    assert "+2" not in public(events, "zh-TW")
    state, events = _failed_referendum(table(eye="off"))
    assert "a referendum needs at least 4 yes votes (it had 3)" in public(events)
    assert (state.pro, state.anti) == (0, 0), "the source's indices only grow by passed proposals"
    assert "P50" in state.discard
    assert "The referendum failed" not in public(events)


def test_by_default_a_failed_referendum_never_ends_the_game() -> None:
    state, _ = _failed_referendum(table(eye="off").model_copy(update={"anti": 17}))
    assert state.phase is Phase.PROPOSE
    assert state.ending is None
    assert state.anti == 17


def test_by_default_a_government_bill_scores_and_moves_no_index() -> None:
    state = table(eye="off").model_copy(update={"pro": 11, "anti": 1})
    state, events = act(state, "ann", "propose G1")
    assert "−2" not in public(events)
    assert "+1" not in public(events)
    assert "moves no index" in public(events)
    state, _ = acts(state, [("bob", "vote P02"), ("cat", "vote P12"), ("dan", "vote A21")])
    state, events = second_vote(
        state, {"bob": "A19", "cat": "P17", "dan": "A36"}, {"bob": "withdraw", "cat": "withdraw", "dan": "withdraw"}
    )
    assert "**passed**" in public(events)
    assert state.passed[0] == ("G1",), "the speaker keeps it for its 2 points"
    assert (state.pro, state.anti) == (11, 1), "a bill has no opinion symbols: pro stays one short of 12"
    assert state.phase is Phase.PROPOSE, "only a proposal's symbols end the game"


def test_with_swings_a_government_bill_can_end_the_game() -> None:
    state = table(eye="off", swings=True).model_copy(update={"pro": 11, "anti": 1})
    state, _ = to_talk(state, "G1", {"bob": "P02", "cat": "P12", "dan": "A21"})
    state, _ = second_vote(
        state, {"bob": "A19", "cat": "P17", "dan": "A36"}, {"bob": "withdraw", "cat": "withdraw", "dan": "withdraw"}
    )
    assert (state.phase, state.ending) == (Phase.OVER, "pro")


def test_the_swings_are_a_table_option() -> None:
    from games.tables.options import parse_play

    assert not rules.NuclearOptions().swings, "off by default, as the source has it"
    request = parse_play(["nuclear", "swings:on"])
    assert request.game_options is not None
    assert rules.NuclearOptions.model_validate_json(request.game_options).swings


# --- the end ----------------------------------------------------------------------------------


def _passing_round(state: NuclearState, proposal: str) -> tuple[NuclearState, list]:
    state, _ = to_talk(state, proposal, {"bob": "A35", "cat": "P12", "dan": "A21"})
    return second_vote(
        state, {"bob": "A19", "cat": "P17 P25", "dan": "A36"}, {"bob": "withdraw", "cat": "reveal", "dan": "withdraw"}
    )


def test_reaching_twelve_finishes_the_plant_and_pro_players_double_their_pro_cards() -> None:
    state = arranged(table(eye="off"), passed={"ann": ["A20"], "bob": ["P03", "A03"], "cat": ["P04"], "dan": ["A04"]})
    state = state.model_copy(update={"pro": 11})
    state, events = _passing_round(state, "P01")
    assert state.phase is Phase.OVER
    assert state.ending == "pro"
    assert ENGINE.status(state) == "finished"
    scores = rules.scores(state)
    # ann (pro): P01 3 doubled + A20 2 = 8; bob (anti): P03 3 + A03 2 = 5; cat (pro): P04 3 doubled = 6
    assert scores == {"ann": 8, "bob": 5, "cat": 6, "dan": 2}
    assert rules.winners(state) == ("ann",)
    over = next(e for e in events if isinstance(e, GameOver))
    assert "【核四完工】" in over.text()
    assert "ann 8 (+3 doubled)" in over.text()
    assert "**【核四完工】**擁核指數達到 12！" in over.text("zh-TW")
    result = ENGINE.result(state)
    assert result.winners == ("ann",)
    assert result.scores["ann"] == 8
    assert "核四完工" in result.summary
    assert "以 8 分獲勝" in result.summaries["zh-TW"]
    with pytest.raises(GameOverError):
        act(state, "ann", "propose P45")


def test_reaching_eighteen_abolishes_the_plant_and_anti_players_double_their_anti_cards() -> None:
    state = arranged(table(eye="off"), {"ann": ["A13", "P01"]}, passed={"bob": ["A14"], "dan": ["P04"]})
    state = state.model_copy(update={"anti": 17})
    state, _ = to_talk(state, "A13", {"bob": "A35", "cat": "P12", "dan": "A21"})  # 3 yes, 2 no
    state, _ = second_vote(
        state, {"bob": "A19", "cat": "P17", "dan": "A36"}, {"bob": "reveal", "cat": "withdraw", "dan": "withdraw"}
    )
    assert state.ending == "anti"
    scores = rules.scores(state)
    assert scores["ann"] == 3, "ann is pro: her anti card counts once"
    assert scores["bob"] == 6, "bob is anti: A14 doubled"
    assert scores["dan"] == 3, "dan's pro card counts once"


def test_ties_share_the_win() -> None:
    base = table().model_copy(update={"phase": Phase.OVER, "ending": "cap"})
    tied = base.model_copy(update={"passed": (("P02",), ("P03",), ("A20",), ())})
    assert rules.scores(tied) == {"ann": 3, "bob": 3, "cat": 2, "dan": 0}
    assert rules.winners(tied) == ("ann", "bob")
    by_passed = tied.model_copy(
        update={
            "passed": (("P02",), ("A14", "A20"), ("A21",), ()),
            "options": tied.options.model_copy(update={"ties": "passed"}),
        }
    )
    assert rules.scores(by_passed)["ann"] == 3
    assert rules.scores(by_passed)["bob"] == 5
    even = tied.model_copy(
        update={
            "passed": (("P02",), ("A13",), ("A14",), ()),
            "options": tied.options.model_copy(update={"ties": "passed"}),
        }
    )
    assert rules.winners(even) == ("ann", "bob", "cat"), "equal counts: still shared"
    split = tied.model_copy(
        update={
            "passed": (("P02",), ("A20", "A22"), ("P05",), ("A21",)),
            "options": tied.options.model_copy(update={"ties": "passed"}),
        }
    )
    assert rules.scores(split) == {"ann": 3, "bob": 4, "cat": 3, "dan": 2}
    three = tied.model_copy(
        update={
            "passed": (("P02",), ("A20", "P40"), ("P05",), ()),
            "options": tied.options.model_copy(update={"ties": "passed"}),
        }
    )
    assert rules.scores(three)["bob"] == 3
    assert rules.winners(three) == ("bob",), "3 each for ann, bob and cat; bob passed two"


def test_the_stalemate_cap_ends_the_game_without_doubling() -> None:
    state = arranged(table(eye="off", max_rounds=4), passed={"cat": ["P04"]}).model_copy(update={"round": 4})
    state, events = _passing_round(state, "P01")
    assert state.phase is Phase.OVER
    assert state.ending == "cap"
    assert rules.scores(state)["ann"] == 3, "nothing doubles"
    assert rules.scores(state)["cat"] == 3
    assert "**Stalemate**" in public(events)


# --- the next round ---------------------------------------------------------------------------


def test_the_next_speaker_draws_n_and_the_others_refill_to_two() -> None:
    deck = ["P05", "P06", "P07", "P08", "P09", "P10", "P11"]
    state = arranged(table(eye="off"), {"bob": ["A19", "A35"], "dan": ["A21"]}, deck=deck)
    state, _ = to_talk(state, "P01", {"bob": "A35", "cat": "P12", "dan": "A21"})
    assert act(state, "ann", "end")[0].placers == (1, 2), "dan holds no card for the second vote"
    state, events = second_vote(state, {"bob": "A19", "cat": "P17"}, {"bob": "reveal", "cat": "reveal"})
    assert state.round == 2
    assert state.speaker == 1
    assert "**Round 2**: bob is the speaker. The speaker draws 4 cards. Drawing up to 2: dan 2." in public(events)
    assert state.hands[1] == ("P05", "P06", "P07", "P08"), "bob had nothing left and draws four from the top"
    assert state.hands[3] == ("P09", "P10"), "dan had none and draws up to two"
    assert "P05" in private(events, "bob")
    assert "P05" not in public(events)
    assert "P09" in private(events, "dan")
    assert "P09" not in private(events, "bob")


def test_an_empty_deck_is_refilled_from_the_discard_pile() -> None:
    state = table(eye="off")
    state = state.model_copy(update={"deck": (), "discard": state.deck})
    new, drawn, mixed = rules._draw(state, 3, random.Random(5))
    assert len(drawn) == 3
    assert mixed == len(state.discard)
    assert len(new.deck) == len(state.discard) - 3
    assert new.discard == ()
    again, _, _ = rules._draw(state, 3, random.Random(5))
    assert again == new, "the same dice, the same deck"
    _, none, _ = rules._draw(state.model_copy(update={"discard": ()}), 2, random.Random(0))
    assert none == (), "with both piles empty nothing is drawn"


def test_the_refill_is_announced_with_the_round() -> None:
    state = arranged(table(eye="off"), {"bob": ["A19", "A35"], "cat": ["P12", "P17"], "dan": ["A21", "A36"]})
    state = state.model_copy(update={"deck": (), "discard": state.deck})
    state, _ = to_talk(state, "P01", {"bob": "A35", "cat": "P12", "dan": "A21"})
    state, events = second_vote(
        state, {"bob": "A19", "cat": "P17", "dan": "A36"}, {"bob": "withdraw", "cat": "withdraw", "dan": "withdraw"}
    )
    assert "The deck ran out: the discard pile" in public(events)
    assert len(state.hands[1]) == 5, "bob kept A19 and drew four"
    assert ENGINE.invariants(state) == []


# --- deadlines --------------------------------------------------------------------------------


def _timeout(state: NuclearState) -> tuple[NuclearState, tuple] | None:
    (timer,) = ENGINE.timers(state)
    return ENGINE.on_timeout(state, timer, random.Random(0))


def test_every_phase_has_its_deadline() -> None:
    state = table()
    assert ENGINE.timers(state) == (Timer("r1:propose", 120, "turn", "ann"),)
    assert _timeout(state) is None, "the computer proposes for the speaker"
    state, _ = act(state, "ann", "propose P01")
    assert ENGINE.timers(state) == (Timer("r1:vote1", 90, "phase"),)
    assert _timeout(state) is None, "the computer votes for the missing"
    state, _ = acts(state, [("bob", "vote A35"), ("cat", "vote P12"), ("dan", "vote A21")])
    assert ENGINE.timers(state) == (Timer("r1:talk", 180, "phase"),)
    handled = _timeout(state)
    assert handled is not None
    placed, events = handled
    assert placed.phase is Phase.PLACE
    assert "⌛ The negotiation time is up." in public(events)
    assert ENGINE.timers(placed) == (Timer("r1:place", 60, "phase"),)
    assert _timeout(placed) is None
    state, _ = acts(placed, [("bob", "place A19"), ("cat", "place P17"), ("dan", "place A36")])
    assert ENGINE.timers(state) == (Timer("r1:count", 30, "phase"),)
    handled = _timeout(state)
    assert handled is not None
    state, events = handled
    assert state.phase is Phase.REVEAL
    assert "⌛ Time is up, so the bot counts" in public(events)
    assert ENGINE.timers(state) == (Timer("r1:reveal", 15, "phase"),)
    state, _ = act(state, "bob", "reveal")
    handled = _timeout(state)
    assert handled is not None
    state, events = handled
    shown = public(events)
    assert "• bob reveals A19" in shown
    assert "• cat did not choose in time: 1 card withdrawn" in shown
    assert "P17" not in shown, "a card withdrawn by default is not shown either"
    assert state.round == 2
    assert ENGINE.on_timeout(state, Timer("r1:reveal", 15), random.Random(0)) is None, "an old deadline does nothing"


def test_the_deadlines_are_options() -> None:
    state = table(negotiation="2m", reveal="20s", vote=45)
    assert (state.options.negotiation, state.options.reveal, state.options.vote) == (120, 20, 45)
    text = ENGINE.timers_text(state.options, 0, "zh-TW")
    assert text is not None
    assert "協商 2 分鐘" in text
    from pydantic import ValidationError

    with pytest.raises(ValidationError):
        table(negotiation="soon")


def test_the_negotiation_lasts_three_minutes_at_most() -> None:
    """The source: 「協商階段不可超過三分鐘」; the option may shorten it, never lengthen it."""
    from pydantic import ValidationError

    from games.tables.options import parse_play

    assert rules.NuclearOptions().negotiation == 180
    assert table(negotiation="2m30s").options.negotiation == 150
    assert table(negotiation="3m").options.negotiation == 180
    for longer in ("181s", "4m", 600):
        with pytest.raises(ValidationError, match="at most 3 minutes"):
            table(negotiation=longer)
    with pytest.raises(BadCommandError, match="at most 3 minutes"):
        parse_play(["nuclear", "negotiation:5m"])


def test_a_table_stored_with_a_longer_negotiation_reads_back_with_three_minutes() -> None:
    """A table saved before the cap keeps playing: its stored options read back at the cap."""
    state = table()
    stored = state.model_dump_json().replace('"negotiation":180', '"negotiation":600')
    assert '"negotiation":600' in stored
    loaded = ENGINE.load_state(stored)
    assert loaded.options.negotiation == 180
    assert rules.NuclearOptions.model_validate_json('{"negotiation": 900}').negotiation == 180


# --- commands and texts -----------------------------------------------------------------------


def test_chinese_command_words_and_loose_card_ids() -> None:
    state = table()
    assert ENGINE.parse_action(state, "ann", "!提案 p1").model_dump() == {"kind": "propose", "card": "P01"}
    state, _ = act(state, "ann", "propose P01")
    assert ENGINE.parse_action(state, "bob", "投 a35") == Vote(cards=("A35",))
    state, _ = acts(state, [("bob", "vote A35"), ("cat", "vote P12"), ("dan", "vote A21")])
    assert ENGINE.parse_action(state, "ann", "給 P45 A13 給 @bob") == Give(cards=("P45", "A13"), to="bob")
    assert ENGINE.parse_action(state, "ann", "承諾 @bob 下次挺你") == Promise(to="bob", note="下次挺你")
    assert ENGINE.parse_action(state, "ann", "結束").kind == "end"
    with pytest.raises(BadCommandError, match="is not a move"):
        ENGINE.parse_action(state, "ann", "dance")
    with pytest.raises(BadCommandError, match="name the cards"):
        ENGINE.parse_action(state, "ann", "give @bob")
    with pytest.raises(BadCommandError, match="say who"):
        ENGINE.parse_action(state, "ann", "give P45")


def test_errors_come_in_both_languages() -> None:
    state = table()
    with pytest.raises(MissingCardError) as caught:
        act(state, "ann", "propose A19")
    assert str(caught.value) == "A19 is not in your hand"
    assert caught.value.in_language("zh-TW").args == ("你手上沒有 A19",)
    assert isinstance(caught.value.in_language("zh-TW"), MissingCardError)
    with pytest.raises(BadCommandError) as unread:
        ENGINE.parse_action(state, "ann", "跳舞")
    assert "不是關你核四的指令" in str(unread.value.in_language("zh-TW"))


def test_the_hand_shows_what_each_card_casts_on_the_proposal() -> None:
    state, _ = act(table(), "ann", "propose P01")
    hand = ENGINE.private_view(state, "bob", "en")
    assert "Your stance: 🟩 anti (everyone knows it)." in hand
    assert "A35 “" in hand
    assert "→ no ×2" in hand
    assert "A01 “" in hand
    assert "→ no ×1 + 👁" in hand
    assert "P02 “" in hand
    assert "→ yes ×1" in hand
    assert "one card for the first vote" in hand
    zh = ENGINE.private_view(state, "bob", "zh-TW")
    assert "你的立場：🟩 反核" in zh
    assert "→ 反對 ×2" in zh


def test_the_rules_state_every_open_choice() -> None:
    for lang in ("en", "zh-TW"):
        text = ENGINE.rules_text(lang)
        for option in rules.NuclearOptions.model_fields:
            assert f"`{option}`" in text, (lang, option)
    zh = ENGINE.rules_text("zh-TW")
    for words in (
        "第一輪的票也算進",
        "眼睛",
        "公投",
        "政府法案",
        "只有議長可以送牌",
        "拿掉 7 張和 3 張",
        "同分時一起獲勝",
        "第 40 回合",
        "時限",
    ):
        assert words in zh, words


def test_every_option_is_set_by_play_words() -> None:
    from games.tables.options import parse_play

    words = ["nuclear", "ai:3", "lang:en", "negotiation:180s", "reveal:20s", "eye:off", "removal:balanced"]
    words += ["first_vote_optional:on", "first_vote_counts:off", "anyone_gives:yes", "ties:passed", "max_rounds:30"]
    request = parse_play(words)
    assert (request.ai, request.lang) == (3, "en")
    assert request.game_options is not None
    options = rules.NuclearOptions.model_validate_json(request.game_options)
    assert (options.negotiation, options.reveal, options.eye, options.removal) == (180, 20, "off", "balanced")
    assert options.first_vote_optional
    assert not options.first_vote_counts
    assert options.anyone_gives
    assert (options.ties, options.max_rounds) == ("passed", 30)
    assert parse_play(["核四"]).game == "nuclear", "an alias"
    with pytest.raises(BadCommandError, match="not valid"):
        parse_play(["nuclear", "negotiation:forever"])
    with pytest.raises(BadCommandError, match="not a language"):
        parse_play(["nuclear", "lang:fr"])


def test_moves_of_several_cards_are_offered_as_forms_of_menus() -> None:
    state, _ = to_talk(arranged(table(), passed={"ann": ["P04"]}), "P01", {"bob": "A35", "cat": "P12", "dan": "A21"})
    forms = ENGINE.move_forms(state, "ann", "zh-TW")
    assert [f.command for f in forms] == ["give", "transfer"]
    give = forms[0]
    assert give.label == "送牌"
    assert [f.key for f in give.fields] == ["cards", "to"]
    assert [v for _, v in give.fields[0].choices] == list(state.hands[0])
    assert give.fields[0].max_values == len(state.hands[0])
    assert [v for _, v in give.fields[1].choices] == ["@bob", "@cat", "@dan"]
    typed = " ".join([give.command, "P45", "G1", "@bob"])
    assert ENGINE.parse_action(state, "ann", typed) == Give(cards=("P45", "G1"), to="bob"), "the form types a move"
    assert ENGINE.move_forms(state, "bob", "en") == (), "only the speaker gives at this table"
    state, _ = act(state, "ann", "end")
    (place,) = ENGINE.move_forms(state, "bob", "en")
    assert (place.command, place.fields[0].max_values) == ("place", 2)
    assert ENGINE.move_forms(state, "ann", "en") == (), "the speaker does not vote on an issue"


def test_a_speaker_with_no_card_passes_the_speaker_card_on() -> None:
    state = table()
    bob = state.seats.index("bob")
    everything = (*state.passed[0], *state.deck, *state.hands[bob])
    state = state.model_copy(
        update={
            "deck": (),
            "discard": (),
            "passed": (tuple(everything), *state.passed[1:]),
            "hands": tuple(() if i == bob else h for i, h in enumerate(state.hands)),
        }
    )
    events: list = []
    new = rules._begin_round(state, random.Random(0), events)
    shown = public(events)
    assert "bob has no card to propose; the speaker card passes on." in shown
    assert (new.round, new.speaker, new.phase) == (3, 2, Phase.PROPOSE), "cat speaks next"
    assert new.history[-1].proposal is None
    assert ENGINE.invariants(new) == []


def test_nobody_to_vote_goes_straight_on() -> None:
    state = table()
    others = [c for i in (1, 2, 3) for c in state.hands[i]]
    state = state.model_copy(
        update={
            "passed": ((), (), (), tuple(sorted(others))),
            "hands": (state.hands[0], (), (), ()),
        }
    )
    state, events = act(state, "ann", "propose P01")
    assert "Nobody holds a card for the first vote." in public(events)
    assert state.phase is Phase.TALK
    state, events = act(state, "ann", "end")
    assert "Nobody holds a card for the second vote." in public(events)
    assert "Result: 0 yes, 0 no" in public(events), "nobody voted: it fails"
    assert "P01" in state.discard
