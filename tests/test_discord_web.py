"""The web record inside the Discord bot: served on WEB_PORT from the bot's own state, `!web` and `/web`,
`!admin web`, the server's name and links to its messages."""

from __future__ import annotations

import json
import re
from pathlib import Path

import aiohttp
import pytest

from bot.settings import Settings

from .conftest import Server


@pytest.fixture
def bot_settings(tmp_path: Path) -> Settings:
    return Settings(
        _env_file=None,  # type: ignore[call-arg]
        discord_token=None,
        database_path=tmp_path / "nomic.db",
        sqlite_synchronous="NORMAL",
        board_refresh_seconds=30,
        moderator_role=None,
        web_port=0,
        web_host="127.0.0.1",
    )


async def _get(url: str) -> tuple[int, str]:
    async with aiohttp.ClientSession() as session, session.get(url) as response:
        return response.status, await response.text()


def _link(text: str) -> str:
    found = re.search(r"http://127\.0\.0\.1:\d+/g/\d+", text)
    assert found is not None, text
    return found.group(0)


async def test_the_bot_serves_its_record_and_web_gives_the_link(discord_server: Server) -> None:
    s = discord_server
    await s.join_all()
    await s.alice.send(s.game_actions, "!web")
    link = _link(s.last_answer(s.game_actions))
    assert link.endswith(f"/g/{s.guild.id}")
    slash = await s.bob.slash(s.general, "web")
    assert slash.response is not None
    assert _link(slash.response.content) == link

    status, body = await _get(link + ".json")
    assert status == 200
    data = json.loads(body)
    assert data["guild"]["name"] == "Nomic"  # the server's own name
    assert data["players"] == 4

    await s.alice.send(s.proposals, "urgent: Let the record show the bids.")
    state = await s.state()
    [proposal] = state.proposals.values()
    status, body = await _get(f"{link}/proposals/{proposal.number}.json")
    assert status == 200
    channel = s.proposals.id
    assert json.loads(body)["discord_url"] == f"https://discord.com/channels/{s.guild.id}/{channel}/{proposal.message}"

    await s.alice.send(s.general, "!admin web off")
    assert s.last_answer(s.general).startswith("Can't do that: only moderators")
    result = await s.mod.slash(s.general, "admin web", mode="off")
    assert result.response is not None
    assert result.response.content.startswith("Done: the web record of this server is now off")
    status, _ = await _get(link)
    assert status == 404
    await s.mod.send(s.general, "!admin web on")
    status, _ = await _get(link + "/players")
    assert status == 200
    before = len(s.bot_messages(s.game_actions))
    await s.bob.send(s.game_actions, "!lots")  # the bot goes on answering
    assert len(s.bot_messages(s.game_actions)) == before + 1
