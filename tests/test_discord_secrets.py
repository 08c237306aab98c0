"""What a hand holds stays with its holder on simulated Discord: a secret move typed in a table's thread
however it is typed (a typo, no prefix, a stray full stop) is removed and refused privately; a refusal
that tells what the author holds reaches the author alone; a member whose DMs are closed is told in the
thread, naming no card, where their private cards went."""

from __future__ import annotations

import re
from typing import Any

from games.nuclear.state import NuclearState, Phase
from games.sardini.state import SardiniState
from games.tables import lobby
from games.tables.i18n import tr

from .conftest import Server
from .test_discord_setup import deny_in
from .test_discord_tables import last_with_buttons, mover, public_messages, table, thread_of, two_player_game

CARD = re.compile(r"\b(?:10|[1-9])[WHSK]\b")
NUCLEAR = "nuclear-1"
SARDINI = "sardini-1"
REFUSED_ZH = "無法這樣做：" + tr("zh-TW", "secret.refused", table=NUCLEAR)


def dms(s: Server, member: Any) -> list[str]:
    channel = member.user.dm_channel
    return [m.content for m in channel.history() if m.author.id == s.bot.user.id] if channel else []


def last_dm(s: Server, member: Any) -> str:
    said = dms(s, member)
    assert said, f"{member.user.name} was told nothing by DM"
    return said[-1]


async def close_dms(s: Server, member: Any) -> None:
    """The member's DMs refuse the bot from now on (Discord's 50007)."""
    await member.user.send_dm("hello")  # opens the DM channel
    channel = member.user.dm_channel
    assert channel is not None
    s.env.inject_error("POST", f"/channels/{channel.id}/messages", status=403, code=50007, times=None)


async def four_at_nuclear(s: Server) -> Any:
    """alice opens 關你核四 (Traditional Chinese by default), the three others join, alice starts: the thread."""
    await s.alice.send(s.general, "!play nuclear")
    thread = thread_of(s, NUCLEAR)
    for member in (s.bob, s.carol, s.mod):
        await member.send(thread, "!join")
    await s.alice.send(thread, "!start")
    assert (await table(s, NUCLEAR)).status.value == "playing"
    return thread


async def nuclear_state(s: Server) -> NuclearState:
    found = lobby.game_state(await table(s, NUCLEAR))
    assert isinstance(found, NuclearState)
    return found


async def sardini_cards(s: Server) -> int:
    found = lobby.game_state(await table(s, SARDINI))
    assert isinstance(found, SardiniState)
    return sum(len(hand) for hand in found.hands)


def member_of(s: Server, seat: str, current: Any) -> Any:
    sitting = current.seat_named(seat)
    return next(m for m in (s.mod, s.alice, s.bob, s.carol) if str(m.id) == sitting.member)


def bot_texts(s: Server, channel: Any) -> list[str]:
    return [m.content + " ".join(e.description or "" for e in m.embeds) for m in s.bot_messages(channel)]


async def test_secret_words_typed_in_the_thread_are_removed_and_refused_privately_typos_included(
    discord_server: Server,
) -> None:
    s = discord_server
    thread = await four_at_nuclear(s)
    moves = (await table(s, NUCLEAR)).moves
    typed = [
        "!vote P04.",
        "!VOTE p04",
        "vote P04",
        "/vote P04",
        "!vote: P04",
        "！投 P04",
        "投P04",
        "蓋牌 A13 P04",
        "!give P04 @bob",
        "給 P04 bob",
        "!reveal now",
        "收回。",
        "!abstain please",
    ]
    for text in typed:
        before = len(bot_texts(s, thread))
        told = len(dms(s, s.alice))
        sent = await s.alice.send(thread, text)
        assert all(m.id != sent.id for m in thread.history()), f"{text!r} was removed"
        assert len(dms(s, s.alice)) == told + 1, f"{text!r} is refused by DM"
        assert last_dm(s, s.alice).startswith(REFUSED_ZH)
        assert tr("zh-TW", "secret.deleted") in last_dm(s, s.alice)
        assert len(bot_texts(s, thread)) == before, f"{text!r} gets no answer in the thread"
    assert not any("P04" in t for t in bot_texts(s, thread))
    assert (await table(s, NUCLEAR)).moves == moves, "nothing was played"
    for chat in ("開始吧", "收到", "voter turnout is low", "hello, vote later"):
        sent = await s.alice.send(thread, chat)
        assert any(m.id == sent.id for m in thread.history()), f"{chat!r} is talk, left alone"


async def test_a_typo_of_a_secret_move_without_the_right_to_delete_is_still_refused_only_by_dm(
    discord_server: Server,
) -> None:
    s = discord_server
    thread = await four_at_nuclear(s)
    deny_in(s, s.general, manage_messages=True)  # the thread's channel: the bot may not remove messages
    before = len(bot_texts(s, thread))
    sent = await s.bob.send(thread, "!vote P04.")
    assert last_dm(s, s.bob) == REFUSED_ZH, "told privately, without saying it was removed"
    assert any(m.id == sent.id for m in thread.history())
    assert len(bot_texts(s, thread)) == before, "never answered in the thread"


