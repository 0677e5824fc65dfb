"""One bot process of the chaos soak (``benchmarks/chaos.py``): ``bot.py`` as it runs in
production (its settings, its log setup, its one-sentence refusal when the database is
out of reach as it starts), with a clock that the soak moves: the real time plus the
seconds in the file named by ``BOT_CLOCK_OFFSET_FILE`` (``tests/e2e/clocked_bot.py``'s
clock), so reminders, turn limits and races fall due in every process at once. Started
through ``FakeDiscord.start_bot_process``.
"""

from __future__ import annotations

import asyncio
import os
import sys
from pathlib import Path


def main() -> int:
    import discord

    import storage
    from bot import WorkshopBot, serve
    from cogs.helpers.check import server_error_sentence
    from cogs.helpers.config import Settings
    from cogs.helpers.logs import setup_logging
    from tables import workers
    from tests.e2e.clocked_bot import shifted_clock

    settings = Settings.from_env(os.environ)
    offset_file = Path(os.environ["BOT_CLOCK_OFFSET_FILE"])
    setup_logging(
        settings.log_format,
        token=settings.token,
        database_url=settings.database_url,
        env=os.environ,
    )
    discord.VoiceClient.warn_nacl = discord.VoiceClient.warn_dave = False  # as bot.py
    bot = WorkshopBot(settings, clock=lambda: shifted_clock(offset_file))
    try:
        asyncio.run(serve(bot, settings.token))  # SIGINT/SIGTERM stop it as they stop bot.py
    except storage.StorageError as error:  # as bot.py says it
        print(f"{error}\nThe bot did not start.", file=sys.stderr)
        return 1
    except discord.DiscordServerError as error:  # Discord down as it logs in: as bot.py
        print(server_error_sentence(error), file=sys.stderr)
        return 1
    finally:
        workers.stop_all()
    return 0


if __name__ == "__main__":
    sys.exit(main())
