"""``python -m bot bench --burst``: what a burst of bids costs on Discord, counted on simcord.

``BIDS`` prefix bids from ``MEMBERS`` members in #auctions (about one in eight refused: too low, or
on a lot that does not exist) go to the real bot on simcord, an offline Discord, spread over
``SPREAD`` seconds of its virtual clock. Every REST call the bot makes is recorded with the virtual
instant it was made; afterwards the calls go, in that order, through Discord's published limits,
each waiting for its buckets:

* 5 messages per 5 seconds in a channel (posting or editing one);
* reactions, about 4 a second in a channel;
* 50 requests a second in all (an interaction's answer counts against none of these).

A bid is acknowledged by the first call made after it that carries its answer: a reaction on the
bid, a reply to it, or a message in its channel naming its bidder. The board is current once the
first board call made after the last bid is through. The figures: the slowest acknowledgement, and
the board's delay after the last bid, with the calls by channel and route.
"""

from __future__ import annotations

import bisect
import math
import random
import re
import statistics
import tempfile
from collections import Counter
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

BIDS = 500
MEMBERS = 100
SPREAD = 5.0
"""Seconds of the burst (virtual): 500 bids in 5 s is 100 a second."""
SATURDAY = datetime(2026, 12, 5, 12, tzinfo=UTC)
SUNDAY = datetime(2026, 12, 6, tzinfo=UTC)
MESSAGES = (5, 5.0)
REACTIONS = (1, 0.25)
OVERALL = (50, 1.0)
GOAL_ACK = 10.0
SETTLE_SECONDS = 0.5
"""Real seconds simcord waits for the bot to settle. Kept short: a longer wait lets the bot's real-time
timers fire inside it (each final wait then lasts the whole timeout, and the calls counted change), so
on a machine too busy to settle in time the bench fails with simcord's ``TimeoutError`` instead."""
GOAL_BOARD = 5.0

THIS_FILE = Path(__file__).resolve()
_MENTION = re.compile(r"<@!?(\d+)>")


class _Timed(list[Any]):
    """simcord's log of REST calls, each with the virtual instant it was made."""

    def __init__(self, clock: Any) -> None:
        super().__init__()
        self.clock = clock
        self.times: list[float] = []

    def append(self, entry: Any) -> None:
        self.times.append(float(self.clock.elapsed))
        super().append(entry)


@dataclass(frozen=True)
class Call:
    at: float
    method: str
    path: str
    payload: Any

    @property
    def channel(self) -> str | None:
        parts = self.path.strip("/").split("/")
        return parts[1] if len(parts) > 1 and parts[0] == "channels" else None

    @property
    def route(self) -> str:
        """The route with ids left out: ``POST /channels/{id}/messages``."""
        path = re.sub(r"/reactions/[^/]+/", "/reactions/{emoji}/", self.path)
        return f"{self.method} " + re.sub(r"/\d+", "/{id}", path)

    def buckets(self) -> list[tuple[str, int, float]]:
        found = [("overall", *OVERALL)]
        channel = self.channel
        if channel is not None and "/reactions/" in self.path:
            found.append((f"reactions {channel}", *REACTIONS))
        elif (
            channel is not None
            and self.method in {"POST", "PATCH"}
            and "/messages" in self.path
            and not self.path.endswith(("/pins", "/crosspost"))
            and "/pins/" not in self.path
        ):
            found.append((f"messages {channel}", *MESSAGES))
        return found

    def text(self) -> str:
        """What the call shows: its content and its embeds' words."""
        payload = self.payload if isinstance(self.payload, dict) else {}
        parts = [str(payload.get("content") or "")]
        for embed in payload.get("embeds") or []:
            parts += [str(embed.get("title") or ""), str(embed.get("description") or "")]
        return "\n".join(parts)

    def titled(self, title: str) -> bool:
        payload = self.payload if isinstance(self.payload, dict) else {}
        return any((embed.get("title") or "") == title for embed in payload.get("embeds") or [])


def through_limits(calls: list[Call]) -> list[float]:
    """When each call is through: in the order they were made, each as soon as every bucket it counts
    in has had fewer than its limit of calls in the window before it."""
    used: dict[str, list[float]] = {}
    done: list[float] = []
    for call in calls:
        buckets = call.buckets()
        start = call.at
        for name, limit, window in buckets:
            times = used.setdefault(name, [])
            if len(times) >= limit:
                start = max(start, times[-limit] + window)
        for name, _, _ in buckets:
            bisect.insort(used[name], start)
        done.append(start)
    return done


