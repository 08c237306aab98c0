"""關你核四's computer player: it votes by stance and interest, bargains by its stated policy, and lets a
table of one member and three to seven computer seats play to the end; self-play reports the game's
own figures."""

from __future__ import annotations

import random
from datetime import UTC, datetime, timedelta

import pytest

from bot.sim.selfplay import run_selfplay
from games.nuclear.actions import EndTalk, Give, Promise, Propose, Reveal, Vote, Withdraw
from games.nuclear.ai import AI, KEEP_CARDS, wish
from games.nuclear.cards import CARDS
from games.nuclear.engine import ENGINE
from games.nuclear.state import Deal, NuclearState, Phase
from games.tables import lobby
from games.tables.engine import BadCommandError, GameRuleError
from games.tables.lobby import JoinTable, OpenTable, PlayMove, SetAISeats, StartTable, TableStatus, TurnTimeout

from .nuclear_support import act, acts, arranged, game

T0 = datetime(2026, 12, 7, 9, 0, tzinfo=UTC)
PRO4 = ("pro", "anti", "pro", "anti")


def table() -> NuclearState:
    return arranged(
        game(4),
        {
            "ann": ["P01", "P45", "A13", "A14", "P02", "P03"],
            "bob": ["A19", "A35", "P04"],
            "cat": ["P12", "P17", "A20"],
            "dan": ["A21", "A36", "P05"],
        },
        stances=PRO4,
    )


def choose(state: NuclearState, seat: str) -> object:
    return AI.choose(state, seat, random.Random(0))


# --- wishes and votes -------------------------------------------------------------------------


def test_voters_want_their_own_sides_proposals_and_vote_with_their_best_card() -> None:
    state, _ = act(table(), "ann", "propose P01")
    assert wish(state, 2).way == 1, "cat is pro"
    assert wish(state, 1).way == -1, "bob is anti"
    assert choose(state, "cat") == Vote(cards=("P12",)), "two yes votes"
    assert choose(state, "bob") == Vote(cards=("A35",)), "two no votes"


def test_a_voter_without_a_card_its_way_still_casts_one_in_the_mandatory_first_vote() -> None:
    state = arranged(table(), {"bob": ["P04", "P06"]})
    state, _ = act(state, "ann", "propose P01")
    vote = choose(state, "bob")
    assert isinstance(vote, Vote)
    assert len(vote.cards) == 1
    state, _ = acts(state, [("bob", "vote P04"), ("cat", "vote P12"), ("dan", "vote A21"), ("ann", "end")])
    placed = choose(state, "bob")
    assert isinstance(placed, Vote)
    assert len(placed.cards) == 1, "nothing to say: one card, to withdraw"
    state, _ = acts(state, [("bob", f"place {placed.cards[0]}"), ("cat", "place P17"), ("dan", "place A36")])
    state, _ = act(state, "ann", "count")
    assert choose(state, "bob") == Withdraw(), "a bluff costs nothing"
    assert choose(state, "cat") == Reveal()


def test_it_does_not_help_a_rival_of_its_own_stance_far_ahead() -> None:
    state = arranged(table(), passed={"ann": ["P06", "P07"]})
    state, _ = act(state, "ann", "propose P01")
    assert wish(state, 2).way == 0, "ann (pro) leads cat (pro) by 6: cat stays out"
    near = state.model_copy(update={"pro": 11})
    assert wish(near, 2).way == 1, "unless the proposal wins the game for its side"


# --- deals ------------------------------------------------------------------------------------


def _bought(state: NuclearState, cards: int, promise: bool) -> NuclearState:
    deals = [Deal(round=state.round, giver=0, receiver=1, kind="give", cards=("P06",) * cards)] if cards else []
    if promise:
        deals.append(Deal(round=state.round, giver=0, receiver=1, kind="promise"))
    return state.model_copy(update={"deals": tuple(deals)})


def test_deals_worth_the_proposals_symbols_buy_silence_and_two_more_buy_a_yes() -> None:
    state, _ = to_second(table(), "P01")
    assert wish(state, 1).way == -1
    assert wish(_bought(state, 1, promise=False), 1).way == 0, "1 card for a 1-symbol proposal: no vote against"
    assert wish(_bought(state, 2, promise=True), 1).way == 1, "3 points for a 1-symbol proposal: a yes"
    three, _ = to_second(table(), "P45")
    assert wish(_bought(three, 1, promise=True), 1).way == -1, "2 points do not buy a 3-symbol proposal"


