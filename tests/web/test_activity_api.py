"""The Discord Activity's API (``web/activity.py``) over real storage, read over HTTP:
the sign-in through the fake Discord's OAuth2, the table as a player and a spectator
see it, moves and undo with the buttons' checks and sentences, the headers that let
Discord alone frame it. (The page itself, in Chromium: ``test_activity_page.py``.)"""

from __future__ import annotations

import asyncio
import base64
import dataclasses
import json
import logging
from collections.abc import AsyncIterator
from typing import Any

import aiohttp
import pytest

from engine import get_game
from engine.tonttu.models import Pick
from storage import SqlStorage
from tables.pictures import Pictures
from tables.service import Tables
from tests.e2e.fake_discord import FakeDiscord
from tests.web.games import finish, new_game
from web.activity import ActivityOptions
from web.discord_sign_in import SESSION_SECONDS
from web.server import WebServer

HOST, GUEST, STRANGER = 10, 11, 99
"""The host (seat 1), the second seat, a user at no seat (tests/web/games.py)."""


class Clock:
    def __init__(self) -> None:
        self.now = 1_900_000_000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
async def fake() -> AsyncIterator[FakeDiscord]:
    async with FakeDiscord() as running:
        yield running


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def refused() -> set[int]:
    """Users the flood guard refuses (the bot's own guard, in the bot)."""
    return set()


@pytest.fixture
async def server(
    store: SqlStorage, fake: FakeDiscord, clock: Clock, refused: set[int]
) -> AsyncIterator[WebServer]:
    options = ActivityOptions(
        client_id=fake.application_id,
        client_secret=fake.oauth.client_secret,
        tables=Tables(store),
        flood=lambda user: "Slow down a little." if user in refused else None,
        api=fake.api_base,
        bot_token=fake.token,
        # the table's answers are asked by channel here; finding a channel by the
        # Activity's instance (the default) has its own test below
        require_instance=False,
        clock=clock,
    )
    web = WebServer(store, Pictures(), port=0, activity=options)
    web.live.poll = 0.02
    await web.start()
    try:
        yield web
    finally:
        await web.stop()


@pytest.fixture
async def http() -> AsyncIterator[aiohttp.ClientSession]:
    async with aiohttp.ClientSession() as session:
        yield session


def url(server: WebServer, path: str) -> str:
    return f"http://127.0.0.1:{server.port}/activity/{path}"


def signed_in(server: WebServer, user: int, lang: str = "en") -> dict[str, str]:
    sessions = server.activity.sessions
    assert sessions is not None
    return {"Authorization": f"Bearer {sessions.issue(user, f'user {user}', lang)}"}


async def call(
    http: aiohttp.ClientSession,
    server: WebServer,
    path: str,
    user: int | dict[str, str],
    body: dict[str, Any] | None = None,
) -> tuple[int, dict[str, Any]]:
    headers = signed_in(server, user) if isinstance(user, int) else user
    if body is None:
        request = http.get(url(server, path), headers=headers)
    else:
        request = http.post(url(server, path), headers=headers, json=body)
    async with request as response:
        return response.status, await response.json()


