"""bot.py's settings: SHARD_COUNT and SHARD_IDS, the gates' numbers, each number's range
and the sentences a wrong value gets (the same for ``bot.py`` and ``bot.py --check``,
before anything connects anywhere); waiting for READY while the bot stops."""

from __future__ import annotations

import asyncio
import os
import re
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from bot import WorkshopBot
from cogs.helpers import config
from cogs.helpers.config import Settings, parse_shard_ids

ROOT = Path(__file__).resolve().parent.parent

CORES = 2
"""The machine the range tests pretend to run on: AI_WORKERS up to 8."""


def settings(**env: str) -> Settings:
    return Settings.from_env({"DISCORD_TOKEN": "t", **env}, cores=CORES)


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
        (
            {"SHARD_COUNT": "four"},
            "SHARD_COUNT must be a whole number of shards from 1 to 100000 (all the bot's "
            "shards, the same in every process; or empty for what Discord recommends), not "
            "'four'.",
        ),
        ({"SHARD_IDS": "0-1"}, "SHARD_IDS needs SHARD_COUNT too"),
        (
            {"SHARD_COUNT": "4", "SHARD_IDS": "0-4"},
            "SHARD_IDS names shard 4, but with SHARD_COUNT=4 the shards are 0 to 3.",
        ),
        ({"SHARD_COUNT": "4", "SHARD_IDS": "3-1"}, "the range 3-1 runs backwards; write 1-3."),
        ({"SHARD_COUNT": "4", "SHARD_IDS": "0-1,1"}, "SHARD_IDS names shard 1 twice."),
        ({"SHARD_COUNT": "4", "SHARD_IDS": "0;1"}, "such as 0-3 or 4,5,6,7, not '0;1'."),
        ({"SHARD_COUNT": "4", "SHARD_IDS": "1-"}, "such as 0-3 or 4,5,6,7, not '1-'."),
        ({"SHARD_COUNT": "4", "SHARD_IDS": "2-999999999999"}, "names shard 4, but with"),
        ({"SHARD_COUNT": "4", "SHARD_IDS": "²"}, "such as 0-3 or 4,5,6,7, not '²'."),
        (
            {"REST_BUDGET_PER_SECOND": "2.5"},
            "REST_BUDGET_PER_SECOND must be a whole number of requests a second from 0 to 1000 "
            "(0: no pacing; Discord allows 50 a second per bot; a budget counts whole "
            "requests), not '2.5'.",
        ),
        (
            {"TIMER_POLL_SECONDS": "0"},
            "TIMER_POLL_SECONDS must be a number of seconds from 0.1 to 3600 (how often the "
            "bot looks for due reminders and turn limits), not '0'.",
        ),
        (
            {"FLOOD_PER_SECOND": "nan"},
            "FLOOD_PER_SECOND must be 0 (no flood guard) or a number of interactions a second "
            "from 0.01 to 1000 (how fast one user's allowance refills), not 'nan'.",
        ),
        (
            {"AI_WORKERS": "100000"},
            "AI_WORKERS must be a whole number of processes from 0 to 8 (the computer players' "
            "workers: at most 4 per CPU core, and this machine has 2;",
        ),
        ({"DISCORD_GUILD_ID": "0"}, "a server id from 1 to 18446744073709551615 (the digits"),
        ({"DISCORD_GUILD_ID": "9" * 5000}, "not '99999999999999999999'… (5000 characters)."),
        ({"DISCORD_TOKEN": "Bot abc"}, "DISCORD_TOKEN must be the token alone"),
        ({"WEB_HOST": "localhost:8080"}, "(no http:// and no port: the port is WEB_PORT)"),
        ({"WEB_HOST": "http://example.org"}, "WEB_HOST must be an address to listen on"),
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


