"""storage.export: a stored game as a record, on both backends.

A finished game's record replays from its seed to the stored state and outcome; a
running game's record holds only the public log and the spectator's board."""

from __future__ import annotations

import json

import pytest

from engine import get_game
from engine.core import Rng
from engine.ratings import strategies
from engine.records import PartialRecord, Record, replay
from engine.timeline import record_timeline
from engine.undo import effective_actions
from storage import LoadedGame, SqliteStorage
from storage.export import dump, finished_record, running_record, state_at


async def play(store: SqliteStorage, kind: str, seed: int, moves: int | None = None) -> LoadedGame:
    options = {"mode": "tactical"} if kind == "tonttu" else {}
    game = await store.create_lobby(
        guild_id=1, channel_id=10, kind=kind, options=options, host_id=100, host_name="Aino"
    )
    for n, name in ((101, "Bea"), (102, "Cai")):
        await store.join(game.id, n, name)
    await store.add_ai(game.id, "Elf")
    game = await store.start(game.id, seed)
    rules = get_game(kind)
    rng = Rng(seed)
    while game.status == "active" and (moves is None or game.version < moves):
        acting = [p for p in game.players if p in rules.to_act(game.state)]
        player = acting[rng.below(len(acting))]
        await store.submit(
            game.id, player, rng.choice(rules.legal_actions(game.state, player)), game.version
        )
        game = await store.load(game.id)
    return game


@pytest.mark.parametrize("kind", ["workshop", "tonttu"])
async def test_a_finished_games_record_replays_to_its_stored_state(
    store: SqliteStorage, kind: str
) -> None:
    game = await play(store, kind, seed=31)
    assert game.status == "finished"
    log = await store.log(game.id)
    record = Record.model_validate_json(dump(finished_record(game, log)))  # via the file
    assert [(a.player, a.action) for a in record.actions] == [
        (entry.player, dict(entry.action)) for entry in log
    ]
    assert record.names == {"100": "Aino", "101": "Bea", "102": "Cai", "ai:1": "Elf"}
    assert record.players == list(game.players) and record.moves == game.version
    rules = get_game(kind)
    final = replay(rules, record)
    assert final.model_dump(mode="json") == game.state.model_dump(mode="json")
    assert record.outcome == rules.outcome(final).model_dump(mode="json")  # type: ignore[union-attr]
    # a step of /replay: the state after n decisions, as the game stood then
    first = await store.log(game.id)
    middle = len(first) // 2
    expected = rules.new_game(record.players, 31, rules.parse_options(record.options))
    for entry in first[:middle]:
        expected, _ = rules.apply(expected, entry.player, rules.parse_action(entry.action))
    got = state_at(record, middle)
    assert got.model_dump(mode="json") == expected.model_dump(mode="json")
    assert (
        state_at(record, 0).model_dump()
        == rules.new_game(record.players, 31, rules.parse_options(record.options)).model_dump()
    )


@pytest.mark.parametrize("kind", ["workshop", "tonttu"])
async def test_a_running_games_record_has_no_seed_and_no_decision(
    store: SqliteStorage, kind: str
) -> None:
    game = await play(store, kind, seed=4_000_000_007, moves=25)
    assert game.status == "active"
    log = await store.log(game.id)
    with pytest.raises(ValueError):
        finished_record(game, log)
    data = dump(running_record(game, log))
    assert b'"seed"' not in data and b"4000000007" not in data and b'"actions"' not in data
    record = Record.model_validate_json(data)
    assert not record.finished and record.actions == [] and record.moves == 25
    assert [entry.move for entry in record.public_log or []] == list(range(1, 26))
    assert [e for entry in record.public_log or [] for e in entry.events] == [
        e for entry in log for e in entry.events
    ]
    rules = get_game(kind)
    assert record.board == json.loads(rules.view(game.state, None).model_dump_json())
    with pytest.raises(PartialRecord, match=r"cannot be\s+replayed"):
        replay(rules, record)


async def test_a_finished_game_with_undos_is_recorded_rated_and_charted_as_it_stands(
    store: SqliteStorage,
) -> None:
    """Undo entries (and the decisions they took back) are not decisions of the game:
    the record, the chart's replay and the favourite station leave them out."""
    game = await play(store, "workshop", seed=5, moves=1)
    rules = get_game("workshop")
    rng = Rng(8)
    undone = 0
    while game.status == "active":
        (player,) = [p for p in game.players if p in rules.to_act(game.state)]
        if await store.undo_window(game.id, player) and rng.below(3) == 0:
            await store.undo(game.id, player, game.version)
            undone += 1
        else:
            action = rng.choice(rules.legal_actions(game.state, player))
            await store.submit(game.id, player, action, game.version)
        game = await store.load(game.id)
    assert undone >= 5
    log = await store.log(game.id)
    record = finished_record(game, log)
    assert [(a.player, a.action) for a in record.actions] == [
        (e.player, dict(e.action)) for e in effective_actions(log)
    ]
    assert len(record.actions) == len(log) - 2 * undone
    final = replay(rules, record)
    assert final.model_dump(mode="json") == game.state.model_dump(mode="json")
    timeline = record_timeline(rules, record)
    assert timeline.final == rules.outcome(final).scores  # type: ignore[union-attr]
    await store.rate_finished_games()
    assert game.result is not None
    expected = strategies(
        "workshop", game.players, game.result, [(a.player, a.action) for a in record.actions]
    )
    for seat in game.seats:
        if seat.user_id is not None:
            (stats,) = await store.player_stats(1, str(seat.user_id), [10], "workshop")
            assert stats.favourite == expected[seat.player]
