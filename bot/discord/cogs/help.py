"""Help and the facts of the round: what you can do here, the phase and time left, the ruleset."""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal

import discord
from discord import app_commands
from discord.ext import commands

from bot.discord.cogs.base import Ctx, line, perform, reply, sub, word, word_group
from bot.router import error_text
from bot.web.desk import WEB_SUMMARY
from games.nomic.commands import MAX_IMPORT_LENGTH
from games.nomic.errors import BadInputError

if TYPE_CHECKING:
    from bot.discord.app import NomicBot


class Help(commands.Cog):
    """What a member can do in the channel they are in, the phase, and the rules in force."""

    def __init__(self, bot: NomicBot) -> None:
        self.bot = bot

    @word("help")
    async def help(self, ctx: Ctx) -> None:
        await perform(ctx, "!help")

    @word("phase")
    async def phase(self, ctx: Ctx) -> None:
        await perform(ctx, "!phase")

    @word("notify")
    @app_commands.describe(
        notice="outbid: a DM when your highest bid on a lot is beaten or lapses; reminders: DMs before deadlines",
        switch="on or off (left out: show your settings)",
    )
    async def notify(
        self,
        ctx: Ctx,
        notice: Literal["outbid", "reminders"] | None = None,
        switch: Literal["on", "off"] | None = None,
    ) -> None:
        await perform(ctx, line("!notify", notice, switch) if notice and switch else "!notify")

    @word_group("ruleset", fallback="show")
    @app_commands.describe(rule="one rule, e.g. 4.2 (left out: the contents)")
    async def ruleset(self, ctx: Ctx, rule: str | None = None) -> None:
        await perform(ctx, line("!ruleset", rule))

    @sub(ruleset, "history", "the ruleset's versions, or one rule's history, word by word")
    @app_commands.describe(rule="one rule's history, e.g. 4.2 (left out: every version)", page="older: page 2 on")
    async def ruleset_history(
        self, ctx: Ctx, rule: str | None = None, page: app_commands.Range[int, 1] | None = None
    ) -> None:
        await perform(ctx, line("!ruleset history", rule, page))

    @sub(ruleset, "diff", "what changed between two versions: the text word by word and the options")
    @app_commands.describe(old="the earlier version", new="the later version")
    async def ruleset_diff(self, ctx: Ctx, old: int, new: int) -> None:
        await perform(ctx, line("!ruleset diff", old, new))

    @sub(ruleset, "options", "every option the bot enforces, with its value and what it means")
    async def ruleset_options(self, ctx: Ctx) -> None:
        await perform(ctx, "!ruleset options")

    @sub(ruleset, "import", "moderators: put this server's own ruleset document (a Markdown file) in force")
    @app_commands.describe(document="the ruleset document: a Markdown file (docs/ruleset.md describes it)")
    async def ruleset_import(self, ctx: Ctx, document: discord.Attachment | None = None) -> None:
        """The document comes as an attachment (slash, or a prefix message with a file), or in a fenced
        block after ``!ruleset import``; the rules check who may import and what the document says."""
        attachment = document
        if ctx.interaction is None and "```" not in ctx.message.content and ctx.message.attachments:
            attachment = ctx.message.attachments[0]
        if attachment is None:
            await perform(ctx, "!ruleset import")
            return
        text = await read_attachment(attachment)
        if text is None:
            too_big = BadInputError(
                f"the document must be a text (Markdown) file of at most {MAX_IMPORT_LENGTH // 1000} kB"
            )
            await reply(ctx, error_text(too_big), ephemeral=True)
            return
        await ctx.bot.run_command(ctx, f"!ruleset import\n{text}")

    @word("web", description=WEB_SUMMARY)
    async def web(self, ctx: Ctx) -> None:
        await perform(ctx, "!web")


async def read_attachment(attachment: discord.Attachment) -> str | None:
    """An attachment's text (UTF-8), or None when it is too big to be a ruleset document or is no text."""
    if attachment.size > MAX_IMPORT_LENGTH:
        return None
    try:
        return (await attachment.read()).decode("utf-8-sig")
    except (UnicodeDecodeError, discord.HTTPException):
        return None


async def setup(bot: NomicBot) -> None:
    await bot.add_cog(Help(bot))
