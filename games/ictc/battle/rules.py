"""The battle's rules, pure: the deal, the cut and the kitty, the turn (Power-Up, Action, Combat,
Regroup), Flash windows, paying costs, adjustments and their judge, undo, and the end.

``check`` says whether a move is legal (a ``GameRuleError`` subclass says why not) and changes
nothing; ``apply`` checks, then carries it out as one step: the step gets the next number of the
history, its own dice (the battle's seed and that number, so a replay or an undo rolls the same),
and its public lines go to the log.

Who acts when: the cut waits for both players; a turn for its player; a Flash window for the one
who may answer; the defence for the defender; a damage split for whoever has Soldiers that fight
several; a discard to choose for whoever chooses; a proposal for the opponent of its proposer, and
a disputed one for its judge (a member without a seat, ``referee_seat``). Anyone may concede.
"""

from __future__ import annotations

import json
import random
from collections.abc import Mapping, Sequence

from pydantic import BaseModel

from games.ictc.battle import adjust, combat, effects
from games.ictc.battle.actions import (
    ACTION_ADAPTER,
    Autopass,
    BattleAction,
    Concede,
    Confirm,
    Cut,
    DeclareAttack,
    DeclareBlocks,
    Discard,
    Dispute,
    EndTurn,
    Pass,
    PlayCard,
    Propose,
    ProposeUndo,
    Rule,
    SplitDamage,
    TapPower,
    UseAbility,
    Withdraw,
)
from games.ictc.battle.events import TURN_BEGINS, BattleEvent, Said
from games.ictc.battle.payment import Payment, add_to_pool, need_of, payable, plan, pool_words, units_of
from games.ictc.battle.state import (
    HAND_LIMIT,
    HAND_SIZE,
    LOG_KEPT,
    SEATS,
    START_HEALTH,
    BattleOptions,
    BattleSetup,
    BattleState,
    Card,
    CardDef,
    Ending,
    Entry,
    Phase,
    Proposal,
    Side,
    Window,
)
from games.ictc.battle.table import Run, has, is_soldier, must
from games.ictc.cards import CardType
from games.ictc.cost import Output
from games.ictc.script import Clause
from games.ictc.starter import starter_set
from games.tables.engine import (
    MODERATORS,
    REFEREE,
    GameOverError,
    IllegalActionError,
    MissingCardError,
    NotASeatError,
    NotYourTurnError,
    SeatingError,
)

REFEREE_SEAT = -1
TIMER_SEAT = -2
PLAYED_NOW = (Phase.POWER, Phase.ACTION)

# Enum members used on every move, read once: in Python 3.11 reading a member through its enum class
# costs some twenty times a plain name.
_CUT, _POWER, _DEFEND, _SPLIT, _DISCARD = Phase.CUT, Phase.POWER, Phase.DEFEND, Phase.SPLIT, Phase.DISCARD
_TURN_PHASES = (Phase.POWER, Phase.ACTION, Phase.DISCARD)
_POWER_CARD, _SOLDIER_CARD, _ACTION_CARD = CardType.POWER, CardType.SOLDIER, CardType.ACTION


# --- the deal ---------------------------------------------------------------------------------------


def starter_deck(name: str) -> tuple[tuple[CardDef, ...], tuple[tuple[int, None], ...], str]:
    """A starter deck by name, as (defs, cards as (def index, no copy), its name)."""
    found = starter_set().deck(name)
    if found is None:
        names = ", ".join(d.name for d in starter_set().decks)
        raise SeatingError(f"there is no starter deck called {name[:40]}; the starter decks are {names}")
    by_name = {c.name.casefold(): c for c in starter_set().cards}
    defs: list[CardDef] = []
    cards: list[tuple[int, None]] = []
    for card, count in found.entries:
        defs.append(CardDef(fields=by_name[card.casefold()]))
        cards += [(len(defs) - 1, None)] * count
    return tuple(defs), tuple(cards), found.name


def new_game(
    seats: Sequence[str],
    options: BattleOptions | None,
    rng: random.Random,
    setups: Mapping[str, BaseModel] | None = None,
) -> BattleState:
    if len(seats) != SEATS or len(set(seats)) != SEATS:
        raise SeatingError("a battle is between two players")
    options = options or BattleOptions()
    brought = [(setups or {}).get(seat) for seat in seats]
    chosen = [b if isinstance(b, BattleSetup) else None for b in brought]
    starters = [d.name for d in starter_set().decks]
    taken = {s.deck.casefold() for s in chosen if s is not None and s.deck and not s.cards}
    defs: list[CardDef] = []
    cards: list[Card] = []
    names: list[str] = []
    owners: list[str | None] = []
    for seat, setup in enumerate(chosen):
        if setup is not None and setup.cards:
            offset = len(defs)
            defs += setup.defs
            cards += [Card(defn=offset + c.defn, owner=seat, copy_id=c.copy_id) for c in setup.cards]
            names.append(setup.deck or "own deck")
            owners.append(setup.owner)
            continue
        name = setup.deck if setup is not None and setup.deck else options.ai_deck
        if name.casefold() == "any":
            free = [n for n in starters if n.casefold() not in taken] or starters
            name = free[rng.randrange(len(free))]
            taken.add(name.casefold())
        found_defs, found_cards, shown = starter_deck(name)
        offset = len(defs)
        defs += found_defs
        cards += [Card(defn=offset + d, owner=seat) for d, _ in found_cards]
        names.append(shown)
        owners.append(None)
    return deal(
        tuple(seats),
        options,
        seed=rng.getrandbits(48),
        defs=tuple(defs),
        cards=tuple(cards),
        names=tuple(names),
        owners=tuple(owners),
    )


