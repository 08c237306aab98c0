"""The rules of The Great Sardini is Dead, pure: a state and an action in, a new state and events out.

``check`` says why an action is not allowed (a typed ``GameRuleError``, nothing changed); ``apply``
checks and then carries it out. The bot decides failure itself: after every step of an attempt, a
player who has no extra card to take and whose hand can meet none of the Moves left is eliminated
(``moves.can_meet``, exact).

Choices the source leaves open, as this engine plays them (each one stated in ``!rules sardini``):
hands start empty (``starting_hand``); a Draw the deck cannot fill takes what is left, and the game
ends after that turn; a won Trick's place takes the next Trick flipped (kept empty until the call,
so no Trick changes its number); attempting a Trick the hand meets none of the Moves of asks for
``confirm``, as it would fail at once; an eliminated player's hand and the cards of the failed attempt go face up
out of play and their pile stops scoring; the failed Trick stays shown (``failed_trick``); the game
ends when one player is left, or after the turn that took the deck's last card; survivors score
their piles, ties go to the most Tricks, then the win is shared, and a lone survivor wins.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass, field

from games.sardini.actions import (
    ActOver,
    AttemptTrick,
    Draw,
    Encore,
    GiveUp,
    PlayMove,
    SardiniAction,
    SkipExtra,
    TakeExtra,
)
from games.sardini.cards import DECK_SIZE, cards_of, code, mask
from games.sardini.events import (
    Attempted,
    Called,
    CardsDrawn,
    Drew,
    Eliminated,
    ExtraSkipped,
    ExtraTaken,
    Flipped,
    GameOver,
    MoveMet,
    Performed,
    TrickDiscarded,
)
from games.sardini.moves import can_meet, explain
from games.sardini.plans import sets
from games.sardini.scoring import summary
from games.sardini.state import MAX_SEATS, MIN_SEATS, Attempt, Ending, Phase, SardiniOptions, SardiniState
from games.sardini.texts import t, tn
from games.sardini.tricks import TRICKS
from games.tables.engine import (
    GameEvent,
    GameOverError,
    IllegalActionError,
    MissingCardError,
    NotASeatError,
    NotYourTurnError,
    SeatingError,
)


class EliminatedError(NotYourTurnError):
    """The seat was eliminated: it is never its turn again."""


def new_game(seats: Sequence[str], options: SardiniOptions | None, rng: random.Random) -> SardiniState:
    """Shuffle, show the Tricks, deal the starting hands (none by default), and draw the first player."""
    if not MIN_SEATS <= len(seats) <= MAX_SEATS:
        raise SeatingError(f"The Great Sardini is Dead is played by {MIN_SEATS} to {MAX_SEATS} players")
    if len(set(seats)) != len(seats):
        raise SeatingError("every seat needs its own name")
    opts = options or SardiniOptions()
    deck = list(range(DECK_SIZE))
    rng.shuffle(deck)
    count = opts.tricks if opts.tricks is not None else len(seats) - 1
    shown, deck = deck[:count], deck[count:]
    hands: list[list[int]] = [[] for _ in seats]
    for _ in range(opts.starting_hand):
        for hand in hands:
            hand.append(deck.pop(0))
    k = len(seats)
    return SardiniState(
        options=opts,
        seats=tuple(seats),
        deck=tuple(deck),
        shown=tuple(shown),
        hands=tuple(tuple(h) for h in hands),
        piles=((),) * k,
        won=((),) * k,
        alive=(True,) * k,
        current=(first := rng.randrange(k)),
        first=first,
        flipped=tuple(shown),
    )


# --- checks -----------------------------------------------------------------------------------


def _seat(state: SardiniState, seat: str) -> int:
    if state.phase is Phase.OVER:
        raise GameOverError(t("en", "error.over"))
    i = state.seat_index(seat)
    if i is None:
        raise NotASeatError(t("en", "error.not_seated", seat=seat))
    if not state.alive[i]:
        raise EliminatedError(t("en", "error.eliminated"))
    if i != state.current:
        raise NotYourTurnError(t("en", "error.not_your_turn", seat=state.seats[state.current]))
    return i


def _extra_open(state: SardiniState) -> bool:
    if not state.deck:
        return False
    if state.phase is Phase.ATTEMPT:
        return state.attempt is not None and state.attempt.extra
    return state.phase is Phase.CALL and state.call_extra


def check(state: SardiniState, seat: str, action: SardiniAction) -> None:
    """Raise the ``GameRuleError`` that forbids ``action`` now; return quietly when it is legal."""
    i = _seat(state, seat)
    phase = state.phase
    if isinstance(action, Draw | AttemptTrick):
        if phase is not Phase.TURN:
            raise IllegalActionError(t("en", f"error.not_now_{phase.value}"))
        if isinstance(action, AttemptTrick):
            if action.trick not in state.shown:
                shown = code(action.trick) if 0 <= action.trick < DECK_SIZE else "?"
                raise IllegalActionError(t("en", "error.not_shown", trick=shown))
            if not action.confirm and fails_at_once(state, i, action.trick):
                slot = state.slot_of(action.trick)
                key = "error.confirm_attempt" if state.hands[i] else "error.confirm_attempt_empty"
                raise IllegalActionError(t("en", key, slot=slot, name=TRICKS[action.trick].name))
        return
    if isinstance(action, PlayMove | GiveUp):
        if phase is not Phase.ATTEMPT or state.attempt is None:
            raise IllegalActionError(t("en", "error.no_attempt"))
        if isinstance(action, PlayMove):
            _check_move(state, i, state.attempt, action)
        return
    if isinstance(action, TakeExtra | SkipExtra):
        if not _extra_open(state):
            raise IllegalActionError(t("en", "error.no_extra" if state.deck else "error.no_extra_deck"))
        return
    if phase is not Phase.CALL:
        raise IllegalActionError(t("en", "error.no_call"))
    if isinstance(action, Encore):
        if not state.deck:
            raise IllegalActionError(t("en", "error.encore_no_deck"))
        if not state.hands[i] and not action.confirm:
            raise IllegalActionError(t("en", "error.confirm_encore"))


def fails_at_once(state: SardiniState, i: int, trick: int) -> bool:
    """Whether seat ``i`` attempting ``trick`` now would be eliminated on the spot: its hand meets
    none of the Trick's Moves (an empty hand never does), and no extra card comes before a Move."""
    hand = mask(state.hands[i])
    return not any(can_meet(m, hand) for m in TRICKS[trick].moves)


