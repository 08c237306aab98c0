"""``bench --write-week FILE``: the busy week every replay figure is taken on, the same file each time."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

from bot.cli import main


def test_the_busy_week_is_written_the_same_each_time_and_holds_the_week(tmp_path: Path) -> None:
    first, second = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    assert main(["bench", "--write-week", str(first)]) == 0
    assert main(["bench", "--write-week", str(second)]) == 0
    assert first.read_bytes() == second.read_bytes()
    lines = [json.loads(line) for line in first.read_text(encoding="utf-8").splitlines()]
    assert len(lines) == 21_106
    assert lines[0] == {"at": "2026-12-05T06:00:00Z", "type": "setup", "admins": ["mod"]}
    messages = [line for line in lines if line["type"] == "message"]
    assert [m["id"] for m in messages] == [f"m{n}" for n in range(1, len(messages) + 1)]
    assert [line["at"] for line in lines] == sorted(line["at"] for line in lines), "in time order"
    words = Counter(m["content"].split()[0] for m in messages if m["content"].startswith("!"))
    assert words["!bid"] == 14_000
    assert words["!present"] == 100
    assert words["!join"] == 102
    reacted = {line["message"] for line in lines if line["type"] == "react"}
    proposed = {m["id"] for m in messages if m["channel"] == "proposals"}
    assert reacted <= proposed, "reactions are to proposals"
