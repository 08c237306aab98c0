"""The turn rules of The Great Sardini is Dead: Draws and the counter, attempts, the extra card, Encore,
elimination, the two endings, scoring and its ties, every option, turn timeouts, the commands, the
invariants, the AI and self-play."""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

import pytest

from bot.cli import main as bot_main
from bot.sim.selfplay import run_selfplay
from games.sardini.actions import (
    ActOver,
    AttemptTrick,
    Draw,
    Encore,
    GiveUp,
    PlayMove,
    SardiniAction,
    SkipExtra,
    TakeExtra,
)
from games.sardini.ai import Performer, SeatView
from games.sardini.cards import CODES, parse_card
from games.sardini.engine import ENGINE
from games.sardini.events import CardsDrawn, Eliminated
from games.sardini.invariants import invariants
from games.sardini.picture import render_sardini
from games.sardini.rules import apply, check, legal_actions, new_game
from games.sardini.scoring import scores, winners
from games.sardini.state import Attempt, Ending, Phase, SardiniOptions, SardiniState
from games.tables.engine import (
    BadCommandError,
    GameOverError,
    IllegalActionError,
    MissingCardError,
    NotASeatError,
    NotYourTurnError,
    Timer,
    audience_of,
)

SEATS = ("ann", "ben", "cat")


def c(names: str) -> tuple[int, ...]:
    return tuple(parse_card(n) for n in names.split())


def table(
    *,
    seats: Sequence[str] = SEATS,
    shown: str = "7H",
    hands: Sequence[str] | None = None,
    top: str = "",
    deck_size: int | None = None,
    current: int = 0,
    counter: int = 0,
    options: SardiniOptions | None = None,
    piles: Sequence[str] | None = None,
    won: Sequence[str] | None = None,
    alive: Sequence[bool] | None = None,
    out: str = "",
) -> SardiniState:
    """A position: the named cards where they are said to be, ``top`` on top of the deck, every other
    card below it (in card order), the deck cut to ``deck_size`` cards by moving the rest out of play."""
    k = len(seats)
    hand_cards = [c(h) for h in (hands or [""] * k)]
    pile_cards = [c(p) for p in (piles or [""] * k)]
    won_cards = [c(w) for w in (won or [""] * k)]
    placed = {*c(shown), *c(top), *c(out)} | {x for h in hand_cards for x in h} | {x for p in pile_cards for x in p}
    rest = [x for x in range(40) if x not in placed]
    deck = [*c(top), *rest]
    gone = list(c(out))
    if deck_size is not None:
        gone += deck[deck_size:]
        deck = deck[:deck_size]
    return SardiniState(
        options=options or SardiniOptions(),
        seats=tuple(seats),
        deck=tuple(deck),
        shown=c(shown),
        hands=tuple(hand_cards),
        piles=tuple(pile_cards),
        won=tuple(won_cards),
        out=tuple(gone),
        alive=tuple(alive) if alive is not None else (True,) * k,
        current=current,
        first=0,
        counter=counter,
        flipped=c(shown),
    )


def act(state: SardiniState, action: SardiniAction, seat: str | None = None) -> tuple[SardiniState, list[Any]]:
    who = seat or state.seats[state.current]
    new, events = apply(state, who, action)
    assert invariants(new) == [], invariants(new)
    return new, list(events)


def text(events: Sequence[Any], *, public: bool = True) -> str:
    return "\n".join(e.text() for e in events if (audience_of(e) is None) == public)


def move(n: int, cards: str) -> PlayMove:
    return PlayMove(move=n, cards=c(cards))


# --- the deal -----------------------------------------------------------------------------------


def test_the_deal_shows_one_trick_fewer_than_the_players_and_deals_no_cards() -> None:
    for k in range(2, 7):
        state = new_game([f"p{n}" for n in range(k)], None, random.Random(k))
        assert len(state.shown) == k - 1
        assert all(h == () for h in state.hands)
        assert len(state.deck) == 40 - (k - 1)
        assert state.counter == 0
        assert state.next_draw() == 1
        assert invariants(state) == []
    firsts = {new_game(SEATS, None, random.Random(n)).current for n in range(30)}
    assert firsts == {0, 1, 2}, "the first player is drawn at random"


def test_options_tricks_and_starting_hand_change_the_deal() -> None:
    state = new_game(SEATS, SardiniOptions(tricks=4, starting_hand=3), random.Random(1))
    assert len(state.shown) == 4
    assert [len(h) for h in state.hands] == [3, 3, 3]
    assert len(state.deck) == 40 - 4 - 9
    assert invariants(state) == []


# --- Draws and the counter ----------------------------------------------------------------------


