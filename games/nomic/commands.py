"""The command words of the round: text in, a typed action out, or a typed error saying why not.

Every text path (prefix commands on Discord, replayed lines, the console) goes through
``parse``; slash commands build the same actions from their typed options.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable

from games.nomic.actions import (
    MOD_LOG_MOST,
    MOD_LOG_SHOWN,
    AcceptTrade,
    Action,
    AdminGive,
    AdminLot,
    AdminSet,
    AdminTake,
    AssentRemoval,
    CancelTrade,
    CastConfidence,
    Challenge,
    CloseTodo,
    DeclineTrade,
    GenerateLot,
    GiveRuling,
    ImportRuleset,
    Join,
    Leave,
    MakeRequest,
    OfferTrade,
    PlaceBid,
    PresentHand,
    Resign,
    SetNotice,
    ShowHelp,
    ShowInventory,
    ShowLots,
    ShowModLog,
    ShowNotices,
    ShowPhase,
    ShowPlacements,
    ShowProposals,
    ShowRuleset,
    ShowRulesetDiff,
    ShowRulesetHistory,
    ShowRulings,
    ShowTodo,
    ShowTrades,
    UseItem,
)
from games.nomic.cards import Card
from games.nomic.context import ChannelRole
from games.nomic.document import rule_number
from games.nomic.errors import BadInputError, UnknownError
from games.nomic.items import Items, KindNames, parse_amount
from games.values import valueclass

PREFIX = "!"
MAX_COMMAND_LENGTH = 2000
"""Discord's own message limit; anything longer is refused before it is read."""
MAX_IMPORT_LENGTH = 110_000
"""``!ruleset import`` carries a whole document (an attachment's, on Discord): it may be longer."""

MemberResolver = Callable[[str], str]
"""Maps a member token (``@bob``, ``<@123>``) to a member id, or raises ``MemberNameError``.

A mention resolves by its id; a typed name only when it is one member's username and nobody
else is shown by it (``games.nomic.members.match_member``): otherwise the refusal lists who it
could mean."""


@valueclass
class CommandWord:
    name: str
    usage: str
    summary: str
    channels: tuple[ChannelRole, ...] = ()
    """Where it is used; empty means anywhere."""
    moderators_only: bool = False


