"""What the bot hands a computer seat's decision (tables/service.py): a Tonttu
``strong`` seat remembers the others' revealed points, so its decision carries the
game's decisions so far, which replay to the very state it decides on; levels that
remember nothing get none (no log read for them)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

import storage
from engine.records import replay
from engine.tonttu import GAME
from storage import SqlStorage
from tables.computers import Computers, Decision, decide
from tables.service import Tables

HUMAN = 100


@pytest.fixture
async def store(tmp_path: Path) -> AsyncIterator[SqlStorage]:
    async with await storage.open(f"sqlite:///{tmp_path}/bot.db") as opened:
        yield opened


async def test_a_strong_tonttu_seat_decides_with_the_game_so_far(store: SqlStorage) -> None:
    asked: list[Decision] = []

    async def runner(d: Decision) -> Any:  # a quick move; the decision is what is checked
        asked.append(d)
        return decide(d.kind, d.state, d.player, "greedy", d.seed)

    tables = Tables(store, computers=Computers(runner=runner))
    game = await store.create_lobby(
        guild_id=1, channel_id=1, kind="tonttu", options=None, host_id=HUMAN, host_name="Aino"
    )
    await store.add_ai(game.id, level="strong")
    await store.add_ai(game.id, level="greedy")
    game = await store.start(game.id, seed=4)
    while game.status == "active" and len(asked) < 40:
        if str(HUMAN) in GAME.to_act(game.state):
            action = GAME.legal_actions(game.state, str(HUMAN))[0]
            await store.submit(game.id, str(HUMAN), action, game.version)
        else:
            assert await tables.computer_step(game.id) is not None
        game = await store.load(game.id)
    strong = [d for d in asked if d.level == "strong"]
    assert strong and len(strong) < len(asked)
    for d in asked:
        if d.level != "strong":
            assert d.record is None
            continue
        assert d.record is not None and d.record.seed == 4
        assert len(d.record.actions) == d.version
        assert replay(GAME, d.record) == d.state
    assert any(len(d.record.actions) > 10 for d in strong if d.record is not None)
