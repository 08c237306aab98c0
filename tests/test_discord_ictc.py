"""An ICTC battle on simulated Discord between two members: their starter decks claimed, a challenge and its
acceptance opening the thread, the cut by button, moves typed as members type them, a restart of the bot while a
Flash window is open (the window still closes on time afterwards), drawn cards told by DM, a concession that gives
the winner the kitty, and no card in a hand ever named in a public post."""

from __future__ import annotations

import random
import re
from datetime import timedelta
from typing import Any

from bot.discord.app import create_bot
from games.ictc.battle.ai import Skirmisher
from games.ictc.battle.engine import ENGINE
from games.ictc.battle.state import BattleState
from games.ictc.battle.table import zone_of
from games.ictc.state import ChallengeStatus
from games.tables import lobby
from games.tables.lobby import TableStatus

from .conftest import Server
from .test_discord_tables import last_with_buttons, table, text_of, thread_of

NAME = "ictc-1"
PUBLIC_ZONES = frozenset({"play", "grave", "kitty", "flashes"})


async def battle(s: Server) -> BattleState:
    found = lobby.game_state(await table(s, NAME))
    assert isinstance(found, BattleState)
    return found


def member_of(s: Server, member_id: str) -> Any:
    return next(m for m in (s.mod, s.alice, s.bob, s.carol) if str(m.id) == member_id)


def bot_public_texts(s: Server) -> list[str]:
    channels = [*s.channels.values()]
    channels += [t for c in s.channels.values() for t in c.threads]
    return [text_of(m) for c in channels for m in c.history() if m.author.id == s.bot.user.id and not m.flags.ephemeral]


def dms(s: Server, member: Any) -> list[str]:
    channel = member.user.dm_channel
    return [m.content for m in channel.history() if m.author.id == s.bot.user.id] if channel else []


async def restart(s: Server) -> None:
    old = s.bot
    await old.release()
    new = create_bot(old.settings, clock=s.clock, timers=False)
    await s.env.restart_bot(new)
    s.bot = new


async def test_a_battle_between_two_members_survives_a_restart_in_a_flash_window(discord_server: Server) -> None:
    s = discord_server
    await s.alice.send(s.general, "!card starter Ember")
    await s.bob.send(s.general, "!card starter Grove")
    await s.alice.send(s.general, f"!challenge {s.bob.mention}")
    challenge = s.last_answer(s.general)
    assert "with a deck of 30 cards" in challenge
    assert "(the kitty)" in challenge
    await s.bob.send(s.general, "!challenge accept")
    thread = thread_of(s, NAME)
    assert (await table(s, NAME)).status is TableStatus.PLAYING

    cutters = [member_of(s, x.member or "") for x in (await table(s, NAME)).seats]
    clicked = None
    for cutter in cutters:
        clicked = await cutter.click(last_with_buttons(s, thread, "Cut"), label="Cut")
    state = await battle(s)
    assert state.turn == 1
    assert clicked is not None
    assert any(f.ephemeral and "You drew" in f.content for f in clicked.followups), "the presser's hand: only to them"
    assert any("You drew" in d for d in dms(s, cutters[0])), "the other's hand comes by DM"

    ai = Skirmisher()
    seen: set[int] = set()
    restarted = False
    for _ in range(400):
        state = await battle(s)
        seen |= {n for n in range(1, len(state.cards) + 1) if zone_of(state, n) in PUBLIC_ZONES}
        if (await table(s, NAME)).status is not TableStatus.PLAYING:
            break
        if state.window is not None and not restarted and state.turn >= 2:
            waiting = state.seats[state.window.seat]
            await restart(s)
            restarted = True
            await s.advance(s.clock.now() + timedelta(seconds=state.options.flash_seconds + 1))
            after = await battle(s)
            assert after.window is None or after.window.number != state.window.number, "it closed on time"
            assert any(f"{waiting}'s Flash window closes unanswered" in t for t in bot_public_texts(s))
            continue
        if restarted and state.turn >= 5:
            loser = member_of(s, next(x for x in (await table(s, NAME)).seats if x.name == state.seats[1]).member or "")
            await loser.send(thread, "!concede")
            continue
        seat = sorted(ENGINE.awaiting(state))[0]
        mover = member_of(s, next(x for x in (await table(s, NAME)).seats if x.name == seat).member or "")
        text = ENGINE.format_action(state, ai.choose(state, seat, random.Random(0)))
        await mover.send(thread, "!" + text)
    assert restarted, "a Flash window opened"
    final = await battle(s)
    assert (await table(s, NAME)).status is TableStatus.FINISHED
    assert final.winner is not None

    library = s.bot.library
    assert library is not None
    lib = await library.state(str(s.guild.id))
    assert lib.challenges[1].status is ChallengeStatus.OVER
    winner_member = final.sides[final.winner].owner
    assert all(lib.copies[c].owner == winner_member for c in lib.challenges[1].kitty)

    public = "\n".join(bot_public_texts(s))
    for number in range(1, len(final.cards) + 1):
        if number in seen:
            continue
        name = final.name(number)
        assert not re.search(rf"{re.escape(name)} #{number}\b", public), f"{name} #{number} was never public"
    hidden_names = {final.name(n) for n in range(1, len(final.cards) + 1)} - {final.name(n) for n in seen}
    for name in hidden_names:
        assert not re.search(rf"\b{re.escape(name)}\b", public), f"{name} was never played, yet named in public"


async def test_a_member_who_leaves_the_server_mid_battle_leaves_their_seat_to_the_computer(
    discord_server: Server,
) -> None:
    s = discord_server
    await s.alice.send(s.general, "!card starter Ember")
    await s.bob.send(s.general, "!card starter Grove")
    await s.alice.send(s.general, f"!challenge {s.bob.mention}")
    await s.bob.send(s.general, "!challenge accept")
    thread = thread_of(s, NAME)
    for cutter in [member_of(s, x.member or "") for x in (await table(s, NAME)).seats]:
        await cutter.click(last_with_buttons(s, thread, "Cut"), label="Cut")
    assert (await battle(s)).turn == 1
    s.guild.remove_member(s.bob)
    await s.env.settle()
    seat = next(x for x in (await table(s, NAME)).seats if x.member == str(s.bob.id))
    assert seat.left
    assert seat.autopilot
    assert any("bob left the server; the AI plays their seat from now on." in t for t in bot_public_texts(s))
    state = await battle(s)
    assert ENGINE.awaiting(state) == {"alice"}, "the computer moved for bob at once"
    if state.window is not None:  # bob went first and the computer played for him: alice's window runs on the clock
        await s.advance(s.clock.now() + timedelta(seconds=state.options.flash_seconds + 1))
        assert (await battle(s)).window != state.window, "the window closed on time"
    for _ in range(300):
        if (await table(s, NAME)).status is not TableStatus.PLAYING:
            break
        state = await battle(s)
        (seat_name,) = ENGINE.awaiting(state)
        assert seat_name == "alice"
        await s.alice.send(
            thread, "!" + ENGINE.format_action(state, Skirmisher().choose(state, "alice", random.Random(0)))
        )
    assert (await table(s, NAME)).status is TableStatus.FINISHED, "the battle went on to its end with the computer"
