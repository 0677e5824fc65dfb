"""``Tables.undo`` / ``Tables.can_undo`` (tables/service.py): the checks around
the engine's undo rule, and computer seats, which never undo."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

import storage
from engine.core import NotInGame
from engine.undo import CannotUndo
from engine.workshop import GAME
from engine.workshop.models import PlaceElf
from storage import LoadedGame, SqlStorage
from tables.service import StaleBoard, Tables

HUMAN = 100
ASSEMBLY = PlaceElf(station="assembly")


@pytest.fixture
async def store(tmp_path: Path) -> AsyncIterator[SqlStorage]:
    async with await storage.open(f"sqlite:///{tmp_path}/bot.db") as opened:
        yield opened


async def human_to_act(store: SqlStorage) -> LoadedGame:
    """A Workshop game of a human and a computer seat, at the human's first decision."""
    game = await store.create_lobby(
        guild_id=1, channel_id=1, kind="workshop", options=None, host_id=HUMAN, host_name="Aino"
    )
    await store.add_ai(game.id)
    game = await store.start(game.id, seed=2)
    while GAME.to_act(game.state) != {str(HUMAN)}:
        (computer,) = GAME.to_act(game.state)
        action = GAME.legal_actions(game.state, computer)[0]
        await store.submit(game.id, computer, action, game.version)
        game = await store.load(game.id)
    return game


async def test_a_human_takes_back_their_decision_and_a_computer_never_does(
    store: SqlStorage,
) -> None:
    tables = Tables(store)
    game = await human_to_act(store)
    start = game.state
    index = list(GAME.legal_actions(start, str(HUMAN))).index(ASSEMBLY)
    played = await tables.choose(game.id, HUMAN, game.version, index)
    assert await tables.can_undo(played.game, str(HUMAN))
    assert not await tables.can_undo(played.game, "ai:1")  # computer seats never undo
    with pytest.raises(NotInGame):
        await tables.undo(game.id, 999, None)  # a spectator
    with pytest.raises(StaleBoard):
        await tables.undo(game.id, HUMAN, game.version)  # a button from before the move
    undone = await tables.undo(game.id, HUMAN, played.game.version)
    assert undone.game.state == start and undone.game.version == played.game.version + 1
    assert [e.kind for e in undone.events] == ["took_back"]
    assert not await tables.can_undo(undone.game, str(HUMAN))


async def test_a_computers_move_cannot_be_taken_back_by_the_human(store: SqlStorage) -> None:
    tables = Tables(store)
    game = await human_to_act(store)
    # the human finishes a turn; the computer moves; the human may not take anything back
    state, version = game.state, game.version
    while GAME.to_act(state) == {str(HUMAN)}:
        action = GAME.legal_actions(state, str(HUMAN))[0]
        state, _events, version = await store.submit(game.id, str(HUMAN), action, version)
    (computer,) = GAME.to_act(state)
    await store.submit(game.id, computer, GAME.legal_actions(state, computer)[0], version)
    with pytest.raises(CannotUndo, match="Another player has moved since"):
        await tables.undo(game.id, HUMAN, None)
    assert (await store.load(game.id)).version == version + 1
