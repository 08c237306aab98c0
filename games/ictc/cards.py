"""A card's fields, read from what a maker typed, with the hard checks (refuse) and soft checks (warn).

Hard checks keep out what cannot be a card at all: a cost that does not parse, a Soldier without a
combat rating (CR), a Power card that makes no power, a keyword the server never defined, a name
made of emoji. Soft checks are the seed's rules of thumb; they never refuse a card, they are shown
to its maker and to everyone asked to approve it.
"""

from __future__ import annotations

import hashlib
import re
import unicodedata
from collections.abc import Callable, Mapping
from enum import StrEnum
from functools import lru_cache

from pydantic import BaseModel, ConfigDict

from games.ictc.cost import Cost, Output, parse_cost, parse_output
from games.ictc.errors import CardCheckError, CardInputError
from games.ictc.palette import COLOUR_NAMES, Palette, colour_key, in_order
from games.ictc.script import Script, check_for_card, parse_script

MAX_NAME = 40
MAX_TEXT = 350
"""The seed's test: if the description does not fit on the card, it does too much."""
MAX_CR = 20
MAX_RESTRICTIONS = 5
MAX_RESTRICTION = 100
MAX_KEYWORDS = 6
MAX_KEYWORD_NUMBER = 10
MAX_FIELD = 1000
"""Longer raw input for any field is refused before it is read."""

_NAME_PUNCTUATION = set(" '’-.,!?&()")
_DAMAGE = re.compile(r"(\d{1,2})\s+damage", re.IGNORECASE)


class CardType(StrEnum):
    ACTION = "action"
    FLASH = "flash"
    POWER = "power"
    SOLDIER = "soldier"

    @property
    def display(self) -> str:
        return self.value.capitalize()


FIELDS = ("name", "type", "cost", "colours", "text", "cr", "output", "keywords", "restrictions", "script")
"""The keys a maker types, in the order a card shows them."""
FIELD_ALIASES = {
    "colors": "colours",
    "colour": "colours",
    "color": "colours",
    "description": "text",
    "desc": "text",
    "keyword": "keywords",
    "kw": "keywords",
    "restriction": "restrictions",
    "combat": "cr",
    "rating": "cr",
    "effects": "script",
    "effect": "script",
}
RULES_FIELDS = frozenset(FIELDS) - {"name"}
"""Changing any of these makes a new version of the design (and clears its approvals)."""


class Keyword(BaseModel):
    """A word of the server's glossary and what it means."""

    model_config = ConfigDict(frozen=True)

    name: str
    text: str
    takes_number: bool = False
    """Written with a number: ``Armor 2``."""
    builtin: bool = False
    """One of the starter keywords, which battles carry out; the others are text only."""
    defined_by: str | None = None


@lru_cache(maxsize=1024)
def script_of(text: str | None) -> Script | None:
    """A stored script's values (stored scripts are canonical and were checked when the card was made)."""
    return parse_script(text) if text else None


def shown(text: str, limit: int = 24) -> str:
    """User text made safe to quote in an answer: printable, no backticks or @, shortened."""
    visible = "".join(ch for ch in text if ch.isprintable() and ch not in "`@")
    return visible if len(visible) <= limit else visible[: limit - 1] + "…"


def check_name(text: str, what: str = "a card's name") -> str:
    """A name with single spaces; letters, digits and simple punctuation only, and at least one letter."""
    name = " ".join(text.split())
    if not name:
        raise CardInputError(f"{what} is missing")
    if len(name) > MAX_NAME:
        raise CardInputError(f"{what} is {len(name)} characters long; at most {MAX_NAME}")
    for ch in name:
        if ch in _NAME_PUNCTUATION:
            continue
        if unicodedata.category(ch)[0] not in {"L", "N"}:
            allowed = "letters, digits, spaces and ' - . , ! ? & ( )"
            shown_ch = ch if ch.isprintable() and ch != "`" else f"U+{ord(ch):04X}"
            raise CardInputError(f"{what} takes {allowed}, not `{shown_ch}`")
    if not any(unicodedata.category(ch).startswith("L") for ch in name):
        raise CardInputError(f"{what} needs at least one letter")
    return name


def name_key(name: str) -> str:
    return " ".join(name.split()).casefold()


