"""Lobbies and seats; one open game per channel, enforced by the schema even under races."""

from __future__ import annotations

import asyncio
import sqlite3

import asyncpg
import pytest

import storage
from engine.core import InvalidSetup
from storage import (
    AlreadySeated,
    ChannelBusy,
    GameNotFound,
    LobbyFull,
    NotSeated,
    SqliteStorage,
    UnknownGame,
    WrongStatus,
)
from tests.storage.conftest import FakeClock, lobby, raw, started, to_act
from tests.storage.race_game import GAME, Roll


async def test_a_lobby_seats_players_in_the_order_they_join(
    store: SqliteStorage, clock: FakeClock
) -> None:
    game = await store.create_lobby(
        guild_id=1, channel_id=10, kind="race", options={"target": 20}, host_id=7, host_name="Ann"
    )
    assert (game.status, game.version, game.state, game.host_id) == ("lobby", 0, None, 7)
    assert game.options == {"target": 20}
    assert game.created_at == clock.now
    clock.advance(seconds=5)
    await store.join(game.id, 9, "Bo")
    game = await store.add_ai(game.id)
    assert game.players == ("7", "9", "ai:1")  # W-1.2: seat order is the order of joining
    assert game.names == {"7": "Ann", "9": "Bo", "ai:1": "AI 1"}
    assert [seat.is_ai for seat in game.seats] == [False, False, True]
    assert game.seats[1].user_id == 9
    assert game.updated_at == clock.now


async def test_table_settings_are_kept_apart_from_engine_options(store: SqliteStorage) -> None:
    game = await store.create_lobby(
        guild_id=1,
        channel_id=11,
        kind="race",
        options={"target": 20},
        host_id=7,
        host_name="Ann",
        settings={"reminder_hours": 6, "turn_limit_hours": None},
    )
    assert game.settings == {"reminder_hours": 6, "turn_limit_hours": None}
    await store.join(game.id, 9, "Bo")
    started_game = await store.start(game.id, seed=3)
    assert started_game.settings == {"reminder_hours": 6, "turn_limit_hours": None}
    assert (await store.info(game.id)).settings == game.settings
    plain = await store.create_lobby(
        guild_id=1, channel_id=12, kind="race", options=None, host_id=7, host_name="Ann"
    )
    assert plain.settings == {}


async def test_each_computer_seat_keeps_its_level(store: SqliteStorage) -> None:
    game = await lobby(store, 10, players=1)
    await store.add_ai(game.id, level="strong")
    game = await store.add_ai(game.id)
    assert [(s.player, s.level) for s in game.seats] == [
        ("100", None),
        ("ai:1", "strong"),
        ("ai:2", None),  # no level given: the table's
    ]
    started = await store.start(game.id, seed=1)
    assert (await store.load(started.id)).seats == game.seats


async def test_leaving_keeps_the_order_of_the_others(store: SqliteStorage) -> None:
    game = await lobby(store, 10, players=3)
    await store.add_ai(game.id, "Robo")
    game = await store.leave(game.id, "101")
    assert game.players == ("100", "102", "ai:1")
    game = await store.join(game.id, 101, "Back again")
    assert game.players == ("100", "102", "ai:1", "101")
    game = await store.leave(game.id, "ai:1")
    game = await store.add_ai(game.id)
    assert game.players == ("100", "102", "101", "ai:1")  # the lowest free AI number again


async def test_seat_errors_are_sentences(store: SqliteStorage) -> None:
    game = await lobby(store, 10, players=2)
    with pytest.raises(AlreadySeated, match="already have a seat"):
        await store.join(game.id, 101, "Again")
    with pytest.raises(NotSeated):
        await store.leave(game.id, "555")
    await store.add_ai(game.id)
    await store.add_ai(game.id)
    with pytest.raises(LobbyFull, match="at most 4"):
        await store.join(game.id, 999, "Late")
    with pytest.raises(GameNotFound, match="#4242"):
        await store.join(4242, 1, "Nobody")


async def test_unknown_games_and_bad_options_are_refused_before_writing(
    store: SqliteStorage,
) -> None:
    with pytest.raises(UnknownGame, match="chess"):
        await store.create_lobby(
            guild_id=1, channel_id=10, kind="chess", options=None, host_id=1, host_name="A"
        )
    with pytest.raises(InvalidSetup):
        await store.create_lobby(
            guild_id=1, channel_id=10, kind="race", options={"target": 1}, host_id=1, host_name="A"
        )
    assert await store.list_games() == []


async def test_start_builds_the_engine_state_from_the_seats(store: SqliteStorage) -> None:
    game = await lobby(store, 10, players=2, options={"target": 30})
    await store.add_ai(game.id)
    game = await store.start(game.id, seed=99)
    expected = GAME.new_game(["100", "101", "ai:1"], 99, GAME.parse_options({"target": 30}))
    assert game.state == expected
    assert (game.status, game.seed, game.version) == ("active", 99, 0)
    assert (await store.load(game.id)).state == expected
    with pytest.raises(WrongStatus, match="active"):
        await store.join(game.id, 5, "Too late")
    with pytest.raises(WrongStatus):
        await store.start(game.id, seed=1)


