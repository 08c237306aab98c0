"""Every text in every language a catalogue declares, with the fields English gives it."""

from __future__ import annotations

from pathlib import Path

from games.tables.events import duration_text, stamp
from games.tables.i18n import FRAMEWORK, LANGUAGES, Catalogue, normalise, tr, trn
from games.tables.registry import specs

from .ballot_game import BALLOT


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
    assert duration_text(90, "zh-TW") == "1 分鐘"
    assert duration_text(10, "zh-TW") == "10 秒"
    assert duration_text(26 * 3600, "en") == "1d 2h"


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