def deal(
    seats: tuple[str, ...],
    options: BattleOptions,
    *,
    seed: int,
    defs: tuple[CardDef, ...],
    cards: tuple[Card, ...],
    names: tuple[str, ...],
    owners: tuple[str | None, ...],
) -> BattleState:
    """The battle before anyone moved: each deck shuffled by the battle's own seed, waiting for the cuts."""
    dice = random.Random(f"{seed}:deal")
    sides: list[Side] = []
    for seat in range(SEATS):
        deck = [n for n, c in enumerate(cards, 1) if c.owner == seat]
        dice.shuffle(deck)
        sides.append(Side(deck=tuple(deck), deck_name=names[seat], owner=owners[seat], health=START_HEALTH))
    return BattleState(options=options, seats=seats, seed=seed, defs=defs, cards=cards, sides=(sides[0], sides[1]))


def start_of(state: BattleState) -> BattleState:
    """The battle where its history starts (the start of every replay and undo): as dealt, or as set up."""
    origin = state.origin
    if origin is not None:
        blank = BattleState(
            options=state.options,
            seats=state.seats,
            seed=state.seed,
            defs=state.defs,
            cards=state.cards,
            sides=origin.sides,
        )
        return blank.model_copy(
            update={
                "phase": origin.phase,
                "active": origin.active,
                "turn": origin.turn,
                "first": origin.first,
                "origin": origin,
            }
        )
    names = tuple(s.deck_name for s in state.sides)
    owners = tuple(s.owner for s in state.sides)
    return deal(
        state.seats, state.options, seed=state.seed, defs=state.defs, cards=state.cards, names=names, owners=owners
    )


# --- who acts --------------------------------------------------------------------------------------


def awaiting(state: BattleState) -> frozenset[int]:
    if state.over:
        return frozenset()
    if state.proposal is not None:
        return frozenset() if state.proposal.disputed else frozenset({1 - state.proposal.by})
    if state.choice is not None:
        return frozenset({state.choice.seat})
    if state.window is not None:
        return frozenset({state.window.seat})
    if state.phase is _CUT:
        # one after the other: each cuts the other's deck
        return frozenset(next(([i] for i in range(SEATS) if not state.sides[1 - i].cut), []))
    if state.phase in _TURN_PHASES:
        return frozenset({state.active})
    if state.phase is _DEFEND:
        return frozenset({1 - state.active})
    if state.phase is _SPLIT and state.combat is not None and state.combat.split_seat is not None:
        return frozenset({state.combat.split_seat})
    return frozenset()


def referees(state: BattleState) -> frozenset[str]:
    if state.proposal is not None and state.proposal.disputed and state.proposal.judge is not None:
        return frozenset({state.proposal.judge})
    return frozenset()


# --- checking ---------------------------------------------------------------------------------------


def seat_of(state: BattleState, seat: str) -> int:
    if seat.startswith(REFEREE):
        return REFEREE_SEAT
    index = state.seat_index(seat)
    if index is None:
        raise NotASeatError(f"{seat} does not play in this battle")
    return index


def check(state: BattleState, seat: str, action: BattleAction) -> None:
    check_index(state, seat_of(state, seat), action, seat)


