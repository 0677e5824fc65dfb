"""The gates on their own: the work a stop waits for, the flood guard, the REST budget."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from types import SimpleNamespace

import aiohttp
import pytest
import yarl
from multidict import CIMultiDict

from cogs.helpers.gates import FloodGuard, RestBudget, Work, budgeted, fenced, user_id_of

API = "https://discord.com/api/v10"


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


# --------------------------------------------------------------------------- work


async def test_drain_waits_for_handlers_and_background_work_started_meanwhile() -> None:
    work = Work()
    finished: list[str] = []
    release = asyncio.Event()

    async def later(name: str) -> None:
        await release.wait()
        finished.append(name)

    async def handler() -> None:
        await release.wait()
        work.spawn(later("spawned by the handler"), "spawned")  # starts during the drain
        finished.append("handler")

    work.track_handler(asyncio.create_task(handler()))
    work.spawn(later("background"), "background")
    draining = asyncio.create_task(work.drain(30))
    await asyncio.sleep(0.01)
    assert not draining.done()  # everything is still waiting
    release.set()
    assert await draining == 0
    assert sorted(finished) == ["background", "handler", "spawned by the handler"]


async def test_drain_gives_up_after_its_timeout_and_cancel_ends_the_rest() -> None:
    work = Work()
    forever = work.spawn(asyncio.Event().wait(), "forever")
    assert await work.drain(0.05) == 1
    assert await work.cancel() == 1
    assert forever.cancelled()
    assert work.running() == set()


async def test_hurry_ends_a_drain_at_once() -> None:
    work = Work()
    work.spawn(asyncio.Event().wait(), "forever")
    draining = asyncio.create_task(work.drain(3600))
    await asyncio.sleep(0.01)
    work.hurry()
    assert await draining == 1
    await work.cancel()


async def test_a_failed_background_task_is_logged(caplog: pytest.LogCaptureFixture) -> None:
    async def fails() -> None:
        raise ValueError("broken")

    task = Work().spawn(fails(), "broken-work")
    with pytest.raises(ValueError):
        await task
    await asyncio.sleep(0)
    assert "background work broken-work failed" in caplog.text


# --------------------------------------------------------------------------- flood guard


def test_a_user_gets_the_burst_then_the_refill_rate() -> None:
    clock = Clock()
    guard = FloodGuard(burst=10, per_second=2.0, clock=clock)
    assert [guard.allow(1) for _ in range(12)] == [True] * 10 + [False] * 2
    assert guard.allow(2)  # another user has their own allowance
    clock.now += 0.5  # one interaction's worth
    assert [guard.allow(1) for _ in range(2)] == [True, False]
    clock.now += 60  # refilled, but never above the burst
    assert [guard.allow(1) for _ in range(11)] == [True] * 10 + [False]
    assert guard.refused == 4


def test_a_quick_human_never_meets_the_guard() -> None:
    """Chained turns clicked as fast as a person reads the panel (4 clicks a second for a
    6-decision turn, then 3 s until the next turn comes round), for ten minutes."""
    clock = Clock()
    guard = FloodGuard(burst=10, per_second=2.0, clock=clock)
    while clock.now < 600:
        for _ in range(6):
            assert guard.allow(1)
            clock.now += 0.25
        clock.now += 3
    assert guard.refused == 0


def test_autocomplete_has_its_own_larger_allowance() -> None:
    guard = FloodGuard(burst=10, per_second=2.0, clock=Clock())
    assert all(guard.allow(1) for _ in range(10))
    assert not guard.allow(1)
    assert all(guard.allow(1, autocomplete=True) for _ in range(40))  # typing /play
    assert not guard.allow(1, autocomplete=True)


def test_a_zero_burst_turns_the_guard_off() -> None:
    guard = FloodGuard(burst=0, per_second=2.0, clock=Clock())
    assert all(guard.allow(1) for _ in range(1000))


def test_idle_users_are_forgotten_when_many_are_kept(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("cogs.helpers.gates.PRUNE_ABOVE", 3)
    clock = Clock()
    guard = FloodGuard(burst=2, per_second=1.0, clock=clock)
    for user in range(3):
        guard.allow(user)
    clock.now += 10  # all three full again
    guard.allow(99)
    assert len(guard._buckets) == 1


def test_the_user_of_an_interaction_on_a_server_and_in_a_dm() -> None:
    assert user_id_of({"member": {"user": {"id": "12"}}}) == 12
    assert user_id_of({"user": {"id": "34"}}) == 34


# --------------------------------------------------------------------------- REST budget


@pytest.mark.parametrize("per_second", [2.5, float("nan"), float("inf"), -1])
def test_a_budget_is_whole_slots_never_a_fraction_cut(per_second: float) -> None:
    with pytest.raises(ValueError, match="a whole number of requests"):
        RestBudget(per_second)  # type: ignore[arg-type]
    assert RestBudget(45.0).per_second == 45  # type: ignore[arg-type]


async def test_a_slot_is_free_again_a_second_after_its_answer() -> None:
    scheduled: list[tuple[float, Callable[[], None]]] = []
    budget = RestBudget(3, later=lambda delay, callback: scheduled.append((delay, callback)))
    for _ in range(3):
        await budget.acquire()
    fourth = asyncio.create_task(budget.acquire())
    await asyncio.sleep(0)
    assert not fourth.done()  # three requests in flight: the fourth waits
    budget.release()  # the first one was answered...
    await asyncio.sleep(0)
    assert not fourth.done()  # ...but its slot is free only a second later
    assert [delay for delay, _ in scheduled] == [1.0]
    scheduled[0][1]()  # that second has passed
    await fourth
    assert budget.sent == 4 and budget.in_flight == 3


async def test_updates_that_can_wait_leave_half_the_budget_to_the_rest() -> None:
    clock = Clock()
    scheduled: list[tuple[float, Callable[[], None]]] = []
    budget = RestBudget(
        10, clock=clock, later=lambda delay, callback: scheduled.append((delay, callback))
    )
    for _ in range(4):
        await budget.acquire()  # 6 of 10 slots free: room to spare
    assert budget.spare()  # ...and each yes counts as a slot taken
    assert not budget.spare()  # 5 left, not more than half
    assert budget.spare(overdue=True)  # held back long enough: any free slot will do
    for _ in range(4):
        assert budget.spare(overdue=True)
    assert not budget.spare(overdue=True)  # 6 free slots, 6 promised
    clock.now += 1.0  # the promises are a window old: their requests went, or never will
    assert budget.spare()
    for _ in range(5):
        await budget.acquire()  # 1 free
    assert not budget.spare(overdue=True)
    for _ in range(4):
        budget.release()
    for _, give_back in scheduled:  # a second after the answers: 5 free again
        give_back()
    clock.now += 1.0
    assert budget.free == 5 and not budget.spare() and budget.spare(overdue=True)
    assert RestBudget(0, clock=clock).spare()  # no pacing: always room


async def test_a_zero_budget_does_not_pace() -> None:
    budget = RestBudget(0, clock=Clock())
    for _ in range(1000):
        await budget.acquire()
    assert budget.sent == 0


def test_interaction_callbacks_and_webhooks_are_exempt() -> None:
    def counted(path: str) -> bool:
        return budgeted(yarl.URL(API + path), API, 777)

    assert counted("/channels/1/messages")
    assert counted("/users/@me/channels")
    assert counted("/webhooks/555/token/messages/@original")  # not this application's
    assert not counted("/interactions/1/token/callback")
    assert not counted("/webhooks/777/token")
    assert not counted("/webhooks/777/token/messages/@original")
    assert not budgeted(yarl.URL("wss://gateway.discord.gg/?v=10"), API, 777)


async def test_the_trace_paces_only_what_counts_and_frees_the_slot_after_the_answer() -> None:
    scheduled: list[tuple[float, Callable[[], None]]] = []
    budget = RestBudget(100, later=lambda delay, callback: scheduled.append((delay, callback)))
    trace = budget.trace(lambda url: url.path.startswith("/api/v10/channels/"))
    (on_start,) = trace.on_request_start
    (on_end,) = trace.on_request_end
    (on_error,) = trace.on_request_exception
    contexts = [SimpleNamespace(), SimpleNamespace()]
    for context, path in zip(
        contexts,
        ("/api/v10/channels/1/messages", "/api/v10/interactions/1/t/callback"),
        strict=True,
    ):
        params = aiohttp.TraceRequestStartParams("POST", yarl.URL(API[:-8] + path), CIMultiDict())
        await on_start(None, context, params)  # type: ignore[arg-type]
    assert budget.sent == 1 and budget.in_flight == 1
    for context in contexts:
        await on_end(None, context, None)  # type: ignore[arg-type]
        await on_error(None, context, None)  # type: ignore[arg-type]  # never twice
    assert budget.in_flight == 0 and len(scheduled) == 1


@pytest.mark.parametrize("path", ["/api/v10/channels/1/messages", "/api/v10/webhooks/7/t"])
async def test_a_fenced_request_the_fence_stops_ends_with_the_fence_s_error(path: str) -> None:
    """Found by the chaos soak: a turn prompt going out as an interaction's followup
    (exempt from the budget) met its lost publishing claim, and the trace, looking for
    the budget's slot it never took, raised AttributeError instead: a traceback, and the
    click answered with an apology. Counted or not, the fence's error ends the request
    and a slot taken is given back."""
    budget = RestBudget(100, later=lambda delay, callback: None)
    trace = budget.trace(lambda url: url.path.startswith("/api/v10/channels/"))
    (on_start,) = trace.on_request_start

    class Lost(Exception):
        pass

    async def lost() -> None:
        raise Lost

    params = aiohttp.TraceRequestStartParams("POST", yarl.URL(API[:-8] + path), CIMultiDict())
    with fenced(lost), pytest.raises(Lost):
        await on_start(None, SimpleNamespace(), params)  # type: ignore[arg-type]
    assert budget.in_flight == 0
