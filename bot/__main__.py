"""``python -m bot run | console | replay | shard-sim | selfplay | bench | web | export-wiki | export | import |
migrate-store``.

Exit status: 0 done, 1 Discord refused or could not be reached, 2 a usage error (bad arguments, no
such scenario file, a setting the bot cannot use), 3 the database cannot be used (``EXIT_STORE``; also a
``DATABASE_URL`` or ``--db`` that names none the bot can read, and a source ``export`` or ``migrate-store``
cannot read without changing it: missing, or at an older schema), 4 an import or a migration refused
(``EXIT_REFUSED``: the guild is already in the target, the document is not one of ours, or the guild it
holds would not load or breaks its rules), 5 ``shard-sim`` left guilds unplayed (held by another process,
or their lock was lost).
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from data.base import Target

EXIT_STORE = 3
"""The database file cannot be used (not a database, damaged, read-only, from a newer version; for a
source that is only read, also missing or from an older version): one line on stderr says which file,
what is wrong and what to do."""
EXIT_REFUSED = 4
"""An import or a migration was refused; nothing was written. One line on stderr says why."""


def _instant(text: str) -> datetime:
    value = datetime.fromisoformat(text.replace("Z", "+00:00"))
    if value.tzinfo is None:
        raise argparse.ArgumentTypeError("give a time zone, e.g. 2026-12-10T00:00:00Z")
    return value.astimezone(UTC)


def _sizes(text: str) -> tuple[int, ...]:
    try:
        return tuple(int(part) for part in text.replace(" ", "").split(",") if part)
    except ValueError:
        raise argparse.ArgumentTypeError("give whole numbers separated by commas, e.g. 300,1000,3000") from None


def _database(text: str) -> Target:
    """A ``--db``: a path, ``sqlite:///FILE`` or ``postgresql://...`` (shown without its password)."""
    from data.base import StoreOpenError, UnusableUrlError, target

    try:
        return target(text)
    except UnusableUrlError as exc:
        # not argparse's usage error: the database cannot be used (status 3), and the URL is not echoed
        raise StoreOpenError("given with --db", exc.problem, exc.advice.capitalize()) from None


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m bot",
        description="The Nomic round bot.",
        epilog="Exit status: 0 done, 1 Discord refused the token or could not be reached, 2 a usage error,"
        f" {EXIT_STORE} the database cannot be used (one line on stderr says why), {EXIT_REFUSED} an import or"
        " a migration refused (nothing written; one line says why).",
    )
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("run", help="run on Discord (or open the console when no DISCORD_TOKEN is set)")
    con = sub.add_parser("console", help="the interactive simulator")
    con.add_argument("--db", type=_database, help="keep the console's round in this database (path or URL)")
    con.add_argument("--seed")
    con.add_argument("--start", type=_instant, help="the virtual clock's start (ISO-8601, UTC)")
    rep = sub.add_parser("replay", help="replay a scenario (JSON lines)")
    rep.add_argument("scenario", type=Path)
    rep.add_argument("--seed")
    rep.add_argument(
        "--db",
        type=_database,
        help="keep the run in this database (a path, sqlite:///FILE or postgresql://...) and resume it",
    )
    rep.add_argument("--until", type=_instant)
    rep.add_argument("--state", type=Path)
    rep.add_argument("--transcript", type=Path)
    shard = sub.add_parser(
        "shard-sim",
        help="one process of a sharded bot, headless: play a script's guilds of these shards on a virtual clock",
    )
    shard.add_argument("--script", type=Path, required=True, help="scenario lines, each with a `guild` (JSON lines)")
    shard.add_argument(
        "--db", type=_database, required=True, help="the store: a path, sqlite:///FILE or postgresql://... (the locks)"
    )
    shard.add_argument("--shard-count", type=int, default=1)
    shard.add_argument("--shard-ids", default="auto", help="the shards this process runs, e.g. 0,1 (default: all)")
    shard.add_argument("--take-over", action="store_true", help="also take over the other shards' guilds as they free")
    shard.add_argument("--seed", default="shards")
    shard.add_argument("--until", type=_instant, help="run each guild's clock on to this instant at its end")
    shard.add_argument("--stop-at", type=_instant, help="play the lines before this instant, then hang (for tests)")
    shard.add_argument("--health-port", type=int, help="serve /healthz on this port (0: any free port)")
    site = sub.add_parser("web", help="serve a database's round record on the web, read-only")
    site.add_argument("--db", type=_database, help="the database (default: DATABASE_URL, else DATABASE_PATH)")
    site.add_argument("--port", type=int, help="the port (default: WEB_PORT, else 8080)")
    site.add_argument("--host", help="the address to listen on (default: WEB_HOST, 127.0.0.1)")
    wiki = sub.add_parser("export-wiki", help="write a server's ruleset and week as MediaWiki markup")
    wiki.add_argument("guild", help="the server's id (the simulator's is `sim`)")
    wiki.add_argument("--db", type=_database, help="the database (default: DATABASE_URL, else DATABASE_PATH)")
    wiki.add_argument("--out", type=Path, help="write to this file (default: standard output)")
    db_help = "the database: a path, sqlite:///FILE or postgresql://... (default: DATABASE_URL, else DATABASE_PATH)"
    out = sub.add_parser("export", help="write one server's data as JSON (to move it to another database)")
    out.add_argument("guild", help="the server's id (the simulator's is `sim`)")
    out.add_argument("--db", type=_database, help=db_help)
    out.add_argument("--out", type=Path, help="write to this file (default: standard output)")
    into = sub.add_parser("import", help="read one server's data exported by `export` into a database")
    into.add_argument("file", nargs="?", type=Path, help="the JSON document (default: standard input)")
    into.add_argument("--db", type=_database, help=db_help)
    into.add_argument("--replace", action="store_true", help="overwrite the server's data if the database has it")
    move = sub.add_parser("migrate-store", help="copy every server's data from one database to another")
    move.add_argument("--from", dest="source", type=_database, required=True, help="the database to read (path or URL)")
    move.add_argument("--to", dest="destination", type=_database, required=True, help="the database to write")
    move.add_argument("--replace", action="store_true", help="overwrite servers the destination already has")
    play = sub.add_parser("selfplay", help="play computer-only games of a thread game and check its rules")
    play.add_argument("game", help="the thread game, e.g. wikipedia")
    play.add_argument("--games", type=int, default=100)
    play.add_argument(
        "--players", type=int, default=None, help="seats at each table (default: 4, or what the game seats: ictc 2)"
    )
    play.add_argument("--seed", default="0")
    play.add_argument(
        "--option",
        action="append",
        default=[],
        metavar="KEY:VALUE",
        help="a game option as !play reads it (repeatable), e.g. --option removal:balanced",
    )
    play.add_argument("--jobs", type=int, help="processes to share the games (default: one a core)")
    bench = sub.add_parser("bench", help="measure a busy week on an on-disk store")
    bench.add_argument("--players", type=int, default=300)
    bench.add_argument("--bids", type=int, default=15_000)
    bench.add_argument("--trades", type=int, default=2_000)
    bench.add_argument("--seed", default="bench")
    bench.add_argument("--dir", type=Path, help="where to put the store (default: a temporary folder)")
    bench.add_argument(
        "--postgres",
        metavar="URL",
        help="also time durable actions on this PostgreSQL database (default: BENCH_DATABASE_URL; its"
        " schema gets a throwaway schema of the benchmark's, dropped at the end)",
    )
    bench.add_argument(
        "--store-runs", type=int, default=5, help="with a PostgreSQL URL: interleaved runs of each store"
    )
    bench.add_argument("--store-actions", type=int, default=2_000, help="with a PostgreSQL URL: actions a run")
    bench.add_argument(
        "--stores-only", action="store_true", help="with a PostgreSQL URL: only the engines' durable actions"
    )
    bench.add_argument(
        "--offer-weeks",
        type=int,
        help="instead of the busy week: this many weeks of unanswered trade offers, then time `!offer`",
    )
    bench.add_argument("--offers-per-week", type=int, default=183, help="with --offer-weeks: offers made each week")
    bench.add_argument(
        "--cards",
        type=int,
        help="instead of the busy week: a card library of this many designs; time submitting, approving, loading",
    )
    bench.add_argument(
        "--tick-sizes",
        type=_sizes,
        default=(300, 1_000, 3_000),
        help="server sizes at which to time the big ticks, e.g. 300,1000,3000 ('' for none)",
    )
    bench.add_argument("--tick-runs", type=int, default=5, help="runs of each tick at each size")
    bench.add_argument("--ticks-only", action="store_true", help="time only the ticks, not the busy week")
    bench.add_argument("--game", help="instead of the round: a thread game's own timings, e.g. sardini")
    bench.add_argument(
        "--digest-only", action="store_true", help="time only the week's review of a busy week (--players, --bids)"
    )
    bench.add_argument("--digest-runs", type=int, default=50, help="builds of the week's review to time")
    bench.add_argument(
        "--amendments",
        type=int,
        nargs="?",
        const=3_000,
        metavar="PLAYERS",
        help="instead of the busy week: how long a passed proposal's amendment lines take to apply, in a round"
        " of PLAYERS players (3,000 when left out)",
    )
    bench.add_argument(
        "--rule-triggers",
        action="store_true",
        help="instead of the busy week: what rule blocks add to the big ticks at --tick-sizes over --tick-runs runs"
        " (with --baseline: beside an earlier checkout's, the two in turn)",
    )
    bench.add_argument(
        "--web",
        action="store_true",
        help="instead of the busy week: command latency with and without 1,000 web requests, 50 at a time",
    )
    bench.add_argument("--web-requests", type=int, default=1000, help="with --web: the requests of the load")
    bench.add_argument("--web-concurrency", type=int, default=50, help="with --web: requests at a time")
    bench.add_argument(
        "--load",
        action="store_true",
        help="instead of the busy week: bids at once (one guild, many guilds) against sequential bids and raw"
        " commits, in interleaved rounds",
    )
    bench.add_argument("--load-rounds", type=int, default=7, help="with --load: interleaved rounds")
    bench.add_argument("--load-actions", type=int, default=1000, help="with --load: bids a measurement")
    bench.add_argument(
        "--burst",
        action="store_true",
        help="instead of the busy week: the Discord calls of 500 bids in one channel, timed under Discord's limits",
    )
    bench.add_argument(
        "--due",
        action="store_true",
        help="instead of the busy week: the check for scheduled work before every command, by library size,"
        " tables and requests (with --baseline: beside an earlier checkout's, the two in turn; --tick-runs runs)",
    )
    bench.add_argument(
        "--baseline",
        type=Path,
        help="with --load, --burst, --rule-triggers or --due: a checkout of an earlier version to measure beside"
        " this one",
    )
    bench.add_argument(
        "--tick-gc",
        choices=("bot", "python"),
        default="bot",
        help="the garbage collector during the ticks: as the bot runs it (default) or Python's defaults",
    )
    return parser