_GA = (ChannelRole.GAME_ACTIONS,)
COMMAND_WORDS: tuple[CommandWord, ...] = (
    CommandWord("join", "!join", "become a player of the round", _GA),
    CommandWord("leave", "!leave", "stop being a player (your items are lost; a judge also stops being judge)", _GA),
    CommandWord("inventory", "!inventory [@member]", "points, cards and items of you or another player"),
    CommandWord(
        "bid",
        "!bid LOT AMOUNT",
        "bid points on a lot during the auction phase (while bids are sealed: by DM to me, or `/bid`)",
        (ChannelRole.AUCTIONS,),
    ),
    CommandWord("lots", "!lots", "the lots on offer and their highest valid bids"),
    CommandWord("generate", "!generate", "roll a new lot (outside the auction phase, up to the limit)", _GA),
    CommandWord("present", "!present C1 C2 C3 C4 C5", "present five of your cards as a hand (bartering)", _GA),
    CommandWord("placements", "!placements [PAGE]", "the last placements, every place and prize, page by page"),
    CommandWord("offer", "!offer @member give ITEMS for ITEMS", "propose a trade; you get its number", _GA),
    CommandWord("accept", "!accept N", "accept trade N offered to you", _GA),
    CommandWord("decline", "!decline N", "decline trade N offered to you", _GA),
    CommandWord("cancel", "!cancel N", "withdraw your own trade offer N", _GA),
    CommandWord("trades", "!trades", "your open trade offers, both ways"),
    CommandWord("use", "!use [N] ITEM", "redeem an item a rule makes for its points", _GA),
    CommandWord("proposals", "!proposals [PAGE]", "open proposals and recent outcomes; older ones by page"),
    CommandWord("request", "!request TEXT", "ask the judge a question or for the truth of a statement", _GA),
    CommandWord("rule", "!rule N TEXT", "judge: answer request N (again, to replace your ruling)", _GA),
    CommandWord("overturn", "!overturn N", "call a vote of confidence on the ruling on request N", _GA),
    CommandWord("confidence", "!confidence N overturn|affirm", "vote in the vote of confidence on request N", _GA),
    CommandWord("remove-judge", "!remove-judge", "assent to removing the judge", _GA),
    CommandWord("resign", "!resign", "judge: step down", _GA),
    CommandWord("rulings", "!rulings [PAGE]", "requests to the judge and each ruling's status; older ones by page"),
    CommandWord(
        "ruleset",
        "!ruleset [RULE | history [RULE] [PAGE] | diff V1 V2 | options]",
        "the rules in force (or one rule), their history, or what changed between two versions",
    ),
    CommandWord("phase", "!phase", "the current phase and the time left in it"),
    CommandWord("help", "!help", "what you can do here"),
    CommandWord(
        "notify",
        "!notify [outbid|reminders on|off]",
        "your DMs: when you are outbid (off unless you ask), reminders for you (on)",
    ),
    CommandWord(
        "admin",
        "!admin give|take @member ITEMS, !admin lot C1 C2, !admin set OPTION VALUE, !admin log [N],"
        " !admin todo, !admin done N [NOTE], !ruleset import",
        "moderators: correct the game state or the ruleset; the moderators' log and to-do list",
        moderators_only=True,
    ),
)
COMMANDS_BY_NAME = {w.name: w for w in COMMAND_WORDS}
ALIASES = {
    "inv": "inventory",
    "i": "inventory",
    "rules": "ruleset",
    "h": "help",
    "commands": "help",
    "removejudge": "remove-judge",
    "remove_judge": "remove-judge",
}

_NO_ARGUMENTS: dict[str, Callable[[], Action]] = {
    "join": Join,
    "leave": Leave,
    "lots": ShowLots,
    "generate": GenerateLot,
    "phase": ShowPhase,
    "trades": ShowTrades,
    "help": ShowHelp,
    "remove-judge": AssentRemoval,
    "resign": Resign,
}

_PAGED: dict[str, Callable[..., Action]] = {
    "proposals": ShowProposals,
    "rulings": ShowRulings,
    "placements": ShowPlacements,
}
"""Lists read page by page: ``!proposals [PAGE]``."""

_BIDI_AND_CONTROL = {"Cc", "Cf", "Zl", "Zp"}


def clean(text: str) -> str:
    """Drop control, format (bidi, zero-width) and separator characters a command has no use for."""
    if text.isprintable():
        return text  # (none of those is printable: the everyday command has nothing to drop)
    return "".join(
        " " if ch in "\t\r\n" else ch
        for ch in text
        if ch in "\t\r\n" or unicodedata.category(ch) not in _BIDI_AND_CONTROL
    )


def is_command(text: str) -> bool:
    return text.lstrip().startswith(PREFIX)


def split_command(text: str) -> tuple[str, list[str]]:
    """The command word (lower case, aliases resolved) and its arguments."""
    words = _words(text)
    if not words:
        raise BadInputError("that is not a command; `!help` lists the commands")
    name = words[0].lower()
    return ALIASES.get(name, name), words[1:]


def _words(text: str, most: int = -1) -> list[str]:
    """The words of a command after its prefix (``most``: split at most that many times)."""
    if len(text) > MAX_COMMAND_LENGTH:
        raise BadInputError(f"that message is too long for a command ({len(text):,} characters)")
    return clean(text).strip().removeprefix(PREFIX).split(maxsplit=most)


def command_word(text: str) -> str | None:
    """The command word of a message (aliases resolved), or None when it is no readable command."""
    if not is_command(text) or len(text) > MAX_COMMAND_LENGTH:
        return None
    words = _words(text, 1)
    if not words:
        return None
    name = words[0].lower()
    return ALIASES.get(name, name)