def test_draws_grow_by_one_until_someone_attempts_and_the_cards_are_told_only_to_the_drawer() -> None:
    state = table(top="1W 2W 3W 4W 5W 6W")
    sizes = []
    for _ in range(3):
        drawer = state.seats[state.current]
        state, events = act(state, Draw())
        sizes.append(len(state.hands[state.seats.index(drawer)]))
        private = [e for e in events if isinstance(e, CardsDrawn)]
        assert len(private) == 1
        assert audience_of(private[0]) == {drawer}
        assert not any(CODES[x] in text(events) for x in private[0].cards), "the thread never names a drawn card"
    assert sizes == [1, 2, 3]
    assert state.counter == 3
    assert state.hands[0] == c("1W")
    assert state.hands[1] == c("2W 3W")
    assert state.hands[2] == c("4W 5W 6W")
    assert "ann draws 1 card" in text(act(table(), Draw())[1])


def test_an_attempt_resets_the_counter_so_the_next_player_draws_one() -> None:
    state = table(hands=["", "7W 4S", ""], current=1, counter=3, shown="2H")
    state, _ = act(state, AttemptTrick(trick=parse_card("2H")))
    assert state.counter == 0
    state, _ = act(state, move(1, "7W 4S"))
    state, _ = act(state, ActOver())
    assert state.seats[state.current] == "cat"
    assert state.next_draw() == 1
    state, _ = act(state, Draw())
    assert len(state.hands[2]) == 1


def test_a_failed_attempt_also_resets_the_counter() -> None:
    state = table(hands=["9K", "", ""], counter=4, shown="2H")
    state, events = act(state, AttemptTrick(trick=parse_card("2H"), confirm=True))
    assert isinstance(events[-1], Eliminated)
    assert state.counter == 0
    assert state.next_draw() == 1


def test_draw_cap_stops_the_growth() -> None:
    state = table(counter=3, options=SardiniOptions(draw_cap=4))
    assert state.next_draw() == 4
    state, _ = act(state, Draw())
    assert state.counter == 4
    assert state.next_draw() == 4, "the counter stays at the cap"
    uncapped = table(counter=4)
    assert uncapped.next_draw() == 5


def test_a_short_deck_gives_what_it_has_and_the_counter_keeps_the_nominal_size() -> None:
    state = table(counter=4, deck_size=3)
    state, events = act(state, Draw())
    assert len(state.hands[0]) == 3
    assert "draws 3 cards, all the deck had left (the counter says 5)" in text(events)
    assert state.phase is Phase.OVER
    assert state.ending is Ending.DECK


# --- attempts -----------------------------------------------------------------------------------


def test_moves_in_any_order_win_the_trick_and_its_cards() -> None:
    state = table(hands=["4W 5S 6W 9H 9K 1S", "", ""], shown="2K 7H")
    state, events = act(state, AttemptTrick(trick=parse_card("7H")))
    assert "ann attempts T2 · 7H **Linking Rings**" in text(events)
    state, events = act(state, move(2, "9H 9K"))
    assert "meets Move 2 (2 cards of the same rank) with 9H 9K" in text(events)
    assert state.attempt is not None
    assert state.attempt.extra
    state, _ = act(state, SkipExtra())
    state, events = act(state, move(1, "6W 4W 5S"))
    assert "performs **Linking Rings** and wins 6 cards (pile: 6)" in text(events)
    assert state.phase is Phase.CALL
    assert state.piles[0] == c("4W 6W 9H 5S 9K 7H") or sorted(state.piles[0]) == sorted(c("4W 5S 6W 9H 9K 7H"))
    assert state.won[0] == c("7H")
    assert state.hands[0] == c("1S")
    state, events = act(state, ActOver())
    assert state.shown[0] == parse_card("2K")
    assert len(state.shown) == 2, "the next Trick takes the won one's place"
    assert "New Trick: T2" in text(events)
    assert state.seats[state.current] == "ben"


def test_a_set_that_does_not_meet_the_move_is_refused_and_changes_nothing() -> None:
    state = table(hands=["7W 5S 4S", "", ""], shown="2H")
    state, _ = act(state, AttemptTrick(trick=parse_card("2H")))
    before = state.model_dump_json()
    cases: list[tuple[SardiniAction, type[Exception], str]] = [
        (move(1, "7W 5S"), IllegalActionError, "add up to 12"),
        (move(2, "7W 4S"), IllegalActionError, "has 1 Move"),
        (move(1, "7W 4H"), MissingCardError, "you do not hold 4H"),
        (move(1, "7W"), IllegalActionError, "exactly 2 cards, not 1"),
        (Draw(), IllegalActionError, "middle of an attempt"),
        (TakeExtra(), IllegalActionError, "no extra card"),
        (ActOver(), IllegalActionError, "no act to end"),
    ]
    for action, error, said in cases:
        with pytest.raises(error, match=said):
            apply(state, "ann", action)
        assert state.model_dump_json() == before
    state, _ = act(state, move(1, "7W 4S"))
    assert state.phase is Phase.CALL


