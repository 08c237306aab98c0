"""A table's refusals read in the table's language: the framework's words, the error's sentence, one full stop."""

from __future__ import annotations

from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Annotated

import pytest
from hypothesis import given
from hypothesis import strategies as st
from pydantic import BaseModel, BeforeValidator, ValidationError

from data.table_store import TableStore
from games.tables.engine import BadCommandError, IllegalActionError
from games.tables.i18n import LANGUAGES
from games.tables.service import Actor, TablePost, TableService, error_text
from games.tables.text import invalid_value

GUILD = "g1"
T0 = datetime(2026, 12, 7, 9, tzinfo=UTC)
ALICE, BOB, CAROL = Actor("alice", "alice"), Actor("bob", "bob"), Actor("carol", "carol")
ENDS = (".", "!", "?", "。", "！", "？")


@pytest.fixture
async def service(tmp_path: Path) -> AsyncIterator[TableService]:
    store = await TableStore.open(tmp_path / "tables.db", synchronous="NORMAL")
    yield TableService(store, seed="x")
    await store.close()


class Typist:
    """Types commands as members, each a second after the last, with a fresh event id."""

    def __init__(self, service: TableService) -> None:
        self.service = service
        self.now = T0
        self.n = 0

    async def say(self, actor: Actor, text: str, thread: str | None = None, *, dm: bool = False) -> list[TablePost]:
        self.n += 1
        self.now += timedelta(seconds=1)
        posts = await self.service.command(GUILD, actor, text, at=self.now, event_id=f"e{self.n}", thread=thread, dm=dm)
        assert posts is not None, text
        return posts

    async def refusal(self, actor: Actor, text: str, thread: str | None = None, *, dm: bool = False) -> str:
        posts = await self.say(actor, text, thread, dm=dm)
        assert len(posts) == 1, (text, [p.text for p in posts])
        assert posts[0].error, (text, posts[0].text)
        return posts[0].text


async def test_a_table_in_traditional_chinese_refuses_in_traditional_chinese(service: TableService) -> None:
    t = Typist(service)
    await t.say(ALICE, "!play nuclear")  # the game's own default language
    table = "nuclear-1"
    assert await t.refusal(ALICE, "!join", table) == "無法這樣做：你已經在這桌了。"
    refusals = [
        await t.refusal(CAROL, "!start", table),  # a rule of the framework, in its catalogue
        await t.refusal(ALICE, "!ai 99", table),  # words of the thread's command path
        await t.refusal(ALICE, "!leave now", table),
        await t.refusal(ALICE, "!play nuclear", table),
        await t.refusal(ALICE, "!" + "x" * 3000, table),
        await t.refusal(CAROL, "!hand", table),
        await t.refusal(ALICE, "!", table),
        await t.refusal(ALICE, "!join weight:2", table),
    ]
    for text in refusals:
        assert text.startswith("無法這樣做："), text
        assert "Can't" not in text, text
        assert text.endswith("。"), text
        assert not text.endswith(("。.", "。。")), text
    assert refusals[0] == "無法這樣做：只有這桌的玩家能開始遊戲；請先 `!join`。"
    await t.say(ALICE, "!ai 3", table)
    await t.say(ALICE, "!start", table)
    dance = await t.refusal(ALICE, "!dance", table)  # the game's own sentence, in the table's language
    assert dance.startswith("無法這樣做：`dance` 不是關你核四的指令"), dance
    assert dance.endswith("。"), dance
    assert not dance.endswith("。."), dance
    by_dm = await t.refusal(ALICE, "!nuclear-1 dance", dm=True)
    assert by_dm == dance, "a DM to the table is refused in the table's language too"


async def test_a_table_asked_for_in_english_refuses_in_english(service: TableService) -> None:
    t = Typist(service)
    await t.say(ALICE, "!play nuclear lang:en")
    table = "nuclear-1"
    assert await t.refusal(ALICE, "!join", table) == "Can't do that: you already sit at this table."
    assert await t.refusal(ALICE, "!ai 99", table) == (
        "Can't do that: write `!ai N` with N from 0 to the seats the game has left."
    )
    await t.say(ALICE, "!play wikipedia")
    assert await t.refusal(BOB, "!start", "wikipedia-1") == (
        "Can't do that: only players at this table can start it; `!join` first."
    )


async def test_opening_a_table_is_refused_in_the_games_language_before_the_table_exists(
    service: TableService,
) -> None:
    t = Typist(service)
    said = await t.refusal(ALICE, "!play nuclear ai:9")
    assert said.startswith("無法這樣做：關你核四最多 8 位玩家"), said
    said = await t.refusal(ALICE, "!play nuclear ai:9 lang:en")
    assert said.startswith("Can't do that: 關你核四 seats at most 8 players"), said
    assert await service.open_tables(GUILD) == []


async def test_with_no_table_known_a_refusal_is_in_english(service: TableService) -> None:
    t = Typist(service)
    said = await t.refusal(ALICE, "!play chess")
    assert said.startswith("Can't do that: there is no game called `chess`"), said
    assert said.endswith(".")
    assert not said.endswith(".."), said
    outcome = await service.start(GUILD, "nuclear-9", ALICE, at=T0, event_id="x")
    assert [p.text for p in outcome.posts] == ["Can't do that: there is no table `nuclear-9`."]


@given(
    sentence=st.text(min_size=1, max_size=40).filter(lambda s: s.strip() != ""),
    end=st.sampled_from(ENDS),
    lang=st.sampled_from(LANGUAGES),
)
def test_a_sentence_that_ends_already_gets_no_second_stop(sentence: str, end: str, lang: str) -> None:
    said = error_text(IllegalActionError(sentence.strip() + end), lang)
    assert said.endswith(sentence.strip() + end)
    assert said.startswith("Can't do that: " if lang == "en" else "無法這樣做：")


