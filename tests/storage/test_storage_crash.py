"""Crash safety with real processes: SIGKILL at random moments, at least 50 times, on each backend.

After every kill the database reopens, SQLite's integrity check passes, every
game replays to its snapshot, the schema is all-or-nothing, and every action
the child reported as committed is in the log.
"""

from __future__ import annotations

import asyncio
import random
import subprocess
import sys
import time
from pathlib import Path

import pytest

import storage
from storage import LATEST_VERSION
from tests.storage import race_game
from tests.storage.test_storage_migrations import schema_version

pytestmark = pytest.mark.serial  # several processes, signals or timing: run alone (see dev)


ROOT = Path(__file__).resolve().parents[2]
assert race_game.GAME.name == "race"  # registered here too, for the replay checks
KILLS = 55


def start_child(url: str, seed: int) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "tests.storage.crash_child", url, str(seed)],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def kill(
    child: subprocess.Popen[str], rng: random.Random, round_: int, playing: float
) -> list[str]:
    """SIGKILL the child: mostly while it plays (up to ``playing`` seconds after it is
    ready), every fifth time while it starts up."""
    assert child.stdout is not None
    if round_ % 5 == 0:
        time.sleep(rng.uniform(0.0, 0.25))  # during imports, opening or migrating
    else:
        first = child.stdout.readline()
        assert first == "ready\n", first + (child.stderr.read() if child.stderr else "")
        time.sleep(rng.uniform(0.002, playing))
    child.kill()
    child.wait(timeout=30)
    stderr = child.stderr.read() if child.stderr else ""
    assert child.returncode == -9, f"the child ended by itself: {stderr}"
    return child.stdout.read().splitlines()


async def verify(url: str, committed: dict[int, int]) -> int:
    async with await storage.open(url) as store:
        assert await store.integrity_check() == ["ok"]
        reports = await store.check_all()
        assert [r for r in reports if not r.ok] == []
        rows = await store._read("SELECT game_id, MAX(seq) FROM actions GROUP BY game_id")
        logged = dict(rows)
        for game_id, version in committed.items():
            assert logged.get(game_id, 0) >= version, (game_id, version, logged.get(game_id))
            assert (await store.info(game_id)).version >= version
        open_games = await store.list_games(statuses=["lobby", "active"])
        assert len({g.channel_id for g in open_games}) == len(open_games)
        return sum(r.actions for r in reports)


@pytest.mark.slow
def test_sigkill_at_random_moments_loses_nothing_committed(db_url: str) -> None:
    url = db_url
    # A new PostgreSQL client prepares each statement once: its first actions take longer.
    playing = 0.5 if storage.is_postgres_url(url) else 0.06
    rng = random.Random(20261130)
    committed: dict[int, int] = {}
    kills_mid_play = 0
    for round_ in range(KILLS):
        lines = kill(start_child(url, rng.getrandbits(32)), rng, round_, playing)
        for line in lines:
            if line.startswith("committed "):
                _, game_id, version = line.split()
                committed[int(game_id)] = max(committed.get(int(game_id), 0), int(version))
        kills_mid_play += any(line.startswith("committed ") for line in lines)
        # all or nothing, even when killed mid-migration
        assert asyncio.run(schema_version(url)) in (0, LATEST_VERSION)
        asyncio.run(verify(url, committed))
    total = asyncio.run(verify(url, committed))
    # The kills really landed while actions were being committed.
    assert kills_mid_play >= KILLS // 2
    assert total >= sum(committed.values()) > 0
