"""Workshop Tonttu's components (a secret choice's select, "Choose privately", DMs again,
a race's buttons) and a player's private panel of choices."""

from __future__ import annotations

from typing import Any, Protocol, cast

import discord

from cogs.helpers.common import chosen_value, components, guarded
from cogs.helpers.components import GuideButton, guide_button
from cogs.helpers.host import bot_of
from cogs.helpers.render import (
    BUTTON_LABEL,
    MAX_CONTENT,
    OPTION_LABEL,
    board_embed,
    cut,
    in_full,
    title_of,
)
from cogs.tonttu.text import encode, phase_name
from engine.core import PlayerId
from engine.guide import first_time
from engine.tonttu.game import chosen_action, is_race, phase_of
from engine.tonttu.text import describe_parts
from engine.words import ENGLISH, N_, Words
from storage import LoadedGame
from tables.service import engine_of, view_of

# --------------------------------------------------------------------------- components


class ChoiceSelect(
    discord.ui.DynamicItem[discord.ui.Select[Any]],
    template=r"tt:(?P<gid>[0-9]{1,18}):(?P<round>[0-9]{1,4}):(?P<phase>pick|point)",
):
    """A player's secret choice for one phase of one round (in a DM or an ephemeral)."""

    def __init__(
        self,
        game_id: int,
        round_: int,
        phase: str,
        options: list[discord.SelectOption] | None = None,
        words: Words = ENGLISH,
    ) -> None:
        placeholder = N_("Choose your pick…") if phase == "pick" else N_("Choose where to point…")
        super().__init__(
            discord.ui.Select(
                custom_id=f"tt:{game_id}:{round_}:{phase}",
                placeholder=words.gettext(placeholder),
                options=options or [discord.SelectOption(label="?", value="?")],
            )
        )
        self.game_id, self.round, self.phase = game_id, round_, phase

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction, item: discord.ui.Item[Any], match: Any, /
    ) -> ChoiceSelect:
        return cls(int(match["gid"]), int(match["round"]), match["phase"])

    async def callback(self, interaction: discord.Interaction) -> None:
        cog = tonttu_of(interaction)
        value = chosen_value(interaction)
        await guarded(
            interaction,
            lambda: cog.choose(interaction, self.game_id, self.round, self.phase, value),
            game_id=self.game_id,
        )


class PrivateButton(
    discord.ui.DynamicItem[discord.ui.Button[Any]], template=r"ttp:(?P<gid>[0-9]{1,18})"
):
    """In the thread: opens the clicker's choices as an ephemeral message (no DM needed)."""

    def __init__(self, game_id: int, words: Words = ENGLISH) -> None:
        super().__init__(
            discord.ui.Button(
                label=words.gettext("Choose privately"),
                style=discord.ButtonStyle.primary,
                custom_id=f"ttp:{game_id}",
            )
        )
        self.game_id = game_id

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction, item: discord.ui.Item[Any], match: Any, /
    ) -> PrivateButton:
        return cls(int(match["gid"]))

    async def callback(self, interaction: discord.Interaction) -> None:
        cog = tonttu_of(interaction)
        await guarded(
            interaction, lambda: cog.open_private(interaction, self.game_id), game_id=self.game_id
        )


class DmAgainButton(
    discord.ui.DynamicItem[discord.ui.Button[Any]], template=r"ttdm:(?P<gid>[0-9]{1,18})"
):
    """On the private panel of a player whose DMs were refused: try DMs again."""

    def __init__(self, game_id: int, words: Words = ENGLISH) -> None:
        super().__init__(
            discord.ui.Button(
                label=words.gettext("Send my choices by DM again"),
                style=discord.ButtonStyle.secondary,
                custom_id=f"ttdm:{game_id}",
            )
        )
        self.game_id = game_id

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction, item: discord.ui.Item[Any], match: Any, /
    ) -> DmAgainButton:
        return cls(int(match["gid"]))

    async def callback(self, interaction: discord.Interaction) -> None:
        cog = tonttu_of(interaction)
        await guarded(
            interaction, lambda: cog.dms_again(interaction, self.game_id), game_id=self.game_id
        )


