"""Two players of Workshop Tonttu in the Discord Activity, each in a Chromium of their
own behind a Discord client of their own (``tests/web/activity_harness.py``), with the
real bot against the fake Discord and an easy computer player in the third seat (T-1.1:
3–6 seats). They play a whole tactical round by clicks (T-2.1 picks, T-2.2 points, the
reveals, T-2.3 the hands passed on) and neither page ever holds what T-6 keeps from it:

- in each page's DOM, after every step: another seat's hand only as card backs with its
  size (unless this seat held that very hand earlier in the deal: T-2.3, then exactly
  those cards), another seat's face-down workbench card a back without its type, no
  other seat's pending choice, the middle's face-down materials without their types;
- in EVERY answer the player's proxy passed (the page, its files, the sign-in, each
  ``api/table`` and ``api/move``, the event stream): each table is the one the server
  computes for that seat at that version from the engine's state, and the very same
  when every other seat's secrets are changed (their hands unless known, their
  face-down cards, their pending choices, the middle's face-down materials, the deck):
  nothing the page received depends on what it may not know. The event stream carries
  only versions and statuses.

And the client secret is in no answer and in no log record of the bot; Discord's access
token only in the sign-in's own answer (``assert_secrets_kept``, used by the whole-game
test too).
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import difflib
import json
import logging
import time
from collections.abc import AsyncIterator, Sequence
from pathlib import Path
from types import SimpleNamespace
from typing import Any, cast
from urllib.parse import parse_qs, urlsplit

import pytest

from engine import get_game
from engine.tonttu.data import MATERIAL_NAMES, MATERIAL_TYPE, N_TYPES
from engine.tonttu.models import MATERIAL_POINT, TonttuState
from storage import LoadedGame, human_player
from tests.e2e.bot_helpers import add_computer, start_activity_bot
from tests.e2e.fake_discord import FakeDiscord
from tests.e2e.fake_discord.model import FakeUser
from tests.web.activity_harness import DiscordClient, Passed
from tests.web.browser import AsyncBrowser
from tests.web.test_activity_page import (
    bundle,
    chromium_for,
    discord_around,
    fake,
    open_activity,
)
from web.activity import Activity, Server
from web.discord_sign_in import Session

__all__ = ["bundle", "fake"]  # fixtures: the Activity's script (built once), the fake Discord

SEED = 20261207
PUBLIC_EVENT_KEYS = {"version", "status", "over"}
EMPTY_BOARD = '<main id="board" class="table activity-board" aria-label="Board"></main>'

SEATS_JS = """
const out = [];
for (const area of document.querySelectorAll('#board .area')) {
  const hand = area.querySelector('.line.hand');
  const cards = (list) => [...list].map(c => [
    [...c.classList].find(k => k.startsWith('mat-'))
      || (c.classList.contains('back') ? 'back' : ''),
    c.querySelector('.card-count')
      ? Number(c.querySelector('.card-count').textContent.slice(1)) : 1,
    c.getAttribute('title') || '']);
  out.push({
    name: area.querySelector('.area-name').textContent,
    mine: area.classList.contains('mine'),
    handCards: cards(hand.querySelectorAll('.card')),
    known: Boolean(hand.querySelector('.known-cards')),
    backs: hand.querySelectorAll('.mini-back').length,
    bench: cards(area.querySelectorAll('.line.bench .card')),
    choice: area.querySelector('.my-choice') ? area.querySelector('.my-choice').textContent : null,
  });
}
return {
  version: Number(document.getElementById('activity').dataset.version),
  seats: out,
  middle: [...document.querySelectorAll('#board .middle-back')].map(e => e.textContent),
};
"""


@dataclasses.dataclass
class Player:
    user: FakeUser
    client: DiscordClient
    browser: AsyncBrowser

    @property
    def seat(self) -> str:
        return human_player(self.user.id)


async def test_two_players_of_a_tonttu_round_never_hold_each_others_secrets(
    bundle: Path, fake: FakeDiscord, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    quiet_browser_logs(caplog)
    bot = await start_activity_bot(fake, f"sqlite:///{tmp_path}/bot.db", SEED)
    assert bot.web is not None
    aino, bo = fake.add_user("Aino"), fake.add_user("Bo")
    lobby = (await fake.slash(aino, fake.channel, "newgame", game="tonttu")).message
    assert lobby is not None
    await fake.click(bo, lobby, "Join")
    await add_computer(fake, aino, lobby, "random")
    await fake.click(aino, lobby, "Start")
    await fake.wait_for(lambda: bool(fake.threads(fake.channel)), what="the game's thread")
    game = await bot.store.find_open(fake.channel.id)
    assert game is not None and game.state is not None and len(game.players) == 3
    rules = get_game("tonttu")
    port = bot.web.port

    async with players(fake, port, [aino, bo]) as seated:
        for player in seated:
            await open_activity(player.browser, player.client, fake, player.user, fake.channel.id)
        for phase in ("pick", "point"):
            for player in seated:  # one after the other, each page checked in between
                await both_at_rest(seated, bot.store, game.id)
                await check_pages(seated, bot.store, game.id)
                await click_first_choice(player)
            if phase == "pick":
                await wait_for_phase(bot.store, game.id, "point")
        await wait_for_phase(bot.store, game.id, "pick")  # round 2: hands passed on
        final = await bot.store.load(game.id)
        assert final.state.round == 2 and final.state.deal_round == 2
        await both_at_rest(seated, bot.store, game.id)
        shown = await check_pages(seated, bot.store, game.id)
        # T-2.3: each player now sees the hand they passed on (minus nothing: every
        # card picked from it was revealed), the one they did not hold stays backs
        assert any(seat["known"] for page in shown for seat in page["seats"]), shown
        for player in seated:
            assert await player.browser.console_errors() == []

        # every answer each proxy passed, checked against the engine
        states = await states_by_version(bot.store, final)
        activity = bot.web.activity
        for player in seated:
            checked = await check_answers(player, activity, final, states)
            assert checked["table"] >= 4 and checked["events"] >= 1, checked
        assert_secrets_kept([p.client for p in seated], fake, caplog.records)
    assert rules.outcome(final.state) is None


@contextlib.asynccontextmanager
async def players(
    fake: FakeDiscord, port: int, users: list[FakeUser]
) -> AsyncIterator[list[Player]]:
    """Each user behind a Discord client of their own, in a Chromium of their own."""
    async with contextlib.AsyncExitStack() as stack:
        seated = []
        for user in users:
            client = await stack.enter_async_context(discord_around(fake, port))
            browser = await stack.enter_async_context(chromium_for(client))
            seated.append(Player(user, client, browser))
        yield seated


async def both_at_rest(seated: list[Player], store: Any, game_id: int) -> None:
    """Until every page shows the stored version and is not waiting for an answer."""
    deadline = time.monotonic() + 20
    while True:
        version = (await store.load(game_id)).version
        shown = [
            await p.browser.run(
                "return [document.getElementById('activity').dataset.version,"
                " document.getElementById('board').classList.contains('busy')]"
            )
            for p in seated
        ]
        if all(v == str(version) and not busy for v, busy in shown):
            again = (await store.load(game_id)).version
            if again == version:
                return
        assert time.monotonic() < deadline, f"pages at {shown}, the game at {version}"
        await asyncio.sleep(0.05)


async def wait_for_phase(store: Any, game_id: int, phase: str) -> None:
    deadline = time.monotonic() + 30
    while (await store.load(game_id)).state.phase != phase:
        assert time.monotonic() < deadline, f"the game never reached its {phase} phase"
        await asyncio.sleep(0.05)


async def click_first_choice(player: Player) -> None:
    """The player clicks the first clickable place of their board (its menu's first
    choice if it has several) and waits for the server's answer."""
    browser = player.browser
    await browser.wait_until("document.querySelector('#board .clickable')")
    before = await browser.run("return document.getElementById('activity').dataset.version")
    several = await browser.run(
        "return document.querySelector('#board .clickable').classList.contains('several')"
    )
    await browser.click("#board .clickable")
    if several:
        await browser.wait_until("document.getElementById('menu').open")
        await browser.click("#menu button.choice")
    await browser.wait_until(
        f"document.getElementById('activity').dataset.version !== '{before}'"
        " && !document.getElementById('board').classList.contains('busy')"
    )
    assert not await browser.run("return document.querySelector('#note.refused')")


