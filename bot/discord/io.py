"""Small translations between Discord and the round: channels and their roles, mentions, long texts.

Nothing here decides anything about the game; it maps Discord's ids and limits onto the words
the router and the rules use, and back.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

import discord

from data.store import GuildSettings
from games.nomic.commands import PREFIX, MemberResolver
from games.nomic.context import ChannelRole
from games.nomic.errors import UnknownMemberError
from games.nomic.members import Known, match_member

MESSAGE_LIMIT = 2000
DMS_CLOSED = 50007
"""Discord's "Cannot send messages to this user": the member does not take DMs from the bot."""
TOO_OLD_TO_EDIT = 30046
"""Discord's "Maximum number of edits to messages older than 1 hour reached"."""

ROLES: tuple[ChannelRole, ...] = (
    ChannelRole.AUCTIONS,
    ChannelRole.GAME_ACTIONS,
    ChannelRole.PROPOSALS,
    ChannelRole.JUDGE_ELECTIONS,
)
"""The channel roles of the round a guild maps onto its channels (by choice, or by their names)."""
OPTIONAL_ROLES: tuple[ChannelRole, ...] = (ChannelRole.MOD_LOG, ChannelRole.BOARD)
"""Channel roles used only when a moderator binds a channel to them (never found by name)."""

_MENTION = re.compile(r"^<@!?(\d{5,25})>[,.;:!?]*$")
_ROLE_IN_TEXT = re.compile(r"(?<![\w<#])#(" + "|".join(re.escape(r.value) for r in ROLES) + r")(?![\w-])")


@dataclass
class GuildConfig:
    """Where each channel role lives in one guild, and its moderator role."""

    channels: dict[ChannelRole, int] = field(default_factory=dict)
    moderator_role: int | None = None

    @classmethod
    def from_settings(cls, stored: GuildSettings) -> GuildConfig:
        channels: dict[ChannelRole, int] = {}
        for role, channel in stored.channels.items():
            try:
                channels[ChannelRole(role)] = int(channel)
            except ValueError:
                continue
        moderator = int(stored.moderator_role) if stored.moderator_role and stored.moderator_role.isdigit() else None
        return cls(channels=channels, moderator_role=moderator)

    def role_of(self, channel: object) -> ChannelRole:
        """The role of the channel a command was used in: bound explicitly, or by its name."""
        if isinstance(channel, discord.Thread):
            return ChannelRole.OTHER
        channel_id = getattr(channel, "id", None)
        for role, bound in self.channels.items():
            if bound == channel_id:
                return role
        try:
            role = ChannelRole(getattr(channel, "name", "") or "")
        except ValueError:
            return ChannelRole.OTHER
        if role is ChannelRole.OTHER or role in OPTIONAL_ROLES or role in self.channels:
            return ChannelRole.OTHER
        return role

    def channel_for(self, guild: discord.Guild, role: ChannelRole) -> discord.TextChannel | None:
        """The channel that plays ``role`` in ``guild``, if there is one the bot can see."""
        bound = self.channels.get(role)
        if bound is not None:
            channel = guild.get_channel(bound)
            return channel if isinstance(channel, discord.TextChannel) else None
        if role in OPTIONAL_ROLES:
            return None
        return discord.utils.get(guild.text_channels, name=role.value)

    def lost_channel(self, guild: discord.Guild, role: ChannelRole) -> int | None:
        """The id of the channel chosen for ``role`` when it no longer exists (or the bot cannot see it)."""
        bound = self.channels.get(role)
        if bound is None or isinstance(guild.get_channel(bound), discord.TextChannel):
            return None
        return bound

    def localize(self, text: str, guild: discord.Guild | None) -> str:
        """Turn the rules' ``#auctions`` into a link to the channel that plays that role here."""
        if guild is None:
            return text

        def link(match: re.Match[str]) -> str:
            channel = self.channel_for(guild, ChannelRole(match.group(1)))
            return channel.mention if channel is not None else match.group(0)

        return _ROLE_IN_TEXT.sub(link, text)


def resolver(guild: discord.Guild) -> MemberResolver:
    """Mentions as Discord writes them (``<@123>``) by id; ``@name`` typed by hand only when certain.

    A typed name must be one member's username that nobody else here shows as a nickname or
    display name (``games.nomic.members.match_member``); otherwise the refusal lists who it
    could be. Never ``guild.get_member_named``, which takes the first nickname that fits.
    """

    def resolve(token: str) -> str:
        token = token.strip()
        match = _MENTION.match(token)
        if match is not None:
            member = guild.get_member(int(match.group(1)))
            if member is None:
                raise UnknownMemberError("the member you mentioned is not on this server", token)
            return str(member.id)
        if not token.startswith("@") or len(token) < 2:
            raise UnknownMemberError("that is not a mention of a member", token)
        return match_member(token, known_members(guild))

    return resolve


def known_members(guild: discord.Guild) -> list[Known]:
    """The guild's members as the name matcher sees them (bots included: they can be mentioned too)."""
    return [
        Known(id=str(m.id), username=m.name, nick=m.nick, global_name=m.global_name) for m in guild.members
    ]


def command_text(content: str, prefix: str) -> str:
    """A prefix message as the command grammar reads it (which always uses ``!``)."""
    body = content.lstrip()
    if body.startswith(prefix):
        body = body[len(prefix) :]
    return PREFIX + body


def split_text(text: str, limit: int) -> list[str]:
    """Pieces of at most ``limit`` characters, cut at line breaks where possible (an empty text: one empty piece)."""
    out: list[str] = []
    current = ""
    for raw in text.split("\n"):
        line = raw
        while len(line) > limit:
            if current:
                out.append(current)
                current = ""
            out.append(line[:limit])
            line = line[limit:]
        if current and len(current) + 1 + len(line) > limit:
            out.append(current)
            current = line
        else:
            current = f"{current}\n{line}" if current else line
    if current or not out:
        out.append(current)
    return out


def chunks(text: str, limit: int = MESSAGE_LIMIT) -> list[str]:
    """Messages of at most Discord's limit, split on line breaks (never an empty message)."""
    return [part for part in split_text(text, limit) if part] or [text[:limit] or "…"]


def dms_closed(error: discord.HTTPException) -> bool:
    return error.code == DMS_CLOSED


def reply_reference(channel: discord.abc.Messageable, message_id: str | None) -> discord.MessageReference | None:
    """A reference to answer a message by id, even one sent before a restart (no cache needed)."""
    channel_id = getattr(channel, "id", None)
    if message_id is None or not message_id.isdigit() or channel_id is None:
        return None
    return discord.MessageReference(message_id=int(message_id), channel_id=channel_id, fail_if_not_exists=False)


@dataclass
class Origin:
    """Where a command came from (a prefix message or an interaction), and how to answer it there."""

    guild: discord.Guild
    channel: Any
    user: discord.User | discord.Member
    message: discord.Message | None = None
    """A prefix command's message (answers reply to it)."""
    interaction: discord.Interaction[Any] | None = None

    async def say(self, *, ephemeral: bool = False, **kwargs: Any) -> None:
        """Answer where the command was used: the interaction's answer (or a follow-up), or a reply."""
        interaction = self.interaction
        if interaction is not None:
            if not interaction.response.is_done():
                await interaction.response.send_message(ephemeral=ephemeral, **kwargs)
            else:
                await interaction.followup.send(ephemeral=ephemeral, **kwargs)
            return
        reference = self.message.to_reference(fail_if_not_exists=False) if self.message is not None else None
        await self.channel.send(reference=reference, mention_author=False, **kwargs)