def test_the_extra_card_comes_after_each_move_but_the_last_and_is_private() -> None:
    state = table(hands=["1W 2W 1H 2H", "", ""], shown="8S", top="3S 4S 5S 6S 3K 4K")
    state, _ = act(state, AttemptTrick(trick=parse_card("8S")))
    state, events = act(state, move(1, "1W 2W"))
    assert "may take an extra card" in text(events)
    with pytest.raises(IllegalActionError, match="done already"):
        apply(state, "ann", move(1, "1H 2H"))
    state, events = act(state, TakeExtra())
    assert "takes the extra card" in text(events)
    assert text(events, public=False) == "Your extra card is 3S (only you see this)."
    assert "3S" not in text(events)
    with pytest.raises(IllegalActionError, match="no extra card"):
        apply(state, "ann", TakeExtra())
    state, _ = act(state, move(2, "1H 2H"))
    state, _ = act(state, TakeExtra())  # 4S
    state, events = act(state, move(3, "3S 4S"))
    assert state.attempt is not None
    assert state.attempt.extra
    # a Move played straight away forfeits the extra card
    with pytest.raises(IllegalActionError):
        apply(state, "ann", move(4, "3K 4K"))
    state, events = act(state, TakeExtra())  # 5S, and no Smoke for the last Move
    assert not state.alive[0], "stuck without two Smoke: eliminated"
    assert "can meet none of the Moves left of Parade of the Four Suits (2 Smoke)" in text(events)


def test_a_player_whose_hand_meets_no_move_left_is_eliminated_at_once_with_the_cards_shown() -> None:
    state = table(hands=["9W 9H 3K", "", ""], shown="7H")
    state, events = act(state, AttemptTrick(trick=parse_card("7H")))
    assert state.attempt is not None, "the pair can still be met"
    state, events = act(state, move(2, "9W 9H"))
    state, events = act(state, SkipExtra())
    said = text(events)
    assert "can meet none of the Moves left of Linking Rings (3 cards in a run) and is eliminated" in said
    assert "Face up out of play: 9W 9H 3K" in said
    assert not state.alive[0]
    assert set(state.out) >= set(c("9W 9H 3K"))
    assert state.hands[0] == ()
    assert parse_card("7H") in state.shown, "the failed Trick stays shown"
    assert state.seats[state.current] == "ben"
    with pytest.raises(NotYourTurnError, match="eliminated"):
        check(state, "ann", Draw())
    assert legal_actions(state, "ann") == []


def test_the_extra_card_can_save_an_attempt() -> None:
    state = table(hands=["9W 9H", "", ""], shown="7H", top="3K 4K 5K")
    state, _ = act(state, AttemptTrick(trick=parse_card("7H")))
    state, _ = act(state, move(2, "9W 9H"))
    state, _ = act(state, TakeExtra())
    assert not state.alive[0], "one card cannot make a run of three"
    state = table(hands=["9W 9H 3S 4S", "", ""], shown="7H", top="5K")
    state, _ = act(state, AttemptTrick(trick=parse_card("7H")))
    state, _ = act(state, move(2, "9W 9H"))
    state, _ = act(state, TakeExtra())
    assert state.alive[0]
    state, _ = act(state, move(1, "3S 4S 5K"))
    assert state.phase is Phase.CALL


def test_giving_up_eliminates_and_an_empty_hand_asks_for_confirmation() -> None:
    state = table(hands=["7W 4S", "", ""], shown="2H")
    state, _ = act(state, AttemptTrick(trick=parse_card("2H")))
    state, events = act(state, GiveUp())
    assert "gives up Lucky Eleven and is eliminated" in text(events)
    assert "Face up out of play: 7W 4S" in text(events)
    empty = table(shown="2H")
    with pytest.raises(IllegalActionError, match="attempt T1 confirm"):
        apply(empty, "ann", AttemptTrick(trick=parse_card("2H")))
    done, events = act(empty, AttemptTrick(trick=parse_card("2H"), confirm=True))
    assert not done.alive[0]


def test_a_trick_not_shown_cannot_be_attempted() -> None:
    with pytest.raises(IllegalActionError, match="not one of the shown Tricks"):
        apply(table(hands=["1W", "", ""]), "ann", AttemptTrick(trick=parse_card("1W")))


# --- Encore -------------------------------------------------------------------------------------


def test_encore_flips_the_next_trick_and_forces_its_attempt() -> None:
    state = table(hands=["1W 1H 2S", "", ""], shown="2K", top="1S 5K")
    state, _ = act(state, AttemptTrick(trick=parse_card("2K")))
    state, _ = act(state, move(1, "1W 1H"))
    state, events = act(state, Encore())
    said = text(events)
    assert "goes for an Encore" in said
    assert "Encore! ann attempts T1 · 1S **Wish Upon a Star**" in said
    assert state.phase is Phase.ATTEMPT
    assert state.attempt == Attempt(trick=parse_card("1S"), encore=True)
    for forbidden in (Draw(), AttemptTrick(trick=parse_card("1S"))):
        with pytest.raises(IllegalActionError):
            apply(state, "ann", forbidden)
    state, events = act(state, move(1, "2S"))
    assert "performs **Wish Upon a Star**" in text(events)


