"""The simulated server: members, channels and messages, driven by scenario lines.

It is an adapter like the Discord one: it turns lines into contexts and text for the router,
runs the scheduled work due before each line on a virtual clock, and records what the bot says.
"""

from __future__ import annotations

from collections.abc import Callable
from contextvars import ContextVar
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from bot.router import Post, Router
from games.nomic import commands
from games.nomic.actions import Leave, StartRound
from games.nomic.context import ChannelRole, Context
from games.nomic.members import unknown_member
from games.nomic.ruleset import Ruleset, load_ruleset
from games.nomic.service import RoundService
from games.tables.words import is_table_name
from scheduler.due import opening

if TYPE_CHECKING:
    from games.tables.service import TableService

GUILD = "sim"
DM = "dm"
"""The channel name of a direct message to the bot: its answers go ``to`` its author."""
_TRAILING = ",;:!?."

SAYING: ContextVar[Callable[[Said], None] | None] = ContextVar("saying", default=None)
"""Where the bot's words go while one line runs beside others (a replay's line keeps its own until every
earlier line is answered); unset: ``World.on_say``."""
PARKED: ContextVar[Callable[[], None] | None] = ContextVar("parked", default=None)
"""Told when the running line's command is queued for its commit: all that is left of the line is its
answer, once the commit is durable (``World.feeds_beside``)."""
BESIDE_WORDS = frozenset(
    {"bid", "offer", "accept", "decline", "cancel", "join", "generate", "inventory", "lots", "phase", "trades"}
)
"""The round's commands a replay may apply while earlier lines still commit: each reads the round's state
alone (the latest, queued actions included) and writes at most its one action or its refusal."""
_DISCUSSED = frozenset({ChannelRole.PROPOSALS, ChannelRole.JUDGE_ELECTIONS})


class _Line(BaseModel):
    model_config = ConfigDict(extra="ignore", frozen=True)

    at: datetime

    @field_validator("at")
    @classmethod
    def _aware(cls, value: datetime) -> datetime:
        if value.tzinfo is None:
            raise ValueError("`at` must carry a time zone (end it with Z)")
        return value.astimezone(UTC)


class SetupLine(_Line):
    type: Literal["setup"]
    admins: list[str] = Field(default_factory=list)
    ruleset: str = "default"


class MessageLine(_Line):
    type: Literal["message"]
    id: str
    channel: str
    author: str
    content: str


class ReactLine(_Line):
    type: Literal["react", "unreact"]
    message: str
    user: str
    emoji: str


class EditLine(_Line):
    type: Literal["edit"]
    message: str
    content: str


class DeleteLine(_Line):
    type: Literal["delete"]
    message: str


class LeaveLine(_Line):
    type: Literal["leave"]
    user: str


Line = Annotated[SetupLine | MessageLine | ReactLine | EditLine | DeleteLine | LeaveLine, Field(discriminator="type")]


class _LineModel(BaseModel):
    line: Line


def read_line(data: dict[str, Any]) -> Line:
    """Validate one scenario object; raises ``ValidationError`` with the reason."""
    return _LineModel.model_validate({"line": data}).line


def line_members(line: Line) -> list[str]:
    if isinstance(line, SetupLine):
        return list(line.admins)
    if isinstance(line, MessageLine):
        return [line.author]
    if isinstance(line, ReactLine | LeaveLine):
        return [line.user]
    return []


def channel_role(name: str) -> ChannelRole:
    try:
        return ChannelRole(name.lstrip("#"))
    except ValueError:
        return ChannelRole.OTHER


@dataclass
class Said:
    """One output of the bot, as the transcript records it."""

    at: datetime
    content: str
    channel: str | None = None
    to: str | None = None
    reply_to: str | None = None

    def as_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"at": iso(self.at)}
        if self.to is not None:
            out["to"] = self.to
        else:
            out["channel"] = self.channel
        out["content"] = self.content
        out["reply_to"] = self.reply_to
        return out


def iso(at: datetime) -> str:
    return at.astimezone(UTC).isoformat().replace("+00:00", "Z")


