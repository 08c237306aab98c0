"""The round's economy: joining, holdings, the auction, lots, hands and trades."""

from __future__ import annotations

from collections import Counter
from typing import TYPE_CHECKING

import discord
from discord import app_commands
from discord.ext import commands

from bot.discord.cogs.base import Ctx, line, perform, word
from games.nomic.common import highest_bid
from games.nomic.state import RoundState, TradeStatus
from games.nomic.views import sealed_label

if TYPE_CHECKING:
    from bot.discord.app import NomicBot

MAX_CHOICES = 25


async def state_of(interaction: discord.Interaction[discord.Client]) -> RoundState | None:
    read = getattr(interaction.client, "round_state", None)
    if interaction.guild_id is None or read is None:
        return None
    state: RoundState | None = await read(interaction.guild_id)
    return state


def _name(state: RoundState, member: str) -> str:
    player = state.players.get(member)
    return player.name if player is not None else member


def card_choices(owned: list[str], current: str, extra: tuple[str, ...] = ()) -> list[app_commands.Choice[str]]:
    """Completions of a list of cards: what is typed so far, plus one more card the member still has."""
    typed = current.replace(",", " ").split()
    partial = "" if current.endswith((" ", ",")) or not typed else typed.pop()
    left = Counter(owned)
    left.subtract(code.upper() for code in typed)
    done = " ".join(typed)
    out: list[app_commands.Choice[str]] = []
    for code in [*sorted(c for c, n in left.items() if n > 0), *extra]:
        if code.upper().startswith(partial.upper()):
            value = f"{done} {code}".strip()
            out.append(app_commands.Choice(name=value[:100], value=value[:100]))
    return out[:MAX_CHOICES]


