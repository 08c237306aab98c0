"""Copies of approved designs and play decks: minting, starter decks, copies changing hands, deck checks.

A copy is one printed card: a design at the version it was minted, owned by one member. Makers mint
copies of their approved designs; copies change hands only by a trade of the round (a card copy is
an item there) or a battle's kitty. A play deck is a named list of its owner's copies; it is checked
against what the owner holds whenever it is shown or used, since copies may have been traded away.
"""

from __future__ import annotations

import re
from collections import Counter
from datetime import datetime

from games.ictc.actions import ClaimStarter, DeleteDeck, MintCopies, MoveCopies, SaveDeck
from games.ictc.cards import check_name, name_key, shown
from games.ictc.errors import CardInputError, CardStateError, NotYoursError, UnknownCardError
from games.ictc.events import Note, Step
from games.ictc.library import find_design, label, require_maker, with_design
from games.ictc.starter import deck_entry, starter_set
from games.ictc.state import STARTER, Copy, Deck, DesignStatus, LibraryState, Member, deck_key
from games.nomic.context import Context

MAX_MINT = 30
"""Copies minted by one command."""
MAX_DECKS = 20
MAX_DECK_SIZE = 200
_COPY = re.compile(r"copy[:#]([0-9]{1,9})", re.IGNORECASE)


def deck_problems(state: LibraryState, deck: Deck) -> list[str]:
    """Why the deck cannot be played now (empty: it can)."""
    problems: list[str] = []
    gone = [c for c in deck.copies if (copy := state.copies.get(c)) is None or copy.owner != deck.owner]
    if gone:
        listed = ", ".join(f"copy:{c}" for c in gone[:8])
        problems.append(
            f"{len(gone)} cop{'y is' if len(gone) == 1 else 'ies are'} no longer {_yours(state, deck)} ({listed})"
        )
    blocked = [
        c
        for c in deck.copies
        if (copy := state.copies.get(c)) is not None
        and (design := state.designs.get(copy.design)) is not None
        and design.status is DesignStatus.BLOCKED
    ]
    if blocked:
        problems.append(f"{len(blocked)} cop{'y is' if len(blocked) == 1 else 'ies are'} of blocked designs")
    held = len(deck.copies) - len(gone)
    if held < state.options.deck_min:
        problems.append(f"it needs {state.options.deck_min - held} more cards (at least {state.options.deck_min})")
    return problems


def copy_counts(state: LibraryState, member: str) -> dict[str, int]:
    """How many copies of each card ``member`` owns, by the card's name."""
    counts: Counter[str] = Counter()
    for copy in state.copies_of(member):
        design = state.designs.get(copy.design)
        counts[design.name if design is not None else f"#{copy.design}"] += 1
    return dict(counts)


def deck_text(state: LibraryState, deck: Deck) -> str:
    counts: Counter[str] = Counter()
    for copy_id in deck.copies:
        copy = state.copies.get(copy_id)
        design = state.designs.get(copy.design) if copy is not None else None
        counts[design.name if design is not None else f"copy:{copy_id}"] += 1
    problems = deck_problems(state, deck)
    status = "ready to play" if not problems else "not playable yet: " + "; ".join(problems)
    listed = ", ".join(f"{name} ×{n}" for name, n in sorted(counts.items()))
    return f"Play deck **{deck.name}** ({len(deck.copies)} cards, {status}):\n{listed or 'empty'}"


def _yours(state: LibraryState, deck: Deck) -> str:
    return f"{state.name_of(deck.owner)}'s"


def check_mint(state: LibraryState, ctx: Context, action: MintCopies) -> None:
    design = find_design(state, action.ref, ctx.actor)
    require_maker(design, ctx, "mint copies of it")
    if design.status is not DesignStatus.APPROVED or design.current.approved_by is None:
        raise CardStateError(f"{design.name} is not approved yet: only approved designs are minted")
    if not 1 <= action.count <= MAX_MINT:
        raise CardInputError(f"mint from 1 to {MAX_MINT} copies at a time")
    left = state.options.mint_limit - design.minted
    if action.count > left:
        raise CardStateError(
            f"{design.name} may have {state.options.mint_limit} copies minted in all; {left} more can be"
        )


