"""What the versions of the ruleset did to its text: the changes between two versions, rule by rule, and one
rule's history. The answers (``games.nomic.views``), the week's review and the web record show them, each
in its own form.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from enum import StrEnum

from games.nomic.document import Rule, RuleDocument, render, rule_key, show, slots
from games.nomic.state import RulesetVersion
from games.values import valueclass


class Fate(StrEnum):
    """What became of a rule from one version to another."""

    NEW = "new"
    GONE = "gone"
    CHANGED = "changed"


@valueclass
class RuleChange:
    """One rule that differs between two versions."""

    fate: Fate
    number: str
    title: str
    """Its title in the later version (in the earlier one, when it is gone)."""
    old_title: str
    """Its title in the earlier version ("" when it is new)."""
    before: str
    """Its text as it read in the earlier version, values plain ("" when it is new)."""
    after: str
    """... and in the later one ("" when it is gone)."""
    block_changed: bool = False
    block: str = ""
    """Its rule block in the later version."""
    values: tuple[tuple[str, str, str], ...] = ()
    """(option, was, is) for each option the rule binds whose value changed."""
    reworded: bool = False
    """Its words changed, not only the values bound into them (a value alone is an option's change)."""

    @property
    def retitled(self) -> bool:
        return self.fate is Fate.CHANGED and self.old_title != self.title


def _ordered(numbers: set[str]) -> list[str]:
    return sorted(numbers, key=rule_key)


def changes_between(
    a: RuleDocument, b: RuleDocument, before: Mapping[str, object], after: Mapping[str, object]
) -> list[RuleChange]:
    """Rule by rule, in number order, what differs between document ``a`` (options ``before``) and ``b``
    (options ``after``): a rule that is new, gone, or reads, is titled or acts otherwise."""
    old: dict[str, Rule] = {r.number: r for r in a.rules()}
    new: dict[str, Rule] = {r.number: r for r in b.rules()}
    out: list[RuleChange] = []
    for number in _ordered({*old, *new}):
        x, y = old.get(number), new.get(number)
        if y is None and x is not None:
            out.append(RuleChange(Fate.GONE, number, x.title, x.title, render(x.text, before, bold=False), ""))
        elif x is None and y is not None:
            text = render(y.text, after, bold=False)
            out.append(RuleChange(Fate.NEW, number, y.title, "", "", text, bool(y.block.strip()), y.block))
        elif x is not None and y is not None:
            was, now = render(x.text, before, bold=False), render(y.text, after, bold=False)
            if was == now and x.title == y.title and x.block == y.block:
                continue
            moved = tuple(
                (p, show(before[p]), show(after[p])) for p in slots(y.text) if p in before and before[p] != after[p]
            )
            change = RuleChange(Fate.CHANGED, number, y.title, x.title, was, now, x.block != y.block, y.block, moved)
            out.append(replace(change, reworded=x.text != y.text))
    return out


@valueclass
class RuleVersion:
    """A version that changed what one rule says."""

    version: RulesetVersion
    text: str | None
    """The rule as this version reads it, values plain (None: it is not in this version)."""
    previous: str | None
    """... and as the version before read it."""
    first: bool
    """The first version there is: the rule was in force from the start."""


def rule_versions(number: str, versions: Sequence[RulesetVersion]) -> list[RuleVersion]:
    """Each version that changed what rule ``number`` says (its text, or a value it binds), oldest first.
    ``versions``: every version (the archived ones too), in any order."""
    ordered = sorted({v.version: v for v in versions}.values(), key=lambda v: v.version)
    entries: list[RuleVersion] = []
    previous: str | None = None
    for version in ordered:
        found = version.document.rule(number)
        now = render(found.text, version.ruleset.option_paths(), bold=False) if found is not None else None
        if now != previous:
            entries.append(RuleVersion(version, now, previous, version.version == ordered[0].version))
        previous = now
    return entries


def version_changes(previous: RulesetVersion, version: RulesetVersion) -> list[RuleChange]:
    """What ``version`` changed in the text of the one before it."""
    return changes_between(
        previous.document, version.document, previous.ruleset.option_paths(), version.ruleset.option_paths()
    )
