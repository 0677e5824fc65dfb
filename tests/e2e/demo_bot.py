"""A small discord.py bot that exercises the harness (not the project's bot).

It uses what the real bot will use: app commands with options, autocomplete and a
subcommand group, a persistent view (DynamicItem buttons carrying an id, a select),
ephemeral replies, a deferred response then a followup, a thread created from a message,
a DM with a fallback when DMs are closed, a modal, a file attachment; and a few commands
that deliberately break Discord's rules so the tests can prove the fake catches them.
"""

from __future__ import annotations

import asyncio
import io
import itertools
import os
import re
from typing import Any

import discord
from discord import app_commands
from discord.ext import commands

GAMES = {"workshop": "Santa's Workshop", "tonttu": "Workshop Tonttu"}
PNG_BYTES = b"\x89PNG\r\n\x1a\n" + b"\x00" * 32  # only the bytes matter here


class JoinButton(
    discord.ui.DynamicItem[discord.ui.Button[Any]], template=r"demo:join:(?P<lobby>\d+)"
):
    def __init__(self, lobby: int) -> None:
        super().__init__(
            discord.ui.Button(
                label="Join", style=discord.ButtonStyle.primary, custom_id=f"demo:join:{lobby}"
            )
        )
        self.lobby = lobby

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction, item: discord.ui.Item[Any], match: re.Match[str], /
    ) -> JoinButton:
        return cls(int(match["lobby"]))

    async def callback(self, interaction: discord.Interaction) -> None:
        assert interaction.message is not None
        content = f"{interaction.message.content}\n{interaction.user.name} joined"
        await interaction.response.edit_message(content=content)  # type 7


class RefreshButton(
    discord.ui.DynamicItem[discord.ui.Button[Any]], template=r"demo:refresh:(?P<lobby>\d+)"
):
    def __init__(self, lobby: int) -> None:
        super().__init__(discord.ui.Button(label="Refresh", custom_id=f"demo:refresh:{lobby}"))

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction, item: discord.ui.Item[Any], match: re.Match[str], /
    ) -> RefreshButton:
        return cls(int(match["lobby"]))

    async def callback(self, interaction: discord.Interaction) -> None:
        assert interaction.message is not None
        await interaction.response.defer()  # type 6: deferred update
        await asyncio.sleep(0.05)
        await interaction.edit_original_response(
            content=interaction.message.content + "\n(refreshed)"
        )


class DmButton(discord.ui.DynamicItem[discord.ui.Button[Any]], template=r"demo:dm:(?P<n>\d+)"):
    def __init__(self, n: int) -> None:
        super().__init__(discord.ui.Button(label="Reveal", custom_id=f"demo:dm:{n}"))

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction, item: discord.ui.Item[Any], match: re.Match[str], /
    ) -> DmButton:
        return cls(int(match["n"]))

    async def callback(self, interaction: discord.Interaction) -> None:
        await interaction.response.send_message("Clicked in a DM")


class ColourView(discord.ui.View):
    """Persistent (timeout=None, fixed custom_id): registered again in setup_hook."""

    def __init__(self) -> None:
        super().__init__(timeout=None)

    @discord.ui.select(
        custom_id="demo:colour",
        placeholder="Pick a colour",
        options=[discord.SelectOption(label=c.title(), value=c) for c in ("red", "green", "blue")],
    )
    async def colour(
        self, interaction: discord.Interaction, select: discord.ui.Select[Any]
    ) -> None:
        await interaction.response.send_message(f"You chose {select.values[0]}", ephemeral=True)


def lobby_view(lobby: int) -> discord.ui.View:
    view = ColourView()
    view.add_item(JoinButton(lobby))
    view.add_item(RefreshButton(lobby))
    return view


class AskModal(discord.ui.Modal, title="A question"):
    answer: discord.ui.TextInput[AskModal] = discord.ui.TextInput(
        label="Your answer", custom_id="demo:answer", max_length=100
    )

    async def on_submit(self, interaction: discord.Interaction) -> None:
        await interaction.response.send_message(f"Thanks for {self.answer.value!r}", ephemeral=True)