def check_index(state: BattleState, i: int, action: BattleAction, seat: str = "") -> None:
    if state.over:
        raise GameOverError("the battle is over")
    if isinstance(action, Rule):
        proposal = state.proposal
        if i != REFEREE_SEAT or proposal is None or not proposal.disputed:
            raise IllegalActionError("only the judge of a disputed proposal rules on it")
        if seat and proposal.judge != MODERATORS and seat.removeprefix(REFEREE) != proposal.judge:
            raise IllegalActionError("another member judges this dispute")
        return
    if i == REFEREE_SEAT:
        raise IllegalActionError("a judge only rules: `!rule uphold` or `!rule reject`")
    if isinstance(action, Concede | Autopass):
        return
    proposal = state.proposal
    if proposal is not None:
        _check_proposal_answer(state, i, action, proposal)
        return
    if isinstance(action, Propose):
        for adj in action.adjustments:
            if adj.card is not None and not adjust.nameable(state, i, adj.card):
                raise adjust.unseen(adj.card)
        if state.phase is _CUT:
            raise IllegalActionError("adjustments wait until the battle has begun")
        if not action.adjustments:
            raise IllegalActionError("propose at least one adjustment")
        return
    if isinstance(action, ProposeUndo):
        _check_undo(state, action.to)
        return
    if isinstance(action, Confirm | Dispute | Withdraw):
        raise IllegalActionError("there is no proposal to answer")
    if i not in awaiting(state):
        raise NotYourTurnError(_waiting_for(state))
    if state.choice is not None:
        if not isinstance(action, Discard):
            raise IllegalActionError(f"first choose {state.choice.count} card(s) to discard: `!discard #N`")
        _check_discard(state, state.choice.hand_of, action.cards, state.choice.count)
        return
    if state.window is not None:
        _check_window(state, i, action)
        return
    phase = state.phase
    if isinstance(action, Pass):
        raise IllegalActionError(
            "`!pass` lets a Flash window go (a chance to answer with a Flash card), and none is open now: "
            + _PASS_INSTEAD[phase]
        )
    if isinstance(action, Cut):
        if phase is not _CUT:
            raise IllegalActionError("the decks were cut already")
        deck = state.sides[1 - i].deck
        if action.at is not None and not 1 <= action.at < len(deck):
            raise IllegalActionError(f"cut at 1 to {len(deck) - 1} cards from the top")
        return
    if phase is _CUT:
        raise IllegalActionError("first cut your opponent's deck: `!cut`")
    if isinstance(action, Discard):
        if phase is not _DISCARD:
            raise IllegalActionError("there is nothing to discard now")
        hand = state.sides[i].hand
        _check_discard(state, i, action.cards, len(hand) - HAND_LIMIT)
        return
    if phase is _DISCARD:
        raise IllegalActionError(f"discard down to {HAND_LIMIT} cards first: `!discard #N ...`")
    if phase is _DEFEND:
        if not isinstance(action, DeclareBlocks):
            raise IllegalActionError("declare your blockers: `!block #blocker > #attacker, ...` or `!block none`")
        combat.check_blocks(state, i, action.blocks)
        return
    if phase is _SPLIT:
        if not isinstance(action, SplitDamage):
            raise IllegalActionError("split your Soldiers' damage: `!split auto`, or `!split #12: #21=1, #22=2`")
        combat.check_split(state, i, action.splits)
        return
    # Power-Up and Action: the active player's turn
    if isinstance(action, PlayCard):
        check_play(state, i, action)
    elif isinstance(action, TapPower):
        _check_tap(state, i, action.card)
    elif isinstance(action, UseAbility):
        check_use(state, i, action)
    elif isinstance(action, DeclareAttack):
        if state.attacked:
            raise IllegalActionError("you have had your combat this turn")
        combat.check_attack(state, i, action.attacks)
    elif isinstance(action, EndTurn):
        return
    else:
        raise IllegalActionError(f"`{action.kind}` is not a move of your turn now")


def _check_undo(state: BattleState, to: int) -> None:
    """``to`` names a step that still stands (one an undo took back keeps its number, and stays gone)."""
    numbers = state.numbers()
    if to in numbers:
        return
    where = f"from #{numbers[0]} to #{numbers[-1]}" if numbers else "none yet"
    gone = f" (#{to} was undone)" if 1 <= to < state.next_number else ""
    raise IllegalActionError(f"undo goes back to before a step still in the battle: {where}{gone}")


_PASS_INSTEAD = {
    Phase.CUT: "cut your opponent's deck with `!cut`",
    Phase.POWER: "play a card, `!attack`, or `!end` your turn",
    Phase.ACTION: "play a card, `!attack`, or `!end` your turn",
    Phase.DEFEND: "declare your blockers, or `!block none`",
    Phase.SPLIT: "split your Soldiers' damage, or `!split auto`",
    Phase.DISCARD: f"discard down to {HAND_LIMIT} cards with `!discard #N ...`",
    Phase.OVER: "the battle is over",
}
"""What to do instead of a ``pass`` when no Flash window is open, by phase."""


def _waiting_for(state: BattleState) -> str:
    names = ", ".join(state.seats[i] for i in sorted(awaiting(state)))
    if state.proposal is not None and state.proposal.disputed:
        return "the battle waits for the judge of the disputed proposal"
    return f"the battle waits for {names or 'nobody'}"


def _check_proposal_answer(state: BattleState, i: int, action: BattleAction, proposal: Proposal) -> None:
    if isinstance(action, Withdraw):
        if i != proposal.by:
            raise IllegalActionError("only its proposer withdraws a proposal")
        return
    if proposal.disputed:
        raise IllegalActionError("the proposal is before its judge: the battle waits for the ruling")
    if isinstance(action, Confirm | Dispute):
        if i == proposal.by:
            raise IllegalActionError("your opponent answers your proposal (you may `!withdraw` it)")
        if isinstance(action, Dispute) and action.judge is not None:
            seated = [k for k, side in enumerate(state.sides) if action.judge in (state.seats[k], side.owner)]
            if seated:
                raise seated_judge(state.seats[seated[0]])
        if isinstance(action, Confirm) and proposal.undo_to is None:
            _check_adjustments(state, proposal)
        return
    raise IllegalActionError("a proposal is open: it is confirmed, disputed or withdrawn first")


def seated_judge(seat: str) -> IllegalActionError:
    """A player of the battle cannot judge it: a judge rules from outside the battle, and a seat's ruling
    would never come (the battle would wait ``judge_hours`` for it)."""
    return IllegalActionError(
        f"{seat} plays in this battle: a judge is a member who does not (`!dispute @member`);"
        " `!dispute` alone asks the moderators"
    )


def _check_adjustments(state: BattleState, proposal: Proposal) -> None:
    """Each adjustment fits the battle as it would stand after the ones before it."""
    run = Run(state, random.Random(0))
    for adj in proposal.adjustments:
        adjust.apply(run, adj)


