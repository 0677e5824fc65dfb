"""A whole game of Santa's Workshop played in the Discord Activity by clicks alone.

The real bot against the fake Discord (its web server, its table core, its computer
seats), the Activity in headless Chromium inside the harness that plays Discord's client
(``tests/web/activity_harness.py``: the real Embedded App SDK, Discord's proxy). One
player against an easy computer player clicks the board as a player would, every
decision of the game: a target with one choice, a target with several (its menu), and
the row of choices the board does not draw (``stop``), picked by a seeded random among
what the page makes clickable. The thread in the fake Discord then shows the same final
scores as the stored game, as the engine replaying the stored moves from the seed, and as
the page's final board (which it keeps once the game is over).
Meanwhile the client secret is in no answer the page received and in no log record of
the bot, and Discord's access token only in the sign-in's answer.
"""

from __future__ import annotations

import random
import time
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from engine import get_game
from tests.e2e.bot_helpers import add_computer, shown_scores, start_activity_bot
from tests.e2e.fake_discord import FakeDiscord
from tests.web.browser import AsyncBrowser
from tests.web.test_activity_page import (
    bundle,
    chromium_for,
    discord_around,
    fake,
    open_activity,
)
from tests.web.test_activity_privacy import assert_secrets_kept, quiet_browser_logs

__all__ = ["bundle", "fake"]  # fixtures: the Activity's script (built once), the fake Discord

SEED = 20261206
CHOOSER = 7
"""The seed of the player's picks among what the page offers."""

LOOK_JS = """
const root = document.getElementById('activity');
const board = document.getElementById('board');
const note = document.getElementById('note');
return {
  state: root.dataset.state, version: root.dataset.version || '',
  busy: board.classList.contains('busy'),
  prompt: document.getElementById('prompt').textContent,
  refused: note.classList.contains('refused') && !note.hidden ? note.textContent : '',
  targets: [...board.querySelectorAll('.clickable')].map(
    e => [e.dataset.target, e.classList.contains('several')]),
  row: [...document.querySelectorAll('#choices button')].map(b => b.dataset.index),
};
"""

CHOICES_SHOWN = (
    "document.querySelector('#board .clickable, #choices button')"
    " && !document.getElementById('board').classList.contains('busy')"
)


