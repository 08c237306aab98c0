"""The round's service: the rules plus the store, one guild at a time.

A state-changing action is checked and applied under the guild's lock to the guild's latest
state, queued in the store's group commit, and the lock is let go: the guild's next action
applies on top of it while the store commits. The action gets its answer only once its
transaction committed. Two states are cached per guild: the latest (every action applied,
committed or queued: what the next action applies to) and the durable one (what every reader
sees). When a queued action is not written (a failed transaction, a redelivered event found in
the log), the latest state falls back to the durable one and the guild's actions queued behind
it are applied again on it, in their order. When the log already held its step (another process
wrote the guild after this one read it), both cached states are dropped and the action is applied
again on the guild read afresh from the store, so the guild never stays stuck behind its log.

The state is the latest snapshot plus the actions logged after it, replayed through the same
rules with the same seeded dice.
"""

from __future__ import annotations

import asyncio
import json
import logging
import random
import secrets
from collections.abc import Callable, Sequence
from datetime import datetime
from typing import Any, Protocol

from pydantic import BaseModel, ConfigDict

from data.group_commit import Superseded
from games.nomic import archive, engine, modlog, preview, proposals
from games.nomic.actions import Action, Propose, StartRound, Tick
from games.nomic.amendments import parse_changes
from games.nomic.archive import Archive, Archived, M
from games.nomic.common import Transition
from games.nomic.context import SYSTEM, ChannelRole, Context
from games.nomic.errors import ConflictError, RuleError
from games.nomic.events import Event
from games.nomic.modlog import ModLogEntry
from games.nomic.state import RoundState, TextChange
from games.values import valueclass

log = logging.getLogger(__name__)

SNAPSHOT_EVERY = 1000
"""Actions between snapshots; a restart replays at most this many."""

TICK_SNAPSHOT_TAIL = SNAPSHOT_EVERY * 3 // 4
"""A tick writes a snapshot only when at least this many actions were logged since the last one.

A snapshot is the whole state: at 3,000 players about 1.5 MB and some 13 ms to dump and write,
which every tick used to add to its own time. Skipping it costs only at a start, which replays
the tail after the latest snapshot through the same rules (ticks too: their dice are seeded by
their place in the log), and the periodic snapshot keeps that tail under SNAPSHOT_EVERY (about
half a second of replay at 3,000 players). So a tick writes one only in the last quarter before
the periodic one is due: on a busy server about one tick in four, and on a quiet one, whose log
is mostly ticks and whose state is small, well before commands would reach SNAPSHOT_EVERY. A
clean shutdown writes one whatever the tail.
"""


class LoggedActionLike(Protocol):
    @property
    def seq(self) -> int: ...
    @property
    def kind(self) -> str: ...
    @property
    def body(self) -> str: ...


class LogRowLike(LoggedActionLike, Protocol):
    """A logged action with the instant it was logged (``data.store.LogRow``)."""

    @property
    def at(self) -> datetime: ...


class SnapshotLike(Protocol):
    @property
    def seq(self) -> int: ...
    @property
    def body(self) -> str: ...


class ModLogRowLike(Protocol):
    @property
    def at(self) -> datetime: ...
    @property
    def moderator(self) -> str: ...
    @property
    def name(self) -> str: ...
    @property
    def kind(self) -> str: ...
    @property
    def what(self) -> str: ...


class AppendWatch(Protocol):
    """What the store tells the service of an appended action (``data.store.AppendWatch``)."""

    def queued(self) -> None: ...

    def settled(self, written: bool, *, behind: bool = False) -> None: ...


class ActionStore(Protocol):
    """What the service needs of persistence (``data.store.Store`` provides it).

    ``append`` returns once the action's transaction committed (False: the event was logged
    before); it raises ``Superseded`` when an earlier queued action of the guild was not written
    (``Behind``, one of them, when the log already held the action's step: the guild is read again),
    and the store's error when the action's own transaction failed.
    """

    async def seed(self, guild: str) -> str | None: ...

    async def has_event(self, guild: str, event_id: str) -> bool: ...

    async def load(self, guild: str) -> tuple[SnapshotLike | None, Sequence[LoggedActionLike]]: ...

    async def log(self, guild: str, *, after: int = 0, limit: int | None = None) -> Sequence[LogRowLike]: ...

    async def append(
        self,
        guild: str,
        *,
        seq: int,
        event_id: str,
        at: datetime,
        actor: str,
        kind: str,
        body: str,
        source_line: int | None = None,
        seed: str | None = None,
        snapshot: str | None = None,
        archive: Sequence[Archived] = (),
        joined: Any = None,
        mod_log: Sequence[ModLogEntry] = (),
        watch: AppendWatch | None = None,
    ) -> bool: ...

    async def archived(
        self, guild: str, kind: str, *, limit: int | None = None, numbers: Sequence[int] | None = None
    ) -> list[str]: ...

    async def archived_count(self, guild: str, kind: str) -> int: ...

    async def write_snapshot(self, guild: str, *, seq: int, at: datetime, body: str) -> None: ...

    async def mod_log(self, guild: str, *, limit: int) -> Sequence[ModLogRowLike]: ...

    async def mod_log_count(self, guild: str) -> int: ...


