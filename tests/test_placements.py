"""Placements: hands keep the score they were presented with; the announcement lists the prize
places and a few more; ``!placements [PAGE]`` lists every place from the state."""

from __future__ import annotations

import io
import json
import random
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from bot.sim.replay import read_scenario, replay
from games.nomic import engine, views
from games.nomic.actions import AdminSet, PresentHand, Tick
from games.nomic.cards import Card, Suit
from games.nomic.errors import UnknownError
from games.nomic.events import PlacementsMade, ordinal
from games.nomic.hands import ranking_tag
from games.nomic.items import Items
from games.nomic.phases import BoundaryKind, Phase
from games.nomic.state import PlacementRecord, RoundState
from tests.support import MOD, SATURDAY, Scenario, apply, cards, give, new_round

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


# --- the announcement ------------------------------------------------------------------------------


def record(place: int, *, prize: Items | None = None, returned: bool = True, **extra: Any) -> PlacementRecord:
    return PlacementRecord(
        place=place,
        player=f"p{place}",
        name=f"p{place}",
        cards=cards("AS KS QS JS 9D"),
        category="High Card",
        prize=prize or Items(),
        cards_returned=returned,
        **extra,
    )


def default_records(count: int) -> tuple[PlacementRecord, ...]:
    """Places as the default ruleset gives them: four prizes, cards back from 5th on."""
    prizes = [Items(points=20, spm=1), Items(points=10, spm=1), Items(points=30), Items(points=20)]
    return tuple(
        record(n, prize=prizes[n - 1], returned=False) if n <= len(prizes) else record(n) for n in range(1, count + 1)
    )


def test_the_announcement_at_3000_players_lists_ten_places_and_counts_the_rest() -> None:
    text = PlacementsMade(default_records(3_000)).text()
    lines = text.splitlines()
    assert lines[0] == "Placements of the 3,000 presented hands:"
    assert [line.split(".")[0] for line in lines[1:11]] == [str(n) for n in range(1, 11)]
    assert lines[1].endswith(" - wins 20 points, 1 Standard Proposal-Maker")
    assert lines[4].endswith(" - wins 20 points")
    assert lines[5].endswith(" - gets their cards back")
    assert lines[11] == (
        "And 2,990 more players placed 11th to 3,000th; each got their presented cards back. "
        "`!placements` lists every place, page by page."
    )
    assert len(lines) == 12
    assert len(text) < 2_000, "one Discord message"


def test_small_placements_list_every_place() -> None:
    for count in (1, 5, 10, 11):
        lines = PlacementsMade(default_records(count)).text().splitlines()
        assert len(lines) == count + 1
        assert lines[-1].startswith(f"{count}. p{count}: ")
    assert (
        PlacementsMade(default_records(12)).text().splitlines()[-1].startswith("And 2 more players placed 11th to 12th")
    )
    assert PlacementsMade(()).text() == "Placements: nobody presented a hand this week."


def test_many_prize_places_are_listed_up_to_a_limit_and_the_rest_counted() -> None:
    records = tuple(record(n, prize=Items(points=5), returned=False) for n in range(1, 41))
    lines = PlacementsMade(records).text().splitlines()
    assert len(lines) == 1 + 20 + 1
    assert lines[-1].startswith("And 20 more players placed 21st to 40th; some of them won prizes too.")


def test_ties_say_with_whom_and_that_a_coin_toss_decided() -> None:
    records = (
        record(1, returned=False, coin_toss=True, tie=(1, 2)),
        record(2, returned=False, coin_toss=True, tie=(1, 2)),
        record(3, returned=False, coin_toss=True, tie=(3, 5)),
        record(4, returned=False, coin_toss=True, tie=(3, 5)),
        record(5, coin_toss=True, tie=(3, 5)),
        record(6, coin_toss=True),  # a record kept before ties were
    )
    lines = PlacementsMade(records).text().splitlines()[1:]
    assert "(tied with 2nd; a coin toss set the order)" in lines[0]
    assert "(tied with 1st; a coin toss set the order)" in lines[1]
    assert all("(tied with places 3 to 5; coin tosses set the order)" in line for line in lines[2:5])
    assert "(after a coin toss)" in lines[5]


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


@pytest.mark.parametrize(
    ("n", "text"),
    [
        (1, "1st"),
        (2, "2nd"),
        (3, "3rd"),
        (4, "4th"),
        (11, "11th"),
        (12, "12th"),
        (13, "13th"),
        (21, "21st"),
        (102, "102nd"),
        (111, "111th"),
        (3000, "3,000th"),
    ],
)
def test_ordinals(n: int, text: str) -> None:
    assert ordinal(n) == text


# --- !placements [PAGE] ----------------------------------------------------------------------------


def with_placements(count: int) -> RoundState:
    return new_round().model_copy(update={"last_placements": default_records(count)})


def test_placements_page_by_page() -> None:
    state = with_placements(45)
    first = views.placements(state).splitlines()
    assert first[0] == "The last placements (45 presented hands, page 1 of 3):"
    assert [line.split(".")[0] for line in first[1:21]] == [str(n) for n in range(1, 21)]
    assert first[-1] == "`!placements 2` for places 21 to 40."
    last = views.placements(state, 3).splitlines()
    assert [line.split(".")[0] for line in last[1:]] == [str(n) for n in range(41, 46)]
    with pytest.raises(UnknownError, match="3 pages"):
        views.placements(state, 4)
    assert views.placements(with_placements(3)).splitlines()[0] == "The last placements (3 presented hands):"
    assert views.placements(new_round()).startswith("No placements to show")


FRIDAY_NOON = datetime(2026, 12, 4, 12, tzinfo=UTC)
"""Bartering, with placements at Saturday 2026-12-05 00:00."""


async def test_placements_through_the_simulator(tmp_path: Path) -> None:
    """25 players present; the announcement lists ten places and counts the rest; `!placements 2`
    answers anywhere with places 21 to 25."""
    scenario = Scenario()
    scenario.setup(FRIDAY_NOON, ["mod"])
    deck = [Card(rank, suit).code for rank in range(1, 14) for suit in Suit]
    for n in range(1, 26):
        name = f"p{n:02}"
        hand = " ".join(deck[(n * 7 + k * 11) % len(deck)] for k in range(5))
        scenario.say(FRIDAY_NOON, name, "!join")
        scenario.say(FRIDAY_NOON, "mod", f"!admin give @{name} {hand}")
        scenario.say(FRIDAY_NOON, name, f"!present {hand}")
    asked = scenario.say(datetime(2026, 12, 5, 9, tzinfo=UTC), "p01", "!placements 2", channel="general")
    result = await replay(read_scenario(scenario.write(tmp_path / "s.jsonl"), io.StringIO()), seed="3")
    announced = [e["content"] for e in result.transcript if e["content"].startswith("Placements of")]
    assert len(announced) == 1
    lines = announced[0].splitlines()
    assert lines[0] == "Placements of the 25 presented hands:"
    assert len(lines) == 12
    assert lines[-1].startswith("And 15 more players placed 11th to 25th; each got their presented cards back.")
    page = next(e["content"] for e in result.transcript if e.get("reply_to") == asked)
    assert page.splitlines()[0] == "The last placements (25 presented hands, page 2 of 2):"
    assert [line.split(".")[0] for line in page.splitlines()[1:]] == [str(n) for n in range(21, 26)]
    assert [p["place"] for p in result.document["last_placements"]] == list(range(1, 26))
