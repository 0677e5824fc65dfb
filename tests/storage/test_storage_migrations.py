"""Schema migrations: from empty, from every earlier version, newer refused, atomic."""

from __future__ import annotations

import asyncio
import hashlib
import sqlite3
from pathlib import Path

import aiosqlite
import pytest

import storage
from storage import LATEST_VERSION, BadDatabaseUrl, SchemaTooNew, SqliteStorage
from storage.migrations import MIGRATIONS, Migration, migrate
from tests.storage.conftest import FakeClock, to_act
from tests.storage.race_game import GAME, Roll

EXPECTED_TABLES = {"games", "seats", "actions", "timers", "game_messages"}


def tables(path: Path) -> set[str]:
    with sqlite3.connect(path) as db:
        rows = db.execute("SELECT name FROM sqlite_master WHERE type = 'table'").fetchall()
    return {row[0] for row in rows}


def user_version(path: Path) -> int:
    with sqlite3.connect(path) as db:
        return int(db.execute("PRAGMA user_version").fetchone()[0])


def path_of(url: str) -> Path:
    return storage.sqlite_path(url)


async def test_an_empty_file_is_migrated_to_the_latest_version(db_url: str) -> None:
    async with await storage.open(db_url):
        pass
    path = path_of(db_url)
    assert path.parent.is_dir()  # the folder was created on first use
    assert user_version(path) == LATEST_VERSION == len(MIGRATIONS)
    assert tables(path) >= EXPECTED_TABLES


async def test_connections_use_wal_foreign_keys_and_a_busy_timeout(store: SqliteStorage) -> None:
    for db in (store._writer, store._reader):
        assert list(await db.execute_fetchall("PRAGMA journal_mode")) == [("wal",)]
        assert list(await db.execute_fetchall("PRAGMA foreign_keys")) == [(1,)]
        assert list(await db.execute_fetchall("PRAGMA busy_timeout")) == [(5000,)]
    with pytest.raises(sqlite3.IntegrityError, match="FOREIGN KEY"):
        await store._writer.execute(
            "INSERT INTO seats (game_id, position, player, user_id, display_name)"
            " VALUES (999, 0, 'x', 1, 'X')"
        )


async def _write_data_of_version(path: Path, version: int) -> int:
    """Rows that schema ``version`` can hold: a lobby, an active game with one action,
    then a timer (v2) and a message id (v3). Returns the active game's id."""
    state = GAME.new_game(["100", "101"], 5, GAME.parse_options(None))
    (player,) = GAME.to_act(state)
    after, events = GAME.apply(state, player, Roll())
    events_json = "[" + ",".join(event.model_dump_json() for event in events) + "]"
    async with aiosqlite.connect(path, isolation_level=None) as db:
        await migrate(db, str(path), MIGRATIONS[:version])
        if version == 0:
            return 0
        await db.execute(
            "INSERT INTO games (id, guild_id, channel_id, host_id, kind, options, status,"
            " created_at, updated_at) VALUES (1, 1, 11, 100, 'race', '{\"target\":12}',"
            " 'lobby', 0, 0)"
        )
        await db.execute(
            "INSERT INTO games (id, guild_id, channel_id, host_id, kind, options, seed, status,"
            " snapshot, version, created_at, updated_at, started_at)"
            " VALUES (2, 1, 12, 100, 'race', '{\"target\":12}', 5, 'active', ?, 1, 0, 0, 0)",
            (after.model_dump_json(),),
        )
        for game_id in (1, 2):
            for position, user in enumerate((100, 101)):
                await db.execute(
                    "INSERT INTO seats (game_id, position, player, user_id, display_name)"
                    " VALUES (?, ?, ?, ?, ?)",
                    (game_id, position, str(user), user, f"User {user}"),
                )
        await db.execute(
            "INSERT INTO actions VALUES (2, 1, ?, ?, ?, 0)",
            (player, Roll().model_dump_json(), events_json),
        )
        if version >= 2:
            await db.execute(
                "INSERT INTO timers (game_id, kind, due_at, payload, created_at)"
                " VALUES (2, 'reminder', 100, '{\"version\":1}', 0)"
            )
        if version >= 3:
            await db.execute("INSERT INTO game_messages VALUES (2, 'board', 555)")
    return 2


