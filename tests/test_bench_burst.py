"""The burst bench's clock of Discord's limits: a call goes through once every bucket it counts in has room."""

from __future__ import annotations

import math
import subprocess
import sys
import textwrap
from pathlib import Path

from bot.bench.burst import Bid, Call, _acknowledged, through_limits

ROOT = Path(__file__).resolve().parents[1]

POST = "/channels/7/messages"


def test_a_channel_takes_five_messages_in_five_seconds_and_four_reactions_a_second() -> None:
    posts = [Call(0.0, "POST", POST, {}) for _ in range(11)]
    assert through_limits(posts) == [0.0] * 5 + [5.0] * 5 + [10.0]
    reactions = [Call(0.0, "PUT", f"/channels/7/messages/{n}/reactions/%E2%9C%85/@me", None) for n in range(5)]
    assert through_limits(reactions) == [0.0, 0.25, 0.5, 0.75, 1.0]
    edits = [Call(0.0, "PATCH", f"{POST}/1", {}), Call(0.0, "PUT", "/channels/7/pins/1", None)]
    assert through_limits(posts[:5] + edits) == [0.0] * 5 + [5.0, 0.0], "an edit counts, a pin does not"


def test_fifty_requests_a_second_in_all() -> None:
    calls = [Call(0.0, "POST", f"/channels/{n}/messages", {}) for n in range(101)]
    done = through_limits(calls)
    assert done[49] == 0.0
    assert done[50] == 1.0
    assert done[100] == 2.0


def test_a_bid_is_acknowledged_by_the_first_call_naming_its_bidder_in_its_channel() -> None:
    bids = [Bid(0.0, "100", "1", "7"), Bid(0.5, "101", "2", "7"), Bid(0.6, "102", "3", "7")]
    calls = [
        Call(0.1, "POST", POST, {"embeds": [{"title": "Bids received", "description": "<@1> ✅ lot 1: 5"}]}),
        Call(0.2, "POST", "/channels/8/messages", {"content": "<@2> elsewhere"}),
        Call(0.7, "PATCH", f"{POST}/9", {"embeds": [{"description": "<@1> ✅\n<@2> ❌ lot 9: 5"}]}),
    ]
    done = [1.0, 1.0, 3.0]
    delays = _acknowledged(calls, done, bids)
    assert delays[:2] == [1.0, 2.5]
    assert math.isinf(delays[2]), "never named: never acknowledged"


STUCK = textwrap.dedent(
    """
    import asyncio, threading
    import simcord
    from bot.bench import burst

    async def stuck(self, *args, **kwargs):
        raise TimeoutError("bot did not settle (made to)")

    simcord.Env.advance_time = stuck
    found = asyncio.run(burst.burst_calls(5, 2, 1.0, "stuck"))
    print("failed:", found["unsettled"], flush=True)
    left = sorted(t.name for t in threading.enumerate() if not t.daemon and t is not threading.main_thread())
    print("threads left:", left, flush=True)
    """
)


def test_a_burst_whose_bot_does_not_settle_releases_it_and_its_process_exits() -> None:
    """simcord gives up on a bot that does not settle (on a busy machine it did, 2 runs in 5): the bench's
    process says so (the bench then fails in one line) and exits, instead of waiting for ever on the store's
    open connection."""
    child = subprocess.Popen([sys.executable, "-c", STUCK], cwd=ROOT, stdout=subprocess.PIPE, text=True)
    try:
        assert child.stdout is not None
        lines = [child.stdout.readline() for _ in range(2)]
        assert lines[0].strip() == "failed: bot did not settle (made to)"
        assert lines[1].strip() == "threads left: []", "the bot's store is closed: nothing keeps the process alive"
        assert child.wait(timeout=120) == 0
    finally:
        child.kill()
        child.wait()
