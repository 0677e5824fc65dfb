"""A click whose handler is slow (a busy database, a loaded machine) is deferred before
Discord's 3-second deadline, and its answer follows; a fast click is answered at once.
And what waits to coalesce (a board edit) is not left behind by a graceful stop."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from bot import WorkshopBot
from cogs.helpers.common import ANSWER_WITHIN
from engine.tonttu import GAME

from .bot_helpers import make_bot, open_panel, open_table, turn_prompts
from .fake_discord import FakeDiscord
from .tonttu_helpers import choose_by_dm, dm_panel, open_tonttu

SLOW = 3.5
"""Seconds a slowed storage call takes: past Discord's deadline without the deferral."""


def slow_down(bot: WorkshopBot, monkeypatch: pytest.MonkeyPatch, name: str) -> None:
    real = getattr(bot.tables, name)

    async def slow(*args: Any, **kwargs: Any) -> Any:
        await asyncio.sleep(SLOW)
        return await real(*args, **kwargs)

    monkeypatch.setattr(bot.tables, name, slow)


async def test_a_slow_secret_pick_is_deferred_in_time_and_its_panel_follows(
    fake: FakeDiscord, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert ANSWER_WITHIN < fake.deadline < SLOW
    bot = await fake.start_bot(make_bot(fake, f"sqlite:///{tmp_path}/bot.db", seed=5))
    alice, bob, carol = (fake.add_user(name) for name in ("alice", "bob", "carol"))
    await open_tonttu(fake, alice, [bob, carol])
    game = await bot.store.find_open(fake.channel.id)
    assert game is not None
    state, a = game.state, str(alice.id)
    first, second = GAME.legal_actions(state, a)[:2]

    fast = await choose_by_dm(fake, alice, state, first)  # T-2.1
    assert fast.callback_type == 7  # answered with the new panel at once

    slow_down(bot, monkeypatch, "submit_checked")
    late = await choose_by_dm(fake, alice, state, second)  # T-2.1: she changes her pick
    assert late.callback_type == 6  # deferred in time: no "This interaction failed"
    assert not late.violations

    def shows_second_pick() -> bool:
        panel = dm_panel(fake, alice, state.round, state.phase)
        return panel is not None and f"You picked {second.material}." in panel.content

    await fake.wait_for(shows_second_pick, timeout=SLOW + 5, what="the edited panel")
    stored = await bot.store.load(game.id)
    assert stored.state == GAME.apply(GAME.apply(state, a, first)[0], a, second)[0]


async def test_a_slow_workshop_choice_edits_the_panel_after_the_deferral(
    fake: FakeDiscord, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    bot = await fake.start_bot(make_bot(fake, f"sqlite:///{tmp_path}/bot.db", seed=5))
    alice, bob = fake.add_user("alice"), fake.add_user("bob")
    await open_table(fake, alice, [bob])
    game = await bot.store.find_open(fake.channel.id)
    assert game is not None
    (thread,) = fake.threads(fake.channel)
    first = alice if str(alice.id) in turn_prompts(fake, thread)[-1].content else bob
    opened = await open_panel(fake, first, thread)
    panel = opened.message
    assert panel is not None and opened.callback_type == 4
    before = panel.text()
    choice = next(b["custom_id"] for b in panel.buttons() if b["custom_id"].startswith("act:"))

    slow_down(bot, monkeypatch, "choose")
    late = await fake.click(first, panel, choice)  # W-2: place an Elf
    assert late.callback_type == 6 and not late.violations
    await fake.wait_for(
        lambda: panel.text() != before, timeout=SLOW + 5, what="the panel after the move"
    )
    assert "to place or donate tokens" in panel.text()  # the placed Elf's next decision
    stored = await bot.store.load(game.id)
    assert stored.version == game.version + 1


async def test_a_board_edit_waiting_to_coalesce_is_made_before_a_graceful_stop_ends(
    fake: FakeDiscord, tmp_path: Path
) -> None:
    """A board one decision behind waits a moment for more moves (BOARD_DELAY); a stop
    in that moment does not leave it behind: the stop's drain makes the edit."""
    bot = await fake.start_bot(make_bot(fake, f"sqlite:///{tmp_path}/bot.db", seed=5))
    alice, bob = fake.add_user("alice"), fake.add_user("bob")
    _, board = await open_table(fake, alice, [bob])
    (thread,) = fake.threads(fake.channel)
    first = alice if str(alice.id) in turn_prompts(fake, thread)[-1].content else bob
    panel = (await open_panel(fake, first, thread)).message
    assert panel is not None
    choice = next(b["custom_id"] for b in panel.buttons() if b["custom_id"].startswith("act:"))
    await fake.click(first, panel, choice)  # W-2: an Elf placed; its decisions follow
    game = await bot.store.find_open(fake.channel.id)
    assert game is not None and game.version == 1
    assert "Move 0" in board.text()  # the edit waits to take in the next decision too
    await bot.shutdown()
    assert "Move 1" in board.text()