def _check_discard(state: BattleState, seat: int, cards: Sequence[int], count: int) -> None:
    hand = state.sides[seat].hand
    if len(cards) != count:
        raise IllegalActionError(f"discard exactly {count} card{'s' if count != 1 else ''}")
    if len(set(cards)) != len(cards):
        raise IllegalActionError("name each card once")
    for card in cards:
        if card not in hand:
            raise MissingCardError(f"#{card} is not in {state.seats[seat]}'s hand")


def _check_window(state: BattleState, i: int, action: BattleAction) -> None:
    if isinstance(action, Pass):
        return
    if isinstance(action, TapPower):
        _check_tap(state, i, action.card)
        return
    if isinstance(action, UseAbility):
        check_use(state, i, action)
        return
    if isinstance(action, PlayCard):
        if action.card in state.sides[i].hand and state.defn(action.card).kind is not CardType.FLASH:
            raise IllegalActionError("in a Flash window only Flash cards are played (or `!pass`)", private=True)
        check_play(state, i, action)
        return
    raise IllegalActionError("a Flash window is open: play a Flash card or `!pass`")


def _powers(state: BattleState, seat: int, besides: int | None = None) -> tuple[tuple[int, Output], ...]:
    """The untapped Power cards of ``seat`` and what each makes (but ``besides``)."""
    powers = state.untapped_powers[seat]
    return powers if besides is None else tuple(p for p in powers if p[0] != besides)


def payment(state: BattleState, seat: int, card: int, x: int, besides: int | None = None) -> Payment | None:
    cost = state.defn(card).fields.cost
    return plan(state.sides[seat].pool, _powers(state, seat, besides), need_of(cost, x))


def can_pay(state: BattleState, seat: int, card: int, x: int) -> bool:
    """Whether ``payment`` finds a way to pay for ``card`` (with X as ``x``)."""
    return payable(state.sides[seat].pool, _powers(state, seat), need_of(state.defn(card).fields.cost, x))


def play_clauses(state: BattleState, card: int) -> tuple[Clause, ...]:
    return state.defn(card).play_clauses


def check_play(state: BattleState, seat: int, action: PlayCard) -> None:
    card = action.card
    side = state.sides[seat]
    if not 1 <= card <= len(state.cards) or card not in side.hand:
        raise MissingCardError(f"#{card} is not in your hand")
    fields = state.defn(card).fields
    kind = fields.type
    in_window = state.window is not None
    if kind is _POWER_CARD:
        if state.phase is not _POWER or in_window or seat != state.active:
            raise IllegalActionError("Power cards are played in your Power-Up, before anything else that turn")
        if side.powers_played >= 1 + side.extra_powers:
            raise IllegalActionError("you have played your Power card this turn")
    elif (kind is _SOLDIER_CARD or kind is _ACTION_CARD) and (
        in_window or seat != state.active or state.phase not in PLAYED_NOW
    ):
        raise IllegalActionError(f"{kind.display} cards are played in your own Action phase")
    if fields.cost.x is None and action.x:
        raise IllegalActionError(f"{fields.name} has no X in its cost")
    if action.x < 0 or action.x > 30:
        raise IllegalActionError("X is from 0 to 30")
    if not can_pay(state, seat, card, action.x):
        raise IllegalActionError(
            f"you cannot pay {fields.cost.text()}{f' with X={action.x}' if fields.cost.x is not None else ''}"
            f" now (pool {pool_words(side.pool)}, {len(_powers(state, seat))} untapped Power cards)"
        )
    _check_clause_targets(state, seat, play_clauses(state, card), action.targets)


def _check_clause_targets(state: BattleState, seat: int, clauses: Sequence[Clause], targets: Sequence[str]) -> None:
    wanted = sum(len(c.chosen) for c in clauses)
    if wanted == 0 and targets:
        raise IllegalActionError("that takes no target")
    rest = tuple(targets)
    for clause in clauses:
        n = len(clause.chosen)
        effects.check_targets(state, seat, clause, rest[:n])
        rest = rest[n:]


def _check_tap(state: BattleState, seat: int, card: int) -> None:
    perm = state.permanent(card) if 1 <= card <= len(state.cards) else None
    if perm is None or state.controller(card) != seat or state.defn(card).fields.output is None:
        raise IllegalActionError(f"#{card} is not a Power card of yours in play")
    if perm.tapped:
        raise IllegalActionError(f"{state.name(card)} #{card} is tapped already")


def tap_clauses(state: BattleState, card: int) -> tuple[Clause, ...]:
    return state.defn(card).tap_clauses


def check_use(state: BattleState, seat: int, action: UseAbility) -> None:
    card = action.card
    perm = state.permanent(card) if 1 <= card <= len(state.cards) else None
    if perm is None or state.controller(card) != seat:
        raise IllegalActionError(f"#{card} is not a card of yours in play")
    clauses = tap_clauses(state, card)
    if not clauses:
        raise IllegalActionError(f"{state.name(card)} has no ability used by tapping it")
    if perm.tapped:
        raise IllegalActionError(f"{state.name(card)} #{card} is tapped")
    if is_soldier(state, card) and perm.new and not has(state, card, "haste"):
        raise IllegalActionError(f"{state.name(card)} came into play this turn and has no Haste")
    clause = clauses[0]
    cost = clause.cost
    if cost is not None and not payable(state.sides[seat].pool, _powers(state, seat, besides=card), need_of(cost)):
        raise IllegalActionError(f"you cannot pay {cost.text()} now")
    _check_clause_targets(state, seat, (clause,), action.targets)


