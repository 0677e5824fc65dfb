"""A pool of spawned worker processes that survives the death of a worker.

The bot sends CPU-heavy, pure work out of its own process: board pictures
(``tables/drawing.py``) and computer players' decisions (``tables/computers.py``). In a
thread of the bot's process such work holds the GIL the event loop needs, so every
table waits behind it; in another process it runs on another core and the event
loop only pickles the arguments and the result.

Options weighed: ``asyncio.to_thread`` (the GIL: the problem itself); a subprocess
per job (hundreds of ms to start and import the engine each time); a long-lived
``ProcessPoolExecutor`` (chosen). Its workers are *spawned*: a clean interpreter with
no inherited sockets, locks or event loop, which imports the main module again (as
every multiprocessing child does), so entry points keep their work under
``if __name__ == "__main__"``. A worker ignores Ctrl-C, which belongs to the bot, and
may run at a lower CPU priority (``nice``) so that, on a machine with few cores, the
process that answers Discord always gets the CPU first; on Linux a pool can go further
(``idle``): the ``SCHED_IDLE`` policy, the CPU that no normal process wants. Why nice
alone is not enough: Linux's scheduler (EEVDF, since 6.6) lets a running task finish
its time slice, a few milliseconds, when the bot's thread wakes up with a click to
answer, whatever their niceness; a ``SCHED_IDLE`` task is preempted at once.

Surviving deaths: a worker that dies (killed, out of memory) breaks the whole
executor (``BrokenProcessPool``). The job it had is run again in a thread, and the
next job starts a new executor. After :data:`GIVE_UP_AFTER` deaths, or on a system
where no process pool can be had at all (no ``sem_open``, spawn refused), jobs run in
threads for good: slower for the other tables, but never lost.

A pool is shared by every bot of the process (tests start many) and stops at
interpreter exit; :meth:`WorkerPool.stop` ends it sooner (the next job starts it again).

Stopping the bot: :func:`stop_all` (``bot.py``, as the process ends) terminates every
pool's workers instead of waiting for them. Interpreter exit would otherwise join each
worker, and a worker still starting (importing the engine at a lower CPU priority, on a
busy machine) can take many seconds to notice it should stop: the cause of "the bot did
not stop within 10 s of Ctrl-C". A worker holds nothing worth waiting for: its job is
pure, and a decision or picture cut off is made again by whoever needs it. And Ctrl-C in
a terminal goes to every process of the group: workers are spawned with SIGINT blocked
(inherited through exec), so one still importing does not die with a traceback before
its initializer ignores SIGINT.

And the process's own end is bounded (:func:`exit_within`): Python's exit waits, without
a limit, for every thread that is not a daemon and every child process, and a worker
under ``SCHED_IDLE`` that is killed still needs a moment of CPU to end, which a busy
machine may give it late. The bot leaves at most :data:`EXIT_WAIT` seconds after it has
stopped, naming what was still running.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import multiprocessing
import os
import signal
import sys
import threading
import time
import weakref
from collections.abc import Callable, Iterator
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import Any, TypeVar

log = logging.getLogger("bot")

T = TypeVar("T")

GIVE_UP_AFTER = 3
"""Worker deaths after which a pool's jobs run in threads for good."""
TERMINATE_WAIT = 2.0
"""Seconds a terminated worker gets to end before it is killed."""

EXIT_WAIT = 5.0
"""Seconds the bot's process may take to exit once the bot has stopped."""

_POOLS: weakref.WeakSet[WorkerPool] = weakref.WeakSet()


def stop_all() -> None:
    """Terminate every pool's workers now (the process is ending)."""
    for pool in list(_POOLS):
        pool.stop(terminate=True)


def left_running() -> list[str]:
    """The names of the threads, other than the main one, that Python's exit waits for."""
    main = threading.main_thread()
    return [t.name for t in threading.enumerate() if not t.daemon and t is not main]


def exit_within(seconds: float, status: int, what: str, after: str) -> None:
    """End this process with ``status`` if it is still alive ``seconds`` from now,
    with a sentence on stderr naming the threads left running (``what`` was still
    running ``seconds`` after ``after``)."""

    def watch() -> None:
        time.sleep(seconds)
        names = ", ".join(left_running()) or "none"
        sys.stdout.flush()  # what was printed, still buffered when stdout is a pipe
        sys.stderr.write(
            f"\n{what} was still running {seconds:g} s after {after} (threads left "
            f"running: {names}). Ending it.\n"
        )
        sys.stderr.flush()
        os._exit(status)

    threading.Thread(target=watch, name="exit-watchdog", daemon=True).start()


@contextlib.contextmanager
def _ctrl_c_blocked() -> Iterator[None]:
    """While a worker may be spawned: SIGINT blocked in this thread, and so in the child
    (a blocked signal stays blocked across exec). A Ctrl-C meanwhile waits, then arrives."""
    mask = getattr(signal, "pthread_sigmask", None)
    if mask is None:  # Windows
        yield
        return
    previous = mask(signal.SIG_BLOCK, {signal.SIGINT})
    try:
        yield
    finally:
        mask(signal.SIG_SETMASK, previous)


def _ignore(future: asyncio.Future[Any]) -> None:
    """Mark a dropped future's outcome as seen (no "exception never retrieved")."""
    if not future.cancelled():
        future.exception()


