"""Turn limits that fall due while Discord is away (found by the chaos soak,
``benchmarks/chaos.py``): the notice went out first, so a REST outage at that moment
made the timer fail before the computer's move, the timer counted as fired, and the
absent player's game waited for ever. Now the moves come first and the notice, once,
after the first, posted by the move's round (shown when Discord is back)."""

from __future__ import annotations

import asyncio
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest

from bot import WorkshopBot
from cogs.helpers.thread import Sync
from engine.workshop import GAME as WORKSHOP
from storage import LoadedGame, human_player
from tables.computers import Computers, Decision, decide
from tables.publishing import ClaimLost
from tables.timers import OWNER

from .bot_helpers import Clock, make_bot, open_table, turn_prompts
from .fake_discord import FakeDiscord, FakeUser


async def limited_table(
    fake: FakeDiscord, tmp_path: Path
) -> tuple[WorkshopBot, Clock, Any, FakeUser, LoadedGame]:
    """Two players at a Workshop table with a 24-hour turn limit: the bot, its clock,
    the thread, the player who does not act first, and the game."""
    clock = Clock()
    bot = await fake.start_bot(make_bot(fake, f"sqlite:///{tmp_path}/bot.db", clock=clock))
    alice, bob = fake.add_user("alice"), fake.add_user("bob")
    await open_table(fake, alice, [bob], turn_limit_hours=24)
    (thread,) = fake.threads(fake.channel)
    first = turn_prompts(fake, thread)[-1]
    other = bob if str(alice.id) in first.content else alice
    game = await bot.store.find_open(fake.channel.id)
    assert game is not None
    return bot, clock, thread, other, await bot.store.load(game.id)


async def test_a_turn_limit_during_an_outage_still_moves_for_the_absent_player(
    fake: FakeDiscord, tmp_path: Path
) -> None:
    bot, clock, thread, other, game = await limited_table(fake, tmp_path)
    assert game.version == 0
    timers = bot.get_cog("Timers")
    clock.advance(hours=25)  # the 12-hour reminder and the 24-hour limit are due
    fake.rest_outage(True)
    await timers.run_due()  # type: ignore[union-attr]
    fake.rest_outage(False)
    moved = await bot.store.load(game.id)
    assert moved.version >= 1, "the absent player's turn was not played"
    await fake.wait_for(
        lambda: f"<@{other.id}>: it's your turn" in turn_prompts(fake, thread)[-1].content,
        timeout=20,
        what="the next player's prompt once Discord is back",
    )
    notices = [m for m in fake.messages(thread) if "did not move within" in m.content]
    assert len(notices) <= 1
    await timers.run_due()  # type: ignore[union-attr]  # nothing more is due
    assert [m for m in fake.messages(thread) if "did not move within" in m.content] == notices


@pytest.mark.parametrize("taken", ["before its move", "while its stand-in decides"])
async def test_a_turn_limit_another_process_took_over_stores_no_move_here(
    fake: FakeDiscord, tmp_path: Path, taken: str
) -> None:
    """Found by the chaos soak: a process firing a turn limit stalled past its lease and
    another claimed the timer and played the turn; the first then went on playing
    (moves of the next turn nobody had let pass), or stored the move its stand-in had
    been deciding meanwhile, after the new owner had ended the limit. Each stand-in move
    is stored only while its claim stands, checked with the move's commit."""
    clock = Clock()
    store: Any = None

    def take_over() -> None:
        clock.advance(minutes=6)  # this process stalled: its lease ran out

    async def runner(d: Decision) -> Any:
        if taken == "while its stand-in decides":
            take_over()
            assert await store.claim_due_timers("another", timedelta(minutes=5), clock())
        return decide(d.kind, d.state, d.player, d.level, d.seed)

    url = f"sqlite:///{tmp_path}/bot.db"
    bot = make_bot(fake, url, clock=clock, computers=Computers(runner=runner))
    await fake.start_bot(bot)
    store = bot.store
    alice, bob = fake.add_user("alice"), fake.add_user("bob")
    await open_table(fake, alice, [bob], turn_limit_hours=24)
    game = await store.find_open(fake.channel.id)
    assert game is not None
    clock.advance(hours=25)
    due = await store.claim_due_timers(OWNER, timedelta(minutes=5), clock())
    limit = next(t for t in due if t.kind == "turn_limit")
    if taken == "before its move":
        take_over()
        assert await store.claim_due_timers("another", timedelta(minutes=5), clock())
    timers = bot.get_cog("Timers")
    assert await timers.fire(limit) is False  # type: ignore[union-attr]
    assert (await store.load(game.id)).version == 0  # the other process's to play


