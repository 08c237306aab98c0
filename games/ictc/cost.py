"""The cost grammar of a card, and the output of a Power card.

    cost   = "0" | ["+"] term {"+" term}
    term   = [INT] COLOUR | INT | "X" [COLOUR]
    output = oterm {"+" oterm}
    oterm  = [INT] COLOUR {"/" COLOUR} | INT

``2K+4`` is two black and four of any colour; ``2R+X`` two red and X of any; ``XK`` X paid in black;
a bare ``R`` is one red. A cost has at most one X, which counts as 0 wherever costs are compared.
An output names the power a Power card makes: ``R``, ``2G+1``, ``R/G`` (one red or one green, the
player's choice). Both are kept and printed in one canonical order, so ``parse(text(c)) == c``.
"""

from __future__ import annotations

import re

from pydantic import BaseModel, ConfigDict

from games.ictc.errors import CardInputError
from games.ictc.palette import COLOUR_NAMES, ORDER, colour_key

MAX_TERM = 20
"""No number in a cost or an output exceeds this."""
MAX_TOTAL = 30
"""A cost's power (X aside) is at most this."""
MAX_OUTPUT = 10
"""A Power card makes at most this much power."""
MAX_TEXT = 40

_COLOURED = re.compile(r"([0-9]*)([A-Z])")
_NUMBER = re.compile(r"[0-9]+")
_X = re.compile(r"X([A-Z]?)")
_CHOICE = re.compile(r"([0-9]*)([A-Z](?:/[A-Z])*)")


def _shown(text: str, limit: int = 20) -> str:
    visible = "".join(ch for ch in text if ch.isprintable() and ch not in "`@")
    return visible if len(visible) <= limit else visible[: limit - 1] + "…"


def _count(digits: str, where: str) -> int:
    if not digits:
        return 1
    if len(digits) > 4 or int(digits) > MAX_TERM:
        raise CardInputError(f"{digits} is too large for {where} (at most {MAX_TERM} in one term)")
    return int(digits)


def _letter(letter: str, letters: str, where: str) -> str:
    if letter not in letters:
        known = " ".join(letters)
        raise CardInputError(f"`{letter}` is not a colour of this server ({known}) in {where}")
    return letter


def _terms(text: str, what: str, example: str) -> list[str]:
    if len(text) > MAX_TEXT:
        raise CardInputError(f"that {what} is too long ({len(text)} characters); write it like {example}")
    compact = "".join(text.split()).upper()
    if not compact:
        raise CardInputError(f"write the {what}, e.g. {example}")
    bad = [ch for ch in compact if not (ch.isascii() and (ch.isalnum() or ch in "+/"))]
    if bad:
        raise CardInputError(
            f"`{_shown(bad[0])}` cannot be read in the {what} `{_shown(text)}`; write it like {example}"
        )
    return compact.split("+")


class Cost(BaseModel):
    """What a card costs: coloured power, power of any colour, and perhaps X."""

    model_config = ConfigDict(frozen=True)

    coloured: tuple[tuple[str, int], ...] = ()
    """(colour letter, count >= 1) in canonical colour order."""
    generic: int = 0
    x: str | None = None
    """None: no X; "": X of any colour; a letter: X paid in that colour."""

    @property
    def total(self) -> int:
        """The power the cost asks for, X counting as 0."""
        return self.generic + sum(n for _, n in self.coloured)

    @property
    def coloured_total(self) -> int:
        return sum(n for _, n in self.coloured)

    @property
    def letters(self) -> frozenset[str]:
        """The colours the cost asks for (an X's colour included)."""
        found = {c for c, _ in self.coloured}
        if self.x:
            found.add(self.x)
        return frozenset(found)

    def count(self, letter: str) -> int:
        return dict(self.coloured).get(letter, 0)

    def text(self) -> str:
        parts = [c if n == 1 else f"{n}{c}" for c, n in self.coloured]
        if self.generic:
            parts.append(str(self.generic))
        if self.x is not None:
            parts.append(f"X{self.x}")
        return "+".join(parts) if parts else "0"

    def words(self) -> str:
        """The cost in words, for a reader who does not know the letters yet."""
        if self.total == 0 and self.x is None:
            return "nothing"
        parts = [f"{n} {COLOUR_NAMES.get(c, c)}" for c, n in self.coloured]
        if self.generic:
            parts.append(f"{self.generic} of any colour")
        if self.x is not None:
            parts.append(f"X {COLOUR_NAMES.get(self.x, self.x)}" if self.x else "X of any colour")
        return ", ".join(parts)


