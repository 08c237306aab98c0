"""The secret ballot on simulated Discord: votes by button (ephemeral), by DM and refused when typed in
the thread; the game's 10-second deadline; a finished table's thread is archived; idle lobbies expire."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import timedelta
from typing import Any

import discord
import pytest

from bot.discord.app import create_bot
from games.tables.registry import register, unregister

from .ballot_game import BALLOT
from .conftest import Server
from .test_discord_tables import labels, last_with_buttons, public_messages, table, text_of, thread_of


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
    buttons = ["My vote", "Vote A", "Vote B", "Vote C", "End table (moderators)"]
    assert labels(board) == buttons, "the game names its private view"

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


async def test_play_by_slash_sets_the_games_options_and_language_as_typed_words_do(discord_server: Server) -> None:
    s = discord_server
    offered = await s.alice.autocomplete(s.general, "play", "options", "", game="ballot")
    keys = ["lobby:1d", "rounds:2", "choices:ABC", "seconds:10", "weight:1", "pledge:none"]
    assert [c["value"] for c in offered] == keys
    assert offered[1]["name"] == "rounds:2 · rounds of voting (default 2)"
    typed = await s.alice.autocomplete(s.general, "play", "options", "rounds:3 se", game="ballot")
    assert [c["value"] for c in typed] == ["rounds:3 seconds:10"]
    chinese = await s.alice.autocomplete(s.general, "play", "options", "ro", game="ballot", lang="zh-TW")
    assert chinese == [{"name": "rounds:2 · 投票的輪數（預設 2）", "value": "rounds:2"}]
    assert await s.alice.autocomplete(s.general, "play", "options", "", game="chess") == []
    languages = await s.alice.autocomplete(s.general, "play", "lang", "", game="ballot")
    assert [c["value"] for c in languages] == ["en", "zh-TW"]
    english = await s.alice.autocomplete(s.general, "play", "lang", "", game="wikipedia")
    assert [c["value"] for c in english] == ["en"], "a game's own languages only"

    # refusals: the slash form says exactly what the typed form says, and opens nothing
    for options, words, start in (
        ({"options": "rounds:99"}, "rounds:99", "Can't do that: `"),
        ({"options": "colour:red"}, "colour:red", "Can't do that: `"),
        ({"lang": "zh-TW", "options": "seconds:5"}, "lang:zh-TW seconds:5", "無法這樣做：`seconds:5` 不正確："),
    ):
        slash = await s.alice.slash(s.general, "play", game="ballot", **options)
        assert slash.response is not None
        await s.alice.send(s.general, f"!play ballot {words}")
        assert slash.response.content == said_last(s), words
        assert slash.response.content.startswith(start), slash.response.content
    wrong = await s.alice.slash(s.general, "play", game="wikipedia", lang="zh-TW")
    assert wrong.response is not None
    assert "is not a language of Wikipedia" in wrong.response.content
    assert not [t for c in s.channels.values() for t in c.threads], "no refusal opened a table"

    opened = await s.alice.slash(s.general, "play", game="ballot", lang="zh-TW", options="rounds:3 seconds:20")
    assert opened.response is not None
    found = await table(s, "ballot-1")
    assert found.lang == "zh-TW"
    assert found.game_options is not None
    assert '"rounds":3' in found.game_options
    assert '"seconds":20' in found.game_options
    lobby_text = s.bot_messages(thread_of(s, "ballot-1"))[0].content
    assert "每次投票最多 20 秒" in lobby_text, "the lobby names the game's own clock, in the table's language"
    assert "rounds:3 seconds:20" in lobby_text


def said_last(s: Server) -> str:
    return s.last_answer(s.general)


async def test_the_join_button_asks_what_a_seat_brings_and_keeps_the_secret(discord_server: Server) -> None:
    s = discord_server
    await s.alice.send(s.general, "!play ballot rounds:1")
    thread = thread_of(s, "ballot-1")
    lobby_message = s.bot_messages(thread)[0]

    shown = await s.bob.click(lobby_message, label="Join")
    assert shown.modal is not None, "a game that takes a setup asks for it in a form"
    assert shown.modal["title"] == "Join ballot-1"
    fields = [row["component"] for row in shown.modal["components"]]
    assert [f["custom_id"] for f in fields] == ["weight", "pledge"]
    assert [o["value"] for o in fields[1]["options"]] == ["A", "B", "C"], "the table's choices"
    assert (await table(s, "ballot-1")).seat_of(str(s.bob.id)) is None, "nothing happens before the form is sent"

    sent = await s.bob.submit_modal(shown, {"weight": ["2"], "pledge": ["B"]})
    assert s.last_answer(thread) == "bob sits down, bringing weight 2. Seated (2 of 6): alice, bob."
    private = [f.content for f in sent.followups if f.ephemeral]
    assert any("You bring weight 2, pledge B" in text for text in private), private

    # a secret typed in the thread: removed, refused privately, nothing changed
    typed = await s.carol.send(thread, "!join pledge:A")
    assert all(m.id != typed.id for m in thread.history())
    assert "secret" in dms(s, s.carol)[-1]
    assert (await table(s, "ballot-1")).seat_of(str(s.carol.id)) is None
    empty = await s.carol.click(lobby_message, label="Join")
    await s.carol.submit_modal(empty, {})
    assert s.last_answer(thread) == "carol sits down. Seated (3 of 6): alice, bob, carol."

    old = s.bot
    await old.release()
    new = create_bot(old.settings, clock=s.clock, timers=False)
    await s.env.restart_bot(new)
    s.bot = new

    mine = await s.bob.slash(thread, "hand")
    assert mine.ephemeral
    assert mine.response is not None
    assert "you bring weight 2, pledge B" in text_of(mine.response.message), "kept through the restart"
    await s.alice.send(thread, "!start")
    board = last_with_buttons(s, thread, "My vote")
    assert "Weights: bob 2." in text_of(board), "everyone sees the weight"
    vote = await s.bob.click(board, label="My vote")
    assert vote.response is not None
    assert vote.response.embeds[0].title == "Your vote", "the game names its private view"
    assert "Your secret pledge: B." in (vote.response.embeds[0].description or "")
    assert not any("pledge B" in t for t in texts(public_messages(s))), "the pledge never reaches a public message"
    assert not s.env.errors


async def test_after_a_restart_what_the_game_tells_one_seat_still_reaches_its_member(discord_server: Server) -> None:
    """The restarted bot has not met the member yet (no cached member): the private event still goes by DM."""
    s = discord_server
    thread = await three_voters(s)
    old = s.bot
    await old.release()
    new = create_bot(old.settings, clock=s.clock, timers=False)
    await s.env.restart_bot(new)
    s.bot = new
    await s.bob.user.send_dm("!ballot-1 vote A")
    assert s.last_answer(thread) == "bob has voted (1 of 3)."
    assert any("You vote A in round 1" in text for text in dms(s, s.bob)), dms(s, s.bob)
