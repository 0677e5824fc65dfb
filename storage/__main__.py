"""Command line: ``python -m storage check [DATABASE_URL]``,
``python -m storage copy SOURCE_URL TARGET_URL``,
``python -m storage backup [DATABASE_URL] FILE``,
``python -m storage forget-user [DATABASE_URL] USER_ID`` and
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
one database to another, either way between SQLite and PostgreSQL (or SQLite to
SQLite); ids stay the same. It reads one consistent snapshot of the source
(:mod:`storage.backup`); stop the bot first all the same, or what it writes afterwards
stays behind. It refuses a target that already holds games (exit 2), copies in one
transaction (all or nothing), then checks the copy as ``check`` does (exit 1 if a
copied game does not replay).

``backup`` writes a consistent copy of the database into the new SQLite file ``FILE``
while the bot keeps running (:mod:`storage.backup`): SQLite's online backup from a
SQLite file, a copy of one snapshot from PostgreSQL. It refuses a ``FILE`` that exists
and leaves none behind when it fails (exit 2), and prints the games, actions and size
written. ``check sqlite:///FILE`` replays the backup's games; to restore, put the file
in the database's place (bot stopped) or ``copy`` it into an empty database.

``forget-user`` replaces a player's Discord id and display name in every game, log
entry and rating row by a placeholder, keeping every game replayable
(:mod:`storage.forget`), and prints what it changed; a second run changes nothing.
Exit 0; 1 while the player sits in a lobby or a running game (nothing changed); 2 when
the database cannot be opened.

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
from functools import partial
from pathlib import Path
from typing import TextIO

import i18n
from engine.words import N_, Words
from i18n.cli import HelpFormatter, argparse_speaking, default_language
from storage import open_storage
from storage.backup import backup as write_backup
from storage.backup import copy_rows
from storage.core import is_postgres_url
from storage.errors import StorageError
from storage.forget import StillPlaying
from storage.repository import SqlStorage
from storage.sqlite import DEFAULT_DATABASE_URL, sqlite_path


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
            try:
                counts = await copy_rows(source_url, target)
            except StorageError as error:
                out.write(f"{error} Nothing was copied.\n")
                return 2
            out.write(
                f"Copied {counts['games']} games ({counts['actions']} actions,"
                f" {counts['seats']} seats, {counts['timers']} timers,"
                f" {counts['game_messages']} messages) from {source.where} to {target.where}.\n"
            )
            return await _report(target, out)


async def backup(
    database_url: str, file: Path, out: TextIO, prog: str = "python -m storage"
) -> int:
    if is_postgres_url(database_url):  # migrated first, as the bot would: same columns
        source = await _open(database_url, out)
        if source is None:
            return 2
        await source.close()
        where = source.where
    elif _exists(database_url, out):
        where = str(sqlite_path(database_url))
    else:
        return 2
    try:
        written = await write_backup(database_url, file)
    except StorageError as error:
        out.write(f"{error} No backup was written.\n")
        return 2
    out.write(
        f"Backed up {written.games} games ({written.actions} actions) from {where}"
        f" to {written.path}: {written.size / 1e6:.1f} MB. Check it with"
        f" {prog} check sqlite:///{written.path}\n"
    )
    return 0


async def forget_user(database_url: str, user_id: int, out: TextIO) -> int:
    store = await _open(database_url, out)
    if store is None:
        return 2
    async with store:
        try:
            done = await store.forget_user(user_id)
        except StillPlaying as error:
            out.write(f"{error}\n")
            return 1
        if not done.changed:
            out.write(f"Nothing to forget: no game or rating of user {user_id} in {store.where}.\n")
            return 0
        out.write(
            f"Forgot user {user_id} in {store.where}: now {done.placeholder}, named"
            f' "Player N of game M", in {len(done.games)} games ({done.seats} seats,'
            f" {done.log_entries} log entries) and {done.rating_rows} rating and"
            " statistics rows.\n"
        )
        bad = [report for game in done.games if not (report := await store.replay(game)).ok]
        for report in bad:
            out.write(f"game #{report.game_id}: {report.problem}\n")
        out.write(f"Replayed those {len(done.games)} games: {len(bad)} do not match their log.\n")
        return 1 if bad else 0


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


def user_id(text: str) -> int:
    """A Discord user id: a positive number."""
    if not text.isdigit() or not 0 < int(text) < 2**63:
        raise argparse.ArgumentTypeError(f"{text!r} is not a Discord user id (a number)")
    return int(text)


DESCRIPTION = N_("""\
The bot's database: check that every game replays as stored, copy it into another
database, back it up while the bot runs, forget a player, or rate finished games.
The database is the one named on the command line, else $DATABASE_URL, else
sqlite:///data/bot.db.""")

