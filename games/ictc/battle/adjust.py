"""Adjustments: what a player proposes when a card does something the bot cannot carry out.

``!adj hp @bob -3; cr #12 -1 eot; move #7 grave`` proposes a batch; the opponent confirms it (it is
then applied all at once, or not at all when one part no longer fits) or disputes it before a
judge. The proposal is shown to everyone, naming no card that is hidden (a card in a hand or a deck
is "a card in bob's hand"); once applied, a card that went to a public zone is named.
"""

from __future__ import annotations

from games.ictc.battle.payment import add_to_pool, units_of
from games.ictc.battle.state import Adjustment, BattleState
from games.ictc.battle.table import Run, must, zone_of
from games.ictc.battle.texts import t
from games.ictc.cards import CardType
from games.ictc.cost import parse_output
from games.ictc.errors import CardInputError
from games.tables.engine import BadCommandError, IllegalActionError

MOVES = ("hand", "grave", "top", "bottom", "play")
PUBLIC = frozenset({"play", "grave", "kitty", "flashes"})
MAX_ADJUSTMENTS = 10


def hidden(state: BattleState, card: int) -> bool:
    return zone_of(state, card) not in PUBLIC


def nameable(state: BattleState, seat: int, card: int) -> bool:
    """Whether ``seat`` may name ``card`` in an adjustment: a card of theirs (wherever it is) or a public one.
    Naming the other player's hidden card would have the proposal say where it is."""
    if not 1 <= card <= len(state.cards):
        return False
    return (seat >= 0 and state.card(card).owner == seat) or not hidden(state, card)


def unseen(card: int) -> BadCommandError:
    """The one answer to a card number its author cannot see, whether the battle has it (in a hand, a deck) or
    not: any other answer would tell where the other player's cards are. Told to the author alone, as every
    refusal about the cards a seat sees is, so where the answer goes tells nothing either."""
    return BadCommandError(f"there is no card #{card} you can see here", private=True)


def card_said(state: BattleState, card: int, lang: str = "en") -> str:
    """A card as a proposal names it: by name when public, else only where it is."""
    if hidden(state, card):
        owner = state.seats[state.card(card).owner]
        return t(lang, "adj.hidden", seat=owner, zone=t(lang, f"where.{zone_of(state, card)}"))
    return f"{state.name(card)} #{card}"


def describe(state: BattleState, adj: Adjustment, lang: str = "en") -> str:
    who = state.seats[adj.player] if adj.player is not None else ""
    card = card_said(state, adj.card, lang) if adj.card is not None else ""
    n = f"{adj.amount:+d}"
    if adj.what == "cr":
        return t(lang, f"adj.cr_{'eot' if adj.word == 'eot' else 'perm'}", card=card, n=n)
    if adj.what == "move":
        return t(lang, "adj.move", card=card, zone=t(lang, f"zone.{adj.word}"))
    if adj.what == "power":
        return t(lang, "adj.power", who=who, sign="+" if adj.amount >= 0 else "-", power=adj.word)
    if adj.what == "note":
        return t(lang, "adj.note", text=adj.word)
    if adj.what == "draw":
        return t(lang, "adj.draw", who=who, n=adj.amount)
    return t(lang, f"adj.{adj.what}", who=who, card=card, n=n)


def check(state: BattleState, adj: Adjustment) -> None:
    """Whether the adjustment can be applied now (``IllegalActionError`` says why not)."""
    if adj.card is not None and not 1 <= adj.card <= len(state.cards):
        raise IllegalActionError(f"there is no card #{adj.card} in this battle")
    if adj.what in {"cr", "damage", "tap", "ready"} and (adj.card is None or state.permanent(adj.card) is None):
        raise IllegalActionError(f"{card_said(state, adj.card) if adj.card else 'that card'} is not in play")
    if adj.what in {"cr", "damage"} and state.defn(adj.card or 0).kind is not CardType.SOLDIER:
        raise IllegalActionError("only a Soldier has a CR and damage")
    if adj.what == "damage":
        perm = state.permanent(adj.card or 0)
        if perm is not None and perm.damage + adj.amount < 0:
            raise IllegalActionError("a Soldier's damage cannot go below 0")
    if (
        adj.what == "move"
        and adj.card is not None
        and adj.word == "play"
        and state.defn(adj.card).kind not in {CardType.SOLDIER, CardType.POWER}
    ):
        raise IllegalActionError("only Soldiers and Power cards stay in play")
    if adj.what == "discard" and (adj.card is None or zone_of(state, adj.card) != "hand"):
        raise IllegalActionError("only a card in a hand is discarded")
    if adj.what == "power" and adj.player is not None and adj.amount < 0:
        have = dict(state.sides[adj.player].pool)
        for unit in units_of(parse_output(adj.word)):
            if have.get(unit, 0) <= 0:
                raise IllegalActionError(
                    f"{state.seats[adj.player]}'s pool has no {unit or 'any-colour'} power to take"
                )
            have[unit] -= 1


def apply(run: Run, adj: Adjustment) -> None:
    state = run.state
    check(state, adj)
    if adj.what == "hp" and adj.player is not None:
        if adj.amount >= 0:
            run.gain_health(adj.player, adj.amount)
        else:
            run.lose_health(adj.player, -adj.amount, prevented=False)
    elif adj.what == "cr" and adj.card is not None:
        perm = must(state.permanent(adj.card))
        field = "cr_eot" if adj.word == "eot" else "cr_perm"
        run.change_perm(adj.card, **{field: getattr(perm, field) + adj.amount})
    elif adj.what == "damage" and adj.card is not None:
        perm = must(state.permanent(adj.card))
        run.change_perm(adj.card, damage=perm.damage + adj.amount)
    elif adj.what == "move" and adj.card is not None:
        if adj.word in {"top", "bottom"}:
            run.put(adj.card, "deck", top=adj.word == "top")
        else:
            run.put(adj.card, adj.word)
    elif adj.what in {"tap", "ready"} and adj.card is not None:
        run.change_perm(adj.card, tapped=adj.what == "tap")
    elif adj.what == "draw" and adj.player is not None:
        run.draw(adj.player, adj.amount)
    elif adj.what == "discard" and adj.card is not None:
        run.put(adj.card, "grave")
    elif adj.what == "power" and adj.player is not None:
        side = run.side(adj.player)
        units = units_of(parse_output(adj.word))
        if adj.amount >= 0:
            run.change_side(adj.player, pool=add_to_pool(side.pool, units))
        else:
            have = dict(side.pool)
            for unit in units:
                have[unit] -= 1
            run.change_side(adj.player, pool=tuple(sorted((k, n) for k, n in have.items() if n > 0)))


def parse_power(word: str) -> str:
    try:
        return parse_output(word).text()
    except CardInputError as exc:
        raise IllegalActionError(str(exc)) from exc
