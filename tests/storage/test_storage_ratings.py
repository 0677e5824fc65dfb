"""Ratings in storage: every finished game rated once (and abandoned ones never), the
rebuild equal to the incremental result, several processes at once, and the queries
of /stats and /leaderboard with the channels the asker can see."""

from __future__ import annotations

import asyncio
import io
import random
from collections.abc import Sequence

import pytest

from engine.ratings import INITIAL_MU
from storage import LoadedGame, SqliteStorage
from storage import open as open_storage
from storage.__main__ import main
from storage.errors import DatabaseUnavailable
from storage.ratings import RATING_TABLES
from tests.storage.conftest import FakeClock, raw, to_act
from tests.storage.race_game import Roll


async def table(
    store: SqliteStorage,
    channel: int,
    users: Sequence[int],
    *,
    guild: int = 1,
    computers: Sequence[str | None] = (),
    seed: int = 1,
    target: int = 6,
) -> LoadedGame:
    """A started race game in ``channel``: ``users`` (the first hosts), then computer
    seats at the given levels."""
    game = await store.create_lobby(
        guild_id=guild,
        channel_id=channel,
        kind="race",
        options={"target": target},
        host_id=users[0],
        host_name=f"User {users[0]}",
    )
    for user in users[1:]:
        await store.join(game.id, user, f"User {user}")
    for level in computers:
        await store.add_ai(game.id, level=level)
    return await store.start(game.id, seed)


async def play_out(store: SqliteStorage, game: LoadedGame) -> LoadedGame:
    while game.status == "active":
        await store.submit(game.id, to_act(game), Roll(), game.version)
        game = await store.load(game.id)
    return game


async def finished(
    store: SqliteStorage, channel: int, users: Sequence[int], **kw: object
) -> LoadedGame:
    return await play_out(store, await table(store, channel, users, **kw))  # type: ignore[arg-type]


async def derived_rows(url: str) -> dict[str, list[tuple[object, ...]]]:
    """Every row a rating pass writes, in a fixed order, with the order games were rated."""
    tables = {
        table: sorted(await raw(url, f"SELECT * FROM {table}"), key=repr) for table in RATING_TABLES
    }
    tables["games"] = await raw(url, "SELECT id, rating_seq FROM games ORDER BY id")
    return tables


async def test_a_finished_game_is_rated_once_for_its_server_and_globally(
    store: SqliteStorage, db_url: str
) -> None:
    game = await finished(store, 10, [100, 101, 102], guild=5, seed=3)
    assert game.result is not None
    winners = set(game.result["winners"])
    ratings = await store.all_ratings()
    assert {key[:2] for key in ratings} == {(5, "race"), (0, "race")}
    for guild in (5, 0):
        for player in game.players:
            mu, _sigma, games = ratings[(guild, "race", player)]
            assert games == 1
            if player in winners:
                assert mu > INITIAL_MU
    rows = await raw(
        db_url,
        "SELECT identity, score, won, placement, channel_id FROM game_results"
        " WHERE game_id = ? ORDER BY position",
        game.id,
    )
    assert [row[0] for row in rows] == list(game.players)
    assert [row[1] for row in rows] == [game.result["scores"][p] for p in game.players]
    assert {row[0] for row in rows if row[2]} == winners
    assert all(row[3] == 1 for row in rows if row[2]) and all(row[4] == 10 for row in rows)
    # A second pass finds nothing to do: the game counts once.
    assert await store.rate_finished_games() == 0
    assert await store.all_ratings() == ratings


async def test_abandoned_games_are_not_rated(store: SqliteStorage) -> None:
    game = await table(store, 10, [100, 101])
    await store.submit(game.id, to_act(game), Roll(), game.version)
    await store.abandon(game.id)
    assert await store.rate_finished_games() == 0
    assert await store.all_ratings() == {}
    assert await store.player_stats(1, "100", {10}) == []


async def test_computers_are_rated_as_their_level(store: SqliteStorage) -> None:
    game = await finished(store, 10, [100], computers=["strong", "strong", None], seed=4)
    ratings = await store.all_ratings()
    identities = {key[2] for key in ratings if key[0] == 1}
    # The two "strong" seats are one identity; a seat without a level is the default's.
    assert identities == {"100", "ai:strong", "ai:greedy"}
    assert ratings[(1, "race", "ai:strong")][2] == 1  # one game, though two seats
    stats = await store.player_stats(1, "ai:strong", {10})
    assert stats[0].games == 2  # each seat is counted as a game played
    assert game.status == "finished"


async def test_rebuild_equals_the_incremental_ratings_over_random_games(
    store: SqliteStorage, clock: FakeClock, db_url: str
) -> None:
    rng = random.Random(14)
    people = list(range(200, 209))
    for _game in range(40):
        seats = rng.sample(people, rng.randint(1, 4))
        computers = [rng.choice(["random", "greedy", "strong"]) for _ in range(rng.randint(0, 2))]
        if len(seats) + len(computers) < 2:
            computers.append("random")
        game = await table(
            store,
            channel=rng.choice([10, 11, 12]),
            users=seats,
            guild=rng.choice([1, 2]),
            computers=computers[: 4 - len(seats)],
            seed=rng.randrange(10**6),
            target=rng.randint(3, 9),
        )
        if rng.random() < 0.15:
            await store.abandon(game.id)
        else:
            await play_out(store, game)
        clock.advance(minutes=rng.randint(1, 30))
    incremental = await store.all_ratings()
    derived = await derived_rows(db_url)
    assert len({key[2] for key in incremental}) > 8
    out = io.StringIO()
    assert await asyncio.to_thread(main, ["ratings", "--rebuild", db_url], out) == 0
    assert "Rebuilt the ratings of" in out.getvalue()
    assert await store.all_ratings() == incremental
    assert await derived_rows(db_url) == derived
    # A pass over a backlog (as after the upgrade) rates many games in one batch: the same.
    for derived_table in RATING_TABLES:
        await raw(db_url, f"DELETE FROM {derived_table}")
    await raw(db_url, "UPDATE games SET rating_seq = NULL")
    rated = sum(1 for _game_id, seq in derived["games"] if seq is not None)
    assert await store.rate_finished_games() == rated
    assert await derived_rows(db_url) == derived


