"""Stored timers: turn reminders and turn limits, fired even if they fell due while
the bot was down (they are read from storage at start and then polled)."""

from __future__ import annotations

import asyncio
import logging
import secrets
from datetime import timedelta

from discord.ext import commands

from cogs.helpers.common import DISCORD_DOWN
from cogs.helpers.host import Host
from storage import LoadedGame, Timer, TimerClaim
from tables.logs import tag
from tables.publishing import reminder_asked
from tables.service import engine_of
from tables.timers import OWNER

log = logging.getLogger("bot.timers")

MAX_STAND_IN_MOVES = 50
NOTICE_ONCE = timedelta(days=3650)
"""A turn limit's notice is claimed by name for good: posted once, by one process, even if
the timer fires twice (its process died after the notice, or its lease ran out)."""
"""Decisions the computer makes for an absent player in one turn, at most."""


class Timers(commands.Cog):
    def __init__(self, bot: Host) -> None:
        self.bot = bot
        self._task: asyncio.Task[None] | None = None

    async def cog_load(self) -> None:
        self.bot.core.timers.fire = self.fire
        self.bot.core.timers.unreachable = DISCORD_DOWN
        self._task = self.bot.background(self._loop(), "timers")

    async def cog_unload(self) -> None:
        self.bot.core.timers.fire = None
        if self._task is not None:
            self._task.cancel()

    async def _loop(self) -> None:
        if not await self.bot.until_ready():
            return  # stopped first: the timers are stored
        while not self.bot.is_closed():
            try:
                await self.run_due()
            except Exception:
                log.exception("timer loop failed; retrying")
            if not await self.bot.pause(self.bot.settings.timer_poll_seconds):
                return  # the bot is stopping: the timer being fired was finished first

    async def run_due(self) -> int:
        """Fire every timer that is due now (``tables/timers.py``); how many fired."""
        return await self.bot.core.timers.run_due()

    async def ask_reminder(self, game: LoadedGame, timer: Timer) -> None:
        """``timer``'s reminder is due: recorded first, so that it is posted (by the
        sync, once) even if this process stops before posting it
        (``publishing.pending_reminder``)."""
        await self.bot.store.set_marks(game.id, reminder_asked(timer.id, game.version))
        await self.bot.publisher.sync(game.id)

    async def fire(self, timer: Timer) -> bool:
        """Do what ``timer`` is for; False if there is nothing to do: the game is over, no
        human must act, the turn it was set for has ended (a turn's reminder and limit
        are written with its prompt; until the thread shows the next turn's, a pending
        one is an earlier turn's), or this reminder was asked for already."""
        game = await self.bot.store.load(timer.game_id)
        tag(guild=game.guild_id)  # its lines, until the timer is done (tables/logs.py)
        if game.status != "active":
            return False
        desk, core = self.bot.desk, self.bot.core
        presenter = desk.presenters.get(game.kind)
        humans = {s.player for s in game.seats if not s.is_ai}
        acting = set(engine_of(game).to_act(game.state)) & humans
        if presenter is not None:
            handled = await presenter.fire(game, timer)
            if handled is not None:
                return handled
        if not acting:
            return False
        if presenter is None:
            prompt = await core.turn_prompt(game, acting)
            if prompt is None or timer.payload.get("version", prompt) < prompt:
                return False
        if timer.kind == "remind":
            if game.shown_versions.get("reminder_due", -1) >= timer.id:
                return False  # asked for already (its process stopped before finishing it)
            await self.ask_reminder(game, timer)
        elif timer.kind == "turn_limit":
            names = ", ".join(game.names[p] for p in sorted(acting, key=game.players.index))
            hours = game.settings.get("turn_limit_hours") or 0
            words = await self.bot.languages.public(game.guild_id)
            text = words.ngettext(
                "{names} did not move within {n} hour: the computer moves for them.",
                "{names} did not move within {n} hours: the computer moves for them.",
                hours,
            ).format(names=names, n=hours)
            # one computer move per decision until those players are done for this turn;
            # the notice once the first is stored (a timer fired twice, or again after
            # Discord or the database was away, finds the turn moved on and says nothing
            # twice), posted by the move's round; with Discord away, the moves and the
            # notice are shown when it is back, and the computers' turns follow
            played_any = False
            claim = TimerClaim(timer.id, OWNER)  # each move stored only while it stands
            for _ in range(MAX_STAND_IN_MOVES):
                waiting = set(engine_of(game).to_act(game.state)) & acting
                if not waiting:
                    break
                player = min(waiting, key=game.players.index)
                played = await self.bot.tables.play_for(game.id, player, game.version, claim)
                if played is None:
                    break  # the turn moved on, or another process claimed the limit since
                if not played_any:
                    played_any = True
                    await self.notice(game, timer, text)
                try:
                    await desk.publish(played)
                except Exception as error:
                    if not self.bot.publisher.away(error):
                        raise
                    # Discord or the database away, or another process showing the game
                    # (a lost claim): a later round shows the move; the turn goes on
                    log.warning("game %s: the thread waits (%r)", game.id, error)
                    self.bot.publisher.request(game.id)
                game = played.game
            if not played_any:
                return False
            await core.run_computers(game.id)
        return True

    async def notice(self, game: LoadedGame, timer: Timer, text: str) -> None:
        """A turn limit's notice for the thread, once whatever fires it again: the next
        round (the move's) posts it first (``Publisher.note``)."""
        once = f"{OWNER}:{secrets.token_hex(4)}"  # even this process's next try is another
        if await self.bot.store.try_claim(f"limit-notice:{timer.id}", once, NOTICE_ONCE):
            self.bot.publisher.note(game.id, f"limit:{timer.id}", text)


async def setup(bot: Host) -> None:
    await bot.add_cog(Timers(bot))
