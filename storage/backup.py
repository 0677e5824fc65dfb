"""Backups and copies of a whole database, taken while the bot keeps writing.

``python -m storage backup`` writes a new SQLite file; ``python -m storage copy`` moves
every game into an empty database of either kind. A backup is also a restore (copy the
file back, or ``copy`` it into PostgreSQL) and a move back to one machine.

Each reads one consistent snapshot of its source, so the copy holds every move committed
before the snapshot and none half (a game's version and log agree, and ``python -m
storage check`` replays every game of it):

* **SQLite to a file**: SQLite's online backup (``sqlite3.Connection.backup``) on a
  connection of its own, in one step. In WAL mode the step is one read transaction: the
  bot's writes go on meanwhile (they land in the WAL after the snapshot), and none of
  them restarts the backup, which copying in several steps would.
* **PostgreSQL, and ``copy`` from either**: every table read in one transaction,
  ``REPEATABLE READ READ ONLY`` on PostgreSQL (one snapshot for all its statements), a
  read transaction on SQLite (WAL keeps its snapshot), in batches through a cursor, and
  written into the target in one transaction.

A backup file is written under a temporary name beside it and renamed when complete and
sound (``PRAGMA quick_check``), never over a file that exists: a failed backup leaves no
half file behind. Its journal mode is ``DELETE``, so it is one self-contained file.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import sqlite3
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from storage.core import SqlCore, is_postgres_url
from storage.errors import StorageError
from storage.sqlite import BUSY_TIMEOUT_MS, open_sqlite, sqlite_path, unreadable

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
"""What a copy moves, parents first (named claims are not moved: they are leases)."""
BATCH = 1000
"""Rows read and written at a time."""


class Snapshot(Protocol):
    """One database's tables, read in one consistent snapshot."""

    def rows(self, table: str, columns: str) -> AsyncIterator[Sequence[Sequence[Any]]]:
        """The table's rows, in batches of at most :data:`BATCH`."""
        ...


class _SqliteSnapshot:
    """A read transaction on a connection of its own (WAL keeps its snapshot), read
    in a thread so the event loop (a bot in the same process) goes on."""

    def __init__(self, db: sqlite3.Connection) -> None:
        self.db = db

    async def rows(self, table: str, columns: str) -> AsyncIterator[Sequence[Sequence[Any]]]:
        cursor = await asyncio.to_thread(self.db.execute, f"SELECT {columns} FROM {table}")
        while batch := await asyncio.to_thread(cursor.fetchmany, BATCH):
            yield batch


class _PostgresSnapshot:
    def __init__(self, db: Any) -> None:
        self.db = db

    async def rows(self, table: str, columns: str) -> AsyncIterator[Sequence[Sequence[Any]]]:
        cursor = await self.db.cursor(f"SELECT {columns} FROM {table}")
        while batch := await cursor.fetch(BATCH):
            yield [tuple(row) for row in batch]


@asynccontextmanager
async def snapshot(database_url: str) -> AsyncIterator[Snapshot]:
    """Every table of ``database_url`` as of one moment (module doc)."""
    if is_postgres_url(database_url):
        from storage.postgres import connect  # asyncpg is loaded only when used

        connection = await connect(database_url)
        try:
            async with connection.transaction(isolation="repeatable_read", readonly=True):
                yield _PostgresSnapshot(connection)
        finally:
            await connection.close()
        return
    path = sqlite_path(database_url)
    db = await asyncio.to_thread(_connect_existing, path)
    try:
        await asyncio.to_thread(db.execute, "BEGIN")  # deferred: the first read takes it
        yield _SqliteSnapshot(db)
    finally:
        await asyncio.to_thread(db.close)


def _connect_existing(path: Path) -> sqlite3.Connection:
    """A connection to a SQLite file that must exist (``mode=rw`` creates nothing)."""
    try:
        db = sqlite3.connect(
            f"{path.absolute().as_uri()}?mode=rw",
            uri=True,
            timeout=BUSY_TIMEOUT_MS / 1000,
            isolation_level=None,
            check_same_thread=False,  # used by one thread at a time (asyncio.to_thread)
        )
    except sqlite3.DatabaseError as error:
        raise unreadable(path, error) from None
    return db


