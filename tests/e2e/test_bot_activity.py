"""The Discord Activity end to end: the real bot (its web server, its table core) signs a
player in through the fake Discord's OAuth2, takes a move from the Activity's API and
shows it in the game's thread as it shows a button's (the move's log line riding on the
next turn prompt, the board edited), then a button move reaches the Activity's stream.
(The page in Chromium: ``tests/web/test_activity_page.py``.)"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import aiohttp

import i18n
from engine import get_game, undo
from tables.texts import event_lines
from tests.web.test_activity_api import read_data

from .bot_helpers import make_bot, open_panel, open_table, start_activity_bot, turn_prompts
from .fake_discord import FakeDiscord
from .test_bot_check import clean_env
from .test_bot_workshop_game import choose, panel_choices


async def test_a_move_in_the_activity_shows_in_the_thread_as_a_buttons_does(
    fake: FakeDiscord, tmp_path: Path
) -> None:
    bot = await start_activity_bot(fake, f"sqlite:///{tmp_path}/bot.db", 20261206)
    assert bot.web is not None
    alice, bob = fake.add_user("alice"), fake.add_user("bob")
    await open_table(fake, alice, [bob])
    (thread,) = fake.threads(fake.channel)
    prompts = len(turn_prompts(fake, thread))
    base = f"http://127.0.0.1:{bot.web.port}/activity"

    async with aiohttp.ClientSession() as http:
        code = fake.oauth.authorize(alice)  # what Discord's client gives the SDK
        async with http.post(f"{base}/api/token", json={"code": code}) as answer:
            assert answer.status == 200
            signed = await answer.json()
        session = {"Authorization": f"Bearer {signed['session']}"}
        instance = fake.oauth.start_activity(thread.id, alice.id)  # she opens it in the thread
        where = f"{base}/api/table?instance={instance}"
        async with http.get(where, headers=session) as answer:
            table = await answer.json()
        assert table["seat"] == str(alice.id) and table["choices"]
        moves = 0
        while table["choices"]:  # alice's whole turn (a turn is several decisions)
            move = {"game": table["game"], "version": table["version"], "index": 0}
            async with http.post(f"{base}/api/move", json=move, headers=session) as answer:
                assert answer.status == 200
                played = await answer.json()
            assert played["note"] == table["choices"][0]["label"]
            table, moves = played["table"], moves + 1
        assert table["prompt"] == "To act: bob to place an Elf"

        # the thread shows them: the moves' log lines ride on bob's turn prompt
        (game,) = await bot.store.list_games(statuses=["active"])
        rules = get_game("workshop")
        lines = [
            line
            for entry in await bot.store.log(game.id)
            for line in event_lines(
                game, undo.parse_events_json(rules, entry.events_json), i18n.words("en")
            )
        ]
        await fake.wait_for(
            lambda: len(turn_prompts(fake, thread)) > prompts, what="bob's turn prompt"
        )
        prompt = turn_prompts(fake, thread)[-1]
        assert bob.mention in prompt.content and alice.mention not in prompt.content
        shown = "\n".join(m.content for m in fake.messages(thread))
        assert lines and all(line in shown for line in lines)
        await fake.wait_for(
            lambda: f"Move {moves}" in board_text(fake, thread), what="the board edited"
        )

        # and a button move reaches the Activity's stream
        events_url = f"{base}/api/events?game={table['game']}"
        async with http.get(events_url) as stream:
            assert (await read_data(stream.content))["version"] == moves
            panel = (await open_panel(fake, bob, thread)).message
            assert panel is not None
            await choose(fake, bob, panel, panel_choices(panel)[0])
            assert (await read_data(stream.content))["version"] == moves + 1
        async with http.get(f"{base}/api/table?game={table['game']}", headers=session) as answer:
            assert (await answer.json())["version"] == moves + 1


def board_text(fake: FakeDiscord, thread: Any) -> str:
    board = next(m for m in fake.messages(thread) if m.embeds and "Move" in m.text())
    return board.text()


async def test_the_command_sync_keeps_the_activitys_entry_point(
    fake: FakeDiscord, tmp_path: Path
) -> None:
    """Enabling Activities in the Developer Portal makes a global Entry Point command
    ("Launch"), and Discord then refuses a bulk overwrite of the global commands that
    leaves it out: the bot's sync sends it again, and starts."""
    launch = fake.enable_activities()
    await fake.start_bot(make_bot(fake, f"sqlite:///{tmp_path}/bot.db"))
    names = {c["name"]: c for c in fake.global_commands}
    assert "newgame" in names and names["launch"]["type"] == launch["type"]
    assert names["launch"]["handler"] == 2


async def test_check_says_where_discord_must_point_and_refuses_another_application(
    fake: FakeDiscord, tmp_path: Path
) -> None:
    secret = fake.oauth.client_secret
    env = clean_env(
        DATABASE_URL=f"sqlite:///{tmp_path}/bot.db",
        WEB_PORT="8080",
        WEB_BASE_URL="https://games.example.org/workshop",
        DISCORD_CLIENT_ID=str(fake.application_id),
        DISCORD_CLIENT_SECRET=secret,
    )
    status, out, err = await fake.run_script("bot.py", "--check", env=env)
    assert (status, err) == (0, ""), out
    assert (
        "Discord Activity: on; in the Developer Portal (Activities → URL Mappings) the root "
        "(/) must map to games.example.org/workshop/activity." in out
    )
    status, out, err = await fake.run_script(
        "bot.py", "--check", env={**env, "DISCORD_CLIENT_ID": "12345"}
    )
    assert status == 1
    assert (
        f"DISCORD_CLIENT_ID is 12345, but the token is application {fake.application_id}'s" in err
    )
    assert secret not in out + err
