"""The Table extension: the generic presenter of a game's thread (the log riding on the
turn prompt, the board, reminders), the catch-up after a start or a reconnect, the
player's panel and the commands of a game under way."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Coroutine
from datetime import datetime
from typing import Any

import discord
from discord import app_commands
from discord.ext import commands

import i18n
from cogs.helpers.common import (
    NO_MENTIONS,
    claimed_by_component,
    components,
    guarded,
    register_components,
    reply,
    seat_of_clicker,
)
from cogs.helpers.components import GuideButton, guide_button
from cogs.helpers.desk import BOARD_DELAY
from cogs.helpers.host import Host
from cogs.helpers.language import private
from cogs.helpers.permissions import may_manage
from cogs.helpers.render import (
    BUTTON_LABEL,
    MAX_CONTENT,
    OPTION_LABEL,
    board_embed,
    board_picture,
    chunk_lines,
    cut,
    in_full,
    mention,
    private_picture,
    title_of,
)
from cogs.helpers.rules_text import RULE_TOPICS, rules_embed
from cogs.helpers.thread import Sync
from cogs.table.components import (
    ABANDON_LABEL,
    CHOOSE,
    MAX_BUTTON_CHOICES,
    NOT_PLAYING,
    ONLY_HOST_ENDS,
    TURN_LABEL,
    UNDO_LABEL,
    AbandonButton,
    ActButton,
    ActSelect,
    TurnButton,
    UndoButton,
)
from engine import undo as undo_events
from engine.core import PlayerId
from engine.guide import first_time
from engine.words import ENGLISH, N_, Words
from storage import LoadedGame, human_player
from tables.publishing import pending_reminder
from tables.service import StaleBoard, choices_for, engine_of, view_of
from tables.surfaces import FIRST_SHOWN, log_from, news, seat_surface
from tables.texts import event_lines

log = logging.getLogger("bot.table")

PROMPT_ROOM = 400
"""Room kept in the last log message for the turn prompt's mentions (6 × ~30 chars)."""
LOG_DELAY = 3.0
"""Log lines that no turn prompt carried are posted this many seconds later."""


# --------------------------------------------------------------------------- panel


def panel(
    game: LoadedGame,
    player: PlayerId,
    note: str = "",
    *,
    undo: bool = False,
    words: Words = ENGLISH,
) -> dict[str, Any]:
    """The private panel of ``player``: their view of the board and their choices, and
    with ``undo`` the Undo button (the engine allows them to take a decision back);
    in ``words``' language (the player's own)."""
    embed = board_embed(game, viewer=player, words=words)
    view = components()
    if game.status != "active":
        return {
            "content": note + words.gettext("This game is over."),
            "embed": embed,
            "view": view,
        }
    seat = seat_surface(game, player, can_undo=undo, words=words)
    choices, suggested = seat.choices, seat.suggested
    if not choices:
        waiting = ", ".join(mention(game, p) for p in seat.waiting_for)
        content = note + words.gettext("Waiting for {names}.").format(names=waiting)
        view.add_item(guide_button(game.id, words))
        return {"content": content, "embed": embed, "view": view}
    # the first time a player meets a decision, one sentence on what it is for
    met = first_time(game.kind, view_of(game, player), words)
    if met:
        note += met + "\n"
    buttons = len(choices) <= MAX_BUTTON_CHOICES
    if buttons:
        for choice in choices:
            button = ActButton(game.id, game.version, choice.index, choice.label)
            if choice.index == suggested:  # the one-click sensible default
                button.item.style = discord.ButtonStyle.success
                button.item.label = cut(f"★ {choice.label}", BUTTON_LABEL)
            view.add_item(button)
    else:
        options = [
            discord.SelectOption(label=cut(c.label, OPTION_LABEL), value=str(c.index))
            for c in choices[:25]
        ]
        view.add_item(ActSelect(game.id, game.version, options, words.gettext(CHOOSE)))
    if seat.can_undo:
        view.add_item(UndoButton(game.id, game.version, words.gettext(UNDO_LABEL)))
    view.add_item(guide_button(game.id, words))
    if suggested is not None:
        template = words.gettext(
            "Your move in {title}: choose one (★ green: what a careful player would do)."
        )
    else:
        template = words.gettext("Your move in {title}: choose one.")
    content = note + template.format(title=title_of(game, words))
    shown = [f"★ {c.label}" if c.index == suggested else c.label for c in choices[:25]]
    limit = BUTTON_LABEL if buttons else OPTION_LABEL
    content += in_full([label for label in shown if len(label) > limit])
    return {"content": cut(content, MAX_CONTENT), "embed": embed, "view": view}