# --------------------------------------------------------------------------- the DOM


async def check_pages(seated: list[Player], store: Any, game_id: int) -> list[dict[str, Any]]:
    """Each page's board against the engine's state at the version it shows (T-6)."""
    game = await store.load(game_id)
    states = await states_by_version(store, game)
    rules = get_game("tonttu")
    shown = []
    for player in seated:
        page = await player.browser.run(SEATS_JS)
        state = states[page["version"]]
        view = rules.view(state, player.seat)
        by_name = {game.names[s.player]: s for s in view.seats}
        assert sorted(s["name"] for s in page["seats"]) == sorted(by_name)
        for area in page["seats"]:
            seat = by_name[area["name"]]
            index = game.players.index(seat.player)
            if seat.player == player.seat:
                assert area["mine"]
                continue
            assert not area["mine"] and area["choice"] is None, area
            # the workbench: its face-up cards, and a back that names no type
            up = sorted(MATERIAL_NAMES[MATERIAL_TYPE[c]] for c in state.face_up[index])
            face_up = sorted(
                name
                for kind, count, _ in area["bench"]
                if kind != "back"
                for name in [_material(kind)] * count
            )
            assert face_up == up, area
            backs = [title for kind, _, title in area["bench"] if kind == "back"]
            assert len(backs) == (state.face_down[index] is not None), area
            assert all(not any(m in t for m in MATERIAL_NAMES) for t in backs), area
            # the hand: backs and its size, or the very cards this seat held (T-2.3)
            hand = sorted(MATERIAL_NAMES[MATERIAL_TYPE[c]] for c in state.hands[index])
            shown_hand = sorted(
                name for kind, count, _ in area["handCards"] for name in [_material(kind)] * count
            )
            if seat.known_hand is None:
                assert shown_hand == [] and area["backs"] == len(hand), area
            else:
                assert area["known"] and shown_hand == hand, area
        # the middle's face-down materials: backs only
        assert all(not any(m in text for m in MATERIAL_NAMES) for text in page["middle"])
        shown.append(page)
    return shown


