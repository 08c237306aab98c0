"""Bids on simulated Discord under load: prefix bids answered together in one "Bids received" message,
refusals also by DM, slash bids by their interaction, and one lot board edited in place."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import discord
import pytest

from bot.discord import receipts
from bot.discord.app import create_bot

from .conftest import Server

SUNDAY = datetime(2026, 12, 6, tzinfo=UTC)
MONDAY = SUNDAY + timedelta(days=1, hours=9)
RECEIVED = "Bids received"
BOARD = "The lot board"


def titled(server: Server, channel: Any, title: str) -> list[discord.Message]:
    return [m for m in server.bot_messages(channel) if m.embeds and m.embeds[0].title == title]


def received_lines(server: Server, channel: Any) -> list[str]:
    shown = titled(server, channel, RECEIVED)
    assert len(shown) == 1, f"one {RECEIVED!r} message in the channel, not {len(shown)}"
    return "\n".join(e.description or "" for e in shown[0].embeds).splitlines()


def dms(server: Server, member: Any) -> list[str]:
    channel = member.user.dm_channel
    if channel is None:
        return []
    return [m.content for m in channel.history() if m.author.id == server.bot.user.id]


def calls(server: Server, method: str, fragment: str) -> int:
    return sum(1 for r in server.env.http_requests if r.method == method and fragment in r.path)


async def auction(s: Server, lots: tuple[str, ...] = ("AS KH", "QS QH")) -> None:
    await s.join_all()
    for cards in lots:
        await s.mod.send(s.game_actions, f"!admin lot {cards}")
    await s.advance(SUNDAY)
    s.clock.set(MONDAY)


async def test_a_burst_is_answered_by_one_message_edited_at_a_steady_pace(discord_server: Server) -> None:
    s = discord_server
    await auction(s)
    reactions = calls(s, "PUT", "/reactions/")
    await s.alice.send(s.auctions, "!bid 1 10")
    assert received_lines(s, s.auctions) == [f"{s.alice.mention} ✅ lot 1: 10"], "the first bid: answered at once"
    posted = calls(s, "POST", f"/channels/{s.auctions.id}/messages")
    for member, text in ((s.bob, "!bid 1 15"), (s.carol, "!bid 2 5"), (s.bob, "!bid 2 9"), (s.mod, "!bid 1 99")):
        await member.send(s.auctions, text)
    assert calls(s, "POST", f"/channels/{s.auctions.id}/messages") == posted, "the rest wait for the pace"
    await s.env.advance_time(31)
    assert received_lines(s, s.auctions) == [
        f"{s.alice.mention} ✅ lot 1: 10",
        f"{s.carol.mention} ✅ lot 2: 5",
        f"{s.bob.mention} ✅ lot 2: 9",
        f"{s.mod.mention} ✅ lot 1: 99",
    ]
    # posted again below the bids, the previous one deleted: still one message, at the bottom
    assert s.bot_messages(s.auctions)[-1].embeds[0].title == RECEIVED
    assert calls(s, "DELETE", f"/channels/{s.auctions.id}/messages/") == 1
    assert calls(s, "PUT", "/reactions/") == reactions, "no ✅ per bid"


async def test_bidders_still_waiting_come_first_when_the_message_is_full(
    discord_server: Server, monkeypatch: pytest.MonkeyPatch
) -> None:
    s = discord_server
    await auction(s)
    await s.alice.send(s.auctions, "!bid 1 10")
    line = f"{s.bob.mention} ✅ lot 1: 15"
    room = len(receipts.TITLE) + len(receipts.FOOTER) + len(receipts.MORE) + 8 + 2 * (len(line) + 1)
    monkeypatch.setattr(receipts, "TOTAL_LIMIT", room)  # two bidders' lines a message
    for member, amount in ((s.bob, 15), (s.carol, 20), (s.mod, 25)):
        await member.send(s.auctions, f"!bid 1 {amount}")
    await s.env.advance_time(31)
    assert received_lines(s, s.auctions) == [
        "… and 2 more bidders",
        f"{s.bob.mention} ✅ lot 1: 15",
        f"{s.carol.mention} ✅ lot 1: 20",
    ], "the two waiting longest; alice was answered before"
    await s.env.advance_time(31)
    assert received_lines(s, s.auctions) == [
        "… and 2 more bidders",
        f"{s.carol.mention} ✅ lot 1: 20",
        f"{s.mod.mention} ✅ lot 1: 25",
    ], "the one left waiting, at the next change without a new bid"


async def test_a_refused_prefix_bid_is_listed_with_its_reason_and_told_by_dm(discord_server: Server) -> None:
    s = discord_server
    await auction(s)
    await s.alice.send(s.auctions, "!bid 1 20")
    await s.bob.send(s.auctions, "!bid 1 15")
    await s.bob.send(s.auctions, "!bid 9 5")
    await s.env.advance_time(31)
    assert received_lines(s, s.auctions) == [
        f"{s.alice.mention} ✅ lot 1: 20",
        f"{s.bob.mention} ❌ lot 9: 5 — there is no lot 9 (lots: 1, 2)",
    ]
    assert not [m for m in s.bot_messages(s.auctions) if m.content.startswith("Can't do that")]
    assert dms(s, s.bob) == [
        "\n".join(
            [
                f"Your bids in {s.auctions.mention}:",
                "`!bid 1 15`: Can't do that: a bid on lot 1 must exceed the highest valid bid of 20.",
                "`!bid 9 5`: Can't do that: there is no lot 9 (lots: 1, 2).",
            ]
        )
    ], "one DM with both refusals, in the words every adapter answers with"
    assert dms(s, s.alice) == [], "a bid taken is not told by DM"


async def test_closed_dms_leave_the_refusal_in_the_channel_alone(discord_server: Server) -> None:
    s = discord_server
    await auction(s)
    await s.alice.send(s.game_actions, "!inventory")  # opens alice's DM channel
    dm = s.alice.user.dm_channel
    s.env.inject_error("POST", f"/channels/{dm.id}/messages", status=403, code=50007, times=None)
    await s.alice.send(s.auctions, "!bid 1 500")
    await s.env.advance_time(31)
    assert received_lines(s, s.auctions) == [
        f"{s.alice.mention} ❌ lot 1: 500 — you cannot afford 500 points (you have 100)"
    ]
    assert not s.env.errors


async def test_a_slash_bid_is_answered_by_its_interaction_alone(discord_server: Server) -> None:
    s = discord_server
    await auction(s)
    refused = await s.alice.slash(s.auctions, "bid", lot="1", amount=500)
    assert refused.ephemeral, "a refusal only the bidder sees"
    taken = await s.alice.slash(s.auctions, "bid", lot="1", amount=30)
    assert taken.response is not None
    assert taken.response.content == "alice bids 30 points on lot 1; it is now the highest bid."
    await s.env.advance_time(31)
    assert titled(s, s.auctions, RECEIVED) == [], "nothing more in the channel"
    assert dms(s, s.alice) == []


async def test_help_steers_bidders_to_the_slash_command(discord_server: Server) -> None:
    s = discord_server
    await s.alice.send(s.auctions, "!help")
    text = s.bot_messages(s.auctions)[-1].embeds[0].description or ""
    assert "`/bid` is answered at once" in text


async def test_the_board_is_one_message_edited_in_place_even_after_a_restart(discord_server: Server) -> None:
    s = discord_server
    await auction(s)
    await s.alice.send(s.auctions, "!bid 1 10")
    first = titled(s, s.auctions, BOARD)
    assert len(first) == 1
    assert s.env.backend.get_message(s.auctions.id, first[0].id).pinned, "pinned, so members find it above the bids"
    for n in range(3):
        await s.bob.send(s.auctions, f"!bid 2 {10 + n}")
        await s.env.advance_time(31)
    shown = titled(s, s.auctions, BOARD)
    assert [m.id for m in shown] == [first[0].id]
    assert "highest valid bid 12 by bob" in (shown[0].embeds[0].description or "")

    old = s.bot
    await old.release()
    new = create_bot(old.settings, clock=s.clock, timers=False)
    await s.env.restart_bot(new)
    s.bot = new
    await s.carol.send(s.auctions, "!bid 1 40")
    await s.env.advance_time(31)
    shown = titled(s, s.auctions, BOARD)
    assert [m.id for m in shown] == [first[0].id], "the restarted bot edits the same board"
    assert "highest valid bid 40 by carol" in (shown[0].embeds[0].description or "")


async def test_a_board_that_cannot_be_edited_any_more_is_posted_again(discord_server: Server) -> None:
    s = discord_server
    await auction(s)
    await s.alice.send(s.auctions, "!bid 1 10")
    first = titled(s, s.auctions, BOARD)[0]
    s.env.inject_error(
        "PATCH",
        f"/channels/{s.auctions.id}/messages/{first.id}",
        status=400,
        code=30046,
        message="Maximum number of edits to messages older than 1 hour reached. Try again later",
    )
    await s.env.advance_time(31)
    await s.bob.send(s.auctions, "!bid 2 10")
    await s.env.advance_time(31)
    shown = titled(s, s.auctions, BOARD)
    assert len(shown) == 1
    assert shown[0].id != first.id, "a new board, the old one deleted"
    assert s.env.backend.get_message(s.auctions.id, shown[0].id).pinned
    assert not s.env.errors


async def test_the_board_lives_in_the_board_channel_of_setup(discord_server: Server) -> None:
    s = discord_server
    lots = s.guild.create_text_channel("lot-board")
    await auction(s)
    result = await s.mod.slash(s.general, "setup channel", role="board", channel=lots)
    assert result.response is not None
    assert result.response.content.startswith(f"{lots.mention} is now the lot board's channel")
    await s.alice.send(s.auctions, "!bid 1 10")
    assert titled(s, s.auctions, BOARD) == []
    assert len(titled(s, lots, BOARD)) == 1
    assert titled(s, s.auctions, RECEIVED), "the answers stay where the bids are"


async def restart(s: Server) -> None:
    """A new client on the same store, as after a deploy or a crash."""
    old = s.bot
    await old.release()
    new = create_bot(old.settings, clock=s.clock, timers=False)
    await s.env.restart_bot(new)
    s.bot = new


async def test_a_restart_keeps_one_bids_received_message_with_its_lines(discord_server: Server) -> None:
    s = discord_server
    await auction(s)
    await s.alice.send(s.auctions, "!bid 1 10")
    await s.bob.send(s.auctions, "!bid 9 5")
    await s.env.advance_time(31)
    before = titled(s, s.auctions, RECEIVED)
    assert len(before) == 1
    await restart(s)
    await s.carol.send(s.auctions, "!bid 2 7")
    await s.env.advance_time(31)
    assert received_lines(s, s.auctions) == [
        f"{s.alice.mention} ✅ lot 1: 10",
        f"{s.carol.mention} ✅ lot 2: 7",
    ], "one message: the accepted bids of before the restart come back from the round, then the new one"
    assert s.bot_messages(s.auctions)[-1].embeds[0].title == RECEIVED, "below the bids it answers"
    await s.bob.send(s.auctions, "!bid 1 12")
    await s.env.advance_time(31)
    assert received_lines(s, s.auctions) == [
        f"{s.alice.mention} ✅ lot 1: 10",
        f"{s.carol.mention} ✅ lot 2: 7",
        f"{s.bob.mention} ✅ lot 1: 12",
    ]
    assert before[0].id not in [m.id for m in s.bot_messages(s.auctions)], "the message of before the restart is gone"
    assert not s.env.errors
