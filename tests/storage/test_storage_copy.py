"""``python -m storage copy SOURCE_URL TARGET_URL``: every game moves, ids and all; the
copy passes ``check``; a target that already holds games is refused."""

from __future__ import annotations

import subprocess
import sys
from datetime import timedelta
from pathlib import Path

import pytest

import storage
from engine.core import Rng
from engine.records import pick_random
from tests.storage.conftest import FakeClock, lobby, started
from tests.storage.race_game import GAME

ROOT = Path(__file__).resolve().parents[2]
RUN = (
    "import sys, engine; engine.GAME_MODULES['race'] = 'tests.storage.race_game';"
    "from storage.__main__ import main; sys.exit(main(sys.argv[1:]))"
)


def run_storage(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", RUN, *args], capture_output=True, text=True, cwd=ROOT, timeout=120
    )


async def every_kind_of_game(url: str, clock: FakeClock) -> None:
    async with await storage.open(url, clock=clock) as store:
        await lobby(store, 9)
        for channel in range(10, 16):
            game = await started(store, channel, options={"target": 6 if channel < 12 else 30})
            rng = Rng(channel)
            for _ in range(channel % 5 + (20 if channel < 12 else 0)):
                if game.status != "active":
                    break
                player, action = pick_random(GAME, game.state, rng)
                clock.advance(minutes=1)
                await store.submit(game.id, player, action, game.version)
                game = await store.load(game.id)
            if game.status == "active":
                await store.set_message(game.id, "board", 1000 + channel)
                await store.claim_message_version(game.id, "board", game.version)
                await store.claim_message_version(game.id, "phase", 1)
                await store.schedule(game.id, "remind", clock.now + timedelta(hours=channel))
                fired = await store.schedule(game.id, "speed", clock.now)
                await store.mark_fired(fired.id)
                await store.set_thread(game.id, 5000 + channel)
        abandoned = await started(store, 20)
        await store.abandon(abandoned.id)


async def contents(url: str) -> object:
    """Everything a bot reads back, game by game."""
    async with await storage.open(url) as store:
        games = await store.list_games()
        return [
            (
                await store.load(game.id),
                await store.log(game.id),
                await store.pending_timers(game.id),
            )
            for game in games
        ]


@pytest.mark.parametrize("direction", ["sqlite-to-postgres", "postgres-to-sqlite"])
async def test_copy_moves_every_game_and_refuses_a_non_empty_target(
    tmp_path: Path, postgres_url: str, clock: FakeClock, direction: str
) -> None:
    sqlite_url = f"sqlite:///{tmp_path}/bot.db"
    source, target = (sqlite_url, postgres_url)
    if direction == "postgres-to-sqlite":
        source, target = target, source
    await every_kind_of_game(source, clock)
    copied = run_storage("copy", source, target)
    assert copied.returncode == 0, copied.stdout + copied.stderr
    assert "Copied 8 games" in copied.stdout and "8 match their log, 0 do not" in copied.stdout
    before, after = await contents(source), await contents(target)
    assert after == before
    statuses = {game.status for game, _log, _timers in after}  # type: ignore[attr-defined]
    assert statuses == {"lobby", "active", "finished", "abandoned"}
    assert run_storage("check", target).returncode == 0
    # Into a database that holds games: refused, and nothing changes.
    again = run_storage("copy", source, target)
    assert again.returncode == 2 and "already holds 8 games" in again.stdout
    assert await contents(target) == before
    # The copy goes on as the bot's database: new games get new ids.
    async with await storage.open(target, clock=clock) as store:
        new = await lobby(store, 30)
        assert new.id > max(game.id for game, _log, _timers in before)  # type: ignore[attr-defined]
        timer = await store.schedule(new.id, "remind", clock.now)
        assert timer.id not in {t.id for _g, _l, timers in before for t in timers}  # type: ignore[attr-defined]


def test_copy_refuses_a_missing_source(tmp_path: Path) -> None:
    result = run_storage("copy", f"sqlite:///{tmp_path}/missing.db", f"sqlite:///{tmp_path}/b.db")
    assert result.returncode == 2 and "no database" in result.stdout
    assert not (tmp_path / "b.db").exists()
