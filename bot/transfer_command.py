"""``python -m bot export GUILD``, ``import [FILE]`` and ``migrate-store --from A --to B``: moving a
server's data between stores (``data.transfer``), with the import checked by loading the guild as the
bot would (``bot.import_check``)."""

from __future__ import annotations

import argparse
import asyncio
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from data.base import Target

EXIT_REFUSED = 4
"""An import or a migration was refused; nothing was written. One line on stderr says why."""


def _one_line(text: str) -> str:
    return " ".join(text.split())


def _new_file(where: Target) -> Path | None:
    """The SQLite file ``where`` names, when it does not exist yet (an import then makes it)."""
    return where.path if where.path is not None and not where.path.exists() else None


def _forget_file(path: Path) -> None:
    """Remove a database file a refused import made, and its companions (it holds nothing of ours)."""
    for name in (path, path.with_name(path.name + "-wal"), path.with_name(path.name + "-shm")):
        name.unlink(missing_ok=True)


def transfer_command(args: argparse.Namespace) -> int:
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