async def test_a_turn_limit_s_notice_waits_for_the_game_s_publishing_claim(
    fake: FakeDiscord, tmp_path: Path
) -> None:
    """Found by the chaos soak: the notice was posted outside the publishing rounds, so
    it could go out beside another process's round in the same thread, each process
    counting the thread's pace without the other's post: a sixth post in 5 s. It is
    posted by the move's round now, with the game's claim held, before its log lines."""
    bot, clock, thread, _, game = await limited_table(fake, tmp_path)
    clock.advance(hours=25)
    claim = f"publish:{game.id}"
    assert await bot.store.try_claim(claim, "another", timedelta(minutes=1))  # showing it
    due = await bot.store.claim_due_timers(OWNER, timedelta(minutes=5), clock())
    limit = next(t for t in due if t.kind == "turn_limit")
    timers = bot.get_cog("Timers")
    firing = asyncio.ensure_future(timers.fire(limit))  # type: ignore[union-attr]
    for _ in range(300):  # the stand-in's decision (a worker; slow on a busy machine)
        if (await bot.store.load(game.id)).version >= 1:
            break
        await asyncio.sleep(0.1)
    assert (await bot.store.load(game.id)).version >= 1  # the stand-in moved
    await asyncio.sleep(0.5)  # time for a post that did not wait for the claim
    assert not [m for m in fake.messages(thread) if "did not move within" in m.content]
    await bot.store.set_marks(game.id, {}, release=(claim, "another"))  # its round ended
    await asyncio.wait_for(firing, 30)
    await fake.settle()
    texts = [m.content for m in fake.messages(thread)]
    (notice,) = [i for i, t in enumerate(texts) if "did not move within" in t]
    assert any("places an Elf" in t for t in texts[notice + 1 :])  # the moves after it


async def test_a_stand_in_whose_round_lost_its_claim_plays_the_turn_to_its_end(
    fake: FakeDiscord, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: Any
) -> None:
    """Found by the chaos soak: the round showing a stand-in's move lost the game's
    publishing claim (another process showed it), the error went up through the turn
    limit, and the timer was logged as failed, with a traceback, before the rest of
    the turn was played. Another round shows the move; the turn limit goes on."""
    bot, clock, thread, other, game = await limited_table(fake, tmp_path)
    post, lost = Sync.post, 0

    async def losing_the_claim(self: Sync, what: Any, **kwargs: Any) -> Any:
        nonlocal lost
        if not lost:
            lost += 1
            raise ClaimLost(self.game.id)
        return await post(self, what, **kwargs)

    monkeypatch.setattr(Sync, "post", losing_the_claim)
    clock.advance(hours=25)
    due = await bot.store.claim_due_timers(OWNER, timedelta(minutes=5), clock())
    limit = next(t for t in due if t.kind == "turn_limit")
    timers = bot.get_cog("Timers")
    assert await timers.fire(limit)  # type: ignore[union-attr]
    assert lost == 1
    game = await bot.store.load(game.id)
    assert human_player(other.id) in WORKSHOP.to_act(game.state)  # the whole turn played
    await fake.wait_for(
        lambda: f"<@{other.id}>: it's your turn" in turn_prompts(fake, thread)[-1].content,
        timeout=20,
        what="the next player's prompt",
    )
    assert not [r for r in caplog.records if r.exc_info and r.name.startswith("bot")]
