"""What both SQL backends share: the write queue, group commit, the state cache, the
conflict and precondition logic, and every query that is not dialect.

A backend (:mod:`storage.sqlite`, :mod:`storage.postgres`) subclasses
:class:`SqlStorage` and supplies only what differs between SQL dialects: how to
connect, a write transaction (:class:`Tx`), how to read, the JSON aggregates of
:data:`INFO_COLUMNS`, the statement that applies a batch of actions with the
version guard, and its integrity check. Queries here are written once with ``?``
placeholders, which the PostgreSQL backend numbers (``$1``, ``$2`` …); times are
stored as UNIX seconds (``REAL`` / ``DOUBLE PRECISION``) and JSON as text on both,
so a row means the same thing in either database and ``storage copy`` moves it as is.

How writes stay correct
-----------------------
Options weighed for sharing the write path between the backends:

* **Each backend its own write path** (SQLite's single writer, a PostgreSQL
  connection pool with a transaction per submit). It would let PostgreSQL run
  writes of one process in parallel, but it doubles the subtle code (group
  commit, cancellation, the cache's invariants), and two copies drift apart.
* **One write path over a small dialect interface** (chosen). Every process has
  one writer connection, used under ``self._lock`` (an ``asyncio.Lock``, FIFO,
  held only while SQL runs, never across engine work), and one place that reads
  (a second connection, or a small pool). On a shared connection another task's
  statement issued between someone's ``BEGIN`` and ``COMMIT`` would silently join
  that transaction; the lock rules that out for both dialects alike. Throughput
  does not suffer: submits that arrive while the writer is busy are committed
  together (group commit), so one transaction and one round trip carry many
  actions; and several processes (the reason to use PostgreSQL) each have a writer.

``submit`` is optimistic, like boardgame.io's state id. It takes the state at
``expected_version`` (from the in-memory cache, or a read) and runs the engine
*outside* the lock, then queues the resulting row for the writer. The writer's
next turn hands every queued row to the backend's ``_apply`` at once; ``_apply``
writes them in one transaction with the guard **in SQL**: a row applies only if
the game is still ``active`` at ``version = seq - 1`` (SQLite: the
``apply_action`` view's trigger; PostgreSQL: ``WITH g AS (UPDATE games … WHERE
version = seq - 1 RETURNING id) INSERT INTO actions …``). It returns the games it
applied; each of the others is a clean :class:`Conflict` (another process or
connection won), nothing of it written. A submit returns once its transaction has
committed. Because the guard is in SQL it holds between processes and machines,
and a stale cache entry can cause a ``Conflict`` but never a wrong write: the
cache only holds states read from committed data or written by a committed
statement, keyed by version, and any ``Conflict`` drops the game's entry.

With ``expected_version=None`` (simultaneous choices judged by a precondition,
not by the version the player saw) a lost race is not the caller's problem: the
submit runs under the lock (so this process's own such submits queue rather than
conflict) and, when another *process* committed in between, re-reads the latest
state, re-runs the precondition and the engine, and tries again, backing off a
little outside the lock after the first retries. A version race therefore never
loses a choice; only the precondition or the engine can refuse it.

Other work done once across processes is claimed in SQL too: due timers (a claim
with a lease), the version each public message shows (compare-and-set), and named
claims (``try_claim``), each a single guarded statement.
"""

from __future__ import annotations

import asyncio
import json
import logging
import random
from collections import OrderedDict
from collections.abc import AsyncIterator, Callable, Mapping, Sequence
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from datetime import UTC, datetime, timedelta
from types import TracebackType
from typing import Any, ClassVar, Protocol, Self, cast

from pydantic import BaseModel

from engine import GAME_MODULES, get_game
from engine.core import Game, PlayerId, RuleError
from storage.errors import (
    AlreadySeated,
    ChannelBusy,
    Conflict,
    GameNotFound,
    LobbyFull,
    NotSeated,
    StorageError,
    UnknownGame,
    UnreadableGame,
    WrongStatus,
)
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
STATE_CACHE_SIZE = 2048
SUBMIT_RETRIES = 50
"""Attempts of ``submit(..., expected_version=None)`` before giving up with ``Conflict``:
each failed attempt means another process committed to the same game meanwhile."""
CLOSED = "The database closed before this move was saved."


