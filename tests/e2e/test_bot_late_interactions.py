"""A click the bot cannot answer in time (found by the chaos soak, ``benchmarks/chaos.py``:
Discord's REST API was down when the bot answered, discord.py tried again once it was
back, after Discord's 3 s): Discord says 10062 Unknown interaction to the answer. That
is one warning line, not a traceback and an apology nobody can receive; and the move,
stored before the answer failed, is shown in the thread all the same."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from pathlib import Path

import pytest

from tables.publishing import Publisher

from .bot_helpers import make_bot, open_panel, open_table, turn_prompts
from .fake_discord import FakeDiscord, ViolationError


async def test_a_click_that_arrives_after_three_seconds_is_one_line_and_its_move_shown(
    fake: FakeDiscord, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    bot = await fake.start_bot(make_bot(fake, f"sqlite:///{tmp_path}/bot.db", seed=3))
    alice, bob = fake.add_user("alice"), fake.add_user("bob")
    await open_table(fake, alice, [bob])
    (thread,) = fake.threads(fake.channel)
    acting = alice if str(alice.id) in turn_prompts(fake, thread)[-1].content else bob
    panel = (await open_panel(fake, acting, thread)).message
    assert panel is not None
    choice = next(b["custom_id"] for b in panel.buttons() if b["custom_id"].startswith("act:"))
    game = await bot.store.find_open(fake.channel.id)
    assert game is not None
    caplog.clear()
    with caplog.at_level(logging.INFO):
        fake.rest_outage(True)
        click = asyncio.create_task(fake.click(acting, panel, choice))
        await asyncio.sleep(3.5)  # Discord's 3 s pass while the bot cannot answer
        fake.rest_outage(False)
        with contextlib.suppress(ViolationError):
            await click
        loop = asyncio.get_running_loop()
        end = loop.time() + 15
        while True:  # the move was stored; the thread shows it once Discord is back
            stored = await bot.store.load(game.id)
            if stored.version >= 1 and not Publisher.behind(stored):
                break
            assert loop.time() < end, f"not shown: v{stored.version} {stored.shown_versions}"
            await asyncio.sleep(0.1)
    fake.take_violations()  # the late answer Discord refused: what this test is about
    tracebacks = [r for r in caplog.records if r.exc_info is not None]
    assert tracebacks == []
    assert any("expired" in r.getMessage() for r in caplog.records)
