"""SQLite's writer runs on the event loop's thread (storage/sqlite.py): another process's
write lock is waited for without stopping the loop, and the WAL is checkpointed. So do
the reads of one game's rows (the lookups)."""

from __future__ import annotations

import asyncio
import sqlite3
from collections.abc import Coroutine, Iterator
from contextlib import contextmanager
from datetime import timedelta
from pathlib import Path
from typing import Any, TypeVar, cast

import pytest

import storage
import storage.sqlite
from tests.storage.conftest import lobby, started, to_act

T = TypeVar("T")


@contextmanager
def another_writer(path: Path) -> Iterator[sqlite3.Connection]:
    """Another process's connection, holding the database's write lock until it commits
    (or is closed, which rolls back)."""
    other = sqlite3.connect(path, isolation_level=None)
    try:
        other.execute("BEGIN IMMEDIATE")
        yield other
    finally:
        other.close()


async def test_a_write_waits_for_another_processs_lock_without_stopping_the_event_loop(
    tmp_path: Path,
) -> None:
    path = tmp_path / "bot.db"
    async with await storage.open_sqlite(f"sqlite:///{path}", busy_timeout_ms=2000) as store:
        game = await lobby(store, 10)
        with another_writer(path) as other:
            ticks = 0

            async def tick() -> None:
                nonlocal ticks
                while True:
                    ticks += 1
                    await asyncio.sleep(0.01)

            ticking = asyncio.create_task(tick())
            write = asyncio.create_task(store.set_thread(game.id, 77))
            await asyncio.sleep(0.3)
            assert not write.done() and ticks >= 10  # waiting, and the loop runs on
            other.execute("COMMIT")
            await asyncio.wait_for(write, 1)
            ticking.cancel()
        assert (await store.info(game.id)).thread_id == 77


async def test_a_write_still_locked_after_the_busy_timeout_fails_and_changes_nothing(
    tmp_path: Path,
) -> None:
    path = tmp_path / "bot.db"
    async with await storage.open_sqlite(f"sqlite:///{path}", busy_timeout_ms=200) as store:
        game = await lobby(store, 10)
        with another_writer(path) as other:
            with pytest.raises(sqlite3.OperationalError, match="locked"):
                await store.set_thread(game.id, 77)
            other.execute("COMMIT")
        assert (await store.info(game.id)).thread_id is None
        await store.set_thread(game.id, 78)  # the writer still works
        assert (await store.info(game.id)).thread_id == 78


@pytest.mark.parametrize("every", [10, 100_000])
async def test_the_wal_is_checkpointed_as_writes_go(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, every: int
) -> None:
    # SQLite's automatic checkpoint is off on the writer (it would run on the event
    # loop's thread); a connection of its own checkpoints every CHECKPOINT_EVERY writes, so
    # the WAL file is reused rather than growing with every write. A passive checkpoint
    # reuses it only if no write came while it ran: the bot's writes have work between
    # them, which here is waiting for a running checkpoint (a fixed sleep let a busy
    # machine's checkpoints fall behind every write: 840 pages in one run).
    monkeypatch.setattr(storage.sqlite, "CHECKPOINT_EVERY", every)
    path = tmp_path / "bot.db"
    async with await storage.open_sqlite(f"sqlite:///{path}") as store:
        game = await lobby(store, 10)
        for thread in range(400):
            await store.set_thread(game.id, thread)  # two pages in the WAL
            if store._checkpoint is not None:
                await store._checkpoint
        pages = (tmp_path / "bot.db-wal").stat().st_size // 4096
    if every == 10:
        assert pages < 200
    else:  # the control: without checkpoints, the WAL grows with every write
        assert pages >= 800


async def test_a_single_write_runs_at_once_but_never_inside_an_open_transaction(
    tmp_path: Path,
) -> None:
    async with await storage.open_sqlite(f"sqlite:///{tmp_path}/bot.db") as store:
        game = await lobby(store, 10)
        lease = timedelta(seconds=30)
        release = asyncio.Event()

        async def transaction(fail: bool) -> None:
            async with store._write() as db:
                await db.execute("UPDATE games SET thread_id = 5 WHERE id = ?", (game.id,))
                await release.wait()
                if fail:
                    raise RuntimeError("rolled back")

        # A transaction open, its body waiting: the claim waits for it to end, and so is
        # not part of it (that transaction fails and is rolled back; the claim stays).
        holder = asyncio.create_task(transaction(fail=True))
        await asyncio.sleep(0)
        waiting = asyncio.create_task(store.try_claim("first", "me", lease))
        await asyncio.sleep(0.05)
        assert not waiting.done()
        release.set()
        with pytest.raises(RuntimeError):
            await holder
        assert await waiting is True
        assert (await store.info(game.id)).thread_id is None

        # The lock just given up, another transaction still to wake up and take it: no
        # transaction is open, so the claim is written at once instead of queueing
        # behind it (under load each turn of the queue costs a turn of the event loop).
        release.clear()
        holder = asyncio.create_task(transaction(fail=False))
        await asyncio.sleep(0)
        queued = asyncio.create_task(store.set_thread(game.id, 9))
        await asyncio.sleep(0)
        release.set()
        await asyncio.sleep(0)  # the holder commits and gives the lock to the queued one
        assert not store._lock.locked() and not queued.done()
        claim = store.try_claim("second", "me", lease)
        try:
            claim.send(None)
        except StopIteration as finished:
            assert finished.value is True
        else:
            claim.close()
            pytest.fail("the claim queued for the lock behind a transaction")
        await holder
        await queued
        assert (await store.info(game.id)).thread_id == 9
        assert await store._read("SELECT name FROM claims ORDER BY name") == [
            ("first",),
            ("second",),
        ]


