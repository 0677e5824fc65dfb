"""Components that both game extensions put on their messages: the **How to play**
button (a player's panel in the Table extension, the Tonttu panel and DM).

A click answers, ephemeral and in the clicker's language, with the one-screen legend
of the game and its current phase (``engine.guide.legend``), seen as the clicker sees
the table: their own position if they play, a spectator's otherwise. It changes
nothing, so it needs no version: an old button still explains the game as it is now.
"""

from __future__ import annotations

from typing import Any

import discord

from cogs.helpers.common import guarded, reply
from cogs.helpers.host import bot_of
from cogs.helpers.language import private
from cogs.helpers.render import title_of
from engine.guide import legend
from engine.words import ENGLISH, N_, Words
from storage import LoadedGame, human_player
from tables.service import view_of

GUIDE_LABEL = N_("How to play")
EMBED_COLOUR = 0x2E7D32
EMBED_TEXT = 4096
"""Discord's limit for an embed's description."""


def guide_embed(game: LoadedGame, player: str | None, words: Words = ENGLISH) -> discord.Embed:
    """The legend of ``game`` as ``player`` (``None``: a spectator) sees it now, as an
    embed: the legend's first line is the title, the rest its text (Discord's markdown
    escaped, so a "*" stays a "*")."""
    viewer = player if player is not None and game.seat_of(player) is not None else None
    view = view_of(game, viewer) if game.state is not None else None
    title, _, text = legend(game.kind, view, words).partition("\n")
    body = discord.utils.escape_markdown(text.strip())
    embed = discord.Embed(title=title, description=body[:EMBED_TEXT], colour=EMBED_COLOUR)
    embed.set_footer(text=title_of(game, words))
    return embed


class GuideButton(
    discord.ui.DynamicItem[discord.ui.Button[Any]], template=r"guide:(?P<gid>[0-9]{1,18})"
):
    """How to play: the legend of the game, for the clicker alone."""

    def __init__(self, game_id: int, label: str = GUIDE_LABEL) -> None:
        super().__init__(
            discord.ui.Button(
                label=label,
                emoji="❔",
                style=discord.ButtonStyle.secondary,
                custom_id=f"guide:{game_id}",
            )
        )
        self.game_id = game_id

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction, item: discord.ui.Item[Any], match: Any, /
    ) -> GuideButton:
        return cls(int(match["gid"]))

    async def callback(self, interaction: discord.Interaction) -> None:
        await guarded(interaction, lambda: answer_guide(interaction, self.game_id))


async def answer_guide(interaction: discord.Interaction, game_id: int) -> None:
    """The legend of game ``game_id`` for the clicker, ephemeral (a game that no longer
    exists gets ``guarded``'s sentence)."""
    game = await bot_of(interaction).store.load(game_id)
    words = private(interaction)
    embed = guide_embed(game, human_player(interaction.user.id), words)
    await reply(interaction, embed=embed)


def guide_button(game_id: int, words: Words = ENGLISH) -> GuideButton:
    """The button, labelled in ``words``' language."""
    return GuideButton(game_id, words.gettext(GUIDE_LABEL))


__all__ = ["GUIDE_LABEL", "GuideButton", "answer_guide", "guide_button", "guide_embed"]