@given(sentence=st.text(alphabet="abcxyz `_的牌", min_size=1, max_size=30).filter(lambda s: s.strip() != ""))
def test_a_sentence_without_an_end_gets_the_full_stop_of_the_tables_language(sentence: str) -> None:
    words = sentence.strip()
    assert error_text(BadCommandError(words), "en") == f"Can't do that: {words}."
    assert error_text(BadCommandError(words), "zh-TW") == f"無法這樣做：{words}。"


def test_an_error_that_carries_a_sentence_per_language_shows_the_tables() -> None:
    error = IllegalActionError("you have no such card", texts={"zh-TW": "你沒有這張牌"})
    assert error_text(error, "zh-TW") == "無法這樣做：你沒有這張牌。"
    assert error_text(error, "en") == "Can't do that: you have no such card."
    assert error_text(error) == "Can't do that: you have no such card."


async def test_a_refused_option_says_why_in_words_of_the_tables_language(service: TableService) -> None:
    """Not pydantic's English ("Input should be greater than or equal to 4"): the bound, the kind of value,
    or the choices, in the language the table would speak."""
    t = Typist(service)
    assert await t.refusal(ALICE, "!play nuclear max_rounds:2") == (
        "無法這樣做：`max_rounds:2` 不正確：必須是 4 到 200 的整數。"
    )
    assert await t.refusal(ALICE, "!play nuclear lang:en max_rounds:2") == (
        "Can't do that: `max_rounds:2` is not valid: it must be a whole number from 4 to 200."
    )
    assert await t.refusal(ALICE, "!play nuclear lang:en max_rounds:many") == (
        "Can't do that: `max_rounds:many` is not valid: it must be a whole number from 4 to 200."
    )
    assert await t.refusal(ALICE, "!play nuclear eye:sometimes") == (
        "無法這樣做：`eye:sometimes` 不正確：要是其中之一：`majority`、`vote`、`off`。"
    )
    assert await t.refusal(ALICE, "!play nuclear turn:soon") == (
        "無法這樣做：`soon` 不是有效的時限；請寫成 `24h`、`90m` 或 `2d` 這樣。"
    )
    assert await t.refusal(ALICE, "!play nuclear frobnicate:3") == (
        "無法這樣做：`frobnicate:3` 不是 `!play nuclear` 的選項；請寫成 `!play GAME [ai:N] [turn:24h] [lang:en]"
        " [lobby:24h] [OPTION:VALUE ...]`，例如 `!play wikipedia ai:2`。這個遊戲的選項：`anyone_gives`、`countdown`、"
        "`eye`、`first_vote_counts`、`first_vote_optional`、`max_rounds`、`negotiation`、`placement`、`proposal`、"
        "`referendum_turnout`、`removal`、`reveal`、`swings`、`ties`、`vote`（`!rules nuclear` 有說明）。"
    )
    assert await service.open_tables(GUILD) == []


async def test_names_in_a_move_are_refused_in_the_tables_language(service: TableService) -> None:
    t = Typist(service)
    await t.say(ALICE, "!play nuclear ai:3")
    await t.say(ALICE, "!start", "nuclear-1")
    assert await t.refusal(ALICE, "!promise @zed", "nuclear-1") == "無法這樣做：這桌沒有叫 `zed` 的人。"
    assert await t.refusal(ALICE, "!promise <@999>", "nuclear-1") == "無法這樣做：你提到的成員沒有參加這桌。"
    await t.say(BOB, "!play nuclear ai:3 lang:en")
    await t.say(BOB, "!start", "nuclear-2")
    assert (
        await t.refusal(BOB, "!promise @zed", "nuclear-2") == "Can't do that: nobody called `zed` sits at this table."
    )


async def test_a_dm_naming_a_table_that_is_not_theirs_is_answered_in_that_tables_language(
    service: TableService,
) -> None:
    t = Typist(service)
    await t.say(ALICE, "!play wikipedia")  # alice sits at an English table
    await t.say(BOB, "!play nuclear ai:3")  # nuclear-1 speaks Chinese; alice is not there
    said = await t.refusal(ALICE, "!nuclear-1 hand", dm=True)
    assert said == "沒有你參加的進行中的桌 `nuclear-1`。"
    assert (
        await t.refusal(ALICE, "!wikipedia-7 hand", dm=True) == "There is no open table `wikipedia-7` that you play at."
    )


def test_a_validators_own_sentence_is_shown_in_the_tables_language_when_it_gives_one() -> None:
    def whole_minutes(value: object) -> object:
        if not str(value).endswith("m"):
            raise BadCommandError("write minutes, e.g. 3m", texts={"zh-TW": "請寫分鐘，例如 3m"})
        return int(str(value)[:-1])

    def plain(value: object) -> object:
        raise ValueError("write it otherwise")

    class Options(BaseModel):
        talk: Annotated[int, BeforeValidator(whole_minutes)] = 3
        other: Annotated[int, BeforeValidator(plain)] = 1

    for data, english, chinese in (
        ({"talk": "90s"}, "write minutes, e.g. 3m", "請寫分鐘，例如 3m"),
        ({"other": "x"}, "write it otherwise", "write it otherwise"),
    ):
        with pytest.raises(ValidationError) as caught:
            Options.model_validate(data)
        error = invalid_value(Options, caught.value.errors()[0], "error.not_valid", word="w")
        assert error_text(error, "en") == f"Can't do that: `w` is not valid: {english}."
        assert error_text(error, "zh-TW") == f"無法這樣做：`w` 不正確：{chinese}。"
