"""Writes ``table_ictc.jsonl``: a whole ICTC battle between two members (alice and bob), challenge to end.

``python tests/scenarios/ictc_scenario.py > tests/scenarios/table_ictc.jsonl`` plays the battle in the
simulator with ``--seed 7`` and writes the lines the members typed, each chosen from the table as it
stood (the computer player's choice, typed): starter decks claimed, a challenge and its acceptance,
the cuts, the turns, a Flash window left to run out, a hand shown by DM, an adjustment disputed and
ruled on by a moderator, an undo both agree to, and bob's concession. Run it again when the battle's
rules or its computer player change, so the scenario stays a battle that can be played.
"""

from __future__ import annotations

import asyncio
import json
import random
import sys
import tempfile
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from bot.router import Router  # noqa: E402
from bot.sim.world import World, read_line  # noqa: E402
from data.library_store import LibraryStore  # noqa: E402
from data.store import Store  # noqa: E402
from data.table_store import TableStore  # noqa: E402
from games.ictc.battle.ai import Skirmisher  # noqa: E402
from games.ictc.battle.engine import ENGINE  # noqa: E402
from games.ictc.battle.state import BattleState  # noqa: E402
from games.ictc.service import LibraryService  # noqa: E402
from games.nomic.service import RoundService  # noqa: E402
from games.tables import lobby  # noqa: E402
from games.tables.lobby import TableStatus  # noqa: E402
from games.tables.service import TableService  # noqa: E402

SEED = "7"
T0 = datetime(2026, 12, 7, 9, 0, tzinfo=UTC)
TABLE = "ictc-1"


async def write(out: Any) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "s.db"
        store = await Store.open(path)
        table_store = await TableStore.open(path)
        cards = await LibraryStore.open(path)
        tables = TableService(table_store, seed=SEED)
        world = World(Router(RoundService(store), tables, LibraryService(cards)), seed=SEED)
        at = T0
        ids = iter(range(1, 10_000))

        async def line(channel: str, author: str, content: str, gap: float = 5) -> None:
            nonlocal at
            at += timedelta(seconds=gap)
            data = {
                "at": at.isoformat().replace("+00:00", "Z"),
                "type": "message",
                "id": f"i{next(ids)}",
                "channel": channel,
                "author": author,
                "content": content,
            }
            out.write(json.dumps(data, ensure_ascii=False) + "\n")
            await world.feed(read_line(data))

        async def battle() -> tuple[Any, BattleState]:
            table = await tables.find("sim", TABLE)
            assert table is not None
            state = lobby.game_state(table)
            assert isinstance(state, BattleState)
            return table, state

        setup = {"at": T0.isoformat().replace("+00:00", "Z"), "type": "setup", "admins": ["mod"]}
        out.write(json.dumps(setup) + "\n")
        await world.feed(read_line(setup))
        await line("game-actions", "alice", "!card starter Ember")
        await line("game-actions", "bob", "!card starter Grove")
        await line("game-actions", "mod", "!challenges")
        await line("game-actions", "alice", "!challenge @bob ante:on deck:Ember")
        await line("game-actions", "bob", "!challenge accept deck:Grove")
        ai = Skirmisher()
        let_run = adjusted = undone = shown = False
        for _ in range(600):
            table, state = await battle()
            if table.status is not TableStatus.PLAYING:
                break
            if state.turn >= 4 and not adjusted and state.window is None and state.proposal is None:
                mover = state.seats[state.active]
                other = state.seats[1 - state.active]
                await line(TABLE, mover, f"!adj note my card says so; hp @{other} -1")
                await line(TABLE, other, "!dispute")
                await line(TABLE, "mod", "!rule uphold")
                adjusted = True
                continue
            if state.turn >= 6 and not undone and state.window is None and state.proposal is None:
                mover = state.seats[state.active]
                other = state.seats[1 - state.active]
                await line(TABLE, other, f"!undo {state.step - 1}")
                await line(TABLE, mover, "!confirm")
                undone = True
                continue
            if state.turn >= 9 and state.proposal is None:
                await line(TABLE, "bob", "!concede")
                continue
            if state.window is not None and not let_run and state.turn >= 2:
                # nobody answers: the window closes by itself after 30 seconds
                let_run = True
                at += timedelta(seconds=35)
                await world.advance(at)
                continue
            seat = sorted(ENGINE.awaiting(state))[0]
            if not shown and state.turn >= 3:
                await line(TABLE, seat, "!hand")
                shown = True
            action = ai.choose(state, seat, random.Random(0))
            await line(TABLE, seat, "!" + ENGINE.format_action(state, action))
        for opened in (cards, table_store, store):
            await opened.close()


if __name__ == "__main__":
    asyncio.run(write(sys.stdout))
