"""The battle's thread commands: text to actions and back (``format_action`` reads back as the same action).

A card is named by its number (``#12``), which the board and your hand show, optionally followed by
its name (``#12 Flame Hound``), or by its name alone when that is clear. Targets follow ``>``,
separated by commas: a card, or a player (``@bob``, ``me``, ``opponent``).

    cut [N]                      play CARD [x=N] [> TARGET, ...]     tap CARD
    use CARD [> TARGET, ...]     attack all | attack CARD [> TARGET], ...
    block none | block CARD > ATTACKER, ...                         split auto | split CARD: VICTIM=N, ...; ...
    pass   end   discard CARD ...   concede   autopass on|off
    adj ITEM; ITEM ...           undo N   confirm   dispute [@member]   withdraw   rule uphold|reject
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Sequence

from games.ictc.battle import adjust
from games.ictc.battle.actions import (
    Autopass,
    BattleAction,
    Concede,
    Confirm,
    Cut,
    DeclareAttack,
    DeclareBlocks,
    Discard,
    Dispute,
    EndTurn,
    Pass,
    PlayCard,
    Propose,
    ProposeUndo,
    Rule,
    SplitDamage,
    TapPower,
    UseAbility,
    Withdraw,
)
from games.ictc.battle.adjust import MAX_ADJUSTMENTS, MOVES, parse_power
from games.ictc.battle.combat import can_attack
from games.ictc.battle.rules import seated_judge
from games.ictc.battle.state import PLAYER, Adjustment, BattleState
from games.ictc.battle.table import soldiers
from games.ictc.battle.texts import t
from games.tables.engine import BadCommandError, GameRuleError
from games.tables.text import PlayerResolver, resolve_seat

MAX_TEXT = 600
_ALIASES = {
    "power": "play",
    "flash": "play",
    "cast": "play",
    "deploy": "play",
    "attack": "attack",
    "atk": "attack",
    "blocks": "block",
    "skip": "pass",
    "endturn": "end",
    "done": "end",
    "adjust": "adj",
    "yes": "confirm",
    "ok": "confirm",
    "concede": "concede",
    "resign": "concede",
}
VERBS = frozenset(
    {
        "cut",
        "play",
        "tap",
        "use",
        "attack",
        "block",
        "split",
        "pass",
        "end",
        "discard",
        "concede",
        "autopass",
        "adj",
        "undo",
        "confirm",
        "dispute",
        "withdraw",
        "rule",
    }
)
_ID = re.compile(r"^#?(\d{1,4})\b\s*(.*)$", re.DOTALL)
_X = re.compile(r"(?:^|\s)x\s*[=:]?\s*(\d{1,2})(?=\s|$)", re.IGNORECASE)
_ME = frozenset({"me", "myself", "you", "self"})
_THEM = frozenset({"opponent", "them", "enemy", "foe"})


def _shown(text: str, limit: int = 30) -> str:
    visible = "".join(ch for ch in text if ch.isprintable() and ch not in "`")
    return visible if len(visible) <= limit else visible[: limit - 1] + "…"


def _fold(text: str) -> str:
    return " ".join(unicodedata.normalize("NFKC", text).casefold().split())


def visible_to(state: BattleState, seat: int) -> list[int]:
    """Cards ``seat`` may name: their hand and every card in a public zone."""
    out = list(state.sides[seat].hand) if seat >= 0 else []
    for side in state.sides:
        out += [p.card for p in side.play]
        out += [*side.grave, *side.kitty, *side.flashes]
    return out


def card_ref(state: BattleState, seat: int, phrase: str, among: Sequence[int] | None = None) -> int:
    """The card a phrase names: ``#12``, ``#12 Flame Hound`` or ``Flame Hound`` (among ``among``, or the
    cards ``seat`` may see). What it cannot find is said to the seat alone: the cards a seat sees include
    its hand."""
    text = phrase.strip()
    scope = list(among) if among is not None else visible_to(state, seat)
    m = _ID.match(text)
    if m is not None and (text.startswith("#") or text.split()[0].isdigit()):
        card = int(m.group(1))
        if not 1 <= card <= len(state.cards) or card not in visible_to(state, seat):
            raise adjust.unseen(card)
        rest = _fold(m.group(2))
        if rest and not _fold(state.name(card)).startswith(rest):
            raise BadCommandError(f"#{card} is {state.name(card)}, not {_shown(m.group(2))}", private=True)
        return card
    wanted = _fold(text)
    if not wanted:
        raise BadCommandError("name a card: its number (`#12`) or its name")
    named = [c for c in scope if _fold(state.name(c)) == wanted]
    if not named:
        named = [c for c in scope if _fold(state.name(c)).startswith(wanted)]
    if not named:
        raise BadCommandError(
            f"no card called {_shown(text)} where you can name it; the board shows the cards' numbers", private=True
        )
    if len({state.name(c) for c in named}) > 1:
        names = ", ".join(sorted({state.name(c) for c in named}))
        raise BadCommandError(f"{_shown(text)} could be {names}: write the card's number (`#12`)", private=True)
    return named[0]


def player_ref(state: BattleState, seat: int, phrase: str, players: PlayerResolver | None) -> str:
    words = phrase.strip().split()
    word = _fold(phrase)
    if word in _ME:
        return f"{PLAYER}{seat}"
    if word in _THEM:
        return f"{PLAYER}{1 - seat}"
    name = players(words) if players is not None else resolve_seat(state.seats, words)
    index = state.seat_index(name)
    if index is None:
        raise BadCommandError(f"{_shown(phrase)} does not play in this battle")
    return f"{PLAYER}{index}"


def _not_a_player(state: BattleState, seat: int, phrase: str, players: PlayerResolver | None) -> None:
    """The judge a dispute names is no player of the battle (``seated_judge`` says why)."""
    try:
        index = _seat_of(player_ref(state, seat, phrase, players))
    except GameRuleError:
        return
    if 0 <= index < len(state.seats):  # "me" and "opponent" name no seat for a member who has none
        raise seated_judge(state.seats[index])


def target_ref(state: BattleState, seat: int, phrase: str, players: PlayerResolver | None) -> str:
    """A target: a card (its number or name) or a player."""
    text = phrase.strip()
    if text.startswith("#") or (text[:1].isdigit() and _ID.match(text)):
        return str(card_ref(state, seat, text))
    word = _fold(text)
    if word in _ME | _THEM or text.startswith(("@", "<@")):
        return player_ref(state, seat, text, players)
    try:
        return player_ref(state, seat, text, players)
    except GameRuleError:
        return str(card_ref(state, seat, text))


def _split_targets(rest: str) -> tuple[str, list[str]]:
    left, sep, right = rest.partition(">")
    if not sep:
        return rest, []
    return left, [p for p in (s.strip() for s in right.split(",")) if p]


def parse(state: BattleState, seat: str, text: str, players: PlayerResolver | None = None) -> BattleAction:
    if len(text) > MAX_TEXT:
        raise BadCommandError(f"that is too long for a command (at most {MAX_TEXT} characters)")
    body = unicodedata.normalize("NFKC", text).strip().removeprefix("!").strip()
    verb, _, rest = body.partition(" ")
    verb = verb.casefold()
    verb = _ALIASES.get(verb, verb)
    if verb not in VERBS:
        raise BadCommandError(f"`{_shown(verb)}` is not a battle command; `!help` lists them")
    index = state.seat_index(seat)
    i = index if index is not None else -1
    rest = rest.strip()
    word = _fold(rest)
    reader = _READERS.get(verb)
    if reader is not None:
        return reader(state, i, rest, players)
    if verb in {"pass", "end", "confirm", "withdraw", "concede"}:
        if rest:
            raise BadCommandError(f"`!{verb}` takes nothing after it")
        simple: dict[str, BattleAction] = {
            "pass": Pass(),
            "end": EndTurn(),
            "confirm": Confirm(),
            "withdraw": Withdraw(),
            "concede": Concede(),
        }
        return simple[verb]
    if verb == "autopass":
        if word not in {"on", "off"}:
            raise BadCommandError("write `!autopass on` or `!autopass off`")
        return Autopass(on=word == "on")
    if verb == "rule":
        if word not in {"uphold", "reject", "confirm", "deny"}:
            raise BadCommandError("the judge writes `!rule uphold` (carry it out) or `!rule reject` (drop it)")
        return Rule(uphold=word in {"uphold", "confirm"})
    if verb == "undo":
        digits = word.removeprefix("#")
        if not digits.isdigit() or len(digits) > 5:
            raise BadCommandError("write `!undo N`: back to before action #N of the log")
        return ProposeUndo(to=int(digits))
    if verb == "dispute":
        if not rest or word in {"mods", "moderators", "moderator"}:
            return Dispute()
        _not_a_player(state, i, rest, players)
        member = getattr(players, "member", None)
        if callable(member):
            return Dispute(judge=str(member(rest.split())))
        mention = re.fullmatch(r"<@!?([^>\s]+)>", rest)
        if mention is not None:
            return Dispute(judge=mention.group(1))
        return Dispute(judge=rest.removeprefix("@"))
    if verb == "cut":
        if not rest:
            return Cut()
        if not word.isdigit() or len(word) > 3:
            raise BadCommandError("write `!cut` (anywhere) or `!cut N` (N cards from the top go under)")
        return Cut(at=int(word))
    raise BadCommandError(f"`{verb}` is not a battle command")


Reader = Callable[[BattleState, int, str, PlayerResolver | None], BattleAction]


def _play(state: BattleState, i: int, rest: str, players: PlayerResolver | None) -> BattleAction:
    left, targets = _split_targets(rest)
    x = 0
    m = _X.search(" " + left + " ")
    if m is not None:
        x = int(m.group(1))
        left = _X.sub(" ", " " + left + " ").strip()
    if not left:
        raise BadCommandError("say which card: `!play #12` or `!play Spark > @bob`")
    hand = state.sides[i].hand if i >= 0 else ()
    card = card_ref(state, i, left, among=hand)
    return PlayCard(card=card, x=x, targets=tuple(target_ref(state, i, p, players) for p in targets))


def _tap(state: BattleState, i: int, rest: str, players: PlayerResolver | None) -> BattleAction:
    del players
    mine = [p.card for p in state.sides[i].play if not p.tapped] if i >= 0 else []
    mine += [p.card for p in state.sides[i].play if p.tapped] if i >= 0 else []
    return TapPower(card=card_ref(state, i, rest, among=mine))


def _use(state: BattleState, i: int, rest: str, players: PlayerResolver | None) -> BattleAction:
    left, targets = _split_targets(rest)
    mine = [p.card for p in state.sides[i].play] if i >= 0 else []
    card = card_ref(state, i, left, among=mine)
    return UseAbility(card=card, targets=tuple(target_ref(state, i, p, players) for p in targets))


def _attack(state: BattleState, i: int, rest: str, players: PlayerResolver | None) -> BattleAction:
    if i < 0:
        raise BadCommandError("only a player attacks")
    if _fold(rest) in {"all", "everything", "everyone"}:
        able = [c for c in soldiers(state, i) if can_attack(state, c)]
        if not able:
            raise BadCommandError("none of your Soldiers can attack now")
        return DeclareAttack(attacks=tuple((c, f"{PLAYER}{1 - i}") for c in able))
    attacks: list[tuple[int, str]] = []
    mine = soldiers(state, i)
    for part in (p.strip() for p in rest.split(",")):
        if not part:
            continue
        left, sep, right = part.partition(">")
        card = card_ref(state, i, left, among=mine)
        target = target_ref(state, i, right, players) if sep else f"{PLAYER}{1 - i}"
        attacks.append((card, target))
    if not attacks:
        raise BadCommandError("name your attackers: `!attack all`, or `!attack #12 > @bob, #14 > #21`")
    return DeclareAttack(attacks=tuple(attacks))


def _block(state: BattleState, i: int, rest: str, players: PlayerResolver | None) -> BattleAction:
    del players
    if _fold(rest) in {"none", "nothing", "no", ""}:
        return DeclareBlocks()
    blocks: list[tuple[int, int]] = []
    mine = soldiers(state, i) if i >= 0 else []
    theirs = soldiers(state, 1 - i) if i >= 0 else []
    for part in (p.strip() for p in rest.split(",")):
        if not part:
            continue
        left, sep, right = part.partition(">")
        if not sep:
            raise BadCommandError("write each block as `BLOCKER > ATTACKER`, e.g. `!block #21 > #12`")
        blocks.append((card_ref(state, i, left, among=mine), card_ref(state, i, right, among=theirs)))
    return DeclareBlocks(blocks=tuple(blocks))


def _split(state: BattleState, i: int, rest: str, players: PlayerResolver | None) -> BattleAction:
    if _fold(rest) in {"auto", "automatic", ""}:
        return SplitDamage()
    splits: list[tuple[int, tuple[tuple[str, int], ...]]] = []
    mine = soldiers(state, i) if i >= 0 else []
    for part in (p.strip() for p in rest.split(";")):
        if not part:
            continue
        left, sep, right = part.partition(":")
        if not sep:
            raise BadCommandError("write `!split #12: #21=1, #22=2` (or `!split auto`)")
        dealer = card_ref(state, i, left, among=mine)
        shares: list[tuple[str, int]] = []
        for share in (s.strip() for s in right.split(",")):
            if not share:
                continue
            victim, eq, amount = share.rpartition("=")
            if not eq or not amount.strip().isdigit() or len(amount.strip()) > 3:
                raise BadCommandError(f"`{_shown(share)}`: write VICTIM=N, e.g. #21=2")
            shares.append((target_ref(state, i, victim, players), int(amount)))
        splits.append((dealer, tuple(shares)))
    return SplitDamage(splits=tuple(splits))


def _discard(state: BattleState, i: int, rest: str, players: PlayerResolver | None) -> BattleAction:
    del players
    choice = state.choice
    owner = choice.hand_of if choice is not None and choice.seat == i else i
    hand = state.sides[owner].hand if owner >= 0 else ()
    parts = [p for p in re.split(r"[,\s]+(?=#)|,", rest) if p.strip()]
    if not parts:
        raise BadCommandError("name the cards to discard: `!discard #12 #17`")
    visible = list(hand)
    cards = []
    for part in parts:
        text = part.strip()
        m = _ID.match(text)
        if m is not None and int(m.group(1)) in visible:
            cards.append(int(m.group(1)))
        else:
            cards.append(card_ref(state, i, text, among=visible) if owner == i else _their(state, text, visible))
    return Discard(cards=tuple(cards))


def _their(state: BattleState, text: str, hand: Sequence[int]) -> int:
    m = _ID.match(text.strip())
    if m is None or int(m.group(1)) not in hand:
        raise BadCommandError(
            f"`{_shown(text)}` is not a card of the hand you choose from: name its number", private=True
        )
    return int(m.group(1))


def _adj(state: BattleState, i: int, rest: str, players: PlayerResolver | None) -> BattleAction:
    items = [p.strip() for p in re.split(r"[;\n]", rest) if p.strip()]
    if not items:
        raise BadCommandError("propose at least one adjustment, e.g. `!adj hp @bob -3; move #12 grave`")
    if len(items) > MAX_ADJUSTMENTS:
        raise BadCommandError(f"a proposal holds at most {MAX_ADJUSTMENTS} adjustments")
    return Propose(adjustments=tuple(_adjustment(state, i, item, players) for item in items))


def _any_card(state: BattleState, i: int, phrase: str) -> int:
    """A card for an adjustment: one the proposer can see or one of their own, wherever it is (by its number),
    or a name the proposer can see. The other player's hidden cards are theirs to propose."""
    m = _ID.match(phrase.strip())
    if m is not None and (phrase.strip().startswith("#") or phrase.strip()[:1].isdigit()):
        card = int(m.group(1))
        if not adjust.nameable(state, i, card):
            raise adjust.unseen(card)
        return card
    return card_ref(state, i, phrase)