@dataclass
class World:
    """What the simulator knows of the server besides the round's state."""

    router: Router
    members: set[str] = field(default_factory=set)
    admins: set[str] = field(default_factory=set)
    seen_messages: set[str] = field(default_factory=set)
    messages: dict[str, MessageLine] = field(default_factory=dict)
    now: datetime | None = None
    started: bool = False
    on_say: Callable[[Said], None] | None = None
    ruleset_loader: Callable[[str], Ruleset] = load_ruleset
    seed: str | None = None
    deleted: set[str] = field(default_factory=set)
    event_prefix: str = ""
    """Prepended to event ids: console sessions reuse short message ids, scenarios do not."""
    guild: str = GUILD
    """The simulated server's id (``shard-sim`` plays many servers, each in a world of its own)."""
    _events: int = 0

    @property
    def service(self) -> RoundService:
        return self.router.service

    @property
    def tables(self) -> TableService | None:
        return self.router.tables

    def resolve(self, token: str) -> str:
        """``@name`` names a member; punctuation after it counts only when the name has none.

        Names here are unique and each is both the member's id and username, so a name either
        is a member's, exactly, or is refused with the words Discord uses for a name nobody has.
        """
        text = token.strip()
        name = text.removeprefix("@")
        if text.startswith("@") and name:
            if name in self.members:
                return name
            bare = name.rstrip(_TRAILING)
            if bare in self.members:
                return bare
        raise unknown_member(name)

    def _say(self, said: Said) -> None:
        keep = SAYING.get()
        if keep is not None:
            keep(said)
        elif self.on_say is not None:
            self.on_say(said)

    def feeds_beside(self, line: Line) -> bool:
        """Whether ``line`` may run while earlier lines still commit: a round's command of ``BESIDE_WORDS``
        or talk, typed in a channel that is no table's thread, outside the discussion channels, in a
        round under way. Such a line reads nothing but the round's state and its one write is queued
        behind theirs; every other line waits until they are durable."""
        if not isinstance(line, MessageLine) or not self.started or line.channel == DM or line.id in self.seen_messages:
            return False
        name = line.channel.lstrip("#")
        role = channel_role(name)
        if role in _DISCUSSED or (role is ChannelRole.OTHER and is_table_name(name)):
            return False
        content = line.content
        if not commands.is_command(content):
            return True
        return len(content) <= commands.MAX_COMMAND_LENGTH and commands.command_word(content) in BESIDE_WORDS

    def _emit(self, posts: list[Post], *, channel: str, actor: str, reply_to: str | None, at: datetime) -> None:
        for post in posts:
            when = post.at or at
            if post.channel is ChannelRole.MOD_LOG:
                continue  # posted only where a moderator bound a channel to it (`/setup`), which the simulator has not
            if post.to:
                # for some seats only: each of their members privately, never a channel
                for member in post.to:
                    self._say(Said(when, post.text, to=member, reply_to=reply_to if member == actor else None))
            elif post.private or (channel == DM and post.thread is None and post.channel is None):
                self._say(Said(when, post.text, to=actor, reply_to=reply_to))
            elif post.thread is not None:
                # a table's thread: an answer when the command was typed there, an announcement elsewhere
                answer = reply_to if post.thread == channel else post.reply_to
                self._say(Said(when, post.text, channel=post.thread, reply_to=answer))
            elif post.channel is not None:
                self._say(Said(when, post.text, channel=post.channel.value, reply_to=post.reply_to))
            else:
                self._say(Said(when, post.text, channel=channel, reply_to=reply_to))

    async def advance(self, to: datetime) -> None:
        """Run the scheduled work due up to ``to``; the virtual clock never goes back."""
        if self.now is not None and to < self.now:
            return
        self.now = to
        if self.started:
            posts = await self.router.due_work(self.guild, to)
            self._emit(posts, channel="game-actions", actor="", reply_to=None, at=to)

    async def feed(self, line: Line, *, number: int | None = None, replaying: bool = True) -> None:
        """Apply one scenario line. ``replaying=False`` only records what the line tells us."""
        self.members.update(line_members(line))
        if isinstance(line, SetupLine) and not self.started:
            self.admins.update(line.admins)
        if isinstance(line, MessageLine):
            self.messages.setdefault(line.id, line)
        if not replaying:
            if isinstance(line, MessageLine):
                self.seen_messages.add(line.id)
            if isinstance(line, DeleteLine):
                self.deleted.add(line.message)
            if isinstance(line, SetupLine):
                self.started = True
            return
        await self.advance(line.at)
        if isinstance(line, SetupLine):
            await self._setup(line, number)
        elif isinstance(line, MessageLine):
            await self._message(line, number)
        elif isinstance(line, LeaveLine):
            await self._leave(line, number)
        elif isinstance(line, ReactLine):
            await self._react(line, number)
        elif isinstance(line, EditLine | DeleteLine):
            await self._change(line, number)

    def context(self, actor: str, channel: str, at: datetime, event_id: str) -> Context:
        return Context(
            actor=actor,
            actor_name=actor,
            channel=channel_role(channel),
            at=at,
            is_moderator=actor in self.admins,
            event_id=event_id,
        )

    async def _setup(self, line: SetupLine, number: int | None) -> None:
        if self.started:
            return
        ruleset = self.ruleset_loader(line.ruleset)
        phase, presenting = opening(ruleset, line.at)
        ctx = Context(actor="setup", actor_name="setup", channel=ChannelRole.OTHER, at=line.at, event_id="setup")
        action = StartRound(ruleset=ruleset, phase=phase, presenting_open=presenting, moderators=tuple(line.admins))
        outcome = await self.service.start(self.guild, ctx, action, seed=self.seed, source_line=number)
        self.started = outcome.accepted or outcome.duplicate or (await self.service.state(self.guild)) is not None

    async def _message(self, line: MessageLine, number: int | None) -> None:
        if line.id in self.seen_messages:
            return
        self.seen_messages.add(line.id)
        if not self.started:
            if line.content.lstrip().startswith("!"):
                where = {"to": line.author} if line.channel == DM else {"channel": line.channel}
                self._say(Said(line.at, "The round has not started yet.", reply_to=line.id, **where))
            return
        ctx = self.context(line.author, line.channel, line.at, f"msg:{self.event_prefix}{line.id}")
        dm = line.channel == DM
        # channels the round does not name may be thread games' threads, named as tables are (``wikipedia-1``)
        name = line.channel.lstrip("#")
        thread = name if ctx.channel is ChannelRole.OTHER and not dm and is_table_name(name) else None
        parked = PARKED.get()
        if parked is not None:
            self.service.on_queued = parked
        try:
            posts = await self.router.message(
                self.guild,
                ctx,
                line.content,
                self.resolve,
                message_id=line.id,
                source_line=number,
                thread=thread,
                dm=dm,
            )
        finally:
            if parked is not None and self.service.on_queued is parked:
                self.service.on_queued = None
        self._emit(posts, channel=line.channel, actor=line.author, reply_to=line.id, at=line.at)

    def _event_id(self, kind: str, message: str, number: int | None) -> str:
        """Scenario lines are unique by number; console lines by a counter."""
        return f"{kind}:{self.event_prefix}{message}:{number if number is not None else f'c{self._events}'}"

    async def _react(self, line: ReactLine, number: int | None) -> None:
        """Reactions on messages the server never saw are ignored."""
        if not self.started or line.message not in self.messages:
            return
        self._events += 1
        channel = self.messages[line.message].channel
        ctx = self.context(line.user, channel, line.at, self._event_id(line.type, line.message, number))
        await self.router.reaction(
            self.guild, ctx, line.message, line.emoji, added=line.type == "react", source_line=number
        )

    async def _change(self, line: EditLine | DeleteLine, number: int | None) -> None:
        original = self.messages.get(line.message)
        if not self.started or original is None or line.message in self.deleted:
            return
        self._events += 1
        ctx = self.context(original.author, original.channel, line.at, self._event_id(line.type, line.message, number))
        if isinstance(line, EditLine):
            posts = await self.router.edit(self.guild, ctx, line.message, line.content, source_line=number)
        else:
            self.deleted.add(line.message)
            posts = await self.router.delete(self.guild, ctx, line.message, source_line=number)
        self._emit(posts, channel=original.channel, actor=original.author, reply_to=None, at=line.at)

    async def _leave(self, line: LeaveLine, number: int | None) -> None:
        """A member leaves the server: a player stops being one, and their seats at the tables pass to the AI."""
        if not self.started:
            return
        state = await self.service.state(self.guild)
        if state is not None and line.user in state.players:
            ctx = self.context(line.user, "game-actions", line.at, f"leave:{line.user}:{iso(line.at)}:{number}")
            posts = await self.router.run(self.guild, ctx, Leave(left_server=True), source_line=number)
            self._emit(posts, channel="game-actions", actor=line.user, reply_to=None, at=line.at)
        ctx = self.context(line.user, "game-actions", line.at, f"left:{line.user}:{iso(line.at)}:{number}")
        posts = await self.router.left_tables(self.guild, ctx, source_line=number)
        self._emit(posts, channel="game-actions", actor=line.user, reply_to=None, at=line.at)


def describe_error(exc: ValidationError) -> str:
    first = exc.errors()[0]
    where = ".".join(str(p) for p in first.get("loc", ()) if p != "line")
    return f"{where}: {first.get('msg')}" if where else str(first.get("msg"))