RANGES = {
    "TIMER_POLL_SECONDS": ("from 0.1 to 3600", ["0", "1e-9", "0.09", "3601", "-1"]),
    "SHUTDOWN_GRACE_SECONDS": ("from 0 to 600", ["-1", "601", "-0.5"]),
    "REST_BUDGET_PER_SECOND": ("from 0 to 1000", ["-1", "2.5", "45.0", "1001", "1e3"]),
    "FLOOD_BURST": ("from 0 to 1000", ["-1", "2.5", "1001"]),
    "FLOOD_PER_SECOND": ("0 (no flood guard) or", ["-1", "1e-9", "0.009", "1001"]),
    "AI_WORKERS": ("from 0 to 8", ["-1", "2.5", "9", "100000"]),
    "SHARD_COUNT": ("from 1 to 100000", ["0", "-1", "2.5", "100001"]),
    "DISCORD_GUILD_ID": ("from 1 to 18446744073709551615", ["0", "-5", "1.5", str(2**64)]),
    "WEB_PORT": ("from 1 to 65535", ["0", "-1", "65536", "8080.5"]),
    "METRICS_PORT": ("from 1 to 65535", ["0", "65536"]),
}
"""Each number setting: its range as the sentence says it, and values outside it (zero
where it means nothing, a fraction where a whole number is meant, past the maximum)."""

NOT_NUMBERS = ["nan", "NaN", "inf", "-inf", "infinity", "1e999", "9" * 5000, "fast", "²", "0x10"]
"""No number setting takes any of these (``1e999`` is infinity)."""


@pytest.mark.parametrize(
    ("name", "value"),
    [(name, value) for name, (_, values) in RANGES.items() for value in values + NOT_NUMBERS],
)
def test_a_number_outside_its_range_is_refused_with_the_range(name: str, value: str) -> None:
    sentence = refusal(**{name: value})
    assert sentence.startswith(f"{name} must be "), sentence
    assert RANGES[name][0] in sentence
    assert sentence.endswith(f"not {config.quoted(value)}.")
    assert "\n" not in sentence


@pytest.mark.parametrize(
    ("env", "attribute", "value"),
    [
        ({"TIMER_POLL_SECONDS": "0.1"}, "timer_poll_seconds", 0.1),
        ({"TIMER_POLL_SECONDS": "3600"}, "timer_poll_seconds", 3600.0),
        ({"SHUTDOWN_GRACE_SECONDS": "0"}, "shutdown_grace_seconds", 0.0),
        ({"SHUTDOWN_GRACE_SECONDS": "600"}, "shutdown_grace_seconds", 600.0),
        ({"REST_BUDGET_PER_SECOND": "0"}, "rest_budget_per_second", 0),
        ({"REST_BUDGET_PER_SECOND": "1000"}, "rest_budget_per_second", 1000),
        ({"FLOOD_BURST": "1000"}, "flood_burst", 1000),
        ({"FLOOD_PER_SECOND": "0"}, "flood_per_second", 0.0),
        ({"FLOOD_PER_SECOND": "0.01"}, "flood_per_second", 0.01),
        ({"AI_WORKERS": "0"}, "ai_workers", 0),
        ({"AI_WORKERS": "8"}, "ai_workers", 8),
        ({"SHARD_COUNT": "100000"}, "shard_count", 100_000),
        ({"DISCORD_GUILD_ID": "1"}, "guild_id", 1),
        ({"DISCORD_GUILD_ID": str(2**64 - 1)}, "guild_id", 2**64 - 1),
        ({"WEB_PORT": "65535"}, "web_port", 65535),
        ({"METRICS_PORT": "1"}, "metrics_port", 1),
        ({"WEB_HOST": "::"}, "web_host", "::"),
        ({"WEB_HOST": "games.internal"}, "web_host", "games.internal"),
    ],
)
def test_the_ends_of_each_range_are_taken(
    env: dict[str, str], attribute: str, value: object
) -> None:
    chosen = getattr(settings(**env), attribute)
    assert chosen == value and type(chosen) is type(value)


def test_a_token_with_a_space_is_refused_without_showing_it() -> None:
    sentence = refusal(DISCORD_TOKEN="Bot secret-token-123")
    assert "secret-token-123" not in sentence and "a token is a secret" in sentence


