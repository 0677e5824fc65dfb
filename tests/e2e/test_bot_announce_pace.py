"""Announcements in a game's thread (a turn limit's notice, "the game was ended by ...")
keep the thread's pace of posts like every other post (found by the chaos soak,
``benchmarks/chaos.py``: they went out past the pace, and a notice right after a burst
of log lines was the sixth post in 5 s, over Discord's per-channel limit)."""

from __future__ import annotations

import asyncio
from pathlib import Path

from .bot_helpers import make_bot, open_table
from .fake_discord import FakeDiscord


async def test_announcements_right_after_other_posts_stay_within_five_in_five_seconds(
    fake: FakeDiscord, tmp_path: Path
) -> None:
    bot = await fake.start_bot(make_bot(fake, f"sqlite:///{tmp_path}/bot.db"))
    alice, bob = fake.add_user("alice"), fake.add_user("bob")
    await open_table(fake, alice, [bob])  # the board and the first prompt: two posts
    game = await bot.store.find_open(fake.channel.id)
    assert game is not None
    since = fake.clock()
    await asyncio.gather(*(bot.desk.announce(game, f"notice {n}") for n in range(5)))
    (thread,) = fake.threads(fake.channel)
    assert sorted(m.content for m in fake.messages(thread)[-5:]) == [
        f"notice {n}" for n in range(5)
    ]
    assert fake.limit_hits() == []
    assert fake.clock() - since > 1  # some of them waited for the window to move on