def test_encore_with_a_hand_that_cannot_meet_the_new_trick_eliminates() -> None:
    state = table(hands=["1W 1H 2W", "", ""], shown="2K", top="1S 5K")
    state, _ = act(state, AttemptTrick(trick=parse_card("2K")))
    state, _ = act(state, move(1, "1W 1H"))
    state, events = act(state, Encore())
    assert not state.alive[0]
    assert "can meet none of the Moves left of Wish Upon a Star" in text(events)


def test_an_encore_with_an_empty_hand_needs_confirmation_and_none_without_a_deck() -> None:
    state = table(hands=["1W 1H", "", ""], shown="2K")
    state, _ = act(state, AttemptTrick(trick=parse_card("2K")))
    state, _ = act(state, move(1, "1W 1H"))
    with pytest.raises(IllegalActionError, match="encore confirm"):
        apply(state, "ann", Encore())
    assert Encore(confirm=True) in legal_actions(state, "ann")
    last = table(hands=["1W 1H", "", ""], shown="2K", deck_size=0)
    won, _ = act(last, AttemptTrick(trick=parse_card("2K")))
    won, _ = act(won, move(1, "1W 1H"))
    assert won.phase is Phase.OVER, "no call without a Trick to flip: the deck is out and the game ends"


# --- the end and the score ----------------------------------------------------------------------


def test_the_game_ends_when_one_player_is_left_and_the_survivor_wins() -> None:
    state = table(seats=("ann", "ben"), hands=["9K", ""], shown="2K", piles=["3W 4W 5W 6W", "1W"], won=["3W", ""])
    state, events = act(state, AttemptTrick(trick=parse_card("2K"), confirm=True))
    assert state.phase is Phase.OVER
    assert state.ending is Ending.SURVIVOR
    assert winners(state) == ("ben",)
    assert scores(state) == {"ann": 0, "ben": 1}, "the eliminated pile no longer scores"
    said = text(events)
    assert "Only one performer is left. ben, the last one standing, wins with 1 card." in said
    assert "ann 4 cards (1 Trick: The Four Elements) (eliminated, not scored)" in said
    with pytest.raises(GameOverError):
        check(state, "ben", Draw())


def test_the_game_ends_after_the_turn_that_took_the_last_card() -> None:
    state = table(hands=["1W 1H", "", ""], shown="2K 3W", deck_size=2)
    state, _ = act(state, AttemptTrick(trick=parse_card("2K")))
    state, _ = act(state, move(1, "1W 1H"))
    state, _ = act(state, ActOver())  # flips one: one card left
    assert state.phase is Phase.TURN
    assert len(state.deck) == 1
    state, events = act(state, Draw())  # ben takes the last card
    assert state.phase is Phase.OVER
    assert state.ending is Ending.DECK
    assert "The deck is empty. ann wins with 3 cards." in text(events)


def test_the_last_card_taken_as_an_extra_lets_the_attempt_finish() -> None:
    state = table(hands=["1W 1H 2W", "", ""], shown="7K", deck_size=1, top="2H")
    state, _ = act(state, AttemptTrick(trick=parse_card("7K")))
    state, _ = act(state, move(1, "1W 1H"))
    state, _ = act(state, TakeExtra())
    assert state.deck == ()
    assert state.phase is Phase.ATTEMPT, "the turn goes on"
    state, _ = act(state, move(2, "2W 2H"))
    assert state.phase is Phase.OVER
    assert state.ending is Ending.DECK
    assert winners(state) == ("ann",)


@pytest.mark.parametrize(
    ("piles", "won", "expected", "said"),
    [
        (["1W 1H 1S", "2W 2H", ""], ["1W", "2W", ""], ("ann",), "ann wins with 3 cards"),
        (["1W 1H 1S", "2W 2H 2S", ""], ["1W", "2W 2H", ""], ("ben",), "ben wins with 3 cards"),
        (["1W 1H 1S", "2W 2H 2S", ""], ["1W", "2W", ""], ("ann", "ben"), "ann, ben share the win with 3 cards"),
        (["", "", ""], ["", "", ""], ("ann", "ben", "cat"), "Nobody performed a Trick"),
    ],
)
def test_the_most_cards_win_ties_go_to_the_most_tricks_then_the_win_is_shared(
    piles: list[str], won: list[str], expected: tuple[str, ...], said: str
) -> None:
    state = table(piles=piles, won=won, deck_size=1, current=2)
    state, events = act(state, Draw())
    assert state.phase is Phase.OVER
    assert winners(state) == expected
    assert said in text(events)
    assert ENGINE.result(state).winners == expected
    assert ENGINE.status(state) == "finished"


