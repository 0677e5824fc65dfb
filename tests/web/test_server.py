"""The web server over real storage, read as a browser's HTTP would read it (no browser
here: ``test_pages.py`` drives Chromium): what each address answers, the security
headers, escaping, the live stream's events, the allowance per address."""

from __future__ import annotations

import asyncio
import html
import json
from collections.abc import AsyncIterator

import aiohttp
import pytest

from storage import SqlStorage
from tests.web.games import HOSTILE, finish, new_game, play
from web.server import BURST, WebServer


@pytest.fixture
async def http() -> AsyncIterator[aiohttp.ClientSession]:
    async with aiohttp.ClientSession() as session:
        yield session


def url(server: WebServer, path: str) -> str:
    return f"http://127.0.0.1:{server.port}{path}"


async def page_of(store: SqlStorage, game_id: int) -> str:
    return f"/g/{await store.web_token(game_id)}"


async def test_a_table_page_shows_the_game_with_every_name_escaped(
    store: SqlStorage, server: WebServer, http: aiohttp.ClientSession
) -> None:
    game = await play(store, await new_game(store, "workshop", 3), 12)
    async with http.get(url(server, await page_of(store, game.id))) as response:
        assert response.status == 200
        text = await response.text()
        headers = response.headers
    assert "Santa's Workshop" in html.unescape(text)
    assert f"#{game.id}" in text
    for name in HOSTILE[1:]:
        assert name not in text and name in html.unescape(text)  # there, escaped only
    assert "<img src=x" not in text and "<script>alert" not in text
    csp = headers["Content-Security-Policy"]
    assert "script-src 'self'" in csp and "default-src 'none'" in csp
    assert "frame-ancestors 'none'" in csp and "unsafe-inline" not in csp
    assert headers["X-Content-Type-Options"] == "nosniff"
    assert headers["Referrer-Policy"] == "no-referrer"
    assert headers["Cache-Control"] == "no-store"
    assert 'style="' not in text and "<script>" not in text.replace("<script src=", "")


async def test_nothing_is_told_of_a_game_without_its_token(
    store: SqlStorage, server: WebServer, http: aiohttp.ClientSession
) -> None:
    game = await new_game(store, "workshop", 2)
    token = await store.web_token(game.id)
    wrong = ("A" * 22, token[:-1] + ("A" if token[-1] != "A" else "B"), "..%2F..%2Fetc", "x")
    for path in [*(f"/g/{t}" for t in wrong), "/", "/g/", f"/g/{token}/nothing"]:
        async with http.get(url(server, path)) as response:
            assert response.status == 404, path
            assert "Content-Security-Policy" in response.headers
    async with http.get(url(server, f"/g/{game.id}")) as response:  # an id is no token
        assert response.status == 404


async def test_a_server_that_turned_pages_off_gets_404(
    store: SqlStorage, server: WebServer, http: aiohttp.ClientSession
) -> None:
    game = await new_game(store, "tonttu", 3, guild=7)
    path = await page_of(store, game.id)
    await store.set_guild_web_links(7, False)
    for suffix in ("", "/replay", "/events", "/replay/0.json"):
        async with http.get(url(server, path + suffix)) as response:
            assert response.status == 404, suffix


async def test_the_language_is_the_servers_unless_the_link_asks(
    store: SqlStorage, server: WebServer, http: aiohttp.ClientSession
) -> None:
    game = await new_game(store, "workshop", 2, guild=3)
    path = await page_of(store, game.id)
    await store.set_guild_language(3, "de")
    async with http.get(url(server, path)) as response:
        german = await response.text()
    async with http.get(url(server, path + "?lang=en")) as response:
        english = await response.text()
    assert '<html lang="de">' in german and "Züge" in german
    assert '<html lang="en">' in english and "Moves" in english
    async with http.get(url(server, path + "?lang=xx")) as response:
        assert '<html lang="de">' in await response.text()  # an unknown one: the server's


async def read_event(stream: aiohttp.StreamReader) -> tuple[str, dict[str, str]]:
    """The next event of a Server-Sent Events stream: (its id, its fields)."""
    fields: dict[str, str] = {}
    while True:
        line = (await asyncio.wait_for(stream.readline(), 10)).decode().rstrip("\n")
        if not line:
            if "data" in fields:
                return fields.get("id", ""), fields
            continue
        if line.startswith(":"):
            continue
        name, _, value = line.partition(": ")
        fields[name] = value


