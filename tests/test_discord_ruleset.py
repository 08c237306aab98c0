"""The ruleset document on Discord: `/ruleset` and its subcommands, `/ruleset import` with a Markdown file
(slash or prefix), and the moderators' to-do list posted in the mod-log channel."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

from bot.router import error_text
from games.nomic.document import default_document, to_markdown
from games.nomic.errors import NotAllowedError

from .conftest import Server

MONDAY = datetime(2026, 12, 7, 9, tzinfo=UTC)


def embed_text(result: Any) -> str:
    return "\n".join(e.description or "" for e in result.response.embeds)


async def test_reading_the_rules_by_slash_and_by_prefix(discord_server: Server) -> None:
    s = discord_server
    await s.alice.send(s.game_actions, "!join")
    shown = await s.alice.slash(s.general, "ruleset show", rule="4.2")
    assert embed_text(shown).startswith("**Rule 4.2 Lots on offer** (version 1)\nEach auction phase offers **6** lots")
    contents = await s.alice.slash(s.general, "ruleset show")
    assert "**4. Auctions**: 4.1 Bidding · 4.2 Lots on offer" in embed_text(contents)
    history = await s.alice.slash(s.general, "ruleset history", rule="4.2")
    assert embed_text(history).startswith("History of rule 4.2, newest first:\nv1 - ")
    options = await s.alice.slash(s.general, "ruleset options")
    assert "`auction.lots_per_auction` = 6" in embed_text(options)
    await s.alice.send(s.general, "!ruleset 4.2")
    prefix = s.bot_messages(s.general)[-1]
    assert prefix.embeds[0].description == embed_text(shown)
    await s.alice.send(s.general, "!ruleset history 4.2")
    assert s.bot_messages(s.general)[-1].embeds[0].description == embed_text(history)


async def test_a_moderator_imports_a_markdown_file(discord_server: Server) -> None:
    s = discord_server
    markdown = to_markdown(default_document()).replace("Each auction phase offers", "Every auction phase offers")
    refused = await s.alice.slash(s.general, "ruleset import", document=("rules.md", markdown.encode()))
    assert refused.ephemeral
    assert refused.response is not None
    assert refused.response.content == error_text(NotAllowedError("only moderators can do that"))
    done = await s.mod.slash(s.general, "ruleset import", document=("rules.md", markdown.encode()))
    assert done.response is not None
    text = done.response.content
    assert text.startswith("mod imported the ruleset document “The rules of the round” (45 rules): ruleset version 2.")
    assert "Rule 4.2 “Lots on offer”: ~~Each~~ **Every** auction phase offers 6 lots of 2 cards." in text
    state = await s.state()
    assert state.document.rule("4.2").text.startswith("Every auction phase offers {auction.lots_per_auction}")
    # a prefix message with the file attached, and an unknown placeholder in it
    bad = markdown.replace("{auction.weekly_points}", "{auction.weekly_pointz}")
    await s.mod.send(s.general, "!ruleset import", attachments=[("rules.md", bad.encode())])
    assert s.last_answer(s.general).startswith("Can't do that: line ")
    assert "`{auction.weekly_pointz}` names no option of the ruleset" in s.last_answer(s.general)
    # not a text file at all
    await s.mod.send(s.general, "!ruleset import", attachments=[("rules.md", b"\xff\xfe\x00bad")])
    assert "the document must be a text (Markdown) file" in s.last_answer(s.general)
    assert (await s.state()).ruleset_version == 2


async def test_a_passed_plain_proposal_is_posted_for_the_moderators_who_close_it(discord_server: Server) -> None:
    s = discord_server
    mods = s.guild.create_text_channel("mods")
    await s.mod.send(s.general, f"!setup channel mod-log {mods.mention}")
    await s.join_all()
    await s.alice.send(s.proposals, "urgent: auctions have eight lots of two cards")
    await s.advance(s.clock.now() + timedelta(hours=49))
    posted = [m.content for m in s.bot_messages(mods)]
    assert posted[-1].startswith("📝 To-do 1: proposal 1 passed with what the bot does not enforce")
    assert "“urgent: auctions have eight lots of two cards”" in posted[-1]
    listing = await s.mod.slash(s.general, "admin todo")
    assert listing.response is not None
    assert listing.response.content.startswith("The moderators' to-do list (1 open;")
    closed = await s.mod.slash(s.general, "admin done", number=1, note="eight lots by hand")
    assert closed.response is not None
    assert closed.response.content == "mod marked to-do 1 done: eight lots by hand."
    await s.env.settle()
    logged = [m.content for m in s.bot_messages(mods)][-1]
    assert logged == "🛠️ mod · `!admin done`: mod marked to-do 1 done: eight lots by hand."
    await s.alice.send(s.general, "!admin done 1")
    assert s.last_answer(s.general) == error_text(NotAllowedError("only moderators can do that"))
