"""Restart: 1,000 games in every phase written by one process, continued by another."""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path

import pytest

import storage
from engine.core import Rng
from engine.records import pick_random
from tests.storage.race_game import GAME

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.slow
async def test_a_thousand_games_load_and_continue_after_a_restart(db_url: str) -> None:
    url = db_url
    child = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "tests.storage.restart_child",
        url,
        cwd=ROOT,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    stdout, stderr = await child.communicate()
    assert child.returncode == 0, stderr.decode()
    written = {int(k): v for k, v in json.loads(stdout).items()}
    assert len(written) == 1000
    assert {v["status"] for v in written.values()} == {"lobby", "active", "finished", "abandoned"}

    async with await storage.open(url) as store:
        assert all(report.ok for report in await store.check_all())
        continued = {"lobby": 0, "active": 0, "finished": 0, "abandoned": 0}
        for game_id, before in written.items():
            game = await store.load(game_id)
            assert (game.status, game.version) == (before["status"], before["version"])
            if game.status == "lobby":
                started = await store.start(game_id, seed=game_id)
                assert started.state.players == game.players
            elif game.status == "active":
                assert game.messages == {"board": 900_000 + game.channel_id - 10_000}
                player, action = pick_random(GAME, game.state, Rng(game_id))
                _state, _events, version = await store.submit(game_id, player, action, game.version)
                assert version == game.version + 1
            elif game.status == "finished":
                assert GAME.outcome(game.state) is not None and game.result is not None
            else:
                assert await store.find_open(game.channel_id) is None
            continued[game.status] += 1
        assert all(count >= 200 for count in continued.values()), continued
        history = await store.history(0, limit=1000)
        expected = [g for g, v in written.items() if v["status"] == "finished" and g % 7 == 1]
        # guild = n % 7 where the game id is n + 1
        assert sorted(game.id for game in history) == sorted(expected)
