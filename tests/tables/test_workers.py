"""Worker pools end at once when the bot stops, and Ctrl-C belongs to the bot alone."""

from __future__ import annotations

import os
import signal
import time
from concurrent.futures import process as futures_process
from pathlib import Path

import pytest

from tables.workers import WorkerPool


def _slow_start() -> None:
    """A worker that takes its time to start (a busy machine, a low CPU priority)."""
    time.sleep(120)


def _processes(pool: WorkerPool) -> list:  # type: ignore[type-arg]
    executor = pool.executor()
    assert executor is not None
    return list(executor._processes.values())  # type: ignore[attr-defined]


def test_stopping_with_terminate_ends_a_worker_that_is_still_starting() -> None:
    pool = WorkerPool("slow test", warm=_slow_start)
    pool.start()
    processes = _processes(pool)
    assert processes and all(p.is_alive() for p in processes)
    pool.stop(terminate=True)  # interpreter exit would wait for the two minutes
    assert not any(p.is_alive() for p in processes)


def test_stopping_with_terminate_waits_for_the_executors_own_thread(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """That thread closes its wake-up pipe as it ends. Still running when the interpreter
    exits, it raced Python's exit hook writing to that pipe: an "OSError: Bad file
    descriptor" traceback after a clean stop (seen once in CI). Its end is slowed here so
    that a stop that does not wait for it is seen."""
    internals = futures_process._ExecutorManagerThread.join_executor_internals

    def slow_internals(self: futures_process._ExecutorManagerThread) -> None:
        time.sleep(0.5)
        internals(self)

    monkeypatch.setattr(
        futures_process._ExecutorManagerThread, "join_executor_internals", slow_internals
    )
    pool = WorkerPool("test", warm=os.getpid)
    pool.start()
    executor = pool.executor()
    assert executor is not None
    executor.submit(os.getpid).result(timeout=60)  # the worker is up and idle
    manager = executor._executor_manager_thread  # type: ignore[attr-defined]
    assert manager is not None and manager.is_alive()
    pool.stop(terminate=True)
    assert not manager.is_alive()


@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="reads /proc (Linux)")
def test_workers_are_spawned_with_ctrl_c_blocked() -> None:
    """Ctrl-C in a terminal reaches every process of the group: a worker still importing
    (before its initializer ignores SIGINT) must not die of it with a traceback."""
    pool = WorkerPool("slow test", warm=_slow_start)
    pool.start()
    try:
        (process,) = _processes(pool)
        status = Path(f"/proc/{process.pid}/status").read_text()
        blocked = int(
            next(line for line in status.splitlines() if line.startswith("SigBlk:")).split()[1], 16
        )
        assert blocked & (1 << (signal.SIGINT - 1))
    finally:
        pool.stop(terminate=True)
    # and the bot's own thread has Ctrl-C back
    assert signal.SIGINT not in signal.pthread_sigmask(signal.SIG_BLOCK, set())


async def test_a_job_the_worker_does_not_answer_in_time_is_done_in_a_thread_too() -> None:
    """A worker under ``SCHED_IDLE`` gets no CPU while normal processes keep every core
    busy (seen in CI: a table's first board never came); here it is still starting."""
    pool = WorkerPool("slow test", warm=_slow_start)
    pool.start()
    try:
        started = time.monotonic()
        assert await pool.run(os.getpid, patience=0.2) == os.getpid()  # this process
        assert time.monotonic() - started < 60  # not the worker's two minutes
        assert pool.late == 1
    finally:
        pool.stop(terminate=True)


async def test_a_worker_that_answers_in_time_is_the_only_one_to_do_the_job() -> None:
    pool = WorkerPool("test", warm=os.getpid)
    pool.start()
    try:
        assert await pool.run(os.getpid, patience=60) != os.getpid()  # the worker's
        assert pool.late == 0
    finally:
        pool.stop(terminate=True)
