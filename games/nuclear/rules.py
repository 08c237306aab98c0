"""The rules of 關你核四 as pure functions: deal, check, apply, time out, list, audit, score.

A round runs through phases: the speaker proposes (``propose``); the voters each place one card in
secret (``vote1``), revealed together; the speaker negotiates (``talk``, at most three minutes);
the voters place one or two cards face down (``place``); the speaker counts "1, 2, 3" (``count``);
each placer reveals or withdraws in a short window (``reveal``), announced together; then the round
resolves and the next speaker's round is prepared. ``check`` raises the typed error that forbids an
action, ``apply`` checks and builds the new state; the only randomness after the deal is reshuffling
the discard pile into an empty deck, with the injected RNG.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from games.nuclear.actions import (
    MAX_NOTE,
    Abstain,
    Count,
    EndTalk,
    Give,
    NuclearAction,
    Promise,
    Propose,
    Reveal,
    Transfer,
    Vote,
    Withdraw,
)
from games.nuclear.cards import ALL_IDS, CARDS, REMOVAL_POOL, SIDES, Sym, sort_cards
from games.nuclear.events import (
    AllPlaced,
    CardsDrawn,
    Counted,
    Decided,
    Effect,
    FirstVoteRevealed,
    GameOver,
    GiftCards,
    GiftSeen,
    NothingToPropose,
    NuclearEvent,
    Placed,
    Promised,
    Proposed,
    Resolved,
    RoundBegan,
    SecondVoteRevealed,
    TalkEnded,
    TalkOpened,
    Transferred,
    VoteIn,
    YourChoice,
    YourPlacement,
    YourVote,
)
from games.nuclear.state import (
    ABSTAIN,
    REMOVALS,
    STANCES,
    Deal,
    NuclearOptions,
    NuclearState,
    Phase,
    RoundRecord,
)
from games.nuclear.texts import t
from games.tables.engine import (
    GameOverError,
    GameRuleError,
    IllegalActionError,
    MissingCardError,
    NotASeatError,
    NotYourTurnError,
    SeatingError,
    Timer,
    WrongRoleError,
)

MIN_SEATS = 4
MAX_SEATS = 8
REFILL_TO = 2
"""Players other than the speaker draw up to this many cards at each round's start."""
LANGS = ("en", "zh-TW")

Events = list[NuclearEvent]


def refuse(kind: type[GameRuleError], key: str, **fields: object) -> GameRuleError:
    """A rule error with its sentence in each of the game's languages (the table shows its own)."""
    return kind(t("en", f"error.{key}", **fields), texts={lang: t(lang, f"error.{key}", **fields) for lang in LANGS})


# --- setting up -------------------------------------------------------------------------------


def new_game(seats: Sequence[str], options: NuclearOptions | None, rng: random.Random) -> NuclearState:
    """Stances dealt face up, the 5/7-player removal, the deck shuffled, N cards to each of N players."""
    n = len(seats)
    if not MIN_SEATS <= n <= MAX_SEATS:
        raise refuse(SeatingError, "seats", n=n)
    if len(set(seats)) != n or any(not s for s in seats):
        raise refuse(SeatingError, "seat_names")
    options = options or NuclearOptions()
    pro, anti = STANCES[n]
    pros: list[Sym] = ["pro"] * pro
    antis: list[Sym] = ["anti"] * anti
    stances = pros + antis
    rng.shuffle(stances)
    k = REMOVALS[options.removal].get(n, 0)
    removed = sort_cards(rng.sample(list(REMOVAL_POOL), k)) if k else ()
    deck = [c for c in ALL_IDS if c not in removed]
    rng.shuffle(deck)
    hands = tuple(sort_cards(deck[i * n : (i + 1) * n]) for i in range(n))
    return NuclearState(
        options=options,
        seats=tuple(seats),
        stances=tuple(stances),
        hands=hands,
        passed=((),) * n,
        deck=tuple(deck[n * n :]),
        removed=removed,
        vote1=(None,) * n,
        placed=((),) * n,
        choices=(None,) * n,
    )