def test_an_eliminated_players_bigger_pile_does_not_win() -> None:
    state = table(
        piles=["1W 1H 1S 1K", "2W", ""], won=["1W", "2W", ""], alive=[False, True, True], current=2, deck_size=1
    )
    state, _ = act(state, Draw())
    assert winners(state) == ("ben",)


# --- options ------------------------------------------------------------------------------------


def test_draw_after_last_offers_the_extra_card_in_the_call() -> None:
    opts = SardiniOptions(draw_after_last=True)
    state = table(hands=["7W 4S", "", ""], shown="2H", options=opts, top="1W 9K")
    state, _ = act(state, AttemptTrick(trick=parse_card("2H")))
    state, _ = act(state, move(1, "7W 4S"))
    assert state.phase is Phase.CALL
    assert state.call_extra
    assert TakeExtra() in legal_actions(state, "ann")
    state, _ = act(state, TakeExtra())
    assert state.hands[0] == c("1W")
    state, _ = act(state, ActOver())
    assert state.shown == c("9K")
    plain = table(hands=["7W 4S", "", ""], shown="2H")
    plain, _ = act(plain, AttemptTrick(trick=parse_card("2H")))
    plain, _ = act(plain, move(1, "7W 4S"))
    with pytest.raises(IllegalActionError, match="no extra card"):
        apply(plain, "ann", TakeExtra())


def test_failed_trick_out_replaces_the_failed_trick() -> None:
    opts = SardiniOptions(failed_trick="out")
    state = table(hands=["9K", "", ""], shown="2H 3W", options=opts, top="5H")
    state, events = act(state, AttemptTrick(trick=parse_card("2H"), confirm=True))
    assert state.shown == c("5H 3W")
    assert parse_card("2H") in state.out
    assert "T1, Lucky Eleven, goes out of play" in text(events)


def test_every_option_is_stated_in_the_rules_with_its_default() -> None:
    rules = ENGINE.rules_text()
    for key in SardiniOptions.model_fields:
        assert f"[{key}]" in rules, key
    assert "draw_cap:4" in rules


def test_the_lobby_suggests_a_cap_from_four_seats() -> None:
    assert ENGINE.lobby_note(None, 3, "en") is None
    assert "draw_cap:4" in (ENGINE.lobby_note(None, 4, "en") or "")
    assert ENGINE.lobby_note(SardiniOptions(draw_cap=5), 6, "en") is None


# --- timeouts -----------------------------------------------------------------------------------


def _late(state: SardiniState) -> tuple[SardiniState, str]:
    seat = state.seats[state.current]
    handled = ENGINE.on_timeout(state, Timer(f"turn:{seat}", 60, "turn", seat), random.Random(0))
    assert handled is not None
    new, events = handled
    assert invariants(new) == []
    return new, text(events)


def test_a_turn_that_runs_out_before_an_attempt_is_a_draw() -> None:
    state = table(counter=1)
    new, said = _late(state)
    assert len(new.hands[0]) == 2
    assert "had begun no attempt, so the turn is a Draw: ann draws 2 cards" in said
    assert new.seats[new.current] == "ben"


def test_a_turn_that_runs_out_mid_attempt_is_giving_up() -> None:
    state = table(hands=["7W 4S 9K", "", ""], shown="5W")
    state, _ = act(state, AttemptTrick(trick=parse_card("5W")))
    state, _ = act(state, move(1, "7W 4S"))
    new, said = _late(state)
    assert not new.alive[0]
    assert "time ran out in the middle of Magic Number" in said
    assert "Face up out of play: 7W 4S 9K" in said


def test_a_turn_that_runs_out_in_the_call_ends_the_act() -> None:
    state = table(hands=["7W 4S", "", ""], shown="2H")
    state, _ = act(state, AttemptTrick(trick=parse_card("2H")))
    state, _ = act(state, move(1, "7W 4S"))
    new, said = _late(state)
    assert "time ran out: the act is over" in said
    assert new.phase is Phase.TURN
    assert new.seats[new.current] == "ben"


def test_another_seats_clock_or_a_finished_game_is_not_the_games_to_handle() -> None:
    state = table()
    assert ENGINE.on_timeout(state, Timer("turn:ben", 60, "turn", "ben"), random.Random(0)) is None


# --- commands -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("typed", "expected"),
    [
        ("!draw", Draw()),
        ("DRAW", Draw()),
        ("!attempt T2", AttemptTrick(trick=parse_card("7H"))),
        ("attempt 2 confirm", AttemptTrick(trick=parse_card("7H"), confirm=True)),
        ("!attempt 2k", AttemptTrick(trick=parse_card("2K"))),
        ("!move 2 7w 4S", move(2, "7W 4S")),
        ("2 7W, 4S", move(2, "7W 4S")),
        ("!extra", TakeExtra()),
        ("!noextra", SkipExtra()),
        ("!give up", GiveUp()),
        ("!giveup", GiveUp()),
        ("!encore", Encore()),
        ("!encore confirm", Encore(confirm=True)),
        ("!over", ActOver()),
        ("!act over", ActOver()),
    ],
)
def test_commands_read_as_typed(typed: str, expected: SardiniAction) -> None:
    state = table(shown="2K 7H")
    found = ENGINE.parse_action(state, "ann", typed)
    assert found == expected
    assert ENGINE.parse_action(state, "ann", ENGINE.format_action(state, found)) == found