def _check_move(state: SardiniState, i: int, attempt: Attempt, action: PlayMove) -> None:
    trick = TRICKS[attempt.trick]
    n = len(trick.moves)
    if not 1 <= action.move <= n:
        raise IllegalActionError(tn("en", "error.move_number", n, trick=trick.name))
    if action.move - 1 in attempt.done_moves():
        raise IllegalActionError(t("en", "error.move_done", n=action.move))
    if not action.cards:
        raise IllegalActionError(t("en", "error.no_cards", n=action.move))
    # what the named cards are is checked before whether they are held: a refusal everyone reads
    # must not depend on the hand (which is told to the player alone: ``MissingCardError``)
    why = explain(trick.moves[action.move - 1], action.cards)
    if why is not None:
        raise IllegalActionError(t("en", "error.move_not_met", n=action.move, why=why))
    hand = set(state.hands[i])
    missing = [c for c in dict.fromkeys(action.cards) if c not in hand]
    if missing:
        raise MissingCardError(t("en", "error.not_in_hand", cards=" ".join(code(c) for c in missing)))


# --- carrying out -----------------------------------------------------------------------------


@dataclass
class _Table:
    """A mutable copy of what an action changes; ``freeze`` makes the new state."""

    state: SardiniState
    deck: list[int]
    shown: list[int]
    hands: list[list[int]]
    piles: list[list[int]]
    won: list[list[int]]
    out: list[int]
    alive: list[bool]
    phase: Phase
    attempt: Attempt | None
    current: int
    counter: int
    vacant: int | None
    call_extra: bool
    turn: int
    flipped: list[int]
    failed: list[int]
    ending: Ending | None = None
    events: list[GameEvent] = field(default_factory=list)

    @classmethod
    def of(cls, state: SardiniState) -> _Table:
        return cls(
            state,
            list(state.deck),
            list(state.shown),
            [list(h) for h in state.hands],
            [list(p) for p in state.piles],
            [list(w) for w in state.won],
            list(state.out),
            list(state.alive),
            state.phase,
            state.attempt,
            state.current,
            state.counter,
            state.vacant,
            state.call_extra,
            state.turn,
            list(state.flipped),
            list(state.failed),
            state.ending,
        )

    def freeze(self) -> SardiniState:
        return self.state.model_copy(
            update={
                "deck": tuple(self.deck),
                "shown": tuple(self.shown),
                "hands": tuple(tuple(h) for h in self.hands),
                "piles": tuple(tuple(p) for p in self.piles),
                "won": tuple(tuple(w) for w in self.won),
                "out": tuple(self.out),
                "alive": tuple(self.alive),
                "phase": self.phase,
                "attempt": self.attempt,
                "current": self.current,
                "counter": self.counter,
                "vacant": self.vacant,
                "call_extra": self.call_extra,
                "turn": self.turn,
                "flipped": tuple(self.flipped),
                "failed": tuple(self.failed),
                "ending": self.ending,
                "actions": self.state.actions + 1,
            }
        )

    @property
    def name(self) -> str:
        return self.state.seats[self.current]

    @property
    def trying(self) -> Attempt:
        """The attempt under way (``check`` made sure there is one)."""
        if self.attempt is None:
            raise IllegalActionError(t("en", "error.no_attempt"))
        return self.attempt

    def take(self, n: int) -> list[int]:
        taken, self.deck = self.deck[:n], self.deck[n:]
        return taken

    def flip(self, slot: int) -> None:
        """The deck's top card becomes a Trick in place ``slot`` (if the deck has one)."""
        if not self.deck:
            return
        (trick,) = self.take(1)
        self.shown.insert(slot, trick)
        self.flipped.append(trick)
        self.events.append(Flipped(slot, trick))


