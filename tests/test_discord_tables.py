"""Thread games on simulated Discord: /play makes a thread, buttons and text share one path, hands stay hidden."""

from __future__ import annotations

import asyncio
import random
from datetime import UTC, datetime, timedelta
from typing import Any, cast

import discord

from bot.discord.app import create_bot
from bot.discord.table_ui import MAX_OPTIONS, spread
from games.tables import lobby
from games.tables.lobby import Table, TableStatus
from games.tables.registry import GAMES
from games.tables.service import Actor
from games.wikipedia.cards import CARDS
from games.wikipedia.engine import ENGINE
from games.wikipedia.picture import render_wikipedia
from games.wikipedia.state import WikipediaState
from scheduler.clock import RealClock
from scheduler.live import LiveScheduler

from .conftest import Server

NAME = "wikipedia-1"


def thread_of(s: Server, name: str = NAME) -> Any:
    found = [t for c in s.channels.values() for t in c.threads if t.name == name]
    assert len(found) == 1, f"one thread {name}: {found}"
    return found[0]


async def table(s: Server, name: str = NAME) -> Table:
    service = s.bot.table_service
    assert service is not None
    found = await service.find(str(s.guild.id), name)
    assert found is not None
    return found


def said(s: Server, channel: Any) -> list[str]:
    return [m.content for m in s.bot_messages(channel)]


def text_of(message: discord.Message) -> str:
    parts = [message.content]
    for embed in message.embeds:
        parts += [embed.title or "", embed.description or "", embed.footer.text or ""]
        parts += [f"{f.name} {f.value}" for f in embed.fields]
    return "\n".join(parts)


def labels(message: discord.Message) -> list[str]:
    return [getattr(c, "label", None) or "" for row in message.components for c in getattr(row, "children", ())]


def last_with_buttons(s: Server, channel: Any, label: str) -> discord.Message:
    found = [m for m in s.bot_messages(channel) if label in labels(m)]
    assert found, f"no message with a {label} button"
    return found[-1]


async def mover(s: Server, name: str = NAME) -> Any:
    """The member whose turn it is."""
    current = await table(s, name)
    seat = current.seat_named(current.turn_seat or "")
    assert seat is not None
    assert seat.member is not None
    return next(m for m in (s.mod, s.alice, s.bob, s.carol) if str(m.id) == seat.member)


async def two_player_game(s: Server, opener: Any = None, options: str = "") -> Any:
    """alice opens a table by prefix, bob joins by text, alice starts it by button: the thread."""
    await (opener or s.alice).send(s.general, f"!play wikipedia {options}".strip())
    thread = thread_of(s)
    await s.bob.send(thread, "!join")
    await s.alice.click(last_with_buttons(s, thread, "Start"), label="Start")
    assert (await table(s)).status is TableStatus.PLAYING
    return thread


def public_messages(s: Server) -> list[discord.Message]:
    channels = [*s.channels.values()]
    channels += [t for c in s.channels.values() for t in c.threads]
    return [m for c in channels for m in c.history() if not m.flags.ephemeral]


async def test_play_opens_a_thread_with_a_lobby_joined_by_button_and_by_text(discord_server: Server) -> None:
    s = discord_server
    result = await s.alice.slash(s.general, "play", game="wikipedia", ai=1)
    assert result.response is not None
    assert not result.ephemeral
    assert result.response.content.startswith("Opened **wikipedia-1** (Wikipedia: the card game)")
    thread = thread_of(s)
    assert f"<#{thread.id}>" in result.response.content
    lobby_message = s.bot_messages(thread)[0]
    assert lobby_message.content.startswith("alice opened **wikipedia-1**")
    assert "Seated: alice, AI-1" in lobby_message.content
    assert labels(lobby_message) == ["Join", "Leave", "Start", "AI −", "AI +", "End table (moderators)"]
    buttons = [c for row in lobby_message.components for c in getattr(row, "children", ())]
    custom_ids = [getattr(c, "custom_id", None) for c in buttons]
    assert f"table:{s.guild.id}:wikipedia-1:join" in custom_ids

    clicked = await s.bob.click(lobby_message, label="Join")
    assert clicked.acknowledged
    assert said(s, thread)[-1] == "bob sits down. Seated (3 of 5): alice, bob, AI-1."
    await s.carol.send(thread, "!join")
    assert said(s, thread)[-1] == "carol sits down. Seated (4 of 5): alice, bob, carol, AI-1."
    await s.carol.click(lobby_message, label="AI +")
    assert said(s, thread)[-1].startswith("The table now has 2 AI seats.")

    # a rule error by button: ephemeral, and nothing changes
    before = await table(s)
    again = await s.bob.click(lobby_message, label="Join")
    assert again.ephemeral
    assert again.response is not None
    assert again.response.content == "Can't do that: you already sit at this table."
    assert await table(s) == before

    # outside the thread the round's own !join is unchanged; !games lists the table
    await s.mod.send(s.game_actions, "!join")
    assert str(s.mod.id) in (await s.state()).players
    assert [str(h.member) for h in (await table(s)).humans] == [str(s.alice.id), str(s.bob.id), str(s.carol.id)]
    listed = await s.mod.slash(s.general, "games")
    assert listed.response is not None
    assert "wikipedia-1" in (listed.response.embeds[0].description or "")

    # the same text by prefix: `!play wikipedia ai:2 turn:12h` opens the next table, in its own thread
    await s.bob.send(s.general, "!play wikipedia ai:2 turn:12h")
    second = thread_of(s, "wikipedia-2")
    opened = s.bot_messages(second)[0].content
    assert "Seated: bob, AI-1, AI-2" in opened
    assert "each turn may take up to 12h" in opened


