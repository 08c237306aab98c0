"""Making designs: a new card, an edit (a new version), protection, submission, keywords, options.

A new design is a private draft: only its maker sees it, and only then may it be protected. It is
compared with the library when it is submitted (and again at every later edit): too close to
another member's protected design, it is refused and nothing changes.
"""

from __future__ import annotations

from typing import Any

from pydantic import ValidationError

from games.ictc.actions import DefineKeyword, EditCard, NewCard, ProtectCard, SetOption, SubmitCard
from games.ictc.approvals import open_review
from games.ictc.cards import RULES_FIELDS, CardFields, Keyword, build_fields, check_name, name_key, shown, warnings
from games.ictc.errors import BlockedError, CardInputError, CardStateError, NotYoursError
from games.ictc.events import Note, Step
from games.ictc.library import find_design, glossary, label, require_maker, with_design
from games.ictc.palette import Palette, in_order
from games.ictc.similarity import Assessment, assess, same_rules
from games.ictc.state import (
    STARTER,
    Design,
    DesignStatus,
    LibraryOptions,
    LibraryState,
    ReviewStatus,
    Version,
)
from games.ictc.views import card_text, colour_names, near_text
from games.nomic.context import Context

MAX_DESIGNS = 300
"""Designs one member may make on a server."""
MAX_KEYWORD_TEXT = 200


def _unique_name(state: LibraryState, owner: str, name: str, design_id: int | None) -> None:
    key = name_key(name)
    for other in state.designs.values():
        if other.owner == owner and other.id != design_id and name_key(other.name) == key:
            raise CardStateError(f"you already have a card called {other.name} (#{other.id}); names are yours once")


def apply_new(state: LibraryState, ctx: Context, action: NewCard) -> Step:
    fields = build_fields(action.raw, state.options.palette, glossary(state))
    mine = sum(1 for d in state.designs.values() if d.owner == ctx.actor)
    if mine >= MAX_DESIGNS:
        raise CardStateError(f"you have made {mine} designs, the most one member may make here")
    _unique_name(state, ctx.actor, fields.name, None)
    number = state.meta.next_design
    version = Version(number=1, fields=fields, made_at=ctx.at, warnings=warnings(fields))
    design = Design(id=number, owner=ctx.actor, versions=(version,), created_at=ctx.at)
    state = with_design(state, design).model_copy(
        update={"meta": state.meta.model_copy(update={"next_design": number + 1})}
    )
    text = (
        f"Your draft is saved as card #{number}; only you see it.\n{card_text(state, design)}\n"
        f"Next: `!card protect #{number}` to protect it (only while it is a draft), `!card edit #{number} | FIELD:"
        f" VALUE` to change it, `!card submit #{number}` to show it to everyone for approval."
    )
    return Step(state, (Note(text, private=True, card=(number, 1)),))


def _assessment(state: LibraryState, design: Design, fields: CardFields) -> Assessment:
    found = assess(fields, design.owner, design.id, state.designs.values(), state.options)
    if found.blocked:
        close = ", ".join(near_text(state, n) for n in found.blocked)
        alike = any(same_rules(fields, state.designs[n.design].current.fields) for n in found.blocked)
        why = " (the same rules in a battle: type, cost, CR or output and script; new words do not change them)"
        raise BlockedError(
            f"{fields.name} is too close to another member's protected design ({close}; refused from"
            f" {state.options.block_at:.2f}){why if alike else ''}; change it further, or make something of your own"
        )
    return found


def _assessed(version: Version, found: Assessment) -> Version:
    return version.model_copy(update={"assessed": True, "flags": found.flags, "nearest": found.nearest})


def _close_review(version: Version, at: Any) -> Version:
    review = version.review
    if review is None or review.status is not ReviewStatus.OPEN:
        return version
    return version.model_copy(
        update={"review": review.model_copy(update={"status": ReviewStatus.CLOSED, "closed_at": at})}
    )


