"""The card library's command words: ``!card ...`` and ``!guild ...`` text in, a typed action out.

A card's fields are ``key: value`` parts, one a line or separated by ``|``, so a card can be typed in
one line (the console, a replay) or several (Discord)::

    !card new Fire Imp | type: soldier | cost: R+1 | cr: 2 | keywords: Haste | text: A quick imp of flame.

Slash commands and the ``/card new`` form build the same text.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from games.ictc.actions import (
    AskGuild,
    CardHelp,
    CardHistory,
    ClaimStarter,
    CommentCard,
    ContestCard,
    CreateGuild,
    DecideContest,
    DefineKeyword,
    DeleteDeck,
    EditCard,
    Exclude,
    GuildSettings,
    JoinGuild,
    JudgeCard,
    LeaveGuild,
    LibraryAction,
    ListCards,
    MasterDeck,
    MeetMember,
    MintCopies,
    NewCard,
    ProtectCard,
    SaveDeck,
    SetOfficer,
    SetOption,
    ShowCard,
    ShowContests,
    ShowCopies,
    ShowDecks,
    ShowGuilds,
    ShowKeywords,
    ShowOptions,
    ShowStarter,
    SubmitCard,
)
from games.ictc.cards import field_key, shown
from games.ictc.errors import CardInputError

MemberResolver = Callable[[str], str]

MAX_LIBRARY_COMMAND = 10_000
"""Longer messages are refused unread; a card's own limits say what fits."""

_VERSION = re.compile(r"v([0-9]{1,4})", re.IGNORECASE)
_COUNT = re.compile(r"[x×]([0-9]{1,3})", re.IGNORECASE)
_DECIDE = {"uphold": True, "upheld": True, "block": True, "dismiss": False, "dismissed": False, "reject": False}

CARD_HELP = (
    (
        "!card new NAME | type: soldier | cost: 2R+1 | cr: 2 | text: ...",
        "make a card (a private draft); `/card new` opens a form",
    ),
    ("!card edit CARD | FIELD: VALUE ...", "change your card: a new version, whose approvals start over"),
    ("!card protect CARD, !card unprotect CARD", "protect a draft (up to 3); unprotecting is for good"),
    ("!card submit CARD [guild:NAME]", "show your draft to everyone for approval (compared with the library first)"),
    ("!card ask CARD guild:NAME", "ask a guild to review your card"),
    ("!card approve CARD, !card reject CARD [: WHY]", "judge another member's card (the buttons do the same)"),
    ("!card comment CARD: TEXT", "comment on a card"),
    ("!card show CARD [vN], !card history CARD", "a card with its picture; its versions (drafts: its maker's)"),
    ("!card list [@member|pending|mine|starter], !card master [@member]", "the library; a master deck with approvals"),
    ("!card mint CARD [xN]", "mint copies of your approved card"),
    ("!card copies [@member]", "your card copies, only to you (trade them with `!offer ... copy:12`); another's count"),
    ("!card starter [DECK]", "the starter decks; claim one (its copies and a play deck)"),
    ("!card deck save NAME: CARD xN, copy:N ...", "save a play deck (30 cards or more to play)"),
    ("!card deck show NAME, !card deck delete NAME, !card decks", "your play decks, checked against what you own"),
    ("!card meet @member, !card exclude @member CARD, !card include @member CARD", "a first meeting: exclude designs"),
    ("!card keywords, !card keyword NAME: TEXT", "the glossary; define a new keyword (text only)"),
    (
        "!challenge @member [ante:on|off] [deck:NAME], !challenge accept|decline|withdraw [N] [deck:NAME], !challenges",
        "battle a member with your play deck in a thread (`!rules ictc`); the winner takes the kitty",
    ),
    ("!card contest CARD [: WHY]", "makers of protected designs: say a card copies yours"),
    ("!card options", "the card library's options"),
)
CARD_HELP_MODERATORS = (
    ("!card option NAME VALUE", "change an option of the card library"),
    ("!card contests, !card decide N uphold|dismiss [NOTE]", "decide a contest"),
)
GUILD_HELP = (
    ("!guild create NAME [vote|committee] [quorum:3] [hours:48] [committee:2]", "found a guild (you are its officer)"),
    ("!guild join NAME, !guild leave NAME", "join or leave a guild"),
    ("!guild officer NAME @member, !guild demote NAME @member", "officers: name or remove an officer"),
    ("!guild set NAME quorum:N hours:N committee:N mode:vote|committee", "officers: change how the guild approves"),
    ("!guild list, !guild show NAME", "the guilds; one guild's members"),
)


