"""Computer players' decisions: in worker processes, one per table at a time, tables in turn.

A ``strong`` decision is a few hundred milliseconds of pure Python search. Run in a
thread of the bot's process (as it first was) it holds the GIL the event loop needs:
a humans-only table's clicks went from a p99 of 23 ms alone to 1.3 s beside 8 tables
of thinking computers. So decisions run in worker processes
(:class:`tables.workers.WorkerPool`, shared with nothing else), at a lower CPU priority
(``nice``, and on Linux the ``SCHED_IDLE`` policy) so that on a small machine the
process answering Discord wins the CPU whenever it has work. ``SCHED_IDLE``, measured
by ``benchmarks/ai_load.py`` (runs alternating with nice alone): beside 8 busy computer
tables the humans table's p99 was 1.40x and 1.33x its p99 alone (200 clicks), 1.83x and
1.24x (300 clicks), against 1.88x and 1.79x, 2.70x and 2.27x with nice alone; on a
later day, 1.24x to 3.68x in 11 runs (median 1.88x; beside 8, p99 11.5-22.7 ms): a
p99 of a few milliseconds alone swings with the machine's scheduling (where the rest
of the tail comes from: ``docs/rules-notes.md``, "Beside busy computer tables"). By
default there is one worker per core but one, kept for the event loop (``AI_WORKERS``
overrides it; ``0`` decides in threads of the bot's process, the old way, kept to
measure against). The price: on a machine shared with
other busy programs the workers get little CPU, so computers think slowly there (the
thread shows it) while players' clicks stay fast, and when those programs keep every
core busy a worker gets none: a decision not back within :data:`THINK_PATIENCE` is then
made in a thread of the bot's too (the first answer counts; both are the same move).
``benchmarks/ai_load.py`` prints the moves the computer tables made beside each figure.

What a worker gets is what :func:`engine.ai.choose` needs and nothing else: the game's
kind, the state (pickled), the seat, the level and the seed, and for a level that
remembers the game so far (Tonttu's ``strong``) its decisions so far, which the worker
replays and of which the level reads only what a spectator saw. ``choose`` is pure and
deterministic given those, so the move is the one the bot's own process would have
made (``tests/tables/test_computers.py`` checks it), and a replayed game makes the same
moves.

Fairness (:class:`FairQueue`): the workers are few and a table full of computers asks
for decision after decision, so decisions are not handed to the pool first come,
first served. Each table has at most one decision in flight; tables with decisions
waiting are served in turn (round robin), so a table waits at most one decision of
each other busy table, however many its neighbours queue. Two requests for the same
decision (the same table, version, seat and level: two handlers that both saw the
computer's turn) share one computation.

While a decision takes longer than a second the thread shows it
(:func:`while_thinking`: the cogs send Discord's typing indicator, "<bot> is
typing…", repeated while the computer thinks: one cheap call per 8 s, no new message).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import time
from collections import deque
from collections.abc import AsyncIterator, Awaitable, Callable, Hashable
from dataclasses import dataclass
from typing import Any

import engine.ai
from engine import get_game
from engine.core import PlayerId
from engine.records import Record
from tables.metrics import OFF, Metrics
from tables.workers import WorkerPool

log = logging.getLogger("bot")

WORKER_NICE = 10
"""Added to the workers' CPU niceness: the bot's own process always goes first."""
THINK_PATIENCE = 5.0
"""Seconds a decision waits for its worker before it is also made in a thread of the
bot's process: a ``strong`` decision is a few hundred milliseconds of CPU, so a worker
that has not answered in 5 s is starved (``SCHED_IDLE`` on a machine whose cores
normal processes keep busy) and the table would wait for as long as that lasts."""

THINKING_AFTER = 1.0
"""Seconds of thinking after which the thread shows that a computer is thinking."""
THINKING_EVERY = 8.0
"""Seconds between two typing indicators (Discord shows one for about 10 s)."""
THREAD_SLOTS = min(32, (os.cpu_count() or 1) + 4)
"""Decisions at once when deciding in threads (asyncio's default thread pool size)."""


def default_workers() -> int:
    """One worker per core the bot may use, but one: that core is the event loop's."""
    try:
        cores = len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        cores = os.cpu_count() or 1
    return max(1, cores - 1)


@dataclass(frozen=True)
class Decision:
    """One computer move to decide: what :func:`decide` needs, and the table it is for."""

    game_id: int
    version: int
    kind: str
    state: Any
    player: PlayerId
    level: str
    seed: int
    record: Record | None = None
    """The game so far, for a level that remembers it (``engine.ai.choose``)."""

    @property
    def same(self) -> Hashable:
        """Decisions equal by this are the same move (it is deterministic given them)."""
        return (self.version, self.player, self.level, self.seed)


def decide(
    kind: str, state: Any, player: PlayerId, level: str, seed: int, record: Record | None = None
) -> Any:
    """The computer's action (runs in a worker process; pure and deterministic)."""
    return engine.ai.choose(get_game(kind), state, player, level, seed, record=record)


def decide_timed(
    kind: str, state: Any, player: PlayerId, level: str, seed: int, record: Record | None = None
) -> tuple[Any, float]:
    """:func:`decide`, and the CPU seconds it took (of the thread that decided)."""
    started = time.thread_time()
    action = decide(kind, state, player, level, seed, record)
    return action, time.thread_time() - started


def _warm() -> None:
    """Import both games and their computer players before the first decision."""
    for kind in ("workshop", "tonttu"):
        get_game(kind)
        engine.ai.game_ai(kind)


POOL = WorkerPool(
    "computer player", size=default_workers(), nice=WORKER_NICE, idle=True, warm=_warm
)
"""The computer players' worker processes, shared by every bot of this process."""


# --------------------------------------------------------------------------- fairness


class _Job:
    __slots__ = ("done", "make", "same")

    def __init__(self, make: Callable[[], Awaitable[Any]], same: Hashable) -> None:
        self.make = make
        self.same = same
        self.done: asyncio.Future[Any] = asyncio.get_running_loop().create_future()


class FairQueue:
    """Runs jobs at most ``slots`` at a time, at most one per key, keys in turn.

    A key is a table (game id). A key with jobs waiting and none running is in the
    ring; a free slot takes the key at the front, runs that key's oldest job, and the
    key goes to the back of the ring once that job is done (if it has more). So with
    ``k`` busy keys, a key's next job starts after at most ``k - 1`` jobs of others.
    """

    def __init__(self, slots: int) -> None:
        self.slots = max(1, slots)
        self._waiting: dict[Hashable, deque[_Job]] = {}
        self._ring: deque[Hashable] = deque()
        self._busy: set[Hashable] = set()
        self._shared: dict[tuple[Hashable, Hashable], _Job] = {}
        self._tasks: set[asyncio.Task[None]] = set()
        self._closed = False

    @property
    def running(self) -> int:
        return len(self._tasks)

    def waiting(self, key: Hashable) -> int:
        """Jobs of ``key`` not started yet."""
        return len(self._waiting.get(key, ()))

    async def run(
        self, key: Hashable, make: Callable[[], Awaitable[Any]], *, same: Hashable = None
    ) -> Any:
        """``await make()`` when it is ``key``'s turn. A request with the same ``same``
        (not ``None``) as one of ``key``'s jobs not finished yet shares that job."""
        if self._closed:
            raise RuntimeError("The computer players have stopped (the bot is closing).")
        job = self._shared.get((key, same)) if same is not None else None
        if job is None:
            job = _Job(make, same)
            if same is not None:
                self._shared[(key, same)] = job
            self._waiting.setdefault(key, deque()).append(job)
            if key not in self._busy and key not in self._ring:
                self._ring.append(key)
            self._pump()
        # shielded: one caller giving up does not cancel the job for the others
        return await asyncio.shield(job.done)

    def _pump(self) -> None:
        while len(self._tasks) < self.slots and self._ring:
            key = self._ring.popleft()
            queue = self._waiting[key]
            job = queue.popleft()
            if not queue:
                del self._waiting[key]
            self._busy.add(key)
            task = asyncio.create_task(self._run(key, job), name=f"decision-{key}")
            self._tasks.add(task)

    async def _run(self, key: Hashable, job: _Job) -> None:
        try:
            result = await job.make()
        except asyncio.CancelledError as error:
            task = asyncio.current_task()
            if self._closed or (task is not None and task.cancelling()):
                job.done.cancel()  # the queue is closing: so are its callers
                raise
            if not job.done.done():  # the work was cancelled under us (a pool stopped)
                job.done.set_exception(RuntimeError(f"The decision was cancelled ({error!r})."))
        except Exception as error:  # the caller gets it; the queue goes on
            if not job.done.done():
                job.done.set_exception(error)
        else:
            if not job.done.done():
                job.done.set_result(result)
        finally:
            self._tasks.discard(asyncio.current_task())
            self._busy.discard(key)
            if self._shared.get((key, job.same)) is job:
                del self._shared[(key, job.same)]
            if key in self._waiting and not self._closed:
                self._ring.append(key)
            if not self._closed:
                self._pump()

    async def close(self) -> None:
        """Cancel every job, waiting or running; further requests are refused."""
        self._closed = True
        for queue in self._waiting.values():
            for job in queue:
                job.done.cancel()
        self._waiting.clear()
        self._ring.clear()
        self._shared.clear()
        tasks = list(self._tasks)
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)