def utc_now() -> datetime:
    return datetime.now(UTC)


def is_postgres_url(database_url: str) -> bool:
    """``postgresql://…`` (or ``postgres://…``) selects the PostgreSQL backend."""
    return database_url.startswith(("postgresql://", "postgres://"))


# --------------------------------------------------------------------------- time


def ts(moment: datetime) -> float:
    if moment.tzinfo is None:
        raise ValueError(f"{moment!r} has no time zone; pass an aware datetime (UTC).")
    return moment.timestamp()


def dt(seconds: float) -> datetime:
    return datetime.fromtimestamp(seconds, UTC)


def opt_dt(seconds: float | None) -> datetime | None:
    return None if seconds is None else dt(seconds)


# --------------------------------------------------------------------------- rows

INFO_COLUMNS = """
    g.id, g.guild_id, g.channel_id, g.thread_id, g.host_id, g.kind, g.options, g.seed,
    g.status, g.version, g.result, g.created_at, g.updated_at, g.started_at, g.finished_at,
    {seats}, {messages}, g.settings, {shown}
"""
"""The columns of a :class:`GameInfo`; a backend fills in three JSON aggregates:
``seats`` (an array of ``[position, player, user_id, display_name, ai_level]``),
``messages`` (``{key: message_id}``) and ``shown`` (``{key: shown_version}``)."""
SNAPSHOT = 19
"""Index of ``g.snapshot`` when appended after the info columns."""


def json_object(game_id: int, text: str, what: str) -> dict[str, Any]:
    try:
        value = json.loads(text)
    except (TypeError, ValueError) as error:
        raise UnreadableGame(game_id, f"its {what} is not valid JSON ({error}).") from None
    if not isinstance(value, dict):
        raise UnreadableGame(game_id, f"its {what} is not a JSON object.")
    return value


def info_from_row(row: Sequence[Any]) -> GameInfo:
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
        options=json_object(game_id, row[6], "options"),
        seed=row[7],
        status=cast(Status, row[8]),
        version=row[9],
        seats=seats,
        messages=json.loads(row[16]),
        shown_versions=json.loads(row[18]),
        settings=json_object(game_id, row[17], "settings"),
        result=None if row[10] is None else json_object(game_id, row[10], "result"),
        created_at=dt(row[11]),
        updated_at=dt(row[12]),
        started_at=opt_dt(row[13]),
        finished_at=opt_dt(row[14]),
    )


def _loaded(info: GameInfo, state: Any) -> LoadedGame:
    fields = {name: getattr(info, name) for name in GameInfo.__dataclass_fields__}
    return LoadedGame(**fields, state=state)


def dump_events(events: Sequence[Any]) -> str:
    return "[" + ",".join(event.model_dump_json() for event in events) + "]"


class _Cached:
    __slots__ = ("kind", "state", "version")

    def __init__(self, version: int, kind: str, state: Any) -> None:
        self.version = version
        self.kind = kind
        self.state = state


class Tx(Protocol):
    """One open write transaction, in the core's ``?`` placeholder style."""

    async def execute(self, sql: str, params: Sequence[Any] = ()) -> int:
        """Run one statement; the number of rows it changed."""
        ...

    async def fetch(self, sql: str, params: Sequence[Any] = ()) -> list[Sequence[Any]]:
        """Run one statement (a SELECT, or a write with RETURNING); its rows."""
        ...

    async def executemany(self, sql: str, rows: Sequence[Sequence[Any]]) -> None:
        """Run one statement once per row of parameters."""
        ...


class Write:
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
        self.seq = version + 1
        self.snapshot, self.action, self.events, self.result = row
        self.done: asyncio.Future[None] = asyncio.get_running_loop().create_future()

    def succeed(self) -> None:
        if not self.done.done():
            self.done.set_result(None)

    def fail(self, error: Exception) -> None:
        if not self.done.done():
            self.done.set_exception(error)


# --------------------------------------------------------------------------- storage


