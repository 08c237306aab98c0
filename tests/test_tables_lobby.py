"""The pure table model (games.tables.lobby): lobby rules, seats, AI seats, turns, timers, replays."""

from __future__ import annotations

import random
from datetime import UTC, datetime, timedelta

import pytest

from games.tables import lobby
from games.tables.engine import (
    BadCommandError,
    GameOverError,
    IllegalActionError,
    MissingCardError,
    NotASeatError,
    NotEnoughHoursError,
    NotYourTurnError,
    SeatingError,
    WrongRoleError,
)
from games.tables.lobby import (
    EndTable,
    JoinTable,
    LeaveTable,
    OpenTable,
    PlayMove,
    Reminder,
    SetAISeats,
    StartTable,
    Step,
    Table,
    TableAction,
    TableError,
    TableOptions,
    TableStatus,
    TimedOut,
    TurnReminder,
    TurnTimeout,
    YourTurn,
)
from games.tables.service import is_table_name, parse_play
from games.wikipedia.actions import AddSection, EndTurn, FixProblem, PassHour, Protect
from games.wikipedia.cards import ARTICLE_OF, KIND_OF, Article, Kind
from games.wikipedia.engine import ENGINE
from games.wikipedia.state import WikipediaState

T0 = datetime(2026, 12, 7, 9, tzinfo=UTC)
HOUR = timedelta(hours=1)
TWO_HOURS = TableOptions(turn_seconds=2 * 3600)


class Log:
    """Applies actions like the service does (each with the dice of its place in the log) and keeps them."""

    def __init__(self) -> None:
        self.entries: list[tuple[TableAction, datetime]] = []
        self.table: Table | None = None

    def do(self, action: TableAction, at: datetime = T0) -> Step:
        seq = 1 if self.table is None else self.table.seq + 1
        seed = action.seed if isinstance(action, OpenTable) else self.table.seed if self.table else ""
        step = lobby.apply(self.table, action, at, lobby.action_rng(seed, seq))
        self.table = step.table
        self.entries.append((action, at))
        return step

    @property
    def t(self) -> Table:
        assert self.table is not None
        return self.table


def open_log(
    ai: int = 0, *, member: str = "alice", seed: str = "seed", options: TableOptions = TWO_HOURS, number: int = 1
) -> Log:
    log = Log()
    log.do(
        OpenTable(
            game="wikipedia",
            number=number,
            seed=seed,
            member=member,
            member_name=member,
            ai_seats=ai,
            options=options,
        )
    )
    return log


def started(*humans: str, ai: int = 0, seed: str = "seed", options: TableOptions = TWO_HOURS) -> Log:
    log = open_log(ai, member=humans[0], seed=seed, options=options)
    for name in humans[1:]:
        log.do(JoinTable(member=name, member_name=name))
    log.do(StartTable(member=humans[0]))
    return log


def state_of(table: Table) -> WikipediaState:
    state = lobby.game_state(table)
    assert isinstance(state, WikipediaState)
    return state


def move(member: str, action: object) -> PlayMove:
    return PlayMove(member=member, action=ENGINE.dump_action(action))  # type: ignore[arg-type]


# --- the lobby --------------------------------------------------------------------------------


def test_open_seats_the_opener_and_the_ai_seats() -> None:
    log = open_log(ai=2)
    t = log.t
    assert t.name == "wikipedia-1"
    assert t.status is TableStatus.LOBBY
    assert [s.name for s in t.seats] == ["alice", "AI-1", "AI-2"]
    assert [s.member for s in t.seats] == ["alice", None, None]
    assert t.board is None
    assert t.seq == 1
    assert t.seed == "seed"
    assert lobby.next_due(t) == (t.opened_at + timedelta(hours=24), "expire"), "a lobby only expires"


