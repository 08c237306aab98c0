"""Presenting a hand during the bartering phase, and the placements that reward the best ones."""

from __future__ import annotations

import random

from games.nomic.actions import PresentHand
from games.nomic.cards import Card, missing_cards, sort_cards
from games.nomic.common import (
    HoldingChanges,
    Transition,
    change_holding,
    made_unvalidated,
    require_channel,
    require_player,
)
from games.nomic.context import ChannelRole, Context
from games.nomic.errors import BadInputError, ConflictError, InsufficientError, WrongPhaseError
from games.nomic.events import HandPresented, PlacementsMade
from games.nomic.hands import hand_score, hand_scores, place_scores, ranking_tag, score_category, score_label
from games.nomic.items import Items
from games.nomic.phases import Phase
from games.nomic.state import PlacementRecord, PresentedHand, RoundState


def check_present(state: RoundState, ctx: Context, action: PresentHand) -> None:
    require_channel(ctx, ChannelRole.GAME_ACTIONS)
    player = require_player(state, ctx)
    if state.phase is not Phase.BARTERING:
        raise WrongPhaseError("hands are presented during the bartering phase, before placements")
    if not state.presenting_open:
        raise WrongPhaseError("placements for this bartering phase are done; present a hand next week")
    if ctx.actor in state.presented_this_phase:
        raise ConflictError("you have already presented a hand this bartering phase")
    size = state.ruleset.hands.hand_size
    if len(action.cards) != size:
        raise BadInputError(f"a hand is exactly {size} cards, not {len(action.cards)}")
    missing = missing_cards(player.cards, action.cards)
    if missing:
        raise InsufficientError("you do not possess " + " ".join(c.code for c in missing) + " (duplicates count)")


def apply_present(state: RoundState, ctx: Context, action: PresentHand) -> Transition:
    check_present(state, ctx, action)
    options = state.ruleset.hands
    wrap, poker = options.wrap_around_straights, options.poker_kickers
    score = hand_score(action.cards, wrap_around=wrap, poker_kickers=poker)
    step = change_holding(state, ctx.actor, remove=Items(cards=action.cards), reason="they presented a hand")
    hand = PresentedHand(
        player=ctx.actor,
        cards=sort_cards(action.cards),
        at=ctx.at,
        score=score,
        ranked_under=ranking_tag(wrap_around=wrap, poker_kickers=poker),
    )
    state = step.state.model_copy(
        update={
            "hands": {**step.state.hands, ctx.actor: hand},
            "presented_this_phase": state.presented_this_phase | {ctx.actor},
        }
    )
    event = HandPresented(ctx.actor_name, hand.cards, score_category(score).label)
    return Transition(state, (event, *step.events))


def make_placements(state: RoundState, rng: random.Random) -> Transition:
    """Rank the presented hands, hand out the prizes, and give low places their cards back.

    A hand keeps the score it was given when presented: only hands presented under other
    ranking options (or in a snapshot from before scores were kept) are ranked here. Every prize
    goes to one working copy of the players in one pass (``HoldingChanges.grant_each``): one copy
    of the map and one new player each. The records are made from values already checked (the
    player, the hand's cards, a shared prize), without validating each: at thousands of players
    validation was half the placements. The records are the event's too.
    """
    options = state.ruleset.hands
    wrap, poker = options.wrap_around_straights, options.poker_kickers
    tag = ranking_tag(wrap_around=wrap, poker_kickers=poker)
    players = state.players
    hands = {pid: hand for pid, hand in state.hands.items() if pid in players}
    scores = {pid: hand.score for pid, hand in hands.items() if hand.score is not None and hand.ranked_under == tag}
    if len(scores) < len(hands):  # ranked under other options: every hand, after a moderator's change
        stale = [pid for pid in hands if pid not in scores]
        again = hand_scores([hands[pid].cards for pid in stale], wrap_around=wrap, poker_kickers=poker)
        scores.update(zip(stale, again, strict=True))
    placed = place_scores(scores, rng)
    ties = _ties(placed)
    points, makers, returned_from = options.prize_points, options.prize_proposal_makers, options.return_cards_from_place
    prizes: list[tuple[str, int, int, tuple[Card, ...]]] = []
    records: list[dict[str, object]] = []
    shown_prizes: dict[tuple[int, int], Items] = {}  # one value each; most places share the empty one
    for place, (pid, score, tossed) in enumerate(placed, start=1):
        won = points[place - 1] if place <= len(points) else 0
        spm = makers[place - 1] if place <= len(makers) else 0
        returned = place >= returned_from
        cards = hands[pid].cards
        prizes.append((pid, won, spm, cards if returned else ()))
        shown = shown_prizes.get((won, spm))
        if shown is None:
            shown = shown_prizes[won, spm] = Items(points=won, spm=spm)
        records.append(
            {
                "place": place,
                "player": pid,
                "name": players[pid].name,
                "cards": cards,
                "category": score_label(score),
                "coin_toss": tossed,
                "prize": shown,
                "cards_returned": returned,
                "tie": ties.get(place),
            }
        )
    changes = HoldingChanges(state)
    changes.grant_each(prizes)
    kept = tuple(made_unvalidated(PlacementRecord, records))
    state = changes.state().model_copy(update={"hands": {}, "presenting_open": False, "last_placements": kept})
    return Transition(state, (PlacementsMade(kept), *changes.events))


def _ties(placed: list[tuple[str, int, bool]]) -> dict[int, tuple[int, int]]:
    """The first and last place of each run of equal scores that coin tosses ordered, by place."""
    ties: dict[int, tuple[int, int]] = {}
    place = 1
    while place <= len(placed):
        _, score, tossed = placed[place - 1]
        last = place
        if tossed:
            while last < len(placed) and placed[last][1] == score:
                last += 1
            for tied in range(place, last + 1):
                ties[tied] = (place, last)
        place = last + 1
    return ties
