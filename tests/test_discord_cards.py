"""The card library on simulated Discord: the new-card form, card pictures, buttons that survive restarts."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import discord

from bot.discord.app import create_bot
from games.ictc.state import DesignStatus

from .conftest import Server


def labels(message: discord.Message) -> list[str]:
    return [getattr(c, "label", None) or "" for row in message.components for c in getattr(row, "children", ())]


def with_buttons(s: Server, channel: Any) -> discord.Message:
    found = [m for m in s.bot_messages(channel) if "Approve" in labels(m)]
    assert found, "no card with buttons"
    return found[-1]


async def library(s: Server) -> Any:
    service = s.bot.library
    assert service is not None
    return await service.state(str(s.guild.id))


async def test_the_new_card_form_makes_a_private_draft_with_its_picture(discord_server: Server) -> None:
    s = discord_server
    shown = await s.alice.slash(s.general, "card new", kind="soldier")
    assert shown.modal is not None, "/card new asks for the card in a form"
    assert shown.modal["title"] == "New Soldier card"
    fields = [row["component"]["custom_id"] for row in shown.modal["components"]]
    assert fields == ["name", "cost", "colours", "text", "details"]
    assert not (await library(s)).designs.keys() - set(range(1, 24)), "nothing happens before the form is sent"

    sent = await s.alice.submit_modal(
        shown,
        {
            "name": "Fire Imp",
            "cost": "R+1",
            "text": "A quick imp of living flame.",
            "details": "cr: 2\nkeywords: Haste",
        },
    )
    assert sent.ephemeral, "a draft is only its maker's"
    answer = sent.response
    assert answer is not None
    assert "Your draft is saved as card #24" in (answer.embeds[0].description or "")
    assert answer.embeds[0].image.url == "attachment://card.png"
    assert [a.filename for a in answer.attachments] == ["card.png"]
    design = (await library(s)).designs[24]
    assert design.owner == str(s.alice.id)
    assert design.current.fields.cr == 2
    assert design.status is DesignStatus.DRAFT
    public = [m for c in s.channels.values() for m in c.history() if not m.flags.ephemeral]
    assert not any("Fire Imp" in (e.description or "") for m in public for e in m.embeds), "never in the open"

    bad = await s.alice.slash(s.general, "card new", kind="soldier")
    refused = await s.alice.submit_modal(bad, {"name": "Imp 🔥", "cost": "99999R", "text": "x", "details": "2"})
    assert refused.ephemeral
    assert refused.response is not None
    text = refused.response.content
    assert text.startswith("Can't do that: the card has 2 problems")
    assert "99999 is too large" in text
    assert len((await library(s)).designs) == 24, "nothing stored"
    assert not s.env.errors


async def test_a_submitted_card_is_posted_with_its_picture_and_buttons_that_work_after_a_restart(
    discord_server: Server,
) -> None:
    s = discord_server
    await s.alice.send(
        s.general, "!card new Fire Imp | type: soldier | cost: R+1 | cr: 2 | text: A quick imp of living flame."
    )
    assert "I sent you the answer in a DM" in s.last_answer(s.general), "a typed draft goes by DM"
    await s.alice.send(s.general, "!card submit Fire Imp")
    posted = with_buttons(s, s.general)
    assert labels(posted) == ["Approve", "Reject", "Comment"]
    assert "alice submits a card for approval" in (posted.embeds[0].description or "")
    assert posted.embeds[0].image.url == "attachment://card.png"
    assert [a.filename for a in posted.attachments] == ["card.png"]
    assert not posted.flags.ephemeral

    own = await s.alice.click(posted, label="Approve")
    assert own.ephemeral
    assert own.response is not None
    assert "your own card" in own.response.content

    old = s.bot
    await old.release()
    new = create_bot(old.settings, clock=s.clock, timers=False)
    await s.env.restart_bot(new)
    s.bot = new

    first = await s.bob.click(posted, label="Approve")
    assert first.response is not None
    assert "bob approves **Fire Imp**" in (first.response.embeds[0].description or "")
    assert (await library(s)).designs[24].current.approvals == (str(s.bob.id),)
    form = await s.carol.click(posted, label="Reject")
    assert form.modal is not None, "Reject asks why"
    await s.carol.submit_modal(form, {"note": "too cheap"})
    assert (await library(s)).designs[24].current.rejections[0].reason == "too cheap"
    comment = await s.mod.click(posted, label="Comment")
    await s.mod.submit_modal(comment, {"note": "Nice art."})
    assert (await library(s)).designs[24].current.comments[0].text == "Nice art."
    await s.carol.click(posted, label="Approve")
    assert (await library(s)).designs[24].status is DesignStatus.APPROVED

    await s.alice.send(s.general, "!card edit Fire Imp | cr: 3")
    stale = await s.mod.click(posted, label="Approve")
    assert stale.response is not None
    assert "replaced by version 2" in stale.response.content, "an old version's button says so"
    assert not s.env.errors


async def test_card_show_completes_names_and_posts_the_picture(discord_server: Server) -> None:
    s = discord_server
    offered = await s.bob.autocomplete(s.general, "card show", "card", "ash")
    assert offered[0]["value"] == "#4"
    assert offered[0]["name"].startswith("Ash Giant")
    shown = await s.bob.slash(s.general, "card show", card="#4")
    assert shown.response is not None
    assert not shown.ephemeral
    assert [a.filename for a in shown.response.attachments] == ["card.png"]
    assert "Ash Giant" in (shown.response.embeds[0].description or "")
    typed = await s.bob.send(s.general, "!card show Ash Giant")
    assert typed is not None
    last = s.bot_messages(s.general)[-1]
    assert [a.filename for a in last.attachments] == ["card.png"]
    assert last.embeds[0].description == shown.response.embeds[0].description, "typed and slash say the same"
    assert not s.env.errors


def card_words(message: discord.Message) -> str:
    return message.embeds[0].description or "" if message.embeds else ""


def dms(s: Server, member: Any) -> list[discord.Message]:
    return [m for m in member.user.dm_channel.history() if m.author.id == s.bot.user.id]


async def test_a_guilds_vote_is_counted_at_its_deadline_and_announced_with_the_card(discord_server: Server) -> None:
    s = discord_server
    await s.carol.send(s.general, "!guild create Smiths vote quorum:1 hours:2")
    await s.alice.send(
        s.general, "!card new Fire Imp | type: soldier | cost: R+1 | cr: 2 | text: A quick imp of living flame."
    )
    await s.alice.send(s.general, "!card submit Fire Imp guild:Smiths")
    await s.carol.click(with_buttons(s, s.general), label="Approve")
    deadline = s.clock.now() + timedelta(hours=2)
    scheduler = s.bot.scheduler
    assert scheduler is not None
    assert await s.bot.router.next_due(str(s.guild.id)) <= deadline, "the guild's timer knows the vote"
    await s.advance(deadline + timedelta(minutes=5))
    announced = [m for m in s.bot_messages(s.game_actions) if "The guild Smiths approves" in card_words(m)]
    assert len(announced) == 1
    assert [a.filename for a in announced[0].attachments] == ["card.png"]
    assert any("The guild Smiths approves" in m.content for m in dms(s, s.alice)), "the maker is told by DM"
    assert (await library(s)).designs[24].status is DesignStatus.APPROVED
    await s.advance(deadline + timedelta(minutes=10))
    again = [m for m in s.bot_messages(s.game_actions) if "Smiths" in card_words(m)]
    assert len(again) == 1, "counted once"
    assert not s.env.errors


async def test_a_card_drafted_by_dm_stays_private_until_submitted(discord_server: Server) -> None:
    s = discord_server
    await s.alice.send_dm("!card new Secret Imp | type: soldier | cost: R+1 | cr: 2 | text: Nobody must see this.")
    said = dms(s, s.alice)
    assert "Your draft is saved as card #24" in card_words(said[-1])
    assert [a.filename for a in said[-1].attachments] == ["card.png"]
    assert not any("Secret Imp" in card_words(m) for m in s.bot_messages(s.game_actions))
    await s.alice.send_dm("!card submit Secret Imp")
    assert "alice submits a card" in card_words(dms(s, s.alice)[-1])
    shown = with_buttons(s, s.game_actions)
    assert "Secret Imp" in card_words(shown), "submitted: shown in #game-actions with its buttons"
    assert not s.env.errors


async def test_a_refusal_about_a_draft_and_ones_own_copies_never_reach_the_channel(discord_server: Server) -> None:
    s = discord_server
    await s.alice.send_dm("!card new Secret Imp | type: soldier | cost: R+1 | cr: 2 | text: Nobody must see this.")
    await s.alice.send(s.general, "!card mint #24")
    public = [m.content + card_words(m) for m in s.bot_messages(s.general)]
    assert not any("Secret Imp" in text or "not approved" in text for text in public), "a draft is never named there"
    assert "I sent you the answer in a DM" in s.last_answer(s.general)
    assert "Secret Imp is not approved yet" in dms(s, s.alice)[-1].content
    slash = await s.alice.slash(s.general, "card mint", card="#24")
    assert slash.ephemeral
    assert slash.response is not None
    assert "Secret Imp is not approved yet" in slash.response.content

    await s.bob.send(s.general, "!card starter Ember")
    await s.alice.send(s.general, "!card copies @bob")
    counted = card_words(s.bot_messages(s.general)[-1])
    assert "bob owns 30 card copies" in counted
    assert "Ember" not in counted, "another member's copies are counted, never named"
    assert "copy:" not in counted
    await s.bob.send(s.general, "!card copies")
    assert "I sent you the answer in a DM" in s.last_answer(s.general)
    assert "bob owns 30 card copies (by number" in card_words(dms(s, s.bob)[-1])
    assert not s.env.errors
