"""Workshop Tonttu in its thread: secret picks and points by DM (or an ephemeral
fallback), the public "who has chosen" line, the reveal, and the speed race.

The generic turn prompt and panel of ``cogs/table.py`` suit one player deciding at a
time. Tonttu's phases are simultaneous and secret (T-2.1, T-2.2, T-6), so this cog
registers itself as the Tonttu *presenter* of the Table cog:

- each phase start posts a status message in the thread (who must choose, with a
  "Choose privately" button) and DMs every human who must choose a select menu of
  their choices (their private board above it). A DM refused with 50007 falls back to
  the button, which opens the same menu as an ephemeral message;
- a choice is judged stale by its round and phase, never by the game's version: any
  number of other players may choose meanwhile (``Tables.submit_checked``);
- the status message then says who has chosen (never what); the last choice posts the
  reveal (the engine's public events) and starts the next phase;
- speed mode (T-4): the point phase is a race of public buttons, one per middle card,
  closed by a stored timer (``speed_close``) through the engine's TIMER action.

Any bot process may publish for a game (a DM choice arrives at shard 0's process, a
thread click at the server's): what every process needs lives in storage. Each phase's
status message is stored under its own key (``phase:ROUND:PHASE``, and ``phase`` for the
latest), so a process whose game is already in the next phase never edits the previous
phase's message; its edits go through ``bot.gate`` (``cogs/publishing.py``), so a status
never goes back to an older version. Who could not be sent a DM is stored too
(``no_dm:ROUND:PHASE``, a bit per seat). The reveal is published by the one process
whose submit completed the phase (the submit's events say so; storage commits one).

No rules here: choices, their labels and the log lines all come from the engine.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from dataclasses import replace
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any

import discord
from discord.ext import commands

from cogs.common import NO_MENTIONS, bot_of, chosen_value, guarded, reply
from cogs.render import (
    BUTTON_LABEL,
    MAX_CONTENT,
    OPTION_LABEL,
    board_embed,
    chunk_lines,
    cut,
    event_lines,
    mention,
    title_of,
)
from cogs.service import Played, choices_for, engine_of
from cogs.table import register_components
from engine.core import TIMER, GameOver, IllegalAction, PlayerId, RuleError
from engine.tonttu.data import GIFT_NAMES
from engine.tonttu.models import ClosePointPhase, Pick, PointGift, PointMaterial
from storage import LoadedGame, Timer, human_player

if TYPE_CHECKING:
    from bot import WorkshopBot
    from cogs.table import Table

log = logging.getLogger("bot.tonttu")

DMS_CLOSED = 50007
SPEED_SECONDS = 60
"""T-4: the race's default length when the table did not set one at /newgame."""
PHASE_CHANGES = frozenset(
    {"picks_revealed", "points_revealed", "point_phase_closed", "round_ended", "game_ended"}
)
"""Events after which the next phase (or the end) must be shown."""
ALLOWED_PINGS = discord.AllowedMentions(users=True, roles=False, everyone=False)


class PhaseClosed(RuleError):
    """A choice made for a phase that has ended (T-2.1: changeable only until the reveal)."""


# --------------------------------------------------------------------------- choices as text


def encode(action: Any) -> str:
    """A choice as a select value / race button / ``/play`` value: ``p:Wool``, ``g:12``, ``m:3``."""
    if action.kind == "pick":
        return f"p:{action.material}"
    if action.kind == "point_gift":
        return f"g:{action.gift}"
    if action.kind == "point_material":
        return f"m:{action.slot}"
    raise ValueError(f"not a player's choice: {action!r}")


def decode(value: str) -> Any:
    """The engine action of :func:`encode`'s text; a sentence for anything else."""
    kind, _, rest = value.partition(":")
    try:
        if kind == "p" and rest:
            return Pick.model_validate({"material": rest})
        if kind == "g" and rest.isdigit() and len(rest) <= 3:
            return PointGift(gift=int(rest))
        if kind == "m" and rest.isdigit() and len(rest) <= 2:
            return PointMaterial(slot=int(rest))
    except ValueError:
        pass
    raise IllegalAction("That is not one of the choices; pick one from the list.")


