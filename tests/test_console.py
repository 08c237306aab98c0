"""``python -m bot console`` and ``python -m bot run`` without a token: the interactive simulator."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path

import pytest

from bot.sim.console import console

ROOT = Path(__file__).resolve().parents[1]
SATURDAY = "2026-12-05T12:00:00Z"


def _env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != "DISCORD_TOKEN"}
    env["PYTHONPATH"] = str(ROOT)
    return env


def _run(args: list[str], stdin: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    assert not (cwd / ".env").exists()
    return subprocess.run(
        [sys.executable, "-m", "bot", *args],
        input=stdin,
        capture_output=True,
        text=True,
        cwd=cwd,
        env=_env(),
        timeout=60,
        check=False,
    )


def _state_document(output: str) -> dict:
    """The JSON document printed by /state (the first one in the output)."""
    start = output.index("{\n")
    depth = 0
    for i, ch in enumerate(output[start:], start):
        depth += ch == "{"
        depth -= ch == "}"
        if depth == 0:
            return json.loads(output[start : i + 1])
    raise AssertionError("no complete state document in the output")


SESSION = "!join\n/as bob\n!join\n/in auctions\n!lots\n/advance 2d\n/state\n/quit\n!join\n"


def test_console_reads_commands_and_quits(tmp_path: Path) -> None:
    done = _run(["console", "--start", SATURDAY, "--seed", "1"], SESSION, tmp_path)
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert "Welcome, you" in out
    assert "Welcome, bob" in out
    assert "There are no lots yet" in out
    doc = _state_document(out)
    assert doc["now"] == "2026-12-07T12:00:00Z"
    assert doc["phase"] == "auction"
    # a Sunday passed during /advance: both players got their weekly points
    assert {name: p["points"] for name, p in doc["players"].items()} == {"bob": 100, "you": 100}
    assert "gains 100 points" in out
    # /quit ended the session: the line after it was never read
    assert out.count("Welcome") == 2


def test_run_without_token_opens_the_console(tmp_path: Path) -> None:
    done = _run(["run"], "!join\n/as bob\n!join\n/advance 2d\n/state\n/quit\n", tmp_path)
    assert done.returncode == 0, done.stderr
    assert "No DISCORD_TOKEN" in done.stderr
    assert "Welcome, you" in done.stdout
    assert "Welcome, bob" in done.stdout
    doc = _state_document(done.stdout)
    assert set(doc["players"]) == {"bob", "you"}


def test_run_with_empty_token_opens_the_console(tmp_path: Path) -> None:
    (tmp_path / "sub").mkdir()
    env_done = subprocess.run(
        [sys.executable, "-m", "bot", "run"],
        input="!phase\n",
        capture_output=True,
        text=True,
        cwd=tmp_path / "sub",
        env={**_env(), "DISCORD_TOKEN": "  "},
        timeout=60,
        check=False,
    )
    assert env_done.returncode == 0, env_done.stderr
    assert "It is the" in env_done.stdout


@pytest.mark.parametrize("command", [["console"], ["run"]])
def test_end_of_input_exits_zero(tmp_path: Path, command: list[str]) -> None:
    done = _run(command, "!join\n!inventory", tmp_path)
    assert done.returncode == 0, done.stderr
    assert "Welcome, you" in done.stdout
    assert "you: 0 points" in done.stdout
    done = _run(command, "", tmp_path)
    assert done.returncode == 0, done.stderr


async def test_console_in_process_handles_bad_lines() -> None:
    stdin = io.StringIO(
        "\n".join(
            [
                "/advance forever",
                "/advance 0d",
                "/teleport",
                "/as",
                "!bid 1 " + "9" * 10_000,
                "!\u202e\x00",
                "just chatting",
                "/help",
                "!join",
                "/state",
            ]
        )
        + "\n"
    )
    out = io.StringIO()
    start = datetime(2026, 12, 5, 12, tzinfo=UTC)
    assert await console(seed="s", start=start, stdin=stdin, out=out) == 0
    text = out.getvalue()
    assert text.count("! ") >= 3  # two bad durations and an unknown console command
    assert "too long" in text
    assert "/advance" in text  # the help
    assert "Welcome, you" in text
    doc = _state_document(text)
    assert doc["now"] == "2026-12-05T12:00:00Z"
    assert list(doc["players"]) == ["you"]


async def test_console_with_db_continues_the_same_round(tmp_path: Path) -> None:
    db = tmp_path / "console.db"
    start = datetime(2026, 12, 5, 12, tzinfo=UTC)
    first = io.StringIO()
    assert await console(db=db, seed="s", start=start, stdin=io.StringIO("!join\n/as bob\n!join\n"), out=first) == 0
    second = io.StringIO()
    later = datetime(2026, 12, 8, tzinfo=UTC)
    assert await console(db=db, seed="s", start=later, stdin=io.StringIO("!join\n/state\n"), out=second) == 0
    text = second.getvalue()
    assert "already a player" in text
    doc = _state_document(text)
    assert {name: p["points"] for name, p in doc["players"].items()} == {"bob": 100, "you": 100}
