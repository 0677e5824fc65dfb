"""The Activity's two pictures in ``docs/``: a mid-game Santa's Workshop table of three
on Aino's turn, as Discord frames it on a phone (390×844, scrolled to her own area)
and on a desktop (1280×800), drawn in Chromium through the test harness.

    .venv/bin/python -m tests.web.activity_shots [FOLDER]    (default: docs)

Look at them before committing them (they are pictures for people, not goldens).
"""

from __future__ import annotations

import asyncio
import random
import subprocess
import sys
import tempfile
from pathlib import Path

import storage
from engine import get_game
from storage import LoadedGame, SqlStorage
from tables.pictures import Pictures
from tables.service import Tables
from tests.e2e.fake_discord import FakeDiscord
from tests.web.test_activity_page import (
    ROOT,
    chromium_for,
    discord_around,
    open_activity,
    seat_game,
)
from web.activity import ActivityOptions
from web.server import WebServer

MOVES = 70
"""About Day 3 of 6 with three players: toys under way, a tree begun, reindeer taken."""


async def mid_game(store: SqlStorage, game: LoadedGame, host: str) -> LoadedGame:
    """``MOVES`` seeded random moves, then on until the host must place or donate
    tokens (a decision that rings several places of the board)."""
    rules = get_game(game.kind)
    chance = random.Random(7)
    moves = 0
    while game.state is not None and game.status == "active":
        (player,) = sorted(rules.to_act(game.state))
        pending = rules.view(game.state, None).pending
        if moves >= MOVES and player == host and pending.decision == "place_tokens":
            return game
        action = chance.choice(list(rules.legal_actions(game.state, player)))
        await store.submit(game.id, player, action, game.version)
        game = await store.load(game.id)
        moves += 1
    raise RuntimeError("the game ended before the host had tokens to place")


async def shots(folder: Path) -> list[Path]:
    written = []
    with tempfile.TemporaryDirectory() as tmp:
        async with await storage.open(f"sqlite:///{tmp}/bot.db") as store, FakeDiscord() as fake:
            options = ActivityOptions(
                client_id=fake.application_id,
                client_secret=fake.oauth.client_secret,
                tables=Tables(store),
                api=fake.api_base,
                bot_token=fake.token,
            )
            web = WebServer(store, Pictures(), port=0, activity=options)
            await web.start()
            try:
                aino, bo, cai = (fake.add_user(name) for name in ("Aino", "Bo", "Cai"))
                game = await seat_game(store, "workshop", [aino, bo, cai])
                await mid_game(store, game, str(aino.id))
                async with (
                    discord_around(fake, web.port) as client,
                    chromium_for(client) as browser,
                ):
                    await open_activity(browser, client, fake, aino)
                    await browser.wait_until(
                        "document.getElementById('activity').dataset.state === 'playing'"
                    )
                    for width, height, name in (
                        (390, 844, "activity-phone.png"),
                        (1280, 800, "activity-desktop.png"),
                    ):
                        await browser.leave_frame()
                        await browser.resize(width, height)
                        await browser.enter_frame("#activity")
                        if width < 1000:  # her own area, below the shared board on a phone
                            await browser.run(
                                "document.querySelector('.area.mine')"
                                ".scrollIntoView({block: 'center'})"
                            )
                        await browser.leave_frame()
                        path = folder / name
                        path.write_bytes(await browser.screenshot())
                        written.append(path)
            finally:
                await web.stop()
    return written


def main(argv: list[str]) -> int:
    folder = Path(argv[0]) if argv else ROOT / "docs"
    subprocess.run(["bash", str(ROOT / "web" / "activity" / "build.sh")], check=True)
    for path in asyncio.run(shots(folder)):
        print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