def apply_mint(state: LibraryState, ctx: Context, action: MintCopies) -> Step:
    check_mint(state, ctx, action)
    design = find_design(state, action.ref, ctx.actor)
    first = state.meta.next_copy
    made = {
        n: Copy(id=n, design=design.id, version=design.current.number, owner=ctx.actor, minted_at=ctx.at)
        for n in range(first, first + action.count)
    }
    state = with_design(state, design.model_copy(update={"minted": design.minted + action.count}))
    state = state.model_copy(
        update={
            "copies": {**state.copies, **made},
            "meta": state.meta.model_copy(update={"next_copy": first + action.count}),
        }
    )
    last = first + action.count - 1
    shown_numbers = f"copy {first}" if action.count == 1 else f"copies {first}-{last}"
    text = (
        f"{ctx.actor_name} mints {action.count} cop{'y' if action.count == 1 else 'ies'} of"
        f" {label(state, design, version=design.current.number)}: {shown_numbers}."
    )
    return Step(state, (Note(text),))


def _pick(state: LibraryState, owner: str, entries: tuple[str, ...]) -> list[int]:
    """The copies a deck's entries name: ``copy:12`` one copy, ``NAME xN`` N of the owner's copies of it."""
    chosen: list[int] = []
    taken: set[int] = set()
    mine = state.copies_of(owner)
    for entry in entries:
        text = entry.strip()
        if not text:
            continue
        match = _COPY.fullmatch(text)
        if match is not None:
            number = int(match.group(1))
            copy = state.copies.get(number)
            if copy is None or copy.owner != owner:
                raise NotYoursError(f"card copy {number} is not yours")
            if number in taken:
                raise CardInputError(f"card copy {number} is named twice")
            chosen.append(number)
            taken.add(number)
            continue
        name, count = deck_entry(text)
        if not 1 <= count <= MAX_DECK_SIZE:
            raise CardInputError(f"`{shown(text)}`: write a count from 1 to {MAX_DECK_SIZE}")
        key = name_key(name)
        fitting = [
            c.id
            for c in mine
            if c.id not in taken and (d := state.designs.get(c.design)) is not None and name_key(d.name) == key
        ]
        if not fitting and not any(
            (d := state.designs.get(c.design)) is not None and name_key(d.name) == key for c in mine
        ):
            raise UnknownCardError(f"you have no copies of {shown(name)}; `!card copies` lists yours")
        if len(fitting) < count:
            have = len(fitting)
            raise CardStateError(
                f"you have {have} cop{'y' if have == 1 else 'ies'} of {shown(name)} left for this deck, not {count}"
            )
        for number in fitting[:count]:
            chosen.append(number)
            taken.add(number)
    return chosen


def apply_save_deck(state: LibraryState, ctx: Context, action: SaveDeck) -> Step:
    name = check_name(action.name, "a deck's name")
    key = deck_key(ctx.actor, name)
    mine = [d for d in state.decks.values() if d.owner == ctx.actor]
    if key not in state.decks and len(mine) >= MAX_DECKS:
        raise CardStateError(f"you have {len(mine)} play decks already; delete one first")
    copies = _pick(state, ctx.actor, action.entries)
    if not copies:
        raise CardInputError("name the deck's cards: `!card deck save NAME: CARD xN, CARD xN, copy:N ...`")
    if len(copies) > MAX_DECK_SIZE:
        raise CardInputError(f"a play deck holds at most {MAX_DECK_SIZE} cards")
    deck = Deck(owner=ctx.actor, name=name, copies=tuple(copies), saved_at=ctx.at)
    state = state.model_copy(update={"decks": {**state.decks, key: deck}})
    return Step(state, (Note("Saved. " + deck_text(state, deck), private=True),))


def apply_delete_deck(state: LibraryState, ctx: Context, action: DeleteDeck) -> Step:
    key = deck_key(ctx.actor, action.name)
    if key not in state.decks:
        raise UnknownCardError(f"you have no play deck called {shown(action.name)}")
    decks = dict(state.decks)
    deck = decks.pop(key)
    return Step(state.model_copy(update={"decks": decks}), (Note(f"Play deck {deck.name} deleted.", private=True),))


