"""Stored timers (turn reminders, turn limits, a speed race's close), fired exactly once
even if they fell due while no process ran: read from storage and claimed there.

What a timer does is the front end's (:attr:`TimerRunner.fire`: Discord's Timers
extension posts the reminder or the turn-limit notice); that it fires once, by one
process, is this module's.
"""

from __future__ import annotations

import contextlib
import logging
import os
import secrets
import socket
from collections.abc import Awaitable, Callable
from datetime import datetime, timedelta

from storage import Storage, Timer
from storage.errors import DatabaseUnavailable
from tables import logs

log = logging.getLogger("bot.timers")

OWNER = f"{socket.gethostname()}:{os.getpid()}:{secrets.token_hex(4)}"
"""Who claims timers in this process (unique across processes and machines)."""
TIMER_LEASE = timedelta(minutes=5)
"""How long a claimed timer is ours: longer than firing one takes, short enough that
another process takes over soon after this one dies."""
MAX_TIMERS_PER_RUN = 200
"""Timers fired in one poll at most; the rest wait for the next poll."""
RETRY_AFTER = timedelta(seconds=10)
"""A timer that could not do its work because the database or the front end's service
(Discord) was unreachable fires again this much later (whichever process claims it)."""


class TimerRunner:
    """Fires the due timers of every game, each once whichever process does it."""

    def __init__(
        self, store: Storage, *, clock: Callable[[], datetime], stopped: Callable[[], bool]
    ) -> None:
        self.store = store
        self.clock = clock
        self.stopped = stopped
        """Whether the process is stopping: the timers left wait for the next start."""
        self.fire: Callable[[Timer], Awaitable[bool]] | None = None
        """What a due timer does (set by the front end): whether it acted."""
        self.unreachable: tuple[type[Exception], ...] = ()
        """The front end's errors that mean its service cannot be reached for now
        (Discord down): a timer that meets one, or :class:`DatabaseUnavailable`, is not
        finished but fires again :data:`RETRY_AFTER` later, so ``fire`` must be safe to
        run again (each of its steps checks what is stored)."""

    async def run_due(self) -> int:
        """Fire every timer that is due now; returns how many fired (the others had
        nothing to do, and are recorded as cancelled).

        Each timer is claimed in the database for ``TIMER_LEASE`` first, so of several
        bot processes exactly one fires it; a process killed while holding a claim
        loses it when the lease runs out, and another process fires the timer then.
        One at a time: a timer that an earlier one cancels (a reminder the turn limit
        made moot) is never claimed.
        """
        if self.fire is None:
            return 0
        fired = 0
        store, now = self.store, self.clock()
        for _ in range(MAX_TIMERS_PER_RUN):
            if self.stopped():
                break  # the others wait for the next start (they are stored)
            try:
                claimed = await store.claim_due_timers(OWNER, TIMER_LEASE, now, limit=1)
            except DatabaseUnavailable as error:
                log.warning("timers: %s (%r); trying again at the next poll", error, error)
                break
            if not claimed:
                break
            (timer,) = claimed
            with logs.about(game=timer.game_id):  # its lines (the posts' too) are the game's
                fired += await self._fire(timer)
        return fired

    async def _fire(self, timer: Timer) -> bool:
        assert self.fire is not None
        acted = True  # a timer that failed is not tried again (but see ``unreachable``)
        wait_for: tuple[type[Exception], ...] = (DatabaseUnavailable, *self.unreachable)
        try:
            acted = await self.fire(timer)
        except wait_for as error:
            log.warning(
                "timer %s of game %s: %r; it fires again in %.0f s",
                timer.id,
                timer.game_id,
                error,
                RETRY_AFTER.total_seconds(),
            )
            with contextlib.suppress(DatabaseUnavailable):  # else: when its lease ends
                await self.store.retry_timer(timer.id, OWNER, RETRY_AFTER)
            return False
        except Exception:
            log.exception("timer %s of game %s failed", timer.id, timer.game_id)
        else:
            done = "fired" if acted else "had nothing to do"
            log.info("game %s: its %s timer %s %s", timer.game_id, timer.kind, timer.id, done)
        try:
            finished = await self.store.finish_timer(timer.id, OWNER, fired=acted)
        except DatabaseUnavailable as error:  # it fires again when its lease runs out
            log.warning("timer %s of game %s: not recorded (%r)", timer.id, timer.game_id, error)
            return acted
        if not finished:
            log.warning("timer %s of game %s: the claim ran out", timer.id, timer.game_id)
        return acted
