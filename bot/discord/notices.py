"""Telling the moderators that something the bot had to post was lost, once per channel and cause.

Without this a lost announcement is a line in a log nobody reads, and the round looks broken for
no visible reason. A notice says what was lost, where, why, and how to fix it. It goes to
#game-actions, else to the first channel the bot can post in, else to the server owner by DM.
A notice is never itself the subject of a notice: when it cannot be delivered anywhere it is
logged, and that is all. Each (channel, cause) is told once per run of the process (and once more
after a moderator changes the setup), so a channel that stays broken does not fill another with
the same warning. A thread that cannot be opened in a channel is told apart from the messages that
cannot be posted there: the two are fixed by different permissions.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from enum import StrEnum

import discord

from bot.discord.io import GuildConfig
from bot.discord.permissions import cannot_post, lacking_flags
from games.nomic.context import ChannelRole

log = logging.getLogger(__name__)

SETUP_HINT = "`/setup show` (or `!setup show`) then checks every channel of the round"


class Cause(StrEnum):
    NO_CHANNEL = "no channel"
    """No channel plays the role: none is chosen and none has the role's name."""
    MISSING_PERMISSIONS = "missing permissions"
    """Discord answered 403, or the bot's permissions there say it would."""
    UNKNOWN_CHANNEL = "unknown channel"
    """Discord answered 404: the channel (or thread) was deleted or is out of the bot's sight."""


@dataclass(frozen=True)
class Failure:
    """What could not be posted, where and why, in the words of the notice."""

    key: str
    """The channel's id; the role's name when there is no channel."""
    cause: Cause
    lost: str
    """What was not posted, e.g. "an announcement of the round"."""
    place: str
    """Where it should have gone, as the moderators see it (a channel link, or ``#auctions``)."""
    why: str
    fix: str
    channel_id: int | None = None
    """The failing channel: never where its own notice goes."""
    verb: str = "post"
    """What the bot could not do with ``lost`` ("post" a message, "open" a thread)."""
    until: str = "what I post there is lost"
    """What goes wrong until the moderators fix it."""


def no_channel(role: ChannelRole, lost: str) -> Failure:
    return Failure(
        key=f"role:{role.value}",
        cause=Cause.NO_CHANNEL,
        lost=lost,
        place=role.mention,
        why=f"no channel plays {role.mention} here (none is chosen for it and none is named `{role.value}`)",
        fix=f"create a text channel named `{role.value}`, or choose one with `/setup` (`!setup {role.value} #channel`)",
    )


def gone(role: ChannelRole, channel_id: int, lost: str) -> Failure:
    return Failure(
        key=str(channel_id),
        cause=Cause.UNKNOWN_CHANNEL,
        lost=lost,
        place=role.mention,
        why=f"the channel chosen for {role.mention} no longer exists, or I can no longer see it",
        fix=f"run `/setup` (or `!setup`) to choose the {role.value} channel again",
        channel_id=channel_id,
    )


def forbidden(
    channel: discord.abc.GuildChannel | discord.Thread,
    missing: list[str],
    lost: str,
    *,
    verb: str = "post",
    until: str | None = None,
) -> Failure:
    lacks = ", ".join(missing) if missing else "a permission Discord did not name"
    where = "thread" if isinstance(channel, discord.Thread) else "channel"
    return Failure(
        key=str(channel.id),
        cause=Cause.MISSING_PERMISSIONS,
        lost=lost,
        place=channel.mention,
        why=f"I lack {lacks} there",
        fix=(
            f"give my role {lacks} in that {where}'s permissions, or run `/setup` (or `!setup`) to choose another "
            "channel"
        ),
        channel_id=channel.id,
        verb=verb,
        until=until or Failure.until,
    )


