"""Timers: scheduled, due (also those that came due while the bot was down), fired once."""

from __future__ import annotations

from datetime import datetime, timedelta

import pytest

import storage
from storage import SqliteStorage, WrongStatus
from tests.storage.conftest import FakeClock, lobby, started


async def test_due_timers_lists_what_is_due_oldest_first(
    store: SqliteStorage, clock: FakeClock
) -> None:
    game = await started(store, 10)
    start = clock.now
    late = await store.schedule(game.id, "reminder", start + timedelta(hours=2), {"version": 0})
    early = await store.schedule(game.id, "speed", start + timedelta(seconds=30))
    assert await store.next_due_at() == early.due_at
    assert await store.due_timers() == []
    clock.advance(seconds=30)
    assert [t.id for t in await store.due_timers()] == [early.id]
    clock.advance(hours=3)
    due = await store.due_timers()
    assert [t.id for t in due] == [early.id, late.id]
    assert due[1].payload == {"version": 0} and due[1].kind == "reminder"
    assert due[1].game_id == game.id and due[1].created_at == start


async def test_pending_timers_of_one_game_soonest_first(
    store: SqliteStorage, clock: FakeClock
) -> None:
    game, other = await started(store, 10), await started(store, 11)
    limit = await store.schedule(game.id, "turn_limit", clock.now + timedelta(hours=5))
    remind = await store.schedule(game.id, "remind", clock.now + timedelta(hours=1))
    await store.schedule(other.id, "remind", clock.now)
    fired = await store.schedule(game.id, "speed", clock.now)
    assert await store.mark_fired(fired.id)
    assert await store.pending_timers(game.id) == [remind, limit]
    await store.cancel_timers(game.id, "remind")
    assert await store.pending_timers(game.id) == [limit]


async def test_a_timer_fires_once(store: SqliteStorage, clock: FakeClock) -> None:
    game = await started(store, 10)
    timer = await store.schedule(game.id, "speed", clock.advance(seconds=10))
    assert await store.mark_fired(timer.id)
    assert not await store.mark_fired(timer.id)
    assert await store.due_timers(clock.advance(minutes=1)) == []
    assert await store.next_due_at() is None


async def test_cancelled_and_replaced_timers_never_come_due(
    store: SqliteStorage, clock: FakeClock
) -> None:
    game = await started(store, 10)
    other = await started(store, 11)
    a = await store.schedule(game.id, "reminder", clock.now)
    b = await store.schedule(game.id, "reminder", clock.now, replace=True)  # a is cancelled
    c = await store.schedule(game.id, "speed", clock.now)
    d = await store.schedule(other.id, "reminder", clock.now)
    assert [t.id for t in await store.due_timers()] == [b.id, c.id, d.id]
    assert await store.cancel_timer(c.id)
    assert not await store.cancel_timer(c.id)
    assert not await store.cancel_timer(a.id)
    assert not await store.mark_fired(c.id)
    assert await store.cancel_timers(game.id, "reminder") == 1
    assert [t.id for t in await store.due_timers()] == [d.id]
    assert await store.cancel_timers(other.id) == 1
    assert await store.due_timers() == []


async def test_timers_that_came_due_while_the_bot_was_down_are_listed_after_restart(
    db_url: str, clock: FakeClock
) -> None:
    async with await storage.open(db_url, clock=clock) as store:
        game = await started(store, 10)
        timer = await store.schedule(game.id, "reminder", clock.advance(minutes=5), {"seat": 1})
    clock.advance(days=2)  # the bot was down for two days
    async with await storage.open(db_url, clock=clock) as store:
        (due,) = await store.due_timers()
        assert (due.id, due.payload, due.due_at) == (timer.id, {"seat": 1}, timer.due_at)
        assert await store.mark_fired(due.id)


async def test_abandoning_cancels_timers_and_closed_games_take_none(
    store: SqliteStorage, clock: FakeClock
) -> None:
    game = await lobby(store, 10)
    await store.schedule(game.id, "lobby-expiry", clock.advance(hours=1))
    await store.abandon(game.id)
    assert await store.due_timers(clock.advance(days=1)) == []
    with pytest.raises(WrongStatus):
        await store.schedule(game.id, "reminder", clock.now)


async def test_times_must_carry_a_time_zone(store: SqliteStorage) -> None:
    game = await started(store, 10)
    with pytest.raises(ValueError, match="time zone"):
        await store.schedule(game.id, "reminder", datetime(2026, 12, 24, 18, 0))