async def test_several_processes_rate_each_game_once(db_url: str, clock: FakeClock) -> None:
    """Two storages on one database (as two bot processes) finish games at once; every
    game is rated exactly once and no update is lost (the rebuild agrees)."""
    first = await open_storage(db_url, clock=clock)
    second = await open_storage(db_url, clock=clock)
    try:
        games = [
            await table(store, 50 + n, [300 + n % 3, 301 + n % 3], seed=n, target=8)
            for n, store in enumerate([first, second] * 6)
        ]

        async def play(store: SqliteStorage, game: LoadedGame) -> None:
            await play_out(store, game)
            await store.rate_finished_games()  # as a restarting process would, meanwhile

        await asyncio.gather(
            *(play(first if n % 2 else second, game) for n, game in enumerate(games))
        )
        rated = await raw(
            db_url,
            "SELECT count(*), count(DISTINCT rating_seq) FROM games WHERE rating_seq IS NOT NULL",
        )
        assert rated == [(12, 12)]
        seats = await raw(db_url, "SELECT count(*) FROM game_results")
        assert seats == [(24,)]
        incremental = await first.all_ratings()
        assert (
            sum(games for (scope, _k, _i), (_m, _s, games) in incremental.items() if scope == 0)
            == 24
        )
        await first.rebuild_ratings()
        assert await second.all_ratings() == incremental
    finally:
        await first.close()
        await second.close()


async def test_stats_count_only_the_games_of_visible_channels(store: SqliteStorage) -> None:
    public = [await finished(store, 10, [100, 101], seed=s) for s in range(3)]
    private = await finished(store, 99, [100, 101], seed=7)
    await finished(store, 10, [100, 101], guild=2, seed=8)  # another server

    everything = await store.player_stats(1, "100", {10, 99})
    visible = await store.player_stats(1, "100", {10})
    (all_race,), (seen,) = everything, visible
    assert all_race.games == 4 and seen.games == 3
    scores = [g.result["scores"]["100"] for g in public if g.result]
    assert seen.best_score == max(scores)
    assert abs(seen.average_score - sum(scores) / 3) < 1e-9
    wins = sum("100" in g.result["winners"] for g in public if g.result)
    assert seen.wins == wins
    assert seen.rating == all_race.rating is not None  # the rating counts every game
    assert seen.rating.games == 4
    assert seen.global_rating is not None and seen.global_rating.games == 5
    assert private.status == "finished"
    assert await store.player_stats(1, "100", set()) == []
    assert await store.player_stats(1, "100", {10}, kind="workshop") == []
    assert await store.player_stats(1, "555", {10}) == []


async def test_leaderboard_needs_enough_visible_games(store: SqliteStorage) -> None:
    for seed in range(3):
        await finished(store, 10, [100, 101], seed=seed)
    for seed in range(3):
        await finished(store, 99, [102, 101], seed=seed)
    board = await store.leaderboard(1, "race", {10, 99})
    assert {entry.identity for entry in board} == {"100", "101", "102"}
    ordinals = [entry.rating.ordinal for entry in board]
    assert ordinals == sorted(ordinals, reverse=True)
    assert next(e for e in board if e.identity == "101").games == 6
    # Without the private channel, 102's games are not counted, so 102 is not listed.
    public = await store.leaderboard(1, "race", {10})
    assert {entry.identity for entry in public} == {"100", "101"}
    assert next(e for e in public if e.identity == "101").games == 3
    assert await store.leaderboard(1, "race", {10}, min_games=4) == []
    assert await store.leaderboard(2, "race", {10}) == []


async def test_a_game_whose_result_cannot_be_read_does_not_stop_the_others(
    store: SqliteStorage, db_url: str
) -> None:
    broken = await table(store, 10, [100, 101], seed=1)
    await raw(
        db_url, "UPDATE games SET status = 'finished', result = 'not json' WHERE id = ?", broken.id
    )
    game = await finished(store, 11, [102, 103], seed=2)
    assert {key[2] for key in await store.all_ratings()} == {"102", "103"}
    rated = await raw(db_url, "SELECT id FROM games WHERE rating_seq IS NOT NULL ORDER BY id")
    assert rated == [(broken.id,), (game.id,)]  # looked at once, and skipped


async def test_a_rating_pass_that_meets_the_database_away_logs_one_line(
    store: SqliteStorage, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """Found by the chaos soak: a game finished just as PostgreSQL stopped, and its
    rating pass logged a traceback. The database away is a fault, not a bug: one warning
    line; the game stays queued and the next pass rates it."""
    rate = store.rate_finished_games

    async def away() -> int:
        raise DatabaseUnavailable("the database is away")

    monkeypatch.setattr(store, "rate_finished_games", away)
    game = await finished(store, 10, [100, 101], seed=1)
    assert game.status == "finished"  # the finishing move is stored all the same
    (line,) = [r for r in caplog.records if r.name == "storage.ratings"]
    assert line.levelname == "WARNING" and line.exc_info is None
    assert await store.all_ratings() == {}
    assert await rate() == 1
    assert {key[2] for key in await store.all_ratings()} == {"100", "101"}
