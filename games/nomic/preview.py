"""A proposal's preview: what its rule blocks would have done over the last week, beside what happened.

When a proposal carrying a ```` ```rule ```` block is made, the round's service replays the last week's
log twice from the state the week began with (``games.nomic.service.preview_from_log``): once as it
happened, once with the proposal's amendment lines applied to the rules' text (the options left as they
were: a preview shows what the rules would have done, not what other values would have made of the
week). What differs between the two ends is the preview (``lines``): "alice +20 points", "bob +1
Standard Proposal-Maker". It is worked out once, when the proposal is made, and logged with it, so every
replay of the log answers the same.

The cost is bounded: at most ``BUDGET`` logged actions are replayed (the log up to the week's start once,
the week twice); a longer log gets a note instead of a preview.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime, timedelta

from games.nomic.amendments import Lapse, apply_changes
from games.nomic.items import kind_plural
from games.nomic.state import Player, RoundState, TextChange
from games.values import valueclass

WINDOW = timedelta(days=7)
"""How far back a preview looks."""
BUDGET = 10_000
"""Logged actions a preview may replay, counting the week's twice."""
SHOWN = 8
"""Players a preview names; the rest are counted."""
LENGTH = 700
"""Characters a preview takes at most, so the answer to its proposal stays within one message."""


def carries_rules(changes: Sequence[TextChange]) -> bool:
    """Whether a proposal's amendment lines give some rule a rule block (a preview is worth making)."""
    return any(change.block for change in changes)


@valueclass
class Replayed:
    """The week replayed: as it happened, and with the proposal's rules in force."""

    since: datetime
    actual: RoundState
    altered: RoundState
    actions: int
    """Logged actions replayed in each of the two."""
    refused: int = 0
    """Of those, the ones the rules would have refused with the proposal's rules in force."""
    lapsed: tuple[Lapse, ...] = ()
    """Amendment lines that did not apply to the rules as the week began."""


def with_rules(state: RoundState, changes: Sequence[TextChange]) -> tuple[RoundState, tuple[Lapse, ...]]:
    """``state`` with ``changes`` applied to its rules' text, each line that no longer applies left out;
    its options as they were."""
    applied = apply_changes(state.document, state.ruleset, changes, lapse=True)
    return state.model_copy(update={"document": applied.document}), applied.lapsed


def _holding(player: Player) -> dict[str, int]:
    return {"points": player.points, "spm": player.spm, **{f"item:{k}": n for k, n in player.items.items()}}


def _words(what: str, count: int) -> str:
    sign = "+" if count > 0 else "−"
    n = abs(count)
    if what == "points":
        return f"{sign}{n:,} point{'s' if n != 1 else ''}"
    if what == "spm":
        return f"{sign}{n:,} Standard Proposal-Maker{'s' if n != 1 else ''}"
    return f"{sign}{kind_plural(what.removeprefix('item:'), n)}"


def differences(actual: RoundState, altered: RoundState) -> list[tuple[str, str]]:
    """(player's name, what they would have had more or less, e.g. ``+20 points``) for each player whose
    holdings differ at the end of the two, by name."""
    out: list[tuple[str, str, str]] = []
    for player_id in sorted(actual.players.keys() & altered.players.keys()):
        was, would = _holding(actual.players[player_id]), _holding(altered.players[player_id])
        changed = [_words(what, would.get(what, 0) - was.get(what, 0)) for what in sorted({*was, *would}, key=_order)]
        changed = [c for c in changed if not c.startswith(("+0 ", "−0 "))]
        if changed:
            name = altered.players[player_id].name
            out.append((name.casefold(), name, ", ".join(changed)))
    return [(name, said) for _, name, said in sorted(out)]


def _order(what: str) -> tuple[int, str]:
    return ({"points": 0, "spm": 1}.get(what, 2), what)


def lines(replayed: Replayed) -> tuple[str, ...]:
    """The preview as the answer to the proposal gives it."""
    since = f"{replayed.since:%a %Y-%m-%d %H:%M} UTC"
    actions = f"{replayed.actions:,} logged action{'s' if replayed.actions != 1 else ''}"
    head = f"Preview: had it been in force since {since} ({actions} replayed), compared with what happened:"
    found = differences(replayed.actual, replayed.altered)
    tail: list[str] = []
    if replayed.refused:
        refused = replayed.refused
        tail.append(f"- {refused:,} logged action{'s' if refused != 1 else ''} would have been refused")
    tail.extend(f"- line {g.line} (rule {g.rule}) left out: {_cut(g.why, 100)}" for g in replayed.lapsed[:2])
    if not found:
        return (head, "- nothing would have changed: its rules would have given or taken nothing from anyone", *tail)
    room = LENGTH - sum(len(line) + 1 for line in (head, *tail)) - 30
    named: list[str] = []
    for name, said in found[:SHOWN]:
        line = _cut(f"- {name} {said}", 120)
        if room - len(line) - 1 < 0:
            break
        named.append(line)
        room -= len(line) + 1
    if len(found) > len(named):
        named.append(f"- and {len(found) - len(named):,} more players")
    return (head, *named, *tail)


def too_long(actions: int) -> tuple[str, ...]:
    """The note given instead of a preview when the log is longer than a preview may replay."""
    return (f"No preview: the round's log is longer than a preview may replay ({actions:,} actions).",)


def _cut(text: str, limit: int) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"
