"""The framework's words follow the game and the table's language: the lobby names the game's own
clocks, ``!hand`` is called what the game calls a seat's private view, and the thread help, the
``!games`` list and the options' descriptions come from the catalogues (English and 繁體中文)."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from typing import Any

import pytest

from bot.sim.replay import ReplayResult, replay
from bot.sim.world import read_line
from games.tables.i18n import FRAMEWORK
from games.tables.options import option_entries, option_hints, options_help
from games.tables.registry import get_game, register, unregister

from .ballot_game import BALLOT, TEXTS


@pytest.fixture(scope="module", autouse=True)
def ballot_registered() -> Iterator[None]:
    register(BALLOT)
    yield
    unregister(BALLOT.name)


def msg(mid: str, second: int, channel: str, author: str, content: str) -> dict[str, Any]:
    return {"at": f"2026-12-07T09:00:{second:02d}Z", "type": "message", "id": mid, "channel": channel,
            "author": author, "content": content}  # fmt: skip


RAW = [
    {"at": "2026-12-07T09:00:00Z", "type": "setup", "admins": ["mod"]},
    msg("w1", 1, "game-actions", "alice", "!play wikipedia ai:1"),
    msg("b1", 2, "game-actions", "bob", "!play ballot"),
    msg("z1", 3, "game-actions", "carol", "!play ballot lang:zh-TW seconds:30"),
    msg("w2", 4, "wikipedia-1", "alice", "!help"),
    msg("b2", 5, "ballot-1", "bob", "!help"),
    msg("z2", 6, "ballot-2", "carol", "!help"),
    msg("z3", 7, "ballot-2", "carol", "!board"),
    msg("g1", 8, "game-actions", "dave", "!games"),
    msg("g2", 9, "game-actions", "dave", "!games lang:zh-TW"),
    msg("g3", 10, "ballot-2", "carol", "!games"),
    msg("r1", 11, "game-actions", "dave", "!rules ballot lang:zh-TW"),
    msg("r2", 12, "game-actions", "dave", "!rules ballot"),
    msg("s1", 13, "ballot-1", "alice", "!join"),
    msg("s2", 14, "ballot-1", "bob", "!start"),
    msg("s3", 15, "wikipedia-1", "alice", "!start"),
    msg("s4", 16, "ballot-2", "carol", "!ai 1"),
    msg("s5", 17, "ballot-2", "carol", "!start"),
    msg("g4", 18, "ballot-2", "carol", "!games"),
]


@pytest.fixture(scope="module")
def result(ballot_registered: None) -> ReplayResult:
    return asyncio.run(replay([(i, read_line(d)) for i, d in enumerate(RAW)], seed="5"))


def answer(result: ReplayResult, mid: str) -> str:
    return "\n".join(e["content"] for e in result.transcript if e.get("reply_to") == mid)


def thread(result: ReplayResult, name: str) -> list[str]:
    return [e["content"] for e in result.transcript if e.get("channel") == name]


def test_the_lobby_names_the_games_own_clocks(result: ReplayResult) -> None:
    assert "each turn may take up to 1d" in thread(result, "wikipedia-1")[0]
    ballot = thread(result, "ballot-1")[0]
    assert "each vote may take up to 10s" in ballot
    assert "each turn" not in ballot, "a game with clocks of its own has no turn limit to speak of"
    chinese = thread(result, "ballot-2")[0]
    assert "每次投票最多 30 秒" in chinese
    assert "每一輪" not in chinese
    assert "每次投票最多 30 秒" in answer(result, "z3"), "`!board` in the lobby says the same"


def test_the_game_names_a_seats_private_view(result: ReplayResult) -> None:
    assert "`!hand` shows your cards (only to you)" in answer(result, "s3")
    assert "`!hand` shows your vote (only to you)" in answer(result, "s2")
    assert "輸入 `!hand` 查看你的選票" in answer(result, "s5")
    assert "`!hand` - your vote, shown only to you" in answer(result, "b2")
    assert "`!hand` - your cards, shown only to you" in answer(result, "w2")


def test_the_thread_help_speaks_the_tables_language(result: ReplayResult) -> None:
    english = answer(result, "b2")
    assert english.startswith("**ballot-1** plays Secret ballot. Commands in this thread:")
    assert "`!join weight:… pledge:…`" in english, "what a seat may bring is in the help"
    chinese = answer(result, "z2")
    assert chinese.startswith("**ballot-2** 在玩Secret ballot。這個討論串裡的指令：")
    assert "`!hand`：你的選票，只有你看得到" in chinese
    assert "Commands" not in chinese
    assert "`!vote X`：你的秘密投票" in chinese, "the game's own moves in the table's language"


def test_the_games_list_speaks_the_asked_language(result: ReplayResult) -> None:
    assert answer(result, "g1").startswith("Open tables:")
    assert "`!play GAME [ai:N]` opens a table" in answer(result, "g1")
    chinese = answer(result, "g2")
    assert chinese.startswith("進行中的桌：")
    assert "會在新的討論串開一桌" in chinese
    assert "**ballot-2**（Secret ballot）：等待中" in chinese, "each table's line in its own language"
    assert answer(result, "g3").startswith("進行中的桌："), "in a table's thread: the table's language"
    assert "**ballot-2**（Secret ballot）：進行中，" in answer(result, "g4"), "a table's status in its language"


def test_the_options_are_described_in_the_tables_language(result: ReplayResult) -> None:
    chinese = answer(result, "r1")
    for words in ("**選項**", "`ai:…`（預設 0）：除了你之外的電腦玩家數", "`rounds:…`（預設 2）：投票的輪數",
                  "**入座時可以帶的東西**", "`pledge:…`（預設 none）：你秘密押注的選項"):  # fmt: skip
        assert words in chinese, words
    english = answer(result, "r2")
    assert "- `rounds:…` (default 2): rounds of voting" in english
    assert "- `lang:…` (default en): the table's language: en, zh-TW" in english
    assert "- `weight:…` (default 1): how many votes your ballot counts for (everyone sees it)" in english


def test_every_option_of_a_game_has_a_description_in_each_of_its_languages() -> None:
    for lang in ("en", "zh-TW"):
        entries = option_entries(BALLOT.engine, lang)
        assert {e.key for e in entries} == {"ai", "turn", "lang", "lobby", "rounds", "choices", "seconds",
                                            "weight", "pledge"}  # fmt: skip
        assert all(e.description for e in entries)
    keys = TEXTS.keys("zh-TW")
    assert {"options.rounds", "options.choices", "options.seconds", "setup.weight", "setup.pledge"} <= keys
    assert "- `hand_limit:…`" in options_help(get_game("wikipedia"), "en"), "English-only games keep theirs"
    assert FRAMEWORK.missing(("en", "zh-TW")) == []


def test_option_hints_complete_the_last_word_with_the_default() -> None:
    engine = BALLOT.engine
    first = option_hints(engine, "", "en")
    keys = ["lobby:1d", "rounds:2", "choices:ABC", "seconds:10", "weight:1", "pledge:none"]
    assert [value for _, value in first] == keys
    assert first[1][0] == "rounds:2 · rounds of voting (default 2)"
    assert [value for _, value in option_hints(engine, "rounds:3 se", "en")] == ["rounds:3 seconds:10"]
    assert [value for _, value in option_hints(engine, "rounds:3 seconds:20", "en")] == ["rounds:3 seconds:20"]
    assert option_hints(engine, "rounds:3 ", "en")[0][1] == "rounds:3 lobby:1d"
    assert "rounds:3 rounds:2" not in [v for _, v in option_hints(engine, "rounds:3 ", "en")], "a key is given once"
    assert option_hints(engine, "colour", "en") == []
    assert option_hints(engine, "", "zh-TW")[1][0] == "rounds:2 · 投票的輪數（預設 2）"
    long = "rounds:3 " * 11
    assert all(len(v) <= 100 and len(n) <= 100 for n, v in option_hints(engine, long, "en"))