def test_draw_during_an_attempt_means_the_extra_card() -> None:
    state = table(hands=["1W 2W 1H 2H", "", ""], shown="8S")
    state, _ = act(state, AttemptTrick(trick=parse_card("8S")))
    assert ENGINE.parse_action(state, "ann", "!draw") == TakeExtra()


@pytest.mark.parametrize(
    ("typed", "said"),
    [
        ("!attempt", "say which Trick"),
        ("!attempt T9", "there is no T9: the board shows T1 to T2"),
        ("!attempt banana", "`banana` is not a shown Trick"),
        ("!move", "write `!move N CARDS`"),
        ("!move 2", "name the cards for Move 2"),
        ("!move 2 7X", "`7x` is not a card"),
        ("!draw 3", "unexpected `3`"),
        ("!juggle", "`juggle` is not a Sardini command"),
        ("!attempt T1 maybe", "unexpected `maybe`"),
    ],
)
def test_unreadable_commands_say_how_to_write_them(typed: str, said: str) -> None:
    with pytest.raises(BadCommandError, match=said):
        ENGINE.parse_action(table(shown="2K 7H"), "ann", typed)


def test_strangers_and_other_seats_are_refused() -> None:
    state = table()
    with pytest.raises(NotASeatError):
        check(state, "zed", Draw())
    with pytest.raises(NotYourTurnError, match="ann's turn"):
        check(state, "ben", Draw())


# --- what everyone sees -------------------------------------------------------------------------


def test_the_board_counts_hands_and_the_hand_view_marks_the_moves_it_meets() -> None:
    state = table(
        hands=["9W 9H 3S", "1K", ""], shown="2K 7H", counter=2, piles=["", "1W 1H 2H", ""], won=["", "2H", ""]
    )
    board = ENGINE.public_view(state)
    assert "T1 · 2K **Mirror Image**: 2 cards of the same rank" in board
    assert "T2 · 7H **Linking Rings**: (1) 3 cards in a run; (2) 2 cards of the same rank" in board
    assert "next Draw: 3 cards" in board
    assert "▶ ann: 3 cards in hand · pile 0 cards · playing" in board
    assert "ben: 1 card in hand · pile 3 cards (1 Trick) · playing" in board
    for hidden in ("9W", "9H", "3S", "1K"):
        assert hidden not in board
    mine = ENGINE.private_view(state, "ann")
    assert "Your hand (3 cards): 9W 9H 3S" in mine
    assert "T1 Mirror Image: ✓ 2 cards of the same rank → you could perform the whole Trick now" in mine
    assert "T2 Linking Rings: ✗ 3 cards in a run · ◐ 2 cards of the same rank" in mine
    state, _ = act(state, AttemptTrick(trick=parse_card("7H")))
    mine = ENGINE.private_view(state, "ann")
    assert "✗ Move 1: 3 cards in a run\n" in mine, "any card fits a run: no list"
    assert "◐ Move 2: 2 cards of the same rank" in mine, "the pair alone: the run cannot be met too"
    with pytest.raises(NotASeatError):
        ENGINE.private_view(state, "zed")


def test_move_forms_offer_only_the_cards_that_fit_split_by_suit_pairs() -> None:
    state = table(hands=["1W 2H 5S 9K 10K 2K", "", ""], shown="2W 4K")
    assert ENGINE.move_forms(state, "ann", "en") == ()
    state, _ = act(state, AttemptTrick(trick=parse_card("4K")))
    forms = ENGINE.move_forms(state, "ann", "en")
    assert [f.command for f in forms] == ["move 1", "move 2"]
    assert forms[0].label == "Move 1: 2 Smoke"
    assert [[v for _, v in field.choices] for field in forms[0].fields] == [["2K", "9K", "10K"]]
    assert forms[0].fields[0].label == "Stars and Smoke"
    assert [[v for _, v in field.choices] for field in forms[1].fields] == [["9K", "10K"]]
    assert ENGINE.move_forms(state, "ben", "en") == ()


# --- invariants, the AI, self-play --------------------------------------------------------------


def test_invariants_catch_broken_states() -> None:
    good = table(hands=["1W", "", ""])
    assert invariants(good) == []
    lost = good.model_copy(update={"deck": good.deck[1:]})
    assert any("in 0 places" in line for line in invariants(lost))
    twice = good.model_copy(update={"hands": (c("1W"), c("1W"), ())})
    assert any("1W is in 2 places" in line for line in invariants(twice))
    capped = good.model_copy(update={"counter": 6, "options": SardiniOptions(draw_cap=4)})
    assert any("counter" in line for line in invariants(capped))
    dead = good.model_copy(update={"alive": (False, True, True)})
    assert any("eliminated" in line for line in invariants(dead))