def test_it_breaks_a_deal_that_would_end_the_game_for_the_other_side() -> None:
    state, _ = to_second(table().model_copy(update={"pro": 11}), "P01")
    assert wish(_bought(state, 5, promise=True), 1).way == -1


def test_it_keeps_a_promise_at_the_receivers_next_proposal_unless_it_loses_the_game() -> None:
    promised = table().model_copy(update={"deals": (Deal(round=0, giver=1, receiver=0, kind="promise"),)})
    state, _ = act(promised, "ann", "propose P01")
    assert wish(state, 1).way == 0, "bob promised ann: no vote against"
    assert wish(state, 1).lean, "and a yes if it must vote"
    losing = promised.model_copy(update={"pro": 11})
    state, _ = act(losing, "ann", "propose P01")
    assert wish(state, 1).way == -1


def to_second(state: NuclearState, proposal: str) -> tuple[NuclearState, list]:
    state, _events = act(state, "ann", f"propose {proposal}")
    votes = {"bob": "A19", "cat": "P17", "dan": "A21"}
    return acts(state, [(s, f"vote {c}") for s, c in votes.items()])


def test_the_speaker_buys_the_opponents_it_needs_and_promises_them() -> None:
    state, _ = to_second(table(), "P01")  # 1 yes to 2 no
    first = choose(state, "ann")
    assert isinstance(first, Give)
    assert len(first.cards) == 1, "a 1-symbol proposal costs one card"
    assert first.to in {"bob", "dan"}
    state, _ = act(state, "ann", ENGINE.format_action(state, first))
    assert choose(state, "ann") == Promise(to=first.to)
    steps = 0
    while not isinstance(move := choose(state, "ann"), EndTalk) and steps < 10:
        state, _ = act(state, "ann", ENGINE.format_action(state, move))
        steps += 1
    assert isinstance(move, EndTalk)
    assert len(state.hands[0]) >= KEEP_CARDS, "it keeps a card to vote with later"


def test_a_speaker_comfortably_ahead_ends_the_negotiation_at_once() -> None:
    state = arranged(table(), {"bob": ["P13", "P06"], "cat": ["P12", "P17"], "dan": ["P14", "P07"]})
    state, _ = act(state, "ann", "propose P01")
    state, _ = acts(state, [("bob", "vote P13"), ("cat", "vote P12"), ("dan", "vote P14")])  # 6 yes
    assert choose(state, "ann") == EndTalk()


def test_the_speaker_proposes_a_winning_card_and_never_a_losing_one() -> None:
    state = table().model_copy(update={"pro": 9})
    assert choose(state, "ann") == Propose(card="P45"), "three symbols take pro to 12"
    anti = arranged(table(), {"ann": ["A13", "A14", "P01"]}).model_copy(update={"anti": 17})
    assert choose(anti, "ann") == Propose(card="P01"), "an anti card would end the game against ann"


def _talk_through(state: NuclearState, seat: str) -> tuple[NuclearState, list[Give]]:
    """Let the computer speaker negotiate until it ends the negotiation; its gifts, in order."""
    gifts: list[Give] = []
    for _ in range(20):
        move = choose(state, seat)
        if isinstance(move, EndTalk):
            return state, gifts
        if isinstance(move, Give):
            gifts.append(move)
        state, _ = act(state, seat, ENGINE.format_action(state, move))
    raise AssertionError("the speaker never ends the negotiation")


def test_the_speaker_never_gives_a_card_that_votes_against_its_own_proposal() -> None:
    """As seen at a table: an anti speaker proposed A19 and bought pro players with P14 and P17, the two
    cards it valued least; they voted no with them and A19 failed 3:6."""
    anti_first = ("anti", "pro", "anti", "pro")
    state = arranged(
        game(4),
        {
            "ann": ["A19", "P14", "P17", "A22", "A37", "A45", "A46"],
            "bob": ["P12", "P25", "P02"],
            "cat": ["A35", "A20", "P03"],
            "dan": ["P13", "P26", "P04"],
        },
        stances=anti_first,
    )
    state, _ = act(state, "ann", "propose A19")
    state, _ = acts(state, [("bob", "vote P12"), ("cat", "vote A35"), ("dan", "vote P13")])  # 2 yes, 4 no
    proposal = CARDS["A19"]
    _, gifts = _talk_through(state, "ann")
    assert gifts, "it is behind: it bargains"
    given = [c for g in gifts for c in g.cards]
    assert all(CARDS[c].casts(proposal)[1] == 0 for c in given), f"cards against A19 given away: {given}"


