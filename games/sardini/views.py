"""What the thread shows: the public board, one seat's private hand, and the rules in our words.

The board names the shown Tricks, the cards played in the attempt under way, the piles and the
cards out of play (all face up), and only counts the hands and the deck.
"""

from __future__ import annotations

from games.sardini.cards import FULL, codes, mask
from games.sardini.commands import commands_text
from games.sardini.moves import Move, can_meet
from games.sardini.plans import solve
from games.sardini.scoring import pile_line
from games.sardini.state import Phase, SardiniState
from games.sardini.texts import t, tn
from games.sardini.tricks import TRICKS
from games.tables.engine import NotASeatError


def moves_line(trick: int, lang: str = "en", done: frozenset[int] = frozenset()) -> str:
    """The Moves numbered, those done struck through: ``(1) 3 cards in a run; (2) …``."""
    moves = TRICKS[trick].moves
    if len(moves) == 1:
        text = moves[0].text(lang)
        return f"~~{text}~~" if 0 in done else text
    parts = []
    for k, move in enumerate(moves):
        item = t(lang, "board.numbered", n=k + 1, move=move.text(lang))
        parts.append(f"~~{item}~~" if k in done else item)
    return t(lang, "move.separator").join(parts)


def _trick_row(state: SardiniState, slot: int, lang: str) -> str:
    card = state.board()[slot]
    if card is None:
        seat = state.seats[state.current]
        return t(lang, "board.vacant", slot=slot + 1, seat=seat, name=TRICKS[state.won[state.current][-1]].name)
    trick = TRICKS[card]
    attempt = state.attempt
    done = attempt.done_moves() if attempt is not None and attempt.trick == trick.card else frozenset()
    moves = moves_line(trick.card, lang, done)
    line = t(lang, "board.trick", slot=slot + 1, code=trick.code, name=trick.name, moves=moves)
    if trick.card in state.failed:
        line += " " + t(lang, "board.failed_here")
    return line


def _status(state: SardiniState, i: int, lang: str) -> str:
    if not state.alive[i]:
        return t(lang, "board.eliminated")
    if state.phase is Phase.OVER:
        return t(lang, "board.survivor")
    return t(lang, "board.playing")


def public_view(state: SardiniState, lang: str = "en") -> str:
    lines = []
    if state.phase is Phase.OVER:
        lines.append(tn(lang, "board.head_over", state.turn))
    else:
        lines.append(t(lang, "board.head", turn=state.turn, seat=state.seats[state.current]))
        nxt = state.next_draw()
        draw = tn(lang, "board.next_draw", nxt)
        if len(state.deck) < nxt:
            draw += " " + t(lang, "board.short_deck", n=len(state.deck))
        cap = state.options.draw_cap
        if cap is not None:
            draw += " " + t(lang, "board.cap", cap=cap)
        lines.append(tn(lang, "board.deck", len(state.deck), draw=draw))
    lines.append("")
    if state.shown:
        lines.append(t(lang, "board.tricks"))
        lines += [_trick_row(state, slot, lang) for slot in range(len(state.board()))]
    else:
        lines.append(t(lang, "board.no_tricks"))
    attempt = state.attempt
    seat = state.seats[state.current]
    if attempt is not None:
        slot = state.slot_of(attempt.trick)
        lines.append("")
        lines.append(t(lang, "board.attempting", seat=seat, slot=slot, name=TRICKS[attempt.trick].name))
        for k, cards in attempt.done:
            lines.append(t(lang, "board.done_move", n=k + 1, cards=codes(cards)))
        if attempt.extra and state.deck:
            lines.append(t(lang, "board.extra_open", seat=seat))
    elif state.phase is Phase.CALL:
        lines.append("")
        lines.append(t(lang, "board.calling", seat=seat))
    lines.append("")
    lines.append(t(lang, "board.players"))
    for i, name in enumerate(state.seats):
        marker = "▶ " if state.phase is not Phase.OVER and i == state.current else ""
        pile = tn(lang, "board.pile", len(state.piles[i]))
        if state.won[i]:
            pile += tn(lang, "board.pile_tricks", len(state.won[i]))
        hand = tn(lang, "board.hand", len(state.hands[i]))
        lines.append(f"{marker}{name}: {hand} · {pile} · {_status(state, i, lang)}")
    if state.out:
        lines.append(t(lang, "board.out", cards=codes(state.out)))
    # at the end the table adds the game's summary itself (under ``!board`` and in its last line)
    return "\n".join(lines)


def private_view(state: SardiniState, seat: str, lang: str = "en") -> str:
    """The seat's hand, and which Moves of the shown Tricks it can meet now (exactly)."""
    i = state.seat_index(seat)
    if i is None:
        raise NotASeatError(t(lang, "error.not_seated", seat=seat))
    hand = state.hands[i]
    if not state.alive[i]:
        return t(lang, "hand.eliminated", pile=pile_line(state, i, lang))
    lines = [tn(lang, "hand.cards", len(hand), cards=codes(hand) if hand else t(lang, "hand.empty"))]
    bits = mask(hand)
    attempt = state.attempt
    if attempt is not None and i == state.current:
        trick = TRICKS[attempt.trick]
        lines.append(t(lang, "hand.attempting", slot=state.slot_of(attempt.trick), name=trick.name))
        done = dict(attempt.done)
        left = [m for k, m in enumerate(trick.moves) if k not in done]
        together = solve(left, bits, assign=False) is not None
        for k, move in enumerate(trick.moves):
            if k in done:
                lines.append(t(lang, "hand.move_done", n=k + 1, move=move.text(lang), cards=codes(done[k])))
                continue
            fit = [c for c in hand if move.passes(c)]
            line = t(lang, "hand.move_open", mark=_mark(move, bits, together), n=k + 1, move=move.text(lang))
            if fit and move.card_mask != FULL:
                line += " " + t(lang, "hand.fits", cards=codes(fit))
            lines.append(line)
        if attempt.extra and state.deck:
            lines.append(t(lang, "hand.extra"))
        lines.append(t(lang, "hand.legend"))
        return "\n".join(lines)
    if state.phase is Phase.CALL and i == state.current:
        # an Encore attempts the Trick flipped next, which nobody has seen: the shown ones are not offered
        lines += [t(lang, "hand.call"), t(lang, "hand.call_encore")]
        return "\n".join(lines)
    if state.shown:
        lines.append(t(lang, "hand.meets_head"))
        for slot, card in enumerate(state.board()):
            if card is None:
                continue
            trick = TRICKS[card]
            whole = solve(trick.moves, bits, assign=False) is not None
            marks = " · ".join(f"{_mark(m, bits, whole)} {m.text(lang)}" for m in trick.moves)
            line = t(lang, "hand.trick", slot=slot + 1, name=trick.name, marks=marks)
            if whole:
                line += " " + t(lang, "hand.whole")
            lines.append(line)
        lines.append(t(lang, "hand.legend"))
    return "\n".join(lines)


def _mark(move: Move, hand: int, together: bool) -> str:
    """✓ when the hand meets this Move and the others left at once (``together``: cards matched to
    Moves, none serving two); ◐ when it meets this one alone; ✗ when not even that."""
    if not can_meet(move, hand):
        return "✗"
    return "✓" if together else "◐"


def rules_text(lang: str = "en") -> str:
    return t(lang, "rules.text") + "\n" + commands_text(lang)
