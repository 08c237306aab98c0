"""The secret ballot on simulated Discord: votes by button (ephemeral), by DM and refused when typed in
the thread; the game's 10-second deadline; a finished table's thread is archived; idle lobbies expire."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import timedelta
from typing import Any

import discord
import pytest

from games.tables.registry import register, unregister

from .ballot_game import BALLOT
from .conftest import Server
from .test_discord_tables import labels, last_with_buttons, public_messages, table, thread_of


@pytest.fixture(autouse=True)
def ballot_registered() -> Iterator[None]:
    register(BALLOT)
    yield
    unregister(BALLOT.name)


def texts(messages: list[discord.Message]) -> list[str]:
    return [m.content + " ".join(e.description or "" for e in m.embeds) for m in messages]


def archived(s: Server, name: str) -> bool:
    """Whether the bot sees the table's thread archived."""
    stored = s.env.backend.get_channel(thread_of(s, name).id)
    return bool(stored.thread_metadata and stored.thread_metadata.archived)


def dms(s: Server, member: Any) -> list[str]:
    return [m.content for m in member.user.dm_channel.history() if m.author.id == s.bot.user.id]


async def three_voters(s: Server, options: str = "rounds:1") -> Any:
    await s.alice.send(s.general, f"!play ballot {options}")
    thread = thread_of(s, "ballot-1")
    await s.bob.send(thread, "!join")
    await s.carol.send(thread, "!join")
    await s.alice.send(thread, "!start")
    return thread


async def test_votes_by_button_and_by_dm_stay_secret_until_the_reveal(discord_server: Server) -> None:
    s = discord_server
    thread = await three_voters(s)
    board = last_with_buttons(s, thread, "Vote A")
    assert labels(board) == ["My hand", "Vote A", "Vote B", "Vote C", "End table (moderators)"]

    clicked = await s.alice.click(board, label="Vote B")
    private = [f for f in clicked.followups if f.ephemeral]
    assert any("vote B" in f.content for f in private), "the presser alone learns their vote is in"
    assert any("You vote B" in f.content for f in private)
    assert all(f.ephemeral for f in clicked.followups if "vote B" in f.content)
    assert s.last_answer(thread) == "alice has voted (1 of 3)."

    # a vote typed in the thread: refused, removed, and the way to vote told by DM
    typed = await s.bob.send(thread, "!vote A")
    assert all(m.id != typed.id for m in thread.history()), "the typed vote was deleted"
    assert "secret" in dms(s, s.bob)[-1]
    assert "removed your message" in dms(s, s.bob)[-1]
    assert (await table(s, "ballot-1")).moves == 1

    await s.bob.user.send_dm("!ballot-1 vote A")
    assert any("vote A" in text for text in dms(s, s.bob))
    assert s.last_answer(thread) == "bob has voted (2 of 3)."
    before = texts(public_messages(s))
    assert not any("alice B" in t or "bob A" in t for t in before), "no vote is public before the reveal"
    assert not any("You vote" in t for t in before)

    await s.carol.user.send_dm("!vote A")  # carol sits at one table only
    revealed = [t for t in texts(public_messages(s)) if "Round 1, the votes" in t]
    assert len(revealed) == 1
    assert "alice B, carol A, bob A" in revealed[0] or "bob A" in revealed[0]
    finished = await table(s, "ballot-1")
    assert finished.status.value == "finished"
    assert archived(s, "ballot-1"), "a finished table's thread is archived"


async def test_the_games_ten_second_deadline_reveals_without_the_late_votes(discord_server: Server) -> None:
    s = discord_server
    thread = await three_voters(s)
    await s.alice.click(last_with_buttons(s, thread, "Vote A"), label="Vote A")
    current = await table(s, "ballot-1")
    assert current.deadline is not None
    assert current.deadline - current.clocks[0].started_at == timedelta(seconds=10)
    await s.advance(current.deadline - timedelta(seconds=1))
    assert (await table(s, "ballot-1")).status.value == "playing"
    await s.advance(current.deadline)
    said = texts(s.bot_messages(thread))
    assert any("⌛" in t and "Round 1, the votes: alice A, bob -, carol -" in t for t in said) or any(
        "⌛" in t and "Round 1, the votes" in t for t in said
    )
    assert (await table(s, "ballot-1")).status.value == "finished"
    ended = await table(s, "ballot-1")
    assert all(seat.timeouts == 0 for seat in ended.seats), "a phase deadline is no strike"


async def test_a_lobby_nobody_starts_closes_after_a_day(discord_server: Server) -> None:
    s = discord_server
    await s.alice.send(s.general, "!play ballot")
    thread = thread_of(s, "ballot-1")
    opened = await table(s, "ballot-1")
    await s.advance(opened.opened_at + timedelta(hours=24))
    assert (await table(s, "ballot-1")).status.value == "abandoned"
    assert "within 24 hours" in s.last_answer(thread)
    assert archived(s, "ballot-1")
