"""Run a bot script in its own process against a fake Discord.

    python -m tests.e2e.fake_discord.run_bot path/to/bot.py [args...]

with ``FAKE_DISCORD_API`` (e.g. ``http://127.0.0.1:PORT/api/v10``) and
``FAKE_DISCORD_GATEWAY`` (``ws://127.0.0.1:PORT/gateway-ws/``) in the environment. It
points the same two class attributes at the fake as the in-process harness does, then runs
the script as ``__main__``. ``FakeDiscord.start_bot_process`` sets all of this up.

With ``FAKE_DISCORD_SENT_LOG`` set to a file name, every chunk of an interaction's
initial response is logged as it leaves the bot (``<interaction id> <time.monotonic()>``,
one line each), for benchmarks that time the bot apart from the fake's own delays: the
fake stamps a response when its own event loop gets to it, and on a small machine that
loop is busy with every other table's requests (on Discord, not the bot's machine).
The monotonic clock is the system's, so the fake's ``loop.time()`` compares with it.

Every request names its process in the header ``X-Fake-Pid``, which the fake records as
``RecordedRequest.pid``.
"""

from __future__ import annotations

import os
import runpy
import sys
import time
from typing import Any

import aiohttp
import discord
import yarl

from .rest import PID_HEADER


def log_sent_responses(path: str) -> None:
    """Add to every aiohttp session of this process a trace that logs the chunks of
    interaction callbacks (``POST /interactions/{id}/{token}/callback``) as they are sent."""
    out = open(path, "a", buffering=1)  # noqa: SIM115 (open while the process lives)

    async def sent(session: Any, context: Any, params: aiohttp.TraceRequestChunkSentParams) -> None:
        parts = params.url.path.split("/")
        if parts[-1] == "callback" and "interactions" in parts:
            out.write(f"{parts[parts.index('interactions') + 1]} {time.monotonic()}\n")

    trace = aiohttp.TraceConfig()
    trace.on_request_chunk_sent.append(sent)
    original = aiohttp.ClientSession.__init__

    def traced(self: aiohttp.ClientSession, *args: Any, **kwargs: Any) -> None:
        kwargs["trace_configs"] = [*(kwargs.get("trace_configs") or []), trace]
        original(self, *args, **kwargs)

    aiohttp.ClientSession.__init__ = traced  # type: ignore[method-assign]


def name_the_process() -> None:
    """Send this process's id with every request of every aiohttp session
    (``X-Fake-Pid``), so the fake records which process sent it (``RecordedRequest.pid``):
    with several bot processes on one fake, which of them sent a post is the first
    question of a finding."""
    original = aiohttp.ClientSession.__init__

    def named(self: aiohttp.ClientSession, *args: Any, **kwargs: Any) -> None:
        kwargs["headers"] = {**(kwargs.get("headers") or {}), PID_HEADER: str(os.getpid())}
        original(self, *args, **kwargs)

    aiohttp.ClientSession.__init__ = named  # type: ignore[method-assign]


def main() -> None:
    if len(sys.argv) < 2:
        raise SystemExit(__doc__)
    discord.http.Route.BASE = os.environ["FAKE_DISCORD_API"]
    discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY = yarl.URL(os.environ["FAKE_DISCORD_GATEWAY"])
    name_the_process()
    if os.environ.get("FAKE_DISCORD_SENT_LOG"):
        log_sent_responses(os.environ["FAKE_DISCORD_SENT_LOG"])
    script = sys.argv[1]
    sys.argv = sys.argv[1:]
    runpy.run_path(script, run_name="__main__")


if __name__ == "__main__":
    main()