@dataclass(frozen=True)
class Bid:
    at: float
    message: str
    member: str
    channel: str


async def _burst(bids: int, members: int, spread: float, seed: str) -> tuple[list[Call], list[Bid], str]:
    import discord
    import simcord  # a tool of the tests (dev extra): only this bench needs it

    try:
        from bot.discord.app import create_bot
    except ImportError:  # a baseline from before the Discord adapter had a folder of its own
        from bot.app import create_bot  # type: ignore[no-redef]
    from bot.settings import Settings
    from scheduler.clock import VirtualClock

    with tempfile.TemporaryDirectory(prefix="nomic-burst-") as tmp:
        settings = Settings(_env_file=None, discord_token=None, database_path=Path(tmp) / "burst.db")
        clock = VirtualClock(SATURDAY)
        bot = create_bot(settings, clock=clock, timers=False)
        try:
            async with simcord.run(bot, settle_timeout=SETTLE_SECONDS) as env:
                guild = env.create_guild("Burst")
                game_actions = guild.create_text_channel("game-actions")
                auctions = guild.create_text_channel("auctions")
                mods = guild.create_role("Mods", permissions=discord.Permissions(manage_guild=True))
                mod = guild.add_member(env.create_user("mod"), roles=[mods])
                people = [guild.add_member(env.create_user(f"m{i}")) for i in range(members)]
                await mod.send(game_actions, "!admin set auction.weekly_points 100000")
                for member in [mod, *people]:
                    await member.send(game_actions, "!join")
                for n in range(6):
                    await mod.send(game_actions, f"!admin lot {'A23456'[n]}S {'KQJ'[n % 3]}H")
                clock.set(SUNDAY)
                await bot.run_scheduled_work()
                clock.set(SUNDAY + timedelta(hours=9))
                await env.advance_time(60)
                log = _Timed(env.backend.clock)
                env.backend.http_requests = log
                start = float(env.backend.clock.elapsed)
                rng = random.Random(f"burst:{seed}")
                tops = dict.fromkeys(range(1, 7), 0)
                made: list[Bid] = []
                for i in range(bids):
                    member = people[i % members]
                    lot = rng.randint(1, 6)
                    roll = rng.random()
                    if roll < 0.06:
                        text = f"!bid {lot} {max(1, tops[lot] - rng.randint(0, 5))}"  # too low
                    elif roll < 0.12:
                        text = f"!bid {rng.randint(7, 9)} 10"  # no such lot
                    else:
                        tops[lot] += rng.randint(1, 5)
                        text = f"!bid {lot} {tops[lot]}"
                    at = float(env.backend.clock.elapsed) - start
                    message = await member.send(auctions, text)
                    made.append(Bid(at, str(message.id), str(member.id), str(auctions.id)))
                    await env.advance_time(spread / bids)
                await env.advance_time(60)
                calls = [
                    Call(when - start, entry.method, entry.path, entry.json)
                    for when, entry in zip(log.times, log, strict=True)
                ]
        finally:
            # whatever happened (a settle that timed out too): the store's connection has a thread of its
            # own, and a process that leaves it open never exits
            await bot.release()
    return calls, made, str(auctions.id)


def _acknowledged(calls: list[Call], done: list[float], bids: list[Bid]) -> list[float]:
    """Each bid's delay until a call carrying its answer was through (``inf``: never)."""
    first: dict[str, float] = {}  # bid message id -> earliest time through
    by_member: dict[str, list[Bid]] = {}
    for bid in bids:
        by_member.setdefault(bid.member, []).append(bid)
    for call, through in zip(calls, done, strict=True):
        targets = [bid.message for bid in bids if bid.message in call.path and call.at >= bid.at]  # reactions
        payload = call.payload if isinstance(call.payload, dict) else {}
        reference = (payload.get("message_reference") or {}).get("message_id")
        if reference is not None:
            targets.append(str(reference))  # a reply to it
        if call.method in {"POST", "PATCH"} and call.channel is not None:
            for member in set(_MENTION.findall(call.text())):
                named = by_member.get(member, [])
                targets += [b.message for b in named if b.at <= call.at and b.channel == call.channel]
        for target in targets:
            first[target] = min(first.get(target, math.inf), through)
    return [first.get(bid.message, math.inf) - bid.at for bid in bids]