def _material(css: str) -> str:
    """``mat-wool`` → ``Wool``."""
    name = css.removeprefix("mat-")
    (found,) = [m for m in MATERIAL_NAMES if m.lower() == name]
    return found


# --------------------------------------------------------------------------- the answers


async def states_by_version(store: Any, game: LoadedGame) -> dict[int, TonttuState]:
    """The engine's state after each stored move, replayed from the seed."""
    rules = get_game("tonttu")
    assert game.seed is not None
    state = rules.new_game(list(game.players), game.seed, rules.parse_options(game.options))
    states = {0: state}
    for entry in await store.log(game.id):
        state, _ = rules.apply(state, entry.player, rules.parse_action(entry.action))
        states[entry.seq] = state
    assert states[game.version] == game.state
    return states


def twisted(state: TonttuState, seat: int, hand_known: bool) -> TonttuState:
    """``state`` with everything seat ``seat`` keeps from the others changed (T-6): each
    card of its hand (unless the viewer knows that hand) and its face-down workbench
    card another type, its pending choice another one; and what nobody sees: the
    middle's face-down materials another type, the deck in another order."""
    of_type: dict[int, int] = {}
    for card, kind in enumerate(MATERIAL_TYPE):
        of_type.setdefault(kind, card)

    def other(card: int) -> int:
        return of_type[(MATERIAL_TYPE[card] + 1) % N_TYPES]

    hands = list(state.hands)
    if not hand_known:
        hands[seat] = tuple(other(card) for card in hands[seat])
    face_down = list(state.face_down)
    down = face_down[seat]
    if down is not None:
        face_down[seat] = other(down)
    choices = list(state.choices)
    code = choices[seat]
    if code is not None:
        if state.phase == "pick":
            choices[seat] = other(code)
        else:
            choices[seat] = MATERIAL_POINT if code != MATERIAL_POINT else MATERIAL_POINT + 1
    middle = tuple(None if card is None else other(card) for card in state.middle_materials)
    return state.model_copy(
        update={
            "hands": tuple(hands),
            "face_down": tuple(face_down),
            "choices": tuple(choices),
            "middle_materials": middle,
            "deck": tuple(reversed(state.deck)),
        }
    )


class StoreAt:
    """A game's storage as it was at ``version``: its log ends there."""

    def __init__(self, store: Any, version: int) -> None:
        self.store = store
        self.version = version

    async def log(self, game_id: int, after: int = 0) -> list[Any]:
        return [e for e in await self.store.log(game_id, after) if e.seq <= self.version]

    def __getattr__(self, name: str) -> Any:
        return getattr(self.store, name)


def _differ(one: dict[str, Any], two: dict[str, Any]) -> str:
    """The lines where two tables' JSON differ."""
    first, second = (
        json.dumps(table, indent=1, ensure_ascii=False).replace("\\n", "\n").splitlines()
        for table in (one, two)
    )
    return "\n".join(difflib.unified_diff(first, second, lineterm="", n=1))


def _without_ticket(table: dict[str, Any]) -> dict[str, Any]:
    """A table's JSON without its event stream's ticket (signed with the time)."""
    return {k: v for k, v in table.items() if k != "events"}


