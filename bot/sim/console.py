"""``python -m bot console``: the simulator, interactive. Type as any member in any channel."""

from __future__ import annotations

import asyncio
import json
import secrets
import sys
import tempfile
from datetime import UTC, datetime
from itertools import count
from pathlib import Path
from typing import IO

from bot.router import Router
from bot.sim.statedoc import guild_document
from bot.sim.world import GUILD, DeleteLine, EditLine, MessageLine, ReactLine, Said, SetupLine, World, iso
from bot.web.desk import WebDesk, guild_url
from bot.web.record import WebRecord
from data.base import Target
from data.library_store import LibraryStore
from data.store import Store
from data.table_store import TableStore
from games.ictc.service import LibraryService
from games.nomic.service import RoundService
from games.tables.service import TableService
from scheduler.calendar import parse_duration

HELP = """Lines you type are posted as the current member in the current channel.
  /as NAME         act as another member (they become known to the server)
  /in CHANNEL      post in another channel (auctions, game-actions, proposals, judge-elections)
                   or in a thread game's thread: `!play wikipedia ai:2`, then /in wikipedia-1
                   (`!card help` lists the card library's commands; a card's fields fit one line with |)
  /react ID 👍     react to message ID as the current member (/unreact ID 👍 takes it back)
  /edit ID TEXT    edit message ID;  /delete ID  delete it
  /advance 2d      move the clock on (w d h m s), running everything due
  /state           print the state document
  /help            this text
  /quit            leave (end of input does the same)"""


class ConsoleSession:
    """One member at a time, one channel at a time, a clock that only moves when told."""

    def __init__(self, world: World, out: IO[str], start: datetime) -> None:
        self.world = world
        self.out = out
        self.me = "you"
        self.channel = "game-actions"
        self.start = start
        self._ids = count(1)

    @property
    def now(self) -> datetime:
        return self.world.now or self.start

    def prompt(self) -> str:
        return f"[{iso(self.now)}] {self.me} in #{self.channel}> "

    def say(self, text: str) -> None:
        print(text, file=self.out)

    async def line(self, text: str) -> bool:
        """Handle one typed line; False when the session should end."""
        if not text.strip():
            return True
        if not text.startswith("/"):
            number = next(self._ids)
            message = MessageLine(
                type="message", at=self.now, id=f"c{number}", channel=self.channel, author=self.me, content=text
            )
            self.say(f"  (message {message.id})")
            await self.world.feed(message)
            return True
        verb, _, arg = text[1:].partition(" ")
        return await self.console_command(verb.lower(), arg.strip())

    async def console_command(self, verb: str, arg: str) -> bool:
        words = arg.split()
        if verb in {"quit", "exit"}:
            return False
        if verb == "help":
            self.say(HELP)
        elif verb == "as" and arg:
            self.me = arg.lstrip("@")
            self.world.members.add(self.me)
        elif verb == "in" and arg:
            self.channel = arg.lstrip("#")
        elif verb == "advance" and arg:
            try:
                delta = parse_duration(arg)
            except ValueError as exc:
                self.say(f"! {exc}")
                return True
            await self.world.advance(self.now + delta)
        elif verb in {"react", "unreact"} and len(words) == 2:
            await self.world.feed(ReactLine(type=verb, at=self.now, message=words[0], user=self.me, emoji=words[1]))
        elif verb == "edit" and len(words) >= 2:
            message, content = arg.split(maxsplit=1)
            await self.world.feed(EditLine(type="edit", at=self.now, message=message, content=content))
        elif verb == "delete" and len(words) == 1:
            await self.world.feed(DeleteLine(type="delete", at=self.now, message=words[0]))
        elif verb == "state":
            tables = await self.world.tables.all_tables(GUILD) if self.world.tables is not None else []
            library = self.world.router.library
            cards = await library.state(GUILD) if library is not None else None
            document = await guild_document(self.world.service, GUILD, self.now, tables, cards)
            self.say(json.dumps(document, indent=2, ensure_ascii=False))
        else:
            self.say("! unknown or incomplete console command; /help lists them")
        return True


async def console(
    *,
    db: str | Path | Target | None = None,
    seed: str | None = None,
    start: datetime | None = None,
    stdin: IO[str] = sys.stdin,
    out: IO[str] = sys.stdout,
    web: tuple[str, int] | None = None,
) -> int:
    """``web``: (host, port) to serve the round's web record on while the console runs (port 0: any free)."""
    with tempfile.TemporaryDirectory(prefix="nomic-console-") as tmp:
        path = db if db is not None else Path(tmp) / "console.db"
        store = await Store.open(path)
        try:
            table_store = await TableStore.open(path, store=store)
        except BaseException:
            await store.close()
            raise
        try:
            library_store = await LibraryStore.open(path, store=store)
        except BaseException:
            await table_store.close()
            await store.close()
            raise
        site = None
        try:
            service = RoundService(store)
            tables = TableService(table_store, seed=seed)
            library = LibraryService(library_store)
            session_start = start or datetime.now(UTC).replace(microsecond=0)
            desk = WebDesk(store, None)
            world = World(Router(service, tables, library, desk), seed=seed, event_prefix=f"{secrets.token_hex(4)}:")
            if web is not None:
                host, port = web
                try:
                    site = await WebRecord.start(path, service, host, port, clock=lambda: world.now or session_start)
                except OSError as exc:
                    print(f"! the web record cannot listen on {host}:{port}: {exc.strerror or exc}", file=out)
                else:
                    desk.base_url = site.url
            world.on_say = lambda said: _show(said, out)
            session = ConsoleSession(world, out, session_start)
            await world.feed(SetupLine(type="setup", at=session.now, admins=[session.me]))
            session.say("Nomic console. You are `you` (a moderator) in #game-actions. /help for help.")
            if site is not None:
                session.say(f"The round's web record: {guild_url(site.url, GUILD)} (read-only; `!web` gives the link).")
            while True:
                print(session.prompt(), end="", file=out, flush=True)
                # read in a thread, so the web record keeps answering while the console waits for a line
                raw = await asyncio.to_thread(stdin.readline)
                if not raw:
                    session.say("")
                    break
                if not await session.line(raw.rstrip("\n")):
                    break
            await service.save_snapshots()
        finally:
            if site is not None:
                await site.stop()
            await library_store.close()
            await table_store.close()
            await store.close()
    return 0


def _show(said: Said, out: IO[str]) -> None:
    where = f"(only {said.to})" if said.to else f"#{said.channel}"
    body = said.content.replace("\n", "\n    ")
    print(f"  bot {where}: {body}", file=out)
