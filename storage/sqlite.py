"""The SQLite backend of :class:`storage.base.Storage`, on aiosqlite: the dialect only.

Everything that is not SQL dialect (the write queue, group commit, the state
cache, conflicts and preconditions) lives in :mod:`storage.core`, and the queries
in :mod:`storage.repository`; this module connects, runs transactions, and
applies actions with SQLite's own tools.

How writes stay correct on SQLite
---------------------------------
A transaction may be several awaits long (its body may await other things), and
other tasks run in between. Two ways to keep those tasks from tripping over each
other were considered:

* **Several connections, each write in ``BEGIN IMMEDIATE``.** SQLite's write
  lock serializes them, but a waiter sleeps in SQLite's busy handler (backing off
  up to 100 ms per retry) in its own thread: poor tail latency, one thread per
  connection, and ``SQLITE_BUSY`` surfacing under load.
* **One writer connection guarded by the core's ``asyncio.Lock``** (chosen).
  Waiting for the lock is an ordinary await in FIFO order, held only while SQL runs.

Multi-statement writes (lobby changes, timers, claims) run in ``BEGIN IMMEDIATE``
… ``COMMIT``: taking SQLite's write lock up front means that another process on
the same file (``python -m storage check``, the crash test, a second bot started
by mistake) makes us wait up to ``busy_timeout`` instead of failing half-way with
an upgrade deadlock. A second connection serves reads; in WAL mode it sees only
committed data and never blocks the writer (a third, the looker, runs the small
reads on the loop's thread: below).

An action is applied by inserting one row into the ``apply_action`` view
(migration 4), whose trigger checks ``version = seq - 1 AND status = 'active'``
(else it aborts with "stale version"), replaces the snapshot, bumps the version,
appends the log row and, when the game ends, stores the result and cancels its
timers. Alone, that is a single statement, hence a single atomic transaction in
autocommit mode. A group commit inserts the whole batch with one ``executemany`` in
one ``BEGIN IMMEDIATE`` transaction; if any row is stale the trigger aborts it, the
transaction is rolled back, and the rows are inserted one at a time so that only the
stale one fails.

Where the writer and the lookups run
------------------------------------
aiosqlite runs a connection in its own thread and ships every statement to it
through a queue. The reader works that way. The writer does not, once open: its
statements run on the event loop's thread, each a fraction of a millisecond (WAL
with ``synchronous=NORMAL`` does not sync the file at a commit). A round trip to a
thread costs little CPU, but its result waits until the busy event loop looks, and
under load that took 10-80 ms while the write lock was held and every other write
queued behind it (measured in the bot: a five-statement transaction was five such
waits). Two things a statement on the loop's thread must not do are done elsewhere:

* *Wait for another process's write lock.* The writer's ``busy_timeout`` is 0: a
  busy database raises at once, and :meth:`SqliteStorage._unbusy` tries again after
  a growing pause (an ``await``), until the same timeout. Only a statement that takes
  the lock (``BEGIN IMMEDIATE``, or one autocommit write) can be busy; the rest of a
  transaction runs at once, and an error or a cancellation rolls it back at once.
* *Checkpoint the WAL.* SQLite's automatic checkpoint would copy pages and sync the
  file in the committing statement. It is off on the writer; a third connection runs
  ``wal_checkpoint(PASSIVE)`` in its own thread every :data:`CHECKPOINT_EVERY` writes
  instead. A passive checkpoint copies what it can and never takes the write lock, so
  no write waits for it. A ``FULL`` one holds the write lock while it copies and syncs
  (a few milliseconds, 13 at most beside 8 busy tables), and the writes queued behind it
  waited 1 + 2 + 4 ms in :meth:`SqliteStorage._unbusy`'s pauses: in one run of
  ``benchmarks/ai_load.py``, the slowest click beside 8 tables (12.8 ms). Frames written
  while a checkpoint runs are left to the next one; the WAL is reused from its start once
  one has copied everything (the test writes 400 times and counts its pages).

The hot reads go the same way, for the same reason: the rows of one game, found by key
(:meth:`SqliteStorage._lookup`: a game loaded before a move or a thread update, its new
log entries), run on the loop's thread on a connection of their own (the *looker*),
each about a tenth of a millisecond. Through the reader's thread, a game's load took
2.8-3.1 ms at p99 with the loop busy 11 % of the time (as beside 8 tables of busy
computer players), 0.26-0.29 ms on the loop, and 120-150 against 30-50 us of CPU
(``benchmarks/lookup_latency.py``). Like the writer, the looker never waits for a lock
on the loop's thread: its ``busy_timeout`` is 0, and a read that finds the file busy
(rare in WAL: another connection recovering it) is done by the reader instead, which
waits. Reads that may be long (lists of games, statistics, checks) stay on the reader's
thread.

Durability: WAL with ``synchronous=NORMAL``. A committed transaction survives
the process being killed (the crash test proves it with SIGKILL); an operating
system crash or power cut may lose the last transactions but never corrupts the
file.
"""

