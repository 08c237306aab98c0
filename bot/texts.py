"""Answers that need the calendar or the command list: the phase and the help."""

from __future__ import annotations

from datetime import datetime

from games.ictc.words import HELP_SUMMARY, HELP_SUMMARY_MODERATORS
from games.nomic.commands import COMMAND_WORDS
from games.nomic.context import ChannelRole
from games.nomic.state import RoundState
from scheduler.calendar import format_remaining, phase_window, placements_at


def stamp(at: datetime) -> str:
    return at.strftime("%a %Y-%m-%d %H:%M UTC")


def phase_text(state: RoundState, now: datetime) -> str:
    cal = state.ruleset.calendar
    _, _, ends = phase_window(cal, now)
    lines = [
        f"It is the {state.phase.value} phase. It ends {stamp(ends)} (in {format_remaining(ends - now)}).",
    ]
    if state.presenting_open:
        placements = placements_at(cal, now)
        lines.append(
            f"Hands can be presented until placements at {stamp(placements)} "
            f"(in {format_remaining(placements - now)})."
        )
    lines.append(f"Ruleset version {state.ruleset_version}.")
    return "\n".join(lines)


def help_text(
    channel: ChannelRole, *, is_moderator: bool, tables: bool = False, cards: bool = False, web: bool = False
) -> str:
    here = [w for w in COMMAND_WORDS if (not w.channels or channel in w.channels) and not w.moderators_only]
    elsewhere = [w for w in COMMAND_WORDS if w.channels and channel not in w.channels]
    lines = ["Commands you can use here:"]
    lines.extend(f"`{w.usage}` - {w.summary}" for w in here)
    if elsewhere:
        lines.append("Elsewhere:")
        lines.extend(
            f"`{w.usage}` in {' or '.join(c.mention for c in w.channels)} - {w.summary}" for w in elsewhere
        )
    if channel is ChannelRole.PROPOSALS:
        lines.append("Any other message here is a proposal.")
    if web:
        lines.append("`!web` - the link to this round's public record on the web (ruleset, week, players, history)")
    if is_moderator:
        admin = next(w for w in COMMAND_WORDS if w.moderators_only)
        lines.append(f"Moderators: `{admin.usage}`.")
        if web:
            lines.append("Moderators: `!admin web on|hidden|off` lists the web record, hides it, or turns it off.")
    lines.append(
        "Cards are written rank then suit (A 2-10 J Q K, S H C D): AS, 10H, qd. "
        "ITEMS are `N points`, card codes, `spm`, card copies (`copy:12`), items the rules make (`2 Gold Stars`),"
        " or `nothing`."
    )
    if tables:
        lines.append(
            "Thread games: `!play GAME [ai:N] [turn:24h]` opens a table in a new thread (`!help` there lists its"
            " commands); `!games` lists the open tables; `!rules GAME` explains a game."
        )
    if cards:
        lines.append("The card library, anywhere (`!card help` explains each command):")
        lines.extend(f"`{usage}` - {summary}" for usage, summary in HELP_SUMMARY)
        if is_moderator:
            usage, summary = HELP_SUMMARY_MODERATORS
            lines.append(f"`{usage}` - {summary}")
    return "\n".join(lines)


# -- sealed bids on Discord (``bot.discord.sealed``) --

SEALED_REMOVED = "I removed your message so that its amount stays secret."
SEALED_NOT_REMOVED = "I may not remove messages there: delete yours yourself if you want its amount to stay secret."
SEALED_NO_ROUND = (
    "You play in no server's round that I run, so I cannot take a bid from you: `!join` in a server's"
    " #game-actions first."
)


def sealed_which_server(playing: list[str], named: str) -> str:
    """A DM bid of a member who plays in several servers and named none of them (or one they do not play in)."""
    listed = ", ".join(f"**{name}**" for name in playing)
    example = f"`!bid 2 30 {playing[0]}`" if playing else "`!bid 2 30 SERVER`"
    if named:
        return f"You play in no server called **{named}** that I know of; you play in {listed}. Write, e.g., {example}."
    return f"You play in several servers' rounds ({listed}): name one after the amount, e.g. {example}."
