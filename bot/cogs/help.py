"""Help and the facts of the round: what you can do here, the phase and time left, the ruleset."""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal

from discord import app_commands
from discord.ext import commands

from bot.cogs.base import Ctx, line, perform, word
from bot.web.desk import WEB_SUMMARY

if TYPE_CHECKING:
    from bot.app import NomicBot


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

    @word("ruleset")
    @app_commands.describe(
        show="the rules in force (default), their versions, or what changed between two versions",
        old="diff: the earlier version",
        new="diff: the later version",
        page="history: older versions, page 2 and on",
    )
    async def ruleset(
        self,
        ctx: Ctx,
        show: Literal["rules", "history", "diff"] = "rules",
        old: int | None = None,
        new: int | None = None,
        page: app_commands.Range[int, 1] | None = None,
    ) -> None:
        if show == "history":
            await perform(ctx, line("!ruleset history", page))
        elif show == "diff":
            await perform(ctx, line("!ruleset diff", old, new))
        else:
            await perform(ctx, "!ruleset")

    @word("web", description=WEB_SUMMARY)
    async def web(self, ctx: Ctx) -> None:
        await perform(ctx, "!web")


async def setup(bot: NomicBot) -> None:
    await bot.add_cog(Help(bot))
