"""Which rule blocks are in force, compiled once per text, and the item kinds they make.

The blocks live in the ruleset document (``blocks_in_force`` reads them); everything else here
is keyed by the blocks' text, so a tick at thousands of players compiles nothing and finds the
rules a trigger wakes in one look-up.
"""

from __future__ import annotations

from dataclasses import field
from functools import lru_cache
from typing import TYPE_CHECKING

from games.nomic.items import same_kind_word
from games.values import valueclass

if TYPE_CHECKING:
    # the language itself (its programs and checker) loads with the first block in force: a round whose
    # document has none, and a process that only asks whether it has any, never pays for it
    from games.nomic.document import RuleDocument
    from games.nomic.rulelang.program import ItemKind, Program, Trigger
    from games.nomic.state import RoundState

Blocks = tuple[tuple[str, str], ...]
"""(rule number, rule block source) of each rule that has a block, in the document's order."""


def blocks_in_force(state: RoundState) -> Blocks:
    """The rule blocks of the ruleset document in force: the one place the language learns of them.

    Read once per document (a tick at thousands of players asks for them at every trigger): the last
    document seen and its blocks are kept, and a new document is a new object.
    """
    document = state.document
    seen = _LAST_SEEN.get("blocks")
    if seen is not None and seen[0] is document:
        return seen[1]
    found = tuple((rule.number, rule.block) for rule in document.rules() if rule.block.strip())
    _LAST_SEEN["blocks"] = (document, found)
    return found


_LAST_SEEN: dict[str, tuple[RuleDocument, Blocks]] = {}


@lru_cache(maxsize=1024)
def compiled(source: str) -> Program | None:
    """The program of a block (None: it no longer reads; blocks are checked when proposed)."""
    from games.nomic.rulelang.syntax import RuleBlockError, check_block

    try:
        return check_block(source)
    except RuleBlockError:
        return None


@valueclass
class Kinds:
    """The item kinds the rules in force make, by name; the first rule to make a name has it."""

    by_name: dict[str, ItemKind] = field(default_factory=dict)

    def find(self, typed: str) -> ItemKind | None:
        """The kind ``typed`` names, case aside and a plural ``s`` allowed."""
        exact = self.by_name.get(typed)
        if exact is not None:
            return exact
        words = typed.split()
        for name, kind in self.by_name.items():
            parts = name.split()
            if len(parts) == len(words) and all(same_kind_word(t, w) for t, w in zip(words, parts, strict=True)):
                return kind
        return None

    def names(self) -> tuple[str, ...]:
        return tuple(self.by_name)

    def proposal_makers(self) -> tuple[str, ...]:
        from games.nomic.rulelang.program import Use

        return tuple(sorted(name for name, kind in self.by_name.items() if kind.use is Use.PROPOSAL_MAKER))


@valueclass
class InForce:
    rules: tuple[tuple[str, Program], ...] = ()
    kinds: Kinds = field(default_factory=Kinds)
    by_trigger: dict[Trigger, tuple[tuple[str, Program], ...]] = field(default_factory=dict)


NOTHING_IN_FORCE = InForce()


def _number_key(number: str) -> tuple[int, ...]:
    parts = number.split(".")
    return tuple(int(p) if p.isdigit() else 0 for p in parts)


@lru_cache(maxsize=256)
def in_force_of(blocks: Blocks) -> InForce:
    """The compiled rules of ``blocks`` in rule-number order, indexed by trigger."""
    if not blocks:
        return NOTHING_IN_FORCE
    from games.nomic.rulelang.program import Trigger

    rules = [(number, program) for number, source in blocks if (program := compiled(source)) is not None]
    rules.sort(key=lambda pair: _number_key(pair[0]))
    kinds: dict[str, ItemKind] = {}
    probe = Kinds(kinds)
    by_trigger: dict[Trigger, list[tuple[str, Program]]] = {}
    for number, program in rules:
        for kind in program.kinds:
            if probe.find(kind.name) is None:
                kinds[kind.name] = kind
        for trigger in sorted(program.triggers, key=list(Trigger).index):
            by_trigger.setdefault(trigger, []).append((number, program))
    return InForce(tuple(rules), Kinds(kinds), {t: tuple(found) for t, found in by_trigger.items()})


def in_force(state: RoundState) -> InForce:
    return in_force_of(_blocks(state))


def _blocks(state: RoundState) -> Blocks:
    """``blocks_in_force`` looked up when called, so that it can be replaced as a whole."""
    return blocks_in_force(state)


def known_item_names(state: RoundState) -> tuple[str, ...]:
    """Every kind a command may name: those the rules in force make and those players still hold
    (a kind whose rule was repealed stays theirs to give, trade and count)."""
    names = dict.fromkeys(in_force(state).kinds.names())
    for player in state.players.values():
        if player.items:
            names.update(dict.fromkeys(player.items))
    return tuple(names)


def resolve_kind(state: RoundState, typed: str) -> str | None:
    """The held or made kind's name ``typed`` means, or None."""
    from games.nomic.rulelang.program import ItemKind, Use

    kind = in_force(state).kinds.find(typed)
    if kind is not None:
        return kind.name
    held = Kinds({name: ItemKind(name, Use.TOKEN) for name in known_item_names(state)})
    found = held.find(typed)
    return found.name if found is not None else None
