"""How a table changes: ``apply(table, action, at, rng)`` is the only way, and it returns a ``Step``.

Nothing here touches the database, Discord or the wall clock: ``at`` is the instant the action
happened and ``rng`` the seeded dice of that action (``action_rng(table.seed, seq)``), so
replaying a table's log from its seed rebuilds it exactly.

Choices this module makes:

- The member who opens a table sits at it; AI seats are named ``AI-1``, ``AI-2``... and count
  towards the game's seat limit. ``!ai N`` changes their number while the table is a lobby.
- At the start the seats are put in a random order (the table's seeded dice); the engine then
  decides who moves first.
- AI seats move at once: at the start, and right after any action that awaits them.
- A deadline starts when the state first shows it and does not restart while it stays (a turn
  does not restart while its seat keeps moving). A turn clock gets a reminder at
  ``reminder_fraction`` of its time. When a turn's time passes, the AI plays the rest of that turn,
  unless the game says what a late turn does (``on_timeout`` for the table's turn clock, e.g. "a
  Draw"); after ``timeouts_to_ai`` turns in a row that ran out the AI plays the seat for good. A move by
  the member resets the count. A phase clock does what the game says (``on_timeout``) and is no strike.
- Leaving a lobby frees the seat; leaving a game under way hands the seat to the AI for good. A
  table whose human seats are all gone is abandoned; so is one a moderator ends, and a lobby
  nobody starts within ``lobby_hours``.
"""

from __future__ import annotations

import random
from collections.abc import Collection, Sequence
from datetime import datetime
from typing import Any

from pydantic import BaseModel

from games.tables import clocks
from games.tables.access import (
    Step,
    _abandon,
    _replace_seat,
    _require_lobby,
    _require_open,
    _seat_list,
    action_rng,
    board_of,
    engine_of,
    game_state,
)
from games.tables.actions import (
    EndTable,
    ExpireLobby,
    JoinTable,
    LeaveTable,
    OpenTable,
    PlayMove,
    SetAISeats,
    StartTable,
    TableAction,
    TurnReminder,
    TurnTimeout,
)
from games.tables.autoplay import run_ai
from games.tables.engine import (
    MODERATORS,
    AnyEngine,
    GameEvent,
    GameRuleError,
    IllegalActionError,
    NotASeatError,
    SeatingError,
    Timer,
    WrongRoleError,
    audience_of,
    begins_turn,
    referee_seat,
)
from games.tables.events import (
    Awaited,
    BoardShown,
    GameStarted,
    Moved,
    Notice,
    PhaseTimedOut,
    Reminder,
    SeatsChanged,
    TableEnded,
    TableEvent,
    TimedOut,
    YourTurn,
)
from games.tables.i18n import tr
from games.tables.model import Clock, Seat, Table, TableError, TableStatus
from games.tables.seating import expire, join, open_table, set_ai_seats
from games.tables.text import PlayerResolver, near_word, opens_with

TIME_IS_UP = "⌛"
"""How a line saying a deadline passed begins, in every language."""

# --- the lobby --------------------------------------------------------------------------------


def leave(table: Table, action: LeaveTable, at: datetime, rng: random.Random) -> Step:
    _require_open(table)
    seat = table.seat_of(action.member)
    if seat is None:
        raise NotASeatError(tr(table.lang, "error.not_seated"))
    engine = engine_of(table)
    if table.status is TableStatus.LOBBY:
        rest = tuple(s for s in table.seats if s.member != action.member)
        new = table.model_copy(update={"seats": rest})
        events: list[TableEvent] = [SeatsChanged("leave", seat.name, 0, _seat_list(new), engine.max_seats)]
        if not new.humans:
            return _abandon(new, at, tr(table.lang, "end.nobody_left"), events)
        return Step(new, tuple(events))
    gone = seat.model_copy(update={"left": True, "autopilot": True})
    new = _replace_seat(table, gone)
    events = [Notice("game.left_server" if action.left_server else "game.left", (("seat", seat.name),))]
    if not new.humans:
        return _abandon(new, at, tr(table.lang, "end.everyone_left"), events)
    state = run_ai(new, game_state(new), rng, events)
    return _settle(new, engine, state, at, events)