def test_ai_seats_count_towards_the_seat_limit() -> None:
    assert len(open_log(ai=ENGINE.max_seats - 1).t.seats) == ENGINE.max_seats
    with pytest.raises(SeatingError, match="at most"):
        open_log(ai=ENGINE.max_seats)
    log = open_log(ai=1)
    log.do(JoinTable(member="bob", member_name="bob"))
    with pytest.raises(SeatingError, match="room for 3"):
        log.do(SetAISeats(member="alice", count=4))
    log.do(SetAISeats(member="bob", count=3))
    assert [s.name for s in log.t.seats] == ["alice", "bob", "AI-1", "AI-2", "AI-3"]
    with pytest.raises(SeatingError, match="full"):
        log.do(JoinTable(member="carol", member_name="carol"))
    log.do(SetAISeats(member="alice", count=0))
    assert [s.name for s in log.t.seats] == ["alice", "bob"]
    with pytest.raises(NotASeatError):
        log.do(SetAISeats(member="zed", count=1))
    log.do(SetAISeats(member="mod", count=1, moderator=True))
    assert len(log.t.seats) == 3


def test_join_up_to_the_game_limit_and_only_once() -> None:
    log = open_log()
    for name in ("bob", "carol", "dave", "erin"):
        log.do(JoinTable(member=name, member_name=name))
    assert len(log.t.seats) == ENGINE.max_seats == 5
    before = log.t
    with pytest.raises(SeatingError, match="is full"):
        log.do(JoinTable(member="frank", member_name="frank"))
    with pytest.raises(SeatingError, match="already sit"):
        lobby.apply(before, JoinTable(member="bob", member_name="bob"), T0, random.Random(0))
    assert log.t is before


def test_humans_sit_before_the_ai_seats_and_names_stay_unique() -> None:
    log = open_log(ai=1, member="u1")
    log.do(JoinTable(member="u2", member_name="u1"))
    log.do(JoinTable(member="u3", member_name="AI-1"))
    log.do(JoinTable(member="u4", member_name="  `@**evil**`\u202e  "))
    names = [s.name for s in log.t.seats]
    assert names[-1] == "AI-1"
    assert len({n.casefold() for n in names}) == len(names)
    assert names[1] == "u1-2"
    assert "`" not in names[3]
    assert "@" not in names[3]
    assert lobby.seat_name("x" * 500, ()) == "x" * lobby.MAX_SEAT_NAME
    assert lobby.seat_name("   ", ()) == "player"


def test_leaving_the_lobby_and_the_last_one_out_closes_it() -> None:
    log = open_log(ai=1)
    log.do(JoinTable(member="bob", member_name="bob"))
    log.do(LeaveTable(member="alice"))
    assert [s.name for s in log.t.seats] == ["bob", "AI-1"]
    with pytest.raises(NotASeatError):
        log.do(LeaveTable(member="alice"))
    step = log.do(LeaveTable(member="bob"))
    assert log.t.status is TableStatus.ABANDONED
    assert "Nobody is left" in step.events[-1].text()
    with pytest.raises(GameOverError):
        log.do(JoinTable(member="carol", member_name="carol"))


def test_starting_needs_enough_players_and_a_seated_starter() -> None:
    log = open_log()
    with pytest.raises(SeatingError, match="at least 2"):
        log.do(StartTable(member="alice"))
    log.do(JoinTable(member="bob", member_name="bob"))
    with pytest.raises(NotASeatError):
        log.do(StartTable(member="carol"))
    step = log.do(StartTable(member="mod", moderator=True))
    assert log.t.status is TableStatus.PLAYING
    assert log.t.started_at == T0
    assert any(isinstance(e, lobby.GameStarted) for e in step.events)
    with pytest.raises(TableError, match="started"):
        log.do(JoinTable(member="carol", member_name="carol"))
    with pytest.raises(TableError, match="under way"):
        log.do(StartTable(member="alice"))
    with pytest.raises(TableError):
        log.do(SetAISeats(member="alice", count=1))


def test_ai_seats_move_at_the_start_until_a_member_is_to_play() -> None:
    for seed in ("a", "b", "c", "d", "e"):
        log = started("alice", ai=3, seed=seed)
        t = log.t
        state = state_of(t)
        assert ENGINE.to_move(state) == "alice", "the only human is to move once the AI seats have played"
        assert t.turn_seat == "alice"
        assert t.turn_started_at == T0
        assert t.deadline == T0 + 2 * HOUR
        assert t.moves == state.actions
        assert sorted(s.name for s in t.seats) == ["AI-1", "AI-2", "AI-3", "alice"]


