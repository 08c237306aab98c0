"""What happened in a battle, as typed values; ``text(lang)`` is the sentence the thread shows.

``Said`` is for everyone; ``Told`` only for some seats (a drawn card, a hand shown to the caster who
chooses from it): the framework never lets it reach the thread, the board or another seat.
A ``Said`` may carry the number of the step it opens (``#12``), the number ``!undo`` takes.
"""

from __future__ import annotations

from dataclasses import dataclass

from games.ictc.battle.texts import t, tn

TURN_BEGINS = "turn.begins"


def _text(lang: str, key: str, fields: tuple[tuple[str, str], ...], count: int | None) -> str:
    found = dict(fields)
    return tn(lang, key, count, **found) if count is not None else t(lang, key, **found)


@dataclass(frozen=True, slots=True)
class Said:
    """A public sentence of the battle's catalogue."""

    key: str
    fields: tuple[tuple[str, str], ...] = ()
    count: int | None = None
    """For a sentence with a singular and a plural form."""
    number: int | None = None
    """The step this sentence opens, shown as ``#N``."""

    @property
    def begins_turn(self) -> bool:
        """A turn begins here: the table restarts its turn clock and shows the board (``games.tables``)."""
        return self.key == TURN_BEGINS

    def text(self, lang: str = "en") -> str:
        line = _text(lang, self.key, self.fields, self.count)
        return t(lang, "log.numbered", n=self.number, line=line) if self.number is not None else line


@dataclass(frozen=True, slots=True)
class Told:
    """A sentence for some seats only."""

    seats: frozenset[str]
    key: str
    fields: tuple[tuple[str, str], ...] = ()
    count: int | None = None

    @property
    def audience(self) -> frozenset[str]:
        return self.seats

    def text(self, lang: str = "en") -> str:
        return _text(lang, self.key, self.fields, self.count)


BattleEvent = Said | Told


def said(key: str, count: int | None = None, **fields: object) -> Said:
    return Said(key, tuple((k, str(v)) for k, v in fields.items()), count)


def told(to: str, key: str, count: int | None = None, **fields: object) -> Told:
    return Told(frozenset({to}), key, tuple((k, str(v)) for k, v in fields.items()), count)
