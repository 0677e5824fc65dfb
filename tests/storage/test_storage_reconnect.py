"""PostgreSQL restarted under a running bot: its storage connects again (found by the chaos
soak, ``benchmarks/chaos.py``: after ``pg_ctl stop -m immediate`` and a start, every
read and write of every bot process failed with "connection is closed" until the
process itself was restarted).

For the client, a server's restart is its connections closed by the server:
``pg_terminate_backend`` does that to this store's connections, without stopping the
test session's shared server; ``ALLOW_CONNECTIONS false`` keeps it away meanwhile.
"""

from __future__ import annotations

import asyncpg
import pytest

import storage
from engine import get_game
from storage.errors import DatabaseUnavailable


async def admin(url: str, *statements: str) -> None:
    connection = await asyncpg.connect(url.rsplit("/", 1)[0] + "/postgres")
    try:
        for statement in statements:
            await connection.execute(statement)
    finally:
        await connection.close()


def cut_off(database: str) -> str:
    """Close every connection to ``database``, as a server restart would."""
    return (
        "SELECT pg_terminate_backend(pid) FROM pg_stat_activity"
        f" WHERE datname = '{database}' AND pid <> pg_backend_pid()"
    )


async def started_game(store: storage.Storage) -> int:
    lobby = await store.create_lobby(
        guild_id=1, channel_id=1, kind="workshop", options={}, host_id=1, host_name="a"
    )
    await store.join(lobby.id, 2, "b")
    return (await store.start(lobby.id, seed=3)).id


async def first_move(store: storage.Storage, game_id: int) -> int:
    game = await store.load(game_id)
    rules = get_game("workshop")
    (player,) = rules.to_act(game.state)
    action = rules.legal_actions(game.state, player)[0]
    return (await store.submit(game_id, player, action, game.version)).version


async def test_reads_and_writes_work_again_after_the_server_closed_the_connections(
    postgres_url: str,
) -> None:
    database = postgres_url.rsplit("/", 1)[1]
    async with await storage.open(postgres_url) as store:
        game_id = await started_game(store)
        await admin(postgres_url, cut_off(database))
        for _ in range(8):  # every reader finds its connection closed and opens another
            assert (await store.info(game_id)).status == "active"
        assert await first_move(store, game_id) == 1  # and the writer
        assert [a.seq for a in await store.log(game_id)] == [1]


async def test_while_the_server_is_away_the_store_says_so_and_comes_back(
    postgres_url: str,
) -> None:
    database = postgres_url.rsplit("/", 1)[1]
    async with await storage.open(postgres_url) as store:
        game_id = await started_game(store)
        await admin(
            postgres_url,
            f'ALTER DATABASE "{database}" ALLOW_CONNECTIONS false',
            cut_off(database),
        )
        try:
            with pytest.raises(DatabaseUnavailable) as raised:
                await store.info(game_id)
            assert str(raised.value) == "The database cannot be reached just now; try again soon."
            with pytest.raises(DatabaseUnavailable):
                await first_move(store, game_id)
        finally:
            await admin(postgres_url, f'ALTER DATABASE "{database}" ALLOW_CONNECTIONS true')
        assert await first_move(store, game_id) == 1


async def test_a_commit_waits_for_the_wal_whatever_the_servers_default(postgres_url: str) -> None:
    """An acknowledged move survives ``pg_ctl stop -m immediate`` only if its commit
    waited for the WAL (found by the chaos soak: with ``synchronous_commit = off`` a move
    acknowledged a moment before the stop was gone after the start). The test server
    runs with ``synchronous_commit = off``; the store's writer turns it on, unless the
    URL asks otherwise."""
    async with await storage.open(postgres_url) as store:
        assert await store._writer.fetchval("SHOW synchronous_commit") == "on"  # type: ignore[attr-defined]
    async with await storage.open(postgres_url + "?synchronous_commit=off") as store:
        assert await store._writer.fetchval("SHOW synchronous_commit") == "off"  # type: ignore[attr-defined]
