"""Presenting a hand during the bartering phase, and the placements that reward the best ones."""

from __future__ import annotations

import random

from games.nomic.actions import PresentHand
from games.nomic.cards import missing_cards, sort_cards
from games.nomic.common import HoldingChanges, Transition, change_holding, require_channel, require_player
from games.nomic.context import ChannelRole, Context
from games.nomic.errors import BadInputError, ConflictError, InsufficientError, WrongPhaseError
from games.nomic.events import HandPresented, PlacementLine, PlacementsMade
from games.nomic.hands import place_hands, rank_hand
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
    rank = rank_hand(action.cards, wrap_around=options.wrap_around_straights, poker_kickers=options.poker_kickers)
    step = change_holding(state, ctx.actor, remove=Items(cards=action.cards), reason="they presented a hand")
    hand = PresentedHand(player=ctx.actor, cards=sort_cards(action.cards), at=ctx.at)
    state = step.state.model_copy(
        update={
            "hands": {**step.state.hands, ctx.actor: hand},
            "presented_this_phase": state.presented_this_phase | {ctx.actor},
        }
    )
    event = HandPresented(ctx.actor_name, hand.cards, rank.category.label)
    return Transition(state, (event, *step.events))


def make_placements(state: RoundState, rng: random.Random) -> Transition:
    """Rank the presented hands, hand out the prizes, and give low places their cards back.

    Every prize goes to one working copy of the players (``HoldingChanges``): one copy of the
    map per placements, not one per player.
    """
    options = state.ruleset.hands
    hands = {pid: h.cards for pid, h in state.hands.items() if pid in state.players}
    placements = place_hands(
        hands, rng, wrap_around=options.wrap_around_straights, poker_kickers=options.poker_kickers
    )
    changes = HoldingChanges(state)
    lines: list[PlacementLine] = []
    records: list[PlacementRecord] = []
    shown_prizes: dict[tuple[int, int], Items] = {}  # one value each; most places share the empty one
    for placement in placements:
        index = placement.place - 1
        points = options.prize_points[index] if index < len(options.prize_points) else 0
        spm = options.prize_proposal_makers[index] if index < len(options.prize_proposal_makers) else 0
        returned = placement.place >= options.return_cards_from_place
        cards = hands[placement.player]
        changes.grant(placement.player, points=points, spm=spm, cards=cards if returned else ())
        name = changes.player(placement.player).name
        shown = shown_prizes.get((points, spm))
        if shown is None:
            shown = shown_prizes[points, spm] = Items(points=points, spm=spm)
        category = placement.rank.category.label
        lines.append(PlacementLine(placement.place, name, cards, category, shown, returned, placement.coin_toss))
        records.append(
            PlacementRecord(
                place=placement.place,
                player=placement.player,
                name=name,
                cards=cards,
                category=category,
                coin_toss=placement.coin_toss,
                prize=shown,
                cards_returned=returned,
            )
        )
    state = changes.state().model_copy(
        update={"hands": {}, "presenting_open": False, "last_placements": tuple(records)}
    )
    return Transition(state, (PlacementsMade(tuple(lines)), *changes.events))
