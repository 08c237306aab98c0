"""The Discord adapter's commands: one path with the simulator, errors as answers, setup, permissions."""

from __future__ import annotations

import re
from collections import Counter
from datetime import UTC, datetime
from typing import Any

import discord
from discord import app_commands
from discord.ext import commands
from pydantic import SecretStr

from bot.discord.cogs.admin import NOT_A_MODERATOR, SETUP_CHANNEL_USAGE
from bot.router import error_text
from bot.sim.replay import replay
from bot.sim.world import read_line
from games.nomic.commands import COMMAND_WORDS
from games.nomic.errors import BadInputError, NotAllowedError, WrongChannelError

from .conftest import FRIDAY_NOON, Server

MONDAY = datetime(2026, 12, 7, 9, tzinfo=UTC)
_CHANNEL_LINK = re.compile(r"<#(\d+)>")


def as_plain(server: Server, text: str) -> str:
    """Channel links back to ``#name``, as the simulator writes them."""
    names = {str(c.id): c.name for c in server.channels.values()}
    return _CHANNEL_LINK.sub(lambda m: f"#{names.get(m.group(1), m.group(1))}", text)


async def test_every_command_word_is_a_described_hybrid_command_without_clashes(discord_server: Server) -> None:
    bot = discord_server.bot
    prefix_names: Counter[tuple[str, str]] = Counter()
    for command in bot.walk_commands():
        parent = command.parent.qualified_name if command.parent else ""
        for name in (command.name, *command.aliases):
            prefix_names[(parent, name.lower())] += 1
        assert command.description.strip(), f"!{command.qualified_name} has no description"
    clashes = [name for name, n in prefix_names.items() if n > 1]
    assert not clashes, f"prefix names used twice: {clashes}"

    slash_names: Counter[tuple[str, str]] = Counter()
    for command in bot.tree.walk_commands():
        parent = command.parent.qualified_name if command.parent else ""
        slash_names[(parent, command.name)] += 1
        assert command.description.strip() not in {"", "…"}, f"/{command.qualified_name} has no description"
        assert len(command.description) <= 100
        if isinstance(command, app_commands.Command):
            for parameter in command.parameters:
                assert parameter.description.strip() not in {"", "…"}, (
                    f"option {parameter.name} of /{command.qualified_name} has no description"
                )
    clashes = [name for name, n in slash_names.items() if n > 1]
    assert not clashes, f"slash names used twice: {clashes}"

    top_prefix = {c.name for c in bot.commands}
    top_slash = {c.name for c in bot.tree.get_commands()}
    for word in COMMAND_WORDS:
        assert word.name in top_prefix, f"!{word.name} is missing"
        assert word.name in top_slash, f"/{word.name} is missing"
        command = bot.get_command(word.name)
        assert isinstance(command, commands.HybridCommand | commands.HybridGroup)


async def test_prefix_and_slash_answer_in_the_words_of_the_simulator(discord_server: Server) -> None:
    s = discord_server
    typed = [
        ("auctions", "!bid x 5"),
        ("game-actions", "!bid 1 5"),
        ("auctions", "!bid 9 5"),
        ("game-actions", "!frobnicate now"),
        ("game-actions", "!accept"),
        ("game-actions", "!offer bob give 5 points"),
        ("auctions", "!generate"),
    ]
    at = FRIDAY_NOON.isoformat()
    scenario = [
        {"at": at, "type": "setup", "admins": ["mod"]},
        {"at": at, "type": "message", "id": "join", "channel": "game-actions", "author": "alice", "content": "!join"},
    ]
    scenario += [
        {"at": at, "type": "message", "id": f"m{i}", "channel": channel, "author": "alice", "content": text}
        for i, (channel, text) in enumerate(typed)
    ]
    result = await replay([(n, read_line(line)) for n, line in enumerate(scenario)])
    simulated = {entry["reply_to"]: entry["content"] for entry in result.transcript if entry.get("reply_to")}

    await s.alice.send(s.game_actions, "!join")
    for i, (channel, text) in enumerate(typed):
        await s.alice.send(s.channels[channel], text)
        if text == "!bid 9 5":  # a bid in #auctions: its refusal comes by DM (and in the bids received)
            dm = [m.content for m in s.alice.user.dm_channel.history() if m.author.id == s.bot.user.id][-1]
            assert dm.endswith(f"`{text}`: {simulated[f'm{i}']}"), dm
            continue
        assert as_plain(s, s.last_answer(s.channels[channel])) == simulated[f"m{i}"], text

    slash = await s.alice.slash(s.auctions, "bid", lot="x", amount=5)
    assert slash.ephemeral
    assert slash.response is not None
    assert slash.response.content == simulated["m0"]
    slash = await s.alice.slash(s.game_actions, "bid", lot="1", amount=5)
    assert slash.ephemeral
    assert slash.response is not None
    assert as_plain(s, slash.response.content) == simulated["m1"]


