"""What every cog shares: components, ephemeral replies and error handling."""

from __future__ import annotations

import asyncio
import logging
import secrets
from collections.abc import Awaitable, Callable
from typing import Any, Protocol, cast

import aiohttp
import discord
from discord import app_commands

from cogs.helpers.language import private
from engine import get_game
from engine.core import PlayerId, RuleError
from engine.words import ENGLISH, N_, Words
from storage import (
    ChannelBusy,
    Conflict,
    GameInfo,
    GameNotFound,
    StorageError,
    WrongStatus,
    human_player,
)
from storage.errors import AlreadySeated, DatabaseUnavailable, LobbyFull, NotSeated
from tables import metrics
from tables.publishing import Publisher

log = logging.getLogger("bot")

NO_MENTIONS = discord.AllowedMentions.none()
STATUS_WORDS = {
    "lobby": N_("in its lobby"),
    "active": N_("running"),
    "finished": N_("finished"),
    "abandoned": N_("abandoned"),
}
ERROR_SENTENCE = {
    GameNotFound: N_("That game does not exist any more."),
    WrongStatus: N_("That game is not at that stage any more."),
}
STORAGE_SENTENCE: dict[type[StorageError], str] = {
    ChannelBusy: N_(
        "This channel already has a {kind} game (#{game}, {status}); "
        "finish or abandon it before starting another."
    ),
    Conflict: N_("Game #{game} has changed since you looked at it; look again and retry."),
    AlreadySeated: N_("You already have a seat in game #{game}."),
    LobbyFull: N_("Game #{game} is full: it seats at most {n} players."),
    NotSeated: N_("That player has no seat in game #{game}."),
    DatabaseUnavailable: N_("The database cannot be reached just now; try again soon."),
}
"""Storage's sentences for players, as templates (``str(error)`` is the English one;
the fields come from the error's attributes: ``storage`` keeps no language)."""


def game_title(kind: str, words: Words = ENGLISH) -> str:
    """A game's title (the engine's ``title``, an ``N_`` template) in ``words``'
    language; an unknown game's kind (a record of a game this bot no longer has) as it is."""
    try:
        return words.gettext(get_game(kind).title)
    except (KeyError, ImportError):
        return kind


GAME_CHOICES = [
    app_commands.Choice(name=game_title(kind), value=kind) for kind in ("workshop", "tonttu")
]
"""The games, as a slash command's choices."""


class Components(discord.ui.View):
    """A message's buttons and selects, which discord.py does not keep (see
    :func:`components`). Once turned into the request's JSON it lets go of its items:
    a view and its items point at each other, and each such cycle, a few dozen objects
    per panel, would wait for the garbage collector (whose collections pause every
    table's answers) instead of being freed as soon as the message is sent."""

    def __init__(self) -> None:
        super().__init__(timeout=None)
        self.stop()
        self._sent: list[dict[str, Any]] | None = None

    def to_components(self) -> list[dict[str, Any]]:
        if self._sent is None:
            self._sent = super().to_components()
            self.clear_items()  # the JSON is kept: a retried or repeated send is the same
        return self._sent


def components() -> discord.ui.View:
    """An empty holder for a message's buttons and selects that discord.py does not keep.

    Every component the bot sends is a :class:`discord.ui.DynamicItem`, registered at
    start-up and dispatched by its custom_id, so no view needs to stay in discord.py's
    view store. It would, had it not been stopped: an ephemeral answer's view is kept for
    15 minutes with a task sleeping until then. At 30 actions a second that is tens of
    thousands of views with their items, which every full garbage collection of the
    process walks (each collection a pause of every table's answers)."""
    return Components()


def chosen_value(interaction: discord.Interaction, longest: int = 20) -> str:
    """The first value picked in a select menu, as sent (so possibly forged): at most
    ``longest`` characters, ``""`` if there is none."""
    data: Any = interaction.data or {}
    values = data.get("values") or [""]
    return str(values[0])[:longest]


class Publishes(Protocol):
    """A bot that publishes its games (the door needs no more of it)."""

    publisher: Publisher


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


def sentence_for(error: Exception, words: Words = ENGLISH) -> str | None:
    """The sentence to show for an expected error, in ``words``' language, or ``None``
    for a bug."""
    if isinstance(error, RuleError):
        return error.text(words)
    for kind, sentence in ERROR_SENTENCE.items():
        if isinstance(error, kind):
            return words.gettext(sentence)
    if isinstance(error, StorageError):
        return storage_sentence(error, words)
    return None


