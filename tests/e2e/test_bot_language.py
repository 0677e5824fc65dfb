"""Languages on the fake Discord: the slash commands' German descriptions,
``/settings language``, and which language a server's public text is in."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import discord
import pytest

import i18n
from bot import WorkshopBot

from .bot_helpers import make_bot
from .fake_discord import FakeDiscord, HarnessError

SENTENCE, GERMAN = "Use this on a server.", "Nutze das auf einem Server."


@pytest.fixture
async def bot(fake: FakeDiscord, tmp_path: Path) -> AsyncIterator[WorkshopBot]:
    yield await fake.start_bot(make_bot(fake, f"sqlite:///{tmp_path}/bot.db"))


def _synced(fake: FakeDiscord) -> list[dict[str, Any]]:
    commands = fake.global_commands or next(iter(fake.guild_commands.values()), [])
    assert commands, "the bot synced no commands"
    return commands


def _described(command: dict[str, Any]) -> Iterator[dict[str, Any]]:
    """The command and every option and choice in it: all that has a description or a
    displayed name."""
    yield command
    for option in command.get("options") or []:
        yield from _described(option)
    yield from command.get("choices") or []


async def test_every_command_keeps_its_name_and_has_german_descriptions(
    fake: FakeDiscord, bot: WorkshopBot
) -> None:
    german = i18n.words("de")
    for command in _synced(fake):
        assert not command.get("name_localizations"), command["name"]  # /newgame everywhere
        for part in _described(command):
            if "description" in part:
                localized = (part.get("description_localizations") or {}).get("de")
                assert localized, f"/{command['name']}: no German for {part['description']!r}"
                assert localized == german.gettext(part["description"])
                assert len(localized) <= 100
            elif "value" in part:  # a choice: its shown name
                names = part.get("name_localizations") or {}
                if part["name"] in {i18n.name_of(code) for code in i18n.LANGUAGES}:
                    assert not names  # a language is offered in its own name
                elif german.gettext(part["name"]) == part["name"]:
                    assert not names  # the same word in German ("normal"): nothing to add
                else:
                    assert names.get("de") == german.gettext(part["name"])
            for key in ("name_localizations", "description_localizations"):
                assert set(part.get(key) or {}) <= {"de"}  # only languages the bot speaks
    settings = next(c for c in _synced(fake) if c["name"] == "settings")
    assert settings["description_localizations"]["de"] == (
        "Einstellungen dieses Servers: die Sprache der Spiele"
    )


async def test_an_admin_sets_the_servers_language(fake: FakeDiscord, bot: WorkshopBot) -> None:
    settings = next(c for c in _synced(fake) if c["name"] == "settings")
    assert (
        int(settings["default_member_permissions"]) == discord.Permissions(manage_guild=True).value
    )
    admins = fake.add_role("admins", manage_guild=True)
    olga = fake.add_user("olga", roles=[admins])
    jonas = fake.add_user("jonas", roles=[admins], locale="de")
    guild = fake.guild.id

    asked = await fake.slash(jonas, fake.channel, "settings")
    assert asked.ephemeral
    assert asked.content == (
        "Die öffentlichen Texte der Spiele sind auf diesem Server auf Englisch, der "
        "Discord-Sprache des Servers. Ein Server-Admin kann mit /settings eine andere wählen."
    )
    assert await bot.languages.of_guild(guild) == "en"

    done = await fake.slash(olga, fake.channel, "settings", language="de")
    assert done.ephemeral
    assert done.content.startswith("From now on the games' public text on this server is in German")
    assert await bot.store.guild_language(guild) == "de"
    assert await bot.languages.of_guild(guild) == "de"
    assert (await bot.languages.public(guild)).gettext(SENTENCE) == GERMAN

    again = await fake.slash(jonas, fake.channel, "settings")
    assert "auf Deutsch, wie ein Server-Admin mit /settings gewählt hat" in again.content

    cleared = await fake.slash(olga, fake.channel, "settings", language="discord")
    assert "is in English" in cleared.content
    assert await bot.store.guild_language(guild) is None


async def test_members_without_manage_server_do_not_see_settings(
    fake: FakeDiscord, bot: WorkshopBot
) -> None:
    jonas = fake.add_user("jonas", locale="de")
    with pytest.raises(HarnessError, match="does not see /settings"):
        await fake.slash(jonas, fake.channel, "settings", language="de")
    assert await bot.store.guild_language(fake.guild.id) is None


async def test_a_german_server_speaks_german_until_an_admin_chooses_english(
    fake: FakeDiscord, bot: WorkshopBot
) -> None:
    guild = fake.guild.id
    assert await bot.languages.of_guild(guild) == "en"
    fake.set_locale(fake.guild, "de")  # the server's own Discord language changes
    for _ in range(100):
        if await bot.languages.of_guild(guild) == "de":
            break
        await fake.settle()
    assert await bot.languages.of_guild(guild) == "de"
    await bot.languages.choose(guild, "en")
    assert await bot.languages.of_guild(guild) == "en"


async def test_a_players_own_language_is_remembered_for_their_dms(
    fake: FakeDiscord, bot: WorkshopBot
) -> None:
    jonas = fake.add_user("jonas", locale="de")
    anna = fake.add_user("anna")
    guild = fake.guild.id
    # nobody has used the bot yet: a DM is in the server's language
    assert (await bot.languages.of_user(jonas.id, guild)).gettext(SENTENCE) == SENTENCE
    await fake.slash(jonas, fake.channel, "rules")
    await fake.slash(anna, fake.channel, "rules")
    assert (await bot.languages.of_user(jonas.id, guild)).gettext(SENTENCE) == GERMAN
    assert (await bot.languages.of_user(anna.id, guild)).gettext(SENTENCE) == SENTENCE