async def test_a_refusal_that_tells_what_a_hand_holds_goes_to_its_author_alone(discord_server: Server) -> None:
    s = discord_server
    thread = await four_at_nuclear(s)
    state = await nuclear_state(s)
    assert state.phase is Phase.PROPOSE
    current = await table(s, NUCLEAR)
    speaker = member_of(s, state.seats[state.speaker], current)
    missing = next(c for c in ("P28", "P01", "P02", "P03") if c not in state.hands[state.speaker])
    before = len(bot_texts(s, thread))
    await speaker.send(thread, f"!propose {missing}")
    assert last_dm(s, speaker) == f"無法這樣做：你手上沒有 {missing}。"
    assert len(bot_texts(s, thread)) == before, "the thread reads nothing of it"
    assert not any(f"沒有 {missing}" in t for m in public_messages(s) for t in [m.content])

    # with DMs closed: a line in the thread that names no card
    await close_dms(s, speaker)
    await speaker.send(thread, f"!propose {missing}")
    line = bot_texts(s, thread)[-1]
    assert line == tr("zh-TW", "dm.closed_refusal", member=speaker.mention, button="我的手牌")
    assert missing not in line
    assert (await table(s, NUCLEAR)).moves == current.moves


async def test_wikipedias_you_do_not_hold_is_private_and_a_slash_refusal_ephemeral(discord_server: Server) -> None:
    s = discord_server
    thread = await two_player_game(s)
    current = await table(s)
    state = lobby.game_state(current)
    member = await mover(s)
    other = s.bob if member is s.alice else s.alice
    missing = next(c for c in range(1, 53) if c not in state.hands[state.current])
    before = len(bot_texts(s, thread))
    await member.send(thread, f"!give {missing} @{other.user.name}")
    assert last_dm(s, member) == f"Can't do that: you do not hold card #{missing}."
    assert len(bot_texts(s, thread)) == before
    result = await member.slash(thread, "move", move=f"give {missing} @{other.user.name}")
    assert result.ephemeral
    assert result.response is not None
    assert result.response.content == f"Can't do that: you do not hold card #{missing}."
    assert not any("do not hold" in m.content for m in public_messages(s))


async def test_a_member_whose_dms_are_closed_learns_where_a_typed_draw_went(discord_server: Server) -> None:
    s = discord_server
    await s.alice.send(s.general, "!play sardini")
    thread = thread_of(s, SARDINI)
    await s.bob.send(thread, "!join")
    await s.alice.send(thread, "!start")
    drawer = await mover(s, SARDINI)
    await close_dms(s, drawer)
    before = len(bot_texts(s, thread))
    held = await sardini_cards(s)
    await drawer.send(thread, "!draw")
    assert await sardini_cards(s) > held, "the card was drawn"
    said = [t for t in bot_texts(s, thread)[before:] if drawer.mention in t and "**My hand**" in t]
    assert len(said) == 1, "the drawer learns where the drawn card went"
    assert said[0] == tr("en", "dm.closed", member=drawer.mention, button="My hand")
    assert not CARD.search(said[0]), "naming no card"
    assert not s.env.errors


async def test_a_gift_to_a_member_whose_dms_are_closed_is_pointed_to_in_the_tables_language(
    discord_server: Server,
) -> None:
    s = discord_server
    thread = await four_at_nuclear(s)
    for _ in range(40):
        state = await nuclear_state(s)
        if state.phase is Phase.TALK:
            break
        current = await table(s, NUCLEAR)
        if state.phase is Phase.PROPOSE:
            speaker = member_of(s, state.seats[state.speaker], current)
            await speaker.send(thread, f"!propose {state.hands[state.speaker][0]}")
            continue
        for i, seat in enumerate(state.seats):
            if i in state.voters and state.vote1[i] is None:
                await member_of(s, seat, current).slash(thread, "move", move=f"vote {state.hands[i][0]}")
    state = await nuclear_state(s)
    assert state.phase is Phase.TALK
    current = await table(s, NUCLEAR)
    giver_seat = state.seats[state.speaker]
    giver = member_of(s, giver_seat, current)
    to_seat = next(seat for seat in state.seats if seat != giver_seat)
    receiver = member_of(s, to_seat, current)
    await close_dms(s, receiver)
    before = len(bot_texts(s, thread))
    card = state.hands[state.speaker][0]
    result = await giver.slash(thread, "move", move=f"give {card} @{receiver.user.name}")
    assert result.response is not None
    said = [t for t in bot_texts(s, thread)[before:] if receiver.mention in t and "**我的手牌**" in t]
    assert len(said) == 1, "the receiver learns where the gift went, in the table's language"
    assert said[0] == tr("zh-TW", "dm.closed", member=receiver.mention, button="我的手牌")
    assert card not in said[0], "the line names no card"
    assert last_with_buttons(s, thread, "我的手牌"), "the button it points to is there"
