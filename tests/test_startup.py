"""What a command loads before it does anything: a command does not import what it does not use.

Each case runs in a fresh interpreter (``sys.modules`` of this one holds everything the tests import)
and names the packages the command's work needed, and those it must not have loaded.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SCENARIOS = ROOT / "tests" / "scenarios"


def _loaded_after(code: str) -> set[str]:
    """The modules loaded once ``code`` ran in a fresh interpreter."""
    probe = textwrap.dedent(code) + "\nimport json, sys\nprint(json.dumps(sorted(sys.modules)))\n"
    command = [sys.executable, "-c", probe]
    done = subprocess.run(command, check=False, cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    return set(json.loads(done.stdout.splitlines()[-1]))


def _packages(modules: set[str], prefix: str) -> set[str]:
    return {name.split(".")[1] for name in modules if name.startswith(prefix) and name.count(".") >= 1}


def test_a_table_of_one_game_loads_no_other_game() -> None:
    loaded = _loaded_after(
        """
        from games.tables.registry import GAMES, get_game, get_spec
        assert get_spec("sardini").name == "sardini"
        assert "sardini" in GAMES and get_game("sardini").name == "sardini"
        """
    )
    assert {"sardini", "tables"} <= _packages(loaded, "games.")
    assert not _packages(loaded, "games.") & {"wikipedia", "nuclear", "ictc"}, "only the game asked for"


def test_the_games_known_by_alias_or_listed_are_all_loaded() -> None:
    loaded = _loaded_after(
        """
        from games.tables.registry import GAMES, specs
        assert sorted(GAMES) == sorted(specs())
        """
    )
    assert {"sardini", "wikipedia", "nuclear", "ictc"} <= _packages(loaded, "games.")


def test_a_replay_of_the_round_loads_no_battle_and_no_thread_game() -> None:
    loaded = _loaded_after(
        f"""
        from bot.cli import main
        assert main(["replay", {str(SCENARIOS / "week.jsonl")!r}]) == 0
        """
    )
    assert "games.nomic.engine" in loaded
    assert not {"games.ictc.battle", "games.ictc.arena", "PIL", "discord", "aiohttp", "asyncpg", "jinja2"} & loaded
    assert not _packages(loaded, "games.") & {"wikipedia", "nuclear", "sardini"}
    tables = {name for name in loaded if name.startswith("games.tables.")}
    assert tables <= {"games.tables.words", "games.tables.on_demand"}, "a round with no table loads no table code"


def test_a_replay_of_one_game_loads_that_game_alone() -> None:
    loaded = _loaded_after(
        f"""
        from bot.cli import main
        assert main(["replay", {str(SCENARIOS / "table_sardini.jsonl")!r}]) == 0
        """
    )
    assert "sardini" in _packages(loaded, "games.")
    assert not _packages(loaded, "games.") & {"wikipedia", "nuclear"}
    assert "games.ictc.battle" not in loaded


def test_a_thread_games_end_loads_no_battle(tmp_path: Path) -> None:
    lines = [
        {"type": "setup", "admins": ["mod"]},
        {"type": "message", "channel": "game-actions", "author": "alice", "content": "!play sardini ai:1"},
        {"type": "message", "channel": "sardini-1", "author": "alice", "content": "!start"},
        {"type": "message", "channel": "sardini-1", "author": "mod", "content": "!end-table"},
        {"type": "message", "channel": "sardini-1", "author": "alice", "content": "!board"},
    ]
    scenario = tmp_path / "ends.jsonl"
    scenario.write_text(
        "".join(
            json.dumps({"at": f"2026-12-07T09:0{n}:00Z", "id": f"m{n}", **line}) + "\n" for n, line in enumerate(lines)
        )
    )
    transcript = tmp_path / "said.jsonl"
    loaded = _loaded_after(
        f"""
        from bot.cli import main
        assert main(["replay", {str(scenario)!r}, "--transcript", {str(transcript)!r}]) == 0
        """
    )
    assert "ended" in transcript.read_text().casefold(), "the table did end"
    assert "sardini" in _packages(loaded, "games.")
    assert not {"games.ictc.battle", "games.ictc.arena"} & loaded, "only a battle's end moves a kitty"


def test_a_command_parses_its_arguments_as_the_whole_command_line_does() -> None:
    from bot.cli import _COMMANDS, build_parser

    line = ["replay", "week.jsonl", "--seed", "7", "--until", "2026-12-12T01:00:00Z", "--db", "w.db"]
    assert vars(build_parser("replay").parse_args(line)) == vars(build_parser().parse_args(line))
    bench = ["bench", "--load", "--load-rounds", "3", "--tick-sizes", "300,1000"]
    assert vars(build_parser("bench").parse_args(bench)) == vars(build_parser().parse_args(bench))
    every = build_parser("--help").format_help()
    assert all(name in every for name in _COMMANDS), "help and an unknown command list every command"
    alone = build_parser("replay")._subparsers
    assert alone is not None
    assert "bench" not in alone._group_actions[0].choices, "the other commands' parsers are not made"