def from_error(
    error: discord.HTTPException,
    channel: discord.abc.GuildChannel | discord.Thread,
    me: discord.Member | None,
    lost: str,
    *,
    needs: tuple[str, ...] = (),
    verb: str = "post",
    until: str | None = None,
) -> Failure | None:
    """The failure a refused post stands for; None for errors that pass (rate limits, Discord's own trouble).

    ``needs``: the permissions (``discord.Permissions`` flags) what was lost needs besides a plain message's."""
    if isinstance(error, discord.Forbidden):
        missing = (cannot_post(channel, me) or lacking_flags(channel, me, needs)) if me is not None else []
        return forbidden(channel, missing, lost, verb=verb, until=until)
    if isinstance(error, discord.NotFound):
        return Failure(
            key=str(channel.id),
            cause=Cause.UNKNOWN_CHANNEL,
            lost=lost,
            place=f"#{getattr(channel, 'name', channel.id)}",
            why="Discord says that channel no longer exists",
            fix="run `/setup` (or `!setup`) to choose the round's channels again",
            channel_id=channel.id,
            verb=verb,
            until=until or Failure.until,
        )
    return None


def notice_text(failure: Failure, moderators: str) -> str:
    return (
        f"⚠️ {moderators}: I could not {failure.verb} {failure.lost} in {failure.place}: {failure.why}. Until this is "
        f"fixed, {failure.until}. To fix it, {failure.fix}; {SETUP_HINT}. "
        "(I say this once for this channel and cause, until I restart.)"
    )


class Notices:
    """The notices already given, and where a new one goes."""

    def __init__(self, client: discord.Client) -> None:
        self._client = client
        self._told: set[tuple[int, str, Cause, str]] = set()

    def forget(self, guild_id: int) -> None:
        """A moderator changed the setup: what still fails afterwards is worth telling again."""
        self._told = {told for told in self._told if told[0] != guild_id}

    async def report(self, guild: discord.Guild, config: GuildConfig, failure: Failure) -> bool:
        """Tell the moderators once; returns whether this call gave a notice (or tried to)."""
        key = (guild.id, failure.key, failure.cause, failure.verb)
        if key in self._told:
            return False
        self._told.add(key)  # before any await: concurrent failures of the same kind give one notice
        log.warning(
            "guild %s: could not %s %s in %s: %s", guild.id, failure.verb, failure.lost, failure.place, failure.why
        )
        role = guild.get_role(config.moderator_role) if config.moderator_role is not None else None
        moderators = f"Moderators ({role.mention})" if role is not None else "Moderators"
        text = notice_text(failure, moderators)
        mentions = discord.AllowedMentions(users=False, everyone=False, roles=[role] if role is not None else False)
        for channel in self._places(guild, config, failure):
            try:
                await channel.send(text, allowed_mentions=mentions)
            except discord.HTTPException as exc:
                log.warning("guild %s: could not give a notice in #%s: %s", guild.id, channel.name, exc)
                continue
            return True
        await self._tell_owner(guild, notice_text(failure, "Moderators"))
        return True

    def _places(self, guild: discord.Guild, config: GuildConfig, failure: Failure) -> list[discord.TextChannel]:
        """#game-actions, then every text channel from the top, where the bot can post (never the failing one)."""
        me = guild.me
        if me is None:
            return []
        actions = config.channel_for(guild, ChannelRole.GAME_ACTIONS)
        ordered = [actions] if actions is not None else []
        ordered += sorted(guild.text_channels, key=lambda c: (c.position, c.id))
        seen: set[int] = set()
        places = []
        for channel in ordered:
            if channel.id in seen or channel.id == failure.channel_id:
                continue
            seen.add(channel.id)
            if not cannot_post(channel, me):
                places.append(channel)
        return places

    async def _tell_owner(self, guild: discord.Guild, text: str) -> None:
        owner: discord.Member | discord.User | None = guild.owner
        try:
            if owner is None and guild.owner_id is not None:
                owner = await self._client.fetch_user(guild.owner_id)
            if owner is None:
                log.warning("guild %s: no channel and no owner to tell: %s", guild.id, text)
                return
            await owner.send(f"About your server **{guild.name}**: {text}")
        except discord.HTTPException as exc:
            log.warning("guild %s: could not tell the owner either (%s): %s", guild.id, exc, text)