EPILOG = N_("""\
examples:
  %(prog)s check
  %(prog)s backup backups/bot.db
  %(prog)s copy sqlite:///data/bot.db postgresql://bot:password@db:5432/bot
  %(prog)s forget-user 123456789012345678
  %(prog)s ratings --rebuild
Each command lists its own options: %(prog)s check --help""")


def _parser(prog: str, words: Words) -> argparse.ArgumentParser:
    """The command line, its help in ``words``' language (argparse's own words too, while
    :func:`i18n.cli.argparse_speaking` lasts)."""
    formatter = partial(HelpFormatter, words=words)
    parser = argparse.ArgumentParser(
        prog=prog,
        description=words.gettext(DESCRIPTION),
        epilog=words.gettext(EPILOG),
        formatter_class=formatter,
    )
    sub = parser.add_subparsers(
        dest="command", required=True, metavar="command", title=words.gettext("commands")
    )

    def command(name: str, summary: str) -> argparse.ArgumentParser:
        text = words.gettext(summary)
        return sub.add_parser(name, help=text, description=text, formatter_class=formatter)

    check_parser = command("check", N_("replay every game and compare it with its stored snapshot"))
    ratings_parser = command("ratings", N_("rate finished games (--rebuild: all again)"))
    ratings_parser.add_argument(
        "--rebuild",
        action="store_true",
        help=words.gettext("delete every rating and compute all again"),
    )
    backup_parser = command(
        "backup", N_("write a consistent copy into a new SQLite file while the bot runs")
    )
    forget_parser = command(
        "forget-user", N_("replace a player's id and name everywhere by a placeholder")
    )
    for database_parser in (check_parser, ratings_parser, backup_parser, forget_parser):
        database_parser.add_argument(
            "database_url",
            nargs="?",
            default=os.environ.get("DATABASE_URL") or DEFAULT_DATABASE_URL,
            help=words.gettext(
                "the database: sqlite:///path/to/file.db or"
                " postgresql://user:password@host:5432/database"
            ),
        )
    copy_parser = command("copy", N_("copy every game into an empty database"))
    copy_parser.add_argument("source_url", help=words.gettext("e.g. sqlite:///data/bot.db"))
    copy_parser.add_argument(
        "target_url", help=words.gettext("e.g. postgresql://bot:password@db:5432/bot")
    )
    backup_parser.add_argument(
        "file", type=Path, help=words.gettext("the new SQLite file, e.g. backups/bot.db")
    )
    forget_parser.add_argument(
        "user_id", type=user_id, help=words.gettext("the player's Discord user id")
    )
    return parser


def main(argv: Sequence[str] | None = None, out: TextIO = sys.stdout) -> int:
    arguments = list(sys.argv[1:] if argv is None else argv)
    prog = "python -m storage"
    if arguments[:1] == ["--prog"] and len(arguments) > 1:  # ./dev storage: its own name
        prog, arguments = arguments[1], arguments[2:]
    words = i18n.words(default_language())
    with argparse_speaking(words):
        args = _parser(prog, words).parse_args(arguments)
    if args.command == "copy":
        return asyncio.run(copy(args.source_url, args.target_url, out))
    if args.command == "backup":
        return asyncio.run(backup(args.database_url, args.file, out, prog))
    if args.command == "forget-user":
        return asyncio.run(forget_user(args.database_url, args.user_id, out))
    if args.command == "ratings":
        return asyncio.run(ratings(args.database_url, args.rebuild, out))
    return asyncio.run(check(args.database_url, out))


if __name__ == "__main__":
    sys.exit(main())
