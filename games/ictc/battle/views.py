"""What the thread shows: the board (public), a player's hand (private), the rules and the commands.

The board names only public cards (in play, in a grave, in the kitty, Flash cards played this turn)
and counts the hidden ones (hand, deck). A hand is shown to its owner alone, with each card's number,
cost and what it does, and a mark on the cards that can be played now.
"""

from __future__ import annotations

from games.ictc.battle import combat, rules
from games.ictc.battle.actions import PlayCard
from games.ictc.battle.adjust import describe
from games.ictc.battle.effects import candidates
from games.ictc.battle.payment import pool_words
from games.ictc.battle.state import HAND_LIMIT, BattleState, Permanent, Phase
from games.ictc.battle.table import cr_of, is_soldier, soldiers, target_words
from games.ictc.battle.texts import t
from games.ictc.cards import CardType
from games.tables.engine import MODERATORS, NotASeatError


def shown_keywords(state: BattleState, card: int) -> list[str]:
    """Every keyword of the card as its maker wrote it, a server's own too (the players apply those), then
    those granted in the battle."""
    words = list(state.defn(card).fields.keywords)
    perm = state.permanent(card)
    granted = (*perm.grants, *perm.grants_eot) if perm is not None else ()
    for grant in granted:
        if grant.casefold() not in {w.casefold() for w in words}:
            words.append(grant.capitalize())
    return words


def shown_restrictions(state: BattleState, card: int) -> list[str]:
    """What the card may not do: its written restrictions, then any its script holds that the text does not say."""
    defn = state.defn(card)
    words = [_lower_first(r) for r in defn.fields.restrictions]
    said = {" ".join(w.casefold().split()) for w in words}
    script = defn.script
    for rule in sorted(script.restrictions) if script is not None else ():
        text = rule.replace("_", " ")
        if text not in said:
            words.append(text)
    return words


def _lower_first(text: str) -> str:
    return text[:1].lower() + text[1:] if text[1:2].islower() else text


def permanent_line(state: BattleState, perm: Permanent) -> str:
    card = perm.card
    name = f"{state.name(card)} #{card}"
    bits: list[str] = []
    if is_soldier(state, card):
        bits.append(f"CR {cr_of(state, card)}")
        if perm.damage:
            bits.append(f"{perm.damage} damage")
        bits += shown_keywords(state, card)
        bits += shown_restrictions(state, card)
        if perm.new:
            bits.append("new")
    else:
        output = state.defn(card).fields.output
        if output is not None:
            bits.append(output.text())
    if perm.shield:
        bits.append(f"shield {perm.shield}")
    if perm.tapped:
        bits.append("tapped")
    return f"{name} ({', '.join(bits)})" if bits else name


def _side_lines(state: BattleState, seat: int, lang: str) -> list[str]:
    side = state.sides[seat]
    head = t(
        lang,
        "board.side",
        seat=state.seats[seat],
        health=side.health,
        deck=len(side.deck),
        hand=len(side.hand),
        grave=len(side.grave),
        pool=pool_words(side.pool),
    )
    if side.autopass:
        head += " " + t(lang, "board.autopass")
    lines = [head]
    troops = [permanent_line(state, p) for p in side.play if is_soldier(state, p.card)]
    powers = [permanent_line(state, p) for p in side.play if not is_soldier(state, p.card)]
    lines.append(t(lang, "board.soldiers", cards="; ".join(troops) or "-"))
    lines.append(t(lang, "board.powers", cards="; ".join(powers) or "-"))
    extras = []
    if side.kitty:
        extras.append(t(lang, "board.kitty", cards=", ".join(f"{state.name(c)} #{c}" for c in side.kitty)))
    if side.flashes:
        extras.append(t(lang, "board.flashes", cards=", ".join(f"{state.name(c)} #{c}" for c in side.flashes)))
    if side.grave:
        top = side.grave[-1]
        extras.append(t(lang, "board.grave_top", card=f"{state.name(top)} #{top}"))
    if extras:
        lines.append(" · ".join(extras))
    return lines


def waiting_line(state: BattleState, lang: str) -> str:
    if state.over:
        if state.winner is None:
            return t(lang, "board.over_draw")
        return t(lang, "board.over", winner=state.seats[state.winner])
    proposal = state.proposal
    if proposal is not None:
        if proposal.disputed:
            judge = t(lang, "board.moderators") if proposal.judge == MODERATORS else f"<@{proposal.judge}>"
            return t(lang, "board.wait_judge", judge=judge)
        return t(lang, "board.wait_confirm", seat=state.seats[1 - proposal.by])
    if state.choice is not None:
        return t(lang, "board.wait_choice", seat=state.seats[state.choice.seat], n=state.choice.count)
    if state.window is not None:
        return t(
            lang, "board.wait_window", seat=state.seats[state.window.seat], after=t(lang, f"after.{state.window.after}")
        )
    phase = state.phase
    if phase is Phase.CUT:
        names = ", ".join(state.seats[i] for i in sorted(rules.awaiting(state)))
        return t(lang, "board.wait_cut", seats=names)
    if phase is Phase.DEFEND:
        return t(lang, "board.wait_blocks", seat=state.seats[1 - state.active])
    if phase is Phase.SPLIT and state.combat is not None and state.combat.split_seat is not None:
        return t(lang, "board.wait_split", seat=state.seats[state.combat.split_seat])
    if phase is Phase.DISCARD:
        return t(lang, "board.wait_discard", seat=state.seats[state.active], limit=HAND_LIMIT)
    return t(lang, f"board.wait_{phase.value}", seat=state.seats[state.active])


