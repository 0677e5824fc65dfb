"""Fixtures for storage tests: a real database file per test, a controllable clock,
and the fake ``race`` game (see ``race_game.py``) registered with the engine."""

from __future__ import annotations

from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

import storage
from storage import LoadedGame, SqliteStorage
from tests.storage import race_game

assert race_game.GAME.name == "race"  # importing it registered the game

# --doctest-modules would import these helpers a second time under another module
# name, registering a second copy of the game whose classes differ from ours.
collect_ignore = ["race_game.py", "crash_child.py", "restart_child.py"]


class FakeClock:
    """A clock the test moves by hand; storage reads it through ``clock=``."""

    def __init__(self) -> None:
        self.now = datetime(2026, 12, 1, 12, 0, tzinfo=UTC)

    def __call__(self) -> datetime:
        return self.now

    def advance(self, **delta: float) -> datetime:
        self.now += timedelta(**delta)
        return self.now


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
def db_url(tmp_path: Path) -> str:
    return f"sqlite:///{tmp_path}/games/bot.db"


@pytest.fixture
async def store(db_url: str, clock: FakeClock) -> AsyncIterator[SqliteStorage]:
    async with await storage.open(db_url, clock=clock) as opened:
        yield opened


async def lobby(
    store: SqliteStorage,
    channel: int,
    *,
    guild: int = 1,
    players: int = 3,
    options: dict[str, int] | None = None,
) -> LoadedGame:
    """A lobby in ``channel`` hosted by user 100, with users 101… seated after."""
    game = await store.create_lobby(
        guild_id=guild,
        channel_id=channel,
        kind="race",
        options=options,
        host_id=100,
        host_name="Host",
    )
    for n in range(1, players):
        game = await store.join(game.id, 100 + n, f"Player {n}")
    return game


async def started(
    store: SqliteStorage,
    channel: int,
    *,
    guild: int = 1,
    players: int = 3,
    seed: int = 7,
    options: dict[str, int] | None = None,
) -> LoadedGame:
    game = await lobby(store, channel, guild=guild, players=players, options=options)
    return await store.start(game.id, seed)


def to_act(game: LoadedGame) -> str:
    """The one player whose turn it is in a race game."""
    (player,) = race_game.GAME.to_act(game.state)
    return player