def apply(state: SardiniState, seat: str, action: SardiniAction) -> tuple[SardiniState, tuple[GameEvent, ...]]:
    """Check, then carry out ``action`` for ``seat``: the new state and what happened, in order."""
    check(state, seat, action)
    table = _Table.of(state)
    if isinstance(action, Draw):
        _draw(table)
    elif isinstance(action, AttemptTrick):
        _begin(table, action.trick, encore=False)
    elif isinstance(action, PlayMove):
        _play(table, action)
    elif isinstance(action, TakeExtra | SkipExtra):
        _extra(table, take=isinstance(action, TakeExtra))
    elif isinstance(action, GiveUp):
        _eliminate(table, "gave-up")
    elif isinstance(action, Encore):
        _call(table, encore=True)
    else:
        _call(table, encore=False)
    return table.freeze(), tuple(table.events)


def timeout(state: SardiniState) -> tuple[SardiniState, tuple[GameEvent, ...]]:
    """The current player's turn ran out: no attempt begun is a Draw, an attempt under way is given
    up, and a performed Trick's call is "Act is over"."""
    table = _Table.of(state)
    if state.phase is Phase.TURN:
        _draw(table, timed_out=True)
    elif state.phase is Phase.ATTEMPT:
        _eliminate(table, "time")
    elif state.phase is Phase.CALL:
        _call(table, encore=False, timed_out=True)
    return table.freeze(), tuple(table.events)


def _draw(table: _Table, *, timed_out: bool = False) -> None:
    nominal = table.state.next_draw()
    cards = table.take(nominal)
    i = table.current
    table.hands[i].extend(cards)
    table.counter = nominal
    table.events.append(Drew(table.name, len(cards), nominal, len(table.deck), timed_out))
    if cards:
        table.events.append(CardsDrawn(table.name, tuple(cards)))
    _end_turn(table)


def _begin(table: _Table, trick: int, *, encore: bool) -> None:
    table.phase, table.attempt, table.counter = Phase.ATTEMPT, Attempt(trick=trick, encore=encore), 0
    table.events.append(Attempted(table.name, table.shown.index(trick), trick, encore))
    _settle_attempt(table)


def _play(table: _Table, action: PlayMove) -> None:
    attempt = table.trying
    i = table.current
    for c in action.cards:
        table.hands[i].remove(c)
    cards = tuple(sorted(action.cards))
    done = (*attempt.done, (action.move - 1, cards))
    trick = TRICKS[attempt.trick]
    left = len(trick.moves) - len(done)
    extra = left > 0 and bool(table.deck)
    table.attempt = attempt.model_copy(update={"done": done, "extra": extra})
    move_text = trick.moves[action.move - 1].text()
    table.events.append(MoveMet(table.name, action.move, move_text, cards, left, extra))
    _settle_attempt(table)


def _extra(table: _Table, *, take: bool) -> None:
    i = table.current
    if take:
        cards = table.take(1)
        table.hands[i].extend(cards)
        table.events.append(ExtraTaken(table.name, len(table.deck)))
        table.events.append(CardsDrawn(table.name, tuple(cards), extra=True))
    else:
        table.events.append(ExtraSkipped(table.name))
    if table.phase is Phase.CALL:
        table.call_extra = False
        return
    table.attempt = table.trying.model_copy(update={"extra": False})
    _settle_attempt(table)


