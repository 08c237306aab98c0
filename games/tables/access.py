"""What every table transition reads and shares: the game's state of a table, its engine, the
step a transition returns, the dice of an action, and the small checks and texts around them."""

from __future__ import annotations

import random
from dataclasses import dataclass
from datetime import datetime
from functools import lru_cache
from typing import Any

from pydantic import BaseModel, ValidationError

from games.tables.engine import AnyEngine, BadCommandError, GameOverError, IllegalActionError, SetupText
from games.tables.events import TableEnded, TableEvent, duration_text
from games.tables.i18n import join_names, tr
from games.tables.model import Seat, Table, TableError, TableStatus
from games.tables.registry import get_game
from games.tables.text import invalid_value


@dataclass(frozen=True, slots=True)
class Step:
    table: Table
    events: tuple[TableEvent, ...]


def action_rng(seed: str, seq: int) -> random.Random:
    """The dice of the table's ``seq``-th logged action: the same on every replay of the log."""
    return random.Random(f"{seed}:{seq}")


@lru_cache(maxsize=64)
def _load(game: str, board: str) -> Any:
    """The engine state of a board text; cached, since every command reads the same text again."""
    return get_game(game).load_state(board)


def game_state(table: Table) -> Any:
    """The engine's state of a started table. ``IllegalActionError`` while it is a lobby."""
    if table.board is None:
        raise IllegalActionError(tr(table.lang, "error.not_started"))
    return _load(table.game, table.board)


def engine_of(table: Table) -> AnyEngine:
    return get_game(table.game)


def _seat_list(table: Table) -> tuple[str, ...]:
    return tuple(s.name for s in table.seats)


def _require_open(table: Table) -> None:
    if not table.status.open:
        raise GameOverError(
            tr(
                table.lang,
                "error.ended",
                table=table.name,
                status=tr(table.lang, f"status.{table.status.value}"),
                game=table.game,
            )
        )


def _require_lobby(table: Table, key: str) -> None:
    _require_open(table)
    if table.status is not TableStatus.LOBBY:
        raise TableError(tr(table.lang, key, table=table.name))


def game_options(engine: AnyEngine, options: str | None) -> Any:
    """The game's options of a table (its ``options_model``), or None for the game's defaults."""
    return engine.options_model.model_validate_json(options) if options else None


def read_setup(engine: AnyEngine, setup: str | None, lang: str, options: str | None = None) -> str | None:
    """A seat's setup checked by the game's ``setup_model`` and by the game against the table's
    options (``check_setup``), as the JSON stored with the seat; or the reason it is refused."""
    if setup is None:
        return None
    model = engine.setup_model
    if model is None:
        raise BadCommandError(tr(lang, "error.no_setup", title=engine.title))
    try:
        value = model.model_validate_json(setup)
    except ValidationError as exc:
        raise invalid_value(model, exc.errors()[0], "error.bad_setup") from exc
    engine.check_setup(value, game_options(engine, options))
    return value.model_dump_json()


def setup_of(table: Table, seat: Seat) -> BaseModel | None:
    """What ``seat`` brought, as the game's ``setup_model`` value (None: nothing)."""
    model = engine_of(table).setup_model
    return model.model_validate_json(seat.setup) if model is not None and seat.setup is not None else None


def setup_text(table: Table, seat: Seat) -> SetupText:
    """What ``seat`` brought, in the table's language: for everyone and for the seat alone."""
    value = setup_of(table, seat)
    return engine_of(table).describe_setup(value, table.lang) if value is not None else SetupText(None, None)


def brought_text(table: Table) -> str:
    """What the seats bring that everyone may know (``bob weight 2, carol weight 3``); empty: nothing."""
    shown = [(seat.name, setup_text(table, seat).public) for seat in table.seats]
    return tr(table.lang, "list.separator").join(f"{name} {what}" for name, what in shown if what)


def clocks_text(table: Table) -> str:
    """The table's deadlines in words: the game's own (``timers_text``), or the turn limit."""
    engine = engine_of(table)
    seconds = table.options.turn_seconds
    own = engine.timers_text(game_options(engine, table.game_options), seconds, table.lang)
    return own or tr(table.lang, "lobby.turn_limit", turn=duration_text(seconds, table.lang))


def seats_text(table: Table) -> str:
    """Which seats the AI plays and who left (empty when every seat is played by its member)."""
    lang = table.lang
    ai = [s.name for s in table.seats if s.is_ai]
    taken = [s.name for s in table.seats if not s.is_ai and s.autopilot and not s.left]
    left = [s.name for s in table.seats if s.left]
    lines = []
    if ai:
        lines.append(tr(lang, "board.ai_seats", seats=join_names(lang, ai)))
    if taken:
        lines.append(tr(lang, "board.ai_took_over", seats=join_names(lang, taken)))
    if left:
        lines.append(tr(lang, "board.left", seats=join_names(lang, left)))
    return "\n".join(lines)


def lobby_note(table: Table) -> str | None:
    """What the game says of the lobby at its size now (an option worth setting), if anything."""
    engine = engine_of(table)
    note = engine.lobby_note(game_options(engine, table.game_options), len(table.seats), table.lang)
    return str(note) if note else None


def board_of(table: Table, engine: AnyEngine, state: Any) -> str:
    """The public board as posted: the game's public view and who the AI plays or who left."""
    text = engine.public_view(state, table.lang)
    seats = seats_text(table)
    return f"{text}\n\n{seats}" if seats else text


def _replace_seat(table: Table, seat: Seat) -> Table:
    return table.model_copy(update={"seats": tuple(seat if s.name == seat.name else s for s in table.seats)})


def _abandon(table: Table, at: datetime, why: str, events: list[TableEvent]) -> Step:
    new = table.model_copy(update={"status": TableStatus.ABANDONED, "ended_at": at, "clocks": (), "summary": why})
    return Step(new, (*events, TableEnded(TableStatus.ABANDONED, why)))
