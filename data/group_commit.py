"""Group commit: one writer per store commits every queued write in one transaction.

Callers queue their writes (jobs) and wait for the transaction that holds them; a write is
acknowledged only once that transaction committed. While one batch commits, the next queues up,
so a burst of N concurrent actions costs a few fsyncs instead of N, and nobody holds a lock of
their own across an fsync.

Jobs that share a ``key`` (a guild's actions) depend on each other: each was applied in memory on
top of the one queued before it. When one of them is not written (a redelivered event, a write
that failed, a batch that failed), none of the later ones of its key is written: each is settled
with ``Superseded``, for its caller to apply it again on the state that is durable.

The engine is behind ``BatchConnection`` (two methods): SQLite's is ``data.sqlite_writer``; another
engine (PostgreSQL) brings its own and reuses everything here.
"""

from __future__ import annotations

import asyncio
import logging
from collections import deque
from collections.abc import Callable, Hashable, Sequence
from datetime import UTC, datetime
from enum import Enum
from functools import partial
from time import time
from typing import Generic, Protocol, TypeVar

log = logging.getLogger(__name__)

MAX_BATCH = 1000
"""Jobs in one transaction at most: a bound on one commit's size, far above any burst's batch."""
LATER_SECONDS = 1.0
"""How long a job queued by ``GroupCommit.later`` waits for another write to ride on."""


class Written(Enum):
    STORED = "stored"
    DUPLICATE = "duplicate"
    """The job's event was logged before (a redelivery): nothing of it was written."""


STORED = Written.STORED
"""``Written.STORED`` for the paths every action takes: a member read through its enum class goes
through the class's ``__getattr__``, ten times slower than a name of the module."""


Outcome = Written | BaseException
"""What became of a job: written, a duplicate, or the exception that kept all of it out."""


class Superseded(Exception):  # noqa: N818 - a state of a job, not a fault of the caller
    """An earlier job of the same key was not written, so this one (applied on top of it) was not
    either: apply it again on the durable state."""


class Stale(Exception):  # noqa: N818 - a state of the caller's copy, not a fault
    """A write made on a copy of a guild older than what the store holds (another process wrote the
    guild after this one read it): nothing of it was written; read the guild again and apply it on
    what is durable."""


class Halted(Exception):  # noqa: N818 - a state of the writer, not a fault of the caller
    """Not written: an earlier write failed, and the writer stops there (``GroupCommit.halt_on_failure``)."""


class Behind(Superseded, Stale):
    """The log already holds the step this job was applied as (another process wrote the guild after
    this one read it): read the guild again and apply it on what is durable."""


class Job(Protocol):
    @property
    def key(self) -> Hashable | None:
        """Jobs of one key depend on the ones queued before them (None: on nothing)."""

    def settled(self, outcome: Outcome) -> None:
        """What became of the job; called in commit order, before any waiter resumes (so a cached
        state can follow the durable one with nothing running in between)."""


J = TypeVar("J", bound=Job)
J_contra = TypeVar("J_contra", bound=Job, contravariant=True)


Done = Callable[[list[Outcome] | BaseException], None]
"""Told, on the event loop, what became of a batch: an outcome per job, or why the whole of it failed."""


class BatchConnection(Protocol[J_contra]):
    """What an engine provides: one transaction for a batch of jobs."""

    def start(self, jobs: Sequence[J_contra], done: Done) -> None:
        """Begin writing ``jobs`` in their order in one transaction and committing it; once that is
        over, call ``done`` on the event loop (never from inside ``start``) with one outcome per job.

        A job that raises, or whose event was logged before, leaves nothing of itself and does not
        stop the others; a later job of the same key is then not written (``Superseded``).
        ``done`` gets an exception when the transaction as a whole failed: then nothing was written.
        """

    async def close(self) -> None: ...


def supersede(jobs: Sequence[Job], outcome_of: Callable[[int, Job], Outcome]) -> list[Outcome]:
    """Outcomes of ``jobs`` written in order by ``outcome_of``, skipping (``Superseded``) every job
    whose key has an earlier job not written: the rule each engine's ``run`` follows."""
    broken: set[Hashable] = set()
    outcomes: list[Outcome] = []
    for index, job in enumerate(jobs):
        key = job.key
        if key is not None and key in broken:
            outcomes.append(Superseded())
            continue
        outcome = outcome_of(index, job)
        if key is not None and outcome is not Written.STORED:
            broken.add(key)
        outcomes.append(outcome)
    return outcomes


def _tell(job: Job, outcome: Outcome) -> None:
    try:
        job.settled(outcome)
    except Exception:  # a bug of the job's owner must not leave the batch's other waiters hanging
        log.exception("a job failed to take its outcome (%r)", outcome)


