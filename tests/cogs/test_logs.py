"""The bot's log set-up (``cogs/helpers/logs.py``): ``LOG_FORMAT``'s lines on the root
logger with the secrets redacted, and what an interaction's lines are about, from its
raw payload, carried by the door into its handlers."""

from __future__ import annotations

import asyncio
import io
import json
import logging
import re
from collections.abc import Iterator
from types import SimpleNamespace
from typing import Any

import pytest

from cogs.helpers.gates import Door, FloodGuard, Work
from cogs.helpers.logs import interaction_place, setup_logging
from tables import logs

GUILD = 2071261224112353  # (GUILD >> 22) % 4 == 2
TOKEN = "fake-bot-token-0123456789"
SECRETS = {"DISCORD_CLIENT_SECRET": "client-secret-abcdef"}
DATABASE_URL = "postgresql://bot:db-password-42@db.example:5432/games"


@pytest.fixture
def root() -> Iterator[logging.Logger]:
    """The root logger, its handlers and level as they were again after the test."""
    logger = logging.getLogger()
    handlers, level = list(logger.handlers), logger.level
    yield logger
    for handler in logger.handlers:
        if handler not in handlers:
            logger.removeHandler(handler)
    logger.setLevel(level)


@pytest.mark.parametrize("log_format", ["text", "json"])
def test_either_format_goes_on_the_root_logger_without_a_secret(
    root: logging.Logger, log_format: str
) -> None:
    stream = io.StringIO()
    handler = setup_logging(
        log_format, token=TOKEN, database_url=DATABASE_URL, env=SECRETS, stream=stream
    )
    assert handler in root.handlers and root.level == logging.INFO
    logging.getLogger("bot.test").info(
        "started with %s, %s, %s", TOKEN, SECRETS["DISCORD_CLIENT_SECRET"], DATABASE_URL
    )
    logging.getLogger("bot.test").debug("not at INFO")
    (line,) = stream.getvalue().splitlines()
    message = "started with ***, ***, postgresql://bot:***@db.example:5432/games"
    if log_format == "json":
        assert json.loads(line)["message"] == message
    else:  # discord.py's readable line, as before (coloured where it thinks colour shows)
        plain = re.sub(r"\x1b\[[0-9;]*m", "", line)
        assert re.fullmatch(
            rf"\[?[0-9: -]{{19}}\]? \[?INFO *\]? bot\.test:? {re.escape(message)}", plain
        ), line


def test_an_interactions_server_shard_and_game() -> None:
    click = {"guild_id": str(GUILD), "data": {"custom_id": "act:12:3:4"}}
    assert interaction_place(click, 4) == {"guild": GUILD, "shard": 2, "game": 12}
    assert interaction_place(click, None) == {"guild": GUILD, "game": 12}  # not connected
    command = {"data": {"name": "newgame"}}  # in a DM: shard 0, as Discord routes it
    assert interaction_place(command, 4) == {"shard": 0}
    for forged in ("act:²:1:1", "act:1234567890123456789:1", "12", ":12", "history:open"):
        assert "game" not in interaction_place({"data": {"custom_id": forged}}, 1), forged
    assert interaction_place({"guild_id": "x", "data": ["not", "a", "dict"]}, 1) == {"shard": 0}


async def test_the_door_hands_an_interactions_place_to_its_handlers_only() -> None:
    seen: list[logs.Place] = []

    async def handler() -> None:
        seen.append(logs.here())

    tasks: list[asyncio.Task[None]] = []

    def parse(data: Any) -> None:  # discord.py's parser: it starts the handlers' tasks
        tasks.append(asyncio.get_running_loop().create_task(handler()))

    state = SimpleNamespace(parsers={"INTERACTION_CREATE": parse})
    client: Any = SimpleNamespace(_connection=state, shard_count=4)
    door = Door(client, Work(), FloodGuard(0, 0))
    door.parse({"type": 3, "guild_id": str(GUILD), "data": {"custom_id": "undo:7:2"}})
    door.parse({"type": 2, "user": {"id": "5"}, "data": {"name": "stats"}})
    assert logs.here() == logs.Place()  # nothing left behind in the gateway's task
    await asyncio.gather(*tasks)
    assert seen == [logs.Place(game=7, guild=GUILD, shard=2), logs.Place(shard=0)]