def _draw(state: NuclearState, k: int, rng: random.Random) -> tuple[NuclearState, tuple[str, ...], int]:
    """Draw ``k`` cards (fewer when deck and discard pile run out); an empty deck is refilled by
    shuffling the discard pile. Returns the state (hands untouched), the cards and how many cards
    were reshuffled."""
    deck, discard = list(state.deck), list(state.discard)
    drawn: list[str] = []
    reshuffled = 0
    while len(drawn) < k:
        if not deck:
            if not discard:
                break
            deck, discard = discard, []
            rng.shuffle(deck)
            reshuffled += len(deck)
        drawn.append(deck.pop(0))
    return state.model_copy(update={"deck": tuple(deck), "discard": tuple(discard)}), tuple(drawn), reshuffled


def _give_cards(hands: tuple[tuple[str, ...], ...], i: int, cards: Sequence[str]) -> tuple[tuple[str, ...], ...]:
    return tuple(sort_cards([*h, *cards]) if j == i else h for j, h in enumerate(hands))


def _take_cards(hands: tuple[tuple[str, ...], ...], i: int, cards: Sequence[str]) -> tuple[tuple[str, ...], ...]:
    gone = set(cards)
    return tuple(tuple(c for c in h if c not in gone) if j == i else h for j, h in enumerate(hands))


def _begin_round(state: NuclearState, rng: random.Random, events: Events) -> NuclearState:
    """The next round: the speaker card passes on, the speaker draws N, the others draw up to 2."""
    while True:
        n = state.n
        speaker = (state.speaker + 1) % n
        state = state.model_copy(
            update={
                "round": state.round + 1,
                "speaker": speaker,
                "phase": Phase.PROPOSE,
                "proposal": None,
                "voters": (),
                "vote1": (None,) * n,
                "placers": (),
                "placed": ((),) * n,
                "choices": (None,) * n,
            }
        )
        draws: list[tuple[str, int]] = []
        drawn_events: Events = []
        reshuffled = 0
        for offset in range(n):
            i = (speaker + offset) % n
            want = n if i == speaker else max(0, REFILL_TO - len(state.hands[i]))
            if want == 0:
                continue
            state, drawn, mixed = _draw(state, want, rng)
            reshuffled += mixed
            if drawn:
                state = state.model_copy(update={"hands": _give_cards(state.hands, i, drawn)})
                drawn_events.append(CardsDrawn(state.seats[i], drawn))
            draws.append((state.seats[i], len(drawn)))
        events.append(RoundBegan(state.round, state.seats[speaker], tuple(draws), reshuffled))
        events.extend(drawn_events)
        if state.hands[speaker]:
            return state
        events.append(NothingToPropose(state.seats[speaker]))
        record = RoundRecord(round=state.round, speaker=speaker, proposal=None)
        state = state.model_copy(update={"history": (*state.history, record)})
        if state.round >= state.options.max_rounds:
            return _end(state, "cap", events)


# --- whom the game waits for, and its deadlines ------------------------------------------------


def awaiting(state: NuclearState) -> frozenset[str]:
    seats = state.seats
    if state.phase in (Phase.PROPOSE, Phase.TALK, Phase.COUNT):
        return frozenset({seats[state.speaker]})
    if state.phase is Phase.VOTE1:
        return frozenset(seats[i] for i in state.voters if state.vote1[i] is None)
    if state.phase is Phase.PLACE:
        return frozenset(seats[i] for i in state.placers if not state.placed[i])
    if state.phase is Phase.REVEAL:
        return frozenset(seats[i] for i in state.placers if state.choices[i] is None)
    return frozenset()


def timer_key(state: NuclearState) -> str:
    return f"r{state.round}:{state.phase.value}"


