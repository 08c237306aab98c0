"""Setting a server up in one step, and telling its moderators what the bot could not post.

``!setup`` (``/setup server``) binds the round's channels and reports, before anything fails, what
the bot lacks in each; an announcement that cannot be posted is told to the moderators once per
channel and cause; and a server the bot joins has its round started and announced at once.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import discord
import pytest
from simcord.backend.models.channel import Overwrite, OverwriteType

from bot.discord.app import SETUP_TIP, NomicBot
from bot.discord.cogs.admin import NOT_A_MODERATOR, SETUP_USAGE
from bot.router import error_text
from games.nomic.context import ChannelRole
from games.nomic.errors import BadInputError

from .conftest import FRIDAY_NOON, ROLE_NAMES, Server

SUNDAY = datetime(2026, 12, 6, tzinfo=UTC)
MONDAY = datetime(2026, 12, 7, 9, tzinfo=UTC)
THURSDAY = datetime(2026, 12, 10, 9, tzinfo=UTC)
WEEK = timedelta(days=7)
NOTICE = "⚠️"


def denied(bot: NomicBot, **perms: bool) -> dict[Any, discord.PermissionOverwrite]:
    """A channel overwrite that takes ``perms`` from the bot (its member), as a moderator might by mistake."""
    assert bot.user is not None
    return {bot.user: discord.PermissionOverwrite(**dict.fromkeys(perms, False))}


def deny_in(s: Server, channel: Any, **perms: bool) -> None:
    """Take permissions from the bot in an existing channel (a moderator edits the channel)."""
    flags = discord.Permissions(**dict.fromkeys(perms, True)).value
    s.env.backend.set_overwrite(channel.id, Overwrite(target_id=s.bot.user.id, type=OverwriteType.MEMBER, deny=flags))


def notices_in(s: Server, channel: Any) -> list[str]:
    return [m.content for m in s.bot_messages(channel) if m.content.startswith(NOTICE)]


async def bound(s: Server) -> dict[str, int]:
    config = await s.bot.config(s.guild.id)
    return {role.value: channel for role, channel in config.channels.items()}


# -- /setup in one step --


async def test_setup_alone_binds_the_channels_named_after_the_roles_and_reports_what_i_lack(
    discord_server: Server,
) -> None:
    s = discord_server
    deny_in(s, s.auctions, embed_links=True)
    deny_in(s, s.proposals, view_channel=True)
    assert await bound(s) == {}

    await s.mod.send(s.general, "!setup")
    report = s.last_answer(s.general)
    assert await bound(s) == {
        "auctions": s.auctions.id,
        "game-actions": s.game_actions.id,
        "proposals": s.proposals.id,
        "judge-elections": s.channels["judge-elections"].id,
    }, "each role is bound to the channel of its name, by id (a later rename changes nothing)"
    lines = report.splitlines()
    assert lines[0] == "Set up."
    auctions = lines.index(f"**#auctions** → {s.auctions.mention} (found by name): I lack")
    assert lines[auctions + 1].startswith("- **Embed Links**: the lot board")
    assert f"**#game-actions** → {s.game_actions.mention} (found by name): ✅ I have what I need there." in lines
    proposals = lines.index(f"**#proposals** → {s.proposals.mention} (found by name): I lack")
    assert lines[proposals + 1].startswith("- **View Channel**: I cannot see the channel")
    assert not lines[proposals + 2].startswith("- "), "what Discord denies along with View Channel is not repeated"
    assert "2 things to fix" in report

    shown = await s.mod.slash(s.general, "setup show")
    assert shown.ephemeral
    assert shown.response is not None
    assert f"**#auctions** → {s.auctions.mention} (chosen): I lack" in shown.response.content
    assert "- **Embed Links**: the lot board" in shown.response.content
    assert await bound(s) == {
        "auctions": s.auctions.id,
        "game-actions": s.game_actions.id,
        "proposals": s.proposals.id,
        "judge-elections": s.channels["judge-elections"].id,
    }


async def test_setup_takes_channels_and_the_moderator_role_as_options(discord_server: Server) -> None:
    s = discord_server
    bids = s.guild.create_text_channel("bids", overwrites=denied(s.bot, attach_files=True))
    helpers = s.guild.create_role("Helpers")
    helper = s.guild.add_member(s.env.create_user("helper"), roles=[helpers])

    result = await s.mod.slash(s.general, "setup server", auctions=bids, **{"moderator-role": helpers})
    assert result.ephemeral
    assert result.response is not None
    report = result.response.content
    assert report.startswith("Set up; members with the Helpers role are moderators.\n")
    assert f"**#auctions** → {bids.mention} (chosen now): I lack" in report
    assert "- **Attach Files**: the lot board (it carries a picture of the lots)" in report
    assert "moderator role: Helpers" in report
    assert (await bound(s))["auctions"] == bids.id
    await helper.send(s.general, "!setup show")
    assert f"**#auctions** → {bids.mention} (chosen): I lack" in s.last_answer(s.general)

    # the prefix form: pairs of words, in any order; a kept choice stays as it was
    ideas = s.guild.create_text_channel("ideas")
    await s.mod.send(s.general, f"!setup proposals {ideas.mention} game-actions #game-actions")
    report = s.last_answer(s.general)
    assert f"**#proposals** → {ideas.mention} (chosen now): ✅" in report
    assert f"**#auctions** → {bids.mention} (kept)" in report
    assert (await bound(s))["proposals"] == ideas.id


async def test_setup_reports_a_role_without_a_channel_and_refuses_what_it_cannot_do(
    simcord_env: Any, simcord_bot: NomicBot
) -> None:
    env = simcord_env
    guild = env.create_guild("Small")
    general = guild.create_text_channel("general")
    actions = guild.create_text_channel("game-actions")
    mods = guild.create_role("Mods", permissions=discord.Permissions(manage_guild=True))
    mod = guild.add_member(env.create_user("mod"), roles=[mods])
    member = guild.add_member(env.create_user("alice"))

    await member.send(general, "!setup")
    assert general.last_message.content == error_text(NOT_A_MODERATOR)
    await mod.send(general, "!setup")
    report = general.last_message.content
    assert "**#auctions**: no channel. Create a text channel named `auctions`, or choose one:" in report
    assert f"**#game-actions** → {actions.mention} (found by name): ✅" in report

    await mod.send(general, f"!setup auctions {general.mention} proposals #general")
    assert general.last_message.content == error_text(
        BadInputError(f"{general.mention} cannot be both #auctions and #proposals")
    )
    await mod.send(general, "!setup auctions")
    assert general.last_message.content == error_text(BadInputError(SETUP_USAGE))
    await mod.send(general, "!setup auctions #nowhere")
    assert general.last_message.content == error_text(BadInputError("there is no text channel #nowhere here"))
    config = await simcord_bot.config(guild.id)
    assert config.channels == {ChannelRole.GAME_ACTIONS: actions.id}, "a refused setup changes nothing"
    await simcord_bot.release()


# -- announcements that cannot be posted --


async def test_an_announcement_the_bot_may_not_post_is_told_to_the_moderators_once(discord_server: Server) -> None:
    s = discord_server
    quiet = s.guild.create_text_channel("quiet", overwrites=denied(s.bot, send_messages=True))
    await s.mod.send(s.general, f"!setup channel auctions {quiet.mention}")
    await s.join_all()
    await s.mod.send(s.game_actions, "!admin lot AS KH")

    await s.advance(THURSDAY)  # the auction ends: the lot's fate goes to the auctions channel, which refuses it
    assert not s.bot_messages(quiet)
    told = notices_in(s, s.game_actions)
    assert len(told) == 1
    assert f"I could not post an announcement of the round in {quiet.mention}" in told[0]
    assert "I lack Send Messages there" in told[0]
    assert "`/setup`" in told[0]

    await s.advance(THURSDAY + WEEK)  # the next auction ends: a second announcement lost in the same way
    assert not s.bot_messages(quiet)
    assert len(notices_in(s, s.game_actions)) == 1, "the same channel and cause are told once"

    await s.mod.send(s.general, "!setup")  # a moderator looked at the setup: what still fails is told again
    assert f"**#auctions** → {quiet.mention} (kept): I lack" in s.last_answer(s.general)
    await s.advance(THURSDAY + 2 * WEEK)
    assert len(notices_in(s, s.game_actions)) == 2
    assert not s.env.errors


async def test_a_role_without_a_channel_is_told_in_the_first_channel_the_bot_can_post_in(
    simcord_env: Any, simcord_bot: NomicBot, bot_clock: Any
) -> None:
    env = simcord_env
    guild = env.create_guild("Quiet")
    mute = denied(simcord_bot, send_messages=True)
    actions = guild.create_text_channel("game-actions", overwrites=mute)
    rules = guild.create_text_channel("rules", overwrites=mute)
    lounge = guild.create_text_channel("lounge")
    await env.settle()
    assert await simcord_bot.service.state(str(guild.id)) is not None, "the round started when the bot joined"
    told = [m.content for m in lounge.history() if m.content.startswith(NOTICE)]
    assert len(told) == 1
    assert f"in {actions.mention}: I lack Send Messages there" in told[0]
    assert not rules.history()
    assert not actions.history()

    bot_clock.set(MONDAY)
    await simcord_bot.run_scheduled_work()
    await env.settle()
    told = [m.content for m in lounge.history() if m.content.startswith(NOTICE)]
    assert len(told) == 2
    assert "I could not post an announcement of the round in #judge-elections" in told[1]
    assert "no channel plays #judge-elections here" in told[1]
    assert "create a text channel named `judge-elections`" in told[1]
    await simcord_bot.release()


async def test_with_nowhere_to_post_the_owner_gets_the_notice_by_dm(simcord_env: Any, simcord_bot: NomicBot) -> None:
    env = simcord_env
    guild = env.create_guild("Locked")
    actions = guild.create_text_channel("game-actions", overwrites=denied(simcord_bot, view_channel=True))
    await env.settle()
    dms = [m.content for m in guild.owner.dm_channel.history() if m.author.id == simcord_bot.user.id]
    assert len(dms) == 1
    assert dms[0].startswith("About your server **Locked**: ⚠️ Moderators: I could not post")
    assert f"{actions.mention}: I lack View Channel there" in dms[0]
    await simcord_bot.release()


async def test_a_deleted_channel_is_told_and_a_table_thread_the_bot_may_not_post_in_too(
    discord_server: Server,
) -> None:
    s = discord_server
    gone = s.guild.create_text_channel("old-auctions")
    await s.mod.send(s.general, f"!setup channel auctions {gone.mention}")
    s.env.backend.delete_channel(gone.id)
    await s.join_all()
    await s.mod.send(s.game_actions, "!admin lot AS KH")
    await s.advance(THURSDAY)
    told = notices_in(s, s.game_actions)
    assert len(told) == 1
    assert "the channel chosen for #auctions no longer exists" in told[0]

    await s.alice.send(s.game_actions, "!play wikipedia ai:1 turn:1h")
    thread = next(t for t in s.game_actions.threads if t.name == "wikipedia-1")
    await s.alice.send(thread, "!start")
    deny_in(s, s.game_actions, send_messages_in_threads=True)
    await s.advance(s.clock.now() + timedelta(minutes=31))  # the turn's reminder cannot be posted
    told = notices_in(s, s.game_actions)
    assert len(told) == 2
    assert f"I could not post a message of the table wikipedia-1 in {thread.mention}" in told[1]
    assert "Send Messages in Threads" in told[1]


@pytest.mark.parametrize(
    ("denied_here", "named"), [("send_messages", "Send Messages"), ("attach_files", "Attach Files")]
)
async def test_a_lot_board_the_bot_may_not_post_is_told_to_the_moderators_once(
    discord_server: Server, denied_here: str, named: str
) -> None:
    s = discord_server
    await s.join_all()
    for cards in ("AS KH", "QS QH"):
        await s.mod.send(s.game_actions, f"!admin lot {cards}")
    await s.advance(SUNDAY)
    deny_in(s, s.auctions, **{denied_here: True})  # a moderator edits #auctions by mistake
    s.clock.set(MONDAY)
    await s.alice.send(s.auctions, "!bid 1 10")
    await s.env.advance_time(30)
    await s.bob.send(s.auctions, "!bid 2 10")
    await s.env.advance_time(30)
    await s.carol.send(s.auctions, "!bid 1 20")
    await s.env.advance_time(30)
    assert not [m for m in s.bot_messages(s.auctions) if m.embeds and m.embeds[0].title == "The lot board"], (
        "no board could be posted"
    )
    told = notices_in(s, s.game_actions)
    assert len(told) == 1, told
    # without Send Messages, the bids received (posted first) are lost in the same channel for the same cause
    lost = "the bids received (the answer to `!bid`)" if denied_here == "send_messages" else "the lot board"
    assert f"I could not post {lost} in {s.auctions.mention}: I lack {named} there" in told[0]
    assert not s.env.errors


async def test_answers_in_proposals_the_bot_may_not_post_are_told_once(discord_server: Server) -> None:
    s = discord_server
    await s.join_all()
    deny_in(s, s.proposals, send_messages=True)
    await s.alice.send(s.proposals, "urgent: lots are public")
    await s.bob.send(s.proposals, "a standard proposal without an item")  # refused: its answer is lost too
    assert len((await s.state()).proposals) == 1
    answers = [m.content for m in s.bot_messages(s.proposals) if m.content.startswith(("Proposal 1 by", "Can't do"))]
    assert answers == []
    told = notices_in(s, s.game_actions)
    assert len(told) == 1, told
    assert f"I could not post an answer to a proposal in {s.proposals.mention}: I lack Send Messages there" in told[0]
    assert not s.env.errors


async def test_a_proposal_thread_the_bot_may_not_open_is_told_to_the_moderators_once(discord_server: Server) -> None:
    s = discord_server
    await s.join_all()
    deny_in(s, s.proposals, create_public_threads=True)
    await s.alice.send(s.proposals, "urgent: lots are public")
    await s.bob.send(s.proposals, "urgent: bids are secret")
    assert s.proposals.threads == []
    assert len((await s.state()).proposals) == 2, "the proposals stand all the same"
    assert s.last_answer(s.proposals).startswith("Proposal 2 by bob is urgent.")
    told = notices_in(s, s.game_actions)
    assert len(told) == 1, told
    assert (
        f"I could not open the discussion thread of proposal 1 in {s.proposals.mention}:"
        " I lack Create Public Threads there" in told[0]
    )
    assert "new proposals get no thread of their own for discussion" in told[0]
    assert "what I post there is lost" not in told[0], "the proposals' answers still go there"
    deny_in(s, s.proposals, create_public_threads=True, send_messages=True)  # now the answers are lost too
    await s.carol.send(s.proposals, "urgent: bids are public")
    await s.alice.send(s.proposals, "urgent: lots are secret")
    told = notices_in(s, s.game_actions)
    assert len(told) == 2, "a lost answer is told besides the lost threads, each once"
    assert f"I could not post an answer to a proposal in {s.proposals.mention}" in told[1]
    assert not s.env.errors


# -- joining a server --


async def test_joining_a_server_starts_its_round_and_announces_it_in_game_actions(
    simcord_env: Any, simcord_bot: NomicBot
) -> None:
    env = simcord_env
    guild = env.create_guild("New")
    channels = {name: guild.create_text_channel(name) for name in (*ROLE_NAMES, "general")}
    await env.settle()
    state = await simcord_bot.service.state(str(guild.id))
    assert state is not None
    assert state.clock == FRIDAY_NOON
    said = [m.content for m in channels["game-actions"].history()]
    assert len(said) == 1
    assert said[0].startswith("The round has started with the `default` ruleset.")
    assert said[0].endswith(SETUP_TIP)
    assert not channels["general"].history()
    await simcord_bot.release()