def _settle_attempt(table: _Table) -> None:
    """After each step of an attempt: a Trick whose Moves are all done is won; a player who has no
    extra card to take and can meet none of the Moves left is eliminated."""
    attempt = table.trying
    trick = TRICKS[attempt.trick]
    left = [m for k, m in enumerate(trick.moves) if k not in attempt.done_moves()]
    if not left:
        _success(table, attempt)
        return
    if attempt.extra and table.deck:
        return
    hand = mask(table.hands[table.current])
    if not any(can_meet(m, hand) for m in left):
        stuck = t("en", "move.separator").join(m.text() for m in left)
        _eliminate(table, "stuck", stuck)


def _success(table: _Table, attempt: Attempt) -> None:
    i = table.current
    played = list(attempt.played())
    slot = table.shown.index(attempt.trick)
    table.shown.pop(slot)
    table.piles[i].extend([*played, attempt.trick])
    table.won[i].append(attempt.trick)
    call = bool(table.deck)
    table.events.append(Performed(table.name, attempt.trick, len(played) + 1, len(table.piles[i]), call))
    table.attempt, table.vacant = None, slot
    if not call:
        _end_turn(table)
        return
    table.phase, table.call_extra = Phase.CALL, table.state.options.draw_after_last


def _call(table: _Table, *, encore: bool, timed_out: bool = False) -> None:
    slot = table.vacant if table.vacant is not None else len(table.shown)
    table.events.append(Called(table.name, encore, timed_out))
    table.vacant, table.call_extra = None, False
    had = len(table.shown)
    table.flip(slot)
    if encore and len(table.shown) > had:
        _begin(table, table.shown[slot], encore=True)
        return
    _end_turn(table)


def _eliminate(table: _Table, why: str, stuck: str = "") -> None:
    attempt = table.trying
    i = table.current
    hand, played = tuple(table.hands[i]), attempt.played()
    table.out.extend([*hand, *played])
    table.hands[i] = []
    table.alive[i] = False
    table.attempt = None
    table.failed.append(attempt.trick)
    table.events.append(Eliminated(table.name, attempt.trick, why, hand, played, stuck))
    if table.state.options.failed_trick == "out":
        slot = table.shown.index(attempt.trick)
        table.shown.pop(slot)
        table.out.append(attempt.trick)
        table.events.append(TrickDiscarded(slot, attempt.trick))
        table.flip(slot)
    if sum(table.alive) == 1:
        _finish(table, Ending.SURVIVOR)
        return
    _end_turn(table)


def _end_turn(table: _Table) -> None:
    if not table.deck:
        _finish(table, Ending.DECK)
        return
    k = len(table.alive)
    nxt = table.current
    for step in range(1, k + 1):
        nxt = (table.current + step) % k
        if table.alive[nxt]:
            break
    table.phase, table.attempt, table.current, table.turn = Phase.TURN, None, nxt, table.turn + 1


def _finish(table: _Table, ending: Ending) -> None:
    table.phase, table.ending, table.attempt, table.vacant, table.call_extra = Phase.OVER, ending, None, None, False
    table.events.append(GameOver(summary(table.freeze())))


# --- what a seat may do -----------------------------------------------------------------------


def legal_actions(state: SardiniState, seat: str) -> list[SardiniAction]:
    """Every action ``seat`` may take now. A Move is listed with each smallest set of the hand that
    meets it (every size, when it has a sum): any set that meets a Move holds one of these, and
    is legal too (the extra cards of ``1 or more``)."""
    i = state.seat_index(seat)
    if i is None or state.phase is Phase.OVER or i != state.current or not state.alive[i]:
        return []
    empty = not state.hands[i]
    out: list[SardiniAction] = []
    if state.phase is Phase.TURN:
        out += [AttemptTrick(trick=trick, confirm=fails_at_once(state, i, trick)) for trick in state.shown]
        out.append(Draw())
    elif state.phase is Phase.ATTEMPT and state.attempt is not None:
        out.append(GiveUp())
        trick = TRICKS[state.attempt.trick]
        hand = mask(state.hands[i])
        for k, move in enumerate(trick.moves):
            if k in state.attempt.done_moves():
                continue
            out += [PlayMove(move=k + 1, cards=tuple(cards_of(found))) for found in sets(move, hand)]
        if _extra_open(state):
            out += [SkipExtra(), TakeExtra()]
    elif state.phase is Phase.CALL:
        if state.deck:
            out.append(Encore(confirm=empty))
        if _extra_open(state):
            out += [SkipExtra(), TakeExtra()]
        out.append(ActOver())
    return out
