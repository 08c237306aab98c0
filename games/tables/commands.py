"""The tables' text path: a command's words to a service call, in a thread, a channel or a DM.

In a table's thread every command is the table's (``!join``, ``!start``, the game's moves...),
except a round's question the game cannot read. Outside threads the tables answer ``!play``,
``!games`` and ``!rules GAME``. In a DM to the bot, the first word names the table
(``!ballot-1 vote A`` or ``ballot-1 !vote A``); a member who sits at one open table only may leave
it out. Answers to a DM are private; what the move does is posted in the table's thread as usual.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Sequence
from datetime import datetime
from typing import Any

from games.tables import lobby
from games.tables.acting import Acting, SecretInOpenError
from games.tables.core import Actor, TableOutcome, error_text, refusal
from games.tables.engine import BadCommandError, GameRuleError
from games.tables.i18n import DEFAULT, LANGUAGES, normalise, tr
from games.tables.model import Table, TableError, TableStatus
from games.tables.options import PlayRequest, parse_play, parse_setup
from games.tables.players import MemberLookup
from games.tables.posts import TablePost
from games.tables.registry import GAMES, get_game
from games.tables.text import framework_error
from games.tables.values import typed_fields
from games.tables.words import ALIASES, MAX_COMMAND_LENGTH, TABLE_WORDS, answers_outside, is_table_name

_NOMIC_RULES_WORDS = frozenset({"history", "diff"})
"""``!rules history`` and ``!rules diff`` stay the round's ruleset commands."""
__all__ = [
    "TABLE_WORDS",
    "CommandPath",
    "PlayRequest",
    "answers_outside",
    "games_text",
    "is_table_name",
    "parse_play",
    "thread_help",
]


def _game_reads(table: Table, text: str, member: str | None = None) -> bool:
    """Whether the table's game reads ``text`` as one of its moves, as ``member``'s seat; as nobody's (seeing only
    what everyone sees) for a member with no seat or none given, so the answer tells nothing of a seat's hand."""
    if table.board is None:
        return False
    engine = lobby.engine_of(table)
    state = lobby.game_state(table)
    seat = table.seat_of(member) if member is not None else None
    try:
        engine.parse_action(state, seat.name if seat is not None else "", text)
    except GameRuleError:
        return False
    return True


def _words(content: str) -> tuple[str, list[str]]:
    body = content.strip()
    body = body.removeprefix("!")
    words = body.split()
    if not words:
        raise framework_error(BadCommandError, "error.not_a_command")
    verb = words[0].casefold()
    return ALIASES.get(verb, verb), words[1:]


def _moves_help(game: str, lang: str) -> str:
    return re.sub(r"^`", "`!", get_game(game).commands_text(lang), flags=re.MULTILINE)


def thread_help(table: Table) -> str:
    """``!help`` in a table's thread, in the table's language."""
    engine = get_game(table.game)
    lang, title = table.lang, engine.title
    lines = [tr(lang, "help.head", table=table.name, title=title), tr(lang, "help.seats")]
    if engine.setup_model is not None:
        fields = " ".join(f"{key}:…" for key in typed_fields(engine.setup_model))
        lines.append(tr(lang, "help.brings", fields=fields, title=title))
    lines += [
        tr(lang, "help.ai", min=engine.min_seats, max=engine.max_seats),
        tr(lang, "help.start"),
        tr(lang, "help.views", private=engine.private_words(lang).name),
        tr(lang, "help.rules", title=title),
        tr(lang, "help.end"),
        tr(lang, "help.secret", table=table.name),
        tr(lang, "help.moves"),
        _moves_help(table.game, lang),
    ]
    return "\n".join(lines)


def games_text(tables: Sequence[Table], lang: str = "en") -> str:
    """``!games``: the open tables (each in its own language), then the games there are, in ``lang``."""
    lines = [lobby.summary_line(t) for t in tables]
    if not lines:
        lines = [tr(lang, "games.none")]
    else:
        lines.insert(0, tr(lang, "games.open"))
    known = tr(lang, "list.separator").join(
        tr(lang, "games.entry", name=name, title=engine.title) for name, engine in sorted(GAMES.items())
    )
    lines.append(tr(lang, "games.known", games=known))
    return "\n".join(lines)


