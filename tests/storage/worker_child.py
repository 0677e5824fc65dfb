"""A second (third …) bot process for the cross-process tests.

``python -m tests.storage.worker_child DATABASE_URL MODE ARGS…`` opens the database,
prints ``ready``, waits for a line on stdin (so that every process starts at once),
does its work, prints one line per result, and exits:

* ``choices GAME_ID COUNT LIMIT``: COUNT simultaneous choices at once (the timer's
  ``skip`` in the race game) with no expected version and a precondition that
  refuses once the game holds LIMIT moves; prints ``applied VERSION``,
  ``refused`` or ``lost`` (a ``Conflict``: a choice lost to a version race).
* ``timers OWNER LEASE_SECONDS [LATER_SECONDS]``: claims due timers one at a time
  until none is left, printing ``fired TIMER_ID`` after each successful
  ``finish_timer``; with LATER_SECONDS it claims as if that much later than now.
* ``hold OWNER LEASE_SECONDS``: claims every due timer, prints ``claimed TIMER_ID``
  for each, then sleeps (the parent kills it: a process dying mid-fire).
"""

from __future__ import annotations

import asyncio
import sys
from datetime import UTC, datetime, timedelta
from typing import Any

import storage
from engine.core import TIMER, NotYourTurn
from tests.storage.race_game import Skip


def say(line: str) -> None:
    sys.stdout.write(line + "\n")
    sys.stdout.flush()


async def choices(store: Any, game_id: int, count: int, limit: int) -> None:
    def still_open(state: Any) -> None:
        if state.moves >= limit:
            raise NotYourTurn("That round is over.")

    async def choose() -> str:
        try:
            result = await store.submit(game_id, TIMER, Skip(), None, precondition=still_open)
        except NotYourTurn:
            return "refused"
        except storage.Conflict:
            return "lost"
        return f"applied {result.version}"

    for line in await asyncio.gather(*(choose() for _ in range(count))):
        say(line)


async def timers(store: Any, owner: str, lease: timedelta, later: timedelta) -> None:
    while claimed := await store.claim_due_timers(owner, lease, datetime.now(UTC) + later, limit=1):
        (timer,) = claimed
        await asyncio.sleep(0.001)  # "firing" it, while other processes claim
        if await store.finish_timer(timer.id, owner):
            say(f"fired {timer.id}")


async def hold(store: Any, owner: str, lease: timedelta) -> None:
    for timer in await store.claim_due_timers(owner, lease, limit=1000):
        say(f"claimed {timer.id}")
    await asyncio.sleep(3600)


async def main(url: str, mode: str, args: list[str]) -> None:
    async with await storage.open(url) as store:
        say("ready")
        await asyncio.get_running_loop().run_in_executor(None, sys.stdin.readline)
        if mode == "choices":
            await choices(store, int(args[0]), int(args[1]), int(args[2]))
        elif mode == "timers":
            later = timedelta(seconds=float(args[2]) if len(args) > 2 else 0)
            await timers(store, args[0], timedelta(seconds=float(args[1])), later)
        else:
            await hold(store, args[0], timedelta(seconds=float(args[1])))
        say("done")


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], sys.argv[2], sys.argv[3:]))
