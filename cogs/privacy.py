"""``/forget-me``: a player has the bot forget them.

The command answers privately with what forgetting means and two buttons, "Forget me"
(red) and "Keep my data"; only the click forgets, and only the clicker: whoever clicks
is the one forgotten (the buttons carry no user id, so a forged click forgets nobody
else). Storage does the work (:mod:`storage.forget`, the same as ``python -m storage
forget-user``): in every game the bot keeps, on every server, their Discord id and
display name become a placeholder ("Player 3 of game 812"), their ratings and
statistics are kept under it, and every game still replays. The answer says what
changed.

A player who still sits in a lobby or a running game is refused, at the command and
again at the click, with the games named: they leave the lobby, or the game finishes or
is ended first. A running bot keeps an open game's state in memory, so rewriting it
under a running table would be undone by the next move; and a seat that turns
anonymous mid-game would leave the others waiting for no one.

Messages the bot already posted (a thread's log lines, the final scores) are Discord's
and stay as they were; the confirmation says so.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import discord
from discord import app_commands
from discord.ext import commands

from cogs.helpers.common import components, guarded, register_components, reply
from cogs.helpers.host import Host, bot_of
from cogs.helpers.language import private
from engine.words import N_, Words
from storage.forget import Forgotten, StillPlaying

YES, NO = "yes", "no"
LABELS = {YES: N_("Forget me"), NO: N_("Keep my data")}


def still_playing(game_ids: Sequence[int], words: Words) -> str:
    games = ", ".join(f"#{game_id}" for game_id in game_ids)
    return words.gettext(
        "You still play in game {games}: leave the lobby, or let the game finish or be "
        "ended, then use /forget-me again. Nothing was changed."
    ).format(games=games)


def forgotten_text(done: Forgotten, words: Words) -> str:
    if not done.changed:
        return words.gettext(
            "There was nothing to forget: you have no seat in any game and no rating here."
        )
    return words.ngettext(
        "Done: you are forgotten in {n} game (seats: {seats}, log entries: {entries}, rows "
        "of ratings and statistics: {rows}). You are “Player N of game M” there now.",
        "Done: you are forgotten in {n} games (seats: {seats}, log entries: {entries}, rows "
        "of ratings and statistics: {rows}). You are “Player N of game M” there now.",
        len(done.games),
    ).format(n=len(done.games), seats=done.seats, entries=done.log_entries, rows=done.rating_rows)


class ForgetButton(
    discord.ui.DynamicItem[discord.ui.Button[Any]], template=r"forget:(?P<choice>yes|no)"
):
    """The confirmation's buttons: forget the clicker, or change nothing."""

    def __init__(self, choice: str, words: Words | None = None) -> None:
        label = LABELS[choice] if words is None else words.gettext(LABELS[choice])
        super().__init__(
            discord.ui.Button(
                label=label,
                style=discord.ButtonStyle.danger
                if choice == YES
                else discord.ButtonStyle.secondary,
                custom_id=f"forget:{choice}",
            )
        )
        self.choice = choice

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction, item: discord.ui.Item[Any], match: Any, /
    ) -> ForgetButton:
        return cls(match["choice"])

    async def callback(self, interaction: discord.Interaction) -> None:
        cog = bot_of(interaction).get_cog("Privacy")
        assert isinstance(cog, Privacy)
        await guarded(interaction, lambda: cog.confirmed(interaction, self.choice == YES))


class Privacy(commands.Cog):
    def __init__(self, bot: Host) -> None:
        self.bot = bot

    @app_commands.command(
        name="forget-me",
        description=N_("Have the bot forget your name and Discord id in every game it keeps"),
    )
    async def forget_me(self, interaction: discord.Interaction) -> None:
        await guarded(interaction, lambda: self.ask(interaction))

    async def ask(self, interaction: discord.Interaction) -> None:
        """The confirmation, or why not yet."""
        words = private(interaction)
        open_games = await self.bot.store.open_games_of(interaction.user.id)
        if open_games:
            await reply(interaction, still_playing(open_games, words))
            return
        view = components()
        view.add_item(ForgetButton(YES, words))
        view.add_item(ForgetButton(NO, words))
        text = words.gettext(
            "Forget you? In every game this bot keeps, on every server, your name and "
            "Discord id become “Player N of game M” (in its seats and its log), and your "
            "ratings and statistics stay under that placeholder, so the others' games and "
            "ratings stay whole. Messages already posted on Discord stay as they are. "
            "This cannot be undone."
        )
        await reply(interaction, text, view=view)

    async def confirmed(self, interaction: discord.Interaction, forget: bool) -> None:
        """A click of the confirmation: forget the clicker, or change nothing."""
        words = private(interaction)
        if not forget:
            text = words.gettext("Nothing was changed.")
        else:
            try:
                text = forgotten_text(await self.bot.store.forget_user(interaction.user.id), words)
            except StillPlaying as error:
                text = still_playing(error.game_ids, words)
        await interaction.response.edit_message(content=text, view=None)


async def setup(bot: Host) -> None:
    await bot.add_cog(Privacy(bot))
    bot.add_dynamic_items(ForgetButton)
    register_components(ForgetButton)
