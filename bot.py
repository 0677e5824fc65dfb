"""Entry point: settings, logging, storage, cogs, command sync, run.

    python bot.py          (or ./dev run)

Reads DISCORD_TOKEN, DATABASE_URL, DISCORD_GUILD_ID, TIMER_POLL_SECONDS and AI_WORKERS
from the environment or .env.
"""

from __future__ import annotations

import logging
import os
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime

import discord
from discord.ext import commands
from dotenv import load_dotenv

import storage
from cogs import EXTENSIONS, drawing
from cogs.computers import Computers
from cogs.service import Tables

log = logging.getLogger("bot")

NO_TOKEN_HELP = """\
No DISCORD_TOKEN is set.

To run the bot on Discord:
  1. Open https://discord.com/developers/applications and create an application.
  2. Under "Bot", press "Reset Token" and copy the token.
  3. Put it in a file named .env beside bot.py:   DISCORD_TOKEN=your-token
     (.env.example lists every setting.)
  4. Under "OAuth2 → URL Generator", tick "bot" and "applications.commands",
     open the URL and add the bot to your server. Then run this command again.

To try the games offline, in this terminal, with no token:
  ./dev play workshop 3      Santa's Workshop, you against 2 random players
  ./dev play tonttu 4        Workshop Tonttu, you against 3 random players
"""


@dataclass(frozen=True)
class Settings:
    token: str
    database_url: str = storage.DEFAULT_DATABASE_URL
    guild_id: int | None = None
    timer_poll_seconds: float = 30.0
    ai_workers: int | None = None
    """Computer players' worker processes (None: one per core but one; 0: in threads)."""

    @classmethod
    def from_env(cls, env: Mapping[str, str]) -> Settings:
        guild = env.get("DISCORD_GUILD_ID", "").strip()
        if guild and not guild.isdigit():
            raise SystemExit(f"DISCORD_GUILD_ID must be a server id (digits), not {guild!r}.")
        workers = env.get("AI_WORKERS", "").strip()
        if workers and not workers.isdigit():
            raise SystemExit(f"AI_WORKERS must be a number of processes, not {workers!r}.")
        return cls(
            token=env.get("DISCORD_TOKEN", "").strip(),
            database_url=env.get("DATABASE_URL", "").strip() or storage.DEFAULT_DATABASE_URL,
            guild_id=int(guild) if guild else None,
            timer_poll_seconds=float(env.get("TIMER_POLL_SECONDS", "") or 30.0),
            ai_workers=int(workers) if workers else None,
        )


class WorkshopBot(commands.Bot):
    """The bot: storage and the game service are opened in ``setup_hook``."""

    store: storage.Storage
    tables: Tables

    def __init__(
        self,
        settings: Settings,
        *,
        clock: Callable[[], datetime] = lambda: datetime.now(UTC),
        new_seed: Callable[[], int] | None = None,
        computers: Computers | None = None,
    ) -> None:
        # Default intents only: no privileged Message Content intent is needed.
        super().__init__(command_prefix=commands.when_mentioned, intents=discord.Intents.default())
        self.settings = settings
        self.clock = clock
        self.new_seed = new_seed
        self.computers = computers or Computers(settings.ai_workers)

    async def setup_hook(self) -> None:
        drawing.start()  # the picture worker process starts while we connect
        self.computers.start()  # and the computer players' workers
        self.store = await storage.open(self.settings.database_url)
        self.tables = Tables(self.store, clock=self.clock, computers=self.computers)
        if self.new_seed is not None:
            self.tables.new_seed = self.new_seed
        for extension in EXTENSIONS:
            await self.load_extension(extension)
        if self.settings.guild_id:
            guild = discord.Object(id=self.settings.guild_id)
            self.tree.copy_global_to(guild=guild)
            synced = await self.tree.sync(guild=guild)
        else:
            synced = await self.tree.sync()
        log.info("synced %d commands", len(synced))

    async def on_ready(self) -> None:
        log.info("ready as %s in %d servers", self.user, len(self.guilds))

    async def close(self) -> None:
        await self.computers.close()  # decisions waiting for a worker are dropped
        await super().close()
        if hasattr(self, "store"):
            await self.store.close()


def main() -> int:
    load_dotenv()
    settings = Settings.from_env(os.environ)
    if not settings.token:
        print(NO_TOKEN_HELP, file=sys.stderr)
        return 2
    discord.utils.setup_logging(level=logging.INFO)
    bot = WorkshopBot(settings)
    try:
        bot.run(settings.token, log_handler=None)
    except discord.LoginFailure:
        print("Discord refused the token: check DISCORD_TOKEN in .env.", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
