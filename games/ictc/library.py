"""What the library's transitions share: finding designs and guilds, the glossary, small updates."""

from __future__ import annotations

import difflib
from collections.abc import Mapping

from games.ictc.cards import Keyword, check_name, name_key, shown
from games.ictc.errors import CardInputError, NotYoursError, UnknownCardError
from games.ictc.starter import builtin_keywords
from games.ictc.state import CardGuild, Design, LibraryState, Member
from games.nomic.context import Context

MAX_REF = 60


def glossary(state: LibraryState) -> Mapping[str, Keyword]:
    """The starter keywords and those the server's members defined, by lower-case name."""
    return {**builtin_keywords(), **state.meta.keywords}


def with_design(state: LibraryState, design: Design) -> LibraryState:
    return state.model_copy(update={"designs": {**state.designs, design.id: design}})


def with_guild(state: LibraryState, key: str, guild: CardGuild | None) -> LibraryState:
    guilds = dict(state.guilds)
    if guild is None:
        guilds.pop(key, None)
    else:
        guilds[key] = guild
    return state.model_copy(update={"guilds": guilds})


def remember(state: LibraryState, ctx: Context) -> LibraryState:
    """Keep the acting member's name, so answers name makers and voters as the server knows them."""
    if ctx.actor == "system" or not ctx.actor_name:
        return state
    known = state.members.get(ctx.actor)
    if known is not None and known.name == ctx.actor_name:
        return state
    member = (known or Member(id=ctx.actor, name=ctx.actor_name)).model_copy(update={"name": ctx.actor_name[:80]})
    return state.model_copy(update={"members": {**state.members, ctx.actor: member}})


def label(state: LibraryState, design: Design, *, version: int | None = None) -> str:
    """**Fire Imp** (#12 by alice, v2)."""
    shown_version = f", v{version}" if version is not None else ""
    return f"**{design.name}** (#{design.id} by {state.name_of(design.owner)}{shown_version})"


def design_number(ref: str) -> int | None:
    text = ref.strip().removeprefix("#")
    if text.isascii() and text.isdigit() and len(text) <= 9:
        return int(text)
    return None


def find_design(state: LibraryState, ref: str, actor: str) -> Design:
    """A design by ``#12`` or by name: the actor's own first, then anyone's they can see.

    A draft is only its maker's to find; to anyone else it does not exist.
    """
    if len(ref) > MAX_REF:
        raise CardInputError(f"a card's name is at most {MAX_REF} characters")
    number = design_number(ref)
    if number is not None:
        found = state.designs.get(number)
        if found is None or (not found.visible and found.owner != actor):
            raise UnknownCardError(f"there is no card #{number}; `!card list` lists the library")
        return found
    key = name_key(ref)
    if not key:
        raise CardInputError("name the card, by its name or its number (`#12`)")
    own = [d for d in state.designs.values() if d.owner == actor and name_key(d.name) == key]
    if own:
        return own[0]
    seen = [d for d in state.designs.values() if d.visible and name_key(d.name) == key]
    if len(seen) == 1:
        return seen[0]
    if seen:
        listed = ", ".join(f"#{d.id} by {state.name_of(d.owner)}" for d in sorted(seen, key=lambda d: d.id))
        raise UnknownCardError(f"several cards are called {shown(ref)}: {listed}; name one by its number")
    names = {d.name for d in state.designs.values() if d.visible or d.owner == actor}
    close = difflib.get_close_matches(ref, sorted(names), n=3, cutoff=0.6)
    hint = f" (did you mean {', '.join(close)}?)" if close else "; `!card list` lists the library"
    raise UnknownCardError(f"there is no card called {shown(ref)}{hint}")


def require_maker(design: Design, ctx: Context, doing: str) -> None:
    if design.owner != ctx.actor:
        raise NotYoursError(f"only the card's maker can {doing}")


def guild_key(name: str) -> str:
    return name_key(name)


def find_guild(state: LibraryState, name: str) -> CardGuild:
    found = state.guilds.get(guild_key(name)) if len(name) <= MAX_REF else None
    if found is None:
        known = ", ".join(g.name for g in state.guilds.values()) or "none yet"
        raise UnknownCardError(f"there is no guild called {shown(name)} (guilds: {known})")
    return found


def check_guild_name(name: str) -> str:
    return check_name(name, "a guild's name")
