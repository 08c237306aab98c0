"""Governance: proposals, the judge's requests and rulings, votes of confidence, the judge's office.

Proposals and candidacies are messages, and votes are reactions: those arrive as gateway events
(``bot/discord/cogs/events.py``). The commands here are the judge's and the lists.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal

import discord
from discord import app_commands
from discord.ext import commands

from bot.discord.cogs.base import Ctx, line, perform, word
from bot.discord.cogs.economy import MAX_CHOICES, state_of
from games.nomic.state import JudgeRequest, RequestStatus

if TYPE_CHECKING:
    from collections.abc import Callable

    from bot.discord.app import NomicBot


async def request_choices(
    interaction: discord.Interaction[discord.Client], current: str, wanted: Callable[[JudgeRequest], bool]
) -> list[app_commands.Choice[int]]:
    state = await state_of(interaction)
    if state is None:
        return []
    typed = current.strip().lstrip("#")
    out: list[app_commands.Choice[int]] = []
    for number in sorted(state.requests, reverse=True):
        request = state.requests[number]
        if not wanted(request) or (typed and not str(number).startswith(typed)):
            continue
        name = f"Request {number} by {request.by_name} ({request.status.value}): {request.text}"
        out.append(app_commands.Choice(name=name[:100], value=number))
    return out[:MAX_CHOICES]


class Governance(commands.Cog):
    """Proposals, the judge, rulings and votes of confidence."""

    def __init__(self, bot: NomicBot) -> None:
        self.bot = bot

    @word("proposals")
    @app_commands.describe(page="older outcomes: page 2 and on")
    async def proposals(self, ctx: Ctx, page: app_commands.Range[int, 1] | None = None) -> None:
        await perform(ctx, line("!proposals", page))

    @word("request")
    @app_commands.describe(text="your question, or the statement whose truth you ask about")
    async def request(self, ctx: Ctx, text: str) -> None:
        await perform(ctx, line("!request", text))

    @word("rule")
    @app_commands.describe(number="the request's number", text="your ruling")
    async def rule(self, ctx: Ctx, number: int, text: str) -> None:
        await perform(ctx, line("!rule", number, text))

    @rule.autocomplete("number")
    async def rule_choices(
        self, interaction: discord.Interaction[discord.Client], current: str
    ) -> list[app_commands.Choice[int]]:
        me = str(interaction.user.id)  # the judge's own requests wait for another judge
        return await request_choices(
            interaction, current, lambda r: r.status is not RequestStatus.OVERTURNED and r.by != me
        )

    @word("overturn")
    @app_commands.describe(number="the number of the request whose ruling you challenge")
    async def overturn(self, ctx: Ctx, number: int) -> None:
        await perform(ctx, line("!overturn", number))

    @overturn.autocomplete("number")
    async def overturn_choices(
        self, interaction: discord.Interaction[discord.Client], current: str
    ) -> list[app_commands.Choice[int]]:
        return await request_choices(
            interaction, current, lambda r: r.status is RequestStatus.ANSWERED and r.confidence is None
        )

    @word("confidence")
    @app_commands.describe(number="the request whose ruling is under a vote", vote="overturn or affirm the ruling")
    async def confidence(self, ctx: Ctx, number: int, vote: Literal["overturn", "affirm"]) -> None:
        await perform(ctx, line("!confidence", number, vote))

    @confidence.autocomplete("number")
    async def confidence_choices(
        self, interaction: discord.Interaction[discord.Client], current: str
    ) -> list[app_commands.Choice[int]]:
        return await request_choices(interaction, current, lambda r: r.confidence is not None)

    @word("remove-judge")
    async def remove_judge(self, ctx: Ctx) -> None:
        await perform(ctx, "!remove-judge")

    @word("resign")
    async def resign(self, ctx: Ctx) -> None:
        await perform(ctx, "!resign")

    @word("rulings")
    @app_commands.describe(page="older settled requests: page 2 and on")
    async def rulings(self, ctx: Ctx, page: app_commands.Range[int, 1] | None = None) -> None:
        await perform(ctx, line("!rulings", page))


async def setup(bot: NomicBot) -> None:
    await bot.add_cog(Governance(bot))