class Table(commands.Cog):
    def __init__(self, bot: Host) -> None:
        self.bot = bot
        self._resuming: set[asyncio.Task[None]] = set()

    async def cog_load(self) -> None:
        self.bot.publisher.syncers[""] = self.sync_thread
        self._background(self._start_up(), "start-up")

    def _background(self, work: Coroutine[Any, Any, None], name: str) -> None:
        task = self.bot.background(work, name)  # a graceful stop waits for it
        self._resuming.add(task)
        task.add_done_callback(self._resuming.discard)

    async def cog_unload(self) -> None:
        for task in self._resuming:
            task.cancel()

    # ------------------------------------------------------------ publishing

    async def sync_thread(self, sync: Sync) -> None:
        """The generic presenter: the log rides on the next turn prompt; the board is
        edited when the turn changes, when it is two decisions behind, and a few seconds
        after the last move otherwise.

        Marks: ``log`` (events posted up to), ``log_intent`` (posting up to),
        ``prompt`` (the version the last turn prompt was posted at), the reminder's
        (``publishing.pending_reminder``), ``board``, ``final``. The first board is
        recorded with ``FIRST_SHOWN``; a game from before these marks counts as shown up
        to its board's version."""
        game, words = sync.game, sync.words
        if game.status not in ("active", "finished"):
            return
        new = news(game, sync.shown, await sync.actions(log_from(sync.shown)))
        version, target, board_v, acting = game.version, new.target, new.board, set(new.acting)
        sync.recovering = new.recovering
        lines = event_lines(game, new.events, words)
        prompting, ended = new.prompt_due, new.ended
        if "board" not in game.messages:
            board_v = await self.bot.desk.post_board(sync)  # above everything else
            for key, mark in FIRST_SHOWN.items():
                if key not in sync.shown:
                    sync.mark(key, mark)
        behind = version - board_v
        edit_board = behind > 0 and (prompting or ended or sync.flush or behind >= 2)
        board = self.bot.core.pictures.board
        drawing = asyncio.create_task(board(game, sync.lang)) if edit_board else None
        # a recovered intent is settled even with nothing to post (a move without a
        # log line), or the log would wait for it for ever
        if prompting or new.recovering or (lines and (ended or sync.flush)):
            await sync.mark_now("log_intent", target)
            chunks = chunk_lines(lines, MAX_CONTENT - PROMPT_ROOM)
            last: discord.Message | None = None
            for i, text in enumerate(chunks[:-1] if prompting else chunks):
                last = await sync.post(
                    ("log", target, i), answer=True, content=text, allowed_mentions=NO_MENTIONS
                )
            if prompting:
                limit = await self.bot.core.schedule_timers(sync, game)
                text = self.prompt_text(game, acting, limit, words=words)
                if chunks:
                    text = f"{chunks[-1]}\n{text}"
                last = await sync.post(
                    ("log", target, len(chunks) - 1),
                    answer=True,
                    **self.prompt_message(game, text, words),
                )
                sync.mark("prompt", version)
            sync.mark("log", target, last.id if last is not None else None)
            if sync.unguarded:
                await sync.save()
            if target < version:
                sync.again = True
        elif lines:
            sync.defer(LOG_DELAY)
        await self._remind(sync, acting, prompting)
        if drawing is not None:
            await self.bot.desk.edit_board(sync, await drawing)
        elif behind > 0:
            sync.defer(BOARD_DELAY)
        if ended:
            await self.bot.desk.close_thread(sync)

    async def _remind(self, sync: Sync, acting: set[PlayerId], prompting: bool) -> None:
        """A reminder a timer asked for (``pending_reminder``), unless the turn moved on."""
        game = sync.game
        pending = pending_reminder(sync.shown)
        if pending is None:
            return
        ask, asked_at = pending
        if acting and not prompting and asked_at == game.version:
            # at most one reminder per interval: this one schedules the next one
            limit = await self.bot.core.schedule_timers(sync, game, turn_limit=False)
            text = self.prompt_text(game, acting, limit, reminder=True, words=sync.words)
            await sync.post(("reminder", ask), **self.prompt_message(game, text, sync.words))
        sync.mark("reminder", ask)

    async def _start_up(self) -> None:
        """At start-up, as if the bot had never stopped: every thread shows what is
        stored (a move committed just before the stop, with its prompt), then computer
        seats whose turn it is move (a restart while a computer was thinking)."""
        if not await self.bot.until_ready():
            return  # stopped first: the next start catches up
        await self._catch_up()
        for info in await self.bot.store.list_games(statuses=["active"]):
            if any(seat.is_ai for seat in info.seats):
                self._background(self._resume(info.id), f"resume-{info.id}")

    @commands.Cog.listener()
    async def on_resumed(self) -> None:
        """After a gateway reconnect: moves stored meanwhile (by timers or other
        processes, or whose posts failed during the gap) are shown."""
        self._background(self._catch_up(), "catch-up")

    @commands.Cog.listener()
    async def on_shard_ready(self, shard_id: int) -> None:
        """A shard that could not resume and identified again (a long gap): the same.
        (At start-up the bot is not ready yet: ``_start_up`` catches up then.)"""
        if self.bot.is_ready():
            self._background(self._catch_up(), "catch-up")

    async def _catch_up(self) -> None:
        try:
            await self.bot.publisher.catch_up()
        except Exception:
            log.exception("catching up the threads failed")

    async def _resume(self, game_id: int) -> None:
        try:
            await self.bot.core.run_computers(game_id)
        except Exception:
            log.exception("game %s: the computer players could not resume", game_id)

    def prompt_text(
        self,
        game: LoadedGame,
        acting: set[PlayerId],
        limit: datetime | None,
        *,
        reminder: bool = False,
        words: Words = ENGLISH,
    ) -> str:
        """Mention who must act; with the turn limit, when the computer moves for them
        (public: ``words`` is the server's language)."""
        who = ", ".join(mention(game, p) for p in sorted(acting, key=game.players.index))
        if reminder:
            text = words.gettext("Reminder: {who}, it's your turn.").format(who=who)
        else:
            text = words.gettext("{who}: it's your turn.").format(who=who)
        if limit is not None:
            when = discord.utils.format_dt(limit, "R")
            text += " " + words.gettext("Not played {when}? The computer moves.").format(when=when)
        return text

    def prompt_message(self, game: LoadedGame, text: str, words: Words = ENGLISH) -> dict[str, Any]:
        """The turn prompt: ``text`` with the button that opens each player's panel."""
        view = components()
        view.add_item(TurnButton(game.id, words.gettext(TURN_LABEL)))
        return {
            "content": text,
            "view": view,
            "allowed_mentions": discord.AllowedMentions(users=True, roles=False),
        }

    # ------------------------------------------------------------ acting

    async def open_panel(self, interaction: discord.Interaction, game_id: int) -> None:
        game = await self.bot.store.load(game_id)
        player = await seat_of_clicker(interaction, game)
        if player is None:
            return
        words = private(interaction)
        undo = await self.bot.tables.can_undo(game, player)
        await interaction.response.send_message(
            ephemeral=True, **panel(game, player, undo=undo, words=words)
        )

    async def undo(
        self, interaction: discord.Interaction, game_id: int, version: int | None
    ) -> None:
        """The Undo button (``version``: the one it was drawn at) or /undo (``None``):
        take back the player's latest decision, answer with the fresh panel, then show
        it in the thread ("Aino took back: …")."""
        player = human_player(interaction.user.id)
        words = private(interaction)
        try:
            played = await self.bot.tables.undo(game_id, interaction.user.id, version)
        except StaleBoard as stale:
            await self._respond_panel(interaction, stale.game, player, f"{stale.text(words)}\n")
            return
        game = played.game
        rules = engine_of(game)
        you = {**game.names, player: undo_events.YOU}  # the engine says "Du nimmst zurück"
        took = " ".join(undo_events.describe_event(rules, e, you, words) for e in played.events)
        await self._respond_panel(interaction, game, player, f"{took}\n")
        await self.bot.desk.publish_or_warn(interaction, played)

    async def choose(
        self, interaction: discord.Interaction, game_id: int, version: int, index: int
    ) -> None:
        player = human_player(interaction.user.id)
        try:
            played = await self.bot.tables.choose(game_id, interaction.user.id, version, index)
        except StaleBoard as stale:
            note = f"{stale.text(private(interaction))}\n"
            await self._respond_panel(interaction, stale.game, player, note)
            return
        await self._respond_panel(interaction, played.game, player)  # answer first, then draw
        await self.bot.desk.publish_or_warn(interaction, played)

    async def _respond_panel(
        self, interaction: discord.Interaction, game: LoadedGame, player: PlayerId, note: str = ""
    ) -> None:
        undo = await self.bot.tables.can_undo(game, player)
        content = panel(game, player, note, undo=undo, words=private(interaction))
        message = interaction.message
        if message is not None and message.flags.ephemeral:
            await interaction.response.edit_message(**content)
        else:
            await interaction.response.send_message(ephemeral=True, **content)

    @commands.Cog.listener()
    async def on_interaction(self, interaction: discord.Interaction) -> None:
        if interaction.type is not discord.InteractionType.component:
            return
        if not claimed_by_component(interaction):
            await reply(
                interaction,
                private(interaction).gettext(
                    "I don't recognise that button. Use /board in the game's thread for the "
                    "current table."
                ),
            )

    # ------------------------------------------------------------ commands

    async def _game_here(self, interaction: discord.Interaction) -> LoadedGame | None:
        words = private(interaction)
        if interaction.channel_id is None or interaction.guild is None:
            await reply(
                interaction,
                words.gettext("Use this in the game's thread or channel on the server."),
            )
            return None
        game = await self.bot.store.find_open(interaction.channel_id)
        if game is None or game.status != "active":
            await reply(
                interaction,
                words.gettext("There is no game running here. Start one with /newgame."),
            )
            return None
        return game

    @app_commands.command(
        name="play", description=N_("Make your move by typing (same choices as the panel).")
    )
    @app_commands.describe(choice=N_("Start typing to see your legal moves"))
    async def play(self, interaction: discord.Interaction, choice: str) -> None:
        async def work() -> None:
            game = await self._game_here(interaction)
            if game is None:
                return
            presenter = self.bot.desk.presenters.get(game.kind)
            if presenter is not None:
                await presenter.play_command(interaction, game, choice)
                return
            version, _, index = choice.partition(":")
            if not (version.isdigit() and index.isdigit()):
                await reply(
                    interaction,
                    private(interaction).gettext(
                        "Pick one of the suggested moves from the list as you type."
                    ),
                )
                return
            await self.choose(interaction, game.id, int(version), int(index))

        await guarded(interaction, work)

    @play.autocomplete("choice")
    async def play_autocomplete(
        self, interaction: discord.Interaction, current: str
    ) -> list[app_commands.Choice[str]]:
        if interaction.channel_id is None:
            return []
        game = await self.bot.store.find_open(interaction.channel_id)
        if game is None or game.status != "active":
            return []
        needle = current.lower()
        presenter = self.bot.desk.presenters.get(game.kind)
        if presenter is not None:
            player = human_player(interaction.user.id)
            pairs = presenter.play_choices(game, player, private(interaction))
            return [
                app_commands.Choice(name=cut(label, 100), value=value)
                for label, value in pairs
                if needle in label.lower()
            ][:25]
        choices = choices_for(game, human_player(interaction.user.id), private(interaction))
        return [
            app_commands.Choice(name=cut(c.label, 100), value=f"{game.version}:{c.index}")
            for c in choices
            if needle in c.label.lower()
        ][:25]

    @app_commands.command(
        name="undo",
        description=N_(
            "Take back your last decision (same turn, nothing revealed, nobody moved since)."
        ),
    )
    async def undo_command(self, interaction: discord.Interaction) -> None:
        async def work() -> None:
            game = await self._game_here(interaction)
            if game is None:
                return
            await self.undo(interaction, game.id, None)

        await guarded(interaction, work)

    @app_commands.command(
        name="me", description=N_("Your private view: your hand, toys, reindeer, score.")
    )
    async def me(self, interaction: discord.Interaction) -> None:
        async def work() -> None:
            game = await self._game_here(interaction)
            if game is None:
                return
            player = human_player(interaction.user.id)
            if game.seat_of(player) is None:
                await reply(interaction, private(interaction).gettext(NOT_PLAYING))
                return
            await interaction.response.defer(ephemeral=True, thinking=True)  # drawing
            lang = i18n.language(interaction.locale)
            embed, picture = await private_picture(game, player, lang)
            await reply(interaction, embed=embed, file=picture)  # ephemeral: it shows secrets

        await guarded(interaction, work)

    @app_commands.command(name="board", description=N_("The current table of the game here."))
    @app_commands.describe(text=N_("Show the board as text instead of a picture"))
    async def board(self, interaction: discord.Interaction, text: bool = False) -> None:
        async def work() -> None:
            game = await self._game_here(interaction)
            if game is None:
                return
            if text:
                await reply(interaction, embed=board_embed(game, words=private(interaction)))
            else:
                await interaction.response.defer(ephemeral=True, thinking=True)  # drawing
                lang = i18n.language(interaction.locale)
                png = await self.bot.core.pictures.board(game, lang)
                embed, picture = board_picture(game, png, i18n.words(lang))
                await reply(interaction, embed=embed, file=picture)

        await guarded(interaction, work)

    @app_commands.command(
        name="abandon", description=N_("End the game running here (asks to confirm).")
    )
    async def abandon_command(self, interaction: discord.Interaction) -> None:
        async def work() -> None:
            if interaction.channel_id is None:
                return
            words = private(interaction)
            game = await self.bot.store.find_open(interaction.channel_id)
            if game is None:
                await reply(interaction, words.gettext("There is no game running here."))
                return
            if not may_manage(interaction, game.host_id):
                await reply(interaction, words.gettext(ONLY_HOST_ENDS))
                return
            view = components()
            view.add_item(AbandonButton(game.id, words.gettext(ABANDON_LABEL)))
            await reply(
                interaction,
                words.gettext("End {title} for everyone? This cannot be undone.").format(
                    title=title_of(game, words)
                ),
                view=view,
            )

        await guarded(interaction, work)

    async def abandon(self, interaction: discord.Interaction, game_id: int) -> None:
        info = await self.bot.store.info(game_id)
        words = private(interaction)
        if not may_manage(interaction, info.host_id):
            await reply(interaction, words.gettext(ONLY_HOST_ENDS))
            return
        if info.status not in ("lobby", "active"):
            await reply(interaction, words.gettext("That game has already ended."))
            return
        info = await self.bot.tables.end(game_id)
        await interaction.response.edit_message(
            content=words.gettext("{title} was ended.").format(title=title_of(info, words)),
            view=components(),
        )
        public = await self.bot.languages.public(info.guild_id)
        self.bot.desk.announce(
            info,
            "ended",
            public.gettext(
                "{title} was ended by {who}. The channel is free for a new game."
            ).format(title=title_of(info, public), who=interaction.user.mention),
        )

    @app_commands.command(name="rules", description=N_("The rules of both games, by topic."))
    @app_commands.describe(topic=N_("Which part of the rules"))
    @app_commands.choices(
        topic=[app_commands.Choice(name=label, value=key) for key, label in RULE_TOPICS.items()]
    )
    async def rules(
        self, interaction: discord.Interaction, topic: app_commands.Choice[str] | None = None
    ) -> None:
        chosen = topic.value if topic else None
        words = private(interaction)
        await guarded(interaction, lambda: reply(interaction, embed=rules_embed(chosen, words)))


async def setup(bot: Host) -> None:
    await bot.add_cog(Table(bot))
    items = (TurnButton, ActButton, ActSelect, UndoButton, AbandonButton, GuideButton)
    bot.add_dynamic_items(*items)
    register_components(*items)