def storage_sentence(error: StorageError, words: Words = ENGLISH) -> str:
    """A storage error's sentence in ``words``' language (English: ``str(error)``)."""
    english = str(error)
    template = next((t for k, t in STORAGE_SENTENCE.items() if isinstance(error, k)), None)
    if template is None or words is ENGLISH:
        return english
    kind, status = str(getattr(error, "kind", "")), str(getattr(error, "status", ""))
    fields: dict[str, object] = {
        "game": getattr(error, "game_id", "?"),
        "n": getattr(error, "fields", {}).get("seats", "?"),  # LobbyFull
        "kind": kind,
        "status": status,
    }
    if template.format(**fields) != english:
        return english  # storage's sentence changed: better English than a wrong one
    fields["kind"] = game_title(kind, words)
    fields["status"] = words.gettext(STATUS_WORDS[status]) if status in STATUS_WORDS else status
    return words.gettext(template).format(**fields)


DISCORD_DOWN = (discord.DiscordServerError, aiohttp.ClientError, asyncio.TimeoutError)
"""Discord answered 5xx (after discord.py's retries), or not at all."""


UNKNOWN_INTERACTION = 10062
"""Discord's error code for an answer to an interaction whose 3 s (or 15 min) are over."""


def expired(error: Exception) -> bool:
    """Whether Discord refused an answer because the interaction had expired."""
    return isinstance(error, discord.NotFound) and error.code == UNKNOWN_INTERACTION


ANSWER_WITHIN = 1.5
"""Seconds a click's handler may take before its answer is deferred (Discord shows
"This interaction failed" when a click is not answered within 3 s)."""


class LateResponse(discord.InteractionResponse):
    """A click's response that defers itself when the handler is slow.

    A click's handler usually writes to storage before it answers. When storage or the
    machine is slow (a busy database, a loaded host), :func:`guarded` calls
    :meth:`defer_if_silent` after :data:`ANSWER_WITHIN` seconds: a deferred update
    (no visible change) keeps the click alive, and the handler's answer, whenever it
    comes, is turned into what is allowed after a deferral: ``edit_message`` edits the
    original message, ``send_message`` becomes a followup. One lock serialises the two,
    so the click is answered exactly once. Fast handlers never notice.
    """

    __slots__ = ("_lock", "late")

    def __init__(self, parent: discord.Interaction) -> None:
        super().__init__(parent)
        self._lock = asyncio.Lock()
        self.late = False
        """Whether this response deferred itself (the handler's answer comes after)."""

    async def defer_if_silent(self) -> None:
        async with self._lock:
            if not self.is_done():
                self.late = True
                await super().defer()

    async def defer(self, *args: Any, **kwargs: Any) -> Any:
        async with self._lock:
            if not self.late:
                return await super().defer(*args, **kwargs)
            return None

    async def send_message(self, *args: Any, **kwargs: Any) -> Any:
        async with self._lock:
            if not self.late:
                return await super().send_message(*args, **kwargs)
        kwargs.pop("delete_after", None)
        if args:
            kwargs["content"] = args[0]
        if kwargs.get("content") is None:
            kwargs.pop("content", None)
        return await self._parent.followup.send(**kwargs)

    async def edit_message(self, **kwargs: Any) -> Any:
        async with self._lock:
            if not self.late:
                return await super().edit_message(**kwargs)
        kwargs.pop("delete_after", None)
        kwargs.pop("suppress_embeds", None)
        return await self._parent.edit_original_response(**kwargs)

    async def send_modal(self, *args: Any, **kwargs: Any) -> Any:
        async with self._lock:
            if not self.late:
                return await super().send_modal(*args, **kwargs)
        words = private(self._parent)
        await self._parent.followup.send(
            words.gettext("That took me too long; please click again."), ephemeral=True
        )
        return None


def answer_late(interaction: discord.Interaction) -> asyncio.Task[None] | None:
    """For a click: defer its answer if the handler has not answered it in time.

    Returns the watching task (see :func:`guarded`), ``None`` when the interaction is not
    a click or was answered already. Commands are not deferred this way: whether their
    answer is private is known only to the handler.
    """
    if interaction.type is not discord.InteractionType.component:
        return None
    current = interaction.response
    if current.is_done():
        return None
    response = LateResponse(interaction)
    interaction._cs_response = response  # type: ignore[attr-defined]

    async def watch() -> None:
        await asyncio.sleep(ANSWER_WITHIN)
        await response.defer_if_silent()

    return asyncio.create_task(watch())