@pytest.mark.parametrize("players", [4, 6, 8])
def test_no_computer_gift_ever_votes_against_the_proposal(players: int) -> None:
    """Whole computer-only games: every card a speaker gives casts no vote against its own proposal."""
    for g in range(6):
        rng = random.Random(f"gifts:{players}:{g}")
        state = ENGINE.new_game([f"p{k}" for k in range(players)], None, rng)
        for _ in range(5_000):
            if state.phase is Phase.OVER:
                break
            seat = sorted(ENGINE.awaiting(state), key=state.seats.index)[0]
            move = AI.choose(state, seat, rng)
            if isinstance(move, Give):
                proposal = CARDS[state.proposal or ""]
                against = [c for c in move.cards if CARDS[c].casts(proposal)[1]]
                assert not against, f"{seat} gives {against} against {proposal.id}"
            state, _ = ENGINE.apply(state, seat, move, rng)
        assert state.phase is Phase.OVER


def test_the_speaker_proposes_a_referendum_when_its_count_says_the_turnout_holds() -> None:
    # ann (pro) holds P50 and three cards of two pro votes each: with cat's expected votes, at least 4 yes
    strong = arranged(table(), {"ann": ["P50", "P12", "P13", "P36", "P01", "A13"]})
    assert choose(strong, "ann") == Propose(card="P50")
    # with nothing of her own side to vote with, the count falls short of the four yes votes it needs
    weak = arranged(table(), {"ann": ["P50", "P01", "A13", "A14", "A15", "A45"]})
    assert choose(weak, "ann") != Propose(card="P50")


def test_computer_speakers_propose_referendums_as_often_as_the_spec_expects() -> None:
    """The spec's simple bots put a referendum to the vote 0.5 to 0.8 times a game."""
    report = run_selfplay("nuclear", games=40, players=5, seed="referendums")
    proposed = [float(v) for v in report.stats["referendums proposed"]]
    assert sum(proposed) / len(proposed) >= 0.4


# --- whole tables -----------------------------------------------------------------------------


def _open(n_ai: int, seed: str) -> lobby.Table:
    t = lobby.apply(
        None,
        OpenTable(game="nuclear", number=1, seed=seed, member="m0", member_name="mia"),
        T0,
        lobby.action_rng(seed, 1),
    ).table
    t = lobby.apply(t, SetAISeats(member="m0", count=n_ai), T0, lobby.action_rng(seed, 2)).table
    return lobby.apply(t, StartTable(member="m0"), T0, lobby.action_rng(seed, 3)).table


@pytest.mark.parametrize("ais", [3, 4, 5, 6, 7])
def test_one_member_and_computer_seats_play_to_the_end(ais: int) -> None:
    """The member plays a random legal move when awaited (a gift, a promise, a vote...), or lets time run out."""
    table_ = _open(ais, f"solo{ais}")
    rng = random.Random(ais)
    at = T0
    for _ in range(3_000):
        if table_.status is not TableStatus.PLAYING:
            break
        state = lobby.game_state(table_)
        at += timedelta(seconds=1)
        if "mia" in ENGINE.awaiting(state) and rng.random() < 0.85:
            legal = ENGINE.legal_actions(state, "mia")
            move = rng.choice(legal[-3:] if state.phase is Phase.TALK and rng.random() < 0.6 else legal)
            action: object = PlayMove(member="m0", action=ENGINE.dump_action(move))
        else:
            clock = table_.clocks[0]
            at = max(at, clock.deadline)
            action = TurnTimeout(key=clock.key)
        table_ = lobby.apply(table_, action, at, lobby.action_rng(table_.seed, table_.seq + 1)).table  # type: ignore[arg-type]
        assert ENGINE.invariants(lobby.game_state(table_)) == []
    assert table_.status is TableStatus.FINISHED
    assert table_.winners
    assert table_.summary
    assert "獲勝" in table_.summary, "the table speaks Traditional Chinese by default"


