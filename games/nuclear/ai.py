"""A computer player for 關你核四 that votes by its stance and its interest and bargains simply.

It sees what its seat sees: its own hand, the public table (stances, indices, passed proposals, the
revealed votes, how many cards each voter placed, every gift's count, every promise) and the deals
made with it. Its policy, stated in ``!rules nuclear`` too:

- **What it wants.** A proposal that moves its stance's index is one it wants to pass, one that
  moves the other side's it wants to fail (a government bill counts for the side it favours). Two
  exceptions: it does not help a rival of its own stance who already leads it by 4 points or more,
  unless the proposal ends the game for its side; and it keeps its word (below).
- **Voting.** In the first vote it plays the card that casts most votes its way for the least it
  would rather keep (its own side's cards are its ammunition; the other side's are cheap). In the
  second vote it places one or two cards that vote its way and reveals them, or, with nothing to
  say, places its cheapest card and withdraws it (a bluff costs nothing).
- **Deals it accepts.** Gifts are binding, so it simply keeps them. It counts a gift as one point a
  card, a transferred proposal as its score and a promise as one point; when the speaker's deals this
  round are worth at least the proposal's opinion symbols it does not vote against the proposal in
  the second vote, and with two points more it votes for it. It breaks such a deal (and any promise
  of its own) when passing the proposal would end the game for the other side.
- **Promises it makes.** As speaker it buys the opponents it needs: as many cards as the proposal
  has opinion symbols, plus a promise, and arms an ally with up to two cards. It gives only cards
  that vote for its proposal, the ones it values least, so a receiver who breaks the deal can only
  withdraw them. At a referendum it arms its allies first (the turnout needs yes votes) and keeps
  its two best cards for its own second vote. It keeps its promise at the receiver's next proposal
  (no vote against it), unless that proposal would end the game against it.
- **Proposing.** It weighs each card by how likely it is to pass (the stances of the voters), what it
  does to the indices (more as a side nears its goal; a move that wins the game for its side above all,
  one that loses it never) and its points, doubled when its side is ahead. A referendum it rates by
  its count (``referendum_count``): likely to pass when the count gives at least as many yes votes as
  players and more yes than no, unlikely otherwise.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from games.nuclear.actions import (
    Abstain,
    Count,
    EndTalk,
    Give,
    NuclearAction,
    Promise,
    Propose,
    Reveal,
    Vote,
    Withdraw,
)
from games.nuclear.cards import ALL_IDS, CARDS, Sym, VoteCard, sort_cards
from games.nuclear.rules import eligible_voters, legal_actions, tally
from games.nuclear.state import NuclearState, Phase

RIVAL_LEAD = 4
"""A rival of the same stance leading by this many points gets no help (the designer's tension)."""
SAFE_MARGIN = 4
"""The predicted margin at which a speaker stops buying votes (self-play: a wide one keeps pro games alive)."""
KEEP_CARDS = 1
"""A speaker keeps at least this many cards in hand when it buys votes (it draws N again as speaker)."""
REFERENDUM_HOLDS = 0.8
"""The chance a speaker gives a referendum its count says passes; ``REFERENDUM_SHORT`` one that falls short."""
REFERENDUM_SHORT = 0.1
OPPONENT_SHARE = 0.5
"""How much of the unseen cards' share of its side a referendum's speaker expects in an opponent's hand: an
opponent spends its side's cards on every vote and is bought with the other side's (self-play: the
plain share counted twice the no votes opponents cast)."""


def other(side: Sym) -> Sym:
    return "anti" if side == "pro" else "pro"


def gain(state: NuclearState, card: VoteCard) -> int:
    """The opinion symbols a passed proposal adds to its favoured side (a bill: one with ``swings``, else none)."""
    if card.kind == "gov_bill":
        return 1 if state.options.swings else 0
    return card.opinion


def ends_game(state: NuclearState, card: VoteCard) -> bool:
    """Whether passing ``card`` makes its favoured side reach its goal."""
    return state.index(card.yes) + gain(state, card) >= state.target(card.yes)


def points(state: NuclearState, i: int) -> int:
    return sum(CARDS[c].score for c in state.passed[i])


def keep_value(state: NuclearState, i: int, cid: str) -> float:
    """How much seat ``i`` would rather keep a card: its own side's cards vote for it both ways and score."""
    card = CARDS[cid]
    mine = state.stances[i]
    if card.side == mine:
        return len(card.votes) + 0.5 * (card.opinion + card.score)
    if card.side == "gov":
        return 2.0 if card.yes == mine else 0.5
    return 0.3 * card.score


def unseen(state: NuclearState, i: int) -> list[str]:
    """The cards seat ``i`` has not seen: neither in its hand nor face up (passed, discarded, proposed)."""
    seen = {*state.hands[i], *state.discard, *(c for p in state.passed for c in p)}
    if state.proposal is not None:
        seen.add(state.proposal)
    return [c for c in ALL_IDS if c not in seen]


def referendum_count(state: NuclearState, i: int, card: VoteCard) -> tuple[float, float]:
    """The yes and no votes seat ``i`` expects on referendum ``card`` as its speaker. Its own three best
    cards it knows (one for the first vote, two for the second), and it hands the next best to its
    allies, two each, to place (as its negotiation does). Every other player votes its stance with up
    to three cards of that side, as many as its hand holds by the share of such cards among those ``i``
    has not seen (an opponent by ``OPPONENT_SHARE`` of it); an ally it leads by ``RIVAL_LEAD`` stays out."""
    eye_votes = state.options.eye == "vote"
    own = sorted((_votes_for(CARDS[c], card, 1) for c in state.hands[i] if c != card.id), reverse=True)
    yes = float(sum(v for v in own[:3] if v > 0))
    no = float(-own[0]) if own and own[0] < 0 else 0.0  # the first vote is cast whatever it holds
    spare = [v for v in own[3:] if v > 0]
    pool = [CARDS[c].casts(card, eye_votes=eye_votes) for c in unseen(state, i) if c != card.id]

    def held(j: int, votes: list[int], cards: int, share: float = 1.0) -> float:
        """The votes of this kind player ``j`` can cast with at most ``cards`` cards of its hand."""
        if not votes:
            return 0.0
        return min(float(cards), share * len(state.hands[j]) * len(votes) / len(pool)) * sum(votes) / len(votes)

    yes_votes, no_votes = [y for y, _ in pool if y], [n for _, n in pool if n]
    for j in range(state.n):
        if j == i:
            continue
        if state.stances[j] == card.yes:
            if points(state, i) >= points(state, j) + RIVAL_LEAD and not ends_game(state, card):
                continue  # an ally it leads by that much stays out
            gift, spare = spare[:2], spare[2:]
            yes += sum(gift) + held(j, yes_votes, 3 - len(gift))
        else:
            no += held(j, no_votes, 3, OPPONENT_SHARE)
    return yes, no


def referendum_holds(state: NuclearState, i: int, card: VoteCard) -> bool:
    """Whether the count says the referendum passes: more yes than no, and the turnout where the table asks it."""
    yes, no = referendum_count(state, i, card)
    turnout = state.n if state.options.referendum_turnout else 0
    return yes >= turnout and yes >= no + 1


@dataclass(frozen=True)
class Wish:
    """How a seat wants this round's proposal to go: +1 pass, -1 fail, 0 stay out; ``lean``: in the
    first vote (which cannot stay out) it casts a yes when it can."""

    way: int
    lean: bool = False


def _deals_value(state: NuclearState, i: int) -> int:
    """What the speaker's deals with seat ``i`` this round are worth to it."""
    value = 0
    for deal in state.deals:
        if deal.round != state.round or deal.receiver != i or deal.giver != state.speaker:
            continue
        if deal.kind == "give":
            value += len(deal.cards)
        elif deal.kind == "transfer":
            value += sum(CARDS[c].score for c in deal.cards)
        else:
            value += 1
    return value


def owes_promise(state: NuclearState, i: int) -> bool:
    """Whether seat ``i`` promised the speaker support and the speaker has not proposed since."""
    speaker = state.speaker
    made = [d.round for d in state.deals if d.kind == "promise" and d.giver == i and d.receiver == speaker]
    if not made or i == speaker:
        return False
    since = max(made)
    return not any(r.speaker == speaker and since < r.round < state.round for r in state.history)


def wish(state: NuclearState, i: int) -> Wish:
    """Seat ``i``'s wish for the proposal under vote (see the module's policy)."""
    card = CARDS[state.proposal or ""]
    mine = state.stances[i]
    if i == state.speaker:
        return Wish(1)
    against_me = card.yes != mine
    dangerous = against_me and ends_game(state, card)
    way = -1 if against_me else 1
    if way == 1 and not ends_game(state, card):
        rival = state.stances[state.speaker] == mine and points(state, state.speaker) >= points(state, i) + RIVAL_LEAD
        if rival:
            way = 0
    if dangerous:
        return Wish(-1)
    value = _deals_value(state, i)
    price = max(1, gain(state, card))
    if value >= price + 2:
        return Wish(1)
    if value >= price and way < 1:
        return Wish(0, lean=True)
    if owes_promise(state, i) and way < 1:
        return Wish(0, lean=True)
    return Wish(way)


def _votes_for(card: VoteCard, proposal: VoteCard, way: int) -> int:
    yes, no = card.casts(proposal)
    return yes - no if way > 0 else no - yes


class StanceAI:
    """The computer player: one action for ``seat``, which the game awaits."""

    def choose(self, state: NuclearState, seat: str, rng: random.Random) -> NuclearAction:
        i = state.seats.index(seat)
        phase = state.phase
        if phase is Phase.PROPOSE:
            return self._propose(state, i, rng)
        if phase is Phase.VOTE1:
            return self._first_vote(state, i)
        if phase is Phase.TALK:
            return self._negotiate(state, i)
        if phase is Phase.PLACE:
            return self._place(state, i)
        if phase is Phase.COUNT:
            return Count()
        if phase is Phase.REVEAL:
            return self._reveal(state, i)
        legal = legal_actions(state, seat)
        return legal[-1] if legal else EndTalk()

    # -- proposing --

    def _propose(self, state: NuclearState, i: int, rng: random.Random) -> NuclearAction:
        hand = state.hands[i]
        scored = [(self._proposal_value(state, i, c), rng.random(), c) for c in hand]
        return Propose(card=max(scored)[2])

    def _pass_chance(self, state: NuclearState, i: int, card: VoteCard) -> float:
        if card.kind == "referendum":
            return REFERENDUM_HOLDS if referendum_holds(state, i, card) else REFERENDUM_SHORT
        support = sum(1 for j in range(state.n) if j != i and state.stances[j] == card.yes)
        oppose = sum(1 for j in range(state.n) if j != i and state.stances[j] != card.yes)
        chance = 0.55 + 0.18 * (support - oppose)
        return min(0.95, max(0.05, chance))

    def _proposal_value(self, state: NuclearState, i: int, cid: str) -> float:
        """Its own side's cards by opinion + half the score (a winning move above all); the other
        side's only for their points when they cannot cost the game; referendums by their odds."""
        card = CARDS[cid]
        mine = state.stances[i]
        chance = self._pass_chance(state, i, card)
        if ends_game(state, card):
            return 100.0 + chance if card.yes == mine else -100.0
        if card.kind == "gov_bill":
            swing = 1 + min(2, state.index(card.no)) if state.options.swings else 0
            worth = swing + 0.5 * card.score
            return worth * (0.5 + 0.5 * chance) if card.yes == mine or not swing else -worth
        worth = card.opinion + 0.5 * card.score
        if card.kind == "referendum":
            failed = (2.0 if card.no == mine else -2.0) if state.options.swings else 0.0
            passed = worth if card.yes == mine else 0.5 * card.score - card.opinion
            return chance * passed + (1 - chance) * failed
        if card.yes == mine:
            return worth * (0.5 + 0.5 * chance)
        return 0.5 * card.score - card.opinion - 1.0

    # -- voting --

    def _first_vote(self, state: NuclearState, i: int) -> NuclearAction:
        hand = state.hands[i]
        proposal = CARDS[state.proposal or ""]
        want = wish(state, i)
        if want.way == 0 and not want.lean and state.options.first_vote_optional:
            return Abstain()
        way = want.way if want.way != 0 else (1 if want.lean else 0)

        def worth(cid: str) -> float:
            card = CARDS[cid]
            votes = _votes_for(card, proposal, way) if way else -abs(_votes_for(card, proposal, 1))
            eye = 0.5 if card.eye and card.side == state.stances[i] else 0.0
            return votes + eye - 0.4 * keep_value(state, i, cid)

        return Vote(cards=(max(hand, key=lambda c: (worth(c), c)),))

    def _place(self, state: NuclearState, i: int) -> NuclearAction:
        hand = state.hands[i]
        proposal = CARDS[state.proposal or ""]
        want = wish(state, i)
        useful = sorted(
            (c for c in hand if want.way and _votes_for(CARDS[c], proposal, want.way) > 0),
            key=lambda c: (keep_value(state, i, c) - _votes_for(CARDS[c], proposal, want.way), c),
        )
        if not useful:
            return Vote(cards=(min(hand, key=lambda c: (keep_value(state, i, c), c)),))
        first = [state.vote1[v] or "-" for v in state.voters] if state.options.first_vote_counts else []
        yes, no = tally(first, state.proposal or "", state.options)
        margin = (yes - no) if want.way > 0 else (no - yes)
        opponents = sum(1 for p in state.placers if p != i and state.stances[p] != state.stances[i])
        take = 1 if margin >= 2 + 2 * opponents else 2
        return Vote(cards=sort_cards(useful[:take]))

    def _reveal(self, state: NuclearState, i: int) -> NuclearAction:
        proposal = CARDS[state.proposal or ""]
        want = wish(state, i)
        placed = state.placed[i]
        if want.way and all(_votes_for(CARDS[c], proposal, want.way) > 0 for c in placed):
            return Reveal()
        return Withdraw()

    # -- negotiating --

    def _negotiate(self, state: NuclearState, i: int) -> NuclearAction:
        if i != state.speaker:
            return EndTalk()
        proposal = CARDS[state.proposal or ""]
        first = [state.vote1[v] or "-" for v in state.voters] if state.options.first_vote_counts else []
        yes, no = tally(first, state.proposal or "", state.options)
        predicted = float(yes - no)
        dealt = {d.receiver for d in state.deals if d.round == state.round and d.giver == i and d.kind == "give"}
        promised = {d.receiver for d in state.deals if d.round == state.round and d.giver == i and d.kind == "promise"}
        voters = [j for j in eligible_voters(state) if j != i]
        opponents: list[int] = []
        for j in voters:
            strength = 0.8 * min(2, len(state.hands[j]))
            if state.stances[j] == proposal.yes:
                predicted += strength + (1.0 if j in dealt else 0.0)
            elif j in dealt:
                if j not in promised:
                    return Promise(to=state.seats[j])
            else:
                predicted -= strength
                opponents.append(j)
        if predicted >= SAFE_MARGIN:
            return EndTalk()
        price = max(1, gain(state, proposal))
        if ends_game(state, proposal):
            return EndTalk()  # the opponents would break any deal that loses them the game
        helpful = self._gifts(state, i, proposal)
        allies = [j for j in voters if state.stances[j] == proposal.yes and j not in dealt]
        arm = None
        if allies and helpful and len(state.hands[i]) - 1 >= KEEP_CARDS:
            ally = min(allies, key=lambda j: (len(state.hands[j]), j))
            arm = Give(cards=sort_cards(helpful[: min(2, len(state.hands[i]) - KEEP_CARDS)]), to=state.seats[ally])
        if arm is not None and proposal.kind == "referendum" and state.options.referendum_turnout:
            return arm  # the turnout needs yes votes, which only allies add
        if opponents and len(helpful) >= price and len(state.hands[i]) - price >= KEEP_CARDS:
            j = min(opponents, key=lambda j: (-len(state.hands[j]), j))
            return Give(cards=sort_cards(helpful[:price]), to=state.seats[j])
        return arm or EndTalk()

    def _gifts(self, state: NuclearState, i: int, proposal: VoteCard) -> list[str]:
        """The cards the speaker may give, least valued first: only those that vote for its proposal,
        so a receiver who breaks the deal can only withdraw them, never vote against it with them; at
        a referendum, which it votes on too, not the two best it places itself."""
        eye_votes = state.options.eye == "vote"
        helpful = sorted(
            (c for c in state.hands[i] if CARDS[c].casts(proposal, eye_votes=eye_votes)[1] == 0),
            key=lambda c: (keep_value(state, i, c), c),
        )
        if proposal.kind == "referendum":
            own = sorted(helpful, key=lambda c: (-_votes_for(CARDS[c], proposal, 1), c))[:2]
            helpful = [c for c in helpful if c not in own]
        return helpful


AI = StanceAI()
