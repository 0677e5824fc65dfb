"""Fixtures for storage tests: a fresh real database per test on each backend (an
SQLite file, and a database on the session's PostgreSQL server: every test that
takes ``db_url`` or ``store`` runs on both), a controllable clock, raw SQL for
tests that tamper with rows, and the fake ``race`` game (see ``race_game.py``)
registered with the engine."""

from __future__ import annotations

import sqlite3
from collections.abc import AsyncIterator, Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path

import asyncpg
import pytest

import storage
from storage import LoadedGame, SqliteStorage
from storage.postgres import numbered
from tests.postgres_server import PostgresServer
from tests.storage import race_game

assert race_game.GAME.name == "race"  # importing it registered the game

# --doctest-modules would import these helpers a second time under another module
# name, registering a second copy of the game whose classes differ from ours.
collect_ignore = ["race_game.py", "crash_child.py", "restart_child.py", "worker_child.py"]


class FakeClock:
    """A clock the test moves by hand; storage reads it through ``clock=``."""

    def __init__(self) -> None:
        self.now = datetime(2026, 12, 1, 12, 0, tzinfo=UTC)

    def __call__(self) -> datetime:
        return self.now

    def advance(self, **delta: float) -> datetime:
        self.now += timedelta(**delta)
        return self.now


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


BACKENDS = ("sqlite", "postgres")


@pytest.fixture(params=BACKENDS)
def backend(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture
def db_url(backend: str, tmp_path: Path, request: pytest.FixtureRequest) -> str:
    """A URL to a new, empty database of the test's backend."""
    if backend == "sqlite":
        return f"sqlite:///{tmp_path}/games/bot.db"
    return str(request.getfixturevalue("postgres_url"))


@pytest.fixture
def new_url(backend: str, tmp_path: Path, request: pytest.FixtureRequest) -> Callable[[], str]:
    """Makes further empty databases of the test's backend."""
    names = iter(range(1, 1000))

    def make() -> str:
        if backend == "sqlite":
            return f"sqlite:///{tmp_path}/more/{next(names)}.db"
        server: PostgresServer = request.getfixturevalue("postgres")
        return server.new_database()

    return make


async def raw(url: str, sql: str, *params: object) -> list[tuple[object, ...]]:
    """Run one statement straight on the database (``?`` placeholders), as an admin
    editing by hand would: no storage code in between."""
    if url.startswith("sqlite:///"):
        with sqlite3.connect(storage.sqlite_path(url)) as db:
            return [tuple(row) for row in db.execute(sql, params).fetchall()]
    connection = await asyncpg.connect(url)
    try:
        return [tuple(row) for row in await connection.fetch(numbered(sql), *params)]
    finally:
        await connection.close()


def by_backend(url: str, *, sqlite: str, postgres: str) -> str:
    return postgres if storage.is_postgres_url(url) else sqlite


async def allow_tampering(url: str) -> None:
    """Drop the append-only guards of the action log, as a hand edit might."""
    if storage.is_postgres_url(url):
        await raw(url, "DROP TRIGGER IF EXISTS actions_are_never_changed ON actions")
    else:
        await raw(url, "DROP TRIGGER IF EXISTS actions_are_never_updated")
        await raw(url, "DROP TRIGGER IF EXISTS actions_are_never_deleted")


@pytest.fixture
async def store(db_url: str, clock: FakeClock) -> AsyncIterator[SqliteStorage]:
    async with await storage.open(db_url, clock=clock) as opened:
        yield opened


async def lobby(
    store: SqliteStorage,
    channel: int,
    *,
    guild: int = 1,
    players: int = 3,
    options: dict[str, int] | None = None,
) -> LoadedGame:
    """A lobby in ``channel`` hosted by user 100, with users 101… seated after."""
    game = await store.create_lobby(
        guild_id=guild,
        channel_id=channel,
        kind="race",
        options=options,
        host_id=100,
        host_name="Host",
    )
    for n in range(1, players):
        game = await store.join(game.id, 100 + n, f"Player {n}")
    return game


async def started(
    store: SqliteStorage,
    channel: int,
    *,
    guild: int = 1,
    players: int = 3,
    seed: int = 7,
    options: dict[str, int] | None = None,
) -> LoadedGame:
    game = await lobby(store, channel, guild=guild, players=players, options=options)
    return await store.start(game.id, seed)


def to_act(game: LoadedGame) -> str:
    """The one player whose turn it is in a race game."""
    (player,) = race_game.GAME.to_act(game.state)
    return player