class CardFields(BaseModel):
    """Everything printed on a card."""

    model_config = ConfigDict(frozen=True)

    name: str
    type: CardType
    cost: Cost
    colours: tuple[str, ...] = ()
    """The card's colours in canonical order; none for a colourless card."""
    text: str
    cr: int | None = None
    output: Output | None = None
    keywords: tuple[str, ...] = ()
    restrictions: tuple[str, ...] = ()
    script: str | None = None
    """What a battle carries out (``games.ictc.script``, in its canonical text); None: the card is played
    by hand. Part of the rules, so the approvers certify it with the version."""

    def rules_hash(self) -> str:
        """What approvals are tied to: every rules field (the name aside)."""
        body = self.model_dump_json(exclude={"name"})
        return hashlib.sha256(body.encode()).hexdigest()[:16]

    def raw(self) -> dict[str, str]:
        """The fields as a maker would type them (an edit changes some and keeps the rest)."""
        out = {
            "name": self.name,
            "type": self.type.value,
            "cost": self.cost.text(),
            "colours": " ".join(self.colours),
            "text": self.text,
            "keywords": ", ".join(self.keywords),
            "restrictions": "; ".join(self.restrictions),
        }
        if self.cr is not None:
            out["cr"] = str(self.cr)
        if self.output is not None:
            out["output"] = self.output.text()
        if self.script is not None:
            out["script"] = self.script
        return out

    def parsed_script(self) -> Script | None:
        """The script as values (None: no script)."""
        return script_of(self.script)

    def keyword_names(self) -> tuple[str, ...]:
        return tuple(k.split(" ")[0].casefold() for k in self.keywords)

    def colour_words(self) -> str:
        return " and ".join(COLOUR_NAMES.get(c, c) for c in self.colours) if self.colours else "colourless"


def field_key(word: str) -> str | None:
    low = word.strip().casefold()
    key = FIELD_ALIASES.get(low, low)
    return key if key in FIELDS else None


def parse_type(text: str) -> CardType:
    low = text.strip().casefold().rstrip("s")
    for kind in CardType:
        if low == kind.value:
            return kind
    raise CardInputError(f"`{shown(text)}` is not a card type; a card is an Action, a Flash, a Power or a Soldier")


def parse_colours(text: str, palette: Palette) -> tuple[str, ...]:
    """``R G``, ``RG``, ``r, g``, ``red green`` or nothing (colourless)."""
    words = [w for w in re.split(r"[\s,/+]+", text.strip()) if w]
    if not words or [w.casefold() for w in words] in (["none"], ["colourless"], ["colorless"], ["-"]):
        return ()
    by_name = {name: letter for letter, name in COLOUR_NAMES.items()} | {"black": "K", "colorless": "C"}
    found: list[str] = []
    for word in words:
        low = word.casefold()
        letters = [by_name[low]] if low in by_name else list(word.upper())
        for letter in letters:
            if letter not in palette.letters:
                raise CardInputError(
                    f"`{shown(word)}` is not a colour of this server: {palette.describe()} (or none, for colourless)"
                )
            found.append(letter)
    return in_order(tuple(found))


def parse_cr(text: str) -> int:
    raw = text.strip()
    if not raw.isascii() or not raw.isdigit() or len(raw) > 4:
        raise CardInputError(f"the CR must be a whole number, not `{shown(raw)}`")
    value = int(raw)
    if value < 1:
        raise CardInputError("a Soldier's CR is at least 1")
    if value > MAX_CR:
        raise CardInputError(f"a CR of {value} is too large (at most {MAX_CR})")
    return value