class _Entry(BaseModel):
    """One logged action: its circumstances and the action itself."""

    model_config = ConfigDict(frozen=True)

    ctx: Context
    action: Action


@valueclass
class Outcome:
    """The result of one action: what happened, or why nothing did."""

    events: tuple[Event, ...] = ()
    error: RuleError | None = None
    duplicate: bool = False

    @property
    def accepted(self) -> bool:
        return self.error is None and not self.duplicate

    def text(self) -> str:
        """What the command's answer says: its events, but not those meant for one member alone nor those
        posted on their own (``Event.aside``)."""
        if self.error is not None:
            return f"Sorry, that did not work: {self.error}."
        return self.told()[0]

    @property
    def private(self) -> bool:
        """The answer is for the acting member alone (a sealed bid's amount is in it)."""
        return self.told()[1]

    def told(self, here: ChannelRole | None = None) -> Told:
        """What the events say, and to whom, for a command typed in ``here`` (see ``Told``): one pass over the
        events, each one's text made once (an adapter makes its answer and its other posts of it)."""
        lines: list[str] = []
        grouped: dict[ChannelRole, list[str]] = {}
        members: list[tuple[str, str]] = []
        private = False
        for event in self.events:
            text = event.text()
            member = event.recipient()
            where = event.aside()
            if where is None:
                if member is None:
                    lines.append(text)
                where = event.announce()
                if where is here:
                    where = None  # the answer, there, says it
            if where is not None:
                grouped.setdefault(where, []).append(text)
            if member is not None:
                members.append((member, text))
            if not private:
                private = event.private_answer()
        if not grouped and not members:  # (most answers: nothing more to make)
            return "\n".join(lines), private, (), ()
        elsewhere = tuple([(channel, "\n".join(texts)) for channel, texts in grouped.items()])
        return "\n".join(lines), private, elsewhere, tuple(members)


Told = tuple[str, bool, tuple[tuple[ChannelRole, str], ...], tuple[tuple[str, str], ...]]
"""What an accepted command's events say (``Outcome.told``), a plain tuple on the path of every command:
- the answer: the events but those for one member alone and those posted on their own;
- whether the answer is the acting member's alone (a sealed bid's amount is in it);
- what they announce in other channels (an emptied office of judge in #judge-elections) and what they post on
  their own wherever the command was typed (a sealed bid's hash line in #auctions): a text per channel;
- what they tell single members (an outbid notice for the player it outbid): member, text."""


def action_rng(seed: str, seq: int) -> random.Random:
    """The dice of the action logged as ``seq``: the same on every replay of the log."""
    return random.Random(f"{seed}:{seq}")


_NO_DICE = random.Random(0)
"""Handed to actions that roll nothing, sparing a seeding per command (``engine.rolls_dice``)."""


def dice_for(state: RoundState, action: Action, seq: int) -> random.Random:
    return action_rng(state.seed, seq) if engine.rolls_dice(action, state) else _NO_DICE


def read_logged(body: str) -> Action:
    """A logged action's body read back as a replay reads it (``ValidationError`` when it is none)."""
    return _Entry.model_validate_json(body).action


def _skipped(guild: str, seq: int, error: RuleError) -> None:
    log.error("guild %s: logged action %s no longer applies; skipped", guild, seq, exc_info=error)


