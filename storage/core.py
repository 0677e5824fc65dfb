"""What both SQL backends share on the write path: the write lock, the write queue and
group commit, the state cache, and the conflict, retry and precondition logic of
``submit``; plus the row helpers every query uses.

:class:`SqlCore` holds it; :class:`storage.repository.SqlStorage` adds the other
queries (lobby, reading, timers, claims, audit), also written once. A backend
(:mod:`storage.sqlite`, :mod:`storage.postgres`) subclasses that and supplies only
what differs between SQL dialects: how to connect, a write transaction
(:class:`Tx`), how to read, the JSON aggregates of :data:`INFO_COLUMNS`, the
statement that applies a batch of actions with the version guard (``_apply``),
and its integrity check.

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
not by the version the player saw) a lost race is not the caller's problem. The
submit applies the action after this process's latest write to the game, committed
or still queued (its *head*), so this process's own such submits chain rather than
conflict, and they join group commits like any move (one write per game in each
transaction; a game's next waits for the next). A chained write applies only if the
one before it did. When another *process* committed in between, the submit re-reads
the latest state, re-runs the precondition and the engine, and tries again, backing
off a little after the first retries. A version race therefore never loses a choice;
only the precondition or the engine can refuse it. A refusal judged after an
uncommitted write waits for that write: once it has committed, the refusal stands and
the move that caused it is in the log for the caller to read ("Too late: Aino already
took it"); if it lost, the choice is judged again on the latest state.

Other work done once across processes is claimed in SQL too (due timers, message
versions, named claims): see :mod:`storage.repository`.

One file, about 650 lines, on purpose: the write lock, the queue, group commit, the
cache and the conflict rules rest on each other's invariants (a state is cached only
once its write committed; a queued submit applies after the head it was chained
behind), and are read together to see why a write is never lost nor applied twice.
"""

from __future__ import annotations

import asyncio
import json
import logging
import random
from collections import OrderedDict
from collections.abc import AsyncIterator, Callable, Sequence
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from datetime import UTC, datetime
from types import TracebackType
from typing import Any, ClassVar, Protocol, Self, cast

from pydantic import BaseModel

