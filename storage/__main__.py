"""Command line: ``python -m storage check [DATABASE_URL]``,
``python -m storage copy SOURCE_URL TARGET_URL`` and
``python -m storage ratings --rebuild [DATABASE_URL]``.

``check`` opens the database (applying pending migrations, like the bot does),
runs its integrity check (SQLite: ``PRAGMA quick_check``; PostgreSQL: the
schema's guards are in place), then replays every game from its seed and action
log and compares the result with the stored snapshot. It prints one line per
game that does not match or cannot be read, then a summary; the exit status is
0 when everything matches, 1 when any game does not, 2 when the database cannot
be opened. ``DATABASE_URL`` defaults to the environment variable of that name,
then to ``sqlite:///data/bot.db``.

``copy`` moves every game (seats, action log, snapshot and version, timers,
message ids and shown versions, results, page tokens) and the servers' settings from
one database to another, typically from the SQLite file of one bot process to the
PostgreSQL database of several; ids stay the same. Stop the bot first. It refuses a
target that already holds games (exit 2), copies in one transaction (all or nothing),
then checks the copy as ``check`` does (exit 1 if a copied game does not replay).

``ratings --rebuild`` deletes every rating and per-seat result and computes them again
from the stored finished games, in the order they were first rated (then by finishing
time), in one transaction; the result equals what the bot computed game by game (see
:mod:`storage.ratings`). ``ratings`` alone rates the finished games not rated yet (the
bot does this itself at start and after each game). Exit 0, or 2 when the database
cannot be opened.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
from collections.abc import Sequence
from typing import TextIO

from storage import open_storage
from storage.core import is_postgres_url
from storage.errors import StorageError
from storage.repository import SqlStorage
from storage.sqlite import DEFAULT_DATABASE_URL, sqlite_path

TABLES = {
    "games": (
        "id, guild_id, channel_id, thread_id, host_id, kind, options, seed, status, snapshot,"
        " version, result, created_at, updated_at, started_at, finished_at, settings, rating_seq,"
        " web_token"
    ),
    "seats": "game_id, position, player, user_id, display_name, ai_level",
    "actions": "game_id, seq, player, action, events, created_at",
    "timers": (
        "id, game_id, kind, due_at, payload, created_at, fired_at, cancelled_at,"
        " claimed_by, claimed_until"
    ),
    "game_messages": "game_id, key, message_id, shown_version",
    "game_results": (
        "game_id, position, guild_id, channel_id, kind, identity, score, placement, won, strategy"
    ),
    "player_totals": ("guild_id, kind, identity, channel_id, games, wins, score_sum, best_score"),
    "strategy_totals": "guild_id, kind, identity, channel_id, strategy, games",
    "ratings": "guild_id, kind, identity, mu, sigma, ordinal, games",
    "guild_settings": "guild_id, language",
    "guild_web_off": "guild_id",
}
"""What ``copy`` moves, parents first (named claims are not moved: they are leases)."""
BATCH = 1000


def _exists(database_url: str, out: TextIO) -> bool:
    if is_postgres_url(database_url) or sqlite_path(database_url).exists():
        return True
    out.write(f"There is no database at {sqlite_path(database_url)}.\n")
    return False


async def _open(database_url: str, out: TextIO) -> SqlStorage | None:
    try:
        if not _exists(database_url, out):
            return None
        return await open_storage(database_url)
    except StorageError as error:
        out.write(f"{error}\n")
        return None


async def _report(store: SqlStorage, out: TextIO) -> int:
    integrity = await store.integrity_check()
    reports = await store.check_all()
    bad = [report for report in reports if not report.ok]
    if integrity != ["ok"]:
        out.write("Integrity check failed:\n")
        out.writelines(f"  {line}\n" for line in integrity)
    for report in bad:
        out.write(f"game #{report.game_id}: {report.problem}\n")
    actions = sum(report.actions for report in reports)
    out.write(
        f"Checked {len(reports)} games ({actions} actions) in {store.where}: "
        f"{len(reports) - len(bad)} match their log, {len(bad)} do not.\n"
    )
    return 1 if bad or integrity != ["ok"] else 0


async def check(database_url: str, out: TextIO) -> int:
    store = await _open(database_url, out)
    if store is None:
        return 2
    async with store:
        return await _report(store, out)


async def copy(source_url: str, target_url: str, out: TextIO) -> int:
    source = await _open(source_url, out)
    if source is None:
        return 2
    async with source:
        try:
            target = await open_storage(target_url)
        except StorageError as error:
            out.write(f"{error}\n")
            return 2
        async with target:
            held = await target._read("SELECT count(*) FROM games")
            if held[0][0]:
                out.write(
                    f"{target.where} already holds {held[0][0]} games; copy only into an"
                    " empty database. Nothing was copied.\n"
                )
                return 2
            counts = {}
            async with target._write() as db:
                for table, columns in TABLES.items():
                    rows = await source._read(f"SELECT {columns} FROM {table}")
                    marks = ", ".join("?" for _ in columns.split(","))
                    insert = f"INSERT INTO {table} ({columns}) VALUES ({marks})"
                    for start in range(0, len(rows), BATCH):
                        await db.executemany(insert, rows[start : start + BATCH])
                    counts[table] = len(rows)
                await target._ids_copied(db)
            out.write(
                f"Copied {counts['games']} games ({counts['actions']} actions,"
                f" {counts['seats']} seats, {counts['timers']} timers,"
                f" {counts['game_messages']} messages) from {source.where} to {target.where}.\n"
            )
            return await _report(target, out)


async def ratings(database_url: str, rebuild: bool, out: TextIO) -> int:
    store = await _open(database_url, out)
    if store is None:
        return 2
    async with store:
        if rebuild:
            count = await store.rebuild_ratings()
            out.write(f"Rebuilt the ratings of {count} finished games in {store.where}.\n")
        else:
            count = await store.rate_finished_games()
            out.write(f"Rated {count} finished games not rated before in {store.where}.\n")
        return 0


def main(argv: Sequence[str] | None = None, out: TextIO = sys.stdout) -> int:
    parser = argparse.ArgumentParser(prog="python -m storage", description=__doc__.split("\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    check_parser = sub.add_parser("check", help="replay every game and compare with its snapshot")
    ratings_parser = sub.add_parser("ratings", help="rate finished games (--rebuild: all again)")
    ratings_parser.add_argument(
        "--rebuild", action="store_true", help="delete every rating and compute all again"
    )
    for database_parser in (check_parser, ratings_parser):
        database_parser.add_argument(
            "database_url",
            nargs="?",
            default=os.environ.get("DATABASE_URL") or DEFAULT_DATABASE_URL,
            help="sqlite:///path/to/file.db or postgresql://user:password@host:5432/database"
            " (default: $DATABASE_URL, then sqlite:///data/bot.db)",
        )
    copy_parser = sub.add_parser("copy", help="copy every game into an empty database")
    copy_parser.add_argument("source_url", help="e.g. sqlite:///data/bot.db")
    copy_parser.add_argument("target_url", help="e.g. postgresql://bot:password@db:5432/bot")
    args = parser.parse_args(argv)
    if args.command == "copy":
        return asyncio.run(copy(args.source_url, args.target_url, out))
    if args.command == "ratings":
        return asyncio.run(ratings(args.database_url, args.rebuild, out))
    return asyncio.run(check(args.database_url, out))


if __name__ == "__main__":
    sys.exit(main())
