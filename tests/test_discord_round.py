"""A week of the round on simulated Discord: bids, announcements, a trade, hidden cards, DMs."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import discord
from simcord.backend import serializers

from games.nomic.cards import Card

from .conftest import Server

SUNDAY = datetime(2026, 12, 6, tzinfo=UTC)
MONDAY = SUNDAY + timedelta(days=1, hours=9)
WEDNESDAY = SUNDAY + timedelta(days=3, hours=20)
THURSDAY = SUNDAY + timedelta(days=4)


def reacted(server: Server, channel: Any, message: discord.Message, emoji: str = "✅") -> bool:
    stored = server.env.backend.get_message(channel.id, message.id)
    return any(str(r.emoji) == emoji and server.bot.user.id in r.user_ids for r in stored.reactions)


def boards(server: Server) -> list[discord.Message]:
    return [m for m in server.bot_messages(server.auctions) if m.embeds and m.embeds[0].title == "The lot board"]


def codes(cards: Any) -> list[str]:
    return sorted(c.code for c in cards)


def public_text(message: discord.Message) -> str:
    parts = [message.content]
    for embed in message.embeds:
        parts += [embed.title or "", embed.description or ""]
        parts += [f"{f.name} {f.value}" for f in embed.fields]
    return "\n".join(parts)


async def test_a_week_of_bids_settlement_and_a_trade(discord_server: Server) -> None:
    s = discord_server
    await s.join_all()
    for cards in ("AS KH", "10C 2D", "QS QH"):
        await s.mod.send(s.game_actions, f"!admin lot {cards}")

    await s.advance(SUNDAY)
    said = [m.content for m in s.bot_messages(s.game_actions)]
    assert any(t.startswith("The auction phase has begun") for t in said), said
    assert "Each of the 4 players gains 100 points." in "\n".join(said)

    # a burst of prefix bids: answered together in the channel's one "Bids received" message (no ✅, no
    # reply per refusal), a refusal also by DM; the board is one pinned message, edited in place
    s.clock.set(MONDAY)
    before = len(s.bot_messages(s.auctions))
    burst = [
        (s.alice, "!bid 1 10"),
        (s.bob, "!bid 1 15"),
        (s.alice, "!bid 1 20"),
        (s.carol, "!bid 2 5"),
        (s.bob, "!bid 3 500"),
        (s.carol, "!bid 1 18"),
        (s.mod, "!bid 3 40"),
    ]
    for member, text in burst:
        message = await member.send(s.auctions, text)
        assert not reacted(s, s.auctions, message), text
    assert len(boards(s)) == 1, "the first bid shows the board at once, the rest wait for the interval"
    first_board = boards(s)[0]
    assert s.env.backend.get_message(s.auctions.id, first_board.id).pinned
    await s.env.advance_time(31)
    answers = s.bot_messages(s.auctions)[before:]
    assert not [m.content for m in answers if m.content.startswith("Can't do that")], "no reply per refused bid"
    received = [m for m in answers if m.embeds and m.embeds[0].title == "Bids received"]
    assert len(received) == 1, "one such message in the channel"
    listed = (received[0].embeds[0].description or "").splitlines()
    assert listed == [
        f"{s.alice.mention} ✅ lot 1: 20",
        f"{s.bob.mention} ✅ lot 1: 15 · ❌ lot 3: 500 — you cannot afford 500 points (you have 100)",
        f"{s.carol.mention} ✅ lot 2: 5 · ❌ lot 1: 18 — a bid on lot 1 must exceed the highest valid bid of 20",
        f"{s.mod.mention} ✅ lot 3: 40",
    ]
    told = [m.content for m in s.bob.user.dm_channel.history() if m.author.id == s.bot.user.id]
    assert told[-1] == (
        f"Your bid in {s.auctions.mention}:\n`!bid 3 500`: Can't do that: you cannot afford 500 points (you have 100)."
    ), "the refusal in the words every adapter answers with"

    await s.env.advance_time(30)
    shown = boards(s)
    assert [m.id for m in shown] == [first_board.id], "the board is edited in place, never posted again"
    text = shown[0].embeds[0].description or ""
    assert "Lot 1: AS KH - highest valid bid 20 by alice" in text
    assert "Lot 2: 10C 2D - highest valid bid 5 by carol" in text
    assert "Lot 3: QS QH - highest valid bid 40 by mod" in text

    s.clock.set(WEDNESDAY)
    await s.bob.send(s.auctions, "!bid 2 30")
    latest = s.bot_messages(s.auctions)[-1]
    assert latest.embeds[0].title == "Bids received", "a bid in a quiet channel is answered at once, below it"
    bob = next(line for line in (latest.embeds[0].description or "").splitlines() if line.startswith(s.bob.mention))
    assert bob.endswith("✅ lot 2: 30")
    assert len([m for m in s.bot_messages(s.auctions) if m.embeds and m.embeds[0].title == "Bids received"]) == 1

    # Thursday 00:00: the lots are settled and announced in #auctions
    await s.advance(THURSDAY)
    said = "\n".join(m.content for m in s.bot_messages(s.auctions))
    assert "Lot 1 (AS KH) goes to alice for 20 points." in said
    assert "Lot 2 (10C 2D) goes to bob for 30 points." in said
    assert "Lot 3 (QS QH) goes to mod for 40 points." in said
    state = await s.state()
    alice, bob = state.players[str(s.alice.id)], state.players[str(s.bob.id)]
    assert (codes(alice.cards), alice.points) == (["AS", "KH"], 80)
    assert (codes(bob.cards), bob.points) == (["10C", "2D"], 70)

    # a trade: offered by prefix, found by autocomplete, accepted by slash
    await s.alice.send(s.game_actions, f"!offer {s.bob.mention} give AS for 10 points")
    assert s.last_answer(s.game_actions) == (
        "Trade 1: alice offers bob AS for 10 points. bob can `!accept 1` or `!decline 1`."
        " The offer expires at the week's end, Sun 2026-12-13 00:00 UTC."
    )
    choices = await s.bob.autocomplete(s.game_actions, "accept", "number", "")
    assert [c["value"] for c in choices] == [1]
    assert await s.alice.autocomplete(s.game_actions, "accept", "number", "") == []
    assert [c["value"] for c in await s.alice.autocomplete(s.game_actions, "cancel", "number", "")] == [1]
    result = await s.bob.slash(s.game_actions, "accept", number=1)
    assert result.response is not None
    assert result.response.content.startswith("Trade 1 is done: alice gave AS")
    state = await s.state()
    assert codes(state.players[str(s.bob.id)].cards) == ["10C", "2D", "AS"]
    assert state.players[str(s.alice.id)].points == 90

    cards = await s.alice.autocomplete(s.game_actions, "present", "cards", "")
    assert [c["value"] for c in cards] == ["KH"]


async def test_hands_stay_private_and_dms_fall_back(discord_server: Server) -> None:
    s = discord_server
    await s.join_all()
    for member, items in ((s.alice, "AS KH 7D 50 points"), (s.bob, "QC 2H 9S")):
        await s.mod.send(s.game_actions, f"!admin give {member.mention} {items}")

    # your own inventory: by DM (prefix) or ephemerally (slash), with the picture of your cards
    await s.alice.send(s.game_actions, "!inventory")
    assert s.last_answer(s.game_actions) == "I sent you the answer in a DM."
    dm = s.alice.user.dm_channel.history()[-1]
    assert "Cards (3): AS KH 7D" in (dm.embeds[0].description or "")
    assert [a.filename for a in dm.attachments] == ["hand.png"]

    result = await s.bob.slash(s.auctions, "inventory")
    assert result.ephemeral
    assert result.response is not None
    assert "Cards (3)" in (result.response.embeds[0].description or "")
    assert [a.filename for a in result.response.attachments] == ["hand.png"]

    # someone else's inventory: their holdings, not their cards
    await s.carol.send(s.game_actions, f"!inventory {s.alice.mention}")
    shown = s.bot_messages(s.game_actions)[-1]
    assert "3 (only alice sees which)" in public_text(shown)
    result = await s.carol.slash(s.game_actions, "inventory", member=s.bob)
    assert result.response is not None
    assert "QC" not in public_text(result.response.message)

    # DMs closed: an answer in the channel without the cards, telling how to see them
    dm_channel = s.bob.user.dm_channel
    closed = "Cannot send messages to this user"
    s.env.inject_error("POST", f"/channels/{dm_channel.id}/messages", status=403, code=50007, message=closed)
    await s.bob.send(s.game_actions, "!inventory")
    answer = s.last_answer(s.game_actions)
    assert answer.startswith("I could not send you that in a DM (your DMs are closed to me)")
    assert "0 points, 3 cards, 0 Standard Proposal-Makers" in answer
    assert "slash command" in answer

    # nothing public carries a member's private cards
    for channel in s.channels.values():
        for message in channel.history():
            if message.flags.ephemeral:
                continue
            text = public_text(message)
            assert "Cards (" not in text, text
            assert "hand.png" not in [a.filename for a in message.attachments]
    bob_cards = [m for m in s.channels["game-actions"].history() if m.content == answer]
    assert bob_cards
    assert not any(code in bob_cards[0].content.split() for code in ("QC", "2H", "9S"))


async def test_redelivered_gateway_events_change_nothing(discord_server: Server) -> None:
    s = discord_server
    await s.join_all()
    await s.mod.send(s.game_actions, "!admin lot AS KH")
    await s.advance(MONDAY)
    message = await s.alice.send(s.auctions, "!bid 1 10")
    seq = (await s.state()).seq
    answers = len(s.bot_messages(s.auctions))

    backend = s.env.backend
    backend.emit("MESSAGE_CREATE", serializers.message_payload(backend, backend.get_message(s.auctions.id, message.id)))
    await s.env.settle()
    assert (await s.state()).seq == seq
    assert len(s.bot_messages(s.auctions)) == answers
    assert len((await s.state()).lots[1].bids) == 1

    proposal = await s.alice.send(s.proposals, "urgent: deal more cards")
    await s.bob.react(proposal, "👍")
    seq = (await s.state()).seq
    backend._emit_reaction("MESSAGE_REACTION_ADD", backend.get_message(s.proposals.id, proposal.id), "👍", s.bob.id)
    await s.env.settle()
    assert (await s.state()).seq == seq


def test_a_board_of_six_lots_is_a_small_picture() -> None:
    from bot.discord.render.cards import BoardLot, render_board, render_hand

    lots = [BoardLot(n, (Card.parse("AS"), Card.parse("10H")), "120 - a long player name") for n in range(1, 7)]
    assert len(render_board(lots)) < 30_000
    suit = [Card.parse(f"{rank}S") for rank in ("A", 2, 3, 4, 5, 6, 7, 8, 9, 10, "J", "Q", "K")]
    assert len(render_hand(suit * 5)) < 60_000
