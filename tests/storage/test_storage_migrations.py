"""Schema migrations: from empty, from every earlier version, newer refused, atomic."""

from __future__ import annotations

import asyncio
import hashlib
import sqlite3
from collections.abc import Awaitable, Callable
from pathlib import Path

import aiosqlite
import asyncpg
import pytest

import storage
from storage import LATEST_VERSION, BadDatabaseUrl, SchemaTooNew, SqliteStorage
from storage.migrations import MIGRATIONS, Migration, migrate
from storage.postgres import _Migrating as PgMigrating
from storage.postgres import numbered
from storage.sqlite import migrate_sqlite
from tests.storage.conftest import FakeClock, by_backend, raw, started, to_act
from tests.storage.race_game import GAME, Roll

EXPECTED_TABLES = {"games", "seats", "actions", "timers", "game_messages", "claims"}


async def tables(url: str) -> set[str]:
    sql = by_backend(
        url,
        sqlite="SELECT name FROM sqlite_master WHERE type = 'table'",
        postgres="SELECT tablename FROM pg_tables WHERE schemaname = 'public'",
    )
    return {str(row[0]) for row in await raw(url, sql)}


async def schema_version(url: str) -> int:
    """The schema version of the database at ``url``; 0 if it does not exist yet."""
    if storage.is_postgres_url(url):
        if not await raw(
            url,
            "SELECT to_regclass('schema_version')::text WHERE"
            " to_regclass('schema_version') IS NOT NULL",
        ):
            return 0
        return int((await raw(url, "SELECT version FROM schema_version"))[0][0])  # type: ignore[call-overload]
    if not storage.sqlite_path(url).exists():
        return 0
    return int((await raw(url, "PRAGMA user_version"))[0][0])  # type: ignore[call-overload]


async def test_an_empty_database_is_migrated_to_the_latest_version(db_url: str) -> None:
    async with await storage.open(db_url):
        pass
    if not storage.is_postgres_url(db_url):
        assert storage.sqlite_path(db_url).parent.is_dir()  # the folder was created on first use
    assert await schema_version(db_url) == LATEST_VERSION == len(MIGRATIONS)
    assert await tables(db_url) >= EXPECTED_TABLES


async def test_sqlite_connections_use_wal_foreign_keys_and_a_busy_timeout(tmp_path: Path) -> None:
    async with await storage.open(f"sqlite:///{tmp_path}/bot.db") as store:
        assert isinstance(store, SqliteStorage)
        for db in (store._writer, store._reader, store._looker):
            assert list(await db.execute_fetchall("PRAGMA journal_mode")) == [("wal",)]
            assert list(await db.execute_fetchall("PRAGMA foreign_keys")) == [(1,)]
        # The writer and the looker run on the event loop's thread, with no busy handler:
        # the writer waits for a busy database itself (SqliteStorage._unbusy), for as
        # long; the looker leaves it to the reader. Another connection checkpoints.
        assert list(await store._reader.execute_fetchall("PRAGMA busy_timeout")) == [(5000,)]
        assert store._db.execute("PRAGMA busy_timeout").fetchall() == [(0,)]
        assert store._look.execute("PRAGMA busy_timeout").fetchall() == [(0,)]
        assert store._db.execute("PRAGMA wal_autocheckpoint").fetchall() == [(0,)]
        assert store._busy_timeout == 5.0


async def test_closing_while_another_process_holds_the_write_lock_does_not_fail(
    tmp_path: Path, closing: Callable[[SqliteStorage], SqliteStorage]
) -> None:
    """The closing ``PRAGMA optimize`` waits like a write and is skipped if still locked.

    Seen in CI: a process closing its storage while another wrote failed with
    "database is locked" from the optimize, which had not waited at all.
    """
    path = tmp_path / "bot.db"
    store = closing(await storage.open_sqlite(f"sqlite:///{path}", busy_timeout_ms=100))
    for channel in range(1, 30):  # rows and queries, so that the optimize wants to ANALYZE
        await started(store, channel, guild=channel % 3)
    await store.list_games(guild_id=1)
    other = sqlite3.connect(path, isolation_level=None)
    try:
        other.execute("BEGIN IMMEDIATE")
        await store.close()
        other.execute("COMMIT")
    finally:
        other.close()
    async with await storage.open(f"sqlite:///{path}") as again:  # closed cleanly
        assert len(await again.list_games()) == 29


async def test_foreign_keys_are_enforced(store: SqliteStorage) -> None:
    with pytest.raises((sqlite3.IntegrityError, asyncpg.ForeignKeyViolationError)):
        async with store._write() as db:
            await db.execute(
                "INSERT INTO seats (game_id, position, player, user_id, display_name)"
                " VALUES (999, 0, 'x', 1, 'X')"
            )


class _Raw:
    """``execute`` with ``?`` placeholders on a raw connection of either backend."""

    def __init__(self, sqlite_db: aiosqlite.Connection | None, pg: asyncpg.Connection | None):
        self.sqlite_db, self.pg = sqlite_db, pg

    async def execute(self, sql: str, *params: object) -> None:
        if self.pg is not None:
            await self.pg.execute(numbered(sql), *params)
        else:
            assert self.sqlite_db is not None
            await self.sqlite_db.execute(sql, params)


async def _migrated_to(url: str, version: int) -> tuple[_Raw, Callable[[], Awaitable[None]]]:
    """A raw connection to ``url`` with migrations up to ``version`` applied."""
    if storage.is_postgres_url(url):
        pg = await asyncpg.connect(url)
        await migrate(PgMigrating(pg), url, MIGRATIONS[:version])
        return _Raw(None, pg), pg.close
    storage.sqlite_path(url).parent.mkdir(parents=True, exist_ok=True)
    db = await aiosqlite.connect(storage.sqlite_path(url), isolation_level=None)
    await migrate_sqlite(db, url, MIGRATIONS[:version])
    return _Raw(db, None), db.close


