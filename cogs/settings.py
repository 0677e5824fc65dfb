"""``/settings``: a server admin chooses the language of the server's public text.

Public text (lobbies, game threads, pictures) follows the server's Discord language
unless an admin chose one here; what each member reads privately always follows
their own Discord language (:mod:`cogs.helpers.language`). The choice is stored per server
(``guild_settings``) and takes effect at the next public post of every table.

Who may use it is Discord's to say: members with Manage Server by default
(``default_permissions``), or whoever a server admin allows in the server's
Integrations settings; Discord shows the command to nobody else.

The command and its option keep their English names in every language, as all the
bot's commands do; descriptions and choices are translated (:class:`CatalogueTranslator`,
``docs/i18n.md`` says why).
"""

from __future__ import annotations

import discord
from discord import app_commands
from discord.app_commands import TranslationContextLocation as Where
from discord.ext import commands

import i18n
from cogs.helpers.common import guarded, reply
from cogs.helpers.host import Host
from cogs.helpers.language import private
from engine.words import N_

LANGUAGE_NAMES = frozenset(i18n.name_of(code) for code in i18n.LANGUAGES)
FOLLOW_DISCORD = "discord"
"""The choice that clears a server's language: public text follows Discord's again."""
LANGUAGE_CHOICES = [
    *(app_commands.Choice(name=i18n.name_of(code), value=code) for code in i18n.LANGUAGES),
    app_commands.Choice(name=N_("The server's Discord language"), value=FOLLOW_DISCORD),
]


class CatalogueTranslator(app_commands.Translator):
    """Slash commands' descriptions and choice names from the gettext catalogues.

    Command and option names are never translated (``/newgame`` everywhere), nor are
    the languages' own names (a German is offered "English", an English speaker
    "Deutsch"). Everything else the tree holds is an ``N_`` template."""

    KEEP = frozenset({Where.command_name, Where.group_name, Where.parameter_name})

    async def translate(
        self,
        string: app_commands.locale_str,
        locale: discord.Locale,
        context: app_commands.TranslationContextTypes,
    ) -> str | None:
        code = i18n.language(locale)
        if code == i18n.SOURCE or context.location in self.KEEP:
            return None
        if string.message in LANGUAGE_NAMES:
            return None
        translated = i18n.words(code).gettext(string.message)
        return None if translated == string.message else translated


class Settings(commands.Cog):
    def __init__(self, bot: Host) -> None:
        self.bot = bot

    @app_commands.command(
        name="settings", description=N_("This server's settings: the language of the games")
    )
    @app_commands.describe(
        language=N_("The language of lobbies, game threads and pictures on this server")
    )
    @app_commands.choices(language=LANGUAGE_CHOICES)
    @app_commands.default_permissions(manage_guild=True)
    @app_commands.guild_only()
    async def settings(
        self,
        interaction: discord.Interaction,
        language: app_commands.Choice[str] | None = None,
    ) -> None:
        async def work() -> None:
            await self._settings(interaction, None if language is None else language.value)

        await guarded(interaction, work)

    async def _settings(self, interaction: discord.Interaction, language: str | None) -> None:
        words = private(interaction)
        reader = i18n.language(interaction.locale)
        guild = interaction.guild
        if guild is None:
            await reply(interaction, words.gettext("Use this on a server."))
            return
        languages = self.bot.languages
        if language is None:
            chosen = await languages.chosen(guild.id)
            current = i18n.name_of(await languages.of_guild(guild.id), reader)
            if chosen is None:
                text = words.gettext(
                    "The games' public text on this server is in {language}, the server's "
                    "Discord language. A server admin can choose another with /settings."
                )
            else:
                text = words.gettext(
                    "The games' public text on this server is in {language}, as a server "
                    "admin chose with /settings."
                )
            await reply(interaction, text.format(language=current))
            return
        if language != FOLLOW_DISCORD and language not in i18n.LANGUAGES:
            await reply(
                interaction,
                words.gettext("I don't speak {language!r} yet; choose one of {known}.").format(
                    language=language, known=", ".join(i18n.LANGUAGES)
                ),
            )
            return
        await languages.choose(guild.id, None if language == FOLLOW_DISCORD else language)
        now = i18n.name_of(await languages.of_guild(guild.id), reader)
        await reply(
            interaction,
            words.gettext(
                "From now on the games' public text on this server is in {language}: "
                "lobbies, game threads (from their next post on) and pictures. Each member "
                "still reads their own private answers in their own Discord language."
            ).format(language=now),
        )


async def setup(bot: Host) -> None:
    await bot.add_cog(Settings(bot))
