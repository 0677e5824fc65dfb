"""Errors name their input (as python-chess's ``illegal san: 'Nf3' in <position>``): a
refused action carries the action, the player, the version it was judged at and the
game's id; a ``Conflict`` names the game and the expected and found versions. The
sentence a player sees (``str(error)``) stays as it was. Runs on both backends."""

from __future__ import annotations

import pytest

from engine import get_game
from engine.core import IllegalAction, NotYourTurn
from engine.undo import CannotUndo
from engine.workshop.models import PlaceElf
from storage import Conflict, GameNotFound, SqliteStorage, WrongStatus
from tests.storage.conftest import started, to_act
from tests.storage.race_game import Play, Roll

WORKSHOP = get_game("workshop")


async def test_a_refused_action_names_the_action_player_version_and_game(
    store: SqliteStorage,
) -> None:
    game = await started(store, 10)
    player = to_act(game)
    await store.submit(game.id, player, Roll(), 0)
    loaded = await store.load(game.id)
    acting = to_act(loaded)
    with pytest.raises(IllegalAction) as caught:
        await store.submit(game.id, acting, Play(card=99), 1)
    error = caught.value
    assert (error.action, error.player, error.version, error.game_id) == (
        Play(card=99),
        acting,
        1,
        game.id,
    )
    assert str(error) == "You cannot do that now."  # the sentence is unchanged
    for text in (repr(error), error.detail):
        assert repr(Play(card=99)) in text and repr(acting) in text and str(game.id) in text
    assert f"version=1, game_id={game.id})" in repr(error)
    assert f"at version 1 of game #{game.id}" in error.detail
    assert error.detail.endswith(str(error))


async def test_a_refused_action_as_json_names_what_was_handed_over(store: SqliteStorage) -> None:
    game = await started(store, 10)
    player = to_act(game)
    with pytest.raises(IllegalAction) as caught:
        await store.submit(game.id, player, {"kind": "fly"}, 0)
    error = caught.value
    assert error.action == {"kind": "fly"} and error.player == player
    assert (error.version, error.game_id) == (0, game.id)
    assert "'fly'" in repr(error) and repr(player) in repr(error)


async def test_a_workshop_refusal_keeps_its_sentence_and_names_its_input(
    store: SqliteStorage,
) -> None:
    lobby = await store.create_lobby(
        guild_id=1, channel_id=41, kind="workshop", options=None, host_id=100, host_name="Aino"
    )
    await store.join(lobby.id, 101, "Bruno")
    game = await store.start(lobby.id, seed=5)
    (acting,) = WORKSHOP.to_act(game.state)
    waiting = next(p for p in game.state.players if p != acting)
    action = PlaceElf(station="assembly")
    with pytest.raises(NotYourTurn) as caught:
        await store.submit(game.id, waiting, action, 0)
    error = caught.value
    assert str(error) == "It is not your turn."
    assert (error.action, error.player, error.version, error.game_id) == (
        action,
        waiting,
        0,
        game.id,
    )
    assert repr(action) in error.detail and f"by player {waiting!r}" in error.detail
    with pytest.raises(CannotUndo) as refused:  # nothing to take back yet
        await store.undo(game.id, acting, 0)
    assert (refused.value.player, refused.value.version) == (acting, 0)
    assert refused.value.game_id == game.id and f"game #{game.id}" in refused.value.detail


async def test_a_conflict_names_the_game_and_the_expected_and_found_versions(
    store: SqliteStorage,
) -> None:
    game = await started(store, 10)
    await store.submit(game.id, to_act(game), Roll(), 0)
    loaded = await store.load(game.id)
    with pytest.raises(Conflict) as caught:
        await store.submit(game.id, to_act(loaded), Roll(), 0)
    error = caught.value
    assert str(error) == (
        f"Game #{game.id} has changed since you looked at it; look again and retry."
    )
    assert (error.game_id, error.expected, error.current) == (game.id, 0, 1)
    assert f"game #{game.id}" in error.detail
    assert "expected version 0" in error.detail and "found version 1" in error.detail
    assert repr(error) == (f"Conflict({str(error)!r}, game_id={game.id}, expected=0, current=1)")


def test_every_storage_error_names_its_input_and_keeps_its_sentence() -> None:
    missing = GameNotFound(7)
    assert str(missing) == "There is no game #7."
    assert repr(missing) == "GameNotFound('There is no game #7.', game_id=7)"
    status = WrongStatus(3, "lobby", "active")
    assert "game_id=3" in repr(status) and "status='lobby'" in repr(status)
    assert "needed='active'" in status.detail and status.detail.startswith(str(status))
    raced = Conflict(5, None, None)
    assert "expected the latest version" in raced.detail and "another write won" in raced.detail