def main(argv: list[str] | None = None) -> int:
    from pydantic import ValidationError

    from data.base import StoreOpenError

    try:
        return _command(build_parser().parse_args(argv))
    except StoreOpenError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_STORE
    except ValidationError as exc:
        # a setting the bot cannot use (SHARD_IDS past SHARD_COUNT, a port that is no number): one line
        # each, naming the setting and never echoing its value (it may be a secret); a DATABASE_URL of
        # no database the bot can use is a store that cannot be used
        status = 2
        for problem in exc.errors():
            name = ".".join(str(part) for part in problem.get("loc", ())).upper() or "settings"
            if name == "DATABASE_URL":
                status = EXIT_STORE
            print(f"error: {name}: {problem.get('msg')}".replace("Value error, ", ""), file=sys.stderr)
        return status


def _load_benches(args: argparse.Namespace) -> int:
    """``bench --load`` and ``bench --burst``: actions under load, and bursts of bids on simulated Discord."""
    baseline = args.baseline.resolve() if args.baseline is not None else None
    if baseline is not None and not (baseline / "bot" / "__main__.py").is_file():
        print(f"--baseline {args.baseline}: not a checkout of this bot (no bot/__main__.py)", file=sys.stderr)
        return 2
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

        reports.append(asyncio.run(burst_bench(baseline=baseline)))
    print("\n\n".join(reports))
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
    print("\n".join(spec.bench(runs)))
    return 0


