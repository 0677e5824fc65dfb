"""Writes 1,000 race games in various phases, prints what it wrote as JSON, and exits.

``python -m tests.storage.restart_child DATABASE_URL`` is the bot's life before a
restart; the test then opens the same file in another process and continues.
"""

from __future__ import annotations

import asyncio
import json
import sys

import storage
from engine.core import Rng
from engine.records import pick_random
from tests.storage.race_game import GAME

GAMES = 1000
PHASES = ("lobby", "active", "finished", "abandoned")


async def write_games(url: str) -> dict[int, dict[str, object]]:
    written: dict[int, dict[str, object]] = {}
    async with await storage.open(url) as store:
        for n in range(GAMES):
            phase = PHASES[n % len(PHASES)]
            game = await store.create_lobby(
                guild_id=n % 7,
                channel_id=10_000 + n,
                kind="race",
                options={"target": 4 if phase == "finished" else 40},
                host_id=100,
                host_name="Host",
            )
            game = await store.join(game.id, 101, "Guest")
            if n % 3 == 0:
                game = await store.add_ai(game.id)
            if phase != "lobby":
                game = await store.start(game.id, seed=n)
                rng = Rng(n)
                moves = n % 5 if phase != "finished" else 1_000
                for _ in range(moves):
                    if game.status != "active":
                        break
                    player, action = pick_random(GAME, game.state, rng)
                    await store.submit(game.id, player, action, game.version)
                    game = await store.load(game.id)
                await store.set_message(game.id, "board", 900_000 + n)
            if phase == "abandoned":
                await store.abandon(game.id)
                game = await store.load(game.id)
            written[game.id] = {"status": game.status, "version": game.version, "phase": phase}
    return written


if __name__ == "__main__":
    print(json.dumps(asyncio.run(write_games(sys.argv[1]))))
