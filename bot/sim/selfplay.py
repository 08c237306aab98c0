"""``python -m bot selfplay GAME --games N [--players K] --seed S [--jobs J]``: computer-only games of a thread game.

Every seat is the game's AI; without ``--players`` the table seats ``DEFAULT_PLAYERS``, or the
nearest number the game seats (an ICTC battle: two); ``--option KEY:VALUE`` (as ``!play`` reads it) sets the game's
options. Each game runs through the same engine calls a thread uses
(``new_game``, ``awaiting``, ``apply``; awaited seats move in seat order), the invariants are
checked after every action, and the final state of each game must survive a JSON round trip. A
violation, an illegal AI move or a game that does not end aborts the run with a report and exit
code 1. Game ``g`` of a run uses the RNG seeded with ``"SEED:g"``, so a run (and any single game
of it) repeats exactly, however many processes share it (``--jobs``, by default one a core): the
games are independent, so only the speed changes. The report names every option in force.

A game may count figures of its own (``selfplay_stats(state)`` of its engine: name → a word, a
number or a yes/no per finished game); the report sums them up: words as shares, numbers as their
median with the 10th and 90th percentiles, yes/no as the share of yes. A game that words them itself
(``selfplay_lines(stats, games, players, options)``: ratios, the figures its specification expects)
gets its lines in their place.
"""

from __future__ import annotations

import multiprocessing
import os
import random
import statistics
import sys
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, TextIO

from games.tables.engine import AnyAISeat, AnyEngine, GameResult, GameRuleError, SeatingError
from games.tables.options import parse_play
from games.tables.registry import get_ai, get_game

DEFAULT_PLAYERS = 4
"""Seats of a run that names none, when the game seats that many."""
MAX_ACTIONS = 20_000
"""A game that has not ended after this many actions is reported as stuck."""
CHUNK = 25
"""Most games a worker process plays at a time; runs shorter than two chunks stay in one process."""


class SelfplayError(Exception):
    """A broken invariant, an illegal AI move or a stuck game; the message is the report."""


@dataclass
class SelfplayReport:
    game: str
    players: int
    seed: str
    games: int = 0
    statuses: dict[str, int] = field(default_factory=dict)
    turns: int = 0
    actions: int = 0
    seconds: float = 0.0
    options: str = ""
    """The game options the run set (``key:value`` words), if any."""
    in_force: str = ""
    """Every option of the game as the games were played (defaults and those set), ``name=value``."""
    jobs: int = 1
    """Processes that shared the games."""
    stats: dict[str, list[str | float | bool]] = field(default_factory=dict)
    """The game's own figures (``selfplay_stats``), one value a game."""
    figure_lines: list[str] = field(default_factory=list)
    """The game's own words for those figures (``selfplay_lines``), when it has any."""
    seat_wins: dict[str, float] = field(default_factory=dict)
    """Competitive games won, by seat (``p1`` moves first in seat order); a shared win split evenly."""
    shared: int = 0
    """Competitive games with more than one winner."""

    @property
    def wins(self) -> int:
        return self.statuses.get("won", 0)

    @property
    def cooperative(self) -> int:
        """Games that ended as a cooperative game ends (the table won or lost together)."""
        return self.wins + self.statuses.get("lost", 0)

    @property
    def competitive(self) -> int:
        """Games that ended as a competitive game ends (finished, with its winners)."""
        return self.statuses.get("finished", 0)

    def count_result(self, result: GameResult) -> None:
        self.statuses[result.status] = self.statuses.get(result.status, 0) + 1
        if result.status == "finished":
            if len(result.winners) > 1:
                self.shared += 1
            for seat in result.winners:
                self.seat_wins[seat] = self.seat_wins.get(seat, 0.0) + 1 / len(result.winners)

    def _outcome_lines(self) -> list[str]:
        """A cooperative game's win rate; a competitive game's wins by seat (a win rate means nothing there)."""
        lines = []
        if self.cooperative:
            lines.append(f"  win rate: {100 * self.wins / self.cooperative:.1f}% at {self.players} players")
        games = self.competitive
        if games:
            seats = [f"p{n + 1}" for n in range(self.players)]
            seats += sorted(set(self.seat_wins) - set(seats))
            shares = ", ".join(f"{seat} {100 * self.seat_wins.get(seat, 0.0) / games:.1f}%" for seat in seats)
            nobody = games - round(sum(self.seat_wins.values()))
            if nobody > 0:
                shares += f", nobody {100 * nobody / games:.1f}%"
            shared = f" ({100 * self.shared / games:.1f}% of games shared, split evenly)" if self.shared else ""
            lines.append(f"  wins by seat: {shares}{shared}")
        return lines

    def lines(self) -> list[str]:
        n = max(self.games, 1)
        rate = self.games / self.seconds if self.seconds > 0 else float("inf")
        outcomes = ", ".join(f"{k} {v}" for k, v in sorted(self.statuses.items()))
        options = f", options {self.options}" if self.options else ""
        processes = "1 process" if self.jobs == 1 else f"{self.jobs} processes"
        return [
            f"{self.game}: {self.games} games, {self.players} players, seed {self.seed!r}{options}",
            *([f"  options in force: {self.in_force}"] if self.in_force else []),
            f"  outcomes: {outcomes}",
            *self._outcome_lines(),
            f"  mean length: {self.turns / n:.2f} turns, {self.actions / n:.1f} actions",
            (
                f"  speed: {rate:.0f} games/s ({self.seconds:.2f} s on {processes},"
                f" {self.actions / max(self.seconds, 1e-9):.0f} actions/s)"
            ),
            *(self.figure_lines or [f"  {name}: {summed(values)}" for name, values in self.stats.items()]),
        ]

    def add_stats(self, figures: Mapping[str, str | float | bool]) -> None:
        for name, value in figures.items():
            self.stats.setdefault(name, []).append(value)

    def add(self, other: SelfplayReport) -> None:
        """Count in the games of ``other`` (what one worker played)."""
        self.games += other.games
        for status, n in other.statuses.items():
            self.statuses[status] = self.statuses.get(status, 0) + n
        for seat, wins in other.seat_wins.items():
            self.seat_wins[seat] = self.seat_wins.get(seat, 0.0) + wins
        self.shared += other.shared
        self.turns += other.turns
        self.actions += other.actions
        for name, values in other.stats.items():
            self.stats.setdefault(name, []).extend(values)


