"""The lobby's transitions: open a table, sit down, set the AI seats, close a lobby nobody started."""

from __future__ import annotations

from datetime import datetime

from pydantic import ValidationError

from games.tables.access import (
    Step,
    _abandon,
    _replace_seat,
    _require_lobby,
    _seat_list,
    brought_text,
    clocks_text,
    engine_of,
    lobby_note,
    read_setup,
    setup_text,
)
from games.tables.actions import JoinTable, OpenTable, SetAISeats
from games.tables.engine import BadCommandError, NotASeatError, SeatingError
from games.tables.events import Brought, LobbyNote, SeatsChanged, TableEvent, TableOpened
from games.tables.i18n import tr
from games.tables.model import Seat, Table, TableError, ai_seats, seat_name
from games.tables.registry import get_game
from games.tables.text import framework_error, invalid_value


def open_table(action: OpenTable, at: datetime) -> Step:
    """A new lobby with its opener seated and ``ai_seats`` computer players."""
    engine = get_game(action.game)
    lang = action.lang or engine.languages[0]
    if engine.name != action.game:
        raise TableError(f"`{action.game}` is not the registry name of a game")
    if lang not in engine.languages:
        raise framework_error(BadCommandError, "error.language", title=engine.title, langs=", ".join(engine.languages))
    # refused before the table exists: in every language, so the answer speaks the one its reader reads
    if 1 + len(action.others) + action.ai_seats > engine.max_seats:
        raise framework_error(
            SeatingError,
            "error.too_many_ai",
            title=engine.title,
            max=engine.max_seats,
            room=engine.max_seats - 1 - len(action.others),
            n=action.ai_seats,
        )
    if action.game_options is not None:
        try:
            engine.options_model.model_validate_json(action.game_options)
        except ValidationError as exc:
            raise invalid_value(engine.options_model, exc.errors()[0], "error.bad_options") from exc
    setup = read_setup(engine, action.setup, lang, action.game_options)
    name = f"{engine.name}-{action.number}"
    humans = [Seat(name=seat_name(action.member_name, ()), member=action.member, setup=setup)]
    for other in action.others:
        if any(s.member == other.member for s in humans):
            raise framework_error(SeatingError, "error.already_seated")
        brought = read_setup(engine, other.setup, lang, action.game_options)
        taken = [s.name for s in humans]
        humans.append(Seat(name=seat_name(other.member_name, taken), member=other.member, setup=brought))
    seats = (*humans, *ai_seats(action.ai_seats))
    table = Table(
        name=name,
        game=engine.name,
        number=action.number,
        seed=action.seed,
        host=action.member,
        seats=seats,
        options=action.options,
        game_options=action.game_options,
        lang=lang,
        opened_at=at,
        seq=1,
    )
    opened = TableOpened(
        name,
        engine.title,
        seats[0].name,
        _seat_list(table),
        engine.min_seats,
        engine.max_seats,
        clocks_text(table),
        options_words(table),
        brought_text(table),
        arranged=bool(action.others),
    )
    told = tuple(event for seat in humans for event in _told(table, seat))
    return Step(table, (opened, *_noted(None, table), *told))


def _noted(before: Table | None, after: Table) -> tuple[TableEvent, ...]:
    """The game's note for the lobby when its size changed what the game has to say."""
    note = lobby_note(after)
    if note is None or (before is not None and lobby_note(before) == note):
        return ()
    return (LobbyNote(note),)


def _told(table: Table, seat: Seat) -> tuple[TableEvent, ...]:
    """What the seat brought, told to it alone (when the game shows it anything)."""
    private = setup_text(table, seat).private
    return (Brought(seat.name, private),) if private else ()


def options_words(table: Table) -> str:
    """The options a table set away from the defaults, as ``key:value`` words (for the lobby)."""
    engine = engine_of(table)
    words: list[str] = []
    if table.game_options:
        chosen = engine.options_model.model_validate_json(table.game_options)
        defaults = engine.options_model()
        for key in type(chosen).model_fields:
            value = getattr(chosen, key)
            if value != getattr(defaults, key):
                words.append(f"{key}:{_word(value)}")
    if table.lang != engine.languages[0]:
        words.append(f"lang:{table.lang}")
    return " ".join(words)


def _word(value: object) -> str:
    if isinstance(value, bool):
        return "on" if value else "off"
    if value is None:
        return "none"
    return str(value)


def join(table: Table, action: JoinTable) -> Step:
    """Sit down, bringing what the game lets a seat bring; seated already, bring something else."""
    _require_lobby(table, "error.started_no_seats")
    lang = table.lang
    engine = engine_of(table)
    seated = table.seat_of(action.member)
    if seated is not None and action.setup is None:
        raise SeatingError(tr(lang, "error.already_seated"))
    if seated is None and len(table.seats) >= engine.max_seats:
        raise SeatingError(tr(lang, "error.full", table=table.name, title=engine.title, max=engine.max_seats))
    setup = read_setup(engine, action.setup, lang, table.game_options)
    if seated is not None:
        seat = seated.model_copy(update={"setup": setup})
        new = _replace_seat(table, seat)
        public, before = setup_text(new, seat).public, setup_text(table, seated).public
        shown = public or tr(lang, "lobby.nothing_shown")
        changed = (SeatsChanged("brings", seat.name, 0, _seat_list(new), engine.max_seats, shown),)
        return Step(new, (*(changed if public != before else ()), *_told(new, seat)))
    humans = [s for s in table.seats if not s.is_ai]
    seat = Seat(name=seat_name(action.member_name, _seat_list(table)), member=action.member, setup=setup)
    new = table.model_copy(update={"seats": (*humans, seat, *table.ai_seats)})
    public = setup_text(new, seat).public or ""
    sat = SeatsChanged("sit", seat.name, 0, _seat_list(new), engine.max_seats, public)
    return Step(new, (sat, *_noted(table, new), *_told(new, seat)))


def set_ai_seats(table: Table, action: SetAISeats) -> Step:
    _require_lobby(table, "error.started_no_ai")
    lang = table.lang
    if table.seat_of(action.member) is None and not action.moderator:
        raise NotASeatError(tr(lang, "error.ai_players_only"))
    engine = engine_of(table)
    humans = tuple(s for s in table.seats if not s.is_ai)
    if len(humans) + action.count > engine.max_seats:
        raise SeatingError(
            tr(
                lang,
                "error.ai_room",
                title=engine.title,
                max=engine.max_seats,
                seated=len(humans),
                room=engine.max_seats - len(humans),
                n=action.count,
            )
        )
    new = table.model_copy(update={"seats": (*humans, *ai_seats(action.count))})
    return Step(new, (SeatsChanged("ai", "", action.count, _seat_list(new), engine.max_seats), *_noted(table, new)))


def expire(table: Table, at: datetime) -> Step:
    """A lobby nobody started in time closes."""
    expires = table.lobby_expires_at
    if expires is None or expires > at:
        raise TableError("the lobby has not expired")
    hours = table.options.lobby_hours or 0
    return _abandon(table, at, tr(table.lang, "end.lobby_expired", table=table.name, hours=hours), [])