async def test_a_start_the_engine_refuses_writes_nothing(store: SqliteStorage) -> None:
    game = await lobby(store, 10, players=1)
    with pytest.raises(InvalidSetup, match="2 to 4"):
        await store.start(game.id, seed=1)
    game = await store.load(game.id)
    assert (game.status, game.seed, game.state) == ("lobby", None, None)


async def test_a_second_game_in_a_channel_names_the_first(store: SqliteStorage) -> None:
    first = await lobby(store, 10)
    with pytest.raises(ChannelBusy) as caught:
        await lobby(store, 10)
    assert caught.value.game_id == first.id
    assert f"#{first.id}" in str(caught.value) and "lobby" in str(caught.value)
    await store.start(first.id, seed=1)
    with pytest.raises(ChannelBusy, match="active"):
        await lobby(store, 10)
    other = await lobby(store, 11)  # other channels are free
    assert other.id != first.id


async def test_abandoning_or_finishing_frees_the_channel(store: SqliteStorage) -> None:
    game = await lobby(store, 10)
    await store.abandon(game.id)
    assert await store.find_open(10) is None
    assert (await store.info(game.id)).status == "abandoned"
    with pytest.raises(WrongStatus):
        await store.abandon(game.id)
    game = await started(store, 10, players=2, options={"target": 3})
    while game.status == "active":
        await store.submit(game.id, to_act(game), Roll(), game.version)
        game = await store.load(game.id)
    assert game.status == "finished"
    assert await store.find_open(10) is None
    assert (await lobby(store, 10)).status == "lobby"


async def test_racing_creates_in_one_channel_make_exactly_one_game(db_url: str) -> None:
    # Two Storage objects are two writer connections, as two processes would have:
    # the race is decided by SQLite's lock and the partial unique index.
    first, second = await storage.open(db_url), await storage.open(db_url)
    try:

        async def create(store: SqliteStorage, host: int) -> int | ChannelBusy:
            try:
                game = await store.create_lobby(
                    guild_id=1,
                    channel_id=10,
                    kind="race",
                    options=None,
                    host_id=host,
                    host_name=f"H{host}",
                )
            except ChannelBusy as error:
                return error
            return game.id

        results = await asyncio.gather(*(create(first if n % 2 else second, n) for n in range(20)))
        created = [r for r in results if isinstance(r, int)]
        refused = [r for r in results if isinstance(r, ChannelBusy)]
        assert len(created) == 1 and len(refused) == 19
        assert {error.game_id for error in refused} == set(created)
        assert len(await first.list_games()) == 1
    finally:
        await first.close()
        await second.close()


async def test_the_schema_itself_refuses_a_second_open_game(
    store: SqliteStorage, db_url: str
) -> None:
    await lobby(store, 10)
    insert = (
        "INSERT INTO games (guild_id, channel_id, host_id, kind, status, created_at, updated_at)"
        " VALUES (1, 10, 1, 'race', ?, 0, 0)"
    )
    with pytest.raises((sqlite3.IntegrityError, asyncpg.UniqueViolationError)):
        await raw(db_url, insert, "active")
    await raw(db_url, insert, "finished")  # closed games may pile up in a channel
    await raw(db_url, insert, "abandoned")


async def test_threads_and_message_ids_are_remembered(store: SqliteStorage) -> None:
    game = await lobby(store, 10)
    await store.set_thread(game.id, 5000)
    await store.set_message(game.id, "lobby", 1)
    await store.set_message(game.id, "board", 2)
    await store.set_message(game.id, "lobby", 3)  # replaced
    await store.set_message(game.id, "board", None)  # forgotten
    found = await store.find_open(5000)  # an interaction inside the game's thread
    assert found is not None and found.id == game.id and found.thread_id == 5000
    assert found.messages == {"lobby": 3}
    assert (await store.find_open(10)) == found
    assert await store.find_open(12345) is None
    with pytest.raises(GameNotFound):
        await store.set_thread(999, 1)
    with pytest.raises(GameNotFound):
        await store.set_message(999, "board", 1)


async def test_list_games_filters_by_guild_and_status(store: SqliteStorage) -> None:
    a = await lobby(store, 10, guild=1)
    b = await started(store, 11, guild=1)
    c = await lobby(store, 12, guild=2)
    assert [g.id for g in await store.list_games()] == [a.id, b.id, c.id]
    assert [g.id for g in await store.list_games(guild_id=1)] == [a.id, b.id]
    assert [g.id for g in await store.list_games(statuses=["lobby"])] == [a.id, c.id]
