"""An ICTC battle as frozen pydantic values; the rules copy them on change.

Seats are indexes 0 and 1 into ``seats``. Cards are numbered from 1 in the order the decks were
brought (``cards[id - 1]``); each card is in exactly one zone of its owner's side: the deck, the
hand, in play (with its status), the grave, the kitty, or the Flash cards played this turn.
``invariants`` checks it after every action in self-play. A card's number is shown only once the
card is public, so it gives nothing away.

``history`` is every step the battle took (a seat's move, a referee's ruling, a deadline), in
order: with ``seed``, ``defs`` and ``cards`` it rebuilds the battle as it stood before any step
(the mutual "undo to before action N").
"""

from __future__ import annotations

from collections.abc import Mapping
from enum import StrEnum
from functools import cached_property
from typing import Literal

from pydantic import Field
from pydantic.json_schema import SkipJsonSchema

from games.ictc.cards import CardFields, CardType, script_of
from games.ictc.cost import Output
from games.ictc.script import KEYWORDS, Clause, Script
from games.tables.frozen import Frozen

SEATS = 2
START_HEALTH = 25
HAND_SIZE = 7
HAND_LIMIT = 10
LOG_KEPT = 12
"""Public log lines the board keeps (the thread keeps them all)."""
PLAYER = "P"
"""A player as a target: ``P0`` or ``P1``."""


class _Value(Frozen):
    """A frozen value of the battle (the rules copy it at every change: ``Frozen``)."""


class BattleOptions(_Value):
    """Every point the source leaves open that a table may change, with the default this engine plays."""

    ante: bool = Field(
        default=True,
        description="the winner takes the kitty (the cards flipped to decide who goes first); only decks of"
        " members' own copies, brought by !challenge, have a kitty to take",
    )
    flash_seconds: int = Field(30, ge=5, le=3600, description="how long each Flash window waits for an answer")
    turn_cap: int | None = Field(
        60, ge=2, le=500, description="after this many turns the game ends and the higher health wins; none: no cap"
    )
    empty_deck: Literal["skip", "lose"] = Field(
        "skip", description="a player who must draw at the start of their turn from an empty deck skips it, or loses"
    )
    first_draw: bool = Field(
        default=True, description="the first player draws on the first turn too (as the seed reads)"
    )
    judge_hours: int = Field(24, ge=1, le=24 * 14, description="how long a disputed adjustment waits for its judge")
    ai_deck: str = Field(
        "any", max_length=40, description="the starter deck a computer player brings; any: one the other seat does not"
    )


class DeckCard(_Value):
    """One card of a deck brought to a battle: its design's fields at its version, and the copy if any."""

    defn: int
    """Index into the setup's (or the state's) ``defs``."""
    copy_id: int | None = None


class CardDef(_Value):
    """One design version as the battle plays it."""

    fields: CardFields
    design: int | None = None
    version: int | None = None

    @property
    def name(self) -> str:
        return self.fields.name

    @cached_property
    def script(self) -> Script | None:
        return script_of(self.fields.script)

    @property
    def kind(self) -> CardType:
        return self.fields.type

    @cached_property
    def keywords(self) -> frozenset[str]:
        """The printed starter keywords, lower case (``armor 2`` keeps its number)."""
        return frozenset(k.casefold() for k in self.fields.keywords if k.split(" ")[0].casefold() in KEYWORDS)

    @cached_property
    def keyword_names(self) -> frozenset[str]:
        """``keywords`` without their numbers (``armor``)."""
        return frozenset(k.split(" ")[0] for k in self.keywords)

    @cached_property
    def play_clauses(self) -> tuple[Clause, ...]:
        """The clauses that happen when the card is played."""
        return self.script.when("play") if self.script is not None else ()

    @cached_property
    def tap_clauses(self) -> tuple[Clause, ...]:
        """The abilities used by tapping the card."""
        return self.script.when("tap") if self.script is not None else ()

    @cached_property
    def restrictions(self) -> frozenset[str]:
        script = self.script
        return script.restrictions if script is not None else frozenset()


