"""The slash commands' translator: descriptions and choices from the
catalogue, names never, languages in their own names."""

from __future__ import annotations

from typing import Any

import discord
from discord import app_commands
from discord.app_commands import TranslationContext
from discord.app_commands import TranslationContextLocation as Where

from cogs.settings import CatalogueTranslator

DESCRIPTION = "This server's settings: the language of the games"


async def _translate(text: str, locale: discord.Locale, where: Where) -> str | None:
    context: Any = TranslationContext(location=where, data=None)
    return await CatalogueTranslator().translate(app_commands.locale_str(text), locale, context)


async def test_descriptions_and_choices_are_translated_for_german_clients() -> None:
    german = "Einstellungen dieses Servers: die Sprache der Spiele"
    assert await _translate(DESCRIPTION, discord.Locale.german, Where.command_description) == german
    shown = await _translate(
        "The server's Discord language", discord.Locale.german, Where.choice_name
    )
    assert shown == "Die Discord-Sprache des Servers"


async def test_names_languages_and_unknown_text_are_left_alone() -> None:
    for where in (Where.command_name, Where.parameter_name, Where.group_name):
        assert await _translate(DESCRIPTION, discord.Locale.german, where) is None
    assert await _translate("Deutsch", discord.Locale.german, Where.choice_name) is None
    assert await _translate("English", discord.Locale.german, Where.choice_name) is None
    assert await _translate("Not a template", discord.Locale.german, Where.other) is None
    for locale in (discord.Locale.american_english, discord.Locale.french):
        assert await _translate(DESCRIPTION, locale, Where.command_description) is None
