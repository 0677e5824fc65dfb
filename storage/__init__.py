"""Persistence for the bot's games: SQLite through aiosqlite, behind a small interface.

>>> import asyncio, tempfile, os
>>> async def demo(folder: str) -> int:
...     async with await open(f"sqlite:///{folder}/bot.db") as store:
...         return len(await store.list_games())
>>> with tempfile.TemporaryDirectory() as folder:
...     asyncio.run(demo(folder))
0

``open(DATABASE_URL)`` returns a :class:`Storage`; see :mod:`storage.base` for the
methods and :mod:`storage.sqlite` for how writes stay safe under concurrency.
"""

from __future__ import annotations

from storage.base import Storage
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
    UnknownGame,
    UnreadableGame,
    WrongStatus,
)
from storage.migrations import LATEST_VERSION
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
from storage.sqlite import DEFAULT_DATABASE_URL, SqliteStorage, open_storage, sqlite_path

open = open_storage  # ``storage.open(url)`` reads naturally at the call site


def _implements_the_interface(store: SqliteStorage) -> Storage:
    return store  # mypy checks here that the SQLite backend matches ``Storage``


__all__ = [
    "AI_PREFIX",
    "DEFAULT_DATABASE_URL",
    "LATEST_VERSION",
    "AlreadySeated",
    "BadDatabaseUrl",
    "ChannelBusy",
    "Conflict",
    "GameInfo",
    "GameNotFound",
    "LoadedGame",
    "LobbyFull",
    "LoggedAction",
    "NotSeated",
    "ReplayReport",
    "SchemaTooNew",
    "Seat",
    "SeatError",
    "SqliteStorage",
    "Status",
    "Storage",
    "StorageError",
    "Submitted",
    "Timer",
    "UnknownGame",
    "UnreadableGame",
    "WrongStatus",
    "human_player",
    "open",
    "open_storage",
    "sqlite_path",
]
