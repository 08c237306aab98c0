"""The card library's service: the rules plus the store, one guild at a time.

An action is checked and applied to the cached library; the values it changed, the library's row
and its log row commit in one transaction, and only then does the cache change and the answer go
out. The log's key is the source event id, so a redelivered message or click changes nothing. A
guild's vote deadline is scheduled work: ``next_due`` names it and ``due`` applies it, each once,
whenever it is caught up.

A trade of the round that moves card copies is settled in the round's transaction: under the
library's lock, ``join_moves`` checks the copies and hands the round's store the library's part
of the trade (``JoinedWrite``); the cache takes the new owners when that transaction commits.
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Callable, Mapping, Sequence
from datetime import datetime
from functools import cache
from typing import TYPE_CHECKING, Any, Protocol

from pydantic import BaseModel, create_model

from data.group_commit import Stale
from games.nomic.context import SYSTEM, ChannelRole, Context
from games.nomic.errors import ConflictError, RuleError
from games.values import valueclass

if TYPE_CHECKING:
    from games.ictc.actions import CopyMove, LibraryAction
    from games.ictc.events import Note
    from games.ictc.state import Design, LibraryState

# The library's rules are loaded on first use: a process whose guilds have no library of their own (a
# replay of a round without card activity) never loads them.

MAX_DUE_STEPS = 10_000
MAX_REAPPLY = 5
"""Times an action is applied again on the library read again after its commit met rows another
process wrote, before it is refused."""
CHANGED_MEANWHILE = "the card library changed meanwhile; nothing was done, try again"
log = logging.getLogger(__name__)


# --- what the service needs of the store ----------------------------------------------------------


class StoredLibraryLike(Protocol):
    @property
    def seq(self) -> int: ...
    @property
    def meta(self) -> str: ...
    @property
    def rows(self) -> Mapping[str, Sequence[tuple[str, str]]]: ...


class LibraryStoreLike(Protocol):
    """What the service needs of persistence (``data.library_store.LibraryStore`` provides it)."""

    async def load(self, guild: str) -> StoredLibraryLike | None: ...

    async def has_event(self, guild: str, event_id: str) -> bool: ...

    async def commit(self, guild: str, changes: Any, entry: Any) -> bool: ...

    def joined(
        self,
        guild: str,
        changes: Any,
        entry: Any,
        on_commit: Callable[[], None],
        notes: tuple[str, ...] = (),
        *,
        on_fail: Callable[[], None] | None = None,
    ) -> Any: ...

    def changes(self, **fields: Any) -> Any:
        """The store's value for what one action changes (``seq``, ``previous_seq``, ``meta``, ``rows``...)."""

    def row(self, **fields: Any) -> Any:
        """The store's value for one changed row (``collection``, ``key``, ``body``, ``owner``...)."""

    def entry(self, **fields: Any) -> Any:
        """The store's value for one log row (``event_id``, ``at``, ``actor``, ``kind``, ``body``...)."""


# --- values the adapters get ----------------------------------------------------------------------


@valueclass
class LibraryOutcome:
    notes: tuple[Note, ...] = ()
    error: RuleError | None = None
    duplicate: bool = False
    private: bool = False
    """The refusal goes to the member alone: it is about their own draft, or something only they see."""

    @property
    def accepted(self) -> bool:
        return self.error is None and not self.duplicate


def _model_of(collection: str) -> type[BaseModel]:
    from games.ictc.state import LibraryState

    field = LibraryState.model_fields[collection]
    args: tuple[Any, ...] = getattr(field.annotation, "__args__", ())
    model = args[-1] if len(args) == 2 else None
    if not isinstance(model, type) or not issubclass(model, BaseModel):
        raise TypeError(f"{collection} is not a collection of models")
    return model


@cache
def _models() -> dict[str, type[BaseModel]]:
    from games.ictc.state import COLLECTIONS

    return {name: _model_of(name) for name in COLLECTIONS}


_INT_KEYS = frozenset({"designs", "copies", "contests", "challenges"})


def state_from_rows(meta: str, rows: Mapping[str, Sequence[tuple[str, str]]]) -> LibraryState:
    """The library a store holds: its row and one row per value."""
    from games.ictc.state import COLLECTIONS, LibraryState, Meta

    data: dict[str, Any] = {"meta": Meta.model_validate_json(meta)}
    for name in COLLECTIONS:
        model = _models()[name]
        values: dict[Any, Any] = {}
        for key, body in rows.get(name, ()):
            values[int(key) if name in _INT_KEYS else key] = model.model_validate_json(body)
        data[name] = values
    return LibraryState(**data)


