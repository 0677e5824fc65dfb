"""Computer decisions (tables/computers.py): made in a worker process, the same move as in
the bot's own process; one decision in flight per table; tables served in turn."""

from __future__ import annotations

import asyncio
import os
import signal
from collections.abc import Hashable
from dataclasses import replace
from typing import Any

import pytest

import engine.ai
from engine.ai.match import play_match
from engine.core import derive_seed
from engine.records import replay
from engine.tonttu import GAME as TONTTU
from engine.workshop import GAME as WORKSHOP
from tables import computers
from tables.computers import Computers, Decision, FairQueue
from tests.render import states

# --------------------------------------------------------------------------- fairness


async def run_jobs(queue: FairQueue, wanted: list[tuple[str, int]]) -> list[tuple[str, int]]:
    """Queue every (table, n) at once; returns the order in which they started."""
    started: list[tuple[str, int]] = []

    def job(table: str, n: int) -> Any:
        async def work() -> tuple[str, int]:
            started.append((table, n))
            await asyncio.sleep(0)
            return table, n

        return work

    results = await asyncio.gather(*(queue.run(t, job(t, n)) for t, n in wanted))
    assert results == wanted  # each caller gets its own job's result
    return started


async def test_a_table_with_one_decision_is_served_within_one_round() -> None:
    many = [("busy", n) for n in range(6)]
    started = await run_jobs(FairQueue(slots=1), [*many, ("quiet", 0)])
    # the quiet table asked last, yet waits only for the busy table's decision in flight
    assert started == [("busy", 0), ("quiet", 0), *many[1:]]


async def test_busy_tables_are_served_in_turn() -> None:
    wanted = [("a", n) for n in range(4)] + [("b", n) for n in range(3)] + [("c", 0)]
    started = await run_jobs(FairQueue(slots=1), wanted)
    assert started == [
        ("a", 0),
        ("b", 0),
        ("c", 0),
        ("a", 1),
        ("b", 1),
        ("a", 2),
        ("b", 2),
        ("a", 3),
    ]


async def test_at_most_one_decision_per_table_is_in_flight() -> None:
    queue = FairQueue(slots=4)
    in_flight: dict[str, int] = {"a": 0, "b": 0}
    most: dict[str, int] = {"a": 0, "b": 0}
    most_overall = 0

    def job(table: str) -> Any:
        async def work() -> None:
            nonlocal most_overall
            in_flight[table] += 1
            most[table] = max(most[table], in_flight[table])
            most_overall = max(most_overall, sum(in_flight.values()))
            await asyncio.sleep(0.01)
            in_flight[table] -= 1

        return work

    await asyncio.gather(*(queue.run(t, job(t)) for t in "aaaabb"))
    assert most == {"a": 1, "b": 1}
    assert most_overall == 2  # the two tables did use two of the slots at once


async def test_the_same_decision_asked_twice_is_computed_once() -> None:
    queue = FairQueue(slots=1)
    calls: list[Hashable] = []

    def job(same: Hashable) -> Any:
        async def work() -> Hashable:
            calls.append(same)
            await asyncio.sleep(0)
            return same

        return work

    got = await asyncio.gather(
        queue.run(1, job("v3"), same="v3"),
        queue.run(1, job("v3"), same="v3"),
        queue.run(1, job("v4"), same="v4"),
    )
    assert got == ["v3", "v3", "v4"]
    assert calls == ["v3", "v4"]


async def test_a_failed_decision_reaches_its_caller_and_the_queue_goes_on() -> None:
    queue = FairQueue(slots=1)

    async def fails() -> None:
        raise ValueError("no legal action")

    async def works() -> str:
        return "ok"

    first = asyncio.ensure_future(queue.run(1, fails))
    second = asyncio.ensure_future(queue.run(1, works))
    with pytest.raises(ValueError, match="no legal action"):
        await first
    assert await second == "ok"


async def test_work_cancelled_under_the_queue_is_an_error_for_its_caller_only() -> None:
    queue = FairQueue(slots=1)

    async def pool_stopped() -> None:  # e.g. the worker pool was shut down meanwhile
        raise asyncio.CancelledError

    async def works() -> str:
        return "ok"

    with pytest.raises(RuntimeError, match="cancelled"):
        await queue.run(1, pool_stopped)
    assert await queue.run(1, works) == "ok"


async def test_closing_cancels_waiting_and_running_decisions() -> None:
    queue = FairQueue(slots=1)
    forever = asyncio.Event()

    async def blocked() -> None:
        await forever.wait()

    running = asyncio.ensure_future(queue.run(1, blocked))
    waiting = asyncio.ensure_future(queue.run(2, blocked))
    await asyncio.sleep(0.01)
    assert queue.running == 1 and queue.waiting(2) == 1
    await queue.close()
    for caller in (running, waiting):
        with pytest.raises(asyncio.CancelledError):
            await caller
    with pytest.raises(RuntimeError):
        await queue.run(3, blocked)