async def test_unknown_commands_and_bad_arguments_get_answers_not_silence(discord_server: Server) -> None:
    s = discord_server
    for text in ("!", "!nonsense", "!bid", "!bid 1 2 3", "!present", "!admin", "!BID one two", "!" + "x" * 1990):
        await s.bob.send(s.auctions, text)
        answer = s.last_answer(s.auctions)
        assert answer.startswith("Can't do that:"), (text, answer)
        assert "Traceback" not in answer
    await s.bob.send(s.general, "just chatting")
    assert not s.bot_messages(s.general)[1:], "plain messages outside #proposals get no answer"


async def test_slash_bid_with_lot_autocomplete_and_the_board(discord_server: Server) -> None:
    s = discord_server
    await s.join_all()
    await s.mod.send(s.game_actions, "!admin lot AS KH")
    await s.mod.send(s.game_actions, "!admin lot 10C 2D")
    await s.advance(MONDAY)

    choices = await s.alice.autocomplete(s.auctions, "bid", "lot", "")
    assert [c["value"] for c in choices] == ["1", "2"]
    assert choices[0]["name"].startswith("Lot 1: AS KH")
    assert [c["value"] for c in await s.alice.autocomplete(s.auctions, "bid", "lot", "2")] == ["2"]

    result = await s.alice.slash(s.auctions, "bid", lot="1", amount=30)
    assert not result.ephemeral
    assert result.response is not None
    assert result.response.content == "alice bids 30 points on lot 1; it is now the highest bid."
    board = next(m for m in reversed(s.bot_messages(s.auctions)) if m.embeds)
    assert board.embeds[0].title == "The lot board"
    assert "highest valid bid 30 by alice" in (board.embeds[0].description or "")
    assert "/bid" in (board.embeds[0].footer.text or ""), "the board steers members to /bid"
    assert [a.filename for a in board.attachments] == ["board.png"]
    assert board.attachments[0].size < 50_000

    choices = await s.alice.autocomplete(s.auctions, "bid", "lot", "1")
    assert "highest 30 by alice" in choices[0]["name"]


async def test_help_lists_what_you_can_do_in_the_channel(discord_server: Server) -> None:
    s = discord_server
    await s.alice.send(s.auctions, "!help")
    embed = s.bot_messages(s.auctions)[-1].embeds[0]
    text = embed.description or ""
    assert embed.title == "What you can do in #auctions"
    here = text.split("Elsewhere:")[0]
    assert "`!bid LOT AMOUNT`" in here
    assert "`!join`" not in here
    assert "Moderators" not in text
    result = await s.mod.slash(s.game_actions, "help")
    assert result.ephemeral
    assert result.response is not None
    text = "\n".join(e.description or "" for e in result.response.embeds)  # a long help runs on in more embeds
    assert "`!join`" in text.split("Elsewhere:")[0]
    assert "/setup channel" in text


async def test_setup_binds_channels_and_the_moderator_role(discord_server: Server) -> None:
    s = discord_server
    bidding = s.guild.create_text_channel("bidding")
    helpers = s.guild.create_role("Helpers")
    helper = s.guild.add_member(s.env.create_user("helper"), roles=[helpers])
    await s.alice.send(s.game_actions, "!join")
    await s.mod.send(s.game_actions, "!admin lot AS KH")
    await s.advance(MONDAY)

    result = await s.mod.slash(s.general, "setup channel", role="auctions", channel=bidding)
    assert result.response is not None
    assert result.response.content == f"{bidding.mention} is now this server's auctions channel."

    elsewhere = error_text(WrongChannelError(f"use this command in {bidding.mention}"))
    await s.alice.send(s.game_actions, "!bid 1 5")
    assert s.last_answer(s.game_actions) == elsewhere
    await s.alice.send(s.auctions, "!bid 1 5")
    assert s.last_answer(s.auctions) == elsewhere
    await s.alice.send(bidding, "!bid 1 5")
    received = [m for m in s.bot_messages(bidding) if m.embeds and m.embeds[0].title == "Bids received"]
    assert f"{s.alice.mention} ✅ lot 1: 5" in (received[-1].embeds[0].description or "")

    await helper.send(s.game_actions, f"!admin give {s.alice.mention} 5 points")
    assert s.last_answer(s.game_actions) == error_text(NotAllowedError("only moderators can do that"))
    await s.mod.send(s.general, f"!setup moderator-role {helpers.mention}")
    assert s.last_answer(s.general) == "Members with the Helpers role are moderators now."
    await helper.send(s.game_actions, f"!admin give {s.alice.mention} 5 points")
    assert s.last_answer(s.game_actions) == "helper gave alice 5 points."

    await s.mod.send(s.general, "!setup channel auctions")
    assert s.last_answer(s.general) == "The auctions role is back to the channel named #auctions."
    await s.alice.send(s.auctions, "!bid 1 7")
    received = [m for m in s.bot_messages(s.auctions) if m.embeds and m.embeds[0].title == "Bids received"]
    assert f"{s.alice.mention} ✅ lot 1: 7" in (received[-1].embeds[0].description or "")

    shown = await s.mod.slash(s.general, "setup show")
    assert shown.ephemeral
    assert shown.response is not None
    assert "moderator role: Helpers" in shown.response.content