def timers(state: NuclearState) -> tuple[Timer, ...]:
    options = state.options
    key = timer_key(state)
    if state.phase is Phase.PROPOSE:
        return (Timer(key, options.proposal, "turn", state.seats[state.speaker]),)
    seconds = {
        Phase.VOTE1: options.vote,
        Phase.TALK: options.negotiation,
        Phase.PLACE: options.placement,
        Phase.COUNT: options.countdown,
        Phase.REVEAL: options.reveal,
    }.get(state.phase)
    return (Timer(key, seconds, "phase"),) if seconds is not None else ()


def on_timeout(
    state: NuclearState, key: str, rng: random.Random
) -> tuple[NuclearState, tuple[NuclearEvent, ...]] | None:
    """A deadline passed. Proposal, first vote, placement: None (the AI moves for the missing).
    Negotiation: the second vote begins. Count: the bot counts. Reveal window: the missing withdraw."""
    if key != timer_key(state):
        return None
    events: Events = []
    if state.phase is Phase.TALK:
        state = _open_placement(state, rng, events, timed_out=True)
    elif state.phase is Phase.COUNT:
        state = _count(state, rng, events, by_clock=True)
    elif state.phase is Phase.REVEAL:
        missing = [i for i in state.placers if state.choices[i] is None]
        choices = tuple("withdraw" if i in missing else c for i, c in enumerate(state.choices))
        state = _resolve(state.model_copy(update={"choices": choices}), rng, events, defaulted=tuple(missing))
    else:
        return None
    return _counted(state), tuple(events)


# --- checking ---------------------------------------------------------------------------------


def _seat(state: NuclearState, seat: str) -> int:
    i = state.seat_index(seat)
    if i is None:
        raise refuse(NotASeatError, "not_seated", seat=seat)
    return i


def _other(state: NuclearState, i: int, to: str) -> int:
    j = state.seat_index(to)
    if j is None:
        raise refuse(NotASeatError, "no_such_player", seat=to)
    if j == i:
        raise refuse(IllegalActionError, "not_yourself")
    return j


def _in_hand(state: NuclearState, i: int, cards: Sequence[str]) -> None:
    if len(set(cards)) != len(cards):
        raise refuse(IllegalActionError, "twice")
    for card in cards:
        if card not in state.hands[i]:
            raise refuse(MissingCardError, "not_in_hand", card=card)


PHASE_ACTIONS: dict[str, tuple[Phase, ...]] = {
    "propose": (Phase.PROPOSE,),
    "vote": (Phase.VOTE1, Phase.PLACE),
    "abstain": (Phase.VOTE1,),
    "give": (Phase.TALK,),
    "transfer": (Phase.TALK,),
    "promise": (Phase.TALK,),
    "end": (Phase.TALK,),
    "count": (Phase.COUNT,),
    "reveal": (Phase.REVEAL,),
    "withdraw": (Phase.REVEAL,),
}


def check(state: NuclearState, seat: str, action: NuclearAction) -> None:
    if state.phase is Phase.OVER:
        raise refuse(GameOverError, "over")
    i = _seat(state, seat)
    speaker = i == state.speaker
    if state.phase not in PHASE_ACTIONS[action.kind]:
        raise refuse(IllegalActionError, f"when.{action.kind}", phase=state.phase.value)
    if isinstance(action, Propose):
        if not speaker:
            raise refuse(NotYourTurnError, "speaker_only", speaker=state.seats[state.speaker])
        _in_hand(state, i, (action.card,))
    elif isinstance(action, Vote | Abstain):
        eligible = state.voters if state.phase is Phase.VOTE1 else state.placers
        if i not in eligible:
            raise refuse(WrongRoleError, "not_voting")
        done = state.vote1[i] is not None if state.phase is Phase.VOTE1 else bool(state.placed[i])
        if done:
            raise refuse(IllegalActionError, "voted_already")
        if isinstance(action, Abstain):
            if not state.options.first_vote_optional:
                raise refuse(IllegalActionError, "vote_mandatory")
            return
        allowed = (1,) if state.phase is Phase.VOTE1 else (1, 2)
        if len(action.cards) not in allowed:
            raise refuse(IllegalActionError, "one_card" if state.phase is Phase.VOTE1 else "one_or_two")
        _in_hand(state, i, action.cards)
    elif isinstance(action, Give | Transfer | Promise):
        if not speaker and not state.options.anyone_gives:
            raise refuse(NotYourTurnError, "speaker_gives", speaker=state.seats[state.speaker])
        _other(state, i, action.to)
        if isinstance(action, Give):
            if not action.cards:
                raise refuse(IllegalActionError, "give_what")
            _in_hand(state, i, action.cards)
        elif isinstance(action, Transfer) and action.card not in state.passed[i]:
            raise refuse(MissingCardError, "not_passed", card=action.card)
        elif isinstance(action, Promise) and len(action.note) > MAX_NOTE:
            raise refuse(IllegalActionError, "note_long", n=MAX_NOTE)
    elif isinstance(action, EndTalk | Count):
        if not speaker:
            raise refuse(NotYourTurnError, "speaker_only", speaker=state.seats[state.speaker])
    elif isinstance(action, Reveal | Withdraw):
        if i not in state.placers:
            raise refuse(WrongRoleError, "nothing_placed")
        if state.choices[i] is not None:
            raise refuse(IllegalActionError, "chosen_already")


