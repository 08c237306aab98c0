"""What happened at a Sardini table, as typed values; ``text(lang)`` is the sentence the thread shows.

Every event is public except ``CardsDrawn``, which only its drawer sees (``audience``): a drawn card
is named nowhere else until it is played or goes out of play face up.
"""

from __future__ import annotations

from dataclasses import dataclass

from games.sardini.cards import codes
from games.sardini.texts import t, tn
from games.sardini.tricks import TRICKS


def trick_line(slot: int, trick: int, lang: str = "en") -> str:
    """``T2 · 7H Linking Rings: 3 cards in a run; 2 cards of the same rank``."""
    found = TRICKS[trick]
    return t(lang, "trick.line", slot=slot + 1, code=found.code, name=found.name, moves=found.text(lang))


@dataclass(frozen=True, slots=True)
class Drew:
    seat: str
    n: int
    nominal: int
    deck_left: int
    timed_out: bool = False

    def text(self, lang: str = "en") -> str:
        key = "event.drew_short" if self.n < self.nominal else "event.drew"
        line = tn(lang, key, self.n, seat=self.seat, nominal=self.nominal, left=self.deck_left)
        return t(lang, "event.time_draws", seat=self.seat) + " " + line if self.timed_out else line


@dataclass(frozen=True, slots=True)
class CardsDrawn:
    """The cards drawn, for the drawer's eyes only."""

    seat: str
    cards: tuple[int, ...]
    extra: bool = False

    @property
    def audience(self) -> frozenset[str]:
        return frozenset({self.seat})

    def text(self, lang: str = "en") -> str:
        return t(lang, "event.you_drew_extra" if self.extra else "event.you_drew", cards=codes(self.cards))


@dataclass(frozen=True, slots=True)
class Attempted:
    seat: str
    slot: int
    trick: int
    encore: bool = False

    def text(self, lang: str = "en") -> str:
        key = "event.attempts_encore" if self.encore else "event.attempts"
        return t(lang, key, seat=self.seat, trick=trick_line(self.slot, self.trick, lang))


@dataclass(frozen=True, slots=True)
class MoveMet:
    seat: str
    move: int
    """From 1."""
    move_text: str
    cards: tuple[int, ...]
    left: int
    """Moves still to do."""
    extra: bool
    """An extra card may be taken now."""

    def text(self, lang: str = "en") -> str:
        line = t(lang, "event.move_met", seat=self.seat, n=self.move, move=self.move_text, cards=codes(self.cards))
        if self.left:
            line += " " + tn(lang, "event.moves_left", self.left)
        if self.extra:
            line += " " + t(lang, "event.extra_offered", seat=self.seat)
        return line


@dataclass(frozen=True, slots=True)
class ExtraTaken:
    seat: str
    deck_left: int

    def text(self, lang: str = "en") -> str:
        return t(lang, "event.extra_taken", seat=self.seat, left=self.deck_left)


@dataclass(frozen=True, slots=True)
class ExtraSkipped:
    seat: str

    def text(self, lang: str = "en") -> str:
        return t(lang, "event.extra_skipped", seat=self.seat)


@dataclass(frozen=True, slots=True)
class Performed:
    seat: str
    trick: int
    won: int
    """Cards won: those played and the Trick card."""
    pile: int
    call: bool
    """The player now says "Act is over" or "Encore"."""

    def text(self, lang: str = "en") -> str:
        line = t(lang, "event.performed", seat=self.seat, name=TRICKS[self.trick].name, won=self.won, pile=self.pile)
        return line + " " + t(lang, "event.call", seat=self.seat) if self.call else line


@dataclass(frozen=True, slots=True)
class Called:
    seat: str
    encore: bool
    timed_out: bool = False

    def text(self, lang: str = "en") -> str:
        if self.encore:
            return t(lang, "event.encore", seat=self.seat)
        return t(lang, "event.over_timed_out" if self.timed_out else "event.over", seat=self.seat)


@dataclass(frozen=True, slots=True)
class Flipped:
    slot: int
    trick: int

    def text(self, lang: str = "en") -> str:
        return t(lang, "event.flipped", trick=trick_line(self.slot, self.trick, lang))


@dataclass(frozen=True, slots=True)
class Eliminated:
    seat: str
    trick: int
    why: str
    """``gave-up``, ``stuck`` (no Move left can be met) or ``time`` (the turn ran out)."""
    hand: tuple[int, ...]
    played: tuple[int, ...]
    stuck_on: str = ""
    """The Moves left, in words (when stuck)."""

    def text(self, lang: str = "en") -> str:
        name = TRICKS[self.trick].name
        line = t(lang, f"event.eliminated_{self.why.replace('-', '_')}", seat=self.seat, name=name, moves=self.stuck_on)
        shown = tuple(sorted(self.hand)) + tuple(sorted(self.played))
        if shown:
            line += " " + t(lang, "event.out_of_play", cards=codes(shown))
        return line


@dataclass(frozen=True, slots=True)
class TrickDiscarded:
    slot: int
    trick: int

    def text(self, lang: str = "en") -> str:
        return t(lang, "event.trick_out", slot=self.slot + 1, name=TRICKS[self.trick].name)


@dataclass(frozen=True, slots=True)
class GameOver:
    summary: str

    def text(self, lang: str = "en") -> str:
        del lang
        return self.summary
