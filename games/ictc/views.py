"""The library's answers in words: a card, its history, lists, decks, the glossary, the options."""

from __future__ import annotations

from collections import Counter

from games.ictc.cards import CardType
from games.ictc.copies import deck_problems
from games.ictc.library import glossary, label
from games.ictc.palette import COLOUR_NAMES
from games.ictc.starter import starter_set
from games.ictc.state import (
    OPTION_HELP,
    STARTER,
    ApprovalMode,
    CardGuild,
    Design,
    DesignStatus,
    GuildMode,
    LibraryState,
    Near,
    ReviewStatus,
    Version,
    meeting_key,
)
from games.nomic.events import when

LIST_LIMIT = 40


def near_text(state: LibraryState, near: Near) -> str:
    mark = ", protected" if near.protected else ""
    return f"{near.name} (#{near.design} by {state.name_of(near.owner)}{mark}) {near.score:.2f}"


def numbers(ids: list[int]) -> str:
    """Copy numbers as short runs: ``4-15, 19``."""
    runs: list[tuple[int, int]] = []
    for n in sorted(ids):
        if runs and n == runs[-1][1] + 1:
            runs[-1] = (runs[-1][0], n)
        else:
            runs.append((n, n))
    return ", ".join(str(a) if a == b else f"{a}-{b}" for a, b in runs)


def and_list(names: list[str]) -> str:
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1] if names else ""


def approval_line(state: LibraryState, design: Design, version: Version) -> str:
    names = [state.name_of(m) for m in version.approvals if m != design.owner]
    if version.approved_by is not None:
        by = version.approved_by
        who = f"approved by {by.removeprefix('guild:')} (a guild)" if by.startswith("guild:") else f"approved by {by}"
        extra = f"; approvals: {', '.join(names)}" if names and by != "players" else ""
        signed = f" ({', '.join(names)})" if by == "players" and names else ""
        return f"✅ {who}{signed}{extra}"
    if design.status is DesignStatus.DRAFT:
        return "📝 a private draft: only you see it"
    if design.status is DesignStatus.BLOCKED:
        return "⛔ blocked: a moderator upheld a contest against it"
    needed = state.options.approvals_needed
    parts = []
    if state.options.approval is not ApprovalMode.GUILD:
        parts.append(f"{len(names)} of {needed} approvals" + (f" ({', '.join(names)})" if names else ""))
    review = version.review
    if review is not None and review.status is ReviewStatus.OPEN:
        guild = state.guilds.get(review.guild)
        gname = guild.name if guild is not None else review.guild
        if review.deadline is not None:
            parts.append(f"the guild {gname} votes until {when(review.deadline, relative=True)}")
        else:
            parts.append(f"waiting for the officers of the guild {gname}")
    elif state.options.approval is ApprovalMode.GUILD:
        parts.append("waiting for a guild (`!card ask NAME GUILD`)")
    return "⏳ " + "; ".join(parts)


def card_text(state: LibraryState, design: Design, version: Version | None = None, *, details: bool = True) -> str:
    """The card in words: what its picture shows, and what approvers should know."""
    version = version or design.current
    f = version.fields
    head = [f"{label(state, design, version=version.number)} · {f.type.display} · cost {f.cost.text()}"]
    head.append(f.colour_words())
    if design.protected:
        head.append("🔒 protected")
    lines = [" · ".join(head)]
    stats = []
    if f.type is CardType.SOLDIER:
        stats.append(f"CR {f.cr}")
    if f.output is not None:
        stats.append(f"makes {f.output.text()}")
    stats.extend(f.keywords)
    if stats:
        lines.append(" · ".join(stats))
    lines.append(f"> {f.text}".replace("\n", "\n> "))
    if f.restrictions:
        lines.append("Restrictions: " + "; ".join(f.restrictions))
    if f.script is not None:
        lines.append(f"Script (a battle carries it out; approving certifies it): `{f.script}`")
    elif f.type in {CardType.ACTION, CardType.FLASH}:
        lines.append("No script: in a battle its player carries it out by hand, and the opponent confirms.")
    lines.append(approval_line(state, design, version))
    if details:
        rejections = [f"{state.name_of(v.member)}" + (f" ({v.reason})" if v.reason else "") for v in version.rejections]
        if rejections:
            lines.append("Rejected by " + ", ".join(rejections))
        if version.warnings:
            lines.append("⚠ Warnings: " + "; ".join(version.warnings))
        if version.flags:
            lines.append(
                "🚩 Flagged, close to a protected design: " + ", ".join(near_text(state, n) for n in version.flags)
            )
        if version.nearest:
            lines.append("Nearest: " + ", ".join(near_text(state, n) for n in version.nearest))
        lines.extend(f"💬 {state.name_of(c.member)}: {c.text}" for c in version.comments[-3:])
    return "\n".join(lines)