from __future__ import annotations

import asyncio
import logging
import sqlite3
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any, ClassVar

import aiosqlite

from storage.core import INFO_COLUMNS, RELOAD_COLUMNS, Clock, Write, utc_now
from storage.errors import BadDatabaseUrl, SchemaTooNew, StorageError, shown_url
from storage.migrations import MIGRATIONS, Dialect, Migration, migrate
from storage.repository import SqlStorage

log = logging.getLogger(__name__)

DEFAULT_DATABASE_URL = "sqlite:///data/bot.db"
BUSY_TIMEOUT_MS = 5000
CHECKPOINT_EVERY = 200
"""Write transactions between two WAL checkpoints (each commit adds a few pages;
SQLite's own automatic checkpoint comes every 1000 pages)."""


def sqlite_path(database_url: str) -> Path:
    """The file of a ``sqlite:///relative/path.db`` or ``sqlite:////absolute/path.db`` URL.

    >>> sqlite_path("sqlite:///data/bot.db")
    PosixPath('data/bot.db')
    >>> sqlite_path("sqlite:////var/lib/bot/bot.db")
    PosixPath('/var/lib/bot/bot.db')
    """
    prefix = "sqlite:///"
    if not database_url.startswith(prefix):
        raise BadDatabaseUrl(
            "DATABASE_URL must look like sqlite:///path/to/file.db or"
            f" postgresql://user:password@host:5432/database, not {shown_url(database_url)!r}."
        )
    rest = database_url[len(prefix) :]
    if not rest or rest.startswith(":memory:") or "?" in rest:
        raise BadDatabaseUrl(
            f"DATABASE_URL must name a database file (got {shown_url(database_url)!r}); "
            "an in-memory database cannot be shared by the bot's two connections."
        )
    return Path(rest)


def unreadable(path: Path, error: sqlite3.DatabaseError) -> StorageError:
    """The sentence for a file that SQLite cannot read (the start and ``./dev check``)."""
    return StorageError(f"{path} is not a readable SQLite database ({error}).")


async def _connect(path: Path, busy_timeout_ms: int) -> aiosqlite.Connection:
    # check_same_thread=False: once open, the writer's statements run on the event
    # loop's thread (see the module doc).
    db = await aiosqlite.connect(
        path, isolation_level=None, timeout=busy_timeout_ms / 1000, check_same_thread=False
    )
    try:
        await db.execute(f"PRAGMA busy_timeout = {busy_timeout_ms:d}")
        await db.execute("PRAGMA foreign_keys = ON")
        await db.execute("PRAGMA synchronous = NORMAL")
    except BaseException:
        await db.close()
        raise
    return db


