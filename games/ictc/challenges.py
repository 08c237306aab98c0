"""Challenges: one member challenges another to a battle with a play deck, the other accepts with theirs.

A challenge names the challenger's deck and whether the kitty is at stake (ante); everyone sees
the decks' sizes, never their cards. Accepting opens the battle's table (``games.ictc.arena``) in
the same transaction that records it here: from then on both decks' copies stay in the battle
(no trade can move them) until it ends, when the winner's kitty moves in the transaction that ends
the table. A first meeting's exclusions apply to that battle: the excluded designs' copies stay
out of the deck.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime

from games.ictc.actions import (
    AcceptChallenge,
    AnswerChallenge,
    BeginBattle,
    EndChallenge,
    IssueChallenge,
    ShowChallenges,
)
from games.ictc.cards import name_key, shown
from games.ictc.copies import belong_words, deck_problems, in_battle_words
from games.ictc.errors import CardInputError, CardStateError, NotYoursError, UnknownCardError
from games.ictc.events import Note, Step
from games.ictc.meetings import apply_begin_battle
from games.ictc.state import Challenge, ChallengeStatus, Deck, LibraryState, deck_key, meeting_key
from games.nomic.context import Context

MAX_OPEN = 10
"""Open challenges a member may have made at once."""
_NUMBER = re.compile(r"#?([0-9]{1,6})")


@dataclass(frozen=True)
class AcceptRequest:
    """``!challenge accept [N] [deck:NAME]``: the arena opens the battle."""

    number: int | None
    deck: str | None


ChallengeCommand = IssueChallenge | AnswerChallenge | ShowChallenges | AcceptRequest


def parse_challenge(text: str, resolve: Callable[[str], str]) -> ChallengeCommand:
    """``!challenge @member [ante:on|off] [deck:NAME]``, ``!challenge accept [N] [deck:NAME]``,
    ``!challenge decline|withdraw [N]``, ``!challenges``. A deck's name runs to the end (it may hold spaces)."""
    words = text.strip().removeprefix("!").split()
    if words[0].casefold() == "challenges" or (len(words) > 1 and words[1].casefold() in {"list", "show"}):
        return ShowChallenges()
    rest: list[str] = []
    ante_word = "on"
    deck: str | None = None
    args = words[1:]
    for k, word in enumerate(args):
        key, sep, value = word.partition(":")
        if sep and key.casefold() == "deck":
            deck = " ".join([value, *args[k + 1 :]]).strip() or None
            break
        if sep and key.casefold() == "ante":
            ante_word = value.casefold()
            continue
        rest.append(word)
    if not rest:
        raise CardInputError(
            "write `!challenge @member [ante:on|off] [deck:NAME]`, or `!challenge accept` / `decline` / `withdraw`"
        )
    verb = rest[0].casefold()
    if verb in {"accept", "decline", "withdraw", "cancel"}:
        number = None
        for word in rest[1:]:
            match = _NUMBER.fullmatch(word)
            if match is None:
                raise CardInputError(f"`{shown(word)}` is not a challenge's number")
            number = int(match.group(1))
        if verb == "accept":
            return AcceptRequest(number, deck)
        return AnswerChallenge(number=number, answer="withdraw" if verb in {"withdraw", "cancel"} else "decline")
    if len(rest) != 1:
        raise CardInputError("challenge one member: `!challenge @bob deck:NAME`")
    if ante_word not in {"on", "off", "yes", "no"}:
        raise CardInputError("write `ante:on` (the winner takes the kitty) or `ante:off`")
    if not rest[0].startswith(("@", "<@")):
        raise CardInputError(f"`{shown(rest[0])}` is not a member; write `@` and their username, e.g. `@bob`")
    return IssueChallenge(to=resolve(rest[0]), deck=deck, ante=ante_word in {"on", "yes"})


# --- reading ---------------------------------------------------------------------------------------


def playable_decks(state: LibraryState, member: str) -> list[Deck]:
    return [d for d in state.decks.values() if d.owner == member and not deck_problems(state, d)]


def find_deck(state: LibraryState, member: str, name: str | None) -> Deck:
    """The member's deck to battle with: the one named, or their only playable one."""
    if name is not None:
        deck = state.decks.get(deck_key(member, name))
        if deck is None:
            raise UnknownCardError(f"you have no play deck called {shown(name)} (`!card decks` lists yours)")
        problems = deck_problems(state, deck)
        if problems:
            raise CardStateError(f"your deck {deck.name} is not playable: " + "; ".join(problems))
        return deck
    ready = playable_decks(state, member)
    if len(ready) == 1:
        return ready[0]
    if not ready:
        raise CardStateError(
            "you have no playable deck: `!card starter` claims one, `!card deck save` builds one (30 cards or more)"
        )
    names = ", ".join(d.name for d in sorted(ready, key=lambda d: name_key(d.name)))
    raise CardInputError(f"say which deck: `deck:NAME` (yours: {names})")