async def test_admin_and_setup_answer_non_moderators(discord_server: Server) -> None:
    s = discord_server
    refused = error_text(NOT_A_MODERATOR)
    await s.alice.send(s.general, "!admin sync")
    assert s.last_answer(s.general) == refused
    await s.alice.send(s.general, "!setup channel auctions #general")
    assert s.last_answer(s.general) == refused
    result: Any = await s.alice.slash(s.general, "setup show")
    assert result.ephemeral
    assert result.response.content == refused
    result = await s.alice.slash(s.general, "admin give", member=s.bob, items="5 points")
    assert result.ephemeral
    assert result.response.content == error_text(NotAllowedError("only moderators can do that"))
    await s.mod.send(s.general, "!setup channel nowhere #general")
    assert s.last_answer(s.general) == error_text(BadInputError(SETUP_CHANNEL_USAGE))
    await s.mod.send(s.general, "!setup channel auctions #missing")
    assert s.last_answer(s.general) == error_text(BadInputError("there is no text channel #missing here"))
    assert isinstance(s.bot.get_command("admin"), discord.ext.commands.HybridGroup)


def test_a_refused_token_is_a_clear_message_and_exit_code_1(
    bot_settings: Any, monkeypatch: Any, caplog: Any
) -> None:
    from bot.discord.app import NomicBot, run_bot

    async def refuse(self: NomicBot, token: str, *, reconnect: bool = True) -> None:
        raise discord.LoginFailure("Improper token has been passed.")

    monkeypatch.setattr(NomicBot, "start", refuse)
    settings = bot_settings.model_copy(update={"discord_token": SecretStr("bogus")})
    assert run_bot(settings) == 1
    refused = [r for r in caplog.records if "refused the token" in r.getMessage()]
    assert refused
    assert refused[0].exc_info is None


async def test_queries_are_embeds_within_discords_limits(discord_server: Server) -> None:
    s = discord_server
    await s.alice.send(s.game_actions, "!join")
    for text in ("!ruleset", "!ruleset history", "!ruleset diff 1 1", "!phase", "!proposals", "!rulings", "!lots"):
        before = len(s.bot_messages(s.general))
        await s.alice.send(s.general, text)
        answers = s.bot_messages(s.general)[before:]
        assert answers, text
        for message in answers:
            assert message.embeds, (text, message.content)
            assert sum(len(e) for e in message.embeds) <= 6000
            assert all(len(e.description or "") <= 4096 for e in message.embeds)
    phase = s.bot_messages(s.general)[-4].embeds[0]
    assert phase.title == "The bartering phase"
    assert re.search(r"<t:\d+:R>", phase.fields[0].value or "")
    result = await s.alice.slash(s.general, "ruleset diff", old=1, new=1)
    assert result.response is not None
    assert result.response.embeds[0].description == "Versions 1 and 1 have the same options."
    await s.alice.send(s.general, "!trades")
    assert s.last_answer(s.general) == "You have no open trade offers."


async def test_slash_commands_sync_globally_only_when_asked_and_changed(bot_settings: Any, bot_clock: Any) -> None:
    import simcord

    from bot.discord.app import create_bot

    def syncs(env: Any) -> list[Any]:
        return [r for r in env.http_requests if r.method == "PUT" and r.path.endswith("/commands")]

    async with simcord.run(create_bot(bot_settings, clock=bot_clock, timers=False)) as env:
        assert syncs(env) == [], "no sync on start by default"
    settings = bot_settings.model_copy(update={"sync_commands_globally": True})
    first = create_bot(settings, clock=bot_clock, timers=False)
    async with simcord.run(first) as env:
        assert len(syncs(env)) == 1
        assert "/guilds/" not in syncs(env)[0].path
        await first.release()
        await env.restart_bot(create_bot(settings, clock=bot_clock, timers=False))
        assert len(syncs(env)) == 1, "unchanged commands are not synced again on the next start"
        await env.bot.release()