def combat_line(state: BattleState, lang: str) -> str | None:
    fight = state.combat
    if fight is None:
        return None
    parts = []
    for attack in fight.attacks:
        line = f"{state.name(attack.attacker)} #{attack.attacker} → {target_words(state, attack.target)}"
        if attack.blockers:
            line += " " + t(lang, "board.blocked_by", cards=", ".join(f"{state.name(b)} #{b}" for b in attack.blockers))
        parts.append(line)
    return t(lang, "board.combat", attacks="; ".join(parts))


def public_view(state: BattleState, lang: str = "en") -> str:
    head = (
        t(lang, "board.head", turn=state.turn, seat=state.seats[state.active])
        if state.turn
        else t(lang, "board.head_setup")
    )
    lines = [head, waiting_line(state, lang), ""]
    for seat in (state.active, 1 - state.active):
        lines += _side_lines(state, seat, lang)
        lines.append("")
    fight = combat_line(state, lang)
    if fight:
        lines.append(fight)
    if state.proposal is not None:
        proposal = state.proposal
        if proposal.undo_to is not None:
            lines.append(t(lang, "board.proposal_undo", seat=state.seats[proposal.by], n=proposal.undo_to))
        else:
            items = "; ".join(describe(state, a, lang) for a in proposal.adjustments)
            lines.append(t(lang, "board.proposal", seat=state.seats[proposal.by], items=items))
    if state.log:
        lines.append(t(lang, "board.log"))
        lines += [f"> {line}".replace("\n", " ") for line in state.log[-6:]]
    return "\n".join(lines).strip()


def _hand_line(state: BattleState, seat: int, card: int, lang: str) -> str:
    fields = state.defn(card).fields
    kind = fields.type
    stats = (
        f"CR {fields.cr}" if kind is CardType.SOLDIER else (f"makes {fields.output.text()}" if fields.output else "")
    )
    keywords = ", ".join(fields.keywords)
    restrictions = ", ".join(shown_restrictions(state, card))
    ready = "✓ " if _playable(state, seat, card) else ""
    extra = " · ".join(x for x in (stats, keywords, restrictions) if x)
    text = fields.text if len(fields.text) <= 120 else fields.text[:119] + "…"
    script = (
        t(lang, "hand.scripted")
        if fields.script
        else (t(lang, "hand.by_hand") if kind in (CardType.ACTION, CardType.FLASH) else "")
    )
    return t(
        lang,
        "hand.line",
        ready=ready,
        card=f"#{card} {fields.name}",
        kind=kind.display,
        cost=fields.cost.text(),
        extra=f" · {extra}" if extra else "",
        text=text,
        script=script,
    )


def _playable(state: BattleState, seat: int, card: int) -> bool:
    if seat not in rules.awaiting(state):
        return False
    fields = state.defn(card).fields
    x = 1 if fields.cost.x is not None else 0
    for targets in _some_targets(state, seat, card):
        try:
            rules.check_index(state, seat, PlayCard(card=card, x=x, targets=targets))
        except ValueError:
            continue
        return True
    return False


def _some_targets(state: BattleState, seat: int, card: int) -> list[tuple[str, ...]]:
    refs: list[str] = []
    for clause in rules.play_clauses(state, card):
        for effect in clause.chosen:
            found = candidates(state, seat, effect.target) if effect.target is not None else []
            if not found:
                return []
            refs.append(found[-1])
    return [tuple(refs)]


def private_view(state: BattleState, seat: str, lang: str = "en") -> str:
    i = state.seat_index(seat)
    if i is None:
        raise NotASeatError(f"{seat} does not play in this battle")
    side = state.sides[i]
    lines = [t(lang, "hand.head", n=len(side.hand), deck=side.deck_name, pool=pool_words(side.pool))]
    lines += [_hand_line(state, i, c, lang) for c in side.hand] or [t(lang, "hand.empty")]
    choice = state.choice
    if choice is not None and choice.seat == i and choice.hand_of != i:
        theirs = ", ".join(f"#{c} {state.name(c)}" for c in state.sides[choice.hand_of].hand)
        lines.append(t(lang, "hand.their_hand", seat=state.seats[choice.hand_of], cards=theirs))
    if i in rules.awaiting(state):
        lines.append(t(lang, "hand.your_move", what=waiting_line(state, lang)))
    if state.phase is Phase.DEFEND and i != state.active and state.combat is not None:
        able = [
            f"#{b}"
            for b in soldiers(state, i)
            if any(combat.can_block(state, b, a.attacker) for a in state.combat.attacks)
        ]
        lines.append(t(lang, "hand.blockers", cards=", ".join(able) or "-"))
    return "\n".join(lines)


def rules_text(lang: str = "en") -> str:
    return t(lang, "rules.text")