def _command(args: argparse.Namespace) -> int:
    if args.command == "replay":
        from bot.sim.replay import replay_file

        if not args.scenario.is_file():
            print(f"no such scenario file: {args.scenario}", file=sys.stderr)
            return 2
        replay_file(
            args.scenario,
            seed=args.seed,
            db=args.db,
            until=args.until,
            state_out=args.state,
            transcript_out=args.transcript,
        )
        return 0
    if args.command == "shard-sim":
        return _shard_sim(args)
    if args.command == "console":
        from bot.settings import Settings
        from bot.sim.console import console

        settings = Settings()
        return asyncio.run(console(db=args.db, seed=args.seed, start=args.start, web=_console_web(settings)))
    if args.command in {"web", "export-wiki"}:
        return _web_command(args)
    if args.command in {"export", "import", "migrate-store"}:
        return _transfer_command(args)
    if args.command == "selfplay":
        from bot.sim.selfplay import main as selfplay_main

        return selfplay_main(
            args.game, games=args.games, players=args.players, seed=args.seed, options=args.option, jobs=args.jobs
        )
    if args.command == "bench" and args.web:
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
    if args.command == "bench" and (args.load or args.burst):
        return _load_benches(args)
    if args.command == "bench" and args.game:
        return _game_bench(args.game, args.tick_runs)
    if args.command == "bench":
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
        if args.due:
            from bot.bench.due import due_bench

            print(due_bench(args.tick_runs, args.baseline.resolve() if args.baseline is not None else None))
            return 0
        if args.rule_triggers:
            from bot.bench.rule_triggers import rule_trigger_bench

            baseline = args.baseline.resolve() if args.baseline is not None else None
            print(rule_trigger_bench(args.tick_sizes, args.tick_runs, args.seed, baseline))
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
    if args.command == "run":
        from bot.settings import Settings

        settings = Settings()
        if not settings.has_token:
            print(
                "No DISCORD_TOKEN is set, so this is the local console simulator.\n"
                "To run on Discord: copy .env.example to .env and put your bot's token in DISCORD_TOKEN\n"
                "(see README.md, 'Running on Discord').\n",
                file=sys.stderr,
            )
            from bot.sim.console import console

            return asyncio.run(console(web=_console_web(settings)))
        from bot.logs import configure

        plan = settings.shard_plan()
        configure(settings.log_level, settings.log_format, shards=list(plan.ids) if plan.ids is not None else None)
        from bot.discord.app import run_bot

        return run_bot(settings)
    return 2


