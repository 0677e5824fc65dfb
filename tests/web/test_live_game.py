"""A live page in Chromium follows a whole game of Santa's Workshop played in Discord (the
real bot against the fake Discord, its web server on), to the final scores."""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from engine.core import Rng
from engine.workshop import GAME
from tests.e2e.bot_helpers import make_bot, open_table
from tests.e2e.fake_discord import FakeDiscord
from tests.e2e.test_bot_workshop_game import open_english_panel, play_to_the_end
from tests.web.browser import AsyncBrowser

SEED = 20261206


@pytest.fixture
async def fake() -> AsyncIterator[FakeDiscord]:
    async with FakeDiscord() as server:
        yield server
        assert not server.take_violations()


async def test_a_live_page_follows_a_whole_game_played_in_discord(
    fake: FakeDiscord, browser: AsyncBrowser, tmp_path: Path
) -> None:
    bot = make_bot(fake, f"sqlite:///{tmp_path}/bot.db", seed=SEED)
    bot.settings = dataclasses.replace(bot.settings, web_port=0)
    await fake.start_bot(bot)
    assert bot.web is not None
    alice, bob = fake.add_user("alice"), fake.add_user("bob")
    by_player = {str(alice.id): alice, str(bob.id): bob}
    await open_table(fake, alice, [bob])
    (thread,) = fake.threads(fake.channel)
    game = await bot.store.find_open(fake.channel.id)
    assert game is not None
    await browser.open(f"http://127.0.0.1:{bot.web.port}/g/{await bot.store.web_token(game.id)}")

    seen: set[int] = set()

    async def watch() -> None:
        """What version the page shows, read while the game is played."""
        while True:
            shown = await browser.run("return document.getElementById('table').dataset.shown")
            seen.add(int(str(shown).split("-")[0]))
            await asyncio.sleep(0.2)

    watching = asyncio.create_task(watch())
    try:
        state, moves = await play_to_the_end(
            fake, thread, by_player, SEED, Rng(7), open_english_panel
        )
    finally:
        watching.cancel()
    outcome = GAME.outcome(state)
    assert outcome is not None
    # the page followed the game without a reload, and ends on the final scores
    assert len(seen) > 10 and max(seen) > moves // 2, sorted(seen)
    await browser.wait_for_text("#table .final", "Final scores", timeout=15)
    for player, points in outcome.scores.items():
        row = by_player[player].name
        assert any(row in line and f"{points} point" in line for line in await rows(browser))
    assert await browser.run("return document.getElementById('table').dataset.over") == "yes"
    assert await browser.horizontal_overflow() == 0
    assert await browser.console_errors() == []


async def rows(browser: AsyncBrowser) -> list[str]:
    return await browser.texts("#table .final .scores li")
