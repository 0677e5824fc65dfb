"""What a supervisor and Prometheus ask the bot: ``/healthz``, ``/readyz``, ``/metrics``.

- ``/healthz``: 200 while the event loop ran its heartbeat within the last second; 503
  when it did not (busy or blocked: restart the process).
- ``/readyz``: 200 while this process's shards are connected to Discord's gateway and
  the database answers a cheap query; else 503 and why not, in one line.
- ``/metrics``: every metric in Prometheus' text format (``tables/metrics.py``).

They are served beside the pages on ``WEB_PORT`` (``web/server.py``), or alone on
``METRICS_PORT`` (:class:`web.server.ProbeServer`). Probes and scrapes have an
allowance of their own per client address, apart from the pages' (a page's visitors
never use up a probe's), and a client on this machine that connects directly (a local
Prometheus or supervisor: a loopback peer, no ``X-Forwarded-For``) is not limited at
all.

``/healthz`` answers from the heartbeat (:class:`tables.metrics.Heartbeat`), not from
its own running: the handler runs on the loop it reports on, so by the time it runs
the loop answers again; the heartbeat's age says whether it had stopped answering.
"""

from __future__ import annotations

import asyncio
import contextlib
import ipaddress
import logging
from collections.abc import Awaitable, Callable

from aiohttp import web
from prometheus_client import CONTENT_TYPE_LATEST

from tables.metrics import Heartbeat, Metrics

log = logging.getLogger(__name__)

PATHS = frozenset({"/healthz", "/readyz", "/metrics"})
GAMES_WITHIN = 2.0
"""Seconds a scrape waits for storage's count of the open games (else the last count)."""

Ready = Callable[[], Awaitable[str | None]]
"""Why this process is not ready (``None``: ready): the bot's readiness check."""


def local(request: web.Request) -> bool:
    """A client on this machine, connected directly (not through a reverse proxy)."""
    try:
        loopback = ipaddress.ip_address(request.remote or "").is_loopback
    except ValueError:
        return False
    return loopback and "X-Forwarded-For" not in request.headers


class Health:
    """The three answers, and the heartbeat behind ``/healthz`` (:meth:`start`)."""

    def __init__(self, metrics: Metrics, ready: Ready, heartbeat: Heartbeat | None = None):
        self.metrics = metrics
        self.ready = ready
        self.heartbeat = heartbeat or metrics.heartbeat()
        self._task: asyncio.Task[None] | None = None

    def routes(self) -> list[web.RouteDef]:
        return [
            web.get("/healthz", self.healthz),
            web.get("/readyz", self.readyz),
            web.get("/metrics", self.scrape),
        ]

    def start(self) -> None:
        if self._task is None:
            self._task = asyncio.create_task(self.heartbeat.run(), name="heartbeat")

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
            self._task = None

    async def healthz(self, request: web.Request) -> web.Response:
        age = self.heartbeat.age()
        if self.heartbeat.alive():
            return web.Response(text="ok\n")
        if age is None:
            return web.Response(status=503, text="the event loop's heartbeat has not started\n")
        return web.Response(
            status=503, text=f"the event loop has not run its heartbeat for {age:.1f} s\n"
        )

    async def readyz(self, request: web.Request) -> web.Response:
        reason = await self.ready()
        if reason is None:
            return web.Response(text="ready\n")
        return web.Response(status=503, text=f"not ready: {reason}\n")

    async def scrape(self, request: web.Request) -> web.Response:
        try:
            await asyncio.wait_for(self.metrics.refresh(), GAMES_WITHIN)
        except Exception as error:  # the rest is worth serving; the games' count is old
            log.warning("metrics: the open games could not be counted: %r", error)
        return web.Response(
            body=self.metrics.exposition(), headers={"Content-Type": CONTENT_TYPE_LATEST}
        )
