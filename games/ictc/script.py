"""A card's optional script: the small effect vocabulary a battle carries out, kept apart from its text.

The text on a card is for people and is always shown; the script is what the bot runs, and the
approvers certify it with the version (it is a rules field, so editing it makes a new version).
A card without a script is played by hand: the bot shows its text and the players adjust the table.

    script  = clause { ";" clause }
    clause  = [trigger ":"] effect { "&" effect }  |  "static:" restriction { "," restriction }
    trigger = "on play" | "on death" | "start of turn" | "tap" [COST]
    effect  = damage(T, N) | heal(T, N) | draw(P, N) | discard(P, N, owner|caster|random)
            | destroy(S) | cr_mod(S, ±N, eot|perm) | tap(S) | ready(S) | return_to_hand(S)
            | add_power(OUTPUT) | extra_power_play(N) | grant(S, KEYWORD, eot|perm) | prevent(T, N[, eot])
    N       = a whole number or X (the X paid for the card)
    T       = any | player | you | opponent | soldier... (a Soldier target: soldier, own_soldier,
              enemy_soldier, self, it, all_soldiers, own_soldiers, enemy_soldiers, each with an
              optional filter such as soldier[cr<=2, tapped, flight])
    restriction = cannot_attack | cannot_block

``it`` is the target chosen for the clause's previous effect (``damage(soldier, 2) & tap(it)``).
Targets the player picks (``any``, ``player``, ``soldier``, ``own_soldier``, ``enemy_soldier``) are
named when the card is played or its ability used; triggers other than ``on play`` and ``tap``
take only targets that need no choosing. ``tap`` clauses are abilities used by tapping the card,
paying the cost after ``tap`` (``tap 1R: damage(any, 1)``). The canonical text (``Script.text``)
reads back as the same script.
"""

from __future__ import annotations

import re
from typing import Literal

from pydantic import BaseModel, ConfigDict

from games.ictc.cost import Cost, Output, parse_cost, parse_output
from games.ictc.errors import CardInputError
from games.ictc.palette import ORDER

MAX_SCRIPT = 300
MAX_CLAUSES = 6
MAX_EFFECTS = 4
MAX_AMOUNT = 20

Trigger = Literal["play", "death", "turn", "tap", "static"]
TRIGGER_WORDS: dict[str, Trigger] = {
    "on play": "play",
    "on death": "death",
    "start of turn": "turn",
    "static": "static",
}
TRIGGER_TEXT: dict[str, str] = {"play": "on play", "death": "on death", "turn": "start of turn", "static": "static"}

CHOSEN = frozenset({"any", "player", "soldier", "own_soldier", "enemy_soldier"})
"""Targets the player names when playing the card (or using its ability)."""
PLAYERS = frozenset({"you", "opponent", "player"})
SOLDIERS = frozenset(
    {"soldier", "own_soldier", "enemy_soldier", "self", "it", "all_soldiers", "own_soldiers", "enemy_soldiers"}
)
TARGETS = PLAYERS | SOLDIERS | {"any"}
MASS = frozenset({"all_soldiers", "own_soldiers", "enemy_soldiers"})
RESTRICTIONS = frozenset({"cannot_attack", "cannot_block"})
CHOOSERS = frozenset({"owner", "caster", "random"})
KEYWORDS = {
    "flight": "Flight",
    "reach": "Reach",
    "haste": "Haste",
    "vigilant": "Vigilant",
    "armor": "Armor",
    "pierce": "Pierce",
}
"""The starter keywords a script may grant (a battle carries these out)."""

EffectName = Literal[
    "damage",
    "heal",
    "draw",
    "discard",
    "destroy",
    "cr_mod",
    "tap",
    "ready",
    "return_to_hand",
    "add_power",
    "extra_power_play",
    "grant",
    "prevent",
]
EFFECT_NAMES: tuple[str, ...] = (
    "damage",
    "heal",
    "draw",
    "discard",
    "destroy",
    "cr_mod",
    "tap",
    "ready",
    "return_to_hand",
    "add_power",
    "extra_power_play",
    "grant",
    "prevent",
)
_SHAPES: dict[str, tuple[str, ...]] = {
    "damage": ("target", "amount"),
    "heal": ("target", "amount"),
    "draw": ("player", "amount"),
    "discard": ("player", "amount", "chooser"),
    "destroy": ("soldier",),
    "cr_mod": ("soldier", "signed", "duration"),
    "tap": ("soldier",),
    "ready": ("soldier",),
    "return_to_hand": ("soldier",),
    "add_power": ("power",),
    "extra_power_play": ("count",),
    "grant": ("soldier", "keyword", "duration"),
    "prevent": ("target", "count"),
}
_EFFECT = re.compile(r"^([a-z_]+)\s*\((.*)\)$", re.DOTALL | re.IGNORECASE)
_FILTER = re.compile(r"^(cr)\s*(<=|>=|=|<|>)\s*(\d{1,2})$")
_TAP = re.compile(r"^tap(?:\s+(.+))?$")