def history_text(state: LibraryState, design: Design, *, drafts: bool) -> str:
    """The design's versions; ``drafts``: with those it had as a private draft (for its maker alone),
    else from the one submitted on, the drafts before it only counted."""
    lines = [f"{label(state, design)}: {len(design.versions)} version{'s' if len(design.versions) != 1 else ''}"]
    hidden = 0 if drafts else sum(1 for v in design.versions if not design.public(v))
    if hidden:
        lines.append(
            f"v1-v{hidden}: drafts, seen only by its maker" if hidden > 1 else "v1: a draft, seen only by its maker"
        )
    previous = None
    for version in design.versions[hidden:]:
        fields = version.fields.raw()
        if previous is None:
            change = "submitted" if hidden else "first version"
        else:
            changed = [k for k in fields if fields.get(k) != previous.get(k)]
            changed += [k for k in previous if k not in fields]
            change = "changed " + ", ".join(dict.fromkeys(changed)) if changed else "renamed"
        approvals = len([m for m in version.approvals if m != design.owner])
        status = "approved" if version.approved_by else f"{approvals} approval{'s' if approvals != 1 else ''}"
        lines.append(f"v{version.number} ({version.made_at:%Y-%m-%d}): {change}; cost {fields['cost']}; {status}")
        previous = fields
    return "\n".join(lines)


def copies_count_text(state: LibraryState, member: str) -> str:
    """Another member's copies: how many, never which (as ``!inventory`` counts them)."""
    count = len(state.copies_of(member))
    name = state.name_of(member)
    if not count:
        return f"{name} owns no card copies yet."
    return f"{name} owns {count} card cop{'y' if count == 1 else 'ies'}; which ones, only {name} sees."


def list_text(state: LibraryState, designs: list[Design], title: str) -> str:
    if not designs:
        return f"{title}: none."
    shown = designs[:LIST_LIMIT]
    lines = [f"{title} ({len(designs)}):"]
    for d in shown:
        v = d.current
        mark = {"draft": "📝", "pending": "⏳", "approved": "✅", "blocked": "⛔"}[d.status.value]
        count = len([m for m in v.approvals if m != d.owner])
        lock = " 🔒" if d.protected else ""
        lines.append(
            f"{mark} #{d.id} {d.name}{lock} · {v.fields.type.display} {v.fields.cost.text()} · by"
            f" {state.name_of(d.owner)} · v{v.number}, {count} approval{'s' if count != 1 else ''}"
        )
    if len(designs) > len(shown):
        lines.append(f"… and {len(designs) - len(shown)} more.")
    return "\n".join(lines)


def master_text(state: LibraryState, member: str, *, own: bool) -> str:
    """A member's master deck: each design once, with its approvals (drafts only for their maker)."""
    designs = [d for d in state.designs.values() if d.owner == member and (own or d.visible)]
    designs.sort(key=lambda d: d.id)
    protected = sum(1 for d in designs if d.protected)
    title = f"Master deck of {state.name_of(member)}"
    text = list_text(state, designs, title)
    if own:
        text += f"\nProtected: {protected} of {state.options.max_protected}."
    return text


def copies_text(state: LibraryState, member: str) -> str:
    mine = state.copies_of(member)
    name = state.name_of(member)
    if not mine:
        return f"{name} owns no card copies yet. `!card starter` offers a starter deck; makers `!card mint` theirs."
    counts: Counter[tuple[int, int]] = Counter((c.design, c.version) for c in mine)
    ids: dict[tuple[int, int], list[int]] = {}
    for c in mine:
        ids.setdefault((c.design, c.version), []).append(c.id)
    lines = [f"{name} owns {len(mine)} card cop{'y' if len(mine) == 1 else 'ies'} (by number; trade one as `copy:N`):"]
    for (design_id, version), count in sorted(counts.items()):
        design = state.designs.get(design_id)
        title = design.name if design is not None else f"#{design_id}"
        lines.append(f"{count} × {title} (#{design_id}, v{version}): {numbers(ids[(design_id, version)])}")
    return "\n".join(lines[: LIST_LIMIT + 1])


def decks_text(state: LibraryState, member: str) -> str:
    decks = sorted((d for d in state.decks.values() if d.owner == member), key=lambda d: d.name.casefold())
    if not decks:
        return "You have no play decks yet: `!card deck save NAME: CARD xN, ...` makes one."
    lines = ["Your play decks:"]
    for deck in decks:
        problems = deck_problems(state, deck)
        lines.append(f"**{deck.name}**: {len(deck.copies)} cards, " + ("ready" if not problems else problems[0]))
    return "\n".join(lines)


