"""Run a bot script in its own process against a fake Discord.

    python -m tests.e2e.fake_discord.run_bot path/to/bot.py [args...]

with ``FAKE_DISCORD_API`` (e.g. ``http://127.0.0.1:PORT/api/v10``) and
``FAKE_DISCORD_GATEWAY`` (``ws://127.0.0.1:PORT/gateway-ws/``) in the environment. It
points the same two class attributes at the fake as the in-process harness does, then runs
the script as ``__main__``. ``FakeDiscord.start_bot_process`` sets all of this up.
"""

from __future__ import annotations

import os
import runpy
import sys

import discord
import yarl


def main() -> None:
    if len(sys.argv) < 2:
        raise SystemExit(__doc__)
    discord.http.Route.BASE = os.environ["FAKE_DISCORD_API"]
    discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY = yarl.URL(os.environ["FAKE_DISCORD_GATEWAY"])
    script = sys.argv[1]
    sys.argv = sys.argv[1:]
    runpy.run_path(script, run_name="__main__")


if __name__ == "__main__":
    main()
