"""The log lines' pieces (``tables/logs.py``): secrets redacted from a record's message,
arguments, traceback and stack, however written; a record as one JSON line; what a line
is about, set by the work under way and carried into the tasks it starts."""

from __future__ import annotations

import asyncio
import io
import json
import logging
import sys

import pytest

from tables import logs
from tables.logs import JsonFormatter, Placing, Redactor, SafeHandler, about, secrets_of, tag

TOKEN = "fake-bot-token-0123456789"
CLIENT = "client-secret-abcdef"
PASSWORD = "p@ss:w/rd'42"
DATABASE_URL = "postgresql://bot:p%40ss%3Aw%2Frd%2742@db.example:5432/games"


def record(
    message: str, *args: object, exc: bool = False, name: str = "bot.test"
) -> logging.LogRecord:
    info = None
    if exc:
        try:
            raise RuntimeError(f"connecting with {TOKEN} to {DATABASE_URL}")
        except RuntimeError:
            info = sys.exc_info()
    return logging.LogRecord(name, logging.ERROR, __file__, 1, message, args, info)


def line(handler: logging.Handler, item: logging.LogRecord) -> str:
    handler.handle(item)
    stream = handler.stream  # type: ignore[attr-defined]
    text: str = stream.getvalue()
    return text


def redactor() -> Redactor:
    return Redactor(secrets_of(TOKEN, CLIENT, None, database_url=DATABASE_URL))


def test_the_secrets_are_the_token_the_client_secret_and_the_databases_password() -> None:
    assert secrets_of(TOKEN, "", None, database_url=DATABASE_URL) == [TOKEN, "p%40ss%3Aw%2Frd%2742"]
    assert secrets_of(TOKEN, database_url="sqlite:///data/bot.db") == [TOKEN]
    assert secrets_of(database_url="postgresql://bot@db/games") == []


def test_a_token_in_the_message_its_arguments_and_its_traceback_is_redacted() -> None:
    item = record("logging in with %s (%r)", TOKEN, {"auth": f"Bot {CLIENT}"}, exc=True)
    item.stack_info = f"Stack (most recent call last):\n  token = {TOKEN!r}"
    assert redactor().filter(item)
    text = "\n".join([item.getMessage(), item.exc_text or "", item.stack_info])
    assert TOKEN not in text and CLIENT not in text
    assert item.getMessage() == "logging in with *** ({'auth': 'Bot ***'})"
    assert "RuntimeError: connecting with *** to postgresql://bot:***@db.example:5432/games" in (
        item.exc_text or ""
    )
    assert "token = '***'" in item.stack_info


@pytest.mark.parametrize(
    "written",
    [
        DATABASE_URL,  # as in the URL: percent-encoded
        PASSWORD,  # decoded, as a driver's message may show it
        repr(PASSWORD),  # in a repr: its quote escaped
        json.dumps(PASSWORD),  # in JSON
    ],
)
def test_the_databases_password_is_redacted_however_it_is_written(written: str) -> None:
    item = record("database: %s", written)
    redactor().filter(item)
    message = item.getMessage()
    assert "***" in message
    for form in ("p@ss", "p%40ss", "w/rd", "w%2Frd"):
        assert form not in message


def test_any_urls_password_and_anything_shaped_like_a_token_is_redacted() -> None:
    shaped = "MTA5ODc2NTQzMjEwOTg3NjU0.GaBcDe.abcdefghijklmnopqrstuvwxyz0123456789"
    item = record("%s and %s and %s", "redis://:hunter2@cache:6379/0", "https://x:y@h/", shaped)
    Redactor().filter(item)
    assert item.getMessage() == "redis://:***@cache:6379/0 and https://x:***@h/ and ***"
    # a URL without a password, and a short secret outside a URL, are left alone
    item = record("postgresql://bot@db/games, %s", "the hunter2")
    Redactor(["hunter2"]).filter(item)
    assert item.getMessage() == "postgresql://bot@db/games, the ***"
    item = record("a game of %s", "go")
    Redactor(["go"]).filter(item)  # shorter than MIN_SECRET: every "go" would go
    assert item.getMessage() == "a game of go"