def replay_logged(
    guild: str,
    state: RoundState | None,
    row: LoggedActionLike,
    *,
    skipped: Callable[[str, int, RuleError], None] = _skipped,
) -> RoundState | None:
    """``state`` with the logged action ``row`` applied again, with the dice it was first applied with.

    A logged action the rules no longer accept (a rule changed since) is told to ``skipped`` (by
    default logged) and leaves the state as it was, one step on; an import's check refuses it instead.
    """
    entry = _Entry.model_validate_json(row.body)
    action = entry.action
    if isinstance(action, StartRound):
        seed = json.loads(row.body).get("seed", "")
        return engine.start_round(guild, seed, entry.ctx, action).state
    if state is None:
        raise RuntimeError(f"guild {guild}: action {row.seq} logged before the round started")
    if row.seq != state.seq + 1:
        raise RuntimeError(f"guild {guild}: log jumps from {state.seq} to {row.seq}")
    rng = dice_for(state, action, row.seq)
    try:
        if isinstance(action, Tick):
            return engine.advance(state, action, rng).state
        return engine.apply(state, entry.ctx, action, rng).state
    except RuleError as exc:
        skipped(guild, row.seq, exc)
        return state.model_copy(update={"seq": row.seq})


def _unremarked(guild: str, seq: int, error: RuleError) -> None:
    """A logged action a preview's replay finds refused: it is counted, not logged as a fault."""


def preview_from_log(
    guild: str, rows: Sequence[LogRowLike], changes: Sequence[TextChange], at: datetime
) -> tuple[str, ...]:
    """The preview of a proposal made at ``at`` whose amendment lines are ``changes`` (``games.nomic.preview``):
    the guild's log (``rows``, from its start) replayed to the week before ``at``, then the week replayed
    twice, as it happened and with the proposal's rules in force. At most ``preview.BUDGET`` actions
    replayed; a longer log gets a note. Deterministic: the same log gives the same preview."""
    if len(rows) > preview.BUDGET:
        return preview.too_long(preview.BUDGET)
    since = at - preview.WINDOW
    state: RoundState | None = None
    start = len(rows)
    for index, row in enumerate(rows):
        if state is not None and row.at >= since:
            start = index
            break
        state = replay_logged(guild, state, row, skipped=_unremarked)
    if state is None:
        return ()
    week = rows[start:]
    if len(rows) + len(week) > preview.BUDGET:
        return preview.too_long(preview.BUDGET)
    began = max(since, state.clock)
    altered, lapsed = preview.with_rules(state, changes)
    refused: list[int] = []
    actual: RoundState | None = state
    for row in week:
        actual = replay_logged(guild, actual, row, skipped=_unremarked)
        altered = replay_logged(guild, altered, row, skipped=lambda _g, seq, _e: refused.append(seq)) or altered
    if actual is None:  # pragma: no cover - a round's log starts once
        return ()
    return preview.lines(preview.Replayed(began, actual, altered, len(week), len(refused), lapsed))


class NotStartedError(ConflictError):
    """The guild has no round yet."""


MAX_REAPPLY = 5
"""Times an action is applied again after the guild's earlier queued action was not written, before
its caller gets the error: only a store that keeps failing gets there."""


class _Queued:
    """A guild's action from its queueing to its commit: the store's ``AppendWatch``.

    ``queued`` lets the guild's lock go (the next action applies on top of this one while the
    store commits); ``settled`` moves the durable state on, or the latest one back.
    """

    __slots__ = ("_guild", "_lock", "_service", "_state", "event", "parks", "released", "settled_yet", "snapshot")

    def __init__(
        self, service: RoundService, guild: str, state: RoundState, event: str, lock: asyncio.Lock, *, snapshot: bool
    ) -> None:
        self._service = service
        self._guild = guild
        self._state = state
        self.event = event
        """The action's event id (none for some: then ``seq:N`` is logged)."""
        self._lock = lock
        self.snapshot = snapshot
        """Whether the action's transaction also writes a snapshot of the state."""
        self.released = False
        self.settled_yet = False
        self.parks = True
        """Whether queueing it tells ``RoundService.on_queued`` (not when another store's part rides on it,
        whose own state follows only the commit)."""

    def queued(self) -> None:
        if not self.released:
            self.released = True
            self._lock.release()
            hook = self._service.on_queued
            if hook is not None and self.parks:
                self._service.on_queued = None
                hook()

    def settled(self, written: bool, *, behind: bool = False) -> None:
        """Called in commit order, before the waiting action resumes."""
        if self.settled_yet:
            return
        self.settled_yet = True
        service, guild = self._service, self._guild
        if self.event:
            events = service._in_flight.get(guild)
            if events is not None:
                events.discard(self.event)
        if written:
            service._durable[guild] = self._state
            if self.snapshot:
                service._snapshot_seq[guild] = self._state.seq
            return
        if behind:
            # the log moved on without this copy (another process wrote the guild): the durable state
            # cached here is behind it too; the guild's next action reads it again from the store
            log.warning("guild %s: the log holds step %d already; reading the guild again", guild, self._state.seq)
            service.forget(guild)
            return
        # not written: what was applied on top of it falls back to the durable state (the guild's
        # actions queued behind it are superseded and applied again)
        durable = service._durable.get(guild)
        if durable is not None:
            service._states[guild] = durable
        else:
            service._states.pop(guild, None)


