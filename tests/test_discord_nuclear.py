"""關你核四 on simulated Discord: a table in Traditional Chinese, secret votes by slash command, by the
private menu, by buttons and by DM, a gift by a form of menus that only the two see, a negotiation
that times out with a live countdown, a restart in the second vote's reveal window, and the game
played to its end."""

from __future__ import annotations

import random
import re
from typing import Any

import discord

from bot.discord.app import create_bot
from games.nuclear.ai import AI
from games.nuclear.cards import ALL_IDS
from games.nuclear.engine import ENGINE
from games.nuclear.state import NuclearState, Phase
from games.tables import lobby

from .conftest import Server
from .test_discord_tables import labels, last_with_buttons, public_messages, table, text_of, thread_of

NAME = "nuclear-1"
CARD = re.compile(r"(?<![A-Za-z0-9])(P\d\d|A\d\d|G[12])(?![0-9])")


def dms(s: Server, member: Any) -> list[str]:
    channel = member.user.dm_channel
    return [m.content for m in channel.history() if m.author.id == s.bot.user.id] if channel else []


async def state_of(s: Server) -> NuclearState:
    return lobby.game_state(await table(s, NAME))  # type: ignore[no-any-return]


def move_for(state: NuclearState, seat: str) -> str:
    return ENGINE.format_action(state, AI.choose(state, seat, random.Random(0)))


async def restart(s: Server) -> None:
    old = s.bot
    await old.release()
    new = create_bot(old.settings, clock=s.clock, timers=False)
    await s.env.restart_bot(new)
    s.bot = new


async def test_a_table_speaks_traditional_chinese_and_english_on_request(discord_server: Server) -> None:
    s = discord_server
    await s.alice.send(s.general, "!play nuclear ai:3")
    thread = thread_of(s, NAME)
    lobby_text = s.bot_messages(thread)[0].content
    assert lobby_text.startswith("alice 開了 **nuclear-1**")
    assert "協商 3 分鐘" in lobby_text, "the game's own clocks, in the table's language"
    await s.alice.click(last_with_buttons(s, thread, "開始"), label="開始")
    board = last_with_buttons(s, thread, "我的手牌")
    assert board.embeds[0].title == "nuclear-1 · 關你核四"
    assert "擁核" in text_of(board)
    assert "反核" in text_of(board)
    assert [a.filename for a in board.attachments] == ["table.png"]
    hand = await s.alice.click(board, label="我的手牌")
    assert hand.ephemeral
    assert hand.response is not None
    assert hand.response.embeds[0].title == "你的手牌"
    assert "你的立場" in (hand.response.embeds[0].description or "")

    await s.bob.send(s.general, "!play nuclear ai:4 lang:en negotiation:2m")
    english = thread_of(s, "nuclear-2")
    opened = s.bot_messages(english)[0].content
    assert "the negotiation 2m" in opened
    await s.bob.send(english, "!start")
    assert "Pro" in text_of(last_with_buttons(s, english, "My hand")) or "pro" in text_of(
        last_with_buttons(s, english, "My hand")
    )
    before = len(s.bot_messages(english))
    await s.bob.send(english, "!rules")
    rules = "\n".join(text_of(m) for m in s.bot_messages(english)[before:])
    assert "Where the designer's short rules leave things open" in rules
    assert "`negotiation:…` (default 180)" in rules, "every option with its default"
    before = len(s.bot_messages(s.general))
    await s.bob.send(s.general, "!rules nuclear")
    chinese = "\n".join(text_of(m) for m in s.bot_messages(s.general)[before:])
    assert "設計者的簡要規則沒講清楚的地方" in chinese, "the game's own default language"


async def test_a_game_with_two_members_on_discord(discord_server: Server) -> None:
    s = discord_server
    members = {"alice": s.alice, "bob": s.bob}
    await s.alice.send(s.general, "!play nuclear ai:2")
    thread = thread_of(s, NAME)
    await s.bob.send(thread, "!join")
    await s.alice.click(last_with_buttons(s, thread, "開始"), label="開始")
    done: set[str] = set()
    for _ in range(400):
        current = await table(s, NAME)
        if current.status.value != "playing":
            break
        state = lobby.game_state(current)
        waiting = [seat for seat in state.seats if seat in ENGINE.awaiting(state) and seat in members]
        if not waiting:
            await s.advance(current.clocks[0].deadline)
            continue
        seat = waiting[0]
        member = members[seat]
        phase = state.phase
        if phase is Phase.PROPOSE:
            await member.send(thread, "!" + move_for(state, seat))
        elif phase is Phase.VOTE1 and "slash vote" not in done:
            card = move_for(state, seat)
            before = len(s.bot_messages(thread))
            result = await member.slash(thread, "move", move=card)
            assert result.ephemeral, "a secret vote by slash command is answered to its member alone"
            posted = "\n".join(m.content for m in s.bot_messages(thread)[before:])
            assert f"{seat} 已投票" in posted
            if (await state_of(s)).phase is Phase.VOTE1:
                assert card.split()[1] not in posted, "the thread learns only that the vote is in"
                done.add("slash vote")
        elif phase is Phase.VOTE1:
            await member.user.send_dm(f"!{NAME} {move_for(state, seat)}")
            assert any("你第一輪投出" in d for d in dms(s, member)), "the DM vote's receipt comes by DM"
            done.add("dm vote")
        elif phase is Phase.TALK and "timed out" not in done:
            await _gift_then_time_out(s, thread, state, seat, members)
            done.add("timed out")
        elif phase is Phase.TALK:
            await member.click(last_with_buttons(s, thread, "結束協商"), label="結束協商")
        elif phase is Phase.PLACE and "menu place" not in done:
            shown = await member.click(last_with_buttons(s, thread, "我的手牌"), label="我的手牌")
            assert shown.response is not None
            menu = shown.response.components[0]["components"][0]
            options = [o["value"] for o in menu["options"]]
            assert options
            assert all(o.startswith("place ") for o in options)
            count = len(state.placed[state.seats.index(seat)])
            await member.select(shown.response, [options[-1]], custom_id=menu["custom_id"])
            after = await state_of(s)
            assert len(after.placed[after.seats.index(seat)]) > count
            assert re.search(rf"{seat} 蓋了 [12] 張牌", "\n".join(m.content for m in s.bot_messages(thread)))
            done.add("menu place")
        elif phase is Phase.PLACE:
            await member.user.send_dm(f"!{NAME} {move_for(state, seat)}")
        elif phase is Phase.COUNT:
            await member.click(last_with_buttons(s, thread, "1、2、3！"), label="1、2、3！")
        elif phase is Phase.REVEAL and "restart" not in done:
            await _restart_in_the_reveal_window(s, thread, state, seat, members)
            done.add("restart")
        elif phase is Phase.REVEAL:
            await member.click(last_with_buttons(s, thread, "收回"), label="收回")
    assert done == {"slash vote", "dm vote", "timed out", "menu place", "restart"}
    final = await table(s, NAME)
    assert final.status.value == "finished"
    assert final.winners
    assert "獲勝" in (final.summary or "")
    _nothing_hidden_in_public(s, final)
    assert not s.env.errors