class SqlStorage:
    """Games, seats, the action log, timers and claims in SQL. See the module doc.

    Subclasses provide the dialect: ``_transaction``, ``_read``, ``_apply``,
    ``_close_connections``, ``integrity_check``, :attr:`UNIQUE_VIOLATION`,
    :attr:`FOR_UPDATE` and :attr:`INFO` (``INFO_COLUMNS`` filled in).
    """

    UNIQUE_VIOLATION: ClassVar[tuple[type[Exception], ...]] = ()
    """What the driver raises when a unique index refuses a row."""
    FOR_UPDATE: ClassVar[str] = ""
    """Appended to a write transaction's read of a game row, to lock it (PostgreSQL);
    SQLite's ``BEGIN IMMEDIATE`` already holds the whole database."""
    INFO: ClassVar[str] = ""

    where: str
    """The database, as shown in messages (a file path, or the URL without password)."""

    def __init__(self, clock: Clock = utc_now) -> None:
        self._clock = clock
        self._lock = asyncio.Lock()
        self._cache: OrderedDict[int, _Cached] = OrderedDict()
        self._closed = False
        self._queued: list[Write] = []
        self._flusher: asyncio.Task[None] | None = None

    # ------------------------------------------------------------------ dialect

    def _transaction(self) -> AbstractAsyncContextManager[Tx]:
        """A write transaction on the writer connection; the caller holds the lock."""
        raise NotImplementedError

    async def _read(self, sql: str, params: Sequence[Any] = ()) -> list[Any]:
        """Rows of one read, outside any write transaction (committed data only)."""
        raise NotImplementedError

    async def _apply(self, writes: Sequence[Write], now: float) -> dict[int, Exception | None]:
        """Apply ``writes`` (at most one per game) with the version guard in SQL, in one
        transaction if it can. Returns, by game id, ``None`` for a write that applied or
        the error of one that failed on its own; a game left out lost the version race.
        Raising means that none applied. The caller holds the lock."""
        raise NotImplementedError

    async def _close_connections(self) -> None:
        raise NotImplementedError

    async def integrity_check(self) -> list[str]:
        """``["ok"]`` for a sound database, otherwise what is wrong."""
        raise NotImplementedError

    async def _ids_copied(self, db: Tx) -> None:
        """Rows were inserted with their ids (``storage copy``): make new ids follow them."""

    # ------------------------------------------------------------------ lifecycle

    async def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        if self._flusher is not None:
            await self._flusher  # what was submitted is committed before closing
        async with self._lock:
            await self._close_connections()

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
        return ts(self._clock())

    # ------------------------------------------------------------------ plumbing

    @asynccontextmanager
    async def _write(self) -> AsyncIterator[Tx]:
        """One write transaction, under the process-wide lock."""
        async with self._lock, self._transaction() as tx:
            yield tx

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

    async def _status(self, db: Tx, game_id: int) -> tuple[str, Status]:
        rows = await db.fetch(
            f"SELECT kind, status FROM games WHERE id = ?{self.FOR_UPDATE}", (game_id,)
        )
        if not rows:
            raise GameNotFound(game_id)
        return rows[0][0], rows[0][1]

    async def _lobby_kind(self, db: Tx, game_id: int) -> str:
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
        try:
            async with self._write() as db:
                ((game_id,),) = await db.fetch(
                    "INSERT INTO games (guild_id, channel_id, host_id, kind, options, settings,"
                    " status, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, 'lobby', ?, ?)"
                    " RETURNING id",
                    (guild_id, channel_id, host_id, kind, options_json, settings_json, now, now),
                )
                await db.execute(
                    "INSERT INTO seats (game_id, position, player, user_id, display_name)"
                    " VALUES (?, 0, ?, ?, ?)",
                    (game_id, human_player(host_id), host_id, host_name),
                )
        except self.UNIQUE_VIOLATION:
            # The partial unique index refused a second open game in this channel.
            rows = await self._read(
                "SELECT id, kind, status FROM games"
                " WHERE channel_id = ? AND status IN ('lobby', 'active')",
                (channel_id,),
            )
            if not rows:
                raise
            raise ChannelBusy(channel_id, rows[0][0], rows[0][1], rows[0][2]) from None
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
            seats = await db.fetch(
                "SELECT position, player FROM seats WHERE game_id = ?", (game_id,)
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
            removed = await db.execute(
                "DELETE FROM seats WHERE game_id = ? AND player = ?", (game_id, player)
            )
            if removed != 1:
                raise NotSeated(f"That player has no seat in game #{game_id}.")
            await db.execute("UPDATE games SET updated_at = ? WHERE id = ?", (self._now(), game_id))
        return await self.load(game_id)

    async def start(self, game_id: int, seed: int) -> LoadedGame:
        async with self._write() as db:
            rows = await db.fetch(
                f"SELECT kind, status, options FROM games WHERE id = ?{self.FOR_UPDATE}",
                (game_id,),
            )
            if not rows:
                raise GameNotFound(game_id)
            kind, status, options_json = rows[0]
            if status != "lobby":
                raise WrongStatus(game_id, status, "a lobby")
            seats = await db.fetch(
                "SELECT player FROM seats WHERE game_id = ? ORDER BY position", (game_id,)
            )
            game = self._engine(game_id, kind)
            options = game.parse_options(json_object(game_id, options_json, "options"))
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
            changed = await db.execute(
                "UPDATE games SET thread_id = ?, updated_at = ? WHERE id = ?",
                (thread_id, self._now(), game_id),
            )
            if changed != 1:
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
            rows = await db.fetch(
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
            rows = await db.fetch(
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
        rows = await self._read(f"SELECT {self.INFO} FROM games AS g WHERE g.id = ?", (game_id,))
        if not rows:
            raise GameNotFound(game_id)
        return info_from_row(rows[0])

    async def load(self, game_id: int) -> LoadedGame:
        rows = await self._read(
            f"SELECT {self.INFO}, g.snapshot FROM games AS g WHERE g.id = ?", (game_id,)
        )
        if not rows:
            raise GameNotFound(game_id)
        return self._loaded_from_row(rows[0])

    def _loaded_from_row(self, row: Sequence[Any]) -> LoadedGame:
        info = info_from_row(row)
        if info.status == "lobby" or (info.status == "abandoned" and info.seed is None):
            return _loaded(info, None)
        cached = self._cache.get(info.id)
        if cached is not None and cached.version == info.version:
            return _loaded(info, cached.state)
        state = self._parse_state(info.id, info.kind, row[SNAPSHOT])
        if info.status == "active":
            self._remember(info.id, info.version, info.kind, state)
        return _loaded(info, state)

    async def find_open(self, channel_id: int) -> LoadedGame | None:
        rows = await self._read(
            f"SELECT {self.INFO}, g.snapshot FROM games AS g"
            " WHERE g.channel_id = ? AND g.status IN ('lobby', 'active')"
            " UNION ALL "
            f"SELECT {self.INFO}, g.snapshot FROM games AS g"
            " WHERE g.thread_id = ? AND g.status IN ('lobby', 'active')",
            (channel_id, channel_id),
        )
        return self._loaded_from_row(rows[0]) if rows else None

    async def list_games(
        self, *, guild_id: int | None = None, statuses: Sequence[str] | None = None
    ) -> list[GameInfo]:
        """Games by id; unreadable ones are logged and left out (``check`` reports them)."""
        where, params = ["TRUE"], list[Any]()
        if guild_id is not None:
            where.append("g.guild_id = ?")
            params.append(guild_id)
        if statuses is not None:
            where.append(f"g.status IN ({', '.join('?' for _ in statuses)})")
            params.extend(statuses)
        rows = await self._read(
            f"SELECT {self.INFO} FROM games AS g WHERE {' AND '.join(where)} ORDER BY g.id",
            params,
        )
        return self._readable(rows)

    def _readable(self, rows: Sequence[Sequence[Any]]) -> list[GameInfo]:
        games = []
        for row in rows:
            try:
                games.append(info_from_row(row))
            except UnreadableGame as error:
                log.warning("%s", error)
        return games

    async def history(
        self, guild_id: int, *, kind: str | None = None, limit: int = 50
    ) -> list[GameInfo]:
        sql = f"SELECT {self.INFO} FROM games AS g WHERE g.guild_id = ? AND g.status = 'finished'"
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
                LoggedAction(seq, player, json.loads(action), json.loads(events), dt(created))
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
        conflicting; when another process commits in between, the submit reads
        the new state and applies the action again (see the module doc).

        ``precondition(state)``, if given, is called with the state the action is
        about to be applied to (with ``None``: the latest, under the write lock, and
        again on every retry), so a check there and the commit are one step;
        whatever it raises propagates and nothing is written (e.g. a simultaneous
        choice for a phase that has ended).

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
            if attempt >= 3:  # a busy game: let the other processes' commits through
                await asyncio.sleep(random.uniform(0, 0.002 * attempt))
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
            dump_events(events),
            None if outcome is None else outcome.model_dump_json(),
        )
        write = Write(game_id, player, version, expected, row)
        if locked:
            await self._commit(write)
        else:
            await self._group_commit(write)
        if outcome is None:
            self._remember(game_id, version + 1, kind, new_state)
        else:
            self._cache.pop(game_id, None)
        return Submitted(new_state, tuple(events), version + 1)

    async def _group_commit(self, write: Write) -> None:
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

    def _lost_here(self, write: Write) -> bool:
        """Another submit of this process already moved the game past ``write``."""
        cached = self._cache.get(write.game_id)
        return cached is not None and cached.version != write.version

    async def _commit_batch(self, batch: list[Write]) -> None:
        """Apply the batch in one transaction; each write gets its own result (a
        ``Conflict`` for one another process won). The caller holds the lock."""
        ready: list[Write] = []
        games: set[int] = set()
        for write in batch:
            if write.game_id in games or self._lost_here(write):
                # a second write at one version in this batch, or lost to a committed one
                write.fail(Conflict(write.game_id, write.expected, None))
            else:
                games.add(write.game_id)
                ready.append(write)
        try:
            results = await self._apply(ready, self._now()) if ready else {}
        except BaseException as error:
            for write in ready:
                write.fail(error if isinstance(error, Exception) else StorageError(CLOSED))
            if not isinstance(error, Exception):
                raise
            return
        for write in ready:
            if write.game_id not in results:
                self._cache.pop(write.game_id, None)  # re-read from the database next time
                write.fail(Conflict(write.game_id, write.expected, None))
            elif (failure := results[write.game_id]) is not None:
                write.fail(failure)
            else:
                write.succeed()

    async def _commit(self, write: Write) -> None:
        """Write one applied action; the caller holds ``self._lock``."""
        if self._lost_here(write):
            raise Conflict(write.game_id, write.expected, self._cache[write.game_id].version)
        results = await self._apply([write], self._now())
        if write.game_id not in results:
            self._cache.pop(write.game_id, None)  # re-read from the database next time
            raise Conflict(write.game_id, write.expected, None)  # another process won
        if (failure := results[write.game_id]) is not None:
            raise failure

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
    async def _cancel_pending(db: Tx, game_id: int, now: float, kind: str | None = None) -> int:
        sql = (
            "UPDATE timers SET cancelled_at = ? WHERE game_id = ?"
            " AND fired_at IS NULL AND cancelled_at IS NULL"
        )
        params: list[Any] = [now, game_id]
        if kind is not None:
            sql += " AND kind = ?"
            params.append(kind)
        return await db.execute(sql, params)

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
        due = ts(due_at)
        now = self._now()
        async with self._write() as db:
            _kind, status = await self._status(db, game_id)
            if status not in ("lobby", "active"):
                raise WrongStatus(game_id, status, "a lobby or active")
            if replace:
                await self._cancel_pending(db, game_id, now, kind)
            ((timer_id,),) = await db.fetch(
                "INSERT INTO timers (game_id, kind, due_at, payload, created_at)"
                " VALUES (?, ?, ?, ?, ?) RETURNING id",
                (game_id, kind, due, payload_json, now),
            )
        return Timer(timer_id, game_id, kind, dt(due), json.loads(payload_json), dt(now))

    async def cancel_timer(self, timer_id: int) -> bool:
        """True if the timer was pending (and now is not)."""
        async with self._write() as db:
            changed = await db.execute(
                "UPDATE timers SET cancelled_at = ?"
                " WHERE id = ? AND fired_at IS NULL AND cancelled_at IS NULL",
                (self._now(), timer_id),
            )
            return changed == 1

    async def cancel_timers(self, game_id: int, kind: str | None = None) -> int:
        async with self._write() as db:
            return await self._cancel_pending(db, game_id, self._now(), kind)

    async def due_timers(self, now: datetime | None = None) -> list[Timer]:
        """Pending timers due at ``now`` (default: the clock), oldest first, claimed or not.

        This includes every timer that came due while the bot was down. A timer
        whose payload cannot be read is logged and left out. Several processes
        should use ``claim_due_timers`` instead, so that each timer fires once.
        """
        moment = self._now() if now is None else ts(now)
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
                payload_object = json_object(game_id, payload, f"timer {timer_id} payload")
            except UnreadableGame as error:
                log.warning("%s", error)
                continue
            timers.append(Timer(timer_id, game_id, kind, dt(due), payload_object, dt(created)))
        return timers

    async def next_due_at(self) -> datetime | None:
        """When the next pending timer is due, so the bot can sleep until then."""
        rows = await self._read(
            "SELECT MIN(due_at) FROM timers WHERE fired_at IS NULL AND cancelled_at IS NULL"
        )
        return opt_dt(rows[0][0])

    CLAIM_DUE = (
        "UPDATE timers SET claimed_by = ?, claimed_until = ? WHERE id IN ("
        " SELECT id FROM timers WHERE fired_at IS NULL AND cancelled_at IS NULL"
        " AND due_at <= ? AND (claimed_until IS NULL OR claimed_until <= ?)"
        " ORDER BY due_at, id LIMIT ?{lock})"
        " RETURNING id, game_id, kind, due_at, payload, created_at"
    )

    async def claim_due_timers(
        self, owner: str, lease: timedelta, now: datetime | None = None, limit: int = 100
    ) -> list[Timer]:
        """Claim up to ``limit`` due timers for ``owner`` for ``lease``, oldest first.

        Only this owner gets them until the lease runs out: fire each, then
        ``finish_timer``. A timer whose lease ran out unfinished (its process died)
        is due again and can be claimed by another owner. A timer whose payload
        cannot be read is logged and left out (it stays claimed until its lease ends).
        On PostgreSQL the candidates are locked ``FOR UPDATE SKIP LOCKED``, so
        processes claiming at once take different timers instead of waiting.
        """
        moment = self._now() if now is None else ts(now)
        lock = " FOR UPDATE SKIP LOCKED" if self.FOR_UPDATE else ""
        async with self._write() as db:
            rows = await db.fetch(
                self.CLAIM_DUE.format(lock=lock),
                (owner, moment + lease.total_seconds(), moment, moment, limit),
            )
        return self._timers(sorted(rows, key=lambda row: (row[3], row[0])))

    async def finish_timer(self, timer_id: int, owner: str) -> bool:
        """Mark a claimed timer fired; False if ``owner`` no longer holds it (its lease ran
        out and another claimed it), or it was cancelled or already fired."""
        async with self._write() as db:
            changed = await db.execute(
                "UPDATE timers SET fired_at = ? WHERE id = ? AND claimed_by = ?"
                " AND fired_at IS NULL AND cancelled_at IS NULL",
                (self._now(), timer_id, owner),
            )
            return changed == 1

    async def mark_fired(self, timer_id: int) -> bool:
        """Record that a timer fired; False if it already had (or was cancelled).

        Act first, then mark: if the bot dies in between, the timer fires again
        after the restart, and a timer action submitted with the version from
        its payload is refused as a ``Conflict`` the second time.
        """
        async with self._write() as db:
            changed = await db.execute(
                "UPDATE timers SET fired_at = ?"
                " WHERE id = ? AND fired_at IS NULL AND cancelled_at IS NULL",
                (self._now(), timer_id),
            )
            return changed == 1

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
        options = game.parse_options(json_object(game_id, options_json, "options"))
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
            if json.loads(dump_events(events)) != json.loads(events_json):
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
            f"SELECT {self.INFO}, g.snapshot FROM games AS g"
            " WHERE g.status IN ('lobby', 'active') ORDER BY g.id"
        )
        problems = []
        for row in rows:
            try:
                self._loaded_from_row(row)
            except UnreadableGame as error:
                problems.append(error)
        return problems

    async def check_all(self) -> list[ReplayReport]:
        """``replay`` for every game, in id order; one bad game never stops the rest."""
        reports = []
        for (game_id,) in await self._read("SELECT id FROM games ORDER BY id"):
            try:
                reports.append(await self.replay(game_id))
            except Exception as error:  # report it with its id, carry on
                reports.append(ReplayReport(game_id, False, 0, f"{type(error).__name__}: {error}"))
        return reports
