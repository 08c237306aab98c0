"""Sealed bids on simulated Discord: a bid by DM (naming the server when the member plays in several), ``/bid``
answered ephemerally, a ``!bid`` typed in #auctions removed and refused by DM, the hash line in #auctions, the
lot board counting bids, and every bid opened at the settlement."""

from __future__ import annotations

import hashlib
import re
from datetime import timedelta
from typing import Any

from bot.discord.sealed import TYPED_REFUSAL
from bot.texts import SEALED_NOT_REMOVED, SEALED_REMOVED

from .conftest import Server
from .test_discord_bids import BOARD, MONDAY, RECEIVED, SUNDAY, dms, titled
from .test_discord_secrets import close_dms
from .test_discord_setup import deny_in

THURSDAY = SUNDAY + timedelta(days=4)
HEX64 = re.compile(r"\b[0-9a-f]{64}\b")
OPENED = re.compile(r"`(?P<hashed>\d+\|\d+\|\d+\|[0-9a-f]{32})` → `(?P<digest>[0-9a-f]{64})`")


def texts(server: Server, channel: Any) -> list[str]:
    """Everything the bot said in a channel, embeds included."""
    return [m.content + " ".join(e.description or "" for e in m.embeds) for m in server.bot_messages(channel)]


def hash_lines(server: Server) -> list[str]:
    return [t for t in texts(server, server.auctions) if "made a sealed bid on lot" in t]


async def sealed_auction(s: Server) -> None:
    """The moderator turns sealed bids on during the bartering phase; the Sunday's auction takes them."""
    await s.join_all()
    await s.mod.send(s.game_actions, "!admin set auction.sealed_bids on")
    for cards in ("AS KH", "QS QH"):
        await s.mod.send(s.game_actions, f"!admin lot {cards}")
    await s.advance(SUNDAY)
    s.clock.set(MONDAY)


async def test_a_bid_by_dm_is_answered_there_and_shown_in_auctions_as_a_hash(discord_server: Server) -> None:
    s = discord_server
    await sealed_auction(s)
    await s.alice.send_dm("!bid 1 37")
    answer = dms(s, s.alice)[-1]
    assert "Your sealed bid of 37 points on lot 1 is in" in answer
    lines = hash_lines(s)
    assert len(lines) == 1
    assert lines[0].startswith("🔒 alice made a sealed bid on lot 1")
    assert HEX64.findall(lines[0]) == HEX64.findall(answer), "the hash the bidder was told"
    assert not re.search(r"\b37\b", HEX64.sub("", " ".join(texts(s, s.auctions))))
    await s.env.advance_time(31)
    board = titled(s, s.auctions, BOARD)
    assert len(board) == 1
    assert "Lot 1: AS KH - 1 sealed bid" in (board[0].embeds[0].description or "")
    assert titled(s, s.auctions, RECEIVED) == [], "no Bids received message lists sealed bids"


async def test_a_slash_bid_is_answered_ephemerally_and_its_hash_posted(discord_server: Server) -> None:
    s = discord_server
    await sealed_auction(s)
    taken = await s.bob.slash(s.auctions, "bid", lot="2", amount=43)
    assert taken.ephemeral
    assert taken.response is not None
    shown = taken.response.content + " ".join(e.description or "" for e in taken.response.embeds)
    assert "Your sealed bid of 43 points on lot 2 is in" in shown
    refused = await s.bob.slash(s.game_actions, "bid", lot="2", amount=4300)
    assert refused.ephemeral
    assert [line.split(" (")[0] for line in hash_lines(s)] == ["🔒 bob made a sealed bid on lot 2"]
    assert not [t for t in texts(s, s.auctions) + texts(s, s.game_actions) if re.search(r"\b(43|4300)\b", t)]


async def test_a_bid_typed_in_auctions_is_removed_and_refused_by_dm(discord_server: Server) -> None:
    s = discord_server
    await sealed_auction(s)
    before = texts(s, s.auctions)
    for typed in ("!bid 2 47", "!BID 2 47", "!bid 2 47 please"):
        sent = await s.carol.send(s.auctions, typed)
        assert all(m.id != sent.id for m in s.auctions.history()), f"{typed!r} was removed"
        assert dms(s, s.carol)[-1] == f"{TYPED_REFUSAL} {SEALED_REMOVED}"
    assert texts(s, s.auctions) == before, "nothing said in #auctions"
    assert (await s.state()).lots[2].bids == ()


async def test_a_typed_bid_the_bot_may_not_remove_is_still_refused_privately(discord_server: Server) -> None:
    s = discord_server
    await sealed_auction(s)
    deny_in(s, s.auctions, manage_messages=True)
    sent = await s.carol.send(s.auctions, "!bid 2 47")
    assert any(m.id == sent.id for m in s.auctions.history())
    assert dms(s, s.carol)[-1] == f"{TYPED_REFUSAL} {SEALED_NOT_REMOVED}"
    await close_dms(s, s.alice)
    await s.alice.send(s.auctions, "!bid 1 52")
    said = texts(s, s.auctions)[-1]
    assert TYPED_REFUSAL in said, "closed DMs: told in the channel, naming no amount"
    assert "52" not in said


async def test_every_bid_opens_at_the_settlement_each_hash_checkable(discord_server: Server) -> None:
    s = discord_server
    await sealed_auction(s)
    await s.alice.send_dm("!bid 1 37")
    await s.bob.slash(s.auctions, "bid", lot="1", amount=43)
    await s.carol.send_dm("!bid 2 47")
    await s.alice.send_dm("!bid 1 45")  # replaces her 37
    posted = [HEX64.findall(line)[0] for line in hash_lines(s)]
    assert len(posted) == 4
    await s.advance(THURSDAY)
    said = "\n".join(texts(s, s.auctions))
    opened = [m.groupdict() for m in OPENED.finditer(said)]
    assert sorted(o["digest"] for o in opened) == sorted(posted), "every hash posted is opened"
    assert all(hashlib.sha256(o["hashed"].encode()).hexdigest() == o["digest"] for o in opened)
    assert f"1|{s.alice.id}|37|" in said
    assert "(replaced by their later bid)" in said
    assert "Lot 1 (AS KH) goes to alice for 45 points." in said
    assert "Lot 2 (QS QH) goes to carol for 47 points." in said
    state = await s.state()
    assert state.players[str(s.alice.id)].points == 55
    assert not state.sealed_bids


async def test_a_member_playing_in_two_servers_names_the_server_in_the_dm(discord_server: Server) -> None:
    s = discord_server
    await sealed_auction(s)
    other = s.env.create_guild("Second Table")
    channels = {name: other.create_text_channel(name) for name in ("game-actions", "auctions")}
    elsewhere = other.add_member(s.alice.user)
    await elsewhere.send(channels["game-actions"], "!join")
    await s.alice.send_dm("!bid 1 37")
    assert "Second Table" in dms(s, s.alice)[-1]
    assert "Nomic" in dms(s, s.alice)[-1]
    assert hash_lines(s) == [], "no bid until the server is named"
    await s.alice.send_dm("!bid 1 37 nomic")
    assert "Your sealed bid of 37 points on lot 1 is in" in dms(s, s.alice)[-1]
    assert len(hash_lines(s)) == 1
