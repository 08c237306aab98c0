"""What ``!board`` and ``!games`` say of a table, in the table's language."""

from __future__ import annotations

from datetime import datetime

from games.tables.access import brought_text, clocks_text, engine_of, game_state, lobby_note, seats_text
from games.tables.events import duration_text, stamp
from games.tables.i18n import join_names, tr
from games.tables.model import Table, TableStatus
from games.tables.seating import options_words


def lobby_text(table: Table) -> str:
    """The table as ``!board`` shows it before the start."""
    engine = engine_of(table)
    lang = table.lang
    text = tr(
        lang,
        "lobby.board",
        table=table.name,
        title=engine.title,
        n=len(table.seats),
        max=engine.max_seats,
        min=engine.min_seats,
        seats=join_names(lang, [s.name for s in table.seats]),
        clocks=clocks_text(table),
    )
    brought = brought_text(table)
    if brought:
        text += "\n" + tr(lang, "lobby.brought", list=brought)
    words = options_words(table)
    if words:
        text += "\n" + tr(lang, "lobby.options", options=words)
    note = lobby_note(table)
    if note:
        text += "\n" + note
    expires = table.lobby_expires_at
    if expires is not None:
        text += "\n" + tr(lang, "lobby.expires", at=stamp(expires, lang))
    return text


def board_text(table: Table, now: datetime | None = None) -> str:
    """What ``!board`` shows: the lobby, or the public view with its deadlines, or the final table."""
    lang = table.lang
    if table.board is None:
        if table.status is TableStatus.LOBBY:
            return lobby_text(table)
        return tr(lang, "board.closed_early", table=table.name, why=table.summary or table.status.value)
    engine = engine_of(table)
    text = engine.public_view(game_state(table), lang)
    seats = seats_text(table)
    if seats:
        text += "\n\n" + seats
    if table.status is TableStatus.PLAYING:
        for clock in table.clocks:
            left = ""
            if now is not None:
                left = tr(lang, "board.left_time", left=duration_text((clock.deadline - now).total_seconds(), lang))
            at = stamp(clock.deadline, lang)
            if clock.seat is None:
                text += "\n\n" + tr(lang, "board.phase_deadline", deadline=at, left=left)
            else:
                text += "\n\n" + tr(lang, "board.deadline", who=clock.seat, deadline=at, left=left)
    elif table.summary:
        text += f"\n\n{table.summary}"
    return text


def summary_line(table: Table) -> str:
    """One line of ``!games``."""
    engine = engine_of(table)
    lang = table.lang
    seats = join_names(lang, [s.name for s in table.seats])
    if table.status is TableStatus.LOBBY:
        return tr(
            lang,
            "games.lobby_line",
            table=table.name,
            title=engine.title,
            n=len(table.seats),
            max=engine.max_seats,
            seats=seats,
        )
    turn = tr(lang, "games.to_move", seat=table.turn_seat) if table.turn_seat else ""
    return tr(
        lang,
        "games.line",
        table=table.name,
        title=engine.title,
        status=tr(lang, f"status.{table.status.value}"),
        seats=seats,
        turn=turn,
    )
