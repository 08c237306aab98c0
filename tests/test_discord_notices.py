"""Keeping players in the loop on simulated Discord: an outbid DM, the fallback when DMs are closed,
reminders in the channel mapped to their role, the week's review as an embed, the moderators' log."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import discord

from bot.router import error_text
from games.nomic.errors import NotAllowedError

from .conftest import Server

SUNDAY = datetime(2026, 12, 6, tzinfo=UTC)
MONDAY = SUNDAY + timedelta(days=1, hours=9)
WEDNESDAY = SUNDAY + timedelta(days=3)
THURSDAY = SUNDAY + timedelta(days=4)
MS = timedelta(milliseconds=1)


def said(server: Server, channel: Any) -> list[str]:
    return [m.content for m in server.bot_messages(channel)]


def dms(server: Server, member: Any) -> list[str]:
    channel = member.user.dm_channel
    return [m.content for m in channel.history() if m.author.id == server.bot.user.id]


def public(server: Server) -> str:
    texts = []
    for channel in server.guild.channels.values():
        for message in channel.history():
            if not message.flags.ephemeral:
                texts.append(message.content)
                texts += [f"{e.title} {e.description}" for e in message.embeds]
    return "\n".join(texts)


async def auction_with_lots(s: Server) -> None:
    await s.join_all()
    for cards in ("AS KH", "2D 3D"):
        await s.mod.send(s.game_actions, f"!admin lot {cards}")
    await s.advance(MONDAY)


async def test_an_outbid_player_who_asked_gets_a_dm_and_nothing_shows_in_public(discord_server: Server) -> None:
    s = discord_server
    await auction_with_lots(s)
    await s.alice.send(s.game_actions, "!notify outbid on")
    assert s.last_answer(s.game_actions).startswith("Outbid notices are on for you")
    await s.alice.send(s.auctions, "!bid 1 10")
    await s.bob.send(s.auctions, "!bid 1 15")
    await s.env.settle()
    notice = (
        "📣 Auction news for you:\n- Lot 1: your bid of 10 was beaten; the highest valid bid is now 15 by bob.\n"
        "`!lots` shows every lot; `!notify outbid off` stops these."
    )
    assert dms(s, s.alice) == [notice]
    await s.carol.send(s.auctions, "!bid 1 20")  # bob never asked
    assert dms(s, s.bob) == []
    assert "Auction news" not in public(s)

    # a second outbid within the minute waits for the minute's end, which the timer is armed for
    await s.alice.send(s.auctions, "!bid 2 30")
    await s.carol.send(s.auctions, "!bid 2 31")
    assert len(dms(s, s.alice)) == 1
    assert s.bot.scheduler is not None
    assert s.bot.scheduler.armed_at(str(s.guild.id)) == MONDAY + timedelta(minutes=1) + MS
    await s.advance(MONDAY + timedelta(minutes=1))
    assert dms(s, s.alice)[-1].startswith("📣 Auction news for you:\n- Lot 2: your bid of 30 was beaten")


async def test_with_dms_closed_the_notice_comes_with_the_next_private_answer(discord_server: Server) -> None:
    s = discord_server
    await auction_with_lots(s)
    result: Any = await s.carol.slash(s.game_actions, "notify", notice="outbid", switch="on")
    assert result.ephemeral
    assert result.response.content.startswith("Outbid notices are on for you")
    closed = "Cannot send messages to this user"
    path = f"/channels/{s.carol.user.dm_channel.id}/messages"
    s.env.inject_error("POST", path, status=403, code=50007, message=closed, times=None)
    await s.carol.send(s.auctions, "!bid 2 20")
    await s.bob.send(s.auctions, "!bid 2 25")
    await s.env.settle()
    assert "Auction news" not in public(s), "a notice that could not be sent is never posted in the open"

    result = await s.carol.slash(s.game_actions, "inventory")
    assert result.ephemeral
    held = result.response.content
    assert held.startswith("📬 Held for you while I could not DM you:\n📣 Auction news for you:")
    assert "Lot 2: your bid of 20 was beaten; the highest valid bid is now 25 by bob." in held
    again: Any = await s.carol.slash(s.game_actions, "inventory")
    assert not again.response.content, "handed over once"


async def test_reminders_go_to_the_channel_mapped_to_their_role_and_late_ones_are_dropped(
    discord_server: Server,
) -> None:
    s = discord_server
    bids = s.guild.create_text_channel("bids")
    await auction_with_lots(s)
    await s.mod.send(s.general, f"!setup channel auctions {bids.mention}")

    await s.advance(WEDNESDAY + timedelta(seconds=1))
    reminder = "⏰ The auction ends in under 24 hours, Thu 2026-12-10 00:00 UTC"
    whole = (
        f"{reminder} (<t:1796860800:F>, <t:1796860800:R>): 2 lots are up. Bid with `!bid LOT AMOUNT`;"
        " `!lots` shows the highest valid bids."
    )
    assert [t for t in said(s, bids) if t.startswith("⏰")] == [whole]
    assert not any(t.startswith("⏰") for t in said(s, s.auctions))

    # down across the last hour's reminder and the auction's end: the settlement, not the stale reminder
    await s.advance(THURSDAY + timedelta(minutes=30))
    texts = said(s, bids)
    assert not any("under an hour" in t for t in texts)
    assert any(t.startswith("Lot 1 (AS KH) had no valid bid") for t in texts)


async def test_the_weeks_review_is_one_embed_in_game_actions(discord_server: Server) -> None:
    s = discord_server
    await auction_with_lots(s)
    await s.alice.send(s.auctions, "!bid 1 10")
    await s.advance(SUNDAY + timedelta(days=7, minutes=1))
    reviews = [m for m in s.bot_messages(s.game_actions) if m.embeds and m.embeds[0].title.startswith("The week")]
    assert len(reviews) == 1
    embed = reviews[0].embeds[0]
    assert embed.title == "The week in review: Sun 6 Dec 2026 to Sat 12 Dec 2026"
    assert len(embed) <= 6000
    assert [f.name for f in embed.fields] == ["Lots sold"]
    assert embed.fields[0].value.startswith("Lot 1 (AS KH): alice, 10 points")


async def test_the_moderators_log_keeps_admin_and_setup_changes(discord_server: Server) -> None:
    s = discord_server
    mods = s.guild.create_text_channel("mods")
    await s.join_all()
    await s.mod.send(s.general, f"!setup channel mod-log {mods.mention}")
    assert (
        s.last_answer(s.general)
        == f"{mods.mention} is now the moderators' log channel: I post moderators' changes there."
    )
    await s.mod.send(s.game_actions, f"!admin give {s.alice.mention} 5 points AS")
    await s.mod.send(s.game_actions, "!admin set auction.lots_per_auction 8")
    await s.mod.send(s.game_actions, f"!admin take {s.alice.mention} 500 points")  # refused: not logged
    await s.env.settle()
    posted = said(s, mods)
    assert posted[0] == f"🛠️ mod · `/setup`: #mod-log → {mods.mention}"
    assert posted[1:] == [
        "🛠️ mod · `!admin give`: mod gave alice 5 points, 1 card.",
        "🛠️ mod · `!admin set`: mod set `auction.lots_per_auction` from 6 to 8 (ruleset version 2).",
    ]

    result: Any = await s.mod.slash(s.general, "admin log", count=2)
    text = result.response.content
    assert text.startswith("Moderators' log (the latest 2 of 4, newest first):")
    assert "· mod · `!admin set`: mod set `auction.lots_per_auction` from 6 to 8" in text
    assert "!admin give" in text
    assert "/setup" not in text
    await s.alice.send(s.general, "!admin log")
    assert s.last_answer(s.general) == error_text(NotAllowedError("only moderators can read the moderators' log"))
    shown: Any = await s.mod.slash(s.general, "setup show")
    assert f"**#mod-log** → {mods.mention}: I post the moderators' log there." in shown.response.content


async def test_an_urgent_proposal_arms_the_timer_for_its_vote(discord_server: Server) -> None:
    s = discord_server
    await s.join_all()
    await s.advance(MONDAY)
    proposal = await s.alice.send(s.proposals, "urgent: deal more cards")
    assert isinstance(proposal, discord.Message)
    assert s.bot.scheduler is not None
    assert s.bot.scheduler.armed_at(str(s.guild.id)) == MONDAY + timedelta(hours=48) + MS
