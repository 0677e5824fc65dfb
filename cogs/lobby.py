"""``/newgame`` and the lobby message: Join, Leave, Start, Cancel, and a menu that adds
a computer player at the level chosen in it."""

from __future__ import annotations

from typing import Any, Literal

import discord
from discord import app_commands
from discord.ext import commands

from cogs.helpers.common import (
    GAME_CHOICES,
    chosen_value,
    components,
    game_title,
    guarded,
    register_components,
    reply,
)
from cogs.helpers.host import Host, bot_of
from cogs.helpers.language import private
from cogs.helpers.permissions import listed, may_manage, missing_for_a_game
from cogs.helpers.render import level_name, lobby_embed
from engine import get_game
from engine.core import RuleError
from engine.words import ENGLISH, N_, Words
from storage import GameInfo, human_player

LEVEL_HINTS = {
    "random": N_("random legal moves"),
    "greedy": N_("a careful heuristic"),
    "strong": N_("looks ahead: a short search each move"),
}
"""What each level of ``engine.ai`` means to a player (names: ``LEVEL_NAMES``)."""
LEVEL_LABELS = {
    "random": N_("Easy computer player"),
    "greedy": N_("Normal computer player"),
    "strong": N_("Hard computer player"),
}
LOBBY_VERBS = {
    "join": (N_("Join"), discord.ButtonStyle.success),
    "leave": (N_("Leave"), discord.ButtonStyle.secondary),
    "start": (N_("Start"), discord.ButtonStyle.primary),
    "cancel": (N_("Cancel"), discord.ButtonStyle.danger),
}
"""The lobby's buttons (labels translated where the lobby message is made)."""
LOBBY_CLOSED = N_("This lobby is closed: the game has started or was cancelled.")


class LobbyButton(
    discord.ui.DynamicItem[discord.ui.Button[Any]],
    template=r"lobby:(?P<gid>[0-9]{1,18}):(?P<verb>join|leave|start|cancel)",
):
    def __init__(self, game_id: int, verb: str, words: Words = ENGLISH) -> None:
        label, style = LOBBY_VERBS[verb]
        super().__init__(
            discord.ui.Button(
                label=words.gettext(label), style=style, custom_id=f"lobby:{game_id}:{verb}"
            )
        )
        self.game_id = game_id
        self.verb = verb

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction, item: discord.ui.Item[Any], match: Any, /
    ) -> LobbyButton:
        return cls(int(match["gid"]), match["verb"])

    async def callback(self, interaction: discord.Interaction) -> None:
        cog = bot_of(interaction).get_cog("Lobby")
        assert isinstance(cog, Lobby)
        await guarded(
            interaction,
            lambda: cog.on_button(interaction, self.game_id, self.verb),
            game_id=self.game_id,
        )


class AddComputer(
    discord.ui.DynamicItem[discord.ui.Select[Any]],
    template=r"lobbyai:(?P<gid>[0-9]{1,18})",
):
    """The lobby's menu: pick a level, and a computer player at that level takes a seat."""

    def __init__(self, game_id: int, words: Words = ENGLISH) -> None:
        super().__init__(
            discord.ui.Select(
                custom_id=f"lobbyai:{game_id}",
                placeholder=words.gettext("Add a computer player…"),
                options=[
                    discord.SelectOption(
                        label=words.gettext(LEVEL_LABELS[level]),
                        description=words.gettext(hint),
                        value=level,
                    )
                    for level, hint in LEVEL_HINTS.items()
                ],
            )
        )
        self.game_id = game_id

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction, item: discord.ui.Item[Any], match: Any, /
    ) -> AddComputer:
        return cls(int(match["gid"]))

    async def callback(self, interaction: discord.Interaction) -> None:
        cog = bot_of(interaction).get_cog("Lobby")
        assert isinstance(cog, Lobby)
        level = chosen_value(interaction)
        await guarded(
            interaction,
            lambda: cog.add_computer(interaction, self.game_id, level),
            game_id=self.game_id,
        )


def lobby_view(info: GameInfo, words: Words = ENGLISH) -> discord.ui.View:
    """The lobby's buttons and menu (public: the server's language)."""
    view = components()
    if info.status == "lobby":
        for verb in LOBBY_VERBS:
            view.add_item(LobbyButton(info.id, verb, words))
        view.add_item(AddComputer(info.id, words))
    return view


def lacking_sentence(lacking: list[str], words: Words = ENGLISH) -> str:
    """What /newgame says when the bot lacks permissions a game needs in the channel
    (``lacking``: their English names, ``cogs.helpers.permissions.LABELS``).

    >>> lacking_sentence(["Attach Files"])[:69]
    'I cannot run a game in this channel: I am missing the Attach Files pe'
    """
    return words.ngettext(
        "I cannot run a game in this channel: I am missing the {names} permission here. "
        "A server admin can give it to me (Server Settings → Roles, or this channel's "
        "permissions); then try /newgame again.",
        "I cannot run a game in this channel: I am missing the {names} permissions here. "
        "A server admin can give them to me (Server Settings → Roles, or this channel's "
        "permissions); then try /newgame again.",
        len(lacking),
    ).format(names=listed(lacking, words))


