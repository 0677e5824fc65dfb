"""``reload``: the game as stored now, from one a caller already holds (the publisher's
round after a player's move): the same game with its marks read again while no move was
stored since, a full load once one was."""

from __future__ import annotations

from dataclasses import replace

from storage import SqliteStorage
from tests.storage import race_game
from tests.storage.conftest import started, to_act


async def test_no_move_since_only_the_marks_are_read_again(store: SqliteStorage) -> None:
    game = await started(store, 20)
    player = to_act(game)
    submitted = await store.submit(
        game.id, player, race_game.GAME.legal_actions(game.state, player)[0], game.version
    )
    known = replace(game, state=submitted.state, version=submitted.version)
    await store.set_marks(game.id, {"board": (77, submitted.version), "log": (None, 1)})
    again = await store.reload(known)
    assert again.state is known.state  # nothing parsed or read again but the marks
    assert again.messages == {"board": 77}
    assert again.shown_versions == {"board": submitted.version, "log": 1}
    assert again == replace(await store.load(game.id), updated_at=again.updated_at)


async def test_a_move_since_loads_the_game(store: SqliteStorage) -> None:
    game = await started(store, 21)
    player = to_act(game)
    action = race_game.GAME.legal_actions(game.state, player)[0]
    submitted = await store.submit(game.id, player, action, game.version)
    assert (await store.reload(game)).version == submitted.version  # not game's
    store._cache.clear()  # another process's move: only the stored version tells
    assert (await store.reload(game)).version == submitted.version
    abandoned = await store.reload(replace(game, version=submitted.version))
    assert abandoned.version == submitted.version
    await store.abandon(game.id)
    assert (await store.reload(abandoned)).status == "abandoned"
