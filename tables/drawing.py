"""Board pictures (and the chart posted with the final scores) are drawn in a separate
process, not in a thread of the bot's.

Drawing a Santa's Workshop board costs about 10-20 ms of CPU
(``benchmarks/render_speed.py``; regions and PNG row bands that did not change are
reused from the worker's caches), much of it Python code that holds the GIL. In a
thread it competes with the event loop, so when many tables move at once every answer
waits behind the drawing. In its own process it
runs on another core, and the event loop only pickles a view model (a few KB)
and unpickles the PNG.

One worker process (:class:`tables.workers.WorkerPool`: spawned, ignores Ctrl-C,
survives a worker's death), started when the bot starts, shared by every bot in the
process (tests start many), and stopped at interpreter exit. If it dies, that picture
is drawn in a thread and the next one starts a new worker; after a few deaths,
pictures stay in threads. On Linux it runs under ``SCHED_IDLE``, as the computer
players' workers do (``idle``, ``tables/workers.py``): at the bot's priority, a picture
handed to it woke it on the event loop's core, and the loop then waited for the CPU.
Beside 8 tables of busy computers (``benchmarks/ai_load.py``) the loop's thread was
often runnable but not running (its run-queue time in ``/proc/thread-self/schedstat``)
in the steps that handed pictures over: over 1 ms in 284 of 2,169 such steps, up to
9 ms. Under ``SCHED_IDLE``: 178 of 2,236 (the rest wait for the process pool's own
threads and, in the benchmark, for the fake Discord on the same cores). A picture now
gets the CPU that the bot's process leaves, shared with the computers' workers: slower
when every core is thinking, never in the way of an answer. But when normal processes
keep every core busy the worker gets none at all, for as long as that lasts (seen in a
test run on two cores: the first board of a table never came), so a picture not back
within :data:`PICTURE_PATIENCE` is drawn in a thread of the bot's too, and the first
of the two is shown.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from tables.workers import WorkerPool

Renderer = Callable[[Any, Mapping[str, str], str], bytes]
"""``render.render_board`` or ``render.render_private``: (view model, names, language
code of the labels) -> PNG."""


def _warm() -> None:
    """Import the renderer and load its fonts before the first picture is asked for."""
    import render

    render.warm()


PICTURE_PATIENCE = 2.0
"""Seconds a picture waits for the worker before it is also drawn in a thread: a board
is 10-20 ms of CPU, so a worker that has not answered in 2 s is starting or starved
(``SCHED_IDLE`` gets no CPU while normal processes keep every core busy: other
programs, the bot's other processes, a test run); the thread, at the bot's own
priority, always gets its share."""
CHART_PATIENCE = 5.0
"""The same for a finished game's chart: its replay and the first import of matplotlib
take a second or two of CPU."""

POOL = WorkerPool("drawing", size=1, idle=True, warm=_warm)


def start() -> None:
    """Start the worker now (at bot start-up), so the first picture does not wait."""
    POOL.start()


async def draw(renderer: Renderer, view: Any, names: Mapping[str, str], lang: str = "en") -> bytes:
    """``renderer(view, names, lang)`` in the worker process (in a thread if there is
    none); ``lang``: the language code of the picture's labels."""
    return await POOL.run(renderer, view, dict(names), lang, patience=PICTURE_PATIENCE)


async def draw_chart(
    game: str,
    players: Sequence[str],
    seed: int,
    options: Mapping[str, Any],
    decisions: Sequence[tuple[str, Any]],
    names: Mapping[str, str],
    lang: str = "en",
) -> bytes:
    """The chart of how a finished game went (``render.render_game_chart``), replayed and
    drawn in the worker process: the replay of a whole game is CPU work too."""
    import render

    return await POOL.run(
        render.render_game_chart,
        game,
        tuple(players),
        seed,
        dict(options),
        list(decisions),
        dict(names),
        lang,
        patience=CHART_PATIENCE,
    )
