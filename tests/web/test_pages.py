"""The pages in a real headless Chromium, as a spectator reads them: what a Tonttu page
keeps secret, catching up after a restart, stepping through a replay, the phone's and
the desktop's sizes, German, and the golden screenshots of each kind of page."""

from __future__ import annotations

import asyncio
from pathlib import Path

from engine import get_game
from storage import SqlStorage
from tables.pictures import Pictures
from tests.web.browser import AsyncBrowser
from tests.web.games import finish, new_game, play
from tests.web.golden import assert_matches_golden
from web.server import WebServer

AREAS_WITHOUT_STATUS = """
return Array.from(document.querySelectorAll('.board-players .area')).map(function (area) {
  var copy = area.cloneNode(true);
  copy.classList.remove('acting');
  copy.querySelectorAll('.badge').forEach(function (badge) { badge.remove(); });
  return copy.outerHTML;
});
"""
"""Each player's area as HTML, without what says whether they have chosen."""
FROZEN_TIMES = """
document.querySelectorAll('time').forEach(function (t) {
  t.className = '';
  t.textContent = '12:00';
});
"""
"""The times a page keeps current, stopped at one text (for a screenshot)."""


def address(server: WebServer, token: str, rest: str = "") -> str:
    return f"http://127.0.0.1:{server.port}/g/{token}{rest}"


async def shown_version(browser: AsyncBrowser) -> int:
    shown = await browser.run("return document.getElementById('table').dataset.shown")
    return int(str(shown).split("-")[0])


async def wait_for_version(browser: AsyncBrowser, version: int) -> None:
    await browser.wait_until(
        f"document.getElementById('table').dataset.shown.startsWith('{version}-')"
    )


REVEALED = "return document.querySelectorAll('.board .revealed').length"


async def test_a_tonttu_page_never_shows_a_pick_before_the_reveal(
    store: SqlStorage, server: WebServer, browser: AsyncBrowser
) -> None:
    rules = get_game("tonttu")
    game = await new_game(store, "tonttu", 3)
    await browser.open(address(server, await store.web_token(game.id)))
    before = await browser.run(AREAS_WITHOUT_STATUS)
    first, second, last = game.players
    for player in (first, second):  # two of three pick in secret
        action = rules.legal_actions(game.state, player)[-1]
        await store.submit(game.id, player, action, game.version)
        game = await store.load(game.id)
    await wait_for_version(browser, game.version)
    assert game.state is not None and rules.to_act(game.state) == {last}
    assert await browser.run(AREAS_WITHOUT_STATUS) == before  # nothing but "picked"
    assert await browser.texts(".board-players .badge") != []
    assert await browser.run(REVEALED) == 0
    # the last pick reveals them all, at once
    action = rules.legal_actions(game.state, last)[-1]
    await store.submit(game.id, last, action, game.version)
    game = await store.load(game.id)
    await wait_for_version(browser, game.version)
    assert await browser.run(AREAS_WITHOUT_STATUS) != before
    assert await browser.run(REVEALED) >= 3  # the three picks, animated for every watcher
    assert await browser.console_errors() == []


async def test_a_page_reconnects_and_catches_up_across_a_restart(
    store: SqlStorage, browser: AsyncBrowser
) -> None:
    game = await new_game(store, "workshop", 2)
    token = await store.web_token(game.id)
    first = WebServer(store, Pictures(), port=0)
    port = await first.start()
    await browser.open(address(first, token))
    await wait_for_version(browser, 0)
    assert await browser.run("return document.getElementById('connection').hidden")
    await first.stop()  # the bot stops: the page says it is reconnecting
    await browser.wait_until("!document.getElementById('connection').hidden")
    game = await play(store, game, 3)  # moves made meanwhile (another process, say)
    second = WebServer(store, Pictures(), port=port)
    await second.start()
    try:
        await wait_for_version(browser, 3)
        await browser.wait_until("document.getElementById('connection').hidden")
        assert "Move 3" in await browser.text("#table .move-count")
        game = await play(store, game, 1, seed=8)  # and it follows on
        await wait_for_version(browser, 4)
    finally:
        await second.stop()