# --- applying ---------------------------------------------------------------------------------


def apply(
    state: NuclearState, seat: str, action: NuclearAction, rng: random.Random
) -> tuple[NuclearState, tuple[NuclearEvent, ...]]:
    check(state, seat, action)
    i = state.seats.index(seat)
    events: Events = []
    new: NuclearState
    if isinstance(action, Propose):
        new = _propose(state, i, action, rng, events)
    elif isinstance(action, Vote | Abstain):
        new = _vote(state, i, action, rng, events)
    elif isinstance(action, Give):
        new = _give(state, i, action, events)
    elif isinstance(action, Transfer):
        new = _transfer(state, i, action, events)
    elif isinstance(action, Promise):
        new = _promise(state, i, action, events)
    elif isinstance(action, EndTalk):
        new = _open_placement(state, rng, events, timed_out=False)
    elif isinstance(action, Count):
        new = _count(state, rng, events, by_clock=False)
    else:
        new = _choose(state, i, action.kind, rng, events)
    return _counted(new), tuple(events)


def _counted(state: NuclearState) -> NuclearState:
    return state.model_copy(update={"actions": state.actions + 1})


def eligible_voters(state: NuclearState) -> tuple[int, ...]:
    """Seats that vote on this round's proposal and hold a card: everyone at a referendum, else all but the speaker."""
    proposal = CARDS[state.proposal] if state.proposal is not None else None
    everyone = proposal is not None and proposal.kind == "referendum"
    return tuple(i for i in range(state.n) if (everyone or i != state.speaker) and state.hands[i])


def _propose(state: NuclearState, i: int, action: Propose, rng: random.Random, events: Events) -> NuclearState:
    state = state.model_copy(
        update={"hands": _take_cards(state.hands, i, (action.card,)), "proposal": action.card, "phase": Phase.VOTE1}
    )
    voters = eligible_voters(state)
    state = state.model_copy(update={"voters": voters, "vote1": (None,) * state.n})
    seated = tuple(state.seats[v] for v in voters)
    events.append(Proposed(state.seats[i], action.card, seated, state.n, swings=state.options.swings))
    if not voters:
        return _reveal_first(state, rng, events)
    return state


