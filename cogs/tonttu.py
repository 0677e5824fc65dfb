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

The thread is kept up to date by ``tables/publishing.py`` from what storage holds (this
cog's :meth:`Tonttu.sync_thread`): a reveal whose post was lost when the bot stopped is
posted after the restart, and a phase's DMs and status message go out once. Who refused
DMs is stored for the rest of the game, so the bot stops trying (each refusal is a 4xx
that Discord counts against the bot); the player is told once, in the thread, and can
ask for DMs again from their private panel.

No rules here: choices, their labels and the log lines all come from the engine.

Languages: the thread's text (status, reveal, race, reminders) is in the
server's language (``bot.languages.public``); a player's panel, DM and answers in
their own (``cogs.helpers.language.private``, or ``bot.languages.of_user`` for a DM sent
without an interaction).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable
from datetime import datetime, timedelta
from typing import Any

import discord
from discord.ext import commands

from cogs.helpers.common import (
    NO_MENTIONS,
    chosen_value,
    components,
    guarded,
    register_components,
    reply,
)
from cogs.helpers.desk import BOARD_DELAY
from cogs.helpers.host import Host, bot_of
from cogs.helpers.language import private
from cogs.helpers.render import (
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
from cogs.helpers.thread import Sync, nonce
from engine.choices import ChoiceFacts
from engine.core import TIMER, IllegalAction, PlayerId
from engine.tonttu.data import GIFT_NAMES, GIFT_NEEDS
from engine.tonttu.game import PhaseClosed, chosen_action, is_race, phase_of, still_open
from engine.tonttu.models import ClosePointPhase, Pick, PointGift, PointMaterial
from engine.tonttu.text import NOTE_LABELS, describe_parts
from engine.words import ENGLISH, N_, Words
from storage import LoadedGame, NewTimer, Timer, human_player
from tables.publishing import logged_events, pending_reminder
from tables.service import choices_for, engine_of, view_of

log = logging.getLogger("bot.tonttu")

DMS_CLOSED = 50007
SPEED_SECONDS = 60
"""T-4: the race's default length when the table did not set one at /newgame."""
PHASE_CHANGES = frozenset(
    {"picks_revealed", "points_revealed", "point_phase_closed", "round_ended", "game_ended"}
)
"""Events after which the next phase (or the end) must be shown."""
ALLOWED_PINGS = discord.AllowedMentions(users=True, roles=False, everyone=False)
PANEL_FRESH = 14 * 60.0
"""Seconds an interaction's panel can be edited through it (Discord: 15 minutes)."""
STATUS_GAP = 1.5
"""Seconds between two edits of a phase's status message (choices made meanwhile share
the next edit)."""
TIDY_LATE = 6.0
"""Seconds after which the thread's tidy-ups (the status line, the board picture), held
back while the bot's REST budget has no room to spare (:meth:`RestBudget.spare
<cogs.helpers.gates.RestBudget.spare>`), take any free slot."""


# --------------------------------------------------------------------------- choices as text


def encode(action: Any) -> str:
    """A choice as a select value / race button / ``/play`` value: ``p:Wool``, ``g:12``,
    ``m:3`` (a face-down material, kept face down: T-3.1's default, and all values from
    before the choice existed) or ``mu:3`` (the same, taken face up)."""
    if action.kind == "pick":
        return f"p:{action.material}"
    if action.kind == "point_gift":
        return f"g:{action.gift}"
    if action.kind == "point_material":
        return f"m:{action.slot}" if action.face_down else f"mu:{action.slot}"
    raise ValueError(f"not a player's choice: {action!r}")


def decode(value: str) -> Any:
    """The engine action of :func:`encode`'s text; a sentence for anything else."""
    kind, _, rest = value.partition(":")
    try:
        if kind == "p" and rest:
            return Pick.model_validate({"material": rest})
        if kind == "g" and rest.isdigit() and len(rest) <= 3:
            return PointGift(gift=int(rest))
        if kind in ("m", "mu") and rest.isdigit() and len(rest) <= 2:
            return PointMaterial(slot=int(rest), face_down=kind == "m")
    except ValueError:
        pass
    raise IllegalAction("That is not one of the choices; pick one from the list.")


POINTED_AT_MATERIAL = {
    None: N_("You pointed at face-down material {n}."),
    "keep_face_down": N_("You pointed at face-down material {n}: keep it face down."),
    "take_face_up": N_("You pointed at face-down material {n}: take it face up."),
    "goes_face_up": N_(
        "You pointed at face-down material {n}: it goes face up (you already have a "
        "face-down card)."
    ),
}
"""A point at a face-down material, by its facts' note (``engine.choices.Note``)."""


def confirmation(facts: ChoiceFacts | str, action: Any, words: Words = ENGLISH) -> str:
    """ "You picked Wool." / "You pointed at Rocking Horse (needs …)." (what was chosen,
    without the menu's note on what it would do), from the choice's facts
    (``describe_choice``, which may be asked after the reveal: then a face-down
    material's note is unknown). ``facts`` may also be the choice's English menu label
    (the engine's own, as callers from before the facts pass it)."""
    if action.kind == "pick":
        return words.gettext("You picked {material}.").format(
            material=words.gettext(action.material)
        )
    if action.kind == "point_gift":
        return words.gettext("You pointed at {gift} (needs {materials}).").format(
            gift=words.gettext(GIFT_NAMES[action.gift]),
            materials=", ".join(words.gettext(m) for m in GIFT_NEEDS[action.gift]),
        )
    if isinstance(facts, str):  # the label the engine made for one of the notes
        slot = action.slot + 1
        labels = {ENGLISH.gettext(t).format(slot=slot): n for n, t in NOTE_LABELS.items()}
        note = labels.get(facts)
    else:
        note = facts.note
    return words.gettext(POINTED_AT_MATERIAL[note]).format(n=action.slot + 1)


PHASE_NAMES = {"pick": N_("pick"), "point": N_("point"), "race": N_("speed race")}
ROTATIONS = {"left": N_("left"), "right": N_("right")}
"""The rotation card's sides (T-2.4), as the status line names them."""
REMINDERS = {
    "pick": N_(
        "Reminder: {who}, round {round}'s pick is waiting for your choice (in my DM, or "
        "press **Choose privately**)."
    ),
    "point": N_(
        "Reminder: {who}, round {round}'s point is waiting for your choice (in my DM, or "
        "press **Choose privately**)."
    ),
    "race": N_(
        "Reminder: {who}, round {round}'s speed race is waiting for your choice (in my DM, "
        "or press **Choose privately**)."
    ),
}


def phase_name(state: Any, words: Words = ENGLISH) -> str:
    """The phase's name (``engine.tonttu.game.phase_of``); a finished game's panel
    names its last phase, as it always has."""
    phase = phase_of(state)
    if phase == "over":
        phase = "race" if state.mode == "speed" else "point"
    return words.gettext(PHASE_NAMES[phase])


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
)


def tonttu_of(interaction: discord.Interaction) -> Tonttu:
    cog = bot_of(interaction).get_cog("Tonttu")
    assert isinstance(cog, Tonttu)
    return cog


def status_key(state: Any) -> str:
    """Where the status message of ``state``'s phase is stored (and its shown version)."""
    return f"phase:{state.round}:{state.phase}"


async def done_first(task: asyncio.Future[Any], event: asyncio.Event) -> bool:
    """Wait until ``task`` is done or ``event`` is set; whether ``task`` is done."""
    if not task.done() and not event.is_set():
        waiting = asyncio.ensure_future(event.wait())
        try:
            await asyncio.wait({task, waiting}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            waiting.cancel()
    return task.done()


async def all_of(*work: Awaitable[None] | None) -> None:
    """Await ``work`` together; every one ends before the first error is raised."""
    results = await asyncio.gather(*(w for w in work if w is not None), return_exceptions=True)
    for result in results:
        if isinstance(result, BaseException):
            raise result


def _retrieve(task: asyncio.Task[Any]) -> None:
    """A task whose error its awaiter may never see (the round ended first)."""
    if not task.cancelled():
        task.exception()


# --------------------------------------------------------------------------- the cog


class Tonttu(commands.Cog):
    def __init__(self, bot: Host) -> None:
        self.bot = bot
        self._wakeups: set[asyncio.Task[None]] = set()
        self._status_edited: dict[int, float] = {}
        """When this process last edited each game's status message (loop time)."""
        self._held: dict[tuple[str, int], float] = {}
        """Since when (loop time) each game's status line or board edit is held back for
        the REST budget (:meth:`_tidy_now`)."""
        self._panels: dict[tuple[int, PlayerId], tuple[discord.Interaction, float, str]] = {}
        """The panel (DM or ephemeral) each player last chose on, by its interaction,
        when (loop time) and what it told them: the next phase's choices replace it."""

    async def cog_load(self) -> None:
        self.bot.desk.presenters["tonttu"] = self
        self.bot.publisher.syncers["tonttu"] = self.sync_thread

    async def cog_unload(self) -> None:
        self.bot.desk.presenters.pop("tonttu", None)
        self.bot.publisher.syncers.pop("tonttu", None)
        for task in self._wakeups:
            task.cancel()

    def _channel(self, game: LoadedGame) -> discord.PartialMessageable:
        return self.bot.get_partial_messageable(game.thread_id or game.channel_id)

    # ------------------------------------------------------------ private panels

    def panel(
        self, game: LoadedGame, player: PlayerId, note: str = "", words: Words = ENGLISH
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
        if game.status != "active" or state.phase == "over":
            return {"content": head + gettext("This game is over."), "embed": embed, "view": view}
        if is_race(state):
            content = head + gettext(
                "It's a race: point with the buttons on the race message in the thread."
            )
            return {"content": content, "embed": embed, "view": view}
        choices = choices_for(game, player)
        if not choices:
            content = head + gettext("Your hand is empty, so you skip this pick.")  # T-2.5
            return {"content": content, "embed": embed, "view": view}
        rules = engine_of(game)
        mine = chosen_action(state, player)  # the pending choice, for this player's eyes
        options = []
        for c in choices[:25]:
            # the label, and what a point would do (the description)
            label, hint = describe_parts(c.action, state, player, game.names, words)
            options.append(
                discord.SelectOption(
                    label=cut(label, OPTION_LABEL),
                    value=encode(c.action),
                    description=cut(hint, OPTION_LABEL) if hint else None,
                    default=c.action == mine,
                )
            )
        view.add_item(ChoiceSelect(game.id, state.round, state.phase, options, words))
        if state.phase == "pick":
            ask = gettext(
                "Pick one card from your hand; it goes face up on your workbench at the reveal."
            )
        else:
            ask = gettext("Point at one middle card: a gift or a face-down material.")
            if any(c.action.kind == "point_material" and not c.action.face_down for c in choices):
                ask += " " + gettext(
                    "A material you alone point at goes to your workbench face down"
                    " unless you choose face up."
                )
        if mine is not None:
            ask += "\n" + gettext(
                "Your choice so far: {choice}. You can change it until everyone has chosen."
            ).format(choice=rules.describe_action(state, player, mine, game.names, words))
        return {"content": head + ask, "embed": embed, "view": view}

    async def open_private(self, interaction: discord.Interaction, game_id: int) -> None:
        """The "Choose privately" button: the clicker's panel as an ephemeral message."""
        game = await self.bot.store.load(game_id)
        player = human_player(interaction.user.id)
        words = private(interaction)
        if game.seat_of(player) is None:
            await reply(
                interaction,
                words.gettext(
                    "You are not playing in this game; you can watch the board in this thread."
                ),
            )
            return
        content = self.panel(game, player, words=words)
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
            await interaction.response.edit_message(**self.panel(game, player, note, words))
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
            panel = self.panel(game, player, words=words)
            panel["content"] = (
                words.gettext("{done} You can change it until everyone has chosen.").format(
                    done=done
                )
                + "\n"
                + (panel["content"].split("\n", 1)[0])
            )
            await interaction.response.edit_message(**panel)
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
        gettext = words.gettext
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
                    return gettext("Too late: {name} already won {gift}.").format(
                        name=names.get(winner, winner), gift=gettext(gift["gift"])
                    )
                if (
                    action.kind == "point_material"
                    and material
                    and material.get("slot") == action.slot
                    and material.get("result") == "taken"
                ):
                    taker = material.get("taker")
                    return gettext("Too late: {name} already took face-down material {n}.").format(
                        name=names.get(taker, taker), n=action.slot + 1
                    )
        return gettext("Too late: that card is no longer in the middle.")

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

    # ------------------------------------------------------------ the thread

    async def sync_thread(self, sync: Sync) -> None:
        """Tonttu's thread (``tables/publishing.py``): one message per phase, holding the
        reveal that started it and its live status (who must choose, who has chosen,
        never what; a race's buttons and claims); the phase's private panels; the board.

        Marks besides the generic ones (``log``, ``log_intent``, ``board``, ``final``,
        the reminder's): ``phase:R:P`` (the phase's message and the version
        it shows), ``reveal:R:P`` (the version its reveal starts after), ``phase`` (the
        latest phase message), ``dm:R:P`` (the phase's panels went out) and
        ``dm_closed:PLAYER`` (that player refuses DMs: a message id while it holds, its
        version when it was found)."""
        game = sync.game
        if game.status not in ("active", "finished"):
            return
        shown, version, state = sync.shown, game.version, game.state
        board_v = shown.get("board", -1)
        log_v = shown.get("log", max(board_v, 0))
        intent = shown.get("log_intent", -1)
        actions = await sync.actions(log_v)
        target = version
        if intent > log_v and any(  # a dead publisher's posts first, if a phase passed since
            e["kind"] in PHASE_CHANGES for a in actions if a.seq > intent for e in a.events
        ):
            target = intent
        events = logged_events(game, actions, target)
        changed = any(e.kind in PHASE_CHANGES for e in events)
        ended = game.status != "active"
        if "board" not in game.messages:
            await self.bot.desk.post_board(sync)  # the first board goes above everything else
            board_v = version
        current = not ended and state.phase != "over" and target == version
        behind = version - board_v
        drawing = None
        if behind > 0 and (ended or ((changed or sync.flush) and self._tidy_now("board", game.id))):
            # drawn (in the worker process) while the reveal is posted
            drawing = asyncio.create_task(self.bot.core.pictures.board(game, sync.lang))
            drawing.add_done_callback(_retrieve)
        panels: Awaitable[None] | None = None
        if not current:  # the end, or an older phase's reveal: the lines alone
            words = await self.bot.languages.public(game.guild_id)
            lines = event_lines(game, [e for e in events if e.kind != "chose"], words)
            await sync.mark_now("log_intent", target)
            last = None
            for i, text in enumerate(chunk_lines(lines, MAX_CONTENT)):
                last = await sync.post(
                    ("log", target, i), content=text, allowed_mentions=NO_MENTIONS
                )
            sync.mark("log", target, last.id if last else None)
            if target < version:
                sync.again = True
                return
        elif status_key(state) not in game.messages:
            await sync.mark_now("log_intent", version)
            panels = await self._start_phase(sync, log_v)
        elif shown.get(status_key(state), -1) < version:
            await self._edit_status(sync, status_key(state))

        async def board() -> None:
            if drawing is None:
                if behind > 0:
                    sync.defer(BOARD_DELAY)
                return
            if not (ended or changed) and not await done_first(drawing, sync.asked_again):
                # A tidy-up for earlier choices, whose picture is not drawn yet, and a
                # newer move came in: that round goes now (were it the phase's last
                # choice, its reveal would wait for this picture) and draws the board.
                drawing.cancel()
                return
            await self.bot.desk.edit_board(sync, await drawing)

        # The next phase's private panels and the board edit go out together: a round
        # that starts a phase is over sooner, so the next phase's reveal waits less.
        await all_of(board(), panels)
        if current:
            await self._remind(sync)
        if ended:
            await self.bot.desk.close_thread(sync)
            for key in [k for k in self._panels if k[0] == game.id]:
                del self._panels[key]
            self._status_edited.pop(game.id, None)
            for what in ("status", "board"):
                self._held.pop((what, game.id), None)

    async def _start_phase(self, sync: Sync, reveal_from: int) -> Awaitable[None] | None:
        """The phase's message (the reveal since version ``reveal_from``, then the
        status); its timers go with the round's marks. Returns what sends the phase's
        private panels (once), for the caller to await: the reveal waits for nothing but
        the claim, the intent and one read of the log."""
        game, version = sync.game, sync.game.version
        state = game.state
        timers, limit = self.bot.core.turn_timers(game)
        deadlines = {"turn_limit": limit} if limit is not None else {}
        cancel = ["speed_close"] if state.mode == "speed" and state.phase == "pick" else []
        # (a race everyone finished pointing in: its close timer has nothing to do)
        if is_race(state):
            seconds = game.settings.get("speed_seconds") or SPEED_SECONDS
            deadlines["speed_close"] = self.bot.clock() + timedelta(seconds=seconds)
            timers.append(NewTimer("speed_close", deadlines["speed_close"], {"round": state.round}))
            self._wake_after(seconds)
        sync.schedule(*timers, cancel=cancel)
        self._held.pop(("status", game.id), None)  # the last phase's line is gone by
        key = status_key(state)
        earlier, content, view = await self._phase_message(sync, reveal_from, deadlines)
        for i, text in enumerate(earlier):  # a reveal too long for one message
            await sync.post(("status", key, i), content=text, allowed_mentions=NO_MENTIONS)
        message = await sync.post(
            ("status", key), content=content, view=view, allowed_mentions=ALLOWED_PINGS
        )
        sync.mark(key, version, message.id)
        sync.mark(f"reveal:{state.round}:{state.phase}", reveal_from)
        sync.mark("phase", version, message.id)
        sync.mark("log", version, message.id)
        if is_race(state) or f"dm:{state.round}:{state.phase}" in sync.shown:
            return None
        return self._send_panels(sync, message, reveal_from, deadlines)

    async def _send_panels(
        self,
        sync: Sync,
        message: discord.Message,
        reveal_from: int,
        deadlines: dict[str, datetime],
    ) -> None:
        """The phase's private panels; a refused DM is told on the phase's ``message``."""
        game, version, state = sync.game, sync.game.version, sync.game.state
        acting = self._acting_humans(game)
        sent = await asyncio.gather(*(self._send_panel(game, p) for p in acting))
        refused = [p for p, ok in zip(acting, sent, strict=True) if not ok]
        dm_key = f"dm:{state.round}:{state.phase}"
        marks: dict[str, tuple[int | None, int]] = {dm_key: (None, version)}
        marks.update({f"dm_closed:{p}": (1, version) for p in refused})
        # Stored at once: a process killed before this round's marks are written must
        # not send the panels again (one edited through its interaction has no nonce:
        # the next process would DM the player a second copy).
        await self.bot.store.set_marks(game.id, marks)
        for name, (message_id, at) in marks.items():
            sync.mark(name, at, message_id)
        if refused:  # the phase's message tells them, this once
            sync.game = sync.game_with_marks()
            _, content, view = await self._phase_message(sync, reveal_from, deadlines)
            await message.edit(content=content, view=view, allowed_mentions=NO_MENTIONS)

    async def _phase_message(
        self, sync: Sync, reveal_from: int, deadlines: dict[str, datetime] | None = None
    ) -> tuple[list[str], str, discord.ui.View]:
        """The phase's message: what was revealed since ``reveal_from`` (and, in a race,
        claimed), then the status; earlier parts of a reveal too long for one message.
        ``deadlines``: as :meth:`_deadlines` reads them (given when just planned)."""
        game = sync.game
        events = logged_events(game, await sync.actions(reveal_from), game.version)
        if deadlines is None:
            deadlines = await self._deadlines(game)
        words = await self.bot.languages.public(game.guild_id)
        status, view = self._status(game, deadlines, words)
        lines = event_lines(game, [e for e in events if e.kind != "chose"], words)
        chunks = chunk_lines(lines, MAX_CONTENT - len(status) - 2) if lines else [""]
        content = f"{chunks[-1]}\n\n{status}" if chunks[-1] else status
        return chunks[:-1], content[:MAX_CONTENT], view

    @staticmethod
    def dms_closed(game: LoadedGame, player: PlayerId) -> bool:
        """Whether ``player`` refused this game's DMs (until they ask for DMs again)."""
        return f"dm_closed:{player}" in game.messages

    async def _edit_status(self, sync: Sync, key: str) -> None:
        """Show who has chosen (a race: what was claimed) on the phase's message: at once
        in a race (a claimed card's button must go); else at most every ``STATUS_GAP``
        seconds (choices made meanwhile share one edit) unless the sync flushes, and
        while the REST budget has room to spare (:meth:`_tidy_now`)."""
        game = sync.game
        loop = asyncio.get_running_loop()
        if not is_race(game.state):
            wait = self._status_edited.get(game.id, -STATUS_GAP) + STATUS_GAP - loop.time()
            if wait > 0 and not sync.flush:
                sync.defer(wait)
                return
            if not self._tidy_now("status", game.id):
                sync.defer(STATUS_GAP)
                return
        state = game.state
        reveal_from = sync.shown.get(f"reveal:{state.round}:{state.phase}", game.version)
        _, content, view = await self._phase_message(sync, reveal_from)
        with contextlib.suppress(discord.NotFound):
            await sync.channel.get_partial_message(game.messages[key]).edit(
                content=content, view=view, allowed_mentions=NO_MENTIONS
            )
        self._status_edited[game.id] = loop.time()
        sync.mark(key, game.version)
        sync.mark("log", game.version)  # a race's claims are shown there

    def _tidy_now(self, what: str, game_id: int) -> bool:
        """Whether the game's status line or board (``what``), which only tidy the thread
        up, is edited now: while the bot's REST budget has room to spare (once held back
        for ``TIDY_LATE`` seconds: any free slot). Else the sync that asked tries again
        later, and more moves share the edit; reveals and prompts have the room."""
        now = asyncio.get_running_loop().time()
        since = self._held.setdefault((what, game_id), now)
        if not self.bot.budget.spare(overdue=now - since >= TIDY_LATE):
            return False
        del self._held[(what, game_id)]
        return True

    async def _remind(self, sync: Sync) -> None:
        """A reminder a timer asked for (``pending_reminder``), unless the phase moved on."""
        game = sync.game
        pending = pending_reminder(sync.shown)
        if pending is None:
            return
        ask, asked_at = pending
        acting = self._acting_humans(game)
        # asked in this phase (a reminder's timer fires only once the phase's message is
        # out), however many choices were made since
        if acting and asked_at >= sync.game_with_marks().shown_versions.get("phase", -1):
            state = game.state
            words = await self.bot.languages.public(game.guild_id)
            who = ", ".join(mention(game, p) for p in acting)
            view = components()
            view.add_item(PrivateButton(game.id, words))
            limit = await self.bot.core.schedule_timers(sync, game, turn_limit=False)
            text = words.gettext(REMINDERS[phase_of(state)]).format(who=who, round=state.round)
            if limit is not None:
                when = discord.utils.format_dt(limit, "R")
                text += " " + words.gettext(
                    "Not chosen {when}? The computer chooses for you."
                ).format(when=when)
            await sync.post(
                ("reminder", ask), content=text, view=view, allowed_mentions=ALLOWED_PINGS
            )
        sync.mark("reminder", ask)

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

    def _keep_panel(self, interaction: discord.Interaction, game_id: int, said: str = "") -> None:
        """Remember the panel a player last used (and what it last told them, e.g. their
        choice), to show them the next phase there."""
        loop = asyncio.get_running_loop()
        player = human_player(interaction.user.id)
        self._panels[(game_id, player)] = (interaction, loop.time(), said)

    async def _send_panel(self, game: LoadedGame, player: PlayerId) -> bool:
        """The phase's choices to ``player``: on the panel they last used, edited through
        its interaction (which Discord does not count against the bot's limits) while
        that is fresh; else by DM, unless they refuse DMs. ``False``: a DM was refused."""
        held = self._panels.get((game.id, player))
        if held is not None:
            interaction, used_at, said = held
            if asyncio.get_running_loop().time() - used_at < PANEL_FRESH:
                words = private(interaction)
                note = words.gettext("{done} Everyone has chosen: the reveal is in the thread.")
                note = note.format(done=said).lstrip() + "\n"
                try:
                    await interaction.edit_original_response(
                        **self.panel(game, player, note, words)
                    )
                    return True
                except discord.HTTPException:
                    pass  # gone (dismissed, expired): a DM then
            del self._panels[(game.id, player)]
        if self.dms_closed(game, player):
            return True  # refused before: not tried again (they choose privately)
        return await self._dm(game, player)

    async def _dm(self, game: LoadedGame, player: PlayerId, *, again: bool = False) -> bool:
        """Send ``player`` their choices by DM; ``False`` if Discord refused (e.g. 50007).
        ``again``: asked for by the player (not the phase's DM: a nonce of its own)."""
        seat = game.seat_of(player)
        assert seat is not None and seat.user_id is not None
        state = game.state
        what = ("dm-again", game.version) if again else ("dm",)
        words = await self.bot.languages.of_user(seat.user_id, game.guild_id)
        try:
            channel = await self.bot.create_dm(discord.Object(id=seat.user_id))
            await channel.send(
                nonce=nonce(game.id, *what, state.round, state.phase, player),
                **self.panel(game, player, words=words),
            )
        except discord.HTTPException as error:
            if getattr(error, "code", 0) != DMS_CLOSED:
                log.warning("game %s: DM to %s failed: %s", game.id, seat.user_id, error)
            return False
        return True

    def _status(
        self, game: LoadedGame, deadlines: dict[str, datetime], words: Words = ENGLISH
    ) -> tuple[str, discord.ui.View]:
        """The thread's live line for the phase: who must choose, who has chosen (not what),
        and when it closes (a timestamp each reader's Discord counts down); in ``words``'
        language (the server's)."""
        gettext = words.gettext
        state = game.state
        view = components()
        public = view_of(game, None)
        names = game.names
        chosen = [names[s.player] for s in public.seats if s.chosen]
        waiting = [s.player for s in public.seats if s.to_act]
        rotation = gettext(ROTATIONS.get(state.rotation, state.rotation))
        lines = [
            gettext(
                "**Round {round} · {phase}** (hand round {deal_round} of 4, hands pass {rotation})"
            ).format(
                round=state.round,
                phase=phase_name(state, words),
                deal_round=state.deal_round,
                rotation=rotation,
            )
        ]
        if is_race(state):
            race = deadlines.get("speed_close")
            seconds = game.settings.get("speed_seconds") or SPEED_SECONDS
            if race is not None:
                closes = gettext(
                    "Click a card to point at it: the first valid point wins it; each player "
                    "points once; the race closes {when}."
                ).format(when=discord.utils.format_dt(race, "R"))
            else:
                closes = words.ngettext(
                    "Click a card to point at it: the first valid point wins it; each player "
                    "points once; the race closes after {n} second.",
                    "Click a card to point at it: the first valid point wins it; each player "
                    "points once; the race closes after {n} seconds.",
                    seconds,
                ).format(n=seconds)
            lines.append(closes)
            for code, label in self._race_cards(game, words):
                view.add_item(RaceButton(game.id, state.round, code, label))
        else:
            if state.phase == "pick":
                lines.append(
                    gettext(
                        "Choose a card from your hand in secret: I sent your choices by DM, "
                        "or press **Choose privately**."
                    )
                )
            else:
                lines.append(
                    gettext(
                        "Choose a middle card in secret: I sent your choices by DM, or press "
                        "**Choose privately**."
                    )
                )
            view.add_item(PrivateButton(game.id, words))
            if "turn_limit" in deadlines:
                when = discord.utils.format_dt(deadlines["turn_limit"], "R")
                lines.append(
                    gettext("Not chosen {when}? The computer chooses for you.").format(when=when)
                )
        lines.append(
            gettext("Chosen: {names}").format(names=", ".join(chosen) or gettext("nobody yet"))
        )
        if waiting:
            lines.append(
                gettext("Waiting for: {names}").format(
                    names=", ".join(mention(game, p) for p in waiting)
                )
            )
        # told once: in the phase whose DM was refused (``_start_phase`` marks both)
        sent = game.shown_versions.get(f"dm:{state.round}:{state.phase}")
        no_dm = [
            p
            for p in waiting
            if sent is not None
            and self.dms_closed(game, p)
            and game.shown_versions.get(f"dm_closed:{p}") == sent
        ]
        if no_dm:
            lines.append(
                gettext(
                    "I could not send a DM to {names}: please press **Choose privately** (I "
                    "will not try DMs again in this game unless you ask for them there)."
                ).format(names=", ".join(names[p] for p in no_dm))
            )
        return "\n".join(lines)[:MAX_CONTENT], view

    def _race_cards(self, game: LoadedGame, words: Words = ENGLISH) -> list[tuple[str, str]]:
        """(code, label) of each card still in the middle, from the public view."""
        gettext = words.gettext
        public = view_of(game, None)
        cards = [
            (
                f"g:{gift.id}",
                f"{gettext(gift.name)} ({', '.join(gettext(m) for m in gift.needs)})",
            )
            for gift in public.middle_gifts
            if gift is not None
        ]
        cards += [
            (f"m:{slot}", gettext("Face-down material {n}").format(n=slot + 1))
            for slot, there in enumerate(public.middle_materials)
            if there
        ]
        return cards[:25]

    # ------------------------------------------------------------ timers

    def _wake_after(self, seconds: float) -> None:
        """Run the due timers right when the race ends (the poll loop is a backstop)."""

        async def wake() -> None:
            if not await self.bot.pause(seconds + 0.1):
                return  # the bot is stopping: the stored timer fires after the restart
            await self.bot.core.timers.run_due()

        task = self.bot.background(wake(), "tonttu-race-timer")
        self._wakeups.add(task)
        task.add_done_callback(self._wakeups.discard)

    async def fire(self, game: LoadedGame, timer: Timer) -> bool | None:
        """A race's close; a reminder or limit of an earlier phase, which has nothing to do
        (a phase's are scheduled with its message, ``_start_phase``, at the version its
        ``phase`` mark records); the others are the generic handling's (``Timers``)."""
        state = game.state
        if timer.kind == "speed_close":
            if not (state.phase == "point" and state.round == timer.payload.get("round")):
                return False
            played = await self.bot.tables.submit_checked(
                game.id, TIMER, ClosePointPhase(), still_open(state.round, "point")
            )
            await self.bot.desk.publish(played)
            await self.bot.core.run_computers(game.id)  # they pick in the next phase at once
            return True
        started = game.shown_versions.get("phase", -1)
        if (
            status_key(state) not in game.messages
            or timer.payload.get("version", started) < started
        ):
            return False
        return None


async def setup(bot: Host) -> None:
    await bot.add_cog(Tonttu(bot))
    bot.add_dynamic_items(*COMPONENTS)
    register_components(*COMPONENTS)
