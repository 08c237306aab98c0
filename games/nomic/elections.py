"""Judge elections: candidacies in #judge-elections, decided by players' 👍 when the week ends."""

from __future__ import annotations

from games.nomic.actions import Stand
from games.nomic.common import Transition, require_channel, require_player
from games.nomic.context import ChannelRole, Context
from games.nomic.errors import BadInputError, ConflictError
from games.nomic.events import CandidacyRecorded, JudgeElected
from games.nomic.judge import set_judge
from games.nomic.proposals import voters
from games.nomic.state import Candidacy, RoundState, Vote


def check_stand(state: RoundState, ctx: Context, action: Stand) -> None:
    require_channel(ctx, ChannelRole.JUDGE_ELECTIONS)
    require_player(state, ctx)
    if action.message in state.candidacies:
        raise ConflictError("that message is already a candidacy")
    if not action.text.strip():
        raise BadInputError("a candidacy is a text message")


def apply_stand(state: RoundState, ctx: Context, action: Stand) -> Transition:
    check_stand(state, ctx, action)
    candidacy = Candidacy(message=action.message, author=ctx.actor, author_name=ctx.actor_name, at=ctx.at)
    state = state.model_copy(
        update={
            "candidacies": {**state.candidacies, action.message: candidacy},
            "reactions": {**state.reactions, action.message: state.reactions.get(action.message, frozenset())},
        }
    )
    return Transition(state, (CandidacyRecorded(ctx.actor_name),))


def hold_election(state: RoundState) -> Transition:
    """The week's candidacy with the most 👍 from players wins; ties go to the earliest message.

    The sort is stable over the order candidacies were made, which breaks ties within one
    instant. Every candidacy belongs to the week just ended (they are cleared at each election), and a
    candidate who is no longer a player cannot win. With no candidacy the office is empty.
    """
    ranked: list[tuple[int, Candidacy]] = []
    for candidacy in state.candidacies.values():
        if candidacy.author not in state.players:
            continue
        votes = len(voters(state, candidacy.message, Vote.FOR))
        ranked.append((votes, candidacy))
    ranked.sort(key=lambda item: (-item[0], item[1].at))
    reactions = {k: v for k, v in state.reactions.items() if k not in state.candidacies}
    state = state.model_copy(update={"candidacies": {}, "reactions": reactions})
    if not ranked:
        return Transition(set_judge(state, None, None), (JudgeElected(None, 0, tie_broken=False),))
    votes, winner = ranked[0]
    tie = len(ranked) > 1 and ranked[1][0] == votes
    name = state.players[winner.author].name
    state = set_judge(state, winner.author, name)
    return Transition(state, (JudgeElected(name, votes, tie_broken=tie),))
