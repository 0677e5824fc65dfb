"""The Discord Activity's page in headless Chromium, with Discord's real Embedded App SDK
(bundled by ``web/activity/build.sh``) running unmodified inside the harness that plays
Discord's client (``tests/web/activity_harness.py``): the page is framed by
``https://discord.com`` and served from ``https://<client id>.discordsays.com`` through a
proxy to the bot's ``/activity/``, as Discord serves it; the sign-in goes through the
fake Discord's OAuth2.

A seated player sees the board with their choices clickable where they sit and makes a
move by clicking it; a spectator's page has nothing to click; screenshots at phone and
desktop size are compared with ``tests/web/golden/``.
"""

from __future__ import annotations

import asyncio
import contextlib
import random
import subprocess
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import aiohttp
import pytest

import i18n
from cogs.helpers.gates import SLOW_DOWN
from engine import get_game
from engine.words import ENGLISH
from storage import LoadedGame, SqlStorage
from tables.pictures import Pictures
from tables.service import Tables, choices_for
from tests.e2e.bot_helpers import open_table, start_activity_bot
from tests.e2e.fake_discord import FakeDiscord
from tests.e2e.fake_discord.model import FakeUser
from tests.web.activity_harness import DiscordClient, Launch
from tests.web.browser import AsyncBrowser, Browser, ChromiumMissing
from tests.web.golden import assert_matches_golden
from web.activity import ActivityOptions
from web.discord_sign_in import SESSION_SECONDS
from web.page import move_lines
from web.server import WebServer

ROOT = Path(__file__).resolve().parents[2]
BUNDLE = ROOT / "web" / "static" / "activity.js"
CHANNEL = 4242

CLICKABLE_JS = """
return [...document.querySelectorAll('#board .clickable')].map(e => ({
  target: e.dataset.target, label: e.getAttribute('aria-label'),
  menu: e.classList.contains('several')}));
"""


@pytest.fixture(scope="session")
def bundle() -> Path:
    """The Activity's script, built (or found current) by the build script."""
    done = subprocess.run(
        ["bash", str(ROOT / "web" / "activity" / "build.sh")],
        capture_output=True,
        text=True,
        check=False,
        timeout=300,
    )
    if not BUNDLE.is_file():
        pytest.fail(f"web/static/activity.js was not built: {done.stdout}{done.stderr}")
    return BUNDLE


@pytest.fixture
async def fake() -> AsyncIterator[FakeDiscord]:
    async with FakeDiscord() as running:
        yield running


@pytest.fixture
def flooding() -> set[int]:
    """Users the flood guard refuses (the bot's own guard, in the bot)."""
    return set()


class Clock:
    """The sessions' clock, which a test moves on."""

    def __init__(self) -> None:
        self.now = time.time()

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
async def activity_server(
    bundle: Path, store: SqlStorage, fake: FakeDiscord, flooding: set[int], clock: Clock
) -> AsyncIterator[WebServer]:
    """The bot's web server with the Activity on, signing in through the fake Discord."""
    options = ActivityOptions(
        client_id=fake.application_id,
        client_secret=fake.oauth.client_secret,
        tables=Tables(store),
        api=fake.api_base,
        bot_token=fake.token,
        flood=lambda user: SLOW_DOWN if user in flooding else None,
        clock=clock,
    )
    web = WebServer(store, Pictures(), port=0, activity=options)
    web.live.poll = 0.02
    await web.start()
    try:
        yield web
    finally:
        await web.stop()


@contextlib.asynccontextmanager
async def discord_around(fake: FakeDiscord, web_port: int) -> AsyncIterator[DiscordClient]:
    """Discord's client around the Activity of the bot's web server at ``web_port``."""
    async with (
        aiohttp.ClientSession() as http,
        DiscordClient(
            fake.application_id,
            f"http://127.0.0.1:{web_port}",
            authorize=lambda user_id, scopes: _code(fake, user_id, scopes),
            authenticate=lambda token: _me(http, fake, token),
            instance=lambda launch: _instance(fake, launch),
        ) as running,
    ):
        yield running


def _instance(fake: FakeDiscord, launch: Launch) -> str:
    """The Activity's instance in the launch's channel: started by the first user there,
    joined by the others (the bot asks the fake Discord which channel and users)."""
    for instance, running in fake.oauth.instances.items():
        if running["location"]["channel_id"] == str(launch.channel_id):
            fake.oauth.join_activity(instance, launch.user_id)
            return instance
    return fake.oauth.start_activity(launch.channel_id, launch.user_id, guild_id=launch.guild_id)


