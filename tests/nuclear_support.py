"""Helpers of the 關你核四 tests: a table arranged card by card, moves typed as text, events as text."""

from __future__ import annotations

import random
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from games.nuclear import rules
from games.nuclear.cards import ALL_IDS, sort_cards
from games.nuclear.engine import ENGINE
from games.nuclear.state import NuclearOptions, NuclearState
from games.tables.engine import GameEvent, audience_of

SEATS = ("ann", "bob", "cat", "dan", "eve", "fay", "gus", "hal")


def seats(n: int) -> tuple[str, ...]:
    return SEATS[:n]


def game(n: int = 4, seed: int = 1, **options: Any) -> NuclearState:
    return rules.new_game(seats(n), NuclearOptions(**options), random.Random(seed))


def arranged(
    state: NuclearState,
    hands: Mapping[str, Sequence[str]] | None = None,
    *,
    deck: Sequence[str] | None = None,
    discard: Sequence[str] = (),
    passed: Mapping[str, Sequence[str]] | None = None,
    stances: Sequence[str] | None = None,
    **update: Any,
) -> NuclearState:
    """``state`` with exactly these hands (by seat), passed piles, discard pile and deck top; every
    other card keeps its place, and cards pushed out of a hand go to the bottom of the deck, so each
    card is still in one place."""
    hands = dict(hands or {})
    passed = dict(passed or {})
    named = {c for cards in (*hands.values(), *passed.values(), discard, deck or ()) for c in cards}
    new_hands = []
    pushed: list[str] = []
    for i, seat in enumerate(state.seats):
        if seat in hands:
            pushed += [c for c in state.hands[i] if c not in named]
            new_hands.append(sort_cards(list(hands[seat])))
        else:
            new_hands.append(tuple(c for c in state.hands[i] if c not in named))
    new_passed = tuple(
        sort_cards(list(passed[seat])) if seat in passed else tuple(c for c in state.passed[i] if c not in named)
        for i, seat in enumerate(state.seats)
    )
    rest = [c for c in (*state.deck, *pushed) if c not in named and c not in state.removed]
    new_deck = (*(deck or ()), *rest) if deck is not None else tuple(rest)
    old_discard = [c for c in state.discard if c not in named]
    fields: dict[str, Any] = {
        "hands": tuple(new_hands),
        "passed": new_passed,
        "deck": tuple(new_deck),
        "discard": (*old_discard, *discard),
    }
    if stances is not None:
        fields["stances"] = tuple(stances)
    fields.update(update)
    new = state.model_copy(update=fields)
    assert sorted(
        [*new.deck, *new.discard, *new.removed, *(c for h in new.hands for c in h), *(c for p in new.passed for c in p)]
    ) == sorted(ALL_IDS), "arranged keeps every card once"
    return new


def act(state: NuclearState, seat: str, text: str, seed: int = 0) -> tuple[NuclearState, tuple[GameEvent, ...]]:
    """A move typed as text, checked and applied; the invariants must hold after it."""
    action = ENGINE.parse_action(state, seat, text)
    new, events = ENGINE.apply(state, seat, action, random.Random(seed))
    assert ENGINE.invariants(new) == [], ENGINE.invariants(new)
    return new, events


def acts(state: NuclearState, moves: Iterable[tuple[str, str]]) -> tuple[NuclearState, list[GameEvent]]:
    out: list[GameEvent] = []
    for seat, text in moves:
        state, events = act(state, seat, text)
        out += events
    return state, out


def public(events: Iterable[GameEvent], lang: str = "en") -> str:
    return "\n".join(e.text(lang) for e in events if audience_of(e) is None)


def private(events: Iterable[GameEvent], seat: str, lang: str = "en") -> str:
    return "\n".join(e.text(lang) for e in events if (audience_of(e) or frozenset()) >= {seat})
