"""The bot's garbage-collection policy (bot.memory): collect and freeze after work, a full pass daily."""

from __future__ import annotations

import gc
import weakref
from collections.abc import Iterator
from datetime import UTC, datetime

import pytest

from bot.memory import FULL_AFTER_MIDDLE, FULL_PASS_EVERY, Memory

from .conftest import Server


class Node:
    """An object in a reference cycle: only the collector can free it."""

    def __init__(self) -> None:
        self.me = self


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def collector() -> Iterator[None]:
    """No automatic collection during the test; the collector as it was afterwards."""
    thresholds = gc.get_threshold()
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        gc.unfreeze()
        gc.set_threshold(*thresholds)
        if enabled:
            gc.enable()


@pytest.mark.usefixtures("collector")
def test_settle_collects_what_is_garbage_then_freezes_what_lives() -> None:
    memory = Memory(clock=Clock())
    garbage, alive = Node(), Node()
    dropped, kept = weakref.ref(garbage), weakref.ref(alive)
    del garbage
    assert dropped() is not None, "a cycle is not freed by reference counting"
    memory.settle()
    assert dropped() is None
    assert kept() is alive
    assert gc.get_freeze_count() > 0
    assert gc.get_threshold()[2] == FULL_AFTER_MIDDLE
    assert memory.settled == 1


@pytest.mark.usefixtures("collector")
def test_frozen_objects_are_still_freed_when_nothing_refers_to_them() -> None:
    memory = Memory(clock=Clock())
    plain = Clock()  # no cycle
    ref = weakref.ref(plain)
    memory.settle()
    del plain
    assert ref() is None


@pytest.mark.usefixtures("collector")
def test_a_frozen_cycle_is_reclaimed_by_the_daily_full_pass() -> None:
    clock = Clock()
    memory = Memory(clock=clock)
    node = Node()
    ref = weakref.ref(node)
    memory.settle()  # alive: frozen
    del node
    memory.settle()  # scans only what is not frozen
    assert ref() is not None
    clock.now += FULL_PASS_EVERY
    memory.settle()
    assert ref() is None


@pytest.mark.usefixtures("collector")
def test_disabled_leaves_the_collector_alone() -> None:
    before = gc.get_threshold(), gc.get_freeze_count()
    memory = Memory(enabled=False)
    memory.settle()
    assert (gc.get_threshold(), gc.get_freeze_count()) == before
    assert memory.settled == 0


class Recorder:
    def __init__(self) -> None:
        self.calls = 0

    def settle(self) -> None:
        self.calls += 1


async def test_the_bot_settles_after_scheduled_work_it_applied(discord_server: Server) -> None:
    s = discord_server
    assert not s.bot.memory.enabled, "tests run on a virtual clock: Python's collector is left alone"
    recorder = Recorder()
    s.bot.memory = recorder  # type: ignore[assignment]
    await s.alice.send(s.game_actions, "!join")
    assert recorder.calls == 0, "a command settles nothing"
    await s.advance(datetime(2026, 12, 5, tzinfo=UTC))  # the placements
    assert recorder.calls == 1
    await s.advance(datetime(2026, 12, 5, 1, tzinfo=UTC))  # nothing due
    assert recorder.calls == 1
    await s.bot.scheduled_work(str(s.guild.id), datetime(2026, 12, 6, tzinfo=UTC))  # the timer: the auction start
    assert recorder.calls == 2
