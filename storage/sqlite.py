"""The SQLite backend of :class:`storage.base.Storage`, on aiosqlite.

How writes stay correct
-----------------------
aiosqlite runs each connection in its own thread and ships every statement to it
through a queue, one await per statement. A transaction is therefore several
awaits long, and other tasks run in between. Two ways to keep those tasks from
tripping over each other were considered:

* **Several connections, each write in ``BEGIN IMMEDIATE``.** SQLite's write
  lock serializes them, but a waiter sleeps in SQLite's busy handler (backing off
  up to 100 ms per retry) in its own thread: poor tail latency, one thread per
  connection, and ``SQLITE_BUSY`` surfacing under load.
* **One writer connection guarded by an ``asyncio.Lock``** (chosen). Waiting for
  the lock is an ordinary await in FIFO order; the lock is held only while SQL
  runs, never across engine work. It is needed for correctness, not only speed:
  on a shared connection, another task's statement issued between someone's
  ``BEGIN`` and ``COMMIT`` would silently join that transaction.

So this process has exactly one writer connection and takes ``self._lock``
around every write. Multi-statement writes (lobby changes, timers) run in
``BEGIN IMMEDIATE`` … ``COMMIT``: taking SQLite's write lock up front means that
another process on the same file (``python -m storage check``, the crash test, a
second bot started by mistake) makes us wait up to ``busy_timeout`` instead of
failing half-way with an upgrade deadlock. A second connection serves reads; in
WAL mode it sees only committed data and never blocks the writer.

``submit`` is optimistic, like boardgame.io's state id. It takes the state at
``expected_version`` (from a small in-memory cache, or the read connection) and
runs the engine *outside* the lock. Then, under the lock, it inserts one row
into the ``apply_action`` view (migration 4), whose trigger checks ``version =
seq - 1 AND status = 'active'``, replaces the snapshot, bumps the version,
appends the log row (and, when the game ends, stores the result and cancels
its timers). That is a single statement, hence a single atomic transaction in
autocommit mode, and a cancelled await can never leave a transaction open.
Submits commit as a group: those that arrive while the writer is busy wait in a
queue, and the next turn of the writer commits them all in one transaction with
one ``executemany`` (three round trips to the connection thread however many
there are), so under load the event loop runs the engine for the next submits
while the writer thread commits the last ones. A stale version makes the trigger
abort the statement: nothing is written and ``Conflict`` is raised; in a group,
the transaction is rolled back and its rows are written one at a time, so only
the stale one fails. A submit returns once its transaction has committed.
The guard lives in SQL, not only in Python, so it also holds between processes;
a PostgreSQL backend would write the same thing as
``WITH g AS (UPDATE games … WHERE version = $n RETURNING id) INSERT INTO actions …``.
The cache only ever holds states read from committed data or written by a
committed statement, keyed by version, so a stale entry can cause a
``Conflict`` but never a wrong write.

Durability: WAL with ``synchronous=NORMAL``. A committed transaction survives
the process being killed (the crash test proves it with SIGKILL); an operating
system crash or power cut may lose the last transactions but never corrupts the
file.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import sqlite3
from collections import OrderedDict
from collections.abc import AsyncIterator, Callable, Mapping, Sequence
from contextlib import asynccontextmanager
from datetime import UTC, datetime, timedelta
from pathlib import Path
from types import TracebackType
from typing import Any, Self, cast

import aiosqlite
from pydantic import BaseModel

from engine import GAME_MODULES, get_game
from engine.core import Game, PlayerId, RuleError
from storage.errors import (
    AlreadySeated,
    BadDatabaseUrl,
    ChannelBusy,
    Conflict,
    GameNotFound,
    LobbyFull,
    NotSeated,
    SchemaTooNew,
    StorageError,
    UnknownGame,
    UnreadableGame,
    WrongStatus,
)
from storage.migrations import MIGRATIONS, Migration, migrate, schema_version
from storage.models import (
    AI_PREFIX,
    GameInfo,
    LoadedGame,
    LoggedAction,
    ReplayReport,
    Seat,
    Status,
    Submitted,
    Timer,
    human_player,
)

log = logging.getLogger(__name__)

Clock = Callable[[], datetime]
DEFAULT_DATABASE_URL = "sqlite:///data/bot.db"
BUSY_TIMEOUT_MS = 5000
STATE_CACHE_SIZE = 2048
SUBMIT_RETRIES = 8
"""Attempts of ``submit(..., expected_version=None)`` before giving up with ``Conflict``."""


def utc_now() -> datetime:
    return datetime.now(UTC)


# --------------------------------------------------------------------------- URL


def sqlite_path(database_url: str) -> Path:
    """The file of a ``sqlite:///relative/path.db`` or ``sqlite:////absolute/path.db`` URL.

    >>> sqlite_path("sqlite:///data/bot.db")
    PosixPath('data/bot.db')
    >>> sqlite_path("sqlite:////var/lib/bot/bot.db")
    PosixPath('/var/lib/bot/bot.db')
    """
    prefix = "sqlite:///"
    if database_url.startswith(("postgres://", "postgresql://")):
        raise BadDatabaseUrl(
            "PostgreSQL is not supported yet; set DATABASE_URL to sqlite:///path/to/file.db."
        )
    if not database_url.startswith(prefix):
        raise BadDatabaseUrl(
            f"DATABASE_URL must look like sqlite:///path/to/file.db, not {database_url!r}."
        )
    rest = database_url[len(prefix) :]
    if not rest or rest.startswith(":memory:") or "?" in rest:
        raise BadDatabaseUrl(
            f"DATABASE_URL must name a database file (got {database_url!r}); "
            "an in-memory database cannot be shared by the bot's two connections."
        )
    return Path(rest)


# --------------------------------------------------------------------------- time


def _ts(moment: datetime) -> float:
    if moment.tzinfo is None:
        raise ValueError(f"{moment!r} has no time zone; pass an aware datetime (UTC).")
    return moment.timestamp()


def _dt(seconds: float) -> datetime:
    return datetime.fromtimestamp(seconds, UTC)


def _opt_dt(seconds: float | None) -> datetime | None:
    return None if seconds is None else _dt(seconds)


# --------------------------------------------------------------------------- rows

_INFO_COLUMNS = """
    g.id, g.guild_id, g.channel_id, g.thread_id, g.host_id, g.kind, g.options, g.seed,
    g.status, g.version, g.result, g.created_at, g.updated_at, g.started_at, g.finished_at,
    (SELECT json_group_array(
            json_array(s.position, s.player, s.user_id, s.display_name, s.ai_level))
       FROM seats AS s WHERE s.game_id = g.id),
    (SELECT json_group_object(m.key, m.message_id)
       FROM game_messages AS m WHERE m.game_id = g.id AND m.message_id IS NOT NULL),
    g.settings,
    (SELECT json_group_object(m.key, m.shown_version)
       FROM game_messages AS m WHERE m.game_id = g.id AND m.shown_version IS NOT NULL)
