"""``python bot.py --check`` against the fake Discord: the database (read only), the
token, the invite link, each server's missing permissions, a refused token; the start's
output (no voice warnings); and ``/newgame`` refusing, in one sentence, a channel where
the bot lacks a permission a game needs."""

from __future__ import annotations

import hashlib
import re
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

import storage
from bot import WorkshopBot
from cogs.helpers.permissions import NEEDED

from .bot_helpers import make_bot
from .fake_discord import FakeDiscord

SETTINGS = (
    "DATABASE_URL",
    "DISCORD_GUILD_ID",
    "SHARD_COUNT",
    "SHARD_IDS",
    "AI_WORKERS",
    "WEB_PORT",
    "WEB_HOST",
    "WEB_BASE_URL",
)


def clean_env(**settings: str) -> dict[str, str]:
    """Every setting a developer's .env might hold, blank (the environment wins over
    .env), then ``settings``."""
    return {**dict.fromkeys(SETTINGS, ""), **settings}


@pytest.fixture
def database_url(tmp_path: Path) -> str:
    """The check's database: a file not created yet (the check does not create it)."""
    return f"sqlite:///{tmp_path}/bot.db"


async def test_check_lists_each_server_and_what_the_bot_lacks_there(
    fake: FakeDiscord, database_url: str
) -> None:
    other = fake.add_guild("Craft Corner", owner=fake.add_user("carol"))
    fake.withhold_from_bot(other, "attach_files", "embed_links")
    env = clean_env(DATABASE_URL=database_url)
    status, out, err = await fake.run_script("bot.py", "--check", env=env)
    assert status == 1, (out, err)
    assert "Traceback" not in out + err
    assert "Token: accepted; the bot is Workshop Bot" in out
    link = re.search(r"Invite link: (\S+)", out)
    assert link is not None
    assert f"client_id={fake.application_id}&" in link[1]
    assert f"permissions={NEEDED.value}" in link[1] and "scope=bot+applications.commands" in link[1]
    assert f"Test Server (id {fake.guild.id}): every permission the bot needs" in out
    assert f"Craft Corner (id {other.id}): missing Embed Links and Attach Files" in out
    assert err.strip() == (
        f"In the server Craft Corner (id {other.id}) the bot lacks Embed Links and Attach "
        "Files: a server admin can give them to its role (Server Settings → Roles), or open "
        "the invite link again and authorize it into that server."
    )
    # REST only: the check never opened a gateway session
    assert "IDENTIFY" not in fake.gateway_log
    assert {r.path for r in fake.requests} <= {
        "/users/@me",
        "/oauth2/applications/@me",
        "/users/@me/guilds",
    }


async def test_check_passes_when_every_server_gives_what_is_needed(
    fake: FakeDiscord, database_url: str
) -> None:
    env = clean_env(DISCORD_GUILD_ID=str(fake.guild.id), DATABASE_URL=database_url)
    status, out, err = await fake.run_script("bot.py", "--check", env=env)
    assert (status, err) == (0, ""), out
    assert "Ready: start the bot with ./dev run" in out
    assert "Web pages: off (set WEB_PORT" in out
    path = storage.sqlite_path(database_url)
    assert f"Database: {path} does not exist yet; the bot creates it at its first start." in out
    assert not path.exists()  # nor did the check create it


async def test_check_prints_where_the_game_pages_are(fake: FakeDiscord, database_url: str) -> None:
    env = clean_env(
        WEB_PORT="8080", WEB_BASE_URL="https://games.example.org", DATABASE_URL=database_url
    )
    status, out, err = await fake.run_script("bot.py", "--check", env=env)
    assert (status, err) == (0, ""), out
    assert (
        "Web pages: on; each game's page is https://games.example.org/g/<its token> (each "
        "game's board in Discord links to it)." in out
    )


async def test_check_names_a_guild_id_the_bot_is_not_in(
    fake: FakeDiscord, database_url: str
) -> None:
    env = clean_env(DISCORD_GUILD_ID="42", DATABASE_URL=database_url)
    status, _, err = await fake.run_script("bot.py", "--check", env=env)
    assert status == 1
    assert "DISCORD_GUILD_ID is 42, but the bot is not in that server" in err


async def test_check_says_discord_refused_the_token(fake: FakeDiscord, database_url: str) -> None:
    env = clean_env(DISCORD_TOKEN="not-the-token", DATABASE_URL=database_url)
    status, out, err = await fake.run_script("bot.py", "--check", env=env)
    assert status == 1
    assert "Traceback" not in out + err
    assert err.startswith("Discord refused the token")


# ------------------------------------------------------------ the check's database