class Target(BaseModel):
    """Who or what an effect acts on: a kind (``enemy_soldier``) and, for Soldiers, a filter."""

    model_config = ConfigDict(frozen=True)

    kind: str
    filter: tuple[str, ...] = ()

    @property
    def chosen(self) -> bool:
        return self.kind in CHOSEN

    @property
    def soldiers_only(self) -> bool:
        return self.kind in SOLDIERS

    def text(self) -> str:
        return self.kind + (f"[{', '.join(self.filter)}]" if self.filter else "")


class Effect(BaseModel):
    model_config = ConfigDict(frozen=True)

    name: EffectName
    target: Target | None = None
    amount: int = 0
    x: bool = False
    """The amount is X (with ``amount`` as its sign for ``cr_mod``: -1 or 1)."""
    duration: Literal["eot", "perm"] = "eot"
    chooser: str = "owner"
    keyword: str = ""
    power: Output | None = None

    def value(self, x: int) -> int:
        """The amount, X filled in."""
        return (x * (self.amount or 1)) if self.x else self.amount

    def text(self) -> str:
        amount = ("-X" if self.amount < 0 else "X") if self.x else str(self.amount)
        signed = ("+" if self.amount >= 0 and not self.x else "") + amount if self.name == "cr_mod" else amount
        target = self.target.text() if self.target is not None else ""
        args = {
            "damage": [target, amount],
            "heal": [target, amount],
            "draw": [target, amount],
            "discard": [target, amount, self.chooser],
            "destroy": [target],
            "cr_mod": [target, signed, self.duration],
            "tap": [target],
            "ready": [target],
            "return_to_hand": [target],
            "add_power": [self.power.text() if self.power is not None else ""],
            "extra_power_play": [str(self.amount)],
            "grant": [target, self.keyword, self.duration],
            "prevent": [target, str(self.amount)],
        }[self.name]
        return f"{self.name}({', '.join(args)})"


class Clause(BaseModel):
    model_config = ConfigDict(frozen=True)

    trigger: Trigger = "play"
    cost: Cost | None = None
    """A ``tap`` ability's power cost (None: tapping alone)."""
    effects: tuple[Effect, ...] = ()
    restrictions: tuple[str, ...] = ()

    def text(self) -> str:
        if self.trigger == "static":
            return "static: " + ", ".join(self.restrictions)
        body = " & ".join(e.text() for e in self.effects)
        if self.trigger == "play":
            return body
        if self.trigger == "tap":
            return ("tap " + self.cost.text() if self.cost is not None else "tap") + ": " + body
        return f"{TRIGGER_TEXT[self.trigger]}: {body}"

    @property
    def chosen(self) -> tuple[Effect, ...]:
        """The effects whose target the player names, in order."""
        return tuple(e for e in self.effects if e.target is not None and e.target.chosen)


class Script(BaseModel):
    model_config = ConfigDict(frozen=True)

    clauses: tuple[Clause, ...] = ()

    def text(self) -> str:
        return "; ".join(c.text() for c in self.clauses)

    def when(self, trigger: Trigger) -> tuple[Clause, ...]:
        return tuple(c for c in self.clauses if c.trigger == trigger)

    @property
    def restrictions(self) -> frozenset[str]:
        return frozenset(r for c in self.clauses for r in c.restrictions)

    @property
    def uses_x(self) -> bool:
        return any(e.x for c in self.clauses for e in c.effects)

    def damage(self) -> int:
        """Damage the script can deal (X counting 0): the seed's rule of thumb counts it in the cost."""
        return sum(e.amount for c in self.clauses for e in c.effects if e.name == "damage" and not e.x)

    def abilities(self) -> int:
        """Effects besides damage, and triggers: each counts as one in the rule of thumb."""
        return sum(1 for c in self.clauses for e in c.effects if e.name != "damage")


def _split(text: str, sep: str) -> list[str]:
    """``text`` split on ``sep`` outside parentheses and brackets."""
    parts: list[str] = []
    depth = 0
    current: list[str] = []
    for ch in text:
        if ch in "([":
            depth += 1
        elif ch in ")]":
            depth -= 1
        if ch == sep and depth == 0:
            parts.append("".join(current))
            current = []
        else:
            current.append(ch)
    parts.append("".join(current))
    return [p.strip() for p in parts]


def _shown(text: str, limit: int = 30) -> str:
    visible = "".join(ch for ch in text if ch.isprintable() and ch not in "`@")
    return visible if len(visible) <= limit else visible[: limit - 1] + "…"


