"""The example sharded deployment (docker-compose.yml, Dockerfile) agrees with the settings the bot reads.

Docker is not run here: the files are read, and every name they set must be one the bot knows, so a
renamed setting cannot leave the example silently misconfigured.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import yaml

from bot.settings import Settings
from bot.shards import ShardPlan, parse_shard_ids

ROOT = Path(__file__).resolve().parent.parent
SETTINGS = {name.upper() for name in Settings.model_fields}


def compose() -> dict[str, Any]:
    loaded = yaml.safe_load((ROOT / "docker-compose.yml").read_text(encoding="utf-8"))
    assert isinstance(loaded, dict)
    return loaded


def bots() -> dict[str, dict[str, str]]:
    services = compose()["services"]
    return {
        name: {str(k): str(v) for k, v in service["environment"].items()}
        for name, service in services.items()
        if service.get("image") == "nomic-bot" or service.get("build")
    }


def test_the_compose_file_runs_postgresql_and_two_bot_processes() -> None:
    services = compose()["services"]
    assert services["db"]["image"].startswith("postgres:")
    assert len(bots()) == 2
    for name in bots():
        assert services[name]["depends_on"]["db"]["condition"] == "service_healthy"


def test_every_setting_the_compose_file_gives_is_one_the_bot_reads() -> None:
    for name, env in bots().items():
        unknown = set(env) - SETTINGS
        assert not unknown, (name, unknown)
        assert env["DATABASE_URL"].startswith("postgresql://"), name  # the shared store holds the locks
        assert "${POSTGRES_PASSWORD" in env["DATABASE_URL"]  # a secret from the environment, never written here
        assert env["DISCORD_TOKEN"].startswith("${DISCORD_TOKEN")


def test_the_two_processes_share_every_shard_exactly_once() -> None:
    runs: list[int] = []
    counts = set()
    for env in bots().values():
        count = int(env["SHARD_COUNT"])
        counts.add(count)
        ids = parse_shard_ids(env["SHARD_IDS"])
        assert ids is not None
        ShardPlan(count=count, ids=ids)  # valid as the bot reads it
        runs.extend(ids)
    assert len(counts) == 1
    assert sorted(runs) == list(range(counts.pop()))


def test_each_process_serves_healthz_on_the_port_the_container_publishes() -> None:
    services = compose()["services"]
    published = []
    for name, env in bots().items():
        port = env["HEALTH_PORT"]
        assert env["HEALTH_HOST"] == "0.0.0.0"  # noqa: S104 - reachable from outside the container
        (mapping,) = services[name]["ports"]
        host, outside, inside = mapping.split(":")
        assert (host, inside) == ("127.0.0.1", port)
        published.append(outside)
    assert len(set(published)) == 2


def test_the_dockerfile_runs_the_bot_as_a_user_and_checks_its_health() -> None:
    text = (ROOT / "Dockerfile").read_text(encoding="utf-8")
    assert re.search(r'^CMD \["python", "-m", "bot", "run"\]$', text, re.MULTILINE)
    assert re.search(r"^USER nomic$", text, re.MULTILINE)
    assert "/healthz" in text
    assert "HEALTH_PORT" in SETTINGS


def test_env_example_documents_the_sharding_settings() -> None:
    example = (ROOT / ".env.example").read_text(encoding="utf-8")
    for name in ("SHARD_COUNT", "SHARD_IDS", "HEALTH_PORT", "HEALTH_HOST", "LOG_FORMAT"):
        assert re.search(rf"^{name}=", example, re.MULTILINE), name