@contextmanager
def an_old_snapshot(path: Path) -> Iterator[None]:
    """Another process reading the database as it is now, until the block ends."""
    other = sqlite3.connect(path, isolation_level=None)
    try:
        other.execute("BEGIN")
        other.execute("SELECT count(*) FROM games").fetchall()
        yield
    finally:
        other.close()


async def test_a_checkpoint_never_makes_a_write_or_a_read_wait(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A FULL checkpoint waits for every reader to reach the newest snapshot, and keeps
    # the write lock meanwhile: the bot's writes queued behind it (storage/sqlite.py).
    path = tmp_path / "bot.db"
    async with await storage.open_sqlite(f"sqlite:///{path}", busy_timeout_ms=2000) as store:
        game = await lobby(store, 10)
        with an_old_snapshot(path):
            await store.set_thread(game.id, 1)  # pages the old reader does not see
            monkeypatch.setattr(storage.sqlite, "CHECKPOINT_EVERY", 1)
            store._committed()
            checkpoint = store._checkpoint
            assert checkpoint is not None
            await asyncio.sleep(0.05)  # it starts, in the checkpointer's thread
            await asyncio.wait_for(store.set_thread(game.id, 2), 0.5)
            assert (await asyncio.wait_for(store.info(game.id), 0.5)).thread_id == 2
            await asyncio.wait_for(checkpoint, 0.5)


def at_once(coro: Coroutine[Any, Any, T]) -> T:
    """What ``coro`` returns, when it runs to its end without waiting for anything (no
    round trip to a thread); fails the test if it waits."""
    try:
        coro.send(None)
    except StopIteration as finished:
        return cast(T, finished.value)
    coro.close()
    pytest.fail("it waited (a round trip to the reader's thread)")


async def test_a_games_rows_are_read_at_once_on_the_event_loops_thread(tmp_path: Path) -> None:
    """The reads of one game that clicks and thread updates make (storage/sqlite.py,
    "Where the writer and the lookups run"): under load, the result of a round trip to
    the reader's thread waited for the busy event loop to look."""
    async with await storage.open_sqlite(f"sqlite:///{tmp_path}/bot.db") as store:
        game = await started(store, 10)
        await store.submit(game.id, to_act(game), {"kind": "roll"}, game.version)
        await store.set_thread(game.id, 77)
        await store.set_guild_language(1, "de")
        store._cache.clear()  # the state is parsed from the row, as after a restart

        loaded = at_once(store.load(game.id))
        assert (loaded.version, loaded.thread_id) == (game.version + 1, 77)
        assert loaded.state == (await store.load(game.id)).state
        assert at_once(store.info(game.id)).version == game.version + 1
        assert [a.seq for a in at_once(store.log(game.id, after=game.version))] == [
            game.version + 1
        ]
        found = at_once(store.find_open(10))
        assert found is not None and found.id == game.id
        assert at_once(store.guild_language(1)) == "de"
        assert at_once(store.undo_window(game.id, to_act(loaded))) == 0


async def test_a_lookup_that_finds_the_file_busy_is_done_by_the_reader_which_waits(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The looker never waits on the loop's thread (its busy timeout is 0): a read that
    finds the file busy (in WAL, only while another connection recovers it) goes to the
    reader's thread, whose busy handler waits. Any other error is the caller's."""
    async with await storage.open_sqlite(f"sqlite:///{tmp_path}/bot.db") as store:
        game = await lobby(store, 10)

        class Failing:
            def __init__(self, code: int, message: str) -> None:
                self.error = sqlite3.OperationalError(message)
                self.error.sqlite_errorcode = code
                self.tries = 0

            def execute(self, sql: str, params: Any = ()) -> sqlite3.Cursor:
                self.tries += 1
                raise self.error

        busy = Failing(sqlite3.SQLITE_BUSY, "database is locked")
        monkeypatch.setattr(store, "_look", busy)
        assert (await store.info(game.id)).id == game.id  # read by the reader instead
        assert busy.tries == 1

        monkeypatch.setattr(store, "_look", Failing(sqlite3.SQLITE_IOERR, "disk I/O error"))
        with pytest.raises(sqlite3.OperationalError, match="disk I/O"):
            await store.info(game.id)
        monkeypatch.undo()
        assert (await store.info(game.id)).id == game.id