async def _write_data_of_version(url: str, version: int) -> int:
    """Rows that schema ``version`` can hold: a lobby, an active game with one action,
    then a timer (v2) and a message id (v3). Returns the active game's id."""
    state = GAME.new_game(["100", "101"], 5, GAME.parse_options(None))
    (player,) = GAME.to_act(state)
    after, events = GAME.apply(state, player, Roll())
    events_json = "[" + ",".join(event.model_dump_json() for event in events) + "]"
    db, close = await _migrated_to(url, version)
    try:
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
            after.model_dump_json(),
        )
        for game_id in (1, 2):
            for position, user in enumerate((100, 101)):
                await db.execute(
                    "INSERT INTO seats (game_id, position, player, user_id, display_name)"
                    " VALUES (?, ?, ?, ?, ?)",
                    game_id, position, str(user), user, f"User {user}",
                )  # fmt: skip
        await db.execute(
            "INSERT INTO actions (game_id, seq, player, action, events, created_at)"
            " VALUES (2, 1, ?, ?, ?, 0)",
            player, Roll().model_dump_json(), events_json,
        )  # fmt: skip
        if version >= 2:
            await db.execute(
                "INSERT INTO timers (game_id, kind, due_at, payload, created_at)"
                " VALUES (2, 'reminder', 100, '{\"version\":1}', 0)"
            )
        if version >= 3:
            await db.execute(
                "INSERT INTO game_messages (game_id, key, message_id) VALUES (2, 'board', 555)"
            )
    finally:
        await close()
    return 2


@pytest.mark.parametrize("version", range(LATEST_VERSION))
async def test_every_earlier_version_upgrades_and_keeps_its_games(
    db_url: str, clock: FakeClock, version: int
) -> None:
    game_id = await _write_data_of_version(db_url, version)
    assert await schema_version(db_url) == version
    async with await storage.open(db_url, clock=clock) as store:
        assert await schema_version(db_url) == LATEST_VERSION
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
    async with await storage.open(db_url) as store:
        await started(store, 10)
    newer = LATEST_VERSION + 4
    await raw(
        db_url,
        by_backend(
            db_url,
            sqlite=f"PRAGMA user_version = {newer}",
            postgres=f"UPDATE schema_version SET version = {newer}",
        ),
    )

    async def contents() -> object:
        if storage.is_postgres_url(db_url):
            return (await tables(db_url), await raw(db_url, "SELECT * FROM games ORDER BY id"))
        return hashlib.sha256(storage.sqlite_path(db_url).read_bytes()).hexdigest()

    before = await contents()
    with pytest.raises(SchemaTooNew) as caught:
        await storage.open(db_url)
    message = str(caught.value)
    assert f"version {newer}" in message and f"up to {LATEST_VERSION}" in message
    assert "newer version of the bot" in message
    assert await contents() == before
    assert await schema_version(db_url) == newer


@pytest.mark.parametrize("start", [0, LATEST_VERSION])
async def test_a_failing_migration_leaves_the_previous_version_intact(
    db_url: str, start: int
) -> None:
    if start:
        async with await storage.open(db_url):
            pass
    half = ("CREATE TABLE extra (x INTEGER)", "INSERT INTO no_such_table VALUES (1)")
    broken = Migration(LATEST_VERSION + 1, "half a migration", half, half)
    with pytest.raises((sqlite3.OperationalError, asyncpg.UndefinedTableError), match="no_such"):
        await storage.open(db_url, migrations=(*MIGRATIONS, broken))
    assert await schema_version(db_url) == start
    assert "extra" not in await tables(db_url)
    assert (await tables(db_url) >= EXPECTED_TABLES) == bool(start)


async def test_migrations_must_be_numbered_in_order(db_url: str) -> None:
    shuffled = (MIGRATIONS[1], MIGRATIONS[0])
    with pytest.raises(ValueError, match="out of order"):
        await storage.open(db_url, migrations=shuffled)


async def test_processes_opening_a_new_database_at_once_migrate_it_once(db_url: str) -> None:
    stores = await asyncio.gather(*(storage.open(db_url) for _ in range(8)))
    for store in stores:
        await store.close()
    assert await schema_version(db_url) == LATEST_VERSION


async def test_an_unreachable_postgresql_server_is_reported(tmp_path: Path) -> None:
    with pytest.raises(storage.StorageError, match="Cannot connect to the database") as caught:
        await storage.open("postgresql://bot:secret@127.0.0.1:1/bot")
    assert "secret" not in str(caught.value)  # the password is never shown


@pytest.mark.parametrize(
    "url",
    [
        "mysql://bot@localhost/bot",
        "data/bot.db",
        "sqlite:///:memory:",
        "sqlite:///",
        "sqlite:///bot.db?mode=ro",
    ],
)
async def test_database_urls_that_cannot_be_opened_say_why(url: str) -> None:
    with pytest.raises(BadDatabaseUrl, match=r"DATABASE_URL"):
        await storage.open(url)


@pytest.mark.parametrize("url", ["mysql://bot:s3cret@db/bot", "postgresq://bot:s3cret@[db/bot"])
async def test_a_refused_url_is_shown_without_its_password(url: str) -> None:
    with pytest.raises(BadDatabaseUrl, match=r"DATABASE_URL") as refused:
        await storage.open(url)
    assert "s3cret" not in str(refused.value) and "://bot@" in str(refused.value)


async def test_a_file_that_is_not_a_database_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "notes.db"
    path.write_text("these are not the games you are looking for\n" * 100)
    with pytest.raises(storage.StorageError, match="not a readable SQLite database"):
        await storage.open(f"sqlite:///{path}")
