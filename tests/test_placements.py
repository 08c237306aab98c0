"""Placements: hands keep the score they were presented with, and ties are recorded with the places."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

from games.nomic import engine
from games.nomic.actions import AdminSet, PresentHand, Tick
from games.nomic.events import PlacementsMade
from games.nomic.hands import ranking_tag
from games.nomic.phases import BoundaryKind, Phase
from games.nomic.state import RoundState
from tests.support import MOD, SATURDAY, apply, cards, give, new_round

SNAPSHOTS = Path(__file__).parent / "snapshots"
PL = BoundaryKind.PLACEMENTS


def placed(state: RoundState, seed: int = 1) -> engine.Transition:
    return engine.advance(state, Tick(at=SATURDAY, boundaries=(PL,)), random.Random(seed))


def outcome(state: RoundState, seed: int) -> dict[str, Any]:
    """What the placements gave, in the form the snapshot's companion file keeps."""
    after = placed(state, seed).state
    return {
        "places": [[r.place, r.player, r.category, r.coin_toss, r.cards_returned] for r in after.last_placements],
        "players": {p: [pl.points, pl.spm, sorted(c.code for c in pl.cards)] for p, pl in after.players.items()},
    }


def presenting(hands: dict[str, str], *, players: tuple[str, ...] = ()) -> RoundState:
    state = new_round(Phase.BARTERING, players=sorted({*hands, *players}))
    for name, hand in hands.items():
        state = give(state, name, hand=hand)
        state = apply(state, name, PresentHand(cards=cards(hand)))
    return state


# --- scores kept with presented hands -----------------------------------------------------------


def test_a_snapshot_from_before_scores_were_kept_places_as_that_code_did() -> None:
    """The snapshot was written by the code before scores were kept: its hands have none. The
    companion file holds what that code's placements gave with the same dice, under the options
    of the snapshot and after a moderator turned on poker kickers and wrap-around straights."""
    body = (SNAPSHOTS / "round_hands_without_scores.json").read_text(encoding="utf-8")
    assert '"score"' not in body
    state = RoundState.model_validate_json(body)
    assert state.hands
    assert all(hand.score is None and not hand.ranked_under for hand in state.hands.values())
    expected = json.loads((SNAPSHOTS / "round_hands_without_scores.placed.json").read_text(encoding="utf-8"))
    for seed in (1, 2):
        assert outcome(state, seed) == expected[f"literal/{seed}"]
        changed = apply(state, MOD, AdminSet(option="hands.poker_kickers", value="true"))
        changed = apply(changed, MOD, AdminSet(option="hands.wrap_around_straights", value="true"))
        assert outcome(changed, seed) == expected[f"poker+wrap/{seed}"]


def test_a_presented_hand_keeps_its_score_and_the_options_it_was_made_under() -> None:
    state = presenting({"cat": "AS 2H 2D 5C 7C", "dan": "KS KH QD 5C 7C"})
    literal = ranking_tag(wrap_around=False, poker_kickers=False)
    assert {hand.ranked_under for hand in state.hands.values()} == {literal}
    assert state.hands["cat"].score is not None
    assert state.hands["dan"].score is not None
    assert state.hands["cat"].score > state.hands["dan"].score  # the ace beats the kings card by card
    reloaded = RoundState.model_validate_json(state.model_dump_json())
    assert reloaded == state
    assert outcome(reloaded, 1) == outcome(state, 1)


def test_hands_presented_before_a_ranking_change_are_ranked_again_under_the_new_options() -> None:
    """cat's pair of twos with an ace beats dan's kings card by card; with poker kickers the kings win."""
    state = presenting({"cat": "AS 2H 2D 5C 7C"}, players=("dan",))
    state = apply(state, MOD, AdminSet(option="hands.poker_kickers", value="true"))
    state = give(state, "dan", hand="KS KH QD 5C 7C")
    state = apply(state, "dan", PresentHand(cards=cards("KS KH QD 5C 7C")))
    assert state.hands["cat"].ranked_under != state.hands["dan"].ranked_under
    assert [r.player for r in placed(state).state.last_placements] == ["dan", "cat"]
    back = apply(state, MOD, AdminSet(option="hands.poker_kickers", value="false"))
    assert [r.player for r in placed(back).state.last_placements] == ["cat", "dan"]


# --- ties ---------------------------------------------------------------------------------------


def test_placements_record_their_ties() -> None:
    royal = "AS KS QS JS 10S"
    state = presenting(
        {"ann": royal, "ben": royal, "cat": "2D 2H 5C 8C QH", "dan": "3H 6D 8S 10C QD", "eve": "3H 6D 8S 10C QD"}
    )
    step = placed(state)
    ties = {r.player: r.tie for r in step.state.last_placements}
    assert ties == {"ann": (1, 2), "ben": (1, 2), "cat": None, "dan": (4, 5), "eve": (4, 5)}
    made = [e for e in step.events if isinstance(e, PlacementsMade)]
    assert made[0].placements == step.state.last_placements
    text = made[0].text()
    assert "1. " in text
    assert "(tied with 2nd; a coin toss set the order) - wins 20 points, 1 Standard Proposal-Maker" in text