async def copy_rows(source_url: str, target: SqlCore) -> dict[str, int]:
    """Every row of :data:`TABLES` from one snapshot of ``source_url`` into ``target``,
    in one transaction of the target (all or nothing); the rows copied by table."""
    counts = dict.fromkeys(TABLES, 0)
    async with snapshot(source_url) as source, target._write() as db:
        for table, columns in TABLES.items():
            marks = ", ".join("?" for _ in columns.split(","))
            insert = f"INSERT INTO {table} ({columns}) VALUES ({marks})"
            async for batch in source.rows(table, columns):
                await db.executemany(insert, batch)
                counts[table] += len(batch)
        await target._ids_copied(db)
    return counts


@dataclass(frozen=True)
class Backup:
    """A backup file written: what it holds."""

    path: Path
    games: int
    actions: int
    size: int
    """Bytes."""


def _partial(path: Path) -> Path:
    """The temporary name a backup is written under, beside its final name (so the
    rename stays on one file system)."""
    return path.with_name(f".{path.name}.partial-{os.getpid()}")


def _remove(path: Path) -> None:
    for leftover in (path, *(Path(f"{path}{tail}") for tail in ("-wal", "-shm", "-journal"))):
        with contextlib.suppress(FileNotFoundError):
            leftover.unlink()


def _sqlite_backup(source: Path, partial: Path) -> None:
    """SQLite's online backup of ``source`` into the new file ``partial``, in one step."""
    db = _connect_existing(source)
    try:
        try:
            db.execute("SELECT count(*) FROM sqlite_master").fetchall()
        except sqlite3.DatabaseError as error:
            raise unreadable(source, error) from None
        target = sqlite3.connect(partial)
        try:
            db.backup(target)  # pages=-1: one step, one read transaction of the source
        except sqlite3.DatabaseError as error:
            raise StorageError(f"The backup of {source} failed: {error}.") from None
        finally:
            target.close()
    finally:
        db.close()


def _seal(partial: Path) -> tuple[int, int]:
    """Make the written file one self-contained file and check it; its games and actions."""
    db = sqlite3.connect(partial, isolation_level=None)
    try:
        db.execute("PRAGMA journal_mode = DELETE")  # folds in and removes its WAL
        problems = [str(row[0]) for row in db.execute("PRAGMA quick_check")]
        if problems != ["ok"]:
            raise StorageError(f"The backup failed its integrity check: {'; '.join(problems)}.")
        ((games,),) = db.execute("SELECT count(*) FROM games").fetchall()
        ((actions,),) = db.execute("SELECT count(*) FROM actions").fetchall()
    except sqlite3.DatabaseError as error:  # say a file that holds no games at all
        raise StorageError(f"The backup cannot be read back: {error}.") from None
    finally:
        db.close()
    return int(games), int(actions)


def _publish(partial: Path, path: Path) -> None:
    """Give the complete file its name, never over a file that exists."""
    appeared = StorageError(f"{path} appeared while the backup was written; it was left alone.")
    try:
        os.link(partial, path)  # fails if ``path`` exists, unlike a rename
    except FileExistsError:
        raise appeared from None
    except OSError:  # a file system without hard links: check, then rename
        if path.exists():
            raise appeared from None
        os.replace(partial, path)
    else:
        partial.unlink()


def _prepare(path: Path) -> Path:
    """Refuse a file that exists; the temporary name to write under, free."""
    if path.exists():
        raise StorageError(
            f"{path} already exists; a backup never overwrites a file. Choose a new name."
        )
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = _partial(path)
    _remove(partial)
    return partial


def _finish(partial: Path, path: Path) -> Backup:
    games, actions = _seal(partial)
    size = partial.stat().st_size
    _publish(partial, path)
    return Backup(path, games, actions, size)


async def backup(source_url: str, path: Path) -> Backup:
    """Write a consistent copy of ``source_url`` to the new SQLite file ``path``.

    Raises :class:`StorageError` with a sentence when ``path`` exists, the source
    cannot be read, or the file cannot be written; nothing is left at ``path`` then.
    A PostgreSQL source must be at this bot's schema version (open it once, as
    ``python -m storage check`` does, to migrate it)."""
    partial = None
    try:
        partial = await asyncio.to_thread(_prepare, path)
        if is_postgres_url(source_url):
            target = await open_sqlite(f"sqlite:///{partial}")
            async with target:
                await copy_rows(source_url, target)
        else:
            await asyncio.to_thread(_sqlite_backup, sqlite_path(source_url), partial)
        return await asyncio.to_thread(_finish, partial, path)
    except OSError as error:
        raise StorageError(f"Cannot write the backup {path}: {error.strerror or error}.") from None
    finally:
        if partial is not None:
            await asyncio.to_thread(_remove, partial)
