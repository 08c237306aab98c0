"""Builders shared by the tests: rule states, contexts, services on temporary stores, scenario lines."""

from __future__ import annotations

import json
import random
from collections.abc import Iterable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from games.nomic import engine
from games.nomic.actions import Action, Join, StartRound, Tick
from games.nomic.cards import Card
from games.nomic.context import ChannelRole, Context
from games.nomic.items import Items
from games.nomic.phases import BoundaryKind, Phase
from games.nomic.ruleset import Ruleset
from games.nomic.state import RoundState

GUILD = "g1"
SUNDAY = datetime(2026, 12, 6, tzinfo=UTC)
"""A week's start: the auction runs to THURSDAY, placements fall on SATURDAY."""
MONDAY = SUNDAY + timedelta(days=1)
THURSDAY = SUNDAY + timedelta(days=4)
FRIDAY = SUNDAY + timedelta(days=5)
SATURDAY = SUNDAY + timedelta(days=6)
NEXT_SUNDAY = SUNDAY + timedelta(days=7)

GA = ChannelRole.GAME_ACTIONS
AUC = ChannelRole.AUCTIONS
MOD = "mod"


def cards(text: str) -> tuple[Card, ...]:
    return tuple(Card.parse(code) for code in text.split())


def codes(cs: Iterable[Card]) -> list[str]:
    return sorted(c.code for c in cs)


def ctx(
    actor: str,
    channel: ChannelRole = GA,
    at: datetime = MONDAY,
    *,
    moderator: bool | None = None,
    event_id: str = "",
) -> Context:
    return Context(
        actor=actor,
        actor_name=actor,
        channel=channel,
        at=at,
        is_moderator=actor == MOD if moderator is None else moderator,
        event_id=event_id,
    )


def new_round(
    phase: Phase = Phase.AUCTION,
    *,
    presenting_open: bool | None = None,
    at: datetime | None = None,
    ruleset: Ruleset | None = None,
    players: Iterable[str] = (),
) -> RoundState:
    """A round started at ``at`` in ``phase`` with ``players`` joined (each with 0 points)."""
    if at is None:
        at = MONDAY if phase is Phase.AUCTION else FRIDAY
    if presenting_open is None:
        presenting_open = phase is Phase.BARTERING
    action = StartRound(ruleset=ruleset or Ruleset(), phase=phase, presenting_open=presenting_open, moderators=(MOD,))
    state = engine.start_round(GUILD, "seed", ctx("setup", ChannelRole.OTHER, at), action).state
    for name in players:
        state = apply(state, name, Join(), at=at)
    return state


RNG = random.Random(0)


def quiet_ruleset() -> Ruleset:
    """The default ruleset without reminders, for tests that count the weekly boundaries' ticks
    (a reminder is a tick of its own)."""
    ruleset = Ruleset()
    for option in type(ruleset.reminders).model_fields:
        ruleset = ruleset.with_option(f"reminders.{option}", "off")
    return ruleset


def apply(
    state: RoundState,
    actor: str,
    action: Action,
    channel: ChannelRole = GA,
    *,
    at: datetime | None = None,
    rng: random.Random | None = None,
) -> RoundState:
    return engine.apply(state, ctx(actor, channel, at or state.clock), action, rng or RNG).state


def give(state: RoundState, player: str, *, points: int = 0, spm: int = 0, hand: str = "") -> RoundState:
    """Set up a holding directly (bypassing the rules) for a test's starting position."""
    p = state.players[player]
    updated = p.model_copy(update={"points": p.points + points, "spm": p.spm + spm, "cards": p.cards + cards(hand)})
    return state.model_copy(update={"players": {**state.players, player: updated}})


def items(points: int = 0, hand: str = "", spm: int = 0) -> Items:
    return Items(points=points, cards=cards(hand), spm=spm)


def tick(state: RoundState, at: datetime, *kinds: BoundaryKind, rng: random.Random | None = None) -> RoundState:
    return engine.advance(state, Tick(at=at, boundaries=kinds), rng or random.Random(1)).state


# --- scenario lines ---------------------------------------------------------------------------


def iso(at: datetime) -> str:
    return at.astimezone(UTC).isoformat().replace("+00:00", "Z")


class Scenario:
    """Builds scenario lines with unique message ids; ``say`` returns the id it used."""

    def __init__(self) -> None:
        self.lines: list[dict[str, Any]] = []
        self._next = 1

    def setup(self, at: datetime, admins: list[str]) -> None:
        self.lines.append({"at": iso(at), "type": "setup", "admins": admins})

    def say(
        self, at: datetime, author: str, content: str, channel: str = "game-actions", mid: str | None = None
    ) -> str:
        if mid is None:
            mid = f"m{self._next}"
            self._next += 1
        self.lines.append(
            {"at": iso(at), "type": "message", "id": mid, "channel": channel, "author": author, "content": content}
        )
        return mid

    def raw(self, **line: Any) -> None:
        self.lines.append(line)

    def write(self, path: Path) -> Path:
        path.write_text("".join(json.dumps(line) + "\n" for line in self.lines), encoding="utf-8")
        return path
