"""The Tonttu extension: its components' handlers (a secret choice, a race click, the
private panel, DMs again) and ``/play``'s Tonttu side; the thread is ``thread.py``'s."""

from __future__ import annotations

from typing import Any

import discord
from discord.ext import commands

from cogs.helpers.common import components, register_components, reply, seat_of_clicker
from cogs.helpers.host import Host
from cogs.helpers.language import private
from cogs.tonttu.components import COMPONENTS, DmAgainButton, panel
from cogs.tonttu.text import PHASE_CHANGES, confirmation, decode, encode
from cogs.tonttu.thread import TonttuThread
from engine.core import IllegalAction, PlayerId
from engine.tonttu.game import PhaseClosed, is_race, still_open
from engine.tonttu.race_words import too_late
from engine.words import ENGLISH, Words
from storage import LoadedGame, human_player
from tables.service import choices_for, engine_of


class Tonttu(TonttuThread, commands.Cog):
    """Workshop Tonttu on Discord: the components' handlers are here, the presenter of
    the thread and the state it keeps are :class:`TonttuThread`'s."""

    async def cog_load(self) -> None:
        self.bot.desk.presenters["tonttu"] = self
        self.bot.publisher.syncers["tonttu"] = self.sync_thread

    async def cog_unload(self) -> None:
        self.bot.desk.presenters.pop("tonttu", None)
        self.bot.publisher.syncers.pop("tonttu", None)
        for task in self._wakeups:
            task.cancel()

    # ------------------------------------------------------------ private panels

    async def open_private(self, interaction: discord.Interaction, game_id: int) -> None:
        """The "Choose privately" button: the clicker's panel as an ephemeral message."""
        game = await self.bot.store.load(game_id)
        player = await seat_of_clicker(interaction, game)
        if player is None:
            return
        words = private(interaction)
        content = panel(game, player, words=words)
        if self.dms_closed(game, player):
            content["view"].add_item(DmAgainButton(game.id, words))
        await interaction.response.send_message(ephemeral=True, **content)
        self._keep_panel(interaction, game_id)

    async def dms_again(self, interaction: discord.Interaction, game_id: int) -> None:
        """A player whose DMs were refused asks for them again: forget the refusal and
        send the current choices by DM now (if Discord refuses again, say how to fix it)."""
        game = await self.bot.store.load(game_id)
        player = human_player(interaction.user.id)
        gettext = private(interaction).gettext
        if game.seat_of(player) is None:
            await reply(interaction, gettext("You are not playing in this game."))
            return
        if game.status != "active":
            await reply(interaction, gettext("This game is over."))
            return
        await interaction.response.defer(ephemeral=True, thinking=True)
        await self.bot.store.set_message(game.id, f"dm_closed:{player}", None)
        if player in self._acting_humans(game) and not is_race(game.state):
            if not await self._dm(game, player, again=True):
                await self.bot.store.set_marks(game.id, {f"dm_closed:{player}": (1, game.version)})
                await reply(
                    interaction,
                    gettext(
                        "I still cannot send you a DM. In Discord, open this server's Privacy "
                        "Settings and allow direct messages from server members, then try "
                        "again. Until then, use **Choose privately** in the thread."
                    ),
                )
                return
            await reply(
                interaction, gettext("Done: I sent your choices by DM, and will from now on.")
            )
            return
        await reply(interaction, gettext("Done: your next choices will come by DM."))

    async def choose(
        self, interaction: discord.Interaction, game_id: int, round_: int, phase: str, value: str
    ) -> None:
        """A choice from a DM or ephemeral select: confirm it privately, then publish."""
        player = human_player(interaction.user.id)
        words = private(interaction)
        action = decode(value)
        try:
            played = await self.bot.tables.submit_checked(
                game_id, player, action, still_open(round_, phase)
            )
        except PhaseClosed as closed:
            game = await self.bot.store.load(game_id)
            note = f"{closed.text(words)}\n"
            await interaction.response.edit_message(**panel(game, player, note, words))
            return
        game = played.game
        facts = engine_of(game).describe_choice(game.state, player, action)
        done = confirmation(facts, action, words)
        if any(e.kind in PHASE_CHANGES for e in played.events):
            # The last choice: this panel shows the next phase's choices in a moment.
            content = words.gettext("{done} Everyone has chosen: the reveal is in the thread.")
            await interaction.response.edit_message(
                content=content.format(done=done), view=components()
            )
        else:
            shown = panel(game, player, words=words)
            shown["content"] = (
                words.gettext("{done} You can change it until everyone has chosen.").format(
                    done=done
                )
                + "\n"
                + (shown["content"].split("\n", 1)[0])
            )
            await interaction.response.edit_message(**shown)
        self._keep_panel(interaction, game_id, done)
        await self.bot.desk.publish_or_warn(interaction, played)

    async def race(
        self, interaction: discord.Interaction, game_id: int, round_: int, code: str
    ) -> None:
        """T-4: a click on a race button; the first valid point (commit order) wins."""
        player = human_player(interaction.user.id)
        words = private(interaction)
        action = decode(code)
        try:
            played = await self.bot.tables.submit_checked(
                game_id, player, action, still_open(round_, "point")
            )
        except PhaseClosed:
            text = words.gettext("The race of round {round} is over.").format(round=round_)
            await reply(interaction, text)
            return
        except IllegalAction:
            await reply(interaction, await self._too_late(game_id, round_, action, words))
            return
        event = next(e for e in played.events if e.kind == "speed_point")
        text = engine_of(played.game).describe_event(event, played.game.names, words)
        await reply(interaction, words.gettext("You pointed. {what}").format(what=text))
        await self.bot.desk.publish_or_warn(interaction, played)

    async def _too_late(
        self, game_id: int, round_: int, action: Any, words: Words = ENGLISH
    ) -> str:
        """Who got the card first (from the public log of this round)."""
        names = (await self.bot.store.info(game_id)).names
        return too_late(await self.bot.store.log(game_id), names, round_, action, words)

    # ------------------------------------------------------------ /play

    async def play_command(
        self, interaction: discord.Interaction, game: LoadedGame, choice: str
    ) -> None:
        player = human_player(interaction.user.id)
        action = decode(choice)
        state = game.state
        played = await self.bot.tables.submit_checked(
            game.id, player, action, still_open(state.round, state.phase)
        )
        facts = engine_of(game).describe_choice(game.state, player, action)
        await reply(interaction, confirmation(facts, action, private(interaction)))
        await self.bot.desk.publish_or_warn(interaction, played)

    def play_choices(
        self, game: LoadedGame, player: PlayerId, words: Words = ENGLISH
    ) -> list[tuple[str, str]]:
        """``/play``'s choices: (label in ``words``' language, value)."""
        if words is ENGLISH:
            return [(c.label, encode(c.action)) for c in choices_for(game, player)]
        rules = engine_of(game)
        return [
            (
                rules.describe_action(game.state, player, c.action, game.names, words),
                encode(c.action),
            )
            for c in choices_for(game, player)
        ]


async def setup(bot: Host) -> None:
    await bot.add_cog(Tonttu(bot))
    bot.add_dynamic_items(*COMPONENTS)
    register_components(*COMPONENTS)
