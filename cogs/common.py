"""What every cog shares: the bot's typed handles, ephemeral replies and error handling."""

from __future__ import annotations

import asyncio
import logging
import secrets
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

import aiohttp
import discord

from engine.core import RuleError
from storage import ChannelBusy, Conflict, GameNotFound, StorageError, WrongStatus

if TYPE_CHECKING:
    from bot import WorkshopBot

log = logging.getLogger("bot")

NO_MENTIONS = discord.AllowedMentions.none()
ERROR_SENTENCE = {
    GameNotFound: "That game does not exist any more.",
    WrongStatus: "That game is not at that stage any more.",
}


def chosen_value(interaction: discord.Interaction, longest: int = 20) -> str:
    """The first value picked in a select menu, as sent (so possibly forged): at most
    ``longest`` characters, ``""`` if there is none."""
    data: Any = interaction.data or {}
    values = data.get("values") or [""]
    return str(values[0])[:longest]


def bot_of(interaction: discord.Interaction) -> WorkshopBot:
    return interaction.client  # type: ignore[return-value]


async def reply(
    interaction: discord.Interaction,
    content: str | None = None,
    *,
    embed: discord.Embed | None = None,
    view: discord.ui.View | None = None,
    file: discord.File | None = None,
) -> None:
    """An ephemeral answer, whether or not the interaction was answered already."""
    kwargs: dict[str, Any] = {"content": content, "ephemeral": True}
    if embed is not None:
        kwargs["embed"] = embed
    if view is not None:
        kwargs["view"] = view
    if file is not None:
        kwargs["file"] = file
    if interaction.response.is_done():
        await interaction.followup.send(**kwargs)
    else:
        await interaction.response.send_message(**kwargs)


def sentence_for(error: Exception) -> str | None:
    """The sentence to show for an expected error, or ``None`` for a bug."""
    if isinstance(error, RuleError | ChannelBusy | Conflict):
        return str(error)
    for kind, sentence in ERROR_SENTENCE.items():
        if isinstance(error, kind):
            return sentence
    if isinstance(error, StorageError):
        return str(error)
    return None


DISCORD_DOWN = (discord.DiscordServerError, aiohttp.ClientError, asyncio.TimeoutError)
"""Discord answered 5xx (after discord.py's retries), or not at all."""


async def guarded(
    interaction: discord.Interaction,
    work: Callable[[], Awaitable[None]],
    *,
    game_id: int | None = None,
) -> None:
    """Run ``work``; turn an expected error into its sentence and a bug into an apology.

    Either way the game is unchanged: every write happens in one storage call that
    either commits or raises. Except when Discord itself failed (down, unreachable):
    then the move may be stored already while its answer could not be sent. That is
    one line in the log, not a traceback (an outage would log one per click), no
    apology (it could not be sent either), and the game's thread is synced anyway
    (``game_id``): the handler asks for that only after answering, and the publisher
    retries until Discord is back.
    """
    try:
        await work()
    except DISCORD_DOWN as error:
        log.warning(
            "interaction %s (game %s, user %s): Discord could not be reached: %r",
            interaction.id,
            game_id,
            interaction.user.id,
            error,
        )
        if game_id is not None:
            bot_of(interaction).publisher.request(game_id)
    except Exception as error:
        sentence = sentence_for(error)
        if sentence is None:
            error_id = secrets.token_hex(4)
            log.exception(
                "error %s in interaction %s (game %s, user %s)",
                error_id,
                interaction.id,
                game_id,
                interaction.user.id,
            )
            sentence = (
                f"Sorry, something went wrong on my side (error id `{error_id}`). "
                "The game is unchanged; please try again."
            )
        try:
            await reply(interaction, sentence)
        except discord.HTTPException:
            log.warning("could not tell user %s: %s", interaction.user.id, sentence)
