from __future__ import annotations

from storage import SqliteStorage
from tests.storage.conftest import started, to_act
from tests.storage.race_game import GAME, Roll


async def test_a_started_game_takes_an_action(store: SqliteStorage) -> None:
    game = await started(store, channel=10)
    state, events, version = await store.submit(game.id, to_act(game), Roll(), 0)
    assert version == 1
    assert events[0].kind == "rolled"
    loaded = await store.load(game.id)
    assert loaded.version == 1 and loaded.state == state
    assert GAME.outcome(state) is None
    assert [entry.seq for entry in await store.log(game.id)] == [1]