def _vote(state: NuclearState, i: int, action: Vote | Abstain, rng: random.Random, events: Events) -> NuclearState:
    cards = action.cards if isinstance(action, Vote) else ()
    proposal = state.proposal or ""
    seat = state.seats[i]
    hands = _take_cards(state.hands, i, cards)
    if state.phase is Phase.VOTE1:
        vote1 = tuple((cards[0] if cards else ABSTAIN) if j == i else v for j, v in enumerate(state.vote1))
        state = state.model_copy(update={"hands": hands, "vote1": vote1})
        done = sum(1 for v in state.voters if vote1[v] is not None)
        events.append(YourVote(seat, cards, proposal, eye_votes=state.options.eye == "vote"))
        events.append(VoteIn(seat, done, len(state.voters)))
        if done == len(state.voters):
            return _reveal_first(state, rng, events)
        return state
    placed = tuple(tuple(cards) if j == i else p for j, p in enumerate(state.placed))
    state = state.model_copy(update={"hands": hands, "placed": placed})
    done = sum(1 for p in state.placers if placed[p])
    events.append(YourPlacement(seat, cards, proposal, eye_votes=state.options.eye == "vote"))
    events.append(Placed(seat, len(cards), done, len(state.placers)))
    if done == len(state.placers):
        state = state.model_copy(update={"phase": Phase.COUNT})
        events.append(AllPlaced(state.seats[state.speaker]))
    return state


def _reveal_first(state: NuclearState, rng: random.Random, events: Events) -> NuclearState:
    """Every first-vote card at once, with the tally; the negotiation opens."""
    proposal = state.proposal or ""
    entries = tuple((state.seats[v], state.vote1[v] or ABSTAIN) for v in state.voters)
    yes, no = tally([c for _, c in entries], proposal, state.options)
    events.append(FirstVoteRevealed(entries, proposal, yes, no, eye_votes=state.options.eye == "vote"))
    state = state.model_copy(update={"phase": Phase.TALK})
    events.append(TalkOpened(state.seats[state.speaker], state.options.negotiation))
    del rng
    return state


def tally(cards: Sequence[str], proposal: str, options: NuclearOptions) -> tuple[int, int]:
    """The yes and no votes ``cards`` cast on ``proposal`` (abstentions cast nothing)."""
    yes = no = 0
    for card in cards:
        if card == ABSTAIN:
            continue
        y, n = CARDS[card].casts(CARDS[proposal], eye_votes=options.eye == "vote")
        yes, no = yes + y, no + n
    return yes, no


def _deal(state: NuclearState, deal: Deal) -> NuclearState:
    return state.model_copy(update={"deals": (*state.deals, deal)})


def _give(state: NuclearState, i: int, action: Give, events: Events) -> NuclearState:
    j = state.seats.index(action.to)
    cards = sort_cards(action.cards)
    hands = _give_cards(_take_cards(state.hands, i, cards), j, cards)
    state = _deal(
        state.model_copy(update={"hands": hands}),
        Deal(round=state.round, giver=i, receiver=j, kind="give", cards=cards),
    )
    events.append(GiftSeen(state.seats[i], action.to, len(cards)))
    events.append(GiftCards(state.seats[i], action.to, cards))
    return state


def _transfer(state: NuclearState, i: int, action: Transfer, events: Events) -> NuclearState:
    j = state.seats.index(action.to)
    passed = tuple(
        tuple(c for c in p if c != action.card) if k == i else sort_cards([*p, action.card]) if k == j else p
        for k, p in enumerate(state.passed)
    )
    deal = Deal(round=state.round, giver=i, receiver=j, kind="transfer", cards=(action.card,))
    events.append(Transferred(state.seats[i], action.to, action.card))
    return _deal(state.model_copy(update={"passed": passed}), deal)


def clean_note(text: str) -> str:
    """A promise's note as the thread shows it: one line, no markup that could ping or break a message."""
    kept = "".join(ch for ch in text if ch.isprintable() and ch not in "`*_~|<>@#")
    return " ".join(kept.split())[:MAX_NOTE]


def _promise(state: NuclearState, i: int, action: Promise, events: Events) -> NuclearState:
    j = state.seats.index(action.to)
    note = clean_note(action.note)
    events.append(Promised(state.seats[i], action.to, note))
    return _deal(state, Deal(round=state.round, giver=i, receiver=j, kind="promise", note=note))


