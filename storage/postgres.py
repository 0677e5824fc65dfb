"""The PostgreSQL backend of :class:`storage.base.Storage`, on asyncpg: the dialect only.

For a bot that runs as several processes, on one or several machines, sharing one
database. Everything that is not SQL dialect (the write queue, group commit, the
state cache, conflicts and preconditions) lives in :mod:`storage.core`, and the
queries in :mod:`storage.repository`, so both backends behave the same; this
module connects, runs transactions, and applies actions in PostgreSQL's own words.

Options weighed
---------------
* **A connection pool, a transaction per submit.** The usual asyncpg shape, and
  writes of one process would run in parallel. But it needs a second write path
  beside SQLite's (the group commit, cancellation and the cache's invariants
  written twice), and per-submit transactions cost one commit (one WAL flush) each.
* **SERIALIZABLE transactions with retries.** Correct without thinking about each
  statement, but every conflict surfaces as a serialization failure to retry,
  including harmless ones between different games.
* **The core's single writer per process, READ COMMITTED, every guard in one
  statement** (chosen). Each process has one writer connection, used under the
  core's lock, and a few reader connections. Concurrency between *processes* is
  PostgreSQL's job, and every write that could race is one guarded statement or
  locks the row it decides on:

  - an action: ``WITH applied AS (UPDATE games … WHERE version = seq - 1 AND
    status = 'active' RETURNING id) INSERT INTO actions … FROM applied``. Under
    READ COMMITTED an UPDATE that finds the row changed by a transaction that
    committed meanwhile re-evaluates its WHERE on the new row, so of two processes
    applying at one version exactly one matches; the other's statement writes
    nothing and its game is missing from ``RETURNING``: a clean ``Conflict``. A
    group commit passes the whole batch as arrays (``unnest``) in one statement,
    one round trip, one commit;
  - lobby changes, timers and messages first read the game row ``FOR UPDATE``
    (``SqlStorage.FOR_UPDATE``), so two processes changing one lobby take turns,
    as SQLite's ``BEGIN IMMEDIATE`` makes them;
  - one open game per channel: the same partial unique index as on SQLite;
  - timer claims: ``SELECT … FOR UPDATE SKIP LOCKED`` inside the claiming
    UPDATE, so processes claiming at once take different timers without waiting;
  - message versions and named claims: ``INSERT … ON CONFLICT DO UPDATE … WHERE``
    (an atomic compare-and-set).

  Two batches touching the same games in another order could deadlock;
  PostgreSQL then aborts one, which is retried (rows are sorted by game id first,
  which makes it rare).

The append-only log is enforced by triggers that raise on UPDATE, DELETE and
TRUNCATE of ``actions``.

Durability: an acknowledged move is stored. The writer connection sets
``synchronous_commit = on`` (PostgreSQL's own default, whatever the server's is)
unless the URL says otherwise (``?synchronous_commit=off``): a commit's WAL is
written and flushed before ``submit`` returns, so neither a killed bot process nor
a crash of the database server (``pg_ctl stop -m immediate``) loses a move a player
was told was made. The chaos soak found the old default, ``off``, losing one: a move
acknowledged a moment before an immediate stop was gone after the start. It costs a
flush per group commit (milliseconds on ordinary disks), for moves made at a
person's pace.

A connection the server closed (a restart, a crash, a terminated backend) is dropped
and opened again at its next use: a read is tried once more on the new connection; a
write is not (its commit may have happened before the answer was lost), it raises
:class:`~storage.errors.DatabaseUnavailable`, whose sentence the player reads. While
the server is away every call raises that, and the first one after it is back works.

Migrations run in one transaction holding an advisory lock, so processes starting
at once migrate once (see :mod:`storage.migrations`).
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
from collections.abc import AsyncIterator, Iterator, Sequence
from contextlib import asynccontextmanager
from typing import Any, ClassVar

import asyncpg

from storage.core import INFO_COLUMNS, RELOAD_COLUMNS, Clock, Tx, Write, is_postgres_url, utc_now
from storage.errors import (
    BadDatabaseUrl,
    DatabaseUnavailable,
    SchemaTooNew,
    StorageError,
    shown_url,
)
from storage.migrations import MIGRATIONS, Dialect, Migration, migrate
from storage.repository import SqlStorage

log = logging.getLogger(__name__)

READERS = 4
RECONNECT_TIMEOUT = 5.0
"""Seconds to wait for the server when connecting again after it closed a connection."""
"""Reader connections per process (reads run in parallel, writes go through one)."""
MIGRATION_LOCK = 7_202_611
"""The advisory lock key that migrations hold (any constant of this application)."""
DEADLOCK_RETRIES = 5


async def connect(database_url: str, **options: Any) -> asyncpg.Connection:
    """One connection (``options``: asyncpg's); a database out of reach or a URL asyncpg
    cannot read raises a :class:`StorageError` with a sentence (the start and
    ``./dev check`` say the same)."""
    where = shown_url(database_url)
    try:
        return await asyncpg.connect(database_url, **options)
    except (OSError, asyncpg.PostgresError, asyncpg.InterfaceError) as error:
        reason = str(error) or type(error).__name__  # a timeout has no text of its own
        raise StorageError(f"Cannot connect to the database {where}: {reason}") from None
    except ValueError as error:  # asyncpg could not read the URL (e.g. a port not a number)
        raise BadDatabaseUrl(f"DATABASE_URL {where} cannot be read: {error}.") from None


@functools.lru_cache(maxsize=512)
def numbered(sql: str) -> str:
    """The core's ``?`` placeholders as PostgreSQL's ``$1``, ``$2`` ….

    >>> numbered("UPDATE t SET a = ? WHERE id = ?")
    'UPDATE t SET a = $1 WHERE id = $2'
    """
    pieces = sql.split("?")
    out = [pieces[0]]
    for n, piece in enumerate(pieces[1:], start=1):
        out.append(f"${n}{piece}")
    return "".join(out)


LOST = (
    asyncpg.PostgresConnectionError,  # class 08: the connection does not exist, failed
    asyncpg.OperatorInterventionError,  # class 57: shut down, terminated, starting up
    asyncpg.InterfaceError,  # "connection is closed" (and asyncpg's misuse errors)
    asyncpg.exceptions.InternalClientError,  # the server's FATAL came in mid-operation
    OSError,
    TimeoutError,
)


@contextlib.contextmanager
def lost_as_unavailable(connection: asyncpg.Connection) -> Iterator[None]:
    """The server closed ``connection`` (a restart, a crash, a terminated backend):
    :class:`DatabaseUnavailable`, a sentence for the player and one warning line in the
    log, and the connection is dropped (the next use connects again)."""
    try:
        yield
    except LOST as error:
        if isinstance(error, asyncpg.InterfaceError) and not connection.is_closed():
            raise  # asyncpg's own misuse error: a bug, not the server
        with contextlib.suppress(Exception):
            connection.terminate()
        raise DatabaseUnavailable(repr(error)) from None


def _rowcount(status: str) -> int:
    """Rows changed, from a command status such as ``UPDATE 3`` or ``INSERT 0 1``."""
    last = status.rsplit(" ", 1)[-1]
    return int(last) if last.isdigit() else 0


class _Migrating:
    """:class:`storage.migrations.MigrationTarget` over an asyncpg connection."""

    dialect: Dialect = "postgres"

    def __init__(self, db: asyncpg.Connection) -> None:
        self.db = db

    async def version(self) -> int:
        # A plain catalog query (statement snapshot), not to_regclass(): after waiting for
        # the migration lock, a cached "no such table" must not hide another process's.
        exists = await self.db.fetchval(
            "SELECT EXISTS (SELECT 1 FROM pg_catalog.pg_tables"
            " WHERE schemaname = current_schema() AND tablename = 'schema_version')"
        )
        if not exists:
            return 0
        found = await self.db.fetchval("SELECT max(version) FROM schema_version")
        return int(found or 0)

    @asynccontextmanager
    async def locked(self) -> AsyncIterator[None]:
        async with self.db.transaction():
            await self.db.execute(f"SELECT pg_advisory_xact_lock({MIGRATION_LOCK:d})")
            yield

    async def execute(self, statement: str) -> None:
        await self.db.execute(statement)

    async def set_version(self, version: int) -> None:
        await self.db.execute("CREATE TABLE IF NOT EXISTS schema_version (version INTEGER)")
        await self.db.execute("DELETE FROM schema_version")
        await self.db.execute("INSERT INTO schema_version (version) VALUES ($1)", version)


async def open_postgres(
    database_url: str,
    *,
    clock: Clock = utc_now,
    migrations: Sequence[Migration] = MIGRATIONS,
    readers: int = READERS,
) -> PostgresStorage:
    """Connect to and migrate a PostgreSQL database (which must exist).

    Raises :class:`~storage.errors.SchemaTooNew` for a database from a newer bot,
    leaving it untouched.
    """
    if not is_postgres_url(database_url):
        raise BadDatabaseUrl(f"{shown_url(database_url)!r} is not a postgresql:// URL.")
    where = shown_url(database_url)
    settings = {} if "synchronous_commit" in database_url else {"synchronous_commit": "on"}
    writer = await connect(database_url, server_settings=settings)
    connections = [writer]
    try:
        target = _Migrating(writer)
        found = await target.version()
        if found > len(migrations):
            raise SchemaTooNew(where, found, len(migrations))
        before, after = await migrate(target, where, migrations)
        if before != after:
            log.info("Migrated %s from schema version %d to %d.", where, before, after)
        for _ in range(readers):
            connections.append(await asyncpg.connect(database_url))
    except BaseException:
        for connection in connections:
            await connection.close()
        raise
    return PostgresStorage(
        where, writer, connections[1:], clock, url=database_url, writer_settings=settings
    )


APPLY = """
WITH input AS (
    SELECT * FROM unnest($1::bigint[], $2::integer[], $3::text[], $4::text[], $5::text[],
                         $6::text[], $7::text[])
        AS i (game_id, seq, player, action, events, snapshot, result)
), applied AS (
    UPDATE games AS g
       SET snapshot = i.snapshot, version = i.seq, updated_at = $8::double precision,
           result = i.result,
           status = CASE WHEN i.result IS NULL THEN 'active' ELSE 'finished' END,
           finished_at = CASE WHEN i.result IS NULL THEN NULL ELSE $8 END
      FROM input AS i
     WHERE g.id = i.game_id AND g.version = i.seq - 1 AND g.status = 'active'
    RETURNING g.id
), logged AS (
    INSERT INTO actions (game_id, seq, player, action, events, created_at)
    SELECT i.game_id, i.seq, i.player, i.action, i.events, $8
      FROM input AS i JOIN applied AS a ON a.id = i.game_id
), finished AS (
    UPDATE timers AS t SET cancelled_at = $8
      FROM input AS i JOIN applied AS a ON a.id = i.game_id
     WHERE i.result IS NOT NULL AND t.game_id = i.game_id
       AND t.fired_at IS NULL AND t.cancelled_at IS NULL
)
SELECT id FROM applied
"""
"""Apply a batch of actions, each only at its game's current version (module doc)."""


class _Tx:
    def __init__(self, db: asyncpg.Connection) -> None:
        self.db = db

    async def execute(self, sql: str, params: Sequence[Any] = ()) -> int:
        return _rowcount(await self.db.execute(numbered(sql), *params))

    async def fetch(self, sql: str, params: Sequence[Any] = ()) -> list[Sequence[Any]]:
        return [tuple(row) for row in await self.db.fetch(numbered(sql), *params)]

    async def executemany(self, sql: str, rows: Sequence[Sequence[Any]]) -> None:
        await self.db.executemany(numbered(sql), rows)


class PostgresStorage(SqlStorage):
    """Games, seats, the action log and timers in PostgreSQL. See the module doc."""

    UNIQUE_VIOLATION: ClassVar[tuple[type[Exception], ...]] = (asyncpg.UniqueViolationError,)
    FOR_UPDATE: ClassVar[str] = " FOR UPDATE"
    RATINGS_LOCK: ClassVar[str] = "SELECT pg_advisory_xact_lock(7461746)"  # "rat" ings
    LOG_UNGUARD: ClassVar[tuple[str, ...]] = (
        "ALTER TABLE actions DISABLE TRIGGER actions_are_never_changed",
    )
    LOG_GUARD: ClassVar[tuple[str, ...]] = (
        "ALTER TABLE actions ENABLE TRIGGER actions_are_never_changed",
    )
    FORGET_LOCKS: ClassVar[tuple[str, ...]] = (RATINGS_LOCK,)
    _MESSAGES = """(SELECT coalesce(json_object_agg(m.key, m.message_id), '{}')::text
            FROM game_messages AS m WHERE m.game_id = g.id AND m.message_id IS NOT NULL)"""
    _SHOWN = """(SELECT coalesce(json_object_agg(m.key, m.shown_version), '{}')::text
            FROM game_messages AS m WHERE m.game_id = g.id AND m.shown_version IS NOT NULL)"""
    INFO: ClassVar[str] = INFO_COLUMNS.format(
        seats="""(SELECT coalesce(json_agg(json_build_array(
            s.position, s.player, s.user_id, s.display_name, s.ai_level)), '[]')::text
            FROM seats AS s WHERE s.game_id = g.id)""",
        messages=_MESSAGES,
        shown=_SHOWN,
    )
    RELOAD: ClassVar[str] = RELOAD_COLUMNS.format(messages=_MESSAGES, shown=_SHOWN)

    def __init__(
        self,
        where: str,
        writer: asyncpg.Connection,
        readers: Sequence[asyncpg.Connection],
        clock: Clock = utc_now,
        url: str | None = None,
        writer_settings: dict[str, str] | None = None,
    ) -> None:
        super().__init__(clock)
        self.where = where
        self._url = url
        self._writer_settings = dict(writer_settings or {})
        self._writer = writer
        self._all_readers = list(readers)
        self._readers: asyncio.Queue[asyncpg.Connection] = asyncio.Queue()
        for reader in readers:
            self._readers.put_nowait(reader)

    async def _reconnect(self, settings: dict[str, str]) -> asyncpg.Connection:
        """A new connection in place of one the server closed (a restart); raises
        :class:`DatabaseUnavailable` while the server is away."""
        if self._url is None:
            raise DatabaseUnavailable("the connection was lost, and there is no URL")
        try:
            return await asyncpg.connect(
                self._url, server_settings=settings, timeout=RECONNECT_TIMEOUT
            )
        except (OSError, TimeoutError, asyncpg.PostgresError, asyncpg.InterfaceError) as error:
            raise DatabaseUnavailable(repr(error)) from None

    async def _writable(self) -> asyncpg.Connection:
        if self._writer.is_closed():
            self._writer = await self._reconnect(self._writer_settings)
            log.warning("%s: the writer's connection was lost; connected again", self.where)
        return self._writer

    async def _open_reader(self, reader: asyncpg.Connection) -> asyncpg.Connection:
        if not reader.is_closed():
            return reader
        fresh = await self._reconnect({})
        self._all_readers = [fresh if r is reader else r for r in self._all_readers]
        log.warning("%s: a reader's connection was lost; connected again", self.where)
        return fresh

    async def _close_connections(self) -> None:
        for connection in (self._writer, *self._all_readers):
            with contextlib.suppress(Exception):
                await connection.close()

    @asynccontextmanager
    async def _transaction(self) -> AsyncIterator[_Tx]:
        writer = await self._writable()
        with lost_as_unavailable(writer):
            transaction = writer.transaction()
            await transaction.start()
            try:
                yield _Tx(writer)
            except BaseException:
                if not writer.is_closed():
                    await transaction.rollback()
                raise
            await transaction.commit()

    async def _read(self, sql: str, params: Sequence[Any] = ()) -> list[Any]:
        reader = await self._readers.get()
        try:
            for attempt in range(2):  # a read is safe to try again on a new connection
                reader = await self._open_reader(reader)
                try:
                    with lost_as_unavailable(reader):
                        return [tuple(row) for row in await reader.fetch(numbered(sql), *params)]
                except DatabaseUnavailable:
                    if attempt:
                        raise
            raise AssertionError("unreachable")
        finally:
            self._readers.put_nowait(reader)

    async def _write_one(self, sql: str, params: Sequence[Any] = ()) -> list[Sequence[Any]]:
        writer = await self._writable()
        with lost_as_unavailable(writer):
            return [tuple(row) for row in await writer.fetch(numbered(sql), *params)]

    async def _apply(self, writes: Sequence[Write], now: float) -> dict[int, Exception | None]:
        ordered = sorted(writes, key=lambda write: write.game_id)  # lock rows in one order
        columns = (
            [w.game_id for w in ordered],
            [w.seq for w in ordered],
            [w.player for w in ordered],
            [w.action for w in ordered],
            [w.events for w in ordered],
            [w.snapshot for w in ordered],
            [w.result for w in ordered],
        )
        writer = await self._writable()
        for attempt in range(1, DEADLOCK_RETRIES + 1):
            try:
                with lost_as_unavailable(writer):  # stored or not: the player is told so
                    rows = await writer.fetch(APPLY, *columns, now)
            except asyncpg.DeadlockDetectedError:
                if attempt == DEADLOCK_RETRIES:
                    raise
                continue
            return {row[0]: None for row in rows}
        raise AssertionError("unreachable")

    async def _ids_copied(self, db: Tx) -> None:
        for table in ("games", "timers"):
            await db.fetch(
                f"SELECT setval(pg_get_serial_sequence('{table}', 'id'),"
                f" (SELECT coalesce(max(id), 0) + 1 FROM {table}), false)"
            )

    async def integrity_check(self) -> list[str]:
        """The schema's guards are in place: ``["ok"]``, or what is missing.

        PostgreSQL checks its own pages; what a hand edit could remove is ours: the
        one-open-game-per-channel index and the append-only triggers.
        """
        problems = []
        index = await self._read(
            "SELECT count(*) FROM pg_indexes WHERE indexname = 'games_one_open_per_channel'"
        )
        if index[0][0] != 1:
            problems.append("the index games_one_open_per_channel is missing")
        triggers = await self._read(
            "SELECT count(*) FROM pg_trigger WHERE tgname IN"
            " ('actions_are_never_changed', 'actions_are_never_truncated')"
        )
        if triggers[0][0] != 2:
            problems.append("the append-only triggers of the action log are missing")
        return problems or ["ok"]
