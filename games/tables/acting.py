"""The tables' service calls that change a table: open, join, leave, AI seats, start, a move, end.

Each builds one logged action and goes down the one path of ``TableCore._run`` (dedupe, catch the
table's clocks up, build, commit). A secret move is accepted only from where nobody else saw it.
"""

from __future__ import annotations

import secrets
from collections.abc import Sequence
from datetime import datetime
from typing import Any

from games.tables import lobby
from games.tables.actions import (
    ArrangedSeat,
    EndTable,
    JoinTable,
    LeaveTable,
    OpenTable,
    SetAISeats,
    StartTable,
    TableAction,
)
from games.tables.core import Actor, Joining, TableCore, TableOutcome, _error
from games.tables.engine import BadCommandError, GameRuleError
from games.tables.i18n import tr
from games.tables.model import Table
from games.tables.players import MemberLookup, seat_resolver
from games.tables.posts import TablePost
from games.tables.registry import get_game
from games.tables.text import framework_error


class SecretInOpenError(BadCommandError):
    """A secret move typed where others can read it; answered privately, with the private ways."""


def _shown(text: str) -> str:
    words = text.strip().removeprefix("!")
    return words if len(words) <= 60 else words[:60] + "…"


def _secret_setup(game: str, setup: str | None) -> bool:
    """Whether what a seat brings (the game's ``setup_model`` JSON) would give a secret away if read."""
    engine = get_game(game)
    model = engine.setup_model
    if setup is None or model is None:
        return False
    try:
        return bool(engine.is_secret_setup(model.model_validate_json(setup)))
    except ValueError:
        return False  # not valid at all: the transition says why


def _refused_privately(outcome: TableOutcome, at: datetime) -> TableOutcome:
    """A secret typed in the open: the refusal goes to its member alone (kind ``secret``)."""
    posts = tuple(
        TablePost(p.text, private=True, error=True, kind="secret", at=at) if p.error else p for p in outcome.posts
    )
    return TableOutcome(outcome.table, posts, outcome.error, outcome.duplicate, outcome.events)


