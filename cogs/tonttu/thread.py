"""Workshop Tonttu's thread: its presenter. One message per phase (the reveal that
started it and the live status: who must choose, who has chosen, never what; a race's
buttons), the phase's private panels by DM, the board, the reminders and the race's
close (see the package's docstring)."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable
from datetime import datetime, timedelta
from typing import Any

import discord

from cogs.helpers.common import DISCORD_DOWN, NO_MENTIONS, components
from cogs.helpers.desk import BOARD_DELAY
from cogs.helpers.host import Host
from cogs.helpers.language import private
from cogs.helpers.render import MAX_CONTENT, chunk_lines, mention
from cogs.helpers.thread import Sync, nonce
from cogs.tonttu.components import PrivateButton, RaceButton, panel
from cogs.tonttu.text import (
    ALLOWED_PINGS,
    DMS_CLOSED,
    PANEL_FRESH,
    PHASE_CHANGES,
    REMINDERS,
    ROTATIONS,
    SPEED_SECONDS,
    STATUS_GAP,
    TIDY_LATE,
    phase_name,
    status_key,
)
from engine.core import TIMER, GameOver, PlayerId
from engine.tonttu.game import PhaseClosed, is_race, phase_of, still_open
from engine.tonttu.models import ClosePointPhase
from engine.words import ENGLISH, Words
from storage import LoadedGame, NewTimer, Timer, WrongStatus, human_player
from tables.publishing import logged_events, pending_reminder
from tables.service import engine_of, view_of
from tables.texts import event_lines

log = logging.getLogger("bot.tonttu")


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


class TonttuThread:
    """The presenter's side of the Tonttu extension, and the state it keeps per game."""

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

    def _channel(self, game: LoadedGame) -> discord.PartialMessageable:
        return self.bot.get_partial_messageable(game.thread_id or game.channel_id)

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
            board_v = await self.bot.desk.post_board(sync)  # above everything else
        current = not ended and phase_of(state) != "over" and target == version
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
        cancel = ["speed_close"] if phase_of(state) == "pick" and state.mode == "speed" else []
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
            with self.bot.publisher.fence(game.id, sync.game.version):
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
        with (
            contextlib.suppress(discord.NotFound),
            self.bot.publisher.fence(game.id, game.version),  # not shown newer meanwhile
        ):
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
                    await interaction.edit_original_response(**panel(game, player, note, words))
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
                **panel(game, player, words=words),
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
            if phase_of(state) == "pick":
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
            if not (
                phase_of(state) in ("point", "race") and state.round == timer.payload.get("round")
            ):
                return False
            try:
                played = await self.bot.tables.submit_checked(
                    game.id, TIMER, ClosePointPhase(), still_open(state.round, "point")
                )
            except (PhaseClosed, GameOver, WrongStatus):
                return False  # the race or the game ended since it was read (another process)
            try:
                await self.bot.desk.publish(played)
            except DISCORD_DOWN as error:  # stored: shown when Discord is back
                log.warning("game %s: the thread waits for Discord (%r)", game.id, error)
                self.bot.publisher.request(game.id)
            await self.bot.core.run_computers(game.id)  # they pick in the next phase at once
            return True
        started = game.shown_versions.get("phase", -1)
        if (
            status_key(state) not in game.messages
            or timer.payload.get("version", started) < started
        ):
            return False
        return None
