"""A person's mistake outside the game menus ends in a sentence, never a traceback.

Each case runs the real command as a subprocess (``bot.py``, ``./dev``), with the
settings in its environment (blank ones too, so a developer's ``.env`` cannot leak in:
the environment wins over ``.env``) and no real network: Discord is pointed at a closed
local port or a host that cannot resolve, through the fake Discord's runner
(``tests/e2e/fake_discord/run_bot.py``, which only moves discord.py's base URL).
"""

from __future__ import annotations

import hashlib
import os
import socket
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SETTINGS = (
    "DISCORD_TOKEN",
    "DATABASE_URL",
    "DISCORD_GUILD_ID",
    "TIMER_POLL_SECONDS",
    "AI_WORKERS",
    "SHARD_COUNT",
    "SHARD_IDS",
    "SHUTDOWN_GRACE_SECONDS",
    "REST_BUDGET_PER_SECOND",
    "FLOOD_BURST",
    "FLOOD_PER_SECOND",
)


def closed_port() -> int:
    """A local port nothing listens on (bound, then released)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def run(
    *command: str, tmp_path: Path, discord_at: str | None = None, **settings: str
) -> subprocess.CompletedProcess[str]:
    """``command`` in the project, every setting blank but ``settings`` (a token and a
    database in ``tmp_path`` by default); ``discord_at``: the base URL Discord's REST is
    reached at (through the fake's runner)."""
    env = {**os.environ, **dict.fromkeys(SETTINGS, "")}
    env.update(DISCORD_TOKEN="a-token", DATABASE_URL=f"sqlite:///{tmp_path}/bot.db")
    env.update(settings)
    env["PYTHONPATH"] = str(ROOT)
    if discord_at is not None:
        env.update(FAKE_DISCORD_API=discord_at, FAKE_DISCORD_GATEWAY="ws://127.0.0.1:9/")
        command = (sys.executable, "-m", "tests.e2e.fake_discord.run_bot", *command[1:])
    return subprocess.run(
        command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=60, check=False
    )


def refused(result: subprocess.CompletedProcess[str], sentence: str) -> None:
    """Non-zero, ``sentence`` on stderr, no traceback anywhere."""
    assert result.returncode != 0, result.stdout + result.stderr
    assert "Traceback" not in result.stderr + result.stdout, result.stderr
    assert sentence in result.stderr, result.stderr


BOT = (sys.executable, "bot.py")


MALFORMED = [
    ("TIMER_POLL_SECONDS", "soon", "TIMER_POLL_SECONDS must be a number of seconds from 0.1"),
    ("DISCORD_GUILD_ID", "my-server", "DISCORD_GUILD_ID must be a server id from 1 to"),
    ("DATABASE_URL", "mysql://db/bot", "DATABASE_URL must look like sqlite:///path/to/file.db"),
    ("DATABASE_URL", "sqlite:///:memory:", "DATABASE_URL must name a database file"),
    ("AI_WORKERS", "many", "AI_WORKERS must be a whole number of processes from 0 to"),
    ("DATABASE_URL", "postgresql://bot@db:port/bot", "DATABASE_URL has a port that is not a"),
]


@pytest.mark.parametrize(("name", "value", "sentence"), MALFORMED)
def test_a_malformed_setting(tmp_path: Path, name: str, value: str, sentence: str) -> None:
    result = run(*BOT, tmp_path=tmp_path, **{name: value})
    refused(result, sentence)
    assert len(result.stderr.strip().splitlines()) == 1  # the sentence, nothing else


def test_a_database_file_that_is_not_a_database(tmp_path: Path) -> None:
    (tmp_path / "bot.db").write_bytes(b"these are my notes, not a database\n" * 100)
    result = run(*BOT, tmp_path=tmp_path, discord_at=f"http://127.0.0.1:{closed_port()}/api/v10")
    refused(
        result, f"{tmp_path}/bot.db is not a readable SQLite database (file is not a database)."
    )
    assert "Cannot reach Discord" not in result.stderr  # the database is checked first


def test_a_database_where_no_folder_can_be_made(tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("a file, not a folder")
    url = f"sqlite:///{tmp_path}/notes.txt/bot.db"
    closed = f"http://127.0.0.1:{closed_port()}/api/v10"
    result = run(*BOT, tmp_path=tmp_path, discord_at=closed, DATABASE_URL=url)
    refused(result, f"Cannot create the folder of the database {tmp_path}/notes.txt/bot.db")
    assert "Cannot reach Discord" not in result.stderr  # not taken for a network error


def test_a_database_from_a_newer_version(tmp_path: Path) -> None:
    with sqlite3.connect(tmp_path / "bot.db") as db:
        db.execute("PRAGMA user_version = 999")
    result = run(*BOT, tmp_path=tmp_path, discord_at=f"http://127.0.0.1:{closed_port()}/api/v10")
    refused(result, "has schema version 999, but this version of the bot only knows versions")
    with sqlite3.connect(tmp_path / "bot.db") as db:
        assert db.execute("PRAGMA user_version").fetchone() == (999,)  # unchanged


@pytest.mark.parametrize(
    "discord_at",
    ["http://127.0.0.1:{port}/api/v10", "http://discord.invalid/api/v10"],
    ids=["connection-refused", "dns-failure"],
)
@pytest.mark.parametrize("check", [False, True], ids=["start", "check"])
def test_no_network_is_one_line(tmp_path: Path, discord_at: str, check: bool) -> None:
    url = discord_at.format(port=closed_port())
    result = run(*BOT, *(["--check"] if check else []), tmp_path=tmp_path, discord_at=url)
    refused(result, "Cannot reach Discord at ")
    (line,) = [line for line in result.stderr.splitlines() if "Cannot reach Discord" in line]
    assert line.endswith("check this machine's network connection, then try again.")
    assert result.returncode == 1


def test_no_token_explains_how_to_get_one_and_the_invite_link(tmp_path: Path) -> None:
    result = run(*BOT, tmp_path=tmp_path, DISCORD_TOKEN="")
    refused(result, "No DISCORD_TOKEN is set.")
    assert result.returncode == 2
    assert "client_id=APPLICATION_ID&scope=bot+applications.commands&permissions=" in result.stderr


def test_an_unknown_option_of_bot_py(tmp_path: Path) -> None:
    result = run(*BOT, "--chek", tmp_path=tmp_path)
    refused(result, "unrecognized arguments: --chek")
    assert result.returncode == 2


# ------------------------------------------------------------ ./dev


def test_an_unknown_dev_command_prints_the_help_with_status_2(tmp_path: Path) -> None:
    result = run("./dev", "start", tmp_path=tmp_path)
    refused(result, "./dev: unknown command 'start'.")
    assert result.returncode == 2
    assert "./dev run" in result.stderr and "./dev play" in result.stderr


def dev_is_set_up() -> bool:
    """``./dev play`` sets .venv up first; where ``./dev test`` did not (the tests were
    started another way), that would mean installing packages during a test."""
    digest = hashlib.sha1((ROOT / "pyproject.toml").read_bytes()).hexdigest()[:12]
    return any(
        (ROOT / ".venv" / f".installed-{kind}-{digest}").exists() for kind in ("run", "test")
    )


@pytest.mark.skipif(not dev_is_set_up(), reason="./dev has not set up .venv (run ./dev test)")
def test_dev_play_help_shows_the_play_options(tmp_path: Path) -> None:
    result = run("./dev", "play", "--help", tmp_path=tmp_path)
    assert result.returncode == 0, result.stderr
    assert "Traceback" not in result.stderr + result.stdout
    assert result.stdout.startswith("usage: ./dev play ")  # named as typed
    assert "[game] [players]" in result.stdout and "--opponents" in result.stdout


@pytest.mark.skipif(not dev_is_set_up(), reason="./dev has not set up .venv (run ./dev test)")
@pytest.mark.parametrize("args", [("tonttu", "4"), ("tonttu", "4", "--opponents", "greedy")])
def test_dev_play_takes_the_game_and_players_by_position(
    tmp_path: Path, args: tuple[str, ...]
) -> None:
    result = subprocess.run(
        ["./dev", "play", *args],
        cwd=ROOT,
        input="q\n",
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    assert "Workshop Tonttu" in result.stdout and "Bye." in result.stdout


@pytest.mark.skipif(not dev_is_set_up(), reason="./dev has not set up .venv (run ./dev test)")
def test_dev_play_with_a_wrong_player_count_is_a_sentence(tmp_path: Path) -> None:
    result = run("./dev", "play", "workshop", "6", tmp_path=tmp_path)
    refused(result, "Santa's Workshop is played by 2 to 5 players, not 6.")
    assert result.returncode == 2