def _init_worker(nice: int, idle: bool) -> None:
    """In each worker, at start: Ctrl-C belongs to the bot; lower our CPU priority."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if nice:
        with contextlib.suppress(AttributeError, OSError):  # Windows; a sandbox says no
            os.nice(nice)
    if idle:
        with contextlib.suppress(AttributeError, OSError):  # not Linux: nice alone
            os.sched_setscheduler(0, os.SCHED_IDLE, os.sched_param(0))


class WorkerPool:
    """``size`` spawned worker processes running module-level functions.

    ``warm`` (a module-level function) runs once in a worker at :meth:`start`, so the
    first real job does not pay for its imports. ``nice`` is added to the workers'
    CPU niceness (0: the same priority as the bot); ``idle``: on Linux, the workers run
    under ``SCHED_IDLE`` (only on CPU time no normal process wants).
    """

    def __init__(
        self,
        name: str,
        *,
        size: int = 1,
        nice: int = 0,
        idle: bool = False,
        warm: Callable[[], Any] | None = None,
    ) -> None:
        self.name = name
        self.size = max(1, size)
        self.nice = nice
        self.idle = idle
        self.warm = warm
        self.deaths = 0
        self.late = 0
        """Jobs that also ran in a thread because the worker was slower than their
        ``patience``."""
        self._executor: ProcessPoolExecutor | None = None
        _POOLS.add(self)

    def executor(self) -> ProcessPoolExecutor | None:
        """The running executor (started if needed); ``None`` once jobs run in threads."""
        if self._executor is None and self.deaths < GIVE_UP_AFTER:
            try:
                self._executor = ProcessPoolExecutor(
                    max_workers=self.size,
                    mp_context=multiprocessing.get_context("spawn"),
                    initializer=_init_worker,
                    initargs=(self.nice, self.idle),
                )
            except (OSError, NotImplementedError, ImportError) as error:  # e.g. no sem_open
                self.deaths = GIVE_UP_AFTER
                log.warning("No %s process on this system (%s); using threads.", self.name, error)
        return self._executor

    @property
    def in_threads(self) -> bool:
        """Whether jobs now run in threads of this process (the pool gave up)."""
        return self.deaths >= GIVE_UP_AFTER

    def resize(self, size: int) -> None:
        """Use ``size`` workers from the next start on (a running pool is stopped)."""
        size = max(1, size)
        if size != self.size:
            self.stop()
            self.size = size

    def start(self) -> None:
        """Start a worker now (at bot start-up), so the first job does not wait for it."""
        executor = self.executor()
        if executor is not None and self.warm is not None:
            try:
                with _ctrl_c_blocked():
                    executor.submit(self.warm)
            except (OSError, RuntimeError, BrokenProcessPool) as error:  # could not spawn
                self._lost(executor, error)

    def stop(self, *, terminate: bool = False) -> None:
        """End the workers without waiting (jobs not started are cancelled);
        ``terminate``: end them now, half-done jobs and half-started workers too."""
        executor, self._executor = self._executor, None
        if executor is None:
            return
        processes = list((getattr(executor, "_processes", None) or {}).values())
        manager = getattr(executor, "_executor_manager_thread", None)
        executor.shutdown(wait=False, cancel_futures=True)
        if not terminate:
            return
        for process in processes:
            with contextlib.suppress(OSError, ValueError):
                process.terminate()
        for process in processes:
            with contextlib.suppress(OSError, ValueError, AssertionError):
                process.join(TERMINATE_WAIT)
                if process.is_alive():
                    process.kill()
                    process.join(TERMINATE_WAIT)  # reaped: no longer alive once this returns
                    process.join(TERMINATE_WAIT)
        if manager is not None:
            # The executor's own thread closes its wake-up pipe as it ends; ended before
            # the interpreter does, Python's exit hook cannot write to that pipe while it
            # closes (an "OSError: Bad file descriptor" traceback at exit).
            manager.join(TERMINATE_WAIT)

    def _lost(self, executor: ProcessPoolExecutor, error: BaseException) -> None:
        """A worker died or could not be started: the next job starts another."""
        self.deaths += 1
        log.warning(
            "The %s process failed (%s, %d times); this job runs in a thread.",
            self.name,
            error,
            self.deaths,
        )
        if self._executor is executor:
            self._executor = None
        executor.shutdown(wait=False)

    async def run(self, function: Callable[..., T], *args: Any, patience: float | None = None) -> T:
        """``function(*args)`` in a worker process (in a thread if there is none).

        ``patience``: seconds after which the job also runs in a thread of this process,
        and the first to finish answers. A worker under ``SCHED_IDLE`` or a high
        niceness gets no CPU while normal processes keep every core busy (other
        programs, other bots, a test run), so without it a job could wait for as long
        as the machine stays busy: a picture that should take 20 ms never came."""
        executor = self.executor()
        if executor is not None:
            try:  # submitting spawns a worker if none is idle
                with _ctrl_c_blocked():
                    done = asyncio.get_running_loop().run_in_executor(executor, function, *args)
            except (OSError, RuntimeError, BrokenProcessPool) as error:
                self._lost(executor, error)
            else:
                try:
                    if patience is None:
                        return await done
                    return await self._first_of(done, patience, function, *args)
                except BrokenProcessPool as error:  # it died while working
                    self._lost(executor, error)
        return await asyncio.to_thread(function, *args)

    async def _first_of(
        self, done: asyncio.Future[T], patience: float, function: Callable[..., T], *args: Any
    ) -> T:
        """The worker's answer to ``done``, or, if it is not there within ``patience``
        seconds, whichever of it and the same job in a thread comes first."""
        finished, _ = await asyncio.wait({done}, timeout=patience)
        if finished:
            return done.result()
        self.late += 1
        log.info(
            "The %s process took over %.1f s; the job runs in a thread too.", self.name, patience
        )
        threaded = asyncio.ensure_future(asyncio.to_thread(function, *args))
        finished, _ = await asyncio.wait({done, threaded}, return_when=asyncio.FIRST_COMPLETED)
        if threaded in finished or done.exception() is not None:
            done.cancel()  # not started yet: dropped; started: its answer goes unused
            done.add_done_callback(_ignore)
            return await threaded
        return done.result()