async def test_the_replay_steps_by_buttons_keys_and_slider_and_links_to_a_move(
    store: SqlStorage, server: WebServer, browser: AsyncBrowser
) -> None:
    game = await finish(store, await new_game(store, "workshop", 2))
    moves = game.version
    await browser.open(address(server, await store.web_token(game.id), "/replay?step=5"))
    assert await browser.text("#where") == f"Move 5 of {moves}"
    await browser.click('a.step[data-to="next"]')
    await browser.wait_for_text("#where", f"Move 6 of {moves}")
    await browser.press("ArrowLeft")
    await browser.press("ArrowLeft")
    await browser.wait_for_text("#where", f"Move 4 of {moves}")
    await browser.run(
        "var s = document.getElementById('slider'); s.value = '20';"
        "s.dispatchEvent(new Event('input'));"
    )
    await browser.wait_for_text("#where", f"Move 20 of {moves}")
    assert "step=20" in await browser.run("return location.search")
    await browser.press("End")
    await browser.wait_for_text("#where", f"Move {moves} of {moves}")
    assert "Final scores" in await browser.text("#shown")
    await browser.click('a.step[data-to="first"]')
    await browser.wait_for_text("#shown", "The table before the first move.")
    assert await browser.console_errors() == []


async def test_every_page_fits_a_phone_and_a_board_fits_a_desktop_screen(
    store: SqlStorage, server: WebServer, browser: AsyncBrowser
) -> None:
    workshop = await play(store, await new_game(store, "workshop", 5, channel=1), 130)
    tonttu = await play(store, await new_game(store, "tonttu", 6, channel=2), 20)
    ended = await finish(store, await new_game(store, "workshop", 3, channel=3))
    pages = [
        address(server, await store.web_token(workshop.id)),
        address(server, await store.web_token(tonttu.id)),
        address(server, await store.web_token(ended.id)),
        address(server, await store.web_token(ended.id), "/replay?step=40"),
    ]
    for page in pages:
        await browser.open(page)
        assert await browser.horizontal_overflow() == 0, page
        assert await browser.smallest_font_px() >= 12, (page, await browser.smallest_text())
    await browser.resize(1280, 900)
    for page in pages[:2]:
        await browser.open(page)
        height = await browser.run(
            "return document.querySelector('.board-area').getBoundingClientRect().height"
        )
        assert height <= 900, (page, height)
    assert await browser.console_errors() == []


async def test_a_german_page_speaks_german(
    store: SqlStorage, server: WebServer, browser: AsyncBrowser
) -> None:
    game = await play(store, await new_game(store, "workshop", 3, guild=4), 20)
    await store.set_guild_language(4, "de")
    await browser.open(address(server, await store.web_token(game.id)))
    text = await browser.text("body")
    assert "Züge" in text and "Zug 20" in text and "Tag 1 von 6" in text
    assert "Moves" not in text and "Day 1" not in text


async def golden(browser: AsyncBrowser, url: str, name: str) -> None:
    """Screenshots of a page at a phone's width (the whole page) and a desktop's (the
    first screen), compared with their goldens."""
    for width, height in ((390, 844), (1280, 900)):
        await browser.resize(width, height)
        await browser.open(url)
        await browser.run(FROZEN_TIMES)
        await browser.wait_until(
            "Array.from(document.images).every(function (i) { return i.complete; })"
        )
        shot = await browser.screenshot(full_page=width < 1000)
        assert_matches_golden(f"{name}-{width}", shot)


async def test_each_kind_of_page_looks_as_it_did(
    store: SqlStorage, server: WebServer, browser: AsyncBrowser, tmp_path: Path
) -> None:
    workshop = await play(store, await new_game(store, "workshop", 5, channel=1), 130)
    tonttu = await play(store, await new_game(store, "tonttu", 6, channel=2), 20)
    ended = await finish(store, await new_game(store, "workshop", 3, channel=3))
    await asyncio.gather(*(store.web_token(g.id) for g in (workshop, tonttu, ended)))
    await golden(browser, address(server, await store.web_token(workshop.id)), "workshop-live")
    await golden(browser, address(server, await store.web_token(tonttu.id)), "tonttu-live")
    await golden(browser, address(server, await store.web_token(ended.id)), "workshop-final")
    replay = address(server, await store.web_token(ended.id), "/replay?step=60")
    await golden(browser, replay, "workshop-replay")