# --- applying ---------------------------------------------------------------------------------------


def apply(
    state: BattleState, seat: str, action: BattleAction, rng: random.Random | None = None
) -> tuple[BattleState, tuple[BattleEvent, ...]]:
    """Check, then carry out ``action`` as the next step of the battle."""
    del rng  # every step rolls the battle's own dice (the seed and the step's number)
    i = seat_of(state, seat)
    check_index(state, i, action, seat)
    return _step(state, i, action)


def _step(
    state: BattleState, i: int, action: BattleAction, number: int = 0
) -> tuple[BattleState, tuple[BattleEvent, ...]]:
    """One step; ``number``: the one the thread showed for it (a replay), else the next one."""
    run = Run(state, f"{state.seed}:{state.step}", on_death=effects.on_death)
    undo_to = _undo_target(state, i, action)
    if undo_to is not None:
        return _undo(state, i, undo_to)
    _carry_out(run, i, action)
    entry = Entry(
        seat=i,
        action=json.dumps({**action.model_dump(mode="json", exclude_defaults=True), "kind": action.kind}),
        number=number or state.next_number,
    )
    return _record(run, entry)


def _record(run: Run, entry: Entry) -> tuple[BattleState, tuple[BattleEvent, ...]]:
    number = entry.number
    events = list(run.events)
    first = next((k for k, e in enumerate(events) if isinstance(e, Said)), None)
    if first is not None:
        opener = events[first]
        if isinstance(opener, Said):
            events[first] = Said(opener.key, opener.fields, opener.count, number)
    lines = tuple(e.text("en") for e in events if isinstance(e, Said))
    state = run.state
    log = (*state.log, *lines)[-LOG_KEPT:]
    update = {"history": (*state.history, entry), "log": log, "numbered": max(state.numbered, number)}
    return state.model_copy(update=update), tuple(events)


def _carry_out(run: Run, i: int, action: BattleAction) -> None:
    state = run.state
    if isinstance(action, Concede):
        _concede(run, i)
    elif isinstance(action, Autopass):
        run.change_side(i, autopass=action.on)
        run.say("autopass.on" if action.on else "autopass.off", seat=run.seat(i))
        if action.on and state.window is not None and state.window.seat == i and state.proposal is None:
            _pass_window(run)
    elif isinstance(action, Propose):
        _propose(run, i, Proposal(by=i, adjustments=action.adjustments))
    elif isinstance(action, ProposeUndo):
        _propose(run, i, Proposal(by=i, undo_to=action.to))
    elif isinstance(action, Withdraw):
        run.update(proposal=None)
        run.say("proposal.withdrawn", seat=run.seat(i))
    elif isinstance(action, Dispute):
        _dispute(run, i, action.judge)
    elif isinstance(action, Confirm):
        _settle(run, upheld=True, by=run.seat(i))
    elif isinstance(action, Rule):
        _settle(run, upheld=action.uphold, by="the judge")
    elif isinstance(action, Discard):
        _discard(run, i, action.cards)
    elif isinstance(action, Pass):
        run.say("window.pass", seat=run.seat(i))
        _pass_window(run)
    elif isinstance(action, Cut):
        _cut(run, i, action.at)
    elif isinstance(action, PlayCard):
        _play(run, i, action)
    elif isinstance(action, TapPower):
        _tap(run, i, action.card)
    elif isinstance(action, UseAbility):
        _use(run, i, action)
    elif isinstance(action, DeclareAttack):
        _leave_power_up(run)
        combat.declare(run, i, action.attacks)
        _open_window(run, 1 - i, "attack", Phase.DEFEND)
    elif isinstance(action, DeclareBlocks):
        combat.declare_blocks(run, i, action.blocks)
        _open_window(run, run.state.active, "block", Phase.SPLIT)
    elif isinstance(action, SplitDamage):
        _split(run, i, action)
    elif isinstance(action, EndTurn):
        run.say("turn.end", seat=run.seat(i))
        _open_window(run, 1 - i, "end", _REGROUP)


_REGROUP = Phase.DISCARD
"""As a window's ``resume``: Regroup (which may then wait for the hand limit's discard)."""


# -- the cut and the kitty --


def _cut(run: Run, i: int, at: int | None) -> None:
    _cut_deck(run, i, at)
    if all(run.side(s).cut for s in range(SEATS)):
        _begin(run)


def _cut_deck(run: Run, i: int, at: int | None, key: str = "setup.cut") -> None:
    """``i`` cuts the other's deck ``at`` cards from the top (None: where the dice fall)."""
    other = 1 - i
    deck = run.side(other).deck
    place = at if at is not None else run.rng.randint(1, max(1, len(deck) - 1))
    run.change_side(other, deck=deck[place:] + deck[:place], cut=True)
    run.say(key, seat=run.seat(i), other=run.seat(other), n=place)


def _begin(run: Run) -> None:
    """The kitty: each flips their top card; the higher total cost goes first; a tie flips again."""
    first = _flip_kitty(run)
    if first is None:
        first = run.rng.randrange(SEATS)
        run.say("setup.kitty_empty", seat=run.seat(first))
    run.update(first=first)
    run.say("setup.first", seat=run.seat(first))
    for s in (first, 1 - first):
        run.draw(s, HAND_SIZE)
    _start_turn(run, first)


