"""Proposals on simulated Discord: votes are reactions, an edit retracts, a restart forgets nothing."""

from __future__ import annotations

import logging
from datetime import UTC, datetime, timedelta
from typing import Any

import discord
from simcord.backend import serializers

from bot.discord.app import create_bot
from games.nomic.proposals import tally
from games.nomic.state import ProposalStatus, Vote

from .conftest import Server

THREAD_CREATED = discord.MessageType.thread_created


def replies_to(server: Server, message_id: int) -> list[str]:
    return [
        m.content
        for m in server.bot_messages(server.proposals)
        if m.reference is not None and m.reference.message_id == message_id and m.type is not THREAD_CREATED
    ]


async def test_a_proposal_voted_by_reactions_and_retracted_by_an_edit(discord_server: Server) -> None:
    s = discord_server
    await s.join_all()
    proposal = await s.alice.send(s.proposals, "urgent: every lot holds three cards")
    recorded = replies_to(s, proposal.id)
    assert len(recorded) == 1
    assert recorded[0].startswith("Proposal 1 by alice is urgent. Voting is open now until")

    await s.bob.react(proposal, "👍")
    await s.carol.react(proposal, "👍")
    await s.mod.react(proposal, "👎")
    await s.carol.unreact(proposal, "👍")
    await s.bob.react(proposal, "🎉")  # not a vote
    s.env.backend.set_reaction(s.proposals.id, proposal.id, "👍", s.bot.user.id, reacted=True)  # the bot's: ignored
    await s.env.settle()
    state = await s.state()
    assert state.reactions[str(proposal.id)] == {(str(s.bob.id), Vote.FOR, "👍"), (str(s.mod.id), Vote.AGAINST, "👎")}

    backend = s.env.backend  # Discord adding a link preview: an update that is no edit
    unfurled = serializers.message_payload(backend, backend.get_message(s.proposals.id, proposal.id))
    backend.emit("MESSAGE_UPDATE", {**unfurled, "edited_timestamp": None})
    await s.env.settle()
    assert (await s.state()).proposals[str(proposal.id)].status is ProposalStatus.VOTING

    await s.alice.edit(proposal, "urgent: every lot holds four cards")
    state = await s.state()
    assert state.proposals[str(proposal.id)].status is ProposalStatus.RETRACTED
    assert replies_to(s, proposal.id)[-1] == "Proposal 1 is retracted: it was edited during its vote."

    await s.alice.send(s.proposals, "a standard proposal without a Standard Proposal-Maker")
    assert s.last_answer(s.proposals).startswith("Can't do that:")
    await s.alice.send(s.channels["judge-elections"], "I will judge fairly")
    assert "stands for judge" in s.last_answer(s.channels["judge-elections"])


async def test_reactions_on_messages_from_before_a_restart_still_count(discord_server: Server) -> None:
    s = discord_server
    await s.join_all()
    proposal = await s.alice.send(s.proposals, "urgent: the judge may rule in verse")
    await s.bob.react(proposal, "👍")

    old = s.bot
    await old.release()
    new = create_bot(old.settings, clock=s.clock, timers=False)
    await s.env.restart_bot(new)
    s.bot = new
    assert new.get_channel(s.proposals.id) is not None

    await s.carol.react(proposal, "👍")
    await s.mod.react(proposal, "👎")
    await s.mod.unreact(proposal, "👎")
    await s.mod.react(proposal, "👎")
    state = await s.state()
    assert len(state.reactions[str(proposal.id)]) == 3

    await s.advance(s.clock.now() + timedelta(hours=49))
    outcome = replies_to(s, proposal.id)[-1]
    assert outcome.startswith("Proposal 1 by alice has passed with 2 for and 1 against.\n")
    assert "on the moderators' to-do list (item 1)" in outcome  # it has no amendment line
    await s.alice.send(s.game_actions, "!proposals")
    assert "passed" in (s.bot_messages(s.game_actions)[-1].embeds[0].description or "")