def parse_keywords(text: str, glossary: Mapping[str, Keyword]) -> tuple[str, ...]:
    """``Flight, Armor 2``: every word from the glossary (keyed by lower-case name), numbers where they take one."""
    found: list[str] = []
    for part in (p.strip() for p in re.split(r"[,;]", text)):
        if not part:
            continue
        words = part.split()
        number: int | None = None
        if len(words) > 1 and words[-1].isascii() and words[-1].isdigit():
            number = int(words[-1]) if len(words[-1]) <= 3 else MAX_KEYWORD_NUMBER + 1
            words = words[:-1]
        key = " ".join(words).casefold()
        entry = glossary.get(key)
        if entry is None:
            known = ", ".join(k.name for k in sorted(glossary.values(), key=lambda k: k.name.casefold()))
            raise CardInputError(
                f"`{shown(part)}` is not a keyword of this server (known: {known}); `!card keyword NAME: TEXT`"
                " defines a new one"
            )
        if entry.takes_number:
            if number is None:
                raise CardInputError(f"{entry.name} takes a number, e.g. `{entry.name} 2`")
            if not 1 <= number <= MAX_KEYWORD_NUMBER:
                raise CardInputError(f"{entry.name} takes a number from 1 to {MAX_KEYWORD_NUMBER}")
            written = f"{entry.name} {number}"
        else:
            if number is not None:
                raise CardInputError(f"{entry.name} takes no number")
            written = entry.name
        if any(k.split(" ")[0] == entry.name for k in found):
            raise CardInputError(f"{entry.name} is named twice")
        found.append(written)
    if len(found) > MAX_KEYWORDS:
        raise CardInputError(f"a card carries at most {MAX_KEYWORDS} keywords")
    return tuple(found)


def parse_restrictions(text: str) -> tuple[str, ...]:
    parts = [" ".join(p.split()) for p in re.split(r"[;\n]", text)]
    found = [p for p in parts if p]
    if len(found) > MAX_RESTRICTIONS:
        raise CardInputError(f"a card carries at most {MAX_RESTRICTIONS} restrictions (separate them with `;`)")
    for part in found:
        if len(part) > MAX_RESTRICTION:
            raise CardInputError(f"a restriction is {len(part)} characters long; at most {MAX_RESTRICTION}")
    return tuple(found)


def clean_text(text: str) -> str:
    """A description: control characters dropped (line breaks kept), spaces tidied."""
    kept = "".join(ch for ch in text if ch == "\n" or unicodedata.category(ch) not in {"Cc", "Cf", "Zl", "Zp"})
    lines = [" ".join(line.split()) for line in kept.split("\n")]
    return "\n".join(line for line in lines if line).strip()


def build_fields(raw: Mapping[str, str], palette: Palette, glossary: Mapping[str, Keyword]) -> CardFields:
    """A card from what its maker typed; every hard check at once (``CardCheckError`` lists each problem).

    Colours left out are the cost's colours (and the output's, for a Power card).
    """
    problems: list[str] = []
    for key, value in raw.items():
        if len(value) > MAX_FIELD and key != "text":
            problems.append(f"the {key} is {len(value):,} characters long; far too long")
    if problems:
        raise CardCheckError(problems)

    def attempt(read: Callable[[], object]) -> object:
        try:
            return read()
        except CardInputError as exc:
            problems.append(str(exc))
            return None

    name = attempt(lambda: check_name(raw.get("name", "")))
    kind = attempt(lambda: parse_type(raw.get("type", "")) if raw.get("type", "").strip() else _missing("type"))
    cost = attempt(
        lambda: parse_cost(raw["cost"], palette.letters) if raw.get("cost", "").strip() else _missing("cost")
    )
    text = clean_text(raw.get("text", ""))
    if not text:
        problems.append("the description (`text:`) is missing: say what the card does")
    elif len(text) > MAX_TEXT:
        problems.append(f"the description is {len(text):,} characters long; a card holds at most {MAX_TEXT}")
    cr: object = None
    output: object = None
    cr_text = raw.get("cr", "").strip()
    output_text = raw.get("output", "").strip()
    if kind is CardType.SOLDIER:
        cr = attempt(lambda: parse_cr(cr_text)) if cr_text else None
        if not cr_text:
            problems.append("a Soldier needs a combat rating: `cr: 2`")
    elif cr_text and isinstance(kind, CardType):
        problems.append(
            f"only Soldiers have a CR; this card is a{'n' if kind is CardType.ACTION else ''} {kind.display}"
        )
    if kind is CardType.POWER:
        output = attempt(lambda: parse_output(output_text, palette.letters)) if output_text else None
        if not output_text:
            problems.append("a Power card must say what power it makes: `output: R`")
    elif output_text and kind is not None:
        problems.append("only Power cards have an output")
    keywords = attempt(lambda: parse_keywords(raw.get("keywords", ""), glossary))
    restrictions = attempt(lambda: parse_restrictions(raw.get("restrictions", "")))
    script: object = None
    script_text = raw.get("script", "").strip()
    if script_text and script_text.casefold() not in {"none", "-"}:
        script = attempt(lambda: parse_script(script_text, palette.letters))
        if isinstance(script, Script) and isinstance(kind, CardType):
            problems.extend(check_for_card(script, kind.value))
            if script.uses_x and cost is not None and isinstance(cost, Cost) and cost.x is None:
                problems.append("the script uses X but the cost has no X")
    colours_text = raw.get("colours", "")
    colours: object
    if colours_text.strip():
        colours = attempt(lambda: parse_colours(colours_text, palette))
    else:
        found = set(cost.letters) if isinstance(cost, Cost) else set()
        if isinstance(output, Output):
            found |= output.letters
        colours = in_order(frozenset(found))
    if problems or not isinstance(name, str) or not isinstance(kind, CardType) or not isinstance(cost, Cost):
        raise CardCheckError(problems or ["the card could not be read"])
    return CardFields(
        name=name,
        type=kind,
        cost=cost,
        colours=colours if isinstance(colours, tuple) else (),
        text=text,
        cr=cr if isinstance(cr, int) else None,
        output=output if isinstance(output, Output) else None,
        keywords=keywords if isinstance(keywords, tuple) else (),
        restrictions=restrictions if isinstance(restrictions, tuple) else (),
        script=script.text() if isinstance(script, Script) and script.clauses else None,
    )