async def test_moves_by_text_and_by_the_menu_and_hands_stay_private(discord_server: Server) -> None:
    s = discord_server
    thread = await two_player_game(s)
    board = last_with_buttons(s, thread, "My hand")
    assert board.embeds[0].title == "wikipedia-1 · Wikipedia: the card game"
    assert [a.filename for a in board.attachments] == ["table.png"]
    assert board.attachments[0].size < 40_000
    assert labels(board) == ["My hand", "Pass", "End turn", "End table (moderators)"]
    assert f"<@{(await mover(s)).id}>" in said(s, thread)[-1], "the turn's post pings its member"

    # a move by text
    first = await mover(s)
    moves = (await table(s)).moves
    await first.send(thread, "!pass")
    assert (await table(s)).moves == moves + 1
    assert "hour" in said(s, thread)[-1]

    # "My hand": ephemeral, with the member's own legal moves as a menu
    shown = await first.click(board, label="My hand")
    assert shown.ephemeral
    assert shown.response is not None
    assert shown.response.embeds[0].title == "Your hand"
    menu = shown.response.components[0]["components"][0]
    assert menu["custom_id"] == f"table:{s.guild.id}:wikipedia-1:move"
    options = [o["value"] for o in menu["options"]]
    assert 0 < len(options) <= MAX_OPTIONS
    assert "pass" not in options  # Pass and End turn are buttons
    service = s.bot.table_service
    assert service is not None
    legal = await service.legal_moves(str(s.guild.id), NAME, Actor(str(first.id), first.name))
    assert set(options) <= set(legal)

    # the slash forms: /move offers the legal moves as you type, /hand answers only you
    typed = await first.autocomplete(thread, "move", "move", "")
    assert [c["value"] for c in typed] == spread(legal)
    hand = await first.slash(thread, "hand")
    assert hand.ephemeral
    assert hand.response is not None
    assert hand.response.embeds[0].title == "Your hand"

    # a move by the menu, down the same path as the text
    moves = (await table(s)).moves
    chosen = await first.select(shown.response, [options[0]])
    assert chosen.acknowledged
    assert (await table(s)).moves == moves + 1
    assert not s.env.errors
    refreshed = s.env.backend.get_message(thread.id, shown.response.id)
    offered = [o["value"] for row in refreshed.components for c in row["components"] for o in c.get("options", [])]
    assert options[0] not in offered, "the private menu shows the moves left after the move"

    # the other player's hand is theirs only; a stranger has none
    other = s.bob if first is s.alice else s.alice
    theirs = await other.click(board, label="My hand")
    assert theirs.ephemeral
    assert theirs.response is not None
    assert f"your seat {other.name}" in (theirs.response.embeds[0].description or "")
    stranger = await s.carol.click(board, label="My hand")
    assert stranger.ephemeral
    assert stranger.response is not None
    assert stranger.response.content == "Can't do that: you do not play at this table."

    # !hand by prefix goes by DM; with DMs closed, an answer without the cards
    await other.send(thread, "!hand")
    assert said(s, thread)[-1] == "I sent you your cards in a DM."
    assert other.user.dm_channel.history()[-1].embeds[0].title == "Your hand"
    closed = "Cannot send messages to this user"
    dm = other.user.dm_channel
    s.env.inject_error("POST", f"/channels/{dm.id}/messages", status=403, code=50007, message=closed)
    await other.send(thread, "!hand")
    assert said(s, thread)[-1].startswith("I could not send you your cards in a DM (your DMs are closed to me)")

    # no public message anywhere carries a human's cards, and no public message has a menu of moves
    state: WikipediaState = lobby.game_state(await table(s))
    secrets = [CARDS[c].describe() for hand in state.hands for c in hand]
    assert secrets
    for message in public_messages(s):
        text = text_of(message)
        assert "Your hand" not in text
        assert not [secret for secret in secrets if secret in text], text
        children = [c for row in message.components for c in getattr(row, "children", ())]
        assert not [c for c in children if isinstance(c, discord.SelectMenu)]


