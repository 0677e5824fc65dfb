"""``./dev check``'s look at the database (``database_report``), in process: what it says
of a database whose schema is older, newer or missing, and that the problem's sentence
is the one ``./dev run`` stops with. (``tests/e2e/test_bot_check.py`` runs the whole
check against the fake Discord.)"""

from __future__ import annotations

import io
import sqlite3
from pathlib import Path

import pytest

import storage
from cogs.helpers.check import database_report
from storage.migrations import MIGRATIONS


async def report(url: str) -> tuple[str | None, str]:
    out = io.StringIO()
    problem = await database_report(url, out)
    return problem, out.getvalue()


async def test_an_older_schema_says_how_many_migrations_the_next_start_runs(
    tmp_path: Path,
) -> None:
    url = f"sqlite:///{tmp_path}/bot.db"
    async with await storage.open(url, migrations=MIGRATIONS[:-3]):
        pass
    problem, out = await report(url)
    assert problem is None
    assert out == (
        f"Database: {tmp_path}/bot.db, schema version {len(MIGRATIONS) - 3}: 3 migrations "
        f"run at the next start, to version {len(MIGRATIONS)} (this check changes nothing).\n"
        "Games: none yet.\n"
    )
    assert (await report(url))[1] == out  # still as old: not migrated


async def test_a_database_from_a_newer_bot_is_the_start_s_problem(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path}/bot.db"
    with sqlite3.connect(tmp_path / "bot.db") as db:
        db.execute("PRAGMA user_version = 999")
    problem, out = await report(url)
    with pytest.raises(storage.SchemaTooNew) as opened:
        await storage.open(url)
    assert (problem, out) == (str(opened.value), "")


async def test_an_empty_file_is_a_database_without_tables(tmp_path: Path) -> None:
    (tmp_path / "bot.db").touch()
    problem, out = await report(f"sqlite:///{tmp_path}/bot.db")
    assert problem is None
    assert out == (
        f"Database: {tmp_path}/bot.db has no tables yet; the bot creates them at its next start.\n"
    )