class DemoBot(commands.Bot):
    def __init__(self, *, sync_guild: int | None = None) -> None:
        super().__init__(command_prefix=commands.when_mentioned, intents=discord.Intents.default())
        self.sync_guild = sync_guild  # sync commands to this guild only (development mode)
        self.lobbies = itertools.count(1)
        self.error_codes: list[int] = []  # Discord error codes the bot received
        self.raw_payload: dict[str, Any] = {}  # what /raw sends verbatim
        self.late_by = 3.2
        add_commands(self)

    async def setup_hook(self) -> None:
        self.add_dynamic_items(JoinButton, RefreshButton, DmButton)
        self.add_view(ColourView())
        if self.sync_guild is None:
            await self.tree.sync()
        else:
            guild = discord.Object(self.sync_guild)
            self.tree.copy_global_to(guild=guild)
            self.tree.clear_commands(guild=None)
            await self.tree.sync(guild=guild)

    async def raw_callback(self, interaction: discord.Interaction, body: dict[str, Any]) -> None:
        """POST an interaction callback without discord.py's bookkeeping or checks."""
        route = discord.http.Route(
            "POST",
            "/interactions/{interaction_id}/{interaction_token}/callback",
            interaction_id=interaction.id,
            interaction_token=interaction.token,
        )
        await self.http.request(route, json=body)