def test_the_ai_never_reads_the_deck_order_or_other_hands() -> None:
    ai = Performer()
    for seed in range(30):
        rng = random.Random(seed)
        state = new_game(SEATS, SardiniOptions(starting_hand=rng.randint(0, 4)), rng)
        for _ in range(rng.randint(0, 12)):
            if state.phase is Phase.OVER:
                break
            seat = state.seats[state.current]
            state, _ = apply(state, seat, ai.choose(state, seat, rng))
        if state.phase is Phase.OVER:
            continue
        seat = state.seats[state.current]
        me = state.current
        hidden = list(state.deck) + [x for i, h in enumerate(state.hands) if i != me for x in h]
        rng.shuffle(hidden)
        deck, rest = hidden[: len(state.deck)], hidden[len(state.deck) :]
        hands = []
        for i, hand in enumerate(state.hands):
            if i == me:
                hands.append(hand)
            else:
                hands.append(tuple(rest[: len(hand)]))
                rest = rest[len(hand) :]
        swapped = state.model_copy(update={"deck": tuple(deck), "hands": tuple(hands)})
        assert invariants(swapped) == []
        assert SeatView.of(swapped, seat) == SeatView.of(state, seat)
        assert ai.choose(swapped, seat, random.Random(9)) == ai.choose(state, seat, random.Random(9))


@pytest.mark.parametrize("players", [2, 3, 4, 5, 6])
@pytest.mark.parametrize("options", [(), ("draw_cap:4",)])
def test_selfplay_keeps_every_invariant(players: int, options: tuple[str, ...]) -> None:
    report = run_selfplay("sardini", games=25, players=players, seed="rules", options=options)
    assert report.games == 25
    assert report.statuses == {"finished": 25}
    assert sum(float(v) for v in report.stats["tricks"]) > 0
    said = "\n".join(report.lines())
    assert "Tricks performed per game:" in said
    assert ("[2.9]" in said) == (players == 4 and not options), "the specification's figure beside the run's"
    assert ("[3.5–3.7]" in said) == (players >= 4 and bool(options))
    assert "shown Tricks performed, by rank: 1-2" in said


def test_the_picture_draws_the_public_table() -> None:
    state = table(hands=["4W 5S 6W 9H 9K", "1K", ""], shown="2K 7H")
    state, _ = act(state, AttemptTrick(trick=parse_card("7H")))
    state, _ = act(state, move(2, "9H 9K"))
    picture = render_sardini(state)
    assert picture.startswith(b"\x89PNG")
    assert len(picture) < 40_000
    over = table(piles=["1W 1H", "", ""], won=["1W", "", ""], deck_size=1, current=2)
    over, _ = act(over, Draw())
    assert render_sardini(over).startswith(b"\x89PNG")


def test_the_game_benchmark_is_offered_to_games_that_have_one(capsys: pytest.CaptureFixture[str]) -> None:
    assert bot_main(["bench", "--game", "wikipedia"]) == 2
    assert "has no benchmark of its own" in capsys.readouterr().err
    assert bot_main(["bench", "--game", "chess"]) == 2
    assert "no game called" in capsys.readouterr().err


# --- what a newcomer trips over -----------------------------------------------------------------


def test_attempting_a_trick_the_hand_cannot_meet_asks_for_confirmation_as_an_empty_hand_does() -> None:
    state = table(seats=("alice", "bob"), hands=["7K", ""], shown="2H")
    with pytest.raises(IllegalActionError, match=r"can meet none of the Moves of T1.*`!attempt T1 confirm`"):
        apply(state, "alice", AttemptTrick(trick=parse_card("2H")))
    assert AttemptTrick(trick=parse_card("2H"), confirm=True) in legal_actions(state, "alice")
    assert AttemptTrick(trick=parse_card("2H")) not in legal_actions(state, "alice")
    typed = ENGINE.parse_action(state, "alice", "!attempt T1 confirm")
    done, events = act(state, typed)
    assert not done.alive[0], "confirmed, the attempt fails at once"
    assert isinstance(events[1], Eliminated)
    # a hand that can meet some Move of the Trick may try without confirming (an extra card may come)
    some = table(seats=("alice", "bob"), hands=["9H 9K", ""], shown="7H")
    started, _ = act(some, AttemptTrick(trick=parse_card("7H")))
    assert started.phase is Phase.ATTEMPT
    assert AttemptTrick(trick=parse_card("7H")) in legal_actions(some, "alice")


