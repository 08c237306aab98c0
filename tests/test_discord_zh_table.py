"""A 關你核四 table in Traditional Chinese on simulated Discord: every text a member meets there, from the
framework and from the adapter (messages, answers only they see, DMs, buttons, menus, placeholders,
forms), reads as Chinese; ``/games``, ``/rules`` and ``/play`` answer in the member's Discord language."""

from __future__ import annotations

import random
from collections.abc import Iterator
from typing import Any

import pytest
import simcord.interactions

from games.nuclear.ai import AI
from games.nuclear.cards import CARDS
from games.nuclear.engine import ENGINE
from games.nuclear.state import NuclearState, Phase
from games.tables import lobby
from games.tables.registry import GAMES

from .conftest import Server
from .test_discord_tables import labels, last_with_buttons, table, text_of, thread_of
from .zh_support import english_runs, message_texts, punctuation_slips, result_texts

NAME = "nuclear-1"


@pytest.fixture
def locales(monkeypatch: pytest.MonkeyPatch) -> dict[int, str]:
    """The Discord language of each member's client (simcord's interactions say ``en-US`` otherwise)."""
    chosen: dict[int, str] = {}
    original = simcord.interactions.base_payload

    def with_locale(backend: Any, **kwargs: Any) -> tuple[Any, dict[str, Any]]:
        record, payload = original(backend, **kwargs)
        if kwargs["user_id"] in chosen:
            payload["locale"] = chosen[kwargs["user_id"]]
        return record, payload

    monkeypatch.setattr(simcord.interactions, "base_payload", with_locale)
    return chosen


def move_for(state: NuclearState, seat: str) -> str:
    return ENGINE.format_action(state, AI.choose(state, seat, random.Random(0)))


async def members_turn(s: Server, members: dict[str, Any]) -> tuple[Any, NuclearState, str] | None:
    """The table, its game and the first of ``members`` it waits for; None after letting the clock run
    to the next deadline when it waits for none of them."""
    current = await table(s, NAME)
    state: NuclearState = lobby.game_state(current)
    seat = next((seat for seat in state.seats if seat in ENGINE.awaiting(state) and seat in members), None)
    if seat is None:
        await s.advance(current.clocks[0].deadline)
        return None
    return current, state, seat


def dm_messages(s: Server, *members: Any) -> Iterator[Any]:
    for member in members:
        channel = member.user.dm_channel
        if channel is not None:
            yield from (m for m in channel.history() if m.author.id == s.bot.user.id)


def names_of(s: Server, *extra: str) -> list[str]:
    """What is shown as it is in any language: members, seats, tables, the games' titles."""
    seats = [f"AI-{n}" for n in range(1, 9)]
    titles = [engine.title for engine in GAMES.values()]
    return [*(m.name for m in (s.mod, s.alice, s.bob, s.carol)), *seats, *titles, *extra]