def test_a_member_who_never_moves_is_played_by_the_computer_to_the_end() -> None:
    table_ = _open(3, "away")
    at = T0
    for _ in range(3_000):
        if table_.status is not TableStatus.PLAYING:
            break
        clock = table_.clocks[0]
        at = max(at + timedelta(seconds=1), clock.deadline)
        table_ = lobby.apply(
            table_, TurnTimeout(key=clock.key), at, lobby.action_rng(table_.seed, table_.seq + 1)
        ).table
    assert table_.status is TableStatus.FINISHED
    seat = table_.seat_named("mia")
    assert seat is not None
    assert seat.autopilot, "three proposals ran out: the computer keeps the seat"


def test_two_members_at_a_table_join_and_the_game_starts() -> None:
    seed = "two"
    t = lobby.apply(
        None,
        OpenTable(game="nuclear", number=1, seed=seed, member="m0", member_name="mia"),
        T0,
        lobby.action_rng(seed, 1),
    ).table
    t = lobby.apply(t, JoinTable(member="m1", member_name="max"), T0, lobby.action_rng(seed, 2)).table
    t = lobby.apply(t, SetAISeats(member="m0", count=2), T0, lobby.action_rng(seed, 3)).table
    t = lobby.apply(t, StartTable(member="m0"), T0, lobby.action_rng(seed, 4)).table
    assert t.status is TableStatus.PLAYING
    assert t.lang == "zh-TW"


# --- self-play --------------------------------------------------------------------------------


@pytest.mark.parametrize("players", [4, 5, 6, 7, 8])
def test_selfplay_runs_with_every_invariant_and_reports_the_games_figures(players: int) -> None:
    report = run_selfplay("nuclear", games=12, players=players, seed="t")
    assert report.statuses == {"finished": 12}
    assert set(report.stats) >= {"ending", "rounds", "shared top"}
    assert all(e in {"核四完工 (pro)", "廢止核四 (anti)", "stalemate cap"} for e in report.stats["ending"])
    lines = "\n".join(report.lines())
    assert "ending:" in lines
    assert "rounds: median" in lines
    assert "shared top:" in lines


def test_selfplay_takes_the_games_options() -> None:
    report = run_selfplay("nuclear", games=3, players=5, seed="o", options=["removal:balanced", "eye:off"])
    assert report.options == "removal:balanced eye:off"
    assert report.statuses == {"finished": 3}


def test_the_cards_the_ai_gives_are_its_own() -> None:
    state, _ = to_second(table(), "P01")
    move = choose(state, "ann")
    assert isinstance(move, Give)
    assert all(c in state.hands[0] and CARDS[c] for c in move.cards)


def test_an_unreadable_move_is_refused_in_the_tables_language() -> None:
    for lang, words in (("zh-TW", "請用卡號指定牌"), ("en", "name the cards by their ids")):
        seed = f"lang-{lang}"
        open_ = OpenTable(game="nuclear", number=1, seed=seed, member="m0", member_name="mia", lang=lang)
        t = lobby.apply(None, open_, T0, lobby.action_rng(seed, 1)).table
        t = lobby.apply(t, SetAISeats(member="m0", count=3), T0, lobby.action_rng(seed, 2)).table
        t = lobby.apply(t, StartTable(member="m0"), T0, lobby.action_rng(seed, 3)).table
        with pytest.raises(BadCommandError, match=words):
            lobby.parse_move(t, "m0", "!vote nothing")
        if lang == "zh-TW":
            assert t.lang == "zh-TW"


def test_a_move_refused_by_the_rules_speaks_the_tables_language() -> None:
    seed = "refused"
    open_ = OpenTable(game="nuclear", number=1, seed=seed, member="m0", member_name="mia")
    t = lobby.apply(None, open_, T0, lobby.action_rng(seed, 1)).table
    t = lobby.apply(t, SetAISeats(member="m0", count=3), T0, lobby.action_rng(seed, 2)).table
    t = lobby.apply(t, StartTable(member="m0"), T0, lobby.action_rng(seed, 3)).table
    state = lobby.game_state(t)
    assert "mia" in ENGINE.awaiting(state)
    foreign = next(c for c in state.deck)
    move = PlayMove(member="m0", action=ENGINE.dump_action(Vote(cards=(foreign,))))
    if state.phase is Phase.PROPOSE:
        move = PlayMove(member="m0", action=ENGINE.dump_action(Propose(card=foreign)))
    with pytest.raises(GameRuleError, match=f"你手上沒有 {foreign}"):
        lobby.apply(t, move, T0, lobby.action_rng(seed, 4))