def test_start_events_show_the_board_and_call_the_member() -> None:
    log = open_log(ai=1)
    step = log.do(StartTable(member="alice"))
    boards = [e for e in step.events if isinstance(e, lobby.BoardShown)]
    assert len(boards) == 1
    assert boards[0].text() == ENGINE.public_view(state_of(log.t)) + "\n\nPlayed by the AI: AI-1."
    turn = [e for e in step.events if isinstance(e, YourTurn)]
    assert [(e.seat, e.member, e.deadline) for e in turn] == [("alice", "alice", T0 + 2 * HOUR)]


def test_seat_order_and_deal_come_from_the_seed() -> None:
    one = started("alice", "bob", ai=2, seed="same").t
    two = started("alice", "bob", ai=2, seed="same").t
    assert one == two
    others = {started("alice", "bob", ai=2, seed=f"other{k}").t.board for k in range(4)}
    assert len(others | {one.board}) > 1


# --- playing --------------------------------------------------------------------------------


def _two_humans() -> tuple[Log, str, str]:
    log = started("alice", "bob")
    state = state_of(log.t)
    mover = state.seats[state.current]
    other = next(s for s in state.seats if s != mover)
    return log, mover, other


def test_moves_are_checked_by_the_engine_and_refused_moves_change_nothing() -> None:
    log, mover, other = _two_humans()
    before = log.t
    with pytest.raises(NotYourTurnError):
        log.do(move(other, PassHour()))
    with pytest.raises(NotASeatError):
        log.do(move("carol", PassHour()))
    state = state_of(before)
    hand = state.hands[state.current]
    fact = next(c for c in range(1, 53) if KIND_OF[c] is Kind.FACT and c not in hand)
    source = next(c for c in range(1, 53) if KIND_OF[c] is Kind.SOURCE and ARTICLE_OF[c] == ARTICLE_OF[fact])
    with pytest.raises(MissingCardError):
        log.do(move(mover, AddSection(fact=fact, support=source, payment=hand[0])))
    assert log.t is before
    log.do(move(mover, PassHour()))
    assert state_of(log.t).hours == state.hours - 1
    assert log.t.turn_seat == mover
    assert log.t.turn_started_at == T0, "the timer runs from the turn's start, not from the last move"


def test_wrong_role_and_too_few_hours() -> None:
    log, _mover, _other = _two_humans()
    state = state_of(log.t)
    non_admin = next(i for i in range(2) if i != state.admin)
    article = next(a for a in range(4) if state.expertise(non_admin) != a)
    crafted = state.model_copy(
        update={
            "current": non_admin,
            "hours": 1,
            "pages": tuple(
                p.model_copy(update={"problems": (article * 13 + 1,)}) if i == article else p
                for i, p in enumerate(state.pages)
            ),
        }
    )
    table = log.t.model_copy(update={"board": ENGINE.dump_state(crafted)})
    who = crafted.seats[non_admin]
    with pytest.raises(WrongRoleError, match="administrator"):
        lobby.apply(table, move(who, Protect(article=Article.ART)), T0, random.Random(0))
    with pytest.raises(NotEnoughHoursError):
        lobby.apply(table, move(who, FixProblem(card=article * 13 + 1)), T0, random.Random(0))


def test_a_move_that_hands_the_turn_over_restarts_the_timer_and_shows_the_board() -> None:
    log, mover, other = _two_humans()
    step = log.do(move(mover, EndTurn()), T0 + HOUR)
    assert log.t.turn_seat == other
    assert log.t.turn_started_at == T0 + HOUR
    assert log.t.deadline == T0 + 3 * HOUR
    assert any(isinstance(e, lobby.BoardShown) for e in step.events)
    assert [e.member for e in step.events if isinstance(e, YourTurn)] == [other]


def test_against_ai_seats_the_timer_restarts_when_the_turn_comes_back() -> None:
    log = started("alice", ai=1)
    assert log.t.turn_seat == "alice"
    log.do(move("alice", EndTurn()), T0 + HOUR)
    assert log.t.turn_seat == "alice", "the AI played its turn at once"
    assert log.t.turn_started_at == T0 + HOUR
    assert not log.t.reminded


