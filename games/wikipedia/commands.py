"""The thread grammar of the Wikipedia game: typed text in, an action out (or a typed error).

Words are case-insensitive, a leading ``!`` is allowed, cards are numbers (``12`` or ``#12``),
articles are names or any prefix of one (``a``, ``geo``, ``hist``, ``sci``), and a player is
``@name``, ``name`` or a Discord mention.
"""

from __future__ import annotations

from games.tables.engine import BadCommandError
from games.tables.text import PlayerResolver, number, resolve_seat, tokens
from games.wikipedia.actions import AddSection, EndTurn, FixProblem, GiveCard, PassHour, Protect, WikipediaAction
from games.wikipedia.cards import ARTICLES, DECK_SIZE, parse_article
from games.wikipedia.state import WikipediaState

COMMANDS: tuple[tuple[str, str], ...] = (
    (
        "section FACT SUPPORT [discard CARD]",
        (
            "write a section: a fact with a source of its article or a link to another article;"
            " non-experts add the card they pay with"
        ),
    ),
    ("fix CARD | fix ARTICLE", "pick up a problem card (or the oldest problem on an article) into your hand"),
    ("protect ARTICLE", "administrator: semi-protect a GA or fully protect an FA"),
    ("give CARD @player", "hand one of your cards to another player"),
    ("pass", "let one hour go by"),
    ("end", "let all your remaining hours go by; the next player's turn starts"),
)

_SECTION = ("section", "sec", "add", "write")
_FIX = ("fix", "pick", "pickup")
_PAY = ("discard", "pay", "paying")
_END = ("end", "done", "endturn")


def _card(word: str) -> int:
    return number(word, "card", 1, DECK_SIZE)


def _extra(words: list[str], usage: str) -> None:
    if words:
        shown = " ".join(words)
        shown = shown if len(shown) <= 30 else shown[:30] + "…"
        raise BadCommandError(f"unexpected `{shown}`; write `{usage}`")


def parse(state: WikipediaState, text: str, players: PlayerResolver | None = None) -> WikipediaAction:
    """Read one thread command. ``BadCommandError`` says what is wrong and how to write it.

    ``players`` says which seat a player argument names (the table's rule for members); without
    it, seats are named by their names as the state knows them.
    """
    typed = tokens(text, fold=False)
    words = [w.casefold() for w in typed]
    verb, rest = words[0], words[1:]
    if verb in _SECTION:
        usage = "section FACT SUPPORT [discard CARD]"
        if len(rest) < 2:
            raise BadCommandError(f"name the fact and the source or link: `{usage}`, e.g. `section 12 9`")
        fact, support = _card(rest[0]), _card(rest[1])
        tail = rest[2:]
        if tail and tail[0] in _PAY:
            tail = tail[1:]
            if not tail:
                raise BadCommandError("say which card you pay with, e.g. `discard 30`")
        payment = _card(tail[0]) if tail else None
        _extra(tail[1:], usage)
        return AddSection(fact=fact, support=support, payment=payment)
    if verb in _FIX:
        if len(rest) != 1:
            raise BadCommandError("write `fix CARD` (a problem's number) or `fix ARTICLE`, e.g. `fix 5` or `fix art`")
        word = rest[0]
        if word.removeprefix("#").isdecimal():
            return FixProblem(card=_card(word))
        article = parse_article(word)
        if article is None:
            raise BadCommandError(_not_an_article(word))
        problems = state.page(article).problems
        if not problems:
            raise BadCommandError(f"{article.label} has no problem to fix")
        return FixProblem(card=problems[0])
    if verb == "protect":
        if len(rest) != 1:
            raise BadCommandError("write `protect ARTICLE`, e.g. `protect art`")
        article = parse_article(rest[0])
        if article is None:
            raise BadCommandError(_not_an_article(rest[0]))
        return Protect(article=article)
    if verb == "give":
        if not rest:
            raise BadCommandError("write `give CARD @player`, e.g. `give 3 @bob`")
        card = _card(rest[0])
        who = typed[2:]  # as typed: a member's name keeps its case
        if who and who[0].casefold() == "to":
            who = who[1:]
        seat = players(who) if players is not None else resolve_seat(state.seats, who)
        return GiveCard(card=card, to=seat)
    if verb == "pass":
        _extra(rest, "pass")
        return PassHour()
    if verb in _END:
        if rest != ["turn"]:
            _extra(rest, "end")
        return EndTurn()
    shown = verb if len(verb) <= 20 else verb[:20] + "…"
    known = ", ".join(f"`{usage.split()[0]}`" for usage, _ in COMMANDS)
    raise BadCommandError(f"`{shown}` is not a Wikipedia command; the commands are {known}")


def _not_an_article(word: str) -> str:
    shown = word if len(word) <= 20 else word[:20] + "…"
    names = ", ".join(a.value for a in ARTICLES)
    return f"`{shown}` is not an article; the articles are {names}"


def format_action(action: WikipediaAction) -> str:
    """The command text that ``parse`` reads back as ``action``."""
    if isinstance(action, AddSection):
        pay = f" discard {action.payment}" if action.payment is not None else ""
        return f"section {action.fact} {action.support}{pay}"
    if isinstance(action, FixProblem):
        return f"fix {action.card}"
    if isinstance(action, Protect):
        return f"protect {action.article.value}"
    if isinstance(action, GiveCard):
        return f"give {action.card} @{action.to}"
    if isinstance(action, PassHour):
        return "pass"
    return "end"


def commands_text() -> str:
    return "\n".join(f"`{usage}`: {summary}" for usage, summary in COMMANDS)