@pytest.mark.parametrize("version", range(LATEST_VERSION))
async def test_every_earlier_version_upgrades_and_keeps_its_games(
    tmp_path: Path, clock: FakeClock, version: int
) -> None:
    path = tmp_path / "old.db"
    game_id = await _write_data_of_version(path, version)
    assert user_version(path) == version
    async with await storage.open(f"sqlite:///{path}", clock=clock) as store:
        assert user_version(path) == LATEST_VERSION
        if version == 0:
            assert await store.list_games() == []
            return
        lobby = await store.find_open(11)
        assert lobby is not None and lobby.status == "lobby"
        assert lobby.players == ("100", "101")
        game = await store.load(game_id)
        assert (game.status, game.version, game.seats[1].display_name) == ("active", 1, "User 101")
        assert (await store.replay(game_id)).ok
        # The upgraded database serves every feature, old rows and new alike.
        await store.submit(game_id, to_act(game), Roll(), 1)
        await store.set_message(game_id, "prompt", 777)
        assert (await store.load(game_id)).messages == (
            {"board": 555, "prompt": 777} if version >= 3 else {"prompt": 777}
        )
        timer = await store.schedule(game_id, "speed", clock.advance(minutes=1))
        due = await store.due_timers(clock.advance(minutes=1))
        assert timer.id in {t.id for t in due}
        assert (version >= 2) == any(t.kind == "reminder" for t in due)
        started = await store.start(lobby.id, seed=3)
        assert started.status == "active"


async def test_a_newer_database_is_refused_and_left_unchanged(db_url: str) -> None:
    async with await storage.open(db_url):
        pass
    path = path_of(db_url)
    with sqlite3.connect(path) as db:
        db.execute(f"PRAGMA user_version = {LATEST_VERSION + 4}")
    before = hashlib.sha256(path.read_bytes()).hexdigest()
    with pytest.raises(SchemaTooNew) as caught:
        await storage.open(db_url)
    message = str(caught.value)
    assert f"version {LATEST_VERSION + 4}" in message and f"up to {LATEST_VERSION}" in message
    assert "newer version of the bot" in message
    assert hashlib.sha256(path.read_bytes()).hexdigest() == before


@pytest.mark.parametrize("start", [0, LATEST_VERSION])
async def test_a_failing_migration_leaves_the_previous_version_intact(
    tmp_path: Path, start: int
) -> None:
    path = tmp_path / "bot.db"
    if start:
        async with await storage.open(f"sqlite:///{path}"):
            pass
    broken = Migration(
        LATEST_VERSION + 1,
        "half a migration",
        ("CREATE TABLE extra (x INTEGER)", "INSERT INTO no_such_table VALUES (1)"),
    )
    with pytest.raises(sqlite3.OperationalError, match="no_such_table"):
        await storage.open(f"sqlite:///{path}", migrations=(*MIGRATIONS, broken))
    assert user_version(path) == start
    assert "extra" not in tables(path)
    assert (tables(path) >= EXPECTED_TABLES) == bool(start)


async def test_migrations_must_be_numbered_in_order(tmp_path: Path) -> None:
    shuffled = (MIGRATIONS[1], MIGRATIONS[0])
    with pytest.raises(ValueError, match="out of order"):
        await storage.open(f"sqlite:///{tmp_path}/x.db", migrations=shuffled)


async def test_processes_opening_a_new_file_at_once_migrate_it_once(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path}/bot.db"
    stores = await asyncio.gather(*(storage.open(url) for _ in range(8)))
    for store in stores:
        await store.close()
    assert user_version(tmp_path / "bot.db") == LATEST_VERSION


@pytest.mark.parametrize(
    "url",
    [
        "postgresql://bot@localhost/bot",
        "data/bot.db",
        "sqlite:///:memory:",
        "sqlite:///",
        "sqlite:///bot.db?mode=ro",
    ],
)
async def test_database_urls_that_cannot_be_opened_say_why(url: str) -> None:
    with pytest.raises(BadDatabaseUrl, match=r"DATABASE_URL|PostgreSQL"):
        await storage.open(url)


async def test_a_file_that_is_not_a_database_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "notes.db"
    path.write_text("these are not the games you are looking for\n" * 100)
    with pytest.raises(storage.StorageError, match="not a readable SQLite database"):
        await storage.open(f"sqlite:///{path}")