class Economy(commands.Cog):
    """Players, points, cards, lots, bids, hands and trades."""

    def __init__(self, bot: NomicBot) -> None:
        self.bot = bot

    @word("join")
    async def join(self, ctx: Ctx) -> None:
        await perform(ctx, "!join")

    @word("leave")
    async def leave(self, ctx: Ctx) -> None:
        await perform(ctx, "!leave")

    @word("inventory")
    @app_commands.describe(member="whose holdings (yours when left out; others' cards stay hidden)")
    async def inventory(self, ctx: Ctx, member: discord.Member | None = None) -> None:
        await perform(ctx, line("!inventory", member))

    @word("bid")
    @app_commands.describe(lot="the lot's number", amount="points you bid")
    async def bid(self, ctx: Ctx, lot: str, amount: int) -> None:
        await perform(ctx, line("!bid", lot, amount))

    @bid.autocomplete("lot")
    async def lot_choices(
        self, interaction: discord.Interaction[discord.Client], current: str
    ) -> list[app_commands.Choice[str]]:
        state = await state_of(interaction)
        if state is None:
            return []
        out: list[app_commands.Choice[str]] = []
        for number in sorted(state.lots):
            if not str(number).startswith(current.strip()):
                continue
            lot = state.lots[number]
            if state.sealed_bids:
                bid = sealed_label(lot)
            else:
                high = highest_bid(state, lot)
                bid = f"highest {high.amount} by {_name(state, high.player)}" if high else "no bid yet"
            cards = " ".join(c.code for c in lot.cards)
            out.append(app_commands.Choice(name=f"Lot {number}: {cards} ({bid})"[:100], value=str(number)))
        return out[:MAX_CHOICES]

    @word("lots")
    async def lots(self, ctx: Ctx) -> None:
        await perform(ctx, "!lots")

    @word("generate")
    async def generate(self, ctx: Ctx) -> None:
        await perform(ctx, "!generate")

    @word("present")
    @app_commands.describe(cards="five of your cards, e.g. AS KS QS JS 10S")
    async def present(self, ctx: Ctx, cards: str) -> None:
        await perform(ctx, line("!present", cards))

    @present.autocomplete("cards")
    async def own_cards(
        self, interaction: discord.Interaction[discord.Client], current: str
    ) -> list[app_commands.Choice[str]]:
        state = await state_of(interaction)
        player = state.players.get(str(interaction.user.id)) if state is not None else None
        if player is None:
            return []
        return card_choices([c.code for c in player.cards], current)

    @word("placements")
    @app_commands.describe(page="page 2 and on: the places after the first 20")
    async def placements(self, ctx: Ctx, page: app_commands.Range[int, 1] | None = None) -> None:
        await perform(ctx, line("!placements", page))

    @word("offer")
    @app_commands.describe(
        member="the player you offer the trade to",
        give="what you give: N points, card codes, spm, or nothing",
        get="what you get: N points, card codes, spm, or nothing",
    )
    async def offer(self, ctx: Ctx, member: discord.Member, give: str, get: str) -> None:
        await perform(ctx, f"!offer {line(member)} give {line(give)} for {line(get)}")

    @offer.autocomplete("give")
    async def own_items(
        self, interaction: discord.Interaction[discord.Client], current: str
    ) -> list[app_commands.Choice[str]]:
        state = await state_of(interaction)
        player = state.players.get(str(interaction.user.id)) if state is not None else None
        if player is None:
            return []
        extra = tuple(x for x in (f"{player.points} points", "spm" if player.spm else "", "nothing") if x)
        return card_choices([c.code for c in player.cards], current, extra)

    async def _trades(
        self, interaction: discord.Interaction[discord.Client], current: str, *, mine: bool
    ) -> list[app_commands.Choice[int]]:
        state = await state_of(interaction)
        if state is None:
            return []
        me = str(interaction.user.id)
        out: list[app_commands.Choice[int]] = []
        for number in sorted(state.trades):
            trade = state.trades[number]
            if trade.status is not TradeStatus.OPEN or (trade.offerer if mine else trade.target) != me:
                continue
            if current.strip().lstrip("#") and not str(number).startswith(current.strip().lstrip("#")):
                continue
            label = (
                f"Trade {number}: {_name(state, trade.offerer)} gives {trade.give.describe()} "
                f"to {_name(state, trade.target)} for {trade.get.describe()}"
            )
            out.append(app_commands.Choice(name=label[:100], value=number))
        return out[:MAX_CHOICES]

    async def offered_to_me(
        self, interaction: discord.Interaction[discord.Client], current: str
    ) -> list[app_commands.Choice[int]]:
        return await self._trades(interaction, current, mine=False)

    async def offered_by_me(
        self, interaction: discord.Interaction[discord.Client], current: str
    ) -> list[app_commands.Choice[int]]:
        return await self._trades(interaction, current, mine=True)

    @word("accept")
    @app_commands.describe(number="the trade's number")
    async def accept(self, ctx: Ctx, number: int) -> None:
        await perform(ctx, line("!accept", number))

    @word("decline")
    @app_commands.describe(number="the trade's number")
    async def decline(self, ctx: Ctx, number: int) -> None:
        await perform(ctx, line("!decline", number))

    @word("cancel")
    @app_commands.describe(number="the number of your trade offer")
    async def cancel(self, ctx: Ctx, number: int) -> None:
        await perform(ctx, line("!cancel", number))

    accept.autocomplete("number")(offered_to_me)
    decline.autocomplete("number")(offered_to_me)
    cancel.autocomplete("number")(offered_by_me)

    @word("trades")
    async def trades(self, ctx: Ctx) -> None:
        await perform(ctx, "!trades")

    @word("use")
    @app_commands.describe(item="the item's name, e.g. Golden Ticket", count="how many (1 when left out)")
    async def use(self, ctx: Ctx, item: str, count: int | None = None) -> None:
        await perform(ctx, line("!use", count, item))


async def setup(bot: NomicBot) -> None:
    await bot.add_cog(Economy(bot))
