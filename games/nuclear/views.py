"""What the thread shows: the public table, one seat's private view, and the rules in our words.

The board never names a hidden card: hands and the deck are counts, a first-vote card shows only
once every vote is in, a card placed for the second vote only once it is revealed (a withdrawn one
never), and a gift by how many cards it held.
"""

from __future__ import annotations

from games.nuclear.cards import CARDS
from games.nuclear.rules import awaiting, doubled_points, scores, tally, winners
from games.nuclear.state import ABSTAIN, ANTI_TARGET, PRO_TARGET, NuclearState, Phase
from games.nuclear.texts import SYMBOL, boxes_text, card_text, cast_text, names, side_name, t, tn
from games.tables.engine import NotASeatError

SIDE_MARK: dict[str, str] = {"pro": SYMBOL["pro"], "anti": SYMBOL["anti"]}


def _passed_text(state: NuclearState, i: int, lang: str) -> str:
    cards = state.passed[i]
    if not cards:
        return t(lang, "board.no_passed")
    points = sum(CARDS[c].score for c in cards)
    shown = t(lang, "list.sep").join(f"{c}{SIDE_MARK.get(CARDS[c].side, '')}" for c in cards)
    return tn(lang, "board.passed", points, cards=shown)


def _indices(state: NuclearState, lang: str) -> str:
    return t(
        lang,
        "board.indices",
        pro_symbol=SYMBOL["pro"],
        anti_symbol=SYMBOL["anti"],
        pro=state.pro,
        anti=state.anti,
        pro_target=PRO_TARGET,
        anti_target=ANTI_TARGET,
    )


def _phase_line(state: NuclearState, lang: str) -> str:
    waiting = names(lang, sorted(awaiting(state), key=state.seats.index))
    phase = state.phase
    if phase is Phase.VOTE1:
        done = sum(1 for v in state.voters if state.vote1[v] is not None)
        return t(lang, "board.phase_vote1", done=done, of=len(state.voters), waiting=waiting)
    if phase is Phase.PLACE:
        done = sum(1 for p in state.placers if state.placed[p])
        return t(lang, "board.phase_place", done=done, of=len(state.placers), waiting=waiting)
    if phase is Phase.REVEAL:
        done = sum(1 for p in state.placers if state.choices[p] is not None)
        return t(lang, "board.phase_reveal", done=done, of=len(state.placers), waiting=waiting)
    return t(lang, f"board.phase_{phase.value}", speaker=state.seats[state.speaker])


def _votes_lines(state: NuclearState, lang: str) -> list[str]:
    """The first vote once revealed, and the second vote's face-down cards by count."""
    proposal = state.proposal
    if proposal is None or state.phase is Phase.VOTE1:
        return []
    lines = []
    entries = [(state.seats[v], state.vote1[v] or ABSTAIN) for v in state.voters]
    if entries:
        yes, no = tally([c for _, c in entries], proposal, state.options)
        eye_votes = state.options.eye == "vote"
        shown = t(lang, "list.sep").join(
            t(lang, "board.vote_abstain", seat=seat)
            if card == ABSTAIN
            else t(lang, "board.vote", seat=seat, card=card, cast=cast_text(card, proposal, lang, eye_votes=eye_votes))
            for seat, card in entries
        )
        lines.append(t(lang, "board.first_vote", votes=shown, yes=yes, no=no))
    placed = [(state.seats[p], len(state.placed[p])) for p in state.placers if state.placed[p]]
    if placed:
        each = t(lang, "list.sep").join(tn(lang, "board.placed_one", k, seat=seat) for seat, k in placed)
        lines.append(t(lang, "board.second_vote", placed=each))
    return lines


def _deals_lines(state: NuclearState, lang: str) -> list[str]:
    """This round's gifts (by count), transfers and the promises still remembered (the last few)."""
    lines = []
    for deal in state.deals:
        giver, receiver = state.seats[deal.giver], state.seats[deal.receiver]
        if deal.round == state.round and deal.kind == "give":
            lines.append(tn(lang, "talk.gave", len(deal.cards), giver=giver, receiver=receiver))
        elif deal.round == state.round and deal.kind == "transfer":
            lines.append(t(lang, "board.transfer", giver=giver, receiver=receiver, card=deal.cards[0]))
    promises = [d for d in state.deals if d.kind == "promise"][-5:]
    for deal in promises:
        note = t(lang, "talk.note", note=deal.note) if deal.note else ""
        lines.append(
            t(
                lang,
                "board.promise",
                round=deal.round,
                giver=state.seats[deal.giver],
                receiver=state.seats[deal.receiver],
                note=note,
            )
        )
    return lines