async def _code(fake: FakeDiscord, user_id: int, scopes: list[str]) -> str:
    return fake.oauth.authorize(fake.users[user_id], tuple(scopes))


async def _me(http: aiohttp.ClientSession, fake: FakeDiscord, token: str) -> dict[str, Any] | None:
    headers = {"Authorization": f"Bearer {token}"}
    async with http.get(f"{fake.api_base}/users/@me", headers=headers) as response:
        return await response.json() if response.status == 200 else None


@contextlib.asynccontextmanager
async def chromium_for(client: DiscordClient) -> AsyncIterator[AsyncBrowser]:
    """A Chromium of its own that finds Discord's names on this machine."""
    try:
        sync = await asyncio.to_thread(Browser.start, flags=client.flags())
    except ChromiumMissing as missing:
        pytest.fail(str(missing))
    try:
        yield AsyncBrowser(sync)
    finally:
        await asyncio.to_thread(sync.close)


@pytest.fixture
async def client(fake: FakeDiscord, activity_server: WebServer) -> AsyncIterator[DiscordClient]:
    async with discord_around(fake, activity_server.port) as running:
        yield running


@pytest.fixture
async def discord_browser(client: DiscordClient) -> AsyncIterator[AsyncBrowser]:
    async with chromium_for(client) as browser:
        yield browser


async def seat_game(store: SqlStorage, kind: str, users: list[FakeUser]) -> LoadedGame:
    lobby = await store.create_lobby(
        guild_id=1,
        channel_id=CHANNEL,
        kind=kind,
        options=None,
        host_id=users[0].id,
        host_name=users[0].name,
    )
    for user in users[1:]:
        await store.join(lobby.id, user.id, user.name)
    return await store.start(lobby.id, seed=5)


async def open_activity(
    browser: AsyncBrowser,
    client: DiscordClient,
    fake: FakeDiscord,
    user: FakeUser,
    channel: int = CHANNEL,
) -> None:
    """Start the Activity in the game's channel as ``user``, and look inside its frame
    once the SDK's handshake and sign-in are done."""
    launch = Launch(user.id, user.name, channel, fake.guild.id)
    await browser.open(client.url(launch))
    await browser.wait_until("window.harness && window.harness.authenticated", timeout=20)
    await browser.enter_frame("#activity")


async def test_a_seated_player_moves_by_clicking_the_board(
    store: SqlStorage,
    fake: FakeDiscord,
    client: DiscordClient,
    discord_browser: AsyncBrowser,
    flooding: set[int],
) -> None:
    aino, bo = fake.add_user("Aino"), fake.add_user("Bo")
    game = await seat_game(store, "workshop", [aino, bo])
    rules = get_game("workshop")
    (first,) = rules.to_act(game.state)
    player = aino if first == str(aino.id) else bo
    browser = discord_browser
    await open_activity(browser, client, fake, player)
    # the SDK spoke Discord's protocol: handshake, READY, AUTHORIZE, AUTHENTICATE
    await browser.leave_frame()
    harness = await browser.run("return window.harness")
    assert harness["handshake"]["client_id"] == str(fake.application_id)
    assert harness["handshake"]["sdk_version"] == "2.5.0"
    assert [c["cmd"] for c in harness["commands"]][:2] == ["AUTHORIZE", "AUTHENTICATE"]
    assert harness["commands"][0]["args"]["scope"] == ["identify"]
    assert harness["authenticated"] == str(player.id) and harness["errors"] == []
    await browser.enter_frame("#activity")
    await browser.wait_until("document.getElementById('activity').dataset.state === 'playing'")
    clickable = await browser.run(CLICKABLE_JS)
    legal = rules.legal_actions(game.state, first)
    targets = {rules.describe_choice(game.state, first, a).target for a in legal}
    assert clickable and {c["target"] for c in clickable} <= targets
    assert (await browser.text("#prompt")).startswith("Your move:")
    assert await browser.horizontal_overflow() == 0
    # everything the page loaded came through Discord's proxy, from the Activity's origin
    loaded = await browser.run(
        "return [location.href, ...performance.getEntriesByType('resource').map(e => e.name)]"
    )
    origin = f"https://{client.activity_host}/"
    assert len(loaded) > 4 and all(url.startswith(origin) for url in loaded), loaded
    # what a player sees in Discord, on a phone and on a desktop
    await browser.leave_frame()
    for width, height in ((390, 844), (1280, 800)):
        await browser.resize(width, height)
        assert_matches_golden(f"activity-workshop-{width}", await browser.screenshot())
    await browser.enter_frame("#activity")
    assert await browser.horizontal_overflow() == 0
    # a click the server refuses (the flood guard) says its sentence and changes nothing
    single = next(c for c in clickable if not c["menu"])
    flooding.add(player.id)
    await browser.click(f"#board .clickable[data-target='{single['target']}']")
    await browser.wait_for_text("#note.refused", "Slow down a little")
    assert (await store.load(game.id)).version == game.version
    flooding.clear()
    # one click on a target with one choice makes that move
    await browser.click(f"#board .clickable[data-target='{single['target']}']")
    await browser.wait_until(
        f"document.getElementById('activity').dataset.version !== '{game.version}'"
    )
    after = await store.load(game.id)
    assert after.version == game.version + 1
    assert single["label"] in await browser.text("#note")
    assert not await browser.run("return document.querySelector('#note.refused')")
    assert await browser.console_errors() == []