async def test_a_sign_in_exchanges_the_code_and_the_secret_is_never_shown(
    server: WebServer,
    fake: FakeDiscord,
    http: aiohttp.ClientSession,
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.DEBUG)
    secret = fake.oauth.client_secret
    player = fake.add_user("Aino", locale="de")
    code = fake.oauth.authorize(player)
    seen: list[str] = []

    async def exchange(code: str) -> tuple[int, dict[str, Any]]:
        async with http.post(url(server, "api/token"), json={"code": code}) as response:
            seen.append(await response.text())
            seen.extend(f"{k}: {v}" for k, v in response.headers.items())
            return response.status, json.loads(seen[-len(response.headers) - 1])

    status, body = await exchange(code)
    assert status == 200
    assert body["user"] == {"id": str(player.id), "name": "Aino"} and body["lang"] == "de"
    assert body["access_token"] and fake.oauth.exchanges[-1].secret_right
    access, session = body["access_token"], body["session"]
    # the session is the bot's own: it opens the table API as that user
    status, table = await call(
        http, server, "api/table?channel=1", {"Authorization": f"Bearer {body['session']}"}
    )
    assert status == 404 and "läuft kein Spiel" in table["error"]  # German, not a 401
    # a code is good once; a made-up one is refused alike, with a sentence
    for again in (code, "made-up"):
        status, body = await exchange(again)
        assert status == 401 and "did not accept the sign-in" in body["error"]
    # a bot with the wrong secret is refused by Discord, and says so
    right = server.activity.options
    assert right is not None
    server.activity.options = ActivityOptions(
        client_id=right.client_id, client_secret="wrong", api=right.api
    )
    status, body = await exchange(fake.oauth.authorize(player))
    assert status == 401 and fake.oauth.exchanges[-1].status == 401
    logged = [r.getMessage() + repr(r.args) + str(r.exc_info) for r in caplog.records]
    assert caplog.records  # the refusals were logged …
    for text in seen + logged:  # … and nothing anywhere shows the secret
        assert secret not in text
    for text in logged:  # nor Discord's access token, the code or the session
        assert access not in text and code not in text and session not in text


async def test_a_player_sees_their_choices_and_a_spectator_none(
    store: SqlStorage, server: WebServer, http: aiohttp.ClientSession
) -> None:
    game = await new_game(store, "workshop", 2, channel=7)
    status, mine = await call(http, server, "api/table?channel=7", HOST)
    assert status == 200
    assert mine["seat"] == str(HOST) and mine["version"] == game.version
    assert mine["kind"] == "workshop" and mine["status"] == "active"
    rules = get_game("workshop")
    legal = rules.legal_actions(game.state, str(HOST))
    assert [c["index"] for c in mine["choices"]] == list(range(len(legal)))
    for choice in mine["choices"]:
        facts = rules.describe_choice(game.state, str(HOST), legal[choice["index"]])
        assert choice["target"] == facts.target and choice["kind"] == facts.kind
        assert choice["label"]
        if facts.target != "stop":  # drawn where it sits on the player's own board
            assert f'data-target="{facts.target}"' in mine["html"]
    assert mine["prompt"].startswith("Your move: to place an Elf") and "<" in mine["html"]
    status, theirs = await call(http, server, f"api/table?game={mine['game']}", STRANGER)
    assert status == 200 and theirs["seat"] is None
    assert theirs["choices"] == [] and theirs["undo"] is False and theirs["html"]
    status, waiting = await call(http, server, "api/table?channel=7", GUEST)
    assert waiting["choices"] == [] and waiting["prompt"].startswith("To act: Aino to place")
    status, none = await call(http, server, "api/table?channel=8", HOST)
    assert status == 404 and "no game in this channel" in none["error"]
    await store.create_lobby(
        guild_id=1, channel_id=9, kind="tonttu", options=None, host_id=HOST, host_name="Aino"
    )
    status, lobby = await call(http, server, "api/table?channel=9", HOST)
    assert status == 200 and lobby["status"] == "lobby" and lobby["choices"] == []
    assert lobby["prompt"] == "The game has not started yet." and lobby["html"] == ""


async def test_the_prompt_says_what_is_decided_and_at_the_end_who_won(
    store: SqlStorage, server: WebServer, http: aiohttp.ClientSession
) -> None:
    game = await new_game(store, "tonttu", 3)
    _, watching = await call(http, server, "api/table?channel=1", signed_in(server, STRANGER))
    first, second, third = (game.names[p] for p in game.players)
    assert watching["prompt"] == (
        f"Pick: everyone chooses a hand card in secret · Waiting for {first}, {second} and {third}."
    )
    _, mine = await call(http, server, "api/table?channel=1", signed_in(server, HOST))
    assert mine["prompt"].startswith("Your move: Pick: everyone chooses")
    assert "Your first pick:" in mine["prompt"]  # the sentence of a decision met first
    game = await finish(store, game)
    result = game.result or {}
    _, over = await call(http, server, f"api/table?game={mine['game']}", signed_in(server, HOST))
    names = [game.names[w] for w in result["winners"]]
    assert over["prompt"].startswith("This game is over. Winner")
    assert all(name in over["prompt"] for name in names) and over["choices"] == []