def help_text(topic: str = "card", *, moderator: bool = False) -> str:
    lines = ["The card library (ICTC): make cards, get them approved, mint copies, build play decks."]
    lines += [f"`{usage}` - {summary}" for usage, summary in CARD_HELP]
    lines.append("Guilds approve cards together:")
    lines += [f"`{usage}` - {summary}" for usage, summary in GUILD_HELP]
    if moderator:
        lines += [f"`{usage}` - {summary}" for usage, summary in CARD_HELP_MODERATORS]
    lines.append(
        "CARD is a card's name or its number (`#12`). Costs: `2K+4` (two black, four of any colour), `2R+X`, `XK`, `0`."
    )
    return "\n".join(lines)


def _member(token: str, resolve: MemberResolver) -> str:
    if not token.startswith(("@", "<@")) or len(token) < 2:
        raise CardInputError(f"`{shown(token)}` is not a member; write `@` and their username, e.g. `@bob`")
    return resolve(token)


def card_fields(text: str, *, first: str = "name") -> tuple[str, dict[str, str]]:
    """The leading part (a name or a card) and the ``key: value`` parts of a card's text."""
    parts = re.split(r"\n|\|", text)
    lead: list[str] = []
    raw: dict[str, str] = {}
    last: str | None = None
    for part in parts:
        key_text, colon, value = part.partition(":")
        key = field_key(key_text) if colon else None
        if key is not None:
            if key in raw:
                raise CardInputError(f"the {key} is given twice")
            raw[key] = value.strip()
            last = key
        elif last is None:
            lead.append(part.strip())
        else:
            joiner = "\n" if last == "text" else " "
            raw[last] = (raw[last] + joiner + part.strip()).strip()
    leading = " ".join(p for p in lead if p)
    if first == "name" and leading:
        if "name" in raw:
            raise CardInputError("the name is given twice")
        raw["name"] = leading
        leading = ""
    return leading, raw


def _rest(text: str, skip: int) -> str:
    body = text.strip().removeprefix("!")
    for _ in range(skip):
        parts = body.split(maxsplit=1)
        body = parts[1] if len(parts) > 1 else ""
    return body.strip()


def _split_colon(text: str) -> tuple[str, str]:
    head, _, tail = text.partition(":")
    return head.strip(), tail.strip()


def _version_suffix(text: str) -> tuple[str, int | None]:
    words = text.split()
    if len(words) > 1 and (m := _VERSION.fullmatch(words[-1])) is not None:
        return " ".join(words[:-1]), int(m.group(1))
    return text.strip(), None


def _need(ref: str, usage: str) -> str:
    if not ref:
        raise CardInputError(f"usage: `{usage}`")
    return ref


def _key_values(words: list[str]) -> tuple[list[str], dict[str, str]]:
    plain: list[str] = []
    pairs: dict[str, str] = {}
    for word in words:
        key, colon, value = word.partition(":")
        if colon and key and value:
            pairs[key.casefold()] = value
        else:
            plain.append(word)
    return plain, pairs


def parse_library(text: str, resolve: MemberResolver) -> LibraryAction:
    """Read a ``!card`` or ``!guild`` command; ``CardInputError`` says what is wrong."""
    if len(text) > MAX_LIBRARY_COMMAND:
        raise CardInputError(f"that message is too long ({len(text):,} characters) for a card command")
    body = "".join(ch for ch in text if ch == "\n" or ch.isprintable())
    words = body.strip().removeprefix("!").split()
    if not words:
        raise CardInputError("that is not a command")
    verb = words[0].casefold()
    if verb in {"guild", "guilds"}:
        return _parse_guild(body, words[1:], resolve)
    return _parse_card(body, words[1:], resolve)


