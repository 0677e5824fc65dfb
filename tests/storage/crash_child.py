"""The child of the crash test: plays race games in a tight loop until it is killed.

``python -m tests.storage.crash_child DATABASE_URL SEED`` prints ``ready`` once the
database is open, then one line per committed change (``committed GAME VERSION``
after each ``submit`` returns), flushed at once so that the parent, which sends
SIGKILL at a random moment, knows what the child believed was committed.
"""

from __future__ import annotations

import asyncio
import random
import sys
from datetime import timedelta

import storage
from engine.core import Rng
from engine.records import pick_random
from tests.storage.race_game import GAME

CHANNELS = (10, 11, 12)


def say(line: str) -> None:
    sys.stdout.write(line + "\n")
    sys.stdout.flush()  # one write() per line: a kill cannot split it


async def play(store: storage.SqliteStorage, channel: int, rng: random.Random) -> None:
    while True:
        game = await store.find_open(channel)
        if game is None:
            game = await store.create_lobby(
                guild_id=1,
                channel_id=channel,
                kind="race",
                options={"target": 10},
                host_id=100,
                host_name="Host",
            )
            say(f"lobby {game.id}")
        elif game.status == "lobby":
            if len(game.seats) < 2:
                await store.join(game.id, 101, "Guest")
            elif len(game.seats) < 3 and rng.random() < 0.5:
                await store.add_ai(game.id)
            else:
                await store.start(game.id, rng.getrandbits(63))
        elif rng.random() < 0.02:
            await store.abandon(game.id)
        else:
            if rng.random() < 0.2:
                due = game.updated_at + timedelta(hours=1)
                await store.schedule(
                    game.id, "reminder", due, {"version": game.version}, replace=True
                )
            player, action = pick_random(GAME, game.state, Rng(rng.getrandbits(64)))
            result = await store.submit(game.id, player, action, game.version)
            say(f"committed {game.id} {result.version}")


async def main(url: str, seed: int) -> None:
    rng = random.Random(seed)
    store = await storage.open(url)
    say("ready")
    await asyncio.gather(
        *(play(store, channel, random.Random(rng.random())) for channel in CHANNELS)
    )


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], int(sys.argv[2])))