def start(table: Table, action: StartTable, at: datetime, rng: random.Random) -> Step:
    _require_lobby(table, "error.under_way")
    lang = table.lang
    if table.seat_of(action.member) is None and not action.moderator:
        raise NotASeatError(tr(lang, "error.start_players_only"))
    engine = engine_of(table)
    if len(table.seats) < engine.min_seats:
        raise SeatingError(
            tr(
                lang,
                "error.too_few",
                title=engine.title,
                min=engine.min_seats,
                seated=len(table.seats),
                missing=engine.min_seats - len(table.seats),
            )
        )
    order = list(table.seats)
    rng.shuffle(order)
    options = engine.options_model.model_validate_json(table.game_options) if table.game_options else None
    setups: dict[str, BaseModel] = {}
    if engine.setup_model is not None:
        setups = {s.name: engine.setup_model.model_validate_json(s.setup) for s in order if s.setup is not None}
    state = engine.new_game([s.name for s in order], options, rng, setups)
    started = table.model_copy(update={"status": TableStatus.PLAYING, "seats": tuple(order), "started_at": at})
    private = engine.private_words(table.lang).name
    events: list[TableEvent] = [GameStarted(engine.title, tuple(s.name for s in order), private)]
    state = run_ai(started, state, rng, events)
    return _settle(started, engine, state, at, events, force_board=True)


# --- the game ---------------------------------------------------------------------------------


def play(table: Table, action: PlayMove, at: datetime, rng: random.Random) -> Step:
    """A member's move (or a referee's: a member without a seat the game lets act): the engine checks
    it; then the AI seats it awaits move."""
    seat = acting_seat(table, action.member, moderator=action.moderator)
    engine = engine_of(table)
    state = game_state(table)
    move = engine.load_action(action.action)
    name = seat.name if isinstance(seat, Seat) else seat
    try:
        state, happened = engine.apply(state, name, move, rng)
    except GameRuleError as exc:
        raise exc.in_language(table.lang) from None
    fresh = _replace_seat(table, seat.model_copy(update={"timeouts": 0})) if isinstance(seat, Seat) else table
    events: list[TableEvent] = [Moved(name, by_ai=False, events=tuple(happened))]
    state = run_ai(fresh, state, rng, events)
    return _settle(fresh, engine, state, at, events)


def acting_seat(table: Table, member: str, *, moderator: bool = False) -> Seat | str:
    """The seat ``member`` plays now, or, for a member without one whom the game lets act now
    (``GameEngine.referees``), the referee's seat string; the rule error that stops them otherwise."""
    if table.seat_of(member) is None and table.status is TableStatus.PLAYING:
        referees = engine_of(table).referees(game_state(table))
        if member in referees or (moderator and MODERATORS in referees):
            return referee_seat(member)
    return check_player(table, member)


def check_player(table: Table, member: str) -> Seat:
    """The seat ``member`` plays now; the rule error that stops them otherwise."""
    if table.status is TableStatus.LOBBY:
        raise IllegalActionError(tr(table.lang, "error.not_started"))
    _require_open(table)
    seat = table.seat_of(member)
    if seat is None:
        raise NotASeatError(tr(table.lang, "error.not_playing"))
    if seat.autopilot:
        raise IllegalActionError(tr(table.lang, "error.autopilot"))
    return seat


def parse_move(
    table: Table, member: str, text: str, players: PlayerResolver | None = None, *, moderator: bool = False
) -> PlayMove:
    """Read a move typed in the thread into the action the log stores (legality is ``play``'s).

    ``players``: which seat a player named in the move is (``games.tables.players``); the log
    stores the seat, so a replay never resolves a name again. ``moderator``: the member moderates
    the server (a game's referee may be any moderator).
    """
    seat = acting_seat(table, member, moderator=moderator)
    engine = engine_of(table)
    state = game_state(table)
    try:
        action = engine.parse_action(state, seat.name if isinstance(seat, Seat) else seat, text, players)
    except GameRuleError as exc:
        raise exc.in_language(table.lang) from None
    return PlayMove(member=member, action=engine.dump_action(action), moderator=moderator)


def is_secret_move(table: Table, move: PlayMove) -> bool:
    return bool(engine_of(table).is_secret(engine_of(table).load_action(move.action)))