async def _gift_then_time_out(s: Server, thread: Any, state: NuclearState, seat: str, members: dict[str, Any]) -> None:
    """The speaker gives two cards by the form of menus, then lets the three minutes run out."""
    current = await table(s, NAME)
    posts = "\n".join(m.content for m in s.bot_messages(thread))
    assert re.search(r"<t:\d+:R>", posts), "the negotiation's deadline counts down in each reader's client"
    other = next(name for name in members if name != seat)
    hand = state.hands[state.seats.index(seat)]
    if len(hand) >= 2:
        before = len(s.bot_messages(thread))
        shown = await members[seat].slash(thread, "hand")
        assert shown.ephemeral
        assert shown.response is not None
        menus = [c for row in shown.response.components for c in row["components"]]
        forms = [c for c in menus if c.get("custom_id", "").endswith(":forms")]
        assert [o["value"] for o in forms[0]["options"]] == ["give"], "the speaker's gift is a form of menus"
        form = await members[seat].select(shown.response, ["give"], custom_id=forms[0]["custom_id"])
        assert form.modal is not None
        fields = [row["component"] for row in form.modal["components"]]
        assert [f["custom_id"] for f in fields] == ["cards", "to"]
        assert {o["value"] for o in fields[0]["options"]} == set(hand), "the speaker's own cards"
        await members[seat].submit_modal(form, {"cards": [hand[0], hand[1]], "to": [f"@{other}"]})
        assert next(m.content for m in s.bot_messages(thread)[before:]) == f"{seat} 給了 {other} 2 張牌。"
        told = [d for d in dms(s, members[other]) if f"{seat} 給 {other} 的牌" in d]
        assert told, "the receiver learns which cards, by DM"
        assert hand[0] in told[-1], told
        assert hand[1] in told[-1], told
        assert hand[0] not in "\n".join(m.content for m in s.bot_messages(thread))
        typed = await members[seat].send(thread, f"!give {hand[2] if len(hand) > 2 else hand[0]} @{other}")
        assert all(m.id != typed.id for m in thread.history()) or "秘密" in dms(s, members[seat])[-1]
    deadline = current.clocks[0].deadline
    assert (deadline - current.clocks[0].started_at).total_seconds() == 180
    await s.advance(deadline)
    assert "⌛ 協商時間到。" in "\n".join(m.content for m in s.bot_messages(thread))
    assert (await state_of(s)).phase is not Phase.TALK


async def _restart_in_the_reveal_window(
    s: Server, thread: Any, state: NuclearState, seat: str, members: dict[str, Any]
) -> None:
    """The bot restarts while the window is open; the old board's Reveal still works; time runs out."""
    board = last_with_buttons(s, thread, "開牌")
    assert labels(board)[:3] == ["我的手牌", "開牌", "收回"]
    current = await table(s, NAME)
    deadline = current.clocks[0].deadline
    assert (deadline - current.clocks[0].started_at).total_seconds() == 15
    await restart(s)
    before = len(s.bot_messages(thread))
    clicked = await members[seat].click(board, label="開牌")
    assert clicked.acknowledged
    private = [f.content for f in clicked.followups if f.ephemeral]
    assert any("你選擇開牌" in p for p in private), private
    assert f"{seat} 已經決定" in "\n".join(m.content for m in s.bot_messages(thread)[before:])
    after = await state_of(s)
    if after.phase is Phase.REVEAL:
        await s.advance(deadline)
    posts = "\n".join(m.content for m in s.bot_messages(thread))
    assert "**第二輪開牌**" in posts
    assert f"• {seat} 開牌" in posts


def _nothing_hidden_in_public(s: Server, final: Any) -> None:
    """No public message names a card that was never face up (withdrawn, given, still in a hand or the deck)."""
    state: NuclearState = lobby.game_state(final)
    face_up = (
        {c for p in state.passed for c in p} | set(state.discard) | {r.proposal for r in state.history if r.proposal}
    )
    never = set(ALL_IDS) - face_up
    hidden_now = {c for h in state.hands for c in h} | set(state.deck) | set(state.removed)
    for message in public_messages(s):
        if not isinstance(message.channel, discord.Thread) or message.channel.name != NAME:
            continue
        named = set(CARD.findall(text_of(message)))
        assert not (named & never & hidden_now), f"{sorted(named & never & hidden_now)} in {text_of(message)[:200]}"