async def test_every_text_at_a_chinese_table_reads_as_chinese(discord_server: Server, locales: dict[int, str]) -> None:
    s = discord_server
    erin = s.guild.add_member(s.env.create_user("erin"))
    for member in (s.mod, s.alice, s.bob, s.carol, erin):
        locales[member.id] = "zh-TW"
    shown: list[str] = []
    before = len(s.bot_messages(s.general))

    def keep(result: Any) -> Any:
        shown.extend(result_texts(result))
        return result

    # /play in the member's language: a refusal, then the table
    keep(await s.alice.slash(s.general, "play", game="nuclear", options="frobnicate:3"))
    keep(await s.alice.slash(s.general, "play", game="nuclear", ai=2))
    thread = thread_of(s, NAME)
    opened = s.bot_messages(thread)[0]
    assert labels(opened) == ["加入", "離開", "開始", "電腦 −", "電腦 +", "結束這桌（管理員）"]
    assert "1 分 30 秒" in opened.content, "the 90-second vote keeps its seconds"

    # the lobby's buttons and its refusals
    keep(await s.bob.click(opened, label="加入"))
    keep(await s.carol.click(opened, label="開始"))
    keep(await s.carol.click(opened, label="離開"))
    await s.bob.send(thread, "!ai x")
    await s.bob.send(thread, "!start now")
    await s.bob.send(thread, "!vote P04")
    keep(await s.alice.click(opened, label="電腦 +"))
    keep(await s.alice.click(opened, label="電腦 −"))
    await s.alice.send(thread, "!help")
    await s.alice.send(thread, "!board")
    keep(await s.bob.slash(thread, "hand"))
    keep(await s.alice.click(opened, label="開始"))
    board = last_with_buttons(s, thread, "我的手牌")
    keep(await erin.click(board, label="我的手牌"))
    await s.bob.user.send_dm("!nuclear-9 hand")
    await s.bob.user.send_dm("!nuclear-1 board")

    members = {"alice": s.alice, "bob": s.bob}
    done: set[str] = set()
    stale: Any = None
    for _ in range(300):
        if done >= {"propose", "talk", "vote", "place", "stale"}:
            break
        turn = await members_turn(s, members)
        if turn is None:
            continue
        current, state, seat = turn
        member = members[seat]
        if state.phase is Phase.PROPOSE and "propose" not in done:
            await member.send(thread, "!promise @zed 幫忙")
            await member.send(thread, "!promise @erin 幫忙")
            await member.send(thread, "!promise <@12345> 幫忙")
            await member.send(thread, "!frobnicate")
            await member.send(thread, "!hand")
            keep(await member.slash(thread, "move", move="count"))
            await s.advance(current.clocks[0].deadline)  # a reminder, then the clock runs out
            done.add("propose")
        elif state.phase is Phase.PROPOSE:
            await member.send(thread, "!" + move_for(state, seat))
        elif state.phase is Phase.VOTE1 and "vote" not in done:
            await member.send(thread, move_for(state, seat))  # typed without the prefix: removed
            keep(await member.slash(thread, "move", move=move_for(state, seat)))
            done.add("vote")
        elif state.phase is Phase.VOTE1:
            await member.user.send_dm(f"!{NAME} {move_for(state, seat)}")
        elif state.phase is Phase.TALK and "talk" not in done and len(state.hands[state.seats.index(seat)]) >= 2:
            stale = keep(await member.slash(thread, "hand"))
            await s.advance(current.clocks[0].deadline)  # the negotiation runs out
            done.add("talk")
        elif state.phase is Phase.TALK:
            await member.click(last_with_buttons(s, thread, "結束協商"), label="結束協商")
        elif state.phase is Phase.PLACE and "place" not in done:
            hand = keep(await member.click(last_with_buttons(s, thread, "我的手牌"), label="我的手牌"))
            menu = hand.response.components[0]["components"][0]
            keep(await member.select(hand.response, [menu["options"][-1]["value"]], custom_id=menu["custom_id"]))
            done.add("place")
        elif state.phase is Phase.PLACE:
            await member.user.send_dm(f"!{NAME} {move_for(state, seat)}")
        elif state.phase is Phase.COUNT:
            await member.click(last_with_buttons(s, thread, "1、2、3！"), label="1、2、3！")
        elif state.phase is Phase.REVEAL:
            await member.click(last_with_buttons(s, thread, "收回"), label="收回")
        if stale is not None and "stale" not in done and (await table(s, NAME)).board is not None:
            phase = lobby.game_state(await table(s, NAME)).phase
            if phase is not Phase.TALK:
                forms = [c for row in stale.response.components for c in row["components"]]
                forms = [c for c in forms if c.get("custom_id", "").endswith(":forms")]
                keep(await member.select(stale.response, ["give"], custom_id=forms[0]["custom_id"]))
                done.add("stale")
    assert done >= {"propose", "talk", "vote", "stale"}, done

    # the moderators' button, pressed by a player and by a moderator
    board = last_with_buttons(s, thread, "結束這桌（管理員）")
    keep(await s.alice.click(board, label="結束這桌（管理員）"))
    keep(await s.mod.click(board, label="結束這桌（管理員）"))
    await s.alice.send(thread, "!propose P01")
    keep(await s.alice.slash(s.general, "games"))
    keep(await s.alice.slash(s.general, "rules", game="nuclear"))

    for message in [*s.bot_messages(thread), *s.bot_messages(s.general)[before:]]:
        shown.extend(message_texts(message))
    for message in dm_messages(s, s.alice, s.bob, s.carol, s.mod, erin):
        shown.extend(message_texts(message))
    said = "\n".join(shown)
    for expected in (
        "無法這樣做：這桌沒有叫 `zed` 的人。",
        "無法這樣做：`@erin` 沒有參加這桌。",
        "無法這樣做：你提到的成員沒有參加這桌。",
        "沒有你參加的進行中的桌 `nuclear-9`。",
        "再接你的行動。（我已經刪掉你的訊息，免得別人看到。）",
        "已經用私訊把你的手牌和立場傳給你了。",
        "只有你看得到這則訊息。",
        "你的行動",
        "選一個行動來挑牌…",
        "這個行動現在已經不能做了：再按一次 **我的手牌**",
        "無法這樣做：只有管理員能結束一桌。",
        "nuclear-1 已經收桌了（狀態：已作廢）",
        "剩下 1 分鐘（期限",
        "無法這樣做：`frobnicate:3` 不是 `!play nuclear` 的選項",
    ):
        assert expected in said, expected
    assert "無法這樣做" not in said.replace("無法這樣做：", ""), "the refusal's words are followed by its reason"
    names = names_of(s, "erin", NAME, "nuclear-9")
    english = {run: text for text in shown for run in english_runs(text, names)}
    assert not english, "\n".join(f"{run!r} in {text[:160]!r}" for run, text in sorted(english.items()))
    slips = sorted({slip for text in shown for slip in punctuation_slips(text)})
    assert not slips, slips
    assert not s.env.errors