class RaceButton(
    discord.ui.DynamicItem[discord.ui.Button[Any]],
    template=r"ttr:(?P<gid>[0-9]{1,18}):(?P<round>[0-9]{1,4}):(?P<code>[gm]:[0-9]{1,3})",
):
    """T-4: a public button for one middle card; the first valid point at it wins it."""

    def __init__(self, game_id: int, round_: int, code: str, label: str = "?") -> None:
        super().__init__(
            discord.ui.Button(
                label=cut(label, BUTTON_LABEL),
                style=discord.ButtonStyle.success,
                custom_id=f"ttr:{game_id}:{round_}:{code}",
            )
        )
        self.game_id, self.round, self.code = game_id, round_, code

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction, item: discord.ui.Item[Any], match: Any, /
    ) -> RaceButton:
        return cls(int(match["gid"]), int(match["round"]), match["code"])

    async def callback(self, interaction: discord.Interaction) -> None:
        cog = tonttu_of(interaction)
        await guarded(
            interaction,
            lambda: cog.race(interaction, self.game_id, self.round, self.code),
            game_id=self.game_id,
        )


COMPONENTS: tuple[type[discord.ui.DynamicItem[Any]], ...] = (
    ChoiceSelect,
    PrivateButton,
    DmAgainButton,
    RaceButton,
    GuideButton,
)


class Handlers(Protocol):
    """What the components call on the Tonttu extension."""

    async def choose(
        self, interaction: discord.Interaction, game_id: int, round_: int, phase: str, value: str
    ) -> None: ...

    async def open_private(self, interaction: discord.Interaction, game_id: int) -> None: ...

    async def dms_again(self, interaction: discord.Interaction, game_id: int) -> None: ...

    async def race(
        self, interaction: discord.Interaction, game_id: int, round_: int, code: str
    ) -> None: ...


def tonttu_of(interaction: discord.Interaction) -> Handlers:
    cog = bot_of(interaction).get_cog("Tonttu")
    assert cog is not None
    return cast(Handlers, cog)


# --------------------------------------------------------------------------- the panel


def panel(
    game: LoadedGame, player: PlayerId, note: str = "", words: Words = ENGLISH
) -> dict[str, Any]:
    """``player``'s private board and their choices for the current phase, in
    ``words``' language (the player's own)."""
    gettext = words.gettext
    embed = board_embed(game, player, words)
    view = components()
    state = game.state
    head = note + gettext("**{title}** · round {round} · {phase}").format(
        title=title_of(game, words), round=state.round, phase=phase_name(state, words)
    )
    head += "\n"
    if game.status != "active" or phase_of(state) == "over":
        return {"content": head + gettext("This game is over."), "embed": embed, "view": view}
    if is_race(state):
        content = head + gettext(
            "It's a race: point with the buttons on the race message in the thread."
        )
        view.add_item(guide_button(game.id, words))
        return {"content": content, "embed": embed, "view": view}
    rules = engine_of(game)
    legal = rules.legal_actions(state, player)  # labelled below, once each
    if not legal:
        content = head + gettext("Your hand is empty, so you skip this pick.")  # T-2.5
        view.add_item(guide_button(game.id, words))
        return {"content": content, "embed": embed, "view": view}
    # the first time a player meets a phase, one sentence on what it is for
    met = first_time(game.kind, view_of(game, player), words)
    if met:
        head += met + "\n"
    mine = chosen_action(state, player)  # the pending choice, for this player's eyes
    options = []
    whole = []  # a choice Discord would show cut, spelled out in the panel's words
    for action in legal[:25]:
        # the label, and what a point would do (the description)
        label, hint = describe_parts(action, state, player, game.names, words)
        if len(label) > OPTION_LABEL or len(hint or "") > OPTION_LABEL:
            whole.append(f"{label}: {hint}" if hint else label)
        options.append(
            discord.SelectOption(
                label=cut(label, OPTION_LABEL),
                value=encode(action),
                description=cut(hint, OPTION_LABEL) if hint else None,
                default=action == mine,
            )
        )
    view.add_item(ChoiceSelect(game.id, state.round, state.phase, options, words))
    view.add_item(guide_button(game.id, words))
    if phase_of(state) == "pick":
        ask = gettext(
            "Pick one card from your hand; it goes face up on your workbench at the reveal."
        )
    else:
        ask = gettext("Point at one middle card: a gift or a face-down material.")
        if any(a.kind == "point_material" and not a.face_down for a in legal):
            ask += " " + gettext(
                "A material you alone point at goes to your workbench face down"
                " unless you choose face up."
            )
    if mine is not None:
        ask += "\n" + gettext(
            "Your choice so far: {choice}. You can change it until everyone has chosen."
        ).format(choice=rules.describe_action(state, player, mine, game.names, words))
    content = head + ask + in_full(whole)
    return {"content": cut(content, MAX_CONTENT), "embed": embed, "view": view}