class RoundService:
    def __init__(
        self,
        store: ActionStore,
        *,
        snapshot_every: int = SNAPSHOT_EVERY,
        tick_snapshot_tail: int = TICK_SNAPSHOT_TAIL,
    ) -> None:
        self._store = store
        self._states: dict[str, RoundState] = {}
        """Each cached guild's latest state: every action applied, committed or still queued."""
        self._durable: dict[str, RoundState] = {}
        """Each cached guild's state as committed: what readers see."""
        self._in_flight: dict[str, set[str]] = {}
        """Event ids of each guild's actions queued and not yet settled (a redelivery of one is a no-op)."""
        self._locks: dict[str, asyncio.Lock] = {}
        self._snapshot_every = snapshot_every
        self._tick_snapshot_tail = tick_snapshot_tail
        self._snapshot_seq: dict[str, int] = {}
        """The seq of each cached guild's latest stored snapshot."""
        self.reads_queued = False
        """Whether ``state`` gives the state with the actions still being committed applied: for a caller
        that answers nothing before every action queued ahead of it is durable (a replay that applies its
        next line while the previous one commits), and stops at the first write that fails."""
        self.on_queued: Callable[[], None] | None = None
        """Told once, when the next action is queued for its commit (the caller may go on meanwhile)."""
        self._unlogged: tuple[str, str] | None = None
        """The last (guild, event) the store was asked about and had not logged, for the one question
        that follows a refusal at once (``_logged``); dropped when this process logs the event."""

    @property
    def store(self) -> ActionStore:
        """Where the round's actions are kept (the database other stores may share)."""
        return self._store

    def _lock(self, guild: str) -> asyncio.Lock:
        lock = self._locks.get(guild)
        if lock is None:  # a lock made only for a guild that has none yet, not for every action
            lock = self._locks[guild] = asyncio.Lock()
        return lock

    async def state(self, guild: str) -> RoundState | None:
        """The guild's current (committed) state, loaded from the store on first use (see ``reads_queued``)."""
        cached = (self._states if self.reads_queued else self._durable).get(guild)
        if cached is not None:
            return cached
        async with self._lock(guild):
            await self._load(guild)
            return self._durable.get(guild)

    def kept_state(self, guild: str) -> RoundState | None:
        """``state`` when this process holds it already, without a coroutine; None: ask ``state``."""
        return (self._states if self.reads_queued else self._durable).get(guild)

    async def latest(self, guild: str) -> RoundState | None:
        """The state the guild's next action applies to: the committed one with the actions still
        being committed applied (what scheduling work must follow, so a tick is never applied twice)."""
        cached = self._states.get(guild)
        if cached is not None:
            return cached
        async with self._lock(guild):
            return await self._load(guild)

    def kept_latest(self, guild: str) -> RoundState | None:
        """``latest`` when this process holds it already, without a coroutine; None: ask ``latest``."""
        return self._states.get(guild)

    async def _load(self, guild: str) -> RoundState | None:
        if guild in self._states:
            return self._states[guild]
        snapshot, tail = await self._store.load(guild)
        state = RoundState.model_validate_json(snapshot.body) if snapshot is not None else None
        for row in tail:
            state = replay_logged(guild, state, row)
        if state is not None:
            if tail:
                await self._store.write_snapshot(guild, seq=state.seq, at=state.clock, body=state.model_dump_json())
            self._states[guild] = self._durable[guild] = state
            self._snapshot_seq[guild] = state.seq if tail or snapshot is None else snapshot.seq
        return state

    async def start(
        self,
        guild: str,
        ctx: Context,
        action: StartRound,
        *,
        seed: str | None = None,
        source_line: int | None = None,
    ) -> Outcome:
        async with self._lock(guild):
            if await self._load(guild) is not None:
                return Outcome(error=ConflictError("the round has already started"))
            self._unlogged = None
            seed = seed if seed is not None else secrets.token_hex(16)
            step = engine.start_round(guild, seed, ctx, action)
            body = json.dumps({**json.loads(_Entry(ctx=ctx, action=action).model_dump_json()), "seed": seed})
            stored = await self._store.append(
                guild,
                seq=step.state.seq,
                event_id=ctx.event_id or f"start:{ctx.at.isoformat()}",
                at=ctx.at,
                actor=ctx.actor,
                kind=action.kind,
                body=body,
                source_line=source_line,
                seed=seed,
                snapshot=step.state.model_dump_json(),
            )
            if not stored:
                return Outcome(duplicate=True)
            self._states[guild] = self._durable[guild] = step.state
            self._snapshot_seq[guild] = step.state.seq
            return Outcome(events=step.events)

    async def act(
        self, guild: str, ctx: Context, action: Action, *, source_line: int | None = None, joined: object | None = None
    ) -> Outcome:
        """Check and apply one member's action, queue it for the store's next commit; answer once that
        commit is done.

        ``joined``: another store's part of the action (the card copies a trade moves), which the
        store writes in the action's transaction (``data.store.JoinedWrite``).
        """
        if isinstance(action, Propose) and action.preview is None:
            action = await self.with_preview(guild, ctx, action)
        for attempt in range(MAX_REAPPLY + 1):
            lock = self._lock(guild)
            await lock.acquire()
            watch: _Queued | None = None
            try:
                state = self._states.get(guild)
                if state is None:  # not cached yet (a cached state is never None)
                    state = await self._load(guild)
                if state is None:
                    return Outcome(error=NotStartedError("the round has not started on this server yet"))
                event = ctx.event_id  # (read once: a model's attribute is slow to read)
                if event and event in self._in_flight.get(guild, ()):
                    return Outcome(duplicate=True)  # the same event, delivered again while it commits
                try:
                    step = engine.apply(state, ctx, action, dice_for(state, action, state.seq + 1))
                except RuleError as exc:
                    # A redelivered event is refused by the state it produced (``!join`` twice);
                    # it must stay a silent no-op, not be answered with that refusal.
                    if await self._logged(guild, event):
                        return Outcome(duplicate=True)
                    return Outcome(error=exc)
                if step.state is state:
                    # nothing to change: a redelivered event (``!notify outbid on`` twice) says nothing new
                    if await self._logged(guild, event):
                        return Outcome(duplicate=True)
                    return Outcome(events=step.events)
                noted = modlog.entry(ctx, action, step.events)
                mod_log = () if noted is None else (noted,)
                watch = self._watch(guild, event, step, lock)
                watch.parks = joined is None
                return await self._commit(
                    guild, ctx, action, step, source_line, watch=watch, joined=joined, mod_log=mod_log
                )
            except Superseded:
                if attempt >= MAX_REAPPLY:
                    raise
            finally:
                if watch is None or not watch.released:
                    lock.release()
        raise AssertionError("unreachable")  # pragma: no cover

    async def with_preview(self, guild: str, ctx: Context, action: Propose) -> Propose:
        """A proposal carrying a rule block, with its preview (``preview_from_log``): worked out here, from
        the log as it stands, before the proposal is applied, and logged with it, so a replay of the log
        gives the same answer without working it out again. A proposal the rules refuse, or that carries
        no rule block, as it is. The replay runs in a worker thread: the event loop keeps answering."""
        state = await self.latest(guild)
        if state is None:
            return action
        try:
            proposals.check_propose(state, ctx, action)
            changes = parse_changes(action.text, state.ruleset.proposals.urgent_prefix)
        except RuleError:
            return action  # refused when applied, with its reason
        if not preview.carries_rules(changes):
            return action
        rows = await self._store.log(guild, limit=preview.BUDGET + 1)
        lines = await asyncio.to_thread(preview_from_log, guild, rows, changes, ctx.at)
        return action.model_copy(update={"preview": lines})

    async def logged(self, guild: str, event_id: str) -> bool:
        """Whether the guild's log holds (or is committing) an action of ``event_id``."""
        return await self._logged(guild, event_id)

    async def _logged(self, guild: str, event_id: str) -> bool:
        if not event_id:
            return False
        if event_id in self._in_flight.get(guild, ()):
            return True
        if self._unlogged == (guild, event_id):
            self._unlogged = None  # asked again right away (the router, of the refusal it answers): once
            return False
        found = await self._store.has_event(guild, event_id)
        self._unlogged = None if found else (guild, event_id)
        return found

    async def tick(self, guild: str, tick: Tick) -> Outcome:
        """Apply the scheduled work due at ``tick.at``, exactly once."""
        for attempt in range(MAX_REAPPLY + 1):
            lock = self._lock(guild)
            await lock.acquire()
            watch: _Queued | None = None
            try:
                state = self._states.get(guild)
                if state is None:  # not cached yet (a cached state is never None)
                    state = await self._load(guild)
                if state is None:
                    return Outcome(error=NotStartedError("the round has not started on this server yet"))
                if tick.at <= state.clock:
                    return Outcome(duplicate=True)
                step = engine.advance(state, tick, action_rng(state.seed, state.seq + 1))
                ctx = Context(
                    actor=SYSTEM,
                    actor_name="the scheduler",
                    channel=ChannelRole.OTHER,
                    at=tick.at,
                    event_id=f"tick:{tick.at.isoformat()}",
                )
                watch = self._watch(guild, ctx.event_id, step, lock, tick=True)
                return await self._commit(guild, ctx, tick, step, None, watch=watch)
            except Superseded:
                if attempt >= MAX_REAPPLY:
                    raise
            finally:
                if watch is None or not watch.released:
                    lock.release()
        raise AssertionError("unreachable")  # pragma: no cover

    def _watch(self, guild: str, event: str, step: Transition, lock: asyncio.Lock, *, tick: bool = False) -> _Queued:
        """The action (of event id ``event``) becomes the guild's latest state (the next one applies on
        top of it) until it is settled."""
        new = step.state
        seq = new.seq
        snapshot = seq % self._snapshot_every == 0 or (
            tick and seq - self._snapshot_seq.get(guild, 0) >= self._tick_snapshot_tail
        )
        self._states[guild] = new
        self._unlogged = None
        if event:
            events = self._in_flight.get(guild)
            if events is None:
                events = self._in_flight[guild] = set()
            events.add(event)
        return _Queued(self, guild, new, event, lock, snapshot=snapshot)

    async def _commit(
        self,
        guild: str,
        ctx: Context,
        action: Action,
        step: Transition,
        source_line: int | None,
        *,
        watch: _Queued,
        joined: object | None = None,
        mod_log: Sequence[ModLogEntry] = (),
    ) -> Outcome:
        new = step.state
        seq = new.seq
        try:
            stored = await self._store.append(
                guild,
                seq=seq,
                event_id=watch.event or f"seq:{seq}",
                at=ctx.at,
                actor=ctx.actor,
                kind=action.kind,
                body=_Entry(ctx=ctx, action=action).model_dump_json(),
                source_line=source_line,
                snapshot=new.model_dump_json() if watch.snapshot else None,
                archive=step.archived,
                joined=joined,
                mod_log=mod_log,
                watch=watch,
            )
        except Superseded:
            raise
        except BaseException:
            watch.settled(written=False)  # not queued at all (or told already: then nothing changes)
            raise
        if not watch.settled_yet:  # a store that tells nothing: now
            watch.settled(written=stored)
        if not stored:
            return Outcome(duplicate=True)
        return Outcome(events=step.events)

    async def archived(
        self, guild: str, model: type[M], *, limit: int | None = None, numbers: Sequence[int] | None = None
    ) -> list[M]:
        """Records that left the guild's state (``games.nomic.archive``), newest first."""
        bodies = await self._store.archived(guild, archive.KIND_OF[model].value, limit=limit, numbers=numbers)
        return archive.load(model, bodies)

    async def archive(self, guild: str, model: type[M], *, reach: int) -> Archive[M]:
        """The ``reach`` newest archived records of a kind and their count: what a page of a view needs."""
        total = await self._store.archived_count(guild, archive.KIND_OF[model].value)
        newest = await self.archived(guild, model, limit=reach) if total else []
        return Archive(newest, total)

    async def mod_log(self, guild: str, *, limit: int) -> tuple[list[ModLogEntry], int]:
        """The latest ``limit`` entries of the moderators' log, newest first, and how many there are."""
        rows = await self._store.mod_log(guild, limit=limit)
        entries = [ModLogEntry(r.at, r.moderator, r.name, r.kind, r.what) for r in rows]
        return entries, await self._store.mod_log_count(guild)

    async def save_snapshots(self) -> None:
        """Write every cached (committed) state so the next start replays nothing (on a clean shutdown)."""
        for guild in list(self._durable):
            async with self._lock(guild):
                state = self._durable[guild]
                await self._store.write_snapshot(guild, seq=state.seq, at=state.clock, body=state.model_dump_json())
                self._snapshot_seq[guild] = state.seq

    def forget(self, guild: str) -> None:
        self._unlogged = None
        self._states.pop(guild, None)
        self._durable.pop(guild, None)
        self._snapshot_seq.pop(guild, None)
