# The bot's image, for docker-compose.yml (PostgreSQL and two sharded processes) or any container runner.
# Settings come from the environment (.env.example lists them all); the image holds no secret.
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1

RUN useradd --system --create-home --home-dir /var/lib/nomic-bot --shell /usr/sbin/nologin nomic
WORKDIR /opt/nomic-bot
COPY pyproject.toml README.md ./
COPY bot ./bot
COPY games ./games
COPY scheduler ./scheduler
COPY data ./data
RUN pip install --no-cache-dir .

USER nomic
WORKDIR /var/lib/nomic-bot
# /healthz answers 200 while the process holds its servers' locks (HEALTH_PORT must be set for this check).
HEALTHCHECK --interval=30s --timeout=5s --start-period=60s --retries=3 \
    CMD python -c "import os, urllib.request; urllib.request.urlopen(f'http://127.0.0.1:{os.environ[\"HEALTH_PORT\"]}/healthz', timeout=4)"
CMD ["python", "-m", "bot", "run"]