async def test_the_negotiation_running_out_is_one_line_that_blames_nobody(discord_server: Server) -> None:
    s = discord_server
    await s.alice.send(s.general, "!play nuclear ai:3")
    thread = thread_of(s, NAME)
    await s.alice.send(thread, "!start")
    for _ in range(100):
        current = await table(s, NAME)
        state: NuclearState = lobby.game_state(current)
        if state.phase is Phase.TALK:
            break
        seat = next(iter(ENGINE.awaiting(state)), None)
        if seat == "alice":
            await s.alice.slash(thread, "move", move=move_for(state, "alice"))
        else:
            await s.advance(current.clocks[0].deadline)
    before = len(s.bot_messages(thread))
    await s.advance(current.clocks[0].deadline)
    said = "\n".join(text_of(m) for m in s.bot_messages(thread)[before:])
    assert said.count("⌛") == 1, said
    assert "⌛ 協商時間到。" in said
    assert "還沒行動" not in said, "the speaker is not named as late"


async def test_games_rules_and_play_answer_in_the_members_language(
    discord_server: Server, locales: dict[int, str]
) -> None:
    s = discord_server
    locales[s.bob.id] = "en-GB"
    locales[s.alice.id] = "zh-TW"
    english = await s.bob.slash(s.general, "rules", game="nuclear")
    assert english.response is not None
    assert "Where the designer's short rules leave things open" in text_of(english.response)
    chinese = await s.alice.slash(s.general, "rules", game="nuclear")
    assert chinese.response is not None
    assert "設計者的簡要規則沒講清楚的地方" in text_of(chinese.response)
    assert chinese.response.embeds[0].title == "規則"
    listed = await s.alice.slash(s.general, "games")
    assert listed.response is not None
    assert "目前沒有開著的桌" in text_of(listed.response)
    refused = await s.alice.slash(s.general, "play", game="nuclear", options="frobnicate:3")
    assert refused.response is not None
    assert refused.response.content.startswith("無法這樣做："), refused.response.content
    refused = await s.bob.slash(s.general, "play", game="nuclear", options="frobnicate:3")
    assert refused.response is not None
    assert refused.response.content.startswith("Can't do that: `frobnicate:3` is not an option")
    typed_rules = len(s.bot_messages(s.general))
    await s.bob.send(s.general, "!rules nuclear")
    typed = "\n".join(text_of(m) for m in s.bot_messages(s.general)[typed_rules:])
    assert "設計者的簡要規則沒講清楚的地方" in typed, "typed: the game's own default language"


def test_card_a03_reads_as_written() -> None:
    assert CARDS["A03"].zh == "烏克蘭札波羅熱核電廠曾遭軍隊占領"
