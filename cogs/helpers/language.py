"""Which language a text is in (``docs/i18n.md``).

- Private text (an ephemeral answer, a panel, a DM, ``/me``, ``/rules``, an error
  sentence) is in the reader's own Discord language: :func:`private` takes it from
  the interaction (``interaction.locale``). A DM sent without an interaction (a
  reminder, a Tonttu phase) uses the language the player's last interaction had in
  this process (:meth:`Languages.of_user`), else the server's.
- Public text (the lobby, a thread's log, prompts, reveals, final scores, pictures)
  is in the server's language: what a server admin chose with ``/settings``, else the
  server's own Discord locale (``guild.preferred_locale``): :meth:`Languages.public`.

Anything not German is English (:func:`i18n.language`). The engine and the pictures
never pick a language: they are handed a ``Words`` (:mod:`engine.words`), or a
language code across a process boundary.
"""

from __future__ import annotations

import time
from collections.abc import Callable

import discord

import i18n
from engine.words import Words
from storage import Storage

CACHE_SECONDS = 30.0
"""How long a server's stored choice is trusted without reading it again: another
process's ``/settings`` reaches this one within this time."""


def private(interaction: discord.Interaction) -> Words:
    """The words for an answer only ``interaction``'s user sees."""
    return i18n.words(i18n.language(interaction.locale))


class Languages:
    """The servers' languages (stored choice, else Discord's) and the players' own."""

    store: Storage
    """Set once storage is open (``WorkshopBot.setup_hook``)."""

    def __init__(
        self,
        guild_locale: Callable[[int], object],
        *,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.guild_locale = guild_locale
        """Discord's locale of a server this process sees (``None`` if unknown)."""
        self.clock = clock
        self._chosen: dict[int, tuple[float, str | None]] = {}
        self._users: dict[int, str] = {}

    def seen(self, user_id: int, locale: object) -> None:
        """Remember a user's language from an interaction of theirs (every one passes
        here: ``cogs.helpers.gates.Door``), for the DMs they get without an interaction."""
        self._users[user_id] = i18n.language(locale)

    async def chosen(self, guild_id: int) -> str | None:
        """What ``/settings`` stored for the server (cached for :data:`CACHE_SECONDS`)."""
        now = self.clock()
        cached = self._chosen.get(guild_id)
        if cached is not None and now - cached[0] < CACHE_SECONDS:
            return cached[1]
        language = await self.store.guild_language(guild_id)
        self._chosen[guild_id] = (now, language)
        return language

    async def choose(self, guild_id: int, language: str | None) -> None:
        """Store a server's language (``None``: follow Discord's server locale again)."""
        await self.store.set_guild_language(guild_id, language)
        self._chosen[guild_id] = (self.clock(), language)

    async def of_guild(self, guild_id: int | None) -> str:
        """The language code of a server's public text."""
        if guild_id is None:
            return i18n.SOURCE
        return await self.chosen(guild_id) or i18n.language(self.guild_locale(guild_id))

    async def public(self, guild_id: int | None) -> Words:
        """The words for a server's public text."""
        return i18n.words(await self.of_guild(guild_id))

    async def of_user(self, user_id: int, guild_id: int | None) -> Words:
        """The words for a DM to a player outside an interaction."""
        language = self._users.get(user_id)
        if language is None:
            language = await self.of_guild(guild_id)
        return i18n.words(language)
