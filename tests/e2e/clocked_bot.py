"""``bot.py`` with a clock that tests move: the real time plus the number of seconds in
the file named by ``BOT_CLOCK_OFFSET_FILE``, read at every tick.

Several bot processes share one file, so a test moves all their clocks at once (making
reminders, turn limits and speed races fall due) without waiting. Run it like bot.py,
through ``FakeDiscord.start_bot_process``.
"""

from __future__ import annotations

import asyncio
import logging
import os
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path

import discord


def shifted_clock(offset_file: Path) -> datetime:
    try:
        offset = float(offset_file.read_text() or 0)
    except (OSError, ValueError):  # being rewritten: the real time is a fine answer
        offset = 0.0
    return datetime.now(UTC) + timedelta(seconds=offset)


def main() -> int:
    from bot import Settings, WorkshopBot, serve
    from tables import workers

    settings = Settings.from_env(os.environ)
    offset_file = Path(os.environ["BOT_CLOCK_OFFSET_FILE"])
    discord.utils.setup_logging(level=logging.INFO)
    bot = WorkshopBot(settings, clock=lambda: shifted_clock(offset_file))
    try:
        asyncio.run(serve(bot, settings.token))  # SIGINT/SIGTERM stop it as they stop bot.py
    finally:
        workers.stop_all()
    return 0


if __name__ == "__main__":
    sys.exit(main())