def _shard_sim(args: argparse.Namespace) -> int:
    """``shard-sim``: logs on standard error (JSON lines with LOG_FORMAT=json), its reports on standard output."""
    from bot.logs import configure
    from bot.settings import Settings
    from bot.shards import ShardPlan, parse_shard_ids
    from bot.sim.shards import shard_sim

    if not args.script.is_file():
        print(f"no such script file: {args.script}", file=sys.stderr)
        return 2
    try:
        plan = ShardPlan(count=args.shard_count, ids=parse_shard_ids(args.shard_ids))
    except ValueError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    settings = Settings()
    configure(settings.log_level, settings.log_format, stream=sys.stderr, shards=list(plan.shard_ids))
    return asyncio.run(
        shard_sim(
            script=args.script,
            db=args.db,
            plan=plan,
            seed=args.seed,
            until=args.until,
            take_over=args.take_over,
            stop_at=args.stop_at,
            health=("127.0.0.1", args.health_port) if args.health_port is not None else None,
            lease=settings.guild_lease_seconds,
        )
    )


def _one_line(text: str) -> str:
    return " ".join(text.split())


def _new_file(where: Target) -> Path | None:
    """The SQLite file ``where`` names, when it does not exist yet (an import then makes it)."""
    return where.path if where.path is not None and not where.path.exists() else None


def _forget_file(path: Path) -> None:
    """Remove a database file a refused import made, and its companions (it holds nothing of ours)."""
    for name in (path, path.with_name(path.name + "-wal"), path.with_name(path.name + "-shm")):
        name.unlink(missing_ok=True)


