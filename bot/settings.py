"""Settings from the environment or ``.env``; the token and the database URL are secrets, never printed."""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import Field, SecretStr, field_validator, model_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

from bot.shards import ShardPlan, parse_shard_ids
from data.base import LEASE_SECONDS, Target, target


class Settings(BaseSettings):
    model_config = SettingsConfigDict(
        env_file=".env", env_file_encoding="utf-8", extra="ignore", hide_input_in_errors=True
    )
    """``hide_input_in_errors``: a value refused at start may be a secret (the token, a URL with a password)."""

    discord_token: SecretStr | None = Field(
        default=None, description="the bot's token; without it `make run` opens the console"
    )
    database_url: SecretStr | None = Field(
        default=None,
        description="where the bot keeps its rounds: sqlite:///FILE, a path, or postgresql://USER:PASSWORD@HOST/DB"
        " (unset: the SQLite file DATABASE_PATH); a secret, never printed",
    )
    database_path: Path = Field(default=Path("nomic.db"), description="the SQLite file, when DATABASE_URL is unset")
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
        default=3.0, ge=0, description="during a burst of bids, edit the lot board at most this often"
    )
    bids_answer_seconds: float = Field(
        default=2.5,
        ge=0,
        description="during a burst of `!bid`, change each channel's one 'Bids received' message at most this often",
    )

    web_port: int | None = Field(
        default=None, ge=0, le=65535, description="serve the round's read-only web record on this port (unset: off)"
    )
    web_host: str = Field(
        default="127.0.0.1", description="the address the web record listens on (0.0.0.0: every interface)"
    )
    web_base_url: str | None = Field(
        default=None, description="the site's public address, for `!web` links (unset: http://WEB_HOST:WEB_PORT)"
    )

    shard_count: int | Literal["auto"] | None = Field(
        default=None,
        description="unset: one gateway connection; a number: that many shards; auto: as many as Discord advises",
    )
    shard_ids: str = Field(
        default="auto", description="the shards this process runs, e.g. 0,1 or 0-3; auto: every shard of SHARD_COUNT"
    )
    guild_lease_seconds: float = Field(
        default=LEASE_SECONDS,
        ge=1,
        description="on PostgreSQL, how long a process that stops answering keeps its servers before another"
        " process may take them over (renewed every quarter of it; claims every half)",
    )
    health_port: int | None = Field(
        default=None, ge=0, le=65535, description="serve /healthz (this process's shards and store) on this port"
    )
    health_host: str = Field(default="127.0.0.1", description="the address /healthz listens on")
    log_format: Literal["text", "json"] = Field(
        default="text", description="text (default) or json: one JSON object a line, with guild and shard fields"
    )

    @field_validator("database_url", mode="before")
    @classmethod
    def _blank_url_is_unset(cls, value: object) -> object:
        return None if isinstance(value, str) and not value.strip() else value

    @field_validator("database_url")
    @classmethod
    def _known_engine(cls, value: SecretStr | None) -> SecretStr | None:
        """A URL of an engine the bot does not know is refused at start, with what it accepts."""
        if value is not None:
            target(value.get_secret_value())
        return value

    @property
    def database(self) -> Target:
        """The database: ``DATABASE_URL`` when set, else the SQLite file ``DATABASE_PATH``."""
        if self.database_url is not None:
            return target(self.database_url.get_secret_value())
        return target(self.database_path)

    @field_validator("web_port", "web_base_url", "health_port", "shard_count", mode="before")
    @classmethod
    def _blank_is_unset(cls, value: object) -> object:
        """``WEB_PORT=`` in .env (as .env.example has it) means unset, not an error."""
        return None if isinstance(value, str) and not value.strip() else value

    @field_validator("log_format", mode="before")
    @classmethod
    def _lower(cls, value: object) -> object:
        return value.strip().lower() if isinstance(value, str) else value

    @model_validator(mode="after")
    def _shards_agree(self) -> Settings:
        """SHARD_IDS out of SHARD_COUNT's range stops the bot at start, not at its first guild."""
        self.shard_plan()
        return self

    def shard_plan(self) -> ShardPlan:
        """The shards this process runs (``count`` None: unsharded, or the count Discord advises)."""
        count = self.shard_count if isinstance(self.shard_count, int) else None
        return ShardPlan(count=count, ids=parse_shard_ids(self.shard_ids))

    @property
    def sharded(self) -> bool:
        """Whether the bot runs discord.py's sharded client (``SHARD_COUNT`` set)."""
        return self.shard_count is not None

    def web_url(self, port: int | None = None) -> str | None:
        """Where members reach the web record (None: it is not served)."""
        if self.web_port is None:
            return None
        if self.web_base_url:
            return self.web_base_url.rstrip("/")
        host = "127.0.0.1" if self.web_host in {"0.0.0.0", "::", ""} else self.web_host  # noqa: S104 - a name
        return f"http://{host}:{port if port is not None else self.web_port}"

    @property
    def has_token(self) -> bool:
        return self.discord_token is not None and bool(self.discord_token.get_secret_value().strip())