# --------------------------------------------------------------------------- the workers


def decision(game: Any, state: Any, level: str, version: int = 5) -> Decision:
    player = sorted(game.to_act(state))[0]
    seed = derive_seed(99, version, player)
    return Decision(1, version, game.name, state, player, level, seed)


def in_process(d: Decision) -> Any:
    game = WORKSHOP if d.kind == "workshop" else TONTTU
    return engine.ai.choose(game, d.state, d.player, d.level, d.seed, record=d.record)


def remembering() -> Decision:
    """A strong Tonttu decision with the game so far (its memory: engine.ai.choose)."""
    _, record = play_match(TONTTU, ["greedy"] * 4, 3)
    so_far = record.model_copy(update={"actions": record.actions[:40]})
    return replace(decision(TONTTU, replay(TONTTU, so_far), "strong", 40), record=so_far)


async def test_a_decision_in_the_worker_is_the_one_made_in_the_bots_process(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(computers.POOL, "deaths", 0)
    players = Computers(workers=1)
    players.start()
    cases = [
        decision(WORKSHOP, states.workshop(4, moves), level, version=moves)
        for moves in (3, 30, 60)
        for level in ("random", "greedy")
    ]
    cases += [
        decision(TONTTU, states.tonttu_state(n, seed), level)
        for n, seed in ((3, 1), (6, 2))
        for level in ("random", "greedy")
    ]
    cases += [  # the searching level, once per game (a second of CPU each)
        decision(WORKSHOP, states.workshop(3, 20), "strong", version=20),
        decision(TONTTU, states.tonttu_state(4, 3), "strong"),
        remembering(),
    ]
    for case in cases:
        assert await players.choose(case) == in_process(case), case
    assert await computers.POOL.run(os.getpid) != os.getpid()  # decided elsewhere
    assert not computers.POOL.in_threads


async def test_the_workers_yield_the_cpu_to_the_bot(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(computers.POOL, "deaths", 0)
    ours = os.nice(0)
    theirs = await computers.POOL.run(os.nice, 0)
    assert theirs == min(19, ours + computers.WORKER_NICE)
    if hasattr(os, "SCHED_IDLE"):  # Linux: only CPU time nothing else wants
        assert await computers.POOL.run(os.sched_getscheduler, 0) == os.SCHED_IDLE
        assert os.sched_getscheduler(0) != os.SCHED_IDLE  # not the bot's own process


async def test_a_worker_that_dies_costs_no_move(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(computers.POOL, "deaths", 0)  # this test's death is not counted after it
    players = Computers(workers=1)
    case = decision(WORKSHOP, states.workshop(4, 12), "greedy", version=12)
    expected = in_process(case)
    assert await players.choose(case) == expected
    executor = computers.POOL.executor()
    assert executor is not None
    for process in list(executor._processes.values()):  # type: ignore[union-attr]
        os.kill(process.pid, signal.SIGKILL)  # out of memory, killed by hand …
    assert await players.choose(case) == expected  # decided again, in a thread
    assert computers.POOL.deaths == 1
    assert computers.POOL.executor() is not executor  # the next decision gets a new worker
    assert await players.choose(case) == expected


async def test_with_no_workers_decisions_are_made_in_threads() -> None:
    players = Computers(workers=0)  # AI_WORKERS=0: the old way, kept to compare
    case = decision(TONTTU, states.tonttu_state(5, 4), "greedy")
    assert await players.choose(case) == in_process(case)
    assert players.queue.slots == computers.THREAD_SLOTS


# --------------------------------------------------------------------------- thinking shown


async def test_thinking_is_shown_after_a_while_and_again_until_it_ends() -> None:
    shown: list[int] = []
    twice = asyncio.Event()

    async def show() -> None:
        shown.append(len(shown))
        if len(shown) == 2:
            twice.set()

    async with computers.while_thinking(show, after=10.0):
        pass  # a quick decision shows nothing
    assert shown == []
    async with computers.while_thinking(show, after=0.01, every=0.01):
        await twice.wait()  # a long one: shown, then shown again
    await asyncio.sleep(0.05)
    assert shown == [0, 1]  # and no more once it has ended


async def test_a_failing_indicator_is_not_repeated_and_does_not_fail_the_decision() -> None:
    calls = 0
    failed = asyncio.Event()

    async def show() -> None:
        nonlocal calls
        calls += 1
        failed.set()
        raise PermissionError("Missing Permissions")

    async with computers.while_thinking(show, after=0.0, every=0.0):
        await failed.wait()
        await asyncio.sleep(0.05)
    assert calls == 1
