"""Answers on simulated Discord: a DM command gets its own answer even when its action tells other
members something privately; a redelivered gateway event, early or late, before or after a restart,
changes nothing and gets no second, different answer."""

from __future__ import annotations

from typing import Any

import discord
import pytest

from games.tables import acting

from .conftest import Server
from .test_discord_tables import thread_of


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