async def test_a_whole_workshop_game_clicked_on_the_board_ends_with_the_threads_scores(
    bundle: Path, fake: FakeDiscord, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    quiet_browser_logs(caplog)
    bot = await start_activity_bot(fake, f"sqlite:///{tmp_path}/bot.db", SEED)
    assert bot.web is not None
    aino = fake.add_user("Aino")
    lobby = (await fake.slash(aino, fake.channel, "newgame", game="workshop")).message
    assert lobby is not None
    await add_computer(fake, aino, lobby, "random")  # the easy computer: the fastest
    await fake.click(aino, lobby, "Start")
    (thread,) = fake.threads(fake.channel)
    await fake.wait_for(
        lambda: bool(fake.messages(thread)), timeout=15, what="the game's thread to open"
    )
    game = await bot.store.find_open(fake.channel.id)
    assert game is not None and game.state is not None
    began = time.perf_counter()
    async with discord_around(fake, bot.web.port) as client, chromium_for(client) as browser:
        await open_activity(browser, client, fake, aino, fake.channel.id)
        places: Counter[str] = Counter()
        clicks = await play_by_clicks(browser, random.Random(CHOOSER), places)
        # the page keeps the final board (not "no game in this channel")
        page_scores = await browser.run(
            "return [...document.querySelectorAll('#board .area')].map(a => ["
            "a.querySelector('.area-name').textContent, a.querySelector('.score').textContent])"
        )
        assert await browser.console_errors() == []
    played_for = time.perf_counter() - began

    # the stored game is over, and the engine replaying its moves from the seed agrees
    final = await bot.store.load(game.id)
    assert final.status == "finished"
    rules = get_game("workshop")
    assert final.seed is not None
    outcome = rules.outcome(final.state)
    assert outcome is not None
    state = rules.new_game(list(final.players), final.seed, rules.parse_options(final.options))
    entries = await bot.store.log(game.id)
    for entry in entries:
        state, _ = rules.apply(state, entry.player, rules.parse_action(entry.action))
    replayed = rules.outcome(state)
    assert replayed is not None and replayed.scores == outcome.scores
    mine = [e for e in entries if e.player == str(aino.id)]
    assert sum(clicks.values()) - clicks["refused"] == len(mine)
    # every kind of place was clicked: a target, a target's menu, the row under the board
    assert clicks["target"] and clicks["menu"] and clicks["row"], clicks
    # on the parts of the board a game uses (W-3, W-4): the shops' and stations' spaces,
    # the Mail Room, the stables, the Donation Center, ornaments, the tree, the toys
    parts = {"station", "mail", "stall", "donation", "ornament", "tree", "toy"}
    assert parts <= set(places), places

    # the thread ends with the same final scores
    await fake.wait_for(
        lambda: any("final scores" in m.text() for m in fake.messages(thread)),
        timeout=20,
        what="the final scores in the thread",
    )
    posted = next(m for m in fake.messages(thread) if "final scores" in m.text())
    scores = {final.names[p]: s for p, s in outcome.scores.items()}
    assert shown_scores(posted) == scores
    assert {name: int(score.split()[0]) for name, score in page_scores} == scores
    assert not fake.take_violations()
    assert_secrets_kept([client], fake, caplog.records)
    print(  # the figure CI keeps an eye on (not asserted: time is not a test's business)
        f"\nwhole game by clicks: {len(mine)} moves of Aino's, {len(entries)} in all, "
        f"{played_for:.1f} s in Chromium ({dict(clicks)}; at {dict(places)})"
    )


async def click_in_view(browser: AsyncBrowser, css: str) -> None:
    """Scroll the element to the middle of the screen, as a player brings what they
    mean to click into view (the row of choices stays at the bottom of a phone's
    screen, over the board's last line), and click it."""
    await browser.run("document.querySelector(arguments[0]).scrollIntoView({block: 'center'})", css)
    await browser.click(css)


async def play_by_clicks(
    browser: AsyncBrowser, chance: random.Random, places: Counter[str]
) -> Counter[str]:
    """Play the signed-in seat to the end of the game by clicking what the page makes
    clickable (the Activity's frame entered); the clicks by kind (``target``: a target
    with one choice, ``menu``: one with several, ``row``: a button under the board;
    ``refused``: clicks the server refused, e.g. a table shown a moment too long);
    ``places`` counts the board's areas clicked (a target's first part: ``station``,
    ``mail``, ``toy``, ``tree``...)."""
    clicks: Counter[str] = Counter()
    while True:
        look = await browser.run(LOOK_JS)
        if look["prompt"].startswith("This game is over."):
            return clicks
        if look["busy"] or not (look["targets"] or look["row"]):
            try:
                await browser.wait_until(
                    f"({CHOICES_SHOWN}) || document.getElementById('prompt').textContent"
                    ".startsWith('This game is over.')",
                    timeout=60,
                )
            except AssertionError as error:
                raise AssertionError(f"{error}; the page: {await browser.run(LOOK_JS)}") from None
            continue
        before = look["version"]
        options: list[tuple[str, Any]] = [("target", t) for t in look["targets"]]
        options += [("row", index) for index in look["row"]]
        kind, what = chance.choice(options)
        if kind == "row":
            await click_in_view(browser, f"#choices button[data-index='{what}']")
        else:
            target, several = what
            places[target.split(":")[0]] += 1
            await click_in_view(browser, f"#board .clickable[data-target='{target}']")
            if several:
                await browser.wait_until("document.getElementById('menu').open")
                count = await browser.run(
                    "return document.querySelectorAll('#menu button.choice').length"
                )
                await browser.click(
                    f"#menu button.choice:nth-of-type({1 + chance.randrange(count)})"
                )
                kind = "menu"
        await browser.wait_until(
            "!document.getElementById('board').classList.contains('busy') && ("
            f"document.getElementById('activity').dataset.version !== '{before}'"
            " || document.querySelector('#note.refused'))",
            timeout=20,
        )
        after = await browser.run(LOOK_JS)
        clicks["refused" if after["refused"] else kind] += 1
