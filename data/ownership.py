"""One process acts for a guild: a lock per guild, held while the process writes the guild's actions.

On PostgreSQL (several processes, one database) the lock is a session-level advisory lock, taken on a
connection of its own and keyed by a stable 64-bit hash of the guild id (``lock_key``). It lasts as
long as that connection: a process that dies, or loses the connection, loses every lock it held, and
the server lets another process take them at once. A process releases a guild's lock when it stops
acting for the guild (its shard went away, it shuts down). On SQLite the store belongs to one process,
and ``LocalOwnership`` holds every guild without asking anyone.

Acting for a guild always begins with ``ensure(guild)``; ``OwnedElsewhereError`` means another process
holds the guild, and is answered or logged, never written through.

A lock alone cannot keep a process that lost it from writing: the lock lives on its own connection,
and between that connection dying and the process noticing, the process's writer (another
connection) may still commit. So taking a guild's lock also moves the guild's *epoch* on by one (the
``guild_owners`` row, migration 0009), and every batch of the writer checks, in its own transaction,
that each guild's epoch is still the one its writes were made under (``data.postgres``: the row is
read ``FOR SHARE``, so a takeover's bump waits for a batch that is committing, and a batch after the
bump finds another epoch). Every store's write of a guild carries its epoch: the round's actions and
snapshots, its tables', its card library's, its settings and a replay's progress marks. A write
refused so fails with ``FencedError`` and the process drops the guild as when its lock connection
dies (``Fence.fenced``). The new holder reads the guild only
after its bump, so it sees every write the old holder committed. The action log's primary key
``(guild_id, seq)`` stays the last guard: two writers of one guild can never both append the same
step.

A process that stops answering without closing its connections (frozen, SIGSTOP, a machine that
vanished) would keep its locks for ever: its sockets stay open, and TCP keepalives do not help (a
stopped process's kernel still answers them; a unix socket has none). So the lock is a *lease* the
server enforces: the lock connection asks the server to end it after ``lease`` seconds without a
statement (``idle_session_timeout``; ``idle_in_transaction_session_timeout`` while it bumps an
epoch), and the holder renews it with a statement every quarter of the lease. A process that stops
answering loses its locks ``lease`` seconds later, whatever the transport; the writer's connection
ends its transactions the same way (``data.engine``), so the rows a stopped commit held free too.
Taking guilds over (``claim``) tries each guild without waiting first, so one guild whose epoch's row
is still held never keeps the others of the claim waiting.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import logging
from collections.abc import Callable, Iterable, Sequence
from datetime import UTC, datetime
from enum import Enum
from typing import Any, Protocol

from data.base import LEASE_SECONDS, Fence, OwnedElsewhereError

log = logging.getLogger(__name__)


Lost = Callable[[list[str]], None]
"""Told which guilds this process stopped holding without releasing them (its lock connection died)."""


_BUMP = (
    "INSERT INTO guild_owners (guild_id, epoch, taken_at) VALUES ($1, 1, $2)"
    " ON CONFLICT (guild_id) DO UPDATE SET epoch = guild_owners.epoch + 1, taken_at = excluded.taken_at"
    " RETURNING epoch"
)
"""Taking a guild: its epoch moves on (waiting for a batch of the old holder that holds the row)."""


def lock_key(guild: str) -> int:
    """The guild's advisory lock key: the same 64-bit number in every process, machine and version
    (Python's ``hash`` changes between processes), signed as PostgreSQL's ``bigint`` is."""
    digest = hashlib.blake2b(f"nomic-guild:{guild}".encode(), digest_size=8).digest()
    return int.from_bytes(digest, "big", signed=True)


class GuildOwnership(Protocol):
    """Which guilds this process may act for."""

    async def acquire(self, guild: str, *, wait: bool = True) -> bool:
        """Take the guild's lock unless another process holds it; True when this process holds it now.
        ``wait=False``: give up at once, instead of waiting a bounded time, when a commit of the guild's
        previous holder still holds its epoch's row."""

    async def claim(self, guilds: Sequence[str]) -> list[str]:
        """Take every guild of ``guilds`` that can be taken, none waiting for another; the guilds held
        after it, in the order given. A connection that fails ends the claim (logged): those held so far."""

    async def ensure(self, guild: str) -> None:
        """``acquire`` or raise ``OwnedElsewhereError``: what comes before acting for the guild."""

    async def release(self, guild: str) -> None:
        """Stop acting for the guild: another process may take it."""

    def holds(self, guild: str) -> bool:
        """Whether this process holds the guild now (no round trip)."""

    def owned(self) -> list[str]:
        """The guilds held, in order."""

    def on_lost(self, callback: Lost) -> None:
        """Call ``callback`` with the guilds held when the locks went away on their own."""

    async def check(self) -> bool:
        """Whether the locks are still there (a round trip on PostgreSQL); when not, the losers are told."""

    async def close(self) -> None:
        """Release every guild."""


class LocalOwnership:
    """The single-process store (SQLite): this process holds every guild it asks for."""

    def __init__(self) -> None:
        self._held: set[str] = set()

    async def acquire(self, guild: str, *, wait: bool = True) -> bool:
        self._held.add(guild)
        return True

    async def claim(self, guilds: Sequence[str]) -> list[str]:
        return [guild for guild in guilds if await self.acquire(guild)]

    async def ensure(self, guild: str) -> None:
        self._held.add(guild)

    async def release(self, guild: str) -> None:
        self._held.discard(guild)

    def holds(self, guild: str) -> bool:
        return True

    def owned(self) -> list[str]:
        return sorted(self._held)

    def on_lost(self, callback: Lost) -> None:
        """Local locks are never lost."""

    async def check(self) -> bool:
        return True

    async def close(self) -> None:
        self._held.clear()


class _Take(Enum):
    TAKEN = "taken"
    ELSEWHERE = "elsewhere"
    """Another process holds the guild's lock."""
    BUSY = "busy"
    """The lock was free, but a commit of the guild's previous holder still holds its epoch's row."""


def _lock_failure(exc: BaseException) -> bool:
    """Whether ``exc`` means the lock could not be asked for (the server, the connection), not a bug."""
    return isinstance(exc, TimeoutError | OSError) or type(exc).__module__.startswith("asyncpg")


class PgOwnership:
    """Advisory locks on one dedicated asyncpg connection (session-level: they go with the connection).

    Statements on the connection run one at a time (asyncpg allows no overlap). When the connection
    closes under us, every held guild is lost at once (``on_lost``); the next ``acquire`` connects again.
    The connection is the locks' lease (see the module's note): the server ends it after ``lease``
    seconds without a statement, a renewal every quarter of the lease keeps it, and one that gets no
    answer within half of the lease counts as the connection lost.
    """

    bump_timeout = 5.0
    """Seconds the epoch's bump waits for the row an old holder's batch keeps (``SET LOCAL lock_timeout``):
    a holder frozen mid-commit makes this process give the lock back and try again later (the bot's
    claiming loop, shard-sim's poll), never wait on it forever."""

    def __init__(self, url: str, *, lease: float = LEASE_SECONDS) -> None:
        if lease <= 0:
            raise ValueError("the lease is a positive number of seconds")
        self._url = url
        self.lease = lease
        self._conn: Any = None
        self._io = asyncio.Lock()
        self._held: set[str] = set()
        self._epochs: dict[str, int] = {}
        """The epoch each held guild was taken at (``Fence``)."""
        self._listeners: list[Lost] = []
        self._closing = False
        self._renewing: asyncio.Task[None] | None = None

    @classmethod
    async def open(cls, url: str, *, lease: float = LEASE_SECONDS) -> PgOwnership:
        """Connect at once, so a wrong URL stops the process before it acts for anything."""
        import asyncpg

        from data.base import target
        from data.postgres import open_error

        ownership = cls(url, lease=lease)
        try:
            await ownership._connection()
        except (asyncpg.PostgresError, asyncpg.InterfaceError, OSError, TimeoutError, ValueError) as exc:
            raise open_error(target(url), exc) from None  # one line, the URL without its password
        return ownership

    async def _connection(self) -> Any:
        if self._conn is not None and not self._conn.is_closed():
            return self._conn
        if self._conn is not None:  # closed without its listener having run yet: its locks are gone
            self._conn = None
            self._lose()
        import asyncpg

        idle = f"{round(self.lease * 1000)}ms"
        conn = await asyncpg.connect(
            self._url,
            server_settings={
                "application_name": "nomic-bot ownership",
                "idle_session_timeout": idle,
                "idle_in_transaction_session_timeout": idle,
            },
        )
        conn.add_termination_listener(self._terminated)
        self._conn = conn
        if self._renewing is None or self._renewing.done():
            self._renewing = asyncio.create_task(self._renew())
        return conn

    async def _renew(self) -> None:
        """Keep the lease while the connection lives: a statement every quarter of it."""
        while not self._closing:
            await asyncio.sleep(self.lease / 4)
            if self._conn is None or self._closing:
                return  # the next connection renews again
            try:
                await self.check()
            except Exception:
                log.exception("renewing the guilds' locks failed")

    def _terminated(self, conn: Any) -> None:
        if conn is not self._conn or self._closing:
            return
        self._conn = None
        self._lose()

    def _lose(self) -> None:
        lost, self._held = sorted(self._held), set()
        self._epochs.clear()
        if not lost:
            return
        log.warning("lost the locks of %d guilds (the lock connection closed): %s", len(lost), ", ".join(lost))
        self._tell(lost)

    def _tell(self, lost: list[str]) -> None:
        for listener in self._listeners:
            try:
                listener(lost)
            except Exception:
                log.exception("a listener of lost guilds failed")

    async def _take(self, guild: str, *, wait: bool) -> _Take:
        if self.holds(guild):
            return _Take.TAKEN
        async with self._io:
            if self.holds(guild):
                return _Take.TAKEN
            conn = await self._connection()
            # session-level locks nest: held guilds are never locked twice (one unlock must free them)
            if not await conn.fetchval("SELECT pg_try_advisory_lock($1)", lock_key(guild)):
                return _Take.ELSEWHERE
            import asyncpg

            limit = round(self.bump_timeout * 1000) if wait else 1
            try:
                async with conn.transaction():
                    await conn.execute(f"SET LOCAL lock_timeout = '{limit}ms'")
                    epoch = int(await conn.fetchval(_BUMP, guild, datetime.now(UTC).isoformat()))
            except asyncpg.LockNotAvailableError:
                await conn.fetchval("SELECT pg_advisory_unlock($1)", lock_key(guild))
                if wait:
                    log.warning(
                        "guild %s: a write of its previous holder still holds it after %.0f s; gave its lock"
                        " back, trying again later",
                        guild,
                        self.bump_timeout,
                    )
                return _Take.BUSY
            except BaseException:
                if not conn.is_closed():
                    await conn.fetchval("SELECT pg_advisory_unlock($1)", lock_key(guild))
                raise
            self._held.add(guild)
            self._epochs[guild] = epoch
            return _Take.TAKEN

    async def acquire(self, guild: str, *, wait: bool = True) -> bool:
        return await self._take(guild, wait=wait) is _Take.TAKEN

    async def claim(self, guilds: Sequence[str]) -> list[str]:
        """Every guild without waiting first; then, one by one, those whose epoch's row a commit of
        their previous holder still held (each a bounded wait, the others taken already)."""
        try:
            busy = [guild for guild in guilds if await self._take(guild, wait=False) is _Take.BUSY]
            for guild in busy:
                await self._take(guild, wait=True)
        except Exception as exc:
            if not _lock_failure(exc):
                raise
            log.warning("claiming guilds stopped: the locks could not be asked for (%s)", exc)
        return [guild for guild in guilds if self.holds(guild)]

    async def ensure(self, guild: str) -> None:
        try:
            taken = await self.acquire(guild)
        except Exception as exc:
            if _lock_failure(exc):
                raise OwnedElsewhereError(guild, f"the lock could not be asked for ({exc})") from exc
            raise
        if not taken:
            raise OwnedElsewhereError(guild)

    async def release(self, guild: str) -> None:
        if guild not in self._held:
            return
        async with self._io:
            self._held.discard(guild)
            self._epochs.pop(guild, None)
            conn = self._conn
            if conn is not None and not conn.is_closed():
                await conn.fetchval("SELECT pg_advisory_unlock($1)", lock_key(guild))

    def holds(self, guild: str) -> bool:
        return guild in self._held and self._conn is not None and not self._conn.is_closed()

    def owned(self) -> list[str]:
        return sorted(self._held)

    def epoch(self, guild: str) -> int | None:
        return self._epochs.get(guild) if self.holds(guild) else None

    def fenced(self, guild: str, epoch: int) -> None:
        """The database refused a write made under ``epoch``: another process took the guild since
        (this one has not heard of its lock connection's end yet). The guild is dropped here as if
        its lock were lost; a refusal of an older epoch than the one held now changes nothing."""
        if self._epochs.get(guild) != epoch:
            return
        self._held.discard(guild)
        del self._epochs[guild]
        log.warning("guild %s: another process took it over; stopped acting for it here", guild)
        self._tell([guild])

    def on_lost(self, callback: Lost) -> None:
        self._listeners.append(callback)

    async def check(self) -> bool:
        """A round trip on the lock connection (it renews the lease); a dead one, or one that does not
        answer within half of the lease, loses every guild now, not at the next action."""
        async with self._io:
            conn = self._conn
            if conn is None or conn.is_closed():
                self._conn = None
                self._lose()
                return False
            try:
                await conn.fetchval("SELECT 1", timeout=self.lease / 2)
            except Exception:  # noqa: BLE001 - any failure of the connection means the locks are gone
                self._conn = None
                conn.terminate()
                self._lose()
                return False
            return True

    async def close(self) -> None:
        """Closing the session releases every lock it holds."""
        self._closing = True
        self._held.clear()
        self._epochs.clear()
        if self._renewing is not None:
            renewing, self._renewing = self._renewing, None
            renewing.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await renewing
        async with self._io:
            conn, self._conn = self._conn, None
            if conn is not None and not conn.is_closed():
                await conn.close()


def is_postgres(url: str | None) -> bool:
    return bool(url) and str(url).startswith(("postgresql://", "postgres://"))


def fence_of(ownership: GuildOwnership) -> Fence | None:
    """The fence a store checks its writes against: PostgreSQL's epochs; None for the local store."""
    return ownership if isinstance(ownership, PgOwnership) else None


async def open_ownership(url: str | None, *, lease: float = LEASE_SECONDS) -> GuildOwnership:
    """Advisory locks on a ``postgresql://`` database, kept as a lease of ``lease`` seconds; on anything
    else (a SQLite path) the local no-op."""
    if url is not None and is_postgres(url):
        return await PgOwnership.open(url, lease=lease)
    return LocalOwnership()


def claimable(guilds: Iterable[str], ownership: GuildOwnership) -> list[str]:
    """The guilds not held yet, in order: what a process tries to take over."""
    return [g for g in guilds if not ownership.holds(g)]