def _signed(word: str, what: str) -> int:
    text = word.strip().replace("−", "-")
    if not re.fullmatch(r"[+-]?\d{1,3}", text):
        raise BadCommandError(f"{what} takes a number such as -3 or +2, not `{_shown(word)}`")
    return int(text)


def _adjustment(state: BattleState, i: int, item: str, players: PlayerResolver | None) -> Adjustment:
    head, _, tail = item.partition(" ")
    what = head.casefold()
    words = tail.split()
    if what in {"hp", "health", "life"}:
        if len(words) < 2:
            raise BadCommandError("write `hp @player -3`")
        return Adjustment(
            what="hp",
            player=_seat_of(player_ref(state, i, " ".join(words[:-1]), players)),
            amount=_signed(words[-1], "hp"),
        )
    if what == "cr":
        duration = "eot"
        if words and words[-1].casefold() in {"eot", "perm"}:
            duration = words.pop().casefold()
        if len(words) < 2:
            raise BadCommandError("write `cr #12 -1 eot` (or perm)")
        return Adjustment(
            what="cr", card=_any_card(state, i, " ".join(words[:-1])), amount=_signed(words[-1], "cr"), word=duration
        )
    if what in {"damage", "dmg"}:
        if len(words) < 2:
            raise BadCommandError("write `damage #12 +1`")
        return Adjustment(
            what="damage", card=_any_card(state, i, " ".join(words[:-1])), amount=_signed(words[-1], "damage")
        )
    if what == "move":
        if len(words) < 2 or words[-1].casefold() not in MOVES:
            raise BadCommandError(f"write `move #12 ZONE` with ZONE one of {', '.join(MOVES)}")
        return Adjustment(what="move", card=_any_card(state, i, " ".join(words[:-1])), word=words[-1].casefold())
    if what in {"tap", "ready", "untap", "discard"}:
        kind = "ready" if what == "untap" else what
        return Adjustment(what=kind, card=_any_card(state, i, tail))
    if what == "draw":
        if len(words) < 2 or not words[-1].isdigit() or not 1 <= int(words[-1]) <= 10:
            raise BadCommandError("write `draw @player N` (N from 1 to 10)")
        return Adjustment(
            what="draw", player=_seat_of(player_ref(state, i, " ".join(words[:-1]), players)), amount=int(words[-1])
        )
    if what == "power":
        if len(words) < 2:
            raise BadCommandError("write `power @player R` (or `-R` to take it away)")
        sign = -1 if words[-1].startswith("-") else 1
        return Adjustment(
            what="power",
            player=_seat_of(player_ref(state, i, " ".join(words[:-1]), players)),
            amount=sign,
            word=parse_power(words[-1].lstrip("+-")),
        )
    if what == "note":
        text = " ".join(tail.split())[:200]
        if not text:
            raise BadCommandError("write `note TEXT`")
        return Adjustment(what="note", word=text.replace("`", "'"))
    raise BadCommandError(
        f"`{_shown(head)}` is not an adjustment: hp, cr, damage, move, tap, ready, draw, discard, power or note"
    )


