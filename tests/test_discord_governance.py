"""Proposals on simulated Discord: votes are reactions, an edit retracts, a restart forgets nothing."""

from __future__ import annotations

from datetime import timedelta

from simcord.backend import serializers

from bot.app import create_bot
from games.nomic.state import ProposalStatus, Vote

from .conftest import Server


def replies_to(server: Server, message_id: int) -> list[str]:
    return [
        m.content
        for m in server.bot_messages(server.proposals)
        if m.reference is not None and m.reference.message_id == message_id
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
    assert replies_to(s, proposal.id)[-1] == "Proposal 1 by alice has passed with 2 for and 1 against."
    await s.alice.send(s.game_actions, "!proposals")
    assert "passed" in (s.bot_messages(s.game_actions)[-1].embeds[0].description or "")