async def test_forged_expired_tampered_and_stale_moves_change_nothing(
    store: SqlStorage,
    server: WebServer,
    http: aiohttp.ClientSession,
    clock: Clock,
    refused: set[int],
) -> None:
    game = await new_game(store, "workshop", 2)
    _, table = await call(http, server, "api/table?channel=1", HOST)
    move = {"game": table["game"], "version": game.version, "index": 0}

    async def refusal(user: int | dict[str, str], body: dict[str, Any]) -> tuple[int, str]:
        status, answer = await call(http, server, "api/move", user, body)
        assert (await store.load(game.id)).version == game.version  # nothing changed
        return status, answer["error"]

    # a seat that is not to move, a user at no seat (the session says who acts: no body
    # field can name another seat)
    assert await refusal(GUEST, move) == (409, "It is not your turn.")
    assert await refusal(STRANGER, move) == (403, "You are not playing in this game.")
    # a session that ran out, one altered, none at all
    session = signed_in(server, HOST)
    clock.now += SESSION_SECONDS + 1
    status, text = await refusal(session, move)
    assert status == 401 and "sign-in to the Activity has ended" in text
    clock.now -= SESSION_SECONDS + 1
    payload, _, signature = session["Authorization"].removeprefix("Bearer ").partition(".")
    forged = json.loads(_unb64(payload)) | {"u": str(GUEST)}
    tampered = f"Bearer {_b64(json.dumps(forged).encode())}.{signature}"
    assert (await refusal({"Authorization": tampered}, move))[0] == 401
    assert (await refusal({}, move))[0] == 401
    # a stale version: the button's sentence, and the table as it is now
    status, answer = await call(http, server, "api/move", HOST, {**move, "version": 7})
    assert status == 409 and answer["error"].startswith("The board has changed since")
    assert answer["table"]["version"] == game.version and answer["table"]["choices"]
    # a choice not on the list; the flood guard
    assert (await refusal(HOST, {**move, "index": 999}))[0] == 409
    refused.add(HOST)
    assert await refusal(HOST, move) == (429, "Slow down a little.")
    refused.clear()
    # then the move itself, and its undo
    status, played = await call(http, server, "api/move", HOST, move)
    assert status == 200 and played["note"] == table["choices"][0]["label"]
    assert played["table"]["version"] == game.version + 1
    assert (await store.load(game.id)).version == game.version + 1
    if played["table"]["undo"]:
        undo = {"game": table["game"], "version": game.version + 1}
        status, undone = await call(http, server, "api/undo", HOST, undo)
        assert status == 200 and undone["note"]
        assert (await store.load(game.id)).version == game.version + 2


async def test_tonttu_picks_are_judged_by_their_phase_not_the_version(
    store: SqlStorage, server: WebServer, http: aiohttp.ClientSession
) -> None:
    game = await new_game(store, "tonttu", 3)
    _, mine = await call(http, server, "api/table?channel=1", HOST)
    assert mine["phase"] == "pick" and mine["round"] == game.state.round
    assert all(c["target"].startswith("hand:") for c in mine["choices"])
    for choice in mine["choices"]:  # the player's own hand, on their own board
        assert f'data-target="{choice["target"]}"' in mine["html"]
    first = {"game": mine["game"], "version": mine["version"], "round": mine["round"]}
    # another seat picks meanwhile: the host's pick still counts (a pick is changeable)
    status, _ = await call(http, server, "api/move", GUEST, {**first, "phase": "pick", "index": 0})
    assert status == 200
    choice = mine["choices"][-1]
    status, played = await call(
        http, server, "api/move", HOST, {**first, "phase": "pick", "action": choice["action"]}
    )
    assert status == 200 and "change it until everyone has chosen" in played["note"]
    assert Pick.model_validate(choice["action"]).material in played["note"]
    # a choice for a phase that is not the table's is refused with the buttons' sentence
    later = {**first, "round": first["round"] + 1, "phase": "pick", "index": 0}
    status, answer = await call(http, server, "api/move", HOST, later)
    assert status == 409 and "already been revealed" in answer["error"]
    version = (await store.load(game.id)).version
    status, answer = await call(
        http, server, "api/move", HOST, {**first, "phase": "point", "index": 0}
    )
    assert status == 409 and answer["error"] and (await store.load(game.id)).version == version