def _parse_card(body: str, args: list[str], resolve: MemberResolver) -> LibraryAction:
    sub = args[0].casefold() if args else "help"
    rest = _rest(body, 2)
    if sub in {"help", "?"}:
        return CardHelp()
    if sub in {"new", "make", "forge"}:
        _, raw = card_fields(rest)
        if not raw:
            raise CardInputError(
                "usage: `!card new NAME | type: soldier | cost: R+1 | cr: 2 | text: WHAT IT DOES` (or `/card new`)"
            )
        return NewCard(raw=raw)
    if sub == "edit":
        ref, raw = card_fields(rest, first="ref")
        return EditCard(ref=_need(ref, "!card edit CARD | FIELD: VALUE"), raw=raw)
    if sub in {"show", "view"}:
        ref, version = _version_suffix(rest)
        return ShowCard(ref=_need(ref, "!card show CARD [vN]"), version=version)
    if sub == "history":
        return CardHistory(ref=_need(rest, "!card history CARD"))
    if sub == "submit":
        ref, _, guild = rest.partition("guild:")
        return SubmitCard(ref=_need(ref.strip(), "!card submit CARD [guild:NAME]"), guild=guild.strip() or None)
    if sub == "ask":
        ref, _, guild = rest.partition("guild:")
        if not guild.strip():
            raise CardInputError("usage: `!card ask CARD guild:NAME`")
        return AskGuild(ref=_need(ref.strip(), "!card ask CARD guild:NAME"), guild=guild.strip())
    if sub in {"protect", "unprotect"}:
        return ProtectCard(ref=_need(rest, f"!card {sub} CARD"), protect=sub == "protect")
    if sub in {"approve", "reject"}:
        head, reason = _split_colon(rest)
        ref, version = _version_suffix(head)
        usage = "!card approve CARD" if sub == "approve" else "!card reject CARD [: WHY]"
        return JudgeCard(ref=_need(ref, usage), approve=sub == "approve", version=version, reason=reason)
    if sub == "comment":
        head, comment = _split_colon(rest)
        ref, version = _version_suffix(head)
        if not comment:
            raise CardInputError("usage: `!card comment CARD: TEXT`")
        return CommentCard(ref=_need(ref, "!card comment CARD: TEXT"), text=comment, version=version)
    if sub == "mint":
        words = rest.split()
        count = 1
        if len(words) > 1 and (m := _COUNT.fullmatch(words[-1])) is not None:
            count = int(m.group(1))
            words = words[:-1]
        return MintCopies(ref=_need(" ".join(words), "!card mint CARD [xN]"), count=count)
    if sub in {"copies", "owned"}:
        return ShowCopies(member=_member(args[1], resolve) if len(args) > 1 else None)
    if sub == "decks":
        return ShowDecks()
    if sub == "deck":
        return _parse_deck(_rest(body, 3), args[1:])
    if sub in {"starter", "starters"}:
        return ClaimStarter(deck=rest) if rest else ShowStarter()
    if sub == "keywords":
        return ShowKeywords()
    if sub == "keyword":
        name, meaning = _split_colon(rest)
        if not name or not meaning:
            raise CardInputError("usage: `!card keyword NAME: WHAT IT MEANS`")
        return DefineKeyword(name=name, text=meaning)
    if sub in {"list", "library"}:
        which = rest.casefold()
        if which in {"pending", "mine", "starter"}:
            return ListCards(which="pending" if which == "pending" else "mine" if which == "mine" else "starter")
        if rest:
            return ListCards(member=_member(args[1], resolve))
        return ListCards()
    if sub == "master":
        return MasterDeck(member=_member(args[1], resolve) if len(args) > 1 else None)
    if sub == "meet":
        if len(args) != 2:
            raise CardInputError("usage: `!card meet @member`")
        return MeetMember(member=_member(args[1], resolve))
    if sub in {"exclude", "include"}:
        if len(args) < 3:
            raise CardInputError(f"usage: `!card {sub} @member CARD`")
        return Exclude(member=_member(args[1], resolve), ref=_rest(body, 3), exclude=sub == "exclude")
    if sub == "contest":
        head, why = _split_colon(rest)
        return ContestCard(ref=_need(head, "!card contest CARD [: WHY]"), text=why)
    if sub == "contests":
        return ShowContests()
    if sub == "decide":
        usage = "usage: `!card decide N uphold|dismiss [NOTE]`"
        if len(args) < 3 or not args[1].lstrip("#").isdigit() or args[2].casefold() not in _DECIDE:
            raise CardInputError(usage)
        return DecideContest(
            number=int(args[1].lstrip("#")[:9]), uphold=_DECIDE[args[2].casefold()], note=_rest(body, 4)
        )
    if sub == "options":
        return ShowOptions()
    if sub == "option":
        if len(args) < 3:
            raise CardInputError("usage: `!card option NAME VALUE`, e.g. `!card option deck_min 40`")
        return SetOption(key=args[1][:40], value=" ".join(args[2:])[:40])
    raise CardInputError(f"`!card {shown(sub)}` is not a card command; `!card help` lists them")


