"""Embeds for the answers that are boards and lists, split under Discord's limits.

The words are the router's (the same the simulator prints); an embed only frames them, adds
Discord timestamps (``<t:unix:R>`` shows "in 2 days" in each reader's own time zone) and
points at an attached card picture.
"""

from __future__ import annotations

import io
from collections.abc import Iterable
from datetime import datetime

import discord

from bot.discord.io import split_text
from bot.discord.render.cards import BoardLot, render_board, render_hand
from games.nomic.cards import Card
from games.nomic.common import highest_bid
from games.nomic.digest import Digest
from games.nomic.items import kind_plural
from games.nomic.state import Player, RoundState
from games.nomic.views import sealed_label
from scheduler.calendar import phase_window, placements_at

DESCRIPTION_LIMIT = 4096
TOTAL_LIMIT = 6000
"""All titles, descriptions, fields and footers of one message's embeds together."""
EMBEDS_PER_MESSAGE = 10
FIELD_LIMIT = 1024
MESSAGE_LIMIT = 2000

BOARD_FILE = "board.png"
BOARD_FOOTER = "Bid with /bid LOT AMOUNT: its answer comes at once, only to you when refused."
SEALED_BOARD_FOOTER = "Bids are sealed: /bid or a DM to me (!bid LOT AMOUNT); only you see the answer."
HAND_FILE = "hand.png"

GOLD = discord.Colour.gold()
BLUE = discord.Colour.blurple()
GREEN = discord.Colour.green()
GREY = discord.Colour.dark_grey()


def timestamp(at: datetime, style: str = "R") -> str:
    """A Discord timestamp: ``R`` relative ("in 3 hours"), ``F`` full date and time."""
    return f"<t:{int(at.timestamp())}:{style}>"


def text_embeds(title: str, text: str, colour: discord.Colour = BLUE) -> list[discord.Embed]:
    """The text as one embed or, when long, several in a row (each under the description limit)."""
    # leave room under the per-message total for the title of the first embed
    pieces = split_text(text, min(DESCRIPTION_LIMIT, TOTAL_LIMIT - 300))
    embeds = [discord.Embed(description=piece, colour=colour) for piece in pieces]
    embeds[0].title = title[:256]
    return embeds


def pack(embeds: Iterable[discord.Embed]) -> list[list[discord.Embed]]:
    """Group embeds into messages: at most ten a message, their text at most 6,000 characters."""
    messages: list[list[discord.Embed]] = []
    current: list[discord.Embed] = []
    size = 0
    for embed in embeds:
        length = len(embed)
        if current and (len(current) == EMBEDS_PER_MESSAGE or size + length > TOTAL_LIMIT):
            messages.append(current)
            current, size = [], 0
        current.append(embed)
        size += length
    if current:
        messages.append(current)
    return messages


def _name(state: RoundState, player: str) -> str:
    found = state.players.get(player)
    return found.name if found is not None else player


def board_lots(state: RoundState) -> list[BoardLot]:
    lots: list[BoardLot] = []
    for number in sorted(state.lots):
        lot = state.lots[number]
        if state.sealed_bids:
            lots.append(BoardLot(number, tuple(lot.cards), sealed_label(lot)))
            continue
        high = highest_bid(state, lot)
        label = "no bid" if high is None else f"{high.amount} - {_name(state, high.player)}"
        lots.append(BoardLot(number, tuple(lot.cards), label))
    return lots


def board(state: RoundState, text: str, now: datetime) -> tuple[discord.Embed, discord.File]:
    """The lot board: the router's words, the phase's end and a picture of the lots."""
    embed = discord.Embed(title="The lot board", description=text[:DESCRIPTION_LIMIT], colour=GOLD)
    _, _, ends = phase_window(state.ruleset.calendar, now)
    embed.add_field(name=f"The {state.phase.value} phase ends", value=f"{timestamp(ends, 'F')} ({timestamp(ends)})")
    picture = discord.File(io.BytesIO(render_board(board_lots(state))), filename=BOARD_FILE)
    embed.set_image(url=f"attachment://{BOARD_FILE}")
    embed.set_footer(text=SEALED_BOARD_FOOTER if state.sealed_bids else BOARD_FOOTER)
    return embed, picture


