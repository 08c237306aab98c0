"""What a newcomer reads around an ICTC battle on simulated Discord: the rules and the thread's help name only
what a member types, an accepted challenge does not send its players to `!join`, a practice lobby shows in
public only what it does not call private, the board follows the deal whoever goes first, and the library's
refusals say what to do."""

from __future__ import annotations

import re
from typing import Any

from games.ictc.battle.state import BattleState
from games.tables import lobby

from .conftest import Server
from .test_discord_ictc import bot_public_texts, dms
from .test_discord_tables import table, text_of, thread_of

INTERNAL = ("defs:", "cards:", "owner:")


async def _battle(s: Server, name: str) -> BattleState:
    found = lobby.game_state(await table(s, name))
    assert isinstance(found, BattleState)
    return found


async def test_the_rules_and_the_thread_help_name_only_what_a_member_types(discord_server: Server) -> None:
    s = discord_server
    await s.alice.send(s.general, "!rules ictc")
    rules = _last(s, s.general)
    assert "`deck:…`" in rules
    assert not [word for word in INTERNAL if word in rules], rules
    await s.carol.send(s.general, "!play ictc deck:Tide")
    thread = thread_of(s, "ictc-1")
    await s.carol.send(thread, "!help")
    help_text = _last(s, thread)
    assert "`!join deck:…`" in help_text
    assert not [word for word in INTERNAL if word in help_text], help_text
    await s.bob.send(thread, "!join owner:123")
    refused = _last(s, thread)
    assert "owner" not in refused.replace("`owner:123`", ""), "the refusal lists only what a member may bring"
    assert "`deck:…`" in refused


async def test_a_practice_lobby_shows_in_public_only_what_it_does_not_call_private(discord_server: Server) -> None:
    s = discord_server
    await s.carol.send(s.general, "!play ictc deck:Tide")
    public = "\n".join(bot_public_texts(s))
    told = "\n".join(dms(s, s.carol))
    if "Tide" in public:
        assert "only you see this" not in told, f"called private, yet shown to everyone: {told}"


async def test_an_accepted_challenge_does_not_send_its_players_to_join(discord_server: Server) -> None:
    s = discord_server
    await s.alice.send(s.general, "!card starter Ember")
    await s.bob.send(s.general, "!card starter Grove")
    await s.alice.send(s.general, f"!challenge {s.bob.mention}")
    before = len(s.bot_messages(s.general))
    await s.bob.send(s.general, "!challenge accept")
    answers = [text_of(m) for m in s.bot_messages(s.general)[before:]]
    assert any("ictc-1" in a for a in answers)
    assert not [a for a in answers if "!join" in a], answers


async def test_the_board_follows_the_deal_whoever_goes_first(discord_server: Server) -> None:
    s = discord_server
    cases: set[tuple[bool, str]] = set()
    for k in range(1, 13):
        name = f"ictc-{k}"
        await s.carol.send(s.general, "!play ictc ai:1")
        thread = thread_of(s, name)
        await s.carol.send(thread, "!start")
        ai_cut_first = any(side.cut for side in (await _battle(s, name)).sides)
        before = len(thread.history())
        await s.carol.send(thread, "!cut")
        state = await _battle(s, name)
        boards = [m for m in list(thread.history())[before:] if m.embeds and "**ICTC battle** · turn" in text_of(m)]
        assert boards, f"{name}: no board after the deal ({state.seats[state.first]} went first)"
        cases.add((ai_cut_first, state.seats[state.first]))
        await s.carol.send(thread, "!concede")
        if (True, "carol") in cases and (False, "carol") in cases:
            break
    assert (True, "carol") in cases, f"the computer cut first, then carol cut and went first: {cases}"


async def test_library_refusals_say_what_to_do(discord_server: Server) -> None:
    s = discord_server
    await s.alice.send(s.game_actions, "!join")
    await s.alice.send(s.general, "!card new Imp | type: soldier | cost: R | cr: 1 | text: A small imp of flame.")
    await s.alice.send(s.general, "!card protect Imp")
    await s.alice.send(s.general, "!card submit Imp")
    await s.bob.send(s.general, "!card unprotect Imp")
    answer = dms(s, s.bob)[-1]
    assert "unprotect" in answer, answer
    await s.alice.send(s.game_actions, "!card starter Ember")
    await s.alice.send(s.game_actions, f"!offer {s.bob.mention} give copy:1 for nothing")
    refused = _last(s, s.game_actions)
    assert "is not a player" in refused
    assert re.search(r"`!join` in (#game-actions|<#[0-9]+>) first", refused), refused


def _last(s: Server, channel: Any) -> str:
    return text_of(s.bot_messages(channel)[-1])