def _missing(key: str) -> object:
    example = {"type": "`type: soldier`", "cost": "`cost: 2R+1` (or `cost: 0`)"}[key]
    raise CardInputError(f"the {key} is missing: {example}")


# --- soft checks -------------------------------------------------------------------------------


def suggested_cost(fields: CardFields) -> int | None:
    """The seed's rule of thumb: 1 to play (none for a Flash), 1 a point of damage, 1 an ability,
    less 1 a restriction, and a Soldier's built-in restriction (it waits a turn). A Power card that
    makes one power costs nothing. None for a card with X (its damage is what X buys)."""
    if fields.cost.x is not None:
        return None
    if fields.type is CardType.POWER:
        return max(0, (fields.output.total if fields.output else 1) - 1)
    activation = 0 if fields.type is CardType.FLASH else 1
    soldier = fields.type is CardType.SOLDIER
    script = fields.parsed_script()
    if script is not None:
        dealt = script.damage() + script.abilities()
        restricted = max(len(fields.restrictions), len(script.restrictions))  # a restriction written and scripted
    else:
        dealt = sum(int(n) for n in _DAMAGE.findall(fields.text))
        restricted = len(fields.restrictions)
    damage = (fields.cr or 0) + (dealt if script is not None else 0) if soldier else dealt
    value = activation + damage + len(fields.keywords) - restricted
    if fields.type is CardType.SOLDIER:
        value -= 1
    return max(0, value)


def warnings(fields: CardFields) -> tuple[str, ...]:
    """The soft checks this card fails, in words, for its maker and its approvers."""
    found: list[str] = []
    cost = fields.cost
    if fields.type is CardType.SOLDIER and fields.cr is not None and cost.total < fields.cr:
        found.append(f"a Soldier usually costs at least its CR: this one costs {cost.total} for CR {fields.cr}")
    if cost.total > 2 and cost.coloured_total * 3 < cost.total:
        found.append(f"a cost over 2 is usually at least a third coloured: {cost.coloured_total} of {cost.total} here")
    asked = set(cost.letters) - {"C"}
    made = set(fields.output.letters) if fields.output is not None else set()
    card = set(fields.colours) - {"C"}
    found.extend(
        f"the cost asks for {COLOUR_NAMES[c]} but the card is not {COLOUR_NAMES[c]}"
        for c in sorted(asked - card, key=colour_key)
    )
    for letter in sorted(card - asked - made, key=colour_key):
        what = "its cost and its output ask" if fields.type is CardType.POWER else "its cost asks"
        found.append(f"the card is {COLOUR_NAMES[letter]} but {what} for no {COLOUR_NAMES[letter]}")
    suggested = suggested_cost(fields)
    if suggested is not None and abs(cost.total - suggested) >= 2:
        found.append(f"the seed's rule of thumb suggests a cost of about {suggested}; this card costs {cost.total}")
    return tuple(found)
