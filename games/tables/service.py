"""The tables' service: the pure table model (``lobby``) joined to the store, one guild at a time.

Every adapter ends here: the simulator and Discord's prefix commands through ``command`` (the text
path), the thread UI's buttons through ``open``/``join``/``leave``/``start``/``play``/``end`` (a
button carries the same command text ``play`` reads), the schedulers through ``due``.

An action is applied to the cached table, its log entry and the table's new state commit in one
transaction, and only then does the cache change and the answer go out. A redelivered event id
changes nothing and gets no answer. Scheduled work (reminders, timeouts) is derived from the
stored tables and applied at its own instant, so catching up after downtime applies each once.
"""

from __future__ import annotations

import asyncio
import re
import secrets
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Protocol

from games.tables import lobby
from games.tables.engine import BadCommandError, GameRuleError, NotASeatError
from games.tables.lobby import (
    ACTION_ADAPTER,
    TABLE_NAME,
    BoardShown,
    EndTable,
    JoinTable,
    LeaveTable,
    OpenTable,
    Reminder,
    SetAISeats,
    StartTable,
    Step,
    Table,
    TableAction,
    TableError,
    TableEvent,
    TableOptions,
    TableStatus,
    TimedOut,
    TurnReminder,
    TurnTimeout,
    YourTurn,
)
from games.tables.players import MemberLookup, seat_resolver
from games.tables.registry import GAMES, get_game

MAX_DUE_STEPS = 10_000
"""More reminders and timeouts than this in one catch-up means a broken clock, not downtime."""
MAX_COMMAND_LENGTH = 2000
SYSTEM = "system"

_PLAY_USAGE = "`!play GAME [ai:N] [turn:24h]`, e.g. `!play wikipedia ai:2`"
_ALIASES = {
    "tables": "games",
    "sit": "join",
    "cards": "hand",
    "table": "board",
    "endtable": "end-table",
    "end_table": "end-table",
    "abandon": "end-table",
    "commands": "help",
    "h": "help",
}
TABLE_WORDS = frozenset(
    {"join", "leave", "start", "ai", "board", "hand", "help", "rules", "end-table", "games", "play"}
)
"""Words a table's thread reads itself; any other command there is a move of the game."""
_NOMIC_RULES_WORDS = frozenset({"history", "diff"})
"""``!rules history`` and ``!rules diff`` stay the round's ruleset commands."""


# --- what the service needs of the store -----------------------------------------------------


class StoredTableLike(Protocol):
    @property
    def name(self) -> str: ...
    @property
    def thread_id(self) -> str | None: ...
    @property
    def body(self) -> str: ...


class TableStoreLike(Protocol):
    """What the service needs of persistence (``data.table_store.TableStore`` provides it)."""

    async def open_tables(self, guild: str) -> Sequence[StoredTableLike]: ...

    async def all_tables(self, guild: str) -> Sequence[StoredTableLike]: ...

    async def table(self, guild: str, key: str) -> StoredTableLike | None: ...

    async def last_number(self, guild: str, game: str) -> int: ...

    async def has_event(self, guild: str, event_id: str) -> bool: ...

    async def commit(
        self,
        guild: str,
        *,
        name: str,
        game: str,
        number: int,
        status: str,
        seed: str,
        seq: int,
        body: str,
        opened_at: datetime,
        event_id: str,
        at: datetime,
        actor: str,
        kind: str,
        action: str,
        source_line: int | None = None,
    ) -> bool: ...

    async def attach_thread(self, guild: str, name: str, thread_id: str) -> bool: ...

    async def guilds_with_open_tables(self) -> list[str]: ...


# --- values the adapters get ------------------------------------------------------------------


@dataclass(frozen=True)
class Actor:
    """Who acts: a member's id, the name they are shown by, and whether they moderate the server."""

    id: str
    name: str
    moderator: bool = False


@dataclass(frozen=True)
class TablePost:
    """One thing the service says.

    ``table`` None: in reply to the command, where it was typed (errors, ``!hand``, ``!games``, the
    ``opened`` answer to ``!play`` in its channel). ``table`` set: in that table's thread (an answer
    when the command was typed there, an announcement otherwise). The first post of a new table
    (``kind`` ``lobby``, right after the ``opened`` answer) is where the adapter creates the
    thread ``GAME-N`` and binds it with ``TableService.attach_thread``.
    """

    text: str
    table: str | None = None
    private: bool = False
    """Only the acting member sees it (ephemeral or DM): ``!hand``."""
    error: bool = False
    kind: str = "reply"
    """reply, opened, lobby, move, board, turn, reminder, timeout, end, hand, help, rules, games, error."""
    mentions: tuple[str, ...] = ()
    """Members the post is addressed to (the seat whose turn it is): the adapter may ping them."""
    at: datetime | None = None