def confirmation(label: str, action: Any) -> str:
    """ "You picked Wool." / "You pointed at Rocking Horse (needs …)." """
    if action.kind == "pick":
        return f"You picked {action.material}."
    return "You pointed at " + label.removeprefix("Point at ") + "."


def is_race(state: Any) -> bool:
    """A speed-mode point phase (T-4): public buttons, first valid click wins."""
    return bool(state.phase == "point" and state.mode == "speed")


def phase_name(state: Any) -> str:
    if state.phase == "pick":
        return "pick"
    return "speed race" if state.mode == "speed" else "point"


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
    ) -> None:
        super().__init__(
            discord.ui.Select(
                custom_id=f"tt:{game_id}:{round_}:{phase}",
                placeholder="Choose your pick…" if phase == "pick" else "Choose where to point…",
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

    def __init__(self, game_id: int) -> None:
        super().__init__(
            discord.ui.Button(
                label="Choose privately",
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
    RaceButton,
)


def tonttu_of(interaction: discord.Interaction) -> Tonttu:
    cog = bot_of(interaction).get_cog("Tonttu")
    assert isinstance(cog, Tonttu)
    return cog


def status_key(state: Any) -> str:
    """Where the status message of ``state``'s phase is stored (and its shown version)."""
    return f"phase:{state.round}:{state.phase}"


def no_dm_key(state: Any) -> str:
    """Which seats (a bit each) could not be sent a DM at the start of ``state``'s phase."""
    return f"no_dm:{state.round}:{state.phase}"


def still_open(round_: int, phase: str) -> Any:
    """The staleness check of a choice: its round and phase must still be open.

    Storage runs it on the state the choice is applied to (``submit(precondition=…)``).
    """

    def check(state: Any) -> None:
        if state.phase == "over":
            raise GameOver("The game is over; no more moves can be made.")
        if state.round != round_ or state.phase != phase:
            what = "picks" if phase == "pick" else "points"
            raise PhaseClosed(
                f"The {what} of round {round_} have already been revealed; "
                "that choice was not counted."
            )

    return check


# --------------------------------------------------------------------------- the cog


class Tonttu(commands.Cog):
    def __init__(self, bot: WorkshopBot) -> None:
        self.bot = bot
        self._wakeups: set[asyncio.Task[None]] = set()
        self._locks: dict[int, asyncio.Lock] = {}
        """Per game: this process's publishes run one at a time (an accelerator: it
        coalesces status edits; ``bot.gate`` keeps the order between processes)."""
        self._dirty: set[int] = set()
        """Games whose status message must be drawn again when the running publish ends."""

    async def cog_load(self) -> None:
        self.table.presenters["tonttu"] = self

    async def cog_unload(self) -> None:
        table = self.bot.get_cog("Table")
        if table is not None:
            table.presenters.pop("tonttu", None)  # type: ignore[attr-defined]
        for task in self._wakeups:
            task.cancel()

    @property
    def table(self) -> Table:
        cog = self.bot.get_cog("Table")
        assert cog is not None
        return cog  # type: ignore[return-value]

    def _channel(self, game: LoadedGame) -> discord.PartialMessageable:
        return self.bot.get_partial_messageable(game.thread_id or game.channel_id)

    # ------------------------------------------------------------ private panels

    def panel(self, game: LoadedGame, player: PlayerId, note: str = "") -> dict[str, Any]:
        """``player``'s private board and their choices for the current phase."""
        embed = board_embed(game, viewer=player)
        view = discord.ui.View(timeout=None)
        state = game.state
        head = f"{note}**{title_of(game)}** · round {state.round} · {phase_name(state)}\n"
        if game.status != "active" or state.phase == "over":
            return {"content": head + "This game is over.", "embed": embed, "view": view}
        if is_race(state):
            content = (
                head + "It's a race: point with the buttons on the race message in the thread."
            )
            return {"content": content, "embed": embed, "view": view}
        choices = choices_for(game, player)
        if not choices:
            content = head + "Your hand is empty, so you skip this pick (T-2.5)."
            return {"content": content, "embed": embed, "view": view}
        mine = engine_of(game).view(state, player).my_choice
        options = [
            discord.SelectOption(
                label=cut(c.label, OPTION_LABEL),
                value=encode(c.action),
                default=c.label == mine,
            )
            for c in choices[:25]
        ]
        view.add_item(ChoiceSelect(game.id, state.round, state.phase, options))
        if state.phase == "pick":
            ask = "Pick one card from your hand; it goes face up on your workbench at the reveal."
        else:
            ask = "Point at one middle card: a gift or a face-down material."
        if mine:
            ask += f"\nYour choice so far: {mine}. You can change it until everyone has chosen."
        return {"content": head + ask, "embed": embed, "view": view}

    async def open_private(self, interaction: discord.Interaction, game_id: int) -> None:
        """The "Choose privately" button: the clicker's panel as an ephemeral message."""
        game = await self.bot.store.load(game_id)
        player = human_player(interaction.user.id)
        if game.seat_of(player) is None:
            await reply(
                interaction,
                "You are not playing in this game; you can watch the board in this thread.",
            )
            return
        await interaction.response.send_message(ephemeral=True, **self.panel(game, player))

    async def choose(
        self, interaction: discord.Interaction, game_id: int, round_: int, phase: str, value: str
    ) -> None:
        """A choice from a DM or ephemeral select: confirm it privately, then publish."""
        player = human_player(interaction.user.id)
        action = decode(value)
        try:
            played = await self.bot.tables.submit_checked(
                game_id, player, action, still_open(round_, phase)
            )
        except PhaseClosed as closed:
            game = await self.bot.store.load(game_id)
            await interaction.response.edit_message(**self.panel(game, player, f"{closed}\n"))
            return
        game = played.game
        label = engine_of(game).describe_action(game.state, player, action, game.names)
        done = confirmation(label, action)
        if any(e.kind in PHASE_CHANGES for e in played.events):
            # The last choice: the reveal goes out while the chooser's answer does.
            content = f"{done} Everyone has chosen: the reveal is in the thread."
            answering = asyncio.ensure_future(
                interaction.response.edit_message(
                    content=content, view=discord.ui.View(timeout=None)
                )
            )
            try:
                await self.table.publish_or_warn(interaction, played, answering=answering)
            finally:
                await answering
            return
        else:
            panel = self.panel(game, player)
            panel["content"] = (
                f"{done} You can change it until everyone has chosen.\n"
                + (panel["content"].split("\n", 1)[0])
            )
            await interaction.response.edit_message(**panel)
        await self.table.publish_or_warn(interaction, played)

    async def race(
        self, interaction: discord.Interaction, game_id: int, round_: int, code: str
    ) -> None:
        """T-4: a click on a race button; the first valid point (commit order) wins."""
        player = human_player(interaction.user.id)
        action = decode(code)
        try:
            played = await self.bot.tables.submit_checked(
                game_id, player, action, still_open(round_, "point")
            )
        except PhaseClosed:
            await reply(interaction, f"The race of round {round_} is over.")
            return
        except IllegalAction:
            await reply(interaction, await self._too_late(game_id, round_, action))
            return
        event = next(e for e in played.events if e.kind == "speed_point")
        text = engine_of(played.game).describe_event(event, played.game.names)
        await reply(interaction, f"You pointed. {text}")
        await self.table.publish_or_warn(interaction, played)

    async def _too_late(self, game_id: int, round_: int, action: Any) -> str:
        """Who got the card first (from the public log of this round)."""
        names = (await self.bot.store.info(game_id)).names
        for logged in reversed(await self.bot.store.log(game_id)):
            for event in logged.events:
                if event.get("kind") != "speed_point" or event.get("round") != round_:
                    continue
                gift, material = event.get("gift"), event.get("material")
                if (
                    action.kind == "point_gift"
                    and gift
                    and gift.get("result") == "won"
                    and 0 <= action.gift < len(GIFT_NAMES)
                    and gift.get("gift") == GIFT_NAMES[action.gift]
                ):
                    winner = gift.get("winner")
                    return f"Too late: {names.get(winner, winner)} already won {gift['gift']}."
                if (
                    action.kind == "point_material"
                    and material
                    and material.get("slot") == action.slot
                    and material.get("result") == "taken"
                ):
                    taker = material.get("taker")
                    return (
                        f"Too late: {names.get(taker, taker)} already took face-down "
                        f"material {action.slot + 1}."
                    )
        return "Too late: that card is no longer in the middle."

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
        label = engine_of(game).describe_action(game.state, player, action, game.names)
        await reply(interaction, confirmation(label, action))
        await self.table.publish_or_warn(interaction, played)

    def play_choices(self, game: LoadedGame, player: PlayerId) -> list[tuple[str, str]]:
        return [(c.label, encode(c.action)) for c in choices_for(game, player)]

    # ------------------------------------------------------------ publishing

    async def publish(self, played: Played) -> None:
        """Choices only: update who has chosen. A phase change: reveal, then the next phase.

        One game's publishes run one at a time, so a slower one never overwrites the
        status of a later phase. A bare choice that arrives while another publish runs
        only marks the status for one more edit at its end: simultaneous choices share
        one edit, and a reveal never waits behind a queue of status edits.
        """
        game_id = played.game.id
        lock = self._locks.setdefault(game_id, asyncio.Lock())
        if lock.locked() and all(e.kind == "chose" for e in played.events):
            self._dirty.add(game_id)
            return
        async with lock:
            await self._publish(played)
            while game_id in self._dirty:
                self._dirty.discard(game_id)
                game = await self.bot.store.load(game_id)
                if game.status == "active":
                    await self._edit_status(game)

    async def _publish(self, played: Played) -> None:
        game = played.game
        events = played.events
        if not any(e.kind in PHASE_CHANGES for e in events) and game.status == "active":
            game = await self.bot.store.load(game.id)  # the latest: others may have chosen
        if "phase" in game.messages and not any(e.kind in PHASE_CHANGES for e in events):
            speed_points = [e for e in events if e.kind == "speed_point"]
            if speed_points:  # T-4: the thread updates as cards are claimed
                text = "\n".join(event_lines(game, speed_points))
                await self._channel(game).send(text, allowed_mentions=NO_MENTIONS)
            await self._edit_status(game)
            return
        shown = [e for e in events if e.kind != "chose"]
        channel = self._channel(game)
        for text in chunk_lines(event_lines(game, shown), MAX_CONTENT):
            await channel.send(text, allowed_mentions=NO_MENTIONS)  # the reveal
        # The status message of the phase that just ended, as stored now (the chooser's
        # game may have been read before that phase's start was published).
        game = replace(game, messages=(await self.bot.store.info(game.id)).messages)
        await self._close_status(game)
        if game.state.mode == "speed" and game.state.phase == "pick":
            # a race everyone finished pointing in: its close timer has nothing to do
            await self.bot.store.cancel_timers(game.id, "speed_close")
        drawing = asyncio.create_task(self.table.board_png(game))  # while the phase starts
        if game.status == "active":
            await self.start_phase(game)
        await drawing
        await self.table.update_board(game)
        if game.status != "active":
            await self.table.close(game)

    async def start_phase(self, game: LoadedGame) -> None:
        """DM the choices, post the status message, set the phase's timers."""
        state = game.state
        acting = self._acting_humans(game)
        if state.phase == "pick" or state.mode == "tactical":
            sent = await asyncio.gather(*(self._dm(game, p) for p in acting))
            refused = [p for p, ok in zip(acting, sent, strict=True) if not ok]
            if refused:  # for whichever process edits the status line next
                mask = sum(1 << game.players.index(p) for p in refused)
                await self.bot.store.set_message(game.id, no_dm_key(state), mask)
                game = replace(game, messages={**game.messages, no_dm_key(state): mask})
        await self.table.schedule_timers(game)
        if is_race(state):
            seconds = game.settings.get("speed_seconds") or SPEED_SECONDS
            due = self.bot.clock() + timedelta(seconds=seconds)
            await self.bot.store.schedule(
                game.id, "speed_close", due, {"round": state.round}, replace=True
            )
            self._wake_after(seconds)
        content, view = self._status(game, await self._deadlines(game))
        message = await self._channel(game).send(content, view=view, allowed_mentions=ALLOWED_PINGS)
        await self.bot.store.set_message(game.id, status_key(state), message.id)
        await self.bot.store.set_message(game.id, "phase", message.id)
        # Choices made (in any process) while this was posted: show them now.
        latest = await self.bot.store.load(game.id)
        if latest.version > game.version and latest.status == "active":
            await self._edit_status(latest)

    async def _deadlines(self, game: LoadedGame) -> dict[str, datetime]:
        """When this phase's race closes (``speed_close``) and its turn limit ends."""
        deadlines = {}
        for timer in await self.bot.store.pending_timers(game.id):
            if timer.kind == "turn_limit" or (
                timer.kind == "speed_close" and timer.payload.get("round") == game.state.round
            ):
                deadlines[timer.kind] = timer.due_at
        return deadlines

    def _acting_humans(self, game: LoadedGame) -> list[PlayerId]:
        acting = engine_of(game).to_act(game.state)
        return [s.player for s in game.seats if not s.is_ai and s.player in acting]

    async def _dm(self, game: LoadedGame, player: PlayerId) -> bool:
        """Send ``player`` their choices by DM; ``False`` if Discord refused (e.g. 50007)."""
        seat = game.seat_of(player)
        assert seat is not None and seat.user_id is not None
        try:
            channel = await self.bot.create_dm(discord.Object(id=seat.user_id))
            await channel.send(**self.panel(game, player))
        except discord.HTTPException as error:
            if getattr(error, "code", 0) != DMS_CLOSED:
                log.warning("game %s: DM to %s failed: %s", game.id, seat.user_id, error)
            return False
        return True

    def _status(
        self, game: LoadedGame, deadlines: dict[str, datetime]
    ) -> tuple[str, discord.ui.View]:
        """The thread's live line for the phase: who must choose, who has chosen (not what),
        and when it closes (a timestamp each reader's Discord counts down)."""
        state = game.state
        view = discord.ui.View(timeout=None)
        public = engine_of(game).view(state, None)
        names = game.names
        chosen = [names[s.player] for s in public.seats if s.chosen]
        waiting = [s.player for s in public.seats if s.to_act]
        lines = [
            f"**Round {state.round} · {phase_name(state)}** "
            f"(hand round {state.deal_round} of 4, hands pass {state.rotation})"
        ]
        if is_race(state):
            race = deadlines.get("speed_close")
            closes = (
                discord.utils.format_dt(race, "R")
                if race is not None
                else f"after {game.settings.get('speed_seconds') or SPEED_SECONDS} seconds"
            )
            lines.append(
                "Click a card to point at it: the first valid point wins it; each player "
                f"points once; the race closes {closes}."
            )
            for code, label in self._race_cards(game):
                view.add_item(RaceButton(game.id, state.round, code, label))
        else:
            what = "a card from your hand" if state.phase == "pick" else "a middle card"
            lines.append(
                f"Choose {what} in secret: I sent your choices by DM, or press "
                "**Choose privately**."
            )
            view.add_item(PrivateButton(game.id))
            if "turn_limit" in deadlines:
                when = discord.utils.format_dt(deadlines["turn_limit"], "R")
                lines.append(f"Not chosen {when}? The computer chooses for you.")
        lines.append("Chosen: " + (", ".join(chosen) or "nobody yet"))
        if waiting:
            lines.append("Waiting for: " + ", ".join(mention(game, p) for p in waiting))
        mask = game.messages.get(no_dm_key(state), 0)
        no_dm = [p for i, p in enumerate(game.players) if mask >> i & 1 and p in waiting]
        if no_dm:
            lines.append(
                "I could not send a DM to "
                + ", ".join(names[p] for p in no_dm)
                + ": please press **Choose privately**."
            )
        return "\n".join(lines)[:MAX_CONTENT], view

    def _race_cards(self, game: LoadedGame) -> list[tuple[str, str]]:
        """(code, label) of each card still in the middle, from the public view."""
        public = engine_of(game).view(game.state, None)
        cards = [
            (f"g:{gift.id}", f"{gift.name} ({', '.join(gift.needs)})")
            for gift in public.middle_gifts
            if gift is not None
        ]
        cards += [
            (f"m:{slot}", f"Face-down material {slot + 1}")
            for slot, there in enumerate(public.middle_materials)
            if there
        ]
        return cards[:25]

    async def _edit_status(self, game: LoadedGame) -> None:
        """Show ``game`` on its phase's status message, unless that message shows a newer
        version already (or is not posted yet: its poster shows the latest then)."""
        key = status_key(game.state)
        message_id = game.messages.get(key)
        if message_id is None or game.shown_versions.get(key, -1) >= game.version:
            return
        content, view = self._status(game, await self._deadlines(game))

        async def edit() -> None:
            with contextlib.suppress(discord.NotFound):
                await (
                    self._channel(game)
                    .get_partial_message(message_id)
                    .edit(content=content, view=view, allowed_mentions=NO_MENTIONS)
                )

        await self.bot.gate.show(game.id, key, game.version, edit)

    async def _close_status(self, game: LoadedGame) -> None:
        """The status message of the phase that just ended loses its buttons (shown as of
        the version that ended it: newer than any edit made during that phase)."""
        message_id = game.messages.get("phase")
        if message_id is None:
            return
        key = next(
            (k for k, v in game.messages.items() if v == message_id and k.startswith("phase:")),
            "phase",
        )

        async def edit() -> None:
            with contextlib.suppress(discord.NotFound):
                await (
                    self._channel(game)
                    .get_partial_message(message_id)
                    .edit(
                        content="This phase is over; everyone has chosen (or time ran out). "
                        "See the reveal below.",
                        view=discord.ui.View(timeout=None),
                        allowed_mentions=NO_MENTIONS,
                    )
                )

        await self.bot.gate.show(game.id, key, game.version, edit)

    # ------------------------------------------------------------ timers

    def _wake_after(self, seconds: float) -> None:
        """Run the due timers right when the race ends (the poll loop is a backstop)."""

        async def wake() -> None:
            if not await self.bot.pause(seconds + 0.1):
                return  # the bot is stopping: the stored timer fires after the restart
            timers = self.bot.get_cog("Timers")
            if timers is not None:
                await timers.run_due()  # type: ignore[attr-defined]

        task = self.bot.background(wake(), "tonttu-race-timer")
        self._wakeups.add(task)
        task.add_done_callback(self._wakeups.discard)

    async def fire(self, game: LoadedGame, timer: Timer) -> bool:
        state = game.state
        if timer.kind == "speed_close":
            if state.phase == "point" and state.round == timer.payload.get("round"):
                played = await self.bot.tables.submit_checked(
                    game.id, TIMER, ClosePointPhase(), still_open(state.round, "point")
                )
                await self.table.publish(played)
                await self.table.run_computers(game.id)  # they pick in the next phase at once
            return True
        if timer.kind == "remind":
            acting = self._acting_humans(game)
            if acting:
                who = ", ".join(mention(game, p) for p in acting)
                view = discord.ui.View(timeout=None)
                view.add_item(PrivateButton(game.id))
                limit = await self.table.schedule_timers(game, turn_limit=False)
                text = (
                    f"Reminder: {who}, round {state.round}'s {phase_name(state)} is waiting "
                    "for your choice (in my DM, or press **Choose privately**)."
                )
                if limit is not None:
                    when = discord.utils.format_dt(limit, "R")
                    text += f" Not chosen {when}? The computer chooses for you."
                await self._channel(game).send(text, view=view, allowed_mentions=ALLOWED_PINGS)
            return True
        return False  # the turn limit: a computer move for each absent player (Timers)


async def setup(bot: WorkshopBot) -> None:
    await bot.add_cog(Tonttu(bot))
    bot.add_dynamic_items(*COMPONENTS)
    register_components(*COMPONENTS)
