"""``python -m storage backup``: a consistent SQLite file taken while moves keep being
committed, holding every move acknowledged before it began and passing ``check``; a
file that exists is never overwritten and a failed backup leaves nothing behind; a
backup copies back (``copy``: SQLite to SQLite, SQLite to PostgreSQL), so it is also a
restore."""

from __future__ import annotations

import asyncio
import io
import sqlite3
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

import pytest

import storage
import storage.backup
from storage.__main__ import backup, check, copy
from storage.errors import StorageError
from tests.storage.conftest import FakeClock, started, to_act
from tests.storage.race_game import GAME, Roll
from tests.storage.test_storage_copy import contents, every_kind_of_game

BEFORE = 60
"""Moves acknowledged before the backup begins."""


def logged(path: Path) -> set[tuple[int, int]]:
    with sqlite3.connect(path) as db:
        return {(int(g), int(s)) for g, s in db.execute("SELECT game_id, seq FROM actions")}


async def test_a_backup_during_a_burst_of_moves_holds_every_move_acknowledged_before_it(
    db_url: str, tmp_path: Path, clock: FakeClock
) -> None:
    file = tmp_path / "backups" / "bot.db"
    acknowledged: list[tuple[int, int]] = []
    enough = asyncio.Event()
    async with await storage.open(db_url, clock=clock) as store:
        games = [await started(store, channel, options={"target": 200}) for channel in (10, 11, 12)]

        async def burst(game: storage.LoadedGame) -> None:
            while not stopping.is_set():
                submitted = await store.submit(game.id, to_act(game), Roll(), game.version)
                acknowledged.append((game.id, submitted.version))
                if len(acknowledged) >= BEFORE:
                    enough.set()
                if GAME.outcome(submitted.state) is not None:
                    return
                game = replace(game, state=submitted.state, version=submitted.version)

        stopping = asyncio.Event()
        movers = [asyncio.create_task(burst(game)) for game in games]
        await enough.wait()
        before = set(acknowledged)  # every submit here has returned: committed
        out = io.StringIO()
        status = await backup(db_url, file, out)
        during = len(acknowledged) - len(before)
        stopping.set()
        await asyncio.gather(*movers)
    assert status == 0, out.getvalue()
    in_backup = logged(file)
    assert before <= in_backup
    assert in_backup <= set(acknowledged)  # committed moves only, whole
    said = out.getvalue()
    assert f"Backed up 3 games ({len(in_backup)} actions)" in said and " MB." in said
    print(f"{len(before)} moves before the backup, {during} acknowledged while it ran")
    out = io.StringIO()
    assert await check(f"sqlite:///{file}", out) == 0, out.getvalue()
    assert "3 match their log, 0 do not" in out.getvalue()
    assert sorted(p.name for p in file.parent.iterdir()) == ["bot.db"]


async def test_a_backup_is_a_restore(
    db_url: str, new_url: Callable[[], str], tmp_path: Path, clock: FakeClock
) -> None:
    """Back up, then copy the backup into an empty database of the same kind: SQLite to
    SQLite, or PostgreSQL to SQLite and back."""
    await every_kind_of_game(db_url, clock)
    file = tmp_path / "bot-backup.db"
    out = io.StringIO()
    assert await backup(db_url, file, out) == 0, out.getvalue()
    assert "Backed up 8 games" in out.getvalue()
    restored = new_url()
    out = io.StringIO()
    assert await copy(f"sqlite:///{file}", restored, out) == 0, out.getvalue()
    assert "Copied 8 games" in out.getvalue() and "8 match their log" in out.getvalue()
    assert await contents(restored) == await contents(db_url)


async def test_a_backup_never_overwrites_and_leaves_no_half_file(
    tmp_path: Path, clock: FakeClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    url = f"sqlite:///{tmp_path}/bot.db"
    async with await storage.open(url, clock=clock) as store:
        await started(store, 10)
    folder = tmp_path / "backups"
    folder.mkdir()
    kept = folder / "old.db"
    kept.write_bytes(b"last week's backup")
    out = io.StringIO()
    assert await backup(url, kept, out) == 2
    assert "already exists" in out.getvalue() and "No backup was written" in out.getvalue()
    assert kept.read_bytes() == b"last week's backup"

    # Failing after the file was written (here: its check): nothing is left.
    def failing_seal(partial: Path) -> tuple[int, int]:
        assert partial.exists() and partial.parent == folder
        raise StorageError("The backup failed its integrity check: (a test).")

    monkeypatch.setattr(storage.backup, "_seal", failing_seal)
    out = io.StringIO()
    assert await backup(url, folder / "new.db", out) == 2
    assert "integrity check" in out.getvalue()
    monkeypatch.undo()
    # A source that is not a database, or none at all.
    junk = tmp_path / "junk.db"
    junk.write_bytes(b"not a database " * 300)
    out = io.StringIO()
    assert await backup(f"sqlite:///{junk}", folder / "new.db", out) == 2
    assert "is not a readable SQLite database" in out.getvalue()
    out = io.StringIO()
    assert await backup(f"sqlite:///{tmp_path}/missing.db", folder / "new.db", out) == 2
    assert "no database" in out.getvalue()
    assert sorted(p.name for p in folder.iterdir()) == ["old.db"]
    assert not (tmp_path / "missing.db").exists()