class GroupCommit(Generic[J]):
    """The single writer of a store: queues jobs and commits them in batches, in queue order.

    One batch is written at a time, and the next starts as soon as it is settled, with every job
    queued meanwhile. Nothing awaits a batch: it is started, and its end (a callback) settles its
    jobs and starts the next, so a caller who is cancelled while it waits never cuts a write short,
    and an idle store runs no task at all. ``closing``: asked with each batch's jobs, a job to add at
    its end (a replay's progress marks), or None.
    """

    def __init__(
        self,
        conn: BatchConnection[J],
        *,
        closing: Callable[[Sequence[J]], J | None] | None = None,
        max_batch: int = MAX_BATCH,
    ) -> None:
        self._conn = conn
        self._closing = closing
        self._max_batch = max_batch
        self._queue: deque[tuple[J, asyncio.Future[Written]]] = deque()
        self._busy = False
        """A batch is being written."""
        self._idle_waiters: list[asyncio.Future[None]] = []
        self._closed = False
        self._later: asyncio.TimerHandle | None = None
        """Set while jobs queued by ``later`` wait for a transaction to ride on."""
        self.batches = 0
        """Transactions committed (or failed) so far."""
        self.jobs = 0
        """Jobs settled so far."""
        self._committed_at: float | None = None
        """``time.time()`` of the latest commit (a float per commit; ``last_commit`` makes the datetime when asked)."""
        self.halt_on_failure = False
        """Set by a caller whose writes must become durable in their order or not at all (a replay that
        applies its next line while the previous one commits): after the first write that fails, every
        queued and later job fails with ``Halted``, unwritten, so nothing after it can be durable."""
        self._halted: Halted | None = None

    @property
    def last_commit(self) -> datetime | None:
        """When the latest transaction committed (``/healthz``); None before the first."""
        at = self._committed_at
        return None if at is None else datetime.fromtimestamp(at, UTC)

    @property
    def conn(self) -> BatchConnection[J]:
        return self._conn

    @property
    def waiting(self) -> int:
        """Jobs queued for the next transaction."""
        return len(self._queue)

    def submit(self, job: J) -> asyncio.Future[Written]:
        """Queue ``job`` now, behind every job queued before; the future gives its outcome (or raises
        the exception that kept it out, ``Superseded`` included)."""
        if self._closed:
            raise RuntimeError("the store is closed")
        if self._halted is not None:
            raise self._halted
        future: asyncio.Future[Written] = asyncio.get_running_loop().create_future()
        self._queue.append((job, future))
        if not self._busy:
            self._start()
        return future

    def write(self, job: J, *, queued: Callable[[], None] | None = None) -> asyncio.Future[Written]:
        """Queue ``job`` and tell ``queued`` (the caller may let others go ahead), now; await the
        future returned to wait until its transaction is over (it gives the job's outcome or raises
        what kept it out). A future, not a coroutine: one object less per write."""
        if self._closed:
            raise RuntimeError("the store is closed")
        if self._halted is not None:
            raise self._halted
        loop = asyncio.get_running_loop()
        future: asyncio.Future[Written] = loop.create_future()
        if self._busy or self._queue:
            self._queue.append((job, future))
            if not self._busy:
                self._start()
        else:  # an idle writer (so an empty queue): a batch of this job alone, with no queue to go through
            self._busy = True
            jobs = [job]
            extra = self._closing(jobs) if self._closing is not None else None
            done: Callable[[list[Outcome] | BaseException], None]
            if extra is None:
                done = partial(self._finish_one, job, future)
            else:
                done = partial(self._finish, [(job, future)], extra)
                jobs.append(extra)
            try:
                self._conn.start(jobs, done)
            except Exception as exc:  # noqa: BLE001 - whatever stops the engine fails the job
                loop.call_soon(done, exc)
        if queued is not None:
            queued()
        return future

    def later(self, job: J) -> asyncio.Future[Written]:
        """Queue ``job`` for the next transaction without starting one for it: it rides on the next
        write's (or, when none comes within ``LATER_SECONDS``, on one of its own). For rows nobody
        waits for, so they cost no commit of their own on a busy store (a refused command's event)."""
        if self._closed:
            raise RuntimeError("the store is closed")
        if self._halted is not None:
            raise self._halted
        loop = asyncio.get_running_loop()
        future: asyncio.Future[Written] = loop.create_future()
        self._queue.append((job, future))
        if not self._busy and self._later is None:
            self._later = loop.call_later(LATER_SECONDS, self._start_later)
        return future

    def _start_later(self) -> None:
        self._later = None
        if not self._busy and self._queue:
            self._start()

    async def flush(self) -> None:
        """Wait until every job queued so far is settled."""
        if not self._busy and self._queue:
            self._start()  # jobs queued to ride on a later transaction: now
        while self._busy or self._queue:
            waiter: asyncio.Future[None] = asyncio.get_running_loop().create_future()
            self._idle_waiters.append(waiter)
            await waiter

    async def close(self) -> None:
        """Commit what is queued, refuse new jobs, close the connection."""
        self._closed = True
        try:
            await self.flush()
        finally:
            if self._later is not None:
                self._later.cancel()
                self._later = None
            await self._conn.close()

    def _start(self) -> None:
        """Write the jobs queued so far (up to ``max_batch``) in one transaction; its end settles them."""
        self._busy = True
        batch = [self._queue.popleft() for _ in range(min(len(self._queue), self._max_batch))]
        written: list[J] = [job for job, _ in batch]
        extra = self._closing(written) if self._closing is not None else None
        if extra is not None:
            written.append(extra)
        done = partial(self._finish, batch, extra)
        try:
            self._conn.start(written, done)
        except Exception as exc:  # noqa: BLE001 - whatever stops the engine fails the batch's jobs
            asyncio.get_running_loop().call_soon(done, exc)

    def _finish_one(self, job: J, future: asyncio.Future[Written], result: list[Outcome] | BaseException) -> None:
        if type(result) is not list or result[0] is not STORED:
            self._finish([(job, future)], None, result)
            return
        self._busy = False
        self.batches += 1
        self.jobs += 1
        self._committed_at = time()
        try:
            job.settled(STORED)
        except Exception:  # as in ``_tell``
            log.exception("a job failed to take its outcome (%r)", STORED)
        if not future.done():
            future.set_result(STORED)
        if self._queue:
            self._start()
        elif self._idle_waiters:
            self._wake_idle()

    def _finish(
        self,
        batch: list[tuple[J, asyncio.Future[Written]]],
        extra: J | None,
        result: list[Outcome] | BaseException,
    ) -> None:
        count = len(batch) + (extra is not None)
        if isinstance(result, BaseException):  # the whole transaction failed: nothing was written
            log.error("a batch of %d writes failed", count, exc_info=result)
            outcomes: list[Outcome] = [result] * count
        else:
            outcomes = result
            self._committed_at = time()
        self._busy = False
        self._settle(batch, outcomes[: len(batch)])
        if extra is not None:
            _tell(extra, outcomes[-1])
        if self.halt_on_failure and self._halted is None:
            failed = next((o for o in outcomes if isinstance(o, BaseException)), None)
            if failed is not None:
                self._halt(failed)
        if self._queue:
            self._start()
        elif self._idle_waiters:
            self._wake_idle()

    def _halt(self, failed: BaseException) -> None:
        """Fail every queued job, unwritten, and refuse the later ones (``halt_on_failure``)."""
        halted = Halted(f"not written: an earlier write failed ({failed!r})")
        halted.__cause__ = failed
        self._halted = halted
        if self._later is not None:
            self._later.cancel()
            self._later = None
        queued, self._queue = self._queue, deque()
        for job, _future in queued:
            _tell(job, halted)
        self.jobs += len(queued)
        for _job, future in queued:
            if not future.done():
                future.set_exception(halted)

    def _wake_idle(self) -> None:
        waiters, self._idle_waiters = self._idle_waiters, []
        for waiter in waiters:
            if not waiter.done():
                waiter.set_result(None)

    def _settle(self, batch: list[tuple[J, asyncio.Future[Written]]], outcomes: list[Outcome]) -> None:
        """Tell every job of the batch (and every queued job that depended on a failed one) its
        outcome, then wake their waiters: nothing else runs in between."""
        self.batches += 1
        if len(batch) == 1 and outcomes[0] is STORED:  # the common case, sequential callers
            job, future = batch[0]
            _tell(job, STORED)
            self.jobs += 1
            if not future.done():
                future.set_result(STORED)
            return
        broken: set[Hashable] = set()
        settled: list[tuple[asyncio.Future[Written], Outcome]] = []
        for (job, future), outcome in zip(batch, outcomes, strict=True):
            if job.key is not None and outcome is not Written.STORED:
                broken.add(job.key)
            _tell(job, outcome)
            settled.append((future, outcome))
        if broken:
            # applied in memory on top of what was not written: not written either
            kept: deque[tuple[J, asyncio.Future[Written]]] = deque()
            for job, future in self._queue:
                if job.key in broken:
                    gone = Superseded()
                    _tell(job, gone)
                    settled.append((future, gone))
                else:
                    kept.append((job, future))
            self._queue = kept
        self.jobs += len(settled)
        for future, outcome in settled:
            if future.done():  # its waiter was cancelled; the job was written all the same
                continue
            if isinstance(outcome, Written):
                future.set_result(outcome)
            else:
                future.set_exception(outcome)
