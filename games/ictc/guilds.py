"""Guilds: groups of members who approve cards together, by a vote or by a committee of officers."""

from __future__ import annotations

from games.ictc.actions import CreateGuild, GuildSettings, JoinGuild, LeaveGuild, SetOfficer
from games.ictc.cards import shown
from games.ictc.errors import CardInputError, CardStateError, NotYoursError
from games.ictc.events import Note, Step
from games.ictc.library import check_guild_name, find_guild, guild_key, with_guild
from games.ictc.state import CardGuild, GuildMode, LibraryState
from games.ictc.views import guild_line
from games.nomic.context import Context

MAX_GUILDS = 50
LIMITS = {"quorum": (1, 50), "hours": (1, 720), "committee": (1, 10)}
"""Each guild setting's smallest and largest value."""


def _settings(values: dict[str, str]) -> dict[str, int]:
    out: dict[str, int] = {}
    for key, value in values.items():
        name = key.strip().casefold()
        if name in {"k", "officers"}:
            name = "committee"
        if name not in LIMITS:
            raise CardInputError(f"`{shown(key)}` is not a guild setting (settings: quorum, hours, committee)")
        raw = value.strip().removesuffix("h")
        low, high = LIMITS[name]
        if not raw.isascii() or not raw.isdigit() or len(raw) > 4 or not low <= int(raw) <= high:
            raise CardInputError(f"{name} takes a whole number from {low} to {high}")
        out[name] = int(raw)
    return out


def _mode(text: str) -> GuildMode:
    low = text.strip().casefold()
    for mode in GuildMode:
        if low == mode.value:
            return mode
    raise CardInputError("a guild approves by `vote` (members vote until a deadline) or by `committee` (k officers)")


def apply_create(state: LibraryState, ctx: Context, action: CreateGuild) -> Step:
    name = check_guild_name(action.name)
    key = guild_key(name)
    if key in state.guilds:
        raise CardStateError(f"there is a guild called {state.guilds[key].name} already")
    if len(state.guilds) >= MAX_GUILDS:
        raise CardStateError(f"this server has {len(state.guilds)} guilds, the most it may have")
    guild = CardGuild(
        name=name,
        mode=_mode(action.mode),
        members=(ctx.actor,),
        officers=(ctx.actor,),
        created_by=ctx.actor,
        created_at=ctx.at,
        **_settings(action.settings),
    )
    state = with_guild(state, key, guild)
    text = f"{ctx.actor_name} founds the guild {guild_line(state, guild)}. `!guild join {name}` to join it."
    return Step(state, (Note(text),))


def apply_join(state: LibraryState, ctx: Context, action: JoinGuild) -> Step:
    guild = find_guild(state, action.name)
    if ctx.actor in guild.members:
        raise CardStateError(f"you are a member of {guild.name} already")
    guild = guild.model_copy(update={"members": (*guild.members, ctx.actor)})
    text = f"{ctx.actor_name} joins the guild {guild.name} ({len(guild.members)} members)."
    return Step(with_guild(state, guild_key(guild.name), guild), (Note(text),))


def apply_leave(state: LibraryState, ctx: Context, action: LeaveGuild) -> Step:
    guild = find_guild(state, action.name)
    if ctx.actor not in guild.members:
        raise CardStateError(f"you are not a member of {guild.name}")
    members = tuple(m for m in guild.members if m != ctx.actor)
    officers = tuple(m for m in guild.officers if m != ctx.actor)
    if not officers and members:
        raise CardStateError(
            f"you are {guild.name}'s last officer: name another first (`!guild officer {guild.name} @member`)"
        )
    key = guild_key(guild.name)
    if not members:
        text = f"{ctx.actor_name} leaves the guild {guild.name}, its last member: the guild is dissolved."
        return Step(with_guild(state, key, None), (Note(text),))
    guild = guild.model_copy(update={"members": members, "officers": officers})
    return Step(with_guild(state, key, guild), (Note(f"{ctx.actor_name} leaves the guild {guild.name}."),))


def _require_officer(guild: CardGuild, ctx: Context) -> None:
    if ctx.actor not in guild.officers and not ctx.is_moderator:
        raise NotYoursError(f"only {guild.name}'s officers can do that")


def apply_officer(state: LibraryState, ctx: Context, action: SetOfficer) -> Step:
    guild = find_guild(state, action.name)
    _require_officer(guild, ctx)
    who = state.name_of(action.member)
    if action.add:
        if action.member not in guild.members:
            raise CardStateError(f"{who} is not a member of {guild.name}")
        if action.member in guild.officers:
            raise CardStateError(f"{who} is an officer of {guild.name} already")
        officers = (*guild.officers, action.member)
        text = f"{who} is now an officer of {guild.name} ({ctx.actor_name} named them)."
    else:
        if action.member not in guild.officers:
            raise CardStateError(f"{who} is not an officer of {guild.name}")
        officers = tuple(m for m in guild.officers if m != action.member)
        if not officers:
            raise CardStateError(f"a guild needs an officer; name another before {who} steps down")
        text = f"{who} is no longer an officer of {guild.name}."
    guild = guild.model_copy(update={"officers": officers})
    return Step(with_guild(state, guild_key(guild.name), guild), (Note(text),))


def apply_settings(state: LibraryState, ctx: Context, action: GuildSettings) -> Step:
    guild = find_guild(state, action.name)
    _require_officer(guild, ctx)
    update: dict[str, object] = dict(_settings({k: v for k, v in action.settings.items() if k != "mode"}))
    if "mode" in action.settings:
        update["mode"] = _mode(action.settings["mode"])
    if not update:
        raise CardInputError("name a setting: `!guild set NAME quorum:3 hours:48 committee:2 mode:vote`")
    guild = guild.model_copy(update=update)
    state = with_guild(state, guild_key(guild.name), guild)
    return Step(state, (Note(f"{ctx.actor_name} changes the guild's settings: {guild_line(state, guild)}."),))
