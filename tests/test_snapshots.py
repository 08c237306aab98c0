"""When snapshots are written: ticks only after a long log tail, a clean shutdown always.

A tick that writes no snapshot is replayed on the next start, with the dice its place in the
log seeds, so a start after a crash must still give the very state the tick produced.
"""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

from data.store import Store
from games.nomic.actions import Action, AdminGive, AdminLot, Join, PlaceBid, PresentHand, StartRound
from games.nomic.context import ChannelRole, Context
from games.nomic.items import Items
from games.nomic.service import RoundService
from games.nomic.state import RoundState
from scheduler.due import opening
from scheduler.live import catch_up
from tests.support import AUC, GA, cards, quiet_ruleset

GUILD = "g1"
SATURDAY_NOON = datetime(2026, 12, 5, 12, tzinfo=UTC)
MONDAY = datetime(2026, 12, 7, 12, tzinfo=UTC)
THURSDAY = datetime(2026, 12, 10, tzinfo=UTC)
FRIDAY = datetime(2026, 12, 11, 12, tzinfo=UTC)
SATURDAY = datetime(2026, 12, 12, tzinfo=UTC)
HAND = "AS KS QS JS 10S"


def ctx(actor: str, at: datetime, event_id: str, channel: ChannelRole = GA) -> Context:
    return Context(
        actor=actor, actor_name=actor, channel=channel, at=at, is_moderator=actor == "mod", event_id=event_id
    )


async def start(service: RoundService) -> None:
    ruleset = quiet_ruleset()  # the tests count the boundaries' ticks
    phase, presenting = opening(ruleset, SATURDAY_NOON)
    action = StartRound(ruleset=ruleset, phase=phase, presenting_open=presenting, moderators=("mod",))
    assert (await service.start(GUILD, ctx("setup", SATURDAY_NOON, "setup", ChannelRole.OTHER), action)).accepted


async def act(
    service: RoundService, actor: str, action: Action, at: datetime, n: int, *, channel: ChannelRole = GA
) -> None:
    outcome = await service.act(GUILD, ctx(actor, at, f"msg:{n}", channel), action)
    assert outcome.accepted, outcome.text()


async def a_week(service: RoundService) -> RoundState:
    """Joins, the auction start, a bid, the settlement, two identical hands and their placements.

    The last action logged is the placements tick, and it tosses a coin between the two hands.
    """
    await start(service)
    await act(service, "alice", Join(), SATURDAY_NOON, 1)
    await act(service, "bob", Join(), SATURDAY_NOON, 2)
    for n, who in enumerate(["alice", "bob"], start=3):
        await act(service, "mod", AdminGive(target=who, items=Items(cards=cards(HAND))), SATURDAY_NOON, n)
    await act(service, "mod", AdminLot(cards=cards("2H 3H")), SATURDAY_NOON, 5)
    await catch_up(service, GUILD, MONDAY)  # the auction start: 100 points each
    await act(service, "alice", PlaceBid(lot=1, amount=30), MONDAY, 6, channel=AUC)
    await catch_up(service, GUILD, THURSDAY)  # the settlement
    for n, who in enumerate(["alice", "bob"], start=7):
        await act(service, who, PresentHand(cards=cards(HAND)), FRIDAY, n)
    applied = await catch_up(service, GUILD, SATURDAY)  # the placements
    assert [at for at, _ in applied] == [SATURDAY]
    state = await service.state(GUILD)
    assert state is not None
    assert [r.coin_toss for r in state.last_placements] == [True, True]
    return state


async def test_ticks_without_snapshots_reload_to_the_same_state(tmp_path: Path) -> None:
    path = tmp_path / "round.db"
    store = await Store.open(path)
    state = await a_week(RoundService(store))
    snapshot, tail = await store.load(GUILD)
    assert snapshot is not None
    assert snapshot.seq == 1  # the start's; none of the three ticks wrote one
    assert [row.kind for row in tail].count("tick") == 3
    assert tail[-1].seq == state.seq
    await store.close()  # no clean shutdown: as after a crash

    store = await Store.open(path)
    try:
        reloaded = await RoundService(store).state(GUILD)
        assert reloaded == state
        assert reloaded is not None
        assert reloaded.players["alice"].points == state.players["alice"].points
        # and once more from the snapshot that the reload wrote
        assert await RoundService(store).state(GUILD) == state
    finally:
        await store.close()


async def test_a_tick_writes_a_snapshot_only_after_a_long_tail(tmp_path: Path) -> None:
    store = await Store.open(tmp_path / "round.db")
    try:
        service = RoundService(store, tick_snapshot_tail=3)
        await start(service)  # seq 1, with a snapshot
        await act(service, "alice", Join(), SATURDAY_NOON, 1)
        await catch_up(service, GUILD, MONDAY)  # seq 3: two actions since the snapshot
        snapshot, _ = await store.load(GUILD)
        assert snapshot is not None
        assert snapshot.seq == 1
        await act(service, "bob", Join(), MONDAY, 2)
        await catch_up(service, GUILD, THURSDAY)  # seq 5: four since the snapshot
        snapshot, tail = await store.load(GUILD)
        assert snapshot is not None
        assert snapshot.seq == 5
        assert tail == []
        await act(service, "carol", Join(), FRIDAY, 3)
        await catch_up(service, GUILD, SATURDAY)  # seq 7: two since
        snapshot, tail = await store.load(GUILD)
        assert snapshot is not None
        assert snapshot.seq == 5
        assert [row.seq for row in tail] == [6, 7]
        state = await service.state(GUILD)
        assert await RoundService(store).state(GUILD) == state
    finally:
        await store.close()


async def test_a_clean_shutdown_writes_a_snapshot_over_any_tail(tmp_path: Path) -> None:
    path = tmp_path / "round.db"
    store = await Store.open(path)
    service = RoundService(store)
    state = await a_week(service)
    await service.save_snapshots()
    snapshot, tail = await store.load(GUILD)
    assert snapshot is not None
    assert snapshot.seq == state.seq
    assert tail == []
    await store.close()
    store = await Store.open(path)
    try:
        assert await RoundService(store).state(GUILD) == state
    finally:
        await store.close()