@cache
def _logged() -> type[BaseModel]:
    """A library action's log row body, as ``LibraryService`` writes it."""
    from games.ictc.actions import LibraryAction

    return create_model("Logged", ctx=(Context, ...), action=(LibraryAction, ...))


def read_logged(body: str) -> LibraryAction:
    """A logged library action's body read back (``ValidationError`` when it is none)."""
    action: LibraryAction = getattr(_logged().model_validate_json(body), "action")  # noqa: B009 (a model made here)
    return action


def changed_rows(
    old: LibraryState | None, new: LibraryState, factory: LibraryStoreLike
) -> tuple[list[Any], list[tuple[str, str]]]:
    """The rows to write (values that are not the very objects ``old`` held) and the keys gone."""
    from games.ictc.state import COLLECTIONS

    rows: list[Any] = []
    deleted: list[tuple[str, str]] = []
    for name in COLLECTIONS:
        before: Mapping[Any, Any] = getattr(old, name) if old is not None else {}
        after: Mapping[Any, Any] = getattr(new, name)
        if before is after:
            continue
        for key, value in after.items():
            earlier = before.get(key)
            if earlier is value:
                continue
            owner = getattr(value, "owner", None) if name == "copies" else None
            expect = getattr(earlier, "owner", None) if name == "copies" and earlier is not None else None
            rows.append(
                factory.row(
                    collection=name,
                    key=str(key),
                    body=value.model_dump_json(),
                    owner=owner,
                    expect_owner=expect,
                    new=earlier is None,
                )
            )
        deleted.extend((name, str(key)) for key in before if key not in after)
    return rows, deleted


