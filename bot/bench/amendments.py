"""``python -m bot bench --amendments``: how long a passed proposal's amendment lines take to apply.

A round of ``players`` players (3,000 by default), each with a bid on a lot, and with bids reviving
(so that turning revival off in the text makes every player's bids be looked at). Proposals with
amendment lines of each kind are made through the rules; each is then applied as it is when it
passes (``proposals.take_effect``: the lines read against the rules in force, the options bound,
the new version adopted, the to-do item made), on the same state, ``runs`` times. The proposal's
check when it is made (``proposals.read_changes``) is timed beside it. The goal: under 10 ms.
"""

from __future__ import annotations

import random
import statistics
import time
from datetime import UTC, datetime, timedelta

from bot.bench.machine import Loaded
from games.nomic import engine, proposals
from games.nomic.actions import Action, AdminLot, AdminSet, Join, PlaceBid, Propose, StartRound
from games.nomic.cards import Card
from games.nomic.context import ChannelRole, Context
from games.nomic.ruleset import load_ruleset
from games.nomic.state import RoundState
from scheduler.due import opening

START = datetime(2026, 1, 4, 1, tzinfo=UTC)
"""A Sunday, in the auction phase."""
ADMIN = "admin"
GOAL_MS = 10.0
CASES = (
    ("amend: 6 lots to 8", "Amend rule 4.2 to read: Each auction phase offers 8 lots of 2 cards."),
    ("replace: six lots to eight", 'Replace "six lots" with "eight lots" in rule 4.2'),
    ("replace: words the bot does not enforce", 'Replace "highest bid" with "earliest bid" in rule 4.4'),
    (
        "repeal, enact and amend in one",
        (
            'Repeal rule 5.3\nEnact rule 4.5 "Pay": The judge gains 20 points each week.\n'
            "Amend rule 3.3 to read: At the start of every auction phase each player gains 150 points."
        ),
    ),
    (
        "revival turned off: every bid looked at",
        (
            "Amend rule 4.3 to read: A bid stops counting as soon as its bidder cannot pay it or is no longer a"
            " player. Such a bid counts again once its bidder can pay it: off."
        ),
    ),
)


def _apply(
    state: RoundState, actor: str, action: Action, channel: ChannelRole = ChannelRole.GAME_ACTIONS
) -> RoundState:
    ctx = Context(actor=actor, actor_name=actor, channel=channel, at=START, is_moderator=actor == ADMIN)
    return engine.apply(state, ctx, action, random.Random(0)).state


def busy_round(players: int, seed: str) -> RoundState:
    """A round of ``players`` players, six lots, and a bid of each player's, bids reviving."""
    rng = random.Random(f"amendments:{seed}")
    ruleset = load_ruleset()
    phase, presenting = opening(ruleset, START)
    setup = Context(actor="setup", actor_name="setup", channel=ChannelRole.OTHER, at=START)
    action = StartRound(ruleset=ruleset, phase=phase, presenting_open=presenting, moderators=(ADMIN,))
    state = engine.start_round("amendments", seed, setup, action).state
    state = _apply(state, ADMIN, AdminSet(option="auction.starting_points", value="10000"))
    state = _apply(state, ADMIN, AdminSet(option="auction.revive_bids", value="on"))
    for n in range(1, players + 1):
        state = _apply(state, f"p{n}", Join())
    for _ in range(ruleset.auction.lots_per_auction):
        cards = tuple(Card.parse(f"{rng.choice('A23456789JQK')}{rng.choice('SHCD')}") for _ in range(2))
        state = _apply(state, ADMIN, AdminLot(cards=cards))
    for n in range(1, players + 1):
        state = _apply(state, f"p{n}", PlaceBid(lot=1 + n % 6, amount=n), ChannelRole.AUCTIONS)
    return state


def _ms(seconds: float) -> float:
    return seconds * 1000


def amendments_bench(*, players: int, runs: int, seed: str) -> str:
    """The report: per case, the check when proposed and the application when passed (median, worst)."""
    loaded = Loaded()
    started = time.perf_counter()
    state = busy_round(players, seed)
    built = time.perf_counter() - started
    head = (
        f"Amendment lines, applied when their proposal passes ({players:,} players, each with a bid; {runs} runs;"
        f" the round built in {built:.1f} s)"
    )
    lines = [head, f"  {'case':<42}{'check (ms)':>14}{'apply median':>14}{'apply worst':>13}"]
    worst_all = 0.0
    for number, (name, text) in enumerate(CASES, 1):
        message = f"b{number}"
        made = _apply(state, "p1", Propose(message=message, text=f"urgent: {text}"), ChannelRole.PROPOSALS)
        proposal = made.proposals[message]
        checks: list[float] = []
        applies: list[float] = []
        at = START + timedelta(days=2)
        for _ in range(runs):
            t0 = time.perf_counter()
            proposals.read_changes(proposal.text, made)
            t1 = time.perf_counter()
            step = proposals.take_effect(made, proposal, at)
            t2 = time.perf_counter()
            checks.append(t1 - t0)
            applies.append(t2 - t1)
        if step.state.ruleset_version != made.ruleset_version + 1:
            raise RuntimeError(f"the case {name!r} changed nothing")
        worst = max(applies)
        worst_all = max(worst_all, worst)
        lines.append(
            f"  {name:<42}{_ms(statistics.median(checks)):>14.2f}{_ms(statistics.median(applies)):>14.2f}"
            f"{_ms(worst):>13.2f}"
        )
    ok = "met" if _ms(worst_all) < GOAL_MS else "NOT met"
    lines.append(f"  goal: every application under {GOAL_MS:.0f} ms ({ok}; worst {_ms(worst_all):.2f} ms)")
    return loaded.framed("\n".join(lines))