def is_secret_text(table: Table, text: str) -> bool:
    """Whether ``text`` starts with a secret move's word at this table's game, readable as a move or not."""
    return opens_with(text, engine_of(table).secret_words())


def is_near_secret_text(table: Table, text: str) -> bool:
    """Whether ``text`` starts with a word one slip from a secret move's at this table's game (``!vot P04``)."""
    return near_word(text, engine_of(table).secret_words())


def _clock(table: Table, key: str | None) -> Clock | None:
    if key is None:
        return table.turn_clock
    return next((c for c in table.clocks if c.key == key), None)


def remind(table: Table, at: datetime, key: str | None = None) -> Step:
    clock = _clock(table, key)
    when = clocks.reminder_at(table, clock) if clock is not None else None
    if clock is None or when is None or when > at or clock.seat is None:
        raise TableError("no reminder is due")
    seat = table.seat_named(clock.seat)
    if seat is None or seat.member is None:
        raise TableError("no reminder is due")
    marked = tuple(c.model_copy(update={"reminded": True}) if c.key == clock.key else c for c in table.clocks)
    new = table.model_copy(update={"clocks": marked})
    then = engine_of(table).late_text(game_state(table), seat.name, table.lang) or ""
    return Step(new, (Reminder(seat.name, seat.member, clock.deadline, clock.deadline - at, then),))


def timeout(table: Table, at: datetime, rng: random.Random, key: str | None = None) -> Step:
    """A deadline passed: a turn's is a strike and the AI plays it; a phase's does what the game says."""
    clock = _clock(table, key)
    if table.status is not TableStatus.PLAYING or clock is None or clock.deadline > at:
        raise TableError("no deadline has passed")
    engine = engine_of(table)
    state = game_state(table)
    events: list[TableEvent] = []
    new = table
    timer = Timer(clock.key, clock.seconds, clock.kind, clock.seat)
    own = clock.key in {t.key for t in engine.timers(state)} or clock.key == clocks.default_key(clock.seat or "")
    handled = engine.on_timeout(state, timer, rng) if own else None
    seat = table.seat_named(clock.seat) if clock.seat is not None else None
    if clock.kind == "turn" and seat is not None and seat.member is not None and not seat.played_by_ai:
        count = seat.timeouts + 1
        for_good = count >= table.options.timeouts_to_ai
        new = _replace_seat(table, seat.model_copy(update={"timeouts": count, "autopilot": for_good}))
        events.append(TimedOut(seat.name, seat.member, count, for_good, handled is not None))
    elif handled is None or not _says_time_is_up(handled[1], table.lang):
        awaited = engine.awaiting(state)
        late = tuple(s.name for s in table.seats if s.name in awaited and not s.played_by_ai)
        events.append(PhaseTimedOut(late))
    if handled is not None:
        state, happened = handled
        events.append(Moved(clock.seat or "", by_ai=False, events=tuple(happened)))
        forced: Collection[str] = ()
    else:
        forced = (clock.seat,) if clock.seat is not None else engine.awaiting(state)
    state = run_ai(new, state, rng, events, forced=forced)
    return _settle(new, engine, state, at, events, restart={clock.key})


def _says_time_is_up(events: Sequence[GameEvent], lang: str) -> bool:
    """Whether a game's answer to its own deadline opens by saying the time ran out (a ``⌛`` line, as
    "⌛ The negotiation time is up."): the table then adds no second ``⌛`` line naming who was awaited,
    which would read as if they had let it run out."""
    said = [e.text(lang) for e in events if audience_of(e) is None]
    return bool(said) and said[0].lstrip().startswith(TIME_IS_UP)


def end(table: Table, action: EndTable, at: datetime) -> Step:
    if not action.moderator:
        raise WrongRoleError(tr(table.lang, "error.moderators_only"))
    _require_open(table)
    return _abandon(table, at, tr(table.lang, "end.moderator", table=table.name), [])