def _flip_kitty(run: Run) -> int | None:
    """Each turns over their top card into the kitty until one total cost is higher: that seat, or None
    when a deck runs out on a tie."""
    totals = [0, 0]
    flips = 0
    first: int | None = None
    while first is None:
        tops = [run.side(s).deck[0] if run.side(s).deck else None for s in range(SEATS)]
        if None in tops:
            break
        flips += 1
        for s in range(SEATS):
            card = must(tops[s])
            run.put(card, "kitty")
            totals[s] += run.state.defn(card).fields.cost.total
        run.say(
            "setup.flip",
            a=run.seat(0),
            a_card=run.words(tops[0] or 0),
            a_total=totals[0],
            b=run.seat(1),
            b_card=run.words(tops[1] or 0),
            b_total=totals[1],
        )
        if totals[0] != totals[1]:
            first = 0 if totals[0] > totals[1] else 1
    run.update(flips=flips)
    return first


def _concede(run: Run, i: int) -> None:
    """Conceding loses. Before the kitty is turned over, the cuts not made yet are made where the dice fall
    and the kitty is turned over as at the start first: what is at stake goes to the winner as after any loss."""
    if run.state.phase is Phase.CUT:
        for s in range(SEATS):
            if not run.side(1 - s).cut:
                _cut_deck(run, s, None, key="setup.cut_for")
        _flip_kitty(run)
    run.say("over.concede", seat=run.seat(i))
    run.finish(1 - i, Ending.CONCEDED)


# -- the turn --


def _start_turn(run: Run, seat: int) -> None:
    turn = run.state.turn + 1
    cap = run.state.options.turn_cap
    if cap is not None and turn > cap:
        a, b = run.side(0).health, run.side(1).health
        run.say("over.cap_reached", n=cap)
        run.finish(None if a == b else (0 if a > b else 1), Ending.CAP)
        return
    run.update(turn=turn, active=seat, phase=Phase.POWER, attacked=False, combat=None, window=None)
    run.say(TURN_BEGINS, seat=run.seat(seat), n=turn)
    # Power-Up: draw, ready everything, start-of-turn clauses
    if turn > 1 or run.state.options.first_draw:
        if not run.side(seat).deck:
            if run.state.options.empty_deck == "lose":
                run.say("draw.empty_loses", seat=run.seat(seat))
                run.finish(1 - seat, Ending.DECK)
                return
            run.say("draw.empty", seat=run.seat(seat))
        else:
            run.draw(seat, 1)
    side = run.side(seat)
    play = tuple(p.model_copy(update={"tapped": False, "new": False}) if p.tapped or p.new else p for p in side.play)
    run.change_side(seat, play=play)
    effects.start_of_turn(run, seat)


def _leave_power_up(run: Run) -> None:
    if run.state.phase is Phase.POWER:
        run.update(phase=Phase.ACTION)


def _open_window(run: Run, seat: int, after: str, resume: Phase) -> None:
    """A Flash window for ``seat``; skipped when their hand is empty or they pass every window."""
    if run.state.over:
        return
    side = run.side(seat)
    if not side.hand or side.autopass:
        run.update(window=None)
        _resume(run, resume)
        return
    number = run.state.windows + 1
    run.update(window=Window(seat=seat, number=number, after=after, resume=resume), windows=number)
    run.say("window.open", seat=run.seat(seat))


def _pass_window(run: Run) -> None:
    window = run.state.window
    if window is None:
        return
    run.update(window=None)
    _resume(run, window.resume)


def _resume(run: Run, phase: Phase) -> None:
    if run.state.over:
        return
    if phase in PLAYED_NOW:
        run.update(phase=phase)
    elif phase is Phase.DEFEND:
        run.update(phase=Phase.DEFEND)
        if not combat.blockable(run.state):
            combat.declare_blocks(run, 1 - run.state.active, ())
            _open_window(run, run.state.active, "block", Phase.SPLIT)
    elif phase is Phase.SPLIT:
        _damage_step(run)
    else:
        _regroup(run)


def _damage_step(run: Run) -> None:
    state = run.state
    fight = must(state.combat)
    chosen = {d for d, _ in fight.splits}
    for seat in (state.active, 1 - state.active):
        if any(d not in chosen for d in combat.to_split(state, seat)):
            run.update(phase=Phase.SPLIT, combat=fight.model_copy(update={"split_seat": seat}))
            return
    combat.resolve(run)
    if run.state.over:
        return
    run.update(phase=Phase.ACTION)
    _open_window(run, 1 - run.state.active, "end", _REGROUP)


def _split(run: Run, i: int, action: SplitDamage) -> None:
    fight = must(run.state.combat)
    state = run.state
    given = dict(action.splits)
    table = combat.fights(state)
    splits = list(fight.splits)
    for dealer in combat.to_split(state, i):
        shares = given.get(dealer) or tuple(combat.auto_split(state, dealer, table[dealer]))
        splits.append((dealer, tuple(shares)))
    run.update(combat=fight.model_copy(update={"splits": tuple(splits), "split_seat": None}))
    run.say("combat.split" if action.splits else "combat.split_auto", seat=run.seat(i))
    _damage_step(run)


_REGROUPED: dict[str, object] = {"cr_eot": 0, "grants_eot": (), "shield": 0, "damage": 0, "armor_used": 0}
"""What Regroup makes of every card in play (a card that has all of it already stays as it is)."""