def keywords_text(state: LibraryState) -> str:
    lines = ["Keywords of this server (the starter ones are carried out in battle; the others are text):"]
    for word in sorted(glossary(state).values(), key=lambda k: (not k.builtin, k.name.casefold())):
        name = f"{word.name} N" if word.takes_number else word.name
        by = "" if word.builtin else f" (defined by {state.name_of(word.defined_by or '')})"
        lines.append(f"**{name}**: {word.text}{by}")
    return "\n".join(lines)


def options_text(state: LibraryState) -> str:
    options = state.options
    lines = ["Card library options (moderators: `!card option NAME VALUE`):"]
    for name, value in options.model_dump(mode="json").items():
        lines.append(f"`{name}` = {value}: {OPTION_HELP.get(name, '')}")
    lines.append(f"Colours of this server: {options.palette.describe()}.")
    return "\n".join(lines)


def starters_text(state: LibraryState, member: str) -> str:
    claimed = state.members.get(member)
    taken = len(claimed.starter_decks) if claimed is not None else 0
    left = max(0, state.options.starter_claims - taken)
    lines = ["Starter decks (`!card starter NAME` gives you its copies and saves it as a play deck):"]
    lines.extend(f"**{deck.name}** ({deck.size} cards): {deck.blurb}" for deck in starter_set().decks)
    lines.append(f"You may claim {left} more.")
    return "\n".join(lines)


def guilds_text(state: LibraryState) -> str:
    if not state.guilds:
        return "No guilds yet: `!guild create NAME [vote|committee]` founds one."
    lines = ["Guilds:"]
    lines.extend(guild_line(state, guild) for guild in sorted(state.guilds.values(), key=lambda g: g.name.casefold()))
    return "\n".join(lines)


def guild_line(state: LibraryState, guild: CardGuild) -> str:
    how = (
        f"votes: a majority, at least {guild.quorum} vote{'s' if guild.quorum != 1 else ''}, within {guild.hours}h"
        if guild.mode is GuildMode.VOTE
        else f"committee: any {guild.committee} officer{'s' if guild.committee != 1 else ''}"
    )
    officers = ", ".join(state.name_of(m) for m in guild.officers)
    count = len(guild.members)
    return f"**{guild.name}** ({count} member{'s' if count != 1 else ''}; {how}; officers: {officers})"


def meet_text(state: LibraryState, actor: str, other: str) -> str:
    meeting = state.meetings.get(meeting_key(actor, other))
    name = state.name_of(other)
    designs = sorted((d for d in state.designs.values() if d.owner == other and d.visible), key=lambda d: d.id)
    lines = [list_text(state, designs, f"Master deck of {name}")]
    if meeting is not None and meeting.met_at is not None:
        lines.append(f"You and {name} have battled before: exclusions are for a first battle only.")
        return "\n".join(lines)
    mine = [e for e in (meeting.exclusions if meeting else ()) if e.by == actor]
    theirs = [e for e in (meeting.exclusions if meeting else ()) if e.by == other]
    if mine:
        lines.append("You exclude: " + ", ".join(_design_name(state, e.design) for e in mine))
    if theirs:
        lines.append(f"{name} excludes: " + ", ".join(_design_name(state, e.design) for e in theirs))
    lines.append(f"Before your first battle you may exclude designs of {name}'s: `!card exclude @{name} CARD`.")
    return "\n".join(lines)


def _design_name(state: LibraryState, design_id: int) -> str:
    design = state.designs.get(design_id)
    return f"{design.name} (#{design_id})" if design is not None else f"#{design_id}"


def contests_text(state: LibraryState) -> str:
    open_ones = [c for c in state.contests.values() if c.status.value == "open"]
    if not open_ones:
        return "No open contests."
    lines = ["Open contests (moderators: `!card decide N uphold|dismiss [NOTE]`):"]
    lines.extend(
        f"{c.number}: {state.name_of(c.by)} against {_design_name(state, c.design)} v{c.version},"
        f" similarity {c.score:.2f}" + (f": {c.text}" if c.text else "")
        for c in sorted(open_ones, key=lambda c: c.number)
    )
    return "\n".join(lines)


def colour_names(letters: str) -> str:
    return ", ".join(f"{c} {COLOUR_NAMES[c]}" for c in letters)


def is_starter(design: Design) -> bool:
    return design.owner == STARTER
