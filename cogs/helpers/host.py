"""The typed interface through which an extension reaches the bot: :class:`Host`.

discord.py hands every extension's ``setup`` the bot. Typed as the concrete bot class,
each extension would import ``bot.py``, which imports the extensions: a circle. An
extension sees the bot as a :class:`Host` instead: a discord.py bot that holds the table
core and the Discord helpers the extensions share. ``bot.py``'s ``WorkshopBot`` is a
``Host`` and sets every attribute declared here before loading the extensions.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Coroutine
from datetime import datetime
from typing import Any, Protocol, TypeVar, cast

import discord
from discord.ext import commands

from cogs.helpers.desk import Desk
from cogs.helpers.gates import RestBudget
from cogs.helpers.language import Languages
from cogs.helpers.thread import ThreadPublisher
from storage import Storage
from tables.core import Core
from tables.service import Tables

T = TypeVar("T")


class HostSettings(Protocol):
    """The settings an extension reads."""

    @property
    def timer_poll_seconds(self) -> float: ...

    @property
    def web_base_url(self) -> str | None:
        """The game pages' public address; ``None``: the bot posts no links to them."""
        ...


class Host(commands.AutoShardedBot):
    """A discord.py bot with the table core (:attr:`core`) and the shared helpers."""

    core: Core
    store: Storage
    tables: Tables
    publisher: ThreadPublisher
    desk: Desk
    languages: Languages
    budget: RestBudget
    settings: HostSettings
    clock: Callable[[], datetime]
    stopping: asyncio.Event
    """Set when the bot begins to stop: background work ends at its next pause."""

    def background(self, work: Coroutine[Any, Any, T], name: str) -> asyncio.Task[T]:
        """Run ``work`` in a task that a graceful stop waits for; it must end by itself
        once :attr:`stopping` is set (wait with :meth:`pause`)."""
        raise NotImplementedError

    async def pause(self, seconds: float) -> bool:
        """Sleep ``seconds``, unless the bot begins to stop: ``False`` at once then."""
        raise NotImplementedError

    async def until_ready(self) -> bool:
        """Wait for READY; ``False`` at once if the bot begins to stop first."""
        raise NotImplementedError


def bot_of(interaction: discord.Interaction) -> Host:
    """The bot that received ``interaction``."""
    return cast(Host, interaction.client)
