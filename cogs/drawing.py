"""Board pictures are drawn in a separate process, not in a thread of the bot's.

Drawing a Santa's Workshop board costs about 35 ms of CPU, most of it Python code
that holds the GIL. In a thread it competes with the event loop, so when many
tables move at once every answer waits behind the drawing. In its own process it
runs on another core, and the event loop only pickles a view model (a few KB)
and unpickles the PNG.

One worker process, started when the bot starts, shared by every bot in the process
(tests start many), and stopped at interpreter exit. It is spawned: a clean
interpreter with no inherited sockets or locks, which imports the main module again
(as every multiprocessing child does), so entry points keep their work under
``if __name__ == "__main__"``. It ignores Ctrl-C, which belongs to the bot. If it
dies, that picture is drawn in a thread and the next one starts a new worker; after
a few deaths, pictures stay in threads.
"""

from __future__ import annotations

import asyncio
import logging
import multiprocessing
import signal
from collections.abc import Callable, Mapping
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import Any

log = logging.getLogger("bot")

Renderer = Callable[[Any, Mapping[str, str]], bytes]
"""``render.render_board`` or ``render.render_private``: (view model, names) -> PNG."""

GIVE_UP_AFTER = 3
"""Worker deaths after which pictures are drawn in threads for good."""

_pool: ProcessPoolExecutor | None = None
_deaths = 0


def _ignore_ctrl_c() -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def _warm() -> None:
    """Import the renderer and load its fonts before the first picture is asked for."""
    import render

    render.warm()


def _workers() -> ProcessPoolExecutor | None:
    """The worker pool; ``None`` once it has died too often."""
    global _pool
    if _pool is None and _deaths < GIVE_UP_AFTER:
        _pool = ProcessPoolExecutor(
            max_workers=1,
            mp_context=multiprocessing.get_context("spawn"),
            initializer=_ignore_ctrl_c,
        )
    return _pool


def start() -> None:
    """Start the worker now (at bot start-up), so the first picture does not wait."""
    pool = _workers()
    if pool is not None:
        pool.submit(_warm)


async def draw(renderer: Renderer, view: Any, names: Mapping[str, str]) -> bytes:
    """``renderer(view, names)`` in the worker process (in a thread if there is none)."""
    global _pool, _deaths
    pool = _workers()
    if pool is not None:
        try:
            loop = asyncio.get_running_loop()
            return await loop.run_in_executor(pool, renderer, view, dict(names))
        except BrokenProcessPool:
            _deaths += 1
            log.warning("The drawing process stopped (%d times); drawing in a thread.", _deaths)
            if _pool is pool:
                _pool = None
            pool.shutdown(wait=False)
    return await asyncio.to_thread(renderer, view, names)
