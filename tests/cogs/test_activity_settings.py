"""The Activity's settings (``DISCORD_CLIENT_ID``, ``DISCORD_CLIENT_SECRET``) and what
``./dev check`` says of them."""

from __future__ import annotations

import pytest

from cogs.helpers.activity import flood_refusal
from cogs.helpers.check import activity_sentence
from cogs.helpers.config import Settings
from cogs.helpers.gates import SLOW_DOWN, FloodGuard

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


def test_moves_in_the_activity_share_the_users_flood_allowance() -> None:
    guard = FloodGuard(burst=2, per_second=1.0, clock=lambda: 0.0)
    refused = flood_refusal(guard)
    assert guard.allow(7)  # a click in Discord …
    assert refused(7) is None  # … and a move in the Activity take from one allowance
    assert refused(7) == SLOW_DOWN and refused(8) is None