class Lobby(commands.Cog):
    def __init__(self, bot: Host) -> None:
        self.bot = bot

    @app_commands.command(
        name="newgame", description=N_("Open a lobby for a new game in this channel.")
    )
    @app_commands.describe(
        game=N_("Which game to play"),
        mode=N_("Workshop Tonttu only: tactical (default) or speed"),
        reminder_hours=N_("Hours between reminders to a player who has not acted (default 12)"),
        turn_limit_hours=N_(
            "After this many hours a computer move is made for an absent player (default: off)"
        ),
        speed_seconds=N_("Workshop Tonttu speed mode: seconds for each pointing race (default 60)"),
    )
    @app_commands.choices(game=GAME_CHOICES)
    async def newgame(
        self,
        interaction: discord.Interaction,
        game: app_commands.Choice[str],
        mode: Literal["tactical", "speed"] | None = None,
        reminder_hours: app_commands.Range[int, 1, 168] = 12,
        turn_limit_hours: app_commands.Range[int, 1, 336] | None = None,
        speed_seconds: app_commands.Range[int, 15, 600] = 60,
    ) -> None:
        settings = {
            "reminder_hours": reminder_hours,
            "turn_limit_hours": turn_limit_hours,
            "speed_seconds": speed_seconds,
        }
        await guarded(interaction, lambda: self._newgame(interaction, game.value, mode, settings))

    async def _newgame(
        self,
        interaction: discord.Interaction,
        kind: str,
        mode: str | None,
        settings: dict[str, Any],
    ) -> None:
        words = private(interaction)
        if interaction.guild is None or interaction.channel is None:
            await reply(
                interaction,
                words.gettext(
                    "Games are played in server channels: use /newgame in a text channel of a "
                    "server where I am, and the game will get its own thread there."
                ),
            )
            return
        if isinstance(interaction.channel, discord.Thread):
            await reply(
                interaction, words.gettext("Start games in a text channel, not in a thread.")
            )
            return
        lacking = missing_for_a_game(interaction.app_permissions)
        if lacking:
            await reply(interaction, lacking_sentence(lacking, words))
            return
        if mode is not None and kind != "tonttu":
            raise RuleError("The mode option is for Workshop Tonttu only.")
        options: dict[str, Any] = {"mode": mode or "tactical"} if kind == "tonttu" else {}
        info = await self.bot.tables.open_lobby(
            guild_id=interaction.guild.id,
            channel_id=interaction.channel.id,
            kind=kind,
            options=options,
            settings=settings,
            host_id=interaction.user.id,
            host_name=interaction.user.display_name,
        )
        public = await self.bot.languages.public(info.guild_id)
        await interaction.response.send_message(
            embed=lobby_embed(info, public), view=lobby_view(info, public)
        )
        message = await interaction.original_response()
        await self.bot.store.set_message(info.id, "lobby", message.id)

    async def on_button(self, interaction: discord.Interaction, game_id: int, verb: str) -> None:
        tables = self.bot.tables
        info = await self.bot.store.info(game_id)
        words = private(interaction)
        if info.status != "lobby":
            await reply(interaction, words.gettext(LOBBY_CLOSED))
            return
        user = interaction.user
        if verb == "join":
            info = await tables.join(game_id, user.id, user.display_name)
        elif verb == "leave":
            if user.id == info.host_id:
                await reply(
                    interaction, words.gettext("You are the host: press Cancel to close the lobby.")
                )
                return
            info = await tables.leave(game_id, human_player(user.id))
        elif verb == "cancel":
            if not may_manage(interaction, info.host_id):
                await reply(
                    interaction,
                    words.gettext(
                        "Only the host or a member who can manage this channel can cancel."
                    ),
                )
                return
            info = await tables.end(game_id)
        elif verb == "start":
            if user.id != info.host_id:
                await reply(interaction, words.gettext("Only the host can start the game."))
                return
            rules = get_game(info.kind)
            if len(info.seats) < rules.min_players:
                await reply(
                    interaction,
                    words.gettext(
                        "{title} needs at least {n} players; {seated} seated. Invite others "
                        "or add computer players."
                    ).format(
                        title=game_title(info.kind, words),
                        n=rules.min_players,
                        seated=len(info.seats),
                    ),
                )
                return
            await self.bot.desk.start_game(interaction, game_id)
            return
        await self._show(interaction, info)

    async def _show(self, interaction: discord.Interaction, info: GameInfo) -> None:
        """The lobby message brought up to date (public: the server's language)."""
        public = await self.bot.languages.public(info.guild_id)
        await interaction.response.edit_message(
            embed=lobby_embed(info, public), view=lobby_view(info, public)
        )

    async def add_computer(
        self, interaction: discord.Interaction, game_id: int, level: str
    ) -> None:
        store = self.bot.store
        info = await store.info(game_id)
        words = private(interaction)
        if info.status != "lobby":
            await reply(interaction, words.gettext(LOBBY_CLOSED))
            return
        if not may_manage(interaction, info.host_id):
            await reply(
                interaction,
                words.gettext(
                    "Only the host (or a member who can manage this channel) can add computer "
                    "players."
                ),
            )
            return
        if level not in LEVEL_HINTS:
            await reply(
                interaction,
                words.gettext(
                    "That level is not on the menu: choose {easy}, {normal} or {hard}."
                ).format(
                    easy=level_name("random", words),
                    normal=level_name("greedy", words),
                    hard=level_name("strong", words),
                ),
            )
            return
        info = await self.bot.tables.add_computer(game_id, level)
        await self._show(interaction, info)


async def setup(bot: Host) -> None:
    await bot.add_cog(Lobby(bot))
    bot.add_dynamic_items(LobbyButton, AddComputer)
    register_components(LobbyButton, AddComputer)