def battle_copies(state: LibraryState, deck: Deck, excluded_designs: tuple[int, ...]) -> list[int]:
    """The deck's copies its owner still holds, the designs the other excluded at their first meeting left out."""
    out = []
    for number in deck.copies:
        copy = state.copies.get(number)
        if copy is None or copy.owner != deck.owner or copy.design in excluded_designs:
            continue
        out.append(number)
    return out


def open_to(state: LibraryState, member: str, number: int | None) -> Challenge:
    """The open challenge made to ``member`` (by number, or their only one)."""
    mine = [c for c in state.challenges.values() if c.to == member and c.status is ChallengeStatus.OPEN]
    return _pick(mine, number, "made to you")


def open_by(state: LibraryState, member: str, number: int | None) -> Challenge:
    mine = [c for c in state.challenges.values() if c.by == member and c.status is ChallengeStatus.OPEN]
    return _pick(mine, number, "of yours")


def _pick(found: list[Challenge], number: int | None, whose: str) -> Challenge:
    if number is not None:
        chosen = next((c for c in found if c.number == number), None)
        if chosen is None:
            raise UnknownCardError(f"there is no open challenge #{number} {whose}")
        return chosen
    if not found:
        raise UnknownCardError(f"there is no open challenge {whose}")
    if len(found) > 1:
        listed = ", ".join(f"#{c.number}" for c in found)
        raise CardInputError(
            f"there are several open challenges {whose} ({listed}): name one, e.g. `#{found[0].number}`"
        )
    return found[0]


def describe(state: LibraryState, challenge: Challenge) -> str:
    ante = "the winner takes the kitty" if challenge.ante else "no kitty at stake"
    return (
        f"#{challenge.number}: {state.name_of(challenge.by)} challenges {state.name_of(challenge.to)}"
        f" ({challenge.deck_size} cards; {ante}; {challenge.status.value}"
        + (f", {challenge.table}" if challenge.table else "")
        + ")"
    )


def list_text(state: LibraryState, member: str) -> str:
    mine = [
        c
        for c in state.challenges.values()
        if member in (c.by, c.to) and c.status in (ChallengeStatus.OPEN, ChallengeStatus.PLAYING)
    ]
    if not mine:
        return "You have no open challenge and no battle under way. `!challenge @member deck:NAME` makes one."
    return "Your challenges:\n" + "\n".join(describe(state, c) for c in sorted(mine, key=lambda c: c.number))


# --- transitions -----------------------------------------------------------------------------------


def _ante_words(ante: bool) -> str:
    if ante:
        return (
            "Ante is on: each player turns over the top card of their deck to decide who goes first, and the"
            " winner takes the other's cards turned over (the kitty)."
        )
    return "Ante is off: the cards turned over to decide who goes first go back to their owners."


def apply_issue(state: LibraryState, ctx: Context, action: IssueChallenge) -> Step:
    if action.to == ctx.actor:
        raise CardStateError("a battle is between two members: challenge someone else")
    mine = [c for c in state.challenges.values() if c.by == ctx.actor and c.status is ChallengeStatus.OPEN]
    if any(c.to == action.to for c in mine):
        raise CardStateError(f"you have challenged {state.name_of(action.to)} already; `!challenge withdraw` first")
    if len(mine) >= MAX_OPEN:
        raise CardStateError(f"you have {len(mine)} open challenges; withdraw one first")
    deck = find_deck(state, ctx.actor, action.deck)
    number = state.meta.next_challenge
    challenge = Challenge(
        number=number,
        by=ctx.actor,
        to=action.to,
        deck=deck.name,
        deck_size=len(deck.copies),
        ante=action.ante,
        at=ctx.at,
    )
    state = state.model_copy(
        update={
            "challenges": {**state.challenges, number: challenge},
            "meta": state.meta.model_copy(update={"next_challenge": number + 1}),
        }
    )
    other = state.name_of(action.to)
    theirs = playable_decks(state, action.to)
    sizes = ", ".join(f"{len(d.copies)}" for d in theirs)
    first = state.meetings.get(meeting_key(ctx.actor, action.to))
    meeting = (
        ""
        if first is not None and first.met_at is not None
        else f" You have not battled before: each may look at the other's master deck and exclude designs first"
        f" (`!card meet @{other}`, `!card exclude @{other} CARD`)."
    )
    yours = f"your playable decks hold {sizes} cards" if theirs else "you have no playable deck yet: `!card starter`"
    text = (
        f"⚔ Challenge #{number}: {ctx.actor_name} challenges <@{action.to}> to an ICTC battle, with a deck of"
        f" {len(deck.copies)} cards. {_ante_words(action.ante)}"
        f" {other}: `!challenge accept deck:NAME` ({yours}) or `!challenge decline`.{meeting}"
    )
    return Step(state, (Note(text),))


