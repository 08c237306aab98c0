"""Who acts, where and when: what every adapter supplies with an action."""

from __future__ import annotations

from datetime import datetime
from enum import StrEnum

from pydantic import BaseModel, ConfigDict


class ChannelRole(StrEnum):
    """The channels the ruleset names; ``OTHER`` is any channel it does not.

    ``MOD_LOG`` is no channel of the rules: where the moderators' log is posted, when a moderator
    chose one (``/setup channel mod-log``); nothing is posted there otherwise. ``BOARD`` neither:
    where the lot board is kept, when a moderator chose one (otherwise it is pinned in #auctions).
    """

    AUCTIONS = "auctions"
    GAME_ACTIONS = "game-actions"
    PROPOSALS = "proposals"
    JUDGE_ELECTIONS = "judge-elections"
    OTHER = "other"
    MOD_LOG = "mod-log"
    BOARD = "board"

    @property
    def mention(self) -> str:
        return f"#{self.value}"


class Context(BaseModel):
    """The circumstances of one action, stored with it so the log replays exactly."""

    model_config = ConfigDict(frozen=True)

    actor: str
    actor_name: str
    channel: ChannelRole
    at: datetime
    is_moderator: bool = False
    event_id: str = ""
    private: bool = False
    """Only the acting member saw the command: a DM to the bot or a slash command (a sealed bid needs it)."""


SYSTEM = "system"
"""The actor of scheduled work."""