async def test_a_spectator_sees_the_live_board_and_nothing_to_click(
    store: SqlStorage,
    fake: FakeDiscord,
    client: DiscordClient,
    discord_browser: AsyncBrowser,
) -> None:
    aino, bo = fake.add_user("Aino"), fake.add_user("Bo")
    cai = fake.add_user("Cai", locale="de")  # Discord in German
    game = await seat_game(store, "workshop", [aino, bo])
    browser = discord_browser
    await open_activity(browser, client, fake, cai)
    await browser.wait_until("document.getElementById('activity').dataset.state === 'watching'")
    # the page speaks the user's language, as the server read it from their locale
    await browser.wait_until("document.documentElement.lang === 'de'")
    german = i18n.words("de")
    watching = german.gettext("You are watching: only the seated players can move.")
    await browser.wait_for_text("#seat", watching)
    assert await browser.run("return document.getElementById('connection').textContent") == (
        german.gettext("Reconnecting…")
    )
    await browser.wait_until("document.querySelector('#board [data-target]')")
    assert await browser.run(CLICKABLE_JS) == []
    assert (
        await browser.run(
            "return [...document.querySelectorAll("
            "'#board [tabindex], #board [role=button], #choices button')].length"
            " + (document.getElementById('undo').hidden ? 0 : 1)"
        )
        == 0
    )
    # a move made elsewhere (a button in the thread) shows here within a second
    rules = get_game("workshop")
    (first,) = rules.to_act(game.state)
    await Tables(store).choose(game.id, int(first), game.version, 0)
    started = asyncio.get_running_loop().time()
    await browser.wait_until(
        f"document.getElementById('activity').dataset.version === '{game.version + 1}'",
        timeout=5,
    )
    assert asyncio.get_running_loop().time() - started < 1.0
    assert await browser.run(CLICKABLE_JS) == []
    assert await browser.console_errors() == []
    # opened outside Discord (no frame_id, no SDK handshake), the page says where to start it
    await browser.leave_frame()
    await browser.open(f"https://{client.activity_host}/")
    await browser.wait_until("document.getElementById('activity').dataset.state === 'outside'")
    assert "start it in Discord" in await browser.text("#prompt")


async def test_a_target_with_several_choices_opens_a_menu_of_their_labels(
    store: SqlStorage,
    fake: FakeDiscord,
    client: DiscordClient,
    discord_browser: AsyncBrowser,
) -> None:
    aino, bo = fake.add_user("Aino"), fake.add_user("Bo")
    game = await seat_game(store, "workshop", [aino, bo])
    rules = get_game("workshop")
    chance = random.Random(11)
    while True:  # random moves until the player to act has a target with several choices
        (player,) = rules.to_act(game.state)
        legal = list(rules.legal_actions(game.state, player))
        targets = [rules.describe_choice(game.state, player, a).target for a in legal]
        several = next((t for t in targets if t and targets.count(t) > 1), None)
        if several is not None:
            break
        await store.submit(game.id, player, chance.choice(legal), game.version)
        game = await store.load(game.id)
    user = aino if player == str(aino.id) else bo
    browser = discord_browser
    await open_activity(browser, client, fake, user)
    await browser.wait_until("document.getElementById('activity').dataset.state === 'playing'")
    # every legal choice is on the page: at its target, or in the row under the board
    shown = await browser.run(
        "return [[...document.querySelectorAll('#board .clickable')].map(e => e.dataset.target),"
        " [...document.querySelectorAll('#choices button')].map(b => Number(b.dataset.index))]"
    )
    drawn = set(shown[0])
    assert len(drawn) == len(shown[0])  # a target is drawn once
    at_targets = [i for i, t in enumerate(targets) if t in drawn]
    assert sorted(at_targets + shown[1]) == list(range(len(legal)))
    assert several in drawn
    await browser.click(f"#board .clickable[data-target='{several}']")
    await browser.wait_until("document.getElementById('menu').open")
    assert await browser.texts("#menu .menu-heading, #menu .cancel") == ["Choose one", "Cancel"]
    offered = await browser.run(
        "return [...document.querySelectorAll('#menu button.choice')]"
        ".map(b => [Number(b.dataset.index), b.textContent])"
    )
    indices = [i for i, t in enumerate(targets) if t == several]
    assert [index for index, _ in offered] == indices
    labels = [choice.label for choice in choices_for(game, player)]
    assert [label for _, label in offered] == [labels[i] for i in indices]
    await browser.click(f"#menu button.choice[data-index='{indices[-1]}']")
    await browser.wait_until(
        f"document.getElementById('activity').dataset.version !== '{game.version}'"
    )
    after = await store.load(game.id)
    (played,) = await store.log(game.id, after=game.version)
    assert after.version == game.version + 1
    assert played.action == legal[indices[-1]].model_dump(mode="json")
    assert await browser.console_errors() == []