async def test_a_vote_stands_while_any_skin_tone_of_it_remains(discord_server: Server) -> None:
    s = discord_server
    await s.join_all()
    proposal = await s.alice.send(s.proposals, "urgent: the judge may rule in verse")
    key = str(proposal.id)
    await s.bob.react(proposal, "👍")
    await s.bob.react(proposal, "👍🏽")
    await s.bob.unreact(proposal, "👍🏽")  # bob's 👍 is still on the message
    await s.carol.react(proposal, "👎🏿")
    await s.carol.unreact(proposal, "👎🏿")
    state = await s.state()
    assert tally(state, key) == (1, 0)
    await s.bob.unreact(proposal, "👍")
    assert tally(await s.state(), key) == (0, 0)


async def test_each_proposal_gets_a_discussion_thread_whose_talk_is_no_proposal(discord_server: Server) -> None:
    s = discord_server
    await s.join_all()
    proposal = await s.alice.send(s.proposals, "urgent: every lot holds three cards from now on, as agreed")
    threads = s.proposals.threads
    assert len(threads) == 1
    name = threads[0].name or ""
    assert name.startswith("Proposal 1: urgent: every lot holds")
    assert len(name) <= 100
    thread = s.bot.get_channel(threads[0].id)
    assert isinstance(thread, discord.Thread)
    assert thread.id == proposal.id  # opened on the proposal's own message
    await s.bob.send(threads[0], "I think three is too many")
    await s.bob.send(threads[0], "urgent: and this is talk, too")
    state = await s.state()
    assert list(state.proposals) == [str(proposal.id)]
    assert not s.bot_messages(threads[0])
    # a refused message makes no thread
    await s.bob.send(s.proposals, "a standard proposal without an item")
    assert len(s.proposals.threads) == 1


async def test_a_proposal_stands_when_its_thread_cannot_be_opened(discord_server: Server, caplog: Any) -> None:
    s = discord_server
    await s.join_all()
    no_threads = discord.PermissionOverwrite(create_public_threads=False)
    votes = s.guild.create_text_channel("votes", overwrites={s.bot.user: no_threads})
    await s.mod.send(s.general, f"!setup channel proposals {votes.mention}")
    with caplog.at_level(logging.WARNING):
        proposal = await s.alice.send(votes, "urgent: lots are public")
    assert votes.threads == []
    assert str(proposal.id) in (await s.state()).proposals
    assert s.last_answer(votes).startswith("Proposal 1 by alice is urgent.")
    assert any("thread" in r.getMessage() and r.levelno == logging.WARNING for r in caplog.records)


async def test_a_judge_who_leaves_the_server_empties_the_office(discord_server: Server) -> None:
    s = discord_server
    await s.join_all()
    elections = s.channels["judge-elections"]
    candidacy = await s.bob.send(elections, "I will judge fairly")
    await s.alice.react(candidacy, "👍")
    await s.advance(datetime(2026, 12, 6, tzinfo=UTC))
    assert (await s.state()).judge == str(s.bob.id)
    s.guild.remove_member(s.bob)
    await s.env.settle()
    state = await s.state()
    assert state.judge is None
    announced = s.last_answer(elections)
    assert "no longer the judge" in announced
    assert "empty until the next election" in announced
    assert "bob left the server and is no longer a player" in s.last_answer(s.game_actions)


async def test_the_judge_is_not_offered_their_own_request_to_rule_on(discord_server: Server) -> None:
    s = discord_server
    await s.join_all()
    await s.bob.send(s.game_actions, "!request May a lot be empty?")
    elections = s.channels["judge-elections"]
    candidacy = await s.bob.send(elections, "I will judge fairly")
    await s.alice.react(candidacy, "👍🏾")
    await s.advance(datetime(2026, 12, 6, tzinfo=UTC))
    await s.carol.send(s.game_actions, "!request Are lots public?")
    assert [c["value"] for c in await s.bob.autocomplete(s.game_actions, "rule", "number", "")] == [2]
    await s.bob.send(s.game_actions, "!rule 1 Yes")
    assert s.last_answer(s.game_actions) == (
        "Can't do that: request 1 is your own request; it waits for another judge."
    )