def _shown(text: str, limit: int = 24) -> str:
    visible = "".join(ch for ch in text if ch.isprintable() and ch not in "`@")
    return visible if len(visible) <= limit else visible[: limit - 1] + "…"


def _number(text: str, what: str) -> int:
    return parse_amount(text, what)


def _exactly(args: list[str], count: int, usage: str) -> None:
    if len(args) != count:
        raise BadInputError(f"usage: `{usage}`")


def _member(token: str, resolve: MemberResolver) -> str:
    """A member argument: a mention, or ``@`` and a username; ``MemberNameError`` says who else it could be."""
    if not token.startswith(("@", "<@")) or len(token) < 2:
        raise UnknownError(f"`{_shown(token)}` is not a member; write `@` and their username, e.g. `@bob`")
    return resolve(token)


def _cards(args: list[str]) -> tuple[Card, ...]:
    return tuple(Card.parse(a) for a in re.split(r"[\s,]+", " ".join(args)) if a)


def parse(text: str, resolve: MemberResolver, items: KindNames = ()) -> Action:
    """Read one command message; raise a ``RuleError`` whose text says what is wrong.

    ``items``: the names of the item kinds of the guild's rules, which ITEMS may name."""
    imported = _parse_import(text)
    if imported is not None:
        return imported
    name, args = split_command(text)
    if name in _NO_ARGUMENTS:
        if args and name != "help":
            raise BadInputError(f"`!{name}` takes no arguments")
        return _NO_ARGUMENTS[name]()
    if name == "ruleset":
        return _parse_ruleset(args)
    if name in _PAGED:
        if len(args) > 1:
            raise BadInputError(f"usage: `!{name} [PAGE]`")
        return _PAGED[name](page=_number(args[0], "page") if args else 1)
    if name == "request":
        if not args:
            raise BadInputError("usage: `!request TEXT`")
        return MakeRequest(text=_rest(text, 1))
    if name == "rule":
        if len(args) < 2:
            raise BadInputError("usage: `!rule N TEXT`")
        return GiveRuling(number=_number(args[0].lstrip("#"), "request number"), text=_rest(text, 2))
    if name == "overturn":
        _exactly(args, 1, "!overturn N")
        return Challenge(number=_number(args[0].lstrip("#"), "request number"))
    if name == "confidence":
        _exactly(args, 2, "!confidence N overturn|affirm")
        side = args[1].lower()
        if side not in {"overturn", "affirm"}:
            raise BadInputError("vote `overturn` or `affirm`, e.g. `!confidence 3 affirm`")
        return CastConfidence(number=_number(args[0].lstrip("#"), "request number"), overturn=side == "overturn")
    if name == "inventory":
        if len(args) > 1:
            raise BadInputError("usage: `!inventory [@member]`")
        return ShowInventory(target=_member(args[0], resolve) if args else None)
    if name == "bid":
        _exactly(args, 2, "!bid LOT AMOUNT")
        return PlaceBid(lot=_number(args[0], "lot number"), amount=_number(args[1], "bid"))
    if name == "present":
        cards = _cards(args)
        if not cards:
            raise BadInputError("usage: `!present C1 C2 C3 C4 C5`, e.g. `!present AS KS QS JS 10S`")
        return PresentHand(cards=cards)
    if name == "offer":
        return _parse_offer(args, resolve, items)
    if name == "use":
        return _parse_use(args)
    if name in {"accept", "decline", "cancel"}:
        _exactly(args, 1, f"!{name} N")
        number = _number(args[0].lstrip("#"), "trade number")
        if name == "accept":
            return AcceptTrade(number=number)
        return DeclineTrade(number=number) if name == "decline" else CancelTrade(number=number)
    if name == "admin":
        return _parse_admin(args, resolve, items)
    if name == "notify":
        return _parse_notify(args)
    raise UnknownError(f"there is no command `!{_shown(name)}`; `!help` lists the commands")


def _rest(text: str, skip: int) -> str:
    """The message after its first ``skip`` words, line breaks kept."""
    body = clean_keep_lines(text).strip()
    for _ in range(skip):
        parts = body.split(maxsplit=1)
        body = parts[1] if len(parts) > 1 else ""
    return body.strip()