def add_commands(bot: DemoBot) -> None:
    tree = bot.tree

    @tree.command(description="Open a game lobby")
    @app_commands.describe(game="Which game", players="How many seats")
    async def newgame(
        interaction: discord.Interaction, game: str, players: app_commands.Range[int, 2, 4] = 3
    ) -> None:
        if interaction.guild is None:
            await interaction.response.send_message("/newgame works in servers.")
            return
        lobby = next(bot.lobbies)
        await interaction.response.send_message(
            f"Lobby {lobby}: {GAMES.get(game, game)} for {players}", view=lobby_view(lobby)
        )

    @newgame.autocomplete("game")
    async def newgame_game(
        interaction: discord.Interaction, current: str
    ) -> list[app_commands.Choice[str]]:
        return [
            app_commands.Choice(name=name, value=value)
            for value, name in GAMES.items()
            if current.lower() in name.lower()
        ]

    game = app_commands.Group(name="game", description="Game controls")

    @game.command(name="start", description="Start the game")
    async def game_start(interaction: discord.Interaction, fast: bool = False) -> None:
        await interaction.response.send_message(f"Started (fast={fast})")

    @game.command(name="kick", description="Remove a player")
    async def game_kick(
        interaction: discord.Interaction, user: discord.Member, channel: discord.TextChannel
    ) -> None:
        await interaction.response.send_message(
            f"Kicked {user.name} from {channel.name}", ephemeral=True
        )

    tree.add_command(game)

    @tree.command(description="An ephemeral reply")
    async def secret(interaction: discord.Interaction) -> None:
        await interaction.response.send_message("Only you can see this", ephemeral=True)

    @tree.command(description="Deferred, then a followup")
    async def slow(interaction: discord.Interaction, ephemeral: bool = False) -> None:
        await interaction.response.defer(thinking=True, ephemeral=ephemeral)
        await asyncio.sleep(0.1)
        await interaction.followup.send("Done after thinking")
        await interaction.followup.send("A second followup")

    @tree.command(description="Answer, stay silent a while, then post")
    async def ponder(interaction: discord.Interaction) -> None:
        await interaction.response.send_message("Thinking it over", ephemeral=True)
        await asyncio.sleep(0.3)  # e.g. a search in a thread or a slow disk: no requests
        await interaction.channel.send("Pondered")  # type: ignore[union-attr]

    @tree.command(description="Post a board and start a thread from it")
    async def thread(interaction: discord.Interaction) -> None:
        await interaction.response.defer(ephemeral=True, thinking=True)
        assert isinstance(interaction.channel, discord.TextChannel)
        try:
            board = await interaction.channel.send("The board")
            created = await board.create_thread(name="Game thread")
            await created.send("Welcome to the game thread", view=lobby_view(next(bot.lobbies)))
            await interaction.followup.send(f"Thread {created.mention} created", ephemeral=True)
        except discord.Forbidden as error:
            bot.error_codes.append(error.code)
            await interaction.followup.send(
                f"I may not do that here (Discord error {error.code}); playing in this channel.",
                ephemeral=True,
            )

    @tree.command(description="Create a private thread without a message")
    async def private(interaction: discord.Interaction) -> None:
        assert isinstance(interaction.channel, discord.TextChannel)
        created = await interaction.channel.create_thread(
            name="Private", type=discord.ChannelType.private_thread
        )
        await created.add_user(interaction.user)
        await interaction.response.send_message(f"Private thread {created.id}", ephemeral=True)

    @tree.command(description="Send you a DM")
    async def dm(interaction: discord.Interaction) -> None:
        view = discord.ui.View(timeout=None)
        view.add_item(DmButton(1))
        try:
            await interaction.user.send("Your secret reindeer: Dasher", view=view)
        except discord.Forbidden as error:
            bot.error_codes.append(error.code)
            await interaction.response.send_message(
                f"Your DMs are closed (Discord error {error.code}).", ephemeral=True
            )
            return
        await interaction.response.send_message("Check your DMs", ephemeral=True)

    @tree.command(description="A board picture")
    async def board(interaction: discord.Interaction) -> None:
        picture = discord.File(io.BytesIO(PNG_BYTES), filename="board.png")
        embed = discord.Embed(title="Board").set_image(url="attachment://board.png")
        await interaction.response.send_message(embed=embed, file=picture)

    @tree.command(description="Followups edited and deleted")
    async def edits(interaction: discord.Interaction) -> None:
        await interaction.response.send_message("first")
        second = await interaction.followup.send("second", wait=True)
        await second.edit(content="second, edited")  # PATCH .../messages/{id}
        await interaction.edit_original_response(content="first, edited")  # .../@original
        third = await interaction.followup.send("third", wait=True, ephemeral=True)
        await third.delete()  # DELETE .../messages/{id}
        fetched = await interaction.original_response()  # GET .../@original
        await interaction.followup.send(f"original says {fetched.content!r}", ephemeral=True)

    @tree.command(description="Channel messages edited, fetched and deleted")
    async def channelops(interaction: discord.Interaction) -> None:
        assert isinstance(interaction.channel, discord.TextChannel | discord.Thread)
        keep = await interaction.channel.send("keep me")
        drop = await interaction.channel.send("drop me")
        await keep.edit(content="kept and edited")
        await keep.pin()
        fetched = await interaction.channel.fetch_message(keep.id)
        await drop.delete()
        await interaction.response.send_message(f"fetched {fetched.content!r}", ephemeral=True)

    @tree.command(description="End the game (Manage Channels)")
    @app_commands.default_permissions(manage_channels=True)
    @app_commands.guild_only()
    async def abandon(interaction: discord.Interaction) -> None:
        await interaction.response.send_message("Abandoned")

    @tree.command(description="Open a modal")
    async def ask(interaction: discord.Interaction) -> None:
        await interaction.response.send_modal(AskModal())

    # ---- commands that break Discord's rules on purpose

    @tree.command(description="Answers too late")
    async def late(interaction: discord.Interaction) -> None:
        await asyncio.sleep(bot.late_by)
        try:
            await interaction.response.send_message("Sorry, I was slow")
        except discord.NotFound as error:
            bot.error_codes.append(error.code)

    @tree.command(description="Never answers")
    async def silent(interaction: discord.Interaction) -> None:
        return

    @tree.command(description="Answers twice")
    async def twice(interaction: discord.Interaction) -> None:
        await interaction.response.send_message("One")
        try:
            await bot.raw_callback(interaction, {"type": 4, "data": {"content": "Two"}})
        except discord.HTTPException as error:
            bot.error_codes.append(error.code)

    @tree.command(description="Content over 2000 characters")
    async def long(interaction: discord.Interaction) -> None:
        try:
            await interaction.response.send_message("x" * 2001)
        except discord.HTTPException as error:
            bot.error_codes.append(error.code)
            await interaction.response.send_message("That was too long", ephemeral=True)

    @tree.command(description="Send bot.raw_payload verbatim")
    @app_commands.choices(
        via=[
            app_commands.Choice(name="channel message", value="channel"),
            app_commands.Choice(name="interaction callback", value="callback"),
            app_commands.Choice(name="update callback (type 7)", value="update"),
            app_commands.Choice(name="modal callback (type 9)", value="modal"),
        ]
    )
    async def raw(interaction: discord.Interaction, via: str) -> None:
        try:
            if via in ("callback", "update", "modal"):
                kind = {"callback": 4, "update": 7, "modal": 9}[via]
                await bot.raw_callback(interaction, {"type": kind, "data": bot.raw_payload})
                return
            route = discord.http.Route(
                "POST", "/channels/{channel_id}/messages", channel_id=interaction.channel_id
            )
            await bot.http.request(route, json=bot.raw_payload)
        except discord.HTTPException as error:
            bot.error_codes.append(error.code)
        await interaction.response.send_message("Tried", ephemeral=True)


if __name__ == "__main__":  # run in its own process by FakeDiscord.start_bot_process
    DemoBot().run(os.environ["DISCORD_TOKEN"], log_handler=None)