class Acting(TableCore):
    """What changes tables, on top of the service core."""

    # -- acting --

    async def open(
        self,
        guild: str,
        actor: Actor,
        game: str,
        *,
        at: datetime,
        event_id: str,
        ai_seats: int = 0,
        turn_seconds: int | None = None,
        game_options: str | None = None,
        lang: str | None = None,
        setup: str | None = None,
        lobby_hours: int | bool | None = False,
        source_line: int | None = None,
        private: bool = True,
    ) -> TableOutcome:
        """Open a table of ``game`` with the actor seated: its thread is ``GAME-N``.

        ``lobby_hours``: False keeps the default expiry of lobbies, None: this lobby never expires.
        ``private``: only the member saw the command (a slash command); a secret ``setup`` typed
        in a channel is refused.
        """
        try:
            engine = get_game(game)
        except GameRuleError as exc:
            return _error(exc)
        speaks = lang or engine.languages[0]
        if not private and _secret_setup(engine.name, setup):
            why = SecretInOpenError(
                tr(
                    speaks,
                    "secret.refused_play",
                    title=engine.title,
                    game=engine.name,
                    button=tr(speaks, "button.join"),
                )
            )
            return _refused_privately(_error(why, speaks), at)
        options = self._defaults
        if turn_seconds is not None:
            options = options.model_copy(update={"turn_seconds": turn_seconds})
        if lobby_hours is not False:
            options = options.model_copy(update={"lobby_hours": lobby_hours})
        return await self._opening(
            guild,
            engine.name,
            actor,
            at=at,
            event_id=event_id,
            source_line=source_line,
            member=actor.id,
            member_name=actor.name,
            ai_seats=ai_seats,
            options=options,
            game_options=game_options,
            lang=lang,
            setup=setup,
        )

    async def _opening(
        self,
        guild: str,
        game: str,
        actor: Actor,
        *,
        at: datetime,
        event_id: str,
        source_line: int | None,
        joining: Joining | None = None,
        **fields: Any,
    ) -> TableOutcome:
        """Open the guild's next table of ``game`` (``OpenTable`` with ``fields``), numbered after the last
        one the store holds (read again when another process opened one meanwhile)."""

        async def attempt(_: list[TablePost]) -> TableOutcome:
            if await self.logged(guild, event_id):
                return TableOutcome(duplicate=True)
            number = await self._store.last_number(guild, game) + 1
            name = f"{game}-{number}"
            seed = f"{self._seed}:{guild}:{name}" if self._seed is not None else secrets.token_hex(16)
            action = OpenTable(game=game, number=number, seed=seed, **fields)
            return await self._commit(
                guild, None, action, actor=actor.id, at=at, event_id=event_id, source_line=source_line, joining=joining
            )

        return await self._fresh(guild, attempt)

    async def arrange(
        self,
        guild: str,
        actor: Actor,
        game: str,
        seats: Sequence[ArrangedSeat],
        *,
        at: datetime,
        event_id: str,
        game_options: str | None = None,
        turn_seconds: int | None = None,
        lang: str | None = None,
        source_line: int | None = None,
        joining: Joining | None = None,
    ) -> TableOutcome:
        """Open a table of ``game`` for members who agreed to play (a challenge accepted): every seat is
        taken with what each brings, and the game starts at once, in one logged action.

        ``actor``: who made it happen (the member who accepted). ``joining``: another store's part of
        the same transaction (the library records the challenge accepted), given the new table.
        """
        if not seats:
            return _error(framework_error(BadCommandError, "error.arranged_needs_players"))
        try:
            engine = get_game(game)
        except GameRuleError as exc:
            return _error(exc)
        options = self._defaults
        if turn_seconds is not None:
            options = options.model_copy(update={"turn_seconds": turn_seconds})
        first, *others = seats
        return await self._opening(
            guild,
            engine.name,
            actor,
            at=at,
            event_id=event_id,
            source_line=source_line,
            joining=joining,
            member=first.member,
            member_name=first.member_name,
            options=options,
            game_options=game_options,
            lang=lang,
            setup=first.setup,
            others=tuple(others),
            start=True,
        )

    async def join(
        self,
        guild: str,
        table: str,
        actor: Actor,
        *,
        at: datetime,
        event_id: str,
        source_line: int | None = None,
        setup: str | None = None,
        private: bool = True,
    ) -> TableOutcome:
        """Sit down, or (seated already, in the lobby) change what one brings.

        ``private``: only the member saw the command (the **Join** form, a DM); a secret ``setup``
        typed in the thread is refused, like a secret move.
        """

        def build(found: Table) -> TableAction:
            if not private and _secret_setup(found.game, setup):
                raise SecretInOpenError(
                    tr(found.lang, "secret.refused_join", table=found.name, button=tr(found.lang, "button.join"))
                )
            return JoinTable(member=actor.id, member_name=actor.name, setup=setup)

        outcome = await self._run(guild, table, build, actor, at=at, event_id=event_id, source_line=source_line)
        return _refused_privately(outcome, at) if isinstance(outcome.error, SecretInOpenError) else outcome

    async def leave(
        self, guild: str, table: str, actor: Actor, *, at: datetime, event_id: str, source_line: int | None = None
    ) -> TableOutcome:
        return await self.act(
            guild, table, LeaveTable(member=actor.id), actor, at=at, event_id=event_id, source_line=source_line
        )

    async def set_ai(
        self,
        guild: str,
        table: str,
        actor: Actor,
        count: int,
        *,
        at: datetime,
        event_id: str,
        source_line: int | None = None,
    ) -> TableOutcome:

        def build(found: Table) -> TableAction:
            if not 0 <= count <= 20:
                raise BadCommandError(tr(found.lang, "error.ai_range"))
            return SetAISeats(member=actor.id, count=count, moderator=actor.moderator)

        return await self._run(guild, table, build, actor, at=at, event_id=event_id, source_line=source_line)

    async def start(
        self, guild: str, table: str, actor: Actor, *, at: datetime, event_id: str, source_line: int | None = None
    ) -> TableOutcome:
        action = StartTable(member=actor.id, moderator=actor.moderator)
        return await self.act(guild, table, action, actor, at=at, event_id=event_id, source_line=source_line)

    async def play(
        self,
        guild: str,
        table: str,
        actor: Actor,
        text: str,
        *,
        at: datetime,
        event_id: str,
        source_line: int | None = None,
        members: MemberLookup | None = None,
        private: bool = True,
    ) -> TableOutcome:
        """A move (typed, a button's command text, a DM): parsed by the game, checked, applied.

        ``members``: who the server's members are, to read a player named in the move
        (``games.tables.players``); None only for text the bot wrote itself (a menu choice).
        ``private``: the move reached the bot where nobody else saw it (a slash command, a button,
        a menu, a DM); a secret move typed in the thread (``private`` False) is refused.
        """

        def move(found: Table) -> TableAction:
            if not private and lobby.is_secret_text(found, text):
                # refused before it is read: a typo's refusal would repeat what follows the word
                raise SecretInOpenError(tr(found.lang, "secret.refused", table=found.name))
            try:
                parsed = lobby.parse_move(
                    found, actor.id, text, seat_resolver(found, members), moderator=actor.moderator
                )
            except BadCommandError:
                if not private and lobby.is_near_secret_text(found, text):
                    # a secret move's word mistyped: its refusal in the thread would leave the card there
                    raise SecretInOpenError(tr(found.lang, "secret.refused", table=found.name)) from None
                raise
            if lobby.is_secret_move(found, parsed):
                if not private:
                    raise SecretInOpenError(tr(found.lang, "secret.refused", table=found.name))
                receipts.append(tr(found.lang, "secret.received", table=found.name, move=_shown(text)))
            return parsed

        receipts: list[str] = []
        outcome = await self._run(guild, table, move, actor, at=at, event_id=event_id, source_line=source_line)
        receipt = receipts[0] if receipts else None
        if outcome.error is not None and isinstance(outcome.error, SecretInOpenError):
            return _refused_privately(outcome, at)
        if receipt is not None and outcome.accepted:
            mine = TablePost(receipt, private=True, kind="secret-receipt", at=at)
            return TableOutcome(outcome.table, (mine, *outcome.posts), outcome.error, outcome.duplicate, outcome.events)
        return outcome

    async def end(
        self, guild: str, table: str, actor: Actor, *, at: datetime, event_id: str, source_line: int | None = None
    ) -> TableOutcome:
        """Moderators: abandon the table."""
        action = EndTable(member=actor.id, moderator=actor.moderator)
        return await self.act(guild, table, action, actor, at=at, event_id=event_id, source_line=source_line)

    async def act(
        self,
        guild: str,
        table: str,
        action: TableAction,
        actor: Actor,
        *,
        at: datetime,
        event_id: str,
        source_line: int | None = None,
    ) -> TableOutcome:
        """Apply one lobby action to the table called (or threaded as) ``table``."""
        return await self._run(
            guild, table, lambda _found: action, actor, at=at, event_id=event_id, source_line=source_line
        )