def clean_keep_lines(text: str) -> str:
    if text.isprintable() or text.replace("\n", "").isprintable():
        return text
    return "".join(ch for ch in text if ch == "\n" or unicodedata.category(ch) not in _BIDI_AND_CONTROL)


RULESET_USAGE = (
    "usage: `!ruleset` (the contents), `!ruleset 4.2` (one rule), `!ruleset history [RULE] [PAGE]`, "
    "`!ruleset diff V1 V2` or `!ruleset options`"
)
IMPORT_USAGE = (
    "usage: `!ruleset import` followed by the document in a fenced block (```), or `/ruleset import` with the"
    " document as a Markdown file"
)
_IMPORT = re.compile(r"\s*!\s*(?:ruleset|rules)\s+import\b(?P<rest>.*)", re.IGNORECASE | re.DOTALL)
_OPEN_FENCE = re.compile(r"(?P<fence>`{3,}|~{3,})[ \t]*[\w-]*[ \t]*")


def is_import(text: str) -> bool:
    """``!ruleset import``: the round's command whatever else reads long messages (the tables refuse them)."""
    return _IMPORT.match(text[:200]) is not None


def _parse_import(text: str) -> ImportRuleset | None:
    """``!ruleset import`` and the document: what follows it, or the inside of the fenced block it is in (the
    last line closing that fence closes it, so the document's own ```rule blocks stay inside)."""
    match = _IMPORT.match(text[:200])
    if match is None:
        return None
    if len(text) > MAX_IMPORT_LENGTH:
        raise BadInputError(f"a ruleset document is at most {MAX_IMPORT_LENGTH - 10_000:,} characters")
    rest = clean_keep_lines(_IMPORT.match(text)["rest"])  # type: ignore[index]
    lines = rest.split("\n")
    opened = next((i for i, line in enumerate(lines) if _OPEN_FENCE.fullmatch(line.strip())), None)
    if opened is not None:
        fence = _OPEN_FENCE.fullmatch(lines[opened].strip())["fence"]  # type: ignore[index]
        closing = [i for i in range(opened + 1, len(lines)) if lines[i].strip() == fence]
        if not closing:
            raise BadInputError("the fenced block of the document is not closed")
        rest = "\n".join(lines[opened + 1 : closing[-1]])
    if not rest.strip():
        raise BadInputError(IMPORT_USAGE)
    return ImportRuleset(text=rest.strip("\n"))


def _rule_arg(token: str) -> str | None:
    """A rule number argument (``4.2``, ``rule 4.2`` is written as two words), or None when it is none."""
    if "." not in token:
        return None
    return rule_number(token)


def _parse_ruleset(args: list[str]) -> Action:
    if not args:
        return ShowRuleset()
    verb = args[0].lower()
    if verb == "rule" and len(args) == 2:
        args, verb = args[1:], args[1].lower()
    if verb == "options" and len(args) == 1:
        return ShowRuleset(options=True)
    if verb == "history" and len(args) <= 3:
        rule = _rule_arg(args[1]) if len(args) >= 2 else None
        pages = args[2:] if rule is not None else args[1:]
        if len(pages) > 1:
            raise BadInputError(RULESET_USAGE)
        return ShowRulesetHistory(page=_number(pages[0], "page") if pages else 1, rule=rule)
    if verb == "diff" and len(args) == 3:
        old, new = (_number(a.lstrip("vV"), "version") for a in args[1:])
        return ShowRulesetDiff(old=old, new=new)
    if len(args) == 1 and "." in verb:
        return ShowRuleset(rule=rule_number(verb))
    raise BadInputError(RULESET_USAGE)


def _parse_use(args: list[str]) -> UseItem:
    usage = "usage: `!use [N] ITEM`, e.g. `!use Golden Ticket` or `!use 2 Golden Tickets`"
    if not args:
        raise BadInputError(usage)
    count = 1
    if args[0].isdigit():
        count = _number(args[0], "number of items")
        args = args[1:]
    name = " ".join(args)
    if not name or len(name) > 60:
        raise BadInputError(usage)
    return UseItem(item=name, count=count)


