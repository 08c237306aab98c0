"""The posted board says which seats the AI plays (from the start, after timeouts, after a leave) and who left."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from games.tables import lobby
from games.tables.lobby import BoardShown, JoinTable, LeaveTable, OpenTable, StartTable, TableOptions

T0 = datetime(2026, 12, 7, 9, 0, tzinfo=UTC)


def boards(step: lobby.Step) -> list[str]:
    return [e.board for e in step.events if isinstance(e, BoardShown)]


def test_the_board_names_the_ai_seats_and_who_left() -> None:
    options = TableOptions(turn_seconds=3600, timeouts_to_ai=1)
    t = lobby.apply(
        None,
        OpenTable(game="wikipedia", number=1, seed="b", member="ann", member_name="ann", ai_seats=1, options=options),
        T0,
        lobby.action_rng("b", 1),
    ).table
    for who in ("ben", "cat"):
        t = lobby.apply(t, JoinTable(member=who, member_name=who), T0, lobby.action_rng("b", t.seq + 1)).table
    step = lobby.apply(t, StartTable(member="ann"), T0, lobby.action_rng("b", t.seq + 1))
    assert "Played by the AI: AI-1." in boards(step)[-1]
    t = step.table
    step = lobby.apply(t, LeaveTable(member="ben"), T0 + timedelta(minutes=1), lobby.action_rng("b", t.seq + 1))
    t = step.table
    assert "Left the game: ben." in lobby.board_text(t)
    while t.status.open and t.deadline is not None:
        at = t.deadline
        step = lobby.apply(t, lobby.TurnTimeout(), at, lobby.action_rng("b", t.seq + 1))
        t = step.table
        if any(s.autopilot and not s.left for s in t.seats):
            break
    taken = [s.name for s in t.seats if s.autopilot and not s.left]
    assert taken
    assert f"The AI took over: {taken[0]}." in lobby.board_text(t)
