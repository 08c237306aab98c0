"""Where the card library meets the battles: challenges become tables, and a battle's end moves its kitty.

``!challenge`` words are answered here (the library records challenges; the tables play battles).
Accepting a challenge opens the battle's table (``ictc-N``) with both players seated, each with
their deck's copies, and starts it, in one transaction with the library's record of the accepted
challenge (and of the two having met). When the table ends, however it ends, ``ending`` gives the
tables' transaction the library's part: the winner's kitty (the loser's copies turned over at the
start) changes hands and every copy of both decks is free again.

Locks are taken in one order: the tables' guild lock first (the table service holds it when it
asks for ``joining`` or ``ending``), then the library's.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from datetime import datetime
from typing import Any

from games.ictc import challenges, engine
from games.ictc.actions import AcceptChallenge, CopyMove, EndChallenge, IssueChallenge
from games.ictc.battle.engine import ENGINE as BATTLE
from games.ictc.battle.engine import KITTY
from games.ictc.battle.state import BattleOptions, BattleSetup, CardDef, DeckCard
from games.ictc.challenges import AcceptRequest, parse_challenge
from games.ictc.copies import deck_problems
from games.ictc.meetings import excluded
from games.ictc.service import LibraryService
from games.ictc.state import Deck, LibraryState, deck_key
from games.nomic.context import SYSTEM, ChannelRole, Context
from games.nomic.errors import RuleError
from games.tables.actions import ArrangedSeat
from games.tables.engine import GameRuleError, IllegalActionError
from games.tables.model import Table
from games.tables.service import Actor, TablePost, TableService


def _error(exc: Exception) -> list[TablePost]:
    return [TablePost(f"Can't do that: {str(exc).rstrip('.')}.", error=True, kind="error")]


def deck_setup(state: LibraryState, deck: Deck, copies: list[int]) -> BattleSetup:
    """What a member brings to a challenge's battle: each copy with its design's fields at its version."""
    defs: list[CardDef] = []
    index: dict[tuple[int, int], int] = {}
    cards: list[DeckCard] = []
    for number in copies:
        copy = state.copies[number]
        key = (copy.design, copy.version)
        if key not in index:
            design = state.designs[copy.design]
            version = design.version(copy.version) or design.current
            index[key] = len(defs)
            defs.append(CardDef(fields=version.fields, design=copy.design, version=version.number))
        cards.append(DeckCard(defn=index[key], copy_id=number))
    return BattleSetup(deck=deck.name, defs=tuple(defs), cards=tuple(cards), owner=deck.owner)


class Arena:
    """Challenges and the battles they become, for every guild."""

    def __init__(self, library: LibraryService, tables: TableService) -> None:
        self.library = library
        self.tables = tables

    async def command(
        self, guild: str, ctx: Context, text: str, resolve: Callable[[str], str], *, source_line: int | None = None
    ) -> list[TablePost]:
        """A ``!challenge`` command's answer (``LibraryConflictError`` from the store when another writer
        got there first: nothing was written)."""
        try:
            parsed = parse_challenge(text, resolve)
            if isinstance(parsed, AcceptRequest):
                return await self._accept(guild, ctx, parsed, source_line)
            if not parsed.changes_state:
                notes = engine.query(await self.library.state(guild), ctx, parsed)
                return [TablePost(n.text, kind="challenge", private=n.private) for n in notes]
        except (RuleError, GameRuleError) as exc:
            return _error(exc)
        outcome = await self.library.act(guild, ctx, parsed, source_line=source_line)
        if outcome.duplicate:
            return []
        if outcome.error is not None:
            return _error(outcome.error)
        to = (parsed.to,) if isinstance(parsed, IssueChallenge) else ()
        return [TablePost(n.text, kind="challenge", mentions=to) for n in outcome.notes]

    async def _accept(
        self, guild: str, ctx: Context, request: AcceptRequest, source_line: int | None
    ) -> list[TablePost]:
        state = await self.library.state(guild)
        challenge = challenges.open_to(state, ctx.actor, request.number)
        theirs = challenges.find_deck(state, ctx.actor, request.deck)
        mine = state.decks.get(deck_key(challenge.by, challenge.deck))
        if mine is None or deck_problems(state, mine):
            raise IllegalActionError(
                f"{state.name_of(challenge.by)}'s deck {challenge.deck} is no longer playable; they may challenge again"
            )
        out = excluded(state, challenge.by, challenge.to)
        first = challenges.battle_copies(state, mine, out[challenge.by])
        second = challenges.battle_copies(state, theirs, out[challenge.to])
        challenges.check_free(state, challenge, (*first, *second), theirs.name)
        seats = [
            ArrangedSeat(
                member=challenge.by,
                member_name=state.name_of(challenge.by),
                setup=deck_setup(state, mine, first).model_dump_json(),
            ),
            ArrangedSeat(
                member=ctx.actor, member_name=ctx.actor_name, setup=deck_setup(state, theirs, second).model_dump_json()
            ),
        ]
        accept_ctx = ctx
        number = challenge.number

        @asynccontextmanager
        async def joining(table: Table) -> AsyncIterator[Any]:
            async with self.library.lock(guild):
                action = AcceptChallenge(number=number, deck=theirs.name, table=table.name, copies=(*first, *second))
                try:
                    write = await self.library.join_action(
                        guild, accept_ctx, action, event_id=f"challenge:{number}:accept:{table.name}"
                    )
                except RuleError as exc:
                    raise IllegalActionError(str(exc)) from exc
                yield write

        options = BattleOptions(ante=challenge.ante).model_dump_json()
        actor = Actor(ctx.actor, ctx.actor_name, moderator=ctx.is_moderator)
        outcome = await self.tables.arrange(
            guild,
            actor,
            BATTLE.name,
            seats,
            at=ctx.at,
            event_id=ctx.event_id,
            game_options=options,
            source_line=source_line,
            joining=joining,
        )
        if outcome.duplicate:
            return []
        return list(outcome.posts)

    @asynccontextmanager
    async def ending(self, guild: str, table: Table, at: datetime) -> AsyncIterator[Any]:
        """The library's part of the transaction that ends ``table``: its challenge over, the kitty moved."""
        if table.game != BATTLE.name:
            yield None
            return
        async with self.library.lock(guild):
            state = await self.library.locked_state(guild)
            found = next(
                (c for c in state.challenges.values() if c.table == table.name and c.status.value == "playing"), None
            )
            if found is None:
                yield None
                return
            moves: list[CopyMove] = []
            winner: str | None = None
            for _seat, kind, value in table.outcomes:
                if kind != KITTY:
                    continue
                data = json.loads(value)
                winner = str(data["to"])
                moves += [CopyMove(copy_id=int(c), giver=str(data["from"]), taker=winner) for c in data["copies"]]
            if winner is None and table.winners:
                seat = table.seat_named(table.winners[0])
                winner = seat.member if seat is not None else None
            action = EndChallenge(table=table.name, winner=winner, moves=tuple(moves))
            ctx = Context(
                actor=SYSTEM, actor_name="the battle", channel=ChannelRole.OTHER, at=at, event_id=f"end:{table.name}"
            )
            after = engine.apply(state, ctx, action).state
            words = challenges.kitty_words(after, state, action)
            yield await self.library.join_action(
                guild, ctx, action, event_id=f"battle-end:{table.name}", notes=(words,) if words else ()
            )
