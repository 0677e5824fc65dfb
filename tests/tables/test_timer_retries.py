"""A timer that meets a database or a Discord out of reach is not lost: it fires again
soon (found by the chaos soak, ``benchmarks/chaos.py``: such a timer was recorded as
fired, so a silent player's game waited for ever for the turn limit that never came;
and every poll while the database was away logged a traceback)."""

from __future__ import annotations

import logging
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

import storage
from storage import NewTimer, Timer
from storage.errors import DatabaseUnavailable
from tables.timers import RETRY_AFTER, TimerRunner


class Clock:
    def __init__(self) -> None:
        self.now = datetime.now(UTC).replace(microsecond=0)

    def __call__(self) -> datetime:
        return self.now


class Unreachable(Exception):
    """The front end's "its service is away" (say discord.py's DiscordServerError)."""


async def game_with_timer(store: storage.Storage, clock: Clock) -> int:
    lobby = await store.create_lobby(
        guild_id=1, channel_id=1, kind="workshop", options={}, host_id=1, host_name="a"
    )
    await store.join(lobby.id, 2, "b")
    game = await store.start(lobby.id, seed=3)
    due = clock.now + timedelta(hours=1)
    await store.set_marks(game.id, {"board": (None, 0)}, timers=[NewTimer("remind", due, {})])
    return game.id


@pytest.mark.parametrize("away", [DatabaseUnavailable("refused"), Unreachable("503")])
async def test_a_timer_whose_work_met_a_service_away_fires_again_soon(
    tmp_path: Path, away: Exception, caplog: pytest.LogCaptureFixture
) -> None:
    clock = Clock()
    async with await storage.open(f"sqlite:///{tmp_path}/bot.db", clock=clock) as store:
        await game_with_timer(store, clock)
        runner = TimerRunner(store, clock=clock, stopped=lambda: False)
        runner.unreachable = (Unreachable,)
        tries: list[Timer] = []

        async def fire(timer: Timer) -> bool:
            tries.append(timer)
            if len(tries) == 1:
                raise away
            return True

        runner.fire = fire
        clock.now += timedelta(hours=1, seconds=1)
        with caplog.at_level(logging.WARNING, logger="bot.timers"):
            assert await runner.run_due() == 0
        assert [r.exc_info for r in caplog.records] == [None]  # one line, no traceback
        assert await runner.run_due() == 0  # not before RETRY_AFTER
        clock.now += RETRY_AFTER
        assert await runner.run_due() == 1
        assert len(tries) == 2 and tries[0].id == tries[1].id
        assert await runner.run_due() == 0  # fired once: done


async def test_a_poll_while_the_database_is_away_logs_one_line(
    tmp_path: Path, caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    clock = Clock()
    async with await storage.open(f"sqlite:///{tmp_path}/bot.db", clock=clock) as store:
        runner = TimerRunner(store, clock=clock, stopped=lambda: False)

        async def fire(timer: Timer) -> bool:
            return True

        async def refused(*args: object, **kwargs: object) -> list[Timer]:
            raise DatabaseUnavailable("ConnectionRefusedError(111)")

        runner.fire = fire
        monkeypatch.setattr(store, "claim_due_timers", refused)
        with caplog.at_level(logging.WARNING, logger="bot.timers"):
            assert await runner.run_due() == 0
        (record,) = caplog.records
        assert record.exc_info is None and "cannot be reached" in record.getMessage()