def _parse_offer(args: list[str], resolve: MemberResolver, items: KindNames = ()) -> OfferTrade:
    usage = "usage: `!offer @member give ITEMS for ITEMS`, e.g. `!offer @bob give 10 points for AS`"
    if not args:
        raise BadInputError(usage)
    target = _member(args[0], resolve)
    rest = list(args[1:])
    if rest and rest[0].lower() == "give":
        rest = rest[1:]
    lowered = [a.lower() for a in rest]
    if lowered.count("for") != 1:
        raise BadInputError(usage)
    split = lowered.index("for")
    give_text, get_text = " ".join(rest[:split]), " ".join(rest[split + 1 :])
    if not give_text or not get_text:
        raise BadInputError(usage + " (use `nothing` for an empty side)")
    return OfferTrade(target=target, give=Items.parse(give_text, items), get=Items.parse(get_text, items))


_SWITCH = {"on": True, "off": False, "yes": True, "no": False, "true": True, "false": False}


def _parse_notify(args: list[str]) -> Action:
    if not args:
        return ShowNotices()
    usage = "usage: `!notify`, `!notify outbid on|off` or `!notify reminders on|off`"
    if len(args) != 2:
        raise BadInputError(usage)
    kind, switch = args[0].lower(), args[1].lower()
    kind = {"outbids": "outbid", "reminder": "reminders"}.get(kind, kind)
    if kind not in {"outbid", "reminders"} or switch not in _SWITCH:
        raise BadInputError(usage)
    return SetNotice(notice="outbid" if kind == "outbid" else "reminders", on=_SWITCH[switch])


def _parse_admin(args: list[str], resolve: MemberResolver, kinds: KindNames = ()) -> Action:
    usage = (
        "usage: `!admin give @member ITEMS`, `!admin take @member ITEMS`, `!admin lot C1 C2`, "
        "`!admin set OPTION VALUE`, `!admin log [N]`, `!admin todo` or `!admin done N [NOTE]`"
    )
    if not args:
        raise BadInputError(usage)
    verb, rest = args[0].lower(), args[1:]
    if verb in {"give", "take"}:
        if len(rest) < 2:
            raise BadInputError(f"usage: `!admin {verb} @member ITEMS`")
        target = _member(rest[0], resolve)
        items = Items.parse(" ".join(rest[1:]), kinds)
        return AdminGive(target=target, items=items) if verb == "give" else AdminTake(target=target, items=items)
    if verb == "lot":
        cards = _cards(rest)
        if not cards:
            raise BadInputError("usage: `!admin lot C1 C2`")
        return AdminLot(cards=cards)
    if verb == "log":
        if len(rest) > 1:
            raise BadInputError("usage: `!admin log [N]` (the latest N entries, at most 50)")
        count = _number(rest[0], "count") if rest else MOD_LOG_SHOWN
        if count > MOD_LOG_MOST:
            raise BadInputError(f"`!admin log` shows at most {MOD_LOG_MOST} entries")
        return ShowModLog(count=count)
    if verb == "todo":
        if len(rest) > 1:
            raise BadInputError("usage: `!admin todo [PAGE]`")
        return ShowTodo(page=_number(rest[0], "page") if rest else 1)
    if verb == "done":
        if not rest:
            raise BadInputError("usage: `!admin done N [NOTE]`, e.g. `!admin done 3 the judge now announces it`")
        return CloseTodo(number=_number(rest[0].lstrip("#"), "to-do number"), note=" ".join(rest[1:])[:300])
    if verb == "set":
        if len(rest) < 2:
            raise BadInputError("usage: `!admin set OPTION VALUE`, e.g. `!admin set auction.lots_per_auction 8`")
        return AdminSet(option=rest[0][:80], value=" ".join(rest[1:])[:200])
    raise BadInputError(usage)
