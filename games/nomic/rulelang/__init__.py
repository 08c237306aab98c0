"""The rule language: rule blocks that make the round's rules act by themselves.

A rule of the ruleset document may carry a fenced ```` ```rule ```` block. ``check_block`` reads it
(or says what is wrong and where); ``run.run`` says what a rule does on an occasion, reading the round
through a ``View``; ``apply_effects`` applies that by the rules of a moderator's correction. The
round's engine wakes the rules at their triggers (``triggers``). ``docs/rule-language.md`` is the
language's reference.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from games.nomic.rulelang.effects import apply_effects
    from games.nomic.rulelang.force import blocks_in_force, in_force, known_item_names
    from games.nomic.rulelang.program import ItemKind, Program, Trigger, Use
    from games.nomic.rulelang.run import Announcement, Change, Effect, Occasion, Stopped, Transfer, View
    from games.nomic.rulelang.syntax import RUN_BUDGET, RuleBlockError, check_block
    from games.nomic.rulelang.view import StateView

_HOME = {
    "apply_effects": "effects",
    **dict.fromkeys(("blocks_in_force", "in_force", "known_item_names"), "force"),
    **dict.fromkeys(("ItemKind", "Program", "Trigger", "Use"), "program"),
    **dict.fromkeys(("Announcement", "Change", "Effect", "Occasion", "Stopped", "Transfer", "View"), "run"),
    **dict.fromkeys(("RUN_BUDGET", "RuleBlockError", "check_block"), "syntax"),
    "StateView": "view",
}
"""Each name's module, loaded when the name is first asked for: the round imports ``force`` on every
start, the language only once a block is in force. (``run`` here is the module: its function of that name
is ``run.run``.)"""


def __getattr__(name: str) -> Any:
    home = _HOME.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(import_module(f"{__name__}.{home}"), name)
    globals()[name] = value
    return value


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
]
