"""bot.py's settings: SHARD_COUNT and SHARD_IDS, the gates' numbers, and the sentences a
wrong value gets; waiting for READY while the bot stops."""

from __future__ import annotations

import asyncio

import pytest

from bot import WorkshopBot
from cogs.helpers.config import Settings, parse_shard_ids


def settings(**env: str) -> Settings:
    return Settings.from_env({"DISCORD_TOKEN": "t", **env})


def refusal(**env: str) -> str:
    with pytest.raises(SystemExit) as stopped:
        settings(**env)
    return str(stopped.value)


def test_without_shard_settings_one_process_runs_what_discord_recommends() -> None:
    chosen = settings()
    assert chosen.shard_count is None and chosen.shard_ids is None


def test_ranges_lists_and_mixes() -> None:
    assert settings(SHARD_COUNT="8", SHARD_IDS="0-3").shard_ids == (0, 1, 2, 3)
    assert settings(SHARD_COUNT="8", SHARD_IDS="4,5,6,7").shard_ids == (4, 5, 6, 7)
    assert settings(SHARD_COUNT="8", SHARD_IDS=" 6, 0-1 ").shard_ids == (0, 1, 6)
    assert settings(SHARD_COUNT="2").shard_ids is None  # every shard in this process
    assert parse_shard_ids("3", 4) == (3,)


@pytest.mark.parametrize(
    ("env", "sentence"),
    [
        ({"SHARD_COUNT": "four"}, "SHARD_COUNT must be a whole number of 1 or more, not 'four'."),
        ({"SHARD_COUNT": "0"}, "SHARD_COUNT must be a whole number of 1 or more, not '0'."),
        ({"SHARD_IDS": "0-1"}, "SHARD_IDS needs SHARD_COUNT too"),
        (
            {"SHARD_COUNT": "4", "SHARD_IDS": "0-4"},
            "SHARD_IDS names shard 4, but with SHARD_COUNT=4 the shards are 0 to 3.",
        ),
        ({"SHARD_COUNT": "4", "SHARD_IDS": "3-1"}, "the range 3-1 runs backwards; write 1-3."),
        ({"SHARD_COUNT": "4", "SHARD_IDS": "0-1,1"}, "SHARD_IDS names shard 1 twice."),
        ({"SHARD_COUNT": "4", "SHARD_IDS": "0;1"}, "such as 0-3 or 4,5,6,7, not '0;1'."),
        ({"SHARD_COUNT": "4", "SHARD_IDS": "1-"}, "such as 0-3 or 4,5,6,7, not '1-'."),
        (
            {"REST_BUDGET_PER_SECOND": "fast"},
            "REST_BUDGET_PER_SECOND must be a number of 0 or more, not 'fast'.",
        ),
        (
            {"SHUTDOWN_GRACE_SECONDS": "-1"},
            "SHUTDOWN_GRACE_SECONDS must be a number of 0 or more, not '-1'.",
        ),
        ({"FLOOD_BURST": "2.5"}, "FLOOD_BURST must be a whole number of 0 or more, not '2.5'."),
        ({"WEB_PORT": "http"}, "WEB_PORT must be a port number from 1 to 65535"),
        ({"WEB_PORT": "70000"}, "(or empty for no web page), not '70000'."),
        ({"WEB_PORT": "-1"}, "not '-1'."),
        ({"WEB_BASE_URL": "games.example.org"}, "such as https://games.example.org"),
        ({"WEB_BASE_URL": "ftp://example.org"}, "not 'ftp://example.org'."),
        ({"WEB_BASE_URL": "https://example.org:x"}, "not 'https://example.org:x'."),
        ({"WEB_BASE_URL": "https://example.org/?a=1"}, "not 'https://example.org/?a=1'."),
    ],
)
def test_a_wrong_value_stops_the_bot_with_a_sentence(env: dict[str, str], sentence: str) -> None:
    assert sentence in refusal(**env)


def test_the_gates_numbers_have_defaults_and_can_be_set() -> None:
    default = settings()
    assert (default.shutdown_grace_seconds, default.rest_budget_per_second) == (10.0, 45.0)
    assert (default.flood_burst, default.flood_per_second) == (10, 2.0)
    chosen = settings(
        SHUTDOWN_GRACE_SECONDS="3",
        REST_BUDGET_PER_SECOND="15",
        FLOOD_BURST="0",
        FLOOD_PER_SECOND="0.5",
    )
    assert (chosen.shutdown_grace_seconds, chosen.rest_budget_per_second) == (3.0, 15.0)
    assert (chosen.flood_burst, chosen.flood_per_second) == (0, 0.5)


def test_the_web_page_is_off_unless_a_port_is_set() -> None:
    assert settings().web_port is None and settings().web_address is None
    local = settings(WEB_PORT="8080")
    assert (local.web_host, local.web_address, local.web_base_url) == (
        "127.0.0.1",
        "http://127.0.0.1:8080",
        None,
    )
    assert settings(WEB_PORT="8080", WEB_HOST="::1").web_address == "http://[::1]:8080"
    public = settings(WEB_PORT="8080", WEB_BASE_URL=" https://example.org/workshop/ ")
    assert public.web_address == public.web_base_url == "https://example.org/workshop"


async def test_waiting_for_ready_ends_when_the_bot_begins_to_stop() -> None:
    """Background work started before READY (the timers, the start-up catch-up) waits
    with ``until_ready``: a stop before READY ends it, so the stop can wait for all the
    background work (a move's publishing included) without waiting for READY."""
    async with WorkshopBot(settings()) as bot:
        waiting = asyncio.create_task(bot.until_ready())
        await asyncio.sleep(0.01)
        assert not waiting.done()  # no READY yet
        bot.stopping.set()
        assert await asyncio.wait_for(waiting, 1) is False