def apply_answer(state: LibraryState, ctx: Context, action: AnswerChallenge) -> Step:
    if action.answer == "decline":
        challenge = open_to(state, ctx.actor, action.number)
        status = ChallengeStatus.DECLINED
        text = f"{ctx.actor_name} declines challenge #{challenge.number} of {state.name_of(challenge.by)}."
    else:
        challenge = open_by(state, ctx.actor, action.number)
        status = ChallengeStatus.WITHDRAWN
        text = f"{ctx.actor_name} withdraws challenge #{challenge.number}."
    changed = challenge.model_copy(update={"status": status, "closed_at": ctx.at})
    return Step(state.model_copy(update={"challenges": {**state.challenges, changed.number: changed}}), (Note(text),))


def check_accept(state: LibraryState, member: str, number: int) -> Challenge:
    challenge = state.challenges.get(number)
    if challenge is None or challenge.status is not ChallengeStatus.OPEN:
        raise CardStateError(f"challenge #{number} is no longer open")
    if challenge.to != member:
        raise NotYoursError("only the member challenged accepts a challenge")
    return challenge


def check_free(state: LibraryState, challenge: Challenge, copies: Sequence[int], their_deck: str) -> None:
    """Every copy the battle would hold (of the challenger's deck and of ``their_deck``, the one accepting) is
    out of any other battle; else which copy is where, when it comes back and what to do meanwhile."""
    for number in copies:
        battle = state.in_battle(number)
        copy = state.copies.get(number)
        if battle is None or copy is None:
            continue
        held = in_battle_words(state, number, battle.table or "?")
        if copy.owner == challenge.to:
            raise CardStateError(
                f"your deck {their_deck}: {held}; accept then, or now with another deck"
                " (`!challenge accept deck:NAME`)"
            )
        by = state.name_of(challenge.by)
        raise CardStateError(
            f"{by}'s deck {challenge.deck}: {held}; accept then, or {by} may challenge you with another deck"
        )


def apply_accept(state: LibraryState, ctx: Context, action: AcceptChallenge) -> Step:
    """The battle's table opened: the challenge is under way, its copies held, the two have met."""
    challenge = check_accept(state, ctx.actor, action.number)
    for number in action.copies:
        copy = state.copies.get(number)
        if copy is None or copy.owner not in (challenge.by, challenge.to):
            raise CardStateError(f"card copy {number} changed hands meanwhile; accept again")
    check_free(state, challenge, action.copies, action.deck)
    changed = challenge.model_copy(
        update={
            "status": ChallengeStatus.PLAYING,
            "their_deck": action.deck,
            "table": action.table,
            "copies": action.copies,
        }
    )
    state = state.model_copy(update={"challenges": {**state.challenges, changed.number: changed}})
    state = apply_begin_battle(state, BeginBattle(a=challenge.by, b=challenge.to), ctx.at).state
    return Step(state)


def apply_end(state: LibraryState, action: EndChallenge, at: datetime) -> Step:
    """The battle's table ended: the kitty to its winner (copies still with the loser), the copies free."""
    challenge = next(
        (c for c in state.challenges.values() if c.table == action.table and c.status is ChallengeStatus.PLAYING),
        None,
    )
    if challenge is None:
        return Step(state)
    copies = dict(state.copies)
    moved: list[int] = []
    for move in action.moves:
        copy = copies.get(move.copy_id)
        if copy is None or copy.owner != move.giver or move.copy_id not in challenge.copies:
            continue
        copies[move.copy_id] = copy.model_copy(update={"owner": move.taker, "origin": "kitty"})
        moved.append(move.copy_id)
    changed = challenge.model_copy(
        update={"status": ChallengeStatus.OVER, "winner": action.winner, "kitty": tuple(moved), "closed_at": at}
    )
    update: dict[str, object] = {"challenges": {**state.challenges, changed.number: changed}}
    if moved:
        update["copies"] = copies
    return Step(state.model_copy(update=update))


def kitty_words(state: LibraryState, before: LibraryState, action: EndChallenge) -> str:
    """What the end of a challenge's battle did to the library, for the battle's thread."""
    challenge = next((c for c in state.challenges.values() if c.table == action.table), None)
    if challenge is None:
        return ""
    if not challenge.kitty:
        if not challenge.ante:
            return "No kitty was at stake: every card copy is free again."
        return "No kitty changes hands: every card copy is free again."
    taker = state.name_of(challenge.winner or "")
    return f"🏆 The kitty goes to {taker}: {belong_words(before, list(challenge.kitty), taker)}."
