"""Links to a game's pages on the web, end to end on the fake Discord: with
``WEB_BASE_URL`` the thread's board carries a "Watch live" link to the game's page
(``<base>/g/<its stored token>``) while it runs, and "Replay" once it has ended, as the
final scores do; a server admin turns them off and on with ``/settings pages``, and the
next board edit follows; without ``WEB_BASE_URL``, or when the token cannot be read, the
board goes out without links.

The games end fast: opened through Discord, then played straight into storage, the last
move published as any move is (``test_bot_chart.py``'s ``play_to_the_end``)."""

from __future__ import annotations

import logging
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from bot import WorkshopBot

from .bot_helpers import make_bot, open_table
from .fake_discord import FakeDiscord, FakeMessage
from .test_bot_chart import final_message, play_to_the_end

SEED = 20261201
BASE = "https://games.example.org/workshop"
OFF = "Game pages are off for this server: no links are posted, and the pages answer 'not found'."


def web_bot(fake: FakeDiscord, tmp_path: Path, base: str | None = BASE) -> WorkshopBot:
    bot = make_bot(fake, f"sqlite:///{tmp_path}/bot.db", seed=SEED)
    bot.settings = replace(bot.settings, web_base_url=base)  # as WEB_BASE_URL sets it
    return bot


async def ended(fake: FakeDiscord, thread: Any) -> FakeMessage:
    """The final scores, once posted."""
    await fake.wait_for(
        lambda: any("final scores" in m.text() for m in fake.messages(thread)),
        what="the final scores",
    )
    return final_message(fake, thread)


def links(message: FakeMessage) -> dict[str, str]:
    """The message's link buttons: url by label (a link button has no custom_id)."""
    found = {}
    for button in message.buttons():
        if button["style"] == 5:
            assert "custom_id" not in button, button
            found[button["label"]] = button["url"]
    return found


async def game_token(bot: WorkshopBot) -> str:
    (info,) = await bot.store.list_games(statuses=["active"])
    return await bot.store.web_token(info.id)


async def test_the_board_links_to_the_live_page_then_to_the_replay(
    fake: FakeDiscord, tmp_path: Path
) -> None:
    bot = await fake.start_bot(web_bot(fake, tmp_path))
    alice, bob = fake.add_user("alice"), fake.add_user("bob")
    _, board = await open_table(fake, alice, [bob])
    (thread,) = fake.threads(fake.channel)
    token = await game_token(bot)
    assert links(board) == {"Watch live": f"{BASE}/g/{token}"}

    await play_to_the_end(bot, fake, 3)
    final = await ended(fake, thread)
    replay = {"Replay": f"{BASE}/g/{token}/replay", "Game page": f"{BASE}/g/{token}"}
    assert links(board) == replay  # the board's last edit
    assert links(final) == replay
    assert [m for m in fake.messages(thread) if links(m)] == [board, final]


async def test_an_admin_turns_the_links_off_and_the_next_board_edit_drops_them(
    fake: FakeDiscord, tmp_path: Path
) -> None:
    bot = await fake.start_bot(web_bot(fake, tmp_path))
    admins = fake.add_role("admins", manage_guild=True)
    olga = fake.add_user("olga", roles=[admins])
    alice, bob = fake.add_user("alice"), fake.add_user("bob")
    _, board = await open_table(fake, alice, [bob])
    (thread,) = fake.threads(fake.channel)
    assert "Watch live" in links(board)

    off = await fake.slash(olga, fake.channel, "settings", pages="off")
    assert off.ephemeral and off.content == OFF
    assert not await bot.store.guild_web_links(fake.guild.id)
    asked = await fake.slash(olga, fake.channel, "settings")
    assert asked.content.endswith(f"\n{OFF}")  # after the language's sentence

    edits = len(board.history)
    await play_to_the_end(bot, fake, 3)
    final = await ended(fake, thread)
    assert len(board.history) > edits and board.buttons() == []
    assert final.buttons() == []

    on = await fake.slash(olga, fake.channel, "settings", pages="on")
    assert on.content.startswith("Game pages are on for this server")
    assert await bot.store.guild_web_links(fake.guild.id)


async def test_without_a_web_address_the_board_has_no_links(
    fake: FakeDiscord, tmp_path: Path
) -> None:
    bot = await fake.start_bot(web_bot(fake, tmp_path, base=None))
    alice, bob = fake.add_user("alice"), fake.add_user("bob")
    _, board = await open_table(fake, alice, [bob])
    assert board.buttons() == []
    (info,) = await bot.store.list_games(statuses=["active"])
    assert await bot.store.guild_web_links(info.guild_id)  # on, but there is nowhere to link
    answer = await fake.slash(fake.owner, fake.channel, "settings", pages="on")
    assert "This bot has no web address yet" in answer.content


async def test_a_token_that_cannot_be_read_leaves_the_board_without_links(
    fake: FakeDiscord, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: Any
) -> None:
    bot = await fake.start_bot(web_bot(fake, tmp_path))

    async def broken(game_id: int) -> str:
        raise RuntimeError("the database went away")

    monkeypatch.setattr(bot.store, "web_token", broken)
    alice, bob = fake.add_user("alice"), fake.add_user("bob")
    with caplog.at_level(logging.WARNING, logger="bot.table"):
        _, board = await open_table(fake, alice, [bob])
    assert board.buttons() == [] and "Move" in board.text()
    assert "no links to its pages" in caplog.text
