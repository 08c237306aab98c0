"""Writes ``table_nuclear.jsonl``: a whole 關你核四 game of one member (alice) and three computer seats.

``python tests/scenarios/nuclear_scenario.py > tests/scenarios/table_nuclear.jsonl`` plays the game
in the simulator with ``--seed 7`` and writes the lines alice typed, each chosen from the table as it
stood: her proposals in the thread, her secret votes, placements, gifts and reveals by DM, a secret
move typed in the thread (refused), a promise, Chinese command words, a proposal whose time runs out,
a negotiation that times out, a reveal window she lets pass. Run it again when the game's rules or
its computer player change, so the scenario stays a game that can be played.
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
from bot.sim.world import GUILD, World, read_line  # noqa: E402
from data.store import Store  # noqa: E402
from data.table_store import TableStore  # noqa: E402
from games.nomic.service import RoundService  # noqa: E402
from games.nuclear.ai import AI  # noqa: E402
from games.nuclear.engine import ENGINE  # noqa: E402
from games.nuclear.state import Phase  # noqa: E402
from games.tables import lobby  # noqa: E402
from games.tables.service import TableService  # noqa: E402

SEED = "7"
T0 = datetime(2026, 12, 7, 9, 0, tzinfo=UTC)
TABLE = "nuclear-1"


async def write(out: Any) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "s.db"
        store = await Store.open(path)
        table_store = await TableStore.open(path)
        tables = TableService(table_store, seed=SEED)
        world = World(Router(RoundService(store), tables), seed=SEED)
        said: list[str] = []
        world.on_say = lambda s: said.append(s.content)
        at = T0
        ids = iter(range(1, 10_000))

        async def line(channel: str, content: str, gap: float = 5) -> None:
            nonlocal at
            at += timedelta(seconds=gap)
            data = {
                "at": at.isoformat().replace("+00:00", "Z"),
                "type": "message",
                "id": f"n{next(ids)}",
                "channel": channel,
                "author": "alice",
                "content": content,
            }
            print(json.dumps(data, ensure_ascii=False), file=out)
            await world.feed(read_line(data))

        setup = {"at": T0.isoformat().replace("+00:00", "Z"), "type": "setup", "admins": ["mod"]}
        print(json.dumps(setup), file=out)
        await world.feed(read_line(setup))
        await line("game-actions", "!play nuclear ai:3")
        await line(TABLE, "!start")
        await line(TABLE, "!hand")
        rng = random.Random(1)
        turns: dict[Phase, int] = {}
        for _ in range(2_000):
            table = await tables.find(GUILD, TABLE)
            assert table is not None
            if table.status.value != "playing":
                break
            state = lobby.game_state(table)
            if "alice" not in ENGINE.awaiting(state):
                raise SystemExit(f"nobody to play for: {state.phase}")
            move = ENGINE.format_action(state, AI.choose(state, "alice", rng))
            phase = state.phase
            turns[phase] = n = turns.get(phase, 0) + 1
            if phase is Phase.PROPOSE and n == 2:
                await line(TABLE, "!board", gap=60)
                await line(TABLE, "!board", gap=61)  # the proposal's two minutes run out: the computer proposes
            elif phase is Phase.PROPOSE:
                await line(TABLE, "!提案 " + move.split()[1] if n == 1 else "!" + move)
            elif phase is Phase.VOTE1 and n == 1:
                await line(TABLE, "!" + move)  # a secret vote typed in the thread: refused, told privately
                await line("dm", f"!{TABLE} {move}")
            elif phase is Phase.REVEAL and n == 3:
                await line(TABLE, "!board", gap=16)  # the reveal window passes: alice withdraws by default
            elif phase in (Phase.VOTE1, Phase.PLACE, Phase.REVEAL):
                await line("dm", f"!{TABLE} {move}" if n % 2 else move)  # a member at one table may leave its name out
            elif phase is Phase.TALK and n == 1:
                hand = state.hands[state.seats.index("alice")]
                other = next(s for s in state.seats if s != "alice")
                await line(TABLE, f"!promise @{other} 下次換我挺你")
                if len(hand) > 2:
                    await line("dm", f"!{TABLE} give {hand[0]} {hand[1]} @{other}")
                await line(TABLE, "!board", gap=180)  # the three minutes run out
            elif phase is Phase.TALK:
                if move.startswith("give"):
                    await line("dm", f"!{TABLE} {move}")
                else:
                    await line(TABLE, "!結束" if move == "end" else "!" + move)
            elif phase is Phase.COUNT:
                await line(TABLE, "!1 2 3" if n == 1 else "!count")
        await line("game-actions", "!games")
        await store.close()
        await table_store.close()
        refused = [s for s in said if s.startswith("Can't do that")]
        print(f"{len(refused)} refusals: {refused}", file=sys.stderr)


if __name__ == "__main__":
    asyncio.run(write(sys.stdout))