class BattleSetup(_Value):
    """What a seat brings: a starter deck by name (practice), or, from a challenge, its owner's copies.

    ``defs``, ``cards`` and ``owner`` are filled in by the card library when a challenge is accepted
    and cannot be typed (``SkipJsonSchema``: no help or form offers them); ``deck`` alone names a starter
    deck (Ember, Grove, Tide).
    """

    deck: str = Field("", max_length=40, description="a starter deck to play with (Ember, Grove or Tide)")
    defs: SkipJsonSchema[tuple[CardDef, ...]] = ()
    cards: SkipJsonSchema[tuple[DeckCard, ...]] = ()
    owner: SkipJsonSchema[str | None] = None
    """The member whose copies ``cards`` are (a kitty moves them)."""


class Card(_Value):
    """One card of the battle (its number is its place in ``BattleState.cards`` plus one)."""

    defn: int
    owner: int
    copy_id: int | None = None


class Phase(StrEnum):
    CUT = "cut"
    """Each player cuts the other's shuffled deck."""
    POWER = "power"
    """Power-Up: the active player may put one Power card into play."""
    ACTION = "action"
    DEFEND = "defend"
    """The defender declares blockers."""
    SPLIT = "split"
    """Soldiers that fight several others have their damage split by their controllers."""
    DISCARD = "discard"
    """Regroup: the active player discards down to the hand limit."""
    OVER = "over"


# Enum members used on every move, read once: in Python 3.11 reading a member through its enum class
# costs some twenty times a plain name.
_OVER = Phase.OVER


class Permanent(_Value):
    """A card in play (a Soldier or a Power card) and its state."""

    card: int
    tapped: bool = False
    damage: int = 0
    new: bool = True
    """Came into play this turn: a Soldier cannot attack or use a tap ability yet, unless it has Haste."""
    cr_perm: int = 0
    cr_eot: int = 0
    grants: tuple[str, ...] = ()
    """Keywords given for good."""
    grants_eot: tuple[str, ...] = ()
    shield: int = 0
    """Damage still to prevent this turn."""
    armor_used: int = 0
    """Damage Armor prevented in this combat."""


class Side(_Value):
    health: int = START_HEALTH
    lost: int = 0
    """Health lost in all (damage and adjustments): ``health`` is start - lost + gained."""
    gained: int = 0
    deck: tuple[int, ...] = ()
    """Top first."""
    hand: tuple[int, ...] = ()
    play: tuple[Permanent, ...] = ()
    grave: tuple[int, ...] = ()
    """Oldest first."""
    kitty: tuple[int, ...] = ()
    flashes: tuple[int, ...] = ()
    """Flash cards played this turn: discarded at Regroup."""
    pool: tuple[tuple[str, int], ...] = ()
    """Power in the pool by key (a colour letter, ``R/G`` one of those, "" any colour); empties at Regroup."""
    powers_played: int = 0
    extra_powers: int = 0
    shield: int = 0
    """Damage to this player still to prevent this turn."""
    cut: bool = False
    """This player's deck has been cut by the opponent."""
    autopass: bool = False
    """Flash windows pass for this player at once (their choice, shown to all)."""
    deck_name: str = ""
    owner: str | None = None
    """The member whose copies the deck is (None: a starter deck for practice)."""

    @cached_property
    def in_play(self) -> Mapping[int, Permanent]:
        """The cards in ``play`` by number (the first, were one there twice)."""
        return {p.card: p for p in reversed(self.play)}


class Attack(_Value):
    attacker: int
    target: str
    """``P0``/``P1`` (a player) or a Soldier's number as text."""
    blockers: tuple[int, ...] = ()


class Combat(_Value):
    attacks: tuple[Attack, ...]
    blocked: bool = False
    splits: tuple[tuple[int, tuple[tuple[str, int], ...]], ...] = ()
    """Damage splits chosen so far: (dealer, ((victim, n), ...))."""
    split_seat: int | None = None
    """Whose splits are awaited now."""


class Window(_Value):
    """A Flash window: ``seat`` may play a Flash card or pass; then the game goes on at ``resume``."""

    seat: int
    number: int
    """Counts windows, so each has its own deadline."""
    after: str
    """What opened it: card, attack, block, end."""
    resume: Phase


class Choice(_Value):
    """A discard that waits for someone's choice (the hand's owner, or the caster looking at it)."""

    seat: int
    """Who chooses."""
    hand_of: int
    count: int
    card: int
    """The card whose effect asks for it."""
    rest: tuple[int, int] = (-1, -1)
    """(clause, effect) of the script to go on with afterwards; (-1, -1): nothing more."""
    x: int = 0
    targets: tuple[str, ...] = ()
    """The targets of the effects still to come."""
    it: str = ""
    """The target of the effect that asked for the choice (``it`` for the next one)."""
    trigger: str = "play"
    caster: int = 0


