"""``python -m bot console``: the simulator, interactive. Type as any member in any channel."""

from __future__ import annotations

import sys
from datetime import UTC, datetime
from itertools import count
from pathlib import Path
from typing import IO

from bot.router import Router
from bot.sim.statedoc import state_document
from bot.sim.world import GUILD, MessageLine, Said, SetupLine, World, iso
from data.store import Store
from games.nomic.service import RoundService
from scheduler.calendar import parse_duration

HELP = """Lines you type are posted as the current member in the current channel.
  /as NAME         act as another member (they become known to the server)
  /in CHANNEL      post in another channel (auctions, game-actions, proposals, judge-elections)
  /advance 2d      move the clock on (w d h m s), running everything due
  /state           print the state document
  /help            this text
  /quit            leave (end of input does the same)"""


async def console(
    *,
    db: Path | None = None,
    seed: str | None = None,
    start: datetime | None = None,
    stdin: IO[str] = sys.stdin,
    out: IO[str] = sys.stdout,
) -> int:
    import json
    import tempfile

    with tempfile.TemporaryDirectory(prefix="nomic-console-") as tmp:
        store = await Store.open(db if db is not None else Path(tmp) / "console.db")
        try:
            service = RoundService(store)
            world = World(Router(service), seed=seed)
            world.on_say = lambda said: _show(said, out)
            now = start or datetime.now(UTC).replace(microsecond=0)
            me, channel = "you", "game-actions"
            await world.feed(SetupLine(type="setup", at=now, admins=[me]), number=None)
            print("Nomic console. You are `you` (a moderator) in #game-actions. /help for help.", file=out)
            ids = count(1)
            while True:
                print(f"[{iso(world.now or now)}] {me} in #{channel}> ", end="", file=out, flush=True)
                raw = stdin.readline()
                if not raw:
                    print("", file=out)
                    break
                text = raw.rstrip("\n")
                if not text.strip():
                    continue
                if text.startswith("/"):
                    verb, _, arg = text[1:].partition(" ")
                    verb, arg = verb.lower(), arg.strip()
                    if verb in {"quit", "exit"}:
                        break
                    if verb == "help":
                        print(HELP, file=out)
                    elif verb == "as" and arg:
                        me = arg.lstrip("@")
                        world.members.add(me)
                    elif verb == "in" and arg:
                        channel = arg.lstrip("#")
                    elif verb == "advance" and arg:
                        try:
                            delta = parse_duration(arg)
                        except ValueError as exc:
                            print(f"! {exc}", file=out)
                            continue
                        await world.advance((world.now or now) + delta)
                    elif verb == "state":
                        state = await service.state(GUILD)
                        print(json.dumps(state_document(state, world.now or now), indent=2), file=out)
                    else:
                        print("! unknown console command; /help lists them", file=out)
                    continue
                at = world.now or now
                line = MessageLine(type="message", at=at, id=f"c{next(ids)}", channel=channel, author=me, content=text)
                await world.feed(line)
            await service.save_snapshots()
        finally:
            await store.close()
    return 0


def _show(said: Said, out: IO[str]) -> None:
    where = f"(only {said.to})" if said.to else f"#{said.channel}"
    body = said.content.replace("\n", "\n    ")
    print(f"  bot {where}: {body}", file=out)