async def test_only_discord_may_frame_the_activity(
    store: SqlStorage, server: WebServer, http: aiohttp.ClientSession
) -> None:
    game = await new_game(store, "workshop", 2)
    async with http.get(url(server, "")[:-1]) as response:  # /activity, as /activity/
        activity = response.headers
        text = await response.text()
    assert "frame-ancestors https://discord.com" in activity["Content-Security-Policy"]
    assert "*.discordsays.com" in activity["Content-Security-Policy"]
    assert "X-Frame-Options" not in activity
    assert "script-src 'self'" in activity["Content-Security-Policy"] and "<html" in text
    page = f"http://127.0.0.1:{server.port}/g/{await store.web_token(game.id)}"
    async with http.get(page) as response:
        assert "frame-ancestors 'none'" in response.headers["Content-Security-Policy"]
        assert response.headers["X-Frame-Options"] == "DENY"
    async with http.get(url(server, "static/page.css")) as response:
        assert (
            response.status == 200
            and "frame-ancestors https://discord.com"
            in (response.headers["Content-Security-Policy"])
        )


async def test_without_its_settings_the_activity_says_it_is_off(
    store: SqlStorage, http: aiohttp.ClientSession
) -> None:
    web = WebServer(store, Pictures(), port=0)
    await web.start()
    try:
        async with http.get(url(web, "")) as response:
            assert response.status == 200
            assert "The Activity is off" in await response.text()
        async with http.post(url(web, "api/token"), json={"code": "x"}) as response:
            assert response.status == 503
            assert "not set up" in (await response.json())["error"]
    finally:
        await web.stop()


async def test_the_events_say_each_change_of_the_game(
    store: SqlStorage, server: WebServer, http: aiohttp.ClientSession
) -> None:
    game = await new_game(store, "workshop", 2)
    _, table = await call(http, server, "api/table?channel=1", HOST)
    ticket = table["events"].partition("&ticket=")[2]  # whose stream: it opens nothing else
    assert (
        ticket
        and (
            await call(http, server, "api/table?channel=1", {"Authorization": f"Bearer {ticket}"})
        )[0]
        == 401
    )
    async with http.get(url(server, table["events"])) as response:
        assert response.headers["Content-Type"] == "text/event-stream"
        assert "discord.com" in response.headers["Content-Security-Policy"]
        first = await read_data(response.content)
        assert first == {"version": game.version, "status": "active", "over": False}
        move = {"game": table["game"], "version": game.version, "index": 0}
        assert (await call(http, server, "api/move", HOST, move))[0] == 200
        second = await read_data(response.content)
        assert second["version"] == game.version + 1


