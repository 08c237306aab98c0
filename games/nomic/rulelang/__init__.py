"""The rule language: rule blocks that make the round's rules act by themselves.

A rule of the ruleset document may carry a fenced ```` ```rule ```` block. ``check_block`` reads it
(or says what is wrong and where); ``run`` says what a rule does on an occasion, reading the round
through a ``View``; ``apply_effects`` applies that by the rules of a moderator's correction. The
round's engine wakes the rules at their triggers (``triggers``). ``docs/rule-language.md`` is the
language's reference.
"""

from __future__ import annotations

from games.nomic.rulelang.effects import apply_effects
from games.nomic.rulelang.force import blocks_in_force, in_force, known_item_names
from games.nomic.rulelang.program import ItemKind, Program, Trigger, Use
from games.nomic.rulelang.run import Announcement, Change, Effect, Occasion, Stopped, Transfer, View, run
from games.nomic.rulelang.syntax import RUN_BUDGET, RuleBlockError, check_block
from games.nomic.rulelang.view import StateView

__all__ = [
    "RUN_BUDGET",
    "Announcement",
    "Change",
    "Effect",
    "ItemKind",
    "Occasion",
    "Program",
    "RuleBlockError",
    "StateView",
    "Stopped",
    "Transfer",
    "Trigger",
    "Use",
    "View",
    "apply_effects",
    "blocks_in_force",
    "check_block",
    "in_force",
    "known_item_names",
    "run",
]
