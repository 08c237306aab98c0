"""``python -m bot replay``: run a scenario file through the simulator.

With an existing ``--db`` the run resumes exactly after the last line an earlier run finished,
whatever that line's outcome: each line's completion is recorded with the next commit after it
(``data.base.ReplayProgress``), so a run killed at any point and started again ends where an
uninterrupted one would.

The round's everyday commands run while the lines before them still commit (``_run``'s ``beside``):
a slow disk then costs a commit per batch of lines, not per line, and the answers are the same.
"""

from __future__ import annotations

import asyncio
import json
import sys
import tempfile
from collections import deque
from datetime import UTC, datetime
from functools import partial
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

from pydantic import ValidationError

from bot.router import Router
from bot.sim.statedoc import guild_document
from bot.sim.world import GUILD, PARKED, SAYING, Line, Said, World, describe_error, read_line
from bot.web.desk import WebDesk
from data.base import ReplayProgress
from data.library_store import LibraryStore
from data.store import Store
from data.stores import open_stores
from data.table_store import TableStore
from games.ictc.service import LibraryService
from games.nomic.service import RoundService
from games.tables.on_demand import TablesOnDemand
from games.values import valueclass

if TYPE_CHECKING:
    from games.tables.service import TableService

EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


@valueclass
class ReplayResult:
    lines: int
    skipped: int
    document: dict[str, Any]
    transcript: list[dict[str, Any]]

    def write(self, state_out: Path | None, transcript_out: Path | None) -> None:
        if state_out is not None:
            state_out.write_text(json.dumps(self.document, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
        if transcript_out is not None:
            with transcript_out.open("w", encoding="utf-8") as fh:
                fh.writelines(json.dumps(entry, ensure_ascii=False) + "\n" for entry in self.transcript)


def read_scenario(path: Path, errors: IO[str]) -> list[tuple[int, Line]]:
    """Every valid line with its number (0-based); bad lines are reported and left out."""
    lines: list[tuple[int, Line]] = []
    with path.open("rb") as fh:
        for number, raw_bytes in enumerate(fh):
            try:
                raw = raw_bytes.decode("utf-8")
            except UnicodeDecodeError as exc:
                print(f"line {number + 1}: skipped: not UTF-8 ({exc.reason} at byte {exc.start})", file=errors)
                continue
            if not raw.strip():
                continue
            try:
                data = json.loads(raw)
            except ValueError as exc:
                print(f"line {number + 1}: skipped: not JSON ({exc})", file=errors)
                continue
            if not isinstance(data, dict):
                print(f"line {number + 1}: skipped: a line must be a JSON object", file=errors)
                continue
            try:
                lines.append((number, read_line(data)))
            except ValidationError as exc:
                print(f"line {number + 1}: skipped: {describe_error(exc)}", file=errors)
    return lines


MAX_BESIDE = 64
"""Lines at most waiting for their commits while the next ones run."""


async def replay(
    lines: list[tuple[int, Line]],
    *,
    seed: str | None = None,
    db: str | Path | None = None,
    until: datetime | None = None,
) -> ReplayResult:
    """Run the lines against a store (a temporary SQLite file unless ``db`` is given: a path,
    ``sqlite:///FILE`` or ``postgresql://...``).

    Only a ``db`` that outlives the run records how far it got (``ReplayProgress``): a temporary
    store is never resumed, so its commits carry nothing extra.
    """
    with tempfile.TemporaryDirectory(prefix="nomic-replay-") as tmp:
        path = db if db is not None else Path(tmp) / "replay.db"
        progress = ReplayProgress() if db is not None else None
        stores = await open_stores(path, progress=progress)
        # lines run beside the commits of earlier ones: a failed write must stop every later one
        stores.round.writer.halt_on_failure = True
        try:
            return await _run(
                stores.round,
                lines,
                seed=seed,
                until=until,
                table_store=stores.tables,
                library_store=stores.cards,
                beside=True,
            )
        finally:
            await stores.close()


async def resume_after(
    store: Store, table_store: TableStore | None, library_store: LibraryStore | None = None
) -> int | None:
    """The last line an earlier run on this file finished (None: start from the first line).

    The recorded progress says it exactly; the lines that logged an action or a refusal are taken
    into account too (a logged line's work is done), for files written before progress was recorded
    and for a line refused just before the run stopped.
    """
    done = [await store.finished_line(GUILD), await store.last_source_line(GUILD), await store.last_refused_line(GUILD)]
    if table_store is not None:
        done.append(await table_store.last_source_line(GUILD))
    if library_store is not None:
        done.append(await library_store.last_source_line(GUILD))
    found = [line for line in done if line is not None]
    return max(found) if found else None


async def _run(
    store: Store,
    lines: list[tuple[int, Line]],
    *,
    seed: str | None,
    until: datetime | None,
    table_store: TableStore | None = None,
    library_store: LibraryStore | None = None,
    beside: bool = False,
) -> ReplayResult:
    """``beside``: a line of the round's everyday commands (``World.feeds_beside``) is applied while the
    commits of the lines before it are still under way; each line is answered, in order, only once its
    own and every earlier line's writes are durable. The store's writer must halt on its first failed
    write (``GroupCommit.halt_on_failure``), so that no later line is durable without an earlier one."""
    service = RoundService(store)
    service.reads_queued = beside
    tables = _tables(table_store, seed) if table_store is not None else None
    library = LibraryService(library_store, check_starter=False) if library_store is not None else None
    world = World(Router(service, tables, library, WebDesk(store, None)), seed=seed)
    transcript: list[dict[str, Any]] = []

    def record(said: Said) -> None:
        transcript.append(said.as_json())

    world.on_say = record
    done = await resume_after(store, table_store, library_store)
    skipped = 0
    waiting: deque[tuple[int, asyncio.Task[None], list[Said]]] = deque()

    async def answered() -> None:
        """The oldest line waiting: once it is over (its writes durable), its words, and its mark."""
        number, task, said = waiting.popleft()
        await task
        for each in said:
            record(each)
        store.mark_finished(GUILD, number)

    try:
        for number, line in lines:
            if done is not None and number <= done:
                await world.feed(line, number=number, replaying=False)
                world.now = line.at if world.now is None or line.at > world.now else world.now
                skipped += 1
                continue
            if not beside:
                await world.feed(line, number=number)
                store.mark_finished(GUILD, number)
                continue
            alongside = world.feeds_beside(line)
            while waiting and (not alongside or len(waiting) >= MAX_BESIDE):
                await answered()
            said: list[Said] = []
            if not alongside:
                # nothing runs beside it: the line is awaited here, without a task of its own
                await _alone(world, line, number, said)
                for each in said:
                    record(each)
                store.mark_finished(GUILD, number)
                continue
            parked: asyncio.Future[None] = asyncio.get_running_loop().create_future()
            task = asyncio.ensure_future(_line(world, line, number, said, parked))
            task.add_done_callback(partial(_tell, parked))  # over before it parks: a refusal, a query
            waiting.append((number, task, said))
            await parked
            while waiting and waiting[0][1].done():
                await answered()
        while waiting:
            await answered()
    finally:
        if waiting:  # stopped by a line that failed: the others end too, unanswered
            for _, task, _ in waiting:
                task.cancel()
            await asyncio.gather(*(task for _, task, _ in waiting), return_exceptions=True)
    if until is not None:
        await world.advance(until)
    await store.save_progress()
    state = await service.state(GUILD)
    now = world.now or (state.clock if state is not None else None) or until or EPOCH
    await service.save_snapshots()
    found = await tables.of(GUILD) if tables is not None else None
    played = await found.all_tables(GUILD) if found is not None else []
    cards = await library.own_library(GUILD) if library is not None else None
    document = await guild_document(service, GUILD, now, played, cards, starter_cards=library is not None)
    return ReplayResult(lines=len(lines), skipped=skipped, document=document, transcript=transcript)


def _tables(store: TableStore, seed: str | None) -> TablesOnDemand:
    """The tables' service, made when the scenario first needs it (a replay of the round alone never does)."""

    def make() -> TableService:
        from games.tables.service import TableService

        return TableService(store, seed=seed)

    return TablesOnDemand(make, store.any_table)


async def _line(world: World, line: Line, number: int, said: list[Said], parked: asyncio.Future[None]) -> None:
    """One line beside others (in a task of its own), its words kept in ``said``; ``parked`` is told when
    all that is left is its answer."""
    SAYING.set(said.append)
    PARKED.set(partial(_tell, parked))
    await world.feed(line, number=number)


def _tell(parked: asyncio.Future[None], *_: object) -> None:
    if not parked.done():
        parked.set_result(None)


async def _alone(world: World, line: Line, number: int, said: list[Said]) -> None:
    """One line that nothing runs beside, its words kept in ``said`` as ``_line`` keeps them."""
    saying = SAYING.set(said.append)
    try:
        await world.feed(line, number=number)
    finally:
        SAYING.reset(saying)


def replay_file(
    scenario: Path,
    *,
    seed: str | None = None,
    db: str | Path | None = None,
    until: datetime | None = None,
    state_out: Path | None = None,
    transcript_out: Path | None = None,
    errors: IO[str] = sys.stderr,
) -> ReplayResult:
    """The command line's replay: read, run, write the state document and the transcript."""
    lines = read_scenario(scenario, errors)
    result = asyncio.run(replay(lines, seed=seed, db=db, until=until))
    result.write(state_out, transcript_out)
    return result
