"""Entry point: settings, then the bot (the Discord side is being built; see README)."""

from __future__ import annotations

import os
import sys

from dotenv import load_dotenv

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


def main() -> int:
    load_dotenv()
    token = os.environ.get("DISCORD_TOKEN", "").strip()
    if not token:
        print(NO_TOKEN_HELP, file=sys.stderr)
        return 2
    print(
        "The Discord side of the bot is not built yet; try the games offline with "
        "`./dev play workshop 3`.",
        file=sys.stderr,
    )
    return 2


if __name__ == "__main__":
    sys.exit(main())