def test_ai_workers_may_be_four_per_core_of_this_machine() -> None:
    assert Settings.from_env({"AI_WORKERS": "4"}, cores=1).ai_workers == 4
    with pytest.raises(SystemExit, match=r"from 0 to 4 .* this machine has 1;"):
        Settings.from_env({"AI_WORKERS": "5"}, cores=1)
    assert Settings.from_env({"AI_WORKERS": "64"}, cores=16).ai_workers == 64


def test_every_setting_the_code_reads_is_in_env_example() -> None:
    """``.env.example`` lists every setting (and each number's range)."""
    source = (ROOT / "cogs/helpers/config.py").read_text()
    read = set(re.findall(r'env\.get\("([A-Z_]+)"', source))
    numbers = [n for n in vars(config).values() if isinstance(n, config.Number)]
    example = (ROOT / ".env.example").read_text()
    assert read | {n.name for n in numbers} <= set(re.findall(r"^([A-Z_]+)=", example, re.M))
    for number in numbers:
        low, high = number.shown(number.low), number.shown(number.high)
        assert f"{low} to {high}" in example, number.name
    # nothing else in the code reads the environment for a setting
    for folder in ("cogs", "tables", "storage", "web"):
        for path in (ROOT / folder).rglob("*.py"):
            if path.name != "__main__.py" and path != ROOT / "cogs/helpers/config.py":
                text = path.read_text()
                assert "os.environ" not in text and "getenv(" not in text, path


def test_the_gates_numbers_have_defaults_and_can_be_set() -> None:
    default = settings()
    assert (default.shutdown_grace_seconds, default.rest_budget_per_second) == (10.0, 45)
    assert (default.timer_poll_seconds, default.ai_workers, default.guild_id) == (30.0, None, None)
    assert (default.flood_burst, default.flood_per_second) == (10, 2.0)
    chosen = settings(
        SHUTDOWN_GRACE_SECONDS="3",
        REST_BUDGET_PER_SECOND="15",
        FLOOD_BURST="0",
        FLOOD_PER_SECOND="0.5",
    )
    assert (chosen.shutdown_grace_seconds, chosen.rest_budget_per_second) == (3.0, 15)
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


# ------------------------------------------------------------ bot.py and bot.py --check


def closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def bot_py(*args: str, **settings: str) -> subprocess.CompletedProcess[str]:
    """``bot.py args`` with every setting blank but ``settings`` (a developer's ``.env``
    cannot leak in: the environment wins), Discord and the database at closed ports: a
    process that reached for either would say it could not reach them."""
    names = {n.name for n in vars(config).values() if isinstance(n, config.Number)}
    env = {**os.environ, **dict.fromkeys(names | {"SHARD_IDS", "WEB_HOST", "WEB_BASE_URL"}, "")}
    port = closed_port()
    env.update(
        DISCORD_TOKEN="a-token",
        DATABASE_URL=f"postgresql://nobody@127.0.0.1:{port}/x",
        FAKE_DISCORD_API=f"http://127.0.0.1:{port}/api/v10",
        FAKE_DISCORD_GATEWAY=f"ws://127.0.0.1:{port}/",
        PYTHONPATH=str(ROOT),
        **settings,
    )
    return subprocess.run(
        [sys.executable, "-m", "tests.e2e.fake_discord.run_bot", "bot.py", *args],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def test_run_and_check_refuse_a_value_alike_before_connecting() -> None:
    """What an operator found: ``nan`` was a traceback at start and passed the check.
    (Both read :meth:`Settings.from_env` first: the other values are tested above.)"""
    name, value = "REST_BUDGET_PER_SECOND", "nan"
    run, check = bot_py(**{name: value}), bot_py("--check", **{name: value})
    for result in (run, check):
        assert result.returncode == 1, result.stderr
        assert "Traceback" not in result.stdout + result.stderr
        assert result.stdout == ""  # not even the check's first line
        (line,) = result.stderr.splitlines()  # the sentence alone: nothing was reached
        assert line.startswith(f"{name} must be a ") and line.endswith(f"not '{value}'.")
    assert run.stderr == check.stderr


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
