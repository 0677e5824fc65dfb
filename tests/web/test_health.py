"""/healthz, /readyz and /metrics (web/health.py), read over HTTP: alone on their own port
(``ProbeServer``, METRICS_PORT) and beside the pages (``WebServer``, WEB_PORT), with
their own allowance per address and none for a scraper on this machine."""

from __future__ import annotations

from collections.abc import AsyncIterator

import aiohttp
import pytest
from prometheus_client.parser import text_string_to_metric_families

from storage import SqlStorage
from tables.metrics import Heartbeat, Metrics
from tables.pictures import Pictures
from tests.web.games import new_game
from web.health import Health
from web.server import BURST, ProbeServer, WebServer


class Clock:
    def __init__(self) -> None:
        self.now = 50.0

    def __call__(self) -> float:
        return self.now


class Readiness:
    """The bot's readiness check, as the test says it is."""

    def __init__(self) -> None:
        self.reason: str | None = None

    async def __call__(self) -> str | None:
        return self.reason


@pytest.fixture
async def http() -> AsyncIterator[aiohttp.ClientSession]:
    async with aiohttp.ClientSession() as session:
        yield session


async def get(http: aiohttp.ClientSession, port: int, path: str, **headers: str) -> tuple[int, str]:
    async with http.get(f"http://127.0.0.1:{port}{path}", headers=headers) as response:
        return response.status, await response.text()


async def test_alone_on_their_port_they_say_whether_the_loop_answers_and_the_bot_is_ready(
    http: aiohttp.ClientSession,
) -> None:
    clock, ready = Clock(), Readiness()
    metrics = Metrics()
    heart = Heartbeat(every=3600.0, clock=clock)  # one beat as it starts, then none
    probes = ProbeServer(Health(metrics, ready, heart), port=0)
    await probes.start()
    try:
        assert await get(http, probes.port, "/healthz") == (200, "ok\n")
        clock.now += 1.5  # the loop ran no heartbeat for 1.5 s
        status, text = await get(http, probes.port, "/healthz")
        assert status == 503 and "has not run its heartbeat for 1.5 s" in text
        assert await get(http, probes.port, "/readyz") == (200, "ready\n")
        ready.reason = "not connected to Discord's gateway (shard 1)"
        status, text = await get(http, probes.port, "/readyz")
        assert (status, text) == (503, "not ready: not connected to Discord's gateway (shard 1)\n")
        assert (await get(http, probes.port, "/g/whatever"))[0] == 404  # nothing but those
    finally:
        await probes.stop()


async def test_metrics_are_served_in_prometheus_text_format_even_when_storage_fails(
    http: aiohttp.ClientSession,
) -> None:
    metrics = Metrics()
    metrics.interaction("component", "ok")

    async def broken() -> dict[tuple[str, str], int]:
        raise OSError("the database is gone")

    metrics.games = broken
    probes = ProbeServer(Health(metrics, Readiness()), port=0)
    await probes.start()
    try:
        async with http.get(f"http://127.0.0.1:{probes.port}/metrics") as response:
            assert response.status == 200
            assert response.headers["Content-Type"].startswith("text/plain; version=")
            assert response.headers["X-Content-Type-Options"] == "nosniff"
            text = await response.text()
    finally:
        await probes.stop()
    families = {f.name: f for f in text_string_to_metric_families(text)}
    (sample,) = families["workshop_interactions"].samples
    assert sample.labels == {"kind": "component", "outcome": "ok"} and sample.value == 1
    assert families["workshop_games_open"].samples == []  # the last count: none yet


async def test_beside_the_pages_probes_have_their_own_allowance_and_none_from_this_machine(
    store: SqlStorage, http: aiohttp.ClientSession
) -> None:
    web = WebServer(store, Pictures(), port=0, health=Health(Metrics(), Readiness()))
    await web.start()
    try:
        game = await new_game(store, "workshop", 2)
        page = f"/g/{await store.web_token(game.id)}"
        for _ in range(BURST + 10):  # this address's pages' allowance used up
            status, _text = await get(http, web.port, page)
        assert status == 429
        # a scraper on this machine, directly: never limited, whatever the pages used
        statuses = {(await get(http, web.port, "/metrics"))[0] for _ in range(BURST + 5)}
        assert statuses == {200}
        assert (await get(http, web.port, "/healthz"))[0] == 200
        # through the proxy, a client's probes have an allowance of their own
        proxy = {"X-Forwarded-For": "203.0.113.9"}
        answers = [(await get(http, web.port, "/readyz", **proxy))[0] for _ in range(BURST + 10)]
        assert answers[:BURST] == [200] * BURST and answers[-1] == 429
        assert (await get(http, web.port, page, **proxy))[0] == 200  # its pages' is whole
    finally:
        await web.stop()
