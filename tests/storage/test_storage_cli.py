"""``python -m storage check DATABASE_URL``: replay every game, exit non-zero on a mismatch."""

from __future__ import annotations

import io
import sqlite3
import subprocess
import sys
from pathlib import Path

import storage
from storage.__main__ import main
from tests.storage.conftest import FakeClock, lobby, raw, started, to_act
from tests.storage.race_game import Roll
from tests.storage.test_storage_corruption import json_set

# A child process learns the fake game the way the engine learns real ones.
RUN_CHECK = (
    "import sys, engine; engine.GAME_MODULES['race'] = 'tests.storage.race_game';"
    "from storage.__main__ import main; sys.exit(main(sys.argv[1:]))"
)


def run_check(*args: str) -> subprocess.CompletedProcess[str]:
    root = Path(__file__).resolve().parents[2]
    return subprocess.run(
        [sys.executable, "-c", RUN_CHECK, "check", *args],
        capture_output=True,
        text=True,
        cwd=root,
        timeout=60,
    )


async def make_games(db_url: str, clock: FakeClock) -> list[int]:
    async with await storage.open(db_url, clock=clock) as store:
        await lobby(store, 9)
        ids = []
        for channel in (10, 11):
            game = await started(store, channel)
            await store.submit(game.id, to_act(game), Roll(), 0)
            ids.append(game.id)
        return ids


async def test_check_passes_a_sound_database(db_url: str, clock: FakeClock) -> None:
    await make_games(db_url, clock)
    result = run_check(db_url)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "Checked 3 games (2 actions)" in result.stdout and "1 do not" not in result.stdout


async def test_check_names_each_mismatching_game_and_fails(db_url: str, clock: FakeClock) -> None:
    ids = await make_games(db_url, clock)
    edited = json_set(db_url, "snapshot", "turn", "3")
    await raw(db_url, f"UPDATE games SET snapshot = {edited} WHERE id = ?", ids[1])
    result = run_check(db_url)
    assert result.returncode == 1
    assert f"game #{ids[1]}: the replayed state differs from the snapshot in: turn" in result.stdout
    assert f"game #{ids[0]}" not in result.stdout
    assert "2 match their log, 1 do not" in result.stdout


def test_check_refuses_a_database_it_cannot_open(tmp_path: Path) -> None:
    path = tmp_path / "new.db"
    with sqlite3.connect(path) as db:
        db.execute("PRAGMA user_version = 99")
    out = io.StringIO()
    assert main(["check", f"sqlite:///{path}"], out=out) == 2
    assert "schema version 99" in out.getvalue()
    out = io.StringIO()
    assert main(["check", "mysql://nope"], out=out) == 2
    out = io.StringIO()
    assert main(["check", f"sqlite:///{tmp_path}/missing.db"], out=out) == 2
    assert "no database" in out.getvalue() and not (tmp_path / "missing.db").exists()