def _open_placement(state: NuclearState, rng: random.Random, events: Events, *, timed_out: bool) -> NuclearState:
    """The negotiation ends: every voter holding a card places one or two face down."""
    placers = eligible_voters(state)
    state = state.model_copy(
        update={"phase": Phase.PLACE, "placers": placers, "placed": ((),) * state.n, "choices": (None,) * state.n}
    )
    events.append(TalkEnded(state.seats[state.speaker], tuple(state.seats[p] for p in placers), timed_out=timed_out))
    if not placers:
        return _resolve(state, rng, events)
    return state


def _count(state: NuclearState, rng: random.Random, events: Events, *, by_clock: bool) -> NuclearState:
    del rng
    events.append(Counted(state.seats[state.speaker], state.options.reveal, by_clock=by_clock))
    return state.model_copy(update={"phase": Phase.REVEAL, "choices": (None,) * state.n})


def _choose(state: NuclearState, i: int, choice: str, rng: random.Random, events: Events) -> NuclearState:
    chosen = "reveal" if choice == "reveal" else "withdraw"
    choices = tuple(chosen if j == i else c for j, c in enumerate(state.choices))
    state = state.model_copy(update={"choices": choices})
    done = sum(1 for p in state.placers if choices[p] is not None)
    events.append(YourChoice(state.seats[i], chosen, state.placed[i]))
    events.append(Decided(state.seats[i], done, len(state.placers)))
    if done == len(state.placers):
        return _resolve(state, rng, events)
    return state


# --- resolution -------------------------------------------------------------------------------


def passes(state: NuclearState, yes: int, no: int) -> bool:
    """Yes at least no + 1; a referendum also needs, by default, as many yes votes as players."""
    proposal = CARDS[state.proposal or ""]
    if proposal.kind == "referendum":
        return yes > no and (not state.options.referendum_turnout or yes >= state.n)
    return yes >= no + 1


def _shift(state: NuclearState, side: Sym, delta: int) -> NuclearState:
    value = max(0, state.index(side) + delta)
    return state.model_copy(update={side: value})


def _resolve(
    state: NuclearState, rng: random.Random, events: Events, *, defaulted: tuple[int, ...] = ()
) -> NuclearState:
    """Both votes' totals decide; the proposal's effect, the eye bonus, the end check; the next round."""
    proposal_id = state.proposal or ""
    proposal = CARDS[proposal_id]
    options = state.options
    first = [state.vote1[v] or ABSTAIN for v in state.voters]
    revealed = [c for p in state.placers if state.choices[p] == "reveal" for c in state.placed[p]]
    withdrawn = {p: state.placed[p] for p in state.placers if state.choices[p] != "reveal"}
    yes1, no1 = tally(first, proposal_id, options) if options.first_vote_counts else (0, 0)
    yes2, no2 = tally(revealed, proposal_id, options)
    yes, no = yes1 + yes2, no1 + no2
    ok = passes(state, yes, no)
    if state.placers:
        entries = tuple(
            (state.seats[p], state.choices[p] == "reveal", state.placed[p], p in defaulted) for p in state.placers
        )
        events.append(SecondVoteRevealed(entries, proposal_id, eye_votes=options.eye == "vote"))
    effects: list[Effect] = []

    def shift(side: Sym, delta: int, why: str) -> None:
        nonlocal state
        before = state.index(side)
        state = _shift(state, side, delta)
        if state.index(side) != before:
            effects.append(Effect(side, state.index(side) - before, state.index(side), why))

    speaker = state.speaker
    passed = state.passed
    discard = [c for c in (*first, *revealed) if c != ABSTAIN]
    if ok:
        passed = tuple(sort_cards([*p, proposal_id]) if k == speaker else p for k, p in enumerate(passed))
        if proposal.kind == "gov_bill":
            if options.swings:
                shift(proposal.yes, 1, "bill")
                shift(proposal.no, -2, "bill")
        else:
            shift(proposal.yes, proposal.opinion, "referendum" if proposal.kind == "referendum" else "proposal")
    else:
        discard.append(proposal_id)  # a failed proposal goes with the revealed votes
        if proposal.kind == "referendum" and options.swings:
            shift(proposal.no, 2, "referendum_failed")
    eye_side: Sym | None = None
    if options.eye == "majority":
        shown = [c for c in discard if c != proposal_id]
        eyes = {side: sum(1 for c in shown if CARDS[c].eye and CARDS[c].side == side) for side in SIDES}
        if eyes["pro"] != eyes["anti"]:
            eye_side = "pro" if eyes["pro"] > eyes["anti"] else "anti"
            cap = state.target(eye_side) - 1
            if state.index(eye_side) < cap:
                shift(eye_side, 1, "eye")
            else:
                effects.append(Effect(eye_side, 0, state.index(eye_side), "eye_capped"))
    hands = state.hands
    for p, cards in withdrawn.items():
        hands = _give_cards(hands, p, cards)
    record = RoundRecord(
        round=state.round, speaker=speaker, proposal=proposal_id, yes=yes, no=no, passed=ok, eye=eye_side
    )
    state = state.model_copy(
        update={
            "passed": passed,
            "hands": hands,
            "discard": (*state.discard, *discard),
            "history": (*state.history, record),
            "proposal": None,
        }
    )
    events.append(
        Resolved(
            proposal_id,
            state.seats[speaker],
            (yes1, no1),
            (yes2, no2),
            ok,
            tuple(effects),
            state.pro,
            state.anti,
            state.n,
            counts_first=options.first_vote_counts,
            turnout=options.referendum_turnout,
        )
    )
    if state.pro >= state.target("pro"):
        return _end(state, "pro", events)
    if state.anti >= state.target("anti"):
        return _end(state, "anti", events)
    if state.round >= options.max_rounds:
        return _end(state, "cap", events)
    return _begin_round(state, rng, events)