def apply_edit(state: LibraryState, ctx: Context, action: EditCard) -> Step:
    design = find_design(state, action.ref, ctx.actor)
    require_maker(design, ctx, "edit it")
    if design.status is DesignStatus.BLOCKED:
        raise CardStateError(f"{design.name} is blocked; make a new design instead")
    unknown = [k for k in action.raw if k not in RULES_FIELDS | {"name"}]
    if unknown or not action.raw:
        raise CardInputError("say what to change, e.g. `!card edit #12 | cost: 2R+1 | cr: 3`")
    current = design.current
    raw = {**current.fields.raw(), **action.raw}
    if "type" in action.raw:
        # a new type drops what only the old type had, unless it was typed again
        for key in ("cr", "output"):
            if key not in action.raw:
                raw.pop(key, None)
    fields = build_fields(raw, state.options.palette, glossary(state))
    _unique_name(state, ctx.actor, fields.name, design.id)
    if fields == current.fields:
        raise CardStateError("that changes nothing")
    if fields.rules_hash() == current.fields.rules_hash():
        renamed = current.model_copy(update={"fields": fields})
        design = design.model_copy(update={"versions": (*design.versions[:-1], renamed)})
        state = with_design(state, design)
        text = (
            f"{ctx.actor_name} renames card #{design.id} to **{fields.name}** (its approvals stay: the rules did not"
            " change)."
        )
        return Step(state, (Note(text, private=not design.visible, card=(design.id, renamed.number)),))
    version = Version(number=current.number + 1, fields=fields, made_at=ctx.at, warnings=warnings(fields))
    if design.visible:
        version = _assessed(version, _assessment(state, design, fields))
    earlier = _close_review(current, ctx.at)
    status = DesignStatus.DRAFT if not design.visible else DesignStatus.PENDING
    design = design.model_copy(update={"versions": (*design.versions[:-1], earlier, version), "status": status})
    state = with_design(state, design)
    if not design.visible:
        text = f"Draft #{design.id} is now version {version.number}.\n{card_text(state, design)}"
        return Step(state, (Note(text, private=True, card=(design.id, version.number)),))
    text = (
        f"{ctx.actor_name} made version {version.number} of card #{design.id}: its approvals start over.\n"
        f"{card_text(state, design)}"
    )
    return Step(state, (Note(text, card=(design.id, version.number), review=True),))


def apply_submit(state: LibraryState, ctx: Context, action: SubmitCard) -> Step:
    design = find_design(state, action.ref, ctx.actor)
    require_maker(design, ctx, "submit it")
    if design.status is not DesignStatus.DRAFT:
        raise CardStateError(f"{design.name} was submitted already; its approvals are under way")
    missing = _outside(design.current.fields, state.options.palette)
    if missing:
        raise CardStateError(
            f"{design.name} uses colours this server no longer has ({colour_names(missing)}; the"
            f" {state.options.palette.value} palette has {state.options.palette.describe()}): change them with"
            f" `!card edit #{design.id} | cost: ... | colours: ...` first"
        )
    found = _assessment(state, design, design.current.fields)
    version = _assessed(design.current, found)
    design = design.model_copy(update={"versions": (*design.versions[:-1], version), "status": DesignStatus.PENDING})
    state = with_design(state, design)
    notes: list[Note] = []
    extra = ""
    if action.guild is not None:
        state, said = open_review(state, ctx, design.id, action.guild)
        extra = "\n" + said
    design = state.designs[design.id]
    text = f"{ctx.actor_name} submits a card for approval.\n{card_text(state, design)}{extra}"
    if found.flags:
        text += "\n🚩 Approvers: it is close to a protected design; approving it says it is different enough."
    notes.append(Note(text, card=(design.id, version.number), review=True))
    return Step(state, tuple(notes))


