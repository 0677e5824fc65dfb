"""What the extensions do at a table in Discord, whoever's turn it shows.

The Table extension (one player deciding at a time) and the Tonttu extension (secret,
simultaneous choices) present a game's turns differently, but open its thread, post and
edit its board, post its final scores, publish after a move and tell the player when
Discord refuses a post in the same way: :class:`Desk`, one per bot. It also holds the
*presenters*: how one game kind's turns are shown when the generic prompt and panel do
not fit (:class:`Presenter`).
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any, Protocol

import discord

from cogs.helpers.common import components
from cogs.helpers.language import Languages, private
from cogs.helpers.render import (
    board_picture,
    chart_picture,
    cut,
    final_embed,
    lobby_embed,
    title_of,
)
from cogs.helpers.thread import Sync, ThreadPublisher
from engine.core import PlayerId
from engine.words import ENGLISH, N_, Words
from storage import GameInfo, LoadedGame, Timer
from tables.core import Core
from tables.pages import page_links
from tables.service import Played

log = logging.getLogger("bot.table")

BOARD_DELAY = 1.0
"""A board one decision behind is brought up to date this many seconds later (moves made
meanwhile share the edit)."""
# The link buttons to a game's pages on the web, under its board (Desk.page_buttons).
WATCH_LIVE = N_("Watch live")
REPLAY = N_("Replay")
GAME_PAGE = N_("Game page")


class Presenter(Protocol):
    """How one game's turns are shown, when the generic turn prompt and panel do not fit
    (Workshop Tonttu's simultaneous, secret choices: ``cogs/tonttu/``)."""

    async def fire(self, game: LoadedGame, timer: Timer) -> bool | None:
        """Handle a stored timer: whether it acted (``False``: it had nothing to do, say
        its phase had ended), or ``None`` to leave it to the generic handling."""
        ...

    async def play_command(
        self, interaction: discord.Interaction, game: LoadedGame, choice: str
    ) -> None: ...

    def play_choices(
        self, game: LoadedGame, player: PlayerId, words: Words = ENGLISH
    ) -> list[tuple[str, str]]:
        """``/play`` autocomplete: (label in ``words``' language, value) pairs."""
        ...


class Desk:
    """A game's thread and its public posts, shared by the extensions."""

    def __init__(
        self,
        client: discord.Client,
        core: Core,
        publisher: ThreadPublisher,
        languages: Languages,
        *,
        web_base_url: str | None = None,
    ) -> None:
        self.client = client
        self.core = core
        self.publisher = publisher
        self.languages = languages
        self.web_base_url = web_base_url
        """The game pages' public address (``WEB_BASE_URL``); ``None``: no links."""
        self.presenters: dict[str, Presenter] = {}
        """By game kind; a game without one uses the generic prompt and panel."""
        core.thinking = self.typing

    def channel(self, game: GameInfo) -> discord.PartialMessageable:
        return self.client.get_partial_messageable(game.thread_id or game.channel_id)

    async def typing(self, game: GameInfo) -> None:
        """A computer seat of ``game`` is thinking: "<bot> is typing…" in its thread."""
        await self.channel(game).typing()

    # ------------------------------------------------------------ starting

    async def start_game(self, interaction: discord.Interaction, game_id: int) -> None:
        """The host pressed Start: start, close the lobby, open the thread, post the table.
        A thread that could not be opened or recorded (Discord or the database away) is
        left to the game's next round (``ThreadPublisher.open_surface``), asked for here."""
        played = await self.core.tables.start(game_id)
        public = await self.languages.public(played.game.guild_id)
        await interaction.response.edit_message(
            embed=lobby_embed(played.game, public), view=components()
        )
        try:
            thread_id = await self._open_thread(interaction, played.game)
            await self.core.store.set_thread(game_id, thread_id)
        except Exception:
            self.publisher.request(game_id)
            raise
        played.game = await self.core.store.load(game_id)
        await self.publish_or_warn(interaction, played)  # the first board, then the prompt

    async def _open_thread(self, interaction: discord.Interaction, game: GameInfo) -> int:
        message = interaction.message
        assert message is not None  # a lobby button always comes with its message
        public = await self.languages.public(game.guild_id)
        try:
            return await self.publisher.open_thread(
                game, message.id, cut(title_of(game, public), 100)
            )
        except discord.HTTPException as error:
            if isinstance(error, discord.DiscordServerError):
                raise  # Discord is away: the next round opens it
            log.warning(
                "game %s: cannot create a thread (%s); playing in the channel", game.id, error
            )
            await interaction.followup.send(
                private(interaction).gettext(
                    "I could not create a thread here (I need the Create Public Threads and "
                    "Send Messages in Threads permissions), so the game is played in this "
                    "channel instead."
                ),
                ephemeral=True,
            )
            return game.channel_id

    # ------------------------------------------------------------ publishing

    async def publish(self, played: Played) -> None:
        """Show everything stored up to now in the game's thread (``tables/publishing.py``);
        raises what Discord raised (the moves stay stored and are shown later)."""
        await self.publisher.sync(played.game.id, known=played.game)

    async def publish_or_warn(self, interaction: discord.Interaction, played: Played) -> None:
        """Publish; if Discord refuses (missing permissions), tell the user who acted.

        The move itself is already saved, so the game goes on once the permission is
        given back (the board message is re-posted when it cannot be edited)."""
        self.publisher.answered(played.game.id, interaction)
        try:
            await self.core.publish_move(played)
        except discord.Forbidden:
            where = f"<#{played.game.thread_id or played.game.channel_id}>"
            log.warning("game %s: cannot post in %s", played.game.id, where)
            await interaction.followup.send(
                private(interaction)
                .gettext(
                    "Your move is saved, but I am not allowed to post in {where}, so the "
                    "others cannot see the board. A server admin can give me the Send "
                    "Messages (and Send Messages in Threads) permission there."
                )
                .format(where=where),
                ephemeral=True,
            )

    def announce(self, game: GameInfo, key: str, text: str) -> None:
        """Post ``text`` (made in the server's language: ``Languages.public``) in the
        game's thread, once (``key`` names it), by the game's next round: with its
        publishing claim held and within the thread's pace like every other post, so
        that no other process's round posts beside it (Discord allows 5 posts per 5 s
        in a channel). A round that fails is tried again (``Publisher.note``)."""
        self.publisher.note(game.id, key, text)
        self.publisher.request(game.id)

    async def page_buttons(self, game: GameInfo, words: Words) -> dict[str, Any]:
        """``view=`` for a post or an edit of the game's board: link buttons to its pages
        on the web (``tables/pages.py``), "Watch live" while it runs, "Replay" and its
        page once it has ended; ``view=None`` (an edit takes earlier buttons away) when
        its server turned the pages off. Nothing (``{}``: a message keeps what it has)
        without ``WEB_BASE_URL``, or when the links cannot be read now (logged): the
        board goes out all the same."""
        if self.web_base_url is None:
            return {}
        try:
            links = await page_links(self.core.store, game, self.web_base_url)
        except Exception as error:
            log.warning("game %s: no links to its pages this time (%r)", game.id, error)
            return {}
        if links is None:
            return {"view": None}
        view = components()
        if game.status == "active":
            buttons = [(WATCH_LIVE, links.live)]
        else:
            buttons = [(REPLAY, links.replay), (GAME_PAGE, links.live)]
        for label, url in buttons:
            view.add_item(
                discord.ui.Button(
                    style=discord.ButtonStyle.link, label=words.gettext(label), url=url
                )
            )
        return {"view": view}

    async def post_board(self, sync: Sync) -> int:
        """Post the board message; returns the version it shows. The first one is
        recorded as intended (``board_intent``) before it goes out: the round after one
        that died between posting it and recording it takes that message over (it is
        edited like any board behind), where its own post would be a second board (its
        nonce names a newer version once the game moved on)."""
        game = sync.game
        first = "board" not in game.messages
        if first and "board_intent" in sync.shown:
            found = await sync.board_of_the_dead()
            if found is not None:
                shown = sync.shown["board_intent"]
                sync.mark("board", shown, found.id)
                return shown
        png, links = await asyncio.gather(
            self.core.pictures.board(game, sync.lang), self.page_buttons(game, sync.words)
        )
        embed, picture = board_picture(game, png, sync.words)
        if first:
            await sync.mark_now("board_intent", game.version)
        message = await sync.post(("board", game.version), embed=embed, file=picture, **links)
        sync.mark("board", game.version, message.id)
        return game.version

    async def edit_board(self, sync: Sync, png: bytes) -> None:
        """Edit the board message in place, picture and links included (post it if it is
        gone)."""
        game = sync.game
        embed, picture = board_picture(game, png, sync.words)
        links = await self.page_buttons(game, sync.words)
        try:
            with self.publisher.fence(game.id, game.version):  # not shown newer meanwhile
                # one edit: the new picture replaces the old attachment
                board = sync.game_with_marks().messages["board"]  # (taken over this round)
                await sync.channel.get_partial_message(board).edit(
                    embed=embed, attachments=[picture], **links
                )
        except discord.NotFound:
            await self.post_board(sync)
            return
        sync.mark("board", game.version)

    async def close_thread(self, sync: Sync) -> None:
        """A game that ended: final scores with the final board and the chart of how the
        game went, in one message (a spectator sees the end and its story together); no
        more timers."""
        game = sync.game
        if game.status == "finished" and "final" not in sync.shown:
            pictures = self.core.pictures
            chart = asyncio.create_task(pictures.chart(game, lambda: sync.actions(0), sync.lang))
            try:
                board = await pictures.board(game, sync.lang)
            except BaseException:
                chart.cancel()
                raise
            _, picture = board_picture(game, board, sync.words)
            final = final_embed(game, sync.words)
            final.set_image(url=f"attachment://{picture.filename}")
            embeds, files = [final], [picture]
            png = await chart
            if png is not None:
                embed, file = chart_picture(game, png, sync.words)
                embeds.append(embed)
                files.append(file)
            links = await self.page_buttons(game, sync.words)
            message = await sync.post(("final",), embeds=embeds, files=files, **links)
            sync.mark("final", game.version, message.id)
        await self.core.store.cancel_timers(game.id)
