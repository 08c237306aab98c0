"""Hidden information, as a property over many seeded battles: a card in a hand or a deck is named (or numbered)
in nothing public (the thread's lines, the board, the log) nor in the other player's view, until it has been
public; a drawn card is told to its drawer alone. Also: self-play keeps every invariant and reports its figures."""

from __future__ import annotations

import random
import re

from hypothesis import given, settings
from hypothesis import strategies as st

from bot.selfplay import run_selfplay
from games.ictc.battle.ai import Skirmisher
from games.ictc.battle.engine import ENGINE
from games.ictc.battle.events import Said, Told
from games.ictc.battle.state import BattleState
from games.ictc.battle.table import zone_of

PUBLIC_ZONES = frozenset({"play", "grave", "kitty", "flashes"})
NUMBER = re.compile(r"#(\d+)")


def _public_now(state: BattleState) -> set[int]:
    return {n for n in range(1, len(state.cards) + 1) if zone_of(state, n) in PUBLIC_ZONES}


def _check(text: str, state: BattleState, seen: set[int], where: str) -> None:
    """No card that has never been public is named in ``text``: not by its number, not by a name no public card has."""
    for number in range(1, len(state.cards) + 1):
        if number not in seen and re.search(rf"{re.escape(state.name(number))} #{number}\b", text):
            raise AssertionError(f"{where} names a hidden card: {state.name(number)} #{number}\n{text}")
    names_seen = {state.name(n) for n in seen}
    for name in {state.name(n) for n in range(1, len(state.cards) + 1)} - names_seen:
        if re.search(rf"\b{re.escape(name)}\b", text):
            raise AssertionError(f"{where} names {name}, no copy of which has been public\n{text}")


@settings(max_examples=25, deadline=None)
@given(st.integers(min_value=0, max_value=10**9))
def test_no_hidden_card_reaches_a_public_text_or_the_other_view(seed: int) -> None:
    rng = random.Random(seed)
    state = ENGINE.new_game(("alice", "bob"), None, rng)
    ai = Skirmisher()
    seen: set[int] = set()
    shown_to: dict[str, set[int]] = {"alice": set(), "bob": set()}
    for _ in range(1500):
        if ENGINE.status(state) != "playing":
            break
        seat = sorted(ENGINE.awaiting(state))[0]
        before = state
        state, events = ENGINE.apply(state, seat, ai.choose(state, seat, rng), rng)
        seen |= _public_now(before) | _public_now(state)
        for event in events:
            if isinstance(event, Told):
                (who,) = event.audience
                shown_to[who] |= {int(n) for n in NUMBER.findall(event.text())}
        public = "\n".join(e.text() for e in events if isinstance(e, Said))
        _check(public, state, seen, "a public line")
        _check(ENGINE.public_view(state), state, seen, "the board")
        for i, name in enumerate(state.seats):
            other = state.seats[1 - i]
            view = ENGINE.private_view(state, name)
            mine = set(state.sides[i].hand) | shown_to[name]
            for number in (int(n) for n in NUMBER.findall(view)):
                if 1 <= number <= len(state.cards) and state.card(number).owner != i and number not in seen:
                    assert number in mine, f"{name}'s view shows {other}'s hidden #{number}"


def test_self_play_keeps_every_invariant_and_reports_the_win_split() -> None:
    report = run_selfplay("ictc", games=12, players=2, seed="t")
    assert report.games == 12
    assert report.statuses == {"finished": 12}
    lines = "\n".join(report.lines())
    assert "win split by deck" in lines
    assert "first player won" in lines
