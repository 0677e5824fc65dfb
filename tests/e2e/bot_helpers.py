"""Starting the real bot against the fake Discord, and acting through it as players."""

from __future__ import annotations

import asyncio
import dataclasses
import re
import sqlite3
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from bot import Settings, WorkshopBot
from storage import sqlite_path
from tables.computers import Computers
from tables.publishing import reminder_asked

from .fake_discord import FakeDiscord, FakeMessage, FakeUser
from .fake_discord.model import InteractionResult


class Clock:
    """A clock the test moves by hand (reminders, turn limits). It starts at the real
    time, which the bot's database keeps (say a timer's claim, set from the bot's clock,
    is over by the database's): a clock behind it would end every claim at once."""

    def __init__(self) -> None:
        self.now = datetime.now(UTC).replace(microsecond=0)

    def __call__(self) -> datetime:
        return self.now

    def advance(self, **delta: float) -> None:
        self.now += timedelta(**delta)


def make_bot(
    fake: FakeDiscord,
    database_url: str,
    *,
    clock: Callable[[], datetime] | None = None,
    seed: int | None = None,
    computers: Computers | None = None,
) -> WorkshopBot:
    """The bot, its timers polled only when a test says so; ``computers`` replaces how
    computer seats decide (e.g. slowly, or never: a computer caught thinking). Its users
    are scripts, faster than any person: the flood guard is off (``test_bot_limits.py``
    tests it)."""
    settings = Settings(
        token=fake.token, database_url=database_url, timer_poll_seconds=3600, flood_burst=0
    )
    return WorkshopBot(
        settings,
        clock=clock or Clock(),
        new_seed=None if seed is None else (lambda: seed),
        computers=computers,
    )


async def start_activity_bot(fake: FakeDiscord, database_url: str, seed: int) -> WorkshopBot:
    """:func:`make_bot` started with its web server and the Discord Activity on, as
    ``WEB_PORT``, ``DISCORD_CLIENT_ID`` and ``DISCORD_CLIENT_SECRET`` turn them on (the
    fake Discord's application and OAuth2 secret)."""
    bot = make_bot(fake, database_url, seed=seed)
    bot.settings = dataclasses.replace(
        bot.settings,
        web_port=0,
        client_id=fake.application_id,
        client_secret=fake.oauth.client_secret,
    )
    await fake.start_bot(bot)
    assert bot.web is not None and bot.web.activity.on
    return bot


async def open_table(
    fake: FakeDiscord,
    host: FakeUser,
    others: list[FakeUser],
    game: str = "workshop",
    **options: Any,
) -> tuple[FakeMessage, FakeMessage]:
    """/newgame, everyone joins, the host starts: returns (lobby message, thread's board)."""
    result = await fake.slash(host, fake.channel, "newgame", game=game, **options)
    lobby = result.message
    assert lobby is not None
    for user in others:
        await fake.click(user, lobby, "Join")
    await fake.click(host, lobby, "Start")
    (thread,) = fake.threads(fake.channel)

    def board() -> FakeMessage | None:
        return next((m for m in fake.messages(thread) if m.embeds and "Move" in m.text()), None)

    # A bot in another process is not waited for by settle(): wait for the table itself.
    await fake.wait_for(
        lambda: board() is not None and (game != "workshop" or turn_prompts(fake, thread)),
        timeout=15,
        what="the board and the first turn prompt",
    )
    found = board()
    assert found is not None
    return lobby, found


async def add_computer(
    fake: FakeDiscord, user: FakeUser, lobby: FakeMessage, level: str = "greedy"
) -> InteractionResult:
    """The lobby's "Add a computer player…" menu: a seat that plays at ``level``."""
    return await fake.select(user, lobby, "Add a computer player…", [level])


def rode_on(message: FakeMessage) -> str | None:
    """The interaction a followup was posted through (``None``: a post of the bot's)."""
    return (message.data.get("interaction_metadata") or {}).get("id")


def shown_scores(final: FakeMessage) -> dict[str, int]:
    """Points by name in the final scores' fields: "alice: 15 points", "dave: 1 point"."""
    scores = {}
    for field in final.embeds[0]["fields"]:
        found = re.fullmatch(r"(.+): (\d+) points?", field["name"])
        assert found, field["name"]
        scores[found[1]] = int(found[2])
    return scores


def turn_prompts(fake: FakeDiscord, channel: Any) -> list[FakeMessage]:
    return [m for m in fake.messages(channel) if "Take your turn" in m.button_labels()]


async def open_panel(fake: FakeDiscord, user: FakeUser, channel: Any) -> InteractionResult:
    """The user clicks "Take your turn" on the latest prompt."""
    return await fake.click(user, turn_prompts(fake, channel)[-1], "Take your turn")


class BoardPictures:
    """Every board picture ``bot``'s tables have drawn from now on (its table core's
    ``pictures.draw_board``): the language of each, in order; while ``gate`` is clear,
    the drawings wait for it."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch, bot: WorkshopBot) -> None:
        self.languages: list[str] = []
        self.gate = asyncio.Event()
        self.gate.set()
        pictures = bot.core.pictures
        draw = pictures.draw_board

        async def render_board_png(game: Any, lang: str = "en") -> bytes:
            self.languages.append(lang)
            await self.gate.wait()
            png: bytes = await draw(game, lang)
            return png

        monkeypatch.setattr(pictures, "draw_board", render_board_png)


async def ask_reminder_only(store: Any, game_id: int) -> None:
    """What the game's pending reminder timer records when it fires
    (``Timers.ask_reminder``), as if its process then stopped before posting it."""
    game = await store.load(game_id)
    (timer,) = [t for t in await store.pending_timers(game_id) if t.kind == "remind"]
    await store.set_marks(game_id, reminder_asked(timer.id, game.version))


def timer_outcomes(url: str, game_id: int) -> list[tuple[str, str]]:
    """(kind, "pending" / "fired" / "cancelled") of each of the game's timers, in order."""
    with sqlite3.connect(sqlite_path(url)) as db:
        rows = db.execute(
            "SELECT kind, fired_at, cancelled_at FROM timers WHERE game_id = ? ORDER BY id",
            (game_id,),
        ).fetchall()
    return [
        (kind, "fired" if fired else "cancelled" if cancelled else "pending")
        for kind, fired, cancelled in rows
    ]
