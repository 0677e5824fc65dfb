"""The bot's log lines while it serves a short but full table on the fake Discord, in
both formats at once (``cogs/helpers/logs.py``): no line shows the bot token, the client
secret or the database's password, even where the bot logs an error that carries them;
every JSON line parses and has its fields; a line about the game says which game and
server, and discord.py's and the door's say which shard.

The path: a lobby, its start, moves and an undo through the panel, a reminder timer
firing, the game abandoned; on PostgreSQL with a password in ``DATABASE_URL`` (the start
logs the database's address)."""

from __future__ import annotations

import io
import json
import logging
import re
from collections.abc import Iterator
from datetime import datetime
from typing import Any
from urllib.parse import unquote, urlsplit

import pytest

from bot import WorkshopBot
from cogs.helpers import desk
from cogs.helpers.config import Settings
from cogs.helpers.logs import setup_logging
from engine.workshop import GAME
from engine.workshop.models import PlaceElf
from storage import Timer

from .bot_helpers import Clock, open_panel, open_table, turn_prompts
from .fake_discord import FakeDiscord, FakeMessage, FakeUser

CLIENT_SECRET = "client-secret-of-the-logs-test"
FIELDS = {"time", "level", "logger", "message"}
OPTIONAL = {"exc", "game", "guild", "shard"}


def with_password(url: str) -> str:
    """``url`` with a password (the test server trusts local connections: any will do),
    unless it has one already."""
    parts = urlsplit(url)
    if parts.password:
        return url
    user, _, host = parts.netloc.rpartition("@")
    return parts._replace(
        netloc=f"{user or 'postgres'}:p%40ss-w0rd-of-the-logs-test@{host}"
    ).geturl()


@pytest.fixture
def captured() -> Iterator[dict[str, io.StringIO]]:
    """Both formats' lines, on the root logger as ``bot.py`` sets them up, for the test.
    (The first handler's filter redacts each record for both; each format redacting on
    its own is ``tests/cogs/test_logs.py``'s.)"""
    root = logging.getLogger()
    handlers, level = list(root.handlers), root.level
    yield {"json": io.StringIO(), "text": io.StringIO()}
    for handler in root.handlers:
        if handler not in handlers:
            root.removeHandler(handler)
    root.setLevel(level)


async def test_a_short_game_logs_no_secret_and_json_lines_say_what_they_are_about(
    fake: FakeDiscord,
    postgres_url: str,
    captured: dict[str, io.StringIO],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    url = with_password(postgres_url)
    password = urlsplit(url).password or ""
    for log_format, stream in captured.items():
        setup_logging(
            log_format,
            token=fake.token,
            database_url=url,
            env={"DISCORD_CLIENT_SECRET": CLIENT_SECRET},
            stream=stream,
        )
    leak = f"cannot reach {url} as {unquote(password)} with {fake.token} and {CLIENT_SECRET}"

    async def no_links(*args: Any) -> None:  # an error whose text carries every secret
        raise RuntimeError(leak)

    monkeypatch.setattr(desk, "page_links", no_links)
    clock = Clock()
    settings = Settings(
        token=fake.token,
        database_url=url,
        timer_poll_seconds=3600,
        flood_burst=0,
        web_base_url="https://games.example.org",
    )
    bot = await fake.start_bot(WorkshopBot(settings, clock=clock, new_seed=lambda: 11))
    game_id = await play_a_little(fake, bot, clock, leak)
    await fake.stop_bot(bot)

    lines = captured["json"].getvalue().splitlines()
    text = captured["text"].getvalue()
    for secret in (fake.token, CLIENT_SECRET, password, unquote(password)):
        assert secret not in text and secret not in captured["json"].getvalue()
    host = urlsplit(url).hostname or ""
    assert f"Migrated postgresql://{urlsplit(url).username}@{host}" in text  # no password
    assert "Traceback" in text and "RuntimeError: cannot reach postgresql://" in text

    records = [json.loads(line) for line in lines]
    for record in records:
        assert FIELDS.issubset(record) and set(record).issubset(FIELDS | OPTIONAL), record
        assert datetime.fromisoformat(record["time"]).utcoffset() is not None, record
    about = [r for r in records if re.search(rf"\bgame {game_id}\b", r["message"])]
    said = " | ".join(r["message"] for r in about)
    for what in (
        "lobby opened",
        "started",
        "no links to its pages",  # a publishing round's
        "timer",  # the reminder's, failed after posting (its traceback below)
        "ended for everyone",
    ):
        assert what in said, what
    for record in about:
        assert (record.get("game"), record.get("guild")) == (game_id, str(fake.guild.id)), record
    (failed,) = [r for r in about if "failed" in r["message"]]
    assert "RuntimeError: cannot reach postgresql://" in failed["exc"] and "***" in failed["exc"]
    started = next(r for r in about if "started" in r["message"])
    assert started.get("shard") == 0  # the door's: the server's shard
    assert any(r["logger"].startswith("discord") and r.get("shard") == 0 for r in records)


async def play_a_little(fake: FakeDiscord, bot: WorkshopBot, clock: Clock, leak: str) -> int:
    """A lobby, its start, two moves and an undo, a reminder (whose timer then fails with
    ``leak``), and the game ended by its host; returns the game's id."""
    alice, bob = fake.add_user("alice"), fake.add_user("bob")
    await open_table(fake, alice, [bob], reminder_hours=1)
    (thread,) = fake.threads(fake.channel)
    acting = alice if str(alice.id) in turn_prompts(fake, thread)[-1].content else bob
    panel = (await open_panel(fake, acting, thread)).message
    assert panel is not None
    panel = await play(fake, bot, acting, panel, PlaceElf(station="assembly"))
    game = await bot.store.find_open(fake.channel.id)
    assert game is not None
    undone = await fake.click(acting, panel, f"undo:{game.id}:{game.version}")
    assert undone.message is not None and "You took back" in undone.content
    await play(fake, bot, acting, undone.message, PlaceElf(station="assembly"))

    timers = bot.core.timers
    fire = timers.fire
    assert fire is not None

    async def fire_then_fail(timer: Timer) -> bool:
        await fire(timer)
        raise RuntimeError(leak)

    timers.fire = fire_then_fail
    clock.advance(hours=2)
    assert await timers.run_due() == 1
    timers.fire = fire
    assert "Reminder" in fake.last_message(thread).content

    asked = await fake.slash(alice, thread, "abandon")
    assert asked.message is not None
    await fake.click(alice, asked.message, "Yes, end this game")
    assert await bot.store.find_open(fake.channel.id) is None
    return game.id


async def play(
    fake: FakeDiscord, bot: WorkshopBot, user: FakeUser, panel: FakeMessage, action: Any
) -> FakeMessage:
    """Click the panel's button for ``action`` (its number in the stored game's list)."""
    game = await bot.store.find_open(fake.channel.id)
    assert game is not None
    index = list(GAME.legal_actions(game.state, str(user.id))).index(action)
    result = await fake.click(user, panel, f"act:{game.id}:{game.version}:{index}")
    assert result.callback_type == 7 and result.message is not None, result.text
    return result.message