async def check_answers(
    player: Player, activity: Activity, game: LoadedGame, states: dict[int, TonttuState]
) -> dict[str, int]:
    """Every answer ``player``'s proxy passed; how many of each kind were checked."""
    rules = get_game("tonttu")
    files = activity.server.files
    me = player.seat
    session = Session(player.user.id, player.user.name, "en", int(time.time()) + 3600)
    checked = {"page": 0, "token": 0, "table": 0, "events": 0}
    computed: dict[tuple[int, str], dict[str, Any]] = {}

    async def table_at(version: int, state: TonttuState, since: int | None) -> dict[str, Any]:
        """What the server answers for this seat when the game is at ``version`` (its
        storage read as it was then) with the engine's ``state``, to a page showing
        version ``since``."""
        server = SimpleNamespace(
            store=StoreAt(activity.server.store, version),
            files=files,
            version=activity.server.version,
            live=activity.server.live,
        )
        then = Activity(cast(Server, server), activity.options)
        at = dataclasses.replace(game, state=state, version=version, status="active")
        return _without_ticket(await then.table_json(at, session, since))

    for passed in player.client.passed:
        assert passed.done or passed.route == "/api/events", passed.path
        if passed.route.startswith("/static/"):  # the bot's own files, the same for all
            name = passed.route.removeprefix("/static/")
            assert passed.status == 200 and passed.body == files[name], passed.path
            checked["page"] += 1
        elif passed.route == "/":  # the page: its board is empty until the table comes
            assert passed.status == 200 and EMPTY_BOARD in passed.text, passed.path
            checked["page"] += 1
        elif passed.route == "/api/token":
            answer = json.loads(passed.text)
            assert answer["user"]["id"] == str(player.user.id)
            checked["token"] += 1
        elif passed.route == "/api/events":
            # the stream's address names its player (its allowance is theirs, not that
            # of Discord's proxy, which every player comes through)
            ticket = parse_qs(urlsplit(passed.path).query)["ticket"][0]
            assert activity.sessions is not None
            named = activity.sessions.read(ticket, "events")
            assert named is not None and named.user_id == player.user.id
            for line in passed.text.splitlines():
                if line.startswith("data:"):
                    data = json.loads(line.removeprefix("data:"))
                    assert set(data) <= PUBLIC_EVENT_KEYS, line
            checked["events"] += 1
        elif passed.route in ("/api/table", "/api/move"):
            answer = json.loads(passed.text)
            table = answer["table"] if passed.route == "/api/move" else answer
            assert table["seat"] == me, passed.path
            version = table["version"]
            state = states[version]
            received = _without_ticket(table)
            asked = (
                json.loads(passed.request).get("version")
                if passed.route == "/api/move"
                else parse_qs(urlsplit(passed.path).query).get("since", [None])[0]
            )
            since = None if asked is None else int(asked)
            key = (version, str(since))
            if key not in computed:
                computed[key] = await table_at(version, state, since)
            assert received == computed[key], (
                f"{passed.path} at version {version}:\n{_differ(received, computed[key])}"
            )
            view = rules.view(state, me)
            for index, other in enumerate(state.players):
                if other == me:
                    continue
                known = view.seats[index].known_hand is not None
                other_state = twisted(state, index, known)
                # the twist is real: that seat's own view changes
                assert rules.view(other_state, other) != rules.view(state, other)
                changed = await table_at(version, other_state, since)
                assert changed == received, (
                    f"{passed.path} at version {version}: the answer depends on "
                    f"{game.names[other]}'s secrets:\n{_differ(received, changed)}"
                )
            checked["table"] += 1
        else:
            raise AssertionError(f"an answer the test does not know: {passed.path}")
    return checked


# --------------------------------------------------------------------------- the secret


def quiet_browser_logs(caplog: pytest.LogCaptureFixture) -> None:
    """Capture every log record of the bot, down to DEBUG (discord.py's requests and
    answers among them), but not Selenium's own talk with chromedriver (this process's
    test machinery, thousands of records that only slow the test down)."""
    for name in ("selenium", "urllib3"):
        caplog.set_level(logging.WARNING, logger=name)
    caplog.set_level(logging.DEBUG)  # last: it sets the capturing handler's level too


def assert_secrets_kept(
    clients: Sequence[DiscordClient], fake: FakeDiscord, records: Sequence[logging.LogRecord]
) -> None:
    """The client secret (which the bot did use: the fake saw it right at every
    exchange) is in no answer any client's proxy passed and in no log record; each
    access token Discord gave is in its sign-in answer only, and in no log record."""
    secret = fake.oauth.client_secret
    assert fake.oauth.exchanges and all(e.secret_right for e in fake.oauth.exchanges)
    passed: list[Passed] = [p for client in clients for p in client.passed]
    tokens = {
        json.loads(p.text)["access_token"]: p
        for p in passed
        if p.route == "/api/token" and p.status == 200
    }
    assert tokens
    for answer in passed:
        body = answer.body
        assert secret.encode() not in body, f"the client secret in {answer.path}"
        for token, signed_in in tokens.items():
            assert answer is signed_in or token.encode() not in body, (
                f"an access token in {answer.path}"
            )
    formatter = logging.Formatter("%(name)s %(message)s")
    assert len(records) > 10
    for record in records:
        line = formatter.format(record)
        assert secret not in line, f"the client secret logged by {record.name}"
        assert not any(token in line for token in tokens), f"an access token logged: {line}"