def apply_protect(state: LibraryState, ctx: Context, action: ProtectCard) -> Step:
    design = find_design(state, action.ref, ctx.actor)
    require_maker(design, ctx, "protect it" if action.protect else "unprotect it")
    if not action.protect:
        if not design.protected:
            raise CardStateError(f"{design.name} is not protected")
        design = design.model_copy(update={"protected": False, "ever_unprotected": True})
        text = f"{design.name} is no longer protected, for good: it can never be protected again."
        return Step(with_design(state, design), (Note(text, private=not design.visible),))
    if design.protected:
        raise CardStateError(f"{design.name} is protected already")
    if design.ever_unprotected:
        raise CardStateError(f"{design.name} was unprotected once; that is for good")
    if design.status is not DesignStatus.DRAFT:
        raise CardStateError(
            f"{design.name} was shown to everyone already: a design is protected only while it is a private draft"
        )
    count = sum(1 for d in state.designs.values() if d.owner == ctx.actor and d.protected)
    limit = state.options.max_protected
    if count >= limit:
        raise CardStateError(
            f"you protect {count} designs already, the most allowed here ({limit}); unprotecting one is for good"
        )
    design = design.model_copy(update={"protected": True})
    text = (
        f"{design.name} is protected ({count + 1} of {limit}): once submitted, nobody else's card may come too close"
        " to it."
    )
    return Step(with_design(state, design), (Note(text, private=True),))


def apply_keyword(state: LibraryState, ctx: Context, action: DefineKeyword) -> Step:
    name = check_name(action.name, "a keyword")
    if len(name) > 24 or not all(ch.isalpha() or ch in " -'" for ch in name):
        raise CardInputError("a keyword is one or a few words of letters, at most 24 characters")
    if name.casefold() in glossary(state):
        raise CardStateError(f"{name} is a keyword already (`!card keywords` lists them)")
    text = " ".join(action.text.split())
    if not text:
        raise CardInputError("say what the keyword means: `!card keyword NAME: TEXT`")
    if len(text) > MAX_KEYWORD_TEXT:
        raise CardInputError(f"a keyword's text is at most {MAX_KEYWORD_TEXT} characters")
    word = Keyword(name=name, text=text, defined_by=ctx.actor)
    meta = state.meta.model_copy(update={"keywords": {**state.meta.keywords, name.casefold(): word}})
    said = f"{ctx.actor_name} defines the keyword **{name}**: {text} (text only: battles show it, players apply it)"
    return Step(state.model_copy(update={"meta": meta}), (Note(said),))


def apply_option(state: LibraryState, ctx: Context, action: SetOption) -> Step:
    if not ctx.is_moderator:
        raise NotYoursError("only moderators change the card library's options")
    key = action.key.strip().casefold().replace("-", "_")
    if key not in LibraryOptions.model_fields:
        known = ", ".join(LibraryOptions.model_fields)
        raise CardInputError(f"`{shown(action.key)}` is not an option of the card library (options: {known})")
    data = state.options.model_dump()
    data[key] = action.value.strip().casefold()
    try:
        options = LibraryOptions.model_validate(data)
    except ValidationError as exc:
        first = exc.errors()[0]
        raise CardInputError(f"`{shown(action.value)}` does not suit {key}: {first.get('msg', 'invalid')}") from None
    if options.flag_at > options.block_at:
        raise CardInputError("flag_at cannot be above block_at")
    if options.palette is not state.options.palette:
        _check_palette(state, options.palette)
    meta = state.meta.model_copy(update={"options": options})
    value = options.model_dump(mode="json")[key]
    said = f"Card library option `{key}` is now {value} (set by {ctx.actor_name})."
    return Step(state.model_copy(update={"meta": meta}), (Note(said),))


def _outside(fields: CardFields, palette: Palette) -> str:
    """The colour letters of a card's colours and cost that ``palette`` lacks."""
    return "".join(in_order((set(fields.colours) | set(fields.cost.letters)) - set(palette.letters)))


def _check_palette(state: LibraryState, palette: Palette) -> None:
    """A palette is changed only when every member's shown design keeps within it. Drafts do not hold
    it (nobody else may know of them): a draft outside it is changed before it is submitted."""
    outside = [
        d for d in state.designs.values() if d.owner != STARTER and d.visible and _outside(d.current.fields, palette)
    ]
    if outside:
        listed = ", ".join(label(state, d) for d in outside[:5])
        raise CardStateError(f"these designs use colours the {palette.value} palette lacks: {listed}")


__all__ = [
    "apply_edit",
    "apply_keyword",
    "apply_new",
    "apply_option",
    "apply_protect",
    "apply_submit",
    "shown",
]