# --------------------------------------------------------------------------- the service

Runner = Callable[[Decision], Awaitable[Any]]
"""How one decision is computed (tests replace it, e.g. with a slow one)."""


class Computers:
    """The bot's computer players: :meth:`choose` a move for a :class:`Decision`.

    ``workers``: worker processes (``None``: :func:`default_workers`; ``0``: decide in
    threads of this process, the old way). ``runner`` replaces how a decision is
    computed (tests); the fairness is the same.
    """

    def __init__(self, workers: int | None = None, *, runner: Runner | None = None) -> None:
        self.workers = default_workers() if workers is None else max(0, workers)
        self._runner = runner
        self.queue = FairQueue(self.workers or THREAD_SLOTS)
        self.metrics: Metrics = OFF
        """The bot's (set by it): each decision's CPU, and its wait."""

    def start(self) -> None:
        """Start the worker processes now, while the bot connects."""
        if self.workers and self._runner is None:
            POOL.resize(self.workers)
            POOL.start()

    async def choose(self, decision: Decision) -> Any:
        """The computer's action, decided when its table's turn comes."""
        started = time.perf_counter()
        action = await self.queue.run(
            decision.game_id, lambda: self._compute(decision), same=decision.same
        )
        self.metrics.decision_waited(decision.kind, time.perf_counter() - started)
        return action

    async def _compute(self, decision: Decision) -> Any:
        if self._runner is not None:
            return await self._runner(decision)
        args = (
            decision.kind,
            decision.state,
            decision.player,
            decision.level,
            decision.seed,
            decision.record,
        )
        if not self.workers:
            action, cpu = await asyncio.to_thread(decide_timed, *args)
        else:
            action, cpu = await POOL.run(decide_timed, *args, patience=THINK_PATIENCE)
        self.metrics.decided(decision.kind, decision.level, cpu)
        return action

    async def close(self) -> None:
        """Stop deciding (the bot is closing): waiting decisions are cancelled. The
        worker processes are shared by the process's bots and end with it."""
        await self.queue.close()


_showing: set[asyncio.Future[bool]] = set()


@contextlib.asynccontextmanager
async def while_thinking(
    show: Callable[[], Awaitable[None]],
    *,
    after: float = THINKING_AFTER,
    every: float = THINKING_EVERY,
) -> AsyncIterator[None]:
    """Call ``show()`` once the body has run for ``after`` seconds, then every ``every``
    seconds until it ends. A ``show`` that fails is logged and not repeated."""

    async def shown() -> bool:
        try:
            await show()
        except Exception as error:  # e.g. no permission to post in the thread
            log.info("cannot show that a computer is thinking: %s", error)
            return False
        return True

    async def keep_showing() -> None:
        await asyncio.sleep(after)
        while True:
            # shielded (and held): a request under way when the body ends is not cut off
            request = asyncio.ensure_future(shown())
            _showing.add(request)
            request.add_done_callback(_showing.discard)
            if not await asyncio.shield(request):
                return
            await asyncio.sleep(every)

    task = asyncio.create_task(keep_showing(), name="thinking")
    try:
        yield
    finally:
        task.cancel()  # not awaited: it ends at its next await, nothing to wait for
