"""Settings from the environment or ``.env``; the token is a secret and never printed."""

from __future__ import annotations

from pathlib import Path

from pydantic import Field, SecretStr
from pydantic_settings import BaseSettings, SettingsConfigDict


class Settings(BaseSettings):
    model_config = SettingsConfigDict(env_file=".env", env_file_encoding="utf-8", extra="ignore")

    discord_token: SecretStr | None = Field(
        default=None, description="the bot's token; without it `make run` opens the console"
    )
    database_path: Path = Field(default=Path("nomic.db"), description="the SQLite file of the live bot")
    sqlite_synchronous: str = Field(default="FULL", description="FULL (default) or NORMAL; FULL survives power loss")
    ruleset: str = Field(default="default", description="the ruleset file in data/rulesets/ for new rounds")
    command_prefix: str = Field(default="!", description="the prefix of text commands")
    moderator_role: str | None = Field(default=None, description="name of a role whose members are moderators")
    log_level: str = Field(default="INFO", description="DEBUG, INFO, WARNING or ERROR")
    sync_commands_globally: bool = Field(
        default=False,
        description="register the slash commands globally at start (only when they changed since the last sync)",
    )
    board_refresh_seconds: float = Field(
        default=5.0, ge=0, description="during a burst of bids, post the refreshed lot board at most this often"
    )

    @property
    def has_token(self) -> bool:
        return self.discord_token is not None and bool(self.discord_token.get_secret_value().strip())