async def _stop_watching(
    watch: asyncio.Task[None] | None, interaction: discord.Interaction
) -> None:
    if watch is None:
        return
    response = interaction.response
    if not (isinstance(response, LateResponse) and response.late):
        watch.cancel()
    (outcome,) = await asyncio.gather(watch, return_exceptions=True)
    if isinstance(outcome, Exception):  # the deferral failed (e.g. too late already)
        log.warning("interaction %s: could not defer: %r", interaction.id, outcome)


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
    retries until Discord is back. A slow click is deferred in time (:func:`answer_late`).
    """
    watch = answer_late(interaction)
    try:
        await _guarded(interaction, work, game_id=game_id)
    finally:
        await _stop_watching(watch, interaction)


async def _guarded(
    interaction: discord.Interaction,
    work: Callable[[], Awaitable[None]],
    *,
    game_id: int | None,
) -> None:
    try:
        await work()
    except DISCORD_DOWN as error:
        metrics.mark("unreachable")
        log.warning(
            "interaction %s (game %s, user %s): Discord could not be reached: %r",
            interaction.id,
            game_id,
            interaction.user.id,
            error,
        )
        if game_id is not None:
            cast(Publishes, interaction.client).publisher.request(game_id)
    except Exception as error:
        if expired(error):  # it came too late (a gateway away, a slow machine): no one
            metrics.mark("unreachable")  # hears an answer; what was stored is shown
            log.warning(
                "interaction %s (game %s, user %s): it expired before it was answered (%s)",
                interaction.id,
                game_id,
                interaction.user.id,
                error,
            )
            if game_id is not None:
                cast(Publishes, interaction.client).publisher.request(game_id)
            return
        words = private(interaction)
        sentence = sentence_for(error, words)
        metrics.mark("refused" if sentence is not None else "failed")
        if sentence is None:
            error_id = secrets.token_hex(4)
            log.exception(
                "error %s in interaction %s (game %s, user %s)",
                error_id,
                interaction.id,
                game_id,
                interaction.user.id,
            )
            sentence = words.gettext(
                "Sorry, something went wrong on my side (error id `{error_id}`). "
                "The game is unchanged; please try again."
            ).format(error_id=error_id)
        try:
            await reply(interaction, sentence)
        except discord.HTTPException:
            log.warning("could not tell user %s: %s", interaction.user.id, sentence)


COMPONENTS: list[type[discord.ui.DynamicItem[Any]]] = []
"""Every DynamicItem the extensions register (:func:`register_components`)."""


def register_components(*items: type[discord.ui.DynamicItem[Any]]) -> None:
    """An extension's DynamicItems, so that :func:`claimed_by_component` knows them."""
    COMPONENTS.extend(item for item in items if item not in COMPONENTS)


def claimed_by_component(interaction: discord.Interaction) -> bool:
    """Whether one of our DynamicItems will answer this component interaction.

    discord.py answers only when a registered template matches the custom_id *and*
    the component is on the message; everything else (a forged custom_id, a button
    of an old version of the bot) would get no answer at all, so the Table extension's
    listener answers it instead.
    """
    data: Any = interaction.data or {}
    custom_id, kind = data.get("custom_id", ""), data.get("component_type")
    if interaction.message is None:
        return False
    if not any(cls.__discord_ui_compiled_template__.fullmatch(custom_id) for cls in COMPONENTS):
        return False
    return any(
        getattr(child, "custom_id", None) == custom_id and child.type.value == kind
        for row in interaction.message.components
        for child in getattr(row, "children", (row,))
    )


async def seat_of_clicker(interaction: discord.Interaction, game: GameInfo) -> PlayerId | None:
    """The clicker's seat in ``game``; ``None`` for a spectator, who is told (privately)
    that they can watch."""
    player = human_player(interaction.user.id)
    if game.seat_of(player) is not None:
        return player
    await reply(
        interaction,
        private(interaction).gettext(
            "You are not playing in this game; you can watch the board in this thread."
        ),
    )
    return None
