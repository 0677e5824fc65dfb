"""The table core as a front end holds it: one object per process.

:class:`Core` gathers what every front end needs of a table beyond one choice
(:class:`tables.service.Tables`): the publisher that keeps each surface up to date
(``tables/publishing.py``), the pictures, the stored timers and the turn's, and the
computer seats' moves after a human's. A front end (``cogs/`` for Discord) is given one
at start-up and only translates: its interactions into calls of these, these results
into its messages.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable
from datetime import datetime, timedelta

from engine.core import PlayerId
from storage import GameInfo, LoadedGame, NewTimer, Storage
from tables.computers import while_thinking
from tables.pictures import Pictures
from tables.publishing import ClaimLost, Publisher, Round
from tables.service import MAX_AI_STEPS, Played, Tables
from tables.surfaces import shown_from, turn_passed
from tables.timers import TimerRunner

DEFAULT_REMINDER_HOURS = 12
COMPUTERS_RETRY = (1.0, 2.0, 3.0, 5.0)
"""Seconds before the computer seats' moves are tried again after the database or the
front end was away (the last one repeated)."""

log = logging.getLogger("bot")


class Core:
    """The store, the game service, the publisher and the pictures of one process."""

    def __init__(
        self,
        store: Storage,
        tables: Tables,
        publisher: Publisher,
        *,
        clock: Callable[[], datetime],
        stopping: asyncio.Event,
    ) -> None:
        self.store = store
        self.tables = tables
        self.publisher = publisher
        self.clock = clock
        self.pictures = Pictures()
        self.stopping = stopping
        self.timers = TimerRunner(store, clock=clock, stopped=stopping.is_set)
        self.thinking: Callable[[GameInfo], Awaitable[None]] | None = None
        """How a front end shows that a computer seat of a game is thinking (Discord: the
        typing indicator in its thread), once a decision takes over a second."""
        self._computers_running: set[int] = set()
        """Games whose computer seats are being played (this process)."""
        self._computers_again: set[int] = set()
        """Games whose computer seats must be looked at again when that run ends."""

    # ------------------------------------------------------------ after a move

    async def publish_move(self, played: Played) -> None:
        """Show a move a player made (``played``: as the choice left it) on every
        surface, then let the computer seats whose turn it is move: what follows every
        choice, whichever front end took it (a Discord button, the Activity). Raises what
        the front end's publisher raised (the move stays stored and is shown later),
        but not a lost claim: another round shows it, nothing for the player to hear
        (found by the chaos soak: clicks were answered with an apology). The computers
        move all the same."""
        try:
            await self.publisher.sync(played.game.id, known=played.game)
        except ClaimLost:  # another process shows it, or a fresh round the newer moves
            pass
        finally:
            if any(seat.is_ai for seat in played.game.seats):
                await self.run_computers(played.game.id)

    # ------------------------------------------------------------ computer seats

    async def run_computers(self, game_id: int) -> None:
        """Computer seats move, one published move at a time, until a human must act.

        One run per game at a time: a call while one runs only asks it to look again
        when it is done (several handlers of one game call this at once). A decision
        that takes over a second shows as :attr:`thinking`. While the database or the
        front end is away the run waits and tries again (:data:`COMPUTERS_RETRY`), until
        the process stops: nothing else would move for them (found by the chaos soak:
        computers resumed after a restart during an outage left their game waiting)."""
        self._computers_again.add(game_id)
        if game_id in self._computers_running:
            return
        self._computers_running.add(game_id)
        failures = 0
        try:
            while game_id in self._computers_again:
                self._computers_again.discard(game_id)
                try:
                    await self._play_computers(game_id)
                except Exception as error:
                    if not self.publisher.away(error):
                        raise
                    delay = COMPUTERS_RETRY[min(failures, len(COMPUTERS_RETRY) - 1)]
                    failures += 1
                    log.warning(
                        "game %s: the computer players wait (%r); again in %ss",
                        game_id,
                        error,
                        delay,
                    )
                    with contextlib.suppress(TimeoutError):
                        await asyncio.wait_for(self.stopping.wait(), delay)
                        return  # the process stops: its next start resumes them
                    self._computers_again.add(game_id)
        finally:
            self._computers_running.discard(game_id)
            self._computers_again.discard(game_id)

    async def _play_computers(self, game_id: int) -> None:
        async def typing() -> None:
            if self.thinking is not None:
                await self.thinking(await self.store.info(game_id))

        last = None
        for _ in range(MAX_AI_STEPS):
            async with while_thinking(typing):
                played = await self.tables.computer_step(game_id)
            if played is None:
                break
            last = played.game
            self.publisher.request(game_id, known=last)  # the next decision need not wait
        if last is not None:  # (with no computer move, the caller's own sync showed all)
            try:
                await self.publisher.sync(game_id, known=last)
            except Exception as error:  # stored: the publisher logged it and tries again
                if not self.publisher.away(error):
                    raise

    # ------------------------------------------------------------ turns and their timers

    def turn_timers(
        self, game: LoadedGame, *, turn_limit: bool = True
    ) -> tuple[list[NewTimer], datetime | None]:
        """The next reminder and (``turn_limit``: a new turn) the turn limit, to be
        scheduled; and when that turn limit ends, if the table has one and it is new."""
        now = self.clock()
        settings = game.settings
        payload = {"version": game.version}
        hours = settings.get("reminder_hours") or DEFAULT_REMINDER_HOURS
        timers = [NewTimer("remind", now + timedelta(hours=hours), payload)]
        if not turn_limit or not settings.get("turn_limit_hours"):
            return timers, None
        due = now + timedelta(hours=settings["turn_limit_hours"])
        timers.append(NewTimer("turn_limit", due, payload))
        return timers, due

    async def schedule_timers(
        self, round_: Round, game: LoadedGame, *, turn_limit: bool = True
    ) -> datetime | None:
        """The next reminder and (``turn_limit``: a new turn) the turn limit, scheduled
        with the round's marks (``Round.schedule``); returns when the pending turn limit
        ends, if the table has one."""
        timers, due = self.turn_timers(game, turn_limit=turn_limit)
        round_.schedule(*timers)
        if turn_limit or not game.settings.get("turn_limit_hours"):
            return due
        pending = await self.store.pending_timers(game.id)
        return next((t.due_at for t in pending if t.kind == "turn_limit"), None)

    async def turn_prompt(self, game: LoadedGame, acting: set[PlayerId]) -> int | None:
        """The version at which the table prompted the turn being played (``acting``'s),
        or None if it has not yet (its sync is still to come): a turn's reminder and limit
        are scheduled with its prompt, so one from before it is an earlier turn's."""
        _, _, prompt_v, _ = shown_from(game.shown_versions)
        if prompt_v < 0:
            return None
        actions = await self.store.log(game.id, after=prompt_v)
        return None if turn_passed(prompt_v, acting, actions) else prompt_v
