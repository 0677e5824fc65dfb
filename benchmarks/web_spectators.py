"""Spectators of the live pages: a load generator in a process of its own.

    python -m benchmarks.web_spectators   (driven by benchmarks/web_load.py)

Reads one JSON line on standard input: ``{"base": "http://127.0.0.1:PORT", "tokens":
[...], "count": 1000, "max_seconds": 300}``: ``count`` spectators spread evenly over the
tables of ``tokens``. Each spectator loads its table's page (``/g/<token>``) as a browser
would, then follows the page's Server-Sent Events (the URL the page names in
``data-events``) and reads every event, noting when each arrived
(``time.time()``: the bot's stored move times are the same clock) and the version its
id names. A stream that ends is opened again after the server's ``retry``, with the last
event's id, as ``EventSource`` does.

Every spectator connects from an address of its own in the loopback range
(127.0.1.1, 127.0.1.2, ...), so the server's allowance per client address treats them
as the different people they stand for. Connections are opened a few at a time.

Prints one JSON line when every stream has shown its first event (``{"ready": n,
"failed": k, "seconds": s}``), then waits for a line ``stop`` on standard input (or its
end, or ``max_seconds``), closes every stream and prints one JSON line with each stream's
events: ``{"streams": [{"token", "events": [[version, at], ...], "bytes", "reconnects",
"refused"}, ...]}``. Its traffic goes to the loopback address in ``base`` only.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import re
import sys
import threading
import time
from dataclasses import dataclass, field
from typing import Any

import aiohttp

CONNECTING_AT_ONCE = 50
READY_SECONDS = 60.0
"""How long every stream may take to show its first event."""
RETRY_SECONDS = 1.0
EVENTS_URL = re.compile(r'data-events="([^"]+)"')


def address(index: int) -> str:
    """The loopback address spectator ``index`` connects from (never 127.0.0.1, which
    the benchmark's own requests and the browser use)."""
    return f"127.0.{1 + index // 250}.{1 + index % 250}"


@dataclass
class Spectator:
    index: int
    token: str
    events: list[tuple[int, float]] = field(default_factory=list)
    bytes: int = 0
    reconnects: int = 0
    refused: int = 0
    first: asyncio.Event = field(default_factory=asyncio.Event)
    last_id: str | None = None

    async def follow(self, base: str, gate: asyncio.Semaphore) -> None:
        """Load the page, then read its events until cancelled."""
        connector = aiohttp.TCPConnector(local_addr=(address(self.index), 0))
        timeout = aiohttp.ClientTimeout(total=None, sock_connect=10, sock_read=None)
        async with aiohttp.ClientSession(connector=connector, timeout=timeout) as session:
            async with gate:
                page = f"{base}/g/{self.token}"
                async with session.get(page) as response:
                    html = await response.text()
                found = EVENTS_URL.search(html)
                events = f"{page}/{found[1].split('/', 1)[1]}" if found else f"{page}/events"
            while True:
                headers = {"Accept": "text/event-stream"}
                if self.last_id is not None:
                    headers["Last-Event-ID"] = self.last_id
                try:
                    async with session.get(events, headers=headers) as response:
                        if response.status != 200:
                            self.refused += 1
                        else:
                            await self.read(response)
                except aiohttp.ClientError:
                    pass
                self.reconnects += 1
                await asyncio.sleep(RETRY_SECONDS)

    async def read(self, response: aiohttp.ClientResponse) -> None:
        buffer = b""
        async for chunk in response.content.iter_any():
            at = time.time()
            self.bytes += len(chunk)
            buffer += chunk
            while (end := buffer.find(b"\n\n")) >= 0:
                block, buffer = buffer[:end], buffer[end + 2 :]
                if block.startswith(b"id: "):
                    line = block[4 : block.find(b"\n")].decode()
                    self.last_id = line
                    self.events.append((int(line.split("-", 1)[0]), at))
                    self.first.set()
                elif block.startswith(b"event: gone"):
                    self.first.set()


async def run(config: dict[str, Any]) -> None:
    loop = asyncio.get_running_loop()
    tokens: list[str] = config["tokens"]
    spectators = [Spectator(i, tokens[i % len(tokens)]) for i in range(int(config["count"]))]
    gate = asyncio.Semaphore(CONNECTING_AT_ONCE)
    began = time.perf_counter()
    tasks = [asyncio.create_task(s.follow(config["base"], gate)) for s in spectators]
    firsts = [asyncio.ensure_future(s.first.wait()) for s in spectators]
    await asyncio.wait(firsts, timeout=READY_SECONDS)
    ready = sum(s.first.is_set() for s in spectators)
    say({"ready": ready, "failed": len(spectators) - ready, "seconds": time.perf_counter() - began})
    stop = asyncio.Event()

    def wait_for_stop() -> None:  # a line, or the end of standard input
        sys.stdin.readline()
        loop.call_soon_threadsafe(stop.set)

    threading.Thread(target=wait_for_stop, daemon=True).start()
    with contextlib.suppress(TimeoutError):
        await asyncio.wait_for(stop.wait(), float(config.get("max_seconds", 300)))
    for task in [*tasks, *firsts]:
        task.cancel()
    await asyncio.gather(*tasks, *firsts, return_exceptions=True)
    say(
        {
            "streams": [
                {
                    "token": s.token,
                    "events": s.events,
                    "bytes": s.bytes,
                    "reconnects": s.reconnects,
                    "refused": s.refused,
                }
                for s in spectators
            ]
        }
    )


def say(message: dict[str, Any]) -> None:
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def main() -> None:
    config = json.loads(sys.stdin.readline())
    asyncio.run(run(config))


if __name__ == "__main__":
    main()
