"""Persistence for the bot's games: SQLite (aiosqlite) or PostgreSQL (asyncpg), behind
one small interface.

>>> import asyncio, tempfile, os
>>> async def demo(folder: str) -> int:
...     async with await open(f"sqlite:///{folder}/bot.db") as store:
...         return len(await store.list_games())
>>> with tempfile.TemporaryDirectory() as folder:
...     asyncio.run(demo(folder))
0

``open(DATABASE_URL)`` returns a :class:`Storage`: ``sqlite:///path`` (the default)
or ``postgresql://user:password@host:5432/database`` for several processes. See
:mod:`storage.base` for the methods, :mod:`storage.core` for how writes stay safe
under concurrency, :mod:`storage.repository` for the queries (written once), and
:mod:`storage.sqlite` / :mod:`storage.postgres` for each dialect.
"""

from __future__ import annotations

from collections.abc import Sequence

from storage.base import Storage
from storage.core import Clock, is_postgres_url, utc_now
from storage.errors import (
    AlreadySeated,
    BadDatabaseUrl,
    ChannelBusy,
    Conflict,
    GameNotFound,
    LobbyFull,
    NotSeated,
    SchemaTooNew,
    SeatError,
    StorageError,
    TimerLost,
    UnknownGame,
    UnreadableGame,
    WrongStatus,
)
from storage.migrations import LATEST_VERSION, MIGRATIONS, Migration
from storage.models import (
    AI_PREFIX,
    Claim,
    GameInfo,
    LoadedGame,
    LoggedAction,
    NewTimer,
    ReplayReport,
    Seat,
    Status,
    Submitted,
    Timer,
    TimerClaim,
    Watched,
    human_player,
)
from storage.repository import SqlStorage
from storage.sqlite import (
    BUSY_TIMEOUT_MS,
    DEFAULT_DATABASE_URL,
    SqliteStorage,
    open_sqlite,
    sqlite_path,
)


async def open_storage(
    database_url: str | None = None,
    *,
    clock: Clock = utc_now,
    migrations: Sequence[Migration] = MIGRATIONS,
    busy_timeout_ms: int = BUSY_TIMEOUT_MS,
) -> SqlStorage:
    """Open and migrate the database of ``DATABASE_URL`` (default ``sqlite:///data/bot.db``).

    ``busy_timeout_ms`` applies to SQLite only. Raises
    :class:`~storage.errors.SchemaTooNew` for a database from a newer bot, unchanged.
    """
    url = database_url or DEFAULT_DATABASE_URL
    if is_postgres_url(url):
        from storage.postgres import open_postgres  # asyncpg is loaded only when used

        return await open_postgres(url, clock=clock, migrations=migrations)
    return await open_sqlite(
        url, clock=clock, migrations=migrations, busy_timeout_ms=busy_timeout_ms
    )


open = open_storage  # ``storage.open(url)`` reads naturally at the call site


def _implements_the_interface(store: SqlStorage) -> Storage:
    return store  # mypy checks here that both backends (one core) match ``Storage``


__all__ = [
    "AI_PREFIX",
    "DEFAULT_DATABASE_URL",
    "LATEST_VERSION",
    "AlreadySeated",
    "BadDatabaseUrl",
    "ChannelBusy",
    "Claim",
    "Conflict",
    "GameInfo",
    "GameNotFound",
    "LoadedGame",
    "LobbyFull",
    "LoggedAction",
    "NewTimer",
    "NotSeated",
    "ReplayReport",
    "SchemaTooNew",
    "Seat",
    "SeatError",
    "SqlStorage",
    "SqliteStorage",
    "Status",
    "Storage",
    "StorageError",
    "Submitted",
    "Timer",
    "TimerClaim",
    "TimerLost",
    "UnknownGame",
    "UnreadableGame",
    "Watched",
    "WrongStatus",
    "human_player",
    "is_postgres_url",
    "open",
    "open_storage",
    "sqlite_path",
]
