"""``bench --baseline DIR``: the busy week's CPU per command in this checkout and another, in turn."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.bench.cpu import cpu_bench
from bot.bench.load import HERE
from bot.cli import main


def test_the_cpu_bench_plays_the_same_week_in_both_checkouts_and_reports_the_ratio() -> None:
    report = cpu_bench(HERE, rounds=1, week={"players": 4, "bids": 20, "trades": 2})
    lines = report.splitlines()
    assert lines[0].startswith("machine at the start: load average ")
    assert lines[-1].startswith("machine at the end: load average ")
    commands = next(line for line in lines if "commands a week" in line)
    here, before = commands.split(": ", 1)[1].split(", ", 1)
    assert here.split()[0] == before.split()[0], "the same week on both sides"
    for row in ("the whole process (os.wait4), this", "the week alone (in the process), before", "start-up alone"):
        assert any(row in line and "median" in line for line in lines), row
    assert any(line.strip().startswith("CPU per command, whole process") and "goal <= 1" in line for line in lines)


def test_a_baseline_that_is_no_checkout_is_a_usage_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["bench", "--baseline", str(tmp_path)]) == 2
    assert "not a checkout of this bot" in capsys.readouterr().err
