"""``storage.survey``: ``./dev check``'s read-only look at a database: the schema
version, the games by status, and the same sentence as ``storage.open`` for a database
the bot cannot use; nothing created, migrated or written."""

from __future__ import annotations

import asyncio
import hashlib
from pathlib import Path

import pytest

import storage
from storage.migrations import LATEST_VERSION, MIGRATIONS
from storage.survey import survey
from tests.storage.conftest import lobby, raw, started


def test_a_database_not_created_yet_is_said_and_not_created(tmp_path: Path) -> None:
    found = asyncio.run(survey(f"sqlite:///{tmp_path}/games/bot.db"))
    assert (found.exists, found.version, found.pending) == (False, 0, LATEST_VERSION)
    assert found.where == f"{tmp_path}/games/bot.db"
    assert list(tmp_path.iterdir()) == []  # not even its folder


async def test_games_are_counted_by_status_and_nothing_is_written(db_url: str) -> None:
    async with await storage.open(db_url) as store:
        await lobby(store, channel=1)
        await started(store, channel=2)
        await started(store, channel=3)
    before = await fingerprint(db_url)
    found = await survey(db_url)
    assert (found.exists, found.version, found.pending) == (True, LATEST_VERSION, 0)
    assert found.games == {"lobby": 1, "active": 2}
    assert await fingerprint(db_url) == before


async def test_an_older_schema_is_reported_and_left_to_the_next_start(db_url: str) -> None:
    async with await storage.open(db_url, migrations=MIGRATIONS[:-2]):
        pass
    found = await survey(db_url)
    assert (found.version, found.pending) == (LATEST_VERSION - 2, 2)
    assert (await survey(db_url)).version == LATEST_VERSION - 2  # not migrated


async def test_a_database_from_a_newer_bot_is_reported_by_its_version(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path}/bot.db"
    await raw(url, "PRAGMA user_version = 999")
    found = await survey(url)
    assert (found.version, found.pending, found.games) == (999, 0, {})


async def test_a_file_that_is_not_a_database_gets_the_start_s_sentence(tmp_path: Path) -> None:
    (tmp_path / "bot.db").write_bytes(b"these are my notes, not a database\n" * 100)
    url = f"sqlite:///{tmp_path}/bot.db"
    with pytest.raises(storage.StorageError) as surveyed:
        await survey(url)
    with pytest.raises(storage.StorageError) as opened:
        await storage.open(url)
    assert str(surveyed.value) == str(opened.value)
    assert str(surveyed.value).endswith(
        "is not a readable SQLite database (file is not a database)."
    )


async def test_an_unreachable_server_gets_the_start_s_sentence() -> None:
    url = "postgresql://nobody:secret@127.0.0.1:1/x"
    with pytest.raises(storage.StorageError) as surveyed:
        await survey(url)
    with pytest.raises(storage.StorageError) as opened:
        await storage.open(url)
    assert str(surveyed.value) == str(opened.value)
    assert str(surveyed.value).startswith("Cannot connect to the database postgresql://nobody@")


async def fingerprint(url: str) -> object:
    """What a write would change: the SQLite file's bytes; PostgreSQL's games rows."""
    if storage.is_postgres_url(url):
        return await raw(url, "SELECT id, status, version FROM games ORDER BY id")
    return hashlib.sha256(storage.sqlite_path(url).read_bytes()).hexdigest()