async def test_a_click_in_the_activity_shows_in_the_thread_as_a_button_move(
    bundle: Path, fake: FakeDiscord, tmp_path: Path
) -> None:
    bot = await start_activity_bot(fake, f"sqlite:///{tmp_path}/bot.db", 7)
    assert bot.web is not None
    aino, bo = fake.add_user("Aino"), fake.add_user("Bo")
    await open_table(fake, aino, [bo])
    (thread,) = fake.threads(fake.channel)
    game = await bot.store.find_open(fake.channel.id)
    assert game is not None and game.state is not None
    (first,) = get_game("workshop").to_act(game.state)
    player = aino if first == str(aino.id) else bo
    async with discord_around(fake, bot.web.port) as client, chromium_for(client) as browser:
        await open_activity(browser, client, fake, player, fake.channel.id)
        await browser.wait_until("document.getElementById('activity').dataset.state === 'playing'")
        clickable = await browser.run(CLICKABLE_JS)
        single = next(c for c in clickable if not c["menu"])
        await browser.click(f"#board .clickable[data-target='{single['target']}']")
        await browser.wait_until(
            f"document.getElementById('activity').dataset.version !== '{game.version}'"
        )
        (entry,) = await bot.store.log(game.id, after=game.version)
        lines = move_lines(game, entry, ENGLISH)
        assert lines
        # the thread says the move as it says a button's
        await fake.wait_for(
            lambda: any(lines[0] in m.text() for m in fake.messages(thread)),
            what=f"the thread to say {lines[0]!r}",
        )
        assert await browser.console_errors() == []
    assert not fake.take_violations()


async def test_a_tonttu_pick_by_click_can_be_changed_after_the_session_expired(
    store: SqlStorage,
    fake: FakeDiscord,
    client: DiscordClient,
    discord_browser: AsyncBrowser,
    clock: Clock,
) -> None:
    aino, bo, cai = fake.add_user("Aino"), fake.add_user("Bo"), fake.add_user("Cai")
    game = await seat_game(store, "tonttu", [aino, bo, cai])
    browser = discord_browser
    await open_activity(browser, client, fake, aino)
    await browser.wait_until("document.getElementById('activity').dataset.state === 'playing'")
    clickable = await browser.run(CLICKABLE_JS)
    assert len(clickable) >= 2, clickable
    for pick in clickable[:2]:  # a pick, then another: changeable until everyone has chosen
        before = await browser.run("return document.getElementById('activity').dataset.version")
        await browser.click(f"#board .clickable[data-target='{pick['target']}']")
        await browser.wait_until(
            f"document.getElementById('activity').dataset.version !== '{before}'"
        )
        assert "until everyone has chosen" in await browser.text("#note")
        assert not await browser.run("return document.querySelector('#note.refused')")
        clock.now += SESSION_SECONDS + 1  # the page's session expires: it signs in again
    entries = await store.log(game.id)
    assert [e.player for e in entries] == [str(aino.id)] * 2
    await browser.leave_frame()
    commands = await browser.run("return window.harness.commands.map(c => c.cmd)")
    assert [c for c in commands if c != "CAPTURE_LOG"] == ["AUTHORIZE", "AUTHENTICATE"] * 2
    assert await browser.console_errors() == []
