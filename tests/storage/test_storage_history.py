"""Per-guild history of finished games, for stats."""

from __future__ import annotations

from storage import SqliteStorage
from tests.storage.conftest import FakeClock, started, to_act
from tests.storage.race_game import GAME, Roll


async def finish(store: SqliteStorage, channel: int, guild: int, seed: int) -> int:
    game = await started(store, channel, guild=guild, players=2, seed=seed, options={"target": 5})
    while game.status == "active":
        await store.submit(game.id, to_act(game), Roll(), game.version)
        game = await store.load(game.id)
    return game.id


async def test_history_lists_a_guilds_finished_games_newest_first(
    store: SqliteStorage, clock: FakeClock
) -> None:
    first = await finish(store, 10, guild=1, seed=1)
    clock.advance(hours=1)
    second = await finish(store, 10, guild=1, seed=2)
    clock.advance(hours=1)
    await finish(store, 20, guild=2, seed=3)
    clock.advance(hours=1)
    running = await started(store, 10, guild=1)
    abandoned = await started(store, 11, guild=1)
    await store.abandon(abandoned.id)

    history = await store.history(1)
    assert [game.id for game in history] == [second, first]
    assert running.id not in {game.id for game in history}
    for game in history:
        loaded = await store.load(game.id)
        outcome = GAME.outcome(loaded.state)
        assert outcome is not None
        assert game.result == outcome.model_dump(mode="json")
        assert set(game.result["scores"]) == set(game.players)
        assert game.names == {"100": "Host", "101": "Player 1"}
    assert [game.id for game in await store.history(1, limit=1)] == [second]
    assert await store.history(1, kind="workshop") == []
    assert len(await store.history(2)) == 1
    assert await store.history(3) == []


async def test_history_keeps_only_the_games_of_the_channels_given(
    store: SqliteStorage, clock: FakeClock
) -> None:
    """The channel filter is in SQL, with ``limit`` applied after it: a member who sees
    one channel gets that channel's newest games, not a share of the server's newest."""
    seen = [await finish(store, 10, guild=1, seed=s) for s in (1, 2)]
    clock.advance(hours=1)
    hidden = [await finish(store, 20, guild=1, seed=s) for s in (3, 4, 5)]
    clock.advance(hours=1)
    other_guild = await finish(store, 30, guild=2, seed=6)

    assert [g.id for g in await store.history(1, channel_ids={10})] == seen[::-1]
    assert [g.id for g in await store.history(1, channel_ids=[10], limit=1)] == [seen[1]]
    assert [g.id for g in await store.history(1, channel_ids={20, 99})] == hidden[::-1]
    both = {g.id for g in await store.history(1, channel_ids=frozenset({10, 20}))}
    assert both == set(seen) | set(hidden)
    assert await store.history(1, channel_ids=set()) == []  # sees no channel: no game
    assert await store.history(1, channel_ids={30}) == []  # another server's channel
    assert [g.id for g in await store.history(2, channel_ids={30})] == [other_guild]
    assert len(await store.history(1)) == 5  # no filter: every channel
    # a server's worth of channels (up to 500) as parameters
    many = {10, *range(1_000_000, 1_000_499)}
    assert {g.id for g in await store.history(1, channel_ids=many)} == set(seen)
