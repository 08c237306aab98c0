"""Hidden information, as a property over many seeded battles: a card in a hand or a deck is named (or numbered)
in nothing public (the thread's lines, the board, the log) nor in the other player's view, until it has been
public; a drawn card is told to its drawer alone. Also: self-play keeps every invariant and reports its figures."""

from __future__ import annotations

import random
import re

from hypothesis import given, settings
from hypothesis import strategies as st

from bot.sim.selfplay import run_selfplay
from games.ictc.battle.ai import Skirmisher
from games.ictc.battle.engine import ENGINE
from games.ictc.battle.events import Said, Told
from games.ictc.battle.state import BattleState, Side
from games.ictc.battle.table import zone_of
from games.tables.engine import GameRuleError

from .battle_support import players

PUBLIC_ZONES = frozenset({"play", "grave", "kitty", "flashes"})
NUMBER = re.compile(r"#(\d+)")


def _public_now(state: BattleState) -> set[int]:
    return {n for side in state.sides for zone in PUBLIC_ZONES for n in _zone(side, zone)}


def _zone(side: Side, zone: str) -> tuple[int, ...]:
    return tuple(p.card for p in side.play) if zone == "play" else tuple(getattr(side, zone))


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


# --- what a command answers about a card its author cannot see --------------------------------------

FAKE = "#N"
FORMS = (
    "!adj discard {n}",
    "!adj move {n} grave",
    "!adj move {n} hand",
    "!adj move {n} top",
    "!adj move {n} play",
    "!adj cr {n} -1 eot",
    "!adj damage {n} +1",
    "!adj tap {n}",
    "!adj ready {n}",
    "!adj hp opponent -1; move {n} bottom",
    "!play {n}",
    "!play {hand} > {n}",
    "!tap {n}",
    "!use {n}",
    "!use {mine} > {n}",
    "!attack {n}",
    "!attack {soldier} > {n}",
    "!block {n} > {theirs}",
    "!block {soldier} > {n}",
    "!split {n}: {theirs}=1",
    "!split {soldier}: {n}=1",
    "!discard {n}",
    "!discard {hand} {n}",
)
"""Every way a seat's command names a card: ``{n}`` is probed with every number of the battle (and one it
does not have); the other fields are cards the author can see, so the probe gets past them."""
BY_NAME = ("!adj discard {name}", "!adj move {name} grave", "!play {name}", "!discard {name}", "!use {name}")
"""The same by a card's name (a starter deck's list, which is public, ties names to numbers)."""


def _carried_out(state: BattleState, seat: str, text: str) -> tuple[tuple[object, ...], BattleState]:
    """What the author (and whoever else) is told: a refusal and its kind, or each line and its audience; and
    the battle after it."""
    try:
        action = ENGINE.parse_action(state, seat, text, players)
        after, events = ENGINE.apply(state, seat, action, random.Random(0))
    except GameRuleError as exc:
        return ("refused", type(exc).__name__, str(exc)), state
    return ("done", *((tuple(sorted(getattr(e, "audience", ()))), e.text()) for e in events)), after


def _answer(state: BattleState, seat: str, text: str) -> tuple[object, ...]:
    return _carried_out(state, seat, text)[0]


def _hidden_from(state: BattleState, i: int) -> list[int]:
    """The other player's cards the author cannot see: their hand (unless the author chooses from it), their deck."""
    other = state.sides[1 - i]
    choice = state.choice
    shown = choice is not None and choice.seat == i and choice.hand_of == 1 - i
    return [*([] if shown else other.hand), *other.deck]


def _fields(state: BattleState, i: int) -> dict[str, str]:
    """Cards the author can see, to fill a form's other places."""
    mine = state.sides[i]
    theirs = state.sides[1 - i]
    first = lambda cards: f"#{cards[0]}" if cards else "#0"  # noqa: E731
    return {
        "hand": first(list(mine.hand)),
        "mine": first([p.card for p in mine.play]),
        "soldier": first([p.card for p in mine.play if state.defn(p.card).kind.value == "soldier"]),
        "theirs": first([p.card for p in theirs.play]),
    }


def _normal(answer: tuple[object, ...], card: str) -> tuple[object, ...]:
    return tuple(re.sub(rf"{re.escape(card)}\b", FAKE, a) if isinstance(a, str) else a for a in answer)


def _twin(state: BattleState, i: int) -> tuple[BattleState, int, int] | None:
    """The same battle with one card of the other player's hand and one of their deck changed places."""
    other = state.sides[1 - i]
    if not other.hand or not other.deck:
        return None
    x, y = other.hand[-1], other.deck[len(other.deck) // 2]
    hand = tuple(y if c == x else c for c in other.hand)
    deck = tuple(x if c == y else c for c in other.deck)
    sides = list(state.sides)
    sides[1 - i] = other.model_copy(update={"hand": hand, "deck": deck})
    return state.model_copy(update={"sides": tuple(sides)}), x, y


def _probe(state: BattleState, seen: set[int]) -> int:
    probed = 0
    fake = len(state.cards) + 1
    for i, seat in enumerate(state.seats):
        fields = _fields(state, i)
        hidden = _hidden_from(state, i)
        for form in FORMS:
            unseen = _normal(_answer(state, seat, form.format(n=f"#{fake}", **fields)), f"#{fake}")
            for n in range(1, fake):
                text = form.format(n=f"#{n}", **fields)
                found, after = _carried_out(state, seat, text)
                probed += 1
                if n in hidden:
                    assert _normal(found, f"#{n}") == unseen, (
                        f"{seat}'s `{text}` answers otherwise for {state.seats[1 - i]}'s hidden #{n}"
                        f" ({zone_of(state, n)}) than for a card that does not exist:\n{found}\n{unseen}"
                    )
                elif found[0] == "done":
                    lines = "\n".join(str(line[1]) for line in found[1:] if isinstance(line, tuple) and not line[0])
                    _check(lines, after, seen | _public_now(after), f"the public answer to {seat}'s `{text}`")
        twin = _twin(state, i)
        if twin is None:
            continue
        other, x, y = twin
        for form in (*FORMS, *BY_NAME, "!undo {n}", "!dispute {n}"):
            for n in (x, y):
                text = form.format(n=f"#{n}", name=state.name(n), **fields)
                assert _answer(state, seat, text) == _answer(other, seat, text), (
                    f"{seat}'s `{text}` tells whether {state.seats[1 - i]}'s #{n} is in the hand or the deck"
                )
    return probed


@settings(max_examples=5, deadline=None)
@given(st.integers(min_value=0, max_value=10**9))
def test_a_command_answers_alike_for_every_card_its_author_cannot_see(seed: int) -> None:
    """For every command a seat can send, naming any card: a card the author cannot see (the other player's
    hand or deck, wherever it is) gets the answer a card that does not exist gets, word for word, to the same
    audience; two battles that differ only in where those cards lie answer alike; and nothing accepted names
    a hidden card in public."""
    rng = random.Random(seed)
    state = ENGINE.new_game(("alice", "bob"), None, rng)
    ai = Skirmisher()
    seen: set[int] = set()
    probed = 0
    for step in range(400):
        if ENGINE.status(state) != "playing":
            break
        seen |= _public_now(state)
        if step % 37 == 0:
            probed += _probe(state, seen)
        seat = sorted(ENGINE.awaiting(state))[0]
        state, _ = ENGINE.apply(state, seat, ai.choose(state, seat, rng), rng)
    assert probed > 0
