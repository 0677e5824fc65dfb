"""The bot's /metrics, /readyz and /healthz (tables/metrics.py, web/health.py) read over
HTTP while a game is played through the fake Discord: the counters move as the game
does, and /readyz says 503 while the gateway is away and 200 once it is back."""

from __future__ import annotations

import asyncio
import dataclasses
import socket
from collections.abc import Awaitable, Callable
from pathlib import Path

import aiohttp
from prometheus_client.parser import text_string_to_metric_families

from engine.workshop import GAME

from .bot_helpers import make_bot, open_panel, open_table
from .fake_discord import FakeDiscord
from .test_bot_workshop_game import choose, panel_choices

MOVES = 4

Samples = dict[tuple[str, tuple[tuple[str, str], ...]], float]


async def until(check: Callable[[], Awaitable[bool]], what: str, timeout: float = 30.0) -> None:  # noqa: ASYNC109
    """Ask ``check`` again every 0.1 s until it is true (a failure after ``timeout``)."""
    for _ in range(int(timeout * 10)):
        if await check():
            return
        await asyncio.sleep(0.1)
    raise AssertionError(f"timed out waiting for {what}")


async def test_the_metrics_move_with_a_game_and_readiness_follows_the_gateway(
    fake: FakeDiscord, tmp_path: Path
) -> None:
    bot = make_bot(fake, f"sqlite:///{tmp_path}/bot.db", seed=20261207)
    bot.settings = dataclasses.replace(bot.settings, web_port=0)
    await fake.start_bot(bot)
    assert bot.web is not None
    bot.metrics.games_every = 0  # each scrape counts the open games anew
    base = f"http://127.0.0.1:{bot.web.port}"

    async with aiohttp.ClientSession() as http:

        async def get(path: str) -> tuple[int, str]:
            async with http.get(base + path) as response:
                return response.status, await response.text()

        async def scrape() -> Samples:
            status, text = await get("/metrics")
            assert status == 200
            return {
                (s.name, tuple(sorted(s.labels.items()))): s.value
                for family in text_string_to_metric_families(text)
                for s in family.samples
            }

        def of(samples: Samples, name: str, **labels: str) -> float:
            return samples.get((name, tuple(sorted(labels.items()))), 0.0)

        before = await scrape()
        assert await get("/healthz") == (200, "ok\n")
        assert await get("/readyz") == (200, "ready\n")

        # a short game: /newgame, join, start, then a few moves through the panel
        alice, bob = fake.add_user("alice"), fake.add_user("bob")
        by_player = {str(alice.id): alice, str(bob.id): bob}
        await open_table(fake, alice, [bob])
        (thread,) = fake.threads(fake.channel)
        for _ in range(MOVES):
            game = await bot.store.find_open(fake.channel.id)
            assert game is not None
            (player,) = GAME.to_act(game.state)
            opened = await open_panel(fake, by_player[player], thread)
            assert opened.message is not None
            await choose(fake, by_player[player], opened.message, panel_choices(opened.message)[0])

        async def shown() -> bool:  # a round showed a move in the thread (its log)
            return of(await scrape(), "workshop_commit_to_thread_seconds_count") > 0

        await until(shown, "a move shown in its thread")
        after = await scrape()

        def moved(name: str, **labels: str) -> float:
            return of(after, name, **labels) - of(before, name, **labels)

        # every click answered (Join, Start, each Take your turn and each choice), and timed
        clicks = 2 + 2 * MOVES
        assert moved("workshop_interactions_total", kind="component", outcome="ok") == clicks
        assert moved("workshop_interactions_total", kind="command", outcome="ok") == 1
        first = "workshop_interaction_first_response_seconds_count"
        assert moved(first, kind="component") == clicks and moved(first, kind="command") == 1
        assert moved("workshop_db_submit_seconds_count") == MOVES
        assert moved("workshop_publish_rounds_total", outcome="ok") >= 1
        posts = "POST /channels/{id}/messages"
        assert moved("workshop_rest_requests_total", route=posts, status="200") >= 1
        callbacks = "POST /interactions/{id}/{token}/callback"
        assert moved("workshop_rest_requests_total", route=callbacks, status="200") == clicks + 1
        assert of(after, "workshop_games_open", kind="workshop", status="active") == 1
        assert of(after, "workshop_gateway_shard_up", shard="0") == 1
        assert of(after, "workshop_catch_up_rounds_total") >= 1  # the start's
        assert of(after, "workshop_event_loop_lag_seconds_count") > 0

        # the gateway goes away: not ready (the database still answers); back: ready
        await fake.gateway_outage(True)

        async def not_ready() -> bool:
            return (await get("/readyz"))[0] == 503

        await until(not_ready, "/readyz to say 503", timeout=10)
        _status, text = await get("/readyz")
        assert "gateway" in text, text
        down = await scrape()
        assert of(down, "workshop_gateway_shard_up", shard="0") == 0
        assert of(down, "workshop_gateway_disconnects_total", shard="0") >= 1
        assert (await get("/healthz"))[0] == 200  # the process itself is fine
        await fake.gateway_outage(False)

        async def ready() -> bool:
            return (await get("/readyz"))[0] == 200

        await until(ready, "/readyz to say 200 again")
        assert of(await scrape(), "workshop_gateway_shard_up", shard="0") == 1


async def test_without_web_pages_metrics_port_serves_the_three_answers_alone(
    fake: FakeDiscord, tmp_path: Path
) -> None:
    with socket.socket() as sock:  # a port free now
        sock.bind(("127.0.0.1", 0))
        port = int(sock.getsockname()[1])
    bot = make_bot(fake, f"sqlite:///{tmp_path}/bot.db")
    bot.settings = dataclasses.replace(bot.settings, metrics_port=port)
    await fake.start_bot(bot)
    assert bot.web is None and bot.probes is not None and bot.metrics.enabled
    async with aiohttp.ClientSession() as http:
        for path, status in (("/readyz", 200), ("/healthz", 200), ("/metrics", 200), ("/g/x", 404)):
            async with http.get(f"http://127.0.0.1:{port}{path}") as response:
                assert response.status == status, path
    await fake.stop_bot(bot)
    assert bot.probes is not None and bot.probes._runner is None  # closed with the bot
