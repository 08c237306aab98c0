"""The user's documentation stays true: its examples come from real runs, and the README leads to it."""

from __future__ import annotations

import io
import json
import re
from pathlib import Path

from bot.sim.replay import read_scenario, replay
from games.tables.registry import register, unregister

from .ballot_game import BALLOT

ROOT = Path(__file__).resolve().parents[1]
SCENARIOS = ROOT / "tests" / "scenarios"
SIMULATOR = ROOT / "docs" / "simulator.md"
STATE_KEYS = re.compile(r"^\| `(\w+)` \|", re.MULTILINE)


async def _run(name: str, seed: str | None) -> tuple[list[dict[str, object]], dict[str, object]]:
    lines = read_scenario(SCENARIOS / name, io.StringIO())
    result = await replay(lines, seed=seed)
    return result.transcript, result.document


def _quoted_transcript_lines(text: str) -> list[dict[str, object]]:
    """Every one-line JSON object of the page that has the transcript's keys."""
    found = []
    for raw in text.splitlines():
        line = raw.strip()
        if line.startswith("{") and '"reply_to"' in line:
            found.append(json.loads(line))
    return found


async def test_the_transcript_examples_of_the_simulator_page_come_from_real_runs() -> None:
    page = SIMULATOR.read_text(encoding="utf-8")
    said: list[dict[str, object]] = []
    register(BALLOT)  # the test game of the `dm` examples
    try:
        for name, seed in (
            ("week.jsonl", "1"),
            ("governance_proposals.jsonl", None),
            ("table_wikipedia.jsonl", "7"),
            ("table_ballot.jsonl", "7"),
            ("cards.jsonl", "3"),
            ("table_nuclear.jsonl", "7"),
            ("notices.jsonl", "1"),
            ("sealed.jsonl", "1"),
        ):
            transcript, _ = await _run(name, seed)
            said += transcript
    finally:
        unregister(BALLOT.name)
    quoted = _quoted_transcript_lines(page)
    assert len(quoted) >= 8
    for entry in quoted:
        assert entry in said, f"docs/simulator.md quotes a transcript line no run says: {entry}"


async def test_the_state_document_has_every_key_the_simulator_page_names() -> None:
    page = SIMULATOR.read_text(encoding="utf-8")
    state_section = page.split("## The state document", 1)[1]
    round_keys = STATE_KEYS.findall(state_section.split("### `tables`", 1)[0])
    table_keys = STATE_KEYS.findall(state_section.split("### `tables`", 1)[1])
    _, document = await _run("table_wikipedia.jsonl", "7")
    assert {"now", "phase", "judge", "players", "lots", "proposals", "rulings", "tables"} <= set(round_keys)
    assert set(round_keys) <= set(document)
    tables = document["tables"]
    assert isinstance(tables, list)
    assert tables
    for key in table_keys:
        if key in {"moves", "winners", "summary"}:
            continue
        assert key in tables[0], key
    assert {"moves", "winners", "summary"} <= set(tables[0])


def test_the_readme_leads_to_the_docs_and_nowhere_outside_the_repository() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    for target in ("docs/simulator.md", "docs/operating.md", "docs/ruleset.md"):
        assert f"]({target})" in readme
        assert (ROOT / target).is_file()
    assert "shared notes" not in readme
    assert "DESIGN.md" not in readme
    unit = (ROOT / "deploy" / "nomic-bot.service").read_text(encoding="utf-8")
    for line in ("Restart=always", "User=nomic", "WorkingDirectory=", "EnvironmentFile=", "NoNewPrivileges=yes"):
        assert line in unit