@dataclass(frozen=True)
class TableOutcome:
    """The result of one table action: the table after it and what to post, or why nothing happened."""

    table: Table | None = None
    posts: tuple[TablePost, ...] = ()
    error: GameRuleError | None = None
    duplicate: bool = False
    events: tuple[TableEvent, ...] = field(default=())

    @property
    def accepted(self) -> bool:
        return self.error is None and not self.duplicate


def error_text(error: GameRuleError) -> str:
    return f"Can't do that: {str(error).rstrip('.')}."


def _error(error: GameRuleError) -> TableOutcome:
    return TableOutcome(error=error, posts=(TablePost(error_text(error), error=True, kind="error"),))


def _with_earlier(outcome: TableOutcome, earlier: Sequence[TablePost]) -> TableOutcome:
    """``outcome`` with the posts of the scheduled work applied just before it in front."""
    if not earlier:
        return outcome
    return TableOutcome(outcome.table, (*earlier, *outcome.posts), outcome.error, outcome.duplicate, outcome.events)


def _game_reads(table: Table, text: str) -> bool:
    """Whether the table's game reads ``text`` as one of its moves (whoever may play it)."""
    if table.board is None:
        return False
    engine = lobby.engine_of(table)
    state = lobby.game_state(table)
    seats = engine.seats(state)
    try:
        engine.parse_action(state, seats[0], text)
    except GameRuleError:
        return False
    return True


def is_table_name(key: str) -> bool:
    """Whether ``key`` is shaped like a table's thread name (``GAME-N`` for a game we host)."""
    match = TABLE_NAME.match(key.strip().lstrip("#").casefold())
    return match is not None and match.group(1) in GAMES


def _words(content: str) -> tuple[str, list[str]]:
    body = content.strip()
    body = body.removeprefix("!")
    words = body.split()
    if not words:
        raise BadCommandError("that is not a command; `!help` lists the commands")
    verb = words[0].casefold()
    return _ALIASES.get(verb, verb), words[1:]


def parse_play(args: Sequence[str]) -> tuple[str, int, int | None]:
    """``GAME [ai:N] [turn:DURATION]``: the game's name, the AI seats and the turn limit (seconds)."""
    if not args:
        raise BadCommandError(f"say which game: {_PLAY_USAGE}; the games are {', '.join(sorted(GAMES))}")
    game = get_game(args[0]).name
    ai, turn = 0, None
    for word in args[1:]:
        key, sep, value = word.casefold().replace("=", ":").partition(":")
        if not sep and key.startswith("ai") and key[2:].isdecimal():
            key, value = "ai", key[2:]
        if key == "ai" and value.isdecimal() and value.isascii() and len(value) <= 2:
            ai = int(value)
        elif key in {"turn", "timer", "time"} and value:
            turn = lobby.parse_turn_limit(value)
        else:
            shown = word if len(word) <= 20 else word[:20] + "…"
            raise BadCommandError(f"`{shown}` is not an option of `!play`; write {_PLAY_USAGE}")
    return game, ai, turn


def _moves_help(game: str) -> str:
    return re.sub(r"^`", "`!", get_game(game).commands_text(), flags=re.MULTILINE)


def thread_help(table: Table) -> str:
    engine = get_game(table.game)
    return "\n".join(
        [
            f"**{table.name}** plays {engine.title}. Commands in this thread:",
            "`!join`, `!leave` - sit down or get up (leaving a game under way hands your seat to the AI)",
            f"`!ai N` - N computer players (in the lobby; {engine.min_seats} to {engine.max_seats} seats in all)",
            "`!start` - start the game",
            "`!board` - the table as everyone sees it;  `!hand` - your cards, shown only to you",
            f"`!rules` - the rules of {engine.title}",
            "`!end-table` - moderators: abandon this table",
            "Moves, on your turn:",
            _moves_help(table.game),
        ]
    )


def games_text(tables: Sequence[Table]) -> str:
    lines = [lobby.summary_line(t) for t in tables]
    if not lines:
        lines = ["No tables are open."]
    else:
        lines.insert(0, "Open tables:")
    known = ", ".join(f"{name} ({engine.title})" for name, engine in sorted(GAMES.items()))
    lines.append(f"Games: {known}. `!play GAME [ai:N]` opens a table in a new thread; `!rules GAME` explains one.")
    return "\n".join(lines)


