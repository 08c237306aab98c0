"""How close two designs are, and what that means for a submission.

Only cards of the same type are compared. The score mixes the description's text (``difflib``'s
ratio, with the restrictions), the cost (each colour within one counts as the same), the CR or the
output, and the keywords (Jaccard). A card with a script whose type, cost, CR or output and script
are another's is the same card in a battle whatever its words: it scores 1. Against another member's
*protected* design, a score of ``block_at`` (0.85) or more refuses the submission and one of
``flag_at`` (0.6) or more flags it for the approvers. Copying an unprotected design is allowed; the
three nearest designs are always shown.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterable
from dataclasses import dataclass
from enum import StrEnum

from games.ictc.cards import CardFields, CardType, script_of
from games.ictc.cost import Cost
from games.ictc.state import Design, LibraryOptions, Near

NEAREST = 3

_WEIGHTS: dict[CardType, tuple[float, float, float, float]] = {
    # text, cost, CR or output, keywords
    CardType.SOLDIER: (0.45, 0.2, 0.15, 0.2),
    CardType.POWER: (0.45, 0.15, 0.2, 0.2),
    CardType.ACTION: (0.55, 0.25, 0.0, 0.2),
    CardType.FLASH: (0.55, 0.25, 0.0, 0.2),
}


def _near_number(a: int, b: int) -> float:
    """1 within one of each other, then less by a third a step."""
    diff = abs(a - b)
    return 1.0 if diff <= 1 else max(0.0, 1.0 - (diff - 1) / 3)


def cost_similarity(a: Cost, b: Cost) -> float:
    slots = [
        _near_number(a.count(c), b.count(c)) for c in sorted({c for c, _ in a.coloured} | {c for c, _ in b.coloured})
    ]
    if a.generic or b.generic:
        slots.append(_near_number(a.generic, b.generic))
    if a.x is not None or b.x is not None:
        slots.append(1.0 if a.x == b.x else 0.5 if a.x is not None and b.x is not None else 0.0)
    return sum(slots) / len(slots) if slots else 1.0


def _jaccard(a: Iterable[str], b: Iterable[str]) -> float:
    left, right = set(a), set(b)
    if not left and not right:
        return 1.0
    return len(left & right) / len(left | right)


_WORD = re.compile(r"\w+")


def _words(fields: CardFields) -> tuple[str, ...]:
    """The description and restrictions as lower-case words (punctuation and spacing do not count)."""
    return tuple(_WORD.findall(" ".join([fields.text, *fields.restrictions]).casefold()))


def text_similarity(a: str | tuple[str, ...], b: str | tuple[str, ...]) -> float:
    """``difflib``'s ratio over the words, the same whichever text comes first.

    Words rather than characters: a copied sentence scores high however it is spaced, and a
    comparison costs a tenth as much, which keeps a submission's check against a large library fast.
    """
    left = a if isinstance(a, tuple) else tuple(_WORD.findall(a.casefold()))
    right = b if isinstance(b, tuple) else tuple(_WORD.findall(b.casefold()))
    if not left and not right:
        return 1.0
    first, second = sorted((left, right))
    return difflib.SequenceMatcher(None, first, second, autojunk=False).ratio()


def _script(text: str | None) -> str | None:
    """A stored script as a battle reads it (spacing and case aside): its canonical text."""
    script = script_of(text)
    return script.text() if script is not None and script.clauses else None


def same_rules(a: CardFields, b: CardFields) -> bool:
    """Whether a battle carries out both cards alike: the same type, cost, CR or output and script.

    Only cards with a script: without one a card's words are its rules, and a bare cost and CR (a
    Soldier that only fights) are nobody's design. Nearly the same rules (a cost one apart) are
    another card, left to the score.
    """
    if a.type is not b.type or a.script is None or b.script is None:
        return False
    if (a.cost, a.cr, a.output) != (b.cost, b.cr, b.output):
        return False
    return a.script == b.script or _script(a.script) == _script(b.script)


def similarity(a: CardFields, b: CardFields) -> float:
    """0 (nothing alike, or different types) to 1 (the same card, whatever its name, or the same rules
    in a battle whatever its words)."""
    if a.type is not b.type:
        return 0.0
    if same_rules(a, b):
        return 1.0
    w_text, w_cost, w_stat, w_kw = _WEIGHTS[a.type]
    score = w_text * text_similarity(_words(a), _words(b)) + w_cost * cost_similarity(a.cost, b.cost)
    score += w_kw * _jaccard(a.keyword_names(), b.keyword_names())
    if a.type is CardType.SOLDIER:
        score += w_stat * _near_number(a.cr or 0, b.cr or 0)
    elif a.type is CardType.POWER:
        same = a.output == b.output
        units_a = {f"{k}:{n}" for k, n in (a.output.units if a.output else ())}
        units_b = {f"{k}:{n}" for k, n in (b.output.units if b.output else ())}
        score += w_stat * (1.0 if same else _jaccard(units_a, units_b))
    return round(min(1.0, max(0.0, score)), 4)


class Closeness(StrEnum):
    BLOCK = "block"
    FLAG = "flag"
    FREE = "free"


def closeness(score: float, options: LibraryOptions) -> Closeness:
    """What a score against another member's protected design means."""
    if score >= options.block_at:
        return Closeness.BLOCK
    if score >= options.flag_at:
        return Closeness.FLAG
    return Closeness.FREE


@dataclass(frozen=True)
class Assessment:
    blocked: tuple[Near, ...]
    flags: tuple[Near, ...]
    nearest: tuple[Near, ...]


def assess(
    fields: CardFields, owner: str, design_id: int | None, library: Iterable[Design], options: LibraryOptions
) -> Assessment:
    """Compare a submission with every design others can see (its own earlier self aside)."""
    scored: list[Near] = []
    for other in library:
        if other.id == design_id or not other.visible:
            continue
        score = similarity(fields, other.current.fields)
        protected = other.protected and other.owner != owner and other.status.value != "blocked"
        scored.append(Near(design=other.id, name=other.name, owner=other.owner, score=score, protected=protected))
    scored.sort(key=lambda n: (-n.score, n.design))
    guarded = [n for n in scored if n.protected]
    blocked = tuple(n for n in guarded if closeness(n.score, options) is Closeness.BLOCK)
    flags = tuple(n for n in guarded if closeness(n.score, options) is Closeness.FLAG)
    nearest = tuple(n for n in scored if n.score > 0)[:NEAREST]
    return Assessment(blocked=blocked, flags=flags, nearest=nearest)
