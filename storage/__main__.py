"""Command line: ``python -m storage check [DATABASE_URL]``.

``check`` opens the database (applying pending migrations, like the bot does),
runs SQLite's integrity check, then replays every game from its seed and action
log and compares the result with the stored snapshot. It prints one line per
game that does not match or cannot be read, then a summary; the exit status is
0 when everything matches, 1 when any game does not, 2 when the database cannot
be opened. ``DATABASE_URL`` defaults to the environment variable of that name,
then to ``sqlite:///data/bot.db``.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
from collections.abc import Sequence
from typing import TextIO

from storage.errors import StorageError
from storage.sqlite import DEFAULT_DATABASE_URL, open_storage, sqlite_path


async def check(database_url: str, out: TextIO) -> int:
    try:
        if not sqlite_path(database_url).exists():
            out.write(f"There is no database at {sqlite_path(database_url)}.\n")
            return 2
        store = await open_storage(database_url)
    except StorageError as error:
        out.write(f"{error}\n")
        return 2
    async with store:
        integrity = await store.integrity_check()
        reports = await store.check_all()
    bad = [report for report in reports if not report.ok]
    if integrity != ["ok"]:
        out.write("SQLite integrity check failed:\n")
        out.writelines(f"  {line}\n" for line in integrity)
    for report in bad:
        out.write(f"game #{report.game_id}: {report.problem}\n")
    actions = sum(report.actions for report in reports)
    out.write(
        f"Checked {len(reports)} games ({actions} actions) in {store.path}: "
        f"{len(reports) - len(bad)} match their log, {len(bad)} do not.\n"
    )
    return 1 if bad or integrity != ["ok"] else 0


def main(argv: Sequence[str] | None = None, out: TextIO = sys.stdout) -> int:
    parser = argparse.ArgumentParser(prog="python -m storage", description=__doc__.split("\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    check_parser = sub.add_parser("check", help="replay every game and compare with its snapshot")
    check_parser.add_argument(
        "database_url",
        nargs="?",
        default=os.environ.get("DATABASE_URL") or DEFAULT_DATABASE_URL,
        help="sqlite:///path/to/file.db (default: $DATABASE_URL, then sqlite:///data/bot.db)",
    )
    args = parser.parse_args(argv)
    return asyncio.run(check(args.database_url, out))


if __name__ == "__main__":
    sys.exit(main())
