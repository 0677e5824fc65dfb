"""Board pictures drawn in the worker process: the same bytes as drawing in place, and
a worker that dies costs one picture drawn in a thread, not the bot's pictures."""

from __future__ import annotations

import os
import signal

import pytest

import render
from engine.workshop import GAME as WORKSHOP
from tables import drawing, workers
from tests.render import states


async def test_the_worker_draws_the_same_picture_and_a_dead_worker_is_replaced(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(drawing.POOL, "deaths", 0)  # this test's death is not counted after it
    view = WORKSHOP.view(states.workshop(5, 40), None)
    names = states.names(5)
    expected = render.render_board(view, names)
    assert await drawing.draw(render.render_board, view, names) == expected
    pool = drawing.POOL.executor()
    assert pool is not None
    (pid,) = [process.pid for process in pool._processes.values()]  # type: ignore[union-attr]
    assert pid != os.getpid()  # drawn in another process, not in a thread of ours

    os.kill(pid, signal.SIGKILL)  # the worker dies (out of memory, killed by hand …)
    assert await drawing.draw(render.render_board, view, names) == expected  # in a thread
    assert drawing.POOL.executor() is not pool  # the next picture gets a new worker
    assert await drawing.draw(render.render_board, view, names) == expected


async def test_the_worker_draws_on_cpu_time_the_bot_does_not_want(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # At the bot's priority, a picture handed over woke the worker on the event loop's
    # core and the loop waited for the CPU (tables/drawing.py).
    monkeypatch.setattr(drawing.POOL, "deaths", 0)
    if not hasattr(os, "SCHED_IDLE"):
        pytest.skip("SCHED_IDLE is Linux's")
    assert await drawing.POOL.run(os.sched_getscheduler, 0) == os.SCHED_IDLE
    assert os.sched_getscheduler(0) != os.SCHED_IDLE  # not the bot's own process


async def test_without_processes_pictures_are_drawn_in_threads(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def no_processes(*args: object, **kwargs: object) -> None:
        raise NotImplementedError("this system lacks a functioning sem_open")

    monkeypatch.setattr(drawing.POOL, "_executor", None)
    monkeypatch.setattr(drawing.POOL, "deaths", 0)
    monkeypatch.setattr(workers, "ProcessPoolExecutor", no_processes)
    view = WORKSHOP.view(states.workshop(2, 10), None)
    names = states.names(2)
    drawing.start()  # the bot still starts
    assert await drawing.draw(render.render_board, view, names) == render.render_board(view, names)
    assert drawing.POOL.executor() is None  # no new attempt at every picture
    assert drawing.POOL.in_threads


async def test_the_chart_of_a_finished_game_is_replayed_and_drawn_in_the_worker() -> None:
    """``drawing.draw_chart`` sends the decisions (the log's JSON) to the worker, which
    replays them and draws: the same picture as drawing here from the same timeline."""
    from engine.records import random_playout
    from engine.timeline import record_timeline
    from render.chart import render_chart

    _, record = random_playout(WORKSHOP, states.players(3), 77)
    decisions = [(step.player, step.action) for step in record.actions]
    names = states.names(3)
    png = await drawing.draw_chart("workshop", record.players, record.seed, {}, decisions, names)
    assert png == render_chart(record_timeline(WORKSHOP, record), names)
