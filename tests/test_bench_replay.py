"""``bench --replay SCENARIO``: a whole replay on disk beside the disk's raw single-row commits."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bot.bench import replay_disk
from bot.bench.load import HERE


def _scenario(path: Path, joins: int) -> Path:
    lines = [{"at": "2026-12-05T06:00:00Z", "type": "setup", "admins": ["mod"]}]
    lines += [
        {
            "at": f"2026-12-05T06:{n + 1:02d}:00Z",
            "type": "message",
            "id": f"m{n}",
            "channel": "game-actions",
            "author": f"p{n}",
            "content": "!join",
        }
        for n in range(joins)
    ]
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    return path


def test_the_replay_bench_counts_the_scenarios_durable_actions_beside_raw_commits(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(replay_disk, "ROWS", 50)
    counted: list[float] = []
    measure = replay_disk._replay

    def replay(checkout: Path, scenario: Path, folder: Path, seed: str, until: str | None) -> float:
        rate = measure(checkout, scenario, folder, seed, until)
        counted.append(rate)
        return rate

    monkeypatch.setattr(replay_disk, "_replay", replay)
    report = replay_disk.replay_bench(_scenario(tmp_path / "joins.jsonl", 6), 2, "7", None, HERE)
    lines = report.splitlines()
    assert lines[0].startswith("machine at the start: load average ")
    assert lines[-1].startswith("machine at the end: load average ")
    assert len(counted) == 4, "each round replays on both checkouts"
    assert all(rate > 0 for rate in counted), "the joins are durable actions in the round's log"
    words = [" ".join(line.split()) for line in lines]
    assert any(line.startswith("replay, this version / raw single-row min") for line in words)
    assert any(line.startswith("replay, before / raw single-row min") for line in words)