def test_leaving_a_game_hands_the_seat_to_the_ai_and_the_last_member_abandons() -> None:
    log, mover, other = _two_humans()
    log.do(LeaveTable(member=mover), T0 + HOUR)
    seat = log.t.seat_named(mover)
    assert seat is not None
    assert seat.left
    assert seat.autopilot
    assert log.t.turn_seat == other, "the AI played the leaver's turn"
    assert [s.member for s in log.t.humans] == [other]
    log.do(LeaveTable(member=other), T0 + 2 * HOUR)
    assert log.t.status is TableStatus.ABANDONED
    assert lobby.next_due(log.t) is None


def test_only_moderators_end_a_table() -> None:
    log, mover, _ = _two_humans()
    with pytest.raises(WrongRoleError):
        log.do(EndTable(member=mover))
    log.do(EndTable(member="mod", moderator=True), T0 + HOUR)
    assert log.t.status is TableStatus.ABANDONED
    assert log.t.ended_at == T0 + HOUR
    with pytest.raises(GameOverError):
        log.do(move(mover, PassHour()))
    with pytest.raises(GameOverError):
        log.do(EndTable(member="mod", moderator=True))


def test_moves_before_the_start_are_refused() -> None:
    log = open_log(ai=1)
    with pytest.raises(IllegalActionError, match="not started"):
        lobby.parse_move(log.t, "alice", "!pass")


def test_parse_move_reads_the_game_grammar() -> None:
    log, mover, _ = _two_humans()
    parsed = lobby.parse_move(log.t, mover, "!PASS")
    assert ENGINE.load_action(parsed.action) == PassHour()
    with pytest.raises(BadCommandError):
        lobby.parse_move(log.t, mover, "!dance")


# --- timers -----------------------------------------------------------------------------------


def test_reminder_at_half_time_then_the_ai_plays_the_turn() -> None:
    log, mover, other = _two_humans()
    assert lobby.next_due(log.t) == (T0 + HOUR, "remind")
    with pytest.raises(TableError):
        log.do(TurnReminder(), T0 + HOUR - timedelta(seconds=1))
    step = log.do(TurnReminder(), T0 + HOUR)
    (reminder,) = step.events
    assert isinstance(reminder, Reminder)
    assert reminder.member == mover
    assert "1h left" in reminder.text()
    assert lobby.next_due(log.t) == (T0 + 2 * HOUR, "timeout")
    with pytest.raises(TableError):
        log.do(TurnReminder(), T0 + HOUR)
    with pytest.raises(TableError):
        log.do(TurnTimeout(), T0 + 2 * HOUR - timedelta(seconds=1))
    step = log.do(TurnTimeout(), T0 + 2 * HOUR)
    timed = [e for e in step.events if isinstance(e, TimedOut)]
    assert [(e.seat, e.timeouts, e.for_good) for e in timed] == [(mover, 1, False)]
    assert any(isinstance(e, lobby.Moved) and e.by_ai and e.seat == mover for e in step.events)
    assert log.t.turn_seat == other
    assert log.t.turn_started_at == T0 + 2 * HOUR
    seat = log.t.seat_named(mover)
    assert seat is not None
    assert seat.timeouts == 1
    assert not seat.autopilot


def test_three_timeouts_in_a_row_hand_the_seat_to_the_ai_for_good() -> None:
    log = started("alice", ai=1)
    at = T0
    for count in (1, 2, 3):
        due = lobby.next_due(log.t)
        assert due is not None
        assert due[1] == "remind"
        log.do(TurnReminder(), due[0])
        due = lobby.next_due(log.t)
        assert due is not None
        assert due[1] == "timeout"
        assert due[0] == at + 2 * HOUR
        at = due[0]
        step = log.do(TurnTimeout(), at)
        (timed,) = [e for e in step.events if isinstance(e, TimedOut)]
        assert timed.timeouts == count
        assert timed.for_good is (count == 3)
    seat = log.t.seat_named("alice")
    assert seat is not None
    assert seat.autopilot
    assert not seat.left
    assert log.t.status in {TableStatus.WON, TableStatus.LOST}, "with every seat an AI the game plays to its end"
    assert log.t.ended_at == at
    assert lobby.next_due(log.t) is None
    assert log.t.summary == ENGINE.result(state_of(log.t)).summary
    with pytest.raises(GameOverError):
        log.do(move("alice", PassHour()))


