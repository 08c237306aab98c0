"""``python -m bot bench --digest``: the week's review of a busy week, how long it takes to build.

A busy week is played through the rules alone (no store): 300 players, 15,000 bids on the lots,
the settlement, a presented hand each and the placements, urgent and standard proposals voted by
everyone, requests with rulings and a vote of confidence, moderators' ruleset changes, and some
thread games finished. The review is then built from the state as it stands just before the
week's end, as the week-end tick builds it: its records gathered from the state, then the
review itself, within Discord's limits for one embed.
"""

from __future__ import annotations

import random
import statistics
import time
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from bot.bench.machine import Loaded
from games.nomic import digest, engine
from games.nomic.actions import (
    Action,
    AdminGive,
    AdminLot,
    AdminSet,
    CastConfidence,
    Challenge,
    GiveRuling,
    Join,
    MakeRequest,
    PlaceBid,
    PresentHand,
    Propose,
    React,
    StartRound,
)
from games.nomic.cards import Card
from games.nomic.context import ChannelRole, Context
from games.nomic.digest import FinishedGame, WeekRecords
from games.nomic.items import Items
from games.nomic.ruleset import load_ruleset
from games.nomic.service import action_rng
from games.nomic.state import RoundState, Vote
from scheduler.due import next_tick, opening

SUNDAY = datetime(2026, 1, 4, tzinfo=UTC)
THURSDAY = SUNDAY + timedelta(days=4)
SATURDAY = SUNDAY + timedelta(days=6)
NEXT_SUNDAY = SUNDAY + timedelta(days=7)
MOD = "mod"
GOAL_MS = 50.0
_WORDS = ("deal", "more", "cards", "to", "the", "quiet", "players", "and", "let", "judge", "rule", "on", "ties")


@dataclass
class BusyWeek:
    """The rules' state of a week being played, and its clock."""

    state: RoundState
    rng: random.Random
    now: datetime = SUNDAY
    events: int = 0

    def ticks_until(self, at: datetime) -> None:
        """Apply the scheduled work due by ``at``, as the scheduler would have."""
        while True:
            tick = next_tick(self.state)
            if tick.at > at:
                return
            self.state = engine.advance(self.state, tick, action_rng(self.state.seed, self.state.seq + 1)).state

    def act(self, actor: str, action: Action, at: datetime, channel: ChannelRole = ChannelRole.GAME_ACTIONS) -> bool:
        self.ticks_until(at)
        self.events += 1
        ctx = Context(
            actor=actor, actor_name=actor, channel=channel, at=at, is_moderator=actor == MOD, event_id=f"e{self.events}"
        )
        try:
            self.state = engine.apply(self.state, ctx, action, action_rng(self.state.seed, self.state.seq + 1)).state
        except Exception:  # noqa: BLE001 - a refused action of the generator is simply skipped
            return False
        return True


def _spread(start: datetime, end: datetime, count: int) -> list[datetime]:
    step = (end - start) / (count + 1)
    return [start + step * (i + 1) for i in range(count)]


def _text(rng: random.Random, words: int) -> str:
    return " ".join(rng.choice(_WORDS) for _ in range(words))


def busy_week(players: int = 300, bids: int = 15_000, seed: str = "digest") -> tuple[RoundState, datetime]:
    """The state just before a busy week's end, and the instant of its end (the review's tick)."""
    rng = random.Random(seed)
    ruleset = load_ruleset()
    phase, presenting = opening(ruleset, SUNDAY)
    start = StartRound(ruleset=ruleset, phase=phase, presenting_open=presenting, moderators=(MOD,))
    setup = Context(actor="setup", actor_name="setup", channel=ChannelRole.OTHER, at=SUNDAY, event_id="setup")
    week = BusyWeek(engine.start_round("bench", seed, setup, start).state, rng)
    names = [f"p{i}" for i in range(1, players + 1)]
    day = timedelta(days=1)
    for at, name in zip(_spread(SUNDAY, SUNDAY + timedelta(hours=2), players), names, strict=True):
        week.act(name, Join(), at)
        week.act(MOD, AdminGive(target=name, items=Items(points=bids * 10, spm=2)), at)
    lots = ruleset.auction.lots_per_auction
    for n in range(lots):
        cards = (Card.parse(f"{rng.choice('A23456789JQK')}S"), Card.parse(f"{rng.choice('A23456789JQK')}H"))
        week.act(MOD, AdminLot(cards=cards), SUNDAY + timedelta(hours=3, minutes=n))
    _governance(week, names, SUNDAY + timedelta(hours=4))
    tops = dict.fromkeys(range(1, lots + 1), 0)
    for at in _spread(SUNDAY + timedelta(hours=5), THURSDAY - timedelta(minutes=5), bids):
        lot = rng.randint(1, lots)
        amount = tops[lot] + rng.randint(1, 3)
        if week.act(rng.choice(names), PlaceBid(lot=lot, amount=amount), at, ChannelRole.AUCTIONS):
            tops[lot] = amount
    week.ticks_until(THURSDAY)
    hands = {name: [Card.roll(rng)[0] for _ in range(5)] for name in names}
    for at, name in zip(_spread(THURSDAY, SATURDAY - day / 2, players), names, strict=True):
        week.act(MOD, AdminGive(target=name, items=Items(cards=tuple(hands[name]))), at)
        week.act(name, PresentHand(cards=tuple(hands[name])), at)
    for n, (option, value) in enumerate(
        [("auction.lots_per_auction", "8"), ("hands.prize_points", "30, 20, 10"), ("auction.weekly_points", "150")]
    ):
        week.act(MOD, AdminSet(option=option, value=value), SATURDAY - day / 4 + timedelta(minutes=n))
    week.ticks_until(NEXT_SUNDAY - timedelta(microseconds=1))
    return week.state, NEXT_SUNDAY