def _regroup(run: Run) -> None:
    """Temporary effects end, damage heals, Flash cards go to the grave, pools empty; the hand limit."""
    state = run.state
    for seat in (0, 1):
        side = run.side(seat)
        for card in side.flashes:
            run.put(card, "grave")
        side = run.side(seat)
        play = tuple(
            p.model_copy(update=_REGROUPED) if p.cr_eot or p.grants_eot or p.shield or p.damage or p.armor_used else p
            for p in side.play
        )
        run.change_side(seat, play=play, pool=(), shield=0, powers_played=0, extra_powers=0)
    active = state.active
    run.say("turn.regroup", seat=run.seat(active))
    run.update(window=None, combat=None)
    over = len(run.side(active).hand) - HAND_LIMIT
    if over > 0:
        run.update(phase=Phase.DISCARD)
        run.say("turn.hand_limit", over, seat=run.seat(active), limit=HAND_LIMIT)
        return
    _start_turn(run, 1 - active)


def _discard(run: Run, i: int, cards: Sequence[int]) -> None:
    choice = run.state.choice
    if choice is not None:
        effects.discard_cards(run, choice.hand_of, list(cards))
        run.update(choice=None)
        clause = effects.clause_at(run.state, choice.card, choice.rest[0])
        effects.resolve(
            run,
            choice.caster,
            choice.card,
            clause,
            x=choice.x,
            refs=choice.targets,
            clause_index=choice.rest[0],
            trigger=choice.trigger,
            start=choice.rest[1],
            it=choice.it,
        )
        if run.state.choice is None and choice.trigger == "play":
            _after_play(run, choice.caster, choice.card)
        return
    effects.discard_cards(run, i, list(cards))
    _start_turn(run, 1 - run.state.active)


# -- cards and power --


def _pay(run: Run, seat: int, paid: Payment) -> str:
    for card in paid.taps:
        run.change_perm(card, tapped=True)
    run.change_side(seat, pool=paid.pool)
    if not paid.taps:
        return ""
    return ", ".join(run.words(c) for c in paid.taps)


def _play(run: Run, i: int, action: PlayCard) -> None:
    state = run.state
    card = action.card
    fields = state.defn(card).fields
    paid = must(payment(state, i, card, action.x))
    tapped = _pay(run, i, paid)
    kind = fields.type
    cost = fields.cost.text() + (f" (X={action.x})" if fields.cost.x is not None else "")
    how = "play.tapped" if tapped else "play.paid"
    if kind is CardType.POWER:
        run.put(card, "play")
        run.change_side(i, powers_played=run.side(i).powers_played + 1)
        run.say("play.power", seat=run.seat(i), card=run.words(card))
    else:
        _leave_power_up(run)
        zone = {CardType.SOLDIER: "play", CardType.ACTION: "grave", CardType.FLASH: "flashes"}[kind]
        run.put(card, zone)
        key = {CardType.SOLDIER: "play.soldier", CardType.ACTION: "play.action", CardType.FLASH: "play.flash"}[kind]
        run.say(key, seat=run.seat(i), card=run.words(card), cr=fields.cr or 0)
        run.say(how, cost=cost, cards=tapped)
        run.say("play.text", text=_quoted(fields.text))
    script = state.defn(card).script
    if script is None:
        if kind in (CardType.ACTION, CardType.FLASH):
            run.say("play.unscripted", seat=run.seat(i), other=run.seat(1 - i))
    else:
        rest = tuple(action.targets)
        for index, clause in enumerate(script.clauses):
            if clause.trigger != "play":
                continue
            n = len(clause.chosen)
            effects.resolve(run, i, card, clause, x=action.x, refs=rest[:n], clause_index=index, trigger="play")
            rest = rest[n:]
            if run.state.choice is not None or run.state.over:
                return
    if kind is not CardType.POWER:
        _after_play(run, i, card)


def _quoted(text: str) -> str:
    return " ".join(text.split())


def _after_play(run: Run, seat: int, card: int) -> None:
    """After a card: a Flash window for the other player (or, in a window, the answer goes back and forth)."""
    del card
    if run.state.over:
        return
    window = run.state.window
    if window is None:
        _open_window(run, 1 - seat, "card", run.state.phase)
        return
    other = 1 - seat
    if other == run.state.active and window.resume in PLAYED_NOW:
        run.update(window=None)
        _resume(run, window.resume)
        return
    _open_window(run, other, "card", window.resume)


def _tap(run: Run, i: int, card: int) -> None:
    output = must(run.state.defn(card).fields.output)
    run.change_perm(card, tapped=True)
    run.change_side(i, pool=add_to_pool(run.side(i).pool, units_of(output)))
    run.say("power.tap", seat=run.seat(i), card=run.words(card), pool=pool_words(run.side(i).pool))


def _use(run: Run, i: int, action: UseAbility) -> None:
    card = action.card
    clause = tap_clauses(run.state, card)[0]
    if clause.cost is not None:
        paid = must(plan(run.side(i).pool, _powers(run.state, i, besides=card), need_of(clause.cost)))
        _pay(run, i, paid)
    run.change_perm(card, tapped=True)
    run.say("ability.use", seat=run.seat(i), card=run.words(card), clause=clause.text())
    script = must(run.state.defn(card).script)
    index = script.clauses.index(clause)
    effects.resolve(run, i, card, clause, x=0, refs=tuple(action.targets), clause_index=index, trigger="tap")


