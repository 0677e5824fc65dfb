"""cogs/helpers/permissions.py: the permissions the bot asks for, and what a game needs
in a channel."""

from __future__ import annotations

import doctest
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import discord

import i18n
from cogs import lobby
from cogs.helpers import check, permissions
from cogs.helpers.permissions import NEEDED, invite_url, listed, missing, missing_for_a_game

P = discord.Permissions


def test_the_bot_asks_for_what_it_uses_and_nothing_more() -> None:
    # discord.py iterates View Channel by its older name, read_messages
    assert {name for name, on in NEEDED if on} == {
        "read_messages",
        "send_messages",
        "create_public_threads",
        "send_messages_in_threads",
        "embed_links",
        "attach_files",
        "read_message_history",
    }
    assert not NEEDED.administrator and not NEEDED.manage_threads
    assert P(**dict.fromkeys(permissions.LABELS, True)) == NEEDED


def test_the_invite_link_carries_the_id_the_permission_integer_and_both_scopes() -> None:
    query = parse_qs(urlsplit(invite_url(1234)).query)
    assert query["client_id"] == ["1234"]
    assert query["permissions"] == [str(NEEDED.value)]
    assert query["scope"] == ["bot applications.commands"]
    assert "client_id=APPLICATION_ID" in invite_url("APPLICATION_ID")


def test_missing_names_each_lacking_permission_as_discord_does() -> None:
    have = P(NEEDED.value)
    assert missing(have) == []
    have.attach_files = False
    have.read_message_history = False
    assert missing(have) == ["Attach Files", "Read Message History"]
    assert missing(P(administrator=True)) == []
    assert len(missing(P.none())) == len(permissions.LABELS)


def test_a_game_needs_thread_posting_with_threads_and_channel_posting_without() -> None:
    everything = P(NEEDED.value)
    assert missing_for_a_game(everything) == []
    in_threads = P(NEEDED.value)
    in_threads.send_messages = False  # the game is played in its thread: not needed
    assert missing_for_a_game(in_threads) == []
    broken_threads = P(NEEDED.value)
    broken_threads.send_messages_in_threads = False  # a thread it could not post in
    assert missing_for_a_game(broken_threads) == ["Send Messages in Threads"]
    in_channel = P(NEEDED.value)
    in_channel.create_public_threads = in_channel.send_messages_in_threads = False
    assert missing_for_a_game(in_channel) == []  # played in the channel (README)
    in_channel.send_messages = False
    assert missing_for_a_game(in_channel) == ["Send Messages"]


def test_listed_joins_names_in_a_sentence() -> None:
    assert listed(["A", "B", "C"]) == "A, B and C"


def test_players_read_the_permissions_as_discords_german_settings_name_them() -> None:
    """/newgame's sentence in the user's language (``--check`` stays English)."""
    de = i18n.words("de")
    assert listed(["Embed Links", "Attach Files"], de) == "Links einbetten und Dateien anhängen"
    one = lobby.lacking_sentence(["Attach Files"], de)
    assert one.startswith("In diesem Kanal kann ich kein Spiel leiten: Mir fehlt hier die ")
    assert "Berechtigung Dateien anhängen." in one
    two = lobby.lacking_sentence(["Embed Links", "Attach Files"], de)
    assert "Mir fehlen hier die Berechtigungen Links einbetten und Dateien anhängen." in two
    assert lobby.lacking_sentence(["Embed Links", "Attach Files"]).startswith(
        "I cannot run a game in this channel: I am missing the Embed Links and Attach Files "
        "permissions here. A server admin can give them to me"
    )


def test_the_doctests_of_the_setup_modules() -> None:
    # cogs/ is not among pytest's doctest paths: run these modules' examples here.
    for module in (permissions, check, lobby):
        assert doctest.testmod(module).failed == 0


def test_the_readme_shows_the_invite_link_the_bot_builds() -> None:
    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text()
    assert invite_url("APPLICATION_ID") in readme
    assert f"(integer {NEEDED.value})" in readme
    for label in permissions.LABELS.values():
        assert label in readme
