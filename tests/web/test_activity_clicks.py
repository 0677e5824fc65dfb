"""Clicks in the Discord Activity that the whole-game and privacy tests do not make, in
headless Chromium behind the harness that plays Discord's client (the real bot against
the fake Discord):

- Santa's Workshop: a move clicked on the board, then the Activity's Undo button: the
  page's board and the stored game go back (an undo entry in the log, the version on),
  and the thread shows it as it shows the panel's Undo;
- Workshop Tonttu: the simultaneous reveal animated in both players' pages at once (no
  card ``.revealed`` before the last pick, the picks ``.revealed`` in both after it);
- Workshop Tonttu in speed mode: a race target clicked counts (the first valid click
  wins, stored), and a second click on the same card afterwards, from a page that still
  shows it, gets the very sentence a race button gets.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from engine import get_game
from engine.tonttu.game import still_open
from storage import human_player
from tests.e2e.bot_helpers import add_computer, start_activity_bot
from tests.e2e.fake_discord import FakeDiscord
from tests.web.test_activity_page import bundle, chromium_for, discord_around, fake, open_activity
from tests.web.test_activity_privacy import (
    both_at_rest,
    click_first_choice,
    players,
    quiet_browser_logs,
    wait_for_phase,
)

__all__ = ["bundle", "fake"]  # fixtures: the Activity's script (built once), the fake Discord

REVEALED = "return document.querySelectorAll('#board .revealed').length"
VERSION = "return document.getElementById('activity').dataset.version"
NOTE = "const note = document.getElementById('note');return note.hidden ? '' : note.textContent"


async def test_a_workshop_move_clicked_then_undone_with_the_activitys_undo(
    bundle: Path, fake: FakeDiscord, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    quiet_browser_logs(caplog)
    bot = await start_activity_bot(fake, f"sqlite:///{tmp_path}/bot.db", 20261208)
    aino = fake.add_user("Aino")
    lobby = (await fake.slash(aino, fake.channel, "newgame", game="workshop")).message
    assert lobby is not None
    await add_computer(fake, aino, lobby, "random")
    await fake.click(aino, lobby, "Start")
    (thread,) = fake.threads(fake.channel)
    game = await bot.store.find_open(fake.channel.id)
    assert game is not None and bot.web is not None
    rules = get_game("workshop")
    async with discord_around(fake, bot.web.port) as client, chromium_for(client) as browser:
        await open_activity(browser, client, fake, aino, fake.channel.id)
        await browser.wait_until(
            "document.querySelector('#board .clickable')"
            " && !document.getElementById('board').classList.contains('busy')",
            timeout=30,
        )
        before = await bot.store.load(game.id)
        assert rules.to_act(before.state) == {human_player(aino.id)}
        board_before = await browser.run("return document.getElementById('board').innerHTML")
        assert str(before.version) == await browser.run(VERSION)
        assert await browser.run("return document.getElementById('undo').hidden")

        # a move by a click on the board (its menu's first choice if it has several)
        await browser.click("#board .clickable")
        if await browser.run("return document.getElementById('menu').open"):
            await browser.click("#menu button.choice")
        await browser.wait_until(
            f"document.getElementById('activity').dataset.version === '{before.version + 1}'"
            " && !document.getElementById('board').classList.contains('busy')"
        )
        moved = await bot.store.load(game.id)
        assert moved.version == before.version + 1 and moved.state != before.state
        assert await browser.run("return document.getElementById('board').innerHTML") != (
            board_before
        )

        # the Undo button takes it back
        assert not await browser.run("return document.getElementById('undo').hidden")
        await browser.click("#undo")
        await browser.wait_until(
            f"document.getElementById('activity').dataset.version === '{before.version + 2}'"
            " && !document.getElementById('board').classList.contains('busy')"
        )
        note = await browser.run(NOTE)
        assert note.startswith("You took back: "), note
        assert not await browser.run("return document.querySelector('#note.refused')")
        undone = await bot.store.load(game.id)
        assert undone.version == before.version + 2 and undone.state == before.state
        log = await bot.store.log(game.id)
        assert dict(log[-1].action) == {"kind": "undo", "seq": before.version + 1}
        assert log[-1].player == human_player(aino.id)
        # the page's board is the board before the move, and nothing to take back
        assert await browser.run("return document.getElementById('board').innerHTML") == (
            board_before
        )
        assert await browser.run("return document.getElementById('undo').hidden")
        assert await browser.console_errors() == []

    # the thread shows it as it shows the panel's Undo: "Aino took back: places an Elf…"
    assert note.startswith("You took back: place ")
    what = note.removeprefix("You took back: place ").split(";")[0].rstrip(".")
    await fake.wait_for(
        lambda: any(f"Aino took back: places {what}" in m.content for m in fake.messages(thread)),
        timeout=10,
        what="the public 'took back' line",
    )
    assert not fake.take_violations()


async def test_the_tonttu_reveal_shows_in_both_players_pages_only_after_the_last_pick(
    bundle: Path, fake: FakeDiscord, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """With a computer seat, which picks at once and points at once after the reveal: the
    pages, which ask for the table after the reveal's version, still mark the cards it
    turned up (they marked only the last move's, the computer's point: no reveal)."""
    quiet_browser_logs(caplog)
    bot = await start_activity_bot(fake, f"sqlite:///{tmp_path}/bot.db", 20261209)
    aino, bo = fake.add_user("Aino"), fake.add_user("Bo")
    lobby = (await fake.slash(aino, fake.channel, "newgame", game="tonttu")).message
    assert lobby is not None
    await fake.click(bo, lobby, "Join")
    await add_computer(fake, aino, lobby, "random")
    await fake.click(aino, lobby, "Start")
    await fake.wait_for(lambda: bool(fake.threads(fake.channel)), what="the game's thread")
    game = await bot.store.find_open(fake.channel.id)
    assert game is not None and bot.web is not None
    rules = get_game("tonttu")
    async with players(fake, bot.web.port, [aino, bo]) as seated:
        for player in seated:
            await open_activity(player.browser, player.client, fake, player.user, fake.channel.id)
        first, last = seated
        await both_at_rest(seated, bot.store, game.id)
        for player in seated:
            assert await player.browser.run(REVEALED) == 0
        await click_first_choice(first)  # one pick of two: nothing is revealed
        await both_at_rest(seated, bot.store, game.id)
        state = (await bot.store.load(game.id)).state
        assert state.phase == "pick" and rules.to_act(state) == {last.seat}
        for player in seated:
            assert await player.browser.run(REVEALED) == 0
        await click_first_choice(last)  # the last pick reveals them all, in both pages
        await wait_for_phase(bot.store, game.id, "point")
        computer = next(s.player for s in game.seats if s.is_ai)
        for _ in range(100):  # the computer points at once after the reveal
            if computer not in rules.to_act((await bot.store.load(game.id)).state):
                break
            await asyncio.sleep(0.05)
        after = (await bot.store.load(game.id)).version
        assert any(e.player == computer for e in await bot.store.log(game.id, after=after - 1))
        for player in seated:
            await player.browser.wait_until(
                f"Number(document.getElementById('activity').dataset.version) >= {after}",
                timeout=10,
            )
            assert await player.browser.run(REVEALED) >= 3  # the picks, turned up
            assert await player.browser.console_errors() == []


FREEZE_TABLE_JS = """
// the page asks for no fresh table until released: it shows the race as it was
window.heldTables = [];
const real = window.fetch;
window.fetch = (path, options) => String(path).startsWith('api/table')
  ? new Promise(done => window.heldTables.push(() => done(real(path, options))))
  : real(path, options);