def _end(state: NuclearState, ending: str, events: Events) -> NuclearState:
    final = state.model_copy(
        update={
            "phase": Phase.OVER,
            "ending": ending,
            "voters": (),
            "placers": (),
            "vote1": (None,) * state.n,
            "placed": ((),) * state.n,
            "choices": (None,) * state.n,
        }
    )
    board = scores(final)
    doubled = tuple(doubled_points(final, i) for i in range(final.n))
    events.append(GameOver(ending, tuple(zip(final.seats, board.values(), doubled, strict=True)), winners(final)))
    return final


# --- scores -----------------------------------------------------------------------------------


def doubles(state: NuclearState, i: int, card: str) -> bool:
    """On 核四完工 pro-stance players count their pro cards double; on 廢止核四 anti-stance players their anti cards."""
    return state.ending in SIDES and state.stances[i] == state.ending and CARDS[card].side == state.ending


def doubled_points(state: NuclearState, i: int) -> int:
    """The points the doubling added to seat ``i``."""
    return sum(CARDS[c].score for c in state.passed[i] if doubles(state, i, c))


def scores(state: NuclearState) -> dict[str, int]:
    return {
        seat: sum(CARDS[c].score * (2 if doubles(state, i, c) else 1) for c in state.passed[i])
        for i, seat in enumerate(state.seats)
    }


def winners(state: NuclearState) -> tuple[str, ...]:
    """The top scorers, together; with ``ties:passed`` most passed proposals first decides among them."""
    if state.phase is not Phase.OVER:
        return ()
    board = scores(state)
    top = max(board.values())
    tied = [i for i, seat in enumerate(state.seats) if board[seat] == top]
    if state.options.ties == "passed" and len(tied) > 1:
        most = max(len(state.passed[i]) for i in tied)
        tied = [i for i in tied if len(state.passed[i]) == most]
    return tuple(state.seats[i] for i in tied)


# --- what a seat may do -----------------------------------------------------------------------