async def test_check_counts_the_games_of_a_database_and_changes_nothing(
    fake: FakeDiscord, database_url: str
) -> None:
    async with await storage.open(database_url) as store:
        for channel in (1, 2):
            await store.create_lobby(
                guild_id=1,
                channel_id=channel,
                kind="workshop",
                options=None,
                host_id=7,
                host_name="Ann",
            )
        await store.abandon((await store.list_games())[0].id)
    path = storage.sqlite_path(database_url)
    before = hashlib.sha256(path.read_bytes()).digest()
    env = clean_env(DATABASE_URL=database_url, DISCORD_GUILD_ID=str(fake.guild.id))
    status, out, err = await fake.run_script("bot.py", "--check", env=env)
    assert (status, err) == (0, ""), out
    assert (
        f"Database: {path}, schema version {storage.LATEST_VERSION} (up to date).\n"
        "Games: 1 in a lobby, 1 abandoned (2 in all).\n"
    ) in out
    assert hashlib.sha256(path.read_bytes()).digest() == before


async def test_check_says_an_unreachable_database_as_the_start_does(fake: FakeDiscord) -> None:
    url = "postgresql://nobody@127.0.0.1:1/x"
    status, out, err = await fake.run_script("bot.py", "--check", env=clean_env(DATABASE_URL=url))
    assert status == 1
    assert "Traceback" not in out + err
    with pytest.raises(storage.StorageError) as opened:  # what ./dev run stops with
        await storage.open(url)
    assert err.splitlines()[0] == str(opened.value)
    assert err.startswith("Cannot connect to the database postgresql://nobody@127.0.0.1:1/x: ")
    assert "Token: accepted" in out  # the rest of the check went on


# ------------------------------------------------------------ at start-up


async def test_start_up_prints_the_invite_link_and_warns_of_a_server_lacking_permissions(
    fake: FakeDiscord, tmp_path: Path
) -> None:
    other = fake.add_guild("Craft Corner", owner=fake.add_user("carol"))
    fake.withhold_from_bot(other, "attach_files")
    env = clean_env(DATABASE_URL=f"sqlite:///{tmp_path}/bot.db", AI_WORKERS="0")
    process = await fake.start_bot_process("bot.py", env=env)
    log = fake.process_logs[process.pid]
    await fake.wait_for(lambda: "ready as" in log.read_text(), timeout=10, what="on_ready")
    assert await fake.stop_bot_process(process) == 0
    output = log.read_text()
    link = f"client_id={fake.application_id}&scope=bot+applications.commands&permissions="
    assert link + str(NEEDED.value) in output
    assert f"server Craft Corner ({other.id}): my roles do not give me Attach Files" in output
    assert "Test Server" not in output  # it has everything
    # the bot has no voice: discord.py's warnings of voice's missing libraries are off
    assert "PyNaCl" not in output and "davey" not in output, output
    assert "voice will NOT be supported" not in output


async def test_a_guild_id_of_a_server_the_bot_is_not_in_stops_it_with_a_sentence(
    fake: FakeDiscord, tmp_path: Path
) -> None:
    env = clean_env(DATABASE_URL=f"sqlite:///{tmp_path}/bot.db", AI_WORKERS="0")
    env["DISCORD_GUILD_ID"] = "42"
    status, out, err = await fake.run_script("bot.py", env=env)
    assert status == 1
    assert "Traceback" not in out + err
    assert "DISCORD_GUILD_ID is 42, but Discord does not let the bot add its commands" in err
    assert err.rstrip().endswith("The bot did not start.")


# ------------------------------------------------------------ /newgame's own check


@pytest.fixture
async def bot(fake: FakeDiscord, tmp_path: Path) -> AsyncIterator[WorkshopBot]:
    yield await fake.start_bot(make_bot(fake, f"sqlite:///{tmp_path}/bot.db"))


@pytest.mark.parametrize(
    ("denied", "named"),
    [
        (("attach_files",), "Attach Files"),
        (("embed_links", "read_message_history"), "Embed Links and Read Message History"),
        # with a thread it posts in the thread: Send Messages in the channel is not needed
        (("send_messages_in_threads",), "Send Messages in Threads"),
        # without threads the game is played in the channel: then it needs Send Messages
        (("create_public_threads", "send_messages"), "Send Messages"),
    ],
)
async def test_newgame_names_the_missing_permission_and_opens_nothing(
    fake: FakeDiscord, bot: WorkshopBot, denied: tuple[str, ...], named: str
) -> None:
    fake.deny_bot(fake.channel, *denied)
    alice = fake.add_user("alice")
    result = await fake.slash(alice, fake.channel, "newgame", game="workshop")
    assert result.ephemeral
    assert result.content == (
        f"I cannot run a game in this channel: I am missing the {named} permission"
        f"{'s' if ' and ' in named else ''} here. A server admin can give "
        f"{'them' if ' and ' in named else 'it'} to me (Server Settings → Roles, or this "
        "channel's permissions); then try /newgame again."
    )
    assert [m for m in fake.messages(fake.channel) if not m.ephemeral] == []
    assert await bot.store.list_games(statuses=["lobby"]) == []
    fake.allow_bot(fake.channel, *denied)
    opened = await fake.slash(alice, fake.channel, "newgame", game="workshop")
    assert not opened.ephemeral and opened.message is not None