"""
_SNAPSHOT = 19
"""Index of ``g.snapshot`` when appended after ``_INFO_COLUMNS``."""


def _json_object(game_id: int, text: str, what: str) -> dict[str, Any]:
    try:
        value = json.loads(text)
    except (TypeError, ValueError) as error:
        raise UnreadableGame(game_id, f"its {what} is not valid JSON ({error}).") from None
    if not isinstance(value, dict):
        raise UnreadableGame(game_id, f"its {what} is not a JSON object.")
    return value


def _info_from_row(row: Sequence[Any]) -> GameInfo:
    game_id = int(row[0])
    seats_raw = sorted(json.loads(row[15]))
    seats = tuple(
        Seat(player=p, display_name=name, user_id=uid, level=level)
        for _pos, p, uid, name, level in seats_raw
    )
    return GameInfo(
        id=game_id,
        guild_id=row[1],
        channel_id=row[2],
        thread_id=row[3],
        host_id=row[4],
        kind=row[5],
        options=_json_object(game_id, row[6], "options"),
        seed=row[7],
        status=cast(Status, row[8]),
        version=row[9],
        seats=seats,
        messages=json.loads(row[16]),
        shown_versions=json.loads(row[18]),
        settings=_json_object(game_id, row[17], "settings"),
        result=None if row[10] is None else _json_object(game_id, row[10], "result"),
        created_at=_dt(row[11]),
        updated_at=_dt(row[12]),
        started_at=_opt_dt(row[13]),
        finished_at=_opt_dt(row[14]),
    )


def _loaded(info: GameInfo, state: Any) -> LoadedGame:
    fields = {name: getattr(info, name) for name in GameInfo.__dataclass_fields__}
    return LoadedGame(**fields, state=state)


def _dump_events(events: Sequence[Any]) -> str:
    return "[" + ",".join(event.model_dump_json() for event in events) + "]"


class _Cached:
    __slots__ = ("kind", "state", "version")

    def __init__(self, version: int, kind: str, state: Any) -> None:
        self.version = version
        self.kind = kind
        self.state = state


# --------------------------------------------------------------------------- storage


async def _connect(path: Path, busy_timeout_ms: int) -> aiosqlite.Connection:
    db = await aiosqlite.connect(path, isolation_level=None, timeout=busy_timeout_ms / 1000)
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


async def open_storage(
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
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        writer = await _connect(path, busy_timeout_ms)
    except sqlite3.DatabaseError as error:
        raise StorageError(f"{path} is not a readable SQLite database ({error}).") from None
    try:
        try:
            found = await schema_version(writer)
        except sqlite3.DatabaseError as error:
            raise StorageError(f"{path} is not a readable SQLite database ({error}).") from None
        if found > len(migrations):
            raise SchemaTooNew(str(path), found, len(migrations))
        await _enable_wal(writer, path, busy_timeout_ms)
        before, after = await migrate(writer, str(path), migrations)
        if before != after:
            log.info("Migrated %s from schema version %d to %d.", path, before, after)
        reader = await _connect(path, busy_timeout_ms)
    except BaseException:
        await writer.close()
        raise
    return SqliteStorage(path, writer, reader, clock)


CLOSED = "The database closed before this move was saved."
INSERT_ACTION = (
    "INSERT INTO apply_action (game_id, seq, player, action, events, created_at,"
    " snapshot, result) VALUES (?, ?, ?, ?, ?, ?, ?, ?)"
)


class _Write:
    """One applied action on its way to the writer (alone, or in a group commit)."""

    def __init__(
        self,
        game_id: int,
        player: PlayerId,
        version: int,
        expected: int | None,
        row: tuple[str, str, str, str | None],
    ) -> None:
        self.game_id, self.player, self.version, self.expected = game_id, player, version, expected
        self.row = row
        self.done: asyncio.Future[None] = asyncio.get_running_loop().create_future()

    def params(self, now: float) -> tuple[Any, ...]:
        snapshot, action_json, events_json, result_json = self.row
        return (
            self.game_id, self.version + 1, self.player, action_json, events_json, now,
            snapshot, result_json,
        )  # fmt: skip

    def succeed(self) -> None:
        if not self.done.done():
            self.done.set_result(None)

    def fail(self, error: Exception) -> None:
        if not self.done.done():
            self.done.set_exception(error)


class SqliteStorage:
    """Games, seats, the action log and timers in one SQLite file. See the module doc."""

    def __init__(
        self,
        path: Path,
        writer: aiosqlite.Connection,
        reader: aiosqlite.Connection,
        clock: Clock = utc_now,
    ) -> None:
        self.path = path
        self._writer = writer
        self._reader = reader
        self._clock = clock
        self._lock = asyncio.Lock()
        self._cache: OrderedDict[int, _Cached] = OrderedDict()
        self._closed = False
        self._queued: list[_Write] = []
        self._flusher: asyncio.Task[None] | None = None

    # ------------------------------------------------------------------ lifecycle

    async def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        if self._flusher is not None:
            await self._flusher  # what was submitted is committed before closing
        async with self._lock:
            try:
                await self._writer.execute("PRAGMA optimize")
            finally:
                await self._writer.close()
                await self._reader.close()

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        await self.close()

    def _now(self) -> float:
        return _ts(self._clock())

    # ------------------------------------------------------------------ plumbing

    @asynccontextmanager
    async def _write(self) -> AsyncIterator[aiosqlite.Connection]:
        """One write transaction on the writer connection, under the process-wide lock."""
        async with self._lock:
            db = self._writer
            try:
                await db.execute("BEGIN IMMEDIATE")
                yield db
                await db.execute("COMMIT")
            except BaseException:
                await self._rollback()
                raise

    async def _rollback(self) -> None:
        """Roll back after any error, cancellation included.

        Awaited directly (not shielded), the ROLLBACK enters the connection's
        queue at once, ahead of any later BEGIN; a cancelled BEGIN or COMMIT
        still runs in the worker thread, and the ROLLBACK after it ends (or
        finds no) transaction, so the lock is never released with one open."""
        with contextlib.suppress(sqlite3.OperationalError):  # already ended by the error
            await self._writer.execute("ROLLBACK")

    async def _read(self, sql: str, params: Sequence[Any] = ()) -> list[Any]:
        return list(await self._reader.execute_fetchall(sql, params))

    @staticmethod
    async def _rows(db: aiosqlite.Connection, sql: str, params: Sequence[Any] = ()) -> list[Any]:
        return list(await db.execute_fetchall(sql, params))

    def _engine(self, game_id: int, kind: str) -> Game:
        try:
            return get_game(kind)
        except (KeyError, ImportError) as error:
            raise UnreadableGame(game_id, f"unknown game kind {kind!r} ({error}).") from None

    def _parse_state(self, game_id: int, kind: str, snapshot: str | None) -> Any:
        game = self._engine(game_id, kind)
        if snapshot is None:
            raise UnreadableGame(game_id, "it is started but has no saved state.")
        try:
            return game.parse_state(snapshot)
        except (ValueError, TypeError) as error:  # pydantic's ValidationError is a ValueError
            summary = str(error).splitlines()[0]
            raise UnreadableGame(game_id, f"its state does not parse ({summary}).") from None

    def _remember(self, game_id: int, version: int, kind: str, state: Any) -> None:
        cached = self._cache.get(game_id)
        if cached is not None and cached.version > version:
            return  # a newer committed state is already here
        self._cache[game_id] = _Cached(version, kind, state)
        self._cache.move_to_end(game_id)
        while len(self._cache) > STATE_CACHE_SIZE:
            self._cache.popitem(last=False)

    async def _status(self, db: aiosqlite.Connection, game_id: int) -> tuple[str, Status]:
        rows = await self._rows(db, "SELECT kind, status FROM games WHERE id = ?", (game_id,))
        if not rows:
            raise GameNotFound(game_id)
        return rows[0][0], rows[0][1]

    async def _lobby_kind(self, db: aiosqlite.Connection, game_id: int) -> str:
        kind, status = await self._status(db, game_id)
        if status != "lobby":
            raise WrongStatus(game_id, status, "a lobby")
        return kind

    # ------------------------------------------------------------------ lobby

    async def create_lobby(
        self,
        *,
        guild_id: int,
        channel_id: int,
        kind: str,
        options: Mapping[str, Any] | None,
        host_id: int,
        host_name: str,
        settings: Mapping[str, Any] | None = None,
    ) -> LoadedGame:
        try:
            game = get_game(kind)
        except (KeyError, ImportError):  # unknown name, or its engine is not installed
            raise UnknownGame(kind, ", ".join(sorted(GAME_MODULES))) from None
        options_json = game.parse_options(options).model_dump_json()  # InvalidSetup propagates
        settings_json = json.dumps(dict(settings or {}))
        now = self._now()
        async with self._write() as db:
            try:
                cursor = await db.execute(
                    "INSERT INTO games (guild_id, channel_id, host_id, kind, options, settings,"
                    " status, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, 'lobby', ?, ?)",
                    (guild_id, channel_id, host_id, kind, options_json, settings_json, now, now),
                )
            except sqlite3.IntegrityError:
                # The partial unique index refused a second open game in this channel.
                rows = await self._rows(
                    db,
                    "SELECT id, kind, status FROM games"
                    " WHERE channel_id = ? AND status IN ('lobby', 'active')",
                    (channel_id,),
                )
                if not rows:
                    raise
                raise ChannelBusy(channel_id, rows[0][0], rows[0][1], rows[0][2]) from None
            game_id = cursor.lastrowid
            assert game_id is not None
            await db.execute(
                "INSERT INTO seats (game_id, position, player, user_id, display_name)"
                " VALUES (?, 0, ?, ?, ?)",
                (game_id, human_player(host_id), host_id, host_name),
            )
        return await self.load(game_id)

    async def _add_seat(
        self,
        game_id: int,
        player: PlayerId | None,
        user_id: int | None,
        name: str | None,
        level: str | None = None,
    ) -> None:
        async with self._write() as db:
            kind = await self._lobby_kind(db, game_id)
            seats = await self._rows(
                db, "SELECT position, player FROM seats WHERE game_id = ?", (game_id,)
            )
            taken = {row[1] for row in seats}
            if player in taken:
                raise AlreadySeated(f"You already have a seat in game #{game_id}.")
            maximum = self._engine(game_id, kind).max_players
            if len(seats) >= maximum:
                raise LobbyFull(f"Game #{game_id} is full: it seats at most {maximum} players.")
            if player is None:  # an AI seat: the lowest free number
                number = next(n for n in range(1, len(seats) + 2) if f"{AI_PREFIX}{n}" not in taken)
                player = f"{AI_PREFIX}{number}"
                name = name or f"AI {number}"
            position = max((row[0] for row in seats), default=-1) + 1
            await db.execute(
                "INSERT INTO seats (game_id, position, player, user_id, display_name, ai_level)"
                " VALUES (?, ?, ?, ?, ?, ?)",
                (game_id, position, player, user_id, name, level),
            )
            await db.execute("UPDATE games SET updated_at = ? WHERE id = ?", (self._now(), game_id))

    async def join(self, game_id: int, user_id: int, display_name: str) -> LoadedGame:
        await self._add_seat(game_id, human_player(user_id), user_id, display_name)
        return await self.load(game_id)

    async def add_ai(
        self, game_id: int, display_name: str | None = None, level: str | None = None
    ) -> LoadedGame:
        """A computer seat ("AI n" unless named); ``level`` is how it plays (stored as
        given: the bot knows the levels, storage does not)."""
        await self._add_seat(game_id, None, None, display_name, level)
        return await self.load(game_id)

    async def leave(self, game_id: int, player: PlayerId) -> LoadedGame:
        async with self._write() as db:
            await self._lobby_kind(db, game_id)
            cursor = await db.execute(
                "DELETE FROM seats WHERE game_id = ? AND player = ?", (game_id, player)
            )
            if cursor.rowcount != 1:
                raise NotSeated(f"That player has no seat in game #{game_id}.")
            await db.execute("UPDATE games SET updated_at = ? WHERE id = ?", (self._now(), game_id))
        return await self.load(game_id)

    async def start(self, game_id: int, seed: int) -> LoadedGame:
        async with self._write() as db:
            rows = await self._rows(
                db, "SELECT kind, status, options FROM games WHERE id = ?", (game_id,)
            )
            if not rows:
                raise GameNotFound(game_id)
            kind, status, options_json = rows[0]
            if status != "lobby":
                raise WrongStatus(game_id, status, "a lobby")
            seats = await self._rows(
                db, "SELECT player FROM seats WHERE game_id = ? ORDER BY position", (game_id,)
            )
            game = self._engine(game_id, kind)
            options = game.parse_options(_json_object(game_id, options_json, "options"))
            # InvalidSetup (e.g. too few players) propagates and rolls back: nothing written.
            state = game.new_game([row[0] for row in seats], seed, options)
            now = self._now()
            await db.execute(
                "UPDATE games SET status = 'active', seed = ?, snapshot = ?, version = 0,"
                " started_at = ?, updated_at = ? WHERE id = ?",
                (seed, state.model_dump_json(), now, now, game_id),
            )
        self._remember(game_id, 0, kind, state)
        return await self.load(game_id)

    async def set_thread(self, game_id: int, thread_id: int | None) -> None:
        async with self._write() as db:
            cursor = await db.execute(
                "UPDATE games SET thread_id = ?, updated_at = ? WHERE id = ?",
                (thread_id, self._now(), game_id),
            )
            if cursor.rowcount != 1:
                raise GameNotFound(game_id)

    async def set_message(self, game_id: int, key: str, message_id: int | None) -> None:
        async with self._write() as db:
            await self._status(db, game_id)
            if message_id is None:  # the shown version stays: it must never go back
                await db.execute(
                    "UPDATE game_messages SET message_id = NULL WHERE game_id = ? AND key = ?",
                    (game_id, key),
                )
                await db.execute(
                    "DELETE FROM game_messages"
                    " WHERE game_id = ? AND key = ? AND shown_version IS NULL",
                    (game_id, key),
                )
            else:
                await db.execute(
                    "INSERT INTO game_messages (game_id, key, message_id) VALUES (?, ?, ?)"
                    " ON CONFLICT (game_id, key) DO UPDATE SET message_id = excluded.message_id",
                    (game_id, key, message_id),
                )

    async def claim_message_version(self, game_id: int, key: str, version: int) -> bool:
        """Record that message ``key`` is about to show ``version``: True (and stored)
        when it showed nothing yet or an older version, False otherwise (do not edit).

        An atomic compare-and-set in SQL, so of two processes publishing the same
        game, the one with the older version loses, whichever order they arrive in.
        """
        async with self._write() as db:
            await self._status(db, game_id)
            rows = await self._rows(
                db,
                "INSERT INTO game_messages (game_id, key, shown_version) VALUES (?, ?, ?)"
                " ON CONFLICT (game_id, key) DO UPDATE SET shown_version = excluded.shown_version"
                " WHERE game_messages.shown_version IS NULL"
                " OR game_messages.shown_version < excluded.shown_version"
                " RETURNING key",
                (game_id, key, version),
            )
            return bool(rows)

    async def shown_version(self, game_id: int, key: str) -> int | None:
        """The version message ``key`` was last claimed to show (``None``: never)."""
        rows = await self._read(
            "SELECT shown_version FROM game_messages WHERE game_id = ? AND key = ?",
            (game_id, key),
        )
        return rows[0][0] if rows else None

    async def try_claim(self, name: str, owner: str, lease: timedelta) -> bool:
        """Hold ``name`` for ``lease``: True when it was free, its lease had run out, or
        ``owner`` already held it (the lease is renewed); False while another holds it.

        For work exactly one process should do (e.g. syncing slash commands for
        one command tree: ``try_claim(f"sync:{tree_hash}", owner, timedelta(days=1))``).
        """
        now = self._now()
        async with self._write() as db:
            rows = await self._rows(
                db,
                "INSERT INTO claims (name, owner, claimed_until) VALUES (?, ?, ?)"
                " ON CONFLICT (name) DO UPDATE"
                " SET owner = excluded.owner, claimed_until = excluded.claimed_until"
                " WHERE claims.claimed_until <= ? OR claims.owner = excluded.owner"
                " RETURNING name",
                (name, owner, now + lease.total_seconds(), now),
            )
            return bool(rows)

    # ------------------------------------------------------------------ reading

    async def info(self, game_id: int) -> GameInfo:
        rows = await self._read(
            f"SELECT {_INFO_COLUMNS} FROM games AS g WHERE g.id = ?", (game_id,)
        )
        if not rows:
            raise GameNotFound(game_id)
        return _info_from_row(rows[0])

    async def load(self, game_id: int) -> LoadedGame:
        rows = await self._read(
            f"SELECT {_INFO_COLUMNS}, g.snapshot FROM games AS g WHERE g.id = ?", (game_id,)
        )
        if not rows:
            raise GameNotFound(game_id)
        return self._loaded_from_row(rows[0])

    def _loaded_from_row(self, row: Sequence[Any]) -> LoadedGame:
        info = _info_from_row(row)
        if info.status == "lobby" or (info.status == "abandoned" and info.seed is None):
            return _loaded(info, None)
        cached = self._cache.get(info.id)
        if cached is not None and cached.version == info.version:
            return _loaded(info, cached.state)
        state = self._parse_state(info.id, info.kind, row[_SNAPSHOT])
        if info.status == "active":
            self._remember(info.id, info.version, info.kind, state)
        return _loaded(info, state)

    async def find_open(self, channel_id: int) -> LoadedGame | None:
        rows = await self._read(
            f"SELECT {_INFO_COLUMNS}, g.snapshot FROM games AS g"
            " WHERE g.channel_id = ? AND g.status IN ('lobby', 'active')"
            " UNION ALL "
            f"SELECT {_INFO_COLUMNS}, g.snapshot FROM games AS g"
            " WHERE g.thread_id = ? AND g.status IN ('lobby', 'active')",
            (channel_id, channel_id),
        )
        return self._loaded_from_row(rows[0]) if rows else None

    async def list_games(
        self, *, guild_id: int | None = None, statuses: Sequence[str] | None = None
    ) -> list[GameInfo]:
        """Games by id; unreadable ones are logged and left out (``check`` reports them)."""
        where, params = ["1"], list[Any]()
        if guild_id is not None:
            where.append("g.guild_id = ?")
            params.append(guild_id)
        if statuses is not None:
            where.append(f"g.status IN ({', '.join('?' for _ in statuses)})")
            params.extend(statuses)
        rows = await self._read(
            f"SELECT {_INFO_COLUMNS} FROM games AS g WHERE {' AND '.join(where)} ORDER BY g.id",
            params,
        )
        return self._readable(rows)

    def _readable(self, rows: Sequence[Sequence[Any]]) -> list[GameInfo]:
        games = []
        for row in rows:
            try:
                games.append(_info_from_row(row))
            except UnreadableGame as error:
                log.warning("%s", error)
        return games

    async def history(
        self, guild_id: int, *, kind: str | None = None, limit: int = 50
    ) -> list[GameInfo]:
        sql = (
            f"SELECT {_INFO_COLUMNS} FROM games AS g WHERE g.guild_id = ? AND g.status = 'finished'"
        )
        params: list[Any] = [guild_id]
        if kind is not None:
            sql += " AND g.kind = ?"
            params.append(kind)
        sql += " ORDER BY g.finished_at DESC, g.id DESC LIMIT ?"
        params.append(limit)
        return self._readable(await self._read(sql, params))

    async def log(self, game_id: int) -> list[LoggedAction]:
        rows = await self._read(
            "SELECT seq, player, action, events, created_at FROM actions"
            " WHERE game_id = ? ORDER BY seq",
            (game_id,),
        )
        if not rows:
            await self.info(game_id)  # GameNotFound for an unknown id
        try:
            return [
                LoggedAction(seq, player, json.loads(action), json.loads(events), _dt(created))
                for seq, player, action, events, created in rows
            ]
        except ValueError as error:
            raise UnreadableGame(game_id, f"its action log is not valid JSON ({error}).") from None

    # ------------------------------------------------------------------ play

    async def submit(
        self,
        game_id: int,
        player: PlayerId,
        action: Any,
        expected_version: int | None,
        *,
        precondition: Callable[[Any], None] | None = None,
    ) -> Submitted:
        """Apply ``action`` by ``player`` and persist it in one transaction.

        ``expected_version`` is the version the player saw (encode it in the
        button). A different current version, or another submit committing
        first, raises :class:`Conflict` and writes nothing.

        With ``None`` the action is applied to the latest state: for
        simultaneous choices whose validity does not depend on the others'
        (T-4: arrival order is the order storage commits them). Such submits
        run the engine while holding the write lock, so they queue instead of
        conflicting.

        ``precondition(state)``, if given, is called with the state the action is
        about to be applied to (with ``None``: the latest, under the write lock), so a
        check there and the commit are one step; whatever it raises propagates and
        nothing is written (e.g. a simultaneous choice for a phase that has ended).

        A ``RuleError`` from the engine propagates; nothing is written. When the
        engine reports an outcome the game becomes finished, which frees its
        channel, and its pending timers are cancelled.
        """
        if expected_version is not None:
            return await self._submit_once(
                game_id, player, action, expected_version, precondition=precondition
            )
        for attempt in range(1, SUBMIT_RETRIES + 1):
            try:
                async with self._lock:
                    return await self._submit_once(
                        game_id, player, action, None, locked=True, precondition=precondition
                    )
            except Conflict:
                # Only another process can win against a holder of our lock.
                if attempt == SUBMIT_RETRIES:
                    raise
        raise AssertionError("unreachable")

    async def _current(self, game_id: int, expected: int | None) -> tuple[int, str, Any]:
        """``(version, kind, state)`` to apply to; raises if the game cannot take actions."""
        cached = self._cache.get(game_id)
        if cached is not None:
            if expected is None or cached.version == expected:
                return cached.version, cached.kind, cached.state
            if cached.version > expected:
                raise Conflict(game_id, expected, cached.version)
        rows = await self._read(
            "SELECT kind, status, version, snapshot FROM games WHERE id = ?", (game_id,)
        )
        if not rows:
            raise GameNotFound(game_id)
        kind, status, version, snapshot = rows[0]
        if status != "active":
            raise WrongStatus(game_id, status, "active")
        if expected is not None and version != expected:
            raise Conflict(game_id, expected, version)
        state = self._parse_state(game_id, kind, snapshot)
        self._remember(game_id, version, kind, state)
        return version, kind, state

    async def _submit_once(
        self,
        game_id: int,
        player: PlayerId,
        action: Any,
        expected: int | None,
        *,
        locked: bool = False,
        precondition: Callable[[Any], None] | None = None,
    ) -> Submitted:
        version, kind, state = await self._current(game_id, expected)
        if precondition is not None:
            precondition(state)
        game = self._engine(game_id, kind)
        parsed = action if isinstance(action, BaseModel) else game.parse_action(action)
        # A RuleError leaves here, before anything is written.
        new_state, events = game.apply(state, player, parsed)
        outcome = game.outcome(new_state)
        row = (
            new_state.model_dump_json(),
            parsed.model_dump_json(),
            _dump_events(events),
            None if outcome is None else outcome.model_dump_json(),
        )
        write = _Write(game_id, player, version, expected, row)
        if locked:
            await self._commit(write)
        else:
            await self._group_commit(write)
        if outcome is None:
            self._remember(game_id, version + 1, kind, new_state)
        else:
            self._cache.pop(game_id, None)
        return Submitted(new_state, tuple(events), version + 1)

    async def _group_commit(self, write: _Write) -> None:
        """Commit ``write`` together with the others waiting for the writer (one
        transaction, one round trip for all of them); return once it is committed."""
        self._queued.append(write)
        if self._flusher is None or self._flusher.done():
            self._flusher = asyncio.create_task(self._flush(), name="storage-group-commit")
        await write.done  # cancelling this wait does not take the write back

    async def _flush(self) -> None:
        """Commit the queued writes, a batch at a time, until none is left."""
        try:
            while self._queued:
                async with self._lock:
                    batch, self._queued = self._queued, []
                    await self._commit_batch(batch)
        finally:  # cancelled: no submit may wait for ever
            for write in self._queued:
                write.fail(StorageError(CLOSED))
            self._queued = []

    async def _commit_batch(self, batch: list[_Write]) -> None:
        """One transaction for the whole batch; one at a time if another process won
        one of them (each then gets its own result). The caller holds the lock."""
        ready: list[_Write] = []
        games: set[int] = set()
        for write in batch:
            cached = self._cache.get(write.game_id)
            if write.game_id in games or (cached is not None and cached.version != write.version):
                # a second write at one version in this batch, or lost to a committed one
                write.fail(Conflict(write.game_id, write.expected, None))
            else:
                games.add(write.game_id)
                ready.append(write)
        if len(ready) > 1:
            try:
                await self._writer.execute("BEGIN IMMEDIATE")
                now = self._now()
                await self._writer.executemany(INSERT_ACTION, [w.params(now) for w in ready])
                await self._writer.execute("COMMIT")
            except sqlite3.IntegrityError:
                await self._rollback()  # a stale version: find which, one at a time below
            except BaseException as error:
                await self._rollback()
                for write in ready:
                    write.fail(error if isinstance(error, Exception) else StorageError(CLOSED))
                if not isinstance(error, Exception):
                    raise
                return
            else:
                for write in ready:
                    write.succeed()
                return
        for write in ready:
            try:
                await self._commit(write)
            except Exception as error:
                write.fail(error)
            else:
                write.succeed()

    async def _commit(self, write: _Write) -> None:
        """Write one applied action; the caller holds ``self._lock``."""
        cached = self._cache.get(write.game_id)
        if cached is not None and cached.version != write.version:
            # lost within this process
            raise Conflict(write.game_id, write.expected, cached.version)
        try:
            # One statement, so one atomic transaction even in autocommit mode; a
            # cancelled await cannot leave a transaction open (migration 4).
            await self._writer.execute(INSERT_ACTION, write.params(self._now()))
        except sqlite3.IntegrityError as error:
            if "stale version" not in str(error):
                raise
            self._cache.pop(write.game_id, None)  # re-read from the database next time
            raise Conflict(write.game_id, write.expected, None) from None  # another process won

    async def abandon(self, game_id: int) -> None:
        """End a lobby or active game without a result; frees the channel, cancels timers.

        Works on a game whose stored state cannot be read.
        """
        now = self._now()
        async with self._write() as db:
            _kind, status = await self._status(db, game_id)
            if status not in ("lobby", "active"):
                raise WrongStatus(game_id, status, "a lobby or active")
            await db.execute(
                "UPDATE games SET status = 'abandoned', finished_at = ?, updated_at = ?"
                " WHERE id = ?",
                (now, now, game_id),
            )
            await self._cancel_pending(db, game_id, now)
        self._cache.pop(game_id, None)

    # ------------------------------------------------------------------ timers

    @staticmethod
    async def _cancel_pending(
        db: aiosqlite.Connection, game_id: int, now: float, kind: str | None = None
    ) -> int:
        sql = (
            "UPDATE timers SET cancelled_at = ? WHERE game_id = ?"
            " AND fired_at IS NULL AND cancelled_at IS NULL"
        )
        params: list[Any] = [now, game_id]
        if kind is not None:
            sql += " AND kind = ?"
            params.append(kind)
        cursor = await db.execute(sql, params)
        return cursor.rowcount

    async def schedule(
        self,
        game_id: int,
        kind: str,
        due_at: datetime,
        payload: Mapping[str, Any] | None = None,
        *,
        replace: bool = False,
    ) -> Timer:
        """A timer for an open game; ``replace`` first cancels its pending timers of ``kind``."""
        payload_json = json.dumps(dict(payload or {}), separators=(",", ":"))
        due = _ts(due_at)
        now = self._now()
        async with self._write() as db:
            _kind, status = await self._status(db, game_id)
            if status not in ("lobby", "active"):
                raise WrongStatus(game_id, status, "a lobby or active")
            if replace:
                await self._cancel_pending(db, game_id, now, kind)
            cursor = await db.execute(
                "INSERT INTO timers (game_id, kind, due_at, payload, created_at)"
                " VALUES (?, ?, ?, ?, ?)",
                (game_id, kind, due, payload_json, now),
            )
            timer_id = cursor.lastrowid
            assert timer_id is not None
        return Timer(timer_id, game_id, kind, _dt(due), json.loads(payload_json), _dt(now))

    async def cancel_timer(self, timer_id: int) -> bool:
        """True if the timer was pending (and now is not)."""
        async with self._write() as db:
            cursor = await db.execute(
                "UPDATE timers SET cancelled_at = ?"
                " WHERE id = ? AND fired_at IS NULL AND cancelled_at IS NULL",
                (self._now(), timer_id),
            )
            return cursor.rowcount == 1

    async def cancel_timers(self, game_id: int, kind: str | None = None) -> int:
        async with self._write() as db:
            return await self._cancel_pending(db, game_id, self._now(), kind)

    async def due_timers(self, now: datetime | None = None) -> list[Timer]:
        """Pending timers due at ``now`` (default: the clock), oldest first.

        This includes every timer that came due while the bot was down. A timer
        whose payload cannot be read is logged and left out.
        """
        moment = self._now() if now is None else _ts(now)
        return await self._pending("due_at <= ?", (moment,))

    async def pending_timers(self, game_id: int) -> list[Timer]:
        """One game's pending timers, soonest first (e.g. to show when a turn limit ends)."""
        return await self._pending("game_id = ?", (game_id,))

    async def _pending(self, where: str, params: Sequence[Any]) -> list[Timer]:
        rows = await self._read(
            "SELECT id, game_id, kind, due_at, payload, created_at FROM timers"
            f" WHERE fired_at IS NULL AND cancelled_at IS NULL AND {where}"
            " ORDER BY due_at, id",
            params,
        )
        return self._timers(rows)

    @staticmethod
    def _timers(rows: Sequence[Sequence[Any]]) -> list[Timer]:
        timers = []
        for timer_id, game_id, kind, due, payload, created in rows:
            try:
                timers.append(
                    Timer(
                        timer_id,
                        game_id,
                        kind,
                        _dt(due),
                        _json_object(game_id, payload, f"timer {timer_id} payload"),
                        _dt(created),
                    )
                )
            except UnreadableGame as error:
                log.warning("%s", error)
        return timers

    async def next_due_at(self) -> datetime | None:
        """When the next pending timer is due, so the bot can sleep until then."""
        rows = await self._read(
            "SELECT MIN(due_at) FROM timers WHERE fired_at IS NULL AND cancelled_at IS NULL"
        )
        return _opt_dt(rows[0][0])

    async def claim_due_timers(
        self, owner: str, lease: timedelta, now: datetime | None = None, limit: int = 100
    ) -> list[Timer]:
        """Claim up to ``limit`` due timers for ``owner`` for ``lease``, oldest first.

        Only this owner gets them until the lease runs out: fire each, then
        ``finish_timer``. A timer whose lease ran out unfinished (its process died)
        is due again and can be claimed by another owner. A timer whose payload
        cannot be read is logged and left out (it stays claimed until its lease ends).
        """
        moment = self._now() if now is None else _ts(now)
        async with self._write() as db:
            rows = await self._rows(
                db,
                "UPDATE timers SET claimed_by = ?, claimed_until = ? WHERE id IN ("
                " SELECT id FROM timers WHERE fired_at IS NULL AND cancelled_at IS NULL"
                " AND due_at <= ? AND (claimed_until IS NULL OR claimed_until <= ?)"
                " ORDER BY due_at, id LIMIT ?)"
                " RETURNING id, game_id, kind, due_at, payload, created_at",
                (owner, moment + lease.total_seconds(), moment, moment, limit),
            )
        return self._timers(sorted(rows, key=lambda row: (row[3], row[0])))

    async def finish_timer(self, timer_id: int, owner: str) -> bool:
        """Mark a claimed timer fired; False if ``owner`` no longer holds it (its lease ran
        out and another claimed it), or it was cancelled or already fired."""
        async with self._write() as db:
            cursor = await db.execute(
                "UPDATE timers SET fired_at = ? WHERE id = ? AND claimed_by = ?"
                " AND fired_at IS NULL AND cancelled_at IS NULL",
                (self._now(), timer_id, owner),
            )
            return cursor.rowcount == 1

    async def mark_fired(self, timer_id: int) -> bool:
        """Record that a timer fired; False if it already had (or was cancelled).

        Act first, then mark: if the bot dies in between, the timer fires again
        after the restart, and a timer action submitted with the version from
        its payload is refused as a ``Conflict`` the second time.
        """
        async with self._write() as db:
            cursor = await db.execute(
                "UPDATE timers SET fired_at = ?"
                " WHERE id = ? AND fired_at IS NULL AND cancelled_at IS NULL",
                (self._now(), timer_id),
            )
            return cursor.rowcount == 1

    # ------------------------------------------------------------------ audit

    async def replay(self, game_id: int) -> ReplayReport:
        """Rebuild the state from seed, options, seats and log; compare with the snapshot."""
        try:
            return await self._replay(game_id)
        except (UnreadableGame, ValueError) as error:  # RuleError is a ValueError
            return ReplayReport(game_id, False, 0, str(error))

    async def _replay(self, game_id: int) -> ReplayReport:
        rows = await self._read(
            "SELECT kind, status, seed, options, snapshot, version, result FROM games WHERE id = ?",
            (game_id,),
        )
        if not rows:
            raise GameNotFound(game_id)
        kind, status, seed, options_json, snapshot, version, result = rows[0]
        log_rows = await self._read(
            "SELECT seq, player, action, events FROM actions WHERE game_id = ? ORDER BY seq",
            (game_id,),
        )

        def bad(problem: str) -> ReplayReport:
            return ReplayReport(game_id, False, len(log_rows), problem)

        if seed is None:  # never started
            if log_rows or version != 0 or snapshot is not None:
                return bad("it was never started but has actions or a state.")
            return ReplayReport(game_id, True, 0)
        game = self._engine(game_id, kind)
        stored = self._parse_state(game_id, kind, snapshot)
        seats = await self._read(
            "SELECT player FROM seats WHERE game_id = ? ORDER BY position", (game_id,)
        )
        players = [row[0] for row in seats]
        options = game.parse_options(_json_object(game_id, options_json, "options"))
        state = game.new_game(players, seed, options)
        if [row[0] for row in log_rows] != list(range(1, len(log_rows) + 1)):
            return bad("its action log has a gap or a duplicate seq.")
        if len(log_rows) != version:
            return bad(f"its version is {version} but its log holds {len(log_rows)} actions.")
        for seq, player, action_json, events_json in log_rows:
            try:
                action = game.parse_action(action_json)
                state, events = game.apply(state, player, action)
            except RuleError as error:
                return bad(f"action {seq} is refused on replay: {error}")
            if json.loads(_dump_events(events)) != json.loads(events_json):
                return bad(f"action {seq} gives other events on replay than were logged.")
        replayed = state.model_dump(mode="json")
        saved = stored.model_dump(mode="json")
        if replayed != saved:
            keys = sorted(
                k for k in replayed.keys() | saved.keys() if replayed.get(k) != saved.get(k)
            )
            return bad(f"the replayed state differs from the snapshot in: {', '.join(keys)}.")
        outcome = game.outcome(state)
        if (outcome is not None) != (status == "finished"):
            over = "over" if outcome is not None else "not over"
            return bad(f"it is {status}, but the engine says the game is {over}.")
        if outcome is not None and json.loads(outcome.model_dump_json()) != json.loads(
            result or "null"
        ):
            return bad("its stored result differs from the engine's outcome.")
        return ReplayReport(game_id, True, len(log_rows))

    async def unreadable_games(self) -> list[UnreadableGame]:
        """Lobbies and active games whose stored data cannot be read, by id.

        Cheaper than ``check_all`` (no replay): the bot can call it at start-up
        and log what it finds; the rest of the games are unaffected either way.
        """
        rows = await self._read(
            f"SELECT {_INFO_COLUMNS}, g.snapshot FROM games AS g"
            " WHERE g.status IN ('lobby', 'active') ORDER BY g.id"
        )
        problems = []
        for row in rows:
            try:
                self._loaded_from_row(row)
            except UnreadableGame as error:
                problems.append(error)
        return problems

    async def integrity_check(self) -> list[str]:
        """SQLite's own ``PRAGMA quick_check``: ``["ok"]`` for a sound file."""
        return [str(row[0]) for row in await self._read("PRAGMA quick_check")]

    async def check_all(self) -> list[ReplayReport]:
        """``replay`` for every game, in id order; one bad game never stops the rest."""
        reports = []
        for (game_id,) in await self._read("SELECT id FROM games ORDER BY id"):
            try:
                reports.append(await self.replay(game_id))
            except Exception as error:  # report it with its id, carry on
                reports.append(ReplayReport(game_id, False, 0, f"{type(error).__name__}: {error}"))
        return reports
