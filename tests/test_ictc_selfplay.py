"""ICTC self-play as the README writes it: the command without ``--players`` (a battle's two seats), a report
that says pairing by pairing which deck won how often, the draws and who went first, and starter decks that
are fair to one another."""

from __future__ import annotations

import itertools
import random

import pytest

from bot.cli import main as bot_main
from games.ictc.battle import balance
from games.ictc.battle.ai import Skirmisher
from games.ictc.battle.engine import ENGINE
from games.ictc.battle.state import BattleSetup
from games.ictc.starter import starter_set


def test_the_readme_command_plays_two_player_battles(capsys: pytest.CaptureFixture[str]) -> None:
    assert bot_main(["selfplay", "ictc", "--games", "3", "--seed", "r", "--jobs", "1"]) == 0
    out = capsys.readouterr().out
    assert "ictc: 3 games, 2 players" in out


def test_a_game_for_more_seats_keeps_four_by_default(capsys: pytest.CaptureFixture[str]) -> None:
    assert bot_main(["selfplay", "sardini", "--games", "1", "--jobs", "1"]) == 0
    assert "sardini: 1 games, 4 players" in capsys.readouterr().out


def test_the_report_gives_each_pairing_its_split_its_draws_and_who_went_first() -> None:
    # ten Ember-Grove battles: Grove won 6, Ember 3, one draw; Ember went first in 4, the first player won 5
    games = [
        ("Grove", "Ember", False),
        ("Grove", "Ember", False),
        ("Grove", "Grove", True),
        ("Grove", "Grove", True),
        ("Grove", "Grove", True),
        ("Grove", "Grove", True),
        ("Ember", "Ember", True),
        ("Ember", "Grove", False),
        ("Ember", "Grove", False),
        ("draw", "Ember", False),
    ]
    figures: dict[str, list[str | float | bool]] = {
        "winner's deck": [w for w, _, _ in games],
        "pairing": ["Ember vs Grove"] * 10,
        "first player's deck": [f for _, f, _ in games],
        "first player won": [yes for *_, yes in games],
        "ending": ["health"] * 10,
        "turns": [20.0] * 10,
    }
    shown = balance.lines(figures, 10, 2, None)
    assert (
        "    Ember vs Grove (10 games): Ember won 30.0%, Grove won 60.0%, draws 10.0% ⚠ not within 40–60%;"
        " Ember went first in 40.0%, and the player going first won 50.0%"
    ) in shown
    assert "  each deck over the games it played: Ember won 30.0% of 10, Grove won 60.0% of 10" in shown
    assert not any("near 50%" in line and "deck" in line for line in shown), "no share of all games read as fair"


def _battle(a: str, b: str, seed: str) -> str | None:
    rng = random.Random(seed)
    state = ENGINE.new_game(("p1", "p2"), None, rng, {"p1": BattleSetup(deck=a), "p2": BattleSetup(deck=b)})
    ai = Skirmisher()
    for _ in range(5000):
        if ENGINE.status(state) != "playing":
            break
        seat = next(s for s in state.seats if s in ENGINE.awaiting(state))
        state, _ = ENGINE.apply(state, seat, ai.choose(state, seat, rng), rng)
    return None if state.winner is None else state.sides[state.winner].deck_name


@pytest.mark.parametrize(
    ("a", "b"), list(itertools.combinations([d.name for d in starter_set().decks], 2)), ids=str
)
def test_no_starter_deck_runs_away_with_a_pairing(a: str, b: str) -> None:
    """A small sample (the 1,000-game figures are in the README): each deck wins at least a quarter of its
    battles against each other deck, each side of the table in turn."""
    games = 40
    won = [_battle(*((a, b) if k % 2 == 0 else (b, a)), seed=f"fair:{a}:{b}:{k}") for k in range(games)]
    for deck in (a, b):
        assert won.count(deck) >= games // 4, f"{deck} won {won.count(deck)} of {games} against the other"