class LibraryService:
    """Card libraries of every guild: cached once read; a guild without one starts with the starter set."""

    def __init__(self, store: LibraryStoreLike, *, check_starter: bool = True) -> None:
        """``check_starter``: read and check the starter set now, so that a broken starter file stops the bot
        at start, not mid-command (a replay leaves it to the first guild that uses its library)."""
        if check_starter:
            from games.ictc.starter import starter_set

            starter_set()
        self._store = store
        self._states: dict[str, LibraryState] = {}
        self._stored: dict[str, bool] = {}
        """Whether the guild's library has its row in the store yet (the first commit creates it)."""
        self._none_stored: set[str] = set()
        """Guilds whose store was read and held no library: the starter one, not built before it is used."""
        self._reviews: dict[str, tuple[LibraryState, tuple[datetime, int, int] | None]] = {}
        """Each guild's next guild vote to count, with the library it was found in: the scheduler asks
        before every command, and only a new library (a card action) can change the answer."""
        self._locks: dict[str, asyncio.Lock] = {}

    def lock(self, guild: str) -> asyncio.Lock:
        """The guild's lock: held by every write, and by a trade of the round moving copies."""
        return self._locks.setdefault(guild, asyncio.Lock())

    async def state(self, guild: str) -> LibraryState:
        cached = self._states.get(guild)
        if cached is not None:
            return cached
        async with self.lock(guild):
            return await self._load(guild)

    async def _load(self, guild: str) -> LibraryState:
        cached = self._states.get(guild)
        if cached is not None:
            return cached
        stored = None if guild in self._none_stored else await self._store.load(guild)
        if stored is None:
            from games.ictc.starter import initial_state

            state = initial_state()
        else:
            state = state_from_rows(stored.meta, stored.rows)
        self._states[guild] = state
        self._stored[guild] = stored is not None
        return state

    async def logged(self, guild: str, event_id: str) -> bool:
        """Whether the library's log holds an action of ``event_id``."""
        return bool(event_id) and await self._store.has_event(guild, event_id)

    def forget(self, guild: str) -> None:
        self._states.pop(guild, None)
        self._none_stored.discard(guild)
        self._stored.pop(guild, None)
        self._reviews.pop(guild, None)

    async def design(self, guild: str, number: int) -> Design | None:
        return (await self.state(guild)).designs.get(number)

    # -- commands --

    async def command(
        self,
        guild: str,
        ctx: Context,
        text: str,
        resolve: Callable[[str], str],
        *,
        source_line: int | None = None,
    ) -> LibraryOutcome:
        """A ``!card`` or ``!guild`` command's text: read, then answered or carried out."""
        from games.ictc import engine
        from games.ictc.commands import parse_library

        try:
            action = parse_library(text, resolve)
        except RuleError as exc:
            return LibraryOutcome(error=exc)
        if not action.changes_state:
            state = await self.state(guild)
            try:
                return LibraryOutcome(notes=tuple(engine.query(state, ctx, action)))
            except RuleError as exc:
                return LibraryOutcome(error=exc, private=engine.refused_privately(state, ctx, action))
        return await self.act(guild, ctx, action, source_line=source_line)

    async def act(
        self, guild: str, ctx: Context, action: LibraryAction, *, source_line: int | None = None
    ) -> LibraryOutcome:
        """Check, apply, log and commit one action; then answer. When the commit meets a library another
        process changed since it was read here (``Stale``), the action is applied again on the library
        read again (refused, nothing done, after ``MAX_REAPPLY`` tries)."""
        from games.ictc import engine

        async with self.lock(guild):
            for _ in range(MAX_REAPPLY):
                if ctx.event_id and await self._store.has_event(guild, ctx.event_id):
                    return LibraryOutcome(duplicate=True)
                state = await self._load(guild)
                try:
                    step = engine.apply(state, ctx, action)
                except RuleError as exc:
                    return LibraryOutcome(error=exc, private=engine.refused_privately(state, ctx, action))
                if step.state is state:
                    return LibraryOutcome(notes=step.notes)
                try:
                    stored = await self._store.commit(
                        guild, *self._changes(guild, state, step.state, ctx, action, source_line=source_line)
                    )
                except Stale as exc:
                    log.warning("guild %s: %s; applying the action again on what is stored now", guild, exc)
                    self.forget(guild)
                    continue
                if not stored:
                    return LibraryOutcome(duplicate=True)
                self._states[guild] = step.state
                self._stored[guild] = True
                return LibraryOutcome(notes=step.notes)
        return LibraryOutcome(error=ConflictError(CHANGED_MEANWHILE))

    def _changes(
        self,
        guild: str,
        old: LibraryState,
        new: LibraryState,
        ctx: Context,
        action: LibraryAction,
        *,
        source_line: int | None = None,
        event_id: str | None = None,
    ) -> tuple[Any, Any]:
        first = not self._stored.get(guild, False)
        rows, deleted = changed_rows(None if first else old, new, self._store)
        changes = self._store.changes(
            seq=new.meta.seq,
            previous_seq=old.meta.seq,
            meta=new.meta.model_dump_json(),
            rows=rows,
            deleted=deleted,
            first=first,
        )
        from games.ictc.actions import ACTION_ADAPTER

        body = json.dumps(
            {"ctx": json.loads(ctx.model_dump_json()), "action": json.loads(ACTION_ADAPTER.dump_json(action))}
        )
        entry = self._store.entry(
            event_id=event_id or ctx.event_id or f"seq:{new.meta.seq}",
            at=ctx.at,
            actor=ctx.actor,
            kind=action.kind,
            body=body,
            source_line=source_line,
        )
        return changes, entry

    # -- copies in the round's trades --

    async def check_copies(self, guild: str, owned: Mapping[str, Sequence[int]]) -> None:
        """Each member holds the copies listed for them (``RuleError`` naming the first that is not)."""
        from games.ictc import copies
        from games.ictc.actions import CopyMove, MoveCopies

        state = await self.state(guild)
        moves = tuple(CopyMove(copy_id=c, giver=who, taker=who) for who, ids in owned.items() for c in ids)
        copies.check_moves(state, MoveCopies(moves=moves))

    async def copy_counts(self, guild: str, member: str) -> dict[str, int]:
        """The member's card copies, how many of each card (the round's ``!inventory`` shows them); none while
        the library is the starter set alone (it holds designs, no copies)."""
        library = await self.own_library(guild)
        if library is None:
            return {}
        from games.ictc import copies

        return copies.copy_counts(library, member)

    async def describe_copies(self, guild: str, ids: Sequence[int], to: Mapping[int, str] | None = None) -> str:
        from games.ictc import copies

        return copies.describe_copies(await self.state(guild), tuple(ids), dict(to) if to is not None else None)

    async def join_moves(self, guild: str, ctx: Context, moves: Sequence[CopyMove], reason: str = "trade") -> Any:
        """Check a trade's copies and return the library's part of the trade's transaction.

        Call with ``lock(guild)`` held until that transaction is over; the cache changes only when
        it commits. ``RuleError`` when a copy is not its giver's (nothing to write then).
        """
        from games.ictc.actions import MoveCopies

        action = MoveCopies(moves=tuple(moves), reason=reason)
        return await self.join_action(guild, ctx, action, event_id=f"{reason}:{ctx.event_id or ctx.at.isoformat()}")

    async def join_action(
        self, guild: str, ctx: Context, action: LibraryAction, *, event_id: str, notes: tuple[str, ...] = ()
    ) -> Any:
        """Check and apply ``action`` and return its writes for another store's transaction (a trade of the
        round, a battle's table opening or ending), with ``notes`` to say once it is durable.

        Call with ``lock(guild)`` held until that transaction is over; the cache changes only when it
        commits. ``RuleError`` when the action is refused (nothing to write then).
        """
        from games.ictc import engine

        state = await self._load(guild)
        step = engine.apply(state, ctx, action)
        changes, entry = self._changes(guild, state, step.state, ctx, action, event_id=event_id)
        new = step.state

        def adopt() -> None:
            self._states[guild] = new
            self._stored[guild] = True

        # not written (another process changed the library, or the transaction failed): read it again
        return self._store.joined(guild, changes, entry, adopt, notes, on_fail=lambda: self.forget(guild))

    async def locked_state(self, guild: str) -> LibraryState:
        """The library, read by a caller that holds ``lock(guild)`` (``state`` would wait for the lock)."""
        return await self._load(guild)

    # -- battles (the part that plays them calls these) --

    async def begin_battle(
        self, guild: str, a: str, b: str, *, at: datetime, event_id: str
    ) -> dict[str, tuple[int, ...]]:
        """Two members' battle begins: what the first meeting excludes of each one's designs (nothing
        once they have met before); from now on they have met."""
        from games.ictc.actions import BeginBattle
        from games.ictc.meetings import excluded

        state = await self.state(guild)
        out = excluded(state, a, b)
        ctx = Context(actor=SYSTEM, actor_name="a battle", channel=ChannelRole.OTHER, at=at, event_id=event_id)
        outcome = await self.act(guild, ctx, BeginBattle(a=a, b=b))
        if outcome.error is not None:
            raise outcome.error
        return out

    # -- scheduled work --

    async def _read(self, guild: str) -> bool:
        """Whether the guild's library is in the cache, read from the store if need be; False when the store
        holds none and none was built here (the starter set alone, not built before it is used)."""
        if guild not in self._states and guild not in self._none_stored:
            async with self.lock(guild):
                if guild not in self._states and guild not in self._none_stored:
                    stored = await self._store.load(guild)
                    if stored is None:
                        self._none_stored.add(guild)
                    else:
                        self._states[guild] = state_from_rows(stored.meta, stored.rows)
                        self._stored[guild] = True
        return guild in self._states

    async def own_library(self, guild: str) -> LibraryState | None:
        """The guild's library; None while it is the starter set alone, nothing stored nor built (a round
        without card activity reads no card)."""
        return self._states[guild] if await self._read(guild) else None

    async def next_due(self, guild: str) -> datetime | None:
        found = await self._next_review(guild)
        return found[0] if found is not None else None

    def kept_next_due(self, guild: str) -> tuple[datetime | None] | None:
        """``next_due`` when the cache already holds it (in a 1-tuple), without a coroutine: the router asks
        before every command. None: not kept, ask ``next_due``."""
        state = self._states.get(guild)
        if state is None:
            return (None,) if guild in self._none_stored else None
        kept = self._reviews.get(guild)
        if kept is None or kept[0] is not state:
            return None
        return (kept[1][0] if kept[1] is not None else None,)

    async def _next_review(self, guild: str) -> tuple[datetime, int, int] | None:
        """``next_review`` of the guild's library, looked through again only when the library is another.
        None for a guild with no library stored: the starter set's designs are all approved."""
        if not await self._read(guild):
            return None
        from games.ictc.approvals import next_review

        state = await self.state(guild)
        kept = self._reviews.get(guild)
        if kept is not None and kept[0] is state:
            return kept[1]
        found = next_review(state)
        self._reviews[guild] = (state, found)
        return found

    async def due(self, guild: str, now: datetime) -> list[tuple[datetime, Note]]:
        """Count every guild vote whose deadline is due by ``now``, in time order, each once."""
        said: list[tuple[datetime, Note]] = []
        for _ in range(MAX_DUE_STEPS):
            found = await self._next_review(guild)
            if found is None or found[0] > now:
                break
            at, design, version = found
            event_id = f"due:review:{design}:{version}:{at.isoformat()}"
            ctx = Context(actor=SYSTEM, actor_name="the scheduler", channel=ChannelRole.OTHER, at=at, event_id=event_id)
            from games.ictc.actions import CloseReview

            outcome = await self.act(guild, ctx, CloseReview(design=design, version=version))
            if outcome.duplicate:
                # counted before (by another process, or before a restart that lost the cache): reload
                self.forget(guild)
                continue
            if not outcome.accepted:
                raise ConflictError(f"the guild vote on card #{design} could not be counted: {outcome.error}")
            said.extend((at, note) for note in outcome.notes)
        return said