def _transfer_command(args: argparse.Namespace) -> int:
    """``export GUILD``, ``import [FILE]`` and ``migrate-store --from A --to B`` (``data.transfer``).

    ``export`` and ``migrate-store`` only read their source (never migrated, never written): a source
    that is not there, not the bot's, or at another schema version than this version's stops them with
    status 3. ``import`` checks the document, then that the guild loads as the bot would load it, before
    anything commits: a document that fails stops it with status 4 and one line, nothing written."""
    import json

    from bot.import_check import guild_loads
    from data import transfer
    from data.store import Store

    def database() -> Target:
        if args.db is not None:
            return args.db  # type: ignore[no-any-return]
        from bot.settings import Settings

        return Settings().database

    async def export() -> int:
        source = await transfer.open_source(database())
        try:
            document = await transfer.export_guild(source, args.guild)
        finally:
            await source.close()
        if transfer.rows_of(document) == 0:
            print(f"error: the database {source.path} holds nothing of guild {args.guild}", file=sys.stderr)
            return EXIT_REFUSED
        text = json.dumps(document, ensure_ascii=False, indent=1) + "\n"
        if args.out is None:
            sys.stdout.write(text)
        else:
            args.out.write_text(text, encoding="utf-8")
        print(f"exported guild {args.guild}: {transfer.rows_of(document)} rows from {source.path}", file=sys.stderr)
        return 0

    async def load(document: Any) -> int:
        where = database()
        transfer.check_document(document, transfer.known_schema(where))  # before the target is even opened
        made = _new_file(where)
        try:
            store = await Store.open(where)
            try:
                written = await transfer.import_guild(store, document, replace=args.replace, check=guild_loads)
            finally:
                await store.close()
        except transfer.TransferError:
            if made is not None:
                _forget_file(made)
            raise
        print(f"imported guild {document['guild']}: {written} rows into {store.path}", file=sys.stderr)
        return 0

    async def move() -> int:
        moved = await transfer.migrate(args.source, args.destination, replace=args.replace)
        for item in moved:
            print(f"moved guild {item.guild}: {item.rows} rows", file=sys.stderr)
        print(f"moved {len(moved)} guilds", file=sys.stderr)
        return 0

    try:
        if args.command == "export":
            return asyncio.run(export())
        if args.command == "import":
            try:
                raw = args.file.read_bytes() if args.file is not None else sys.stdin.buffer.read()
            except OSError as exc:
                print(f"error: cannot read {args.file}: {exc.strerror or exc}", file=sys.stderr)
                return 2
            try:
                document = json.loads(raw.decode("utf-8-sig"))
            except ValueError as exc:  # not UTF-8, or not JSON
                print(f"error: the document is not JSON text ({_one_line(str(exc))})", file=sys.stderr)
                return EXIT_REFUSED
            return asyncio.run(load(document))
        return asyncio.run(move())
    except transfer.TransferError as exc:
        print(f"error: {_one_line(str(exc))}", file=sys.stderr)
        return EXIT_REFUSED
    except ValueError as exc:  # a URL of no engine we know
        print(f"error: {exc}", file=sys.stderr)
        return 2


def _console_web(settings: object) -> tuple[str, int] | None:
    """The console serves the web record on this machine when ``WEB_PORT`` is set."""
    port = getattr(settings, "web_port", None)
    return ("127.0.0.1", port) if port is not None else None


def _web_command(args: argparse.Namespace) -> int:
    """``web --db PATH`` (serve a file's record until Ctrl-C) and ``export-wiki GUILD``."""
    from bot.settings import Settings

    settings = Settings()
    db = args.db or settings.database
    if args.command == "export-wiki":
        from bot.web.wiki import export_guild

        if args.out is None:
            return asyncio.run(export_guild(db, args.guild))
        with args.out.open("w", encoding="utf-8") as fh:
            return asyncio.run(export_guild(db, args.guild, out=fh))
    from bot.web.record import serve_file

    port = args.port if args.port is not None else (settings.web_port if settings.web_port is not None else 8080)
    host = args.host or settings.web_host
    try:
        return asyncio.run(serve_file(db, host, port))
    except KeyboardInterrupt:
        return 0
    except OSError as exc:
        print(f"error: cannot serve on {host}:{port}: {exc.strerror or exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    raise SystemExit(main())