# -- proposals, judges and undo --


def _propose(run: Run, i: int, proposal: Proposal) -> None:
    number = run.state.proposals + 1
    run.update(proposal=proposal.model_copy(update={"number": number}), proposals=number)
    other = run.seat(1 - i)
    if proposal.undo_to is not None:
        run.say("proposal.undo", seat=run.seat(i), n=proposal.undo_to, other=other)
        return
    items = "; ".join(adjust.describe(run.state, a) for a in proposal.adjustments)
    run.say("proposal.adjust", seat=run.seat(i), items=items, other=other)


def _dispute(run: Run, i: int, judge: str | None) -> None:
    proposal = must(run.state.proposal)
    chosen = judge or MODERATORS
    run.update(proposal=proposal.model_copy(update={"disputed": True, "judge": chosen}))
    if judge is None:
        run.say("proposal.disputed_mods", seat=run.seat(i), hours=run.state.options.judge_hours)
    else:
        run.say("proposal.disputed_judge", seat=run.seat(i), judge=f"<@{judge}>", hours=run.state.options.judge_hours)


def _settle(run: Run, *, upheld: bool, by: str) -> None:
    proposal = must(run.state.proposal)
    run.update(proposal=None)
    if not upheld:
        run.say("proposal.rejected", by=by)
        return
    if proposal.undo_to is not None:
        raise AssertionError("an undo is carried out by _undo")
    for adj in proposal.adjustments:
        adjust.apply(run, adj)
    items = "; ".join(adjust.describe(run.state, a) for a in proposal.adjustments)
    run.say("proposal.applied", by=by, items=items)
    run.deaths()
    run.check_over()


def _undo_target(state: BattleState, i: int, action: BattleAction) -> int | None:
    proposal = state.proposal
    if proposal is None or proposal.undo_to is None:
        return None
    if isinstance(action, Confirm) or (isinstance(action, Rule) and action.uphold):
        return proposal.undo_to
    del i
    return None


def _undo(state: BattleState, i: int, to: int) -> tuple[BattleState, tuple[BattleEvent, ...]]:
    """Both agreed: the battle rebuilt from its start through the steps before ``to``, with the same dice."""
    rebuilt = replay(start_of(state), state.history[: state.numbers().index(to)])
    run = Run(rebuilt, random.Random(0))
    if i >= 0:
        run.say("proposal.undone", n=to, by=state.seats[i])
    else:
        run.say("proposal.undone_ruled", n=to)
    lines = tuple(e.text("en") for e in run.events if isinstance(e, Said))
    undone = rebuilt.model_copy(
        update={
            "log": (*rebuilt.log, *lines)[-LOG_KEPT:],
            "undone": state.undone + 1,
            "numbered": state.next_number - 1,
            "windows": max(state.windows, rebuilt.windows),
            "proposals": max(state.proposals, rebuilt.proposals),
        }
    )
    return undone, tuple(run.events)


def replay(state: BattleState, entries: Sequence[Entry]) -> BattleState:
    """``state`` with ``entries`` carried out again, in order (each already found legal once)."""
    for entry in entries:
        if entry.seat == TIMER_SEAT:
            state = timeout(state, entry.timer, entry.number)[0]
            continue
        action = ACTION_ADAPTER.validate_json(entry.action)
        undo_to = _undo_target(state, entry.seat, action)
        if undo_to is not None:
            state = _undo(state, entry.seat, undo_to)[0]
            continue
        state = _step(state, entry.seat, action, entry.number)[0]
    return state


# --- deadlines --------------------------------------------------------------------------------------


def window_key(state: BattleState) -> str | None:
    if state.window is None or state.proposal is not None or state.choice is not None or state.over:
        return None
    return f"flash:{state.undone}:{state.window.number}"


def answer_key(state: BattleState) -> str | None:
    """The proposal waiting for the opponent's answer (their turn clock running out drops it)."""
    if state.proposal is None or state.proposal.disputed or state.over:
        return None
    return f"answer:{state.undone}:{state.proposal.number}"


def judge_key(state: BattleState) -> str | None:
    if state.proposal is None or not state.proposal.disputed or state.over:
        return None
    return f"judge:{state.undone}:{state.proposal.number}"


def timeout(state: BattleState, key: str, number: int = 0) -> tuple[BattleState, tuple[BattleEvent, ...]]:
    """A deadline of the battle passed: a Flash window passes; a proposal nobody answered, or a dispute
    nobody ruled on, is dropped (never carried out for someone who was away). ``number`` as ``_step``'s."""
    run = Run(state, f"{state.seed}:{state.step}", on_death=effects.on_death)
    if key == window_key(state):
        window = must(state.window)
        run.say("window.timeout", seat=run.seat(window.seat))
        _pass_window(run)
    elif key == judge_key(state):
        run.update(proposal=None)
        run.say("proposal.lapsed")
    elif key == answer_key(state):
        proposal = must(state.proposal)
        run.update(proposal=None)
        run.say("proposal.unanswered", seat=run.seat(1 - proposal.by))
    else:
        return state, ()
    return _record(run, Entry(seat=TIMER_SEAT, timer=key, number=number or state.next_number))