def public_view(state: NuclearState, lang: str = "en") -> str:
    if state.phase is Phase.OVER:
        head = t(lang, f"board.over_{state.ending}", round=state.history[-1].round if state.history else state.round)
    else:
        head = t(
            lang, "board.head", round=state.round, max=state.options.max_rounds, speaker=state.seats[state.speaker]
        )
    lines = [head, _indices(state, lang)]
    lines.append(t(lang, "board.piles", deck=len(state.deck), discard=len(state.discard), removed=len(state.removed)))
    if state.proposal is not None:
        lines.append(t(lang, "board.proposal", card=card_text(state.proposal, lang)))
        lines.append(boxes_text(state.proposal, lang))
    if state.phase is not Phase.OVER:
        lines.append(_phase_line(state, lang))
    lines += _votes_lines(state, lang)
    lines.append("")
    final = scores(state) if state.phase is Phase.OVER else None
    for i, seat in enumerate(state.seats):
        marker = "▶ " if state.phase is not Phase.OVER and i == state.speaker else ""
        stance = t(lang, "board.stance", side=side_name(state.stances[i], lang), symbol=SYMBOL[state.stances[i]])
        line = t(
            lang,
            "board.seat",
            marker=marker,
            seat=seat,
            stance=stance,
            hand=len(state.hands[i]),
            passed=_passed_text(state, i, lang),
        )
        if final is not None:
            extra = doubled_points(state, i)
            line += " " + (
                t(lang, "board.final_doubled", score=final[seat], extra=extra)
                if extra
                else t(lang, "board.final", score=final[seat])
            )
        lines.append(line)
    if final is not None:
        lines.append(
            t(lang, "end.winner" if len(winners(state)) == 1 else "end.winners", winners=names(lang, winners(state)))
        )
    deals = _deals_lines(state, lang)
    if deals:
        lines += ["", *deals]
    if state.history and state.phase is not Phase.OVER:
        last = state.history[-1]
        if last.proposal is not None:
            verdict = t(lang, "resolve.passed" if last.passed else "resolve.failed")
            lines += [
                "",
                t(lang, "board.last", round=last.round, card=last.proposal, verdict=verdict, yes=last.yes, no=last.no),
            ]
    return "\n".join(lines)


def private_view(state: NuclearState, seat: str, lang: str = "en") -> str:
    i = state.seat_index(seat)
    if i is None:
        raise NotASeatError(t(lang, "error.not_seated", seat=seat))
    stance = state.stances[i]
    lines = [t(lang, "hand.stance", side=side_name(stance, lang), symbol=SYMBOL[stance])]
    hand = state.hands[i]
    proposal = state.proposal
    lines.append(tn(lang, "hand.cards", len(hand)))
    eye_votes = state.options.eye == "vote"
    for card in hand:
        line = "• " + card_text(card, lang)
        if proposal is not None and state.phase is not Phase.OVER:
            line += " → " + cast_text(card, proposal, lang, eye_votes=eye_votes)
        lines.append(line)
    if state.phase is Phase.VOTE1 and state.vote1[i] not in (None, ABSTAIN):
        card = state.vote1[i] or ""
        lines.append(t(lang, "hand.voted", card=card_text(card, lang)))
    if state.placed[i]:
        lines.append(t(lang, "hand.placed", cards=t(lang, "list.sep").join(state.placed[i])))
        if state.choices[i] is not None:
            lines.append(t(lang, f"hand.chose_{state.choices[i]}"))
    received = [d for d in state.deals if d.round == state.round and d.receiver == i and d.kind == "give"]
    lines += [
        t(lang, "hand.received", giver=state.seats[d.giver], cards=t(lang, "list.sep").join(d.cards)) for d in received
    ]
    lines.append(_passed_text(state, i, lang))
    hint = _hint(state, i, lang)
    if hint:
        lines.append(hint)
    return "\n".join(lines)


def _hint(state: NuclearState, i: int, lang: str) -> str:
    """What this seat can do now, in one line."""
    if state.seats[i] not in awaiting(state):
        if state.phase is Phase.TALK and state.options.anyone_gives:
            return t(lang, "hand.hint_talk_anyone")
        return ""
    return t(lang, f"hand.hint_{state.phase.value}")


def rules_text(lang: str = "en") -> str:
    return t(lang, "rules") + "\n\n" + t(lang, "commands_head") + "\n" + t(lang, "commands")
