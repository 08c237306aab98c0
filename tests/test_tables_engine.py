"""The interface every thread game implements, checked for every game in the registry, and self-play."""

from __future__ import annotations

import io
import random
from dataclasses import replace
from typing import Any, cast

import pytest

from bot.cli import main as bot_main
from bot.sim.selfplay import SelfplayError, game_seed, play_one, run_selfplay
from bot.sim.selfplay import main as selfplay_main
from games.tables.engine import (
    AnyEngine,
    BadCommandError,
    GameEvent,
    GameOverError,
    GameResult,
    GameRuleError,
    NotASeatError,
    SeatingError,
    apply_text,
)
from games.tables.registry import AI_SEATS, GAMES, get_ai, get_game, get_spec, register
from games.tables.text import number, resolve_seat, tokens

ENGINES = sorted(GAMES.items())
IDS = [name for name, _ in ENGINES]


def seats(n: int) -> list[str]:
    return [f"seat{k}" for k in range(n)]


def mover_of(engine: AnyEngine, state: Any) -> str | None:
    """The seat to play: the one a turn game awaits, or the first in seat order of those a vote awaits."""
    awaited = engine.awaiting(state)
    return next((s for s in engine.seats(state) if s in awaited), None)


def walk(engine: AnyEngine, players: int, seed: int, steps: int) -> list[Any]:
    """States of an AI game: the deal and the state after each of the first ``steps`` actions."""
    rng = random.Random(seed)
    ai = get_ai(engine.name)
    state = engine.new_game(seats(players), None, rng)
    states = [state]
    for _ in range(steps):
        seat = mover_of(engine, state)
        if seat is None:
            break
        state, _ = engine.apply(state, seat, ai.choose(state, seat, rng), rng)
        states.append(state)
    return states


@pytest.mark.parametrize(("name", "engine"), ENGINES, ids=IDS)
def test_engine_describes_itself(name: str, engine: AnyEngine) -> None:
    assert engine.name == name
    assert engine.title
    assert 1 <= engine.min_seats <= engine.max_seats
    assert engine.rules_text().strip()
    assert engine.commands_text().strip()
    assert engine.options_model() == engine.options_model.model_validate_json(engine.options_model().model_dump_json())
    assert name in AI_SEATS
    assert get_game(name.upper()) is engine


def test_unknown_games_are_refused() -> None:
    with pytest.raises(BadCommandError, match="no game called"):
        get_game("chess")


@pytest.mark.parametrize(("name", "engine"), ENGINES, ids=IDS)
def test_seat_counts(name: str, engine: AnyEngine) -> None:
    for n in range(engine.min_seats, engine.max_seats + 1):
        state = engine.new_game(seats(n), None, random.Random(n))
        assert engine.seats(state) == tuple(seats(n))
        assert engine.invariants(state) == []
        assert engine.status(state) == "playing"
        assert engine.to_move(state) in engine.seats(state)
    for bad in (engine.min_seats - 1, engine.max_seats + 1):
        with pytest.raises(SeatingError):
            engine.new_game(seats(bad), None, random.Random(0))
    with pytest.raises(SeatingError):
        engine.new_game(["same"] * engine.max_seats, None, random.Random(0))


@pytest.mark.parametrize(("name", "engine"), ENGINES, ids=IDS)
def test_every_legal_action_applies_and_leaves_the_old_state_alone(name: str, engine: AnyEngine) -> None:
    rng = random.Random(1)
    for state in walk(engine, engine.max_seats, seed=7, steps=60)[::6]:
        mover = mover_of(engine, state)
        if mover is None:
            continue
        before = engine.dump_state(state)
        legal = engine.legal_actions(state, mover)
        assert legal
        for action in legal:
            engine.check(state, mover, action)
            new, events = engine.apply(state, mover, action, rng)
            assert new is not state
            assert engine.invariants(new) == []
            assert all(isinstance(e, GameEvent) and e.text().strip() for e in events)
        assert engine.dump_state(state) == before
        awaited = engine.awaiting(state)
        for other in engine.seats(state):
            if other not in awaited:
                assert engine.legal_actions(state, other) == []
                # a seat the game does not await is refused with a typed rule error (at a turn game,
                # NotYourTurnError: tests/test_wikipedia.py; at a vote, the seat does not vote)
                with pytest.raises(GameRuleError):
                    engine.check(state, other, legal[0])


@pytest.mark.parametrize(("name", "engine"), ENGINES, ids=IDS)
def test_errors_are_typed_and_change_nothing(name: str, engine: AnyEngine) -> None:
    state = engine.new_game(seats(engine.min_seats), None, random.Random(2))
    mover = engine.to_move(state)
    assert mover is not None
    before = engine.dump_state(state)
    action = engine.legal_actions(state, mover)[0]
    with pytest.raises(NotASeatError):
        engine.apply(state, "stranger", action, random.Random(0))
    with pytest.raises(NotASeatError):
        engine.private_view(state, "stranger")
    for text in ("", "nonsense words", "x" * 5000, "\x00\u202e🙂", "!" * 3):
        with pytest.raises(BadCommandError) as caught:
            engine.parse_action(state, mover, text)
        assert isinstance(caught.value, GameRuleError)
        assert isinstance(caught.value, ValueError)
        assert str(caught.value)
    assert engine.dump_state(state) == before