async def _enable_wal(db: aiosqlite.Connection, path: Path, busy_timeout_ms: int) -> None:
    """Switch the file to WAL (a no-op once it is).

    The switch needs an exclusive lock, and SQLite reports a busy file here
    without calling the busy handler; when several processes open a new file
    at once, wait and retry as the busy timeout would.
    """
    loop = asyncio.get_running_loop()
    deadline = loop.time() + busy_timeout_ms / 1000
    pause = 0.005
    while True:
        try:
            (mode,) = next(iter(await db.execute_fetchall("PRAGMA journal_mode = WAL")))
            break
        except sqlite3.OperationalError as error:
            if "locked" not in str(error) or loop.time() + pause > deadline:
                raise
            await asyncio.sleep(pause)
            pause = min(pause * 2, 0.1)
    if str(mode).lower() != "wal":
        raise StorageError(f"{path} cannot use write-ahead logging (journal mode {mode}).")


class _Migrating:
    """:class:`storage.migrations.MigrationTarget` over an autocommit aiosqlite connection."""

    dialect: Dialect = "sqlite"

    def __init__(self, db: aiosqlite.Connection) -> None:
        self.db = db

    async def version(self) -> int:
        rows = list(await self.db.execute_fetchall("PRAGMA user_version"))
        return int(rows[0][0])

    @asynccontextmanager
    async def locked(self) -> AsyncIterator[None]:
        await self.db.execute("BEGIN IMMEDIATE")  # the write lock: one process migrates
        try:
            yield
            await self.db.execute("COMMIT")
        except BaseException:
            if self.db.in_transaction:
                await self.db.execute("ROLLBACK")
            raise

    async def execute(self, statement: str) -> None:
        await self.db.execute(statement)

    async def set_version(self, version: int) -> None:
        # PRAGMA takes no parameters; ``version`` is an int we computed.
        await self.db.execute(f"PRAGMA user_version = {version:d}")


async def migrate_sqlite(
    db: aiosqlite.Connection, where: str, migrations: Sequence[Migration] = MIGRATIONS
) -> tuple[int, int]:
    """:func:`storage.migrations.migrate` on an autocommit aiosqlite connection."""
    return await migrate(_Migrating(db), where, migrations)


async def open_sqlite(
    database_url: str | None = None,
    *,
    clock: Clock = utc_now,
    busy_timeout_ms: int = BUSY_TIMEOUT_MS,
    migrations: Sequence[Migration] = MIGRATIONS,
) -> SqliteStorage:
    """Open (creating the file and its folder if needed) and migrate a database.

    Raises :class:`~storage.errors.SchemaTooNew` for a database from a newer bot,
    leaving it untouched.
    """
    path = sqlite_path(database_url or DEFAULT_DATABASE_URL)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise StorageError(
            f"Cannot create the folder of the database {path} ({error.strerror or error})."
        ) from None
    try:
        writer = await _connect(path, busy_timeout_ms)
    except sqlite3.DatabaseError as error:
        raise unreadable(path, error) from None
    try:
        try:
            found = await _Migrating(writer).version()
        except sqlite3.DatabaseError as error:
            raise unreadable(path, error) from None
        if found > len(migrations):
            raise SchemaTooNew(str(path), found, len(migrations))
        await _enable_wal(writer, path, busy_timeout_ms)
        before, after = await migrate_sqlite(writer, str(path), migrations)
        if before != after:
            log.info("Migrated %s from schema version %d to %d.", path, before, after)
        # From here on the writer's statements run on the event loop's thread, where
        # SQLite's busy handler would block it: a busy database is waited for by
        # SqliteStorage._unbusy instead, and another connection checkpoints.
        await writer.execute("PRAGMA busy_timeout = 0")
        await writer.execute("PRAGMA wal_autocheckpoint = 0")
        readers: list[aiosqlite.Connection] = []
        try:
            for _ in ("reader", "looker", "checkpointer"):
                readers.append(await _connect(path, busy_timeout_ms))
            # The looker's statements run on the event loop's thread: no busy handler.
            await readers[1].execute("PRAGMA busy_timeout = 0")
        except BaseException:
            for opened in readers:
                await opened.close()
            raise
    except BaseException:
        await writer.close()
        raise
    reader, looker, checkpointer = readers
    return SqliteStorage(path, writer, reader, looker, checkpointer, clock, busy_timeout_ms)


INSERT_ACTION = (
    "INSERT INTO apply_action (game_id, seq, player, action, events, created_at,"
    " snapshot, result) VALUES (?, ?, ?, ?, ?, ?, ?, ?)"
)