async def test_a_stream_sends_each_new_move_and_skips_what_the_page_shows(
    store: SqlStorage, server: WebServer, http: aiohttp.ClientSession
) -> None:
    game = await new_game(store, "workshop", 2)
    path = await page_of(store, game.id)
    async with http.get(url(server, path + "/events")) as response:
        assert response.headers["Content-Type"] == "text/event-stream"
        first_id, first = await read_event(response.content)
        assert first_id.startswith("0-active") and "Move 0" in json.loads(first["data"])["html"]
        game = await play(store, game, 1)
        server.live.poke(game.id)  # another process's move: found by the poll alike
        second_id, second = await read_event(response.content)
        assert second_id.startswith("1-active")
        assert "Move 1" in json.loads(second["data"])["html"]
    # a page that reconnects with what it shows gets nothing until the next move
    async with http.get(
        url(server, path + "/events"), headers={"Last-Event-ID": second_id}
    ) as response:
        reading = asyncio.ensure_future(read_event(response.content))
        await asyncio.sleep(0.3)
        assert not reading.done()
        await play(store, game, 1, seed=4)
        third_id, _ = await asyncio.wait_for(reading, 10)
        assert third_id.startswith("2-active")


async def test_a_finished_game_has_final_scores_a_chart_and_its_replay(
    store: SqlStorage, server: WebServer, http: aiohttp.ClientSession
) -> None:
    game = await finish(store, await new_game(store, "tonttu", 3))
    path = await page_of(store, game.id)
    async with http.get(url(server, path)) as response:
        text = await response.text()
    assert "Final scores" in text and 'data-over="yes"' in text
    async with http.get(url(server, path + "/chart.png")) as response:
        assert response.status == 200 and response.content_type == "image/png"
        assert (await response.read()).startswith(b"\x89PNG")
    async with http.get(url(server, path + "/replay?step=2")) as response:
        text = await response.text()
    assert "Move 2 of" in text and 'data-step="2"' in text
    async with http.get(url(server, path + "/replay/99999.json")) as response:
        last = await response.json()
    assert last["step"] == last["steps"] > 0
    assert "Final scores" in last["html"]


async def test_a_finished_workshop_board_says_nothing_waits_for_an_inspection(
    store: SqlStorage, server: WebServer, http: aiohttp.ClientSession
) -> None:
    """After Day 6's inspection no toy waits for another: the board does not say so."""
    game = await new_game(store, "workshop", 2)
    async with http.get(url(server, await page_of(store, game.id))) as response:
        assert "awaiting inspection" in await response.text()
    game = await finish(store, game)
    async with http.get(url(server, await page_of(store, game.id))) as response:
        text = await response.text()
    assert "Final scores" in text and "awaiting inspection" not in text


async def test_a_flood_from_one_address_is_slowed_and_others_are_served(
    store: SqlStorage, server: WebServer, http: aiohttp.ClientSession
) -> None:
    game = await new_game(store, "workshop", 2)
    path = url(server, await page_of(store, game.id))
    statuses = []
    for _ in range(BURST + 10):
        async with http.get(path) as response:
            statuses.append(response.status)
    assert statuses[:BURST] == [200] * BURST and statuses[-1] == 429
    other = {"X-Forwarded-For": "203.0.113.9"}  # behind a proxy on this machine
    async with http.get(path, headers=other) as response:
        assert response.status == 200


async def test_a_page_loaded_again_shows_the_game_as_it_is_now(
    store: SqlStorage, server: WebServer, http: aiohttp.ClientSession
) -> None:
    """A page nobody follows yet is drawn for the game's stored version, not kept."""
    game = await new_game(store, "workshop", 2)
    path = url(server, await page_of(store, game.id))
    async with http.get(path) as response:
        assert "Move 0" in await response.text()
    await play(store, game, 2)
    async with http.get(path) as response:
        assert "Move 2" in await response.text()


async def test_the_log_shows_the_last_moves_as_they_come(
    store: SqlStorage, server: WebServer, http: aiohttp.ClientSession
) -> None:
    game = await new_game(store, "workshop", 2)
    path = url(server, await page_of(store, game.id))
    for moves in (3, 30, 12):  # read in steps: what was read before is kept
        game = await play(store, game, moves, seed=moves)
        async with http.get(path) as response:
            text = await response.text()
        assert f'<li value="{game.version}">' in text
    assert '<li value="6">' in text and '<li value="5">' not in text  # the last 40
