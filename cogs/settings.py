"""``/settings``: a server admin chooses the language of the server's public text, and
whether its games have pages on the web.

Public text (lobbies, game threads, pictures) follows the server's Discord language
unless an admin chose one here; what each member reads privately always follows
their own Discord language (:mod:`cogs.helpers.language`). The choice is stored per server
(``guild_settings``) and takes effect at the next public post of every table.

Game pages (``tables/pages.py``: each game's live board and replay on the web, when the
bot has a public address, ``WEB_BASE_URL``) are on unless an admin turns them off here:
then the boards carry no links from their next edit on, and the pages answer "not
found" (``Storage.set_guild_web_links``).

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
PAGES_ON, PAGES_OFF = "on", "off"
PAGES_CHOICES = [
    app_commands.Choice(name=N_("On"), value=PAGES_ON),
    app_commands.Choice(name=N_("Off"), value=PAGES_OFF),
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
        language=N_("The language of lobbies, game threads and pictures on this server"),
        pages=N_("Each game's page on the web (live board and replay), linked from its thread"),
    )
    @app_commands.choices(language=LANGUAGE_CHOICES, pages=PAGES_CHOICES)
    @app_commands.default_permissions(manage_guild=True)
    @app_commands.guild_only()
    async def settings(
        self,
        interaction: discord.Interaction,
        language: app_commands.Choice[str] | None = None,
        pages: app_commands.Choice[str] | None = None,
    ) -> None:
        async def work() -> None:
            await self._settings(
                interaction,
                None if language is None else language.value,
                None if pages is None else pages.value,
            )

        await guarded(interaction, work)

    async def _settings(
        self, interaction: discord.Interaction, language: str | None, pages: str | None = None
    ) -> None:
        words = private(interaction)
        guild = interaction.guild
        if guild is None:
            await reply(interaction, words.gettext("Use this on a server."))
            return
        if pages not in (None, PAGES_ON, PAGES_OFF):
            await reply(
                interaction,
                words.gettext("Choose {on} or {off} for the game pages.").format(
                    on=words.gettext("On"), off=words.gettext("Off")
                ),
            )
            return
        texts = []
        if language is not None or pages is None:
            text = await self._language(interaction, guild.id, language)
            if text is None:
                return  # refused, and said why
            texts.append(text)
        if pages is not None:
            await self.bot.store.set_guild_web_links(guild.id, pages == PAGES_ON)
        if pages is not None or self.bot.settings.web_base_url is not None:
            texts.append(await self._pages(interaction, guild.id))
        await reply(interaction, "\n".join(texts))

    async def _pages(self, interaction: discord.Interaction, guild_id: int) -> str:
        """How the server's game pages stand (just changed, or asked for)."""
        words = private(interaction)
        if await self.bot.store.guild_web_links(guild_id):
            text = words.gettext(
                "Game pages are on for this server: each game's board links to its live "
                "page and, once the game has ended, to its replay."
            )
        else:
            text = words.gettext(
                "Game pages are off for this server: no links are posted, and the pages "
                "answer 'not found'."
            )
        if self.bot.settings.web_base_url is None:
            text += " " + words.gettext(
                "(This bot has no web address yet: it posts no links until whoever runs it "
                "sets one.)"
            )
        return text

    async def _language(
        self, interaction: discord.Interaction, guild_id: int, language: str | None
    ) -> str | None:
        """The sentence on the server's language: how it stands (``language`` is
        ``None``), or what changed; ``None`` when refused (the user was told why)."""
        words = private(interaction)
        reader = i18n.language(interaction.locale)
        languages = self.bot.languages
        if language is None:
            chosen = await languages.chosen(guild_id)
            current = i18n.name_of(await languages.of_guild(guild_id), reader)
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
            return text.format(language=current)
        if language != FOLLOW_DISCORD and language not in i18n.LANGUAGES:
            await reply(
                interaction,
                words.gettext("I don't speak {language!r} yet; choose one of {known}.").format(
                    language=language, known=", ".join(i18n.LANGUAGES)
                ),
            )
            return None
        await languages.choose(guild_id, None if language == FOLLOW_DISCORD else language)
        now = i18n.name_of(await languages.of_guild(guild_id), reader)
        return words.gettext(
            "From now on the games' public text on this server is in {language}: "
            "lobbies, game threads (from their next post on) and pictures. Each member "
            "still reads their own private answers in their own Discord language."
        ).format(language=now)


async def setup(bot: Host) -> None:
    await bot.add_cog(Settings(bot))