def apply_claim_starter(state: LibraryState, ctx: Context, action: ClaimStarter) -> Step:
    starter = starter_set().deck(action.deck)
    if starter is None:
        names = ", ".join(d.name for d in starter_set().decks)
        raise UnknownCardError(f"there is no starter deck called {shown(action.deck)} (starter decks: {names})")
    member = state.members.get(ctx.actor) or Member(id=ctx.actor, name=ctx.actor_name)
    if len(member.starter_decks) >= state.options.starter_claims:
        raise CardStateError(
            f"you have claimed {len(member.starter_decks)} starter deck{'s' if len(member.starter_decks) != 1 else ''}"
            f" already (each member may claim {state.options.starter_claims})"
        )
    by_name = {name_key(d.name): d for d in state.designs.values() if d.owner == STARTER}
    first = state.meta.next_copy
    made: dict[int, Copy] = {}
    for card, count in starter.entries:
        design = by_name.get(name_key(card))
        if design is None:
            raise CardStateError(f"this server's library lacks the starter card {card}")
        for _ in range(count):
            number = first + len(made)
            made[number] = Copy(
                id=number,
                design=design.id,
                version=design.current.number,
                owner=ctx.actor,
                minted_at=ctx.at,
                origin="starter",
            )
    deck_name = starter.name
    suffix = 2
    while deck_key(ctx.actor, deck_name) in state.decks:
        deck_name = f"{starter.name} {suffix}"
        suffix += 1
    deck = Deck(owner=ctx.actor, name=deck_name, copies=tuple(made), saved_at=ctx.at)
    member = member.model_copy(update={"starter_decks": (*member.starter_decks, starter.name)})
    state = state.model_copy(
        update={
            "copies": {**state.copies, **made},
            "decks": {**state.decks, deck_key(ctx.actor, deck_name): deck},
            "members": {**state.members, ctx.actor: member},
            "meta": state.meta.model_copy(update={"next_copy": first + len(made)}),
        }
    )
    text = (
        f"{ctx.actor_name} takes the starter deck {starter.name}: {len(made)} copies (copies {first}-"
        f"{first + len(made) - 1}), saved as the play deck {deck_name}."
    )
    return Step(state, (Note(text),))


def check_moves(state: LibraryState, action: MoveCopies) -> None:
    seen: set[int] = set()
    for move in action.moves:
        copy = state.copies.get(move.copy_id)
        if copy is None:
            raise UnknownCardError(f"there is no card copy {move.copy_id}")
        if copy.owner != move.giver:
            raise NotYoursError(f"card copy {move.copy_id} is not {state.name_of(move.giver)}'s")
        if move.copy_id in seen:
            raise CardInputError(f"card copy {move.copy_id} is named twice")
        seen.add(move.copy_id)
        battle = state.in_battle(move.copy_id)
        if battle is not None:
            raise CardStateError(in_battle_words(state, move.copy_id, battle.table or "?"))


def copy_name(state: LibraryState, number: int) -> str:
    """``card copy 12 (Fire Imp)``."""
    copy = state.copies.get(number)
    design = state.designs.get(copy.design) if copy is not None else None
    return f"card copy {number} ({design.name})" if design is not None else f"card copy {number}"


def in_battle_words(state: LibraryState, number: int, table: str) -> str:
    """Which copy is held in which battle, and when it is free again."""
    return (
        f"{copy_name(state, number)} is in a battle ({table}) and comes back when that battle ends"
        " (unless the winner takes it with the kitty)"
    )


def belong_words(state: LibraryState, numbers: list[int], taker: str) -> str:
    """``card copy 41 (Imp) now belongs to ben``; ``card copies 41 (Imp), 42 (Elf) now belong to ben``."""
    if len(numbers) == 1:
        return f"{copy_name(state, numbers[0])} now belongs to {taker}"
    listed = ", ".join(copy_name(state, n).removeprefix("card copy ") for n in numbers)
    return f"card copies {listed} now belong to {taker}"


def apply_moves(state: LibraryState, action: MoveCopies, at: datetime) -> Step:
    """Every copy to its taker, or (``check_moves`` raising) none."""
    check_moves(state, action)
    copies = dict(state.copies)
    for move in action.moves:
        copies[move.copy_id] = copies[move.copy_id].model_copy(update={"owner": move.taker, "origin": action.reason})
    return Step(state.model_copy(update={"copies": copies}))


def describe_copies(state: LibraryState, ids: tuple[int, ...], to: dict[int, str] | None = None) -> str:
    """What a trade's copies are (``card copy 12 is Fire Imp (#24 v2, by alice)``), or where each went."""
    parts = []
    for number in ids:
        copy = state.copies.get(number)
        design = state.designs.get(copy.design) if copy is not None else None
        if copy is None or design is None:
            parts.append(f"card copy {number} does not exist")
            continue
        made = f"#{design.id} v{copy.version}"
        maker = state.name_of(design.owner)
        if to is not None and number in to:
            taker = state.name_of(to[number])
            parts.append(f"card copy {number} ({design.name}, {made} by {maker}) now belongs to {taker}")
        else:
            parts.append(f"card copy {number} is {design.name} ({made}, by {maker})")
    return "; ".join(parts)
