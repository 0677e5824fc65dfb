"""While PostgreSQL is away, the bot logs one line per failure, not a traceback (found by
the chaos soak, ``benchmarks/chaos.py``: every publishing round and every background
race timer that met the stopped database logged a full traceback)."""

from __future__ import annotations

import asyncio
import logging
from types import SimpleNamespace
from typing import Any

import pytest

from cogs.helpers.gates import Work
from storage.errors import DatabaseUnavailable
from tables.pictures import Pictures
from tables.publishing import Publisher


async def test_a_round_that_met_the_database_away_is_one_warning_line(
    caplog: pytest.LogCaptureFixture,
) -> None:
    async def english(guild: int | None) -> str:
        return "en"

    def spawn(work: Any, name: str) -> None:
        work.close()

    publisher = Publisher(
        None,  # type: ignore[arg-type]  # the failure is all this test hands it
        owner="test",
        spawn=spawn,
        stopping=asyncio.Event(),
        lang_of=english,
    )
    publisher._closed = True  # no retry is scheduled: only the line is looked at
    with caplog.at_level(logging.WARNING, logger="bot.publishing"):
        publisher._failed(7, DatabaseUnavailable("ConnectionRefusedError(111)"))
    (record,) = caplog.records
    assert record.levelno == logging.WARNING and record.exc_info is None
    assert "game 7" in record.getMessage()


async def test_background_work_that_met_the_database_away_is_one_warning_line(
    caplog: pytest.LogCaptureFixture,
) -> None:
    async def race_timer() -> None:
        raise DatabaseUnavailable("CannotConnectNowError('the database system is starting up')")

    with caplog.at_level(logging.WARNING):
        task = Work().spawn(race_timer(), "tonttu-race-timer")
        await asyncio.wait({task})
        await asyncio.sleep(0)  # the done callback
    (record,) = caplog.records
    assert record.levelno == logging.WARNING and record.exc_info is None
    assert "tonttu-race-timer" in record.getMessage()


async def test_a_chart_whose_log_cannot_be_read_is_one_warning(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """Found by the full chaos soak: a game finished just as the database went away,
    and its chart's log read logged a traceback. The final scores go without it."""

    async def away() -> Any:
        raise DatabaseUnavailable("refused")

    game: Any = SimpleNamespace(id=3)
    with caplog.at_level(logging.WARNING):
        assert await Pictures().chart(game, away) is None
    (record,) = [r for r in caplog.records if "chart" in r.getMessage()]
    assert record.levelname == "WARNING" and record.exc_info is None
