"""While a computer seat thinks: the thread shows it once a decision takes over
a second, and a bot stopped while a computer must move makes that move when it is back,
without anyone clicking; the move is the one the engine makes for that seed and version."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

import engine.ai
from engine.core import derive_seed
from engine.workshop import GAME as WORKSHOP
from storage.errors import DatabaseUnavailable
from tables.computers import Computers, Decision, decide

from .bot_helpers import add_computer, make_bot, open_panel, turn_prompts
from .fake_discord import FakeDiscord, FakeMessage, FakeUser

ALICE_FIRST = 3
"""A seed with which alice (seat 1) moves first against one computer seat."""
COMPUTER_FIRST = 424242
"""A seed with which the computer seat moves first."""


def act_buttons(message: FakeMessage) -> list[str]:
    return [b["custom_id"] for b in message.buttons() if b["custom_id"].startswith("act:")]


def typing_in(fake: FakeDiscord, channel_id: int) -> int:
    return sum(1 for r in fake.requests if r.path == f"/channels/{channel_id}/typing")


async def start_against_a_computer(fake: FakeDiscord, alice: FakeUser) -> Any:
    """/newgame, a greedy computer seat, Start; returns the game's thread."""
    lobby = (await fake.slash(alice, fake.channel, "newgame", game="workshop")).message
    assert lobby is not None
    await add_computer(fake, alice, lobby, "greedy")
    await fake.click(alice, lobby, "Start")
    await fake.wait_for(lambda: fake.threads(fake.channel), what="the game's thread")
    (thread,) = fake.threads(fake.channel)
    return thread


async def play_alices_turn(fake: FakeDiscord, alice: FakeUser, thread: Any) -> None:
    """Alice plays her whole turn; returns when her next turn is prompted (the computer's
    turn is over)."""
    prompts = len(turn_prompts(fake, thread))
    panel = (await open_panel(fake, alice, thread)).message
    assert panel is not None
    while act_buttons(panel):
        panel = (await fake.click(alice, panel, act_buttons(panel)[0])).message
        assert panel is not None
    await fake.wait_for(
        lambda: len(turn_prompts(fake, thread)) > prompts, timeout=60, what="alice's next turn"
    )


async def test_the_thread_shows_that_a_computer_is_thinking_when_it_takes_over_a_second(
    fake: FakeDiscord, tmp_path: Path
) -> None:
    delay = 0.0

    async def runner(d: Decision) -> Any:  # decides like the workers, after `delay`
        await asyncio.sleep(delay)
        return decide(d.kind, d.state, d.player, d.level, d.seed)

    computers = Computers(runner=runner)
    bot = await fake.start_bot(
        make_bot(fake, f"sqlite:///{tmp_path}/bot.db", seed=ALICE_FIRST, computers=computers)
    )
    alice = fake.add_user("alice")
    thread = await start_against_a_computer(fake, alice)
    await fake.wait_for(lambda: turn_prompts(fake, thread), what="alice's first turn")
    fake.settle_after_interaction = False  # the computer's turn is waited for by its prompt

    await play_alices_turn(fake, alice, thread)  # the computer decides at once
    assert typing_in(fake, thread.id) == 0  # nothing to show for a quick decision
    game = await bot.store.find_open(fake.channel.id)
    assert game is not None
    quick = len(await bot.store.log(game.id))

    delay = 1.3  # now every decision of the computer takes longer than a second
    await play_alices_turn(fake, alice, thread)
    log = (await bot.store.log(game.id))[quick:]
    computer_moves = sum(1 for entry in log if entry.player == "ai:1")
    assert computer_moves >= 1
    # "<bot> is typing…" in the game's thread, once per slow decision (Discord shows it
    # for 10 s or until the bot posts); no message is added for it
    assert typing_in(fake, thread.id) == computer_moves
    assert typing_in(fake, fake.channel.id) == 0
    fake.settle_after_interaction = True
    await fake.settle()


async def test_a_computer_caught_thinking_by_a_restart_moves_when_the_bot_is_back(
    fake: FakeDiscord, tmp_path: Path
) -> None:
    database = f"sqlite:///{tmp_path}/bot.db"
    asked = asyncio.Event()

    async def never(d: Decision) -> Any:  # the computer is still thinking when we stop
        asked.set()
        await asyncio.Event().wait()

    first = await fake.start_bot(
        make_bot(fake, database, seed=COMPUTER_FIRST, computers=Computers(runner=never))
    )
    alice = fake.add_user("alice")
    fake.settle_after_interaction = False  # the Start click's handler goes on thinking
    thread = await start_against_a_computer(fake, alice)
    await asyncio.wait_for(asked.wait(), timeout=15)
    game = await first.store.find_open(fake.channel.id)
    assert game is not None and game.version == 0
    assert WORKSHOP.to_act(game.state) == {"ai:1"}
    await fake.stop_bot(first)
    assert not turn_prompts(fake, thread)

    fake.settle_after_interaction = True
    second = await fake.start_bot(make_bot(fake, database, seed=COMPUTER_FIRST))
    # nobody clicks: the computer's turn resumes at start-up, then alice is prompted
    await fake.wait_for(
        lambda: turn_prompts(fake, thread), timeout=30, what="the computer's turn, then alice's"
    )
    game = await second.store.find_open(fake.channel.id)
    assert game is not None and game.version >= 1
    assert WORKSHOP.to_act(game.state) == {str(alice.id)}

    # stored like anyone's move, and the very move the engine makes for this seed and version
    state = WORKSHOP.new_game([str(alice.id), "ai:1"], COMPUTER_FIRST, WORKSHOP.parse_options({}))
    log = await second.store.log(game.id)
    assert [entry.player for entry in log] == ["ai:1"] * game.version
    for version, entry in enumerate(log):
        seed = derive_seed(COMPUTER_FIRST, version, "ai:1")
        action = engine.ai.choose(WORKSHOP, state, "ai:1", "greedy", seed)
        assert WORKSHOP.parse_action(entry.action) == action
        state, _ = WORKSHOP.apply(state, "ai:1", action)
    assert state == game.state
    assert (await second.store.replay(game.id)).ok


async def test_a_computer_whose_move_meets_the_database_away_moves_once_it_is_back(
    fake: FakeDiscord, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """Found by the chaos soak: computers resumed after a restart while PostgreSQL was
    stopped failed once, with a traceback, and their game waited for ever."""
    away = 2  # the first two tries meet the database away

    async def runner(d: Decision) -> Any:
        nonlocal away
        if away:
            away -= 1
            raise DatabaseUnavailable("the database is away")
        return decide(d.kind, d.state, d.player, d.level, d.seed)

    bot = await fake.start_bot(
        make_bot(
            fake,
            f"sqlite:///{tmp_path}/bot.db",
            seed=COMPUTER_FIRST,
            computers=Computers(runner=runner),
        )
    )
    alice = fake.add_user("alice")
    fake.settle_after_interaction = False  # the Start click's handler waits to try again
    thread = await start_against_a_computer(fake, alice)
    await fake.wait_for(
        lambda: turn_prompts(fake, thread), timeout=20, what="alice's turn after the computer's"
    )
    game = await bot.store.find_open(fake.channel.id)
    assert game is not None and away == 0
    assert [entry.player for entry in await bot.store.log(game.id)][:1] == ["ai:1"]
    waits = [r for r in caplog.records if "the computer players wait" in r.getMessage()]
    assert len(waits) == 2 and all(r.exc_info is None for r in waits)
    fake.settle_after_interaction = True
    await fake.settle()