"""


async def test_a_speed_race_clicked_in_the_activity_and_a_late_click_told_as_a_buttons(
    bundle: Path, fake: FakeDiscord, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    quiet_browser_logs(caplog)
    bot = await start_activity_bot(fake, f"sqlite:///{tmp_path}/bot.db", 20261210)
    aino, bo, carol = fake.add_user("Aino"), fake.add_user("Bo"), fake.add_user("Carol")
    lobby = (
        await fake.slash(
            aino, fake.channel, "newgame", game="tonttu", mode="speed", speed_seconds=60
        )
    ).message
    assert lobby is not None
    for user in (bo, carol):
        await fake.click(user, lobby, "Join")
    await fake.click(aino, lobby, "Start")
    await fake.wait_for(lambda: bool(fake.threads(fake.channel)), what="the game's thread")
    game = await bot.store.find_open(fake.channel.id)
    assert game is not None and bot.web is not None
    rules = get_game("tonttu")
    async with players(fake, bot.web.port, [aino, bo]) as seated:
        for player in seated:
            await open_activity(player.browser, player.client, fake, player.user, fake.channel.id)
        one, two = seated
        # the picks: Carol's without a page, then Aino's and Bo's by clicks
        game = await bot.store.load(game.id)
        carols = human_player(carol.id)
        await bot.tables.submit_checked(
            game.id, carols, rules.legal_actions(game.state, carols)[0], still_open(1, "pick")
        )
        await both_at_rest(seated, bot.store, game.id)
        await click_first_choice(one)
        await both_at_rest(seated, bot.store, game.id)
        await click_first_choice(two)
        await wait_for_phase(bot.store, game.id, "point")
        await both_at_rest(seated, bot.store, game.id)
        racing = await bot.store.load(game.id)
        assert racing.state.mode == "speed"
        targets = await one.browser.run(
            "return [...document.querySelectorAll('#board .clickable')].map(e => e.dataset.target)"
        )
        target = next(t for t in targets if t.startswith("material:"))
        assert target in await two.browser.run(
            "return [...document.querySelectorAll('#board .clickable')].map(e => e.dataset.target)"
        )
        await two.browser.run(FREEZE_TABLE_JS)

        # Aino clicks first: she takes the card, stored
        css = f"#board .clickable[data-target='{target}']"
        await one.browser.click(css)
        await one.browser.wait_until(
            f"document.getElementById('activity').dataset.version !== '{racing.version}'"
            " && !document.getElementById('board').classList.contains('busy')"
        )
        note = await one.browser.run(NOTE)
        slot = int(target.split(":")[1])
        assert note.startswith("You pointed.") and "Aino took it" in note, note
        assert not await one.browser.run("return document.querySelector('#note.refused')")
        taken = await bot.store.load(game.id)
        assert taken.state.middle_materials[slot] is None
        seat = taken.players.index(human_player(aino.id))
        assert taken.state.choices[seat] is not None

        # Bo's page still shows the card: his click comes second and is told as a button is
        assert await two.browser.run(f'return Boolean(document.querySelector("{css}"))'), (
            "Bo's page moved on"
        )
        await two.browser.click(css)
        await two.browser.wait_until("document.querySelector('#note.refused')")
        told = await two.browser.run(NOTE)
        cog: Any = bot.get_cog("Tonttu")
        action = next(
            a
            for a in rules.legal_actions(racing.state, human_player(bo.id))
            if getattr(a, "kind", "") == "point_material" and a.slot == slot
        )
        expected = await cog._too_late(game.id, racing.state.round, action)
        assert expected == f"Too late: Aino already took face-down material {slot + 1}."
        assert told == expected
        after = await bot.store.load(game.id)
        assert after.version == taken.version  # nothing stored for Bo
        assert after.state.choices[after.players.index(human_player(bo.id))] is None
        await two.browser.run("window.heldTables.forEach(go => go())")
        for player in seated:
            assert await player.browser.console_errors() == []
