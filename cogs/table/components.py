"""The table's components: the turn button, a choice's button or menu, Undo, the end of a
game (the private panel that holds them is the cog's)."""

from __future__ import annotations

from typing import Any, Protocol, cast

import discord

from cogs.helpers.common import chosen_value, guarded
from cogs.helpers.host import bot_of
from cogs.helpers.render import BUTTON_LABEL, cut
from engine.words import N_

MAX_BUTTON_CHOICES = 20


TURN_LABEL = N_("Take your turn")
CHOOSE = N_("Choose…")
UNDO_LABEL = N_("Undo")
ABANDON_LABEL = N_("Yes, end this game")
NOT_PLAYING = N_("You are not playing in this game.")
ONLY_HOST_ENDS = N_("Only the host or a member who can manage this channel can end the game.")
"""The components' labels (translated where a message is made: the default is the
English a component rebuilt from its custom id has, which Discord never sees)."""


# --------------------------------------------------------------------------- components


class TurnButton(
    discord.ui.DynamicItem[discord.ui.Button[Any]], template=r"turn:(?P<gid>[0-9]{1,18})"
):
    """On the turn prompt: opens the private panel of whoever clicks."""

    def __init__(self, game_id: int, label: str = TURN_LABEL) -> None:
        super().__init__(
            discord.ui.Button(
                label=label, style=discord.ButtonStyle.primary, custom_id=f"turn:{game_id}"
            )
        )
        self.game_id = game_id

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction, item: discord.ui.Item[Any], match: Any, /
    ) -> TurnButton:
        return cls(int(match["gid"]))

    async def callback(self, interaction: discord.Interaction) -> None:
        table = table_of(interaction)
        await guarded(
            interaction, lambda: table.open_panel(interaction, self.game_id), game_id=self.game_id
        )


class ActButton(
    discord.ui.DynamicItem[discord.ui.Button[Any]],
    template=r"act:(?P<gid>[0-9]{1,18}):(?P<ver>[0-9]{1,9}):(?P<idx>[0-9]{1,4})",
):
    """One choice of the private panel, valid only at the version it was drawn at."""

    def __init__(self, game_id: int, version: int, index: int, label: str = "?") -> None:
        super().__init__(
            discord.ui.Button(
                label=cut(label, BUTTON_LABEL),
                style=discord.ButtonStyle.secondary,
                custom_id=f"act:{game_id}:{version}:{index}",
            )
        )
        self.game_id, self.version, self.index = game_id, version, index

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction, item: discord.ui.Item[Any], match: Any, /
    ) -> ActButton:
        return cls(int(match["gid"]), int(match["ver"]), int(match["idx"]))

    async def callback(self, interaction: discord.Interaction) -> None:
        table = table_of(interaction)
        await guarded(
            interaction,
            lambda: table.choose(interaction, self.game_id, self.version, self.index),
            game_id=self.game_id,
        )


class ActSelect(
    discord.ui.DynamicItem[discord.ui.Select[Any]],
    template=r"acts:(?P<gid>[0-9]{1,18}):(?P<ver>[0-9]{1,9})",
):
    """The panel's choices as a menu, when there are too many for buttons."""

    def __init__(
        self,
        game_id: int,
        version: int,
        options: list[discord.SelectOption] | None = None,
        placeholder: str = CHOOSE,
    ) -> None:
        super().__init__(
            discord.ui.Select(
                custom_id=f"acts:{game_id}:{version}",
                placeholder=placeholder,
                options=options or [discord.SelectOption(label="?", value="0")],
            )
        )
        self.game_id, self.version = game_id, version

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction, item: discord.ui.Item[Any], match: Any, /
    ) -> ActSelect:
        return cls(int(match["gid"]), int(match["ver"]))

    async def callback(self, interaction: discord.Interaction) -> None:
        table = table_of(interaction)
        raw = chosen_value(interaction)
        index = int(raw) if raw.isdigit() and len(raw) <= 4 else -1
        await guarded(
            interaction,
            lambda: table.choose(interaction, self.game_id, self.version, index),
            game_id=self.game_id,
        )


class UndoButton(
    discord.ui.DynamicItem[discord.ui.Button[Any]],
    template=r"undo:(?P<gid>[0-9]{1,18}):(?P<ver>[0-9]{1,9})",
):
    """On the private panel: take back the player's latest decision (``engine.undo``),
    valid only at the version it was drawn at."""

    def __init__(self, game_id: int, version: int, label: str = UNDO_LABEL) -> None:
        super().__init__(
            discord.ui.Button(
                label=label,
                emoji="↩️",
                style=discord.ButtonStyle.danger,
                custom_id=f"undo:{game_id}:{version}",
            )
        )
        self.game_id, self.version = game_id, version

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction, item: discord.ui.Item[Any], match: Any, /
    ) -> UndoButton:
        return cls(int(match["gid"]), int(match["ver"]))

    async def callback(self, interaction: discord.Interaction) -> None:
        table = table_of(interaction)
        await guarded(
            interaction,
            lambda: table.undo(interaction, self.game_id, self.version),
            game_id=self.game_id,
        )


class AbandonButton(
    discord.ui.DynamicItem[discord.ui.Button[Any]], template=r"abandon:(?P<gid>[0-9]{1,18})"
):
    def __init__(self, game_id: int, label: str = ABANDON_LABEL) -> None:
        super().__init__(
            discord.ui.Button(
                label=label,
                style=discord.ButtonStyle.danger,
                custom_id=f"abandon:{game_id}",
            )
        )
        self.game_id = game_id

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction, item: discord.ui.Item[Any], match: Any, /
    ) -> AbandonButton:
        return cls(int(match["gid"]))

    async def callback(self, interaction: discord.Interaction) -> None:
        table = table_of(interaction)
        await guarded(
            interaction, lambda: table.abandon(interaction, self.game_id), game_id=self.game_id
        )


class Handlers(Protocol):
    """What the components call on the Table extension."""

    async def open_panel(self, interaction: discord.Interaction, game_id: int) -> None: ...

    async def choose(
        self, interaction: discord.Interaction, game_id: int, version: int, index: int
    ) -> None: ...

    async def undo(
        self, interaction: discord.Interaction, game_id: int, version: int | None
    ) -> None: ...

    async def abandon(self, interaction: discord.Interaction, game_id: int) -> None: ...


def table_of(interaction: discord.Interaction) -> Handlers:
    cog = bot_of(interaction).get_cog("Table")
    assert cog is not None
    return cast(Handlers, cog)