def burst_report(calls: list[Call], bids: list[Bid], auctions: str, label: str, *, members: int, spread: float) -> str:
    done = through_limits(calls)
    delays = _acknowledged(calls, done, bids)
    last_bid = max(bid.at for bid in bids)
    boards = [t for c, t in zip(calls, done, strict=True) if c.at >= last_bid and c.titled("The lot board")]
    board = (min(boards) - last_bid) if boards else math.inf
    finite = sorted(d for d in delays if math.isfinite(d))
    never = len(delays) - len(finite)
    routes = Counter(("#auctions" if c.channel == auctions else "DMs", c.route) for c in calls)
    slowest = max(delays) if delays else math.nan
    ack_ok = "met" if slowest <= GOAL_ACK else "NOT met"
    board_ok = "met" if board <= GOAL_BOARD else "NOT met"
    p50 = statistics.median(finite) if finite else math.nan
    p95 = finite[max(0, math.ceil(0.95 * len(finite)) - 1)] if finite else math.nan
    lines = [
        (
            f"Burst bench ({label}): {len(bids)} prefix bids from {members} members in #auctions over {spread:g} s,"
            f" {len(calls)} REST calls"
        ),
        (
            f"  limits: messages {MESSAGES[0]} per {MESSAGES[1]:g} s a channel, reactions {1 / REACTIONS[1]:g}"
            f" a second a channel, {OVERALL[0]} requests a second in all"
        ),
        f"  {'bids acknowledged: slowest after its bid':<44}{slowest:>8.1f} s   (goal <= {GOAL_ACK:g} s: {ack_ok})",
        f"  {'  median, 95th percentile':<44}{p50:>8.1f} s {p95:>6.1f} s{f'   ({never} never)' if never else ''}",
        f"  {'the board current after the last bid':<44}{board:>8.1f} s   (goal <= {GOAL_BOARD:g} s: {board_ok})",
        f"  {'the last call through':<44}{max(done, default=0) - last_bid:>8.1f} s after the last bid",
        "  calls by channel and route:",
    ]
    for (where, route), count in sorted(routes.items(), key=lambda item: (item[0][0], -item[1])):
        lines.append(f"    {where:<10}{route:<58}{count:>6}")
    return "\n".join(lines)


async def burst_calls(bids: int, members: int, spread: float, seed: str) -> dict[str, Any]:
    """The burst on this process's code, as JSON (how ``--baseline`` gets an earlier version's calls); on a
    machine too busy for the bot to settle in ``SETTLE_SECONDS``, what simcord said instead."""
    try:
        calls, made, auctions = await _burst(bids, members, spread, seed)
    except TimeoutError as exc:
        return {"unsettled": str(exc) or "the bot did not settle"}
    return {
        "calls": [[c.at, c.method, c.path, c.payload] for c in calls],
        "bids": [[b.at, b.message, b.member, b.channel] for b in made],
        "auctions": auctions,
    }


async def burst_bench(
    *,
    bids: int = BIDS,
    members: int = MEMBERS,
    spread: float = SPREAD,
    seed: str = "burst",
    baseline: Path | None = None,
) -> str:
    """The burst's calls and their time under the limits: this version's, and ``baseline``'s when given."""
    from bot.bench.load import HERE, run_in
    from bot.bench.machine import BenchFailedError, Loaded, load_line

    loaded = Loaded()
    reports = []
    for label, checkout in (("before: " + str(baseline), baseline), ("this version", HERE)):
        if checkout is None:
            continue
        found = await run_in(checkout, THIS_FILE, "burst_calls", bids, members, spread, seed)
        if "unsettled" in found:
            raise BenchFailedError(
                f"burst bench ({label}): {found['unsettled']} within {SETTLE_SECONDS:g} s of real time; the machine"
                f" is too busy for this bench, no figures ({load_line('now')})"
            )
        calls = [Call(float(at), method, path, payload) for at, method, path, payload in found["calls"]]
        made = [Bid(float(at), message, member, channel) for at, message, member, channel in found["bids"]]
        reports.append(burst_report(calls, made, found["auctions"], label, members=members, spread=spread))
    return loaded.framed("\n\n".join(reports))
