"""Placements on simulated Discord: the announcement in #game-actions, `!placements` and `/placements page:`."""

from __future__ import annotations

from datetime import UTC, datetime

from .conftest import Server

SATURDAY = datetime(2026, 12, 5, tzinfo=UTC)
"""The placements after the fixture's clock (Friday noon, bartering)."""
HANDS = ("AS KS QS JS 10S", "9C 9D 9H 9S 2D", "KD KC KH 3D 3C", "2D 2H 5C 8C QH")


async def test_placements_are_announced_and_listed_by_prefix_and_slash(discord_server: Server) -> None:
    s = discord_server
    await s.join_all()
    members = (s.mod, s.alice, s.bob, s.carol)
    for member, hand in zip(members, HANDS, strict=True):
        await s.mod.send(s.game_actions, f"!admin give {member.mention} {hand}")
        await member.send(s.game_actions, f"!present {hand}")

    await s.advance(SATURDAY)
    announced = [m.content for m in s.bot_messages(s.game_actions) if m.content.startswith("Placements of")]
    assert len(announced) == 1
    lines = announced[0].splitlines()
    assert lines[0] == "Placements of the 4 presented hands:"
    assert lines[1] == "1. mod: AS KS QS JS 10S, Straight Flush - wins 20 points, 1 Standard Proposal-Maker"
    assert lines[4] == "4. carol: QH 8C 5C 2H 2D, One Pair - wins 20 points"

    result = await s.alice.slash(s.general, "placements")
    assert result.response is not None
    embed = result.response.embeds[0]
    assert embed.title == "Placements"
    assert (embed.description or "").splitlines() == ["The last placements (4 presented hands):", *lines[1:]]

    await s.bob.send(s.general, "!placements 2")
    assert s.last_answer(s.general) == "Can't do that: the list of placements has 1 page."
    result = await s.bob.slash(s.general, "placements", page=2)
    assert result.response is not None
    assert result.response.content == "Can't do that: the list of placements has 1 page."

    await s.carol.send(s.general, "!help")
    shown = s.bot_messages(s.general)[-1]
    assert "`!placements [PAGE]`" in "".join(e.description or "" for e in shown.embeds)
