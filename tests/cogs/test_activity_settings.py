"""The Activity's settings (``DISCORD_CLIENT_ID``, ``DISCORD_CLIENT_SECRET``) and what
``./dev check`` says of them."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from cogs.helpers.activity import flood_refusal
from cogs.helpers.check import ACTIVITY_BUNDLE, activity_sentence
from cogs.helpers.config import Settings
from cogs.helpers.gates import SLOW_DOWN, FloodGuard
from web.server import STATIC

SECRET = "s3cr3t-of-the-activity"


def test_both_settings_and_the_web_server_turn_the_activity_on() -> None:
    env = {"DISCORD_CLIENT_ID": "123456789012345678", "DISCORD_CLIENT_SECRET": SECRET}
    settings = Settings.from_env({**env, "WEB_PORT": "8080"}, cores=2)
    assert settings.activity and settings.client_id == 123456789012345678
    assert settings.client_secret == SECRET and SECRET not in repr(settings)
    assert not Settings.from_env(env, cores=2).activity  # no web server to serve it
    assert not Settings.from_env({"DISCORD_CLIENT_SECRET": SECRET}, cores=2).activity


@pytest.mark.parametrize(
    ("env", "said"),
    [
        ({"DISCORD_CLIENT_ID": "12ab"}, "DISCORD_CLIENT_ID must be an application id"),
        ({"DISCORD_CLIENT_SECRET": "two words"}, "DISCORD_CLIENT_SECRET must be the secret"),
    ],
)
def test_a_malformed_value_stops_with_a_sentence(env: dict[str, str], said: str) -> None:
    with pytest.raises(SystemExit) as stopped:
        Settings.from_env(env, cores=2)
    assert said in str(stopped.value) and "two words" not in str(stopped.value)


def test_the_check_says_why_the_activity_is_off_or_where_discord_must_point() -> None:
    assert "off (set DISCORD_CLIENT_ID and DISCORD_CLIENT_SECRET" in activity_sentence(
        None, False, 8080, None
    )
    assert "DISCORD_CLIENT_SECRET is not set" in activity_sentence(1, False, 8080, None)
    assert "DISCORD_CLIENT_ID is not set" in activity_sentence(None, True, 8080, None)
    assert "set WEB_PORT" in activity_sentence(1, True, None, None)
    assert "set WEB_BASE_URL" in activity_sentence(1, True, 8080, None)
    on = activity_sentence(1, True, 8080, "https://games.example.org/workshop")
    assert on.startswith("Discord Activity: on") and "games.example.org/workshop/activity" in on


def test_the_check_says_when_the_activitys_page_is_not_built() -> None:
    base = "https://games.example.org/workshop"
    built = activity_sentence(1, True, 8080, base, built=True)
    assert "not built" not in built
    unbuilt = activity_sentence(1, True, 8080, base, built=False)
    assert unbuilt.startswith(built)  # still on, and where Discord must point
    assert "page is not built yet" in unbuilt and "web/activity/build.sh" in unbuilt
    assert "not built" in activity_sentence(1, True, 8080, None, built=False)
    # off for want of a setting: that is what it says, not the build
    assert "not built" not in activity_sentence(None, True, 8080, base, built=False)
    assert "not built" not in activity_sentence(1, True, None, base, built=False)
    # the file the check looks for is the one the web server serves the page with
    assert (STATIC / "activity.js").resolve() == ACTIVITY_BUNDLE


def test_the_build_without_node_says_the_activity_is_unavailable_and_succeeds(
    tmp_path: Path,
) -> None:
    """A copy of web/activity (without its installed packages) built with a PATH that
    has only the tools the script needs besides Node.js and npm."""
    source = Path(__file__).resolve().parents[2] / "web" / "activity"
    copy = tmp_path / "web" / "activity"
    copy.mkdir(parents=True)
    (tmp_path / "web" / "static").mkdir()
    for name in ("build.sh", "package.json", "package-lock.json"):
        shutil.copy(source / name, copy / name)
    shutil.copytree(source / "src", copy / "src")
    tools = tmp_path / "bin"
    tools.mkdir()
    for tool in ("bash", "dirname", "flock", "cat", "sha256sum", "cut", "find", "sort"):
        found = shutil.which(tool)
        assert found is not None, tool
        (tools / tool).symlink_to(found)
    assert shutil.which("node", path=str(tools)) is None
    done = subprocess.run(
        [str(tools / "bash"), str(copy / "build.sh")],
        env={"PATH": str(tools), "LC_ALL": "C"},
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert (done.returncode, done.stderr) == (0, ""), done
    assert done.stdout == (
        "The Discord Activity is unavailable: Node.js and npm are not installed (install "
        "Node.js 18 or newer); the bot runs without it.\n"
    )
    assert not (tmp_path / "web" / "static" / "activity.js").exists()


def test_moves_in_the_activity_share_the_users_flood_allowance() -> None:
    guard = FloodGuard(burst=2, per_second=1.0, clock=lambda: 0.0)
    refused = flood_refusal(guard)
    assert guard.allow(7)  # a click in Discord …
    assert refused(7) is None  # … and a move in the Activity take from one allowance
    assert refused(7) == SLOW_DOWN and refused(8) is None