def inventory(text: str, cards: tuple[Card, ...]) -> tuple[discord.Embed, discord.File]:
    """A member's own inventory, cards included: only ever sent ephemerally or by DM."""
    embed = discord.Embed(title="Your inventory", description=text[:DESCRIPTION_LIMIT], colour=GREEN)
    picture = discord.File(io.BytesIO(render_hand(cards)), filename=HAND_FILE)
    embed.set_image(url=f"attachment://{HAND_FILE}")
    embed.set_footer(text="Only you can see this.")
    return embed, picture


def public_inventory(player: Player) -> discord.Embed:
    """Another player's holdings without their cards, which only their owner sees."""
    points = f"{player.points} point{'s' if player.points != 1 else ''}"
    embed = discord.Embed(title=f"{player.name}'s inventory", colour=GREEN)
    embed.add_field(name="Points", value=points)
    embed.add_field(name="Cards", value=f"{len(player.cards)} (only {player.name} sees which)")
    embed.add_field(name="Standard Proposal-Makers", value=str(player.spm))
    if player.items:
        listed = ", ".join(kind_plural(name, n) for name, n in sorted(player.items.items()))
        embed.add_field(name="Items", value=listed[:FIELD_LIMIT], inline=False)
    return embed


def holdings_without_cards(player: Player) -> str:
    points = f"{player.points} point{'s' if player.points != 1 else ''}"
    return f"{points}, {len(player.cards)} cards, {player.spm} Standard Proposal-Makers"


def phase(state: RoundState, text: str, now: datetime) -> discord.Embed:
    embed = discord.Embed(title=f"The {state.phase.value} phase", description=text, colour=BLUE)
    _, _, ends = phase_window(state.ruleset.calendar, now)
    embed.add_field(name="Ends", value=f"{timestamp(ends, 'F')} ({timestamp(ends)})", inline=False)
    if state.presenting_open:
        placements = placements_at(state.ruleset.calendar, now)
        embed.add_field(
            name="Placements", value=f"{timestamp(placements, 'F')} ({timestamp(placements)})", inline=False
        )
    return embed


def proposals(state: RoundState, text: str) -> list[discord.Embed]:
    embeds = text_embeds("Proposals", text, BLUE)
    deadlines = [
        f"Proposal {p.number}: {timestamp(p.voting_ends)}"
        for p in sorted(state.proposals.values(), key=lambda p: p.number)
        if p.status.open and p.voting_ends is not None
    ]
    if deadlines:
        embeds[-1].add_field(name="Voting ends", value="\n".join(deadlines)[:FIELD_LIMIT], inline=False)
    return embeds


def rulings(state: RoundState, text: str) -> list[discord.Embed]:
    embeds = text_embeds("Requests and rulings", text, GREY)
    votes = [
        f"Request {r.number}: {timestamp(r.confidence.ends_at)}"
        for r in sorted(state.requests.values(), key=lambda r: r.number)
        if r.confidence is not None and r.confidence.ends_at > state.clock
    ]
    if votes:
        embeds[-1].add_field(name="Votes of confidence end", value="\n".join(votes)[:FIELD_LIMIT], inline=False)
    return embeds


def review(digest: Digest) -> discord.Embed:
    """The week's review as one embed (``games.nomic.digest.build`` keeps it within Discord's limits)."""
    embed = discord.Embed(title=digest.title, description=digest.description, colour=GOLD)
    for name, value in digest.fields:
        embed.add_field(name=name, value=value, inline=False)
    if digest.footer:
        embed.set_footer(text=digest.footer)
    return embed
