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
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from bot.transfer_command import EXIT_REFUSED

if TYPE_CHECKING:
    from data.base import Target

EXIT_STORE = 3
"""The database file cannot be used (not a database, damaged, read-only, from a newer version; for a
source that is only read, also missing or from an older version): one line on stderr says which file,
what is wrong and what to do."""


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


_DB_HELP = "the database: a path, sqlite:///FILE or postgresql://... (default: DATABASE_URL, else DATABASE_PATH)"


def _run_arguments(sub: Any) -> None:
    sub.add_parser("run", help="run on Discord (or open the console when no DISCORD_TOKEN is set)")


def _console_arguments(sub: Any) -> None:
    con = sub.add_parser("console", help="the interactive simulator")
    con.add_argument("--db", type=_database, help="keep the console's round in this database (path or URL)")
    con.add_argument("--seed")
    con.add_argument("--start", type=_instant, help="the virtual clock's start (ISO-8601, UTC)")


def _replay_arguments(sub: Any) -> None:
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


def _shard_sim_arguments(sub: Any) -> None:
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


def _web_arguments(sub: Any) -> None:
    site = sub.add_parser("web", help="serve a database's round record on the web, read-only")
    site.add_argument("--db", type=_database, help="the database (default: DATABASE_URL, else DATABASE_PATH)")
    site.add_argument("--port", type=int, help="the port (default: WEB_PORT, else 8080)")
    site.add_argument("--host", help="the address to listen on (default: WEB_HOST, 127.0.0.1)")


def _export_wiki_arguments(sub: Any) -> None:
    wiki = sub.add_parser("export-wiki", help="write a server's ruleset and week as MediaWiki markup")
    wiki.add_argument("guild", help="the server's id (the simulator's is `sim`)")
    wiki.add_argument("--db", type=_database, help="the database (default: DATABASE_URL, else DATABASE_PATH)")
    wiki.add_argument("--out", type=Path, help="write to this file (default: standard output)")


def _export_arguments(sub: Any) -> None:
    out = sub.add_parser("export", help="write one server's data as JSON (to move it to another database)")
    out.add_argument("guild", help="the server's id (the simulator's is `sim`)")
    out.add_argument("--db", type=_database, help=_DB_HELP)
    out.add_argument("--out", type=Path, help="write to this file (default: standard output)")


def _import_arguments(sub: Any) -> None:
    into = sub.add_parser("import", help="read one server's data exported by `export` into a database")
    into.add_argument("file", nargs="?", type=Path, help="the JSON document (default: standard input)")
    into.add_argument("--db", type=_database, help=_DB_HELP)
    into.add_argument("--replace", action="store_true", help="overwrite the server's data if the database has it")


def _migrate_store_arguments(sub: Any) -> None:
    move = sub.add_parser("migrate-store", help="copy every server's data from one database to another")
    move.add_argument("--from", dest="source", type=_database, required=True, help="the database to read (path or URL)")
    move.add_argument("--to", dest="destination", type=_database, required=True, help="the database to write")
    move.add_argument("--replace", action="store_true", help="overwrite servers the destination already has")


def _selfplay_arguments(sub: Any) -> None:
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


def _bench_arguments(sub: Any) -> None:
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
        "--replay",
        type=Path,
        metavar="SCENARIO",
        help="instead of the busy week: `replay --db` of SCENARIO as a whole process, its durable actions a second"
        " beside raw single-row commits on the same disk, in --load-rounds rounds (with --baseline: that checkout's"
        " too)",
    )
    bench.add_argument("--replay-until", help="with --replay: the replay's --until")
    bench.add_argument(
        "--write-week",
        type=Path,
        metavar="FILE",
        help="instead of measuring: write the busy week of 100 players (21,106 lines) to FILE as a scenario",
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
        help="a checkout of an earlier version to measure beside this one: alone, the busy week's CPU per command"
        " in both, in turn; with --load, --burst, --rule-triggers, --due or --replay, those",
    )
    bench.add_argument("--cpu-rounds", type=int, default=5, help="with --baseline alone: interleaved rounds")
    bench.add_argument(
        "--instructions",
        action="store_true",
        help="with --baseline alone: also count each version's instructions under valgrind (slow)",
    )
    bench.add_argument(
        "--tick-gc",
        choices=("bot", "python"),
        default="bot",
        help="the garbage collector during the ticks: as the bot runs it (default) or Python's defaults",
    )


_COMMANDS: dict[str, Callable[[Any], None]] = {
    "run": _run_arguments,
    "console": _console_arguments,
    "replay": _replay_arguments,
    "shard-sim": _shard_sim_arguments,
    "web": _web_arguments,
    "export-wiki": _export_wiki_arguments,
    "export": _export_arguments,
    "import": _import_arguments,
    "migrate-store": _migrate_store_arguments,
    "selfplay": _selfplay_arguments,
    "bench": _bench_arguments,
}
"""Each command's arguments, added to the subparsers (in the order ``--help`` lists them)."""


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """The command line's parser; ``only``: the command asked for, whose parser alone is made (a command's
    start-up does not build the other ten; ``--help`` and an unknown command get them all)."""
    parser = argparse.ArgumentParser(
        prog="python -m bot",
        description="The Nomic round bot.",
        epilog="Exit status: 0 done, 1 Discord refused the token or could not be reached, 2 a usage error,"
        f" {EXIT_STORE} the database cannot be used (one line on stderr says why), {EXIT_REFUSED} an import or"
        " a migration refused (nothing written; one line says why).",
    )
    sub = parser.add_subparsers(dest="command", required=True)
    for name, add in _COMMANDS.items():
        if only not in _COMMANDS or name == only:
            add(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    from pydantic import ValidationError

    from data.base import StoreOpenError

    try:
        words = sys.argv[1:] if argv is None else argv
        return _command(build_parser(words[0] if words else None).parse_args(words))
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
        from bot.sim.shards import shard_sim_command

        return shard_sim_command(args)
    if args.command == "console":
        from bot.settings import Settings
        from bot.sim.console import console
        from bot.web.command import console_web

        settings = Settings()
        return asyncio.run(console(db=args.db, seed=args.seed, start=args.start, web=console_web(settings)))
    if args.command in {"web", "export-wiki"}:
        from bot.web.command import web_command

        return web_command(args)
    if args.command in {"export", "import", "migrate-store"}:
        from bot.transfer_command import transfer_command

        return transfer_command(args)
    if args.command == "selfplay":
        from bot.sim.selfplay import main as selfplay_main

        return selfplay_main(
            args.game, games=args.games, players=args.players, seed=args.seed, options=args.option, jobs=args.jobs
        )
    if args.command == "bench":
        from bot.bench.command import bench_command

        return bench_command(args)
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
            from bot.web.command import console_web

            return asyncio.run(console(web=console_web(settings)))
        from bot.logs import configure

        plan = settings.shard_plan()
        configure(settings.log_level, settings.log_format, shards=list(plan.ids) if plan.ids is not None else None)
        from bot.discord.app import run_bot

        return run_bot(settings)
    return 2