def _parse_deck(rest: str, args: list[str]) -> LibraryAction:
    verb = args[0].casefold() if args else "list"
    if verb == "list":
        return ShowDecks()
    if verb == "save":
        name, _, entries = rest.partition(":")
        if not name.strip() or not entries.strip():
            raise CardInputError("usage: `!card deck save NAME: CARD xN, CARD xN, copy:N ...`")
        return SaveDeck(name=name.strip(), entries=tuple(e.strip() for e in re.split(r"[,\n]", entries) if e.strip()))
    if verb == "show":
        return ShowDecks(name=_need(rest, "!card deck show NAME"))
    if verb == "delete":
        return DeleteDeck(name=_need(rest, "!card deck delete NAME"))
    raise CardInputError("usage: `!card deck save NAME: ...`, `!card deck show NAME` or `!card deck delete NAME`")


def _parse_guild(body: str, args: list[str], resolve: MemberResolver) -> LibraryAction:
    sub = args[0].casefold() if args else "list"
    rest = _rest(body, 2)
    if sub in {"list", "help"}:
        return ShowGuilds() if sub == "list" else CardHelp(topic="guild")
    if sub in {"show", "info"}:
        return ShowGuilds(name=_need(rest, "!guild show NAME"))
    if sub in {"create", "found"}:
        plain, pairs = _key_values(args[1:])
        mode = "vote"
        if plain and plain[-1].casefold() in {"vote", "committee"}:
            mode = plain.pop().casefold()
        name = " ".join(plain)
        return CreateGuild(
            name=_need(name, "!guild create NAME [vote|committee] [quorum:3] [hours:48]"), mode=mode, settings=pairs
        )
    if sub == "join":
        return JoinGuild(name=_need(rest, "!guild join NAME"))
    if sub == "leave":
        return LeaveGuild(name=_need(rest, "!guild leave NAME"))
    if sub in {"officer", "demote"}:
        if len(args) < 3:
            raise CardInputError(f"usage: `!guild {sub} NAME @member`")
        return SetOfficer(name=" ".join(args[1:-1]), member=_member(args[-1], resolve), add=sub == "officer")
    if sub == "set":
        plain, pairs = _key_values(args[1:])
        if not plain or not pairs:
            raise CardInputError("usage: `!guild set NAME quorum:3 hours:48 committee:2 mode:vote`")
        return GuildSettings(name=" ".join(plain), settings=pairs)
    raise CardInputError(f"`!guild {shown(sub)}` is not a guild command; `!card help` lists them")