async def read_data(stream: aiohttp.StreamReader) -> dict[str, Any]:
    """The data of the next ``table`` event of a Server-Sent Events stream."""
    event = ""
    while True:
        line = (await asyncio.wait_for(stream.readline(), 10)).decode().rstrip("\n")
        if line.startswith("event: "):
            event = line.removeprefix("event: ")
        elif line.startswith("data: ") and event == "table":
            data: dict[str, Any] = json.loads(line.removeprefix("data: "))
            return data


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def _unb64(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


async def test_each_signed_in_player_has_an_allowance_of_their_own(
    store: SqlStorage, server: WebServer, http: aiohttp.ClientSession
) -> None:
    """Every request through Discord's proxy comes from a few of Discord's addresses: a
    player's session, not the address, has the allowance."""
    await new_game(store, "workshop", 2)
    statuses = [(await call(http, server, "api/table?channel=1", HOST))[0] for _ in range(60)]
    assert statuses[0] == 200 and statuses[-1] == 429  # one player, too fast
    assert (await call(http, server, "api/table?channel=1", GUEST))[0] == 200  # not another


async def test_a_table_is_found_by_the_activity_instance_the_player_is_in(
    store: SqlStorage, server: WebServer, fake: FakeDiscord, http: aiohttp.ClientSession
) -> None:
    """Discord says which channel an Activity instance runs in and who is in it: a user
    sees the game of a channel they opened or joined the Activity in, not any channel
    whose id they know."""
    await new_game(store, "workshop", 2, channel=7)
    instance = fake.oauth.start_activity(7, HOST)
    status, mine = await call(http, server, f"api/table?instance={instance}", HOST)
    assert status == 200 and mine["seat"] == str(HOST)
    status, answer = await call(http, server, f"api/table?instance={instance}", STRANGER)
    assert status == 403 and "not running in a channel you are in" in answer["error"]
    fake.oauth.join_activity(instance, STRANGER)  # asked again at once, not 10 s later
    status, theirs = await call(http, server, f"api/table?instance={instance}", STRANGER)
    assert status == 200 and theirs["seat"] is None and theirs["game"] == mine["game"]
    elsewhere = fake.oauth.start_activity(8, HOST)
    assert (await call(http, server, f"api/table?instance={elsewhere}", HOST))[0] == 404
    assert (await call(http, server, "api/table?instance=i-404", HOST))[0] == 403
    options = server.activity.options
    assert options is not None
    server.activity.options = dataclasses.replace(options, require_instance=True)
    assert (await call(http, server, "api/table?channel=7", HOST))[0] == 400
    assert ActivityOptions(client_id=1, client_secret="s").require_instance  # the default


async def test_a_race_point_goes_to_the_first_and_the_second_is_told(
    store: SqlStorage, server: WebServer, http: aiohttp.ClientSession
) -> None:
    """A Tonttu speed race (T-4) by the Activity: the first valid point at a face-down
    material takes it; the same point a moment later is refused with a sentence and
    changes nothing."""
    lobby = await store.create_lobby(
        guild_id=1,
        channel_id=1,
        kind="tonttu",
        options={"mode": "speed"},
        host_id=HOST,
        host_name="Aino",
    )
    for seat in (GUEST, 12):
        await store.join(lobby.id, seat, f"user {seat}")
    game = await store.start(lobby.id, seed=5)
    for user in (HOST, GUEST, 12):  # everyone picks: the race opens
        _, table = await call(http, server, "api/table?channel=1", user)
        move = {"game": table["game"], "version": table["version"], "round": table["round"]}
        assert (await call(http, server, "api/move", user, {**move, "phase": "pick", "index": 0}))[
            0
        ] == 200
    _, mine = await call(http, server, "api/table?channel=1", HOST)
    _, theirs = await call(http, server, "api/table?channel=1", GUEST)
    assert mine["race"] and mine["phase"] == "point"
    gift = next(c for c in mine["choices"] if c["kind"] == "point_material")
    race = {"game": mine["game"], "version": mine["version"], "round": mine["round"]}
    status, won = await call(
        http, server, "api/move", HOST, {**race, "phase": "point", "action": gift["action"]}
    )
    assert status == 200 and won["note"].startswith("You pointed.")
    version = (await store.load(game.id)).version
    same = next(c for c in theirs["choices"] if c.get("action") == gift["action"])
    status, late = await call(
        http, server, "api/move", GUEST, {**race, "phase": "point", "action": same["action"]}
    )
    assert status == 409 and late["error"] and (await store.load(game.id)).version == version
    # a number from a race that moved on no longer says which card: refused
    status, stale = await call(
        http, server, "api/move", GUEST, {**race, "phase": "point", "index": 0}
    )
    assert status == 409 and stale["error"].startswith("The board has changed since")


async def test_a_german_player_is_answered_in_german(
    store: SqlStorage, server: WebServer, http: aiohttp.ClientSession
) -> None:
    """The language of the player's Discord client (the session's), as the panel's."""
    game = await new_game(store, "workshop", 2)
    status, mine = await call(http, server, "api/table?channel=1", signed_in(server, HOST, "de"))
    assert status == 200 and mine["lang"] == "de" and mine["prompt"].startswith("Du bist dran:")
    move = {"game": mine["game"], "version": game.version, "index": 0}
    status, answer = await call(http, server, "api/move", signed_in(server, GUEST, "de"), move)
    assert status == 409 and answer["error"] == "Du bist nicht am Zug."