def _governance(week: BusyWeek, names: list[str], at: datetime) -> None:
    """Proposals voted by everyone, requests ruled by a judge, a vote of confidence."""
    rng = week.rng
    step = timedelta(minutes=1)
    for n in range(40):
        kind = "urgent: " if n % 2 else ""
        week.act(rng.choice(names), Propose(message=f"p{n}", text=kind + _text(rng, 40)), at, ChannelRole.PROPOSALS)
        for voter in rng.sample(names, len(names) // 2):
            vote = Vote.FOR if rng.random() < 0.6 else Vote.AGAINST
            week.act(voter, React(message=f"p{n}", vote=vote, variant="👍" if vote is Vote.FOR else "👎"), at)
        at += step
    judge = names[0]
    week.state = week.state.model_copy(update={"judge": judge, "judge_name": judge})
    for n in range(1, 31):
        week.act(rng.choice(names[1:]), MakeRequest(text=_text(rng, 30)), at)
        week.act(judge, GiveRuling(number=n, text=_text(rng, 50)), at + step)
        at += 2 * step
    week.act(names[1], Challenge(number=1), at)
    for voter in names[1:]:
        week.act(voter, CastConfidence(number=1, overturn=rng.random() < 0.5), at + step)


def finished_games(count: int = 30, seed: str = "digest") -> list[FinishedGame]:
    rng = random.Random(seed)
    return [
        FinishedGame(
            name=f"wikipedia-{n}",
            game="wikipedia",
            status=rng.choice(["won", "lost", "abandoned"]),
            players=tuple(f"p{rng.randint(1, 300)}" for _ in range(4)),
            winners=(f"p{rng.randint(1, 300)}",),
            summary=_text(rng, 20),
        )
        for n in range(1, count + 1)
    ]


def week_end(state: RoundState, until: datetime) -> tuple[WeekRecords, float]:
    """The records the week-end tick gathers (after the votes it closes and the election), and the
    tick's own time in ms."""
    tick = next_tick(state)
    if tick.at != until:
        raise RuntimeError(f"the week should end at {until.isoformat()}, not {tick.at.isoformat()}")
    began = time.perf_counter()
    step = engine.advance(state, tick, action_rng(state.seed, state.seq + 1))
    tick_ms = (time.perf_counter() - began) * 1000
    review = next(e for e in step.events if isinstance(e, digest.WeekReviewed))
    return review.records, tick_ms


def digest_bench(*, players: int, bids: int, runs: int, seed: str) -> str:
    """Build a busy week, then time its review: the records gathered from the state, and the review
    built from them (with the thread games), min and median over ``runs``."""
    loaded = Loaded()
    started = time.perf_counter()
    state, until = busy_week(players, bids, seed)
    games = finished_games(seed=seed)
    records, tick_ms = week_end(state, until)
    records = records.with_games(games)
    setup_seconds = time.perf_counter() - started
    times: list[float] = []
    review = digest.build(records)
    for _ in range(runs):
        began = time.perf_counter()
        digest.week_records(state, until)
        review = digest.build(records.with_games(games))
        review.text()
        times.append(time.perf_counter() - began)
    median = statistics.median(times) * 1000
    ok = "met" if median < GOAL_MS else "NOT met"
    longest = max((len(v) for _, v in review.fields), default=0)
    head = f"Weekly review: {players:,} players, {state.week.bids:,} bids, seed {seed!r}"
    played = f"(the week played through the rules in {setup_seconds:.1f}s)"
    week = (
        f"{len(records.sales)} lots sold, {len(records.placements):,} places, {len(records.proposals)} proposals"
        f" decided, {len(records.versions)} ruleset changes, {len(records.rulings)} rulings,"
        f" {len(records.games)} thread games"
    )
    build = f"min {min(times) * 1000:.3f} ms, median {median:.3f} ms (goal < {GOAL_MS:.0f} ms: {ok})"
    embed = f"{review.size:,} of 6,000 characters, {len(review.fields)} of 25 fields, the longest {longest:,} of 1,024"
    lines = [
        f"{head} {played}",
        f"  the week: {week}",
        f"  {'build the review, ' + str(runs) + ' runs':<40}{build}",
        f"  {'the whole week-end tick':<40}{tick_ms:.1f} ms (election, review, weekly grant, archive)",
        f"  {'the embed':<40}{embed}",
    ]
    return loaded.framed("\n".join(lines))
