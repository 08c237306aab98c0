"""Answers on simulated Discord: a DM command gets its own answer even when its action tells other
members something privately; a redelivered gateway event, early or late, before or after a restart,
changes nothing and gets no second, different answer."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import discord
import pytest
from simcord.backend import serializers

from games.ictc.battle.engine import ENGINE as BATTLE
from games.tables import acting, lobby
from games.tables.lobby import TableStatus

from .conftest import Server
from .test_discord_ictc import restart
from .test_discord_tables import last_with_buttons, table, text_of, thread_of


def dms(s: Server, member: Any) -> list[discord.Message]:
    channel = member.user.dm_channel
    return [m for m in channel.history() if m.author.id == s.bot.user.id] if channel is not None else []


async def test_a_dm_start_that_hands_another_member_cards_is_answered_to_its_author(
    discord_server: Server, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The table's seed is the simulator's (tests/test_answers.py): the computer's seats hand alice
    cards as the game starts, by DM to her alone; bob's DM that started it still gets its answer."""
    s = discord_server
    monkeypatch.setattr(acting.secrets, "token_hex", lambda _n: "6:sim:wikipedia-1")
    await s.alice.send(s.general, "!play wikipedia ai:2")
    await s.bob.send(thread_of(s), "!join")
    before = len(dms(s, s.bob))
    await s.bob.user.send_dm("!wikipedia-1 start")
    assert any("hands card" in m.content for m in dms(s, s.alice)), "the seed no longer hands alice a card"
    answered = dms(s, s.bob)[before:]
    assert answered, "bob's DM got no answer"
    assert any("wikipedia-1" in m.content for m in answered)
    assert not s.env.errors


# --- redeliveries ---------------------------------------------------------------------------------

MONDAY = datetime(2026, 12, 7, 9, tzinfo=UTC)
"""The auction phase of the week after FRIDAY_NOON (the clock's start, in the bartering phase)."""
THURSDAY = datetime(2026, 12, 10, 9, tzinfo=UTC)


async def redeliver(s: Server, message: discord.Message) -> None:
    """The gateway delivers ``message`` again (a resumed session replays it), as the same event."""
    backend = s.env.backend
    stored = backend.get_message(message.channel.id, message.id)
    backend.emit("MESSAGE_CREATE", serializers.message_payload(backend, stored))
    await s.env.settle()


def everything_said(s: Server) -> list[tuple[int, str]]:
    """Every message of the bot anywhere (channels, threads, DMs), ephemeral ones included."""
    channels = [*s.channels.values()]
    channels += [t for c in s.channels.values() for t in c.threads]
    channels += [m.user.dm_channel for m in (s.mod, s.alice, s.bob, s.carol) if m.user.dm_channel is not None]
    return sorted((m.id, text_of(m)) for c in channels for m in c.history() if m.author.id == s.bot.user.id)


async def quietly_redelivered(s: Server, message: discord.Message) -> None:
    """``message`` delivered again changes nothing and is not answered again."""
    said = everything_said(s)
    seq = (await s.state()).seq
    await redeliver(s, message)
    assert everything_said(s) == said, "a redelivered event got another answer"
    assert (await s.state()).seq == seq
    assert not s.env.errors


async def test_a_notice_setting_redelivered_is_not_answered_again(discord_server: Server) -> None:
    s = discord_server
    await s.join_all()
    typed = await s.alice.send(s.game_actions, "!notify outbid on")
    assert "Outbid notices are on" in s.last_answer(s.game_actions)
    await quietly_redelivered(s, typed)


async def test_a_bid_refused_before_the_auction_and_redelivered_in_it_is_not_placed(discord_server: Server) -> None:
    s = discord_server
    await s.join_all()
    await s.mod.send(s.game_actions, "!admin lot AS KH")
    early = await s.alice.send(s.auctions, "!bid 1 10")  # Friday: the bartering phase, no bids
    await s.advance(MONDAY)
    await quietly_redelivered(s, early)
    assert not (await s.state()).lots[1].bids, "the refused bid was placed when it came again"


