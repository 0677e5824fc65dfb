"""Public messages that never go backwards, whichever bot process edits them.

Several processes may publish for the same game at once: a Tonttu choice made in a DM
arrives at the process that runs shard 0, one made in the thread at the process that
runs the server's shard, a timer fires wherever it was claimed. Each then edits the
same board or status message, and Discord applies edits in the order they arrive.

Storage records which game version each message shows (``claim_message_version``: an
atomic compare-and-set), so a process holding an older version than the one already
shown leaves the message alone. The claim alone is not enough: process A claims
version 5, process B claims 6 and edits, and A's edit, still on the wire, lands after
B's. So the claim and the edit happen under a short named lease
(``try_claim(f"edit:{game}:{key}")``) that the editor gives back at once; a process
killed while holding it blocks the message for at most :data:`EDIT_LEASE`. Inside one
process an ``asyncio.Lock`` per message queues the editors first, so the lease is
contended only between processes.

Options weighed: editing only from the process that owns the game's server (DMs would
then need a hop between processes, which this design does not have); a version in the
message that Discord could compare (Discord has no conditional edit); claim then edit
without the lease (a short window where an older edit lands last, which the end-to-end
test's history of every message version would catch).
"""

from __future__ import annotations

import asyncio
import weakref
from collections.abc import Awaitable, Callable
from datetime import timedelta

from storage import Storage

EDIT_LEASE = timedelta(seconds=10)
"""How long an editor may hold a message; far longer than one edit takes."""
RELEASED = timedelta(0)
"""Renewing one's own claim with no time left gives it back (``try_claim`` semantics)."""
RETRY_SECONDS = 0.01


class MessageGate:
    """Serializes the edits of one public message across processes and drops old ones."""

    def __init__(self, store: Storage, owner: str) -> None:
        self.store = store
        self.owner = owner
        self._local: weakref.WeakValueDictionary[tuple[int, str], asyncio.Lock] = (
            weakref.WeakValueDictionary()
        )

    async def show(
        self, game_id: int, key: str, version: int, edit: Callable[[], Awaitable[None]]
    ) -> bool:
        """Run ``edit`` (which makes message ``key`` show game version ``version``) unless
        the message already shows that version or a newer one; returns whether it ran."""
        lock = self._local.get((game_id, key))
        if lock is None:
            lock = self._local[(game_id, key)] = asyncio.Lock()
        async with lock:
            name = f"edit:{game_id}:{key}"
            await self._hold(name)
            try:
                if not await self.store.claim_message_version(game_id, key, version):
                    return False
                await edit()
                return True
            finally:
                await self.store.try_claim(name, self.owner, RELEASED)

    async def _hold(self, name: str) -> None:
        """Wait for the lease; a holder that died loses it after ``EDIT_LEASE``."""
        # Another process holds it: nothing here could signal us, so poll.
        while not await self.store.try_claim(name, self.owner, EDIT_LEASE):  # noqa: ASYNC110
            await asyncio.sleep(RETRY_SECONDS)