def _params(write: Write, now: float) -> tuple[Any, ...]:
    return (
        write.game_id, write.seq, write.player, write.action, write.events, now,
        write.snapshot, write.result,
    )  # fmt: skip


def _stale(error: sqlite3.IntegrityError) -> bool:
    return "stale version" in str(error)


def _busy(error: sqlite3.OperationalError) -> bool:
    """Another connection holds the write lock (SQLITE_BUSY or one of its variants)."""
    return error.sqlite_errorcode & 0xFF == sqlite3.SQLITE_BUSY


def _log_failed_checkpoint(done: asyncio.Future[Any]) -> None:
    if not done.cancelled() and (error := done.exception()) is not None:
        log.warning("A WAL checkpoint failed (the next one will try again): %s", error)


class _SyncTx:
    """A write transaction's statements, run at once on the event loop's thread (once
    ``BEGIN IMMEDIATE`` holds SQLite's write lock, none waits for another process)."""

    def __init__(self, db: sqlite3.Connection) -> None:
        self.db = db

    async def execute(self, sql: str, params: Sequence[Any] = ()) -> int:
        return self.db.execute(sql, params).rowcount

    async def fetch(self, sql: str, params: Sequence[Any] = ()) -> list[Sequence[Any]]:
        return self.db.execute(sql, params).fetchall()

    async def executemany(self, sql: str, rows: Sequence[Sequence[Any]]) -> None:
        self.db.executemany(sql, rows)


