"""The Great Sardini is Dead on simulated Discord: /play, the board's buttons, drawn cards told privately
(ephemeral for a button or /move, by DM for a typed !draw), a Move's cards picked in a form of menus that
show only the cards that fit, a restart in the middle of an attempt, and no drawn card in a public post."""

from __future__ import annotations

import re
from typing import Any

from bot.discord.app import create_bot
from games.sardini.cards import CODES, cards_of, mask
from games.sardini.moves import can_meet
from games.sardini.plans import sets
from games.sardini.state import Phase, SardiniState
from games.sardini.tricks import TRICKS
from games.tables import lobby

from .conftest import Server
from .test_discord_tables import labels, last_with_buttons, mover, public_messages, table, text_of, thread_of

NAME = "sardini-1"
CARD = re.compile(r"\b(?:10|[1-9])[WHSK]\b")


async def game_state(s: Server) -> SardiniState:
    found = lobby.game_state(await table(s, NAME))
    assert isinstance(found, SardiniState)
    return found


def dms(s: Server, member: Any) -> list[str]:
    channel = member.user.dm_channel
    return [m.content for m in channel.history() if m.author.id == s.bot.user.id] if channel else []


def public_cards(state: SardiniState) -> set[str]:
    seen = mask(state.shown) | mask(state.out)
    for pile in state.piles:
        seen |= mask(pile)
    if state.attempt is not None:
        seen |= mask(state.attempt.played())
    return {CODES[c] for c in cards_of(seen)}


def components(result: Any) -> list[dict[str, Any]]:
    assert result.response is not None
    return [c for row in result.response.components for c in row["components"]]


async def restart(s: Server) -> None:
    old = s.bot
    await old.release()
    new = create_bot(old.settings, clock=s.clock, timers=False)
    await s.env.restart_bot(new)
    s.bot = new


async def test_a_game_by_slash_buttons_and_forms_shows_no_drawn_card_in_public(discord_server: Server) -> None:
    s = discord_server
    opened = await s.alice.slash(s.general, "play", game="sardini", options="starting_hand:2")
    assert opened.response is not None
    assert opened.response.content.startswith("Opened **sardini-1** (The Great Sardini is Dead)")
    thread = thread_of(s, NAME)
    lobby_message = s.bot_messages(thread)[0]
    assert "starting_hand:2" in lobby_message.content
    await s.bob.click(lobby_message, label="Join")
    await s.alice.click(lobby_message, label="Start")
    board = last_with_buttons(s, thread, "My hand")
    assert labels(board) == ["My hand", "Draw 1 card", "Attempt T1", "End table (moderators)"]
    assert "**The Great Sardini is Dead** · turn 1" in text_of(board)

    # Draws: by the board's button (ephemeral), by /move (ephemeral) and typed (by DM)
    told: list[str] = []
    for way in ("button", "slash", "typed", "button", "slash", "typed"):
        state = await game_state(s)
        trick = TRICKS[state.shown[0]]
        hand = mask(state.hands[state.current])
        if len(state.hands[state.current]) >= 6 and any(can_meet(m, hand) for m in trick.moves):
            break
        first = await mover(s, NAME)
        count = len(state.hands[state.current])
        if way == "button":
            board = last_with_buttons(s, thread, "My hand")
            button = next(label for label in labels(board) if label.startswith("Draw"))
            clicked = await first.click(board, label=button)
            private = [f.content for f in clicked.followups if f.ephemeral and "You drew" in f.content]
            assert private, "the presser alone sees the cards"
            told += private
        elif way == "slash":
            drawn = await first.slash(thread, "move", move="draw")
            private = [f.content for f in drawn.followups if f.ephemeral and "You drew" in f.content]
            if drawn.response is not None and "You drew" in drawn.response.content:
                private.append(drawn.response.content)
            assert private
            told += private
        else:
            await first.send(thread, "!draw")
            assert any("You drew" in d for d in dms(s, first)), "a typed !draw tells the cards by DM"
            told += [d for d in dms(s, first) if "You drew" in d]
        after = await game_state(s)
        assert len(after.hands[state.current]) > count
        assert "draws" in s.last_answer(thread) or any("draws" in text_of(m) for m in s.bot_messages(thread)[-3:])

    # an attempt by the board's button, a restart in the middle of it, then a Move by the form of menus
    state = await game_state(s)
    first = await mover(s, NAME)
    board = last_with_buttons(s, thread, "Attempt T1")
    await first.click(board, label="Attempt T1")
    state = await game_state(s)
    if state.phase is Phase.ATTEMPT:
        shown = await first.slash(thread, "hand")
        assert shown.ephemeral
        menus = [c for c in components(shown) if c.get("custom_id", "").endswith(":forms")]
        assert len(menus) == 1, "the Moves left, each with a form of its cards"
        await restart(s)
        assert state.attempt is not None
        trick = TRICKS[state.attempt.trick]
        hand = mask(state.hands[state.current])
        k = next(k for k, m in enumerate(trick.moves) if can_meet(m, hand))
        picked = next(iter(sets(trick.moves[k], hand)))
        form = await first.select(shown.response, [f"move {k + 1}"], custom_id=menus[0]["custom_id"])
        assert form.modal is not None, "the menu opens the Move's form, after the restart too"
        fields = [row["component"] for row in form.modal["components"]]
        offered = {o["value"] for f in fields for o in f["options"]}
        fit = {CODES[c] for c in state.hands[state.current] if trick.moves[k].passes(c)}
        assert offered == fit, "only the cards of the hand that fit the Move"
        assert all(len(f["options"]) <= 25 for f in fields)
        values: dict[str, list[str]] = {}
        for c in cards_of(picked):
            key = "cards0" if c // 10 < 2 else "cards2"
            values.setdefault(key, []).append(CODES[c])
        await first.submit_modal(form, values)
        assert not s.env.errors
        assert any(f"meets Move {k + 1}" in text_of(m) for m in s.bot_messages(thread)[-3:])
        after = await game_state(s)
        if after.phase is Phase.ATTEMPT:
            await first.send(thread, "!giveup")
        after = await game_state(s)
        if after.phase is Phase.CALL:
            await first.send(thread, "!over")
    if (await game_state(s)).phase is not Phase.OVER:
        await s.bob.send(thread, "!board")
        assert "**The Great Sardini is Dead**" in text_of(s.bot_messages(thread)[-1])

    # nothing anyone drew is in a public message: every card named in public is face up now
    end = await game_state(s)
    face_up = public_cards(end)
    assert told
    for message in public_messages(s):
        text = text_of(message)
        assert "You drew" not in text
        assert "Your hand" not in text
        assert set(CARD.findall(text)) <= face_up, text
    assert not s.env.errors


async def test_the_rules_explain_every_choice_and_option(discord_server: Server) -> None:
    s = discord_server
    await s.alice.send(s.general, "!rules sardini")
    rules = "\n".join(e.description or "" for m in s.bot_messages(s.general)[-2:] for e in m.embeds)
    for word in ("draw_cap", "tricks", "starting_hand", "draw_after_last", "failed_trick", "Encore", "confirm"):
        assert word in rules, word
    offered = await s.alice.autocomplete(s.general, "play", "options", "dr", game="sardini")
    assert [c["value"] for c in offered] == ["draw_cap:none", "draw_after_last:off"]
