"""The thread grammar of the Sardini game: typed text in, an action out (or a typed error).

Words are case-insensitive and a leading ``!`` is allowed. A Trick is named by its place on the
board (``T2``, or ``2``) or by its card (``7H``); cards are written rank then suit (``7W``, ``10K``).
``move 2 7W 4S`` may be typed without ``move`` (``2 7W 4S``): that is what Discord's ``/move`` and
``!move`` pass on once they have read their own word.
"""

from __future__ import annotations

from games.sardini.actions import (
    ActOver,
    AttemptTrick,
    Draw,
    Encore,
    GiveUp,
    PlayMove,
    SardiniAction,
    SkipExtra,
    TakeExtra,
)
from games.sardini.cards import CODES, is_card_code, parse_card
from games.sardini.state import Phase, SardiniState
from games.sardini.texts import t, tn
from games.tables.engine import BadCommandError
from games.tables.text import tokens

COMMANDS: tuple[str, ...] = ("draw", "attempt", "move", "extra", "noextra", "giveup", "encore", "over")
"""Each has ``commands.NAME.usage`` and ``commands.NAME.text`` in the catalogue."""

_DRAW = ("draw", "d")
_ATTEMPT = ("attempt", "try", "a")
_MOVE = ("move", "m", "play")
_EXTRA = ("extra", "more")
_NOEXTRA = ("noextra", "no-extra", "skip", "noextracard")
_GIVEUP = ("giveup", "give-up", "fold", "surrender")
_OVER = ("over", "actover", "act-over", "done", "actisover")
_CONFIRM = ("confirm", "yes", "sure", "!")


def _shown(word: str) -> str:
    return word if len(word) <= 20 else word[:20] + "…"


def _confirm(rest: list[str], usage: str) -> bool:
    if not rest:
        return False
    if len(rest) == 1 and rest[0] in _CONFIRM:
        return True
    raise BadCommandError(t("en", "parse.extra_words", words=_shown(" ".join(rest)), usage=usage))


def _no_slot(slot: int, n: int) -> str:
    if n == 0:
        return t("en", "parse.no_slot_none", slot=slot)
    return tn("en", "parse.no_slot", n, slot=slot)


def _trick(state: SardiniState, word: str) -> int:
    """A shown Trick from ``T2``, ``2`` or its card ``7H``."""
    label = word.removeprefix("t").removeprefix("#")
    if label.isdecimal() and label.isascii() and len(label) <= 2:
        slot = int(label)
        board = state.board()
        if not 1 <= slot <= len(board):
            raise BadCommandError(_no_slot(slot, len(board)))
        found = board[slot - 1]
        if found is None:
            raise BadCommandError(t("en", "parse.vacant_slot", slot=slot, seat=state.seats[state.current]))
        return found
    if is_card_code(word):
        return parse_card(word)
    raise BadCommandError(t("en", "parse.not_a_trick", word=_shown(word)))


def parse(state: SardiniState, text: str) -> SardiniAction:
    """Read one thread command. ``BadCommandError`` says what is wrong and how to write it."""
    words = tokens(text)
    verb, rest = words[0], words[1:]
    if verb == "give" and rest[:1] == ["up"]:
        verb, rest = "giveup", rest[1:]
    if verb == "act" and rest[-1:] == ["over"]:
        verb, rest = "over", []
    if verb in _DRAW:
        if rest:
            raise BadCommandError(t("en", "parse.extra_words", words=_shown(" ".join(rest)), usage="draw"))
        if state.phase is Phase.ATTEMPT or (state.phase is Phase.CALL and state.call_extra):
            return TakeExtra()
        return Draw()
    if verb in _ATTEMPT:
        if not rest:
            raise BadCommandError(t("en", "parse.attempt_usage"))
        return AttemptTrick(trick=_trick(state, rest[0]), confirm=_confirm(rest[1:], "attempt T2 confirm"))
    if verb in _MOVE or (verb.isdecimal() and verb.isascii()):
        numbers = rest if verb in _MOVE else [verb, *rest]
        if not numbers or not numbers[0].isdecimal() or not numbers[0].isascii() or len(numbers[0]) > 2:
            raise BadCommandError(t("en", "parse.move_usage"))
        cards = tuple(parse_card(w) for w in numbers[1:])
        if not cards:
            raise BadCommandError(t("en", "parse.move_cards", n=int(numbers[0])))
        return PlayMove(move=int(numbers[0]), cards=cards)
    if verb in _EXTRA or verb in _NOEXTRA or verb in _GIVEUP or verb in _OVER:
        if rest:
            raise BadCommandError(t("en", "parse.extra_words", words=_shown(" ".join(rest)), usage=verb))
        if verb in _EXTRA:
            return TakeExtra()
        if verb in _NOEXTRA:
            return SkipExtra()
        return GiveUp() if verb in _GIVEUP else ActOver()
    if verb == "encore":
        return Encore(confirm=_confirm(rest, "encore confirm"))
    known = ", ".join(f"`{word}`" for word in COMMANDS)
    raise BadCommandError(t("en", "parse.unknown", word=_shown(verb), known=known))


def format_action(state: SardiniState, action: SardiniAction) -> str:
    """The command text that ``parse`` reads back as ``action`` (in the same state)."""
    if isinstance(action, Draw):
        return "draw"
    if isinstance(action, AttemptTrick):
        where = f"T{state.slot_of(action.trick)}" if action.trick in state.shown else CODES[action.trick]
        return f"attempt {where}" + (" confirm" if action.confirm else "")
    if isinstance(action, PlayMove):
        return f"move {action.move} " + " ".join(CODES[c] for c in action.cards)
    if isinstance(action, TakeExtra):
        return "extra"
    if isinstance(action, SkipExtra):
        return "noextra"
    if isinstance(action, GiveUp):
        return "giveup"
    if isinstance(action, Encore):
        return "encore" + (" confirm" if action.confirm else "")
    return "over"


def commands_text(lang: str = "en") -> str:
    return "\n".join(f"`{t(lang, f'commands.{w}.usage')}`: {t(lang, f'commands.{w}.text')}" for w in COMMANDS)
