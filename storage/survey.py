"""A look at a database without changing it, for ``./dev check``: is it there and
readable, its schema version, and how many games it holds by status.

Nothing is created, migrated or written: a SQLite file that does not exist is reported
as such (the bot creates it at its first start), one that exists is opened read-only;
a PostgreSQL database is only read. A database the bot could not open raises the same
:class:`~storage.errors.StorageError` sentence as :func:`storage.open` (a file that is
not a database, a server out of reach); one from a newer bot is reported by its
version (the caller says so: :class:`~storage.errors.SchemaTooNew`).

>>> import asyncio, tempfile
>>> with tempfile.TemporaryDirectory() as folder:
...     asyncio.run(survey(f"sqlite:///{folder}/bot.db")).exists
False
"""

from __future__ import annotations

import asyncio
import sqlite3
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from storage.core import is_postgres_url
from storage.errors import StorageError
from storage.migrations import LATEST_VERSION
from storage.sqlite import sqlite_path, unreadable

COUNT_GAMES = "SELECT status, COUNT(*) FROM games GROUP BY status"

CONNECT_TIMEOUT = 10.0
"""Seconds a PostgreSQL server gets to answer the survey's connection."""


@dataclass(frozen=True)
class Survey:
    where: str
    """The database, as messages name it (a file, or the URL without its password)."""
    exists: bool = True
    """``False``: a SQLite file not created yet."""
    version: int = 0
    """Its schema version (0: no tables yet)."""
    latest: int = LATEST_VERSION
    """The schema version this bot migrates to."""
    games: dict[str, int] = field(default_factory=dict)
    """How many games by status (``lobby``, ``active``, ``finished``, ``abandoned``)."""

    @property
    def pending(self) -> int:
        """The migrations the bot's next start runs (0 for a database from a newer bot)."""
        return max(0, self.latest - self.version)


def _counts(rows: Iterable[Any]) -> dict[str, int]:
    return {str(status): int(count) for status, count in rows}


def _survey_sqlite(url: str) -> Survey:
    path = sqlite_path(url)
    if not path.exists():
        return Survey(str(path), exists=False)
    # mode=ro: nothing is created or written, even a file that is not a database
    uri = f"{path.absolute().as_uri()}?mode=ro"
    try:
        db = sqlite3.connect(uri, uri=True, timeout=5)
    except sqlite3.DatabaseError as error:
        raise unreadable(path, error) from None
    try:
        (version,) = db.execute("PRAGMA user_version").fetchone()
        games = _counts(db.execute(COUNT_GAMES)) if 0 < version <= LATEST_VERSION else {}
    except sqlite3.DatabaseError as error:
        raise unreadable(path, error) from None
    finally:
        db.close()
    return Survey(str(path), version=int(version), games=games)


async def _survey_postgres(url: str) -> Survey:
    import asyncpg  # only when used, as storage.postgres is

    from storage.errors import shown_url
    from storage.postgres import _Migrating, connect

    where = shown_url(url)
    db = await connect(url, timeout=CONNECT_TIMEOUT)
    try:
        version = await _Migrating(db).version()
        rows = await db.fetch(COUNT_GAMES) if 0 < version <= LATEST_VERSION else []
    except asyncpg.PostgresError as error:  # e.g. a user not allowed to read the tables
        raise StorageError(f"Cannot read the database {where}: {error}") from None
    finally:
        await db.close()
    return Survey(where, version=version, games=_counts(rows))


async def survey(database_url: str) -> Survey:
    """The database of ``database_url``, read only (module doc)."""
    if is_postgres_url(database_url):
        return await _survey_postgres(database_url)
    return await asyncio.to_thread(_survey_sqlite, database_url)