def _target(text: str, allowed: frozenset[str], effect: str) -> Target:
    raw = text.strip().casefold()
    kind, _, rest = raw.partition("[")
    kind = kind.strip().replace(" ", "_")
    if kind not in allowed:
        known = ", ".join(sorted(allowed))
        raise CardInputError(f"`{_shown(text)}` is not a target {effect} takes; it takes {known}")
    filters: list[str] = []
    if rest:
        if not rest.endswith("]") or kind not in SOLDIERS or kind in {"self", "it"}:
            raise CardInputError(
                f"`{_shown(text)}`: a filter goes in brackets after a Soldier target, e.g. soldier[cr<=2]"
            )
        for word in (w.strip() for w in rest[:-1].split(",")):
            m = _FILTER.fullmatch(word.replace(" ", ""))
            if m is not None:
                filters.append(f"cr{m.group(2)}{int(m.group(3))}")
            elif word in {"tapped", "ready"} or word in KEYWORDS:
                filters.append(word)
            else:
                raise CardInputError(
                    f"`{_shown(word)}` is not a filter; use cr<=N, cr>=N, cr=N, tapped, ready or a keyword"
                )
    return Target(kind=kind, filter=tuple(filters))


def _amount(text: str, effect: str, *, signed: bool = False) -> tuple[int, bool]:
    raw = text.strip().upper().replace(" ", "")
    sign = 1
    if signed:
        if raw[:1] not in {"+", "-"}:
            raise CardInputError(f"{effect} takes a signed amount, e.g. +2 or -1")
        sign = -1 if raw[0] == "-" else 1
        raw = raw[1:]
    if raw == "X":
        return sign, True
    if not raw.isascii() or not raw.isdigit() or len(raw) > 3:
        raise CardInputError(f"`{_shown(text)}` is not an amount for {effect}: a whole number or X")
    value = int(raw)
    if not 1 <= value <= MAX_AMOUNT:
        raise CardInputError(f"{effect} takes an amount from 1 to {MAX_AMOUNT}, not {value}")
    return sign * value, False


def _duration(text: str) -> Literal["eot", "perm"]:
    word = text.strip().casefold()
    if word in {"eot", "end of turn"}:
        return "eot"
    if word in {"perm", "permanent"}:
        return "perm"
    raise CardInputError(f"`{_shown(text)}` is not a duration: eot (to the end of the turn) or perm")


def _count(text: str, effect: str) -> int:
    amount, x = _amount(text, effect)
    if x:
        raise CardInputError(f"{effect} takes a number, not X")
    return amount


def parse_effect(text: str, letters: str = ORDER) -> Effect:
    m = _EFFECT.fullmatch(text.strip())
    if m is None:
        names = ", ".join(EFFECT_NAMES)
        raise CardInputError(f"`{_shown(text)}` is not an effect; write NAME(ARGUMENTS) with NAME one of {names}")
    name, body = m.group(1).casefold(), m.group(2)
    if name not in _SHAPES:
        raise CardInputError(f"`{_shown(name)}` is not an effect; the effects are {', '.join(EFFECT_NAMES)}")
    shape = _SHAPES[name]
    args = _split(body, ",") if body.strip() else []
    optional = 1 if name == "prevent" and len(args) == 3 else 0
    if len(args) - optional != len(shape):
        raise CardInputError(
            f"{name} takes {len(shape)} argument{'s' if len(shape) != 1 else ''}: {name}({', '.join(shape)})"
        )
    if optional and _duration(args[2]) != "eot":
        raise CardInputError("prevent lasts to the end of the turn: prevent(TARGET, N) or prevent(TARGET, N, eot)")
    fields: dict[str, object] = {"name": name}
    for kind, arg in zip(shape, args, strict=False):
        if kind == "target":
            fields["target"] = _target(arg, frozenset(TARGETS), name)
        elif kind == "player":
            fields["target"] = _target(arg, PLAYERS, name)
        elif kind == "soldier":
            fields["target"] = _target(arg, SOLDIERS, name)
        elif kind == "amount":
            fields["amount"], fields["x"] = _amount(arg, name)
        elif kind == "signed":
            fields["amount"], fields["x"] = _amount(arg, name, signed=True)
        elif kind == "count":
            fields["amount"] = _count(arg, name)
        elif kind == "duration":
            fields["duration"] = _duration(arg)
        elif kind == "chooser":
            chooser = arg.strip().casefold()
            if chooser not in CHOOSERS:
                raise CardInputError(f"`{_shown(arg)}` is not who chooses: owner, caster or random")
            fields["chooser"] = chooser
        elif kind == "keyword":
            fields["keyword"] = _keyword(arg)
        elif kind == "power":
            fields["power"] = parse_output(arg, letters)
    return Effect.model_validate(fields)