def _percentile(values: Sequence[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


def summed(values: Sequence[str | float | bool]) -> str:
    """One figure over every game: shares of words, the share of yes, or a number's median and spread."""
    n = max(len(values), 1)
    if all(isinstance(v, bool) for v in values):
        return f"{100 * sum(1 for v in values if v) / n:.1f}%"
    if all(isinstance(v, str) for v in values):
        counts: dict[str, int] = {}
        for v in values:
            counts[str(v)] = counts.get(str(v), 0) + 1
        return ", ".join(f"{k} {100 * c / n:.1f}%" for k, c in sorted(counts.items(), key=lambda kv: -kv[1]))
    numbers = [float(v) for v in values]
    median = statistics.median(numbers)
    return (
        f"median {median:g} (p10 {_percentile(numbers, 0.1):g} – p90 {_percentile(numbers, 0.9):g}),"
        f" mean {statistics.fmean(numbers):.2f}"
    )


def game_seed(seed: str, index: int) -> str:
    return f"{seed}:{index}"


def play_one(engine: AnyEngine, ai: AnyAISeat, players: int, seed: str, options: Any = None) -> tuple[Any, int]:
    """Play one game to its end; return (final state, actions). ``SelfplayError`` on any fault."""
    rng = random.Random(seed)
    seats = [f"p{n + 1}" for n in range(players)]
    state = engine.new_game(seats, options, rng)
    _audit(engine, state, seed, 0, None)
    actions = 0
    while engine.status(state) == "playing":
        if actions >= MAX_ACTIONS:
            raise SelfplayError(f"game {seed}: still playing after {MAX_ACTIONS} actions")
        awaited = engine.awaiting(state)
        seat = next((s for s in engine.seats(state) if s in awaited), None)
        if seat is None:
            raise SelfplayError(f"game {seed}: status is playing but the game awaits nobody")
        action = ai.choose(state, seat, rng)
        try:
            state, _ = engine.apply(state, seat, action, rng)
        except GameRuleError as exc:
            raise SelfplayError(
                f"game {seed}, action {actions + 1}: the AI of {seat} chose an illegal move"
                f" `{engine.format_action(state, action)}`: {exc}\n\n{engine.public_view(state)}"
            ) from exc
        actions += 1
        _audit(engine, state, seed, actions, (action, seat))
    again = engine.load_state(engine.dump_state(state))
    if again != state:
        raise SelfplayError(f"game {seed}: the final state changed in a JSON round trip")
    return state, actions


def _audit(engine: AnyEngine, state: Any, seed: str, actions: int, last: tuple[Any, str] | None) -> None:
    """Check the invariants after the deal (``last`` None) or after ``last``, an action and its seat."""
    broken = engine.invariants(state)
    if broken:
        after = "the deal" if last is None else f"`{engine.format_action(state, last[0])}` by {last[1]}"
        details = "\n".join(f"  - {line}" for line in broken)
        raise SelfplayError(
            f"game {seed}: invariants broken after action {actions} ({after}):\n{details}\n\n"
            + engine.public_view(state)
        )


def default_players(game: str) -> int:
    """``DEFAULT_PLAYERS`` within what ``game`` seats (a game for two gets two)."""
    engine = get_game(game)
    return min(max(DEFAULT_PLAYERS, engine.min_seats), engine.max_seats)


def default_jobs() -> int:
    """The cores this process may run on."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # pragma: no cover - not on Linux
        return max(1, os.cpu_count() or 1)


def run_selfplay(
    game: str,
    *,
    games: int,
    players: int,
    seed: str,
    progress: Callable[[int], None] | None = None,
    options: Sequence[str] = (),
    jobs: int = 1,
) -> SelfplayReport:
    """Play ``games`` games, shared among ``jobs`` processes, with the game's options as ``options`` set them."""
    engine = get_game(game)
    if not engine.min_seats <= players <= engine.max_seats:
        raise SeatingError(
            f"{engine.name} is played by {engine.min_seats} to {engine.max_seats} players, not {players}"
        )
    game_options = _options(engine, options)
    jobs = max(1, min(jobs, games // CHUNK))
    started = time.perf_counter()
    if jobs == 1:
        report = _play_range(engine.name, players, seed, 0, games, options=options, progress=progress)
    else:
        report = _play_parallel(engine.name, players, seed, games=games, jobs=jobs, options=options, progress=progress)
    report.seconds = time.perf_counter() - started
    report.options = " ".join(options)
    report.jobs = jobs
    in_force = game_options if game_options is not None else engine.options_model()
    report.in_force = ", ".join(f"{name}={value}" for name, value in in_force.model_dump().items())
    words = getattr(engine, "selfplay_lines", None)
    if callable(words) and report.stats:
        report.figure_lines = list(words(report.stats, report.games, players, game_options))
    return report


def _options(engine: AnyEngine, options: Sequence[str]) -> Any:
    """The game's options as ``!play`` reads ``options``, or None for its defaults."""
    chosen = parse_play([engine.name, *options]).game_options
    return engine.options_model.model_validate_json(chosen) if chosen else None


def _play_range(
    game: str,
    players: int,
    seed: str,
    start: int,
    stop: int,
    *,
    options: Sequence[str],
    progress: Callable[[int], None] | None = None,
) -> SelfplayReport:
    """Games ``start`` to ``stop - 1`` of a run (what one process plays)."""
    engine = get_game(game)
    ai = get_ai(game)
    game_options = _options(engine, options)
    report = SelfplayReport(game=engine.name, players=players, seed=seed)
    stats = getattr(engine, "selfplay_stats", None)
    for index in range(start, stop):
        state, actions = play_one(engine, ai, players, game_seed(seed, index), game_options)
        result = engine.result(state)
        report.games += 1
        report.count_result(result)
        report.turns += result.turns
        report.actions += actions
        if callable(stats):
            report.add_stats(stats(state))
        if progress is not None:
            progress(report.games)
    return report


def _play_chunk(task: tuple[str, int, str, int, int, Sequence[str]]) -> SelfplayReport | tuple[int, str]:
    """``_play_range`` in a worker: its report, or the first game's index and the fault that stopped it."""
    game, players, seed, start, stop, options = task
    try:
        return _play_range(game, players, seed, start, stop, options=options)
    except SelfplayError as exc:
        return start, str(exc)


def _play_parallel(
    game: str,
    players: int,
    seed: str,
    *,
    games: int,
    jobs: int,
    options: Sequence[str],
    progress: Callable[[int], None] | None,
) -> SelfplayReport:
    """The games shared out in chunks among ``jobs`` processes; the first fault reported stops the run."""
    report = SelfplayReport(game=game, players=players, seed=seed)
    size = max(1, min(CHUNK, games // (4 * jobs)))
    tasks = [(game, players, seed, start, min(start + size, games), tuple(options)) for start in range(0, games, size)]
    method = "fork" if "fork" in multiprocessing.get_all_start_methods() else "spawn"
    with multiprocessing.get_context(method).Pool(jobs) as pool:
        for outcome in pool.imap_unordered(_play_chunk, tasks):
            if isinstance(outcome, tuple):
                pool.terminate()
                raise SelfplayError(outcome[1])
            report.add(outcome)
            if progress is not None:
                progress(report.games)
    return report


def main(
    game: str,
    *,
    games: int,
    players: int | None = None,
    seed: str | int = 0,
    out: TextIO | None = None,
    options: Sequence[str] = (),
    jobs: int | None = None,
) -> int:
    """Run and print a self-play report; 0 when every game ended soundly, 1 on a fault, 2 on bad arguments.

    ``jobs`` is the number of processes to share the games (None: one a core); ``players`` None: the
    game's own table size (``default_players``).
    """
    out = out or sys.stdout
    if games < 1:
        print("--games must be at least 1", file=sys.stderr)
        return 2
    if jobs is not None and jobs < 1:
        print("--jobs must be at least 1", file=sys.stderr)
        return 2
    try:
        report = run_selfplay(
            game,
            games=games,
            players=default_players(game) if players is None else players,
            seed=str(seed),
            options=options,
            jobs=default_jobs() if jobs is None else jobs,
        )
    except GameRuleError as exc:
        print(str(exc), file=sys.stderr)
        return 2
    except SelfplayError as exc:
        print(f"SELF-PLAY ABORTED\n{exc}", file=sys.stderr)
        return 1
    print("\n".join(report.lines()), file=out)
    return 0