# --- the service ------------------------------------------------------------------------------


class TableService:
    """Tables of every guild: cached while open, loaded from the store on first use.

    ``seed`` (the simulator's ``--seed``) derives each table's seed from its guild and name, so a
    replay repeats exactly; without it every table gets a fresh ``secrets`` seed. Either way the
    seed is stored with the table. ``options`` are the defaults of new tables (e.g. the turn limit).
    """

    def __init__(self, store: TableStoreLike, *, seed: str | None = None, options: TableOptions | None = None) -> None:
        self._store = store
        self._seed = seed
        self._defaults = options or TableOptions()
        self._open: dict[str, dict[str, Table]] = {}
        self._threads: dict[str, dict[str, str]] = {}
        self._locks: dict[str, asyncio.Lock] = {}

    def _lock(self, guild: str) -> asyncio.Lock:
        return self._locks.setdefault(guild, asyncio.Lock())

    # -- reading --

    async def _guild(self, guild: str) -> dict[str, Table]:
        cached = self._open.get(guild)
        if cached is not None:
            return cached
        rows = await self._store.open_tables(guild)
        tables = {row.name: Table.model_validate_json(row.body) for row in rows}
        self._threads[guild] = {row.thread_id: row.name for row in rows if row.thread_id is not None}
        self._open[guild] = tables
        return tables

    async def find(self, guild: str, key: str) -> Table | None:
        """A table by its name (``wikipedia-1``) or its thread's id; ended tables too."""
        tables = await self._guild(guild)
        name = self._threads.get(guild, {}).get(key, key)
        if name in tables:
            return tables[name]
        row = await self._store.table(guild, key)
        return Table.model_validate_json(row.body) if row is not None else None

    async def open_tables(self, guild: str) -> list[Table]:
        """Tables in the lobby or under way, oldest first."""
        return sorted((await self._guild(guild)).values(), key=lambda t: (t.opened_at, t.name))

    async def all_tables(self, guild: str) -> list[Table]:
        """Every table the guild opened, ended ones included, oldest first."""
        await self._guild(guild)
        cached = self._open.get(guild, {})
        rows = await self._store.all_tables(guild)
        return [cached.get(row.name) or Table.model_validate_json(row.body) for row in rows]

    async def attach_thread(self, guild: str, table: str, thread_id: str) -> bool:
        """Bind a table to the Discord thread the adapter made for it (lookups by id then work)."""
        async with self._lock(guild):
            await self._guild(guild)
            if not await self._store.attach_thread(guild, table, thread_id):
                return False
            self._threads.setdefault(guild, {})[thread_id] = table
            return True

    async def thread_of(self, guild: str, table: str) -> str | None:
        """The Discord thread id bound to ``table``, if any."""
        await self._guild(guild)
        for thread, name in self._threads.get(guild, {}).items():
            if name == table:
                return thread
        row = await self._store.table(guild, table)
        return row.thread_id if row is not None else None

    async def guilds(self) -> list[str]:
        """Guilds with tables in the lobby or under way (the live scheduler's start)."""
        return await self._store.guilds_with_open_tables()

    async def board(self, guild: str, table: str, now: datetime | None = None) -> str:
        found = await self._require(guild, table)
        return lobby.board_text(found, now)

    async def hand(self, guild: str, table: str, actor: Actor) -> str:
        """The actor's private view. ``GameRuleError`` (not seated, not started) otherwise."""
        found = await self._require(guild, table)
        seat = found.seat_of(actor.id)
        if seat is None:
            raise NotASeatError("you do not play at this table")
        state = lobby.game_state(found)
        return f"**{found.name}**, your seat {seat.name}:\n" + lobby.engine_of(found).private_view(state, seat.name)

    async def legal_moves(self, guild: str, table: str, actor: Actor) -> list[str]:
        """The command texts (without ``!``) the actor may play now: what buttons and menus offer."""
        found = await self._require(guild, table)
        seat = found.seat_of(actor.id)
        if seat is None or found.status is not TableStatus.PLAYING or seat.autopilot:
            return []
        engine = lobby.engine_of(found)
        state = lobby.game_state(found)
        return [engine.format_action(state, a) for a in engine.legal_actions(state, seat.name)]

    @staticmethod
    def rules(game: str) -> str:
        """A game's rules in our own words. ``BadCommandError`` for an unknown game."""
        return get_game(game).rules_text()

    async def _require(self, guild: str, table: str) -> Table:
        found = await self.find(guild, table)
        if found is None:
            raise TableError(f"there is no table `{table[:40]}`; `!games` lists the open ones")
        return found

    # -- acting --

    async def open(
        self,
        guild: str,
        actor: Actor,
        game: str,
        *,
        at: datetime,
        event_id: str,
        ai_seats: int = 0,
        turn_seconds: int | None = None,
        game_options: str | None = None,
        source_line: int | None = None,
    ) -> TableOutcome:
        """Open a table of ``game`` with the actor seated: its thread is ``GAME-N``."""
        try:
            engine = get_game(game)
        except GameRuleError as exc:
            return _error(exc)
        options = self._defaults
        if turn_seconds is not None:
            options = options.model_copy(update={"turn_seconds": turn_seconds})
        async with self._lock(guild):
            if await self._logged(guild, event_id):
                return TableOutcome(duplicate=True)
            number = await self._store.last_number(guild, engine.name) + 1
            name = f"{engine.name}-{number}"
            seed = f"{self._seed}:{guild}:{name}" if self._seed is not None else secrets.token_hex(16)
            action = OpenTable(
                game=engine.name,
                number=number,
                seed=seed,
                member=actor.id,
                member_name=actor.name,
                ai_seats=ai_seats,
                options=options,
                game_options=game_options,
            )
            return await self._commit(
                guild, None, action, actor=actor.id, at=at, event_id=event_id, source_line=source_line
            )

    async def join(
        self, guild: str, table: str, actor: Actor, *, at: datetime, event_id: str, source_line: int | None = None
    ) -> TableOutcome:
        return await self.act(
            guild,
            table,
            JoinTable(member=actor.id, member_name=actor.name),
            actor,
            at=at,
            event_id=event_id,
            source_line=source_line,
        )

    async def leave(
        self, guild: str, table: str, actor: Actor, *, at: datetime, event_id: str, source_line: int | None = None
    ) -> TableOutcome:
        return await self.act(
            guild, table, LeaveTable(member=actor.id), actor, at=at, event_id=event_id, source_line=source_line
        )

    async def set_ai(
        self,
        guild: str,
        table: str,
        actor: Actor,
        count: int,
        *,
        at: datetime,
        event_id: str,
        source_line: int | None = None,
    ) -> TableOutcome:
        if not 0 <= count <= 20:
            return _error(BadCommandError("write `!ai N` with N from 0 to the seats the game has left"))
        action = SetAISeats(member=actor.id, count=count, moderator=actor.moderator)
        return await self.act(guild, table, action, actor, at=at, event_id=event_id, source_line=source_line)

    async def start(
        self, guild: str, table: str, actor: Actor, *, at: datetime, event_id: str, source_line: int | None = None
    ) -> TableOutcome:
        action = StartTable(member=actor.id, moderator=actor.moderator)
        return await self.act(guild, table, action, actor, at=at, event_id=event_id, source_line=source_line)

    async def play(
        self,
        guild: str,
        table: str,
        actor: Actor,
        text: str,
        *,
        at: datetime,
        event_id: str,
        source_line: int | None = None,
        members: MemberLookup | None = None,
    ) -> TableOutcome:
        """A move typed in the thread (or a button's command text): parsed by the game, checked, applied.

        ``members``: who the server's members are, to read a player named in the move
        (``games.tables.players``); None only for text the bot wrote itself (a menu choice).
        """

        def move(found: Table) -> TableAction:
            return lobby.parse_move(found, actor.id, text, seat_resolver(found, members))

        return await self._run(guild, table, move, actor, at=at, event_id=event_id, source_line=source_line)

    async def end(
        self, guild: str, table: str, actor: Actor, *, at: datetime, event_id: str, source_line: int | None = None
    ) -> TableOutcome:
        """Moderators: abandon the table."""
        action = EndTable(member=actor.id, moderator=actor.moderator)
        return await self.act(guild, table, action, actor, at=at, event_id=event_id, source_line=source_line)

    async def act(
        self,
        guild: str,
        table: str,
        action: TableAction,
        actor: Actor,
        *,
        at: datetime,
        event_id: str,
        source_line: int | None = None,
    ) -> TableOutcome:
        """Apply one lobby action to the table called (or threaded as) ``table``."""
        return await self._run(
            guild, table, lambda _found: action, actor, at=at, event_id=event_id, source_line=source_line
        )

    async def _run(
        self,
        guild: str,
        table: str,
        build: Callable[[Table], TableAction],
        actor: Actor,
        *,
        at: datetime,
        event_id: str,
        source_line: int | None,
    ) -> TableOutcome:
        """The one path of every table action: dedupe, catch up the table's timers, build, commit."""
        async with self._lock(guild):
            if await self._logged(guild, event_id):
                return TableOutcome(duplicate=True)
            found = await self.find(guild, table)
            if found is None:
                return _error(TableError(f"there is no table `{table[:40]}`"))
            earlier = await self._catch_up_locked(guild, found.name, at)
            found = (await self._guild(guild)).get(found.name, found)
            try:
                action = build(found)
            except GameRuleError as exc:
                failed = _error(exc)
                return _with_earlier(TableOutcome(table=found, posts=failed.posts, error=exc), earlier)
            outcome = await self._commit(
                guild, found, action, actor=actor.id, at=at, event_id=event_id, source_line=source_line
            )
            return _with_earlier(outcome, earlier)

    async def _logged(self, guild: str, event_id: str) -> bool:
        return bool(event_id) and await self._store.has_event(guild, event_id)

    async def _commit(
        self,
        guild: str,
        table: Table | None,
        action: TableAction,
        *,
        actor: str,
        at: datetime,
        event_id: str,
        source_line: int | None,
    ) -> TableOutcome:
        seq = 1 if table is None else table.seq + 1
        seed = action.seed if isinstance(action, OpenTable) else table.seed if table is not None else ""
        try:
            step = lobby.apply(table, action, at, lobby.action_rng(seed, seq))
        except GameRuleError as exc:
            failed = _error(exc)
            return TableOutcome(table=table, posts=failed.posts, error=exc)
        new = step.table
        stored = await self._store.commit(
            guild,
            name=new.name,
            game=new.game,
            number=new.number,
            status=new.status.value,
            seed=new.seed,
            seq=new.seq,
            body=new.model_dump_json(),
            opened_at=new.opened_at,
            event_id=event_id or f"{new.name}:{new.seq}",
            at=at,
            actor=actor,
            kind=action.kind,
            action=ACTION_ADAPTER.dump_json(action).decode(),
            source_line=source_line,
        )
        if not stored:
            return TableOutcome(table=table, duplicate=True)
        tables = await self._guild(guild)
        if new.status.open:
            tables[new.name] = new
        else:
            tables.pop(new.name, None)
        posts = self._posts(new, step, at, opened=isinstance(action, OpenTable))
        return TableOutcome(table=new, posts=tuple(posts), events=step.events)

    @staticmethod
    def _posts(table: Table, step: Step, at: datetime, *, opened: bool) -> list[TablePost]:
        """Events as thread posts: text runs joined into one post, each board a post of its own."""
        posts: list[TablePost] = []
        if opened:
            engine = get_game(table.game)
            posts.append(
                TablePost(
                    f"Opened **{table.name}** ({engine.title}); the game happens in its thread."
                    f" `!join` there to sit down.",
                    kind="opened",
                    at=at,
                )
            )
        lines: list[str] = []
        kind = ""
        mentions: list[str] = []

        def flush() -> None:
            if lines:
                posts.append(TablePost("\n".join(lines), table=table.name, kind=kind, mentions=tuple(mentions), at=at))
            lines.clear()
            mentions.clear()

        for event in step.events:
            if isinstance(event, BoardShown):
                flush()
                posts.append(TablePost(event.text(), table=table.name, kind="board", at=at))
                continue
            if not lines:
                kind = event.kind
            lines.append(event.text())
            if isinstance(event, YourTurn | Reminder | TimedOut) and event.member not in mentions:
                mentions.append(event.member)
        flush()
        return posts

    # -- scheduled work --

    async def next_due(self, guild: str) -> datetime | None:
        """The instant of the guild's next reminder or timeout, if any table has one."""
        due = [d[0] for t in (await self._guild(guild)).values() if (d := lobby.next_due(t)) is not None]
        return min(due) if due else None

    async def due(self, guild: str, now: datetime) -> list[TablePost]:
        """Apply every reminder and timeout due by ``now``, in time order, each once; their posts."""
        async with self._lock(guild):
            return await self._catch_up_locked(guild, None, now)

    async def _catch_up_locked(self, guild: str, only: str | None, now: datetime) -> list[TablePost]:
        posts: list[TablePost] = []
        for _ in range(MAX_DUE_STEPS):
            tables = await self._guild(guild)
            pending = sorted(
                (d[0], t.name, d[1])
                for t in tables.values()
                if (only is None or t.name == only) and (d := lobby.next_due(t)) is not None and d[0] <= now
            )
            if not pending:
                break
            at, name, kind = pending[0]
            action: TableAction = TurnReminder() if kind == "remind" else TurnTimeout()
            event_id = f"due:{name}:{kind}:{at.isoformat()}"
            outcome = await self._commit(
                guild, tables[name], action, actor=SYSTEM, at=at, event_id=event_id, source_line=None
            )
            if not outcome.accepted:
                break
            posts.extend(outcome.posts)
        return posts

    # -- the text path --

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
    ) -> list[TablePost] | None:
        """A command message; None when it is not the tables' (the round answers it instead).

        ``thread``: the channel the message was typed in when it may be a table's thread (its name,
        or the Discord thread's id). In a table's thread every command is the table's, except a word
        in ``defer`` that the game cannot read (the round's questions, such as ``!inventory``).
        Outside threads the tables answer ``!play``, ``!games`` and ``!rules GAME``. ``members``
        reads players named in a move (see ``play``).
        """
        if len(content) > MAX_COMMAND_LENGTH:
            return [TablePost(error_text(BadCommandError("that message is too long for a command")), error=True)]
        try:
            verb, args = _words(content)
        except GameRuleError as exc:
            return [TablePost(error_text(exc), error=True, kind="error")] if thread is not None else None
        table = await self.find(guild, thread) if thread is not None else None
        if table is None:
            if thread is not None and is_table_name(thread):
                return [TablePost(f"There is no such table as {thread}; `!games` lists the open ones.", error=True)]
            return await self._outside(guild, actor, verb, args, at=at, event_id=event_id, source_line=source_line)
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
            )
        except GameRuleError as exc:
            return [TablePost(error_text(exc), error=True, kind="error")]

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
    ) -> list[TablePost] | None:
        try:
            if verb == "play":
                game, ai, turn = parse_play(args)
                outcome = await self.open(
                    guild,
                    actor,
                    game,
                    at=at,
                    event_id=event_id,
                    ai_seats=ai,
                    turn_seconds=turn,
                    source_line=source_line,
                )
                return list(outcome.posts)
            if verb == "games":
                return [TablePost(games_text(await self.open_tables(guild)), kind="games")]
            if verb == "rules" and args and args[0].casefold() not in _NOMIC_RULES_WORDS:
                return [TablePost(self.rules(args[0]), kind="rules")]
        except GameRuleError as exc:
            return [TablePost(error_text(exc), error=True, kind="error")]
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
    ) -> list[TablePost] | None:
        name = table.name
        common: dict[str, Any] = {"at": at, "event_id": event_id, "source_line": source_line}
        if verb == "play":
            raise TableError("open a new table from a channel, not inside a table's thread")
        if verb in TABLE_WORDS and verb not in {"ai", "rules", "help"} and args:
            raise BadCommandError(f"`!{verb}` takes no arguments here")
        outcome: TableOutcome
        if verb == "join":
            outcome = await self.join(guild, name, actor, **common)
        elif verb == "leave":
            outcome = await self.leave(guild, name, actor, **common)
        elif verb == "start":
            outcome = await self.start(guild, name, actor, **common)
        elif verb == "end-table":
            outcome = await self.end(guild, name, actor, **common)
        elif verb == "ai":
            if len(args) != 1 or not args[0].isdecimal() or not args[0].isascii() or len(args[0]) > 2:
                raise BadCommandError("write `!ai N`, e.g. `!ai 2` for two computer players")
            outcome = await self.set_ai(guild, name, actor, int(args[0]), **common)
        elif verb == "board":
            return [TablePost(await self.board(guild, name, at), table=name, kind="board")]
        elif verb == "hand":
            try:
                text = await self.hand(guild, name, actor)
            except GameRuleError as exc:
                return [TablePost(error_text(exc), private=True, error=True, kind="error")]
            return [TablePost(text, private=True, kind="hand")]
        elif verb == "help":
            return [TablePost(thread_help(table), kind="help")]
        elif verb == "rules":
            return [TablePost(self.rules(args[0] if args else table.game), kind="rules")]
        elif verb == "games":
            return [TablePost(games_text(await self.open_tables(guild)), kind="games")]
        else:
            if verb in defer and not _game_reads(table, content):
                return None
            outcome = await self.play(guild, name, actor, content, members=members, **common)
        if outcome.duplicate:
            return []
        return list(outcome.posts)