def test_a_members_own_move_resets_the_count() -> None:
    log = started("alice", ai=1)
    log.do(TurnReminder(), T0 + HOUR)
    log.do(TurnTimeout(), T0 + 2 * HOUR)
    assert log.t.seats[0].timeouts + log.t.seats[1].timeouts == 1
    log.do(move("alice", PassHour()), T0 + 2 * HOUR + timedelta(minutes=5))
    seat = log.t.seat_named("alice")
    assert seat is not None
    assert seat.timeouts == 0


def test_autopiloted_seat_cannot_be_played_by_its_member() -> None:
    log, mover, other = _two_humans()
    at = T0
    while True:
        due = lobby.next_due(log.t)
        assert due is not None
        log.do(TurnReminder() if due[1] == "remind" else TurnTimeout(), due[0])
        seat = log.t.seat_named(mover)
        assert seat is not None
        if seat.autopilot:
            break
        at = due[0]
    assert at > T0
    assert log.t.status is TableStatus.PLAYING, "the other member still plays"
    assert log.t.turn_seat == other
    with pytest.raises(IllegalActionError, match="AI plays your seat"):
        lobby.parse_move(log.t, mover, "!pass")


def test_no_reminder_when_the_option_is_off() -> None:
    log = started("alice", ai=1, options=TableOptions(turn_seconds=3600, reminder_fraction=None))
    assert lobby.next_due(log.t) == (T0 + HOUR, "timeout")


def test_won_and_lost_tables() -> None:
    statuses = set()
    for k in range(30):
        log = started("alice", ai=1, seed=f"s{k}", options=TableOptions(turn_seconds=600, timeouts_to_ai=1))
        log.do(TurnReminder(), T0 + timedelta(minutes=5))
        log.do(TurnTimeout(), T0 + timedelta(minutes=10))
        result = ENGINE.result(state_of(log.t))
        assert log.t.status.value == result.status
        assert log.t.winners == result.winners
        statuses.add(log.t.status)
        if statuses == {TableStatus.WON, TableStatus.LOST}:
            break
    assert statuses == {TableStatus.WON, TableStatus.LOST}


# --- the log ----------------------------------------------------------------------------------


def test_replaying_the_log_from_the_seed_rebuilds_the_table() -> None:
    log, mover, other = _two_humans()
    log.do(move(mover, PassHour()), T0 + timedelta(minutes=3))
    log.do(TurnReminder(), T0 + HOUR)
    log.do(TurnTimeout(), T0 + 2 * HOUR)
    log.do(move(other, EndTurn()), T0 + 2 * HOUR + timedelta(minutes=1))
    log.do(LeaveTable(member=other), T0 + 3 * HOUR)
    assert lobby.replay(log.entries) == log.t
    assert lobby.replay(log.entries[:3]) == started("alice", "bob").t
    for action, _ in log.entries:
        assert lobby.ACTION_ADAPTER.validate_json(lobby.ACTION_ADAPTER.dump_json(action)) == action
    assert Table.model_validate_json(log.t.model_dump_json()) == log.t


# --- words --------------------------------------------------------------------------------------


def test_play_options() -> None:
    assert parse_play(["Wikipedia"])[:3] == ("wikipedia", 0, None)
    assert parse_play(["wikipedia", "ai:2"])[:3] == ("wikipedia", 2, None)
    assert parse_play(["wikipedia", "AI=3", "turn:12h"])[:3] == ("wikipedia", 3, 12 * 3600)
    assert parse_play(["wikipedia", "ai1", "timer:1d12h"])[:3] == ("wikipedia", 1, 36 * 3600)
    assert parse_play(["wikipedia", "turn:90m"])[2] == 90 * 60
    for bad in ([], ["chess"], ["wikipedia", "ai:x"], ["wikipedia", "ai:999"], ["wikipedia", "turn:0m"]):
        with pytest.raises(BadCommandError):
            parse_play(bad)
    for bad_limit in ("5s", "31d", "", "h", "-1h", "1h1d"):
        with pytest.raises(BadCommandError):
            lobby.parse_turn_limit(bad_limit)


def test_table_names() -> None:
    assert is_table_name("wikipedia-1")
    assert is_table_name("#wikipedia-12")
    assert not is_table_name("wikipedia-0")
    assert not is_table_name("chess-1")
    assert not is_table_name("game-actions")
    assert not is_table_name("123456789012345678")
