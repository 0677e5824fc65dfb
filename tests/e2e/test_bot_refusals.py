"""Who may act, stale and forged clicks: refused with a sentence, nothing changed."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from bot import WorkshopBot

from .bot_helpers import make_bot, open_panel, open_table, turn_prompts
from .fake_discord import FakeDiscord, FakeUser


@pytest.fixture
async def bot(fake: FakeDiscord, tmp_path: Path) -> AsyncIterator[WorkshopBot]:
    yield await fake.start_bot(make_bot(fake, f"sqlite:///{tmp_path}/bot.db", seed=11))


async def started(fake: FakeDiscord) -> tuple[FakeUser, FakeUser, FakeUser]:
    alice, bob, eve = fake.add_user("alice"), fake.add_user("bob"), fake.add_user("eve")
    await open_table(fake, alice, [bob])
    return alice, bob, eve


async def version_of(bot: WorkshopBot, fake: FakeDiscord) -> int:
    game = await bot.store.find_open(fake.channel.id)
    assert game is not None
    return game.version


async def test_a_spectator_gets_a_sentence_not_a_panel(fake: FakeDiscord, bot: WorkshopBot) -> None:
    _alice, _bob, eve = await started(fake)
    (thread,) = fake.threads(fake.channel)
    before = await version_of(bot, fake)
    result = await open_panel(fake, eve, thread)
    assert result.ephemeral and "not playing in this game" in result.content
    assert await version_of(bot, fake) == before


async def test_a_player_out_of_turn_sees_whose_turn_it_is(
    fake: FakeDiscord, bot: WorkshopBot
) -> None:
    alice, bob, _eve = await started(fake)
    (thread,) = fake.threads(fake.channel)
    first = turn_prompts(fake, thread)[-1]
    waiting, acting = (bob, alice) if str(alice.id) in first.content else (alice, bob)
    result = await open_panel(fake, waiting, thread)
    assert result.ephemeral and f"Waiting for <@{acting.id}>" in result.content
    # nothing to choose: only How to play
    assert result.message is not None
    assert [b["custom_id"] for b in result.message.buttons()] == ["guide:1"]


async def test_a_stale_panel_says_the_board_changed_and_shows_the_current_one(
    fake: FakeDiscord, bot: WorkshopBot
) -> None:
    alice, bob, _eve = await started(fake)
    (thread,) = fake.threads(fake.channel)
    acting = alice if str(alice.id) in turn_prompts(fake, thread)[-1].content else bob
    old = (await open_panel(fake, acting, thread)).message
    fresh = (await open_panel(fake, acting, thread)).message
    assert old is not None and fresh is not None
    await fake.click(acting, fresh, fresh.buttons()[0]["custom_id"])
    version = await version_of(bot, fake)
    stale = await fake.click(acting, old, old.buttons()[1]["custom_id"])
    assert stale.callback_type == 7
    assert "The board has changed" in stale.message.content  # type: ignore[union-attr]
    assert await version_of(bot, fake) == version  # nothing applied
    current = [b["custom_id"] for b in stale.message.buttons()]  # type: ignore[union-attr]
    # every choice, and the Undo button (the click just made can be taken back), is
    # current; How to play needs no version
    assert current[-1] == "guide:1"
    assert all(cid.startswith((f"act:1:{version}:", f"undo:1:{version}")) for cid in current[:-1])


@pytest.mark.parametrize(
    "custom_id",
    ["act:999:0:0", "garbage", "act:1:0:notanumber", "lobby:1:join", "x" * 100],
)
async def test_forged_custom_ids_are_refused(
    fake: FakeDiscord, bot: WorkshopBot, custom_id: str
) -> None:
    alice, _bob, _eve = await started(fake)
    (thread,) = fake.threads(fake.channel)
    before = await version_of(bot, fake)
    result = await fake.forge_click(alice, turn_prompts(fake, thread)[-1], custom_id)
    assert result.ephemeral and "don't recognise that button" in result.content
    assert await version_of(bot, fake) == before


async def test_a_choice_number_off_the_list_is_refused(fake: FakeDiscord, bot: WorkshopBot) -> None:
    alice, bob, _eve = await started(fake)
    (thread,) = fake.threads(fake.channel)
    acting = alice if str(alice.id) in turn_prompts(fake, thread)[-1].content else bob
    panel = (await open_panel(fake, acting, thread)).message
    assert panel is not None
    version = await version_of(bot, fake)
    # a button that looks like ours, on a panel the user can see, with a number off the list
    fake_button = f"act:1:{version}:77"
    result = await fake.forge_click(acting, panel, fake_button)
    assert result.ephemeral
    assert await version_of(bot, fake) == version


async def test_abandon_needs_the_host_and_a_confirmation(
    fake: FakeDiscord, bot: WorkshopBot
) -> None:
    alice, bob, _eve = await started(fake)
    (thread,) = fake.threads(fake.channel)
    refused = await fake.slash(bob, thread, "abandon")
    assert refused.ephemeral and "Only the host" in refused.content
    asked = await fake.slash(alice, thread, "abandon")
    assert asked.ephemeral and "cannot be undone" in asked.content
    assert await bot.store.find_open(fake.channel.id) is not None
    assert asked.message is not None
    await fake.click(alice, asked.message, "Yes, end this game")
    assert await bot.store.find_open(fake.channel.id) is None
    assert "was ended" in fake.last_message(thread).content
