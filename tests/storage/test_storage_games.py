"""Every game the engine knows, played through storage with only the Game protocol.

These tests use nothing specific to a game: they run for the fake ``race`` game
always, and for ``workshop`` and ``tonttu`` whenever those engines are present.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest

from engine import get_game
from engine.core import TIMER, Game, Rng
from engine.records import pick_random
from storage import Conflict, LoadedGame, SqliteStorage
from tests.storage.conftest import FakeClock

MAX_ACTIONS = 400  # keeps long real games quick; the log is audited either way


def game_or_skip(kind: str) -> Game:
    try:
        return get_game(kind)
    except (ImportError, KeyError, AttributeError) as error:
        pytest.skip(f"the {kind} engine is not here yet ({error})")


async def seated(store: SqliteStorage, game: Game, channel: int, seed: int) -> LoadedGame:
    """A started game with the minimum seats: humans, and one AI seat when there is room."""
    lobby = await store.create_lobby(
        guild_id=1, channel_id=channel, kind=game.name, options=None, host_id=100, host_name="Host"
    )
    humans = game.min_players - 1 if game.min_players > 1 else 1
    for n in range(1, humans):
        await store.join(lobby.id, 100 + n, f"Player {n}")
    await store.add_ai(lobby.id)
    return await store.start(lobby.id, seed)


KINDS = ["race", "workshop", "tonttu"]


@pytest.mark.parametrize("kind", KINDS)
async def test_a_game_played_through_storage_replays_to_its_snapshot(
    store: SqliteStorage, clock: FakeClock, kind: str
) -> None:
    game = game_or_skip(kind)
    loaded = await seated(store, game, 10, seed=2024)
    assert any(seat.is_ai for seat in loaded.seats)
    state, version, rng = loaded.state, loaded.version, Rng(2024)
    for _ in range(MAX_ACTIONS):
        if game.outcome(state) is not None:
            break
        timer_actions = game.legal_actions(state, TIMER)
        if timer_actions and rng.below(4) == 0:
            player, action = TIMER, timer_actions[0]
        else:
            player, action = pick_random(game, state, rng)
        clock.advance(seconds=1)
        # Half of the actions arrive as the JSON dict a button would carry.
        sent: Any = action.model_dump(mode="json") if rng.below(2) else action
        expected_state, expected_events = game.apply(state, player, action)
        state, events, version = await store.submit(loaded.id, player, sent, version)
        assert state.model_dump(mode="json") == expected_state.model_dump(mode="json")
        assert [e.model_dump(mode="json") for e in events] == [
            e.model_dump(mode="json") for e in expected_events
        ]
    reloaded = await store.load(loaded.id)
    assert reloaded.version == version == len(await store.log(loaded.id))
    assert reloaded.state.model_dump(mode="json") == state.model_dump(mode="json")
    report = await store.replay(loaded.id)
    assert report.ok, report.problem
    outcome = game.outcome(state)
    assert (reloaded.status == "finished") == (outcome is not None)
    if outcome is not None:
        assert reloaded.result == json.loads(outcome.model_dump_json())
        assert [g.id for g in await store.history(1)] == [loaded.id]


@pytest.mark.parametrize("kind", KINDS)
async def test_twenty_racing_copies_of_a_legal_action_apply_once(
    store: SqliteStorage, kind: str
) -> None:
    game = game_or_skip(kind)
    loaded = await seated(store, game, 10, seed=7)
    player, action = pick_random(game, loaded.state, Rng(7))

    async def attempt() -> bool:
        try:
            await store.submit(loaded.id, player, action, loaded.version)
        except Conflict:
            return False
        return True

    results = await asyncio.gather(*(attempt() for _ in range(20)))
    assert results.count(True) == 1
    assert [entry.seq for entry in await store.log(loaded.id)] == [1]
    assert (await store.replay(loaded.id)).ok