def test_between_a_success_and_the_call_the_board_keeps_the_tricks_numbers() -> None:
    state = table(hands=["7W 4S 5K", "1S", ""], shown="2K 2H 3W", top="1H")
    state, _ = act(state, AttemptTrick(trick=parse_card("2H")))
    state, _ = act(state, move(1, "7W 4S"))
    assert state.phase is Phase.CALL
    board = ENGINE.public_view(state)
    assert "T1 · 2K **Mirror Image**" in board
    assert "T2 · ann performed Lucky Eleven here" in board
    assert "T3 · 3W **The Four Elements**" in board
    mine = ENGINE.private_view(state, "ann")
    assert "Mirror Image" not in mine, "an Encore attempts the next Trick, not the shown ones"
    assert "Four Elements" not in mine
    assert "An Encore attempts the Trick turned up next" in mine
    theirs = ENGINE.private_view(state, "ben")
    assert "T1 Mirror Image" in theirs
    assert "T3 The Four Elements" in theirs
    with pytest.raises(BadCommandError, match="ann performed the Trick of T2"):
        ENGINE.parse_action(state, "ann", "!attempt T2")
    assert isinstance(ENGINE.parse_action(state, "ann", "!attempt T3"), AttemptTrick)
    assert render_sardini(state).startswith(b"\x89PNG")
    state, _ = act(state, ActOver())
    assert "T2 · 1H **Rabbit from the Hat**" in ENGINE.public_view(state)


def test_the_hand_views_tick_means_the_moves_left_can_all_be_met_at_once() -> None:
    # Top Hat Shuffle: 2 Top Hats; 2 cards of different suits; 1 or more cards ranked 3 or lower
    state = table(hands=["7H 8H 2H 5S", "", ""], shown="6H")
    state, _ = act(state, AttemptTrick(trick=parse_card("6H")))
    state, _ = act(state, move(1, "7H 8H"))
    mine = ENGINE.private_view(state, "ann")
    assert "✓ Move" not in mine, "the single 2H cannot serve Move 2 and Move 3 both"
    assert "◐ Move 2: 2 cards of different suits" in mine
    assert "◐ Move 3: 1 or more cards ranked 3 or lower" in mine
    assert "◐ this Move on its own" in mine
    enough = table(hands=["7H 8H 2H 5S 3K", "", ""], shown="6H")
    enough, _ = act(enough, AttemptTrick(trick=parse_card("6H")))
    enough, _ = act(enough, move(1, "7H 8H"))
    mine = ENGINE.private_view(enough, "ann")
    assert "✓ Move 2: 2 cards of different suits" in mine
    assert "✓ Move 3: 1 or more cards ranked 3 or lower" in mine
    # the shown Tricks read the same way: every Move of the Trick is left
    before = ENGINE.private_view(table(hands=["9W 9H 3S", "", ""], shown="4H"), "ann")
    assert "T1 High Hat, Low Hat: ✗ 2 Top Hats · ◐ 1 or more cards ranked 6 or higher" in before


def test_nobody_performed_a_trick_is_said_only_when_nobody_did() -> None:
    state = table(piles=["1W 1H", "", ""], won=["1W", "", ""], alive=[False, True, True], current=2, deck_size=1)
    state, events = act(state, Draw())
    said = text(events)
    assert "Nobody performed a Trick" not in said
    assert "No survivor performed a Trick: the survivors ben, cat share the win with nothing." in said
    state = table(deck_size=1, current=2)
    state, events = act(state, Draw())
    assert "Nobody performed a Trick: the survivors ann, ben, cat share the win with nothing." in text(events)


def test_a_game_over_after_one_turn_says_turn() -> None:
    state = table(seats=("ann", "ben"), hands=["7K", ""], shown="2H")
    state, _ = act(state, AttemptTrick(trick=parse_card("2H"), confirm=True))
    assert state.phase is Phase.OVER
    assert state.turn == 1
    assert "over after 1 turn\n" in ENGINE.public_view(state)
    assert render_sardini(state).startswith(b"\x89PNG")


def test_the_final_board_leaves_the_summary_to_the_table() -> None:
    """The table adds the game's summary under ``!board`` and in its closing line: the view says it
    no more, so it is read once."""
    state = table(piles=["1W 1H", "", ""], won=["1W", "", ""], deck_size=1, current=2)
    state, _ = act(state, Draw())
    board = ENGINE.public_view(state)
    assert ENGINE.result(state).summary not in board
    assert "survived" in board


def test_a_slot_past_the_only_trick_says_so_plainly() -> None:
    with pytest.raises(BadCommandError, match=r"there is no T2: the board shows only T1\b"):
        ENGINE.parse_action(table(shown="2K"), "ann", "!attempt T2")
    with pytest.raises(BadCommandError, match="there is no T1: no Trick is shown"):
        ENGINE.parse_action(table(shown=""), "ann", "!attempt T1")


def test_the_rules_say_what_a_short_draw_does() -> None:
    rules = ENGINE.rules_text()
    assert "the next Draw still counts" not in rules, "a Draw that empties the deck ends the game"
    assert "you take what is left and the game ends after your turn" in rules
    assert "can meet none of its Moves" in rules
