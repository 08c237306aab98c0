"""``python -m bot bench``: the options read by the command line (``bot.cli``) sent to the measurement
they ask for, each in its own module of this package."""

from __future__ import annotations

import argparse
import asyncio
import sys
from pathlib import Path


class _NotACheckoutError(Exception):
    """``--baseline`` names a folder that holds no bot (said on stderr): a usage error."""


def _baseline(args: argparse.Namespace) -> Path | None:
    """The ``--baseline`` checkout, resolved."""
    baseline = args.baseline.resolve() if args.baseline is not None else None
    if baseline is not None and not (baseline / "bot" / "__main__.py").is_file():
        print(f"--baseline {args.baseline}: not a checkout of this bot (no bot/__main__.py)", file=sys.stderr)
        raise _NotACheckoutError
    return baseline


def _load_benches(args: argparse.Namespace) -> int:
    """``bench --load`` and ``bench --burst``: actions under load, and bursts of bids on simulated Discord."""
    baseline = _baseline(args)
    reports = []
    if args.load:
        from bot.bench.load import load_bench

        reports.append(
            asyncio.run(
                load_bench(actions=args.load_actions, rounds=args.load_rounds, where=args.dir, baseline=baseline)
            )
        )
    if args.burst:
        from bot.bench.burst import burst_bench
        from bot.bench.machine import BenchFailedError

        try:
            reports.append(asyncio.run(burst_bench(baseline=baseline)))
        except BenchFailedError as exc:
            print("\n\n".join([*reports, str(exc)]))
            return 1
    print("\n\n".join(reports))
    return 0


def _cpu_bench(args: argparse.Namespace) -> int:
    """``bench --baseline DIR`` alone: the busy week's CPU per command here and in ``DIR``, in turn."""
    from bot.bench.cpu import cpu_bench

    baseline = _baseline(args)
    if baseline is None:
        return 2
    print(cpu_bench(baseline, rounds=args.cpu_rounds, count_instructions=args.instructions))
    return 0


def _game_bench(game: str, runs: int) -> int:
    """``bench --game NAME``: the game's own timings, when its package brings any."""
    from games.tables.engine import GameRuleError
    from games.tables.registry import get_spec

    try:
        spec = get_spec(game)
    except GameRuleError as exc:
        print(str(exc), file=sys.stderr)
        return 2
    if spec.bench is None:
        print(f"{spec.name} has no benchmark of its own", file=sys.stderr)
        return 2
    from bot.bench.machine import Loaded

    loaded = Loaded()
    print(loaded.framed("\n".join(spec.bench(runs))))
    return 0


def bench_command(args: argparse.Namespace) -> int:
    """``python -m bot bench ...``: which measurement the options ask for."""
    try:
        return _bench(args)
    except _NotACheckoutError:
        return 2


def _bench(args: argparse.Namespace) -> int:
    if args.web:
        from bot.bench.web import web_bench

        return asyncio.run(
            web_bench(
                requests=args.web_requests,
                concurrency=args.web_concurrency,
                players=args.players,
                runs=args.tick_runs,
                seed=args.seed,
                where=args.dir,
            )
        )
    if args.load or args.burst:
        return _load_benches(args)
    if args.baseline is not None and not (args.rule_triggers or args.due or args.replay or args.write_week):
        return _cpu_bench(args)
    if args.game:
        return _game_bench(args.game, args.tick_runs)
    from bot.bench.week import bench, offers_bench

    if args.cards is not None:
        from bot.bench.cards import cards_bench

        return asyncio.run(cards_bench(designs=args.cards, runs=args.tick_runs, seed=args.seed, where=args.dir))
    if args.offer_weeks is not None:
        return asyncio.run(
            offers_bench(
                weeks=args.offer_weeks,
                players=args.players,
                seed=args.seed,
                where=args.dir,
                per_week=args.offers_per_week,
            )
        )
    if args.amendments is not None:
        from bot.bench.amendments import amendments_bench

        print(amendments_bench(players=args.amendments, runs=max(args.tick_runs, 20), seed=args.seed))
        return 0
    if args.write_week is not None:
        from bot.bench.busy_week import write_busy_week

        print(f"{write_busy_week(args.write_week):,} lines written to {args.write_week}")
        return 0
    if args.replay is not None:
        from bot.bench.replay_disk import replay_bench

        report = replay_bench(args.replay.resolve(), args.load_rounds, args.seed, args.replay_until, _baseline(args))
        print(report)
        return 0
    if args.due:
        from bot.bench.due import due_bench

        print(due_bench(args.tick_runs, _baseline(args)))
        return 0
    if args.rule_triggers:
        from bot.bench.rule_triggers import rule_trigger_bench

        print(rule_trigger_bench(args.tick_sizes, args.tick_runs, args.seed, _baseline(args)))
        return 0
    if args.digest_only:
        from bot.bench.digest import digest_bench

        print(digest_bench(players=args.players, bids=args.bids, runs=args.digest_runs, seed=args.seed))
        return 0
    import os

    postgres = args.postgres or os.environ.get("BENCH_DATABASE_URL") or None
    only_stores = bool(postgres) and args.stores_only
    if postgres:
        from bot.bench.stores import check_server

        asyncio.run(check_server(postgres))  # a wrong URL stops it now, not after the week's timings
    return asyncio.run(
        bench(
            players=args.players,
            bids=args.bids,
            trades=args.trades,
            seed=args.seed,
            where=args.dir,
            week=not (args.ticks_only or only_stores),
            tick_sizes=() if only_stores else args.tick_sizes,
            tick_runs=args.tick_runs,
            tick_gc=args.tick_gc,
            digest_runs=0 if (args.ticks_only or only_stores) else args.digest_runs,
            postgres=postgres,
            store_actions=args.store_actions,
            store_runs=args.store_runs,
        )
    )
