"""Typed ``@names`` on simulated Discord: a member who takes another's username as a nickname, or shares a
display name, gets nothing meant for someone else; the command is refused and lists who the name could be."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from bot.sim.replay import replay
from bot.sim.world import read_line
from games.tables import lobby
from games.wikipedia.state import WikipediaState

from .conftest import FRIDAY_NOON, Server
from .test_discord_tables import table, text_of, thread_of


@dataclass
class Lookalikes:
    mallory: Any
    """username ``mallory``, server nickname ``dave``: joined the server before dave."""
    dave: Any
    erin_k: Any
    """``erin.k`` and ``erin.j`` share the display name ``the_erin``."""
    erin_j: Any


async def lookalikes(s: Server) -> Lookalikes:
    found = Lookalikes(
        mallory=s.guild.add_member(s.env.create_user("mallory"), nick="dave"),
        dave=s.guild.add_member(s.env.create_user("dave")),
        erin_k=s.guild.add_member(s.env.create_user("erin.k", global_name="the_erin")),
        erin_j=s.guild.add_member(s.env.create_user("erin.j", global_name="the_erin")),
    )
    await s.env.settle()
    for member in (s.mod, s.alice, s.carol, found.mallory, found.dave, found.erin_k, found.erin_j):
        await member.send(s.game_actions, "!join")
    return found


def refusal(s: Server, channel: Any) -> Any:
    said = s.bot_messages(channel)
    assert said, "the command was answered"
    answer = said[-1]
    assert answer.content.startswith("Can't do that: "), answer.content
    assert not answer.mentions, "a refusal pings nobody"
    assert not answer.mention_everyone
    return answer


async def points(s: Server, member: Any) -> int:
    state = await s.state()
    return int(state.players[str(member.id)].points)


async def test_an_offer_to_a_name_two_members_go_by_is_refused_with_both(discord_server: Server) -> None:
    s = discord_server
    who = await lookalikes(s)
    await s.mod.send(s.game_actions, f"!admin give {s.alice.mention} 50 points")

    await s.alice.send(s.game_actions, "!offer @dave give 5 points for nothing")
    text = refusal(s, s.game_actions).content
    assert "more than one member goes by `@dave`: dave (`@dave`), dave (`@mallory`)" in text
    assert "Discord's @ list" in text
    await s.alice.send(s.game_actions, "!offer @the_erin give 5 points for nothing")
    text = refusal(s, s.game_actions).content
    assert r"the\_erin (`@erin.j`), the\_erin (`@erin.k`)" in text, "names are listed without markdown"
    assert not (await s.state()).trades, "no trade went to anyone"

    # the username, a real mention and a slash option each name exactly their member
    await s.alice.send(s.game_actions, "!offer @mallory give 5 points for nothing")
    await s.alice.send(s.game_actions, f"!offer {who.dave.mention} give 5 points for nothing")
    result = await s.alice.slash(s.game_actions, "offer", member=who.erin_j, give="5 points", get="nothing")
    assert result.response is not None
    trades = (await s.state()).trades
    assert [t.target for t in trades.values()] == [str(who.mallory.id), str(who.dave.id), str(who.erin_j.id)]


async def test_admin_gifts_go_only_to_a_member_named_for_certain(discord_server: Server) -> None:
    s = discord_server
    who = await lookalikes(s)

    await s.mod.send(s.game_actions, "!admin give @dave 50 points")
    assert "dave (`@mallory`)" in refusal(s, s.game_actions).content
    await s.mod.send(s.game_actions, "!admin give @the_erin 50 points")
    refusal(s, s.game_actions)
    assert [await points(s, m) for m in (who.mallory, who.dave, who.erin_k, who.erin_j)] == [0, 0, 0, 0]

    await s.mod.send(s.game_actions, "!admin give @Dave 50 points")
    refusal(s, s.game_actions)
    await s.mod.send(s.game_actions, "!admin give @erin.k 10 points")
    result = await s.mod.slash(s.game_actions, "admin give", member=who.dave, items="20 points")
    assert result.response is not None
    assert [await points(s, m) for m in (who.mallory, who.dave, who.erin_k, who.erin_j)] == [0, 20, 10, 0]


async def test_an_inventory_look_up_by_a_nickname_alone_is_refused(discord_server: Server) -> None:
    s = discord_server
    who = await lookalikes(s)
    await s.mod.send(s.game_actions, f"!admin give {who.mallory.mention} 7 points")

    await s.carol.send(s.game_actions, "!inventory @dave")
    assert "dave (`@mallory`)" in refusal(s, s.game_actions).content
    s.guild.add_member(s.env.create_user("r_77", global_name="Robert"))
    await s.env.settle()
    await s.carol.send(s.game_actions, "!inventory @Robert")
    text = refusal(s, s.game_actions).content
    assert "`@Robert` is only the nickname or display name of Robert (`@r_77`), not a username" in text
    await s.carol.send(s.game_actions, "!inventory @nobody_here")
    assert "no member is called `@nobody_here`" in refusal(s, s.game_actions).content

    # a mention of someone who is not on the server is refused as such
    await s.carol.send(s.game_actions, "!inventory <@123456789012345678>")
    assert "not on this server" in refusal(s, s.game_actions).content
    # a nickname that tries to ping everyone is quoted harmlessly
    s.guild.add_member(s.env.create_user("loud"), nick="@everyone")
    await s.env.settle()
    await s.carol.send(s.game_actions, "!inventory @@everyone")
    assert "@\u200beveryone (`@loud`)" in refusal(s, s.game_actions).content

    await s.carol.send(s.game_actions, "!inventory @mallory")
    shown = s.bot_messages(s.game_actions)[-1]
    assert "7 points" in text_of(shown), "mallory's holdings"


async def test_a_table_move_naming_a_lookalike_is_refused(discord_server: Server) -> None:
    s = discord_server
    who = await lookalikes(s)
    await s.alice.send(s.general, "!play wikipedia")
    thread = thread_of(s)
    await who.mallory.send(thread, "!join")  # sits as "dave": her nickname
    await who.dave.send(thread, "!join")  # sits as "dave-2"
    await s.alice.send(thread, "!start")
    seats = {str(m.id): m for m in (s.alice, who.mallory, who.dave)}
    names = {str(seat.member): seat.name for seat in (await table(s)).seats}
    assert [names[str(who.mallory.id)], names[str(who.dave.id)]] == ["dave", "dave-2"]

    # let the turn come to someone other than mallory, so a gift to her would not be refused anyway
    for _ in range(3):
        current = await table(s)
        mover = seats[next(p.member for p in current.seats if p.name == current.turn_seat) or ""]
        if mover is not who.mallory:
            break
        await mover.send(thread, "!end")
    assert mover is not who.mallory
    state: WikipediaState = lobby.game_state(await table(s))
    card = state.hands[state.current][0]
    moves = (await table(s)).moves

    await mover.send(thread, f"!give {card} @dave")
    text = refusal(s, thread).content
    assert "could be the seat **dave** (`@mallory`) or the seat **dave-2** (`@dave`)" in text
    result = await mover.slash(thread, "move", move=f"give {card} @dave")
    assert result.ephemeral, "a slash command's refusal is shown only to its member"
    assert result.response is not None
    assert result.response.content == text
    assert (await table(s)).moves == moves, "no card moved"

    await mover.send(thread, f"!give {card} {who.dave.mention}")
    state = lobby.game_state(await table(s))
    assert card in state.hands[state.seats.index("dave-2")], "a mention gives to the member it names"
    assert card not in state.hands[state.seats.index("dave")]


async def test_the_simulator_refuses_a_name_nobody_has_in_the_words_discord_uses(discord_server: Server) -> None:
    s = discord_server
    typed = ["!offer @zed give 5 points for nothing", "!admin give @zed 5 points", "!inventory @zed", "!inventory zed"]
    at = FRIDAY_NOON.isoformat()
    scenario: list[dict[str, Any]] = [
        {"at": at, "type": "setup", "admins": ["mod"]},
        {"at": at, "type": "message", "id": "join", "channel": "game-actions", "author": "mod", "content": "!join"},
    ]
    scenario += [
        {"at": at, "type": "message", "id": f"m{i}", "channel": "game-actions", "author": "mod", "content": text}
        for i, text in enumerate(typed)
    ]
    result = await replay([(n, read_line(line)) for n, line in enumerate(scenario)])
    simulated = {entry["reply_to"]: entry["content"] for entry in result.transcript if entry.get("reply_to")}
    assert simulated["m0"].startswith("Can't do that: no member is called `@zed`")

    await s.mod.send(s.game_actions, "!join")
    for i, text in enumerate(typed):
        await s.mod.send(s.game_actions, text)
        assert s.last_answer(s.game_actions) == simulated[f"m{i}"], text
