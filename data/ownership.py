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
bump finds another epoch). A write refused so fails with ``FencedError`` and the process drops the
guild as when its lock connection dies (``Fence.fenced``). The new holder reads the guild only
after its bump, so it sees every write the old holder committed. The action log's primary key
``(guild_id, seq)`` stays the last guard: two writers of one guild can never both append the same
step.
"""

from __future__ import annotations

import asyncio
import hashlib
import logging
from collections.abc import Callable, Iterable
from datetime import UTC, datetime
from typing import Any, Protocol

log = logging.getLogger(__name__)

Lost = Callable[[list[str]], None]
"""Told which guilds this process stopped holding without releasing them (its lock connection died)."""


class OwnedElsewhereError(Exception):
    """Another process of the bot acts for this guild now (or the lock could not be asked for)."""

    def __init__(self, guild: str, reason: str = "another process of the bot runs it") -> None:
        self.guild = guild
        self.reason = reason
        super().__init__(f"guild {guild}: not acting for it here: {reason}")


class FencedError(OwnedElsewhereError):
    """A write for a guild this process no longer holds (its epoch moved on): nothing of it was stored."""

    def __init__(self, guild: str, reason: str = "this process lost it to another one; nothing was changed") -> None:
        super().__init__(guild, reason)


class Fence(Protocol):
    """What a store asks before writing a guild's action, and tells when the database refused it."""

    def epoch(self, guild: str) -> int | None:
        """The epoch this process took the guild at; None when it does not hold the guild."""

    def fenced(self, guild: str, epoch: int) -> None:
        """A write made under ``epoch`` was refused: another process took the guild since."""


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

    async def acquire(self, guild: str) -> bool:
        """Take the guild's lock unless another process holds it; True when this process holds it now."""

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

    async def acquire(self, guild: str) -> bool:
        self._held.add(guild)
        return True

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


class PgOwnership:
    """Advisory locks on one dedicated asyncpg connection (session-level: they go with the connection).

    Statements on the connection run one at a time (asyncpg allows no overlap). When the connection
    closes under us, every held guild is lost at once (``on_lost``); the next ``acquire`` connects again.
    """

    bump_timeout = 5.0
    """Seconds the epoch's bump waits for the row an old holder's batch keeps (``SET LOCAL lock_timeout``):
    a holder frozen mid-commit makes this process give the lock back and try again later (the bot's
    claiming loop, shard-sim's poll), never wait on it forever."""

    def __init__(self, url: str) -> None:
        self._url = url
        self._conn: Any = None
        self._io = asyncio.Lock()
        self._held: set[str] = set()
        self._epochs: dict[str, int] = {}
        """The epoch each held guild was taken at (``Fence``)."""
        self._listeners: list[Lost] = []
        self._closing = False

    @classmethod
    async def open(cls, url: str) -> PgOwnership:
        """Connect at once, so a wrong URL stops the process before it acts for anything."""
        import asyncpg

        from data.engine import _open_error, target

        ownership = cls(url)
        try:
            await ownership._connection()
        except (asyncpg.PostgresError, asyncpg.InterfaceError, OSError, TimeoutError, ValueError) as exc:
            raise _open_error(target(url), exc) from None  # one line, the URL without its password
        return ownership

    async def _connection(self) -> Any:
        if self._conn is not None and not self._conn.is_closed():
            return self._conn
        if self._conn is not None:  # closed without its listener having run yet: its locks are gone
            self._conn = None
            self._lose()
        import asyncpg

        conn = await asyncpg.connect(self._url, server_settings={"application_name": "nomic-bot ownership"})
        conn.add_termination_listener(self._terminated)
        self._conn = conn
        return conn

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

    async def acquire(self, guild: str) -> bool:
        if self.holds(guild):
            return True
        async with self._io:
            if self.holds(guild):
                return True
            conn = await self._connection()
            # session-level locks nest: held guilds are never locked twice (one unlock must free them)
            taken = bool(await conn.fetchval("SELECT pg_try_advisory_lock($1)", lock_key(guild)))
            if not taken:
                return False
            import asyncpg

            try:
                async with conn.transaction():
                    await conn.execute(f"SET LOCAL lock_timeout = '{round(self.bump_timeout * 1000)}ms'")
                    epoch = int(await conn.fetchval(_BUMP, guild, datetime.now(UTC).isoformat()))
            except asyncpg.LockNotAvailableError:
                await conn.fetchval("SELECT pg_advisory_unlock($1)", lock_key(guild))
                log.warning(
                    "guild %s: a write of its previous holder still holds it after %.0f s; gave its lock back,"
                    " trying again later",
                    guild,
                    self.bump_timeout,
                )
                return False
            except BaseException:
                if not conn.is_closed():
                    await conn.fetchval("SELECT pg_advisory_unlock($1)", lock_key(guild))
                raise
            self._held.add(guild)
            self._epochs[guild] = epoch
            return True

    async def ensure(self, guild: str) -> None:
        try:
            taken = await self.acquire(guild)
        except (TimeoutError, OSError) as exc:
            raise OwnedElsewhereError(guild, f"the lock could not be asked for ({exc})") from exc
        except Exception as exc:
            if type(exc).__module__.startswith("asyncpg"):
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
        """A round trip on the lock connection; a dead one loses every guild now, not at the next action."""
        async with self._io:
            conn = self._conn
            if conn is None or conn.is_closed():
                self._conn = None
                self._lose()
                return False
            try:
                await conn.fetchval("SELECT 1")
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
        async with self._io:
            conn, self._conn = self._conn, None
            if conn is not None and not conn.is_closed():
                await conn.close()


def is_postgres(url: str | None) -> bool:
    return bool(url) and str(url).startswith(("postgresql://", "postgres://"))


def fence_of(ownership: GuildOwnership) -> Fence | None:
    """The fence a store checks its writes against: PostgreSQL's epochs; None for the local store."""
    return ownership if isinstance(ownership, PgOwnership) else None


async def open_ownership(url: str | None) -> GuildOwnership:
    """Advisory locks on a ``postgresql://`` database; on anything else (a SQLite path) the local no-op."""
    if url is not None and is_postgres(url):
        return await PgOwnership.open(url)
    return LocalOwnership()


def claimable(guilds: Iterable[str], ownership: GuildOwnership) -> list[str]:
    """The guilds not held yet, in order: what a process tries to take over."""
    return [g for g in guilds if not ownership.holds(g)]
