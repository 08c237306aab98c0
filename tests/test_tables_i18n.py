"""Every text in every language a catalogue declares, with the fields English gives it."""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path

import pytest

from games.tables.events import duration_text, stamp
from games.tables.i18n import FRAMEWORK, LANGUAGES, Catalogue, normalise, tr, trn
from games.tables.registry import get_spec, specs

from .ballot_game import BALLOT
from .zh_support import english_runs, punctuation_slips


def test_the_frameworks_own_texts_exist_in_english_and_traditional_chinese() -> None:
    assert LANGUAGES == ("en", "zh-TW")
    assert FRAMEWORK.missing(LANGUAGES) == []
    assert len(FRAMEWORK.keys("zh-TW")) >= len(FRAMEWORK.keys("en")) - 5


def test_every_registered_games_catalogue_is_complete() -> None:
    for spec in [*specs().values(), BALLOT]:
        catalogue = spec.catalogue
        if catalogue is not None:
            assert catalogue.missing(spec.engine.languages) == [], spec.name


def test_chinese_texts_read_as_chinese() -> None:
    assert tr("zh-TW", "error.already_seated") == "你已經在這桌了"
    assert trn("zh-TW", "lobby.ai_seats", 1) == "這桌現在有 1 個電腦玩家。"
    assert trn("en", "lobby.ai_seats", 1) == "The table now has 1 AI seat."
    assert duration_text(10, "zh-TW") == "10 秒"
    assert duration_text(26 * 3600, "en") == "1d 2h"


@pytest.mark.parametrize(
    ("seconds", "english", "chinese"),
    [
        (0, "under a minute", "不到一分鐘"),
        (0.9, "under a minute", "不到一分鐘"),
        (1, "1s", "1 秒"),
        (59, "59s", "59 秒"),
        (60, "1m", "1 分鐘"),
        (61, "1m 1s", "1 分 1 秒"),
        (90, "1m 30s", "1 分 30 秒"),
        (119, "1m 59s", "1 分 59 秒"),
        (119.99, "1m 59s", "1 分 59 秒"),
        (120, "2m", "2 分鐘"),
        (180, "3m", "3 分鐘"),
        (3599, "59m 59s", "59 分 59 秒"),
        (3600, "1h", "1 小時"),
        (3630, "1h 30s", "1 小時 30 秒"),
        (3690, "1h 1m 30s", "1 小時 1 分 30 秒"),
        (5400, "1h 30m", "1 小時 30 分鐘"),
        (86400, "1d", "1 天"),
        (26 * 3600, "1d 2h", "1 天 2 小時"),
        (30 * 86400, "30d", "30 天"),
        (-5, "under a minute", "不到一分鐘"),
    ],
)
def test_durations_keep_their_seconds_in_each_language(seconds: float, english: str, chinese: str) -> None:
    """A 90-second vote is not "1 minute", and 1:59 left is not "1 minute left", in either language."""
    assert duration_text(seconds, "en") == english
    assert duration_text(seconds, "zh-TW") == chinese


def test_language_codes() -> None:
    assert normalise("zh-tw") == normalise("zh_TW") == normalise("zh") == "zh-TW"
    assert normalise("EN") == "en"
    assert normalise("klingon") is None


def test_a_missing_key_falls_back_to_english(tmp_path: Path) -> None:
    (tmp_path / "en.toml").write_text('a = "one {x}"\nb = "two"\n', encoding="utf-8")
    (tmp_path / "zh-TW.toml").write_text('a = "一 {x}"\nc = "extra"\n', encoding="utf-8")
    catalogue = Catalogue(tmp_path)
    assert catalogue.text("zh-TW", "b") == "two"
    assert catalogue.missing(("zh-TW",)) == ["zh-TW: missing b", "zh-TW: c is not in English"]


def test_stamps_show_seconds_only_for_short_clocks() -> None:
    from datetime import UTC, datetime

    assert stamp(datetime(2026, 12, 7, 9, 1, 0, tzinfo=UTC)) == "Mon 2026-12-07 09:01 UTC"
    assert stamp(datetime(2026, 12, 7, 9, 1, 10, tzinfo=UTC), "zh-TW") == "2026-12-07 09:01:10 UTC"


def _filled(text: str) -> str:
    """A catalogue text with every field filled (by a number: neither a word nor Chinese, so what the
    checks find is the text's own)."""
    return text.format_map(defaultdict(lambda: "7"))


@pytest.mark.parametrize("catalogue", [FRAMEWORK, get_spec("nuclear").catalogue], ids=["framework", "nuclear"])
def test_every_traditional_chinese_text_reads_as_chinese(catalogue: Catalogue | None) -> None:
    """No English phrase and no ASCII comma, colon or stray space in a Chinese sentence, in any key
    (stamps are formats, and the game's command words and option keys stay in code spans)."""
    assert catalogue is not None
    english: dict[str, list[str]] = {}
    slips: dict[str, list[str]] = {}
    for key in sorted(catalogue.keys("zh-TW")):
        if key.startswith("time.stamp"):
            continue
        text = _filled(catalogue.text("zh-TW", key))
        if runs := english_runs(text):
            english[key] = runs
        if found := punctuation_slips(text):
            slips[key] = found
    assert english == {}
    assert slips == {}
