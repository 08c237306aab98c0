"""What the bot needs in the channel of each role, and what stops working without it.

``/setup`` shows it before anything fails, and the failure notices (``bot/discord/notices.py``) use the
same words when a post could not be made. Permissions are read from Discord's cache with
``channel.permissions_for(guild.me)``: no request is made.
"""

from __future__ import annotations

from dataclasses import dataclass

import discord

from bot.discord.io import ROLES
from games.nomic.context import ChannelRole

AUC = ChannelRole.AUCTIONS
GA = ChannelRole.GAME_ACTIONS
PRO = ChannelRole.PROPOSALS
JE = ChannelRole.JUDGE_ELECTIONS


@dataclass(frozen=True)
class Need:
    """One permission of the bot in a role's channel."""

    flag: str
    """The attribute of ``discord.Permissions``."""
    name: str
    """As Discord's channel settings show it."""
    breaks: dict[ChannelRole, str]
    """What stops working without it, per role; a role left out does not need it."""
    implied_by: str | None = None
    """Discord denies this one whenever that one is denied: reporting both would say the same twice."""
    optional: bool = False
    """Reported, but nothing the bot does today depends on it."""


def _everywhere(text: str) -> dict[ChannelRole, str]:
    return dict.fromkeys(ROLES, text)


NEEDS: tuple[Need, ...] = (
    Need(
        "view_channel",
        "View Channel",
        _everywhere("I cannot see the channel: nothing typed there reaches me and nothing I should post there appears"),
    ),
    Need(
        "send_messages",
        "Send Messages",
        {
            AUC: "bids get no answer, and the auction's results and the lot board are not posted",
            GA: "commands get no answer, and the round's announcements (phases, placements, trades, rulings) are lost",
            PRO: "refused proposals get no answer and the outcomes of votes are not announced",
            JE: "the result of the judge election is not announced",
        },
        implied_by="view_channel",
    ),
    Need(
        "read_message_history",
        "Read Message History",
        _everywhere("answers to typed commands (they quote the command) cannot be posted"),
        implied_by="view_channel",
    ),
    Need(
        "embed_links",
        "Embed Links",
        {
            AUC: "the lot board and answers such as `!lots` and `!phase` show up empty",
            GA: "answers such as `!phase`, `!ruleset` and `!help` show up empty, and so do the thread games' boards",
            PRO: "answers such as `!proposals` show up empty",
            JE: "answers such as `!phase` show up empty",
        },
        implied_by="send_messages",
    ),
    Need(
        "attach_files",
        "Attach Files",
        {
            AUC: "the lot board (it carries a picture of the lots) and `!lots` cannot be posted",
            GA: "`!lots` and the thread games' boards (they carry a picture) cannot be posted",
        },
        implied_by="send_messages",
    ),
    Need(
        "create_public_threads",
        "Create Public Threads",
        {
            GA: "`!play` cannot open a table's thread here, so thread games cannot start from this channel",
            PRO: "new proposals get no thread of their own for discussion (the proposals count all the same)",
        },
        implied_by="view_channel",
    ),
    Need(
        "send_messages_in_threads",
        "Send Messages in Threads",
        {GA: "the thread games cannot post their turns, boards and reminders in their threads"},
        implied_by="view_channel",
    ),
    Need(
        "manage_messages",
        "Manage Messages",
        {
            **_everywhere("nothing breaks today (I never delete or pin anyone else's messages)"),
            AUC: "the lot board is not pinned (members find it by scrolling up; a board channel of `/setup` avoids"
            " that)",
        },
        implied_by="view_channel",
        optional=True,
    ),
)

NEEDS_BY_FLAG = {need.flag: need for need in NEEDS}


@dataclass(frozen=True)
class Lack:
    """A permission the bot lacks in a role's channel, and what that breaks there."""

    need: Need
    role: ChannelRole

    @property
    def text(self) -> str:
        return f"**{self.need.name}**: {self.need.breaks[self.role]}"


def lacking(channel: discord.abc.GuildChannel | discord.Thread, me: discord.Member, role: ChannelRole) -> list[Lack]:
    """What the bot lacks in ``channel`` for ``role``, without the permissions Discord denies as a consequence."""
    perms = channel.permissions_for(me)
    missing = {need.flag for need in NEEDS if role in need.breaks and not getattr(perms, need.flag)}
    return [
        Lack(need, role)
        for need in NEEDS
        if need.flag in missing and not (need.implied_by is not None and _denied(need.implied_by, missing))
    ]


def _denied(flag: str, missing: set[str]) -> bool:
    """Whether ``flag`` is missing, or is implied by a permission that is."""
    while True:
        if flag in missing:
            return True
        implied = NEEDS_BY_FLAG[flag].implied_by
        if implied is None:
            return False
        flag = implied


def cannot_post(channel: discord.abc.GuildChannel | discord.Thread, me: discord.Member) -> list[str]:
    """The permissions a plain message needs in ``channel`` that the bot lacks there (names as Discord shows them)."""
    perms = channel.permissions_for(me)
    if not perms.view_channel:
        return ["View Channel"]
    if isinstance(channel, discord.Thread):
        return [] if perms.send_messages_in_threads else ["Send Messages in Threads"]
    return [] if perms.send_messages else ["Send Messages"]


def lacking_flags(
    channel: discord.abc.GuildChannel | discord.Thread, me: discord.Member, flags: tuple[str, ...]
) -> list[str]:
    """The permissions among ``flags`` (of ``discord.Permissions``) the bot lacks in ``channel``, named as
    Discord shows them, without those Discord denies as a consequence (View Channel alone when the bot
    cannot see the channel at all)."""
    perms = channel.permissions_for(me)
    if not perms.view_channel:
        return ["View Channel"]
    missing = {flag for flag in flags if not getattr(perms, flag)}
    return [NEEDS_BY_FLAG[flag].name for flag in flags if flag in missing and not _implied(flag, missing)]


def _implied(flag: str, missing: set[str]) -> bool:
    """Whether Discord denies ``flag`` already because a permission it depends on is missing."""
    implied = NEEDS_BY_FLAG[flag].implied_by
    return implied is not None and _denied(implied, missing)