class SqliteStorage(SqlStorage):
    """Games, seats, the action log and timers in one SQLite file. See the module doc."""

    UNIQUE_VIOLATION: ClassVar[tuple[type[Exception], ...]] = (sqlite3.IntegrityError,)
    _MESSAGES = """(SELECT json_group_object(m.key, m.message_id)
            FROM game_messages AS m WHERE m.game_id = g.id AND m.message_id IS NOT NULL)"""
    _SHOWN = """(SELECT json_group_object(m.key, m.shown_version)
            FROM game_messages AS m WHERE m.game_id = g.id AND m.shown_version IS NOT NULL)"""
    INFO: ClassVar[str] = INFO_COLUMNS.format(
        seats="""(SELECT json_group_array(
            json_array(s.position, s.player, s.user_id, s.display_name, s.ai_level))
            FROM seats AS s WHERE s.game_id = g.id)""",
        messages=_MESSAGES,
        shown=_SHOWN,
    )
    RELOAD: ClassVar[str] = RELOAD_COLUMNS.format(messages=_MESSAGES, shown=_SHOWN)

    def __init__(
        self,
        path: Path,
        writer: aiosqlite.Connection,
        reader: aiosqlite.Connection,
        looker: aiosqlite.Connection,
        checkpointer: aiosqlite.Connection,
        clock: Clock = utc_now,
        busy_timeout_ms: int = BUSY_TIMEOUT_MS,
    ) -> None:
        super().__init__(clock)
        self.path = path
        self.where = str(path)
        self._writer = writer
        self._reader = reader
        self._looker = looker
        self._checkpointer = checkpointer
        self._db: sqlite3.Connection = writer._conn  # aiosqlite's sqlite3 connection
        self._look: sqlite3.Connection = looker._conn
        self._busy_timeout = busy_timeout_ms / 1000
        self._commits = 0
        self._checkpoint: asyncio.Future[Any] | None = None

    async def _close_connections(self) -> None:
        try:
            await self._optimize()
        finally:
            for connection in (self._writer, self._reader, self._looker, self._checkpointer):
                await connection.close()

    async def _optimize(self) -> None:
        """Refresh the planner's statistics where they are stale; skipped if locked.

        ``PRAGMA optimize`` may run ANALYZE, which reads and then writes: run on its
        own, the write fails at once ("database is locked", without waiting for the
        busy timeout) when another process wrote in between. Taking the write lock
        first makes it wait as any write does; a database still locked after that is
        left as it is, since the statistics are only a hint for the next start.
        """
        try:
            async with self._transaction() as tx:
                await tx.execute("PRAGMA optimize")
        except sqlite3.OperationalError as error:
            log.info("Skipped PRAGMA optimize when closing %s (%s).", self.path, error)

    def _write_now(self, sql: str, params: Sequence[Any] = ()) -> list[Sequence[Any]] | None:
        try:
            rows = self._db.execute(sql, params).fetchall()
        except sqlite3.OperationalError as error:
            if not _busy(error):
                raise
            return None  # another process writes: wait in the queue (_unbusy)
        self._committed()
        return rows

    async def _unbusy(self, sql: str, params: Sequence[Any] = ()) -> list[Any]:
        """Run a statement that takes SQLite's write lock; while another process holds
        it, try again after a pause (growing to 0.1 s) until the busy timeout, as
        SQLite's busy handler would, but without blocking the event loop."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + self._busy_timeout
        pause = 0.001
        while (rows := self._write_now(sql, params)) is None:
            if loop.time() > deadline:
                raise sqlite3.OperationalError("database is locked")
            await asyncio.sleep(pause)
            pause = min(pause * 2, 0.1)
        return rows

    def _committed(self) -> None:
        """Checkpoint the WAL now and then, in the checkpointer's thread (the writer
        runs on the event loop's, where SQLite's automatic checkpoints would stall it)."""
        self._commits += 1
        if self._commits >= CHECKPOINT_EVERY and (
            self._checkpoint is None or self._checkpoint.done()
        ):
            self._commits = 0
            self._checkpoint = asyncio.ensure_future(
                self._checkpointer.execute_fetchall("PRAGMA wal_checkpoint(PASSIVE)")
            )
            self._checkpoint.add_done_callback(_log_failed_checkpoint)

    @asynccontextmanager
    async def _transaction(self) -> AsyncIterator[_SyncTx]:
        await self._unbusy("BEGIN IMMEDIATE")
        try:
            yield _SyncTx(self._db)
            self._db.execute("COMMIT")
        except BaseException:
            if self._db.in_transaction:
                self._db.execute("ROLLBACK")
            raise

    async def _read(self, sql: str, params: Sequence[Any] = ()) -> list[Any]:
        return list(await self._reader.execute_fetchall(sql, params))

    async def _lookup(self, sql: str, params: Sequence[Any] = ()) -> list[Any]:
        try:
            return self._look.execute(sql, params).fetchall()
        except sqlite3.OperationalError as error:
            if not _busy(error):
                raise
        return await self._read(sql, params)  # rare for a WAL reader: wait in a thread

    async def _write_one(self, sql: str, params: Sequence[Any] = ()) -> list[Sequence[Any]]:
        # Autocommit: a write statement takes SQLite's write lock before it reads
        # anything, so another process makes it wait as BEGIN IMMEDIATE would.
        return await self._unbusy(sql, params)

    async def _apply(self, writes: Sequence[Write], now: float) -> dict[int, Exception | None]:
        if len(writes) > 1:
            try:
                async with self._transaction() as tx:
                    await tx.executemany(INSERT_ACTION, [_params(w, now) for w in writes])
            except sqlite3.IntegrityError as error:  # rolled back
                if not _stale(error):
                    raise
                # a stale version: find which, one at a time below
            else:
                return dict.fromkeys((write.game_id for write in writes), None)
        results: dict[int, Exception | None] = {}
        for write in writes:
            try:
                # One statement, so one atomic transaction in autocommit mode (migration 4).
                await self._unbusy(INSERT_ACTION, _params(write, now))
            except sqlite3.IntegrityError as error:
                if not _stale(error):
                    results[write.game_id] = error
            except Exception as error:  # this write's own failure; the others go on
                results[write.game_id] = error
            else:
                results[write.game_id] = None
        return results

    async def integrity_check(self) -> list[str]:
        """SQLite's own ``PRAGMA quick_check``: ``["ok"]`` for a sound file."""
        return [str(row[0]) for row in await self._read("PRAGMA quick_check")]
