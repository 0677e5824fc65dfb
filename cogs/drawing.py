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
    """The worker pool; ``None`` once it has died too often or cannot be had here."""
    global _pool, _deaths
    if _pool is None and _deaths < GIVE_UP_AFTER:
        try:
            _pool = ProcessPoolExecutor(
                max_workers=1,
                mp_context=multiprocessing.get_context("spawn"),
                initializer=_ignore_ctrl_c,
            )
        except (OSError, NotImplementedError, ImportError) as error:  # e.g. no sem_open
            _deaths = GIVE_UP_AFTER
            log.warning("No drawing process on this system (%s); drawing in threads.", error)
    return _pool


def _lost(pool: ProcessPoolExecutor, error: BaseException) -> None:
    """The worker died or could not be started: the next picture starts another."""
    global _pool, _deaths
    _deaths += 1
    log.warning("The drawing process failed (%s, %d times); drawing in a thread.", error, _deaths)
    if _pool is pool:
        _pool = None
    pool.shutdown(wait=False)


def start() -> None:
    """Start the worker now (at bot start-up), so the first picture does not wait."""
    pool = _workers()
    if pool is not None:
        try:
            pool.submit(_warm)
        except (OSError, RuntimeError, BrokenProcessPool) as error:  # could not spawn it
            _lost(pool, error)


async def draw(renderer: Renderer, view: Any, names: Mapping[str, str]) -> bytes:
    """``renderer(view, names)`` in the worker process (in a thread if there is none)."""
    pool = _workers()
    if pool is not None:
        try:  # submitting spawns the worker if it is not running
            drawn = asyncio.get_running_loop().run_in_executor(pool, renderer, view, dict(names))
        except (OSError, RuntimeError, BrokenProcessPool) as error:
            _lost(pool, error)
        else:
            try:
                return await drawn
            except BrokenProcessPool as error:  # it died while drawing
                _lost(pool, error)
    return await asyncio.to_thread(renderer, view, names)
