"""``python -m bot bench --write-week FILE``: the busy week as a scenario, for measuring a whole replay.

One week of a round of 100 players (21,106 lines, seed 7): Saturday's joins, lots and chatter; Sunday to
Wednesday 14,000 bids, 1,500 trade offers and their answers, look-ups, talk, proposals and reactions;
Thursday on, every player's hand given and presented among more look-ups, talk and offers. The same seed
writes the same file, so figures taken on it by ``replay --seed 7 --until 2026-12-12T01:00:00Z --db FRESH``
or ``bench --replay`` can be compared from one version to the next.
"""

from __future__ import annotations

import json
import random
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

SATURDAY = datetime(2026, 12, 5, 6, tzinfo=UTC)
SUNDAY = datetime(2026, 12, 6, tzinfo=UTC)
THURSDAY = datetime(2026, 12, 10, tzinfo=UTC)
END = datetime(2026, 12, 12, tzinfo=UTC)
RANKS = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")
SUITS = "SHCD"
WEEKDAYS = {"bid": 14000, "offer": 1500, "respond": 1500, "inventory": 1896, "chat": 300, "propose": 60, "react": 600}
"""What members do from Sunday to Wednesday, and how often."""
PROPOSALS = (
    "urgent: raise the grant",
    "Lots should hold three cards.",
    "Every player gains 1 point.",
    "urgent: fix a typo",
)
CHATTER = ("hi all", "good luck", "what's the plan?", "!lots", "!phase")


def _at(t: datetime) -> str:
    return t.astimezone(UTC).isoformat().replace("+00:00", "Z")


def _spread(a: datetime, b: datetime, k: int) -> list[datetime]:
    step = (b - a) / (k + 1)
    return [a + step * (i + 1) for i in range(k)]


class _Week:
    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)
        self.lines: list[dict[str, Any]] = []
        self.players = [f"p{i}" for i in range(1, 101)]
        self.said = 0

    def say(self, t: datetime, channel: str, author: str, content: str) -> str:
        self.said += 1
        event = f"m{self.said}"
        self.lines.append(
            {"at": _at(t), "type": "message", "id": event, "channel": channel, "author": author, "content": content}
        )
        return event

    def card(self) -> str:
        return self.rng.choice(RANKS) + self.rng.choice(SUITS)


def busy_week(seed: int = 7) -> list[dict[str, Any]]:
    """The week's scenario lines."""
    w = _Week(seed)
    rng, players = w.rng, w.players
    w.lines.append({"at": _at(SATURDAY), "type": "setup", "admins": ["mod"]})
    times = iter(_spread(SATURDAY, SUNDAY - timedelta(hours=1), 1 + 102 + 3 + 3 + 200))
    w.say(next(times), "game-actions", "mod", "!admin set auction.weekly_points 10000")
    for p in players:
        w.say(next(times), "game-actions", p, "!join")
    for _ in range(2):
        w.say(next(times), "game-actions", rng.choice(players), "!join")
    for _ in range(3):
        w.say(next(times), "game-actions", "mod", f"!admin lot {w.card()} {w.card()}")
    for p in rng.sample(players, 3):
        w.say(next(times), "game-actions", p, "!generate")
    for _ in range(200):
        author = rng.choice(players)
        w.say(next(times), "game-actions", author, rng.choice(CHATTER))
    _weekdays(w)
    _bartering(w)
    return w.lines


def _weekdays(w: _Week) -> None:
    rng, players = w.rng, w.players
    remaining = dict(WEEKDAYS)
    top = dict.fromkeys(range(1, 7), 0)
    pending: list[tuple[int, str, str]] = []
    trades = 0
    proposals: list[str] = []
    for t in _spread(SUNDAY, THURSDAY - timedelta(minutes=1), sum(remaining.values())):
        kinds = [
            k for k, v in remaining.items() if v > 0 and (k != "respond" or pending) and (k != "react" or proposals)
        ]
        if not kinds:
            break
        kind = rng.choices(kinds, weights=[remaining[x] for x in kinds])[0]
        remaining[kind] -= 1
        if kind == "bid":
            lot, roll = rng.randint(1, 6), rng.random()
            if roll < 0.88:
                top[lot] += rng.randint(1, 3)
                amount = top[lot]
            else:
                amount = rng.randint(max(1, top[lot] - 25), max(1, top[lot]))
            channel = "auctions" if roll < 0.99 else "game-actions"
            w.say(t, channel, rng.choice(players), f"!bid {lot} {amount}")
        elif kind == "offer":
            a, b = rng.sample(players, 2)
            w.say(t, "game-actions", a, f"!offer @{b} give {rng.randint(1, 5)} points for nothing")
            trades += 1
            pending.append((trades, a, b))
        elif kind == "respond":
            number, a, b = pending.pop(rng.randrange(len(pending)))
            r = rng.random()
            if r < 0.6:
                w.say(t, "game-actions", b, f"!accept {number}")
            elif r < 0.9:
                w.say(t, "game-actions", b, f"!decline {number}")
            else:
                w.say(t, "game-actions", a, f"!cancel {number}")
        elif kind == "inventory":
            r, who = rng.random(), rng.choice(players)
            channel = rng.choice(["game-actions", "auctions", "general"])
            # (the other member is drawn only for the ways of asking that name one)
            text = "!inventory" if r < 0.7 else f"!inventory @{rng.choice(players)}" if r < 0.9 else "!inv"
            w.say(t, channel, who, text)
        elif kind == "chat":
            channel, author = rng.choice(["game-actions", "general", "auctions"]), rng.choice(players)
            w.say(t, channel, author, rng.choice(["nice bid", "lol", "anyone trading?", "gg"]))
        elif kind == "propose":
            text = rng.choice(PROPOSALS)
            proposals.append(w.say(t, "proposals", rng.choice(players), text))
        else:
            message, user = rng.choice(proposals), rng.choice(players)
            emoji = rng.choice("👍👎🎉")
            w.lines.append({"at": _at(t), "type": "react", "message": message, "user": user, "emoji": emoji})


def _bartering(w: _Week) -> None:
    rng, players = w.rng, w.players
    hands: dict[str, list[str]] = {}
    times = iter(_spread(THURSDAY + timedelta(hours=1), END - timedelta(hours=2), 100 + 100 + 400 + 300 + 40))
    for p in players:
        hands[p] = [w.card() for _ in range(5)]
        w.say(next(times), "game-actions", "mod", f"!admin give @{p} {' '.join(hands[p])}")
    rest = ["present"] * 100 + ["inventory"] * 400 + ["chat"] * 300 + ["offer"] * 40
    rng.shuffle(rest)
    order = rng.sample(players, 100)
    for kind in rest:
        t = next(times)
        if kind == "present":
            p = order.pop()
            w.say(t, "game-actions", p, "!present " + " ".join(hands[p]))
        elif kind == "inventory":
            w.say(t, "game-actions", rng.choice(players), "!inventory")
        elif kind == "chat":
            w.say(t, "general", rng.choice(players), "good game")
        else:
            a, b = rng.sample(players, 2)
            w.say(t, "game-actions", a, f"!offer @{b} give 1 points for nothing")


def write_busy_week(path: Path, seed: int = 7) -> int:
    """Write the week to ``path`` (JSON lines); the number of lines."""
    lines = busy_week(seed)
    path.write_text("".join(json.dumps(line, ensure_ascii=False) + "\n" for line in lines), encoding="utf-8")
    return len(lines)