def _private(posts: list[TablePost]) -> list[TablePost]:
    """Answers to a DM stay in the DM: every reply becomes private (thread posts keep their thread)."""
    return [
        TablePost(p.text, None, private=True, error=p.error, kind=p.kind, at=p.at, to=p.to, lang=p.lang)
        if p.table is None or p.private or p.error
        else p
        for p in posts
    ]


def _answers(post: TablePost, member: str) -> bool:
    """Whether ``post`` reaches ``member`` as an answer: what other members alone are told (a card the
    computer hands them as the command starts the game) is not."""
    if post.to:
        return member in post.to
    return post.private or post.error or post.table is None


class CommandPath(Acting):
    """The text commands of the tables, on top of the service's calls."""

    async def command(
        self,
        guild: str,
        actor: Actor,
        content: str,
        *,
        at: datetime,
        event_id: str,
        thread: str | None = None,
        source_line: int | None = None,
        defer: Collection[str] = (),
        members: MemberLookup | None = None,
        private: bool = False,
        dm: bool = False,
        reader: str | None = None,
    ) -> list[TablePost] | None:
        """A command message; None when it is not the tables' (the round answers it instead).

        ``thread``: the channel the message was typed in when it may be a table's thread (its name,
        or the Discord thread's id). In a table's thread every command is the table's, except a word
        in ``defer`` that the game cannot read (the round's questions, such as ``!inventory``).
        Outside threads the tables answer ``!play``, ``!games`` and ``!rules GAME``. ``members``
        reads players named in a move (see ``play``). ``private``: only the member saw the command
        (a slash command, a button, a menu): secret moves are accepted. ``dm``: a DM to the bot,
        which names its table first (see the module's note); every answer is private. ``reader``: the
        language of the member's own client (a slash command's), which answers outside a table speak
        (``!games``, ``!rules GAME``, a refused ``!play``) when no ``lang:`` word asks for another.
        """
        if len(content) > MAX_COMMAND_LENGTH:
            lang = await self._language_at(guild, None if dm else thread)
            return [TablePost(error_text(framework_error(BadCommandError, "error.too_long"), lang), error=True)]
        if dm:
            return _private(
                await self._dm(
                    guild, actor, content, at=at, event_id=event_id, source_line=source_line, members=members
                )
            )
        try:
            verb, args = _words(content)
        except GameRuleError as exc:
            if thread is None:
                return None
            return [TablePost(error_text(exc, await self._language_at(guild, thread)), error=True, kind="error")]
        table = await self.find(guild, thread) if thread is not None else None
        if table is None:
            if thread is not None and is_table_name(thread):
                said = tr(_game_language(thread.rpartition("-")[0]), "error.no_such_table", table=thread)
                return [TablePost(said, error=True)]
            return await self._outside(
                guild,
                actor,
                verb,
                args,
                at=at,
                event_id=event_id,
                source_line=source_line,
                private=private,
                reader=reader,
            )
        try:
            return await self._in_thread(
                guild,
                table,
                actor,
                verb=verb,
                args=args,
                content=content,
                at=at,
                event_id=event_id,
                source_line=source_line,
                defer=defer,
                members=members,
                private=private,
            )
        except GameRuleError as exc:
            return [refusal(exc, table.lang, actor.id)]

    def _rules_post(self, game: str, lang: str | None) -> TablePost:
        """A game's rules in ``lang`` when the game has it, else in the game's own language."""
        languages = get_game(game).languages
        said = lang if lang in languages else languages[0]
        return TablePost(self.rules(game, said), kind="rules", lang=said)

    async def screen(self, guild: str, content: str, *, thread: str, at: datetime) -> list[TablePost] | None:
        """Text in a table's thread that is no command but starts with a secret move's word (``vote P04``,
        ``/give P12 @bob``) while the game is played: refused privately (kind ``secret``, so the adapter
        removes it), as the same move typed with ``!`` is. None: ordinary talk, left alone."""
        table = await self.find(guild, thread)
        if table is None or table.status is not TableStatus.PLAYING or not lobby.is_secret_text(table, content):
            return None
        why = SecretInOpenError(tr(table.lang, "secret.refused", table=table.name))
        return [TablePost(error_text(why, table.lang), private=True, error=True, kind="secret", at=at)]

    async def _language_at(self, guild: str, thread: str | None) -> str:
        """The language of the table whose thread ``thread`` is; English when it is none."""
        table = await self.find(guild, thread) if thread is not None else None
        return table.lang if table is not None else DEFAULT

    async def _dm(
        self,
        guild: str,
        actor: Actor,
        content: str,
        *,
        at: datetime,
        event_id: str,
        source_line: int | None,
        members: MemberLookup | None,
    ) -> list[TablePost]:
        words = content.strip().split()
        first = words[0].removeprefix("!").casefold() if words else ""
        mine = [t for t in await self.open_tables(guild) if t.seat_of(actor.id) is not None]
        lang = mine[0].lang if mine else DEFAULT
        if is_table_name(first):
            table = next((t for t in mine if t.name == first), None)
            if table is None:
                # said in the language of the table named (ended, or not theirs), else of one of theirs
                named = await self.find(guild, first)
                said = named.lang if named is not None else lang if mine else _game_language(first.rpartition("-")[0])
                return [TablePost(tr(said, "dm.unknown_table", table=first[:40]), error=True, kind="error")]
            rest = " ".join(words[1:])
        elif len(mine) == 1:
            table, rest = mine[0], content
        elif not mine:
            return [TablePost(tr(lang, "dm.no_table"), error=True, kind="error")]
        else:
            names = ", ".join(t.name for t in mine)
            return [TablePost(tr(lang, "dm.which_table", example=mine[0].name, tables=names), error=True, kind="error")]
        text = rest if rest.startswith("!") else "!" + rest
        try:
            verb, args = _words(text)
            if verb == "board":
                return [TablePost(await self.board(guild, table.name, at), private=True, kind="board")]
            posts = (
                await self._in_thread(
                    guild,
                    table,
                    actor,
                    verb=verb,
                    args=args,
                    content=text,
                    at=at,
                    event_id=event_id,
                    source_line=source_line,
                    defer=(),
                    members=members,
                    private=True,
                )
                or []
            )
        except GameRuleError as exc:
            return [refusal(exc, table.lang, actor.id)]
        if posts and not any(_answers(p, actor.id) for p in posts):
            # the thread shows what happened; the DM itself still gets its answer, privately
            shown = text.strip() if len(text.strip()) <= 60 else text.strip()[:60] + "…"
            posts.append(TablePost(tr(table.lang, "dm.done", table=table.name, command=shown), private=True))
        return posts

    async def _outside(
        self,
        guild: str,
        actor: Actor,
        verb: str,
        args: list[str],
        *,
        at: datetime,
        event_id: str,
        source_line: int | None,
        private: bool = False,
        reader: str | None = None,
    ) -> list[TablePost] | None:
        asked = _lang_word(args[1:] if verb == "rules" else args)
        if verb == "play" and asked not in _languages_of(args[0] if args else ""):
            asked = None  # a language the game does not speak is refused, in one it does
        answer = asked or (reader if reader in LANGUAGES else None)
        try:
            if verb == "play":
                request = parse_play(args)
                outcome = await self.open(
                    guild,
                    actor,
                    request.game,
                    at=at,
                    event_id=event_id,
                    ai_seats=request.ai,
                    turn_seconds=request.turn,
                    game_options=request.game_options,
                    lang=request.lang,
                    setup=request.setup,
                    lobby_hours=request.lobby_hours,
                    source_line=source_line,
                    private=private,
                )
                if outcome.error is not None and answer is not None and all(p.kind == "error" for p in outcome.posts):
                    # refused before the table exists: in the language its member reads
                    return [TablePost(error_text(outcome.error, answer), error=True, kind="error")]
                return list(outcome.posts)
            if verb == "games":
                lang = answer or DEFAULT
                return [TablePost(games_text(await self.open_tables(guild), lang), kind="games", lang=lang)]
            if verb == "rules" and args and args[0].casefold() not in _NOMIC_RULES_WORDS:
                return [self._rules_post(args[0], answer)]
        except GameRuleError as exc:
            game = args[0] if verb == "play" and args else ""
            return [TablePost(error_text(exc, answer or _game_language(game)), error=True, kind="error")]
        return None

    async def _in_thread(
        self,
        guild: str,
        table: Table,
        actor: Actor,
        *,
        verb: str,
        args: list[str],
        content: str,
        at: datetime,
        event_id: str,
        source_line: int | None,
        defer: Collection[str],
        members: MemberLookup | None,
        private: bool = False,
    ) -> list[TablePost] | None:
        name = table.name
        common: dict[str, Any] = {"at": at, "event_id": event_id, "source_line": source_line}
        lang = table.lang
        if verb == "play" and not _game_reads(table, content, actor.id):
            # a game whose move is called `play` gets it; otherwise `!play` opens tables, and not from here
            raise TableError(tr(lang, "error.play_in_thread"))
        if verb in TABLE_WORDS and verb not in {"ai", "rules", "help", "join", "games", "play"} and args:
            raise BadCommandError(tr(lang, "error.no_arguments", verb=verb))
        outcome: TableOutcome
        if verb == "join":
            setup = parse_setup(lobby.engine_of(table), args, lang)
            outcome = await self.join(guild, name, actor, setup=setup, private=private, **common)
        elif verb == "leave":
            outcome = await self.leave(guild, name, actor, **common)
        elif verb == "start":
            outcome = await self.start(guild, name, actor, **common)
        elif verb == "end-table":
            outcome = await self.end(guild, name, actor, **common)
        elif verb == "ai":
            if len(args) != 1 or not args[0].isdecimal() or not args[0].isascii() or len(args[0]) > 2:
                raise BadCommandError(tr(lang, "error.ai_usage"))
            outcome = await self.set_ai(guild, name, actor, int(args[0]), **common)
        elif verb == "board":
            return [TablePost(await self.board(guild, name, at), table=name, kind="board")]
        elif verb == "hand":
            try:
                text = await self.hand(guild, name, actor)
            except GameRuleError as exc:
                return [TablePost(error_text(exc, lang), private=True, error=True, kind="error")]
            return [TablePost(text, private=True, kind="hand")]
        elif verb == "help":
            return [TablePost(thread_help(table), kind="help", lang=lang)]
        elif verb == "rules":
            return [self._rules_post(args[0] if args else table.game, lang)]
        elif verb == "games":
            lang = _lang_word(args) or table.lang
            return [TablePost(games_text(await self.open_tables(guild), lang), kind="games", lang=lang)]
        else:
            if verb in defer and not _game_reads(table, content):
                return None
            outcome = await self.play(guild, name, actor, content, members=members, private=private, **common)
        if outcome.duplicate:
            return []
        return list(outcome.posts)


def _languages_of(game: str) -> tuple[str, ...]:
    """The languages a game's tables speak (none for a name that is no game)."""
    try:
        return tuple(get_game(game).languages)
    except GameRuleError:
        return ()


def _game_language(game: str) -> str:
    """The language a table of ``game`` speaks unless asked for another (its first); English for no game."""
    return next(iter(_languages_of(game)), DEFAULT)


def _lang_word(words: list[str]) -> str | None:
    """The language a ``lang:zh-TW`` word among ``words`` asks for (None: none, or not one we have)."""
    for word in words:
        key, _, value = word.replace("=", ":").partition(":")
        if key.casefold() in {"lang", "language"} and value:
            return normalise(value)
    return None