def test_a_message_whose_arguments_do_not_fit_is_kept_and_redacted() -> None:
    item = record("%d moves", TOKEN)
    redactor().filter(item)
    assert item.getMessage() == "%d moves ('***',)"


def test_the_handler_redacts_a_traceback_that_its_formatter_draws_again() -> None:
    class Redraws(logging.Formatter):  # as discord.py's coloured formatter does
        def format(self, record: logging.LogRecord) -> str:
            assert record.exc_info is not None
            record.exc_text = None
            return super().format(record)

    handler = SafeHandler(redactor(), io.StringIO())
    handler.setFormatter(Redraws())
    text = line(handler, record("failed", exc=True))
    assert "Traceback" in text and TOKEN not in text and "bot:***@db" in text


def test_a_record_is_one_json_line_with_its_fields() -> None:
    handler = SafeHandler(redactor(), io.StringIO())
    handler.setFormatter(JsonFormatter())
    with about(game=12, guild=123456789012345678, shard=3):
        text = line(handler, record("two\nlines with %s", TOKEN, exc=True))
    assert text.endswith("\n") and text.count("\n") == 1
    found = json.loads(text)
    assert set(found) == {"time", "level", "logger", "message", "exc", "game", "guild", "shard"}
    assert found["time"].endswith("Z") and found["time"][10] == "T"
    assert (found["level"], found["logger"]) == ("ERROR", "bot.test")
    assert found["message"] == "two\nlines with ***"
    assert found["exc"].startswith("Traceback") and TOKEN not in found["exc"]
    assert (found["game"], found["guild"], found["shard"]) == (12, "123456789012345678", 3)


def test_a_line_about_nothing_has_no_place_and_a_calls_own_extra_wins() -> None:
    handler = SafeHandler(Redactor(), io.StringIO())
    handler.setFormatter(JsonFormatter())
    assert set(json.loads(line(handler, record("plain")))) == {"time", "level", "logger", "message"}
    handler = SafeHandler(Redactor(), io.StringIO())
    handler.setFormatter(JsonFormatter())
    item = record("given")
    item.game = 7
    with about(game=5, guild=9):
        found = json.loads(line(handler, item))
    assert (found["game"], found["guild"]) == (7, "9")


def test_discord_pys_lines_name_their_shard() -> None:
    item = record(
        "Shard ID %s has connected to Gateway (Session ID: %s).", 2, "x", name="discord.gateway"
    )
    Placing().filter(item)
    assert item.shard == 2  # type: ignore[attr-defined]
    item = record("Shard ID %s is ours", 2)  # not discord.py's: no guess
    Placing().filter(item)
    assert item.shard is None  # type: ignore[attr-defined]


async def test_what_a_line_is_about_ends_with_its_work_and_goes_into_its_tasks() -> None:
    seen: dict[str, logs.Place] = {}

    async def round_of(game: int) -> None:
        tag(game=game)  # a task of its own: nothing leaks back
        await asyncio.sleep(0)
        tag(guild=8)
        seen[f"round {game}"] = logs.here()

    with about(guild=1, shard=0):
        with about(game=5):
            tag(shard=2)
            task = asyncio.create_task(asyncio.sleep(0, logs.here()))
            assert await task == logs.Place(5, 1, 2)
            await asyncio.gather(round_of(6), round_of(7))
        assert logs.here() == logs.Place(None, 1, 0)  # the tag ended with its about
    assert logs.here() == logs.Place()
    # gather wraps each coroutine in a task: each round saw its own game only
    assert seen == {"round 6": logs.Place(6, 8, 2), "round 7": logs.Place(7, 8, 2)}