from engine import get_game
from engine.core import AnyGame, PlayerId, RuleError
from storage.errors import (
    Conflict,
    GameNotFound,
    StorageError,
    TimerLost,
    UnreadableGame,
    WrongStatus,
)
from storage.models import (
    GameInfo,
    LoadedGame,
    Seat,
    Status,
    Submitted,
    TimerClaim,
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
RELOAD_COLUMNS = "g.version, g.status, {messages}, {shown}"
"""What :meth:`reload` reads: whether a move was stored since, and the marks."""


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


def loaded(info: GameInfo, state: Any) -> LoadedGame:
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
    """One applied action on its way to the writer (alone, or in a group commit).

    ``kind`` and ``state`` (the state it makes) go into the state cache as it commits.
    ``base``: the uncommitted write of the same game that this one was
    computed after (a simultaneous choice chained behind another, see
    :meth:`SqlCore._submit`); it applies only if that one did."""

    def __init__(
        self,
        game_id: int,
        player: PlayerId,
        version: int,
        expected: int | None,
        row: tuple[str, str, str, str | None],
        *,
        kind: str,
        state: Any,
        base: Write | None = None,
        claim: TimerClaim | None = None,
    ) -> None:
        self.game_id, self.player, self.version, self.expected = game_id, player, version, expected
        self.seq = version + 1
        self.snapshot, self.action, self.events, self.result = row
        self.kind, self.state, self.base, self.claim = kind, state, base, claim
        self.settled = asyncio.Event()
        self.committed = False
        """Set by the writer: whether it is done with this write (the writes chained
        behind it wait for that), and whether it applied (its submitter may have stopped
        waiting: ``done`` is then cancelled)."""
        self.done: asyncio.Future[None] = asyncio.get_running_loop().create_future()

    def succeed(self) -> None:
        self.committed = True
        self.settled.set()
        if not self.done.done():
            self.done.set_result(None)

    def fail(self, error: Exception) -> None:
        self.settled.set()
        if not self.done.done():
            self.done.set_exception(error)


# --------------------------------------------------------------------------- storage


class SqlCore:
    """The write path: the lock, the state cache, ``submit`` and group commit.

    :class:`storage.repository.SqlStorage` adds every other query; a backend
    subclasses that and provides the dialect: ``_transaction``, ``_read``, ``_apply``,
    ``_close_connections``, ``integrity_check``, :attr:`UNIQUE_VIOLATION`,
    :attr:`FOR_UPDATE` and :attr:`INFO` (``INFO_COLUMNS`` filled in).
    """

    UNIQUE_VIOLATION: ClassVar[tuple[type[Exception], ...]] = ()
    """What the driver raises when a unique index refuses a row."""
    FOR_UPDATE: ClassVar[str] = ""
    """Appended to a write transaction's read of a game row, to lock it (PostgreSQL);
    SQLite's ``BEGIN IMMEDIATE`` already holds the whole database."""
    INFO: ClassVar[str] = ""
    RELOAD: ClassVar[str] = ""

    where: str
    """The database, as shown in messages (a file path, or the URL without password)."""

    def __init__(self, clock: Clock = utc_now) -> None:
        self._clock = clock
        self._lock = asyncio.Lock()
        self._cache: OrderedDict[int, _Cached] = OrderedDict()
        self._closed = False
        self._queued: list[Write] = []
        self._heads: dict[int, Write] = {}
        """Per game, the latest write of this process's submits without an expected
        version, while its submit waits for it."""
        self._flusher: asyncio.Task[None] | None = None
        self._finished: set[int] = set()
        """Games a submit of this process finished, until that submit has rated them."""

    # ------------------------------------------------------------------ dialect

    def _transaction(self) -> AbstractAsyncContextManager[Tx]:
        """A write transaction on the writer connection; the caller holds the lock."""
        raise NotImplementedError

    async def _read(self, sql: str, params: Sequence[Any] = ()) -> list[Any]:
        """Rows of one read, outside any write transaction (committed data only)."""
        raise NotImplementedError

    async def _lookup(self, sql: str, params: Sequence[Any] = ()) -> list[Any]:
        """:meth:`_read` for the rows of one game, found by key (a game being loaded
        before a move, its new log entries): small and on the hot paths. A backend that
        can run it at once on the event loop's thread does (SQLite), saving the round
        trip to its reader."""
        return await self._read(sql, params)

    async def _write_one(self, sql: str, params: Sequence[Any] = ()) -> list[Sequence[Any]]:
        """One write statement on the writer connection, a transaction by itself
        (autocommit: one round trip instead of ``BEGIN`` … ``COMMIT``'s three); its rows
        (``RETURNING``). The caller holds the lock."""
        raise NotImplementedError

    def _write_now(self, sql: str, params: Sequence[Any] = ()) -> list[Sequence[Any]] | None:
        """:meth:`_write_one` at once, without awaiting, if the backend can (SQLite,
        unless another process holds the database's write lock); else ``None``. Called
        only while no transaction is open on the writer connection."""
        return None

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

    async def _write_statement(self, sql: str, params: Sequence[Any] = ()) -> list[Sequence[Any]]:
        """One write statement that is atomic by itself, under the process-wide lock.

        The lock is held for one round trip to the database instead of a transaction's
        three or more: under load every write queues for this lock, so the hot writes
        (claims, marks) are single statements. While nobody holds the lock, no
        transaction is open, and a backend that can run the statement without awaiting
        does so at once: queueing for the lock costs an event loop turn per write
        ahead, and under load that queue can stay long."""
        if not self._lock.locked():
            rows = self._write_now(sql, params)
            if rows is not None:
                return rows
        async with self._lock:
            return await self._write_one(sql, params)

    def _engine(self, game_id: int, kind: str) -> AnyGame:
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

    # ------------------------------------------------------------------ play

    async def submit(
        self,
        game_id: int,
        player: PlayerId,
        action: Any,
        expected_version: int | None,
        *,
        precondition: Callable[[Any], None] | None = None,
        claim: TimerClaim | None = None,
    ) -> Submitted:
        """Apply ``action`` by ``player`` and persist it in one transaction.

        ``expected_version`` is the version the player saw (encode it in the
        button). A different current version, or another submit committing
        first, raises :class:`Conflict` and writes nothing.

        With ``None`` the action is applied to the latest state: for
        simultaneous choices whose validity does not depend on the others'
        (T-4: arrival order is the order storage commits them). Such submits
        apply the action after this process's own queued moves of the game, so
        they queue instead of conflicting; when another process commits in
        between, the submit reads the new state and applies the action again
        (see the module doc).

        ``precondition(state)``, if given, is called with the state the action is
        about to be applied to (with ``None``: the latest, and again on every
        retry), so a check there and the commit are one step;
        whatever it raises propagates and nothing is written (e.g. a simultaneous
        choice for a phase that has ended).

        ``claim``: the action is a timer's work (a turn limit's stand-in move), written
        only while that claim of the timer stands, checked in the same transaction (the
        timer's row locked, so a process claiming it meanwhile waits for the commit or,
        on PostgreSQL, leaves it to its next poll); else :class:`TimerLost` and nothing
        is written.

        A ``RuleError`` from the engine propagates; nothing is written. When the
        engine reports an outcome the game becomes finished, which frees its
        channel, and its pending timers are cancelled.
        """
        submitted = await self._submit(
            game_id, player, action, expected_version, precondition, claim
        )
        if game_id in self._finished:  # outside the lock: rating takes it again
            self._finished.discard(game_id)
            await self._after_finish()
        return submitted

    async def _after_finish(self) -> None:
        """Called once a submit has committed the move that finished a game (ratings)."""

    async def _submit(
        self,
        game_id: int,
        player: PlayerId,
        action: Any,
        expected_version: int | None,
        precondition: Callable[[Any], None] | None,
        claim: TimerClaim | None = None,
    ) -> Submitted:
        if expected_version is not None:
            return await self._submit_once(
                game_id, player, action, expected_version, precondition=precondition, claim=claim
            )
        for attempt in range(1, SUBMIT_RETRIES + 1):
            try:
                return await self._submit_once(
                    game_id, player, action, None, precondition=precondition, claim=claim
                )
            except Conflict:
                # Another process committed first, or the write this one was chained
                # behind failed: try again on the latest state.
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
        rows = await self._lookup(
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
        precondition: Callable[[Any], None] | None = None,
        claim: TimerClaim | None = None,
    ) -> Submitted:
        version, kind, state = await self._current(game_id, expected)
        base = None
        head = self._heads.get(game_id) if expected is None else None
        if head is not None and not head.settled.is_set():  # ours, not committed yet: after it
            version, kind, state, base = head.seq, head.kind, head.state, head
        # Nothing below awaits until the write is queued, so no other submit of this
        # process can come between reading the head and becoming it.
        try:
            if precondition is not None:
                precondition(state)
            game = self._engine(game_id, kind)
            parsed = action if isinstance(action, BaseModel) else game.parse_action(action)
            # A RuleError leaves here, before anything is written.
            new_state, events = game.apply(state, player, parsed)
        except Exception as error:
            if isinstance(error, RuleError):  # name what was refused, where, for logs
                error.naming(action=action, player=player, version=version, game_id=game_id)
            if base is not None:  # judged after a move not committed yet: wait for it
                await base.settled.wait()
                if not base.committed:  # it lost: judge again on the latest state
                    raise Conflict(game_id, None, None) from None
            raise  # refused on a committed state, which the caller may now read
        outcome = game.outcome(new_state)
        row = (
            new_state.model_dump_json(),
            parsed.model_dump_json(),
            dump_events(events),
            None if outcome is None else outcome.model_dump_json(),
        )
        write = Write(
            game_id, player, version, expected, row, kind=kind, state=new_state, base=base,
            claim=claim,
        )  # fmt: skip
        if expected is None:
            self._heads[game_id] = write
        try:
            await self._group_commit(write)
        finally:
            if self._heads.get(game_id) is write:
                del self._heads[game_id]
        if outcome is not None:
            self._finished.add(game_id)
        self._applied(game_id, version, player, parsed, new_state, events, outcome is not None)
        return Submitted(new_state, tuple(events), version + 1)

    def _applied(
        self,
        game_id: int,
        version: int,
        player: PlayerId,
        action: Any,
        state: Any,
        events: Sequence[Any],
        finished: bool,
    ) -> None:
        """``action`` by ``player`` was committed as version ``version + 1``, giving
        ``state`` and ``events`` (for caches kept beside the state cache)."""

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

    async def _apply_claimed(self, write: Write, claim: TimerClaim) -> dict[int, Exception | None]:
        """``_apply([write])`` in a transaction that first locks the timer's row, if the
        claim still stands: another process claiming the timer meanwhile waits for the
        commit, or skips the timer until its next poll (PostgreSQL's ``SKIP LOCKED``), and
        then reads the move; or it took the timer first (:class:`TimerLost`, nothing
        written)."""
        async with self._transaction() as tx:
            held = await tx.execute(
                "UPDATE timers SET claimed_by = claimed_by WHERE id = ? AND claimed_by = ?"
                " AND fired_at IS NULL AND cancelled_at IS NULL",
                (claim.timer_id, claim.owner),
            )
            if held != 1:
                return {write.game_id: TimerLost(write.game_id, claim.timer_id)}
            return await self._apply([write], self._now())

    def _lost_here(self, write: Write) -> bool:
        """Another submit of this process already moved the game past ``write``, or the
        write it was chained behind did not apply."""
        if write.base is not None:
            return not write.base.committed
        cached = self._cache.get(write.game_id)
        return cached is not None and cached.version != write.version

    async def _commit_batch(self, batch: list[Write]) -> None:
        """Apply the batch, each write with its own result (a ``Conflict`` for one that
        another process won). A game's second write (chained behind the first, or at
        the same version) waits for the next layer: each ``_apply`` takes at most one
        write per game. The caller holds the lock."""
        while batch:
            ready: list[Write] = []
            later: list[Write] = []
            games: set[int] = set()
            for write in batch:
                if write.game_id in games:
                    later.append(write)
                elif self._lost_here(write):  # or at a version the first already used
                    write.fail(Conflict(write.game_id, write.expected, None))
                else:
                    games.add(write.game_id)
                    ready.append(write)
            try:
                await self._commit_layer(ready)
            except BaseException:  # cancelled: no submit may wait for ever
                for write in later:
                    write.fail(StorageError(CLOSED))
                raise
            batch = later

    async def _commit_layer(self, ready: list[Write]) -> None:
        """Apply writes of different games in one transaction if it can (each write that
        stands on a timer's claim in one of its own, with the claim)."""
        plain = [write for write in ready if write.claim is None]
        try:
            results = await self._apply(plain, self._now()) if plain else {}
            for write in ready:
                if write.claim is not None:
                    results.update(await self._apply_claimed(write, write.claim))
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
                if write.result is None:
                    self._remember(write.game_id, write.seq, write.kind, write.state)
                else:  # the game is finished: no more moves need its state
                    self._cache.pop(write.game_id, None)
                write.succeed()
