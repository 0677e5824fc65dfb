"""A catch-up (after a start or a gateway reconnect) that finds PostgreSQL away tries
again until it is back (found by the chaos soak, ``benchmarks/chaos.py``: a shard that
resumed during ``pg_ctl stop`` logged a traceback and never caught its threads up)."""

from __future__ import annotations

import asyncio
import logging
from typing import Any

import pytest

import tables.publishing
from storage.errors import DatabaseUnavailable
from tables.publishing import Publisher


class AwayThenBack:
    """A store whose database is away for its first two lists of games."""

    def __init__(self) -> None:
        self.asked = 0

    async def list_games(self, **kwargs: Any) -> list[Any]:
        self.asked += 1
        if self.asked <= 2:
            raise DatabaseUnavailable("ConnectionRefusedError(111)")
        return []


def publisher(store: Any, stopping: asyncio.Event) -> Publisher:
    async def english(guild: int | None) -> str:
        return "en"

    return Publisher(
        store, owner="test", spawn=lambda work, name: work.close(), stopping=stopping,
        lang_of=english,
    )  # fmt: skip


async def test_a_catch_up_waits_for_the_database_and_then_runs(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setattr(tables.publishing, "CATCH_UP_RETRY", 0.01)
    store = AwayThenBack()
    with caplog.at_level(logging.WARNING, logger="bot.publishing"):
        assert await publisher(store, asyncio.Event()).catch_up() == 0
    assert store.asked == 3
    assert len(caplog.records) == 2 and all(r.exc_info is None for r in caplog.records)


async def test_a_catch_up_waiting_for_the_database_ends_when_the_bot_stops() -> None:
    stopping = asyncio.Event()
    stopping.set()
    store = AwayThenBack()
    assert await publisher(store, stopping).catch_up() == 0
    assert store.asked == 1