def apply(table: Table | None, action: TableAction, at: datetime, rng: random.Random) -> Step:
    """Carry out one logged action; ``GameRuleError`` (nothing changed) when it does not apply."""
    if isinstance(action, OpenTable):
        if table is not None:
            raise TableError("that table exists already")
        opened = open_table(action, at)
        if not action.start:
            return opened
        begun = start(opened.table, StartTable(member=action.member), at, rng)
        return Step(begun.table, (*opened.events, *begun.events))
    if table is None:
        raise TableError("no such table")
    if isinstance(action, JoinTable):
        step = join(table, action)
    elif isinstance(action, LeaveTable):
        step = leave(table, action, at, rng)
    elif isinstance(action, SetAISeats):
        step = set_ai_seats(table, action)
    elif isinstance(action, StartTable):
        step = start(table, action, at, rng)
    elif isinstance(action, PlayMove):
        step = play(table, action, at, rng)
    elif isinstance(action, TurnReminder):
        step = remind(table, at, action.key)
    elif isinstance(action, TurnTimeout):
        step = timeout(table, at, rng, action.key)
    elif isinstance(action, ExpireLobby):
        step = expire(table, at)
    else:
        step = end(table, action, at)
    return Step(step.table.model_copy(update={"seq": table.seq + 1}), step.events)


def replay(actions: Sequence[tuple[TableAction, datetime]]) -> Table | None:
    """A table rebuilt from its whole log (each action with its instant), from the seed up."""
    table: Table | None = None
    for action, at in actions:
        seq = 1 if table is None else table.seq + 1
        seed = action.seed if isinstance(action, OpenTable) else table.seed if table is not None else ""
        table = apply(table, action, at, action_rng(seed, seq)).table
    return table


# --- the bookkeeping after moves ---------------------------------------------------------------


def _settle(
    table: Table,
    engine: AnyEngine,
    state: Any,
    at: datetime,
    events: list[TableEvent],
    *,
    force_board: bool = False,
    restart: Collection[str] = (),
) -> Step:
    """Store the game's new state, run its clocks, end the table when the game ended."""
    moves = table.moves + sum(1 for e in events if isinstance(e, Moved))
    update: dict[str, Any] = {"board": engine.dump_state(state), "moves": moves}
    status = engine.status(state)
    lang = table.lang
    if status != "playing":
        result = engine.result(state)
        summary = result.summaries.get(lang, result.summary)
        update |= {
            "status": TableStatus(status),
            "ended_at": at,
            "clocks": (),
            "summary": summary,
            "winners": tuple(result.winners),
            "scores": tuple((seat, int(score)) for seat, score in result.scores.items()),
            "outcomes": tuple((o.seat, o.kind, o.value) for o in result.outcomes),
        }
        events.append(BoardShown(board_of(table, engine, state)))
        events.append(TableEnded(TableStatus(status), tr(lang, "end.over", table=table.name, summary=summary)))
        return Step(table.model_copy(update=update), tuple(events))
    timers = clocks.timers_of(table, engine, state)
    again = set(restart)
    turned = any(isinstance(e, Moved) and any(begins_turn(x) for x in e.events) for e in events)
    for timer in timers:
        if timer.key == clocks.default_key(timer.seat or ""):
            # the table's own turn clock starts again when the turn came round through another seat, or
            # the game says a turn began (the seat that cut the decks last goes first)
            if turned or any(isinstance(e, Moved) and e.seat != timer.seat for e in events):
                again.add(timer.key)
            if any(isinstance(e, TimedOut) and e.seat == timer.seat for e in events):
                again.add(timer.key)
    running, started = clocks.sync(table, timers, at, again)
    update["clocks"] = running
    new = table.model_copy(update=update)
    if force_board or started:
        events.append(BoardShown(board_of(new, engine, state)))
    awaited = engine.awaiting(state)
    for clock in started:
        seat = new.seat_named(clock.seat) if clock.seat is not None else None
        if clock.kind == "turn" and seat is not None and seat.member is not None and not seat.played_by_ai:
            events.append(YourTurn(seat.name, seat.member, clock.deadline))
        elif clock.seat is None:
            waiting = [s for s in new.seats if s.name in awaited and s.member is not None and not s.played_by_ai]
            if waiting:
                members = tuple(s.member for s in waiting if s.member is not None)
                events.append(Awaited(tuple(s.name for s in waiting), members, clock.deadline, clock.seconds))
    return Step(new, tuple(events))
