"""``python -m bot.web.load URL N C PATH...``: N GET requests, C at a time, over the paths, in turn.

The load of ``python -m bot bench --web``, run as a process of its own so that the client's work is
not done on the event loop being measured. Sends only to the address it is given (the benchmark gives
one on 127.0.0.1), and prints one JSON line: statuses, failures, seconds, and each request's latency.
"""

from __future__ import annotations

import asyncio
import json
import sys
import time
from collections import Counter

import aiohttp


async def load(base: str, requests: int, concurrency: int, paths: list[str]) -> dict[str, object]:
    statuses: Counter[int] = Counter()
    failures: Counter[str] = Counter()
    latencies: list[float] = []
    tracebacks = 0
    gate = asyncio.Semaphore(concurrency)
    timeout = aiohttp.ClientTimeout(total=60)

    async def one(session: aiohttp.ClientSession, path: str) -> None:
        nonlocal tracebacks
        async with gate:
            began = time.perf_counter()
            try:
                async with session.get(base + path, allow_redirects=False) as response:
                    body = await response.text()
                    statuses[response.status] += 1
                    tracebacks += "Traceback" in body
            except (aiohttp.ClientError, TimeoutError) as exc:
                failures[type(exc).__name__] += 1
            latencies.append(time.perf_counter() - began)

    connector = aiohttp.TCPConnector(limit=concurrency)
    began = time.perf_counter()
    async with aiohttp.ClientSession(connector=connector, timeout=timeout) as session:
        await asyncio.gather(*(one(session, paths[i % len(paths)]) for i in range(requests)))
    return {
        "seconds": time.perf_counter() - began,
        "statuses": {str(k): v for k, v in sorted(statuses.items())},
        "failures": dict(failures),
        "tracebacks": tracebacks,
        "latencies": latencies,
    }


def main(argv: list[str]) -> int:
    base, requests, concurrency, *paths = argv
    result = asyncio.run(load(base.rstrip("/"), int(requests), int(concurrency), paths))
    print(json.dumps(result))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