async def test_a_rule_error_by_button_is_ephemeral_and_changes_nothing(discord_server: Server) -> None:
    s = discord_server
    await s.alice.send(s.general, "!play wikipedia")
    thread = thread_of(s)
    lobby_message = s.bot_messages(thread)[0]
    result = await s.bob.click(lobby_message, label="Start")
    assert result.ephemeral
    assert result.response is not None
    assert result.response.content == "Can't do that: only players at this table can start it; `!join` first."
    result = await s.alice.click(lobby_message, label="Start")
    assert result.response is not None
    assert result.response.content.startswith("Can't do that: Wikipedia: the card game needs at least 2 players")
    assert (await table(s)).status is TableStatus.LOBBY

    await s.bob.click(lobby_message, label="Join")
    await s.alice.click(lobby_message, label="Start")
    board = last_with_buttons(s, thread, "Pass")
    waiting = s.bob if await mover(s) is s.alice else s.alice
    before = await table(s)
    count = len(s.bot_messages(thread))
    result = await waiting.click(board, label="Pass")
    assert result.ephemeral
    assert result.response is not None
    assert result.response.content.startswith("Can't do that:")
    assert "turn" in result.response.content
    assert await table(s) == before
    assert len(s.bot_messages(thread)) == count
    typed = await waiting.slash(thread, "move", move="pass")
    assert typed.ephemeral
    assert typed.response is not None
    assert typed.response.content == result.response.content, "the slash command and the button say the same"
    assert await table(s) == before


async def test_buttons_of_messages_from_before_a_restart_still_work(discord_server: Server) -> None:
    s = discord_server
    await s.alice.slash(s.general, "play", game="wikipedia")
    thread = thread_of(s)
    lobby_message = s.bot_messages(thread)[0]

    old = s.bot
    await old.release()
    new = create_bot(old.settings, clock=s.clock, timers=False)
    await s.env.restart_bot(new)
    s.bot = new

    await s.bob.click(lobby_message, label="Join")
    assert said(s, thread)[-1] == "bob sits down. Seated (2 of 5): alice, bob."
    await s.bob.send(thread, "!start")  # the thread is still the table's after the restart
    assert (await table(s)).status is TableStatus.PLAYING
    assert not s.env.errors


async def test_turn_reminders_and_timeouts_are_posted_in_the_thread(discord_server: Server) -> None:
    s = discord_server
    thread = await two_player_game(s, options="turn:1h")
    late = await mover(s)
    started = s.clock.now()
    scheduler = s.bot.scheduler
    assert scheduler is not None
    assert scheduler.armed_at(str(s.guild.id)) == started + timedelta(minutes=30, milliseconds=1), (
        "the guild's timer is armed at the table's reminder, before the round's next boundary"
    )

    await s.advance(started + timedelta(minutes=31))
    reminder = said(s, thread)[-1]
    assert reminder.startswith(f"<@{late.id}> ⏰ {late.name}, it is still your turn")

    await s.advance(started + timedelta(minutes=61))
    posts = said(s, thread)
    timed_out = next(p for p in posts if "⌛" in p)
    assert timed_out.startswith(f"<@{late.id}> ⌛ Time is up for {late.name}: the AI plays this turn")
    assert (await table(s)).seat_named(late.name).timeouts == 1  # type: ignore[union-attr]
    assert await mover(s) is not late
    assert posts[-1].startswith(f"<@{(await mover(s)).id}>"), "the next member is told it is their turn"
    assert not s.env.errors


async def test_only_moderators_end_a_table(discord_server: Server) -> None:
    s = discord_server
    await s.alice.send(s.general, "!play wikipedia")
    thread = thread_of(s)
    await s.alice.send(thread, "!end-table")
    assert said(s, thread)[-1] == "Can't do that: only moderators can end a table."
    result = await s.alice.click(s.bot_messages(thread)[0], label="End table (moderators)")
    assert result.ephemeral
    assert result.response is not None
    assert result.response.content == "Can't do that: only moderators can end a table."
    assert (await table(s)).status is TableStatus.LOBBY

    await s.mod.click(s.bot_messages(thread)[0], label="End table (moderators)")
    assert said(s, thread)[-1] == "A moderator ended wikipedia-1; the game is abandoned."
    assert (await table(s)).status is TableStatus.ABANDONED