@pytest.mark.parametrize(("name", "engine"), ENGINES, ids=IDS)
def test_text_commands_round_trip(name: str, engine: AnyEngine) -> None:
    rng = random.Random(3)
    for state in walk(engine, min(engine.min_seats + 1, engine.max_seats), seed=11, steps=40)[::4]:
        mover = mover_of(engine, state)
        if mover is None:
            continue
        for action in engine.legal_actions(state, mover):
            text = engine.format_action(state, action)
            assert engine.parse_action(state, mover, text) == action
            assert engine.load_action(engine.dump_action(action)) == action
        first = engine.legal_actions(state, mover)[0]
        by_text, _ = apply_text(engine, state, mover, engine.format_action(state, first), rng)
        by_value, _ = engine.apply(state, mover, first, rng)
        assert by_text == by_value


@pytest.mark.parametrize(("name", "engine"), ENGINES, ids=IDS)
def test_state_json_round_trip(name: str, engine: AnyEngine) -> None:
    for state in walk(engine, engine.max_seats, seed=5, steps=200):
        assert engine.load_state(engine.dump_state(state)) == state


@pytest.mark.parametrize(("name", "engine"), ENGINES, ids=IDS)
def test_the_ai_plays_legal_moves_to_the_end(name: str, engine: AnyEngine) -> None:
    ai = get_ai(name)
    for players in range(engine.min_seats, engine.max_seats + 1):
        rng = random.Random(players)
        state = engine.new_game(seats(players), None, rng)
        for _ in range(5_000):
            mover = mover_of(engine, state)
            if mover is None:
                break
            action = ai.choose(state, mover, rng)
            engine.check(state, mover, action)  # legal (a gift of several cards is legal, listed card by card)
            state, _ = engine.apply(state, mover, action, rng)
        assert engine.status(state) in {"won", "lost", "finished"}
        result = engine.result(state)
        assert isinstance(result, GameResult)
        assert result.status == engine.status(state)
        assert result.summary
        mover_before = engine.seats(state)[0]
        with pytest.raises(GameOverError):
            engine.check(state, mover_before, engine.load_action(engine.dump_action(action)))


@pytest.mark.parametrize(("name", "engine"), ENGINES, ids=IDS)
def test_views(name: str, engine: AnyEngine) -> None:
    state = engine.new_game(seats(engine.max_seats), None, random.Random(4))
    assert engine.public_view(state).strip()
    for seat in engine.seats(state):
        assert engine.private_view(state, seat).strip()
    result = engine.result(state)
    assert result.status == "playing"
    assert result.winners == ()


# --- shared text helpers ------------------------------------------------------------------------


def test_tokens_fold_case_and_drop_the_prefix() -> None:
    assert tokens("!Give 3, @Bob") == ["give", "3", "@bob"]
    with pytest.raises(BadCommandError):
        tokens("   ")
    with pytest.raises(BadCommandError):
        tokens("a" * 301)


def test_seats_are_named_several_ways() -> None:
    names = ("Alice Smith", "123456789")
    assert resolve_seat(names, ["@alice", "smith"]) == "Alice Smith"
    assert resolve_seat(names, ["<@123456789>"]) == "123456789"
    assert resolve_seat(names, ["<@!123456789>"]) == "123456789"
    assert resolve_seat(names, ["123456789"]) == "123456789"
    with pytest.raises(BadCommandError):
        resolve_seat(names, ["@nobody"])
    with pytest.raises(BadCommandError):
        resolve_seat(names, [])


def test_numbers() -> None:
    assert number("#12", "card", 1, 52) == 12
    for bad in ("0", "53", "x", "-1", "1.5", "²", "1" * 30):
        with pytest.raises(BadCommandError):
            number(bad, "card", 1, 52)


# --- self-play ----------------------------------------------------------------------------------


def test_selfplay_command_prints_a_report(capsys: pytest.CaptureFixture[str]) -> None:
    assert bot_main(["selfplay", "wikipedia", "--games", "20", "--players", "3", "--seed", "7"]) == 0
    out = capsys.readouterr().out
    assert "win rate:" in out
    assert "mean length:" in out
    assert "games/s" in out