def legal_actions(state: NuclearState, seat: str) -> list[NuclearAction]:
    """Every move ``seat`` may make now; gifts of several cards at once are legal too but listed one card each."""
    i = state.seat_index(seat)
    if i is None or state.phase is Phase.OVER:
        return []
    hand = state.hands[i]
    waited = seat in awaiting(state)
    phase = state.phase
    out: list[NuclearAction] = []
    if phase is Phase.PROPOSE and waited:
        out = [Propose(card=c) for c in hand]
    elif phase is Phase.VOTE1 and waited:
        out = [Vote(cards=(c,)) for c in hand]
        if state.options.first_vote_optional:
            out.append(Abstain())
    elif phase is Phase.PLACE and waited:
        out = [Vote(cards=(c,)) for c in hand]
        out += [Vote(cards=(a, b)) for k, a in enumerate(hand) for b in hand[k + 1 :]]
    elif phase is Phase.TALK and (i == state.speaker or state.options.anyone_gives):
        others = [s for j, s in enumerate(state.seats) if j != i]
        out = [Give(cards=(c,), to=o) for c in hand for o in others]
        out += [Transfer(card=c, to=o) for c in state.passed[i] for o in others]
        out += [Promise(to=o) for o in others]
        if i == state.speaker:
            out.append(EndTalk())
    elif phase is Phase.COUNT and waited:
        out = [Count()]
    elif phase is Phase.REVEAL and waited:
        out = [Reveal(), Withdraw()]
    return out


# --- audit ------------------------------------------------------------------------------------


def invariants(state: NuclearState) -> list[str]:
    """Every card is in exactly one place; indices, phases and per-seat tuples agree."""
    n = state.n
    out = [
        f"{name} has {len(getattr(state, name))} entries for {n} seats"
        for name in ("stances", "hands", "passed", "vote1", "placed", "choices")
        if len(getattr(state, name)) != n
    ]
    if out:
        return out
    places: list[str] = [*state.deck, *state.discard, *state.removed]
    for i in range(n):
        places += [*state.hands[i], *state.passed[i], *state.placed[i]]
    places += [v for v in state.vote1 if v is not None and v != ABSTAIN]
    if state.proposal is not None:
        places.append(state.proposal)
    if sorted(places) != sorted(ALL_IDS):
        missing = sorted(set(ALL_IDS) - set(places))
        extra = sorted(c for c in set(places) if places.count(c) > 1 or c not in CARDS)
        out.append(f"cards lost {missing[:6]} or doubled {extra[:6]} ({len(places)} places for {len(ALL_IDS)} cards)")
    if any(state.hands[i] != sort_cards(state.hands[i]) for i in range(n)):
        out.append("a hand is out of order")
    if not 0 <= state.pro <= state.target("pro") + 3 or not 0 <= state.anti <= state.target("anti") + 3:
        out.append(f"indices out of range: pro {state.pro}, anti {state.anti}")
    if state.phase is not Phase.OVER:
        if state.pro >= state.target("pro") or state.anti >= state.target("anti"):
            out.append("a side reached its goal but the game goes on")
        if state.round > state.options.max_rounds:
            out.append("the game runs past its last round")
    elif state.ending is None:
        out.append("the game is over without an ending")
    in_vote = state.phase in (Phase.VOTE1, Phase.TALK, Phase.PLACE, Phase.COUNT, Phase.REVEAL)
    if in_vote != (state.proposal is not None):
        out.append(f"phase {state.phase.value} with proposal {state.proposal}")
    if state.phase is Phase.PROPOSE and not state.hands[state.speaker]:
        out.append("the speaker must propose with an empty hand")
    if any(state.vote1[i] is not None for i in range(n) if i not in state.voters):
        out.append("a first vote from a seat that does not vote")
    if any(state.placed[i] for i in range(n) if i not in state.placers):
        out.append("cards placed by a seat that does not vote")
    if any(len(p) > 2 for p in state.placed):
        out.append("more than two cards placed")
    if state.phase is not Phase.REVEAL and any(c is not None for c in state.choices):
        out.append("reveal choices outside the reveal window")
    pro = sum(1 for s in state.stances if s == "pro")
    if (pro, n - pro) != STANCES.get(n):
        out.append(f"stances {pro} pro, {n - pro} anti at {n} players")
    return out