async def test_rules_games_and_the_rounds_words(discord_server: Server) -> None:
    s = discord_server
    choices = await s.alice.autocomplete(s.general, "rules", "game", "wi")
    assert [c["value"] for c in choices] == ["wikipedia"]
    result = await s.alice.slash(s.general, "rules", game="wikipedia")
    assert result.response is not None
    assert "cooperative card game" in (result.response.embeds[0].description or "")
    await s.alice.send(s.general, "!rules wikipedia")
    assert "cooperative card game" in (s.bot_messages(s.general)[-1].embeds[0].description or "")
    for text in ("!rules", "!ruleset"):
        await s.alice.send(s.general, text)
        assert s.bot_messages(s.general)[-1].embeds[0].title == "The ruleset", text
    await s.alice.send(s.general, "!rules chess")
    assert said(s, s.general)[-1].startswith("Can't do that: there is no game called `chess`")
    offered = [c["value"] for c in await s.alice.autocomplete(s.general, "play", "game", "")]
    assert offered == sorted(GAMES), "every registered game, by name"


async def test_a_table_opens_its_thread_elsewhere_when_it_cannot_here(discord_server: Server) -> None:
    s = discord_server
    no_threads = discord.PermissionOverwrite(create_public_threads=False)
    lounge = s.guild.create_text_channel("lounge", overwrites={s.bot.user: no_threads})
    await s.alice.send(lounge, "!play wikipedia")
    assert [t.id for t in s.game_actions.threads] == [thread_of(s).id]
    assert said(s, lounge)[-1].endswith(f"➡ <#{thread_of(s).id}>")

    quiet = s.guild.create_text_channel("quiet", overwrites={s.bot.user: no_threads})
    await s.mod.send(s.general, f"!setup channel game-actions {quiet.mention}")
    await s.alice.send(lounge, "!play wikipedia")
    answer = said(s, lounge)[-1]
    assert answer.startswith("Can't do that: a table plays in a thread of its own and I cannot open one from here")
    assert "Create Public Threads" in answer
    service = s.bot.table_service
    assert service is not None
    assert [t.name for t in await service.open_tables(str(s.guild.id))] == [NAME], "the refusal changed nothing"
    await s.alice.send(lounge, "!play nuclear")  # a game played in Traditional Chinese unless asked otherwise
    answer = said(s, lounge)[-1]
    assert answer.startswith("無法這樣做：每一桌都在自己的討論串裡進行"), answer
    assert f"{quiet.mention} 的「建立公開討論串」權限" in answer
    assert answer.endswith("到別的頻道用 `!play`。"), answer
    await s.alice.send(lounge, "!play nuclear lang:en")
    assert said(s, lounge)[-1].startswith("Can't do that: a table plays in a thread of its own")


def test_the_move_menu_spreads_its_room_over_every_kind_of_move() -> None:
    moves = [f"section {f} {g} discard {p}" for f in range(10) for g in range(5) for p in range(3)]
    moves += [f"fix {n}" for n in range(4)] + ["give 3 @bob", "give 4 @bob", "protect art"]
    shown = spread(moves)
    assert len(shown) == MAX_OPTIONS
    assert {"fix 0", "fix 3", "give 3 @bob", "give 4 @bob", "protect art"} <= set(shown)
    assert shown == [m for m in moves if m in shown], "in their order"
    assert len({m.split()[1] for m in shown if m.startswith("section")}) == 10, "every fact has a way to be written"
    assert spread(["pass", "end"]) == ["pass", "end"]


def test_the_table_picture_is_small() -> None:
    state = ENGINE.new_game(["alice", "bob", "carol"], None, random.Random(7))
    picture = render_wikipedia(state)
    assert picture.startswith(b"\x89PNG")
    assert len(picture) < 40_000


async def test_the_live_timer_runs_every_scheduled_work_and_rearms_from_it() -> None:
    ran: list[str] = []
    due = [datetime.now(UTC) + timedelta(milliseconds=30)]

    async def work(guild: str, now: datetime) -> None:
        ran.append(guild)

    async def next_due(guild: str) -> datetime | None:
        return due.pop() if due else None

    async def announce(*args: object) -> None:
        raise AssertionError("the round-only path is not used when work is given")

    scheduler = LiveScheduler(cast(Any, None), RealClock(), announce, work=work, next_due=next_due)
    scheduler.start()
    try:
        await scheduler.arm("g1")
        assert scheduler.armed_at("g1") is not None
        for _ in range(100):
            if ran:
                break
            await asyncio.sleep(0.01)
    finally:
        scheduler.shutdown()
    assert ran == ["g1"]
    assert scheduler.armed_at("g1") is None, "re-armed from next_due, which has nothing more"