class Adjustment(_Value):
    """One change to the table that a player proposes and the other confirms (``!adj``)."""

    what: Literal["hp", "cr", "damage", "move", "tap", "ready", "draw", "discard", "power", "note"]
    player: int | None = None
    card: int | None = None
    amount: int = 0
    word: str = ""
    """The zone of a move, the duration of a CR change, the power of a power adjustment, a note's text."""


class Proposal(_Value):
    by: int
    adjustments: tuple[Adjustment, ...] = ()
    undo_to: int | None = None
    """An undo: back to before this action."""
    disputed: bool = False
    judge: str | None = None
    """The member who decides a dispute (a member id, or ``@moderators``)."""
    number: int = 0


class Entry(_Value):
    """One step of the battle's history: who (a seat, ``-1`` a referee, ``-2`` a deadline) and what."""

    seat: int
    action: str = ""
    """The action as JSON (``""`` for a deadline)."""
    timer: str = ""
    number: int = 0
    """The number the thread showed for this step (``#12``); 0: its place in the history (a battle from
    before an undo could leave numbers behind)."""


class Origin(_Value):
    """Where the battle's history starts from (the deal, or a position set up by hand)."""

    sides: tuple[Side, Side]
    phase: Phase = Phase.CUT
    active: int = 0
    turn: int = 0
    first: int = 0


class Ending(StrEnum):
    HEALTH = "health"
    CONCEDED = "conceded"
    CAP = "cap"
    DECK = "deck"


class BattleState(_Value):
    options: BattleOptions = BattleOptions()
    seats: tuple[str, ...]
    seed: int
    defs: tuple[CardDef, ...]
    cards: tuple[Card, ...]
    sides: tuple[Side, Side]
    phase: Phase = Phase.CUT
    active: int = 0
    turn: int = 0
    """Turns begun (0 during the cut)."""
    first: int = 0
    window: Window | None = None
    windows: int = 0
    combat: Combat | None = None
    attacked: bool = False
    """The active player has had their combat this turn."""
    choice: Choice | None = None
    proposal: Proposal | None = None
    proposals: int = 0
    winner: int | None = None
    ending: Ending | None = None
    history: tuple[Entry, ...] = ()
    log: tuple[str, ...] = ()
    """The latest public lines, numbered like the history."""
    flips: int = 0
    """Kitty flips made (each side flipped this many cards)."""
    undone: int = 0
    numbered: int = 0
    """The highest step number the thread has shown: an undo goes back in the history, never in the numbers."""
    origin: Origin | None = None
    """Where ``history`` starts (None: the deal, rebuilt from ``seed``)."""

    # -- reading --

    def card(self, card: int) -> Card:
        return self.cards[card - 1]

    def defn(self, card: int) -> CardDef:
        return self.defs[self.cards[card - 1].defn]

    def name(self, card: int) -> str:
        return self.defn(card).name

    def other(self, seat: int) -> int:
        return 1 - seat

    def seat_index(self, seat: str) -> int | None:
        return self.seats.index(seat) if seat in self.seats else None

    def permanent(self, card: int) -> Permanent | None:
        return self.sides[self.cards[card - 1].owner].in_play.get(card)

    def controller(self, card: int) -> int:
        return self.card(card).owner

    @cached_property
    def untapped_powers(self) -> tuple[tuple[tuple[int, Output], ...], ...]:
        """Each side's untapped Power cards in play and what each makes (what pays a cost now)."""
        defs, cards = self.defs, self.cards
        return tuple(
            tuple(
                (perm.card, output)
                for perm in side.play
                if not perm.tapped and (output := defs[cards[perm.card - 1].defn].fields.output) is not None
            )
            for side in self.sides
        )

    @property
    def over(self) -> bool:
        return self.phase is _OVER

    @property
    def step(self) -> int:
        """The next step's place in the history, which names its dice (a replay rolls the same)."""
        return len(self.history) + 1

    @property
    def next_number(self) -> int:
        """The number the thread shows for the next step: after every number shown so far."""
        return max(self.numbered, len(self.history)) + 1

    def numbers(self) -> list[int]:
        """The number the thread showed for each step of the history, in order."""
        return [entry.number or k for k, entry in enumerate(self.history, 1)]