def _keyword(text: str) -> str:
    words = text.strip().split()
    key = words[0].casefold() if words else ""
    if key not in KEYWORDS:
        raise CardInputError(f"`{_shown(text)}` is not a keyword a battle carries out: {', '.join(KEYWORDS.values())}")
    if key == "armor":
        if len(words) != 2 or not words[1].isascii() or not words[1].isdigit() or not 1 <= int(words[1]) <= 10:
            raise CardInputError("Armor takes a number from 1 to 10, e.g. Armor 2")
        return f"Armor {int(words[1])}"
    if len(words) != 1:
        raise CardInputError(f"{KEYWORDS[key]} takes no number")
    return KEYWORDS[key]


def parse_clause(text: str, letters: str = ORDER) -> Clause:
    head, sep, body = text.partition(":")
    trigger: Trigger = "play"
    cost: Cost | None = None
    if sep:
        word = " ".join(head.split()).casefold()
        tap = _TAP.fullmatch(word)
        if word in TRIGGER_WORDS:
            trigger = TRIGGER_WORDS[word]
        elif tap is not None:
            trigger = "tap"
            if tap.group(1):
                cost = parse_cost(tap.group(1), letters)
                if cost.x is not None:
                    raise CardInputError("an ability's cost has no X")
                if cost.total == 0:
                    cost = None
        else:
            raise CardInputError(
                f"`{_shown(head)}` is not a trigger; use on play, on death, start of turn, tap [COST] or static"
            )
    else:
        body = head
    if trigger == "static":
        found = tuple(dict.fromkeys(w.strip().casefold().replace(" ", "_") for w in body.split(",") if w.strip()))
        bad = [w for w in found if w not in RESTRICTIONS]
        if bad or not found:
            raise CardInputError(f"`{_shown(body)}`: static takes {', '.join(sorted(RESTRICTIONS))}")
        return Clause(trigger="static", restrictions=found)
    parts = [p for p in _split(body, "&") if p]
    if not parts:
        raise CardInputError("a clause needs at least one effect, e.g. damage(any, 2)")
    if len(parts) > MAX_EFFECTS:
        raise CardInputError(f"a clause carries at most {MAX_EFFECTS} effects")
    effects = tuple(parse_effect(p, letters) for p in parts)
    if effects[0].target is not None and effects[0].target.kind == "it":
        raise CardInputError("`it` is the target of the effect before it: the first effect cannot use it")
    if trigger in {"death", "turn"} and any(e.target is not None and e.target.chosen for e in effects):
        raise CardInputError(
            f"a {TRIGGER_TEXT[trigger]} clause happens by itself: its targets need no choosing (you, opponent, self,"
            " all_soldiers...)"
        )
    return Clause(trigger=trigger, cost=cost, effects=effects)


def parse_script(text: str, letters: str = ORDER) -> Script:
    """Read a script (``CardInputError`` says what is wrong); empty text is no script."""
    if len(text) > MAX_SCRIPT:
        raise CardInputError(f"the script is {len(text)} characters long; at most {MAX_SCRIPT}")
    parts = [p for p in _split(" ".join(text.split()), ";") if p]
    if len(parts) > MAX_CLAUSES:
        raise CardInputError(f"a script has at most {MAX_CLAUSES} clauses")
    return Script(clauses=tuple(parse_clause(p, letters) for p in parts))


def check_for_card(script: Script, card_type: str) -> list[str]:
    """The hard checks a script must pass on a card of ``card_type`` (problems in words; empty: fine)."""
    problems: list[str] = []
    triggers = {c.trigger for c in script.clauses}
    if card_type in {"action", "flash"}:
        other = triggers - {"play"}
        if other:
            words = ", ".join(TRIGGER_TEXT.get(t, t) for t in sorted(other))
            problems.append(f"an {card_type.capitalize()} card's script happens when it is played, not {words}")
    if card_type == "power" and triggers & {"death", "static"}:
        problems.append("a Power card's script has no on death or static clauses")
    if card_type != "soldier" and "static" in triggers:
        problems.append("only a Soldier has static restrictions")
    if card_type == "flash":
        lasting = [
            e.name for c in script.clauses for e in c.effects if e.name in {"cr_mod", "grant"} and e.duration != "eot"
        ]
        if lasting:
            problems.append(f"a Flash card's effects end by the end of the turn: {', '.join(lasting)} must be eot")
    if card_type in {"action", "flash"} and any(
        e.target is not None and e.target.kind == "self" for c in script.clauses for e in c.effects
    ):
        problems.append(f"an {card_type.capitalize()} card does not stay in play: it has no self")
    return problems
