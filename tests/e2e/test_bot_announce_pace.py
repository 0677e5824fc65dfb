"""Announcements in a game's thread (a turn limit's notice, "the game was ended by ...")
keep the thread's pace of posts like every other post (found by the chaos soak,
``benchmarks/chaos.py``: they went out past the pace, and a notice right after a burst
of log lines was the sixth post in 5 s, over Discord's per-channel limit)."""

from __future__ import annotations

import asyncio
from datetime import timedelta
from pathlib import Path

from bot import WorkshopBot
from cogs.helpers.thread import POSTED
from storage import LoadedGame

from .bot_helpers import make_bot, open_table
from .fake_discord import FakeDiscord
from .fake_discord.model import FakeChannel


async def two_player_table(
    fake: FakeDiscord, tmp_path: Path
) -> tuple[WorkshopBot, FakeChannel, LoadedGame]:
    """A bot and its two-player table, opened: this process's posts in its thread are
    the board and the first prompt."""
    bot = await fake.start_bot(make_bot(fake, f"sqlite:///{tmp_path}/bot.db"))
    alice, bob = fake.add_user("alice"), fake.add_user("bob")
    await open_table(fake, alice, [bob])
    (thread,) = fake.threads(fake.channel)
    game = await bot.store.find_open(fake.channel.id)
    assert game is not None
    return bot, thread, game


async def announce_and_wait(
    fake: FakeDiscord, bot: WorkshopBot, game: LoadedGame, thread: FakeChannel, count: int
) -> None:
    """Announce ``count`` notices in the game's thread and wait until all are posted."""
    for n in range(count):
        bot.desk.announce(game, f"n{n}", f"notice {n}")
    await fake.wait_for(
        lambda: len([m for m in fake.messages(thread) if m.content.startswith("notice")]) == count,
        timeout=20,
        what=f"the {count} notices",
    )


async def test_announcements_right_after_other_posts_stay_within_five_in_five_seconds(
    fake: FakeDiscord, tmp_path: Path
) -> None:
    bot, thread, game = await two_player_table(fake, tmp_path)
    since = fake.clock()
    await announce_and_wait(fake, bot, game, thread, 5)
    assert sorted(m.content for m in fake.messages(thread)[-5:]) == [
        f"notice {n}" for n in range(5)
    ]
    assert fake.limit_hits() == []
    assert fake.clock() - since > 1  # some of them waited for the window to move on


async def test_posts_another_process_made_just_before_count_too(
    fake: FakeDiscord, tmp_path: Path
) -> None:
    """Found by the chaos soak: any process may show any game (a DM's pick reaches
    shard 0's, a timer fires where it is claimed), and each paced only its own posts, so
    a notice right after another process's log lines was the sixth post in 5 s. A post
    the game's marks record that this process did not make, within the window, makes it
    read the channel's recent posts first."""
    bot, thread, game = await two_player_table(fake, tmp_path)
    channel = bot.get_partial_messageable(thread.id)
    since = fake.clock()
    others = [await channel.send(f"another process {n}") for n in range(3)]  # not paced here
    await bot.store.set_marks(game.id, {POSTED: (others[-1].id, game.version)})  # its round's
    bot.desk.announce(game, "notice", "notice")  # its copy of the game is older: it reads
    await fake.wait_for(lambda: fake.messages(thread)[-1].content == "notice", timeout=10)
    fake.check_within_limits(since)
    reads = [r.path for r in fake.requests if r.method == "GET" and r.at >= since]
    assert reads == [f"/channels/{thread.id}/messages"]  # once, to learn of the others


async def test_the_end_of_a_game_is_announced_with_its_publishing_claim_held(
    fake: FakeDiscord, tmp_path: Path
) -> None:
    """Found by the chaos soak: "... was ended by ..." was posted outside the game's
    rounds, beside another process's round in the same thread whose post was still in
    flight (a 429's retry), so neither counted the other's: the sixth post in 5 s. The
    game's next round posts it now, once the other process gave the claim back."""
    bot = await fake.start_bot(make_bot(fake, f"sqlite:///{tmp_path}/bot.db"))
    alice, bob = fake.add_user("alice"), fake.add_user("bob")
    await open_table(fake, alice, [bob])
    (thread,) = fake.threads(fake.channel)
    game = await bot.store.find_open(fake.channel.id)
    assert game is not None
    claim = f"publish:{game.id}"
    assert await bot.store.try_claim(claim, "another", timedelta(minutes=1))  # showing it
    asked = await fake.slash(alice, thread, "abandon")
    assert asked.message is not None
    answered = await fake.click(alice, asked.message, "Yes, end this game")
    assert "was ended" in answered.content  # the host hears at once
    await asyncio.sleep(0.5)  # time for a post that did not wait for the claim
    assert not [m for m in fake.messages(thread) if "was ended by" in m.content]
    await bot.store.set_marks(game.id, {}, release=(claim, "another"))  # its round ended
    await fake.wait_for(
        lambda: any("was ended by" in m.content for m in fake.messages(thread)),
        timeout=10,
        what="the announcement",
    )
    await fake.settle()
    assert len([m for m in fake.messages(thread) if "was ended by" in m.content]) == 1


async def test_posts_of_a_process_whose_claim_ran_out_count_too(
    fake: FakeDiscord, tmp_path: Path
) -> None:
    """A process posted in the thread and then died, or met the database away, before
    its round recorded the posts (no ``posted`` mark) or gave the claim back: its claim
    runs out within seconds, while Discord still counts its posts. The process taking
    the claim over reads the channel's recent posts before it posts."""
    bot, thread, game = await two_player_table(fake, tmp_path)
    claim = f"publish:{game.id}"
    assert await bot.store.try_claim(claim, "dies", timedelta(seconds=1))
    channel = bot.get_partial_messageable(thread.id)
    since = fake.clock()
    for n in range(3):  # its posts, recorded nowhere
        await channel.send(f"a process that died {n}")
    await announce_and_wait(fake, bot, game, thread, 3)
    fake.check_within_limits(since)
    reads = [r.path for r in fake.requests if r.method == "GET" and r.at >= since]
    # once to find what it posted unrecorded (nothing of this round's), once to count them
    assert reads == [f"/channels/{thread.id}/messages"] * 2