def test_selfplay_reports_a_win_rate_only_for_a_cooperative_game() -> None:
    cooperative = run_selfplay("wikipedia", games=20, players=3, seed="7")
    shown = "\n".join(cooperative.lines())
    assert "win rate:" in shown
    assert "wins by seat" not in shown
    competitive = run_selfplay("sardini", games=40, players=4, seed="s")
    shown = "\n".join(competitive.lines())
    assert "win rate" not in shown, "a competitive game has winners, not a table that wins"
    (line,) = [text for text in competitive.lines() if "wins by seat" in text]
    # the same games again, by hand: each game's win split evenly among its winners
    engine, ai = get_game("sardini"), get_ai("sardini")
    split = dict.fromkeys(("p1", "p2", "p3", "p4"), 0.0)
    shared = 0
    for index in range(40):
        state, _ = play_one(engine, ai, 4, game_seed("s", index), None)
        winners = engine.result(state).winners
        shared += len(winners) > 1
        for seat in winners:
            split[seat] += 1 / len(winners)
    assert competitive.seat_wins == pytest.approx(split)
    assert shared > 0, "the seed gives shared wins"
    shares = [f"{seat} {100 * wins / 40:.1f}%" for seat, wins in split.items()]
    assert line == f"  wins by seat: {', '.join(shares)} ({100 * shared / 40:.1f}% of games shared, split evenly)"


def test_selfplay_rejects_bad_arguments(capsys: pytest.CaptureFixture[str]) -> None:
    assert selfplay_main("wikipedia", games=5, players=9, seed=1) == 2
    assert selfplay_main("chess", games=5, players=2, seed=1) == 2
    assert selfplay_main("wikipedia", games=0, players=2, seed=1) == 2
    assert "chess" in capsys.readouterr().err


def test_selfplay_is_repeatable() -> None:
    first = run_selfplay("wikipedia", games=15, players=4, seed="same")
    second = run_selfplay("wikipedia", games=15, players=4, seed="same")
    assert (first.statuses, first.turns, first.actions) == (second.statuses, second.turns, second.actions)


@pytest.mark.parametrize(
    ("game", "players", "played"),
    [
        (
            "ictc",
            2,
            [
                ("finished", ("p1",), 124),
                ("finished", ("p2",), 108),
                ("finished", ("p1",), 121),
                ("finished", ("p2",), 93),
            ],
        ),
        ("wikipedia", 3, [("lost", (), 74), ("won", ("p1", "p2", "p3"), 77), ("lost", (), 72), ("lost", (), 68)]),
    ],
)
def test_selfplay_plays_the_same_games_for_a_seed_from_one_version_to_the_next(
    game: str, players: int, played: list[tuple[str, tuple[str, ...], int]]
) -> None:
    """The games a seed plays (who won, in how many moves) are pinned: work on the speed of the rules or the
    computer players keeps them, and a change that plays other games says so by changing them here."""
    engine, ai = get_game(game), get_ai(game)
    games = []
    for index in range(len(played)):
        state, actions = play_one(engine, ai, players, game_seed("pin", index))
        result = engine.result(state)
        games.append((result.status, result.winners, actions))
    assert games == played


class _Broken:
    """An engine whose invariants fail after the third action."""

    def __init__(self, engine: AnyEngine) -> None:
        self._engine = engine
        self.calls = 0

    def __getattr__(self, name: str) -> Any:
        return getattr(self._engine, name)

    def invariants(self, state: Any) -> list[str]:
        self.calls += 1
        return ["a card went missing"] if self.calls > 3 else []


def test_selfplay_aborts_with_a_report_on_a_broken_invariant(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    engine = get_game("wikipedia")
    broken = _Broken(engine)
    with pytest.raises(SelfplayError, match="a card went missing"):
        play_one(cast(AnyEngine, broken), get_ai("wikipedia"), 3, "seed:0")
    spec = get_spec("wikipedia")
    register(replace(spec, engine=cast(AnyEngine, _Broken(engine))))
    out = io.StringIO()
    try:
        assert selfplay_main("wikipedia", games=3, players=3, seed=1, out=out) == 1
    finally:
        register(spec)
    err = capsys.readouterr().err
    assert "SELF-PLAY ABORTED" in err
    assert "a card went missing" in err
    assert "after action 3" in err


def test_selfplay_sums_up_a_games_own_figures() -> None:
    from bot.sim.selfplay import summed

    assert summed(["a", "b", "a", "a"]) == "a 75.0%, b 25.0%", "words: their shares, most first"
    assert summed([True, False, False, False]) == "25.0%", "yes/no: the share of yes"
    assert summed([1.0, 2.0, 3.0, 4.0, 10.0]) == "median 3 (p10 1 – p90 10), mean 4.00"


def test_selfplay_takes_game_options_as_play_reads_them() -> None:
    out = io.StringIO()
    assert selfplay_main("nuclear", games=2, players=4, seed="o", out=out, options=["removal:off"]) == 0
    assert "options removal:off" in out.getvalue()
    assert selfplay_main("nuclear", games=1, players=4, options=["colour:red"]) == 2, "an unknown option"
    assert bot_main(["selfplay", "nuclear", "--games", "1", "--players", "5", "--option", "removal:balanced"]) == 0
