"""The table's components (the turn button, a choice's button or menu, Undo, the end of a
game) and a player's private panel of choices."""

from __future__ import annotations

from typing import Any, Protocol, cast

import discord

from cogs.helpers.common import chosen_value, components, guarded
from cogs.helpers.host import bot_of
from cogs.helpers.render import BUTTON_LABEL, OPTION_LABEL, board_embed, cut, mention, title_of
from engine.core import PlayerId
from engine.words import ENGLISH, N_, Words
from storage import LoadedGame
from tables.surfaces import seat_surface

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
        return {"content": content, "embed": embed, "view": view}
    if len(choices) <= MAX_BUTTON_CHOICES:
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
    if suggested is not None:
        template = words.gettext(
            "Your move in {title}: choose one (★ green: what a careful player would do)."
        )
    else:
        template = words.gettext("Your move in {title}: choose one.")
    content = note + template.format(title=title_of(game, words))
    return {"content": content, "embed": embed, "view": view}
