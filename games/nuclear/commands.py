"""The thread grammar of 關你核四: typed text in, an action out (or a typed error).

Words are case-insensitive and a leading ``!`` is allowed; every command has an English word and a
Chinese one (``vote`` or ``投``, ``give`` or ``給``...). Cards are their ids (``P07``, ``p7``, ``A13``,
``G1``); a player is ``@name``, ``name`` or a Discord mention.
"""

from __future__ import annotations

from collections.abc import Sequence

from games.nuclear.actions import (
    SECRET_KINDS,
    Abstain,
    Count,
    EndTalk,
    Give,
    NuclearAction,
    Promise,
    Propose,
    Reveal,
    Transfer,
    Vote,
    Withdraw,
)
from games.nuclear.cards import parse_card_id
from games.nuclear.rules import clean_note, refuse
from games.nuclear.state import NuclearState, Phase
from games.nuclear.texts import t
from games.tables.engine import BadCommandError, GameRuleError
from games.tables.text import PlayerResolver, resolve_seat, tokens

WORDS: dict[str, str] = {
    "propose": "propose",
    "提案": "propose",
    "vote": "vote",
    "place": "vote",
    "投": "vote",
    "投票": "vote",
    "蓋": "vote",
    "蓋牌": "vote",
    "abstain": "abstain",
    "棄權": "abstain",
    "give": "give",
    "給": "give",
    "送": "give",
    "transfer": "transfer",
    "讓渡": "transfer",
    "promise": "promise",
    "承諾": "promise",
    "end": "end",
    "done": "end",
    "結束": "end",
    "count": "count",
    "123": "count",
    "數": "count",
    "reveal": "reveal",
    "open": "reveal",
    "開牌": "reveal",
    "開": "reveal",
    "withdraw": "withdraw",
    "takeback": "withdraw",
    "收回": "withdraw",
    "收": "withdraw",
}
SECRET_WORDS = frozenset(word.casefold() for word, verb in WORDS.items() if verb in SECRET_KINDS)
"""The words of the moves that stay hidden (a vote, a gift, a reveal-or-withdraw), in both languages."""
_FILLER = {"to", "給", "@"}
COMMAND_KEYS = ("propose", "vote", "place", "give", "transfer", "promise", "end", "count", "reveal", "withdraw")


def _cards(words: Sequence[str], usage: str) -> tuple[list[str], list[str]]:
    """The card ids among ``words`` and the other words, each in order."""
    cards: list[str] = []
    rest: list[str] = []
    for word in words:
        cid = parse_card_id(word)
        if cid is not None:
            cards.append(cid)
        elif word.casefold() not in _FILLER:
            rest.append(word)
    if not cards:
        raise refuse(BadCommandError, "parse.cards", usage=usage)
    return cards, rest


def _player(state: NuclearState, words: Sequence[str], players: PlayerResolver | None, usage: str) -> str:
    if not words:
        raise refuse(BadCommandError, "parse.who", usage=usage)
    return players(words) if players is not None else resolve_seat(state.seats, words)


def _player_then_note(
    state: NuclearState, words: Sequence[str], players: PlayerResolver | None, usage: str
) -> tuple[str, str]:
    """``@bob the note`` → (bob's seat, the note): the shortest run of words that names a player."""
    words = (
        [w for w in words if w.casefold() not in _FILLER] if words and words[0].casefold() in _FILLER else list(words)
    )
    if not words:
        raise refuse(BadCommandError, "parse.who", usage=usage)
    errors: list[GameRuleError] = []
    for k in range(1, len(words) + 1):
        try:
            return _player(state, words[:k], players, usage), " ".join(words[k:])
        except GameRuleError as exc:
            errors.append(exc)
    raise errors[0]


def parse(state: NuclearState, text: str, players: PlayerResolver | None = None) -> NuclearAction:
    """Read one thread command. ``BadCommandError`` says what is wrong and how to write it."""
    typed = tokens(text, fold=False)
    verb = WORDS.get(typed[0].casefold())
    rest = typed[1:]
    if verb is None and " ".join(w.casefold() for w in typed) in {"1 2 3", "1、2、3", "一 二 三"}:
        verb, rest = "count", []
    if verb is None:
        shown = typed[0] if len(typed[0]) <= 20 else typed[0][:20] + "…"
        raise refuse(BadCommandError, "parse.unknown", word=shown, words=", ".join(f"`{w}`" for w in COMMAND_KEYS))
    if verb == "propose":
        cards, extra = _cards(rest, "propose P07")
        if len(cards) != 1 or extra:
            raise refuse(BadCommandError, "parse.one", usage="propose P07")
        return Propose(card=cards[0])
    if verb == "vote":
        if len(rest) == 1 and rest[0].casefold() in {"abstain", "棄權", "-"}:
            return Abstain()
        usage = "place P07 [A13]" if state.phase is Phase.PLACE else "vote P07"
        cards, extra = _cards(rest, usage)
        if extra:
            raise refuse(BadCommandError, "parse.extra", word=" ".join(extra)[:30], usage=usage)
        return Vote(cards=tuple(cards))
    if verb == "abstain":
        if rest:
            raise refuse(BadCommandError, "parse.extra", word=" ".join(rest)[:30], usage="abstain")
        return Abstain()
    if verb == "give":
        usage = "give P07 [A13 ...] @player"
        cards, who = _cards(rest, usage)
        return Give(cards=tuple(cards), to=_player(state, who, players, usage))
    if verb == "transfer":
        usage = "transfer P07 @player"
        cards, who = _cards(rest, usage)
        if len(cards) != 1:
            raise refuse(BadCommandError, "parse.one", usage=usage)
        return Transfer(card=cards[0], to=_player(state, who, players, usage))
    if verb == "promise":
        to, note = _player_then_note(state, rest, players, "promise @player [note]")
        return Promise(to=to, note=clean_note(note))
    simple: dict[str, NuclearAction] = {"end": EndTalk(), "count": Count(), "reveal": Reveal(), "withdraw": Withdraw()}
    if rest and not (verb == "end" and [w.casefold() for w in rest] in (["talk"], ["negotiation"])):
        raise refuse(BadCommandError, "parse.extra", word=" ".join(rest)[:30], usage=verb)
    return simple[verb]


def format_action(state: NuclearState, action: NuclearAction) -> str:
    """The command text that ``parse`` reads back as ``action``."""
    if isinstance(action, Propose):
        return f"propose {action.card}"
    if isinstance(action, Vote):
        word = "place" if state.phase is Phase.PLACE else "vote"
        return f"{word} {' '.join(action.cards)}"
    if isinstance(action, Abstain):
        return "abstain"
    if isinstance(action, Give):
        return f"give {' '.join(action.cards)} @{action.to}"
    if isinstance(action, Transfer):
        return f"transfer {action.card} @{action.to}"
    if isinstance(action, Promise):
        return f"promise @{action.to}" + (f" {action.note}" if action.note else "")
    if isinstance(action, EndTalk):
        return "end"
    if isinstance(action, Count):
        return "count"
    return "reveal" if isinstance(action, Reveal) else "withdraw"


def commands_text(lang: str = "en") -> str:
    return t(lang, "commands")