async def test_a_refused_generate_redelivered_after_a_restart_in_the_bartering_phase_changes_nothing(
    discord_server: Server,
) -> None:
    s = discord_server
    await s.join_all()
    await s.advance(MONDAY)
    early = await s.alice.send(s.game_actions, "!generate")
    assert "Can't do that" in s.last_answer(s.game_actions)
    lots = len((await s.state()).lots)
    await s.advance(THURSDAY)
    await restart(s)
    await quietly_redelivered(s, early)
    assert len((await s.state()).lots) == lots, "the refused !generate rolled a lot when it came again"


async def test_a_join_refused_at_a_full_table_and_redelivered_once_a_seat_is_free_seats_nobody(
    discord_server: Server,
) -> None:
    s = discord_server
    await s.alice.send(s.general, "!play wikipedia ai:4")
    thread = thread_of(s)
    early = await s.bob.send(thread, "!join")
    assert "Can't do that" in s.last_answer(thread)
    await s.alice.send(thread, "!ai 3")
    await restart(s)
    await quietly_redelivered(s, early)
    assert (await table(s)).seat_of(str(s.bob.id)) is None, "the refused !join seated bob when it came again"


async def test_a_dm_refused_and_redelivered_once_it_could_be_done_changes_nothing(discord_server: Server) -> None:
    s = discord_server
    await s.alice.send(s.general, "!play wikipedia")
    early = await s.alice.user.send_dm("!wikipedia-1 start")
    assert "Can't do that" in dms(s, s.alice)[-1].content
    await s.bob.send(thread_of(s), "!join")
    await quietly_redelivered(s, early)
    assert (await table(s)).status is TableStatus.LOBBY, "the refused DM started the game when it came again"


async def test_a_guild_join_refused_and_redelivered_once_the_guild_exists_changes_nothing(
    discord_server: Server,
) -> None:
    s = discord_server
    early = await s.bob.send(s.general, "!guild join Scribes")
    assert "Can't do that" in s.last_answer(s.general)
    await s.alice.send(s.general, "!guild create Scribes")
    await quietly_redelivered(s, early)
    library = s.bot.library
    assert library is not None
    members = next(g for g in (await library.state(str(s.guild.id))).guilds.values() if g.name == "Scribes").members
    assert str(s.bob.id) not in members, "the refused !guild join made bob a member when it came again"


async def _challenge_accepted(s: Server) -> tuple[discord.Message, Any]:
    await s.alice.send(s.general, "!card starter Ember")
    await s.bob.send(s.general, "!card starter Grove")
    await s.alice.send(s.general, f"!challenge {s.bob.mention}")
    accepted = await s.bob.send(s.general, "!challenge accept")
    return accepted, thread_of(s, "ictc-1")


async def test_a_challenge_acceptance_redelivered_is_not_answered_again(discord_server: Server) -> None:
    s = discord_server
    accepted, _thread = await _challenge_accepted(s)
    assert (await table(s, "ictc-1")).status is TableStatus.PLAYING
    await quietly_redelivered(s, accepted)
    tables = s.bot.table_service
    assert tables is not None
    assert [t.name for t in await tables.all_tables(str(s.guild.id))] == ["ictc-1"]


async def test_a_battle_move_redelivered_in_its_thread_is_not_answered_again(discord_server: Server) -> None:
    s = discord_server
    _accepted, thread = await _challenge_accepted(s)
    for seat in (await table(s, "ictc-1")).seats:
        cutter = next(m for m in (s.alice, s.bob) if str(m.id) == seat.member)
        await cutter.click(last_with_buttons(s, thread, "Cut"), label="Cut")
    played: discord.Message | None = None
    for _ in range(40):
        found = await table(s, "ictc-1")
        state = lobby.game_state(found)
        seat_name = sorted(BATTLE.awaiting(state))[0]
        seat = found.seat_named(seat_name)
        assert seat is not None
        mover = next(m for m in (s.alice, s.bob) if str(m.id) == seat.member)
        moves = [BATTLE.format_action(state, a) for a in BATTLE.legal_actions(state, seat_name)]
        card = next((m for m in moves if m.startswith("play #")), None)
        if card is not None:
            played = await mover.send(thread, "!" + card)
            break
        await mover.send(thread, "!" + moves[-1])
    assert played is not None, "no card was ever playable"
    moves_made = (await table(s, "ictc-1")).moves
    await quietly_redelivered(s, played)
    assert (await table(s, "ictc-1")).moves == moves_made