def _seat_of(ref: str) -> int:
    return int(ref[1:])


_READERS: dict[str, Reader] = {
    "play": _play,
    "tap": _tap,
    "use": _use,
    "attack": _attack,
    "block": _block,
    "split": _split,
    "discard": _discard,
    "adj": _adj,
}


# --- back to text -----------------------------------------------------------------------------------


def _card(state: BattleState, card: int) -> str:
    return f"#{card} {state.name(card)}"


def _target(state: BattleState, ref: str) -> str:
    return state.seats[int(ref[1:])] if ref.startswith(PLAYER) else _card(state, int(ref))


def format_action(state: BattleState, action: BattleAction) -> str:
    if isinstance(action, PlayCard):
        x = f" x={action.x}" if action.x or state.defn(action.card).fields.cost.x is not None else ""
        targets = f" > {', '.join(_target(state, r) for r in action.targets)}" if action.targets else ""
        return f"play {_card(state, action.card)}{x}{targets}"
    if isinstance(action, TapPower):
        return f"tap {_card(state, action.card)}"
    if isinstance(action, UseAbility):
        targets = f" > {', '.join(_target(state, r) for r in action.targets)}" if action.targets else ""
        return f"use {_card(state, action.card)}{targets}"
    if isinstance(action, DeclareAttack):
        return "attack " + ", ".join(f"{_card(state, c)} > {_target(state, r)}" for c, r in action.attacks)
    if isinstance(action, DeclareBlocks):
        if not action.blocks:
            return "block none"
        return "block " + ", ".join(f"{_card(state, b)} > {_card(state, a)}" for b, a in action.blocks)
    if isinstance(action, SplitDamage):
        if not action.splits:
            return "split auto"
        return "split " + "; ".join(
            f"{_card(state, d)}: " + ", ".join(f"{_target(state, v)}={n}" for v, n in shares)
            for d, shares in action.splits
        )
    if isinstance(action, Discard):
        return "discard " + " ".join(f"#{c}" for c in action.cards)
    if isinstance(action, Cut):
        return "cut" if action.at is None else f"cut {action.at}"
    if isinstance(action, Autopass):
        return f"autopass {'on' if action.on else 'off'}"
    if isinstance(action, Rule):
        return f"rule {'uphold' if action.uphold else 'reject'}"
    if isinstance(action, ProposeUndo):
        return f"undo {action.to}"
    if isinstance(action, Dispute):
        return f"dispute <@{action.judge}>" if action.judge else "dispute"
    if isinstance(action, Propose):
        return "adj " + "; ".join(_adj_text(state, a) for a in action.adjustments)
    return {
        "pass": "pass",
        "end": "end",
        "confirm": "confirm",
        "withdraw": "withdraw",
        "concede": "concede",
    }[action.kind]


def _adj_text(state: BattleState, adj: Adjustment) -> str:
    who = state.seats[adj.player] if adj.player is not None else ""
    card = f"#{adj.card}" if adj.card is not None else ""
    if adj.what == "hp":
        return f"hp {who} {adj.amount:+d}"
    if adj.what == "cr":
        return f"cr {card} {adj.amount:+d} {adj.word}"
    if adj.what == "damage":
        return f"damage {card} {adj.amount:+d}"
    if adj.what == "move":
        return f"move {card} {adj.word}"
    if adj.what in {"tap", "ready", "discard"}:
        return f"{adj.what} {card}"
    if adj.what == "draw":
        return f"draw {who} {adj.amount}"
    if adj.what == "power":
        return f"power {who} {'-' if adj.amount < 0 else ''}{adj.word}"
    return f"note {adj.word}"


def commands_text(lang: str = "en") -> str:
    return t(lang, "help.commands")