def parse_cost(text: str, letters: str = ORDER) -> Cost:
    """Read a cost; ``letters`` are the colours of the server's palette. ``CardInputError`` says what is wrong."""
    example = "`2K+4`, `2R+X`, `XK` or `0`"
    terms = _terms(text, "cost", example)
    if terms == ["0"]:
        return Cost()
    if terms[0] == "" and len(terms) > 1:
        terms = terms[1:]  # "+X" is X
    coloured: dict[str, int] = {}
    generic = 0
    x: str | None = None
    for term in terms:
        if not term:
            raise CardInputError(f"the cost `{_shown(text)}` has an empty term; write it like {example}")
        if (m := _X.fullmatch(term)) is not None:
            if x is not None:
                raise CardInputError("a cost has at most one X")
            x = _letter(m.group(1), letters, "the cost") if m.group(1) else ""
        elif _NUMBER.fullmatch(term):
            count = _count(term, "a cost")
            if count == 0:
                raise CardInputError("a cost of 0 stands alone: write `0`, or leave the 0 out")
            generic += count
        elif "X" in term:
            raise CardInputError(f"`{_shown(term)}`: X stands alone or with one colour after it, e.g. `X` or `XK`")
        elif (m := _COLOURED.fullmatch(term)) is not None:
            count = _count(m.group(1), "a cost")
            if count == 0:
                raise CardInputError(f"`{term}` asks for no power; leave it out")
            letter = _letter(m.group(2), letters, "the cost")
            coloured[letter] = coloured.get(letter, 0) + count
        else:
            raise CardInputError(f"`{_shown(term)}` is not a cost term; write it like {example}")
    cost = Cost(coloured=tuple(sorted(coloured.items(), key=lambda kv: colour_key(kv[0]))), generic=generic, x=x)
    if cost.total > MAX_TOTAL or any(n > MAX_TERM for _, n in cost.coloured) or cost.generic > MAX_TERM:
        raise CardInputError(f"a cost of {cost.total} is too large (at most {MAX_TOTAL}, and {MAX_TERM} of a kind)")
    return cost


class Output(BaseModel):
    """The power a Power card makes each time it is tapped."""

    model_config = ConfigDict(frozen=True)

    units: tuple[tuple[str, int], ...]
    """(key, count): a key is a colour letter, a choice such as ``R/G``, or "" for any colour."""

    @property
    def total(self) -> int:
        return sum(n for _, n in self.units)

    @property
    def letters(self) -> frozenset[str]:
        return frozenset(letter for key, _ in self.units for letter in key.split("/") if letter)

    def text(self) -> str:
        parts = [str(n) if not key else key if n == 1 else f"{n}{key}" for key, n in self.units]
        return "+".join(parts)


def _unit_order(key: str) -> tuple[int, int, tuple[int, ...]]:
    letters = key.split("/") if key else []
    return (2 if not key else 0 if len(letters) == 1 else 1, len(letters), tuple(colour_key(c) for c in letters))


def parse_output(text: str, letters: str = ORDER) -> Output:
    """Read a Power card's output (``R``, ``2G+1``, ``R/G``); no X, at least one power."""
    example = "`R`, `2G`, `R/G` or `1`"
    units: dict[str, int] = {}
    for term in _terms(text, "output", example):
        if not term:
            raise CardInputError(f"the output `{_shown(text)}` has an empty term; write it like {example}")
        if "X" in term:
            raise CardInputError("an output has no X: name the power it makes, e.g. `R` or `2G`")
        if _NUMBER.fullmatch(term):
            key, count = "", _count(term, "an output")
        elif (m := _CHOICE.fullmatch(term)) is not None:
            count = _count(m.group(1), "an output")
            picked = m.group(2).split("/")
            for letter in picked:
                _letter(letter, letters, "the output")
            if len(set(picked)) != len(picked):
                raise CardInputError(f"`{term}` names a colour twice")
            key = "/".join(sorted(picked, key=colour_key))
        else:
            raise CardInputError(f"`{_shown(term)}` is not an output term; write it like {example}")
        if count == 0:
            raise CardInputError("an output term of 0 makes nothing; leave it out")
        units[key] = units.get(key, 0) + count
    output = Output(units=tuple(sorted(units.items(), key=lambda kv: _unit_order(kv[0]))))
    if output.total > MAX_OUTPUT:
        raise CardInputError(f"an output of {output.total} is too large (at most {MAX_OUTPUT})")
    return output
