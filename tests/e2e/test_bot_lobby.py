"""/newgame, the lobby buttons and who may use them, against the fake Discord."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from bot import WorkshopBot

from .bot_helpers import add_computer, make_bot, open_table
from .fake_discord import FakeDiscord


@pytest.fixture
def database_url(tmp_path: Path) -> str:
    return f"sqlite:///{tmp_path}/bot.db"


@pytest.fixture
async def bot(fake: FakeDiscord, database_url: str) -> AsyncIterator[WorkshopBot]:
    yield await fake.start_bot(make_bot(fake, database_url, seed=7))


async def test_newgame_opens_a_lobby_that_players_join(fake: FakeDiscord, bot: WorkshopBot) -> None:
    alice, bob = fake.add_user("alice"), fake.add_user("bob")
    result = await fake.slash(alice, fake.channel, "newgame", game="workshop")
    lobby = result.message
    assert lobby is not None and not result.ephemeral
    assert lobby.button_labels() == ["Join", "Leave", "Start", "Cancel"]
    (menu,) = lobby.selects()
    assert menu["placeholder"] == "Add a computer player…"
    assert [o["value"] for o in menu["options"]] == ["random", "greedy", "strong"]
    await fake.click(bob, lobby, "Join")
    assert "1. alice" in lobby.text() and "2. bob" in lobby.text()


async def test_only_the_host_adds_computers_and_only_at_a_level_on_the_menu(
    fake: FakeDiscord, bot: WorkshopBot
) -> None:
    alice, bob = fake.add_user("alice"), fake.add_user("bob")
    lobby = (await fake.slash(alice, fake.channel, "newgame", game="workshop")).message
    assert lobby is not None
    refused = await add_computer(fake, bob, lobby, "strong")
    assert refused.ephemeral and "Only the host" in refused.content
    forged = await fake.forge_select(alice, lobby, "Add a computer player…", ["grandmaster"])
    assert forged.ephemeral and "not on the menu" in forged.content
    game = await bot.store.find_open(fake.channel.id)
    assert game is not None and [s.player for s in game.seats] == [str(alice.id)]
    await add_computer(fake, alice, lobby, "strong")
    assert "2. AI 1 (computer, hard)" in lobby.text()


async def test_start_opens_a_thread_with_board_and_turn_prompt(
    fake: FakeDiscord, bot: WorkshopBot
) -> None:
    alice, bob = fake.add_user("alice"), fake.add_user("bob")
    lobby, board = await open_table(fake, alice, [bob])
    assert lobby.button_labels() == []  # the lobby closed
    (thread,) = fake.threads(fake.channel)
    assert "Santa's Workshop" in board.text() and "Day 1 of 6" in board.text()
    prompt = fake.messages(thread)[-1]
    assert "it's your turn" in prompt.content
    assert prompt.button_labels() == ["Take your turn"]


async def test_a_second_newgame_names_the_running_game(fake: FakeDiscord, bot: WorkshopBot) -> None:
    alice = fake.add_user("alice")
    await fake.slash(alice, fake.channel, "newgame", game="workshop")
    again = await fake.slash(alice, fake.channel, "newgame", game="tonttu")
    assert again.ephemeral
    assert "already has a workshop game" in again.content


async def test_newgame_in_a_dm_explains_it_needs_a_server(
    fake: FakeDiscord, bot: WorkshopBot
) -> None:
    alice = fake.add_user("alice")
    result = await fake.slash(alice, fake.open_dm(alice), "newgame", game="workshop")
    assert result.ephemeral and "server" in result.content


async def test_only_the_host_starts_and_too_few_players_cannot(
    fake: FakeDiscord, bot: WorkshopBot
) -> None:
    alice, bob = fake.add_user("alice"), fake.add_user("bob")
    lobby = (await fake.slash(alice, fake.channel, "newgame", game="workshop")).message
    assert lobby is not None
    alone = await fake.click(alice, lobby, "Start")
    assert alone.ephemeral and "at least 2 players" in alone.content
    await fake.click(bob, lobby, "Join")
    not_host = await fake.click(bob, lobby, "Start")
    assert not_host.ephemeral and "Only the host" in not_host.content
    assert fake.threads(fake.channel) == []


async def test_without_thread_permission_the_game_is_played_in_the_channel(
    fake: FakeDiscord, bot: WorkshopBot
) -> None:
    fake.deny_bot(fake.channel, "create_public_threads")
    alice, bob = fake.add_user("alice"), fake.add_user("bob")
    result = await fake.slash(alice, fake.channel, "newgame", game="workshop")
    assert result.message is not None
    await fake.click(bob, result.message, "Join")
    started = await fake.click(alice, result.message, "Start")
    assert fake.threads(fake.channel) == []
    told = [m.content for m in started.followups]
    assert any("could not create a thread" in text for text in told)
    assert "it's your turn" in fake.last_message(fake.channel).content


async def test_without_send_permission_the_host_is_told(
    fake: FakeDiscord, bot: WorkshopBot
) -> None:
    alice, bob = fake.add_user("alice"), fake.add_user("bob")
    result = await fake.slash(alice, fake.channel, "newgame", game="workshop")
    assert result.message is not None
    await fake.click(bob, result.message, "Join")
    # taken away after the lobby opened (/newgame itself refuses such a channel)
    fake.deny_bot(fake.channel, "create_public_threads", "send_messages")
    started = await fake.click(alice, result.message, "Start")
    told = " ".join(m.content for m in started.followups)
    assert "not allowed to post" in told and "Send Messages" in told
